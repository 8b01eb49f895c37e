/**
 * THE rate-resolution entry points other modules call (journal-line conversion, consolidation
 * translation, revaluation, company reports in another currency):
 *
 * - {@link resolveRateFor}: one resolution, one query for the organization and one for the candidates;
 * - {@link loadRateBook}: loads an organization's rates among a set of currencies once and resolves
 *   many queries in memory (consolidation runs).
 *
 * Both call `resolveRate` of domain/rates.ts; nothing else picks a rate.
 */
import { eq } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { organizations } from '../../db/schema/index.ts';
import type { IsoDate } from '../../domain/dates.ts';
import {
  type CurrencyPair,
  candidateFilter,
  candidatePairs,
  type DateCondition,
  type RateResolution,
  type RateType,
  resolveRate,
  type StoredRate,
} from '../../domain/rates.ts';
import { DEFAULT_SETTINGS, type OrganizationSettings } from '../organizations/service.ts';
import * as repo from './repo.ts';

export interface ResolveRateForInput {
  organizationId: string;
  from: string;
  to: string;
  /** Acceptable types, most preferred first (non-empty). */
  types: readonly RateType[];
  condition: DateCondition;
  /** Step 5 (Average over a `within` range): fall back to the mean of the range's Spot rates. */
  computeAverage?: boolean;
}

export async function organizationRateContext(
  db: Queryable,
  organizationId: string,
): Promise<{ reportingCurrency: string | null; settings: OrganizationSettings }> {
  const [row] = await db
    .select({ reportingCurrency: organizations.reportingCurrency, settings: organizations.settings })
    .from(organizations)
    .where(eq(organizations.id, organizationId));
  return {
    reportingCurrency: row?.reportingCurrency ?? null,
    settings: { ...DEFAULT_SETTINGS, ...((row?.settings ?? {}) as Partial<OrganizationSettings>) },
  };
}

async function resolveWith(
  db: Queryable,
  input: ResolveRateForInput,
  reportingCurrency: string | null,
): Promise<RateResolution | null> {
  const base = {
    from: input.from,
    to: input.to,
    types: input.types,
    condition: input.condition,
    reportingCurrency,
    ...(input.computeAverage ? { computeAverage: true } : {}),
  };
  const filter = candidateFilter(base);
  const rates = await repo.loadCandidateRates(db, input.organizationId, {
    ...filter,
    condition: input.condition,
    computeAverage: input.computeAverage,
  });
  return resolveRate({ ...base, rates });
}

/**
 * Resolves the rate `from → to` of an organization by the one procedure
 * (`resolveRate`): direct, inverse (1/rate rounded to 10 decimals), triangulated through the
 * organization's reporting currency, and — with `computeAverage` — the mean of the Spot rates of a
 * `within` range. Returns null when nothing is found (callers raise their own error, e.g. the journal's
 * `400 ExchangeRateNotFoundError`).
 *
 * Two queries: the organization's reporting currency, and the candidate rates (one SQL statement).
 * Runs on a transaction too (pass `tx`). Throws (programming errors) for `from === to`, empty `types`,
 * or `computeAverage` without a `within` condition.
 *
 * Journal-line conversion: `{types: ['Spot'], condition: {kind: 'onOrBefore', date: transactionDate}}`;
 * the line's `exchangeRateId` is `legs[0].id`, `exchangeRateLegIds` the ids of `legs`.
 */
export async function resolveRateFor(
  db: Queryable,
  input: ResolveRateForInput,
): Promise<RateResolution | null> {
  if (input.from === input.to) throw new Error(`resolveRateFor: same currency ${input.from}`);
  const { reportingCurrency } = await organizationRateContext(db, input.organizationId);
  return resolveWith(db, input, reportingCurrency);
}

/**
 * For writers that store rate references (journal lines' `exchangeRateId`/`exchangeRateLegIds`, run
 * rate usages): call inside the writing transaction with every leg id after resolving. Locks the rates
 * FOR SHARE so that a concurrent DELETE (FOR UPDATE) either waits and then sees the new usage (409),
 * or has already removed the rate — then this returns fewer ids than given and the caller should
 * resolve again. Returns the ids that still exist.
 */
export function lockRatesForUse(
  tx: Queryable,
  organizationId: string,
  rateIds: readonly string[],
): Promise<string[]> {
  return repo.lockRatesShared(tx, organizationId, rateIds);
}

/** One query of a {@link RateBook}. */
export interface RateQuery {
  from: string;
  to: string;
  types: readonly RateType[];
  condition: DateCondition;
  computeAverage?: boolean;
}

export interface RateBook {
  organizationId: string;
  reportingCurrency: string | null;
  /** Currencies whose mutual rates are loaded (the requested ones plus the reporting currency). */
  currencies: readonly string[];
  /** Latest effective date loaded; null = all dates. */
  untilDate: IsoDate | null;
  /** Every loaded rate, by effective date. */
  rates: readonly StoredRate[];
  /** Same result as {@link resolveRateFor} for the same query, computed in memory. */
  resolve(query: RateQuery): RateResolution | null;
}

const pairKey = (p: CurrencyPair) => `${p.fromCurrency}>${p.toCurrency}`;

/**
 * Loads, with one query, every rate of the organization between two currencies of `currencies` (the
 * reporting currency is added, for triangulation) effective on or before `untilDate` (null: all
 * dates), and returns a book that resolves any number of queries in memory by the same procedure as
 * {@link resolveRateFor}.
 *
 * `resolve` throws (programming errors) when a query names a currency outside the book, or has a date
 * condition that may need rates after `untilDate` (`nearest`/`any` with a bound, `onOrBefore`/`on`
 * after it, a `within` range ending after it) — such a query could silently miss a rate.
 */
export async function loadRateBook(
  db: Queryable,
  organizationId: string,
  currencies: readonly string[],
  untilDate: IsoDate | null,
): Promise<RateBook> {
  const { reportingCurrency } = await organizationRateContext(db, organizationId);
  const set = [...new Set([...currencies, ...(reportingCurrency ? [reportingCurrency] : [])])].sort();
  const rates = await repo.loadRatesAmong(db, organizationId, set, untilDate);
  const byPair = new Map<string, StoredRate[]>();
  for (const r of rates) {
    const key = pairKey(r);
    const list = byPair.get(key);
    if (list) list.push(r);
    else byPair.set(key, [r]);
  }
  const known = new Set(set);
  return {
    organizationId,
    reportingCurrency,
    currencies: set,
    untilDate,
    rates,
    resolve(query: RateQuery): RateResolution | null {
      if (!known.has(query.from) || !known.has(query.to)) {
        throw new Error(`RateBook: ${query.from}/${query.to} outside the loaded currencies`);
      }
      if (untilDate !== null && !withinBook(query.condition, untilDate)) {
        throw new Error(`RateBook: condition ${JSON.stringify(query.condition)} reaches after ${untilDate}`);
      }
      const candidates: StoredRate[] = [];
      for (const p of candidatePairs(query.from, query.to, reportingCurrency)) {
        const list = byPair.get(pairKey(p));
        if (list) candidates.push(...list);
      }
      return resolveRate({
        from: query.from,
        to: query.to,
        types: query.types,
        condition: query.condition,
        reportingCurrency,
        rates: candidates,
        ...(query.computeAverage ? { computeAverage: true } : {}),
      });
    },
  };
}

function withinBook(condition: DateCondition, untilDate: IsoDate): boolean {
  switch (condition.kind) {
    case 'on':
    case 'onOrBefore':
      return condition.date <= untilDate;
    case 'within':
      return condition.end <= untilDate;
    case 'nearest':
    case 'any':
      return false;
  }
}
