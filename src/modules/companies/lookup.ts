/**
 * Company lookups shared by every module that references companies (journal, fiscal, groups,
 * intercompany, reports). A company of another organization is "not found".
 */
import { and, inArray, type SQL } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { type ColumnValues, countRows, firstRow, inOrg, type RowLock } from '../../db/rows.ts';
import { companies, journalEntries } from '../../db/schema/index.ts';
import { DomainError } from '../../domain/errors.ts';
import type { FiscalYearEnd } from '../../domain/fiscal-calendar.ts';
import { UNPOSTED_STATUSES } from '../../domain/journal/workflow.ts';
import { errors } from '../../domain/error-catalogue.ts';

export type CompanyRow = typeof companies.$inferSelect;

export function companyNotFound(companyId: string): DomainError {
  return errors.CompanyNotFoundError('Company not found', { companyId });
}

export function companyInactive(companyId: string): DomainError {
  return errors.CompanyInactiveError('The company is inactive', { companyId });
}

export async function findCompany(
  db: Queryable,
  organizationId: string,
  companyId: string,
  lock?: RowLock,
): Promise<CompanyRow | null> {
  return firstRow(db, companies, inOrg(companies, organizationId, { id: companyId }), lock);
}

/** The company of the organization, or 404 CompanyNotFoundError. */
export async function requireCompany(
  db: Queryable,
  organizationId: string,
  companyId: string,
): Promise<CompanyRow> {
  const row = await findCompany(db, organizationId, companyId);
  if (!row) throw companyNotFound(companyId);
  return row;
}

export function fiscalYearEndOf(
  company: Pick<CompanyRow, 'fiscalYearEndMonth' | 'fiscalYearEndDay'>,
): FiscalYearEnd {
  return { month: company.fiscalYearEndMonth, day: company.fiscalYearEndDay };
}

/**
 * Number of the company's entries in `Draft`, `PendingApproval` or `Approved`, optionally only those
 * of one fiscal year (year-end close).
 */
export async function unpostedEntryCount(
  db: Queryable,
  organizationId: string,
  companyId: string,
  fiscalYear?: number,
): Promise<number> {
  return countRows(db, journalEntries, unpostedEntries(organizationId, companyId, { fiscalYear }));
}

/** The company's entries still in the workflow (`UNPOSTED_STATUSES`), within `match`. */
export function unpostedEntries(
  organizationId: string,
  companyId: string,
  match: ColumnValues<typeof journalEntries> = {},
): SQL {
  return and(
    inOrg(journalEntries, organizationId, { companyId, ...match }),
    inArray(journalEntries.status, [...UNPOSTED_STATUSES]),
  )!;
}
