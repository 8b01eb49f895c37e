/**
 * Exchange rates: storage, bulk import, the five lookups, and THE rate-resolution entry
 * points other modules call (journal-line conversion, consolidation translation):
 *
 * - {@link resolveRateFor}: one resolution, one query for the organization and one for the candidates;
 * - {@link loadRateBook}: loads an organization's rates among a set of currencies once and resolves
 *   many queries in memory (consolidation runs).
 *
 * Both call `resolveRate` of domain/rates.ts; nothing else picks a rate.
 */
import { eq } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type Db, inTransaction, pgErrorCode, type Queryable } from '../../db/client.ts';
import { organizations } from '../../db/schema/index.ts';
import type { IsoDate } from '../../domain/dates.ts';
import { DomainError } from '../../domain/errors.ts';
import { type FiscalYearEnd, periodLookupRange } from '../../domain/fiscal-calendar.ts';
import { formatRate } from '../../domain/money.ts';
import {
  ANY_RATE_TYPE_ORDER,
  CLOSING_RATE_TYPES,
  type CurrencyPair,
  candidateFilter,
  candidatePairs,
  type DateCondition,
  type RateDerivation,
  type RateResolution,
  type RateSource,
  type RateType,
  resolveRate,
  type StoredRate,
} from '../../domain/rates.ts';
import type { Access } from '../../http/access.ts';
import { type PageParams, paged } from '../../http/pagination.ts';
import { recordAudit } from '../audit/service.ts';
import { recordEvent } from '../events/record.ts';
import { fiscalYearEndOf, requireCompany } from '../companies/lookup.ts';
import { DEFAULT_SETTINGS, type OrganizationSettings } from '../organizations/service.ts';
import * as repo from './repo.ts';

// ---------------------------------------------------------------------------------------------------
// Records and errors

export interface ExchangeRateRecord {
  id: string;
  organizationId: string;
  fromCurrency: string;
  toCurrency: string;
  rate: string;
  effectiveDate: string;
  rateType: RateType;
  source: RateSource;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

const iso = (v: Date | string) => (typeof v === 'string' ? new Date(v).toISOString() : v.toISOString());

/** Wire form of a stored rate: canonical rate text, ISO timestamps. */
export function exchangeRateRecord(r: StoredRate): ExchangeRateRecord {
  return {
    id: r.id,
    organizationId: r.organizationId,
    fromCurrency: r.fromCurrency,
    toCurrency: r.toCurrency,
    rate: formatRate(r.rate),
    effectiveDate: r.effectiveDate,
    rateType: r.rateType,
    source: r.source,
    createdBy: r.createdBy,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
  };
}

export interface RateLookupResult {
  fromCurrency: string;
  toCurrency: string;
  rate: ExchangeRateRecord | null;
  effectiveRate: string | null;
  derivation: RateDerivation | null;
  legs: ExchangeRateRecord[];
}

/** Wire form of a resolution (RateLookupResult); the empty result (nothing found) for null. */
export function rateLookupResult(from: string, to: string, res: RateResolution | null): RateLookupResult {
  if (!res) {
    return {
      fromCurrency: from,
      toCurrency: to,
      rate: null,
      effectiveRate: null,
      derivation: null,
      legs: [],
    };
  }
  return {
    fromCurrency: from,
    toCurrency: to,
    rate: res.rate ? exchangeRateRecord(res.rate) : null,
    effectiveRate: formatRate(res.effectiveRate),
    derivation: res.derivation,
    legs: res.legs.map(exchangeRateRecord),
  };
}

/** `400 SameCurrencyExchangeRateError {currency}` (create, bulk, lookups). */
export function sameCurrencyError(currency: string): DomainError {
  return new DomainError(400, 'SameCurrencyExchangeRateError', 'fromCurrency and toCurrency must differ', {
    currency,
  });
}

export function exchangeRateIdNotFound(exchangeRateId: string): DomainError {
  return new DomainError(404, 'ExchangeRateIdNotFoundError', 'Exchange rate not found', { exchangeRateId });
}

function alreadyExists(k: repo.RateKey): DomainError {
  return new DomainError(
    409,
    'ExchangeRateAlreadyExistsError',
    'A rate for this currency pair, date and type already exists',
    {
      fromCurrency: k.fromCurrency,
      toCurrency: k.toCurrency,
      effectiveDate: k.effectiveDate,
      rateType: k.rateType,
    },
  );
}

// ---------------------------------------------------------------------------------------------------
// Rate resolution for other modules

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

async function organizationRateContext(
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

// ---------------------------------------------------------------------------------------------------
// Create, bulk create

export interface CreateRateInput {
  organizationId: string;
  fromCurrency: string;
  toCurrency: string;
  rate: string;
  effectiveDate: IsoDate;
  rateType: RateType;
  source: RateSource;
}

function newRate(input: CreateRateInput, userId: string): repo.NewRate {
  return { id: uuidv7(), ...input, createdBy: userId };
}

async function insertAudited(db: Db, access: Access, rows: repo.NewRate[]): Promise<StoredRate[]> {
  return inTransaction(db, async (tx) => {
    const created = await repo.insertRates(tx, rows);
    await recordAudit(
      tx,
      created.map((r) => ({
        organizationId: r.organizationId,
        userId: access.userId,
        action: 'Create' as const,
        entityType: 'ExchangeRate' as const,
        entityId: r.id,
      })),
    );
    // One event per request, a single rate or a bulk batch (all of one organization).
    const first = created[0];
    if (first) {
      await recordEvent(tx, {
        organizationId: first.organizationId,
        type: 'ExchangeRateCreated',
        actorId: access.userId,
        resourceType: 'ExchangeRate',
        resourceId: first.id,
        data: { rates: created.map(exchangeRateRecord), count: created.length },
      });
    }
    return created;
  });
}

/** POST /exchange-rates. The caller has checked SameCurrency (syntax step). */
export async function createRate(
  db: Db,
  access: Access,
  input: CreateRateInput,
): Promise<ExchangeRateRecord> {
  await access.authorize(input.organizationId, 'exchange_rate:manage');
  try {
    const [created] = await insertAudited(db, access, [newRate(input, access.userId)]);
    return exchangeRateRecord(created!);
  } catch (err) {
    if (pgErrorCode(err) === '23505') throw alreadyExists(input);
    throw err;
  }
}

/**
 * POST /exchange-rates/bulk: all or nothing. The caller has checked the syntax rules (same
 * organization in every element, SameCurrency). The first element (array order) that duplicates a
 * stored rate or an earlier element answers 409.
 */
export async function bulkCreateRates(
  db: Db,
  access: Access,
  inputs: readonly CreateRateInput[],
): Promise<{ created: ExchangeRateRecord[]; count: number }> {
  const organizationId = inputs[0]!.organizationId;
  await access.authorize(organizationId, 'exchange_rate:manage');
  const firstDuplicate = async (): Promise<repo.RateKey | null> => {
    const stored = await repo.existingRateKeys(db, organizationId, inputs);
    const seen = new Set<string>();
    for (const input of inputs) {
      const key = repo.rateKeyText(input);
      if (stored.has(key) || seen.has(key)) return input;
      seen.add(key);
    }
    return null;
  };
  const duplicate = await firstDuplicate();
  if (duplicate) throw alreadyExists(duplicate);
  try {
    const created = await insertAudited(
      db,
      access,
      inputs.map((i) => newRate(i, access.userId)),
    );
    return { created: created.map(exchangeRateRecord), count: created.length };
  } catch (err) {
    // A concurrent request stored one of the keys meanwhile: report the first element it duplicates.
    if (pgErrorCode(err) === '23505') throw alreadyExists((await firstDuplicate()) ?? inputs[0]!);
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------------
// Get, list, delete

/**
 * Steps 7–9 for a rate addressed by id: with `organizationId`, that organization first and the rate
 * must belong to it (else 404); without, the rate's own organization (403 for a foreign one).
 */
async function addressedRate(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  action: 'exchange_rate:read' | 'exchange_rate:manage',
): Promise<StoredRate> {
  return access.addressed(
    organizationId,
    action,
    () => repo.findRateById(db, id),
    () => exchangeRateIdNotFound(id),
  );
}

export async function getRate(
  db: Db,
  access: Access,
  id: string,
  organizationId?: string,
): Promise<ExchangeRateRecord> {
  return exchangeRateRecord(await addressedRate(db, access, id, organizationId, 'exchange_rate:read'));
}

export interface ListRatesQuery {
  organizationId?: string | undefined;
  fromCurrency?: string | undefined;
  toCurrency?: string | undefined;
  rateType?: RateType | undefined;
  source?: RateSource | undefined;
  startDate?: IsoDate | undefined;
  endDate?: IsoDate | undefined;
}

/** GET /exchange-rates. The caller has checked startDate ≤ endDate (syntax step). */
export async function listRates(db: Db, access: Access, q: ListRatesQuery, page: PageParams) {
  let organizationIds: string[];
  if (q.organizationId !== undefined) {
    await access.authorize(q.organizationId, 'exchange_rate:read');
    organizationIds = [q.organizationId];
  } else {
    organizationIds = await access.memberOrganizationIds();
  }
  const { rows, total } = await repo.listRates(db, { ...q, organizationIds }, page);
  return paged('rates', rows.map(exchangeRateRecord), total, page);
}

/**
 * DELETE /exchange-rates/{id}: 409 while a Posted/Reversed entry or a Completed run uses the rate (any
 * leg); otherwise lines of unbooked entries lose the reference, and the rate is deleted — one
 * transaction, the rate row locked.
 */
export async function deleteRate(db: Db, access: Access, id: string, organizationId?: string): Promise<void> {
  const rate = await addressedRate(db, access, id, organizationId, 'exchange_rate:manage');
  await inTransaction(db, async (tx) => {
    const locked = await repo.lockRate(tx, rate.organizationId, id);
    if (!locked) throw exchangeRateIdNotFound(id);
    const usage = await repo.rateUsage(tx, rate.organizationId, id);
    if (usage.journalEntryCount > 0 || usage.consolidationRunCount > 0) {
      throw new DomainError(409, 'ExchangeRateInUseError', 'The exchange rate is used by booked records', {
        exchangeRateId: id,
        ...usage,
      });
    }
    const entryIds = await repo.detachRateFromUnpostedLines(tx, rate.organizationId, id);
    await repo.deleteRate(tx, rate.organizationId, id);
    await recordAudit(tx, [
      {
        organizationId: rate.organizationId,
        userId: access.userId,
        action: 'Delete',
        entityType: 'ExchangeRate',
        entityId: id,
      },
      ...entryIds.map((entryId) => ({
        organizationId: rate.organizationId,
        userId: access.userId,
        action: 'Update' as const,
        entityType: 'JournalEntry' as const,
        entityId: entryId,
        changes: { exchangeRateId: { from: id, to: null } },
      })),
    ]);
  });
}

// ---------------------------------------------------------------------------------------------------
// Lookups. The caller has checked fromCurrency ≠ toCurrency (syntax step).

export interface LookupBase {
  organizationId: string;
  fromCurrency: string;
  toCurrency: string;
}

async function lookup(
  db: Db,
  access: Access,
  q: LookupBase,
  types: readonly RateType[],
  condition: DateCondition,
  computeAverage = false,
): Promise<RateLookupResult> {
  await access.authorize(q.organizationId, 'exchange_rate:read');
  const res = await resolveRateFor(db, {
    organizationId: q.organizationId,
    from: q.fromCurrency,
    to: q.toCurrency,
    types,
    condition,
    ...(computeAverage ? { computeAverage } : {}),
  });
  return rateLookupResult(q.fromCurrency, q.toCurrency, res);
}

/** `/rate`: the rate of that type effective exactly on the date. */
export function lookupOnDate(
  db: Db,
  access: Access,
  q: LookupBase & { effectiveDate: IsoDate; rateType: RateType },
): Promise<RateLookupResult> {
  return lookup(db, access, q, [q.rateType], { kind: 'on', date: q.effectiveDate });
}

/** `/latest`: the latest rate of that type, or of any type (ties Spot, YearEnd, Average, Historical). */
export function lookupLatest(
  db: Db,
  access: Access,
  q: LookupBase & { rateType?: RateType | undefined },
): Promise<RateLookupResult> {
  return lookup(db, access, q, q.rateType ? [q.rateType] : ANY_RATE_TYPE_ORDER, { kind: 'any' });
}

/** `/closest`: nearest to the date, earlier or later; at equal distance the earlier date. */
export function lookupClosest(
  db: Db,
  access: Access,
  q: LookupBase & { date: IsoDate; rateType?: RateType | undefined },
): Promise<RateLookupResult> {
  return lookup(db, access, q, q.rateType ? [q.rateType] : ANY_RATE_TYPE_ORDER, {
    kind: 'nearest',
    date: q.date,
  });
}

export interface PeriodLookup extends LookupBase {
  year: number;
  period: number;
  companyId?: string | undefined;
}

/** The fiscal calendar of a period lookup: the company's, else the organization's. */
async function periodCalendar(db: Db, access: Access, q: PeriodLookup): Promise<FiscalYearEnd> {
  await access.authorize(q.organizationId, 'exchange_rate:read');
  if (q.companyId !== undefined)
    return fiscalYearEndOf(await requireCompany(db, q.organizationId, q.companyId));
  return (await organizationRateContext(db, q.organizationId)).settings.fiscalYearEnd;
}

/** `/period-average`: a stored Average rate in the period (latest), else the ComputedAverage of its Spot rates. */
export async function lookupPeriodAverage(
  db: Db,
  access: Access,
  q: PeriodLookup,
): Promise<RateLookupResult> {
  const fye = await periodCalendar(db, access, q);
  const range = periodLookupRange(fye, q.year, q.period);
  return lookup(
    db,
    access,
    q,
    ['Average'],
    { kind: 'within', start: range.startDate, end: range.endDate },
    true,
  );
}

/** `/period-closing`: the latest YearEnd or Spot rate on or before the period's end (YearEnd preferred). */
export async function lookupPeriodClosing(
  db: Db,
  access: Access,
  q: PeriodLookup,
): Promise<RateLookupResult> {
  const fye = await periodCalendar(db, access, q);
  const range = periodLookupRange(fye, q.year, q.period);
  return lookup(db, access, q, CLOSING_RATE_TYPES, { kind: 'onOrBefore', date: range.endDate });
}
