/**
 * Account blocks shared by the built-in templates (columns as in `TemplateRow`): each block is
 * written once and the templates list the blocks they hold, with their own accounts between them.
 */
import type { TemplateRow } from './types.ts';

/** The rows in account-number order (every number has four digits, so text order is number order). */
export function inNumberOrder(rows: readonly TemplateRow[]): readonly TemplateRow[] {
  return [...rows].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** Cash and its accounts (cash equivalents). */
// prettier-ignore
export const CASH_ROWS: readonly TemplateRow[] = [
  ['1000', 'Cash and Cash Equivalents', 'Asset', 'CurrentAsset', null, false, null, 'C'],
  ['1010', 'Cash - Operating Account', 'Asset', 'CurrentAsset', '1000', true, null, 'C'],
  ['1020', 'Cash - Payroll Account', 'Asset', 'CurrentAsset', '1000', true, null, 'C'],
  ['1030', 'Petty Cash', 'Asset', 'CurrentAsset', '1000', true, null, 'C'],
];

/** Trade receivables and their allowance. */
// prettier-ignore
export const RECEIVABLE_ROWS: readonly TemplateRow[] = [
  ['1100', 'Accounts Receivable', 'Asset', 'CurrentAsset', null, true, 'Operating', null],
  ['1110', 'Allowance for Doubtful Accounts', 'Asset', 'CurrentAsset', '1100', true, null, null],
];

/** Prepaid expenses and other current assets. */
// prettier-ignore
export const PREPAID_ROWS: readonly TemplateRow[] = [
  ['1300', 'Prepaid Expenses', 'Asset', 'CurrentAsset', null, true, 'Operating', null],
  ['1310', 'Prepaid Insurance', 'Asset', 'CurrentAsset', '1300', true, null, null],
  ['1320', 'Prepaid Rent', 'Asset', 'CurrentAsset', '1300', true, null, null],
  ['1400', 'Other Current Assets', 'Asset', 'CurrentAsset', null, true, null, null],
];

/** Payroll liabilities. */
// prettier-ignore
export const PAYROLL_LIABILITY_ROWS: readonly TemplateRow[] = [
  ['2200', 'Payroll Liabilities', 'Liability', 'CurrentLiability', null, false, null, null],
  ['2210', 'Federal Income Tax Withheld', 'Liability', 'CurrentLiability', '2200', true, null, null],
  ['2220', 'State Income Tax Withheld', 'Liability', 'CurrentLiability', '2200', true, null, null],
  ['2230', 'Social Security Tax Payable', 'Liability', 'CurrentLiability', '2200', true, null, null],
];

/** Share capital, retained earnings, treasury stock and other comprehensive income. */
// prettier-ignore
export const SHARE_CAPITAL_ROWS: readonly TemplateRow[] = [
  ['3000', 'Common Stock', 'Equity', 'ContributedCapital', null, true, 'Financing', null],
  ['3100', 'Preferred Stock', 'Equity', 'ContributedCapital', null, true, 'Financing', null],
  ['3200', 'Additional Paid-In Capital', 'Equity', 'ContributedCapital', null, true, 'Financing', null],
  ['3300', 'Retained Earnings', 'Equity', 'RetainedEarnings', null, true, null, 'R'],
  ['3400', 'Treasury Stock', 'Equity', 'TreasuryStock', null, true, 'Financing', null],
  ['3500', 'Accumulated Other Comprehensive Income', 'Equity', 'OtherComprehensiveIncome', null, true, null, null],
];
