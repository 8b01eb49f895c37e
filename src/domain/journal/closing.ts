/**
 * The year-end close: what may block it and the closing entry it books. Pure; the closing module
 * reads the year's nets (the ledger's year figures) and writes the entry.
 *
 * The closing entry moves the year's result to retained earnings: every revenue and expense account
 * with a net is brought back to zero, and the total goes to the retained-earnings account.
 */
import { isUsableRetainedEarningsAccount } from '../accounts.ts';
import type { LineSide } from './amounts.ts';
import { type Decimal, ZERO } from '../money.ts';

export interface AccountNetFigure {
  accountId: string;
  accountType: 'Revenue' | 'Expense';
  /** Σ functional debits − Σ functional credits over the year. */
  net: Decimal;
}

export type RetainedEarningsProblem = 'NotConfigured' | 'Invalid';

/**
 * Why the company's retained-earnings account cannot take the close, in order: none is configured,
 * or the account (null when it does not exist) is not a usable account of the company.
 */
export function retainedEarningsProblem(
  company: { id: string; retainedEarningsAccountId: string | null },
  account: {
    companyId: string;
    accountType: string;
    accountCategory: string;
    isActive: boolean;
    isPostable: boolean;
  } | null,
): RetainedEarningsProblem | null {
  if (!company.retainedEarningsAccountId) return 'NotConfigured';
  if (!account || account.companyId !== company.id || !isUsableRetainedEarningsAccount(account))
    return 'Invalid';
  return null;
}

/** Revenue and expenses of the year, each positive in its normal direction, and the net income. */
export function yearResult(nets: readonly AccountNetFigure[]): {
  revenue: Decimal;
  expenses: Decimal;
  netIncome: Decimal;
} {
  let revenue = ZERO;
  let expenses = ZERO;
  for (const n of nets) {
    if (n.accountType === 'Revenue') revenue = revenue.minus(n.net);
    else expenses = expenses.plus(n.net);
  }
  return { revenue, expenses, netIncome: revenue.minus(expenses) };
}

export interface ClosingLine {
  accountId: string;
  side: LineSide;
  /** Functional-currency amount, greater than zero. */
  amount: Decimal;
}

/**
 * The lines of the closing entry, in the order of `nets`: each account with a net is booked on the
 * other side for its amount, then the total (Σ nets) on the retained-earnings account. Empty when
 * every net is zero: no closing entry is written.
 */
export function closingEntryLines(
  nets: readonly AccountNetFigure[],
  retainedEarningsAccountId: string,
): ClosingLine[] {
  if (nets.every((n) => n.net.isZero())) return [];
  const lines: ClosingLine[] = [];
  for (const n of nets) {
    if (n.net.greaterThan(0)) lines.push({ accountId: n.accountId, side: 'credit', amount: n.net });
    else if (n.net.lessThan(0))
      lines.push({ accountId: n.accountId, side: 'debit', amount: n.net.negated() });
  }
  const total = nets.reduce((s, n) => s.plus(n.net), ZERO);
  if (total.greaterThan(0))
    lines.push({ accountId: retainedEarningsAccountId, side: 'debit', amount: total });
  else if (total.lessThan(0)) {
    lines.push({ accountId: retainedEarningsAccountId, side: 'credit', amount: total.negated() });
  }
  return lines;
}
