/**
 * The status of fiscal periods and years, written in the caller's transaction: period close and open
 * (service.ts) and year-end close and reopen (the closing module) change it through these functions.
 * A closed period or year records who closed it and when; opening clears both.
 */
import { and, asc, eq } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { fiscalPeriods, fiscalYears } from '../../db/schema/index.ts';
import type { FiscalPeriodRow, FiscalYearRow } from './ensure.ts';

export type FiscalStatus = 'Open' | 'Closed';

/** The columns a status change sets. */
function statusColumns(status: FiscalStatus, userId: string, now: Date) {
  return status === 'Closed'
    ? { status, closedBy: userId, closedAt: now, updatedAt: now }
    : { status, closedBy: null, closedAt: null, updatedAt: now };
}

export async function setPeriodStatus(
  tx: Queryable,
  organizationId: string,
  periodId: string,
  change: { status: FiscalStatus; userId: string; now: Date },
): Promise<FiscalPeriodRow> {
  const [row] = await tx
    .update(fiscalPeriods)
    .set(statusColumns(change.status, change.userId, change.now))
    .where(and(eq(fiscalPeriods.organizationId, organizationId), eq(fiscalPeriods.id, periodId)))
    .returning();
  return row!;
}

export async function setYearStatus(
  tx: Queryable,
  organizationId: string,
  yearId: string,
  change: { status: FiscalStatus; userId: string; now: Date },
): Promise<FiscalYearRow> {
  const [row] = await tx
    .update(fiscalYears)
    .set(statusColumns(change.status, change.userId, change.now))
    .where(and(eq(fiscalYears.organizationId, organizationId), eq(fiscalYears.id, yearId)))
    .returning();
  return row!;
}

/**
 * The 13 periods of a fiscal year in period order, locked for update: a year-end close or reopen
 * locks them before counting or changing anything, and journal operations share-lock their period.
 */
export async function lockPeriodsOfYear(
  tx: Queryable,
  organizationId: string,
  fiscalYearId: string,
): Promise<FiscalPeriodRow[]> {
  return tx
    .select()
    .from(fiscalPeriods)
    .where(
      and(eq(fiscalPeriods.organizationId, organizationId), eq(fiscalPeriods.fiscalYearId, fiscalYearId)),
    )
    .orderBy(asc(fiscalPeriods.periodNumber))
    .for('update');
}
