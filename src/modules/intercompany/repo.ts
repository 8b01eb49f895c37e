/**
 * SQL of the intercompany module. Every query filters by organization.
 *
 * Rows are read through the query builder (amounts as decimal strings, dates as `YYYY-MM-DD`,
 * timestamps as `Date`); the reconciliation aggregate is one raw query whose sums are cast to text.
 */
import { and, asc, eq, gte, inArray, lte, or, type SQL, sql } from 'drizzle-orm';
import { type Queryable, queryRows } from '../../db/client.ts';
import { firstRow, inOrg, lockRowsById, updateRow } from '../../db/rows.ts';
import { companies, intercompanyTransactions, journalEntries } from '../../db/schema/index.ts';
import type { IsoDate } from '../../domain/dates.ts';
import { type KeyColumn, type PageParams } from '../../http/pagination.ts';
import { keysetRows } from '../shared/lists.ts';

export type IntercompanyRow = typeof intercompanyTransactions.$inferSelect;
export type NewIntercompanyRow = typeof intercompanyTransactions.$inferInsert;

import type { IntercompanyTransactionType, MatchingStatus } from '../../domain/consolidation/index.ts';
export {
  INTERCOMPANY_TRANSACTION_TYPES as TRANSACTION_TYPES,
  MATCHING_STATUSES,
} from '../../domain/consolidation/index.ts';
export type { IntercompanyTransactionType as TransactionType, MatchingStatus };

/** Statuses whose transactions take part in elimination (`requiresElimination`). */
export const ELIMINABLE_STATUSES: readonly MatchingStatus[] = ['Matched', 'VarianceApproved'];

const T = intercompanyTransactions;

export async function findTransaction(
  db: Queryable,
  id: string,
  organizationId?: string,
): Promise<IntercompanyRow | null> {
  const conds = [eq(T.id, id)];
  if (organizationId !== undefined) conds.push(eq(T.organizationId, organizationId));
  const [row] = await db
    .select()
    .from(T)
    .where(and(...conds));
  return row ?? null;
}

/** The transaction, locked for the rest of the transaction (every write). */
export async function lockTransaction(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<IntercompanyRow | null> {
  return firstRow(db, T, inOrg(T, organizationId, { id }), 'update');
}

export async function insertTransaction(db: Queryable, values: NewIntercompanyRow): Promise<IntercompanyRow> {
  const [row] = await db.insert(T).values(values).returning();
  return row!;
}

export async function updateTransaction(
  db: Queryable,
  organizationId: string,
  id: string,
  values: Partial<NewIntercompanyRow>,
): Promise<IntercompanyRow> {
  return updateRow(db, T, inOrg(T, organizationId, { id }), values);
}

export async function deleteTransaction(db: Queryable, organizationId: string, id: string): Promise<void> {
  await db.delete(T).where(inOrg(T, organizationId, { id }));
}

export interface EntryRef {
  id: string;
  companyId: string;
}

/** A journal entry of the organization (any status), or null. */
export async function findEntry(
  db: Queryable,
  organizationId: string,
  entryId: string,
): Promise<EntryRef | null> {
  const [row] = await db
    .select({ id: journalEntries.id, companyId: journalEntries.companyId })
    .from(journalEntries)
    .where(inOrg(journalEntries, organizationId, { id: entryId }));
  return row ?? null;
}

/** Ids among `companyIds` that are companies of one of `organizationIds`. */
export async function existingCompanyIds(
  db: Queryable,
  organizationIds: readonly string[],
  companyIds: readonly string[],
): Promise<Set<string>> {
  if (organizationIds.length === 0 || companyIds.length === 0) return new Set();
  const rows = await db
    .select({ id: companies.id })
    .from(companies)
    .where(
      and(inArray(companies.organizationId, [...organizationIds]), inArray(companies.id, [...companyIds])),
    );
  return new Set(rows.map((r) => r.id));
}

export interface ListFilter {
  organizationIds: readonly string[];
  fromCompanyId?: string | undefined;
  toCompanyId?: string | undefined;
  companyId?: string | undefined;
  transactionType?: string | undefined;
  matchingStatus?: string | undefined;
  startDate?: IsoDate | undefined;
  endDate?: IsoDate | undefined;
  requiresElimination?: boolean | undefined;
  unmatched?: boolean | undefined;
  isEliminated?: boolean | undefined;
}

function listWhere(f: ListFilter): SQL | undefined {
  const conds: (SQL | undefined)[] = [inArray(T.organizationId, [...f.organizationIds])];
  if (f.fromCompanyId !== undefined) conds.push(eq(T.fromCompanyId, f.fromCompanyId));
  if (f.toCompanyId !== undefined) conds.push(eq(T.toCompanyId, f.toCompanyId));
  if (f.companyId !== undefined) {
    conds.push(or(eq(T.fromCompanyId, f.companyId), eq(T.toCompanyId, f.companyId)));
  }
  if (f.transactionType !== undefined) conds.push(eq(T.transactionType, f.transactionType));
  if (f.matchingStatus !== undefined) conds.push(eq(T.matchingStatus, f.matchingStatus));
  if (f.startDate !== undefined) conds.push(gte(T.transactionDate, f.startDate));
  if (f.endDate !== undefined) conds.push(lte(T.transactionDate, f.endDate));
  if (f.requiresElimination === true) conds.push(inArray(T.matchingStatus, [...ELIMINABLE_STATUSES]));
  if (f.requiresElimination === false)
    conds.push(inArray(T.matchingStatus, ['Unmatched', 'PartiallyMatched']));
  if (f.unmatched === true) conds.push(eq(T.matchingStatus, 'Unmatched'));
  if (f.isEliminated !== undefined) conds.push(eq(T.isEliminated, f.isEliminated));
  return and(...conds);
}

/** The list's total order, as a keyset for cursor paging. */
const LIST_ORDER: KeyColumn[] = [
  { column: T.transactionDate, kind: 'date', direction: 'desc' },
  { column: T.createdAt, kind: 'timestamp', direction: 'desc' },
  { column: T.id, kind: 'uuid', direction: 'asc' },
];

export async function listTransactions(
  db: Queryable,
  filter: ListFilter,
  page: PageParams,
): Promise<{ rows: IntercompanyRow[]; total: number; nextCursor?: string }> {
  if (filter.organizationIds.length === 0) return { rows: [], total: 0 };
  return keysetRows(db, T, listWhere(filter), LIST_ORDER, page, (r) => [
    r.transactionDate,
    r.createdAt,
    r.id,
  ]);
}

/** A linked side to reconcile: the entry, its company (the side's company) and the partner. */
export interface SideRequest {
  organizationId: string;
  entryId: string;
  companyId: string;
  partnerId: string;
}

/** Per linked side: functional debit/credit sums of the entry's lines that name the partner. */
export interface PartnerLineSums {
  entryId: string;
  partnerId: string;
  /** Functional currency of the side's company. */
  functionalCurrency: string;
  /**
   * true: lines on Asset or Liability accounts (the intercompany balance); false: lines on Revenue,
   * Expense or Equity accounts; null: the entry has no line naming the partner.
   */
  isBalance: boolean | null;
  debits: string;
  credits: string;
}

/**
 * ONE query for the reconciliation of many transactions: for each requested side, the functional
 * currency of its company and the functional debit and credit sums of the entry's lines that name the
 * partner, split into balance-sheet lines (Asset, Liability) and the rest. A side whose entry has no
 * such line yields one row with `isBalance` null and zero sums.
 */
export async function partnerLineSums(
  db: Queryable,
  sides: readonly SideRequest[],
): Promise<PartnerLineSums[]> {
  if (sides.length === 0) return [];
  const rows = await queryRows<{
    entry_id: string;
    partner_id: string;
    functional_currency: string;
    is_balance: boolean | string | null;
    debits: string;
    credits: string;
  }>(
    db,
    sql`
    with req(organization_id, entry_id, company_id, partner_id) as (values ${sql.join(
      sides.map(
        (s) =>
          sql`(${s.organizationId}::uuid, ${s.entryId}::uuid, ${s.companyId}::uuid, ${s.partnerId}::uuid)`,
      ),
      sql`, `,
    )})
    select r.entry_id::text as entry_id, r.partner_id::text as partner_id, c.functional_currency,
      (a.account_type in ('Asset', 'Liability')) as is_balance,
      coalesce(sum(l.functional_debit_amount), 0)::text as debits,
      coalesce(sum(l.functional_credit_amount), 0)::text as credits
    from req r
    join companies c on c.organization_id = r.organization_id and c.id = r.company_id
    left join journal_lines l on l.organization_id = r.organization_id
      and l.journal_entry_id = r.entry_id and l.intercompany_partner_id = r.partner_id
    left join accounts a on a.organization_id = l.organization_id and a.id = l.account_id
    group by 1, 2, 3, 4`,
  );
  return rows.map((r) => ({
    entryId: r.entry_id,
    partnerId: r.partner_id,
    functionalCurrency: r.functional_currency,
    isBalance: r.is_balance === null ? null : r.is_balance === true || r.is_balance === 't',
    debits: r.debits,
    credits: r.credits,
  }));
}

// ---------------------------------------------------------------------------------------------------
// For consolidation runs (validation and intercompany matching)

export interface RunWindowQuery {
  organizationId: string;
  /** Consolidated companies: both sides of a transaction must be among them. */
  companyIds: readonly string[];
  /** Inclusive bounds on `transactionDate`. */
  startDate: IsoDate;
  endDate: IsoDate;
  /** Default: Matched and VarianceApproved. */
  statuses?: readonly MatchingStatus[];
}

/**
 * The organization's transactions between two of `companyIds`, dated within the window, with one of
 * the statuses (default: those that require elimination), whether already eliminated or not; ordered
 * by transactionDate, createdAt, id.
 */
export async function loadTransactionsForRun(db: Queryable, q: RunWindowQuery): Promise<IntercompanyRow[]> {
  const statuses = q.statuses ?? ELIMINABLE_STATUSES;
  if (q.companyIds.length === 0 || statuses.length === 0) return [];
  return db
    .select()
    .from(T)
    .where(
      and(
        eq(T.organizationId, q.organizationId),
        inArray(T.fromCompanyId, [...q.companyIds]),
        inArray(T.toCompanyId, [...q.companyIds]),
        gte(T.transactionDate, q.startDate),
        lte(T.transactionDate, q.endDate),
        inArray(T.matchingStatus, [...statuses]),
      ),
    )
    .orderBy(asc(T.transactionDate), asc(T.createdAt), asc(T.id));
}

/** The transactions `ids` of the organization, locked FOR UPDATE in id order (a run's final write). */
export function lockTransactions(
  db: Queryable,
  organizationId: string,
  ids: readonly string[],
): Promise<IntercompanyRow[]> {
  return lockRowsById(db, T, organizationId, ids, 'update');
}

/**
 * Marks transactions as eliminated by a completed run (`isEliminated` true, `eliminatedByRunId` the run;
 * `updatedAt` now). Run inside the run's final transaction. Returns the number of rows changed.
 */
export async function markTransactionsEliminated(
  db: Queryable,
  organizationId: string,
  transactionIds: readonly string[],
  runId: string,
): Promise<number> {
  if (transactionIds.length === 0) return 0;
  const rows = await db
    .update(T)
    .set({ isEliminated: true, eliminatedByRunId: runId, updatedAt: new Date() })
    .where(and(eq(T.organizationId, organizationId), inArray(T.id, [...new Set(transactionIds)])))
    .returning({ id: T.id });
  return rows.length;
}
