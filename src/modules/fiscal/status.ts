/**
 * The status of fiscal periods and years, written in the caller's transaction: period close and open
 * (service.ts) and year-end close and reopen (the closing module) change it through these functions.
 * A closed period or year records who closed it and when; opening clears both.
 */
import { asc } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { inOrg, updateRow } from '../../db/rows.ts';
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
  return updateRow(
    tx,
    fiscalPeriods,
    inOrg(fiscalPeriods, organizationId, { id: periodId }),
    statusColumns(change.status, change.userId, change.now),
  );
}

export async function setYearStatus(
  tx: Queryable,
  organizationId: string,
  yearId: string,
  change: { status: FiscalStatus; userId: string; now: Date },
): Promise<FiscalYearRow> {
  return updateRow(
    tx,
    fiscalYears,
    inOrg(fiscalYears, organizationId, { id: yearId }),
    statusColumns(change.status, change.userId, change.now),
  );
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
    .where(inOrg(fiscalPeriods, organizationId, { fiscalYearId }))
    .orderBy(asc(fiscalPeriods.periodNumber))
    .for('update');
}
