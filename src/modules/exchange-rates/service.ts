/**
 * Exchange rates: storage, bulk import and the five lookups. The resolution entry points other modules
 * call live in resolution.ts and are re-exported here.
 */
import { v7 as uuidv7 } from 'uuid';
import { type Db, inTransaction, pgErrorCode } from '../../db/client.ts';
import type { IsoDate } from '../../domain/dates.ts';
import { DomainError } from '../../domain/errors.ts';
import { periodLookupRange } from '../../domain/fiscal-calendar.ts';
import { formatRate } from '../../domain/money.ts';
import {
  ANY_RATE_TYPE_ORDER,
  CLOSING_RATE_TYPES,
  type DateCondition,
  type RateDerivation,
  type RateResolution,
  type RateSource,
  type RateType,
  type StoredRate,
} from '../../domain/rates.ts';
import type { Access } from '../../access/access.ts';
import { type PageParams, paged } from '../../http/pagination.ts';
import { auditEntry, recordAudit } from '../audit/service.ts';
import { recordEvent } from '../events/record.ts';
import { fiscalYearEndOf, requireCompany } from '../companies/lookup.ts';
import { listedOrganizations } from '../shared/lists.ts';
import * as repo from './repo.ts';
import { organizationRateContext, resolveRateFor } from './resolution.ts';
import { errors } from '../../domain/error-catalogue.ts';

export {
  loadRateBook,
  lockRatesForUse,
  type RateBook,
  type RateQuery,
  type ResolveRateForInput,
  resolveRateFor,
} from './resolution.ts';

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
  return errors.SameCurrencyExchangeRateError('fromCurrency and toCurrency must differ', {
    currency,
  });
}

export function exchangeRateIdNotFound(exchangeRateId: string): DomainError {
  return errors.ExchangeRateIdNotFoundError('Exchange rate not found', { exchangeRateId });
}

function alreadyExists(k: repo.RateKey): DomainError {
  return errors.ExchangeRateAlreadyExistsError(
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
// Create, bulk create

/** A rate as a request gives it: the stored rate but for the id and creator the service adds. */
export type CreateRateInput = Omit<repo.NewRate, 'id' | 'createdBy'>;

function newRate(input: CreateRateInput, userId: string): repo.NewRate {
  return { id: uuidv7(), ...input, createdBy: userId };
}

async function insertAudited(db: Db, access: Access, rows: repo.NewRate[]): Promise<StoredRate[]> {
  return inTransaction(db, async (tx) => {
    const created = await repo.insertRates(tx, rows);
    await recordAudit(
      tx,
      created.map((r) => auditEntry(access, 'ExchangeRate', r, 'Create')),
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
  const organizationIds = await listedOrganizations(access, q.organizationId, 'exchange_rate:read');
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
      throw errors.ExchangeRateInUseError('The exchange rate is used by booked records', {
        exchangeRateId: id,
        ...usage,
      });
    }
    const entryIds = await repo.detachRateFromUnpostedLines(tx, rate.organizationId, id);
    await repo.deleteRate(tx, rate.organizationId, id);
    const { organizationId } = rate;
    await recordAudit(tx, [
      auditEntry(access, 'ExchangeRate', { organizationId, id }, 'Delete'),
      ...entryIds.map((entryId) =>
        auditEntry(access, 'JournalEntry', { organizationId, id: entryId }, 'Update', {
          exchangeRateId: { from: id, to: null },
        }),
      ),
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

/** The period of a period lookup, in the company's fiscal calendar, else the organization's. */
async function lookupPeriod(db: Db, access: Access, q: PeriodLookup) {
  await access.authorize(q.organizationId, 'exchange_rate:read');
  const fye =
    q.companyId !== undefined
      ? fiscalYearEndOf(await requireCompany(db, q.organizationId, q.companyId))
      : (await organizationRateContext(db, q.organizationId)).settings.fiscalYearEnd;
  return periodLookupRange(fye, q.year, q.period);
}

/** `/period-average`: a stored Average rate in the period (latest), else the ComputedAverage of its Spot rates. */
export async function lookupPeriodAverage(db: Db, access: Access, q: PeriodLookup) {
  const { startDate, endDate } = await lookupPeriod(db, access, q);
  return lookup(db, access, q, ['Average'], { kind: 'within', start: startDate, end: endDate }, true);
}

/** `/period-closing`: the latest YearEnd or Spot rate on or before the period's end (YearEnd preferred). */
export async function lookupPeriodClosing(db: Db, access: Access, q: PeriodLookup) {
  const { endDate } = await lookupPeriod(db, access, q);
  return lookup(db, access, q, CLOSING_RATE_TYPES, { kind: 'onOrBefore', date: endDate });
}
