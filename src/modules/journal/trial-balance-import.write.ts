/**
 * The writes of a trial-balance import, all in the caller's one transaction: the missing accounts
 * created, the differences posted as one or more entries (booked directly, with their lines in the
 * balances, their events and audit rows), and the import recorded.
 */
import { sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { pgArray, pgTokens, uuidv7Batch } from '../../db/bulk-params.ts';
import type { Queryable, Tx } from '../../db/client.ts';
import { trialBalanceImports } from '../../db/schema/index.ts';
import { typeOfCategory } from '../../domain/accounts.ts';
import { todayIn } from '../../domain/dates.ts';
import { CLOSING_ENTRY_TYPE } from '../../domain/journal/rules.ts';
import { DEFAULT_SOURCE_MODULE, MOVES } from '../../domain/journal/workflow.ts';
import { type Decimal, ZERO } from '../../domain/money.ts';
import { balancedChunks, compareAccountNumber } from '../../domain/trial-balance-import.ts';
import type { Access } from '../../access/access.ts';
import { auditEntry, type AuditInput, recordAudit } from '../audit/service.ts';
import type { CompanyRow } from '../companies/lookup.ts';
import { recordJournalEvents } from '../events/record.ts';
import { insertRows } from './bulk.ts';
import { lockPeriod } from './checks.ts';
import { type EntryRow, type LineRow, NO_WORKFLOW_STEPS } from './repo.ts';
import {
  type ImportDifferences,
  importRecord,
  type ImportInput,
  type ImportResult,
} from './trial-balance-import.records.ts';

/** Lines per posted entry of an import (a larger trial balance is posted as several entries). */
export const MAX_LINES_PER_ENTRY = 10_000;
/** Accounts an import creates per statement. */
const ACCOUNT_CHUNK = 10_000;

type FiscalRef = { year: number; period: number };

/** What a checked import writes. */
export interface ImportWrite {
  access: Access;
  company: CompanyRow;
  input: ImportInput;
  ref: FiscalRef;
  description: string;
  defaultTimezone: string;
  toCreate: ImportResult['accountsToCreate'];
  /** The ids of the accounts to create, in the order of `toCreate`. */
  createdIds: string[];
  /** Account number by account id (existing and created accounts). */
  numberOf: Map<string, string>;
  totals: { debit: Decimal; credit: Decimal };
  /** The differences to post, read inside the transaction. */
  plan: (q: Queryable) => Promise<ImportDifferences>;
}

/** Writes a checked import in the transaction `tx` and answers its record. */
export async function writeImport(tx: Tx, w: ImportWrite): Promise<ImportResult> {
  const { access, company } = w;
  const now = new Date();
  await lockPeriod(tx, {
    organizationId: company.organizationId,
    company,
    ref: w.ref,
    userId: access.userId,
    requireOpen: true,
  });
  const audit: AuditInput[] = [];
  if (w.toCreate.length > 0) audit.push(...(await createAccounts(tx, w, now)));
  const differences = (await w.plan(tx)).filter((d) => !d.difference.isZero());
  const importId = uuidv7();
  const chunks = balancedChunks(
    [...differences]
      .sort((a, b) => compareAccountNumber(w.numberOf.get(a.accountKey)!, w.numberOf.get(b.accountKey)!))
      .map((d) => ({ key: d.accountKey, amount: d.difference })),
    MAX_LINES_PER_ENTRY,
  ).filter((c) => c.length > 0);
  const entryIds = chunks.length > 0 ? await postEntries(tx, w, chunks, importId, now, audit) : [];
  const [stored] = await tx
    .insert(trialBalanceImports)
    .values({
      id: importId,
      organizationId: company.organizationId,
      companyId: company.id,
      mode: w.input.mode,
      asOfDate: w.input.asOfDate,
      sourceFormat: w.input.sourceFormat,
      fileDigest: w.input.fileDigest,
      rowCount: w.input.rows.length,
      createdAccountCount: w.toCreate.length,
      totalDebits: w.totals.debit.toFixed(),
      totalCredits: w.totals.credit.toFixed(),
      journalEntryId: entryIds[0] ?? null,
      journalEntryIds: entryIds,
      createdBy: access.userId,
      createdAt: now,
    })
    .returning();
  await recordAudit(tx, audit);
  return {
    dryRun: false,
    import: importRecord(stored!, company.functionalCurrency),
    entry: null,
    differences: [],
    accountsToCreate: w.toCreate,
  };
}

/** Creates the missing accounts and answers their audit rows. */
async function createAccounts(tx: Queryable, w: ImportWrite, now: Date): Promise<AuditInput[]> {
  const { company, toCreate, createdIds } = w;
  // One statement per batch of accounts, each column bound as one array parameter.
  for (let i = 0; i < toCreate.length; i += ACCOUNT_CHUNK) {
    const batch = toCreate.slice(i, i + ACCOUNT_CHUNK);
    const col = (f: (c: (typeof toCreate)[number], k: number) => string) => pgTokens(batch.map(f));
    await tx.execute(
      sql`insert into accounts (id, organization_id, company_id, account_number, name, account_type,
            account_category, created_at, updated_at)
          select a.id, ${company.organizationId}, ${company.id}, a.account_number, a.name,
            a.account_type, a.account_category, ${now.toISOString()}::timestamptz,
            ${now.toISOString()}::timestamptz
          from unnest(${col((_, k) => createdIds[i + k]!)}::uuid[], ${col((c) => c.accountNumber)}::text[],
            ${pgArray(batch.map((c) => c.accountName))}::text[],
            ${col((c) => typeOfCategory(c.category as never))}::text[], ${col((c) => c.category)}::text[])
          as a(id, account_number, name, account_type, account_category)`,
    );
  }
  return toCreate.map((_, k) =>
    auditEntry(w.access, 'Account', { organizationId: company.organizationId, id: createdIds[k]! }, 'Create'),
  );
}

type Chunk = { key: string; amount: Decimal }[];

/** Posts the chunks of differences as entries (numbered in one counter update); answers their ids. */
async function postEntries(
  tx: Tx,
  w: ImportWrite,
  chunks: Chunk[],
  importId: string,
  now: Date,
  audit: AuditInput[],
): Promise<string[]> {
  const { company, access } = w;
  const first = await reserveEntryNumbers(tx, company, chunks.length);
  const postingDate = todayIn(w.defaultTimezone);
  const lineIds = uuidv7Batch(chunks.reduce((n, c) => n + c.length, 0));
  let nextLine = 0;
  const entryIds: string[] = [];
  const stored = chunks.map((chunk, k) => {
    const entryId = uuidv7();
    entryIds.push(entryId);
    const total = chunk.reduce((s, l) => (l.amount.greaterThan(0) ? s.plus(l.amount) : s), ZERO);
    const row = bookedRow({
      id: entryId,
      company,
      entryNumber: first + k,
      description: chunks.length === 1 ? w.description : `${w.description} (${k + 1} of ${chunks.length})`,
      date: w.input.asOfDate,
      ref: w.ref,
      total: total.toFixed(),
      userId: access.userId,
      now,
      postingDate,
      sourceDocumentRef: `trial-balance-import:${importId}`,
    });
    const lines = chunk.map((l, i) => lineRow(company, entryId, lineIds[nextLine++]!, i + 1, l));
    return { row, lines };
  });
  await insertRows(tx, stored, { closingEntryType: CLOSING_ENTRY_TYPE });
  await recordJournalEvents(
    tx,
    entryIds.flatMap((entryId) =>
      (['JournalEntryCreated', 'JournalEntryPosted'] as const).map((type) => ({
        organizationId: company.organizationId,
        entryId,
        type,
        actorId: access.userId,
      })),
    ),
  );
  for (const entryId of entryIds) audit.push(...postedEntryAudit(company, access.userId, entryId));
  return entryIds;
}

/** Takes `count` entry numbers of the company's counter; answers the first. */
async function reserveEntryNumbers(tx: Queryable, company: CompanyRow, count: number): Promise<number> {
  const [counter] = (
    (await tx.execute(
      sql`insert into entry_counters as ec (organization_id, company_id, last_number)
          values (${company.organizationId}, ${company.id}, ${count})
          on conflict (organization_id, company_id) do update set last_number = ec.last_number + ${count}
          returning last_number::int as n`,
    )) as unknown as { rows: { n: number }[] }
  ).rows;
  return Number(counter!.n) - count + 1;
}

/** A line of an import entry: a positive difference is a debit, a negative one a credit. */
function lineRow(
  company: CompanyRow,
  entryId: string,
  id: string,
  lineNumber: number,
  l: Chunk[number],
): LineRow {
  const v = l.amount.abs().toFixed();
  const debit = l.amount.greaterThan(0);
  return {
    id,
    organizationId: company.organizationId,
    journalEntryId: entryId,
    companyId: company.id,
    lineNumber,
    accountId: l.key,
    currency: company.functionalCurrency,
    debitAmount: debit ? v : null,
    creditAmount: debit ? null : v,
    functionalDebitAmount: debit ? v : null,
    functionalCreditAmount: debit ? null : v,
    exchangeRate: '1',
    exchangeRateId: null,
    exchangeRateLegIds: [],
    memo: null,
    dimensions: null,
    intercompanyPartnerId: null,
  };
}

/** The audit rows of an entry written posted: its creation and its posting. */
function postedEntryAudit(company: CompanyRow, userId: string, entryId: string): AuditInput[] {
  const entry = { organizationId: company.organizationId, id: entryId };
  return [
    auditEntry({ userId }, 'JournalEntry', entry, 'Create'),
    auditEntry({ userId }, 'JournalEntry', entry, 'Post', { status: { from: null, to: MOVES.post.to } }),
  ];
}

function bookedRow(a: {
  id: string;
  company: CompanyRow;
  entryNumber: number;
  description: string;
  date: string;
  ref: { year: number; period: number };
  total: string;
  userId: string;
  now: Date;
  postingDate: string;
  sourceDocumentRef: string;
}): EntryRow {
  return {
    id: a.id,
    organizationId: a.company.organizationId,
    companyId: a.company.id,
    entryNumber: a.entryNumber,
    referenceNumber: null,
    description: a.description,
    transactionDate: a.date,
    documentDate: null,
    postingDate: a.postingDate,
    fiscalYear: a.ref.year,
    fiscalPeriod: a.ref.period,
    entryType: 'Standard',
    sourceModule: DEFAULT_SOURCE_MODULE,
    sourceDocumentRef: a.sourceDocumentRef,
    isMultiCurrency: false,
    status: MOVES.post.to,
    ...NO_WORKFLOW_STEPS,
    totalDebits: a.total,
    totalCredits: a.total,
    createdBy: a.userId,
    postedBy: a.userId,
    postedAt: a.now,
    createdAt: a.now,
    updatedAt: a.now,
  };
}
