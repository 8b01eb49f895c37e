/**
 * The records of trial-balance imports: their shapes (the request's input, the answer, the stored
 * import), the list of a company's imports, the company an import addresses and the options of an
 * upload. The import itself is trial-balance-import.ts; its writes trial-balance-import.write.ts.
 */
import { desc } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { byId, firstRow, inOrg } from '../../db/rows.ts';
import { companies, trialBalanceImports } from '../../db/schema/index.ts';
import { ValidationError } from '../../domain/errors.ts';
import { type Money, money } from '../../domain/money.ts';
import type {
  CategoryRule,
  ImportMode,
  ImportRowInput,
  importDifferences,
} from '../../domain/trial-balance-import.ts';
import type { Access, Action } from '../../access/access.ts';
import type { PageParams } from '../../http/pagination.ts';
import { pagedRows } from '../shared/lists.ts';
import { type CompanyRow, companyNotFound } from '../companies/lookup.ts';

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

/** The per-account differences of an import (the domain's comparison). */
export type ImportDifferences = ReturnType<typeof importDifferences>;

export interface ImportResult {
  dryRun: boolean;
  import: ImportRecord | null;
  entry: { transactionDate: string; description: string; lines: ImportPreviewLine[] } | null;
  differences: ImportDifference[];
  accountsToCreate: { row: number; accountNumber: string; accountName: string; category: string }[];
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
    (orgId) => firstRow(db, companies, byId(companies, companyId, orgId)),
    () => companyNotFound(companyId),
  );
}

export function importRecord(r: typeof trialBalanceImports.$inferSelect, currency: string): ImportRecord {
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

/** The imports of a company, newest first. */
export async function listImports(db: Db, company: CompanyRow, page: PageParams) {
  const where = inOrg(trialBalanceImports, company.organizationId, { companyId: company.id });
  const order = [desc(trialBalanceImports.createdAt), desc(trialBalanceImports.id)];
  return pagedRows(db, trialBalanceImports, where, order, page, 'imports', (rows) =>
    rows.map((r) => importRecord(r, company.functionalCurrency)),
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
