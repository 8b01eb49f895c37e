/**
 * Test support for the consolidation engine (no I/O): a small in-memory RateProvider and a helper
 * that aggregates journal lines into LedgerFigures (and the pre-acquisition cut ledgers) the way the
 * loader does from the balance table.
 *
 * The provider implements 3.8.4 for direct and inverse rates (no triangulation) — enough for
 * unit tests; the service uses the shared resolution of `src/domain/rates.ts`.
 */
import { lastDayOfMonth, makeDate } from '../../src/domain/dates.ts';
import { type Decimal, dec, formatRate, roundTo, ZERO } from '../../src/domain/money.ts';
import type {
  AccountInfo,
  AcquisitionInput,
  CompanyInput,
  CutLedger,
  ConsolidationInput,
  EliminationRuleInput,
  GroupPeriod,
  IntercompanyTransactionInput,
  LedgerFigure,
  RateProvider,
  RateType,
  ResolvedRate,
  RunOptionsInput,
  ViewData,
} from '../../src/domain/consolidation/types.ts';

export interface StoredRate {
  id: string;
  fromCurrency: string;
  toCurrency: string;
  rateType: RateType;
  effectiveDate: string;
  rate: string;
}

interface Candidate {
  stored: StoredRate;
  inverse: boolean;
  typeIndex: number;
}

function effective(c: Candidate): Decimal {
  return c.inverse ? roundTo(dec(1).div(dec(c.stored.rate)), 10) : dec(c.stored.rate);
}

function resolved(c: Candidate, from: string, to: string): ResolvedRate {
  const eff = effective(c);
  return {
    effectiveRate: eff,
    usage: {
      exchangeRateId: c.stored.id,
      fromCurrency: from,
      toCurrency: to,
      rateType: c.stored.rateType,
      effectiveDate: c.stored.effectiveDate,
      rate: formatRate(dec(c.stored.rate)),
      effectiveRate: formatRate(eff),
      derivation: c.inverse ? 'Inverse' : 'Direct',
      legIds: [c.stored.id],
    },
  };
}

export class InMemoryRateProvider implements RateProvider {
  constructor(private readonly rates: StoredRate[]) {}

  private candidates(from: string, to: string, types: RateType[], ok: (d: string) => boolean): Candidate[] {
    const out: Candidate[] = [];
    for (const r of this.rates) {
      const typeIndex = types.indexOf(r.rateType);
      if (typeIndex < 0 || !ok(r.effectiveDate)) continue;
      if (r.fromCurrency === from && r.toCurrency === to) out.push({ stored: r, inverse: false, typeIndex });
      else if (r.fromCurrency === to && r.toCurrency === from)
        out.push({ stored: r, inverse: true, typeIndex });
    }
    return out;
  }

  /** Latest date wins, then the earlier type in the list, then direct over inverse. */
  private best(cands: Candidate[]): Candidate | null {
    let best: Candidate | null = null;
    for (const c of cands) {
      if (
        !best ||
        c.stored.effectiveDate > best.stored.effectiveDate ||
        (c.stored.effectiveDate === best.stored.effectiveDate &&
          (c.typeIndex < best.typeIndex || (c.typeIndex === best.typeIndex && !c.inverse && best.inverse)))
      ) {
        best = c;
      }
    }
    return best;
  }

  closing(from: string, to: string, date: string): ResolvedRate | null {
    const c = this.best(this.candidates(from, to, ['YearEnd', 'Spot'], (d) => d <= date));
    return c ? resolved(c, from, to) : null;
  }

  historical(from: string, to: string, date: string): ResolvedRate | null {
    const c = this.best(this.candidates(from, to, ['Historical', 'Spot', 'YearEnd'], (d) => d <= date));
    return c ? resolved(c, from, to) : null;
  }

  average(from: string, to: string, startDate: string, endDate: string): ResolvedRate | null {
    const within = (d: string) => d >= startDate && d <= endDate;
    const c = this.best(this.candidates(from, to, ['Average'], within));
    if (c) return resolved(c, from, to);
    // ComputedAverage: mean of the Spot rates within the range, one per date (direct preferred).
    const byDate = new Map<string, Candidate>();
    for (const s of this.candidates(from, to, ['Spot'], within)) {
      const prev = byDate.get(s.stored.effectiveDate);
      if (!prev || (prev.inverse && !s.inverse)) byDate.set(s.stored.effectiveDate, s);
    }
    const spots = [...byDate.values()].sort((a, b) =>
      a.stored.effectiveDate < b.stored.effectiveDate ? -1 : 1,
    );
    if (spots.length === 0) return null;
    let total = ZERO;
    for (const s of spots) total = total.plus(effective(s));
    const mean = roundTo(total.div(spots.length), 10);
    const first = spots[0]!.stored;
    return {
      effectiveRate: mean,
      usage: {
        exchangeRateId: first.id,
        fromCurrency: from,
        toCurrency: to,
        rateType: first.rateType,
        effectiveDate: first.effectiveDate,
        rate: formatRate(dec(first.rate)),
        effectiveRate: formatRate(mean),
        derivation: 'ComputedAverage',
        legIds: spots.map((s) => s.stored.id),
      },
    };
  }
}

export interface SimpleLine {
  date: string;
  accountNumber: string;
  /** debit − credit */
  amount: string;
}

/** Σ (debit − credit) per (account, date) of the lines dated on or before `asOfDate`. */
export function figuresFromLines(lines: SimpleLine[], asOfDate: string): LedgerFigure[] {
  const map = new Map<string, Decimal>();
  for (const l of lines) {
    if (l.date > asOfDate) continue;
    const key = `${l.accountNumber}|${l.date}`;
    map.set(key, (map.get(key) ?? ZERO).plus(dec(l.amount)));
  }
  return [...map.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, amount]) => {
      const [accountNumber, date] = key.split('|') as [string, string];
      return { accountNumber, date, amount };
    });
}

/** Periods 1–12 of calendar fiscal years (fiscal year end 31 December) from `firstYear` to `lastYear`. */
export function calendarYearPeriods(firstYear: number, lastYear: number): GroupPeriod[] {
  const out: GroupPeriod[] = [];
  for (let y = firstYear; y <= lastYear; y++) {
    for (let m = 1; m <= 12; m++) {
      out.push({ year: y, period: m, startDate: makeDate(y, m, 1), endDate: lastDayOfMonth(y, m) });
    }
  }
  return out;
}

/** An account of a test chart (cash-flow category null, monetary unless stated). */
export function account(
  accountNumber: string,
  name: string,
  accountType: AccountInfo['accountType'],
  accountCategory: AccountInfo['accountCategory'],
  extra: Partial<Pick<AccountInfo, 'isCashEquivalent' | 'cashFlowCategory' | 'isNonMonetary'>> = {},
): AccountInfo {
  return {
    accountNumber,
    name,
    accountType,
    accountCategory,
    isCashEquivalent: extra.isCashEquivalent ?? false,
    cashFlowCategory: extra.cashFlowCategory ?? null,
    isNonMonetary: extra.isNonMonetary ?? false,
  };
}

/** A balanced journal entry as simple lines: pairs of [account number, debit − credit]. */
export function entry(date: string, ...pairs: [string, string][]): SimpleLine[] {
  return pairs.map(([accountNumber, amount]) => ({ date, accountNumber, amount }));
}

export interface TestCompany {
  companyId: string;
  companyName: string;
  functionalCurrency: string;
  role?: 'Parent' | 'Member';
  consolidationMethod?: CompanyInput['consolidationMethod'];
  ownershipPercentage?: string;
  retainedEarningsAccountNumber?: string | null;
  accounts: AccountInfo[];
  lines: SimpleLine[];
  isActive?: boolean;
  fiscalPeriodStatus?: CompanyInput['fiscalPeriodStatus'];
  unpostedEntryCount?: number;
  heldByCompanyId?: string | null;
  acquisitionDate?: string | null;
  acquisition?: AcquisitionInput | null;
}

/** Σ (debit − credit) per account of the lines dated before `cutDate`. */
function cutFigures(lines: SimpleLine[], cutDate: string): CutLedger['figures'] {
  const map = new Map<string, Decimal>();
  for (const l of lines) {
    if (l.date >= cutDate) continue;
    map.set(l.accountNumber, (map.get(l.accountNumber) ?? ZERO).plus(dec(l.amount)));
  }
  return [...map.entries()]
    .filter(([, v]) => !v.isZero())
    .map(([accountNumber, amount]) => ({ accountNumber, amount: amount.toFixed() }));
}

/**
 * Cut ledgers of every company at every acquisition date of the group (a superset of the cuts the
 * engine reads), as of a view's date.
 */
function cutLedgers(companies: TestCompany[], asOfDate: string): CutLedger[] {
  const dates = [
    ...new Set(companies.filter((c) => c.acquisition && c.acquisitionDate).map((c) => c.acquisitionDate!)),
  ].filter((d) => d <= asOfDate);
  return companies.flatMap((c) =>
    dates.map((cutDate) => ({ companyId: c.companyId, cutDate, figures: cutFigures(c.lines, cutDate) })),
  );
}

export interface TestGroup {
  reportingCurrency: string;
  /** closing asOfDate; the group calendar is the calendar year */
  asOfDate: string;
  periodRef: { year: number; period: number };
  companies: TestCompany[];
  rules?: EliminationRuleInput[];
  intercompanyTransactions?: IntercompanyTransactionInput[];
  rates?: StoredRate[];
  options?: Partial<RunOptionsInput>;
}

/** Builds a ConsolidationInput for a calendar-year group from journal lines (both views). */
export function buildTestInput(g: TestGroup): ConsolidationInput {
  const year = g.periodRef.year;
  const yearStart = makeDate(year, 1, 1);
  const openingAsOf = makeDate(year - 1, 12, 31);
  const view = (asOfDate: string, yearStartDate: string): ViewData => ({
    asOfDate,
    yearStartDate,
    ledgers: g.companies.map((c) => ({
      companyId: c.companyId,
      figures: figuresFromLines(c.lines, asOfDate),
    })),
    intercompanyTransactions: (g.intercompanyTransactions ?? []).filter(
      (t) => t.transactionDate >= yearStartDate && t.transactionDate <= asOfDate,
    ),
    cuts: cutLedgers(g.companies, asOfDate),
  });
  return {
    reportingCurrency: g.reportingCurrency,
    periodRef: g.periodRef,
    asOfDate: g.asOfDate,
    yearStartDate: yearStart,
    groupPeriods: calendarYearPeriods(year - 10, year),
    options: {
      skipValidation: false,
      continueOnWarnings: true,
      includeEquityMethodInvestments: true,
      approvedManualRuleIds: [],
      ...g.options,
    },
    companies: g.companies.map((c, i) => ({
      companyId: c.companyId,
      companyName: c.companyName,
      functionalCurrency: c.functionalCurrency,
      isActive: c.isActive ?? true,
      role: c.role ?? (i === 0 ? 'Parent' : 'Member'),
      consolidationMethod: c.consolidationMethod ?? 'FullConsolidation',
      ownershipPercentage: c.ownershipPercentage ?? '100',
      retainedEarningsAccountNumber: c.retainedEarningsAccountNumber ?? null,
      accounts: c.accounts,
      fiscalPeriodStatus: c.fiscalPeriodStatus === undefined ? 'Closed' : c.fiscalPeriodStatus,
      unpostedEntryCount: c.unpostedEntryCount ?? 0,
      heldByCompanyId: c.heldByCompanyId ?? null,
      acquisitionDate: c.acquisitionDate ?? null,
      acquisition: c.acquisition ?? null,
    })),
    rules: g.rules ?? [],
    rates: new InMemoryRateProvider(g.rates ?? []),
    closing: view(g.asOfDate, yearStart),
    opening: view(openingAsOf, makeDate(year - 1, 1, 1)),
  };
}
