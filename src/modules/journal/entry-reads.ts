/**
 * Journal entries read: one entry, a page of the list (within a line budget), and the lines of the
 * whole list as export rows, batch by batch.
 */
import type { Db } from '../../db/client.ts';
import { ValidationError } from '../../domain/errors.ts';
import { formatAmount, formatRate } from '../../domain/money.ts';
import type { Access } from '../../access/access.ts';
import { encodeCursor, type PageParams, paged } from '../../http/pagination.ts';
import { companyNotFound } from '../companies/lookup.ts';
import { listedOrganizations } from '../shared/lists.ts';
import { entryNotFound, locateEntry } from './checks.ts';
import { entryRecord, getEntryRecord, type JournalEntryRecord } from './records.ts';
import type { EntryRow, LineRow } from './repo.ts';
import * as repo from './repo.ts';
import { errors } from '../../domain/error-catalogue.ts';

export async function getEntry(
  db: Db,
  access: Access,
  id: string,
  organizationIdParam: string | undefined,
): Promise<JournalEntryRecord> {
  const organizationId = await locateEntry(db, access, id, organizationIdParam, 'journal_entry:read');
  const record = await getEntryRecord(db, organizationId, id);
  if (!record) throw entryNotFound(id);
  return record;
}

/** The list filters, of one organization or (without it) of every organization of the caller. */
export type ListEntriesQuery = Omit<repo.ListFilter, 'organizationIds'> & {
  organizationId?: string | undefined;
};

/** The organizations a list reads, after its checks (dates, organization, company, account). */
async function listScope(db: Db, access: Access, q: ListEntriesQuery): Promise<string[]> {
  if (q.fromDate && q.toDate && q.fromDate > q.toDate) {
    throw new ValidationError([{ path: '/query/fromDate', message: 'fromDate must not be after toDate' }]);
  }
  const organizationIds = await listedOrganizations(access, q.organizationId, 'journal_entry:read');
  if (q.companyId !== undefined) {
    const found = await repo.functionalCurrencies(db, organizationIds, [q.companyId]);
    if (!found.has(q.companyId)) throw companyNotFound(q.companyId);
  }
  if (q.accountId !== undefined) {
    const found = await repo.accountLabels(db, organizationIds, [q.accountId]);
    if (!found.has(q.accountId)) {
      throw errors.AccountNotFoundError('Account not found', { accountId: q.accountId });
    }
  }
  return organizationIds;
}

/**
 * A page of the journal-entry list: its rows, and how each becomes its wire record. The route builds
 * each record right before serialising it, so that a page's records (2,000 lines of them at most) are
 * never all alive at once: each one dies young, which is what keeps garbage collection cheap.
 */
export interface EntryListPage {
  entries: EntryRow[];
  total: number;
  limit: number;
  offset: number;
  nextCursor?: string;
  record: (row: EntryRow) => JournalEntryRecord;
}

export async function listEntries(
  db: Db,
  access: Access,
  q: ListEntriesQuery,
  page: PageParams,
): Promise<EntryListPage> {
  const organizationIds = await listScope(db, access, q);
  const {
    rows: pageRows,
    total,
    nextCursor: pageCursor,
  } = await repo.listEntries(db, { ...q, organizationIds }, page);
  // The line budget of a page: entries are kept in order while their lines fit; the page then ends
  // early and echoes as `limit` the number of entries it holds (the offset of the next page is
  // offset + limit, as always).
  const counts = await repo.lineCountsOfEntries(db, pageRows);
  const rows = withinLineBudget(pageRows, counts, LIST_LINE_BUDGET);
  const cut = rows.length < pageRows.length;
  const effective = cut ? { ...page, limit: rows.length } : page;
  const last = rows[rows.length - 1];
  const nextCursor =
    cut && last ? encodeCursor([last.transactionDate, last.entryNumber, last.id]) : pageCursor;
  const [lines, currencies] = await Promise.all([
    repo.loadLinesOfEntries(db, rows),
    repo.functionalCurrencies(
      db,
      [...new Set(rows.map((r) => r.organizationId))],
      [...new Set(rows.map((r) => r.companyId))],
    ),
  ]);
  const byEntry = new Map<string, LineRow[]>();
  for (const l of lines) {
    const list = byEntry.get(l.journalEntryId);
    if (list) list.push(l);
    else byEntry.set(l.journalEntryId, [l]);
  }
  return {
    ...paged('entries', rows, total, effective),
    ...(nextCursor === undefined ? {} : { nextCursor }),
    record: (r) => entryRecord(r, byEntry.get(r.id) ?? [], currencies.get(r.companyId)!),
  };
}

/** Entries read per query by an export. */
const EXPORT_BATCH = 500;
/**
 * Lines an export holds at once: a batch of entries is cut where its lines pass this (never before
 * its first entry), so that a batch of large entries (an imported trial balance posts entries of up to
 * 10,000 lines) does not hold millions of lines.
 */
export const EXPORT_LINE_BUDGET = 5_000;

/**
 * The lines of every entry of the list (its filters, its order; no pagination), as export rows
 * (`JOURNAL_LINE_COLUMNS`), read batch by batch so that memory stays flat however long the list.
 * The checks run before the first row.
 */
export async function journalLineRows(
  db: Db,
  access: Access,
  q: ListEntriesQuery,
): Promise<AsyncIterable<(string | number | null)[]>> {
  const organizationIds = await listScope(db, access, q);
  const filter = { ...q, organizationIds };
  return (async function* () {
    let after: repo.ListCursor | null = null;
    const currencies = new Map<string, string>();
    for (;;) {
      const page = await repo.listEntriesAfter(db, filter, after, EXPORT_BATCH);
      if (page.length === 0) return;
      const rows = withinLineBudget(page, await repo.lineCountsOfEntries(db, page), EXPORT_LINE_BUDGET);
      const lines = await repo.loadLinesOfEntries(db, rows);
      const missing = [...new Set(rows.map((r) => r.companyId))].filter((c) => !currencies.has(c));
      if (missing.length > 0) {
        const found = await repo.functionalCurrencies(db, organizationIds, missing);
        for (const [k, v] of found) currencies.set(k, v);
      }
      const labels = await repo.accountLabels(
        db,
        organizationIds,
        lines.map((l) => l.accountId),
      );
      const byEntry = new Map<string, LineRow[]>();
      for (const l of lines) {
        const list = byEntry.get(l.journalEntryId);
        if (list) list.push(l);
        else byEntry.set(l.journalEntryId, [l]);
      }
      for (const e of rows) {
        const fc = currencies.get(e.companyId) ?? '';
        for (const l of byEntry.get(e.id) ?? []) {
          const label = labels.get(l.accountId);
          yield [
            repo.formatEntryNumber(e.entryNumber),
            e.id,
            e.companyId,
            e.transactionDate,
            e.postingDate,
            e.status,
            e.entryType,
            e.referenceNumber,
            e.description,
            l.lineNumber,
            label?.accountNumber ?? null,
            label?.name ?? null,
            l.currency,
            l.debitAmount === null ? null : formatAmount(l.debitAmount, l.currency),
            l.creditAmount === null ? null : formatAmount(l.creditAmount, l.currency),
            formatRate(l.exchangeRate),
            fc,
            l.functionalDebitAmount === null ? null : formatAmount(l.functionalDebitAmount, fc),
            l.functionalCreditAmount === null ? null : formatAmount(l.functionalCreditAmount, fc),
            l.memo,
          ];
        }
      }
      const last = rows[rows.length - 1]!;
      after = { transactionDate: last.transactionDate, entryNumber: last.entryNumber, id: last.id };
      if (page.length < EXPORT_BATCH && rows.length === page.length) return;
    }
  })();
}

/**
 * The most lines one page of the journal-entry list embeds (about 2 MB of JSON): a page of 100 entries
 * of up to 20 lines is never cut; a page of large entries holds fewer of them (at least one).
 */
export const LIST_LINE_BUDGET = 2_000;

/** The leading rows whose line counts fit `budget` (always the first one). */
export function withinLineBudget<R extends { id: string }>(
  rows: readonly R[],
  counts: ReadonlyMap<string, number>,
  budget: number,
): R[] {
  const kept: R[] = [];
  let used = 0;
  for (const r of rows) {
    const n = counts.get(r.id) ?? 0;
    if (kept.length > 0 && used + n > budget) break;
    kept.push(r);
    used += n;
  }
  return kept;
}
