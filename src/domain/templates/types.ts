/** Row format of the built-in account templates. */
import type { AccountCategory, AccountType, CashFlowCategory } from '../accounts.ts';

/** Template flags: C = `isCashEquivalent`, I = `isIntercompany`, R = `isRetainedEarnings`. */
export type TemplateFlag = 'C' | 'I' | 'R';

/**
 * One account of a template, column for column (a `null` parent,
 * cash-flow category or flag means none).
 */
export type TemplateRow = readonly [
  accountNumber: string,
  name: string,
  accountType: AccountType,
  accountCategory: AccountCategory,
  parentAccountNumber: string | null,
  isPostable: boolean,
  cashFlowCategory: CashFlowCategory | null,
  flag: TemplateFlag | null,
];
