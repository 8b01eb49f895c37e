/** Company reports (contract 3.13): trial balance, balance sheet, income statement, cash flow, equity. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ValidationError } from '../../domain/errors.ts';
import { responses } from '../../http/responses.ts';
import {
  IsoDate,
  Money,
  Nullable,
  Percentage,
  StringEnum,
  Timestamp,
  Type,
  Uuid,
} from '../../http/schemas.ts';
import * as reports from './service.ts';

// ---------------------------------------------------------------------------------------------------
// Response schemas
// ---------------------------------------------------------------------------------------------------

const LineStyle = StringEnum(['Normal', 'Subtotal', 'Total', 'Header'] as const);
const Id = Type.String({ description: 'UUID' });
const Day = Type.String({ format: 'date', description: 'Date YYYY-MM-DD' });

const ReportLine = Type.Object({
  accountId: Nullable(Id),
  accountNumber: Nullable(Type.String()),
  description: Type.String(),
  currentAmount: Money,
  comparativeAmount: Nullable(Money),
  variance: Nullable(Money),
  variancePercentage: Nullable(Percentage),
  style: LineStyle,
  indentLevel: Type.Integer({ minimum: 0 }),
});

const ReportSection = Type.Object({
  title: Type.String(),
  lineItems: Type.Array(ReportLine),
  subtotal: Money,
  comparativeSubtotal: Nullable(Money),
});

const TrialBalanceReport = Type.Object({
  companyId: Id,
  asOfDate: Day,
  periodStartDate: Nullable(Day),
  currency: Type.String(),
  generatedAt: Timestamp,
  lineItems: Type.Array(
    Type.Object({
      accountId: Id,
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
});

const BalanceSheetReport = Type.Object({
  companyId: Id,
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
});

const IncomeStatementReport = Type.Object({
  companyId: Id,
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
});

const CashFlowSection = Type.Object({
  title: Type.String(),
  lineItems: Type.Array(
    Type.Object({
      description: Type.String(),
      accountId: Nullable(Id),
      accountNumber: Nullable(Type.String()),
      amount: Money,
      style: LineStyle,
      indentLevel: Type.Integer({ minimum: 0 }),
    }),
  ),
  netCashFlow: Money,
});

const CashFlowStatementReport = Type.Object({
  companyId: Id,
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
});

const EquityRow = Type.Object({
  movementType: StringEnum([
    'OpeningBalance',
    'NetIncome',
    'OtherComprehensiveIncome',
    'DividendsDeclared',
    'StockIssuance',
    'StockRepurchase',
    'Other',
    'ClosingBalance',
  ] as const),
  description: Type.String(),
  contributedCapital: Money,
  retainedEarnings: Money,
  treasuryStock: Money,
  accumulatedOCI: Money,
  nonControllingInterest: Money,
  total: Money,
});

const EquityStatementReport = Type.Object({
  companyId: Id,
  periodStartDate: Day,
  periodEndDate: Day,
  currency: Type.String(),
  generatedAt: Timestamp,
  openingBalances: EquityRow,
  movements: Type.Array(EquityRow),
  closingBalances: EquityRow,
});

// ---------------------------------------------------------------------------------------------------
// Query schemas and step-5 cross-field checks
// ---------------------------------------------------------------------------------------------------

const CommonQuery = {
  organizationId: Uuid,
  companyId: Uuid,
  format: Type.Optional(StringEnum(['json'] as const, { description: 'Only `json` is offered' })),
};

const PeriodQuery = Type.Object({
  ...CommonQuery,
  periodStartDate: IsoDate,
  periodEndDate: IsoDate,
});

const tags = ['Company reports'];
const ERRORS = 'Errors: 404 OrganizationNotFoundError; 404 CompanyNotFoundError {companyId}.';

export const reportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.deps;

  app.get(
    '/api/v1/reports/trial-balance',
    {
      schema: {
        tags,
        summary: 'Trial balance',
        description:
          'Viewer. Cumulative balances at `asOfDate`, or activity from `periodStartDate` to `asOfDate`; ' +
          '`excludeClosingEntries=true` gives a pre-closing trial balance. ' +
          '400 InvalidReportPeriodError {periodStart, periodEnd} when periodStartDate > asOfDate. ' +
          ERRORS,
        querystring: Type.Object({
          ...CommonQuery,
          asOfDate: IsoDate,
          periodStartDate: Type.Optional(IsoDate),
          excludeZeroBalances: Type.Optional(Type.Boolean({ default: true })),
          excludeClosingEntries: Type.Optional(Type.Boolean({ default: false })),
        }),
        response: responses({ 200: TrialBalanceReport }),
      },
    },
    async (request) => {
      const q = request.query;
      if (q.periodStartDate !== undefined) reports.checkPeriod(q.periodStartDate, q.asOfDate);
      return reports.trialBalance(db, request.access, {
        organizationId: q.organizationId,
        companyId: q.companyId,
        asOfDate: q.asOfDate,
        periodStartDate: q.periodStartDate ?? null,
        excludeZeroBalances: q.excludeZeroBalances ?? true,
        excludeClosingEntries: q.excludeClosingEntries ?? false,
      });
    },
  );

  app.get(
    '/api/v1/reports/balance-sheet',
    {
      schema: {
        tags,
        summary: 'Balance sheet',
        description:
          'Viewer. Balances at `asOfDate` (and `comparativeDate`), with "Current Year Earnings" and, ' +
          'when non-zero, "Unclosed Earnings of Prior Years" in equity. ' +
          ERRORS,
        querystring: Type.Object({
          ...CommonQuery,
          asOfDate: IsoDate,
          comparativeDate: Type.Optional(IsoDate),
          includeZeroBalances: Type.Optional(Type.Boolean({ default: false })),
        }),
        response: responses({ 200: BalanceSheetReport }),
      },
    },
    async (request) => {
      const q = request.query;
      return reports.balanceSheet(db, request.access, {
        organizationId: q.organizationId,
        companyId: q.companyId,
        asOfDate: q.asOfDate,
        comparativeDate: q.comparativeDate ?? null,
        includeZeroBalances: q.includeZeroBalances ?? false,
      });
    },
  );

  app.get(
    '/api/v1/reports/income-statement',
    {
      schema: {
        tags,
        summary: 'Income statement',
        description:
          'Viewer. Activity in the period excluding closing-related entries; comparative dates both ' +
          'or neither (400 ValidationError). 400 InvalidReportPeriodError {periodStart, periodEnd} when ' +
          'a start date is later than its end date. ' +
          ERRORS,
        querystring: Type.Object({
          ...CommonQuery,
          periodStartDate: IsoDate,
          periodEndDate: IsoDate,
          comparativeStartDate: Type.Optional(IsoDate),
          comparativeEndDate: Type.Optional(IsoDate),
        }),
        response: responses({ 200: IncomeStatementReport }),
      },
    },
    async (request) => {
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
      return reports.incomeStatement(db, request.access, {
        organizationId: q.organizationId,
        companyId: q.companyId,
        periodStartDate: q.periodStartDate,
        periodEndDate: q.periodEndDate,
        comparativeStartDate: cs ?? null,
        comparativeEndDate: ce ?? null,
      });
    },
  );

  app.get(
    '/api/v1/reports/cash-flow',
    {
      schema: {
        tags,
        summary: 'Cash-flow statement (indirect method)',
        description:
          'Viewer. Excludes closing-related entries. `method` accepts only `indirect`. ' +
          '400 InvalidReportPeriodError {periodStart, periodEnd} when periodStartDate > periodEndDate. ' +
          ERRORS,
        querystring: Type.Object({
          ...PeriodQuery.properties,
          method: Type.Optional(StringEnum(['indirect'] as const)),
        }),
        response: responses({ 200: CashFlowStatementReport }),
      },
    },
    async (request) => {
      const q = request.query;
      reports.checkPeriod(q.periodStartDate, q.periodEndDate);
      return reports.cashFlow(db, request.access, {
        organizationId: q.organizationId,
        companyId: q.companyId,
        periodStartDate: q.periodStartDate,
        periodEndDate: q.periodEndDate,
      });
    },
  );

  app.get(
    '/api/v1/reports/equity-statement',
    {
      schema: {
        tags,
        summary: 'Statement of changes in equity',
        description:
          'Viewer. Opening and closing balances by equity column; movements exclude closing-related ' +
          'entries. 400 InvalidReportPeriodError {periodStart, periodEnd} when periodStartDate > ' +
          'periodEndDate. ' +
          ERRORS,
        querystring: PeriodQuery,
        response: responses({ 200: EquityStatementReport }),
      },
    },
    async (request) => {
      const q = request.query;
      reports.checkPeriod(q.periodStartDate, q.periodEndDate);
      return reports.equityStatement(db, request.access, {
        organizationId: q.organizationId,
        companyId: q.companyId,
        periodStartDate: q.periodStartDate,
        periodEndDate: q.periodEndDate,
      });
    },
  );
};
