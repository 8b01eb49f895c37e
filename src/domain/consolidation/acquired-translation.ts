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
import type { CompanyInput } from './types.ts';
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

/** The translated balances of an acquired member (see the module comment), with its phases. */
export function translateAcquired(
  v: ViewComputation,
  c: CompanyInput,
  p: PreparedCompany,
  scale: number,
): TranslatedCompany {
  const { setup } = v;
  const { G, minor } = setup;
  const cur = c.functionalCurrency;
  const foreign = cur !== G;
  const cuts = ledgerCuts(setup.tree, c.companyId);
  const T = cuts[cuts.length - 1]!;
  const cutUnits = parseCuts(v, c, cuts, scale);
  const accounts = setup.accounts.get(c.companyId)!;
  const hr = foreign ? v.historicalRate(cur, T) : ONE;
  const atAcquisition = (units: bigint) => (hr ? roundScaled(units * hr.coef, scale + hr.scale, minor) : 0n);
  const cutOf = (cut: string, n: string) => cutUnits.get(cut)!.get(n) ?? 0n;

  const items: TranslatedItem[] = [];
  let itemTotal = 0n;
  const push = (key: string, kind: ItemKind, type: AccountType, units: bigint, phases?: bigint[]) => {
    if (units === 0n && !phases?.some((x) => x !== 0n)) return;
    items.push(
      phases ? { key, kind, accountType: type, units, phases } : { key, kind, accountType: type, units },
    );
    itemTotal += units;
  };
  /** phases of an item from its cumulative pre-acquisition amounts per cut and its post part */
  const phased = (cumulative: (cut: string) => bigint, post: bigint): bigint[] => {
    const phases: bigint[] = [];
    let before = 0n;
    for (const cut of cuts) {
      const at = atAcquisition(cumulative(cut));
      phases.push(at - before);
      before = at;
    }
    phases.push(post);
    return phases;
  };
  const sorted = <V>(m: Map<string, V>) => [...m.keys()].sort(cmpAccountNumber);

  for (const n of sorted(p.monetary)) {
    const bal = p.monetary.get(n)!;
    if (bal === 0n) continue;
    const type = accounts.get(n)!.accountType;
    const r = foreign ? v.closingRate(cur) : ONE;
    push(n, 'account', type, r ? roundScaled(bal * r.coef, scale + r.scale, minor) : 0n);
  }

  for (const n of sorted(p.historical)) {
    const cells = p.historical.get(n)!.normalize();
    const { post, pre } = historicalParts(v, cur, foreign, cells, T, scale);
    if (foreign && pre !== cutOf(T, n)) {
      throw new Error(
        `The figures of account ${n} of ${c.companyName} do not separate at its acquisition date ${T}`,
      );
    }
    if (cells.info.accountType === 'Equity') {
      const postUnits = foreign ? post.rounded(minor) : roundScaled(total(cells) - cutOf(T, n), scale, minor);
      const phases = phased((cut) => cutOf(cut, n), postUnits);
      push(
        n,
        'account',
        'Equity',
        phases.reduce((a, b) => a + b, 0n),
        phases,
      );
    } else {
      // Non-monetary assets and liabilities: the part held at T at HR(T), later movements at their own rates.
      if (foreign && hr) post.addProduct(pre, hr);
      push(
        n,
        'account',
        cells.info.accountType,
        foreign ? post.rounded(minor) : roundScaled(total(cells), scale, minor),
      );
    }
  }

  const income = incomeParts(v, c, p, foreign, T, scale, (n) => cutOf(T, n));
  for (const [n, units] of income.ytd) push(n, 'account', accounts.get(n)!.accountType, units);
  const incomeNumbers = [...accounts.values()]
    .filter((a) => a.accountType === 'Revenue' || a.accountType === 'Expense')
    .map((a) => a.accountNumber);
  const preIncome = (cut: string) => incomeNumbers.reduce((s, n) => s + cutOf(cut, n), 0n);
  const rePhases = phased(preIncome, income.priorPost.rounded(minor));
  push(
    setup.reKey,
    'priorYear',
    'Equity',
    rePhases.reduce((a, b) => a + b, 0n),
    rePhases,
  );

  const cta = -itemTotal;
  if (cta !== 0n) {
    items.push({
      key: CTA_KEY,
      kind: 'cta',
      accountType: 'Equity',
      units: cta,
      phases: [...cuts.map(() => 0n), cta],
    });
  }
  return {
    company: c,
    items,
    cta,
    functionalTotal: v.functionalTotal(p, scale),
    acquired: {
      cuts,
      T,
      cutUnits,
      scale,
      acquisitionRate: hr,
      preAcquisitionYearUnits: income.preYear,
      preAcquisitionYearMinor: atAcquisition(income.preYear),
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
