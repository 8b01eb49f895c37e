/**
 * Rate look-ups of a consolidation run: memoised calls to the loader's RateProvider,
 * the AVERAGE_RATE_FALLBACK rule, MISSING_EXCHANGE_RATE references and the list of rates used.
 */
import { type Decimal, dec } from '../money.ts';
import type {
  GroupPeriod,
  RateProvider,
  RatePurpose,
  RateType,
  RateUsage,
  ResolvedRate,
  ValidationIssue,
} from './types.ts';

const RATE_TYPE_ORDER: Record<RateType, number> = { Spot: 0, Average: 1, Historical: 2, YearEnd: 3 };
const PURPOSE_ORDER: Record<RatePurpose, number> = { Closing: 0, Average: 1, Historical: 2 };

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Shared by both views: memoises provider calls and collects every rate used. */
export class RateBook {
  private readonly cache = new Map<string, ResolvedRate | null>();
  private readonly used = new Map<string, RateUsage>();
  private readonly recorded = new WeakMap<ResolvedRate, Set<RatePurpose>>();

  constructor(
    private readonly provider: RateProvider,
    readonly reportingCurrency: string,
  ) {}

  private memo(key: string, f: () => ResolvedRate | null): ResolvedRate | null {
    if (this.cache.has(key)) return this.cache.get(key) ?? null;
    const r = f();
    this.cache.set(key, r);
    return r;
  }

  closing(from: string, date: string): ResolvedRate | null {
    const to = this.reportingCurrency;
    return this.memo(`C|${from}|${date}`, () => this.provider.closing(from, to, date));
  }

  average(from: string, start: string, end: string): ResolvedRate | null {
    const to = this.reportingCurrency;
    return this.memo(`A|${from}|${start}|${end}`, () => this.provider.average(from, to, start, end));
  }

  historical(from: string, date: string, to = this.reportingCurrency): ResolvedRate | null {
    return this.memo(`H|${from}|${to}|${date}`, () => this.provider.historical(from, to, date));
  }

  record(r: ResolvedRate, purpose: RatePurpose): void {
    // Fast path: the memoised result object is recorded once per purpose (this runs for every
    // translated figure; building the JSON key each time dominated large runs).
    const seen = this.recorded.get(r);
    if (seen?.has(purpose)) return;
    if (seen) seen.add(purpose);
    else this.recorded.set(r, new Set([purpose]));
    const u: RateUsage = { ...r.usage, legIds: [...r.usage.legIds], purpose };
    const key = JSON.stringify([
      u.exchangeRateId,
      u.fromCurrency,
      u.toCurrency,
      u.rateType,
      u.effectiveDate,
      u.rate,
      u.effectiveRate,
      u.derivation,
      u.legIds,
      u.purpose,
    ]);
    if (!this.used.has(key)) this.used.set(key, u);
  }

  /** Deduplicated usages ordered by currency pair, rate type, effective date (then purpose, derivation, id). */
  usages(): RateUsage[] {
    return [...this.used.values()].sort(
      (a, b) =>
        cmp(a.fromCurrency, b.fromCurrency) ||
        cmp(a.toCurrency, b.toCurrency) ||
        RATE_TYPE_ORDER[a.rateType] - RATE_TYPE_ORDER[b.rateType] ||
        cmp(a.effectiveDate, b.effectiveDate) ||
        PURPOSE_ORDER[a.purpose] - PURPOSE_ORDER[b.purpose] ||
        cmp(a.derivation, b.derivation) ||
        cmp(a.exchangeRateId, b.exchangeRateId) ||
        cmp(a.effectiveRate, b.effectiveRate) ||
        cmp(a.legIds.join(','), b.legIds.join(',')),
    );
  }
}

/** Per-view rate access: CR, AR(q) with fallback, HR(d); collects this view's rate issues. */
export class ViewRates {
  /** MISSING_EXCHANGE_RATE issues by entity reference, in discovery order */
  readonly missing = new Map<string, ValidationIssue>();
  /** AVERAGE_RATE_FALLBACK warnings by entity reference, in discovery order */
  readonly fallbacks = new Map<string, ValidationIssue>();

  constructor(
    private readonly book: RateBook,
    private readonly label: string,
  ) {}

  private get G(): string {
    return this.book.reportingCurrency;
  }

  private miss(ref: string, message: string): null {
    if (!this.missing.has(ref)) {
      this.missing.set(ref, {
        severity: 'Error',
        code: 'MISSING_EXCHANGE_RATE',
        message,
        entityReference: ref,
      });
    }
    return null;
  }

  /** Closing rate CR: [YearEnd, Spot] on or before `date`. */
  closing(from: string, date: string): Decimal | null {
    const r = this.book.closing(from, date);
    if (!r) {
      const ref = `${from}/${this.G} YearEnd|Spot on or before ${date}`;
      return this.miss(
        ref,
        `No closing rate ${from}→${this.G} (YearEnd or Spot) on or before ${date}${this.label}`,
      );
    }
    this.book.record(r, 'Closing');
    return dec(r.effectiveRate);
  }

  /** Historical rate HR(d): [Historical, Spot, YearEnd] on or before `date`. */
  historical(from: string, date: string): Decimal | null {
    const r = this.book.historical(from, date);
    if (!r) {
      const ref = `${from}/${this.G} Historical|Spot|YearEnd on or before ${date}`;
      return this.miss(
        ref,
        `No historical rate ${from}→${this.G} (Historical, Spot or YearEnd) on or before ${date}${this.label}`,
      );
    }
    this.book.record(r, 'Historical');
    return dec(r.effectiveRate);
  }

  /**
   * Historical rate between any two currencies on or before `date` ([Historical, Spot, YearEnd]): the
   * rate that converts an acquisition's consideration into the acquired member's currency. 1 for
   * the same currency.
   */
  historicalBetween(from: string, to: string, date: string): Decimal | null {
    if (from === to) return dec(1);
    const r = this.book.historical(from, date, to);
    if (!r) {
      const ref = `${from}/${to} Historical|Spot|YearEnd on or before ${date}`;
      return this.miss(
        ref,
        `No historical rate ${from}→${to} (Historical, Spot or YearEnd) on or before ${date}${this.label}`,
      );
    }
    this.book.record(r, 'Historical');
    return dec(r.effectiveRate);
  }

  /** Average rate AR(q); when none, the closing rate of q with an AVERAGE_RATE_FALLBACK warning. */
  average(from: string, q: GroupPeriod): Decimal | null {
    const r = this.book.average(from, q.startDate, q.endDate);
    if (r) {
      this.book.record(r, 'Average');
      return dec(r.effectiveRate);
    }
    const c = this.book.closing(from, q.endDate);
    if (c) {
      const ref = `${from}/${this.G} Average ${q.startDate}..${q.endDate}`;
      if (!this.fallbacks.has(ref)) {
        this.fallbacks.set(ref, {
          severity: 'Warning',
          code: 'AVERAGE_RATE_FALLBACK',
          message:
            `No average rate ${from}→${this.G} within ${q.startDate}..${q.endDate} (period ${q.period} of ${q.year}); ` +
            `the period's closing rate of ${c.usage.effectiveDate} was used${this.label}`,
          entityReference: ref,
        });
      }
      this.book.record(c, 'Average');
      return dec(c.effectiveRate);
    }
    const ref = `${from}/${this.G} YearEnd|Spot on or before ${q.endDate}`;
    return this.miss(
      ref,
      `No average rate ${from}→${this.G} within ${q.startDate}..${q.endDate} and no closing rate (YearEnd or Spot) ` +
        `on or before ${q.endDate}${this.label}`,
    );
  }
}
