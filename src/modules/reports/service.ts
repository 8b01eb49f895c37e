/**
 * Company reports: access checks, one aggregation over the balances per report
 * (ledger/report-figures.ts), and the pure statement builders of `src/domain/reports`.
 *
 * Order of checks: the route has already refused malformed queries, inconsistent comparative
 * dates and reversed periods (step 5); here the organization must exist and the caller be a member
 * (step 7), the caller's role must reach viewer (`report:read`, step 9), and the company must be one of
 * the organization's (404 CompanyNotFoundError; another organization's company is "not found").
 */
import type { Db } from '../../db/client.ts';
import { addDays, maxDate } from '../../domain/dates.ts';
import { DomainError } from '../../domain/errors.ts';
import { fiscalYearOf, fiscalYearStartDate } from '../../domain/fiscal-calendar.ts';
import { CTA_KEY, RE_SYNTHETIC } from '../../domain/consolidation/setup.ts';
import { dec, ZERO } from '../../domain/money.ts';
import { TRANSLATION_ADJUSTMENT, UNCLOSED_PRIOR_EARNINGS } from '../../domain/reports/balance-sheet.ts';
import {
  type AccountFigures,
  type BalanceSheetDateFigures,
  type BalanceSheetReport,
  buildBalanceSheet,
  buildCashFlowStatement,
  buildEquityStatement,
  buildIncomeStatement,
  buildTrialBalance,
  type CashFlowStatementReport,
  type EquityStatementReport,
  figuresNet,
  type IncomeStatementReport,
  type ReportAccount,
  type TrialBalanceReport,
} from '../../domain/reports/index.ts';
import type { Access } from '../../access/access.ts';
import { type CompanyRow, fiscalYearEndOf, requireCompany } from '../companies/lookup.ts';
import {
  aggregateBalances,
  all,
  any,
  before,
  type Condition,
  notClosing,
  onOrBefore,
  within,
} from '../ledger/report-figures.ts';
import { loadReportAccounts } from './repo.ts';
import {
  translatedCashFlowStatement,
  translatedEquityStatement,
} from '../../domain/consolidation/company-translation.ts';
import { type TranslationFacts, translatedFigures, translatePeriod, translateViews } from './translation.ts';
import { errors } from '../../domain/error-catalogue.ts';

/** `400 InvalidReportPeriodError {periodStart, periodEnd}`. */
export function invalidReportPeriod(periodStart: string, periodEnd: string): DomainError {
  return errors.InvalidReportPeriodError('The period start is later than its end', {
    periodStart,
    periodEnd,
  });
}

/** Throws InvalidReportPeriodError when `start` is later than `end`. */
export function checkPeriod(start: string, end: string): void {
  if (start > end) throw invalidReportPeriod(start, end);
}

interface ReportScope {
  organizationId: string;
  companyId: string;
}

interface Context {
  company: CompanyRow;
  header: { companyId: string; currency: string; generatedAt: string };
  /** The company's name, which every company report carries besides its id. */
  companyName: string;
}

/** Steps 7–10 shared by every report: organization and membership, role, then the company. */
async function enter(db: Db, access: Access, scope: ReportScope): Promise<Context> {
  await access.authorize(scope.organizationId, 'report:read');
  const company = await requireCompany(db, scope.organizationId, scope.companyId);
  return {
    company,
    companyName: company.name,
    header: {
      companyId: company.id,
      currency: company.functionalCurrency,
      generatedAt: new Date().toISOString(),
    },
  };
}

/** A built report with the company's name after its id. */
function named<R extends { companyId: string }>(ctx: Context, report: R): Named<R> {
  const { companyId, ...rest } = report;
  return { companyId, companyName: ctx.companyName, ...rest } as Named<R>;
}
export type Named<R> = R & { companyName: string };

/** A report in another currency: the functional report's fields, then the translation's facts. */
export type Translated<R> = Named<R> & Partial<TranslationFacts>;

/**
 * `400 ReportCurrencyNotSupportedError {report, currency, functionalCurrency}`: the report exists in
 * the functional currency only (the general ledger, and a trial balance of a period's activity).
 */
export function currencyNotSupported(report: string, currency: string, functionalCurrency: string) {
  return errors.ReportCurrencyNotSupportedError(
    `The ${report} is only available in the functional currency ${functionalCurrency}`,
    { report, currency, functionalCurrency },
  );
}

/** Refuses a currency other than the company's functional currency for a functional-only report. */
export function functionalOnly(
  company: { functionalCurrency: string },
  report: string,
  currency: string | null | undefined,
): void {
  if (currency !== null && currency !== undefined && currency !== company.functionalCurrency) {
    throw currencyNotSupported(report, currency, company.functionalCurrency);
  }
}

/** The currency asked for, or null for the functional currency (the report as it always was). */
function otherCurrency(ctx: Context, currency: string | null | undefined): string | null {
  return currency === null || currency === undefined || currency === ctx.company.functionalCurrency
    ? null
    : currency;
}

/** How one report is built: in the company's functional currency, and translated into another one. */
interface ReportBuilders<Q, R> {
  functional(db: Db, ctx: Context, q: Q): Promise<R>;
  translated(db: Db, ctx: Context, q: Q, currency: string): Promise<{ report: R; facts: TranslationFacts }>;
}

/**
 * A company report's service: steps 7–10 (`enter`), then the report in the functional currency, or,
 * when the query asks for another currency, translated with the translation's facts after its fields;
 * either way named after the company.
 */
function companyReport<Q extends ReportScope & { currency?: string | null }, R extends { companyId: string }>(
  build: ReportBuilders<Q, R>,
): (db: Db, access: Access, q: Q) => Promise<Translated<R>> {
  return async (db, access, q) => {
    const ctx = await enter(db, access, q);
    const currency = otherCurrency(ctx, q.currency);
    if (currency === null) return named(ctx, await build.functional(db, ctx, q));
    const { report, facts } = await build.translated(db, ctx, q, currency);
    return { ...named(ctx, report), ...facts };
  };
}

/**
 * Runs the report's single aggregation, then loads the chart of accounts. Accounts that were ever
 * used are never deleted, so loading them after the balances covers every account with figures even
 * when an account is created and posted to concurrently; rows of any other account are dropped
 * defensively so a builder never throws.
 */
async function figures<K extends string>(
  db: Db,
  ctx: Context,
  scope: Condition,
  buckets: Record<K, Condition>,
): Promise<{ accounts: ReportAccount[]; rows: Record<K, AccountFigures[]> }> {
  const rows = await aggregateBalances(db, ctx.company.organizationId, ctx.company.id, scope, buckets);
  const accounts = await companyAccounts(db, ctx);
  const known = new Set(accounts.map((a) => a.id));
  for (const key of Object.keys(rows) as K[]) {
    rows[key] = rows[key].filter((row) => known.has(row.accountId));
  }
  return { accounts, rows };
}

/** The company's accounts as the reports show them (its retained-earnings account marked). */
function companyAccounts(db: Db, ctx: Context): Promise<ReportAccount[]> {
  const { organizationId, id, retainedEarningsAccountId } = ctx.company;
  return loadReportAccounts(db, organizationId, id, retainedEarningsAccountId);
}

/** Σ credit − Σ debit of the Revenue and Expense accounts' rows. */
function earnings(rows: readonly AccountFigures[], accounts: readonly ReportAccount[]) {
  const pl = new Set(
    accounts.filter((a) => a.accountType === 'Revenue' || a.accountType === 'Expense').map((a) => a.id),
  );
  let total = ZERO;
  for (const row of rows) if (pl.has(row.accountId)) total = total.minus(figuresNet(row));
  return total;
}

// ---------------------------------------------------------------------------------------------------

export interface TrialBalanceQuery extends ReportScope {
  asOfDate: string;
  periodStartDate: string | null;
  excludeZeroBalances: boolean;
  excludeClosingEntries: boolean;
  /**
   * another currency than the functional one: the translated trial balance at `asOfDate` (a period's
   * activity, with `periodStartDate`, is only in the functional currency)
   */
  currency?: string | null;
}

export const trialBalance = companyReport<TrialBalanceQuery, TrialBalanceReport>({
  async translated(db, ctx, q, currency) {
    if (q.periodStartDate !== null) functionalOnly(ctx.company, 'trial-balance', currency);
    const fye = fiscalYearEndOf(ctx.company);
    const yearStartDate = fiscalYearStartDate(fye, fiscalYearOf(fye, q.asOfDate));
    const translated = await translateViews(db, ctx.company, currency, [
      { asOfDate: q.asOfDate, yearStartDate },
    ]);
    const accounts = await companyAccounts(db, ctx);
    const f = translatedFigures(translated.views[0]!, accounts);
    const report = buildTrialBalance({
      ...ctx.header,
      currency,
      asOfDate: q.asOfDate,
      periodStartDate: null,
      accounts,
      figures: f.rows,
      excludeZeroBalances: q.excludeZeroBalances,
      computedLines: [
        {
          accountNumber: RE_SYNTHETIC,
          accountName: UNCLOSED_PRIOR_EARNINGS,
          accountType: 'Equity',
          accountCategory: 'RetainedEarnings',
          net: dec(f.priorUnclosedEarnings).negated(),
        },
        {
          accountNumber: CTA_KEY,
          accountName: TRANSLATION_ADJUSTMENT,
          accountType: 'Equity',
          accountCategory: 'OtherComprehensiveIncome',
          net: dec(f.translationAdjustment).negated(),
        },
      ],
    });
    return { report, facts: translated.facts };
  },
  async functional(db, ctx, q) {
    const conditions = [onOrBefore(q.asOfDate)];
    if (q.periodStartDate !== null) conditions.push(within(q.periodStartDate, q.asOfDate));
    if (q.excludeClosingEntries) conditions.push(notClosing);
    const { accounts, rows } = await figures(db, ctx, all(...conditions), { inScope: all() });
    return buildTrialBalance({
      ...ctx.header,
      asOfDate: q.asOfDate,
      periodStartDate: q.periodStartDate,
      accounts,
      figures: rows.inScope,
      excludeZeroBalances: q.excludeZeroBalances,
    });
  },
});

// ---------------------------------------------------------------------------------------------------

export interface BalanceSheetQuery extends ReportScope {
  asOfDate: string;
  comparativeDate: string | null;
  includeZeroBalances: boolean;
  /** another currency than the functional one: the translated balance sheet */
  currency?: string | null;
}

/** The start of the fiscal year of each date, and the balance sheet's dates (with its comparative one). */
function balanceSheetDates(ctx: Context, q: BalanceSheetQuery) {
  const fye = fiscalYearEndOf(ctx.company);
  const yearStart = (d: string) => fiscalYearStartDate(fye, fiscalYearOf(fye, d));
  const dates = q.comparativeDate === null ? [q.asOfDate] : [q.asOfDate, q.comparativeDate];
  return { yearStart, dates };
}

export const balanceSheet = companyReport<BalanceSheetQuery, BalanceSheetReport>({
  // Translated: every balance at the rates a consolidation run uses for this date.
  async translated(db, ctx, q, currency) {
    const { yearStart, dates } = balanceSheetDates(ctx, q);
    const translated = await translateViews(
      db,
      ctx.company,
      currency,
      dates.map((d) => ({ asOfDate: d, yearStartDate: yearStart(d) })),
    );
    const accounts = await companyAccounts(db, ctx);
    const [current, comparative] = translated.views.map((v) => translatedFigures(v, accounts));
    const figuresAt = (f: NonNullable<typeof current>): BalanceSheetDateFigures => ({
      balances: f.rows,
      currentYearEarnings: f.currentYearEarnings,
      priorUnclosedEarnings: f.priorUnclosedEarnings,
    });
    const report = buildBalanceSheet({
      ...ctx.header,
      currency,
      asOfDate: q.asOfDate,
      comparativeDate: q.comparativeDate,
      ...figuresAt(current!),
      comparative: comparative ? figuresAt(comparative) : null,
      accounts,
      includeZeroBalances: q.includeZeroBalances,
      translationAdjustment: {
        current: current!.translationAdjustment,
        comparative: comparative?.translationAdjustment ?? null,
      },
    });
    return { report, facts: translated.facts };
  },
  async functional(db, ctx, q) {
    const { yearStart, dates } = balanceSheetDates(ctx, q);
    // Per date: balances at the date, and balances before the start of its fiscal year (for the split
    // of unclosed earnings into current-year and prior-year). Closing entries included.
    const buckets: Record<string, Condition> = {};
    dates.forEach((d, i) => {
      buckets[`at${i}`] = onOrBefore(d);
      buckets[`pre${i}`] = before(yearStart(d));
    });
    const { accounts, rows } = await figures(db, ctx, onOrBefore(dates.reduce(maxDate)), buckets);
    const at = (i: number): BalanceSheetDateFigures => {
      const atDate = rows[`at${i}`] ?? [];
      const prior = earnings(rows[`pre${i}`] ?? [], accounts);
      return {
        balances: atDate,
        currentYearEarnings: earnings(atDate, accounts).minus(prior),
        priorUnclosedEarnings: prior,
      };
    };
    return buildBalanceSheet({
      ...ctx.header,
      asOfDate: q.asOfDate,
      comparativeDate: q.comparativeDate,
      ...at(0),
      comparative: q.comparativeDate === null ? null : at(1),
      accounts,
      includeZeroBalances: q.includeZeroBalances,
    });
  },
});

// ---------------------------------------------------------------------------------------------------

export interface IncomeStatementQuery extends ReportScope {
  periodStartDate: string;
  periodEndDate: string;
  comparativeStartDate: string | null;
  comparativeEndDate: string | null;
  /** another currency than the functional one: the translated income statement */
  currency?: string | null;
}

/** The comparative period of an income statement, when the query gives both its dates. */
function comparativePeriod(q: IncomeStatementQuery): { start: string; end: string } | null {
  return q.comparativeStartDate !== null && q.comparativeEndDate !== null
    ? { start: q.comparativeStartDate, end: q.comparativeEndDate }
    : null;
}

export const incomeStatement = companyReport<IncomeStatementQuery, IncomeStatementReport>({
  // Translated: each period's revenue and expenses at its average rate, as a run translates them.
  async translated(db, ctx, q, currency) {
    const comparative = comparativePeriod(q);
    const periods = [{ asOfDate: q.periodEndDate, yearStartDate: q.periodStartDate }];
    if (comparative) periods.push({ asOfDate: comparative.end, yearStartDate: comparative.start });
    const translated = await translateViews(db, ctx.company, currency, periods, { activityOnly: true });
    const accounts = await companyAccounts(db, ctx);
    const [current, previous] = translated.views.map((v) => translatedFigures(v, accounts).rows);
    const report = buildIncomeStatement({
      ...ctx.header,
      currency,
      periodStartDate: q.periodStartDate,
      periodEndDate: q.periodEndDate,
      comparativeStartDate: comparative?.start ?? null,
      comparativeEndDate: comparative?.end ?? null,
      accounts,
      activity: current ?? [],
      comparativeActivity: comparative ? (previous ?? []) : null,
    });
    return { report, facts: translated.facts };
  },
  async functional(db, ctx, q) {
    const comparative = comparativePeriod(q);
    const current = within(q.periodStartDate, q.periodEndDate);
    const buckets: Record<string, Condition> = { current };
    if (comparative) buckets.comparative = within(comparative.start, comparative.end);
    const scope = all(notClosing, any(...Object.values(buckets)));
    const { accounts, rows } = await figures(db, ctx, scope, buckets);
    return buildIncomeStatement({
      ...ctx.header,
      periodStartDate: q.periodStartDate,
      periodEndDate: q.periodEndDate,
      comparativeStartDate: comparative?.start ?? null,
      comparativeEndDate: comparative?.end ?? null,
      accounts,
      activity: rows.current ?? [],
      comparativeActivity: comparative ? (rows.comparative ?? []) : null,
    });
  },
});

// ---------------------------------------------------------------------------------------------------

export interface PeriodQuery extends ReportScope {
  periodStartDate: string;
  periodEndDate: string;
  /** another currency than the functional one: the translated statement */
  currency?: string | null;
}

/** The header and accounts of a statement of a period in another currency. */
async function translatedPeriod(db: Db, ctx: Context, q: PeriodQuery, currency: string) {
  const translated = await translatePeriod(db, ctx.company, currency, q.periodStartDate, q.periodEndDate);
  const header = {
    companyId: ctx.company.id,
    periodStartDate: q.periodStartDate,
    periodEndDate: q.periodEndDate,
    currency,
    generatedAt: ctx.header.generatedAt,
  };
  return { translated, header };
}

export const cashFlow = companyReport<PeriodQuery, CashFlowStatementReport>({
  // Translated as a consolidation run's cash-flow statement: flows at average rates, the effect of
  // rate changes on cash as its own line.
  async translated(db, ctx, q, currency) {
    const { translated, header } = await translatedPeriod(db, ctx, q, currency);
    const accounts = await companyAccounts(db, ctx);
    return {
      report: translatedCashFlowStatement(header, translated.views, accounts),
      facts: translated.facts,
    };
  },
  // Everything excludes closing-related entries.
  async functional(db, ctx, q) {
    const { accounts, rows } = await figures(db, ctx, all(notClosing, onOrBefore(q.periodEndDate)), {
      activity: within(q.periodStartDate, q.periodEndDate),
      beginning: onOrBefore(addDays(q.periodStartDate, -1)),
      ending: all(),
    });
    return buildCashFlowStatement({
      ...ctx.header,
      periodStartDate: q.periodStartDate,
      periodEndDate: q.periodEndDate,
      accounts,
      activity: rows.activity,
      beginningBalances: rows.beginning,
      endingBalances: rows.ending,
    });
  },
});

export const equityStatement = companyReport<PeriodQuery, EquityStatementReport>({
  // Translated as a consolidation run's equity statement: the translation adjustment in accumulated
  // OCI, its change of the period as other comprehensive income.
  async translated(db, ctx, q, currency) {
    const { translated, header } = await translatedPeriod(db, ctx, q, currency);
    return { report: translatedEquityStatement(header, translated.views), facts: translated.facts };
  },
  // Opening and closing balances include closing entries; movements exclude them.
  async functional(db, ctx, q) {
    const { accounts, rows } = await figures(db, ctx, onOrBefore(q.periodEndDate), {
      opening: onOrBefore(addDays(q.periodStartDate, -1)),
      closing: all(),
      activity: all(notClosing, within(q.periodStartDate, q.periodEndDate)),
    });
    return buildEquityStatement({
      ...ctx.header,
      periodStartDate: q.periodStartDate,
      periodEndDate: q.periodEndDate,
      accounts,
      openingBalances: rows.opening,
      closingBalances: rows.closing,
      activity: rows.activity,
    });
  },
});
