/**
 * Translation of a member with acquisition data, as the group sees it.
 *
 * The group obtained control of the member on its group acquisition date T (ownership.ts). Seen from
 * the group, everything the member recorded before T is one block acquired at T: its equity, its
 * results before T (of earlier years and of this year alike) and its non-monetary items are
 * translated at the historical rate of T, not at the rates of the days they were booked. Results
 * dated before T are not consolidated income: they are folded into the pre-acquisition part of the
 * retained-earnings line. From T on the member is translated like any other company (monetary items
 * at the closing rate, equity and non-monetary items at the rates of their dates, revenue and
 * expenses at the average rate of their group period).
 *
 * The equity items (equity accounts, the retained-earnings line, CTA) are split into phases by the
 * member's ledger cuts (its own acquisition date and its ancestors'): phase i holds the part dated in
 * [cut i−1, cut i), the last phase the part dated from T on. Acquisition eliminations and the
 * non-controlling interest read the phases (acquisition.ts, ownership-nci.ts).
 *
 * The pre-acquisition amounts come from the member's cut ledgers (Σ of the ledger data dated before
 * each cut). For a company not in G the dated figures must agree with them at T: the loader dates its
 * equity and non-monetary figures so that none straddles a cut (the engine checks it).
 */
import type { AccountType } from '../accounts.ts';
import type { Cells, PreparedCompany } from './ledger.ts';
import { ledgerCuts } from './ownership.ts';
import { ExactSum, roundScaled, type ScaledValue, toScaled } from './scaled.ts';
import { CTA_KEY, cmpAccountNumber } from './setup.ts';
import type { AccountInfo, CompanyInput } from './types.ts';
import type { ViewComputation } from './view.ts';
import type { ItemKind, TranslatedCompany, TranslatedItem } from './view-types.ts';

/** What the acquisition steps need to know about how an acquired member was translated. */
export interface AcquiredTranslation {
  /** the ledger cuts, ascending; the last is the group acquisition date T */
  cuts: string[];
  T: string;
  /** Σ of the ledger data dated before each cut, per account number (functional, at `scale`) */
  cutUnits: Map<string, Map<string, bigint>>;
  scale: number;
  /** HR(T) as a multiplier (1 in G); null when the rate is missing (the issue is recorded) */
  acquisitionRate: ScaledValue | null;
  /** revenue − expenses (debit-positive) of the view's year dated before T: functional (at `scale`) */
  preAcquisitionYearUnits: bigint;
  /** the same in units of G's minor unit (at the acquisition rate) */
  preAcquisitionYearMinor: bigint;
}

const ONE: ScaledValue = { coef: 1n, scale: 0 };

type LedgerCuts = NonNullable<ViewComputation['data']['cuts']>;

/** A view's ledger cuts grouped by company (computed once per view, not scanned per member). */
const cutsByCompany = new WeakMap<LedgerCuts, Map<string, LedgerCuts[number][]>>();

function cutsOf(v: ViewComputation, companyId: string): readonly LedgerCuts[number][] {
  const all = v.data.cuts;
  if (!all) return [];
  let grouped = cutsByCompany.get(all);
  if (!grouped) {
    grouped = new Map();
    for (const cut of all) {
      const list = grouped.get(cut.companyId);
      if (list) list.push(cut);
      else grouped.set(cut.companyId, [cut]);
    }
    cutsByCompany.set(all, grouped);
  }
  return grouped.get(companyId) ?? [];
}

function parseCuts(v: ViewComputation, c: CompanyInput, cuts: string[], scale: number) {
  const byCut = new Map<string, Map<string, bigint>>();
  for (const cut of cutsOf(v, c.companyId)) {
    if (!cuts.includes(cut.cutDate)) continue;
    const figures = byCut.get(cut.cutDate) ?? new Map<string, bigint>();
    for (const f of cut.figures) {
      const units = toScaled(f.amount, scale);
      if (units === null) throw new Error(`Pre-acquisition figure ${String(f.amount)} has too many decimals`);
      figures.set(f.accountNumber, (figures.get(f.accountNumber) ?? 0n) + units);
    }
    byCut.set(cut.cutDate, figures);
  }
  for (const cut of cuts) {
    if (!byCut.has(cut)) {
      throw new Error(`The pre-acquisition balances of ${c.companyName} before ${cut} were not supplied`);
    }
  }
  return byCut;
}

/**
 * What every step of an acquired member's translation reads: the member, its ledger cuts, the
 * pre-acquisition amounts per cut and HR(T). Gathered once so that the steps below take one argument
 * instead of a dozen and cannot disagree about T or the rate.
 */
interface AcquiredContext {
  v: ViewComputation;
  c: CompanyInput;
  cur: string;
  foreign: boolean;
  cuts: string[];
  T: string;
  cutUnits: Map<string, Map<string, bigint>>;
  accounts: Map<string, AccountInfo>;
  hr: ScaledValue | null;
  scale: number;
  minor: number;
}

function acquiredContext(v: ViewComputation, c: CompanyInput, scale: number): AcquiredContext {
  const { setup } = v;
  const cur = c.functionalCurrency;
  const foreign = cur !== setup.G;
  const cuts = ledgerCuts(setup.tree, c.companyId);
  const T = cuts[cuts.length - 1]!;
  // The cut ledgers are read (and checked) before HR(T) is asked for, as they always were: a missing
  // cut is an error whatever the rate.
  const cutUnits = parseCuts(v, c, cuts, scale);
  const accounts = setup.accounts.get(c.companyId)!;
  const hr = foreign ? v.historicalRate(cur, T) : ONE;
  return { v, c, cur, foreign, cuts, T, cutUnits, accounts, hr, scale, minor: setup.minor };
}

/** A functional amount at HR(T), in G's minor unit (0 when the rate is missing: the issue is recorded). */
function atAcquisition(ctx: AcquiredContext, units: bigint): bigint {
  const { hr, scale, minor } = ctx;
  return hr ? roundScaled(units * hr.coef, scale + hr.scale, minor) : 0n;
}

/** Σ of account `n`'s ledger data dated before `cut`. */
function cutOf(ctx: AcquiredContext, cut: string, n: string): bigint {
  return ctx.cutUnits.get(cut)!.get(n) ?? 0n;
}

/**
 * Phases of an item from its cumulative pre-acquisition amounts per cut and its post part. Each
 * cumulative amount is translated at HR(T) before the differences are taken, so the phases add up to
 * the translated whole with no rounding left over.
 */
function phased(ctx: AcquiredContext, cumulative: (cut: string) => bigint, post: bigint): bigint[] {
  const phases: bigint[] = [];
  let before = 0n;
  for (const cut of ctx.cuts) {
    const at = atAcquisition(ctx, cumulative(cut));
    phases.push(at - before);
    before = at;
  }
  phases.push(post);
  return phases;
}

/** The translated items in order and their running total (the CTA is what balances it). */
class ItemList {
  readonly items: TranslatedItem[] = [];
  total = 0n;

  /** Adds an item unless it is zero in every respect (a phased item with a non-zero phase stays). */
  push(key: string, kind: ItemKind, type: AccountType, units: bigint, phases?: bigint[]): void {
    if (units === 0n && !phases?.some((x) => x !== 0n)) return;
    this.items.push(
      phases ? { key, kind, accountType: type, units, phases } : { key, kind, accountType: type, units },
    );
    this.total += units;
  }

  /** Adds an item whose amount is the sum of its phases. */
  pushPhased(key: string, kind: ItemKind, phases: bigint[]): void {
    this.push(
      key,
      kind,
      'Equity',
      phases.reduce((a, b) => a + b, 0n),
      phases,
    );
  }
}

const sortedKeys = <V>(m: Map<string, V>) => [...m.keys()].sort(cmpAccountNumber);

/** Monetary items: at the closing rate, acquired or not. */
function pushMonetary(ctx: AcquiredContext, p: PreparedCompany, list: ItemList): void {
  const { v, cur, foreign, accounts, scale, minor } = ctx;
  for (const n of sortedKeys(p.monetary)) {
    const bal = p.monetary.get(n)!;
    if (bal === 0n) continue;
    const type = accounts.get(n)!.accountType;
    const r = foreign ? v.closingRate(cur) : ONE;
    list.push(n, 'account', type, r ? roundScaled(bal * r.coef, scale + r.scale, minor) : 0n);
  }
}

/**
 * Equity and non-monetary items: the part dated before T is one block at HR(T) (phased for equity),
 * the rest at the rates of its dates. The dated figures must agree with the cut ledger at T, or the
 * split would count a straddling figure twice or not at all.
 */
function pushHistorical(ctx: AcquiredContext, p: PreparedCompany, list: ItemList): void {
  const { v, c, cur, foreign, T, hr, scale, minor } = ctx;
  for (const n of sortedKeys(p.historical)) {
    const cells = p.historical.get(n)!.normalize();
    const { post, pre } = historicalParts(v, cur, foreign, cells, T, scale);
    if (foreign && pre !== cutOf(ctx, T, n)) {
      throw new Error(
        `The figures of account ${n} of ${c.companyName} do not separate at its acquisition date ${T}`,
      );
    }
    if (cells.info.accountType === 'Equity') {
      const postUnits = foreign
        ? post.rounded(minor)
        : roundScaled(total(cells) - cutOf(ctx, T, n), scale, minor);
      list.pushPhased(
        n,
        'account',
        phased(ctx, (cut) => cutOf(ctx, cut, n), postUnits),
      );
    } else {
      // Non-monetary assets and liabilities: the part held at T at HR(T), later movements at their own rates.
      if (foreign && hr) post.addProduct(pre, hr);
      list.push(
        n,
        'account',
        cells.info.accountType,
        foreign ? post.rounded(minor) : roundScaled(total(cells), scale, minor),
      );
    }
  }
}

/**
 * Revenue and expense from T on (year to date, per account), and the retained-earnings line: its
 * pre-acquisition phases are the member's results before each cut, its last phase the earlier years'
 * results after T. Returns this year's results dated before T (functional), which the acquisition
 * steps need.
 */
function pushIncome(ctx: AcquiredContext, p: PreparedCompany, list: ItemList): bigint {
  const { v, c, foreign, T, accounts, scale, minor } = ctx;
  const income = incomeParts(v, c, p, foreign, T, scale, (n) => cutOf(ctx, T, n));
  for (const [n, units] of income.ytd) list.push(n, 'account', accounts.get(n)!.accountType, units);
  const incomeNumbers = [...accounts.values()]
    .filter((a) => a.accountType === 'Revenue' || a.accountType === 'Expense')
    .map((a) => a.accountNumber);
  const preIncome = (cut: string) => incomeNumbers.reduce((s, n) => s + cutOf(ctx, cut, n), 0n);
  list.pushPhased(v.setup.reKey, 'priorYear', phased(ctx, preIncome, income.priorPost.rounded(minor)));
  return income.preYear;
}

/** The CTA balances the items; all of it arises from T on, so its pre-acquisition phases are zero. */
function pushCta(ctx: AcquiredContext, list: ItemList): bigint {
  const cta = -list.total;
  if (cta !== 0n) {
    list.items.push({
      key: CTA_KEY,
      kind: 'cta',
      accountType: 'Equity',
      units: cta,
      phases: [...ctx.cuts.map(() => 0n), cta],
    });
  }
  return cta;
}

/** The translated balances of an acquired member (see the module comment), with its phases. */
export function translateAcquired(
  v: ViewComputation,
  c: CompanyInput,
  p: PreparedCompany,
  scale: number,
): TranslatedCompany {
  const ctx = acquiredContext(v, c, scale);
  // The order of the items is part of the result: monetary, then equity and non-monetary, then
  // income and the retained-earnings line, then the CTA.
  const list = new ItemList();
  pushMonetary(ctx, p, list);
  pushHistorical(ctx, p, list);
  const preAcquisitionYearUnits = pushIncome(ctx, p, list);
  const cta = pushCta(ctx, list);
  return {
    company: c,
    items: list.items,
    cta,
    functionalTotal: v.functionalTotal(p, scale),
    acquired: {
      cuts: ctx.cuts,
      T: ctx.T,
      cutUnits: ctx.cutUnits,
      scale,
      acquisitionRate: ctx.hr,
      preAcquisitionYearUnits,
      preAcquisitionYearMinor: atAcquisition(ctx, preAcquisitionYearUnits),
    },
  };
}

/** Σ of the cells whose group-period index is below `q`. */
function totalBefore(cells: Cells<number>, q: number): bigint {
  let t = 0n;
  for (let i = 0; i < cells.keys.length; i++) if (cells.keys[i]! < q) t += cells.amounts[i]!;
  return t;
}

function total(cells: Cells<string> | Cells<number>): bigint {
  let t = 0n;
  for (const a of cells.amounts) t += a;
  return t;
}

/** Cells of an equity or non-monetary account: Σ before T (functional) and the exact sum of the rest × HR(d). */
function historicalParts(
  v: ViewComputation,
  cur: string,
  foreign: boolean,
  cells: Cells<string>,
  T: string,
  scale: number,
): { pre: bigint; post: ExactSum } {
  const post = new ExactSum(scale);
  let pre = 0n;
  if (!foreign) return { pre, post };
  for (let i = 0; i < cells.keys.length; i++) {
    const d = cells.keys[i]!;
    const amount = cells.amounts[i]!;
    if (amount === 0n) continue;
    if (d < T) pre += amount;
    else {
      const r = v.historicalRate(cur, d);
      if (r) post.addProduct(amount, r);
    }
  }
  return { pre, post };
}

/**
 * Revenue and expense of an acquired member after T: per account the year-to-date part (rounded
 * once), and the exact sum of the earlier years' part (it belongs to the retained-earnings line).
 * `preYear` is the part of this view's year dated before T (functional).
 */
function incomeParts(
  v: ViewComputation,
  c: CompanyInput,
  p: PreparedCompany,
  foreign: boolean,
  T: string,
  scale: number,
  before: (accountNumber: string) => bigint,
): { ytd: [string, bigint][]; priorPost: ExactSum; preYear: bigint } {
  const { setup, data } = v;
  const priorPost = new ExactSum(scale);
  const ytd: [string, bigint][] = [];
  let preYear = 0n;
  const numbers = [...new Set([...p.ytd.keys(), ...p.prior.keys()])].sort(cmpAccountNumber);
  // The first group period that ends on or after T, and whether T falls inside it.
  let fromQ = setup.periods.findIndex((q) => q.endDate >= T);
  if (fromQ < 0) fromQ = setup.periods.length;
  const splitFirst = fromQ < setup.periods.length && setup.periods[fromQ]!.startDate < T;
  const averages = foreign ? v.averageRatesOf(c.functionalCurrency) : [];
  for (const n of numbers) {
    const prior = p.prior.get(n)?.normalize();
    const current = p.ytd.get(n)?.normalize();
    const priorTotal = prior ? total(prior) : 0n;
    const currentTotal = current ? total(current) : 0n;
    const preT = before(n);
    if (T > data.yearStartDate) preYear += preT - priorTotal;
    const ytdSum = new ExactSum(scale);
    if (!foreign) {
      if (T <= data.yearStartDate) {
        priorPost.add(priorTotal - preT);
        ytdSum.add(currentTotal);
      } else ytdSum.add(currentTotal - (preT - priorTotal));
    } else {
      // Periods ending before T (indices below `fromQ`) are pre-acquisition; the one containing T is
      // split by the cut. The earlier years' cells come first, then the year's (the order the cut is
      // taken from).
      let remainingPre = preT;
      if (prior) remainingPre -= totalBefore(prior, fromQ);
      if (current) remainingPre -= totalBefore(current, fromQ);
      const walk = (cells: Cells<number>, sum: ExactSum) => {
        for (let i = 0; i < cells.keys.length; i++) {
          const q = cells.keys[i]!;
          if (q < fromQ) continue;
          let amount = cells.amounts[i]!;
          if (q === fromQ && splitFirst) {
            amount -= remainingPre;
            remainingPre = 0n;
          }
          if (amount === 0n) continue;
          let r = averages[q];
          if (r === undefined) r = v.averageRate(c.functionalCurrency, q);
          if (r) sum.addProduct(amount, r);
        }
      };
      if (prior) walk(prior, priorPost);
      if (current) walk(current, ytdSum);
    }
    const units = ytdSum.rounded(setup.minor);
    if (units !== 0n) ytd.push([n, units]);
  }
  return { ytd, priorPost, preYear };
}
