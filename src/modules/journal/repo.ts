/**
 * SQL of the journal: entry numbers, entries and lines, and the list query (the balances are the
 * ledger module's).
 *
 * Every query filters by `organization_id`. Amounts are NUMERIC and travel as decimal strings.
 */
import {
  and,
  asc,
  count,
  desc,
  eq,
  getTableColumns,
  gte,
  inArray,
  lte,
  or,
  type SQL,
  sql,
} from 'drizzle-orm';
import { type Queryable, queryRows } from '../../db/client.ts';
import { firstRow, inOrg, updateRow } from '../../db/rows.ts';
import { type KeyColumn, type PageParams } from '../../http/pagination.ts';
import { keysetRows } from '../shared/lists.ts';
import {
  accounts,
  companies,
  intercompanyTransactions,
  journalEntries,
  journalLines,
  memberships,
} from '../../db/schema/index.ts';
import { INITIAL_STATUS, MOVES } from '../../domain/journal/workflow.ts';

export type EntryRow = typeof journalEntries.$inferSelect;

/**
 * The columns of an entry written already booked or as a draft, before anyone submits, approves,
 * rejects or reverses it: none of those steps has happened.
 */
export const NO_WORKFLOW_STEPS = {
  isReversing: false,
  reversedEntryId: null,
  reversingEntryId: null,
  submittedBy: null,
  submittedAt: null,
  approvedBy: null,
  approvedAt: null,
  rejectedBy: null,
  rejectedAt: null,
  rejectionReason: null,
  reversedBy: null,
  reversedAt: null,
} as const;
export type NewEntryRow = typeof journalEntries.$inferInsert;
export type LineRow = typeof journalLines.$inferSelect;
export type NewLineRow = typeof journalLines.$inferInsert;
export type AccountRow = typeof accounts.$inferSelect;

/** `JE-0001`: the wire form of an entry number (zero-padded to at least 4 digits). */
export function formatEntryNumber(n: number): string {
  return `JE-${String(n).padStart(4, '0')}`;
}

/**
 * Draws the next entry number of a company: the counter row is created or
 * incremented and stays locked until the calling transaction ends, so concurrent creators in one
 * company are serialised and every number is used once. Call it after all validation passed.
 */
export async function nextEntryNumber(
  tx: Queryable,
  organizationId: string,
  companyId: string,
): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    tx,
    sql`insert into entry_counters (organization_id, company_id, last_number)
        values (${organizationId}, ${companyId}, 1)
        on conflict (organization_id, company_id)
        do update set last_number = entry_counters.last_number + 1
        returning last_number::int as n`,
  );
  return Number(rows[0]!.n);
}

/** An entry by id in any organization (by-id endpoints without `organizationId`), or null. */
export async function findEntryById(db: Queryable, id: string): Promise<EntryRow | null> {
  const [row] = await db.select().from(journalEntries).where(eq(journalEntries.id, id));
  return row ?? null;
}

/** An entry of the organization, or null; `lock` takes the row lock of a state transition. */
export async function findEntry(
  db: Queryable,
  organizationId: string,
  id: string,
  lock = false,
): Promise<EntryRow | null> {
  return firstRow(
    db,
    journalEntries,
    inOrg(journalEntries, organizationId, { id }),
    lock ? 'update' : undefined,
  );
}

/** Lines of the given entries, ordered by entry then line number. */
export async function loadLines(
  db: Queryable,
  organizationId: string,
  entryIds: string[],
): Promise<LineRow[]> {
  if (entryIds.length === 0) return [];
  return db
    .select()
    .from(journalLines)
    .where(
      and(eq(journalLines.organizationId, organizationId), inArray(journalLines.journalEntryId, entryIds)),
    )
    .orderBy(asc(journalLines.journalEntryId), asc(journalLines.lineNumber));
}

/** Functional currencies of companies, keyed by company id. */
export async function functionalCurrencies(
  db: Queryable,
  organizationIds: string[],
  companyIds: string[],
): Promise<Map<string, string>> {
  if (companyIds.length === 0) return new Map();
  const rows = await db
    .select({ id: companies.id, currency: companies.functionalCurrency })
    .from(companies)
    .where(and(inArray(companies.organizationId, organizationIds), inArray(companies.id, companyIds)));
  return new Map(rows.map((r) => [r.id, r.currency]));
}

/**
 * The company row, share-locked until the transaction ends: a concurrent deactivation (which locks the
 * row for update before counting unposted entries) either sees this operation's entry or makes it
 * wait and then see the company inactive.
 */
export async function companyForShare(
  tx: Queryable,
  organizationId: string,
  companyId: string,
): Promise<typeof companies.$inferSelect | null> {
  return firstRow(tx, companies, inOrg(companies, organizationId, { id: companyId }), 'share');
}

/** Accounts of the organization with the given ids. */
export async function accountsByIds(
  db: Queryable,
  organizationId: string,
  ids: string[],
): Promise<Map<string, AccountRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select()
    .from(accounts)
    .where(and(eq(accounts.organizationId, organizationId), inArray(accounts.id, [...new Set(ids)])));
  return new Map(rows.map((r) => [r.id, r]));
}

/** Which of the given ids are companies of the organization. */
export async function existingCompanyIds(
  db: Queryable,
  organizationId: string,
  ids: string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: companies.id })
    .from(companies)
    .where(and(eq(companies.organizationId, organizationId), inArray(companies.id, [...new Set(ids)])));
  return new Set(rows.map((r) => r.id));
}

/** The role of a user in an organization, or null when not a member. */
export async function memberRole(
  db: Queryable,
  organizationId: string,
  userId: string,
): Promise<string | null> {
  const [row] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(inOrg(memberships, organizationId, { userId }));
  return row?.role ?? null;
}

export async function insertEntry(tx: Queryable, entry: NewEntryRow, lines: NewLineRow[]): Promise<EntryRow> {
  const [row] = await tx.insert(journalEntries).values(entry).returning();
  await insertLines(tx, lines);
  return row!;
}

/**
 * Draws the company's next entry number and inserts the header and the lines in ONE statement
 * (data-modifying CTEs: counter upsert → header → lines; the lines' foreign key to the header is
 * checked at the end of the statement), returning both as stored. The counter row stays locked until
 * the transaction ends (see `nextEntryNumber`), so callers run this last, after every validation and
 * every other write: the lock is then held for this one statement and the commit. Entries of the
 * API have at most 500 lines (about 8,500 bind parameters, far below PostgreSQL's 65,535).
 */
export async function insertNumberedEntry(
  tx: Queryable,
  entry: Omit<NewEntryRow, 'entryNumber'>,
  lines: NewLineRow[],
): Promise<{ row: EntryRow; lines: LineRow[] }> {
  const counter = tx.$with('counter', { n: sql<number>`n` }).as(
    sql`insert into entry_counters (organization_id, company_id, last_number)
        values (${entry.organizationId}, ${entry.companyId}, 1)
        on conflict (organization_id, company_id)
        do update set last_number = entry_counters.last_number + 1
        returning last_number as n`,
  );
  const header = tx.$with('header').as(
    tx
      .insert(journalEntries)
      .values({ ...entry, entryNumber: sql`(select n from counter)` })
      .returning(),
  );
  const inserted = tx.$with('inserted').as(tx.insert(journalLines).values(lines).returning());
  const rows = await tx
    .with(counter, header, inserted)
    .select({ entry: fieldsOf(header, journalEntries), line: fieldsOf(inserted, journalLines) })
    .from(inserted)
    .crossJoin(header);
  return { row: rows[0]!.entry, lines: rows.map((r) => r.line) };
}

/** The fields of a CTE over `table`'s `returning()`, typed as the table's columns (for `select`). */
function fieldsOf<T extends typeof journalEntries | typeof journalLines>(
  cte: object,
  table: T,
): T['_']['columns'] {
  const fields = cte as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(getTableColumns(table)).map((key) => [key, fields[key]]),
  ) as T['_']['columns'];
}

/** Inserts lines (in chunks that stay far below the bind-parameter limit) and returns them. */
async function insertLines(tx: Queryable, lines: NewLineRow[]): Promise<LineRow[]> {
  const stored: LineRow[] = [];
  for (let i = 0; i < lines.length; i += 200) {
    stored.push(
      ...(await tx
        .insert(journalLines)
        .values(lines.slice(i, i + 200))
        .returning()),
    );
  }
  return stored;
}

export async function replaceLines(
  tx: Queryable,
  organizationId: string,
  entryId: string,
  lines: NewLineRow[],
): Promise<void> {
  await tx
    .delete(journalLines)
    .where(and(eq(journalLines.organizationId, organizationId), eq(journalLines.journalEntryId, entryId)));
  for (let i = 0; i < lines.length; i += 200) {
    await tx.insert(journalLines).values(lines.slice(i, i + 200));
  }
}

export async function updateEntry(
  tx: Queryable,
  organizationId: string,
  id: string,
  set: Partial<NewEntryRow>,
): Promise<EntryRow> {
  return updateRow(tx, journalEntries, inOrg(journalEntries, organizationId, { id }), set);
}

/**
 * The company's posted entries of `entryType` carrying the origin mark `sourceDocumentRef`, in
 * entry-number order, locked for update (the closing entries of a year that reopen reverses).
 */
export async function lockPostedEntriesOf(
  tx: Queryable,
  organizationId: string,
  companyId: string,
  entryType: string,
  sourceDocumentRef: string,
): Promise<EntryRow[]> {
  return tx
    .select()
    .from(journalEntries)
    .where(
      inOrg(journalEntries, organizationId, {
        companyId,
        status: MOVES.post.to,
        entryType,
        sourceDocumentRef,
      }),
    )
    .orderBy(asc(journalEntries.entryNumber))
    .for('update');
}

/** Deletes a draft and its lines; intercompany links to it become null. */
export async function deleteDraft(tx: Queryable, organizationId: string, id: string): Promise<void> {
  await tx
    .update(intercompanyTransactions)
    .set({ fromJournalEntryId: null })
    .where(inOrg(intercompanyTransactions, organizationId, { fromJournalEntryId: id }));
  await tx
    .update(intercompanyTransactions)
    .set({ toJournalEntryId: null })
    .where(inOrg(intercompanyTransactions, organizationId, { toJournalEntryId: id }));
  // A draft revaluation entry takes its draft reversal along (its run record goes by the foreign
  // key); a draft reversal deleted alone is unlinked from its run.
  await tx.execute(sql`
    with companion as (
      delete from journal_entries e using fx_revaluations r
      where r.organization_id = ${organizationId} and r.entry_id = ${id}
        and e.organization_id = ${organizationId} and e.id = r.reversal_entry_id
        and e.status = ${INITIAL_STATUS})
    update fx_revaluations set reversal_entry_id = null
    where organization_id = ${organizationId} and reversal_entry_id = ${id}`);
  await tx.delete(journalLines).where(inOrg(journalLines, organizationId, { journalEntryId: id }));
  await tx.delete(journalEntries).where(inOrg(journalEntries, organizationId, { id }));
}

// ---------------------------------------------------------------------------------------------------
// List

export interface ListFilter {
  organizationIds: string[];
  companyId?: string | undefined;
  status?: string | undefined;
  entryType?: string | undefined;
  sourceModule?: string | undefined;
  fiscalYear?: number | undefined;
  fiscalPeriod?: number | undefined;
  fromDate?: string | undefined;
  toDate?: string | undefined;
  /** Entries with at least one line on this account. */
  accountId?: string | undefined;
}

function listWhere(f: ListFilter): SQL | undefined {
  const conds: (SQL | undefined)[] = [inArray(journalEntries.organizationId, f.organizationIds)];
  if (f.companyId) conds.push(eq(journalEntries.companyId, f.companyId));
  if (f.status) conds.push(eq(journalEntries.status, f.status));
  if (f.entryType) conds.push(eq(journalEntries.entryType, f.entryType));
  if (f.sourceModule) conds.push(eq(journalEntries.sourceModule, f.sourceModule));
  if (f.fiscalYear !== undefined) conds.push(eq(journalEntries.fiscalYear, f.fiscalYear));
  if (f.fiscalPeriod !== undefined) conds.push(eq(journalEntries.fiscalPeriod, f.fiscalPeriod));
  if (f.fromDate) conds.push(gte(journalEntries.transactionDate, f.fromDate));
  if (f.toDate) conds.push(lte(journalEntries.transactionDate, f.toDate));
  if (f.accountId) {
    conds.push(
      sql`exists (select 1 from ${journalLines} where ${journalLines.organizationId} = ${journalEntries.organizationId}
        and ${journalLines.journalEntryId} = ${journalEntries.id} and ${journalLines.accountId} = ${f.accountId})`,
    );
  }
  return and(...conds);
}

/** Where an export stopped: the last entry written, in list order. */
export interface ListCursor {
  transactionDate: string;
  entryNumber: number;
  id: string;
}

/**
 * The next `limit` entries of the list order after `after` (keyset: no offset to skip), for
 * exports that walk the whole list.
 */
export async function listEntriesAfter(
  db: Queryable,
  f: ListFilter,
  after: ListCursor | null,
  limit: number,
): Promise<EntryRow[]> {
  if (f.organizationIds.length === 0) return [];
  // `(date, number) <= (d, n)` follows the list index (both descending), so each batch starts where
  // the last one ended instead of skipping the rows already read; the entries of (d, n) already
  // exported (same date and number in another company, ids up to the last one) are then left out.
  const where = after
    ? and(
        listWhere(f),
        sql`(${journalEntries.transactionDate}, ${journalEntries.entryNumber}) <= (${after.transactionDate}::date, ${after.entryNumber}::int)`,
        sql`not (${journalEntries.transactionDate} = ${after.transactionDate}::date and ${journalEntries.entryNumber} = ${after.entryNumber}::int and ${journalEntries.id} <= ${after.id}::uuid)`,
      )
    : listWhere(f);
  return db
    .select()
    .from(journalEntries)
    .where(where)
    .orderBy(desc(journalEntries.transactionDate), desc(journalEntries.entryNumber), asc(journalEntries.id))
    .limit(limit);
}

/** Number and name of accounts by id (exports). */
export async function accountLabels(
  db: Queryable,
  organizationIds: string[],
  ids: string[],
): Promise<Map<string, { accountNumber: string; name: string }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: accounts.id, accountNumber: accounts.accountNumber, name: accounts.name })
    .from(accounts)
    .where(and(inArray(accounts.organizationId, organizationIds), inArray(accounts.id, [...new Set(ids)])));
  return new Map(rows.map((r) => [r.id, r]));
}

/** One page of entries: `transactionDate` desc, entry number desc, id asc, and the total. */
/** The list's total order, as a keyset for cursor paging. */
const ENTRY_ORDER: KeyColumn[] = [
  { column: journalEntries.transactionDate, kind: 'date', direction: 'desc' },
  { column: journalEntries.entryNumber, kind: 'integer', direction: 'desc' },
  { column: journalEntries.id, kind: 'uuid', direction: 'asc' },
];

export async function listEntries(
  db: Queryable,
  f: ListFilter,
  page: PageParams,
): Promise<{ rows: EntryRow[]; total: number; nextCursor?: string }> {
  if (f.organizationIds.length === 0) return { rows: [], total: 0 };
  return keysetRows(db, journalEntries, listWhere(f), ENTRY_ORDER, page, (r) => [
    r.transactionDate,
    r.entryNumber,
    r.id,
  ]);
}

/** The lines of entries of several organizations: per organization, its entries' ids. */
function linesOfEntries(entries: EntryRow[]): SQL | undefined {
  const byOrg = new Map<string, string[]>();
  for (const e of entries) {
    const ids = byOrg.get(e.organizationId);
    if (ids) ids.push(e.id);
    else byOrg.set(e.organizationId, [e.id]);
  }
  return or(
    ...[...byOrg].map(([org, ids]) =>
      and(eq(journalLines.organizationId, org), inArray(journalLines.journalEntryId, ids)),
    ),
  );
}

/** The number of lines of each entry (list pages, before their lines are read). */
export async function lineCountsOfEntries(db: Queryable, entries: EntryRow[]): Promise<Map<string, number>> {
  if (entries.length === 0) return new Map();
  const rows = await db
    .select({ id: journalLines.journalEntryId, n: count() })
    .from(journalLines)
    .where(linesOfEntries(entries))
    .groupBy(journalLines.journalEntryId);
  return new Map(rows.map((r) => [r.id, Number(r.n)]));
}

/** Lines of entries of several organizations (list pages spanning the caller's organizations). */
export async function loadLinesOfEntries(db: Queryable, entries: EntryRow[]): Promise<LineRow[]> {
  if (entries.length === 0) return [];
  return db
    .select()
    .from(journalLines)
    .where(linesOfEntries(entries))
    .orderBy(asc(journalLines.journalEntryId), asc(journalLines.lineNumber));
}
