/** Row format of the built-in account templates. */
import type { AccountCategory, AccountType, CashFlowCategory } from '../accounts.ts';

/** Appendix C flags: C = `isCashEquivalent`, I = `isIntercompany`, R = `isRetainedEarnings`. */
export type TemplateFlag = 'C' | 'I' | 'R';

/**
 * One account of a template, column for column as in the Appendix C tables (a `null` parent,
 * cash-flow category or flag is the table's "—").
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
