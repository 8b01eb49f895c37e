/**
 * SQL of the exchange-rate module. Every query filters by organization.
 *
 * Rows are read through the query builder so that both drivers return the same shapes: `rate` as a
 * decimal string (NUMERIC(28, 12), e.g. `"1.100000000000"`; `formatRate` gives the canonical form),
 * `effectiveDate` as `YYYY-MM-DD`, timestamps as `Date`.
 */
import { and, asc, desc, eq, gte, inArray, lte, type SQL, sql } from 'drizzle-orm';
import { type Queryable, queryRows } from '../../db/client.ts';
import { firstRow, inOrg, lockRowsById, pageOfRows } from '../../db/rows.ts';
import { exchangeRates } from '../../db/schema/index.ts';
import type { IsoDate } from '../../domain/dates.ts';
import type { CurrencyPair, DateCondition, RateSource, RateType, StoredRate } from '../../domain/rates.ts';

export type ExchangeRateRow = typeof exchangeRates.$inferSelect;

export function storedRate(row: ExchangeRateRow): StoredRate {
  return {
    id: row.id,
    organizationId: row.organizationId,
    fromCurrency: row.fromCurrency,
    toCurrency: row.toCurrency,
    rate: row.rate,
    effectiveDate: row.effectiveDate,
    rateType: row.rateType as RateType,
    source: row.source as RateSource,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Ordering of rate types in lists: Spot, Average, Historical, YearEnd. */
const LIST_TYPE_ORDER = sql`case ${exchangeRates.rateType} when 'Spot' then 1 when 'Average' then 2 when 'Historical' then 3 else 4 end`;

export async function findRateById(db: Queryable, id: string): Promise<StoredRate | null> {
  const [row] = await db.select().from(exchangeRates).where(eq(exchangeRates.id, id));
  return row ? storedRate(row) : null;
}

/** The rate, locked for the rest of the transaction (delete). */
export async function lockRate(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<StoredRate | null> {
  const row = await firstRow(db, exchangeRates, inOrg(exchangeRates, organizationId, { id }), 'update');
  return row ? storedRate(row) : null;
}

/** A rate to insert: a stored rate before the database sets its timestamps. */
export type NewRate = Omit<StoredRate, 'createdAt' | 'updatedAt'>;

/** Inserts the rates in one statement, returning them in input order. `updatedAt` equals `createdAt`. */
export async function insertRates(db: Queryable, rates: readonly NewRate[]): Promise<StoredRate[]> {
  if (rates.length === 0) return [];
  const now = new Date();
  const rows = await db
    .insert(exchangeRates)
    .values(rates.map((r) => ({ ...r, createdAt: now, updatedAt: now })))
    .returning();
  const byId = new Map(rows.map((r) => [r.id, storedRate(r)]));
  return rates.map((r) => byId.get(r.id)!);
}

export interface RateKey {
  fromCurrency: string;
  toCurrency: string;
  effectiveDate: IsoDate;
  rateType: string;
}

export const rateKeyText = (k: RateKey) =>
  `${k.fromCurrency}>${k.toCurrency}@${k.effectiveDate}#${k.rateType}`;

/** The uniqueness keys among `keys` that the organization already stores. */
export async function existingRateKeys(
  db: Queryable,
  organizationId: string,
  keys: readonly RateKey[],
): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db
    .select({
      fromCurrency: exchangeRates.fromCurrency,
      toCurrency: exchangeRates.toCurrency,
      effectiveDate: exchangeRates.effectiveDate,
      rateType: exchangeRates.rateType,
    })
    .from(exchangeRates)
    .where(
      and(
        eq(exchangeRates.organizationId, organizationId),
        sql`(${exchangeRates.fromCurrency}, ${exchangeRates.toCurrency}, ${exchangeRates.effectiveDate}, ${exchangeRates.rateType}) in (${sql.join(
          keys.map((k) => sql`(${k.fromCurrency}, ${k.toCurrency}, ${k.effectiveDate}::date, ${k.rateType})`),
          sql`, `,
        )})`,
      ),
    );
  return new Set(rows.map(rateKeyText));
}

export interface RateListFilter {
  organizationIds: readonly string[];
  fromCurrency?: string | undefined;
  toCurrency?: string | undefined;
  rateType?: string | undefined;
  source?: string | undefined;
  startDate?: IsoDate | undefined;
  endDate?: IsoDate | undefined;
}

/** A page of rates in list order (see `RATE_TYPE_ORDER`) and the total count of the filter. */
export async function listRates(
  db: Queryable,
  f: RateListFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: StoredRate[]; total: number }> {
  if (f.organizationIds.length === 0) return { rows: [], total: 0 };
  const conds: SQL[] = [inArray(exchangeRates.organizationId, [...f.organizationIds])];
  if (f.fromCurrency) conds.push(eq(exchangeRates.fromCurrency, f.fromCurrency));
  if (f.toCurrency) conds.push(eq(exchangeRates.toCurrency, f.toCurrency));
  if (f.rateType) conds.push(eq(exchangeRates.rateType, f.rateType));
  if (f.source) conds.push(eq(exchangeRates.source, f.source));
  if (f.startDate) conds.push(gte(exchangeRates.effectiveDate, f.startDate));
  if (f.endDate) conds.push(lte(exchangeRates.effectiveDate, f.endDate));
  const order = [
    desc(exchangeRates.effectiveDate),
    asc(exchangeRates.fromCurrency),
    asc(exchangeRates.toCurrency),
    LIST_TYPE_ORDER,
    asc(exchangeRates.id),
  ];
  const { rows, total } = await pageOfRows(db, exchangeRates, and(...conds), order, page);
  return { rows: rows.map(storedRate), total };
}

/** What {@link loadCandidateRates} needs: `candidateFilter(...)` of domain/rates.ts plus the condition. */
export interface CandidateQuery {
  pairs: readonly CurrencyPair[];
  types: readonly RateType[];
  start: IsoDate | null;
  end: IsoDate | null;
  condition: DateCondition;
  /** Step 5 may need every Spot rate of the range, not only the best one per pair. */
  computeAverage?: boolean | undefined;
}

/**
 * THE candidate query of a rate resolution, one SQL statement on exchange_rates:
 * the organization's rates of the candidate pairs and types within the inclusive date bounds.
 *
 * It keeps only the rows that can win: per (pair, type) the best row by the condition's ranking — the
 * latest date, or under `nearest` the nearest row on each side of the day (on-or-before and after) —
 * because a row beaten by another row of the same pair and type can never be the winner of the pair
 * (step 2 ranks by date first, then type, then direction) nor a triangulation leg. With
 * `computeAverage`, every Spot row within the bounds is kept (step 5 averages all of them).
 */
export async function loadCandidateRates(
  db: Queryable,
  organizationId: string,
  q: CandidateQuery,
): Promise<StoredRate[]> {
  if (q.pairs.length === 0 || q.types.length === 0) return [];
  const conds: SQL[] = [
    sql`organization_id = ${organizationId}`,
    sql`(from_currency, to_currency) in (${sql.join(
      q.pairs.map((p) => sql`(${p.fromCurrency}, ${p.toCurrency})`),
      sql`, `,
    )})`,
    sql`rate_type in (${sql.join(
      q.types.map((t) => sql`${t}`),
      sql`, `,
    )})`,
  ];
  if (q.start !== null) conds.push(sql`effective_date >= ${q.start}::date`);
  if (q.end !== null) conds.push(sql`effective_date <= ${q.end}::date`);
  const nearest = q.condition.kind === 'nearest' ? q.condition.date : null;
  const side = nearest !== null ? sql`(effective_date <= ${nearest}::date)` : sql`true`;
  const ranking =
    nearest !== null ? sql`abs(effective_date - ${nearest}::date), effective_date` : sql`effective_date desc`;
  const keepAll = q.computeAverage ? sql`or c.rate_type = 'Spot'` : sql``;
  const rows = await db
    .select()
    .from(exchangeRates)
    .where(
      and(
        eq(exchangeRates.organizationId, organizationId),
        sql`${exchangeRates.id} in (
          select c.id from (
            select id, rate_type,
              row_number() over (
                partition by from_currency, to_currency, rate_type, ${side}
                order by ${ranking}
              ) as rn
            from exchange_rates
            where ${sql.join(conds, sql` and `)}
          ) c
          where c.rn = 1 ${keepAll}
        )`,
      ),
    );
  return rows.map(storedRate);
}

/**
 * Every rate of the organization between currencies of `currencies` (both sides in the set),
 * effective on or before `untilDate` (no bound when null), for a {@link RateBook}.
 */
export async function loadRatesAmong(
  db: Queryable,
  organizationId: string,
  currencies: readonly string[],
  untilDate: IsoDate | null,
): Promise<StoredRate[]> {
  if (currencies.length < 2) return [];
  const set = [...new Set(currencies)];
  const conds: SQL[] = [
    eq(exchangeRates.organizationId, organizationId),
    inArray(exchangeRates.fromCurrency, set),
    inArray(exchangeRates.toCurrency, set),
  ];
  if (untilDate !== null) conds.push(lte(exchangeRates.effectiveDate, untilDate));
  const rows = await db
    .select()
    .from(exchangeRates)
    .where(and(...conds))
    .orderBy(asc(exchangeRates.effectiveDate), asc(exchangeRates.id));
  return rows.map(storedRate);
}

/**
 * Usage that forbids deleting the rate: entries in `Posted`/`Reversed` with a line whose
 * legs (or single rate) name it, and `Completed` runs whose rate usages name it.
 */
export async function rateUsage(
  db: Queryable,
  organizationId: string,
  rateId: string,
): Promise<{ journalEntryCount: number; consolidationRunCount: number }> {
  const [row] = await queryRows<{ journal_entry_count: number; consolidation_run_count: number }>(
    db,
    sql`select
      (select count(distinct jl.journal_entry_id)::int
         from journal_lines jl
         join journal_entries je
           on je.organization_id = jl.organization_id and je.id = jl.journal_entry_id
        where jl.organization_id = ${organizationId}
          and (${rateId}::uuid = any(jl.exchange_rate_leg_ids) or jl.exchange_rate_id = ${rateId}::uuid)
          and je.status in ('Posted', 'Reversed')) as journal_entry_count,
      (select count(distinct u.run_id)::int
         from run_rate_usages u
         join consolidation_runs r
           on r.organization_id = u.organization_id and r.id = u.run_id
        where u.organization_id = ${organizationId}
          and u.exchange_rate_id = ${rateId}::uuid
          and r.status = 'Completed') as consolidation_run_count`,
  );
  return {
    journalEntryCount: Number(row?.journal_entry_count ?? 0),
    consolidationRunCount: Number(row?.consolidation_run_count ?? 0),
  };
}

/**
 * Lines of entries not yet booked (Draft, PendingApproval, Approved) that used the rate as their
 * rate or as any leg lose the reference: `exchange_rate_id` null, `exchange_rate_leg_ids` empty
 * (their rate then counts as given explicitly). Returns the ids of the affected entries.
 */
export async function detachRateFromUnpostedLines(
  db: Queryable,
  organizationId: string,
  rateId: string,
): Promise<string[]> {
  const rows = await queryRows<{ journal_entry_id: string }>(
    db,
    sql`update journal_lines jl
           set exchange_rate_id = null, exchange_rate_leg_ids = '{}'::uuid[]
         where jl.organization_id = ${organizationId}
           and (${rateId}::uuid = any(jl.exchange_rate_leg_ids) or jl.exchange_rate_id = ${rateId}::uuid)
           and exists (
             select 1 from journal_entries je
              where je.organization_id = jl.organization_id and je.id = jl.journal_entry_id
                and je.status not in ('Posted', 'Reversed'))
     returning jl.journal_entry_id`,
  );
  return [...new Set(rows.map((r) => r.journal_entry_id))].sort();
}

/**
 * Locks the given rates FOR SHARE until the end of the caller's transaction and returns the ids that
 * exist in the organization. A concurrent delete (which locks FOR UPDATE) waits, then sees the new
 * usage and refuses with 409 — or, when the delete won, the id is missing here.
 */
export async function lockRatesShared(
  db: Queryable,
  organizationId: string,
  ids: readonly string[],
): Promise<string[]> {
  const rows = await lockRowsById(db, exchangeRates, organizationId, ids, 'share');
  return rows.map((r) => r.id);
}

export async function deleteRate(db: Queryable, organizationId: string, rateId: string): Promise<void> {
  await db
    .delete(exchangeRates)
    .where(and(eq(exchangeRates.organizationId, organizationId), eq(exchangeRates.id, rateId)));
}
