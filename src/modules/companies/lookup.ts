/**
 * Company lookups shared by every module that references companies (journal, fiscal, groups,
 * intercompany, reports). A company of another organization is "not found".
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
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
): Promise<CompanyRow | null> {
  const [row] = await db
    .select()
    .from(companies)
    .where(and(eq(companies.organizationId, organizationId), eq(companies.id, companyId)));
  return row ?? null;
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
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(journalEntries)
    .where(
      and(
        eq(journalEntries.organizationId, organizationId),
        eq(journalEntries.companyId, companyId),
        inArray(journalEntries.status, [...UNPOSTED_STATUSES]),
        fiscalYear === undefined ? undefined : eq(journalEntries.fiscalYear, fiscalYear),
      ),
    );
  return Number(row?.n ?? 0);
}
