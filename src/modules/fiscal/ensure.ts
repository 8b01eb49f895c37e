/**
 * Automatic creation of fiscal years: when a journal-entry operation needs a year that
 * does not exist, it is created in the same transaction, `Open`, with 13 `Open` periods and the default
 * name, and audited as `Create` of that `FiscalYear` by the caller. Concurrent requests create it once
 * (unique constraint on company and year; the loser reads the winner's row).
 */
import { v7 as uuidv7 } from 'uuid';
import type { Queryable } from '../../db/client.ts';
import { firstRow, inOrg } from '../../db/rows.ts';
import { fiscalPeriods, fiscalYears } from '../../db/schema/index.ts';
import {
  defaultFiscalYearName,
  type FiscalYearEnd,
  fiscalYearEndDate,
  fiscalYearStartDate,
  periodsOfYear,
} from '../../domain/fiscal-calendar.ts';
import { auditWrite } from '../audit/service.ts';

export type FiscalYearRow = typeof fiscalYears.$inferSelect;
export type FiscalPeriodRow = typeof fiscalPeriods.$inferSelect;

export interface EnsureFiscalYearInput {
  organizationId: string;
  companyId: string;
  fiscalYearEnd: FiscalYearEnd;
  year: number;
  userId: string;
  /** Explicit name (explicit creation); default `"FY <year>"`. */
  name?: string;
}

/**
 * Inserts the year and its 13 periods if missing. Returns the year row and whether it was created now.
 * Must run inside the caller's transaction.
 */
export async function ensureFiscalYear(
  tx: Queryable,
  input: EnsureFiscalYearInput,
): Promise<{ year: FiscalYearRow; created: boolean }> {
  const id = uuidv7();
  const inserted = await tx
    .insert(fiscalYears)
    .values({
      id,
      organizationId: input.organizationId,
      companyId: input.companyId,
      year: input.year,
      name: input.name ?? defaultFiscalYearName(input.year),
      startDate: fiscalYearStartDate(input.fiscalYearEnd, input.year),
      endDate: fiscalYearEndDate(input.fiscalYearEnd, input.year),
      status: 'Open',
    })
    .onConflictDoNothing()
    .returning();
  if (inserted.length > 0) {
    await tx.insert(fiscalPeriods).values(
      periodsOfYear(input.fiscalYearEnd, input.year).map((p) => ({
        id: uuidv7(),
        organizationId: input.organizationId,
        companyId: input.companyId,
        fiscalYearId: id,
        fiscalYear: input.year,
        periodNumber: p.periodNumber,
        name: p.name,
        periodType: p.periodType,
        startDate: p.startDate,
        endDate: p.endDate,
        status: 'Open',
      })),
    );
    await auditWrite(tx, input, 'FiscalYear', { organizationId: input.organizationId, id }, 'Create');
    return { year: inserted[0]!, created: true };
  }
  const { organizationId, companyId, year } = input;
  const existing = await firstRow(tx, fiscalYears, inOrg(fiscalYears, organizationId, { companyId, year }));
  return { year: existing!, created: false };
}

/**
 * The period `{year, period}` of a company, creating the year if missing, for journal operations.
 * Returns the period row (callers check `status`).
 */
export async function ensurePeriod(
  tx: Queryable,
  input: Omit<EnsureFiscalYearInput, 'name'> & { period: number },
): Promise<FiscalPeriodRow> {
  const { year } = await ensureFiscalYear(tx, input);
  const match = { fiscalYearId: year.id, periodNumber: input.period };
  const row = await firstRow(tx, fiscalPeriods, inOrg(fiscalPeriods, input.organizationId, match));
  return row!;
}
