/**
 * Input types of the pure consolidation engine (its output types: `types-results.ts`, re-exported here).
 *
 * The engine does no I/O. A loader reads, in one consistent database snapshot, the figures described
 * below (aggregates of the balance table, never individual journal lines) and a `RateProvider` that
 * resolves rates in memory with the common procedure.
 */
import type { AccountCategory, AccountType, CashFlowCategory } from '../accounts.ts';
import type { Decimal, DecimalInput } from '../money.ts';
import type { RateDerivation, RateType } from '../rates.ts';

import type { GroupChartInput } from './group-chart.ts';

export type * from './types-results.ts';

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
