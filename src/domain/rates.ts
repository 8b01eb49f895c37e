/**
 * Exchange-rate resolution.
 *
 * This module holds THE one resolution procedure. The lookup endpoints, journal-line
 * conversion and consolidation translation all call {@link resolveRate}; none of
 * them picks a rate by itself.
 *
 * The procedure is pure: the caller loads the candidate stored rates of one organization (the
 * repository selects them with SQL, using {@link candidatePairs} / {@link candidateFilter} so that it
 * loads exactly what the procedure may need) and the procedure chooses the winner. Loading more rates
 * than necessary is harmless: rates of other pairs, of unacceptable types or outside the date
 * condition are ignored.
 *
 * A stored rate `from → to` states how many units of `to` one unit of `from` buys.
 */
import type { IsoDate } from './dates.ts';
import { daysBetween } from './dates.ts';
import { type Decimal, dec, roundTo, sum } from './money.ts';

export const RATE_TYPES = ['Spot', 'Average', 'Historical', 'YearEnd'] as const;
export type RateType = (typeof RATE_TYPES)[number];

export const RATE_SOURCES = ['Manual', 'CentralBankEU', 'CentralBankUS', 'System'] as const;
export type RateSource = (typeof RATE_SOURCES)[number];

/**
 * Type preference of `latest` and `closest` when the request names no `rateType`:
 * on one date Spot beats YearEnd beats Average beats Historical.
 */
export const ANY_RATE_TYPE_ORDER: readonly RateType[] = ['Spot', 'YearEnd', 'Average', 'Historical'];

/** Types of a period's closing rate (`period-closing`, translation of monetary items): YearEnd preferred. */
export const CLOSING_RATE_TYPES: readonly RateType[] = ['YearEnd', 'Spot'];

/** Types of a historical rate HR(d) (translation of equity and non-monetary items), preferred first. */
export const HISTORICAL_RATE_TYPES: readonly RateType[] = ['Historical', 'Spot', 'YearEnd'];

/** Decimals of every rate the service derives (inverse, triangulated product, computed average). */
export const DERIVED_RATE_DECIMALS = 10;

export interface StoredRate {
  id: string;
  organizationId: string;
  fromCurrency: string;
  toCurrency: string;
  /** Decimal text of the stored rate (> 0, at most 10 decimals); any decimal spelling is accepted. */
  rate: string;
  effectiveDate: IsoDate;
  rateType: RateType;
  source: RateSource;
  createdBy: string;
  createdAt: Date | string;
  updatedAt: Date | string;
}

/**
 * The date condition of a resolution.
 * - `on`: effective exactly on `date` (`/rate`).
 * - `onOrBefore`: effective on or before `date`, never after (journal-line conversion, closing rates,
 *   historical rates).
 * - `nearest`: nearest to `date`, earlier or later; at equal distance the earlier date (`/closest`).
 * - `within`: effective in `[start, end]`, both inclusive (period averages).
 * - `any`: every date; the latest wins (`/latest`).
 */
export type DateCondition =
  | { kind: 'on'; date: IsoDate }
  | { kind: 'onOrBefore'; date: IsoDate }
  | { kind: 'nearest'; date: IsoDate }
  | { kind: 'within'; start: IsoDate; end: IsoDate }
  | { kind: 'any' };

export type RateDerivation = 'Direct' | 'Inverse' | 'Triangulated' | 'ComputedAverage';

export interface RateResolution {
  /** Units of `to` per one unit of `from`. Format with `formatRate` (money.ts) for output. */
  effectiveRate: Decimal;
  derivation: RateDerivation;
  /** The stored rate used for `Direct` / `Inverse` (for `Inverse`: the rate of the pair `to → from`); else null. */
  rate: StoredRate | null;
  /**
   * Every stored rate the result was computed from: one for Direct/Inverse, `[from → R leg, R → to leg]`
   * for Triangulated, the averaged Spot rates in date order for ComputedAverage. A journal line's
   * `exchangeRateId` is `legs[0].id`; its `exchangeRateLegIds` are the ids of `legs`.
   */
  legs: StoredRate[];
}

export interface ResolveRateInput {
  from: string;
  to: string;
  /** Acceptable rate types, most preferred first (non-empty). */
  types: readonly RateType[];
  condition: DateCondition;
  /** The organization's reporting currency, used for triangulation (step 4); null disables it. */
  reportingCurrency: string | null;
  /**
   * Stored rates of ONE organization that may matter: those of the pairs listed by
   * {@link candidatePairs}. Others are ignored.
   */
  rates: readonly StoredRate[];
  /**
   * Step 5: when steps 1–4 find nothing, return the mean of the Spot rates effective within the
   * range (`ComputedAverage`). Only meaningful for the Average type over a `within` condition;
   * requesting it with another condition is a programming error and throws.
   */
  computeAverage?: boolean;
}

export interface CurrencyPair {
  fromCurrency: string;
  toCurrency: string;
}

function pairKey(from: string, to: string): string {
  return `${from}>${to}`;
}

/**
 * The currency pairs whose stored rates a resolution of `from → to` may use: the direct and inverse
 * pair, and — when `reportingCurrency` differs from both — the four pairs of the two triangulation
 * legs (`from → R`, `R → from`, `R → to`, `to → R`). Direct pair first; no duplicates.
 */
export function candidatePairs(from: string, to: string, reportingCurrency: string | null): CurrencyPair[] {
  const pairs: CurrencyPair[] = [
    { fromCurrency: from, toCurrency: to },
    { fromCurrency: to, toCurrency: from },
  ];
  if (canTriangulate(from, to, reportingCurrency)) {
    const r = reportingCurrency as string;
    pairs.push(
      { fromCurrency: from, toCurrency: r },
      { fromCurrency: r, toCurrency: from },
      { fromCurrency: r, toCurrency: to },
      { fromCurrency: to, toCurrency: r },
    );
  }
  return pairs;
}

/** Inclusive bounds on `effectiveDate` implied by a condition (`null` = unbounded). */
export function conditionDateBounds(condition: DateCondition): {
  start: IsoDate | null;
  end: IsoDate | null;
} {
  switch (condition.kind) {
    case 'on':
      return { start: condition.date, end: condition.date };
    case 'onOrBefore':
      return { start: null, end: condition.date };
    case 'within':
      return { start: condition.start, end: condition.end };
    case 'nearest':
    case 'any':
      return { start: null, end: null };
  }
}

/**
 * Everything a repository needs to load the candidates of one resolution with a single query:
 * `pairs` (OR of `(from_currency, to_currency)`), `types` (rate types, Spot added for step 5) and the
 * inclusive `effectiveDate` bounds. Rows outside this filter can never influence the result.
 * (Under `nearest` and `any` every date may matter; a repository may narrow further with its own
 * ORDER BY / LIMIT per pair and type, as long as it keeps every row that could win.)
 */
export function candidateFilter(input: Omit<ResolveRateInput, 'rates'>): {
  pairs: CurrencyPair[];
  types: RateType[];
  start: IsoDate | null;
  end: IsoDate | null;
} {
  const types = [...new Set(input.types)];
  if (input.computeAverage && !types.includes('Spot')) types.push('Spot');
  return {
    pairs: candidatePairs(input.from, input.to, input.reportingCurrency),
    types,
    ...conditionDateBounds(input.condition),
  };
}

/** True when `date` satisfies the condition. */
export function meetsCondition(date: IsoDate, condition: DateCondition): boolean {
  // Valid YYYY-MM-DD strings compare chronologically as plain strings (dates.ts).
  switch (condition.kind) {
    case 'on':
      return date === condition.date;
    case 'onOrBefore':
      return date <= condition.date;
    case 'within':
      return date >= condition.start && date <= condition.end;
    case 'nearest':
    case 'any':
      return true;
  }
}

/**
 * `1 / rate`, rounded half away from zero to 10 decimals (step 3 below; every derived rate has 10 decimals).
 * A consequence of that rounding: a stored rate of 2·10^10 or more has an inverse that rounds
 * to `0`; it is returned as such (callers converting amounts should treat a zero rate as unusable).
 */
export function invertRate(rate: Decimal | string): Decimal {
  return roundTo(dec(1).dividedBy(dec(rate)), DERIVED_RATE_DECIMALS);
}

function canTriangulate(from: string, to: string, reportingCurrency: string | null): boolean {
  return reportingCurrency !== null && reportingCurrency !== from && reportingCurrency !== to;
}

interface Candidate {
  stored: StoredRate;
  inverse: boolean;
  typeIndex: number;
}

/** Steps 1 and 2: the candidates of `from → to` (direct and inverse) ordered best first. */
function rankedCandidates(
  from: string,
  to: string,
  types: readonly RateType[],
  condition: DateCondition,
  rates: readonly StoredRate[],
): Candidate[] {
  const direct = pairKey(from, to);
  const inverse = pairKey(to, from);
  const candidates: Candidate[] = [];
  for (const stored of rates) {
    const key = pairKey(stored.fromCurrency, stored.toCurrency);
    if (key !== direct && key !== inverse) continue;
    const typeIndex = types.indexOf(stored.rateType);
    if (typeIndex < 0) continue;
    if (!meetsCondition(stored.effectiveDate, condition)) continue;
    candidates.push({ stored, inverse: key === inverse, typeIndex });
  }
  const nearestTo = condition.kind === 'nearest' ? condition.date : null;
  candidates.sort((a, b) => {
    const da = a.stored.effectiveDate;
    const db = b.stored.effectiveDate;
    if (da !== db) {
      if (nearestTo !== null) {
        const distA = Math.abs(daysBetween(nearestTo, da));
        const distB = Math.abs(daysBetween(nearestTo, db));
        if (distA !== distB) return distA - distB;
        return da < db ? -1 : 1; // equal distance: the earlier date
      }
      return da > db ? -1 : 1; // latest date first
    }
    if (a.typeIndex !== b.typeIndex) return a.typeIndex - b.typeIndex;
    if (a.inverse !== b.inverse) return a.inverse ? 1 : -1; // direct before inverse
    // Only reachable with duplicate input rows; keeps the result deterministic.
    return a.stored.id < b.stored.id ? -1 : a.stored.id > b.stored.id ? 1 : 0;
  });
  return candidates;
}

/** Step 3: the value of a candidate as a `from → to` rate. */
function candidateValue(c: Candidate): Decimal {
  return c.inverse ? invertRate(c.stored.rate) : dec(c.stored.rate);
}

/** Steps 1–3 for one pair: Direct or Inverse, or null. */
function resolveDirectOrInverse(
  from: string,
  to: string,
  types: readonly RateType[],
  condition: DateCondition,
  rates: readonly StoredRate[],
): RateResolution | null {
  const winner = rankedCandidates(from, to, types, condition, rates)[0];
  if (!winner) return null;
  return {
    effectiveRate: candidateValue(winner),
    derivation: winner.inverse ? 'Inverse' : 'Direct',
    rate: winner.stored,
    legs: [winner.stored],
  };
}

/**
 * Step 5: mean of the Spot rates of `from → to` effective within the range. One value per date:
 * the uniqueness rule allows at most one Spot rate per pair and date, so a date carries at most a
 * direct and an inverse Spot rate; when both exist the direct one is used (the tie rule of step 2),
 * the other is neither averaged nor listed as a leg. Inverse values are rounded to 10 decimals
 * before averaging (step 3), the mean is rounded to 10 decimals.
 */
function computeSpotAverage(
  from: string,
  to: string,
  condition: DateCondition,
  rates: readonly StoredRate[],
): RateResolution | null {
  const byDate = new Map<IsoDate, Candidate>();
  // Ranked latest first, direct before inverse on a date: the first candidate per date is the one used.
  for (const c of rankedCandidates(from, to, ['Spot'], condition, rates)) {
    if (!byDate.has(c.stored.effectiveDate)) byDate.set(c.stored.effectiveDate, c);
  }
  if (byDate.size === 0) return null;
  const used = [...byDate.values()].sort((a, b) =>
    a.stored.effectiveDate < b.stored.effectiveDate ? -1 : 1,
  );
  const mean = sum(used.map(candidateValue)).dividedBy(used.length);
  return {
    effectiveRate: roundTo(mean, DERIVED_RATE_DECIMALS),
    derivation: 'ComputedAverage',
    rate: null,
    legs: used.map((c) => c.stored),
  };
}

/**
 * Resolves the rate `from → to`:
 *
 * 1. candidates: stored rates of an acceptable type meeting the date condition, for `from → to`
 *    (direct) and `to → from` (inverse);
 * 2. winner: under `nearest` the nearest date (equal distance: the earlier date), otherwise the
 *    latest date; on equal dates the earlier type in `types`, then direct over inverse;
 * 3. a direct winner as stored, an inverse winner as `1 / rate` rounded to 10 decimals;
 * 4. without any direct or inverse candidate, and when `reportingCurrency` R differs from both
 *    currencies: `from → R` and `R → to` each by steps 1–3 (same types and condition), product rounded
 *    to 10 decimals (`Triangulated`, legs `[from → R, R → to]`); both legs must exist;
 * 5. with `computeAverage` and nothing found by steps 1–4: the mean of the Spot rates of the pair
 *    effective within the range (`ComputedAverage`).
 *
 *    Step 5 is NOT triangulated: each Spot rate is "resolved direct or inverse as in
 *    step 3" and that `legs` lists "the Spot rates averaged" — a triangulated average would need leg
 *    pairs per date and is not described. Consolidation's further fallback (closing rate with warning
 *    AVERAGE_RATE_FALLBACK) belongs to the caller.
 * 6. null when nothing is found.
 *
 * Throws (programming errors, which callers prevent by validation): `from === to`, empty `types`,
 * `computeAverage` with a condition other than `within`.
 */
export function resolveRate(input: ResolveRateInput): RateResolution | null {
  const { from, to, types, condition, reportingCurrency, rates } = input;
  if (from === to) throw new Error(`resolveRate: same currency ${from}`);
  if (types.length === 0) throw new Error('resolveRate: no acceptable rate type');
  if (input.computeAverage && condition.kind !== 'within') {
    throw new Error('resolveRate: computeAverage needs a within condition');
  }

  const single = resolveDirectOrInverse(from, to, types, condition, rates);
  if (single) return single;

  if (canTriangulate(from, to, reportingCurrency)) {
    const r = reportingCurrency as string;
    const first = resolveDirectOrInverse(from, r, types, condition, rates);
    const second = first ? resolveDirectOrInverse(r, to, types, condition, rates) : null;
    if (first && second) {
      return {
        effectiveRate: roundTo(first.effectiveRate.times(second.effectiveRate), DERIVED_RATE_DECIMALS),
        derivation: 'Triangulated',
        rate: null,
        legs: [...first.legs, ...second.legs],
      };
    }
  }

  if (input.computeAverage) return computeSpotAverage(from, to, condition, rates);
  return null;
}
