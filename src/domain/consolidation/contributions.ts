/**
 * Traceability of a consolidated line: what each company, each elimination, each top-side adjustment
 * and the non-controlling interest put on it.
 *
 * `lineContributions` records them while the run still holds its working figures (a run stores them
 * with its trial balances); `contributionsAddUp` checks that the pieces of a stored line add up to its
 * consolidated balance. Every amount is an exact integer of the reporting currency's minor unit while
 * it is assembled, so the pieces add up exactly: whatever the run booked on the line that no
 * company, entry or adjustment accounts for is shown as an explicit `unattributed` amount (zero in
 * every run whose members carry no acquisition data).
 */
import { dec, type Money, roundTo } from '../money.ts';
import { toScaled } from './scaled.ts';
import { cmpStr } from './setup.ts';
import type { AdjustmentInput, ConsolidationMethod, LineType } from './types.ts';
import type { ViewComputation } from './view.ts';
import type { LineAcc, TranslatedItem, TranslationDetail } from './view-types.ts';

/** One translated item of a company that lands on the line. */
export interface ContributionItem {
  /** Account: a balance of the line's account; PriorYearResults: results of earlier years (retained
   * earnings); YearResults: revenue/expense of the year folded into retained earnings (opening view);
   * TranslationDifference: the company's currency translation difference */
  source: 'Account' | 'PriorYearResults' | 'YearResults' | 'TranslationDifference';
  /** the account (line key) the item was booked on before it reached this line */
  accountNumber: string;
  /** Closing, Historical, Average, None (same currency), or null when the run did not record it */
  basis: TranslationDetail['basis'] | null;
  /** in the company's functional currency, debit positive; null for the translation difference */
  functionalBalance: Money | null;
  rates: { rate: string; appliedFor: string }[];
  /** further distinct rates applied that `rates` does not list (it lists at most 12) */
  ratesOmitted: number;
  /** in the reporting currency, before weighting */
  translatedAmount: Money;
}

export interface CompanyContribution {
  companyId: string;
  companyName: string;
  consolidationMethod: ConsolidationMethod;
  functionalCurrency: string;
  /** the weight applied to its translated balances (1 fully consolidated, the stake proportionate or equity method) */
  weight: string;
  items: ContributionItem[];
  /** its part of the aggregated balance (weighted, rounded, the translation-difference line taking the rounding) */
  amount: Money;
}

export interface EliminationContribution {
  source: 'Rule' | 'Acquisition';
  eliminationRuleId: string | null;
  ruleName: string | null;
  /** the company whose balance the entry adjusts (null for group lines) */
  companyId: string | null;
  amount: Money;
}

export interface AdjustmentContribution {
  adjustmentId: string;
  companyId: string | null;
  amount: Money;
}

/** The contributions to one consolidated line of one view (all amounts debit positive). */
export interface LineContributions {
  /** the line's id within the view (account number, or type|company for per-company lines) */
  lineId: string;
  accountNumber: string;
  lineType: LineType;
  companyId: string | null;
  aggregatedBalance: Money;
  eliminationAmount: Money;
  adjustmentAmount: Money;
  nciAmount: Money;
  consolidatedBalance: Money;
  companies: CompanyContribution[];
  eliminations: EliminationContribution[];
  adjustments: AdjustmentContribution[];
  /** the non-controlling interest moved to or from the line */
  nci: Money;
  /** what no company, entry or adjustment accounts for (zero unless acquisition accounting booked it) */
  unattributed: { aggregated: Money; elimination: Money; adjustment: Money };
}

/** What the contributions of the lines of a view are built from (one pass over the view). */
export interface Accumulated {
  lines: LineAcc[];
  acc: Map<string, LinePieces>;
}
interface CompanyAcc {
  items: TranslatedItem[];
  amount: bigint;
  weight: string;
}
export interface LinePieces {
  companies: Map<string, CompanyAcc>;
  eliminations: { e: Omit<EliminationContribution, 'amount'>; units: bigint }[];
  adjustments: { adjustmentId: string; companyId: string | null; units: bigint }[];
}

export function accumulate(v: ViewComputation, adjustments: readonly AdjustmentInput[]): Accumulated {
  const pieces = new LinePiecesOf(v);
  pieces.addCompanies();
  pieces.addEquityMethod();
  pieces.addEliminations();
  if (v.hasAdjustments) pieces.addAdjustments(adjustments);
  return { lines: pieces.lines, acc: pieces.acc };
}

/** The pieces of each live line of a view, gathered in one pass over what the view booked. */
class LinePiecesOf {
  readonly lines: LineAcc[];
  readonly acc = new Map<string, LinePieces>();
  private readonly live: Set<string>;
  private readonly byKey = new Map<string, LineAcc[]>();
  private readonly reKey: string;

  constructor(private readonly v: ViewComputation) {
    this.lines = [...v.lines.values()].filter(
      (l) => l.aggregated !== 0n || l.elimination !== 0n || l.adjustment !== 0n || l.nci !== 0n,
    );
    this.live = new Set(this.lines.map((l) => l.id));
    for (const l of this.lines) {
      const list = this.byKey.get(l.key);
      if (list) list.push(l);
      else this.byKey.set(l.key, [l]);
    }
    this.reKey = v.setup.reKey;
  }

  /**
   * The line an amount booked on `key` (for `companyId`) ended on: the key's own line, the company's
   * per-company line, or, in the opening view, the retained-earnings line revenue and expense fold into.
   */
  private resolve(key: string, companyId: string | null): string | null {
    if (this.live.has(key)) return key;
    const candidates = this.byKey.get(key);
    if (candidates?.length === 1) return candidates[0]!.id;
    const own = candidates?.find((l) => l.companyId === companyId);
    if (own) return own.id;
    if (this.v.view === 'opening' && this.live.has(this.reKey)) return this.reKey;
    return null;
  }

  private accOf(id: string): LinePieces {
    let a = this.acc.get(id);
    if (!a) {
      a = { companies: new Map(), eliminations: [], adjustments: [] };
      this.acc.set(id, a);
    }
    return a;
  }

  private companyOf(id: string, companyId: string, weight: string): CompanyAcc {
    const a = this.accOf(id);
    let c = a.companies.get(companyId);
    if (!c) {
      c = { items: [], amount: 0n, weight };
      a.companies.set(companyId, c);
    }
    return c;
  }

  /** Companies: the translated items and their weighted contributions (step 3). */
  addCompanies(): void {
    const { v } = this;
    for (const c of v.setup.consolidated) {
      const contrib = v.contributions.get(c.companyId);
      const tc = v.translated.get(c.companyId);
      if (!contrib || !tc) continue;
      const weight = String(v.setup.weight.get(c.companyId) ?? '1');
      for (const [key, units] of contrib) {
        const id = this.resolve(key, c.companyId);
        if (id === null) continue;
        this.companyOf(id, c.companyId, weight).amount += units;
      }
      for (const item of tc.items) {
        const id = this.resolve(item.key, c.companyId);
        if (id === null) continue;
        const acc = this.companyOf(id, c.companyId, weight);
        // Most companies put one item on a line: an array made from a literal holds just it (one
        // grown from empty reserves room for sixteen, and a large run keeps them all to its end).
        if (acc.items.length === 0) acc.items = [item];
        else acc.items.push(item);
      }
    }
  }

  /**
   * Equity-method investees: their share of net assets and results on their own lines (the income
   * line folds into retained earnings in the opening view).
   */
  addEquityMethod(): void {
    const { v, live, reKey } = this;
    for (const [lineId, em] of v.equityMethodAmounts) {
      if (em.units === 0n) continue;
      const id = live.has(lineId) ? lineId : v.view === 'opening' && live.has(reKey) ? reKey : null;
      if (id === null) continue;
      this.companyOf(id, em.companyId, v.investeeShare(em.companyId).toString()).amount += em.units;
    }
  }

  /** Eliminations: the view's journal (rules, then acquisitions). */
  addEliminations(): void {
    const { v } = this;
    const minor = v.setup.minor;
    const entries = [
      ...v.entries,
      ...v.acquisitions.map((a) => ({
        source: 'Acquisition' as const,
        eliminationRuleId: null,
        ruleName: null,
        companyId: a.analysis.companyId,
        lines: a.analysis.entries,
      })),
    ];
    for (const e of entries) {
      for (const jl of e.lines) {
        const units = (toScaled(jl.debit.value, minor) ?? 0n) - (toScaled(jl.credit.value, minor) ?? 0n);
        if (units === 0n) continue;
        const id = this.resolve(jl.accountNumber, jl.companyId);
        if (id === null) continue;
        const a = this.accOf(id);
        const prev = a.eliminations.find(
          (x) =>
            x.e.source === e.source &&
            x.e.eliminationRuleId === e.eliminationRuleId &&
            x.e.companyId === jl.companyId &&
            (e.source === 'Rule' || x.e.ruleName === e.ruleName),
        );
        if (prev) prev.units += units;
        else {
          const { source, eliminationRuleId, ruleName } = e;
          a.eliminations.push({ e: { source, eliminationRuleId, ruleName, companyId: jl.companyId }, units });
        }
      }
    }
  }

  /** Top-side adjustments (rounded as the run books them). */
  addAdjustments(adjustments: readonly AdjustmentInput[]): void {
    const minor = this.v.setup.minor;
    for (const adj of adjustments) {
      for (const al of adj.lines) {
        const units = toScaled(roundTo(dec(al.amount), minor), minor) ?? 0n;
        if (units === 0n) continue;
        const id = this.resolve(al.accountNumber, al.companyId);
        if (id === null) continue;
        const a = this.accOf(id);
        const prev = a.adjustments.find((x) => x.adjustmentId === adj.id && x.companyId === al.companyId);
        if (prev) prev.units += units;
        else a.adjustments.push({ adjustmentId: adj.id, companyId: al.companyId, units });
      }
    }
  }
}

/** Company entries in the order of their ids (code units). */
export const byCompanyId = ([x]: [string, CompanyAcc], [y]: [string, CompanyAcc]) => cmpStr(x, y);

/**
 * The contributions to every line of a view, after its trial balance was generated (the lines are
 * final then). `adjustments`: the top-side adjustments the view included (closing view).
 */
export function lineContributions(
  v: ViewComputation,
  adjustments: readonly AdjustmentInput[] = [],
): LineContributions[] {
  const money = (units: bigint) => v.money(units);
  const { lines, acc } = accumulate(v, adjustments);
  const companyById = new Map(v.setup.input.companies.map((c) => [c.companyId, c]));
  return lines.map((l): LineContributions => {
    const a: LinePieces = acc.get(l.id) ?? { companies: new Map(), eliminations: [], adjustments: [] };
    let companySum = 0n;
    const companies = [...a.companies.entries()]
      .sort(byCompanyId)
      .map(([companyId, c]): CompanyContribution => {
        companySum += c.amount;
        const info = companyById.get(companyId);
        const functionalCurrency = info?.functionalCurrency ?? v.setup.G;
        return {
          companyId,
          companyName: info?.companyName ?? '',
          consolidationMethod: info?.consolidationMethod ?? 'FullConsolidation',
          functionalCurrency,
          weight: c.weight,
          items: c.items.map((item) => itemOf(item, l.id, money, functionalCurrency)),
          amount: money(c.amount),
        };
      });
    let eliminationSum = 0n;
    const eliminations = a.eliminations
      .filter((x) => x.units !== 0n)
      .map((x) => {
        eliminationSum += x.units;
        return { ...x.e, amount: money(x.units) };
      });
    let adjustmentSum = 0n;
    const adjustmentsOut = a.adjustments
      .filter((x) => x.units !== 0n)
      .map((x) => {
        adjustmentSum += x.units;
        return { adjustmentId: x.adjustmentId, companyId: x.companyId, amount: money(x.units) };
      });
    return {
      lineId: l.id,
      accountNumber: l.key,
      lineType: l.lineType,
      companyId: l.companyId,
      aggregatedBalance: money(l.aggregated),
      eliminationAmount: money(l.elimination),
      adjustmentAmount: money(l.adjustment),
      nciAmount: money(l.nci),
      consolidatedBalance: money(l.aggregated + l.elimination + l.adjustment + l.nci),
      companies,
      eliminations,
      adjustments: adjustmentsOut,
      nci: money(l.nci),
      unattributed: {
        aggregated: money(l.aggregated - companySum),
        elimination: money(l.elimination - eliminationSum),
        adjustment: money(l.adjustment - adjustmentSum),
      },
    };
  });
}

function itemOf(
  item: TranslatedItem,
  lineId: string,
  money: (units: bigint) => Money,
  functionalCurrency: string,
): ContributionItem {
  const source: ContributionItem['source'] =
    item.kind === 'cta'
      ? 'TranslationDifference'
      : item.kind === 'priorYear'
        ? 'PriorYearResults'
        : item.key !== lineId && (item.accountType === 'Revenue' || item.accountType === 'Expense')
          ? 'YearResults'
          : 'Account';
  const d = item.detail;
  return {
    source,
    accountNumber: item.key,
    basis: item.kind === 'cta' ? null : (d?.basis ?? null),
    functionalBalance: d ? { value: d.functional, currency: functionalCurrency } : null,
    rates: d?.rates ?? [],
    ratesOmitted: d?.ratesOmitted ?? 0,
    translatedAmount: money(item.units),
  };
}

/** Units of a Money text in the minor unit (exact: the stored amounts are). */
function units(m: Money, minor: number): bigint {
  return toScaled(m.value, minor) ?? 0n;
}

/**
 * Checks that the pieces of a line add up to its consolidated balance: Σ companies + unattributed
 * aggregated = aggregatedBalance, Σ eliminations + unattributed = eliminationAmount, Σ adjustments +
 * unattributed = adjustmentAmount, nci = nciAmount, and their sum = consolidatedBalance.
 */
export function contributionsAddUp(l: LineContributions, minor: number): boolean {
  const sum = (xs: { amount: Money }[]) => xs.reduce((s, x) => s + units(x.amount, minor), 0n);
  const agg = sum(l.companies) + units(l.unattributed.aggregated, minor);
  const elim = sum(l.eliminations) + units(l.unattributed.elimination, minor);
  const adj = sum(l.adjustments) + units(l.unattributed.adjustment, minor);
  const nci = units(l.nci, minor);
  return (
    agg === units(l.aggregatedBalance, minor) &&
    elim === units(l.eliminationAmount, minor) &&
    adj === units(l.adjustmentAmount, minor) &&
    nci === units(l.nciAmount, minor) &&
    agg + elim + adj + nci === units(l.consolidatedBalance, minor)
  );
}
