/** Account types, categories and their derived properties. */

export const ACCOUNT_TYPES = ['Asset', 'Liability', 'Equity', 'Revenue', 'Expense'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export const CATEGORIES_BY_TYPE = {
  Asset: ['CurrentAsset', 'NonCurrentAsset', 'FixedAsset', 'IntangibleAsset'],
  Liability: ['CurrentLiability', 'NonCurrentLiability'],
  Equity: ['ContributedCapital', 'TreasuryStock', 'RetainedEarnings', 'OtherComprehensiveIncome'],
  Revenue: ['OperatingRevenue', 'OtherRevenue'],
  Expense: [
    'CostOfGoodsSold',
    'OperatingExpense',
    'DepreciationAmortization',
    'InterestExpense',
    'TaxExpense',
    'OtherExpense',
  ],
} as const satisfies Record<AccountType, readonly string[]>;

export type AccountCategory = (typeof CATEGORIES_BY_TYPE)[AccountType][number];
export const ACCOUNT_CATEGORIES: readonly AccountCategory[] = Object.values(CATEGORIES_BY_TYPE).flat();

export const CASH_FLOW_CATEGORIES = ['Operating', 'Investing', 'Financing', 'NonCash'] as const;
export type CashFlowCategory = (typeof CASH_FLOW_CATEGORIES)[number];

export type NormalBalance = 'Debit' | 'Credit';

export function normalBalanceOf(type: AccountType): NormalBalance {
  return type === 'Asset' || type === 'Expense' ? 'Debit' : 'Credit';
}

export function typeOfCategory(category: AccountCategory): AccountType {
  for (const type of ACCOUNT_TYPES) {
    if ((CATEGORIES_BY_TYPE[type] as readonly string[]).includes(category)) return type;
  }
  throw new Error(`Unknown account category ${category}`);
}

export function categoryBelongsToType(type: AccountType, category: string): boolean {
  return (CATEGORIES_BY_TYPE[type] as readonly string[]).includes(category);
}

export function isBalanceSheetType(type: AccountType): boolean {
  return type === 'Asset' || type === 'Liability' || type === 'Equity';
}

/** Default cash-flow category when an account's `cashFlowCategory` is null; null for Revenue/Expense. */
export function defaultCashFlowCategory(category: AccountCategory): CashFlowCategory | null {
  switch (category) {
    case 'CurrentAsset':
    case 'CurrentLiability':
      return 'Operating';
    case 'NonCurrentAsset':
    case 'FixedAsset':
    case 'IntangibleAsset':
      return 'Investing';
    case 'NonCurrentLiability':
    case 'ContributedCapital':
    case 'TreasuryStock':
    case 'RetainedEarnings':
      return 'Financing';
    case 'OtherComprehensiveIncome':
      return 'NonCash';
    default:
      return null;
  }
}

/**
 * What a new account reports when its request leaves it out: no cash-flow category, neither a cash
 * equivalent nor non-monetary. A company's accounts and a group's accounts take the same defaults.
 */
export function reportingFlagDefaults(input: {
  cashFlowCategory?: CashFlowCategory | null | undefined;
  isCashEquivalent?: boolean | undefined;
  isNonMonetary?: boolean | undefined;
}): { cashFlowCategory: CashFlowCategory | null; isCashEquivalent: boolean; isNonMonetary: boolean } {
  return {
    cashFlowCategory: input.cashFlowCategory ?? null,
    isCashEquivalent: input.isCashEquivalent ?? false,
    isNonMonetary: input.isNonMonetary ?? false,
  };
}

/** Signed natural amount: debit − credit for Asset/Expense, credit − debit for the others. */
export function naturalSign(type: AccountType): 1 | -1 {
  return normalBalanceOf(type) === 'Debit' ? 1 : -1;
}

/** The account a company's retained earnings are booked to: active, postable Equity / RetainedEarnings. */
export function isUsableRetainedEarningsAccount(a: {
  accountType: string;
  accountCategory: string;
  isActive: boolean;
  isPostable: boolean;
}): boolean {
  return a.accountType === 'Equity' && a.accountCategory === 'RetainedEarnings' && a.isActive && a.isPostable;
}

/** The side of a ledger line. */
export type LineSide = 'debit' | 'credit';
