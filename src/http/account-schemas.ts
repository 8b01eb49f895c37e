/**
 * The fields of an account that company accounts and group accounts (a group's chart) share: the
 * account number and the classification (type, category, cash-flow category).
 */
import { ACCOUNT_CATEGORIES, ACCOUNT_TYPES, CASH_FLOW_CATEGORIES } from '../domain/accounts.ts';
import { StringEnum, Type } from './schemas.ts';

/** An account number: 4–10 digits, no leading zero (company accounts and group accounts alike). */
export const ACCOUNT_NUMBER_PATTERN = '^[1-9][0-9]{3,9}$';
export const AccountNumber = Type.String({
  pattern: ACCOUNT_NUMBER_PATTERN,
  description: '4–10 digits, no leading zero',
});
/** The classification of an account (company or group): type, category, cash-flow category. */
export const AccountTypeSchema = StringEnum(ACCOUNT_TYPES);
export const AccountCategorySchema = StringEnum(
  ACCOUNT_CATEGORIES as readonly (typeof ACCOUNT_CATEGORIES)[number][],
);
export const CashFlowCategorySchema = StringEnum(CASH_FLOW_CATEGORIES);
