/** Schemas of the consolidation run routes: runs, their trial balances, reports and contributions. */
import {
  IsoDate,
  Money,
  Nullable,
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
import { RUN_STATUSES, STEP_STATUSES } from '../../domain/consolidation/run-lifecycle.ts';
import { STEP_TYPES } from '../../domain/consolidation/types.ts';

// ---------------------------------------------------------------------------------------------------
// Response schemas

const StepTypeSchema = StringEnum(STEP_TYPES);
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
/** What an elimination comes from: a rule (its id and name) or an acquisition (of the member named). */
const EliminationSource = {
  source: StringEnum(['Rule', 'Acquisition'] as const),
  eliminationRuleId: Nullable(Uuid),
  ruleName: Nullable(Type.String()),
  companyId: Nullable(Uuid),
};
export const EliminationJournal = Type.Object({
  runId: Uuid,
  groupId: Uuid,
  currency: Type.String(),
  entries: Type.Array(
    Type.Object({
      ...EliminationSource,
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
export const RunComparison = Type.Object({
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

export const ConsolidatedTrialBalance = Type.Object({
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

const ReportLine = statementLine({
  accountId: Type.Null(),
  comparativeAmount: Type.Null(),
  variance: Type.Null(),
  variancePercentage: Type.Null(),
});
const ReportSection = statementSection(ReportLine, Type.Null());
const CashFlowSection = cashFlowSection(Type.Null());

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

export const ConsolidatedBalanceSheet = Type.Object({
  ...ReportHeader,
  asOfDate: Day,
  currency: Type.String(),
  generatedAt: Timestamp,
  ...balanceSheetSections(ReportSection),
  nonControllingInterest: Money,
  totalEquity: Money,
  totalLiabilitiesAndEquity: Money,
  isBalanced: Type.Boolean(),
});

export const ConsolidatedIncomeStatement = Type.Object({
  ...ReportHeader,
  ...PeriodHeader,
  ...incomeStatementSections(ReportSection),
  netIncomeAttributableToParent: Money,
  netIncomeAttributableToNCI: Money,
});

export const ConsolidatedCashFlowStatement = Type.Object({
  ...ReportHeader,
  ...PeriodHeader,
  method: Type.Literal('indirect'),
  ...cashFlowStatementSections(CashFlowSection),
});

export const ConsolidatedEquityStatement = Type.Object({
  ...ReportHeader,
  ...PeriodHeader,
  ...equityStatementRows,
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

export const StartRunBody = Type.Object({
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
      ...EliminationSource,
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
export const LineContributionsReport = Type.Object({
  consolidationRunId: Uuid,
  groupId: Uuid,
  view: StringEnum(['closing', 'opening'] as const),
  accountNumber: Type.String(),
  currency: Type.String(),
  lines: Type.Array(LineContributionsSchema),
});
