/**
 * Fiscal years and periods; year-end close and reopen are the closing module's.
 *
 * Layout (the wire records are records.ts, the status writes status.ts):
 *   - lookups: `enterCompany`, `requireFiscalYear`, `requireFiscalPeriod` (404 tags)
 *   - errors: `fiscalYearNotFound`, `fiscalPeriodNotFound`, `yearAlreadyClosed`
 *   - use cases: list/get/create years, list/get/close/open periods, reopen history, period status,
 *     summary
 */
import { and, asc, desc, eq } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type Db, inTransaction, type Queryable } from '../../db/client.ts';
import { inOrg, pageOfRows, requireRow, sameOrgJoin } from '../../db/rows.ts';
import { fiscalPeriods, fiscalYears, periodReopenHistory } from '../../db/schema/index.ts';
import { addDays } from '../../domain/dates.ts';
import { DomainError, type Issue, invalid, ValidationError } from '../../domain/errors.ts';
import {
  type DateRange,
  fiscalYearEndDate,
  fiscalYearStartDate,
  periodOf,
} from '../../domain/fiscal-calendar.ts';
import type { Access, Action } from '../../access/access.ts';
import { type PageParams, paged } from '../../http/pagination.ts';
import { pagedRows } from '../shared/lists.ts';
import { type EventInput, recordEvent } from '../events/record.ts';
import { auditWrite } from '../audit/service.ts';
import { type CompanyRow, fiscalYearEndOf, requireCompany } from '../companies/lookup.ts';
import { ensureFiscalYear, type FiscalPeriodRow, type FiscalYearRow } from './ensure.ts';
import {
  type FiscalPeriodRecord,
  type FiscalYearRecord,
  fiscalPeriodRecord,
  loadFiscalPeriodRecord,
  loadFiscalYearRecord,
  loadFiscalYearRecords,
  type PeriodReopenRecord,
  unpostedCountOf,
  unpostedCountsByPeriod,
} from './records.ts';
import { type FiscalStatus, setFiscalStatus } from './status.ts';
import { errors as fail } from '../../domain/error-catalogue.ts';

export const MIN_FISCAL_YEAR = 1900;
export const MAX_FISCAL_YEAR = 2999;

// ---------------------------------------------------------------------------------------------------
// Errors and lookups

export function fiscalYearNotFound(fiscalYearId: string): DomainError {
  return fail.FiscalYearNotFoundError('Fiscal year not found', { fiscalYearId });
}

export function fiscalPeriodNotFound(fiscalPeriodId: string): DomainError {
  return fail.FiscalPeriodNotFoundError('Fiscal period not found', { fiscalPeriodId });
}

export function yearAlreadyClosed(fiscalYearId: string, year: number): DomainError {
  return fail.YearAlreadyClosedError('The fiscal year is closed', { fiscalYearId, year });
}

function invalidTransition(
  fiscalPeriodId: string,
  currentStatus: string,
  targetStatus: FiscalStatus,
): DomainError {
  return fail.InvalidPeriodStatusTransitionError(`The period is already ${currentStatus}`, {
    fiscalPeriodId,
    currentStatus,
    targetStatus,
  });
}

/** Step 7 and the company part of step 8 of every fiscal endpoint: organization, membership, company. */
export async function enterCompany(
  db: Queryable,
  access: Access,
  organizationId: string,
  companyId: string,
  action: Action,
  resource?: string,
): Promise<CompanyRow> {
  await access.enterOrganization(organizationId, action, resource);
  return requireCompany(db, organizationId, companyId);
}

/** A fiscal year of the company (404 FiscalYearNotFoundError otherwise), optionally locked. */
export async function requireFiscalYear(
  db: Queryable,
  organizationId: string,
  companyId: string,
  fiscalYearId: string,
  lock?: 'update' | 'share',
): Promise<FiscalYearRow> {
  return requireRow(
    db,
    fiscalYears,
    organizationId,
    { companyId, id: fiscalYearId },
    () => fiscalYearNotFound(fiscalYearId),
    lock,
  );
}

/** A period of the fiscal year (404 FiscalPeriodNotFoundError otherwise), optionally locked. */
export async function requireFiscalPeriod(
  db: Queryable,
  organizationId: string,
  fiscalYearId: string,
  periodId: string,
  lock?: 'update' | 'share',
): Promise<FiscalPeriodRow> {
  return requireRow(
    db,
    fiscalPeriods,
    organizationId,
    { fiscalYearId, id: periodId },
    () => fiscalPeriodNotFound(periodId),
    lock,
  );
}

// ---------------------------------------------------------------------------------------------------
// Fiscal years

export interface YearPath {
  organizationId: string;
  companyId: string;
}

export async function listFiscalYears(
  db: Db,
  access: Access,
  path: YearPath,
  status: FiscalStatus | undefined,
  page: PageParams,
) {
  const { organizationId, companyId } = path;
  await enterCompany(db, access, organizationId, companyId, 'fiscal_period:read', 'FiscalYear');
  await access.authorize(organizationId, 'fiscal_period:read', 'FiscalYear');
  const where = inOrg(fiscalYears, organizationId, { companyId, status });
  const order = [desc(fiscalYears.year), asc(fiscalYears.id)];
  return pagedRows(db, fiscalYears, where, order, page, 'fiscalYears', (rows) =>
    loadFiscalYearRecords(db, organizationId, companyId, rows),
  );
}

export async function getFiscalYear(
  db: Db,
  access: Access,
  path: YearPath & { fiscalYearId: string },
): Promise<FiscalYearRecord> {
  const { organizationId, companyId } = path;
  await enterCompany(db, access, organizationId, companyId, 'fiscal_period:read', 'FiscalYear');
  const year = await requireFiscalYear(db, organizationId, companyId, path.fiscalYearId);
  await access.authorize(organizationId, 'fiscal_period:read', 'FiscalYear');
  return loadFiscalYearRecord(db, year);
}

export interface CreateFiscalYearInput {
  year: number;
  name?: string | null | undefined;
  startDate?: string | undefined;
  endDate?: string | undefined;
}

export async function createFiscalYear(
  db: Db,
  access: Access,
  path: YearPath,
  input: CreateFiscalYearInput,
): Promise<FiscalYearRecord> {
  const { organizationId, companyId } = path;
  const company = await enterCompany(
    db,
    access,
    organizationId,
    companyId,
    'fiscal_period:manage',
    'FiscalYear',
  );
  await access.authorize(organizationId, 'fiscal_period:manage', 'FiscalYear');
  const fye = fiscalYearEndOf(company);
  const start = fiscalYearStartDate(fye, input.year);
  const end = fiscalYearEndDate(fye, input.year);
  const issues: Issue[] = [];
  if (input.startDate !== undefined && input.startDate !== start) {
    issues.push({
      path: '/startDate',
      message: `startDate must be ${start}, the start of fiscal year ${input.year}`,
    });
  }
  if (input.endDate !== undefined && input.endDate !== end) {
    issues.push({
      path: '/endDate',
      message: `endDate must be ${end}, the end of fiscal year ${input.year}`,
    });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return inTransaction(db, async (tx) => {
    const { year, created } = await ensureFiscalYear(tx, {
      organizationId,
      companyId,
      fiscalYearEnd: fye,
      year: input.year,
      userId: access.userId,
      ...(input.name ? { name: input.name } : {}),
    });
    if (!created) {
      throw fail.FiscalYearAlreadyExistsError('The fiscal year exists', {
        companyId,
        year: input.year,
      });
    }
    return loadFiscalYearRecord(tx, year);
  });
}

// ---------------------------------------------------------------------------------------------------
// Periods

export interface PeriodPath extends YearPath {
  fiscalYearId: string;
  periodId: string;
}

export async function listFiscalPeriods(
  db: Db,
  access: Access,
  path: YearPath & { fiscalYearId: string },
  status: FiscalStatus | undefined,
  page: PageParams,
) {
  const { organizationId, companyId } = path;
  await enterCompany(db, access, organizationId, companyId, 'fiscal_period:read');
  const year = await requireFiscalYear(db, organizationId, companyId, path.fiscalYearId);
  await access.authorize(organizationId, 'fiscal_period:read');
  const [{ rows, total }, counts] = await Promise.all([
    pageOfRows(
      db,
      fiscalPeriods,
      inOrg(fiscalPeriods, organizationId, { fiscalYearId: year.id, status }),
      [asc(fiscalPeriods.periodNumber), asc(fiscalPeriods.id)],
      page,
    ),
    unpostedCountsByPeriod(db, organizationId, companyId, [year.year]),
  ]);
  return paged(
    'periods',
    rows.map((p) => fiscalPeriodRecord(p, unpostedCountOf(counts, p.fiscalYear, p.periodNumber))),
    total,
    page,
  );
}

export async function getFiscalPeriod(db: Db, access: Access, path: PeriodPath): Promise<FiscalPeriodRecord> {
  const { organizationId, companyId } = path;
  await enterCompany(db, access, organizationId, companyId, 'fiscal_period:read');
  await requireFiscalYear(db, organizationId, companyId, path.fiscalYearId);
  const period = await requireFiscalPeriod(db, organizationId, path.fiscalYearId, path.periodId);
  await access.authorize(organizationId, 'fiscal_period:read');
  return loadFiscalPeriodRecord(db, period);
}

/** The event announcing a fiscal period's new status, carrying the period's record. */
export function periodEvent(
  type: 'FiscalPeriodClosed' | 'FiscalPeriodReopened',
  organizationId: string,
  actorId: string,
  record: FiscalPeriodRecord,
): EventInput {
  return { organizationId, type, actorId, resourceType: 'FiscalPeriod', resourceId: record.id, data: record };
}

/**
 * Writes a PeriodReopenEntry for a period that goes from `Closed` to `Open` (also for year reopen).
 */
export async function recordPeriodReopen(
  tx: Queryable,
  period: FiscalPeriodRow,
  input: { reason: string | null; userId: string; at: Date },
): Promise<void> {
  await tx.insert(periodReopenHistory).values({
    id: uuidv7(),
    organizationId: period.organizationId,
    companyId: period.companyId,
    periodId: period.id,
    reason: input.reason,
    reopenedBy: input.userId,
    reopenedAt: input.at,
    previousStatus: 'Closed',
  });
}

/** POST …/periods/{periodId}/close: Open → Closed (unposted entries do not block). */
export function closeFiscalPeriod(db: Db, access: Access, path: PeriodPath): Promise<FiscalPeriodRecord> {
  return changePeriodStatus(db, access, path, 'Closed', null);
}

/** POST …/periods/{periodId}/open: Closed → Open, refused while the year is closed. */
export function openFiscalPeriod(
  db: Db,
  access: Access,
  path: PeriodPath,
  reason: string | null,
): Promise<FiscalPeriodRecord> {
  return changePeriodStatus(db, access, path, 'Open', reason);
}

/**
 * A period's status change to `to` from the other status, audited and announced; reopening records
 * the reopen (with its reason) and is refused while the year is closed.
 */
async function changePeriodStatus(
  db: Db,
  access: Access,
  path: PeriodPath,
  to: FiscalStatus,
  reason: string | null,
): Promise<FiscalPeriodRecord> {
  const { organizationId, companyId } = path;
  const from: FiscalStatus = to === 'Closed' ? 'Open' : 'Closed';
  await enterCompany(db, access, organizationId, companyId, 'fiscal_period:manage');
  return inTransaction(db, async (tx) => {
    const year = await requireFiscalYear(tx, organizationId, companyId, path.fiscalYearId, 'share');
    const period = await requireFiscalPeriod(tx, organizationId, path.fiscalYearId, path.periodId, 'update');
    await access.authorize(organizationId, 'fiscal_period:manage');
    if (period.status !== from) throw invalidTransition(period.id, period.status, to);
    if (to === 'Open' && year.status === 'Closed') throw yearAlreadyClosed(year.id, year.year);
    const now = new Date();
    const updated = await setFiscalStatus(tx, fiscalPeriods, period, {
      status: to,
      userId: access.userId,
      now,
    });
    if (to === 'Open') await recordPeriodReopen(tx, period, { reason, userId: access.userId, at: now });
    await auditWrite(
      tx,
      access,
      'FiscalPeriod',
      { organizationId, id: period.id },
      to === 'Closed' ? 'Close' : 'Open',
      { status: { from, to } },
    );
    const record = await loadFiscalPeriodRecord(tx, updated);
    const type = to === 'Closed' ? 'FiscalPeriodClosed' : 'FiscalPeriodReopened';
    await recordEvent(tx, periodEvent(type, organizationId, access.userId, record));
    return record;
  });
}

export async function listReopenHistory(db: Db, access: Access, path: PeriodPath, page: PageParams) {
  const { organizationId, companyId } = path;
  await enterCompany(db, access, organizationId, companyId, 'fiscal_period:read');
  await requireFiscalYear(db, organizationId, companyId, path.fiscalYearId);
  const period = await requireFiscalPeriod(db, organizationId, path.fiscalYearId, path.periodId);
  await access.authorize(organizationId, 'fiscal_period:read');
  const where = inOrg(periodReopenHistory, organizationId, { periodId: period.id });
  const order = [desc(periodReopenHistory.reopenedAt), asc(periodReopenHistory.id)];
  return pagedRows(db, periodReopenHistory, where, order, page, 'history', (rows) =>
    rows.map((r): PeriodReopenRecord => ({
      id: r.id,
      periodId: r.periodId,
      reason: r.reason,
      reopenedBy: r.reopenedBy,
      reopenedAt: r.reopenedAt.toISOString(),
      previousStatus: 'Closed',
    })),
  );
}

// ---------------------------------------------------------------------------------------------------
// Period status and summary

export interface PeriodStatusRecord {
  date: string;
  fiscalYear: number;
  periodNumber: number;
  fiscalYearId: string | null;
  periodId: string | null;
  status: FiscalStatus | null;
  allowsJournalEntries: boolean;
  allowsModifications: boolean;
}

export async function periodStatus(
  db: Db,
  access: Access,
  path: YearPath,
  date: string,
): Promise<PeriodStatusRecord> {
  const { organizationId, companyId } = path;
  const company = await enterCompany(db, access, organizationId, companyId, 'fiscal_period:read');
  await access.authorize(organizationId, 'fiscal_period:read');
  const { year, period } = periodOf(fiscalYearEndOf(company), date);
  if (year < MIN_FISCAL_YEAR || year > MAX_FISCAL_YEAR) {
    throw invalid('/query/date', `The date falls in fiscal year ${year}, outside 1900–2999`);
  }
  const [row] = await db
    .select({ yearId: fiscalYears.id, periodId: fiscalPeriods.id, status: fiscalPeriods.status })
    .from(fiscalYears)
    .innerJoin(
      fiscalPeriods,
      and(
        sameOrgJoin(fiscalPeriods.organizationId, fiscalPeriods.fiscalYearId, fiscalYears),
        eq(fiscalPeriods.periodNumber, period),
      ),
    )
    .where(
      and(
        eq(fiscalYears.organizationId, organizationId),
        eq(fiscalYears.companyId, companyId),
        eq(fiscalYears.year, year),
      ),
    );
  const status = (row?.status as FiscalStatus | undefined) ?? null;
  return {
    date,
    fiscalYear: year,
    periodNumber: period,
    fiscalYearId: row?.yearId ?? null,
    periodId: row?.periodId ?? null,
    status,
    allowsJournalEntries: status !== 'Closed',
    allowsModifications: status !== 'Closed',
  };
}

/** Adjacent date ranges merged (input ascending by start date). */
export function mergeRanges(ranges: readonly DateRange[]): DateRange[] {
  const merged: DateRange[] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && addDays(last.endDate, 1) >= r.startDate) {
      if (r.endDate > last.endDate) last.endDate = r.endDate;
    } else {
      merged.push({ startDate: r.startDate, endDate: r.endDate });
    }
  }
  return merged;
}

export async function periodSummary(db: Db, access: Access, path: YearPath) {
  const { organizationId, companyId } = path;
  await enterCompany(db, access, organizationId, companyId, 'fiscal_period:read');
  await access.authorize(organizationId, 'fiscal_period:read');
  const rows = await db
    .select()
    .from(fiscalPeriods)
    .where(and(eq(fiscalPeriods.organizationId, organizationId), eq(fiscalPeriods.companyId, companyId)))
    .orderBy(desc(fiscalPeriods.fiscalYear), asc(fiscalPeriods.periodNumber), asc(fiscalPeriods.id));
  const regular = rows
    .filter((p) => p.periodType === 'Regular')
    .sort((a, b) => (a.startDate < b.startDate ? -1 : a.startDate > b.startDate ? 1 : 0));
  const rangesWith = (status: FiscalStatus) =>
    mergeRanges(
      regular.filter((p) => p.status === status).map((p) => ({ startDate: p.startDate, endDate: p.endDate })),
    );
  return {
    periods: rows.map((p) => ({
      fiscalYearId: p.fiscalYearId,
      fiscalYear: p.fiscalYear,
      periodId: p.id,
      periodNumber: p.periodNumber,
      periodName: p.name,
      periodType: p.periodType,
      startDate: p.startDate,
      endDate: p.endDate,
      status: p.status,
    })),
    openDateRanges: rangesWith('Open'),
    closedDateRanges: rangesWith('Closed'),
  };
}
