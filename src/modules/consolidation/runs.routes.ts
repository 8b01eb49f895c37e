/** Routes: consolidation runs, their trial balances and the consolidated reports. */
import {
  consolidatedTrialBalanceTable,
  equityStatementTable,
  statementTable,
} from '../../domain/reports/tabular.ts';
import { EXPORT_FORMATS, exportFormat, sendTable } from '../../http/export.ts';
import { findGroup } from './groups.repo.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageParams } from '../../http/pagination.ts';
import { NoContent, responses } from '../../http/responses.ts';
import {
  IsoDate,
  Money,
  Nullable,
  Page,
  PageQuery,
  Percentage,
  PeriodRef,
  Rate,
  StringEnum,
  Timestamp,
  Type,
  Uuid,
} from '../../http/schemas.ts';
import { CONSOLIDATION_METHODS } from './groups.repo.ts';
import { ELIMINATION_TYPES } from './rules.repo.ts';
import { RUN_STATUSES, STEP_STATUSES } from '../../domain/consolidation/run-lifecycle.ts';
import type { RunRow } from './runs.repo.ts';
import { failOrphanedRuns, renewLeases } from './runs.lease.ts';
import * as runs from './runs.service.ts';

// ---------------------------------------------------------------------------------------------------
// Response schemas

const Day = Type.String({ format: 'date', description: 'Date YYYY-MM-DD' });
const StepTypeSchema = StringEnum([
  'Validate',
  'Translate',
  'Aggregate',
  'MatchIC',
  'Eliminate',
  'NCI',
  'GenerateTB',
] as const);
const Method = StringEnum(CONSOLIDATION_METHODS);

const ConsolidationStep = Type.Object({
  stepType: StepTypeSchema,
  status: StringEnum(STEP_STATUSES),
  startedAt: Nullable(Timestamp),
  completedAt: Nullable(Timestamp),
  durationMs: Nullable(Type.Integer()),
  errorMessage: Nullable(Type.String()),
  details: Nullable(Type.String()),
});

const ValidationResult = Type.Object({
  isValid: Type.Boolean(),
  issues: Type.Array(
    Type.Object({
      severity: StringEnum(['Error', 'Warning'] as const),
      code: Type.String(),
      message: Type.String(),
      entityReference: Nullable(Type.String()),
    }),
  ),
});

const RunOptions = Type.Object({
  skipValidation: Type.Boolean(),
  continueOnWarnings: Type.Boolean(),
  includeEquityMethodInvestments: Type.Boolean(),
  forceRegeneration: Type.Boolean(),
  approvedManualRuleIds: Type.Array(Uuid),
});

const RunMember = Type.Object({
  companyId: Uuid,
  companyName: Type.String(),
  role: StringEnum(['Parent', 'Member'] as const),
  consolidationMethod: Method,
  ownershipPercentage: Percentage,
  nonControllingInterestPercentage: Type.String({
    description: '100 − effective ownership for FullConsolidation ("20.00", or 4 decimals where needed)',
  }),
  functionalCurrency: Type.String(),
  included: Type.Boolean({
    description:
      'false for equity-method members when includeEquityMethodInvestments is false, and for members the group acquires after the run date',
  }),
  heldByCompanyId: Nullable(Uuid),
  effectiveOwnershipPercentage: Type.String({ description: 'Product of the direct stakes, 4 decimals' }),
});

const DualAmount = Type.Object({
  functional: Money,
  reporting: Money,
});

const AcquisitionAnalysis = Type.Object(
  {
    companyId: Uuid,
    companyName: Type.String(),
    heldByCompanyId: Nullable(Uuid),
    acquisitionDate: Day,
    groupAcquisitionDate: Type.String({
      format: 'date',
      description: 'The date the group obtained control: the latest acquisition date on the chain of holders',
    }),
    functionalCurrency: Type.String(),
    consolidationMethod: Method,
    nciMeasurement: StringEnum(['Proportionate', 'FairValue'] as const),
    ownershipPercentage: Percentage,
    acquisitionRate: Type.String({
      description: 'Functional → reporting currency at the group acquisition date',
    }),
    closingRate: Rate,
    consideration: DualAmount,
    netAssetsAtAcquisition: DualAmount,
    fairValueAdjustments: DualAmount,
    nciAtAcquisition: DualAmount,
    indirectHoldingAdjustment: Type.Object(
      { functional: Money, reporting: Money },
      {
        description:
          "Held through a holder with outside shareholders, NCI at its proportionate share: those shareholders' share of the consideration (otherwise zero)",
      },
    ),
    goodwill: DualAmount,
    bargainPurchaseGain: DualAmount,
    goodwillAtClosingRate: Money,
    preAcquisitionResultsOfYear: DualAmount,
    entries: Type.Array(
      Type.Object({
        accountNumber: Type.String(),
        companyId: Nullable(Uuid),
        debit: Money,
        credit: Money,
      }),
      { description: 'The elimination the run booked for this acquisition (closing view), balanced' },
    ),
  },
  {
    description:
      'Goodwill = consideration − indirect holding adjustment + NCI at acquisition − (net assets at acquisition + fair-value adjustments), in the member’s functional currency and in the reporting currency at the acquisition-date rate',
  },
);

const EliminationResult = Type.Object({
  eliminationRuleId: Uuid,
  ruleName: Type.String(),
  eliminationType: StringEnum(ELIMINATION_TYPES),
  priority: Type.Integer(),
  status: StringEnum(['Applied', 'Skipped'] as const),
  skipReason: Nullable(
    StringEnum(['TRIGGER_NOT_MET', 'ZERO_AMOUNT', 'ACCOUNT_COMPANY_NOT_CONSOLIDATED'] as const),
  ),
  sourceBalance: Money,
  targetBalance: Money,
  amount: Nullable(Money),
  debitAccountNumber: Type.String(),
  creditAccountNumber: Type.String(),
  intercompanyTransactionIds: Type.Array(Uuid),
  intercompanyDifference: Type.Optional(
    Type.Object(
      { amount: Money, accountNumber: Type.String() },
      {
        description:
          'Only on a reciprocal rule whose residual (|S| − |T|) was within the group tolerance and booked to its intercompany-difference account',
      },
    ),
  ),
});

const RateUsage = Type.Object({
  exchangeRateId: Uuid,
  fromCurrency: Type.String(),
  toCurrency: Type.String(),
  rateType: StringEnum(['Spot', 'Average', 'Historical', 'YearEnd'] as const),
  effectiveDate: Day,
  rate: Rate,
  effectiveRate: Rate,
  derivation: StringEnum(['Direct', 'Inverse', 'Triangulated', 'ComputedAverage'] as const),
  legIds: Type.Array(Uuid),
  purpose: StringEnum(['Closing', 'Average', 'Historical'] as const),
});

const RunTotals = Type.Object({
  totalDebits: Money,
  totalCredits: Money,
  totalEliminations: Money,
  totalNCI: Money,
  netIncome: Money,
  netIncomeAttributableToParent: Money,
  netIncomeAttributableToNCI: Money,
});

export const ConsolidationRun = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  groupId: Uuid,
  periodRef: PeriodRef,
  asOfDate: Day,
  yearStartDate: Day,
  reportingCurrency: Type.String(),
  status: StringEnum(RUN_STATUSES),
  steps: Type.Array(ConsolidationStep),
  validationResult: Nullable(ValidationResult),
  options: RunOptions,
  members: Type.Array(RunMember),
  eliminations: Type.Array(EliminationResult),
  exchangeRatesUsed: Type.Array(RateUsage),
  acquisitionAnalysis: Type.Array(AcquisitionAnalysis, {
    description: 'One per member with acquisition data consolidated in the closing view, in structure order',
  }),
  totals: Nullable(RunTotals),
  initiatedBy: Uuid,
  initiatedAt: Timestamp,
  startedAt: Nullable(Timestamp),
  completedAt: Nullable(Timestamp),
  totalDurationMs: Nullable(Type.Integer()),
  errorMessage: Nullable(Type.String()),
  inputDigest: Type.Optional(
    Nullable(
      Type.String({
        description:
          'SHA-256 of everything a completed run read (figures, rates used, structure, rules, group chart, intercompany transactions, options): equal digests mean identical inputs',
      }),
    ),
  ),
  adjustmentIds: Type.Optional(
    Type.Array(Uuid, {
      description: 'The top-side adjustments the run included (only when it included some)',
    }),
  ),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const EntryLine = Type.Object({
  accountNumber: Type.String(),
  companyId: Nullable(Uuid),
  debit: Money,
  credit: Money,
});
const EliminationJournal = Type.Object({
  runId: Uuid,
  groupId: Uuid,
  currency: Type.String(),
  entries: Type.Array(
    Type.Object({
      source: StringEnum(['Rule', 'Acquisition'] as const),
      eliminationRuleId: Nullable(Uuid),
      ruleName: Nullable(Type.String()),
      companyId: Nullable(Uuid),
      lines: Type.Array(EntryLine),
      totalDebit: Money,
      totalCredit: Money,
    }),
  ),
  totalDebit: Money,
  totalCredit: Money,
  isBalanced: Type.Boolean(),
});
const FieldDifference = Type.Object({
  field: StringEnum([
    'aggregatedBalance',
    'eliminationAmount',
    'adjustmentAmount',
    'nciAmount',
    'consolidatedBalance',
  ] as const),
  value: Type.String(),
  otherValue: Type.String(),
  difference: Type.String({ description: 'value − otherValue' }),
});
const RunComparison = Type.Object({
  runId: Uuid,
  otherRunId: Uuid,
  groupId: Uuid,
  inputDigest: Nullable(Type.String()),
  otherInputDigest: Nullable(Type.String()),
  sameInputs: Type.Boolean(),
  periodRef: PeriodRef,
  otherPeriodRef: PeriodRef,
  differences: Type.Array(
    Type.Object({
      view: StringEnum(['closing', 'opening'] as const),
      accountNumber: Type.String(),
      accountName: Type.String(),
      lineType: Type.String(),
      companyId: Nullable(Uuid),
      currency: Type.String(),
      changes: Type.Array(FieldDifference),
    }),
  ),
});

const ConsolidatedLine = Type.Object({
  accountNumber: Type.String(),
  accountName: Type.String(),
  accountType: StringEnum(['Asset', 'Liability', 'Equity', 'Revenue', 'Expense'] as const),
  accountCategory: Type.String(),
  lineType: StringEnum([
    'Account',
    'RetainedEarnings',
    'CurrencyTranslationAdjustment',
    'NonControllingInterest',
    'EquityMethodInvestment',
    'EquityMethodIncome',
    'EquityMethodReserve',
    'Goodwill',
    'BargainPurchaseGain',
  ] as const),
  companyId: Nullable(Uuid),
  isCashEquivalent: Type.Boolean(),
  cashFlowCategory: Nullable(Type.String()),
  aggregatedBalance: Money,
  eliminationAmount: Money,
  adjustmentAmount: Type.Optional(Money),
  nciAmount: Money,
  consolidatedBalance: Money,
  debitBalance: Money,
  creditBalance: Money,
});

const NciDetail = Type.Object({
  companyId: Uuid,
  companyName: Type.String(),
  nonControllingInterestPercentage: Type.String(),
  netAssets: Money,
  netIncome: Money,
  nciShareOfEquity: Money,
  nciShareOfNetIncome: Money,
});

const ConsolidatedTrialBalance = Type.Object({
  consolidationRunId: Uuid,
  groupId: Uuid,
  view: StringEnum(['closing', 'opening'] as const),
  periodRef: PeriodRef,
  asOfDate: Day,
  yearStartDate: Day,
  currency: Type.String(),
  generatedAt: Timestamp,
  lineItems: Type.Array(ConsolidatedLine),
  totalDebits: Money,
  totalCredits: Money,
  isBalanced: Type.Boolean(),
  totalEliminations: Money,
  totalNCI: Money,
  netIncome: Money,
  netIncomeAttributableToParent: Money,
  netIncomeAttributableToNCI: Money,
  nonControllingInterests: Type.Array(NciDetail),
});

const LineStyle = StringEnum(['Normal', 'Subtotal', 'Total', 'Header'] as const);
const ReportLine = Type.Object({
  accountId: Type.Null(),
  accountNumber: Nullable(Type.String()),
  description: Type.String(),
  currentAmount: Money,
  comparativeAmount: Type.Null(),
  variance: Type.Null(),
  variancePercentage: Type.Null(),
  style: LineStyle,
  indentLevel: Type.Integer({ minimum: 0 }),
});
const ReportSection = Type.Object({
  title: Type.String(),
  lineItems: Type.Array(ReportLine),
  subtotal: Money,
  comparativeSubtotal: Type.Null(),
});
const CashFlowSection = Type.Object({
  title: Type.String(),
  lineItems: Type.Array(
    Type.Object({
      description: Type.String(),
      accountId: Type.Null(),
      accountNumber: Nullable(Type.String()),
      amount: Money,
      style: LineStyle,
      indentLevel: Type.Integer({ minimum: 0 }),
    }),
  ),
  netCashFlow: Money,
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

const ReportHeader = {
  runId: Uuid,
  groupId: Uuid,
  groupName: Type.String(),
};
const PeriodHeader = {
  periodRef: PeriodRef,
  periodStartDate: Day,
  periodEndDate: Day,
  currency: Type.String(),
  generatedAt: Timestamp,
};

const ConsolidatedBalanceSheet = Type.Object({
  ...ReportHeader,
  asOfDate: Day,
  currency: Type.String(),
  generatedAt: Timestamp,
  currentAssets: ReportSection,
  nonCurrentAssets: ReportSection,
  totalAssets: Money,
  currentLiabilities: ReportSection,
  nonCurrentLiabilities: ReportSection,
  totalLiabilities: Money,
  equity: ReportSection,
  nonControllingInterest: Money,
  totalEquity: Money,
  totalLiabilitiesAndEquity: Money,
  isBalanced: Type.Boolean(),
});

const ConsolidatedIncomeStatement = Type.Object({
  ...ReportHeader,
  ...PeriodHeader,
  revenue: ReportSection,
  costOfSales: ReportSection,
  grossProfit: Money,
  operatingExpenses: ReportSection,
  operatingIncome: Money,
  otherIncomeExpense: ReportSection,
  incomeBeforeTax: Money,
  taxExpense: Money,
  netIncome: Money,
  netIncomeAttributableToParent: Money,
  netIncomeAttributableToNCI: Money,
});

const ConsolidatedCashFlowStatement = Type.Object({
  ...ReportHeader,
  ...PeriodHeader,
  method: Type.Literal('indirect'),
  beginningCash: Money,
  operatingActivities: CashFlowSection,
  investingActivities: CashFlowSection,
  financingActivities: CashFlowSection,
  exchangeRateEffect: Money,
  netChangeInCash: Money,
  endingCash: Money,
  isReconciled: Type.Boolean(),
});

const ConsolidatedEquityStatement = Type.Object({
  ...ReportHeader,
  ...PeriodHeader,
  openingBalances: EquityRow,
  movements: Type.Array(EquityRow),
  closingBalances: EquityRow,
});

// ---------------------------------------------------------------------------------------------------
// Request schemas

const OptionFields = {
  skipValidation: Type.Optional(Type.Boolean()),
  continueOnWarnings: Type.Optional(Type.Boolean()),
  includeEquityMethodInvestments: Type.Optional(Type.Boolean()),
  forceRegeneration: Type.Optional(Type.Boolean()),
  approvedManualRuleIds: Type.Optional(Type.Array(Uuid, { maxItems: 1000 })),
};

const StartRunBody = Type.Object({
  periodRef: PeriodRef,
  asOfDate: Type.Optional(Nullable(IsoDate)),
  initiatedBy: Type.Optional(Nullable(Uuid)),
  ...OptionFields,
  options: Type.Optional(
    Type.Object(OptionFields, {
      description: 'The five option fields may also be sent here; a top-level field wins.',
    }),
  ),
});

const ContributionItem = Type.Object({
  source: StringEnum(['Account', 'PriorYearResults', 'YearResults', 'TranslationDifference'] as const, {
    description:
      "Account: a balance of the line's account; PriorYearResults: revenue and expense of earlier years (retained earnings); YearResults: revenue and expense of the year folded into retained earnings (opening view); TranslationDifference: the company's currency translation difference",
  }),
  accountNumber: Type.String({
    description: 'the account the item was booked on before it reached the line',
  }),
  basis: Nullable(
    StringEnum(['Closing', 'Historical', 'Average', 'None'] as const, {
      description:
        'Closing rate (monetary balances), Historical rates of the transaction dates (equity, non-monetary), Average rates of the group periods (revenue, expense), None (already in the reporting currency)',
    }),
  ),
  functionalBalance: Nullable(Money),
  rates: Type.Array(
    Type.Object({
      rate: Rate,
      appliedFor: Type.String({
        description: 'the first date (or group period start..end) the rate was applied for',
      }),
    }),
    { description: 'the distinct rates applied, functional to reporting currency (at most 12)' },
  ),
  ratesOmitted: Type.Integer({
    minimum: 0,
    description: 'further distinct rates applied that rates does not list',
  }),
  translatedAmount: Money,
});
const LineContributionsSchema = Type.Object({
  lineId: Type.String(),
  accountNumber: Type.String(),
  lineType: Type.String(),
  companyId: Nullable(Uuid),
  aggregatedBalance: Money,
  eliminationAmount: Money,
  adjustmentAmount: Money,
  nciAmount: Money,
  consolidatedBalance: Money,
  companies: Type.Array(
    Type.Object({
      companyId: Uuid,
      companyName: Type.String(),
      consolidationMethod: StringEnum(CONSOLIDATION_METHODS),
      functionalCurrency: Type.String(),
      weight: Type.String({
        description:
          'the weight applied to its translated amounts: 1 fully consolidated, the stake (0–1) proportionately consolidated or equity method',
      }),
      items: Type.Array(ContributionItem),
      amount: Money,
    }),
  ),
  eliminations: Type.Array(
    Type.Object({
      source: StringEnum(['Rule', 'Acquisition'] as const),
      eliminationRuleId: Nullable(Uuid),
      ruleName: Nullable(Type.String()),
      companyId: Nullable(Uuid),
      amount: Money,
    }),
  ),
  adjustments: Type.Array(Type.Object({ adjustmentId: Uuid, companyId: Nullable(Uuid), amount: Money })),
  nci: Money,
  unattributed: Type.Object(
    { aggregated: Money, elimination: Money, adjustment: Money },
    {
      description:
        'what no company, entry or adjustment accounts for; zero unless acquisition accounting booked it',
    },
  ),
  addsUp: Type.Boolean({
    description:
      'the pieces add up exactly to aggregatedBalance, eliminationAmount, adjustmentAmount, nciAmount and consolidatedBalance',
  }),
});
const LineContributionsReport = Type.Object({
  consolidationRunId: Uuid,
  groupId: Uuid,
  view: StringEnum(['closing', 'opening'] as const),
  accountNumber: Type.String(),
  currency: Type.String(),
  lines: Type.Array(LineContributionsSchema),
});

const runPath = {
  id: { tag: 'ConsolidationRunNotFoundError', field: 'runId', message: 'Consolidation run not found' },
};
const groupPath = {
  groupId: {
    tag: 'ConsolidationGroupNotFoundError',
    field: 'consolidationGroupId',
    message: 'Consolidation group not found',
  },
};
const IdParams = Type.Object({ id: Type.String() });
const ExportFormatQuery = Type.Optional(
  StringEnum(EXPORT_FORMATS, {
    description:
      'Answer format: `json` (default), `csv` or `xlsx`; without it the Accept header chooses ' +
      '(`text/csv`, `application/vnd.openxmlformats-officedocument.spreadsheetml.sheet`).',
  }),
);
const GroupParams = Type.Object({ groupId: Type.String() });
const OrgQuery = Type.Object({ organizationId: Type.Optional(Uuid) });
const tags = ['Consolidation runs'];

/** True when the `Prefer` header asks for `respond-async` (RFC 7240 token, case-insensitive). */
export function prefersAsync(header: string | string[] | undefined): boolean {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return values.some((v) =>
    v.split(',').some((p) => p.split(';')[0]!.trim().toLowerCase() === 'respond-async'),
  );
}

const REPORTS: Array<{ path: runs.ReportKind; summary: string; description: string; schema: unknown }> = [
  {
    path: 'balance-sheet',
    summary: 'Consolidated balance sheet',
    description:
      'Viewer. Closing view of a Completed run: sections by category, equity with "Current Year Earnings" (attributable to the parent), non-controlling interest, totals; groupName is the group\'s current name. 409 ConsolidationRunNotCompletedError unless Completed.',
    schema: ConsolidatedBalanceSheet,
  },
  {
    path: 'income-statement',
    summary: 'Consolidated income statement',
    description:
      'Viewer. Year-to-date revenue and expense lines of the closing view, net income split between the parent and non-controlling interest. 409 unless Completed.',
    schema: ConsolidatedIncomeStatement,
  },
  {
    path: 'cash-flow',
    summary: 'Consolidated cash-flow statement',
    description:
      'Viewer. Indirect method over the change from the opening to the closing view; the change of the CTA line is the exchange-rate effect. Always reconciles. 409 unless Completed.',
    schema: ConsolidatedCashFlowStatement,
  },
  {
    path: 'equity-statement',
    summary: 'Consolidated statement of changes in equity',
    description:
      'Viewer. Opening balances from the opening view, closing balances from the closing view, movements by type, with a non-controlling-interest column. 409 unless Completed.',
    schema: ConsolidatedEquityStatement,
  },
];

export const consolidationRunRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.deps;
  const log = app.log;

  // Background executions of this app instance: awaited on close, so no run outlives the database.
  const inflight = new Set<Promise<void>>();
  // The runs this process executes or has queued: their leases are renewed (runs.lease.ts).
  const leaseMs = app.deps.runLeaseMs;
  const held = new Set<string>();
  const execute = async (run: RunRow) => {
    held.add(run.id);
    try {
      await runs.executeRun(db, run, log, leaseMs);
    } finally {
      held.delete(run.id);
    }
  };
  const schedule = async (run: RunRow) => {
    held.add(run.id);
    const task: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => execute(run))
      .catch((err: unknown) => log.error({ err, runId: run.id }, 'background consolidation run crashed'))
      .finally(() => {
        inflight.delete(task);
      });
    inflight.add(task);
  };
  const heartbeat = setInterval(
    () => {
      renewLeases(db, [...held], leaseMs).catch((err: unknown) =>
        log.warn({ err }, 'could not renew the leases of consolidation runs'),
      );
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  heartbeat.unref();
  // Runs orphaned by a process that stopped: at start-up, then every half lease.
  let sweeping: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    sweeping = failOrphanedRuns(db)
      .then((ids) => {
        if (ids.length > 0)
          log.warn({ runIds: ids }, 'consolidation runs orphaned by a stopped process marked Failed');
      })
      .catch((err: unknown) => log.warn({ err }, 'could not check for orphaned consolidation runs'));
  };
  const sweeper = setInterval(sweep, Math.max(100, Math.floor(leaseMs / 2)));
  sweeper.unref();
  app.addHook('onReady', async () => {
    sweep();
    await sweeping;
  });
  app.addHook('onClose', async () => {
    clearInterval(heartbeat);
    clearInterval(sweeper);
    await Promise.allSettled([...inflight, sweeping]);
  });

  app.get(
    '/api/v1/consolidation/runs',
    {
      schema: {
        tags,
        summary: 'List consolidation runs',
        description:
          'Viewer. Without organizationId: runs of every organization of the caller. Filters: groupId (404 ConsolidationGroupNotFoundError when it is not a group of that organization), status, year, period. Ordered by initiatedAt descending, then id. Runs are returned without their trial balances.',
        querystring: Type.Object({
          organizationId: Type.Optional(Uuid),
          groupId: Type.Optional(Uuid),
          status: Type.Optional(StringEnum(RUN_STATUSES)),
          year: Type.Optional(Type.Integer({ minimum: 1900, maximum: 2999 })),
          period: Type.Optional(Type.Integer({ minimum: 1, maximum: 13 })),
          ...PageQuery,
        }),
        response: responses({ 200: Page('runs', ConsolidationRun) }),
      },
    },
    async (request) =>
      runs.listRuns(
        db,
        request.access,
        {
          organizationId: request.query.organizationId,
          groupId: request.query.groupId,
          status: request.query.status,
          year: request.query.year,
          period: request.query.period,
        },
        pageParams(request.query),
      ),
  );

  app.get(
    '/api/v1/consolidation/runs/:id',
    {
      config: { pathIds: runPath },
      schema: {
        tags,
        summary: 'Get a consolidation run',
        description:
          'Viewer. The run with its steps, validation result, members snapshot, eliminations, rates used and totals (without trial balances). Poll this endpoint for runs started asynchronously.',
        params: IdParams,
        querystring: OrgQuery,
        response: responses({ 200: ConsolidationRun }),
      },
    },
    async (request) => runs.getRun(db, request.access, request.params.id, request.query.organizationId),
  );

  app.post(
    '/api/v1/consolidation/groups/:groupId/runs',
    {
      config: { pathIds: groupPath },
      schema: {
        tags,
        summary: 'Start a consolidation run',
        description:
          "Admin. Consolidates the group for one period of its calendar (the parent's fiscal year end). Checks, in order: group exists, membership, role, group active (400 ConsolidationGroupInactiveError), asOfDate within the period (400 at /asOfDate), initiatedBy an admin or owner (400), approvedManualRuleIds active manual rules of the group (400 EliminationRuleOperationFailedError), no Pending/InProgress run for the period (409 ConsolidationRunInProgressError), no Completed run unless forceRegeneration (409 ConsolidationRunExistsForPeriodError). By default the run executes before the response (201 with status Completed or Failed). With `Prefer: respond-async` the response is 201 with status Pending and `Preference-Applied: respond-async`; poll GET /api/v1/consolidation/runs/{id}. Options may be sent flat or inside `options` (top-level wins).",
        params: GroupParams,
        querystring: OrgQuery,
        headers: Type.Object({
          prefer: Type.Optional(Type.String({ description: '`respond-async` to execute in the background' })),
        }),
        body: StartRunBody,
        response: responses({ 201: ConsolidationRun }),
      },
    },
    async (request, reply) => {
      const async = prefersAsync(request.headers.prefer);
      const record = await runs.startRun(
        db,
        request.access,
        request.params.groupId,
        request.query.organizationId,
        request.body,
        { async, execute, schedule, leaseMs },
      );
      if (async) reply.header('preference-applied', 'respond-async');
      return reply.code(201).send(record);
    },
  );

  app.post(
    '/api/v1/consolidation/runs/:id/cancel',
    {
      config: { pathIds: runPath },
      schema: {
        tags,
        summary: 'Cancel a consolidation run',
        description:
          'Admin. Pending or InProgress → Cancelled (completedAt now; unfinished steps Skipped); execution stops at the next step boundary and writes no results. Otherwise 400 ConsolidationRunCannotBeCancelledError.',
        params: IdParams,
        querystring: OrgQuery,
        response: responses({ 200: ConsolidationRun }),
      },
    },
    async (request) => runs.cancelRun(db, request.access, request.params.id, request.query.organizationId),
  );

  app.delete(
    '/api/v1/consolidation/runs/:id',
    {
      config: { pathIds: runPath },
      schema: {
        tags,
        summary: 'Delete a consolidation run',
        description:
          'Admin. Deletes a Pending (cancelled first), Failed or Cancelled run. Completed and InProgress runs: 409 ConsolidationRunCannotBeDeletedError.',
        params: IdParams,
        querystring: OrgQuery,
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      await runs.deleteRun(db, request.access, request.params.id, request.query.organizationId);
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/v1/consolidation/groups/:groupId/latest-run',
    {
      config: { pathIds: groupPath },
      schema: {
        tags,
        summary: 'Latest completed run of a group',
        description:
          "Viewer. The group's Completed run with the latest completedAt, or the JSON value `null` when it has none.",
        params: GroupParams,
        querystring: OrgQuery,
        response: responses({
          200: Type.Union([ConsolidationRun, Type.Null()], {
            description: 'The run, or null when the group has no completed run',
          }),
        }),
      },
    },
    async (request, reply) => {
      const run = await runs.latestRun(
        db,
        request.access,
        request.params.groupId,
        request.query.organizationId,
      );
      return reply
        .code(200)
        .type('application/json; charset=utf-8')
        .send(run === null ? 'null' : run);
    },
  );

  app.get(
    '/api/v1/consolidation/runs/:id/trial-balance',
    {
      config: { pathIds: runPath },
      schema: {
        tags,
        summary: 'Consolidated trial balance of a run',
        description:
          'Viewer. view=closing (default; as of asOfDate) or view=opening (as of the day before yearStartDate). 409 ConsolidationRunNotCompletedError unless the run is Completed. In a run that included top-side adjustments every line also carries adjustmentAmount (consolidatedBalance = aggregatedBalance + eliminationAmount + adjustmentAmount + nciAmount).',
        params: IdParams,
        querystring: Type.Object({
          organizationId: Type.Optional(Uuid),
          view: Type.Optional(StringEnum(['closing', 'opening'] as const)),
          format: ExportFormatQuery,
        }),
        response: responses({ 200: ConsolidatedTrialBalance }),
      },
    },
    async (request, reply) => {
      const report = await runs.trialBalance(
        db,
        request.access,
        request.params.id,
        request.query.organizationId,
        request.query.view ?? 'closing',
      );
      const format = exportFormat(request, request.query.format);
      if (format === 'json') return report;
      const group = await findGroup(db, report.groupId);
      const table = consolidatedTrialBalanceTable('Consolidated trial balance', report as never);
      return sendTable(reply, format, table, [
        group?.name ?? report.groupId,
        'consolidated-trial-balance',
        report.asOfDate,
      ]);
    },
  );

  app.get(
    '/api/v1/consolidation/runs/:id/trial-balance/lines/:accountNumber/contributions',
    {
      config: { pathIds: runPath },
      schema: {
        tags,
        summary: 'Contributions to a consolidated line',
        description:
          'Viewer. Where one line of the trial balance comes from, as the run recorded it: per company its translated items (functional balance, the basis and rate(s) applied, the translated amount), its weight and its weighted amount; each elimination entry touching the line (rule id and name, or acquisition, with the amount); each top-side adjustment (id, amount); and the non-controlling interest moved. The pieces add up exactly: Σ companies = aggregatedBalance, Σ eliminations = eliminationAmount, Σ adjustments = adjustmentAmount, nci = nciAmount, and together consolidatedBalance (an unattributed part, zero unless acquisition accounting booked on the line, completes them). view=closing (default) or opening, as for the trial balance. lines holds every line with that account number (one, or one per investee for the equity-method lines). 404 ConsolidatedLineNotFoundError when the view has no such line; 409 ConsolidationRunNotCompletedError unless Completed; 409 ContributionsNotRecordedError for a run completed before contributions were recorded.',
        params: Type.Object({
          id: Type.String(),
          accountNumber: Type.String({ minLength: 1, maxLength: 100 }),
        }),
        querystring: Type.Object({
          organizationId: Type.Optional(Uuid),
          view: Type.Optional(StringEnum(['closing', 'opening'] as const)),
        }),
        response: responses({ 200: LineContributionsReport }),
      },
    },
    async (request) =>
      runs.lineContributions(
        db,
        request.access,
        request.params.id,
        request.query.organizationId,
        request.query.view ?? 'closing',
        request.params.accountNumber,
      ),
  );

  app.get(
    '/api/v1/consolidation/runs/:id/elimination-entries',
    {
      config: { pathIds: runPath },
      schema: {
        tags,
        summary: 'Elimination journal of a run',
        description:
          'Viewer. The closing view’s eliminations as balanced journal entries: one per applied rule (its debit and credit account, and the intercompany-difference lines it booked) in processing order, then one per acquisition elimination. 409 unless the run is Completed.',
        params: IdParams,
        querystring: OrgQuery,
        response: responses({ 200: EliminationJournal }),
      },
    },
    async (request) =>
      runs.eliminationEntries(db, request.access, request.params.id, request.query.organizationId),
  );

  app.get(
    '/api/v1/consolidation/runs/:id/compare',
    {
      config: { pathIds: runPath },
      schema: {
        tags,
        summary: 'Compare two runs',
        description:
          'Viewer. Line-by-line differences (balances and each component) between this run and otherRunId, both completed runs of the same group, in both views; lines without differences are left out. A rerun over unchanged inputs answers no differences and sameInputs true.',
        params: IdParams,
        querystring: Type.Object({ organizationId: Type.Optional(Uuid), otherRunId: Uuid }),
        response: responses({ 200: RunComparison }),
      },
    },
    async (request) =>
      runs.compareRuns(
        db,
        request.access,
        request.params.id,
        request.query.otherRunId,
        request.query.organizationId,
      ),
  );

  for (const r of REPORTS) {
    app.get(
      `/api/v1/consolidation/runs/:id/reports/${r.path}`,
      {
        config: { pathIds: runPath },
        schema: {
          tags,
          summary: r.summary,
          description: r.description,
          params: IdParams,
          querystring: Type.Object({ organizationId: Type.Optional(Uuid), format: ExportFormatQuery }),
          response: responses({ 200: r.schema as typeof ConsolidatedBalanceSheet }),
        },
      },
      async (request, reply) => {
        const report = await runs.report(
          db,
          request.access,
          request.params.id,
          request.query.organizationId,
          r.path,
        );
        const format = exportFormat(request, request.query.format);
        if (format === 'json') return report;
        const json = report as unknown as Record<string, unknown>;
        const title = r.summary;
        const table =
          r.path === 'equity-statement' ? equityStatementTable(title, json) : statementTable(title, json);
        const date = String(json.asOfDate ?? json.periodEndDate);
        return sendTable(reply, format, table, [String(json.groupName), `consolidated-${r.path}`, date]);
      },
    );
  }
};
