/**
 * Trial-balance imports of a company (the accounting rules are src/domain/trial-balance-import.ts):
 * the rows are checked, the accounts resolved by number (created when asked, with a category per row
 * or by range rules), the company's balances at the date read for a `Periodic` import, and — unless
 * it is a dry run — in ONE transaction the missing accounts created, the entry written posted with
 * its lines in the balances, and the import recorded. A dry run answers the entry and the
 * per-account differences and writes nothing. Every refusal of a row names the row and the column;
 * any refusal writes nothing.
 */
import { and, count, desc, eq, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { pgArray, pgTokens, uuidv7Batch } from '../../db/bulk-params.ts';
import { type Db, inTransaction, type Queryable } from '../../db/client.ts';
import { accounts, companies, trialBalanceImports } from '../../db/schema/index.ts';
import { typeOfCategory } from '../../domain/accounts.ts';
import { DomainError, ValidationError } from '../../domain/errors.ts';
import { DEFAULT_SOURCE_MODULE, MOVES } from '../../domain/journal/workflow.ts';
import { type Decimal, type Money, money, ZERO } from '../../domain/money.ts';
import { figuresNet } from '../../domain/reports/index.ts';
import {
  balancedChunks,
  type CategoryRule,
  categoryByRules,
  categoryRuleErrors,
  checkImportRows,
  compareAccountNumber,
  type ImportMode,
  type ImportRowInput,
  importDifferences,
  importTotals,
  type RowError,
} from '../../domain/trial-balance-import.ts';
import type { Access, Action } from '../../access/access.ts';
import { type PageParams, paged } from '../../http/pagination.ts';
import { type AuditInput, recordAudit } from '../audit/service.ts';
import { type CompanyRow, companyNotFound } from '../companies/lookup.ts';
import { aggregateBalances, all, onOrBefore } from '../ledger/report-figures.ts';
import { recordJournalEvents } from '../events/record.ts';
import { CLOSING_ENTRY_TYPE } from '../../domain/journal/rules.ts';
import { organizationSettings } from '../organizations/service.ts';
import { insertRows } from './bulk.ts';
import { checkCompany, lockPeriod, resolveFiscalPeriod } from './checks.ts';
import type { EntryRow, LineRow } from './repo.ts';
import { todayIn } from '../../domain/dates.ts';
import { errors as fail } from '../../domain/error-catalogue.ts';

/** Lines per posted entry of an import (a larger trial balance is posted as several entries). */
export const MAX_LINES_PER_ENTRY = 10_000;
/** Accounts an import creates per statement. */
const ACCOUNT_CHUNK = 10_000;

export interface ImportInput {
  asOfDate: string;
  mode: ImportMode;
  dryRun: boolean;
  createMissingAccounts: boolean;
  categoryRules: CategoryRule[];
  rows: ImportRowInput[];
  sourceFormat: 'csv' | 'json';
  fileDigest: string;
}

export interface ImportRecord {
  id: string;
  organizationId: string;
  companyId: string;
  mode: string;
  asOfDate: string;
  sourceFormat: string;
  fileDigest: string;
  rowCount: number;
  createdAccountCount: number;
  totalDebits: Money;
  totalCredits: Money;
  journalEntryId: string | null;
  journalEntryIds: string[];
  createdBy: string;
  createdAt: string;
}

export interface ImportPreviewLine {
  accountId: string | null;
  accountNumber: string;
  debit: Money | null;
  credit: Money | null;
}

export interface ImportDifference {
  row: number | null;
  accountId: string | null;
  accountNumber: string;
  currentBalance: Money;
  importedBalance: Money;
  difference: Money;
}

export interface ImportResult {
  dryRun: boolean;
  import: ImportRecord | null;
  entry: { transactionDate: string; description: string; lines: ImportPreviewLine[] } | null;
  differences: ImportDifference[];
  accountsToCreate: { row: number; accountNumber: string; accountName: string; category: string }[];
}

/** `400 TrialBalanceImportError {errors: [{row, column, message}]}`: every problem of the file. */
export function importRowsError(errors: RowError[]): DomainError {
  return fail.TrialBalanceImportError('The trial balance has errors', {
    errors: errors.slice(0, 1000),
    errorCount: errors.length,
  });
}

/**
 * The company addressed by id: with `organizationId`, that organization is entered first and the
 * company must be one of its (else 404); without, the company's own organization is checked.
 */
export async function locateCompany(
  db: Db,
  access: Access,
  companyId: string,
  organizationId: string | undefined,
  action: Action,
): Promise<CompanyRow> {
  return access.addressed(
    organizationId,
    action,
    async (orgId) => {
      const [row] = await db
        .select()
        .from(companies)
        .where(
          orgId === undefined
            ? eq(companies.id, companyId)
            : and(eq(companies.organizationId, orgId), eq(companies.id, companyId)),
        );
      return row;
    },
    () => companyNotFound(companyId),
  );
}

function importRecord(r: typeof trialBalanceImports.$inferSelect, currency: string): ImportRecord {
  return {
    id: r.id,
    organizationId: r.organizationId,
    companyId: r.companyId,
    mode: r.mode,
    asOfDate: r.asOfDate,
    sourceFormat: r.sourceFormat,
    fileDigest: r.fileDigest,
    rowCount: r.rowCount,
    createdAccountCount: r.createdAccountCount,
    totalDebits: money(r.totalDebits, currency),
    totalCredits: money(r.totalCredits, currency),
    journalEntryId: r.journalEntryId,
    journalEntryIds: r.journalEntryIds ?? [],
    createdBy: r.createdBy,
    createdAt: r.createdAt.toISOString(),
  };
}

interface AccountRef {
  id: string;
  accountNumber: string;
  isActive: boolean;
  isPostable: boolean;
}

async function companyAccounts(q: Queryable, company: CompanyRow): Promise<Map<string, AccountRef>> {
  const rows = await q
    .select({
      id: accounts.id,
      accountNumber: accounts.accountNumber,
      isActive: accounts.isActive,
      isPostable: accounts.isPostable,
    })
    .from(accounts)
    .where(and(eq(accounts.organizationId, company.organizationId), eq(accounts.companyId, company.id)));
  return new Map(rows.map((r) => [r.accountNumber, r]));
}

/** Debit-positive balances of every account of the company at the date (all booked entries). */
async function currentBalances(
  q: Queryable,
  company: CompanyRow,
  date: string,
): Promise<Map<string, Decimal>> {
  const { at } = await aggregateBalances(q, company.organizationId, company.id, onOrBefore(date), {
    at: all(),
  });
  return new Map(at.map((f) => [f.accountId, figuresNet(f)]));
}

export async function importTrialBalance(
  db: Db,
  access: Access,
  company: CompanyRow,
  input: ImportInput,
): Promise<ImportResult> {
  const fc = company.functionalCurrency;
  const checked = checkImportRows(input.rows, fc);
  const errors = [...categoryRuleErrors(input.categoryRules), ...checked.errors];
  if (input.rows.length === 0)
    errors.push({ row: 0, column: 'accountNumber', message: 'The file has no rows' });
  // Accounts: every row's account must exist, be active and postable (or be created).
  const byNumber = await companyAccounts(db, company);
  const toCreate: ImportResult['accountsToCreate'] = [];
  for (const r of checked.rows) {
    const a = byNumber.get(r.accountNumber);
    if (a) {
      if (!a.isActive)
        errors.push({
          row: r.row,
          column: 'accountNumber',
          message: `Account ${r.accountNumber} is inactive`,
        });
      else if (!a.isPostable) {
        errors.push({
          row: r.row,
          column: 'accountNumber',
          message: `Account ${r.accountNumber} is a summary account`,
        });
      }
      continue;
    }
    if (!input.createMissingAccounts) {
      errors.push({
        row: r.row,
        column: 'accountNumber',
        message: `No account ${r.accountNumber} in the company (set createMissingAccounts to create it)`,
      });
      continue;
    }
    const category = r.category ?? categoryByRules(r.accountNumber, input.categoryRules);
    if (category === null) {
      errors.push({
        row: r.row,
        column: 'category',
        message: `Account ${r.accountNumber} is created: give its category (column or rule)`,
      });
      continue;
    }
    toCreate.push({
      row: r.row,
      accountNumber: r.accountNumber,
      accountName: r.accountName ?? `Account ${r.accountNumber}`,
      category,
    });
  }
  if (errors.length > 0) {
    errors.sort((a, b) => a.row - b.row);
    throw importRowsError(errors);
  }
  const totals = importTotals(checked.rows);
  if (!totals.debit.equals(totals.credit)) {
    throw fail.UnbalancedTrialBalanceError('Total debits and total credits differ', {
      totalDebits: money(totals.debit, fc),
      totalCredits: money(totals.credit, fc),
      difference: money(totals.debit.minus(totals.credit), fc),
    });
  }
  // R1 and R4 on the entry, as a create checks them.
  checkCompany(company.id, company);
  const ref = resolveFiscalPeriod(company, input.asOfDate, null, '/asOfDate');
  const description = `Trial balance import (${input.mode}) as of ${input.asOfDate}`;

  const createdIds = uuidv7Batch(toCreate.length);
  const created = new Map(toCreate.map((c, i) => [c.accountNumber, createdIds[i]!]));
  const idOf = (n: string) => byNumber.get(n)?.id ?? created.get(n)!;
  const rowOf = new Map(checked.rows.map((r) => [idOf(r.accountNumber), r]));
  const numberOf = new Map([...byNumber.values()].map((a) => [a.id, a.accountNumber]));
  for (const [n, id] of created) numberOf.set(id, n);

  const plan = async (q: Queryable) => {
    const current = input.mode === 'Periodic' ? await currentBalances(q, company, input.asOfDate) : new Map();
    const imported = new Map(checked.rows.map((r) => [idOf(r.accountNumber), r.net]));
    return importDifferences(input.mode, imported, current).filter((d) => numberOf.has(d.accountKey));
  };

  if (input.dryRun) {
    const differences = await plan(db);
    return {
      dryRun: true,
      import: null,
      entry: entryPreview(differences, numberOf, created, input.asOfDate, description, fc),
      differences: differenceRecords(differences, rowOf, numberOf, created, fc),
      accountsToCreate: toCreate,
    };
  }

  const settings = await organizationSettings(db, company.organizationId, access);
  return inTransaction(db, async (tx) => {
    const now = new Date();
    await lockPeriod(tx, {
      organizationId: company.organizationId,
      company,
      ref,
      userId: access.userId,
      requireOpen: true,
    });
    const audit: AuditInput[] = [];
    if (toCreate.length > 0) {
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
      for (const c of toCreate) {
        audit.push({
          organizationId: company.organizationId,
          userId: access.userId,
          action: 'Create',
          entityType: 'Account',
          entityId: created.get(c.accountNumber)!,
        });
      }
    }
    const differences = (await plan(tx)).filter((d) => !d.difference.isZero());
    const importId = uuidv7();
    const chunks = balancedChunks(
      [...differences]
        .sort((a, b) => compareAccountNumber(numberOf.get(a.accountKey)!, numberOf.get(b.accountKey)!))
        .map((d) => ({ key: d.accountKey, amount: d.difference })),
      MAX_LINES_PER_ENTRY,
    ).filter((c) => c.length > 0);
    const entryIds: string[] = [];
    if (chunks.length > 0) {
      const [counter] = (
        (await tx.execute(
          sql`insert into entry_counters as ec (organization_id, company_id, last_number)
              values (${company.organizationId}, ${company.id}, ${chunks.length})
              on conflict (organization_id, company_id) do update set last_number = ec.last_number + ${chunks.length}
              returning last_number::int as n`,
        )) as unknown as { rows: { n: number }[] }
      ).rows;
      const first = Number(counter!.n) - chunks.length + 1;
      const postingDate = todayIn(settings.defaultTimezone);
      const lineIds = uuidv7Batch(chunks.reduce((n, c) => n + c.length, 0));
      let nextLine = 0;
      const stored = chunks.map((chunk, k) => {
        const entryId = uuidv7();
        entryIds.push(entryId);
        const total = chunk.reduce((s, l) => (l.amount.greaterThan(0) ? s.plus(l.amount) : s), ZERO);
        const row = bookedRow({
          id: entryId,
          company,
          entryNumber: first + k,
          description: chunks.length === 1 ? description : `${description} (${k + 1} of ${chunks.length})`,
          date: input.asOfDate,
          ref,
          total: total.toFixed(),
          userId: access.userId,
          now,
          postingDate,
          sourceDocumentRef: `trial-balance-import:${importId}`,
        });
        const lines: LineRow[] = chunk.map((l, i) => {
          const v = l.amount.abs().toFixed();
          const debit = l.amount.greaterThan(0);
          return {
            id: lineIds[nextLine++]!,
            organizationId: company.organizationId,
            journalEntryId: entryId,
            companyId: company.id,
            lineNumber: i + 1,
            accountId: l.key,
            currency: fc,
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
        });
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
      for (const entryId of entryIds) {
        audit.push(
          {
            organizationId: company.organizationId,
            userId: access.userId,
            action: 'Create',
            entityType: 'JournalEntry',
            entityId: entryId,
          },
          {
            organizationId: company.organizationId,
            userId: access.userId,
            action: 'Post',
            entityType: 'JournalEntry',
            entityId: entryId,
            changes: { status: { from: null, to: MOVES.post.to } },
          },
        );
      }
    }
    const [stored] = await tx
      .insert(trialBalanceImports)
      .values({
        id: importId,
        organizationId: company.organizationId,
        companyId: company.id,
        mode: input.mode,
        asOfDate: input.asOfDate,
        sourceFormat: input.sourceFormat,
        fileDigest: input.fileDigest,
        rowCount: input.rows.length,
        createdAccountCount: toCreate.length,
        totalDebits: totals.debit.toFixed(),
        totalCredits: totals.credit.toFixed(),
        journalEntryId: entryIds[0] ?? null,
        journalEntryIds: entryIds,
        createdBy: access.userId,
        createdAt: now,
      })
      .returning();
    await recordAudit(tx, audit);
    return {
      dryRun: false,
      import: importRecord(stored!, fc),
      entry: null,
      differences: [],
      accountsToCreate: toCreate,
    };
  });
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
    isReversing: false,
    reversedEntryId: null,
    reversingEntryId: null,
    totalDebits: a.total,
    totalCredits: a.total,
    createdBy: a.userId,
    submittedBy: null,
    submittedAt: null,
    approvedBy: null,
    approvedAt: null,
    rejectedBy: null,
    rejectedAt: null,
    rejectionReason: null,
    postedBy: a.userId,
    postedAt: a.now,
    reversedBy: null,
    reversedAt: null,
    createdAt: a.now,
    updatedAt: a.now,
  };
}

type Differences = ReturnType<typeof importDifferences>;

function entryPreview(
  differences: Differences,
  numberOf: Map<string, string>,
  created: Map<string, string>,
  date: string,
  description: string,
  fc: string,
): ImportResult['entry'] {
  const createdIds = new Set(created.values());
  const lines = differences
    .filter((d) => !d.difference.isZero())
    .sort((a, b) => compareAccountNumber(numberOf.get(a.accountKey)!, numberOf.get(b.accountKey)!))
    .map((d) => ({
      accountId: createdIds.has(d.accountKey) ? null : d.accountKey,
      accountNumber: numberOf.get(d.accountKey)!,
      debit: d.difference.greaterThan(0) ? money(d.difference, fc) : null,
      credit: d.difference.lessThan(0) ? money(d.difference.negated(), fc) : null,
    }));
  return { transactionDate: date, description, lines };
}

function differenceRecords(
  differences: Differences,
  rowOf: Map<string, { row: number }>,
  numberOf: Map<string, string>,
  created: Map<string, string>,
  fc: string,
): ImportDifference[] {
  const createdIds = new Set(created.values());
  return differences.map((d) => ({
    row: rowOf.get(d.accountKey)?.row ?? null,
    accountId: createdIds.has(d.accountKey) ? null : d.accountKey,
    accountNumber: numberOf.get(d.accountKey)!,
    currentBalance: money(d.current, fc),
    importedBalance: money(d.imported, fc),
    difference: money(d.difference, fc),
  }));
}

/** The imports of a company, newest first. */
export async function listImports(db: Db, company: CompanyRow, page: PageParams) {
  const where = and(
    eq(trialBalanceImports.organizationId, company.organizationId),
    eq(trialBalanceImports.companyId, company.id),
  );
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(trialBalanceImports)
      .where(where)
      .orderBy(desc(trialBalanceImports.createdAt), desc(trialBalanceImports.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(trialBalanceImports).where(where),
  ]);
  return paged(
    'imports',
    rows.map((r) => importRecord(r, company.functionalCurrency)),
    Number(total?.n ?? 0),
    page,
  );
}

/** The options of an import: the body's, else the query string's (CSV uploads). */
export function importOptions(
  body: Partial<
    Pick<ImportInput, 'asOfDate' | 'mode' | 'dryRun' | 'createMissingAccounts' | 'categoryRules'>
  >,
  query: Partial<Pick<ImportInput, 'asOfDate' | 'mode' | 'dryRun' | 'createMissingAccounts'>> & {
    categoryRules?: string | undefined;
  },
): Pick<ImportInput, 'asOfDate' | 'mode' | 'dryRun' | 'createMissingAccounts' | 'categoryRules'> {
  const asOfDate = body.asOfDate ?? query.asOfDate;
  const mode = body.mode ?? query.mode;
  const issues = [];
  if (asOfDate === undefined) issues.push({ path: '/asOfDate', message: 'Required (body or query string)' });
  if (mode === undefined) issues.push({ path: '/mode', message: 'Required (body or query string)' });
  let rules = body.categoryRules ?? [];
  if (body.categoryRules === undefined && query.categoryRules !== undefined) {
    rules = [];
    for (const part of query.categoryRules.split(',').filter((p) => p.trim() !== '')) {
      const m = /^\s*(\d+)\s*-\s*(\d+)\s*:\s*([A-Za-z]+)\s*$/.exec(part);
      if (!m) {
        issues.push({ path: '/query/categoryRules', message: 'Rules are from-to:Category, comma-separated' });
        break;
      }
      rules.push({ from: m[1]!, to: m[2]!, category: m[3]! });
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return {
    asOfDate: asOfDate!,
    mode: mode!,
    dryRun: body.dryRun ?? query.dryRun ?? false,
    createMissingAccounts: body.createMissingAccounts ?? query.createMissingAccounts ?? false,
    categoryRules: rules,
  };
}
