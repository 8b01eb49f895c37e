/**
 * Year-end close, reopen and the close preview. A close books the year's result to retained earnings
 * in one posted closing entry (the journal's `insertPostedSystemEntry`, closing-related in the
 * balances) and closes the year and its periods; a reopen reverses the closing entries (dated the
 * year's end in its period 13 although that period is closed) and opens them again.
 *
 * The nets are the ledger's year figures: the preview and the close read the same lines. The
 * accounting — what blocks a close, the closing entry's lines — is src/domain/journal/closing.ts.
 */
import type { Db, Queryable } from '../../db/client.ts';
import { inTransaction } from '../../db/client.ts';
import { fiscalPeriods, fiscalYears } from '../../db/schema/index.ts';
import {
  type AccountNetFigure,
  closingEntryLines,
  retainedEarningsProblem,
  yearResult,
} from '../../domain/journal/closing.ts';
import { todayIn } from '../../domain/dates.ts';

import { ADJUSTMENT_PERIOD } from '../../domain/fiscal-calendar.ts';
import { CLOSING_ENTRY_TYPE, yearEndRef } from '../../domain/journal/rules.ts';
import { type Money, money } from '../../domain/money.ts';
import type { Access } from '../../access/access.ts';
import { findAccount } from '../accounts/service.ts';
import { auditEntry, auditWrite, recordAudit } from '../audit/service.ts';
import { type EventInput, recordEvent } from '../events/record.ts';
import { type CompanyRow, findCompany, unpostedEntryCount } from '../companies/lookup.ts';
import type { FiscalYearRow } from '../fiscal/ensure.ts';
import { type FiscalYearRecord, loadFiscalYearRecord } from '../fiscal/records.ts';
import {
  enterCompany,
  periodEvent,
  recordPeriodReopen,
  requireFiscalYear,
  yearAlreadyClosed,
} from '../fiscal/service.ts';
import { lockPeriodsOfYear, setFiscalStatus } from '../fiscal/status.ts';
import { insertPostedSystemEntry } from '../journal/booked.ts';
import { reverseClosingEntries } from '../journal/reversal.ts';
import { yearNets } from '../ledger/year-figures.ts';
import { organizationSettings } from '../organizations/service.ts';
import { errors } from '../../domain/error-catalogue.ts';

export interface YearPathParams {
  organizationId: string;
  companyId: string;
  fiscalYearId: string;
}

export type CloseBlocker =
  | 'YEAR_ALREADY_CLOSED'
  | 'RETAINED_EARNINGS_NOT_CONFIGURED'
  | 'RETAINED_EARNINGS_ACCOUNT_INVALID'
  | 'UNPOSTED_ENTRIES';

export interface YearEndClosePreview {
  fiscalYearId: string;
  fiscalYearName: string;
  totalRevenue: Money;
  totalExpenses: Money;
  netIncome: Money;
  retainedEarningsAccount: { id: string; accountNumber: string; name: string } | null;
  unpostedEntryCount: number;
  canProceed: boolean;
  blockers: CloseBlocker[];
}

export interface YearEndCloseResult {
  fiscalYearId: string;
  closingEntryIds: string[];
  netIncome: Money;
  periodsClosed: number;
  fiscalYear: FiscalYearRecord;
}

export interface ReopenYearResult {
  fiscalYearId: string;
  reversedEntryIds: string[];
  reversingEntryIds: string[];
  periodsReopened: number;
  fiscalYear: FiscalYearRecord;
}

/** The company's retained-earnings account, if configured and found, and what keeps it from the close. */
async function retainedEarnings(db: Queryable, company: CompanyRow) {
  const id = company.retainedEarningsAccountId;
  const account = id ? await findAccount(db, company.organizationId, id) : null;
  return { account, problem: retainedEarningsProblem(company, account) };
}

/** GET …/fiscal-years/{fiscalYearId}/close/preview (viewer). */
export async function closePreview(
  db: Db,
  access: Access,
  path: YearPathParams,
): Promise<YearEndClosePreview> {
  const { organizationId, companyId, fiscalYearId } = path;
  const company = await enterCompany(db, access, organizationId, companyId, 'fiscal_period:read');
  const year = await requireFiscalYear(db, organizationId, companyId, fiscalYearId);
  await access.authorize(organizationId, 'fiscal_period:read');

  const fc = company.functionalCurrency;
  const [nets, re, unposted] = await Promise.all([
    yearNets(db, company, year.year),
    retainedEarnings(db, company),
    unpostedEntryCount(db, organizationId, companyId, year.year),
  ]);
  const { revenue, expenses, netIncome } = yearResult(nets);
  const blockers: CloseBlocker[] = [];
  if (year.status === 'Closed') blockers.push('YEAR_ALREADY_CLOSED');
  if (re.problem === 'NotConfigured') blockers.push('RETAINED_EARNINGS_NOT_CONFIGURED');
  if (re.problem === 'Invalid') blockers.push('RETAINED_EARNINGS_ACCOUNT_INVALID');
  if (unposted > 0) blockers.push('UNPOSTED_ENTRIES');
  return {
    fiscalYearId: year.id,
    fiscalYearName: year.name,
    totalRevenue: money(revenue, fc),
    totalExpenses: money(expenses, fc),
    netIncome: money(netIncome, fc),
    retainedEarningsAccount: re.account
      ? { id: re.account.id, accountNumber: re.account.accountNumber, name: re.account.name }
      : null,
    unpostedEntryCount: unposted,
    canProceed: blockers.length === 0,
    blockers,
  };
}

/**
 * POST …/fiscal-years/{fiscalYearId}/close (admin), in one transaction: the year (locked) must be open
 * and the retained-earnings account usable; its periods are locked before the unposted entries are
 * counted (journal operations share-lock their period, so an entry being created or posted in this
 * year is either counted or waits for the close); then the closing entry is booked and the year and
 * its open periods are closed.
 */
export async function closeYear(db: Db, access: Access, path: YearPathParams): Promise<YearEndCloseResult> {
  const { organizationId, companyId, fiscalYearId } = path;
  await enterCompany(db, access, organizationId, companyId, 'fiscal_period:manage');
  await requireFiscalYear(db, organizationId, companyId, fiscalYearId);
  await access.authorize(organizationId, 'fiscal_period:manage');
  const settings = await organizationSettings(db, organizationId, access);

  return inTransaction(db, async (tx) => {
    const year = await requireFiscalYear(tx, organizationId, companyId, fiscalYearId, 'update');
    if (year.status !== 'Open') throw yearAlreadyClosed(year.id, year.year);
    const company = (await findCompany(tx, organizationId, companyId))!;
    const retainedEarningsAccountId = await requireRetainedEarnings(tx, company);
    const periods = await lockPeriodsOfYear(tx, organizationId, fiscalYearId);
    const unposted = await unpostedEntryCount(tx, organizationId, companyId, year.year);
    if (unposted > 0) {
      throw errors.UnpostedEntriesInPeriodError('Entries of the year are not posted', {
        companyId,
        fiscalYear: year.year,
        periodNumber: null,
        unpostedEntryCount: unposted,
      });
    }
    const nets = await yearNets(tx, company, year.year);
    const closingEntryIds = await bookClosingEntry(tx, company, year, nets, {
      retainedEarningsAccountId,
      postingDate: todayIn(settings.defaultTimezone),
      userId: access.userId,
    });
    const change = { status: 'Closed', userId: access.userId, now: new Date() } as const;
    const toClose = periods.filter((p) => p.status === 'Open');
    for (const p of toClose) await setFiscalStatus(tx, fiscalPeriods, p, change);
    const updated = await setFiscalStatus(tx, fiscalYears, year, change);
    const closed = { status: { from: 'Open', to: 'Closed' } };
    await recordAudit(tx, [
      auditEntry(access, 'FiscalYear', { organizationId, id: year.id }, 'YearEndClose', closed),
      ...toClose.map((p) =>
        auditEntry(access, 'FiscalPeriod', { organizationId, id: p.id }, 'Close', closed),
      ),
    ]);
    const result = {
      fiscalYearId: year.id,
      closingEntryIds,
      netIncome: money(yearResult(nets).netIncome, company.functionalCurrency),
      periodsClosed: toClose.length,
      fiscalYear: await loadFiscalYearRecord(tx, updated),
    };
    await recordEvent(tx, [
      ...periodEvents('FiscalPeriodClosed', result.fiscalYear, toClose, access.userId),
      {
        organizationId,
        type: 'FiscalYearClosed',
        actorId: access.userId,
        resourceType: 'FiscalYear',
        resourceId: year.id,
        data: result,
      },
    ]);
    return result;
  });
}

/** The retained-earnings account of a close, or its error. */
async function requireRetainedEarnings(tx: Queryable, company: CompanyRow): Promise<string> {
  const { account, problem } = await retainedEarnings(tx, company);
  if (problem === 'NotConfigured') {
    throw errors.RetainedEarningsNotConfiguredError('The company has no retained-earnings account', {
      companyId: company.id,
    });
  }
  if (problem === 'Invalid') {
    throw errors.InvalidRetainedEarningsAccountError('The retained-earnings account is not usable', {
      accountId: company.retainedEarningsAccountId,
      accountType: account?.accountType ?? null,
      accountCategory: account?.accountCategory ?? null,
    });
  }
  return account!.id;
}

/**
 * Books the closing entry of the year, dated its end in period 13 and marked with the year's origin
 * mark; none when every net is zero. Returns the ids of the entries booked.
 */
async function bookClosingEntry(
  tx: Queryable,
  company: CompanyRow,
  year: FiscalYearRow,
  nets: AccountNetFigure[],
  args: { retainedEarningsAccountId: string; postingDate: string; userId: string },
): Promise<string[]> {
  const lines = closingEntryLines(nets, args.retainedEarningsAccountId);
  if (lines.length === 0) return [];
  const { entry } = await insertPostedSystemEntry(tx, {
    company,
    description: `Year-end close FY ${year.year}`,
    transactionDate: year.endDate,
    postingDate: args.postingDate,
    period: { year: year.year, period: ADJUSTMENT_PERIOD },
    entryType: CLOSING_ENTRY_TYPE,
    sourceDocumentRef: yearEndRef(year.id),
    lines,
    userId: args.userId,
  });
  return [entry.id];
}

/**
 * POST …/fiscal-years/{fiscalYearId}/reopen (admin), in one transaction: the year (locked) must be
 * closed; its periods are locked, its closing entries reversed, and the year and its closed periods
 * opened again (each period's reopen is recorded in its history).
 */
export async function reopenYear(
  db: Db,
  access: Access,
  path: YearPathParams,
  reason: string | null,
): Promise<ReopenYearResult> {
  const { organizationId, companyId, fiscalYearId } = path;
  await enterCompany(db, access, organizationId, companyId, 'fiscal_period:manage');
  await requireFiscalYear(db, organizationId, companyId, fiscalYearId);
  await access.authorize(organizationId, 'fiscal_period:manage');

  return inTransaction(db, async (tx) => {
    const year = await requireFiscalYear(tx, organizationId, companyId, fiscalYearId, 'update');
    if (year.status !== 'Closed') {
      throw errors.YearNotClosedError('The fiscal year is not closed', {
        fiscalYearId: year.id,
        year: year.year,
        currentStatus: year.status,
      });
    }
    const company = (await findCompany(tx, organizationId, companyId))!;
    const periods = await lockPeriodsOfYear(tx, organizationId, fiscalYearId);
    const reversed = await reverseClosingEntries(tx, {
      company,
      fiscalYearId: year.id,
      date: year.endDate,
      period: { year: year.year, period: ADJUSTMENT_PERIOD },
      userId: access.userId,
    });
    const now = new Date();
    const change = { status: 'Open', userId: access.userId, now } as const;
    const reopened = periods.filter((p) => p.status === 'Closed');
    for (const p of reopened) {
      await setFiscalStatus(tx, fiscalPeriods, p, change);
      await recordPeriodReopen(tx, p, { reason, userId: access.userId, at: now });
    }
    const updated = await setFiscalStatus(tx, fiscalYears, year, change);
    await auditWrite(tx, access, 'FiscalYear', { organizationId, id: year.id }, 'Reopen', {
      status: { from: 'Closed', to: 'Open' },
    });
    const fiscalYear = await loadFiscalYearRecord(tx, updated);
    await recordEvent(tx, periodEvents('FiscalPeriodReopened', fiscalYear, reopened, access.userId));
    return {
      fiscalYearId: year.id,
      ...reversed,
      periodsReopened: reopened.length,
      fiscalYear,
    };
  });
}

/** One event per period of `changed`, each carrying the period's record as the year now has it. */
function periodEvents(
  type: 'FiscalPeriodClosed' | 'FiscalPeriodReopened',
  year: FiscalYearRecord,
  changed: { id: string }[],
  actorId: string,
): EventInput[] {
  const ids = new Set(changed.map((p) => p.id));
  return year.periods
    .filter((p) => ids.has(p.id))
    .map((p) => periodEvent(type, year.organizationId, actorId, p));
}
