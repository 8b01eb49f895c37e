/** Output types of the pure consolidation engine: validation, eliminations, trial balances, results. */
import type { AccountCategory, AccountType, CashFlowCategory } from '../accounts.ts';
import type { Money } from '../money.ts';

import type { LineContributions } from './contributions.ts';

import type {
  ConsolidationMethod,
  EliminationType,
  RatePurpose,
  StepType,
  PeriodRef,
  RateUsageData,
} from './types.ts';

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
