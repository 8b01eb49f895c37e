/**
 * The ledger figures of one view, parsed ONCE into exact scaled integers (scaled.ts) and grouped per
 * company, account and key: Validate reads each company's functional total, Translate the cells.
 *
 * Cost per figure: one amount parse (string → BigInt), one Map lookup of its account and an append
 * to that account's cells — no Decimal, no per-figure object. Everything after this is per account.
 *
 * Figures that Translate must refuse (unknown account, missing date, date after the view, no group
 * period) are recorded as the company's error, and thrown by Translate when it reaches the company —
 * the same message, at the same step, as when Translate read the figures itself.
 */
import type { DecimalInput } from '../money.ts';
import { pow10, scaledToString, scaleOf, toScaled } from './scaled.ts';
import { groupPeriodIndexOf, type Setup } from './setup.ts';
import type {
  AccountInfo,
  CompanyInput,
  CompanyLedger,
  LedgerColumns,
  LedgerFigure,
  ViewData,
} from './types.ts';

/** Amounts of a key-ordered list of an account's figures; keys: a date, or a group-period index. */
export class Cells<K extends string | number> {
  readonly keys: K[] = [];
  readonly amounts: bigint[] = [];
  private ordered = true;

  constructor(readonly info: AccountInfo) {}

  add(key: K, amount: bigint): void {
    const last = this.keys.length - 1;
    if (last >= 0) {
      const k = this.keys[last]!;
      if (k === key) {
        this.amounts[last]! += amount;
        return;
      }
      if (key < k) this.ordered = false;
    }
    this.keys.push(key);
    this.amounts.push(amount);
  }

  /** Calls `f` once per key, in key order, with the key's total. */
  forEach(f: (key: K, amount: bigint) => void): void {
    if (this.ordered) {
      for (let i = 0; i < this.keys.length; i++) f(this.keys[i]!, this.amounts[i]!);
      return;
    }
    const order = this.keys
      .map((_, i) => i)
      .sort((a, b) => {
        const ka = this.keys[a]!;
        const kb = this.keys[b]!;
        return ka < kb ? -1 : ka > kb ? 1 : 0;
      });
    let i = 0;
    while (i < order.length) {
      const key = this.keys[order[i]!]!;
      let total = 0n;
      while (i < order.length && this.keys[order[i]!] === key) total += this.amounts[order[i++]!]!;
      f(key, total);
    }
  }
}

export interface PreparedCompany {
  company: CompanyInput;
  /** Σ of every figure (scaled) */
  total: bigint;
  /** monetary Asset/Liability accounts: Σ per account number */
  monetary: Map<string, bigint>;
  /** Equity and non-monetary accounts: per transaction date (a company not in G) or one key '' */
  historical: Map<string, Cells<string>>;
  /** Revenue/Expense from yearStartDate on, and before it: per group-period index (not in G) or key 0 */
  ytd: Map<string, Cells<number>>;
  prior: Map<string, Cells<number>>;
  /** the first figure Translate must refuse */
  error: Error | null;
}

export interface PreparedView {
  /** fraction digits of every scaled amount of the view */
  scale: number;
  /** the included companies (with or without figures) */
  companies: Map<string, PreparedCompany>;
}

/** Amount scale tried first: NUMERIC(28, 8) ledger amounts. */
const DEFAULT_SCALE = 8;

class NeedsScale extends Error {}

const prepared = new WeakMap<Setup, Map<ViewData, PreparedView>>();

/** The view's figures, prepared once per run (Validate and Translate share them). */
export function preparedView(setup: Setup, data: ViewData): PreparedView {
  let views = prepared.get(setup);
  if (!views) {
    views = new Map();
    prepared.set(setup, views);
  }
  let view = views.get(data);
  if (!view) {
    view = prepare(setup, data);
    views.set(data, view);
  }
  return view;
}

function prepare(setup: Setup, data: ViewData): PreparedView {
  let scale = DEFAULT_SCALE;
  for (const l of data.ledgers) {
    if (l.columns && setup.includedIds.has(l.companyId)) scale = Math.max(scale, l.columns.scale);
  }
  try {
    return prepareAt(setup, data, scale);
  } catch (e) {
    if (!(e instanceof NeedsScale)) throw e;
  }
  // Some amount has more fraction digits: use the largest any amount needs.
  for (const l of data.ledgers) {
    if (l.columns || !setup.includedIds.has(l.companyId)) continue;
    for (const f of l.figures) scale = Math.max(scale, scaleOf(f.amount));
  }
  return prepareAt(setup, data, scale);
}

function parse(amount: DecimalInput, scale: number): bigint {
  const v = toScaled(amount, scale);
  if (v === null) throw new NeedsScale();
  return v;
}

function prepareAt(setup: Setup, data: ViewData, scale: number): PreparedView {
  const companies = new Map<string, PreparedCompany>();
  for (const c of setup.included) {
    companies.set(c.companyId, {
      company: c,
      total: 0n,
      monetary: new Map(),
      historical: new Map(),
      ytd: new Map(),
      prior: new Map(),
      error: null,
    });
  }
  const periodIndex = new Map<string, number>();
  for (const l of data.ledgers) {
    const p = companies.get(l.companyId);
    if (!p) continue;
    const c = p.company;
    const foreign = c.functionalCurrency !== setup.G;
    const accounts = setup.accounts.get(c.companyId) ?? new Map<string, AccountInfo>();
    /** Files one figure (amount at `scale`) under its account and key. */
    const file = (accountNumber: string, date: string | null, amount: bigint): void => {
      p.total += amount;
      if (p.error) return;
      const a = accounts.get(accountNumber);
      if (!a) {
        p.error = new Error(`Ledger figure for unknown account ${accountNumber} of company ${c.companyId}`);
        return;
      }
      const t = a.accountType;
      if ((t === 'Asset' || t === 'Liability') && !a.isNonMonetary) {
        p.monetary.set(a.accountNumber, (p.monetary.get(a.accountNumber) ?? 0n) + amount);
      } else if (t === 'Asset' || t === 'Liability' || t === 'Equity') {
        if (foreign && date === null) {
          p.error = new Error(
            `Ledger figure of account ${a.accountNumber} of company ${c.companyId} needs a date`,
          );
          return;
        }
        cellsOf(p.historical, a).add(foreign ? date! : '', amount);
      } else {
        const q = incomeKey(setup, data, c, a, date, foreign, periodIndex);
        if (q instanceof Error) p.error = q;
        else cellsOf(date! < data.yearStartDate ? p.prior : p.ytd, a).add(q, amount);
      }
    };
    const cols = l.columns;
    if (cols) {
      const up = cols.scale === scale ? 1n : pow10(scale - cols.scale);
      for (let i = 0; i < cols.units.length; i++) {
        file(cols.accountNumbers[i]!, cols.dates[i]!, up === 1n ? cols.units[i]! : cols.units[i]! * up);
      }
    } else {
      for (const f of l.figures) file(f.accountNumber, f.date, parse(f.amount, scale));
    }
  }
  return { scale, companies };
}

/** The group-period index of a Revenue/Expense figure (0 for a company in G), or the error. */
function incomeKey(
  setup: Setup,
  data: ViewData,
  c: CompanyInput,
  a: AccountInfo,
  date: string | null,
  foreign: boolean,
  periodIndex: Map<string, number>,
): number | Error {
  if (date === null) {
    return new Error(
      `Revenue/expense figure of account ${a.accountNumber} of company ${c.companyId} needs a date`,
    );
  }
  if (date > data.asOfDate) {
    return new Error(`Ledger figure dated ${date} after the view date ${data.asOfDate}`);
  }
  if (!foreign) return 0;
  let q = periodIndex.get(date);
  if (q === undefined) {
    try {
      q = groupPeriodIndexOf(setup, date);
    } catch (e) {
      return e instanceof Error ? e : new Error(String(e));
    }
    periodIndex.set(date, q);
  }
  return q;
}

function cellsOf<K extends string | number>(map: Map<string, Cells<K>>, a: AccountInfo): Cells<K> {
  let cells = map.get(a.accountNumber);
  if (!cells) {
    cells = new Cells<K>(a);
    map.set(a.accountNumber, cells);
  }
  return cells;
}

/**
 * A company ledger given as columns; its `figures` are built from the columns when first read (one
 * object per figure, amounts as fixed-point text), so a caller that only runs the engine never pays
 * for them.
 */
export function columnLedger(companyId: string, columns: LedgerColumns): CompanyLedger {
  let figures: LedgerFigure[] | null = null;
  return {
    companyId,
    columns,
    get figures(): LedgerFigure[] {
      figures ??= columns.units.map((u, i) => ({
        accountNumber: columns.accountNumbers[i]!,
        date: columns.dates[i]!,
        amount: scaledToString(u, columns.scale),
      }));
      return figures;
    },
  };
}
