/** Company trial balance. */
import type { AccountCategory, AccountType } from '../accounts.ts';
import { dec, type Money, money, roundMoney, ZERO } from '../money.ts';
import {
  type AccountFigures,
  type Amount,
  type CompanyReportHeader,
  indexAccounts,
  netByAccount,
  type ReportAccount,
  sortByAccountNumber,
} from './common.ts';

export interface TrialBalanceLine {
  /** null for a computed line of a trial balance in another currency (translation adjustment) */
  accountId: string | null;
  accountNumber: string;
  accountName: string;
  accountType: AccountType;
  accountCategory: AccountCategory;
  debitBalance: Money;
  creditBalance: Money;
}

export interface TrialBalanceReport {
  companyId: string;
  asOfDate: string;
  periodStartDate: string | null;
  currency: string;
  generatedAt: string;
  lineItems: TrialBalanceLine[];
  totalDebits: Money;
  totalCredits: Money;
  isBalanced: boolean;
}

export interface TrialBalanceInput extends CompanyReportHeader {
  asOfDate: string;
  periodStartDate: string | null;
  /** Every account of the company (at least those with figures, plus the postable ones when zero balances are shown). */
  accounts: readonly ReportAccount[];
  /**
   * Per account, Σ functional debit and Σ functional credit of the ledger lines in scope:
   * entries `Posted`/`Reversed`, `transactionDate ≤ asOfDate` and, when `periodStartDate` is given,
   * `transactionDate ≥ periodStartDate`; lines of closing-related entries left out when the query
   * asks `excludeClosingEntries=true`. One row (or several, summed) per account that has lines in scope.
   */
  figures: readonly AccountFigures[];
  excludeZeroBalances: boolean;
  /**
   * A trial balance translated into another currency: lines that belong to no account (the
   * cumulative translation adjustment, the results of earlier years when the company has no
   * retained-earnings account), debit-positive, after the account lines; zero ones are left out.
   */
  computedLines?: readonly {
    accountNumber: string;
    accountName: string;
    accountType: AccountType;
    accountCategory: AccountCategory;
    net: Amount;
  }[];
}

/**
 * Builds the TrialBalanceReport. For each account `net = debit − credit`; `debitBalance =
 * max(net, 0)`, `creditBalance = max(−net, 0)`. Lines: accounts with figures rows, plus — when
 * `excludeZeroBalances` is false — every postable account (with zero balances); with
 * `excludeZeroBalances`, accounts whose net is zero are omitted. Ordered by account number.
 */
export function buildTrialBalance(input: TrialBalanceInput): TrialBalanceReport {
  const { currency } = input;
  const byId = indexAccounts(input.accounts);
  const nets = netByAccount(input.figures, byId, currency);

  const shown = input.accounts.filter((a) => {
    const net = nets.get(a.id);
    if (input.excludeZeroBalances) return net !== undefined && !net.isZero();
    return net !== undefined || a.isPostable;
  });

  let totalDebits = ZERO;
  let totalCredits = ZERO;
  const lineItems = sortByAccountNumber(shown).map((a): TrialBalanceLine => {
    const net = nets.get(a.id) ?? ZERO;
    const debit = net.greaterThan(0) ? net : ZERO;
    const credit = net.lessThan(0) ? net.negated() : ZERO;
    totalDebits = totalDebits.plus(debit);
    totalCredits = totalCredits.plus(credit);
    return {
      accountId: a.id,
      accountNumber: a.accountNumber,
      accountName: a.name,
      accountType: a.accountType,
      accountCategory: a.accountCategory,
      debitBalance: money(debit, currency),
      creditBalance: money(credit, currency),
    };
  });

  for (const c of input.computedLines ?? []) {
    const net = roundMoney(dec(c.net), currency);
    if (net.isZero()) continue;
    const debit = net.greaterThan(0) ? net : ZERO;
    const credit = net.lessThan(0) ? net.negated() : ZERO;
    totalDebits = totalDebits.plus(debit);
    totalCredits = totalCredits.plus(credit);
    lineItems.push({
      accountId: null,
      accountNumber: c.accountNumber,
      accountName: c.accountName,
      accountType: c.accountType,
      accountCategory: c.accountCategory,
      debitBalance: money(debit, currency),
      creditBalance: money(credit, currency),
    });
  }

  return {
    companyId: input.companyId,
    asOfDate: input.asOfDate,
    periodStartDate: input.periodStartDate,
    currency,
    generatedAt: input.generatedAt,
    lineItems,
    totalDebits: money(totalDebits, currency),
    totalCredits: money(totalCredits, currency),
    isBalanced: totalDebits.equals(totalCredits),
  };
}
