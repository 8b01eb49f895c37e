/**
 * The wire records of fiscal years and periods, with the count of unposted entries of each period.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { fiscalPeriods, journalEntries } from '../../db/schema/index.ts';
import type { FiscalPeriodRow, FiscalYearRow } from './ensure.ts';
import type { FiscalStatus } from './status.ts';
import { unpostedEntries } from '../companies/lookup.ts';

export interface FiscalPeriodRecord {
  id: string;
  fiscalYearId: string;
  companyId: string;
  fiscalYear: number;
  periodNumber: number;
  name: string;
  periodType: 'Regular' | 'Adjustment';
  startDate: string;
  endDate: string;
  status: FiscalStatus;
  closedBy: string | null;
  closedAt: string | null;
  unpostedEntryCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface FiscalYearRecord {
  id: string;
  organizationId: string;
  companyId: string;
  name: string;
  year: number;
  startDate: string;
  endDate: string;
  status: FiscalStatus;
  includesAdjustmentPeriod: true;
  closedBy: string | null;
  closedAt: string | null;
  periods: FiscalPeriodRecord[];
  createdAt: string;
  updatedAt: string;
}

export interface PeriodReopenRecord {
  id: string;
  periodId: string;
  reason: string | null;
  reopenedBy: string;
  reopenedAt: string;
  previousStatus: 'Closed';
}

export function fiscalPeriodRecord(row: FiscalPeriodRow, unpostedEntryCount: number): FiscalPeriodRecord {
  return {
    id: row.id,
    fiscalYearId: row.fiscalYearId,
    companyId: row.companyId,
    fiscalYear: row.fiscalYear,
    periodNumber: row.periodNumber,
    name: row.name,
    periodType: row.periodType as 'Regular' | 'Adjustment',
    startDate: row.startDate,
    endDate: row.endDate,
    status: row.status as FiscalStatus,
    closedBy: row.closedBy,
    closedAt: row.closedAt ? row.closedAt.toISOString() : null,
    unpostedEntryCount,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function fiscalYearRecord(row: FiscalYearRow, periods: FiscalPeriodRecord[]): FiscalYearRecord {
  return {
    id: row.id,
    organizationId: row.organizationId,
    companyId: row.companyId,
    name: row.name,
    year: row.year,
    startDate: row.startDate,
    endDate: row.endDate,
    status: row.status as FiscalStatus,
    includesAdjustmentPeriod: true,
    closedBy: row.closedBy,
    closedAt: row.closedAt ? row.closedAt.toISOString() : null,
    periods: [...periods].sort((a, b) => a.periodNumber - b.periodNumber),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const periodKey = (year: number, period: number) => `${year}:${period}`;

/**
 * Unposted entries (`Draft`, `PendingApproval`, `Approved`) of the company per fiscal period of the
 * given years, keyed `"<year>:<period>"` (use `unpostedCountOf`).
 */
export async function unpostedCountsByPeriod(
  db: Queryable,
  organizationId: string,
  companyId: string,
  years: readonly number[],
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (years.length === 0) return counts;
  const rows = await db
    .select({
      year: journalEntries.fiscalYear,
      period: journalEntries.fiscalPeriod,
      n: sql<number>`count(*)::int`,
    })
    .from(journalEntries)
    .where(
      and(
        unpostedEntries(organizationId, companyId),
        inArray(journalEntries.fiscalYear, [...new Set(years)]),
      ),
    )
    .groupBy(journalEntries.fiscalYear, journalEntries.fiscalPeriod);
  for (const r of rows) counts.set(periodKey(Number(r.year), Number(r.period)), Number(r.n));
  return counts;
}

export function unpostedCountOf(counts: Map<string, number>, year: number, period: number): number {
  return counts.get(periodKey(year, period)) ?? 0;
}

/** Full records (13 periods each, with unposted counts) of fiscal years of ONE company. */
export async function loadFiscalYearRecords(
  db: Queryable,
  organizationId: string,
  companyId: string,
  years: FiscalYearRow[],
): Promise<FiscalYearRecord[]> {
  if (years.length === 0) return [];
  const [periods, counts] = await Promise.all([
    db
      .select()
      .from(fiscalPeriods)
      .where(
        and(
          eq(fiscalPeriods.organizationId, organizationId),
          inArray(
            fiscalPeriods.fiscalYearId,
            years.map((y) => y.id),
          ),
        ),
      )
      .orderBy(asc(fiscalPeriods.periodNumber)),
    unpostedCountsByPeriod(
      db,
      organizationId,
      companyId,
      years.map((y) => y.year),
    ),
  ]);
  return years.map((y) =>
    fiscalYearRecord(
      y,
      periods
        .filter((p) => p.fiscalYearId === y.id)
        .map((p) => fiscalPeriodRecord(p, unpostedCountOf(counts, p.fiscalYear, p.periodNumber))),
    ),
  );
}

export async function loadFiscalYearRecord(db: Queryable, year: FiscalYearRow): Promise<FiscalYearRecord> {
  const [record] = await loadFiscalYearRecords(db, year.organizationId, year.companyId, [year]);
  return record!;
}

export async function loadFiscalPeriodRecord(
  db: Queryable,
  period: FiscalPeriodRow,
): Promise<FiscalPeriodRecord> {
  const counts = await unpostedCountsByPeriod(db, period.organizationId, period.companyId, [
    period.fiscalYear,
  ]);
  return fiscalPeriodRecord(period, unpostedCountOf(counts, period.fiscalYear, period.periodNumber));
}
