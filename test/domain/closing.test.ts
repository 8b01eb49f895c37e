/** The year-end close as pure accounting (src/domain/journal/closing.ts). */
import { describe, expect, it } from 'vitest';
import {
  type AccountNetFigure,
  closingEntryLines,
  retainedEarningsProblem,
  yearResult,
} from '../../src/domain/journal/closing.ts';
import { dec } from '../../src/domain/money.ts';

const net = (accountId: string, accountType: 'Revenue' | 'Expense', value: string): AccountNetFigure => ({
  accountId,
  accountType,
  net: dec(value),
});

describe('closing entry', () => {
  // Revenue 1,000 (a credit net of -1000), expenses 600 and 0: net income 400.
  const nets = [net('sales', 'Revenue', '-1000'), net('rent', 'Expense', '600'), net('idle', 'Expense', '0')];

  it('states the year result with revenue and expenses positive', () => {
    const r = yearResult(nets);
    expect([r.revenue.toFixed(), r.expenses.toFixed(), r.netIncome.toFixed()]).toEqual([
      '1000',
      '600',
      '400',
    ]);
  });

  it('brings every account with a net to zero and the total to retained earnings', () => {
    const lines = closingEntryLines(nets, 're').map((l) => [l.accountId, l.side, l.amount.toFixed()]);
    // Σ nets = -400: retained earnings is credited 400.
    expect(lines).toEqual([
      ['sales', 'debit', '1000'],
      ['rent', 'credit', '600'],
      ['re', 'credit', '400'],
    ]);
  });

  it('books a loss as a debit of retained earnings, and nothing when every net is zero', () => {
    const loss = closingEntryLines([net('sales', 'Revenue', '-100'), net('rent', 'Expense', '250')], 're');
    expect(loss.at(-1)).toMatchObject({ accountId: 're', side: 'debit' });
    expect(loss.at(-1)!.amount.toFixed()).toBe('150');
    expect(closingEntryLines([net('idle', 'Expense', '0')], 're')).toEqual([]);
  });
});

describe('retained-earnings account of a close', () => {
  const company = { id: 'c1', retainedEarningsAccountId: 'a1' };
  const usable = {
    companyId: 'c1',
    accountType: 'Equity',
    accountCategory: 'RetainedEarnings',
    isActive: true,
    isPostable: true,
  };

  it('must be configured, exist in the company and be usable', () => {
    expect(retainedEarningsProblem({ ...company, retainedEarningsAccountId: null }, null)).toBe(
      'NotConfigured',
    );
    expect(retainedEarningsProblem(company, null)).toBe('Invalid');
    expect(retainedEarningsProblem(company, { ...usable, companyId: 'c2' })).toBe('Invalid');
    expect(retainedEarningsProblem(company, { ...usable, accountCategory: 'ContributedCapital' })).toBe(
      'Invalid',
    );
    expect(retainedEarningsProblem(company, { ...usable, isActive: false })).toBe('Invalid');
    expect(retainedEarningsProblem(company, usable)).toBeNull();
  });
});
