/**
 * Input and output types of the pure consolidation engine.
 *
 * The engine does no I/O. A loader reads, in one consistent database snapshot, the figures described
 * below (aggregates of the balance table, never individual journal lines) and a `RateProvider` that
 * resolves rates in memory with the common procedure.
 */
import type { AccountCategory, AccountType, CashFlowCategory } from '../accounts.ts';
import type { Decimal, DecimalInput, Money } from '../money.ts';
import type { RateDerivation, RateType } from '../rates.ts';
import type { LineContributions } from './contributions.ts';
import type { GroupChartInput } from './group-chart.ts';

export const CONSOLIDATION_METHODS = [
  'FullConsolidation',
  'ProportionateConsolidation',
  'EquityMethod',
] as const;
export type ConsolidationMethod = (typeof CONSOLIDATION_METHODS)[number];
export const ELIMINATION_TYPES = [
  'IntercompanyReceivablesPayables',
  'IntercompanySales',
  'IntercompanyProfit',
  'IntercompanyDividends',
  'IntercompanyInvestment',
  'Custom',
] as const;
export type EliminationType = (typeof ELIMINATION_TYPES)[number];
export const INTERCOMPANY_TRANSACTION_TYPES = [
  'Sale',
  'Service',
  'Loan',
  'Dividend',
  'Royalty',
  'ManagementFee',
  'Other',
] as const;
export type IntercompanyTransactionType = (typeof INTERCOMPANY_TRANSACTION_TYPES)[number];
export const MATCHING_STATUSES = ['Unmatched', 'Matched', 'PartiallyMatched', 'VarianceApproved'] as const;
export type MatchingStatus = (typeof MATCHING_STATUSES)[number];
export type { RateDerivation, RateType };
export type RatePurpose = 'Closing' | 'Average' | 'Historical';

export const STEP_TYPES = [
  'Validate',
  'Translate',
  'Aggregate',
  'MatchIC',
  'Eliminate',
  'NCI',
  'GenerateTB',
] as const;
export type StepType = (typeof STEP_TYPES)[number];

export interface PeriodRef {
  year: number;
  period: number;
}

/** One period of the group calendar (the parent's fiscal year end). */
export interface GroupPeriod {
  year: number;
  period: number;
  startDate: string;
  endDate: string;
}

// ---------------------------------------------------------------------------------------------
// Input
// ---------------------------------------------------------------------------------------------

/** An account of a company (every account of the company, with or without ledger figures). */
export interface AccountInfo {
  accountNumber: string;
  name: string;
  accountType: AccountType;
  accountCategory: AccountCategory;
  isCashEquivalent: boolean;
  /** as stored: `null` = the default */
  cashFlowCategory: CashFlowCategory | null;
  isNonMonetary: boolean;
}

/** The parent or a member of the group, with the facts Validate needs. */
export interface CompanyInput {
  companyId: string;
  companyName: string;
  functionalCurrency: string;
  isActive: boolean;
  role: 'Parent' | 'Member';
  /** `FullConsolidation` for the parent */
  consolidationMethod: ConsolidationMethod;
  /** 0–100 (`"80.00"`); 100 for the parent */
  ownershipPercentage: DecimalInput;
  /** account number of the company's `retainedEarningsAccountId` (only the parent's is used), or null */
  retainedEarningsAccountNumber: string | null;
  accounts: AccountInfo[];
  /** status of the company's own fiscal period (1–12) containing the run's `asOfDate`; null = missing */
  fiscalPeriodStatus: 'Open' | 'Closed' | null;
  /** entries in Draft, PendingApproval or Approved dated on or before the run's `asOfDate` */
  unpostedEntryCount: number;
  /**
   * Informational unless the member carries `acquisition` (then the date control was obtained: lines
   * dated before it are pre-acquisition).
   */
  acquisitionDate?: string | null;
  /** the holding company (a member of the group); null or absent = the parent */
  heldByCompanyId?: string | null;
  /** acquisition data (members only): the run derives the investment elimination from it */
  acquisition?: AcquisitionInput | null;
}

/** An amount with its currency (consideration, fair value of the non-controlling interest). */
export interface AmountInput {
  amount: DecimalInput;
  currency: string;
}

/**
 * Acquisition data of a member (business combination accounting): the consideration the holder
 * paid (in the holder's functional currency), the holder's investment account that carries it, how
 * the non-controlling interest is measured at acquisition, fair-value adjustments of the member's
 * identifiable assets and liabilities, and where goodwill is presented.
 */
export interface AcquisitionInput {
  consideration: AmountInput;
  /** the holder's account that carries the investment (company = the holder) */
  investmentAccount: AccountRef;
  nciMeasurement: 'Proportionate' | 'FairValue';
  /** required for FairValue; in the member's or the holder's functional currency */
  nciFairValue: AmountInput | null;
  /** adjustments of the member's accounts to fair value, debit-positive, in its functional currency */
  fairValueAdjustments: { accountNumber: string; amount: DecimalInput }[];
  /** account number of the goodwill line; null = a synthetic GOODWILL line per member */
  goodwillAccountNumber: string | null;
}

/**
 * Σ (debit − credit) per account of a company's ledger data dated BEFORE `cutDate` (functional
 * currency; closing entries excluded as for every figure). The loader supplies one per member with
 * acquisition data and each acquisition date on its chain of holders (and the engine reads the
 * pre-acquisition parts of its balances from them).
 */
export interface CutLedger {
  companyId: string;
  cutDate: string;
  figures: { accountNumber: string; amount: DecimalInput }[];
}

/**
 * One aggregated ledger figure: Σ (debit − credit) in the company's functional currency of the
 * company's ledger lines on one account, optionally for one transaction date.
 *
 * - Monetary Asset/Liability accounts (`isNonMonetary: false`): `date` may be `null` (cumulative to the
 *   view's `asOfDate`); dated figures are simply summed.
 * - Equity accounts and `isNonMonetary` accounts: `date` is the lines' transaction date (they are
 *   translated at HR(date)). For a company whose functional currency is the reporting currency `date`
 *   may be `null`.
 * - Revenue/Expense accounts: `date` is required: the transaction date, or any date of the same group
 *   period (pre-aggregation by group period is allowed). Lines dated before the view's
 *   `yearStartDate` are the prior-year results. For a company already in the reporting currency, any
 *   date on the same side of `yearStartDate` will do.
 */
export interface LedgerFigure {
  accountNumber: string;
  date: string | null;
  amount: DecimalInput;
}

export interface CompanyLedger {
  companyId: string;
  figures: LedgerFigure[];
  /**
   * Optionally, the same figures as columns with exact scaled-integer amounts: a loader that reads
   * tens of thousands of figures supplies these (and may build `figures` lazily from them, see
   * `columnLedger`), and the engine then reads the columns instead of parsing one object per figure.
   */
  columns?: LedgerColumns;
}

/** Figures as parallel columns: figure i is (accountNumbers[i], dates[i], units[i] / 10^scale). */
export interface LedgerColumns {
  scale: number;
  accountNumbers: string[];
  dates: (string | null)[];
  units: bigint[];
}

export interface IntercompanyTransactionInput {
  id: string;
  fromCompanyId: string;
  toCompanyId: string;
  transactionType: IntercompanyTransactionType;
  transactionDate: string;
  /** value > 0 */
  amount: DecimalInput;
  currency: string;
  matchingStatus: MatchingStatus;
}

/**
 * Data of one view. Closing view: `asOfDate` = the run's asOfDate, `yearStartDate` = S(Y).
 * Opening view: `asOfDate` = S(Y) − 1, `yearStartDate` = S(Y − 1) (the previous group fiscal year).
 */
export interface ViewData {
  asOfDate: string;
  yearStartDate: string;
  /** figures of every included company (a company without figures may be omitted) */
  ledgers: CompanyLedger[];
  /** the organization's intercompany transactions dated within [yearStartDate, asOfDate], any status */
  intercompanyTransactions: IntercompanyTransactionInput[];
  /** pre-acquisition balances of members with acquisition data (see `CutLedger`) */
  cuts?: CutLedger[];
}

export interface AccountSelectorInput {
  /** pattern */
  accountNumber: string;
  companyId: string | null;
}

export interface TriggerConditionInput {
  description: string;
  sourceAccounts: AccountSelectorInput[];
  minimumAmount: DecimalInput | null;
}

export interface AccountRef {
  companyId: string;
  accountNumber: string;
  /**
   * A rule side on a group account of the group chart: `accountNumber` is the group account's number
   * and `companyId` is filled in with the parent when the chart is applied (absent: a company account).
   */
  groupAccount?: true;
}

export interface EliminationRuleInput {
  id: string;
  name: string;
  eliminationType: EliminationType;
  priority: number;
  /** ISO timestamp; used for ordering only */
  createdAt: string;
  isActive: boolean;
  isAutomatic: boolean;
  triggerConditions: TriggerConditionInput[];
  sourceAccounts: AccountSelectorInput[];
  targetAccounts: AccountSelectorInput[];
  /** the company and number of `debitAccountId` */
  debitAccount: AccountRef;
  /** the company and number of `creditAccountId` */
  creditAccount: AccountRef;
}

export interface RunOptionsInput {
  skipValidation: boolean;
  continueOnWarnings: boolean;
  includeEquityMethodInvestments: boolean;
  approvedManualRuleIds: string[];
}

/** Stored-rate facts of one resolved rate (RateUsage without `purpose`). */
export interface RateUsageData {
  exchangeRateId: string;
  fromCurrency: string;
  toCurrency: string;
  rateType: RateType;
  effectiveDate: string;
  /** the stored Rate text */
  rate: string;
  /** the Rate text actually applied */
  effectiveRate: string;
  derivation: RateDerivation;
  legIds: string[];
}

export interface ResolvedRate {
  /** units of `to` per one unit of `from` */
  effectiveRate: Decimal;
  usage: RateUsageData;
}

/**
 * Rate look-ups the engine needs; each is the common resolution (direct, inverse,
 * triangulated through the organization's reporting currency) for the organization. Synchronous: the
 * loader preloads the organization's rates and resolves in memory. `null` when nothing is found.
 */
export interface RateProvider {
  /** CR: types [YearEnd, Spot], effectiveDate on or before `date`. */
  closing(from: string, to: string, date: string): ResolvedRate | null;
  /**
   * AR: type [Average] within [startDate, endDate] (steps 1–4), else the ComputedAverage of the Spot
   * rates within the range (step 5). Never falls back to a closing rate: the engine does that.
   */
  average(from: string, to: string, startDate: string, endDate: string): ResolvedRate | null;
  /** HR: types [Historical, Spot, YearEnd], effectiveDate on or before `date`. */
  historical(from: string, to: string, date: string): ResolvedRate | null;
}

export interface ConsolidationInput {
  reportingCurrency: string;
  periodRef: PeriodRef;
  /** the run's asOfDate (closing view) */
  asOfDate: string;
  /** S(Y) of the group calendar */
  yearStartDate: string;
  /**
   * Regular periods (1–12; period 13 entries are ignored) of the group calendar. They must cover every
   * date that needs an average rate: Revenue/Expense figure dates of companies not in the reporting
   * currency (both views, prior-year results included) and intercompany transaction dates.
   */
  groupPeriods: GroupPeriod[];
  options: RunOptionsInput;
  /** the parent (role `Parent`) and every member of the group */
  companies: CompanyInput[];
  /** every elimination rule of the group (the engine selects active/automatic/approved ones) */
  rules: EliminationRuleInput[];
  rates: RateProvider;
  closing: ViewData;
  opening: ViewData;
  /**
   * The group's chart of accounts and mappings (group-chart.ts); absent or null: lines are company
   * account numbers, as without a group chart.
   */
  groupChart?: GroupChartInput | null;
  /**
   * Where residuals of reciprocal (balance-based) rules up to `tolerance` (in the reporting currency)
   * are booked: a group account (with a group chart) or an account number of the parent. Absent or
   * null: residuals are only reported (IC_DIFFERENCE).
   */
  intercompanyDifference?: { accountNumber: string; tolerance: DecimalInput } | null;
  /**
   * Posted top-side adjustments the closing view includes (consolidation-only entries of the group).
   * Absent or empty: trial-balance lines carry no `adjustmentAmount`, as before adjustments existed.
   */
  adjustments?: AdjustmentInput[] | null;
}

/** A top-side adjustment: balanced lines in the reporting currency, debit positive. */
export interface AdjustmentInput {
  id: string;
  lines: {
    /** a group account (with a group chart) or an account number of the group's companies */
    accountNumber: string;
    /** the member the line belongs to (its non-controlling interest takes its share); null: the group */
    companyId: string | null;
    amount: DecimalInput;
  }[];
}

// ---------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------

export type IssueCode =
  | 'ACCOUNT_TYPE_CONFLICT'
  | 'TRIAL_BALANCE_UNBALANCED'
  | 'PERIOD_NOT_CLOSED'
  | 'UNPOSTED_ENTRIES'
  | 'UNMATCHED_INTERCOMPANY'
  | 'INACTIVE_COMPANY'
  | 'AVERAGE_RATE_FALLBACK'
  | 'IC_TRANSACTION_NOT_ELIMINATED'
  | 'RULE_ACCOUNT_NOT_CONSOLIDATED'
  | 'MISSING_EXCHANGE_RATE'
  | 'MEMBER_NOT_YET_ACQUIRED'
  | 'BARGAIN_PURCHASE'
  | 'ACQUISITION_DATA_INVALID'
  | 'UNMAPPED_ACCOUNT'
  | 'RULE_ACCOUNT_NOT_IN_GROUP_CHART'
  | 'IC_DIFFERENCE';

export interface ValidationIssue {
  severity: 'Error' | 'Warning';
  code: IssueCode;
  message: string;
  entityReference: string | null;
}

export interface ValidationResult {
  isValid: boolean;
  issues: ValidationIssue[];
}

export interface StepOutcome {
  stepType: StepType;
  status: 'Completed' | 'Failed' | 'Skipped';
  details: string | null;
  errorMessage: string | null;
}

export interface RateUsage extends RateUsageData {
  purpose: RatePurpose;
}

export interface EliminationResult {
  eliminationRuleId: string;
  ruleName: string;
  eliminationType: EliminationType;
  priority: number;
  status: 'Applied' | 'Skipped';
  skipReason: 'TRIGGER_NOT_MET' | 'ZERO_AMOUNT' | 'ACCOUNT_COMPANY_NOT_CONSOLIDATED' | null;
  sourceBalance: Money;
  targetBalance: Money;
  amount: Money | null;
  debitAccountNumber: string;
  creditAccountNumber: string;
  intercompanyTransactionIds: string[];
  /**
   * Only on an applied reciprocal rule whose residual (`|S| − |T|`, never negative) was booked to the
   * group's intercompany-difference account.
   */
  intercompanyDifference?: { amount: Money; accountNumber: string };
}

/** One line of the elimination journal (debit and credit in the reporting currency). */
export interface EliminationEntryLine {
  accountNumber: string;
  /** the company whose balance the line adjusts; null for group lines (NCI, CTA, goodwill, …) */
  companyId: string | null;
  debit: Money;
  credit: Money;
}

/** One balanced entry of the elimination journal of a view. */
export interface EliminationEntry {
  source: 'Rule' | 'Acquisition';
  eliminationRuleId: string | null;
  ruleName: string | null;
  /** the acquired member (acquisition entries) */
  companyId: string | null;
  lines: EliminationEntryLine[];
}

export type LineType =
  | 'Account'
  | 'RetainedEarnings'
  | 'CurrencyTranslationAdjustment'
  | 'NonControllingInterest'
  | 'EquityMethodInvestment'
  | 'EquityMethodIncome'
  | 'EquityMethodReserve'
  | 'Goodwill'
  | 'BargainPurchaseGain';

export interface ConsolidatedLine {
  accountNumber: string;
  accountName: string;
  accountType: AccountType;
  accountCategory: AccountCategory | 'NonControllingInterest';
  lineType: LineType;
  companyId: string | null;
  isCashEquivalent: boolean;
  cashFlowCategory: CashFlowCategory | null;
  aggregatedBalance: Money;
  eliminationAmount: Money;
  /** top-side adjustments (only in runs that included some) */
  adjustmentAmount?: Money;
  nciAmount: Money;
  consolidatedBalance: Money;
  debitBalance: Money;
  creditBalance: Money;
}

export interface NciDetail {
  companyId: string;
  companyName: string;
  nonControllingInterestPercentage: string;
  netAssets: Money;
  netIncome: Money;
  nciShareOfEquity: Money;
  nciShareOfNetIncome: Money;
}

/** ConsolidatedTrialBalance without `consolidationRunId`, `groupId` and `generatedAt` (the caller adds them). */
export interface TrialBalanceView {
  view: 'closing' | 'opening';
  periodRef: PeriodRef;
  asOfDate: string;
  yearStartDate: string;
  currency: string;
  lineItems: ConsolidatedLine[];
  totalDebits: Money;
  totalCredits: Money;
  isBalanced: boolean;
  totalEliminations: Money;
  totalNCI: Money;
  netIncome: Money;
  netIncomeAttributableToParent: Money;
  netIncomeAttributableToNCI: Money;
  nonControllingInterests: NciDetail[];
  /**
   * Facts the consolidated cash-flow and equity statements need besides the balances (stored with
   * the view, not part of the trial balance on the wire). Absent in runs completed before they
   * existed: the statements then fall back to the balances alone.
   */
  statementFacts?: StatementFacts;
}

/** Statement facts of a view (see `TrialBalanceView.statementFacts`); amounts in G's minor units as text. */
export interface StatementFacts {
  /** the non-controlling interest's share of accumulated OCI (translation differences) in this view */
  nciShareOfOci: string;
  /** closing view only: per line id (account number, or number|company for per-company lines) */
  lines?: Record<string, { translationDifference: string; acquired: string }>;
  /** closing view only: Σ of the cash lines' translation differences (the effect of rates on cash) */
  cashTranslationDifference?: string;
}

export interface ConsolidatedTrialBalance extends TrialBalanceView {
  consolidationRunId: string;
  groupId: string;
  generatedAt: string;
}

export interface RunTotals {
  totalDebits: Money;
  totalCredits: Money;
  totalEliminations: Money;
  totalNCI: Money;
  netIncome: Money;
  netIncomeAttributableToParent: Money;
  netIncomeAttributableToNCI: Money;
}

export interface RunMember {
  companyId: string;
  companyName: string;
  role: 'Parent' | 'Member';
  consolidationMethod: ConsolidationMethod;
  ownershipPercentage: string;
  nonControllingInterestPercentage: string;
  functionalCurrency: string;
  included: boolean;
  /** the holding company; null = the parent (and for the parent itself) */
  heldByCompanyId: string | null;
  /** product of the direct stakes from the parent down, 4 decimals (`"48.0000"`; the parent `"100.0000"`) */
  effectiveOwnershipPercentage: string;
}

/** An amount of the acquisition analysis in the member's functional and the reporting currency. */
export interface DualAmount {
  functional: Money;
  reporting: Money;
}

/** One line of a derived acquisition elimination, journal style. */
export interface AcquisitionEntryLine {
  /** the consolidated line's account number (or GOODWILL, NCI, CTA, BARGAIN_PURCHASE_GAIN, RETAINED_EARNINGS) */
  accountNumber: string;
  /** the company whose line it is (the member, or the holder for its investment account); null for group lines */
  companyId: string | null;
  debit: Money;
  credit: Money;
}

/**
 * The acquisition analysis of a member with acquisition data (closing view): what was acquired, for
 * what, and the goodwill (or bargain-purchase gain) that results, in the member's functional
 * currency and in the reporting currency at the acquisition-date rate; goodwill also at the closing
 * rate; and the elimination entry the run booked.
 */
export interface AcquisitionAnalysis {
  companyId: string;
  companyName: string;
  heldByCompanyId: string | null;
  acquisitionDate: string;
  /** the date the group obtained control (the latest acquisition date on the member's chain of holders) */
  groupAcquisitionDate: string;
  functionalCurrency: string;
  consolidationMethod: ConsolidationMethod;
  nciMeasurement: 'Proportionate' | 'FairValue';
  /** the direct stake acquired */
  ownershipPercentage: string;
  /** the rate functional → reporting currency at the group acquisition date ("1" in the same currency) */
  acquisitionRate: string;
  closingRate: string;
  consideration: DualAmount;
  netAssetsAtAcquisition: DualAmount;
  fairValueAdjustments: DualAmount;
  /** the whole outside share at acquisition (the direct NCI and, held through a holder with NCI, theirs) */
  nciAtAcquisition: DualAmount;
  /**
   * the holders' outside shareholders' share of the consideration (partial goodwill through a holder
   * with NCI; zero otherwise): goodwill = consideration − this + NCI at acquisition − (net assets +
   * fair-value adjustments)
   */
  indirectHoldingAdjustment: DualAmount;
  goodwill: DualAmount;
  bargainPurchaseGain: DualAmount;
  /** goodwill retranslated at the closing rate (reporting currency) */
  goodwillAtClosingRate: Money;
  /** revenue − expenses of the year dated before the group acquisition date (not consolidated income) */
  preAcquisitionResultsOfYear: DualAmount;
  /** the elimination entry of this view, balanced */
  entries: AcquisitionEntryLine[];
}

export interface ConsolidationResult {
  status: 'Completed' | 'Failed';
  /** the failing step's message for a failed run */
  errorMessage: string | null;
  /** always 7, in the fixed order */
  steps: StepOutcome[];
  validationResult: ValidationResult | null;
  members: RunMember[];
  /** results (empty / null for a failed run: a failure leaves no results) */
  eliminations: EliminationResult[];
  exchangeRatesUsed: RateUsage[];
  totals: RunTotals | null;
  closingTrialBalance: TrialBalanceView | null;
  openingTrialBalance: TrialBalanceView | null;
  /** ids of the intercompany transactions received by applied rules (closing view), sorted */
  eliminatedTransactionIds: string[];
  /** one per member with acquisition data consolidated in the closing view, in structure order */
  acquisitionAnalysis: AcquisitionAnalysis[];
  /**
   * Account number of the retained-earnings line (the parent's retained-earnings account number) or
   * `RETAINED_EARNINGS`; store it with the run: the equity statement needs it (StatementContext).
   */
  retainedEarningsLine: string;
  /** per view, what each company, elimination, adjustment and the NCI put on each line (completed runs) */
  contributions?: { closing: LineContributions[]; opening: LineContributions[] };
}
