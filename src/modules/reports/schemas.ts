/**
 * The TypeBox schemas of the company reports: the answers (the same shapes a consolidation run uses for
 * its statements, from http/statement-schemas.ts) and the query strings. They are the OpenAPI
 * description of the routes in routes.ts.
 */
import { FormatQuery } from '../../http/export.ts';
import {
  balanceSheetSections,
  cashFlowSection,
  cashFlowStatementSections,
  equityStatementRows,
  incomeStatementSections,
  statementLine,
  statementSection,
  Day,
} from '../../http/statement-schemas.ts';
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
import { ACCOUNT_NUMBER_PATTERN } from '../../http/account-schemas.ts';

const Id = Type.String({ description: 'UUID' });

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

/** An optional `currency` query parameter (ISO 4217) with its meaning for the report. */
const currencyParam = (description: string) =>
  Type.Optional(Type.Unsafe<string>({ ...CurrencyCode, description }));

const CurrencyParam = currencyParam(
  'The currency of the statement (ISO 4217). Default: the functional currency (the statement as ' +
    'booked). Another currency translates the balances as a consolidation run does (current-rate ' +
    'method): monetary assets and liabilities at the closing rate, equity and non-monetary items at ' +
    "the historical rates of their dates, revenue and expenses at each period's average rate, and " +
    'the cumulative translation adjustment as the balancing equity line; the answer lists the rates ' +
    'used. 400 ExchangeRateNotFoundError {fromCurrency, toCurrency, date, rateType} when a rate is missing.',
);

/** The parameter of the reports that exist in the functional currency only. */
const FunctionalCurrencyParam = currencyParam(
  "The currency of the report: only the company's functional currency (the default); another " +
    'currency answers 400 ReportCurrencyNotSupportedError {report, currency, functionalCurrency} ' +
    '(the balance sheet, the income statement, the cash-flow statement, the equity statement and the ' +
    'trial balance at a date translate into another currency).',
);

/** The company a report is of. */
const CompanyHeader = { companyId: Id, companyName: Type.String() };
/** The currency of a report's amounts, and when it was generated. */
const Generated = { currency: Type.String(), generatedAt: Timestamp };
/** The header of a statement of a period with no comparative period (cash flow, equity). */
const PeriodHeader = { ...CompanyHeader, periodStartDate: Day, periodEndDate: Day, ...Generated };

export const TrialBalanceReport = Type.Object({
  ...CompanyHeader,
  asOfDate: Day,
  periodStartDate: Nullable(Day),
  ...Generated,
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

export const BalanceSheetReport = Type.Object({
  ...CompanyHeader,
  asOfDate: Day,
  comparativeDate: Nullable(Day),
  ...Generated,
  ...balanceSheetSections(ReportSection),
  totalEquity: Money,
  totalLiabilitiesAndEquity: Money,
  isBalanced: Type.Boolean(),
  ...TranslationFields,
});

export const IncomeStatementReport = Type.Object({
  ...CompanyHeader,
  periodStartDate: Day,
  periodEndDate: Day,
  comparativeStartDate: Nullable(Day),
  comparativeEndDate: Nullable(Day),
  ...Generated,
  ...incomeStatementSections(ReportSection),
  ...TranslationFields,
});

const CashFlowSection = cashFlowSection(Nullable(Id));

export const CashFlowStatementReport = Type.Object({
  ...PeriodHeader,
  method: StringEnum(['indirect'] as const),
  ...cashFlowStatementSections(CashFlowSection),
  ...TranslationFields,
});

export const EquityStatementReport = Type.Object({
  ...PeriodHeader,
  ...equityStatementRows,
  ...TranslationFields,
});

export const GeneralLedgerReport = Type.Object({
  ...CompanyHeader,
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

const AccountNumber = Type.String({ pattern: ACCOUNT_NUMBER_PATTERN, description: 'Account number' });

// ---------------------------------------------------------------------------------------------------
// Query strings (the cross-field checks JSON Schema cannot say are in the routes' handlers)
// ---------------------------------------------------------------------------------------------------

const CommonQuery = {
  organizationId: Uuid,
  companyId: Uuid,
  format: FormatQuery,
};

/** The query of a report at a date. */
const DateQuery = { ...CommonQuery, asOfDate: IsoDate };

const PeriodQuery = Type.Object({
  ...CommonQuery,
  periodStartDate: IsoDate,
  periodEndDate: IsoDate,
});

export const TrialBalanceQuery = Type.Object({
  ...DateQuery,
  periodStartDate: Type.Optional(IsoDate),
  excludeZeroBalances: Type.Optional(Type.Boolean({ default: true })),
  excludeClosingEntries: Type.Optional(Type.Boolean({ default: false })),
  currency: CurrencyParam,
});

export const GeneralLedgerQuery = Type.Object({
  ...CommonQuery,
  accountId: Type.Optional(Uuid),
  accountNumberFrom: Type.Optional(AccountNumber),
  accountNumberTo: Type.Optional(AccountNumber),
  startDate: IsoDate,
  endDate: IsoDate,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  currency: FunctionalCurrencyParam,
});

export const BalanceSheetQuery = Type.Object({
  ...DateQuery,
  comparativeDate: Type.Optional(IsoDate),
  includeZeroBalances: Type.Optional(Type.Boolean({ default: false })),
  currency: CurrencyParam,
});

export const IncomeStatementQuery = Type.Object({
  ...PeriodQuery.properties,
  comparativeStartDate: Type.Optional(IsoDate),
  comparativeEndDate: Type.Optional(IsoDate),
  currency: CurrencyParam,
});

export const CashFlowQuery = Type.Object({
  ...PeriodQuery.properties,
  method: Type.Optional(StringEnum(['indirect'] as const)),
  currency: CurrencyParam,
});

export const EquityStatementQuery = Type.Object({ ...PeriodQuery.properties, currency: CurrencyParam });
