/**
 * Account rows and their wire records. `isRetainedEarnings` is not stored: it is derived from the
 * company's `retainedEarningsAccountId` (one source of truth), so every read joins the company.
 */
import { and, eq, getTableColumns } from 'drizzle-orm';
import { type Queryable } from '../../db/client.ts';
import { firstRow, inOrg } from '../../db/rows.ts';
import { accounts, companies } from '../../db/schema/index.ts';
import { DomainError, invalid, ValidationError } from '../../domain/errors.ts';
import {
  type AccountCategory,
  type AccountType,
  type CashFlowCategory,
  normalBalanceOf,
} from '../../domain/accounts.ts';
import { accountNotFound } from '../charts/errors.ts';
import { errors } from '../../domain/error-catalogue.ts';

export const MAX_HIERARCHY_LEVEL = 10;

export type AccountRow = typeof accounts.$inferSelect;

export interface AccountRecord {
  id: string;
  organizationId: string;
  companyId: string;
  accountNumber: string;
  name: string;
  description: string | null;
  accountType: AccountType;
  accountCategory: AccountCategory;
  normalBalance: 'Debit' | 'Credit';
  parentAccountId: string | null;
  hierarchyLevel: number;
  isPostable: boolean;
  isActive: boolean;
  isIntercompany: boolean;
  intercompanyPartnerId: string | null;
  cashFlowCategory: CashFlowCategory | null;
  isCashEquivalent: boolean;
  isRetainedEarnings: boolean;
  isNonMonetary: boolean;
  createdAt: string;
  updatedAt: string;
  deactivatedAt: string | null;
}

/** The wire record of an account; `retainedEarningsAccountId` is its company's. */
export function accountRecord(row: AccountRow, retainedEarningsAccountId: string | null): AccountRecord {
  const accountType = row.accountType as AccountType;
  return {
    id: row.id,
    organizationId: row.organizationId,
    companyId: row.companyId,
    accountNumber: row.accountNumber,
    name: row.name,
    description: row.description,
    accountType,
    accountCategory: row.accountCategory as AccountCategory,
    normalBalance: normalBalanceOf(accountType),
    parentAccountId: row.parentAccountId,
    hierarchyLevel: row.hierarchyLevel,
    isPostable: row.isPostable,
    isActive: row.isActive,
    isIntercompany: row.isIntercompany,
    intercompanyPartnerId: row.intercompanyPartnerId,
    cashFlowCategory: row.cashFlowCategory as CashFlowCategory | null,
    isCashEquivalent: row.isCashEquivalent,
    isRetainedEarnings: retainedEarningsAccountId !== null && retainedEarningsAccountId === row.id,
    isNonMonetary: row.isNonMonetary,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    deactivatedAt: row.deactivatedAt ? row.deactivatedAt.toISOString() : null,
  };
}

export const withCompany = {
  ...getTableColumns(accounts),
  companyRetainedEarningsAccountId: companies.retainedEarningsAccountId,
};

export function selectAccounts(db: Queryable) {
  return db
    .select(withCompany)
    .from(accounts)
    .innerJoin(
      companies,
      and(eq(companies.organizationId, accounts.organizationId), eq(companies.id, accounts.companyId)),
    );
}

export function toRecord(
  row: AccountRow & { companyRetainedEarningsAccountId: string | null },
): AccountRecord {
  return accountRecord(row, row.companyRetainedEarningsAccountId);
}

/** An account of the organization (any company), or null. */
export async function findAccount(
  db: Queryable,
  organizationId: string,
  accountId: string,
): Promise<AccountRow | null> {
  return firstRow(db, accounts, inOrg(accounts, organizationId, { id: accountId }));
}

/** The wire record of one account of the organization, or 404 AccountNotFoundError. */
export async function loadAccountRecord(
  db: Queryable,
  organizationId: string,
  accountId: string,
): Promise<AccountRecord> {
  const [row] = await selectAccounts(db).where(inOrg(accounts, organizationId, { id: accountId }));
  if (!row) throw accountNotFound(accountId);
  return toRecord(row);
}

// ---------------------------------------------------------------------------------------------------
// Errors

export function parentNotFound(parentAccountId: string): DomainError {
  return errors.ParentAccountNotFoundError('Parent account not found', { parentAccountId });
}

export function accountInUse(accountId: string, reason: string): DomainError {
  return errors.AccountInUseError('The account is in use', { accountId, reason });
}

export function numberTaken(accountNumber: string, companyId: string): DomainError {
  return errors.AccountNumberAlreadyExistsError('The account number is already used', {
    accountNumber,
    companyId,
  });
}

export function tooDeep(): ValidationError {
  return invalid(
    '/parentAccountId',
    `The account hierarchy must not be deeper than ${MAX_HIERARCHY_LEVEL} levels`,
  );
}
