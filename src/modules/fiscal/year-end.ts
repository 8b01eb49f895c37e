/**
 * Year-end close, reopen and the close preview (contract 3.6.2 YearEndClosePreview, 3.6.3).
 *
 * The closing entry is created and posted through the journal service (`insertPostedSystemEntry`:
 * next entry number, lines, `account_balances` with `is_closing` true); reopen reverses it with
 * `reverseEntryInTx`, dated E(Y) in period {Y, 13} although that period is closed.
 *
 * Nets are the ledger's year figures (ledger/year-figures.ts): the same lines for the preview and the
 * close (decision 87).
 */
import { and, asc, eq } from 'drizzle-orm';
import { type Db, inTransaction, type Queryable } from '../../db/client.ts';
import { accounts, fiscalPeriods, fiscalYears, journalEntries } from '../../db/schema/index.ts';
import { todayIn } from '../../domain/dates.ts';
import { DomainError } from '../../domain/errors.ts';
import { type Money, money, ZERO } from '../../domain/money.ts';
import type { Access } from '../../http/access.ts';
import { recordAudit } from '../audit/service.ts';
import { type CompanyRow, findCompany, unpostedEntryCount } from '../companies/lookup.ts';
import { yearEndRef } from '../../domain/journal/rules.ts';
import { insertPostedSystemEntry, type SystemLine } from '../journal/booked.ts';
import { reverseEntryInTx } from '../journal/reversal.ts';
import { yearNets } from '../ledger/year-figures.ts';
import { organizationSettings } from '../organizations/service.ts';
import {
  enterCompany,
  type FiscalYearRecord,
  loadFiscalYearRecord,
  recordPeriodReopen,
  requireFiscalYear,
  yearAlreadyClosed,
} from './service.ts';

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

type RetainedEarningsCheck =
  | { ok: true; account: typeof accounts.$inferSelect }
  | { ok: false; reason: 'NotConfigured' }
  | { ok: false; reason: 'Invalid'; account: typeof accounts.$inferSelect | null };

async function retainedEarnings(db: Queryable, company: CompanyRow): Promise<RetainedEarningsCheck> {
  if (!company.retainedEarningsAccountId) return { ok: false, reason: 'NotConfigured' };
  const [account] = await db
    .select()
    .from(accounts)
    .where(
      and(
        eq(accounts.organizationId, company.organizationId),
        eq(accounts.id, company.retainedEarningsAccountId),
      ),
    );
  if (
    !account ||
    account.companyId !== company.id ||
    account.accountType !== 'Equity' ||
    account.accountCategory !== 'RetainedEarnings' ||
    !account.isActive ||
    !account.isPostable
  ) {
    return { ok: false, reason: 'Invalid', account: account ?? null };
  }
  return { ok: true, account };
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
  await access.requireRole(organizationId, 'fiscal_period:read');

  const fc = company.functionalCurrency;
  const [nets, re, unposted] = await Promise.all([
    yearNets(db, company, year.year),
    retainedEarnings(db, company),
    unpostedEntryCount(db, organizationId, companyId, year.year),
  ]);
  let revenue = ZERO;
  let expenses = ZERO;
  for (const n of nets) {
    if (n.accountType === 'Revenue') revenue = revenue.minus(n.net);
    else expenses = expenses.plus(n.net);
  }
  const blockers: CloseBlocker[] = [];
  if (year.status === 'Closed') blockers.push('YEAR_ALREADY_CLOSED');
  if (!re.ok && re.reason === 'NotConfigured') blockers.push('RETAINED_EARNINGS_NOT_CONFIGURED');
  if (!re.ok && re.reason === 'Invalid') blockers.push('RETAINED_EARNINGS_ACCOUNT_INVALID');
  if (unposted > 0) blockers.push('UNPOSTED_ENTRIES');
  const reAccount = re.ok ? re.account : re.reason === 'Invalid' ? re.account : null;
  return {
    fiscalYearId: year.id,
    fiscalYearName: year.name,
    totalRevenue: money(revenue, fc),
    totalExpenses: money(expenses, fc),
    netIncome: money(revenue.minus(expenses), fc),
    retainedEarningsAccount: reAccount
      ? { id: reAccount.id, accountNumber: reAccount.accountNumber, name: reAccount.name }
      : null,
    unpostedEntryCount: unposted,
    canProceed: blockers.length === 0,
    blockers,
  };
}

async function lockPeriodsOfYear(tx: Queryable, organizationId: string, fiscalYearId: string) {
  return tx
    .select()
    .from(fiscalPeriods)
    .where(
      and(eq(fiscalPeriods.organizationId, organizationId), eq(fiscalPeriods.fiscalYearId, fiscalYearId)),
    )
    .orderBy(asc(fiscalPeriods.periodNumber))
    .for('update');
}

/** POST …/fiscal-years/{fiscalYearId}/close (admin): one transaction, 3.6.3. */
export async function closeYear(db: Db, access: Access, path: YearPathParams): Promise<YearEndCloseResult> {
  const { organizationId, companyId, fiscalYearId } = path;
  await enterCompany(db, access, organizationId, companyId, 'fiscal_period:manage');
  await requireFiscalYear(db, organizationId, companyId, fiscalYearId);
  await access.requireRole(organizationId, 'fiscal_period:manage');
  const settings = await organizationSettings(db, organizationId, access);

  return inTransaction(db, async (tx) => {
    const year = await requireFiscalYear(tx, organizationId, companyId, fiscalYearId, 'update');
    if (year.status !== 'Open') throw yearAlreadyClosed(year.id, year.year);
    const company = (await findCompany(tx, organizationId, companyId))!;
    const re = await retainedEarnings(tx, company);
    if (!re.ok && re.reason === 'NotConfigured') {
      throw new DomainError(
        400,
        'RetainedEarningsNotConfiguredError',
        'The company has no retained-earnings account',
        {
          companyId,
        },
      );
    }
    if (!re.ok) {
      throw new DomainError(
        400,
        'InvalidRetainedEarningsAccountError',
        'The retained-earnings account is not usable',
        {
          accountId: company.retainedEarningsAccountId,
          accountType: re.account?.accountType ?? null,
          accountCategory: re.account?.accountCategory ?? null,
        },
      );
    }
    // Period rows are locked before counting: journal operations share-lock their period, so an entry
    // being created or posted in this year is either visible to the count or waits for the close.
    const periods = await lockPeriodsOfYear(tx, organizationId, fiscalYearId);
    const unposted = await unpostedEntryCount(tx, organizationId, companyId, year.year);
    if (unposted > 0) {
      throw new DomainError(409, 'UnpostedEntriesInPeriodError', 'Entries of the year are not posted', {
        companyId,
        fiscalYear: year.year,
        periodNumber: null,
        unpostedEntryCount: unposted,
      });
    }

    const nets = await yearNets(tx, company, year.year);
    const total = nets.reduce((s, n) => s.plus(n.net), ZERO);
    const closingEntryIds: string[] = [];
    if (nets.some((n) => !n.net.isZero())) {
      const lines: SystemLine[] = [];
      for (const n of nets) {
        if (n.net.isPositive() && !n.net.isZero())
          lines.push({ accountId: n.accountId, side: 'credit', amount: n.net });
        else if (n.net.isNegative() && !n.net.isZero())
          lines.push({ accountId: n.accountId, side: 'debit', amount: n.net.negated() });
      }
      if (total.greaterThan(0)) lines.push({ accountId: re.account.id, side: 'debit', amount: total });
      else if (total.lessThan(0))
        lines.push({ accountId: re.account.id, side: 'credit', amount: total.negated() });
      const { entry } = await insertPostedSystemEntry(tx, {
        company,
        description: `Year-end close FY ${year.year}`,
        transactionDate: year.endDate,
        postingDate: todayIn(settings.defaultTimezone),
        period: { year: year.year, period: 13 },
        entryType: 'Closing',
        sourceDocumentRef: yearEndRef(year.id),
        lines,
        userId: access.userId,
      });
      closingEntryIds.push(entry.id);
    }

    const now = new Date();
    const toClose = periods.filter((p) => p.status === 'Open');
    for (const p of toClose) {
      await tx
        .update(fiscalPeriods)
        .set({ status: 'Closed', closedBy: access.userId, closedAt: now, updatedAt: now })
        .where(and(eq(fiscalPeriods.organizationId, organizationId), eq(fiscalPeriods.id, p.id)));
    }
    const [updated] = await tx
      .update(fiscalYears)
      .set({ status: 'Closed', closedBy: access.userId, closedAt: now, updatedAt: now })
      .where(and(eq(fiscalYears.organizationId, organizationId), eq(fiscalYears.id, year.id)))
      .returning();
    await recordAudit(tx, [
      {
        organizationId,
        userId: access.userId,
        action: 'YearEndClose',
        entityType: 'FiscalYear',
        entityId: year.id,
        changes: { status: { from: 'Open', to: 'Closed' } },
      },
      ...toClose.map((p) => ({
        organizationId,
        userId: access.userId,
        action: 'Close' as const,
        entityType: 'FiscalPeriod' as const,
        entityId: p.id,
        changes: { status: { from: 'Open', to: 'Closed' } },
      })),
    ]);
    return {
      fiscalYearId: year.id,
      closingEntryIds,
      netIncome: money(total.negated(), company.functionalCurrency),
      periodsClosed: toClose.length,
      fiscalYear: await loadFiscalYearRecord(tx, updated!),
    };
  });
}

/** POST …/fiscal-years/{fiscalYearId}/reopen (admin): one transaction, 3.6.3. */
export async function reopenYear(
  db: Db,
  access: Access,
  path: YearPathParams,
  reason: string | null,
): Promise<ReopenYearResult> {
  const { organizationId, companyId, fiscalYearId } = path;
  await enterCompany(db, access, organizationId, companyId, 'fiscal_period:manage');
  await requireFiscalYear(db, organizationId, companyId, fiscalYearId);
  await access.requireRole(organizationId, 'fiscal_period:manage');

  return inTransaction(db, async (tx) => {
    const year = await requireFiscalYear(tx, organizationId, companyId, fiscalYearId, 'update');
    if (year.status !== 'Closed') {
      throw new DomainError(400, 'YearNotClosedError', 'The fiscal year is not closed', {
        fiscalYearId: year.id,
        year: year.year,
        currentStatus: year.status,
      });
    }
    const company = (await findCompany(tx, organizationId, companyId))!;
    const periods = await lockPeriodsOfYear(tx, organizationId, fiscalYearId);
    const closing = await tx
      .select()
      .from(journalEntries)
      .where(
        and(
          eq(journalEntries.organizationId, organizationId),
          eq(journalEntries.companyId, companyId),
          eq(journalEntries.status, 'Posted'),
          eq(journalEntries.entryType, 'Closing'),
          eq(journalEntries.sourceDocumentRef, yearEndRef(year.id)),
        ),
      )
      .orderBy(asc(journalEntries.entryNumber))
      .for('update');
    const reversingEntryIds: string[] = [];
    for (const original of closing) {
      const { reversal } = await reverseEntryInTx(tx, {
        original,
        company,
        date: year.endDate,
        period: { year: year.year, period: 13 },
        description: null,
        reversedBy: access.userId,
        userId: access.userId,
      });
      reversingEntryIds.push(reversal.id);
    }

    const now = new Date();
    const reopened = periods.filter((p) => p.status === 'Closed');
    for (const p of reopened) {
      await tx
        .update(fiscalPeriods)
        .set({ status: 'Open', closedBy: null, closedAt: null, updatedAt: now })
        .where(and(eq(fiscalPeriods.organizationId, organizationId), eq(fiscalPeriods.id, p.id)));
      await recordPeriodReopen(tx, {
        organizationId,
        companyId,
        periodId: p.id,
        reason,
        userId: access.userId,
        at: now,
      });
    }
    const [updated] = await tx
      .update(fiscalYears)
      .set({ status: 'Open', closedBy: null, closedAt: null, updatedAt: now })
      .where(and(eq(fiscalYears.organizationId, organizationId), eq(fiscalYears.id, year.id)))
      .returning();
    await recordAudit(tx, {
      organizationId,
      userId: access.userId,
      action: 'Reopen',
      entityType: 'FiscalYear',
      entityId: year.id,
      changes: { status: { from: 'Closed', to: 'Open' } },
    });
    return {
      fiscalYearId: year.id,
      reversedEntryIds: closing.map((e) => e.id),
      reversingEntryIds,
      periodsReopened: reopened.length,
      fiscalYear: await loadFiscalYearRecord(tx, updated!),
    };
  });
}
