/**
 * Journal entries as documents: create, update and delete a draft (reading one entry or a page of
 * them is in entry-reads.ts, re-exported here for the routes).
 * A create or update runs the posting rules R1–R6 (checks.ts) in their order; the workflow moves are
 * in workflow.ts, reversal in reversal.ts.
 *
 * A create takes the fast way when it can (one read statement, the checks in code, then one guarded
 * write shared with concurrent creates of the company: create-statements.ts, db/combiner.ts) and the
 * transactional way otherwise.
 */
import { v7 as uuidv7 } from 'uuid';
import { type Db, inTransaction, type Queryable, type Tx } from '../../db/client.ts';
import { Combiner, perDatabase } from '../../db/combiner.ts';
import { invalid } from '../../domain/errors.ts';
import { isMultiCurrency } from '../../domain/journal/amounts.ts';
import { type PeriodRef, periodRefusal } from '../../domain/journal/rules.ts';
import {
  DEFAULT_ENTRY_TYPE,
  DEFAULT_SOURCE_MODULE,
  type EntryType,
  INITIAL_STATUS,
  type SourceModule,
} from '../../domain/journal/workflow.ts';
import type { Access } from '../../access/access.ts';
import type { LookAhead } from '../../http/auth.ts';
import { isUuid } from '../../http/schemas.ts';
import { isValidDate } from '../../domain/dates.ts';
import { auditWrite, diffChanges } from '../audit/service.ts';
import { recordJournalEvents } from '../events/record.ts';
import type { CompanyRow } from '../companies/lookup.ts';
import {
  checkCompany,
  checkLineAccounts,
  checkLineAccountsWith,
  deriveLines,
  writeEntry,
  lockPeriod,
  refuseIf,
  resolveFiscalPeriod,
} from './checks.ts';
import {
  type DerivedLine,
  type DraftLine,
  draftFromInput,
  draftFromStored,
  type LineInput,
  lineRows,
  partnerIdsOf,
  totalsOf,
} from './lines.ts';
import { entryRecord, type JournalEntryRecord, loadRecord } from './records.ts';
import type { EntryRow, LineRow, NewEntryRow } from './repo.ts';
import * as repo from './repo.ts';
import * as statements from './create-statements.ts';

export { getEntry, journalLineRows, listEntries } from './entry-reads.ts';

// ---------------------------------------------------------------------------------------------------
// Create

export interface CreateEntryInput {
  organizationId: string;
  companyId: string;
  description: string;
  transactionDate: string;
  documentDate?: string | null;
  fiscalPeriod?: PeriodRef | null;
  entryType?: EntryType;
  sourceModule?: SourceModule;
  referenceNumber?: string | null;
  sourceDocumentRef?: string | null;
  lines: LineInput[];
}

/**
 * `readAhead`: the create context read with the request's session (`createLookAhead`), used when it
 * was read for exactly this input.
 */
export async function createEntry(
  db: Db,
  access: Access,
  input: CreateEntryInput,
  readAhead: unknown = null,
): Promise<JournalEntryRecord> {
  await access.authorize(input.organizationId, 'journal_entry:edit');
  return (
    (await createEntryFast(db, access, input, readAhead as statements.ContextReadAhead | null)) ??
    inTransaction(db, (tx) => createEntryInTransaction(tx, access, input))
  );
}

const MAX_LOOK_AHEAD_LINES = 1000;

/** The create context's query from a raw create body, or null when the body is not of that shape. */
function contextQueryOf(body: unknown, organizationId: string): statements.ContextQuery | null {
  if (body === null || typeof body !== 'object') return null;
  const { companyId, transactionDate, lines } = body as Record<string, unknown>;
  if (typeof companyId !== 'string' || !isUuid(companyId)) return null;
  if (typeof transactionDate !== 'string' || !isValidDate(transactionDate)) return null;
  if (!Array.isArray(lines) || lines.length === 0 || lines.length > MAX_LOOK_AHEAD_LINES) return null;
  const accountIds: string[] = [];
  const partnerIds: string[] = [];
  for (const line of lines as unknown[]) {
    if (line === null || typeof line !== 'object') return null;
    const { accountId, intercompanyPartnerId: partner } = line as Record<string, unknown>;
    if (typeof accountId !== 'string' || !isUuid(accountId)) return null;
    accountIds.push(accountId);
    if (partner === null || partner === undefined) continue;
    if (typeof partner !== 'string' || !isUuid(partner)) return null;
    partnerIds.push(partner);
  }
  return { organizationId, companyId, accountIds, partnerIds, transactionDate };
}

const sameQuery = (a: statements.ContextQuery, b: statements.ContextQuery) =>
  a.organizationId === b.organizationId &&
  a.companyId === b.companyId &&
  a.transactionDate === b.transactionDate &&
  a.accountIds.join() === b.accountIds.join() &&
  a.partnerIds.join() === b.partnerIds.join();

/**
 * The create's look-ahead (http/auth.ts `LookAhead`): the session look-up of a create request also
 * reads the create context of its body, so that the common create runs two statements, not three.
 * The context is a read without locks either way; the write re-checks the company and the period
 * under their locks.
 */
export const createLookAhead: LookAhead = {
  input: ({ body }, organizationId) =>
    organizationId === null ? null : contextQueryOf(body, organizationId),
  lookUp: (db, tokenHash, _organizationId, input) =>
    statements.sessionWithCreateContext(db, tokenHash, input as statements.ContextQuery),
};

/**
 * The common case of a create in two statements: one read of everything R1–R4 need, the checks in
 * code, then one guarded write. Returns null — nothing written — when the transactional path must run
 * instead: the fiscal year of the entry does not exist yet (it is created in the entry's
 * transaction), or the company or period changed between the read and the write (the transactional
 * path then reports the new state's error).
 */
async function createEntryFast(
  db: Db,
  access: Access,
  input: CreateEntryInput,
  readAhead: statements.ContextReadAhead | null,
): Promise<JournalEntryRecord | null> {
  const drafts = input.lines.map(draftFromInput);
  const query = {
    organizationId: input.organizationId,
    companyId: input.companyId,
    accountIds: drafts.map((d) => d.accountId),
    partnerIds: partnerIdsOf(drafts),
    transactionDate: input.transactionDate,
  };
  const ctx =
    readAhead && sameQuery(readAhead.query, query)
      ? readAhead.context
      : await statements.createContext(db, query);
  // R1
  const company = checkCompany(input.companyId, ctx?.company);
  // R2, R3
  const partners = checkLineAccountsWith(ctx!.accounts, ctx!.partnerCompanies, company.id, drafts);
  // R4
  const ref = resolveFiscalPeriod(company, input.transactionDate, input.fiscalPeriod ?? null);
  const period = ctx!.periods.find((p) => p.year === ref.year && p.period === ref.period);
  if (!period) return null;
  refuseIf(periodRefusal(company.id, ref, period));
  // R5, R6
  const entry = await newEntry(db, access, input, company, ref, drafts, partners);
  const stored = await entryWriter(db).run(`${input.organizationId}/${company.id}`, {
    ...entry,
    auditId: uuidv7(),
    eventId: uuidv7(),
  });
  return stored && entryRecord(stored.row, stored.lines, company.functionalCurrency);
}

/**
 * The group-commit writer of new entries of a database (db/combiner.ts): concurrent creates in one
 * company share one statement, and so one commit and one hold of the company's counter row.
 */
const entryWriter = perDatabase(
  (db) => new Combiner((entries: statements.NewEntry[]) => statements.insertEntries(db, entries)),
);

/** A create in one transaction, with the row locks, creating the fiscal year when it is missing. */
async function createEntryInTransaction(
  tx: Tx,
  access: Access,
  input: CreateEntryInput,
): Promise<JournalEntryRecord> {
  const organizationId = input.organizationId;
  // R1
  const company = checkCompany(
    input.companyId,
    await repo.companyForShare(tx, organizationId, input.companyId),
  );
  const drafts = input.lines.map(draftFromInput);
  // R2, R3
  const partners = await checkLineAccounts(tx, organizationId, company, drafts);
  // R4
  const ref = resolveFiscalPeriod(company, input.transactionDate, input.fiscalPeriod ?? null);
  await lockPeriod(tx, { organizationId, company, ref, userId: access.userId, requireOpen: true });
  // R5, R6
  const { entry, lines } = await newEntry(tx, access, input, company, ref, drafts, partners);
  // The audit entry first: the entry number is drawn last, so the company's counter row stays
  // locked only for the header and line inserts and the commit.
  await auditWrite(tx, access, 'JournalEntry', { organizationId, id: entry.id }, 'Create');
  const stored = await repo.insertNumberedEntry(tx, entry, lines);
  await recordJournalEvents(tx, [
    { organizationId, entryId: entry.id, type: 'JournalEntryCreated', actorId: access.userId },
  ]);
  return entryRecord(stored.row, stored.lines, company.functionalCurrency);
}

/** R5 and R6 on the lines of a new entry, and its rows: the header (without number) and the lines. */
export async function newEntry(
  q: Queryable,
  access: Access,
  input: CreateEntryInput,
  company: Pick<CompanyRow, 'id' | 'functionalCurrency'>,
  ref: PeriodRef,
  drafts: DraftLine[],
  partners: Map<number, string | null>,
): Promise<Omit<statements.NewEntry, 'auditId' | 'eventId'>> {
  const fc = company.functionalCurrency;
  const conversion = {
    organizationId: input.organizationId,
    functionalCurrency: fc,
    transactionDate: input.transactionDate,
  };
  const lines = await deriveLines(q, conversion, drafts, partners, true);
  const now = new Date();
  const entry = {
    id: uuidv7(),
    organizationId: input.organizationId,
    companyId: company.id,
    referenceNumber: input.referenceNumber ?? null,
    description: input.description,
    transactionDate: input.transactionDate,
    documentDate: input.documentDate ?? null,
    postingDate: null,
    fiscalYear: ref.year,
    fiscalPeriod: ref.period,
    entryType: input.entryType ?? DEFAULT_ENTRY_TYPE,
    sourceModule: input.sourceModule ?? DEFAULT_SOURCE_MODULE,
    sourceDocumentRef: input.sourceDocumentRef ?? null,
    isMultiCurrency: isMultiCurrency(lines),
    status: INITIAL_STATUS,
    ...totalsOf(lines, fc),
    createdBy: access.userId,
    createdAt: now,
    updatedAt: now,
  };
  return { entry, lines: lineRows(input.organizationId, company.id, entry.id, lines, fc) };
}

// ---------------------------------------------------------------------------------------------------
// Update, delete

export interface UpdateEntryInput {
  organizationId?: string;
  companyId?: string;
  description?: string;
  transactionDate?: string;
  documentDate?: string | null;
  referenceNumber?: string | null;
  sourceDocumentRef?: string | null;
  fiscalPeriod?: PeriodRef | null;
  entryType?: EntryType | null;
  sourceModule?: SourceModule | null;
  lines?: LineInput[];
}

/**
 * Updates a draft: the entry as the update leaves it passes R1–R6 again. A PUT that changes nothing
 * (judged on the wire record without timestamps and line ids) writes nothing.
 */
export async function updateEntry(
  db: Db,
  access: Access,
  id: string,
  input: UpdateEntryInput,
): Promise<JournalEntryRecord> {
  return writeEntry(db, access, id, input.organizationId, 'journal_entry:edit', 'update', async (tx, row) => {
    const { organizationId } = row;
    if (input.companyId !== undefined && input.companyId !== row.companyId) {
      throw invalid('/companyId', 'companyId is immutable');
    }
    const company = (await repo.companyForShare(tx, organizationId, row.companyId))!;
    const fc = company.functionalCurrency;
    const storedLines = await repo.loadLines(tx, organizationId, [id]);
    const before = entryRecord(row, storedLines, fc);
    const revised = await revisedEntry(tx, access, row, company, storedLines, input);
    const candidate = entryRecord({ ...row, ...revised.set } as EntryRow, revised.lines as LineRow[], fc);
    const changes = diffChanges(comparable(before), comparable(candidate), []);
    if (Object.keys(changes).length === 0) return before;

    const updated = await repo.updateEntry(tx, organizationId, id, { ...revised.set, updatedAt: new Date() });
    if ('lines' in changes) await repo.replaceLines(tx, organizationId, id, revised.lines);
    await auditWrite(tx, access, 'JournalEntry', { organizationId, id }, 'Update', changes);
    return loadRecord(tx, updated);
  });
}

/**
 * R1–R6 on the entry as the update leaves it: its new header fields and line rows. Stored lines that
 * the update does not replace are checked again as if given; their rates and functional amounts are
 * derived again only when the lines or the date change.
 */
async function revisedEntry(
  tx: Queryable,
  access: Access,
  row: EntryRow,
  company: CompanyRow,
  storedLines: LineRow[],
  input: UpdateEntryInput,
) {
  const { organizationId } = row;
  const fc = company.functionalCurrency;
  // R1
  checkCompany(company.id, company);
  const drafts = input.lines
    ? input.lines.map(draftFromInput)
    : storedLines.map((l) => draftFromStored(l, fc));
  // R2, R3
  const partners = await checkLineAccounts(tx, organizationId, company, drafts);
  // R4
  const transactionDate = input.transactionDate ?? row.transactionDate;
  const ref =
    input.transactionDate !== undefined || input.fiscalPeriod !== undefined
      ? resolveFiscalPeriod(company, transactionDate, input.fiscalPeriod ?? null)
      : { year: row.fiscalYear, period: row.fiscalPeriod };
  await lockPeriod(tx, { organizationId, company, ref, userId: access.userId, requireOpen: true });
  // R5, R6
  const recompute = input.lines !== undefined || input.transactionDate !== undefined;
  const conversion = { organizationId, functionalCurrency: fc, transactionDate };
  const lines = await deriveLines(tx, conversion, drafts, partners, recompute);
  return {
    set: updatedHeader(row, input, ref, lines, fc),
    lines: lineRows(organizationId, row.companyId, row.id, lines, fc),
  };
}

/** The header fields of an updated entry: those the input gives, the stored ones otherwise. */
function updatedHeader(
  row: EntryRow,
  input: UpdateEntryInput,
  ref: PeriodRef,
  lines: DerivedLine[],
  fc: string,
): Partial<NewEntryRow> {
  const given = <K extends keyof UpdateEntryInput & keyof EntryRow>(key: K) =>
    input[key] !== undefined ? input[key] : row[key];
  return {
    description: input.description ?? row.description,
    transactionDate: input.transactionDate ?? row.transactionDate,
    documentDate: given('documentDate'),
    referenceNumber: given('referenceNumber'),
    sourceDocumentRef: given('sourceDocumentRef'),
    fiscalYear: ref.year,
    fiscalPeriod: ref.period,
    entryType: input.entryType !== undefined ? (input.entryType ?? DEFAULT_ENTRY_TYPE) : row.entryType,
    sourceModule:
      input.sourceModule !== undefined ? (input.sourceModule ?? DEFAULT_SOURCE_MODULE) : row.sourceModule,
    isMultiCurrency: isMultiCurrency(lines),
    ...totalsOf(lines, fc),
  };
}

/** A record without timestamps and line ids: what decides whether a PUT changed anything. */
function comparable(r: JournalEntryRecord): Record<string, unknown> {
  const { updatedAt: _u, createdAt: _c, lines, ...rest } = r;
  return { ...rest, lines: lines.map(({ id: _id, ...l }) => l) };
}

export async function deleteEntry(
  db: Db,
  access: Access,
  id: string,
  organizationIdParam: string | undefined,
): Promise<void> {
  await writeEntry(db, access, id, organizationIdParam, 'journal_entry:edit', 'delete', async (tx, row) => {
    const { organizationId } = row;
    await repo.deleteDraft(tx, organizationId, id);
    await auditWrite(tx, access, 'JournalEntry', { organizationId, id }, 'Delete');
  });
}
