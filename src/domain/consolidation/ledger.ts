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
  readonly keys: K[];
  readonly amounts: bigint[];
  private ordered = true;

  /**
   * With its first cell: arrays made from a literal hold just it, where arrays grown from empty
   * reserve room for sixteen at once (a large run keeps the cells of tens of thousands of accounts,
   * many with one, to its end, and its collections copy what is kept).
   */
  constructor(
    readonly info: AccountInfo,
    key: K,
    amount: bigint,
  ) {
    this.keys = [key];
    this.amounts = [amount];
  }

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

  /** Orders the cells by key and merges equal keys, in place (once). */
  normalize(): this {
    if (this.ordered) return this;
    const { keys, amounts } = this;
    if (keys.length > 64) {
      const order = keys
        .map((_, i) => i)
        .sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0));
      const k = order.map((i) => keys[i]!);
      const v = order.map((i) => amounts[i]!);
      for (let i = 0; i < k.length; i++) {
        keys[i] = k[i]!;
        amounts[i] = v[i]!;
      }
    }
    // insertion sort (a no-op after the sort above): an account has a few cells per month
    for (let i = 1; i < keys.length; i++) {
      const k = keys[i]!;
      const v = amounts[i]!;
      let j = i - 1;
      while (j >= 0 && keys[j]! > k) {
        keys[j + 1] = keys[j]!;
        amounts[j + 1] = amounts[j]!;
        j--;
      }
      keys[j + 1] = k;
      amounts[j + 1] = v;
    }
    let n = 0;
    for (let i = 0; i < keys.length; i++) {
      if (n > 0 && keys[n - 1] === keys[i]) amounts[n - 1]! += amounts[i]!;
      else {
        keys[n] = keys[i]!;
        amounts[n] = amounts[i]!;
        n++;
      }
    }
    keys.length = n;
    amounts.length = n;
    this.ordered = true;
    return this;
  }
}

export interface PreparedCompany {
  company: CompanyInput;
  /** Σ of every figure (scaled) */
  total: bigint;
  /** monetary Asset/Liability accounts: Σ per account number */
  monetary: Map<string, bigint>;
  /**
   * Movements of the monetary accounts of a company not in G dated within the view's year, per
   * group-period index (from the dated figures; the cash-flow statement's translation differences)
   */
  monetaryYtd: Map<string, Cells<number>>;
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
      monetaryYtd: new Map(),
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
    // Figures of one account usually come one after the other: its look-ups are kept for the next.
    let lastNumber: string | null = null;
    let a: AccountInfo | undefined;
    let kind = 0; // 1 monetary, 2 historical, 3 revenue/expense
    let historical: Cells<string> | null = null;
    let ytd: Cells<number> | null = null;
    let prior: Cells<number> | null = null;
    /** Files one figure (amount at `scale`) under its account and key. */
    const file = (accountNumber: string, date: string | null, amount: bigint): void => {
      p.total += amount;
      if (p.error) return;
      if (accountNumber !== lastNumber) {
        lastNumber = accountNumber;
        a = accounts.get(accountNumber);
        historical = ytd = prior = null;
        const t = a?.accountType;
        kind =
          (t === 'Asset' || t === 'Liability') && !a!.isNonMonetary
            ? 1
            : t === 'Asset' || t === 'Liability' || t === 'Equity'
              ? 2
              : 3;
      }
      if (!a) {
        p.error = new Error(`Ledger figure for unknown account ${accountNumber} of company ${c.companyId}`);
        return;
      }
      if (kind === 1) {
        p.monetary.set(a.accountNumber, (p.monetary.get(a.accountNumber) ?? 0n) + amount);
        if (foreign && date !== null && date >= data.yearStartDate && date <= data.asOfDate) {
          const q = incomeKey(setup, data, c, a, date, foreign, periodIndex);
          if (typeof q === 'number') addCell(p.monetaryYtd, a, q, amount);
        }
      } else if (kind === 2) {
        if (foreign && date === null) {
          p.error = new Error(
            `Ledger figure of account ${a.accountNumber} of company ${c.companyId} needs a date`,
          );
          return;
        }
        if (historical) historical.add(foreign ? date! : '', amount);
        else historical = addCell(p.historical, a, foreign ? date! : '', amount);
      } else {
        const q = incomeKey(setup, data, c, a, date, foreign, periodIndex);
        if (q instanceof Error) p.error = q;
        else if (date! < data.yearStartDate) {
          if (prior) prior.add(q, amount);
          else prior = addCell(p.prior, a, q, amount);
        } else if (ytd) ytd.add(q, amount);
        else ytd = addCell(p.ytd, a, q, amount);
      }
    };
    const cols = l.columns;
    if (cols) {
      const up = cols.scale === scale ? 1n : pow10(scale - cols.scale);
      for (let i = 0; i < cols.units.length; i++) {
        const units = cols.units[i]!;
        file(cols.accountNumbers[i]!, cols.dates[i] ?? null, up === 1n ? units : units * up);
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

/** Adds a cell to the account's cells in `map` (made with it when the account has none yet); returns them. */
function addCell<K extends string | number>(
  map: Map<string, Cells<K>>,
  a: AccountInfo,
  key: K,
  amount: bigint,
): Cells<K> {
  let cells = map.get(a.accountNumber);
  if (cells) cells.add(key, amount);
  else {
    cells = new Cells<K>(a, key, amount);
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
        date: columns.dates[i] ?? null,
        amount: scaledToString(u, columns.scale),
      }));
      return figures;
    },
  };
}
