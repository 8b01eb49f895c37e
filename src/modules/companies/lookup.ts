/**
 * Company lookups shared by every module that references companies (journal, fiscal, groups,
 * intercompany, reports). A company of another organization is "not found" (contract 1.14).
 */
import { and, eq } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { companies } from '../../db/schema/index.ts';
import { DomainError } from '../../domain/errors.ts';
import type { FiscalYearEnd } from '../../domain/fiscal-calendar.ts';

export type CompanyRow = typeof companies.$inferSelect;

export function companyNotFound(companyId: string): DomainError {
  return new DomainError(404, 'CompanyNotFoundError', 'Company not found', { companyId });
}

export function companyInactive(companyId: string): DomainError {
  return new DomainError(400, 'CompanyInactiveError', 'The company is inactive', { companyId });
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
