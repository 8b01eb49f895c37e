/** Company reports: trial balance, balance sheet, income statement, cash flow, equity. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ValidationError } from '../../domain/errors.ts';
import { responses } from '../../http/responses.ts';
import {
  CurrencyCode,
  IsoDate,
  Money,
  Nullable,
  Percentage,
  StringEnum,
  Timestamp,
  Type,
  Uuid,
} from '../../http/schemas.ts';
import {
  consolidatedTrialBalanceTable,
  equityStatementTable,
  statementTable,
  type Table,
  trialBalanceTable,
} from '../../domain/reports/tabular.ts';
import { EXPORT_FORMATS, exportFormat, sendTable } from '../../http/export.ts';
import { cashFlowSection, EquityRow, statementLine, statementSection } from '../../http/statement-schemas.ts';
import { findCompany } from '../companies/lookup.ts';
import { checkGeneralLedgerQuery, generalLedger, generalLedgerTable } from './general-ledger.ts';
import * as reports from './service.ts';

// ---------------------------------------------------------------------------------------------------
// Response schemas
// ---------------------------------------------------------------------------------------------------

const Id = Type.String({ description: 'UUID' });
const Day = Type.String({ format: 'date', description: 'Date YYYY-MM-DD' });

const ReportLine = statementLine({
  accountId: Nullable(Id),
  comparativeAmount: Nullable(Money),
  variance: Nullable(Money),
  variancePercentage: Nullable(Percentage),
});

const ReportSection = statementSection(ReportLine, Nullable(Money));

const RateUsed = Type.Object({
  exchangeRateId: Id,
  fromCurrency: Type.String(),
  toCurrency: Type.String(),
  rateType: StringEnum(['Spot', 'Average', 'Historical', 'YearEnd'] as const),
  effectiveDate: Day,
  rate: Type.String({ description: 'The stored rate' }),
  effectiveRate: Type.String({ description: 'The rate applied (inverse or cross rate when derived)' }),
  derivation: StringEnum(['Direct', 'Inverse', 'Triangulated', 'ComputedAverage'] as const),
  legIds: Type.Array(Id),
  purpose: StringEnum(['Closing', 'Average', 'Historical'] as const, {
    description:
      'Closing: monetary assets and liabilities; Average: revenue and expenses of a period (a closing ' +
      "rate here is the period's closing rate, used when the period has no average rate); Historical: " +
      'equity and non-monetary items at the rate of their dates',
  }),
});

/** Fields a statement translated into another currency adds after the functional ones. */
const TranslationFields = {
  functionalCurrency: Type.Optional(
    Type.String({ description: "Only in another currency: the company's functional currency" }),
  ),
  exchangeRates: Type.Optional(
    Type.Array(RateUsed, {
      description:
        'Only in another currency: every rate the translation used, as a consolidation run lists them',
    }),
  ),
};

const CurrencyParam = Type.Optional(
  Type.Unsafe<string>({
    ...CurrencyCode,
    description:
      'The currency of the statement (ISO 4217). Default: the functional currency (the statement as ' +
      'booked). Another currency translates the balances as a consolidation run does (current-rate ' +
      'method): monetary assets and liabilities at the closing rate, equity and non-monetary items at ' +
      "the historical rates of their dates, revenue and expenses at each period's average rate, and " +
      'the cumulative translation adjustment as the balancing equity line; the answer lists the rates ' +
      'used. 400 ExchangeRateNotFoundError {fromCurrency, toCurrency, date, rateType} when a rate is missing.',
  }),
);

/** The parameter of the reports that exist in the functional currency only. */
const FunctionalCurrencyParam = Type.Optional(
  Type.Unsafe<string>({
    ...CurrencyCode,
    description:
      "The currency of the report: only the company's functional currency (the default); another " +
      'currency answers 400 ReportCurrencyNotSupportedError {report, currency, functionalCurrency} ' +
      '(the balance sheet, the income statement, the cash-flow statement, the equity statement and the ' +
      'trial balance at a date translate into another currency).',
  }),
);

const TrialBalanceReport = Type.Object({
  companyId: Id,
  companyName: Type.String(),
  asOfDate: Day,
  periodStartDate: Nullable(Day),
  currency: Type.String(),
  generatedAt: Timestamp,
  lineItems: Type.Array(
    Type.Object({
      accountId: Nullable(
        Type.String({
          description:
            'UUID; null only for a computed line of a trial balance in another currency (`CTA`, ' +
            '`RETAINED_EARNINGS`)',
        }),
      ),
      accountNumber: Type.String(),
      accountName: Type.String(),
      accountType: Type.String(),
      accountCategory: Type.String(),
      debitBalance: Money,
      creditBalance: Money,
    }),
  ),
  totalDebits: Money,
  totalCredits: Money,
  isBalanced: Type.Boolean(),
  ...TranslationFields,
});

const BalanceSheetReport = Type.Object({
  companyId: Id,
  companyName: Type.String(),
  asOfDate: Day,
  comparativeDate: Nullable(Day),
  currency: Type.String(),
  generatedAt: Timestamp,
  currentAssets: ReportSection,
  nonCurrentAssets: ReportSection,
  totalAssets: Money,
  currentLiabilities: ReportSection,
  nonCurrentLiabilities: ReportSection,
  totalLiabilities: Money,
  equity: ReportSection,
  totalEquity: Money,
  totalLiabilitiesAndEquity: Money,
  isBalanced: Type.Boolean(),
  ...TranslationFields,
});

const IncomeStatementReport = Type.Object({
  companyId: Id,
  companyName: Type.String(),
  periodStartDate: Day,
  periodEndDate: Day,
  comparativeStartDate: Nullable(Day),
  comparativeEndDate: Nullable(Day),
  currency: Type.String(),
  generatedAt: Timestamp,
  revenue: ReportSection,
  costOfSales: ReportSection,
  grossProfit: Money,
  operatingExpenses: ReportSection,
  operatingIncome: Money,
  otherIncomeExpense: ReportSection,
  incomeBeforeTax: Money,
  taxExpense: Money,
  netIncome: Money,
  ...TranslationFields,
});

const CashFlowSection = cashFlowSection(Nullable(Id));

const CashFlowStatementReport = Type.Object({
  companyId: Id,
  companyName: Type.String(),
  periodStartDate: Day,
  periodEndDate: Day,
  currency: Type.String(),
  generatedAt: Timestamp,
  method: StringEnum(['indirect'] as const),
  beginningCash: Money,
  operatingActivities: CashFlowSection,
  investingActivities: CashFlowSection,
  financingActivities: CashFlowSection,
  exchangeRateEffect: Money,
  netChangeInCash: Money,
  endingCash: Money,
  isReconciled: Type.Boolean(),
  ...TranslationFields,
});

const EquityStatementReport = Type.Object({
  companyId: Id,
  companyName: Type.String(),
  periodStartDate: Day,
  periodEndDate: Day,
  currency: Type.String(),
  generatedAt: Timestamp,
  openingBalances: EquityRow,
  movements: Type.Array(EquityRow),
  closingBalances: EquityRow,
  ...TranslationFields,
});

const GeneralLedgerReport = Type.Object({
  companyId: Id,
  companyName: Type.String(),
  currency: Type.String(),
  startDate: Day,
  endDate: Day,
  generatedAt: Timestamp,
  accounts: Type.Array(
    Type.Object({
      accountId: Id,
      accountNumber: Type.String(),
      accountName: Type.String(),
      accountType: Type.String(),
      openingBalance: Money,
      totalDebits: Money,
      totalCredits: Money,
      closingBalance: Money,
    }),
    { description: 'Every selected account with an opening balance or activity (all pages).' },
  ),
  lines: Type.Array(
    Type.Object({
      accountId: Id,
      accountNumber: Type.String(),
      entryId: Id,
      entryNumber: Type.String(),
      transactionDate: Day,
      description: Type.String(),
      lineNumber: Type.Integer(),
      memo: Nullable(Type.String()),
      counterpartAccounts: Type.Array(Type.String(), {
        description: 'Numbers of the other accounts of the entry',
      }),
      debit: Money,
      credit: Money,
      runningBalance: Money,
    }),
  ),
  total: Type.Integer({ description: 'Number of lines of every page' }),
  limit: Type.Integer(),
  offset: Type.Integer(),
});

const AccountNumber = Type.String({ pattern: '^[1-9][0-9]{3,9}$', description: 'Account number' });

// ---------------------------------------------------------------------------------------------------
// Query schemas and step-5 cross-field checks
// ---------------------------------------------------------------------------------------------------

const CommonQuery = {
  organizationId: Uuid,
  companyId: Uuid,
  format: Type.Optional(
    StringEnum(EXPORT_FORMATS, {
      description:
        'Answer format: `json` (default), `csv` or `xlsx`; without it the Accept header chooses ' +
        '(`text/csv`, `application/vnd.openxmlformats-officedocument.spreadsheetml.sheet`).',
    }),
  ),
};

const PeriodQuery = Type.Object({
  ...CommonQuery,
  periodStartDate: IsoDate,
  periodEndDate: IsoDate,
});

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

export const reportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.deps;

  /** The report as JSON, or as the CSV or XLSX file the request asks for. */
  async function answer(
    request: FastifyRequest,
    reply: FastifyReply,
    name: string,
    report: object,
    q: { organizationId: string; companyId: string; format?: string | undefined },
    date: string,
  ) {
    const format = exportFormat(request, q.format);
    if (format === 'json') return report;
    const company = await findCompany(db, q.organizationId, q.companyId);
    const table = REPORT_TABLES[name]!(TITLES[name]!, report as Record<string, unknown>);
    return sendTable(reply, format, table, [company?.name ?? q.companyId, name, date]);
  }

  app.get(
    '/api/v1/reports/trial-balance',
    {
      config: {
        access: 'report:read',
        errors: [
          'OrganizationNotFoundError',
          'CompanyNotFoundError',
          'InvalidReportPeriodError',
          'ExchangeRateNotFoundError',
          'ReportCurrencyNotSupportedError',
        ],
      },
      schema: {
        tags,
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
        querystring: Type.Object({
          ...CommonQuery,
          asOfDate: IsoDate,
          periodStartDate: Type.Optional(IsoDate),
          excludeZeroBalances: Type.Optional(Type.Boolean({ default: true })),
          excludeClosingEntries: Type.Optional(Type.Boolean({ default: false })),
          currency: CurrencyParam,
        }),
        response: responses({ 200: TrialBalanceReport }),
      },
    },
    async (request, reply) => {
      const q = request.query;
      if (q.periodStartDate !== undefined) reports.checkPeriod(q.periodStartDate, q.asOfDate);
      const report = await reports.trialBalance(db, request.access, {
        organizationId: q.organizationId,
        companyId: q.companyId,
        asOfDate: q.asOfDate,
        periodStartDate: q.periodStartDate ?? null,
        excludeZeroBalances: q.excludeZeroBalances ?? true,
        excludeClosingEntries: q.excludeClosingEntries ?? false,
        currency: q.currency ?? null,
      });
      return answer(request, reply, 'trial-balance', report, q, q.asOfDate);
    },
  );

  app.get(
    '/api/v1/reports/general-ledger',
    {
      config: {
        access: 'report:read',
        errors: [
          'OrganizationNotFoundError',
          'CompanyNotFoundError',
          'AccountNotFoundError',
          'InvalidReportPeriodError',
          'ReportCurrencyNotSupportedError',
        ],
      },
      schema: {
        tags,
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
        querystring: Type.Object({
          ...CommonQuery,
          accountId: Type.Optional(Uuid),
          accountNumberFrom: Type.Optional(AccountNumber),
          accountNumberTo: Type.Optional(AccountNumber),
          startDate: IsoDate,
          endDate: IsoDate,
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
          offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
          currency: FunctionalCurrencyParam,
        }),
        response: responses({ 200: GeneralLedgerReport }),
      },
    },
    async (request, reply) => {
      const q = request.query;
      const query = {
        organizationId: q.organizationId,
        companyId: q.companyId,
        accountId: q.accountId,
        accountNumberFrom: q.accountNumberFrom,
        accountNumberTo: q.accountNumberTo,
        startDate: q.startDate,
        endDate: q.endDate,
        currency: q.currency ?? null,
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
  );

  app.get(
    '/api/v1/reports/balance-sheet',
    {
      config: {
        access: 'report:read',
        errors: ['OrganizationNotFoundError', 'CompanyNotFoundError', 'ExchangeRateNotFoundError'],
      },
      schema: {
        tags,
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
        querystring: Type.Object({
          ...CommonQuery,
          asOfDate: IsoDate,
          comparativeDate: Type.Optional(IsoDate),
          includeZeroBalances: Type.Optional(Type.Boolean({ default: false })),
          currency: CurrencyParam,
        }),
        response: responses({ 200: BalanceSheetReport }),
      },
    },
    async (request, reply) => {
      const q = request.query;
      const report = await reports.balanceSheet(db, request.access, {
        organizationId: q.organizationId,
        companyId: q.companyId,
        asOfDate: q.asOfDate,
        comparativeDate: q.comparativeDate ?? null,
        includeZeroBalances: q.includeZeroBalances ?? false,
        currency: q.currency ?? null,
      });
      return answer(request, reply, 'balance-sheet', report, q, q.asOfDate);
    },
  );

  app.get(
    '/api/v1/reports/income-statement',
    {
      config: {
        access: 'report:read',
        errors: [
          'OrganizationNotFoundError',
          'CompanyNotFoundError',
          'InvalidReportPeriodError',
          'ExchangeRateNotFoundError',
        ],
      },
      schema: {
        tags,
        summary: 'Income statement',
        description:
          'Viewer. Activity in the period excluding closing-related entries; comparative dates both ' +
          'or neither (400 ValidationError). 400 InvalidReportPeriodError {periodStart, periodEnd} when ' +
          'a start date is later than its end date. With `currency` other than the functional currency: ' +
          "each period's revenue and expenses at its average rate (see `currency`). " +
          '400 ExchangeRateNotFoundError {fromCurrency, toCurrency, date, rateType}. ' +
          ERRORS,
        querystring: Type.Object({
          ...CommonQuery,
          periodStartDate: IsoDate,
          periodEndDate: IsoDate,
          comparativeStartDate: Type.Optional(IsoDate),
          comparativeEndDate: Type.Optional(IsoDate),
          currency: CurrencyParam,
        }),
        response: responses({ 200: IncomeStatementReport }),
      },
    },
    async (request, reply) => {
      const q = request.query;
      const cs = q.comparativeStartDate;
      const ce = q.comparativeEndDate;
      if ((cs === undefined) !== (ce === undefined)) {
        const missing = cs === undefined ? 'comparativeStartDate' : 'comparativeEndDate';
        const given = cs === undefined ? 'comparativeEndDate' : 'comparativeStartDate';
        throw new ValidationError([
          { path: `/query/${missing}`, message: `Required when ${given} is given` },
        ]);
      }
      reports.checkPeriod(q.periodStartDate, q.periodEndDate);
      if (cs !== undefined && ce !== undefined) reports.checkPeriod(cs, ce);
      const report = await reports.incomeStatement(db, request.access, {
        organizationId: q.organizationId,
        companyId: q.companyId,
        periodStartDate: q.periodStartDate,
        periodEndDate: q.periodEndDate,
        comparativeStartDate: cs ?? null,
        comparativeEndDate: ce ?? null,
        currency: q.currency ?? null,
      });
      return answer(request, reply, 'income-statement', report, q, q.periodEndDate);
    },
  );

  app.get(
    '/api/v1/reports/cash-flow',
    {
      config: {
        access: 'report:read',
        errors: [
          'OrganizationNotFoundError',
          'CompanyNotFoundError',
          'InvalidReportPeriodError',
          'ExchangeRateNotFoundError',
        ],
      },
      schema: {
        tags,
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
        querystring: Type.Object({
          ...PeriodQuery.properties,
          method: Type.Optional(StringEnum(['indirect'] as const)),
          currency: CurrencyParam,
        }),
        response: responses({ 200: CashFlowStatementReport }),
      },
    },
    async (request, reply) => {
      const q = request.query;
      reports.checkPeriod(q.periodStartDate, q.periodEndDate);
      const report = await reports.cashFlow(db, request.access, {
        organizationId: q.organizationId,
        companyId: q.companyId,
        periodStartDate: q.periodStartDate,
        periodEndDate: q.periodEndDate,
        currency: q.currency ?? null,
      });
      return answer(request, reply, 'cash-flow', report, q, q.periodEndDate);
    },
  );

  app.get(
    '/api/v1/reports/equity-statement',
    {
      config: {
        access: 'report:read',
        errors: [
          'OrganizationNotFoundError',
          'CompanyNotFoundError',
          'InvalidReportPeriodError',
          'ExchangeRateNotFoundError',
        ],
      },
      schema: {
        tags,
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
        querystring: Type.Object({ ...PeriodQuery.properties, currency: CurrencyParam }),
        response: responses({ 200: EquityStatementReport }),
      },
    },
    async (request, reply) => {
      const q = request.query;
      reports.checkPeriod(q.periodStartDate, q.periodEndDate);
      const report = await reports.equityStatement(db, request.access, {
        organizationId: q.organizationId,
        companyId: q.companyId,
        periodStartDate: q.periodStartDate,
        periodEndDate: q.periodEndDate,
        currency: q.currency ?? null,
      });
      return answer(request, reply, 'equity-statement', report, q, q.periodEndDate);
    },
  );
};
