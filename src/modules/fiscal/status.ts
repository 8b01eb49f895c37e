/**
 * The status of fiscal periods and years, written in the caller's transaction: period close and open
 * (service.ts) and year-end close and reopen (the closing module) change it through these functions.
 * A closed period or year records who closed it and when; opening clears both.
 */
import { asc } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { inOrg, sameRow, updateRow } from '../../db/rows.ts';
import { fiscalPeriods, fiscalYears } from '../../db/schema/index.ts';
import type { FiscalPeriodRow } from './ensure.ts';

export type FiscalStatus = 'Open' | 'Closed';

/** The columns a status change sets. */
function statusColumns(status: FiscalStatus, userId: string, now: Date) {
  return status === 'Closed'
    ? { status, closedBy: userId, closedAt: now, updatedAt: now }
    : { status, closedBy: null, closedAt: null, updatedAt: now };
}

/** Sets the status of a fiscal period or year (`fiscalPeriods` or `fiscalYears`), returning the row. */
export async function setFiscalStatus<T extends typeof fiscalPeriods | typeof fiscalYears>(
  tx: Queryable,
  table: T,
  row: { organizationId: string; id: string },
  change: { status: FiscalStatus; userId: string; now: Date },
): Promise<T['$inferSelect']> {
  const columns = statusColumns(change.status, change.userId, change.now);
  return updateRow(tx, table, sameRow(table, row), columns as Partial<T['$inferInsert']>);
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
