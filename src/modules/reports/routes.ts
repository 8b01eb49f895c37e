/**
 * Company reports: trial balance, general ledger, balance sheet, income statement, cash flow, equity.
 * Each route is declared as data (`ReportRoute`): every report is a viewer's GET with the same tags and
 * the same answer formats (JSON, or a CSV or XLSX file), so only its path, documentation, query string
 * and handler differ. The schemas are in schemas.ts.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TObject, TSchema } from 'typebox';
import type { Access } from '../../access/access.ts';
import type { Db } from '../../db/client.ts';
import type { ErrorTag } from '../../domain/error-catalogue.ts';
import { ValidationError } from '../../domain/errors.ts';
import {
  consolidatedTrialBalanceTable,
  equityStatementTable,
  statementTable,
  type Table,
  trialBalanceTable,
} from '../../domain/reports/tabular.ts';
import { exportFormat, sendTable } from '../../http/export.ts';
import { route } from '../../http/route.ts';
import { findCompany } from '../companies/lookup.ts';
import { checkGeneralLedgerQuery, generalLedger, generalLedgerTable } from './general-ledger.ts';
import {
  BalanceSheetQuery,
  BalanceSheetReport,
  CashFlowQuery,
  CashFlowStatementReport,
  EquityStatementQuery,
  EquityStatementReport,
  GeneralLedgerQuery,
  GeneralLedgerReport,
  IncomeStatementQuery,
  IncomeStatementReport,
  TrialBalanceQuery,
  TrialBalanceReport,
} from './schemas.ts';
import * as reports from './service.ts';

const tags = ['Company reports'];

/** Report converters by report name (file names and sheet titles use the name). */
export const REPORT_TABLES: Record<string, (title: string, report: Record<string, unknown>) => Table> = {
  'trial-balance': trialBalanceTable,
  'balance-sheet': statementTable,
  'income-statement': statementTable,
  'cash-flow': statementTable,
  'equity-statement': equityStatementTable,
  'consolidated-trial-balance': consolidatedTrialBalanceTable,
};

const TITLES: Record<string, string> = {
  'trial-balance': 'Trial balance',
  'balance-sheet': 'Balance sheet',
  'income-statement': 'Income statement',
  'cash-flow': 'Cash flow statement',
  'equity-statement': 'Equity statement',
};
const ERRORS = 'Errors: 404 OrganizationNotFoundError; 404 CompanyNotFoundError {companyId}.';
const STATEMENT_ERRORS = [
  'OrganizationNotFoundError',
  'CompanyNotFoundError',
  'InvalidReportPeriodError',
  'ExchangeRateNotFoundError',
] as const satisfies readonly ErrorTag[];

type ReportQuery = { organizationId: string; companyId: string; format?: string | undefined };

/** The company a report query names, and its currency (null: the functional currency). */
function companyAndCurrency(q: ReportQuery & { currency?: string | undefined }) {
  return { organizationId: q.organizationId, companyId: q.companyId, currency: q.currency ?? null };
}

/** What a report's handler is given: the database, the request and the way to answer. */
interface ReportCall {
  db: Db;
  request: FastifyRequest;
  reply: FastifyReply;
  /** The report as JSON, or as the CSV or XLSX file the request asks for (`date` names the file). */
  answer: (name: string, report: object, query: ReportQuery, date: string) => Promise<unknown>;
}

/** One report route: a viewer's GET (`report:read`) under the reports' tag. */
interface ReportRoute<Q extends TObject> {
  path: string;
  summary: string;
  description: string;
  errors: readonly ErrorTag[];
  querystring: Q;
  response: TSchema;
  handle: (call: ReportCall, query: Static<Q>) => Promise<unknown>;
}

/** A report route ready to register (the generic query type is checked here, then hidden). */
function report<Q extends TObject>(route: ReportRoute<Q>): ReportRoute<TObject> {
  return route as unknown as ReportRoute<TObject>;
}

const trialBalanceRoute = report({
  path: '/api/v1/reports/trial-balance',
  summary: 'Trial balance',
  description:
    'Viewer. Cumulative balances at `asOfDate`, or activity from `periodStartDate` to `asOfDate`; ' +
    '`excludeClosingEntries=true` gives a pre-closing trial balance. With `currency` other than the ' +
    'functional currency: the balances at `asOfDate` translated (see `currency`; closing entries ' +
    'are always left out, as in a consolidation run), the results of earlier years in the ' +
    'retained-earnings account (or a `RETAINED_EARNINGS` line without one) and a `CTA` line, both ' +
    'with a null `accountId`; with `periodStartDate` 400 ReportCurrencyNotSupportedError. ' +
    '400 InvalidReportPeriodError {periodStart, periodEnd} when periodStartDate > asOfDate. ' +
    ERRORS,
  errors: [...STATEMENT_ERRORS, 'ReportCurrencyNotSupportedError'],
  querystring: TrialBalanceQuery,
  response: TrialBalanceReport,
  async handle({ db, request, answer }, q) {
    if (q.periodStartDate !== undefined) reports.checkPeriod(q.periodStartDate, q.asOfDate);
    const report = await reports.trialBalance(db, request.access, {
      ...companyAndCurrency(q),
      asOfDate: q.asOfDate,
      periodStartDate: q.periodStartDate ?? null,
      excludeZeroBalances: q.excludeZeroBalances ?? true,
      excludeClosingEntries: q.excludeClosingEntries ?? false,
    });
    return answer('trial-balance', report, q, q.asOfDate);
  },
});

const generalLedgerRoute = report({
  path: '/api/v1/reports/general-ledger',
  summary: 'General ledger (account activity)',
  description:
    'Viewer. The posted lines of one account (`accountId`), a range of account numbers ' +
    '(`accountNumberFrom`/`accountNumberTo`, inclusive, numeric order) or every account of the company ' +
    'from `startDate` to `endDate`: entry number, date, description, the other accounts of the entry, ' +
    "debit, credit and running balance, with each account's opening and closing balance. Balances are " +
    'debit-positive (debit − credit) in the functional currency. Lines are paginated (`limit`, ' +
    '`offset`); CSV and XLSX exports hold every line. ' +
    '400 InvalidReportPeriodError {periodStart, periodEnd} when startDate > endDate; ' +
    "404 AccountNotFoundError {accountId} when the account is not one of the company's. " +
    ERRORS,
  errors: [
    'OrganizationNotFoundError',
    'CompanyNotFoundError',
    'AccountNotFoundError',
    'InvalidReportPeriodError',
    'ReportCurrencyNotSupportedError',
  ],
  querystring: GeneralLedgerQuery,
  response: GeneralLedgerReport,
  async handle({ db, request, reply }, q) {
    const query = {
      ...companyAndCurrency(q),
      accountId: q.accountId,
      accountNumberFrom: q.accountNumberFrom,
      accountNumberTo: q.accountNumberTo,
      startDate: q.startDate,
      endDate: q.endDate,
    };
    checkGeneralLedgerQuery(query);
    const format = exportFormat(request, q.format);
    const page = format === 'json' ? { limit: q.limit ?? 100, offset: q.offset ?? 0 } : null;
    const report = await generalLedger(db, request.access, query, page);
    if (format === 'json') return report;
    return sendTable(reply, format, generalLedgerTable(report), [
      report.companyName,
      'general-ledger',
      q.endDate,
    ]);
  },
});

const balanceSheetRoute = report({
  path: '/api/v1/reports/balance-sheet',
  summary: 'Balance sheet',
  description:
    'Viewer. Balances at `asOfDate` (and `comparativeDate`), with "Current Year Earnings" and, ' +
    'when non-zero, "Unclosed Earnings of Prior Years" in equity. With `currency` other than the ' +
    "functional currency: the balances translated at each date's rates (see `currency`); the " +
    "results of earlier years, at their periods' average rates, are in the retained-earnings " +
    'account (or "Unclosed Earnings of Prior Years" without one), the year\'s revenue and expenses ' +
    'in "Current Year Earnings", and "Cumulative Translation Adjustment" ends the equity section. ' +
    '400 ExchangeRateNotFoundError {fromCurrency, toCurrency, date, rateType}. ' +
    ERRORS,
  errors: ['OrganizationNotFoundError', 'CompanyNotFoundError', 'ExchangeRateNotFoundError'],
  querystring: BalanceSheetQuery,
  response: BalanceSheetReport,
  async handle({ db, request, answer }, q) {
    const report = await reports.balanceSheet(db, request.access, {
      ...companyAndCurrency(q),
      asOfDate: q.asOfDate,
      comparativeDate: q.comparativeDate ?? null,
      includeZeroBalances: q.includeZeroBalances ?? false,
    });
    return answer('balance-sheet', report, q, q.asOfDate);
  },
});

/** Comparative dates come both or neither: the missing one is named (400 ValidationError). */
function checkComparativeDates(start: string | undefined, end: string | undefined): void {
  if ((start === undefined) === (end === undefined)) return;
  const missing = start === undefined ? 'comparativeStartDate' : 'comparativeEndDate';
  const given = start === undefined ? 'comparativeEndDate' : 'comparativeStartDate';
  throw new ValidationError([{ path: `/query/${missing}`, message: `Required when ${given} is given` }]);
}

const incomeStatementRoute = report({
  path: '/api/v1/reports/income-statement',
  summary: 'Income statement',
  description:
    'Viewer. Activity in the period excluding closing-related entries; comparative dates both ' +
    'or neither (400 ValidationError). 400 InvalidReportPeriodError {periodStart, periodEnd} when ' +
    'a start date is later than its end date. With `currency` other than the functional currency: ' +
    "each period's revenue and expenses at its average rate (see `currency`). " +
    '400 ExchangeRateNotFoundError {fromCurrency, toCurrency, date, rateType}. ' +
    ERRORS,
  errors: STATEMENT_ERRORS,
  querystring: IncomeStatementQuery,
  response: IncomeStatementReport,
  async handle({ db, request, answer }, q) {
    const cs = q.comparativeStartDate;
    const ce = q.comparativeEndDate;
    checkComparativeDates(cs, ce);
    reports.checkPeriod(q.periodStartDate, q.periodEndDate);
    if (cs !== undefined && ce !== undefined) reports.checkPeriod(cs, ce);
    const report = await reports.incomeStatement(db, request.access, {
      ...companyAndCurrency(q),
      periodStartDate: q.periodStartDate,
      periodEndDate: q.periodEndDate,
      comparativeStartDate: cs ?? null,
      comparativeEndDate: ce ?? null,
    });
    return answer('income-statement', report, q, q.periodEndDate);
  },
});

/** The period reports with no option of their own: the cash-flow and the equity statements. */
function periodReport(
  name: 'cash-flow' | 'equity-statement',
  service: (db: Db, access: Access, query: reports.PeriodQuery) => Promise<object>,
) {
  return async (
    { db, request, answer }: ReportCall,
    q: ReportQuery & { periodStartDate: string; periodEndDate: string; currency?: string | undefined },
  ) => {
    reports.checkPeriod(q.periodStartDate, q.periodEndDate);
    const report = await service(db, request.access, {
      ...companyAndCurrency(q),
      periodStartDate: q.periodStartDate,
      periodEndDate: q.periodEndDate,
    });
    return answer(name, report, q, q.periodEndDate);
  };
}

const cashFlowRoute = report({
  path: '/api/v1/reports/cash-flow',
  summary: 'Cash-flow statement (indirect method)',
  description:
    'Viewer. Excludes closing-related entries. `method` accepts only `indirect`. ' +
    '400 InvalidReportPeriodError {periodStart, periodEnd} when periodStartDate > periodEndDate. ' +
    'With `currency` other than the functional currency: the statement a consolidation run gives ' +
    'for a group of this one company. Beginning and ending cash are translated at the closing ' +
    'rates of the day before the period and of its end; every flow at the average rate of the ' +
    "month it falls in (the month's closing rate when it has none), so a line is the change of " +
    'its translated balance less its translation difference; `exchangeRateEffect` is the effect ' +
    'of rate changes on cash (opening cash and each flow from its rate to the closing rate), so ' +
    'that beginning cash + net change = ending cash, both equal to the cash of the translated ' +
    'balance sheets. Closing entries are left out, as in a run. ' +
    ERRORS,
  errors: STATEMENT_ERRORS,
  querystring: CashFlowQuery,
  response: CashFlowStatementReport,
  handle: periodReport('cash-flow', reports.cashFlow),
});

const equityStatementRoute = report({
  path: '/api/v1/reports/equity-statement',
  summary: 'Statement of changes in equity',
  description:
    'Viewer. Opening and closing balances by equity column; movements exclude closing-related ' +
    'entries. 400 InvalidReportPeriodError {periodStart, periodEnd} when periodStartDate > ' +
    'periodEndDate. With `currency` other than the functional currency: the statement a ' +
    'consolidation run gives for a group of this one company. Opening and closing balances are ' +
    'the equity of the translated balance sheets of the day before the period and of its end; ' +
    'the cumulative translation adjustment is in `accumulatedOCI` and its change of the period ' +
    "is the other comprehensive income; net income is the period's revenue and expenses at " +
    'their average rates; other movements at the historical rates of their dates. Closing entries ' +
    'are left out, as in a run. ' +
    ERRORS,
  errors: STATEMENT_ERRORS,
  querystring: EquityStatementQuery,
  response: EquityStatementReport,
  handle: periodReport('equity-statement', reports.equityStatement),
});

/** In the order of the API reference. */
const ROUTES = [
  trialBalanceRoute,
  generalLedgerRoute,
  balanceSheetRoute,
  incomeStatementRoute,
  cashFlowRoute,
  equityStatementRoute,
];

export const reportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.deps;

  const answerFor =
    (request: FastifyRequest, reply: FastifyReply): ReportCall['answer'] =>
    async (name, report, q, date) => {
      const format = exportFormat(request, q.format);
      if (format === 'json') return report;
      const company = await findCompany(db, q.organizationId, q.companyId);
      const table = REPORT_TABLES[name]!(TITLES[name]!, report as Record<string, unknown>);
      return sendTable(reply, format, table, [company?.name ?? q.companyId, name, date]);
    };

  for (const reportRoute of ROUTES) {
    route(app, {
      method: 'GET',
      url: reportRoute.path,
      tags,
      summary: reportRoute.summary,
      description: reportRoute.description,
      access: 'report:read',
      errors: reportRoute.errors,
      querystring: reportRoute.querystring,
      response: { 200: reportRoute.response },
      handler: async (request, reply) =>
        reportRoute.handle({ db, request, reply, answer: answerFor(request, reply) }, request.query),
    });
  }
};
