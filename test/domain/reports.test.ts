import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AccountCategory, CashFlowCategory } from '../../src/domain/accounts.ts';
import { addDays } from '../../src/domain/dates.ts';
import { Decimal, dec, ZERO } from '../../src/domain/money.ts';
import {
  type AccountFigures,
  balanceSheetSections,
  buildBalanceSheet,
  buildCashFlowStatement,
  buildEquityStatement,
  buildIncomeStatement,
  buildTrialBalance,
  cashFlowBody,
  compareAccountNumbers,
  computedLine,
  EQUITY_COLUMNS,
  equityStatementRows,
  incomeStatementSections,
  type LineSource,
  makeSection,
  moneyValue,
  type ReportAccount,
  type ReportSection,
  reportLine,
  variancePercentage,
} from '../../src/domain/reports/index.ts';

// ---------------------------------------------------------------------------------------------------
// A tiny ledger model. `figures()` / `earnings()` play the role of the SQL the data-access layer
// will run: they aggregate the lines exactly as the builders' input documentation prescribes.
// ---------------------------------------------------------------------------------------------------

type Spec = [number: string, name: string, category: AccountCategory, extra?: Partial<ReportAccount>];

const TYPE_OF: Record<AccountCategory, ReportAccount['accountType']> = {
  CurrentAsset: 'Asset',
  NonCurrentAsset: 'Asset',
  FixedAsset: 'Asset',
  IntangibleAsset: 'Asset',
  CurrentLiability: 'Liability',
  NonCurrentLiability: 'Liability',
  ContributedCapital: 'Equity',
  TreasuryStock: 'Equity',
  RetainedEarnings: 'Equity',
  OtherComprehensiveIncome: 'Equity',
  OperatingRevenue: 'Revenue',
  OtherRevenue: 'Revenue',
  CostOfGoodsSold: 'Expense',
  OperatingExpense: 'Expense',
  DepreciationAmortization: 'Expense',
  InterestExpense: 'Expense',
  TaxExpense: 'Expense',
  OtherExpense: 'Expense',
};

function chart(specs: Spec[]): ReportAccount[] {
  return specs.map(([accountNumber, name, accountCategory, extra]) => ({
    id: `acc-${accountNumber}`,
    accountNumber,
    name,
    accountType: TYPE_OF[accountCategory],
    accountCategory,
    isPostable: true,
    isCashEquivalent: false,
    cashFlowCategory: null as CashFlowCategory | null,
    isRetainedEarningsAccount: false,
    ...extra,
  }));
}

const ACCOUNTS = chart([
  ['1000', 'Cash', 'CurrentAsset', { isCashEquivalent: true }],
  ['1200', 'Accounts Receivable', 'CurrentAsset'],
  ['1300', 'Inventory', 'CurrentAsset'],
  ['1400', 'Prepaid Expenses', 'CurrentAsset'], // never used
  ['1500', 'Equipment', 'FixedAsset'],
  ['1510', 'Accumulated Depreciation', 'FixedAsset', { cashFlowCategory: 'NonCash' }],
  ['1600', 'Investments at Fair Value', 'NonCurrentAsset'],
  ['1900', 'Other Assets (summary)', 'NonCurrentAsset', { isPostable: false }],
  ['2000', 'Accounts Payable', 'CurrentLiability'],
  ['2100', 'Income Tax Payable', 'CurrentLiability'],
  ['2500', 'Bank Loan', 'NonCurrentLiability'],
  ['3000', 'Share Capital', 'ContributedCapital'],
  ['3050', 'Treasury Stock', 'TreasuryStock'],
  ['3200', 'Retained Earnings', 'RetainedEarnings', { isRetainedEarningsAccount: true }],
  ['3300', 'Dividends', 'RetainedEarnings'],
  ['3500', 'Fair Value Reserve', 'OtherComprehensiveIncome'],
  ['4000', 'Sales', 'OperatingRevenue'],
  ['4900', 'Interest Income', 'OtherRevenue'],
  ['5000', 'Cost of Goods Sold', 'CostOfGoodsSold'],
  ['6000', 'Rent', 'OperatingExpense'],
  ['6100', 'Depreciation', 'DepreciationAmortization'],
  ['7000', 'Interest Expense', 'InterestExpense'],
  ['8000', 'Income Tax Expense', 'TaxExpense'],
  ['10000', 'Petty Cash', 'CurrentAsset', { isCashEquivalent: true }], // 5 digits: sorts after 1xxx
]);
const BY_NUMBER = new Map(ACCOUNTS.map((a) => [a.accountNumber, a]));

interface Line {
  account: string;
  debit?: string;
  credit?: string;
}
interface Entry {
  date: string;
  closing?: boolean;
  lines: Line[];
}

/** Dr `dr` / Cr `cr` for `amount`. */
function je(date: string, dr: string, cr: string, amount: string, closing = false): Entry {
  return {
    date,
    closing,
    lines: [
      { account: dr, debit: amount },
      { account: cr, credit: amount },
    ],
  };
}

interface Scope {
  from?: string;
  to: string;
  excludeClosing?: boolean;
}

function inScope(e: Entry, s: Scope): boolean {
  return (s.from === undefined || e.date >= s.from) && e.date <= s.to && !(s.excludeClosing && e.closing);
}

/** Per account Σ debit / Σ credit of the lines in scope (what SQL would return). */
function figures(ledger: readonly Entry[], s: Scope): AccountFigures[] {
  const sums = new Map<string, { debit: Decimal; credit: Decimal }>();
  for (const e of ledger) {
    if (!inScope(e, s)) continue;
    for (const l of e.lines) {
      const id = `acc-${l.account}`;
      const t = sums.get(id) ?? { debit: ZERO, credit: ZERO };
      sums.set(id, { debit: t.debit.plus(l.debit ?? 0), credit: t.credit.plus(l.credit ?? 0) });
    }
  }
  return [...sums].map(([accountId, t]) => ({
    accountId,
    debit: t.debit.toFixed(),
    credit: t.credit.toFixed(),
  }));
}

/** Σ credit − debit of Revenue and Expense lines in scope. */
function earnings(ledger: readonly Entry[], s: Scope): string {
  let total = ZERO;
  for (const e of ledger) {
    if (!inScope(e, s)) continue;
    for (const l of e.lines) {
      const t = BY_NUMBER.get(l.account)!.accountType;
      if (t === 'Revenue' || t === 'Expense') total = total.plus(l.credit ?? 0).minus(l.debit ?? 0);
    }
  }
  return total.toFixed();
}

/** The year-end closing entry of 3.6.3 for the calendar fiscal year ending `yearEnd`. */
function yearEndClose(ledger: readonly Entry[], yearStart: string, yearEnd: string): Entry | null {
  const net = new Map<string, Decimal>();
  for (const e of ledger) {
    if (e.date < yearStart || e.date > yearEnd) continue;
    for (const l of e.lines) {
      const t = BY_NUMBER.get(l.account)!.accountType;
      if (t !== 'Revenue' && t !== 'Expense') continue;
      net.set(l.account, (net.get(l.account) ?? ZERO).plus(l.debit ?? 0).minus(l.credit ?? 0));
    }
  }
  const lines: Line[] = [];
  let total = ZERO;
  for (const [account, n] of net) {
    if (n.isZero()) continue;
    total = total.plus(n);
    lines.push(
      n.greaterThan(0) ? { account, credit: n.toFixed() } : { account, debit: n.negated().toFixed() },
    );
  }
  if (lines.length === 0) return null;
  if (!total.isZero()) {
    lines.push(
      total.greaterThan(0)
        ? { account: '3200', debit: total.toFixed() }
        : { account: '3200', credit: total.negated().toFixed() },
    );
  }
  return { date: yearEnd, closing: true, lines };
}

const HEADER = { companyId: 'company-1', currency: 'USD', generatedAt: '2025-07-01T08:00:00.000Z' };

// 2024 (fiscal year = calendar year)
const LEDGER_2024: Entry[] = [
  je('2024-01-02', '1000', '3000', '50000'), // capital contribution
  je('2024-01-05', '1000', '2500', '20000'), // bank loan received
  je('2024-01-10', '1500', '1000', '30000'), // equipment bought for cash
  je('2024-02-01', '1300', '2000', '12000'), // inventory on credit
  je('2024-06-30', '1200', '4000', '25000'), // sales on credit
  je('2024-06-30', '5000', '1300', '10000'), // cost of those sales
  je('2024-07-01', '6000', '1000', '6000'), // rent paid
  je('2024-12-31', '6100', '1510', '3000'), // depreciation (contra asset)
  je('2024-12-31', '7000', '1000', '1000'), // loan interest paid
  je('2024-12-31', '8000', '2100', '1250'), // income tax accrued
];
// NI 2024 = 25,000 − 10,000 − 6,000 − 3,000 − 1,000 − 1,250 = 3,750
const CLOSE_2024 = yearEndClose(LEDGER_2024, '2024-01-01', '2024-12-31')!;
// 2025, first half
const LEDGER_2025: Entry[] = [
  je('2025-01-15', '1000', '1200', '20000'), // receivable collected
  je('2025-02-01', '2000', '1000', '8000'), // payable settled
  je('2025-02-15', '1300', '2000', '18000'), // inventory on credit
  je('2025-03-01', '1000', '4000', '40000'), // cash sales
  je('2025-03-01', '5000', '1300', '15000'), // cost of those sales
  je('2025-03-15', '1600', '1000', '2000'), // investment bought
  je('2025-04-01', '6000', '1000', '6000'), // rent paid
  je('2025-05-01', '3300', '1000', '2000'), // dividend declared and paid
  je('2025-06-15', '10000', '4900', '100'), // interest income into petty cash
  je('2025-06-20', '3050', '1000', '1000'), // own shares repurchased
  je('2025-06-30', '2100', '1000', '1250'), // 2024 income tax paid
  je('2025-06-30', '2500', '1000', '5000'), // loan repayment
  je('2025-06-30', '6100', '1510', '1500'), // depreciation
  je('2025-06-30', '7000', '1000', '500'), // loan interest paid
  je('2025-06-30', '8000', '2100', '3000'), // income tax accrued
  je('2025-06-30', '1600', '3500', '500'), // fair-value gain in OCI
];
// NI H1 2025 = 40,000 + 100 − 15,000 − 6,000 − 1,500 − 500 − 3,000 = 14,100
const CLOSED = [...LEDGER_2024, CLOSE_2024, ...LEDGER_2025];
const UNCLOSED = [...LEDGER_2024, ...LEDGER_2025];

type Row = [string, string, string | null, string | null, string | null];
/** [accountNumber or description, current, comparative, variance, variance %] per line. */
function rows(section: ReportSection): Row[] {
  return section.lineItems.map((l) => [
    l.accountNumber ?? l.description,
    l.currentAmount.value,
    l.comparativeAmount?.value ?? null,
    l.variance?.value ?? null,
    l.variancePercentage,
  ]);
}

function balanceSheetAt(ledger: readonly Entry[], date: string, yearStart: string) {
  return {
    balances: figures(ledger, { to: date }),
    currentYearEarnings: earnings(ledger, { from: yearStart, to: date }),
    priorUnclosedEarnings: earnings(ledger, { to: addDays(yearStart, -1) }),
  };
}

// ---------------------------------------------------------------------------------------------------

describe('line helpers', () => {
  it('orders account numbers numerically, synthetic numbers last in input order', () => {
    const list = ['10000', 'NCI', '2000', '1000', null, 'CTA', '1200'];
    expect([...list].sort(compareAccountNumbers)).toEqual([
      '1000',
      '1200',
      '2000',
      '10000',
      'NCI',
      null,
      'CTA',
    ]);
  });

  it('computes variance percentages against |comparative|, rounded half away from zero', () => {
    expect(variancePercentage('1000', '3000')).toBe('33.33'); // 1,000 / 3,000 × 100 = 33.333…
    expect(variancePercentage('-2000', '3000')).toBe('-66.67'); // −66.666… → −66.67
    expect(variancePercentage('-1500', '-3000')).toBe('-50.00'); // −1,500 / |−3,000| × 100
    expect(variancePercentage('1', '8000')).toBe('0.01'); // 0.0125 → 0.01
    expect(variancePercentage('-1', '8000')).toBe('-0.01'); // −0.0125 → −0.01
    expect(variancePercentage('3', '16000')).toBe('0.02'); // 0.01875 → 0.02
    expect(variancePercentage('5', '0')).toBeNull(); // zero comparative
    expect(variancePercentage('5', null)).toBeNull(); // no comparative
  });

  it('formats a report line with the currency minor units', () => {
    // JPY has 0 decimals, KWD 3
    const jpy = reportLine(
      { accountId: null, accountNumber: '4000', description: 'Sales', current: '1500', comparative: '1000' },
      'JPY',
    );
    expect(jpy.currentAmount).toEqual({ value: '1500', currency: 'JPY' });
    expect(jpy.variance).toEqual({ value: '500', currency: 'JPY' });
    expect(jpy.variancePercentage).toBe('50.00');
    expect(jpy.style).toBe('Normal');
    expect(jpy.indentLevel).toBe(1);
    const kwd = reportLine(
      { accountId: 'x', accountNumber: '1000', description: 'Cash', current: '-0', comparative: null },
      'KWD',
    );
    expect(kwd.currentAmount.value).toBe('0.000'); // never "-0.000"
    expect(kwd.comparativeAmount).toBeNull();
    expect(kwd.variance).toBeNull();
    expect(kwd.variancePercentage).toBeNull();
  });

  it('makeSection sums Normal lines only and treats a missing comparative as zero', () => {
    const s = makeSection(
      'Test',
      [
        {
          accountId: null,
          accountNumber: null,
          description: 'Header',
          current: '0',
          comparative: null,
          style: 'Header',
        },
        { accountId: 'a', accountNumber: '1000', description: 'A', current: '10.005', comparative: '4' },
        { accountId: 'b', accountNumber: '1001', description: 'B', current: '5', comparative: null },
      ],
      'USD',
      true,
    );
    // 10.005 → 10.01 (half away from zero) + 5 = 15.01; comparative 4 + 0 = 4
    expect(s.subtotal.value).toBe('15.01');
    expect(s.comparativeSubtotal?.value).toBe('4.00');
    expect(s.lineItems[2]!.comparativeAmount?.value).toBe('0.00');
  });
});

describe('trial balance', () => {
  it('shows cumulative balances at 2025-06-30 in account-number order (after the 2024 close)', () => {
    const tb = buildTrialBalance({
      ...HEADER,
      asOfDate: '2025-06-30',
      periodStartDate: null,
      accounts: ACCOUNTS,
      figures: figures(CLOSED, { to: '2025-06-30' }),
      excludeZeroBalances: true,
    });
    const lines = tb.lineItems.map((l) => [l.accountNumber, l.debitBalance.value, l.creditBalance.value]);
    expect(lines).toEqual([
      ['1000', '67250.00', '0.00'], // 33,000 (2024) + 20,000 − 8,000 + 40,000 − 2,000 − 6,000 − 2,000 − 1,000 − 1,250 − 5,000 − 500
      ['1200', '5000.00', '0.00'], // 25,000 − 20,000
      ['1300', '5000.00', '0.00'], // 12,000 − 10,000 + 18,000 − 15,000
      ['1500', '30000.00', '0.00'],
      ['1510', '0.00', '4500.00'], // 3,000 + 1,500
      ['1600', '2500.00', '0.00'], // 2,000 + 500
      ['2000', '0.00', '22000.00'], // 12,000 − 8,000 + 18,000
      ['2100', '0.00', '3000.00'], // 1,250 − 1,250 + 3,000
      ['2500', '0.00', '15000.00'], // 20,000 − 5,000
      ['3000', '0.00', '50000.00'],
      ['3050', '1000.00', '0.00'],
      ['3200', '0.00', '3750.00'], // 2024 net income closed into retained earnings
      ['3300', '2000.00', '0.00'],
      ['3500', '0.00', '500.00'],
      ['4000', '0.00', '40000.00'], // 2024 sales were closed: only 2025
      ['4900', '0.00', '100.00'],
      ['5000', '15000.00', '0.00'],
      ['6000', '6000.00', '0.00'],
      ['6100', '1500.00', '0.00'],
      ['7000', '500.00', '0.00'],
      ['8000', '3000.00', '0.00'],
      ['10000', '100.00', '0.00'],
    ]);
    // debits: 67,250 + 5,000 + 5,000 + 30,000 + 2,500 + 1,000 + 2,000 + 15,000 + 6,000 + 1,500 + 500 + 3,000 + 100 = 138,850
    // credits: 4,500 + 22,000 + 3,000 + 15,000 + 50,000 + 3,750 + 500 + 40,000 + 100 = 138,850
    expect(tb.totalDebits).toEqual({ value: '138850.00', currency: 'USD' });
    expect(tb.totalCredits).toEqual({ value: '138850.00', currency: 'USD' });
    expect(tb.isBalanced).toBe(true);
    expect(tb.periodStartDate).toBeNull();
    expect(tb.lineItems[0]).toEqual({
      accountId: 'acc-1000',
      accountNumber: '1000',
      accountName: 'Cash',
      accountType: 'Asset',
      accountCategory: 'CurrentAsset',
      debitBalance: { value: '67250.00', currency: 'USD' },
      creditBalance: { value: '0.00', currency: 'USD' },
    });
  });

  it('pre-closing trial balance at 2024-12-31 shows revenue and expenses; closed one does not', () => {
    const pre = buildTrialBalance({
      ...HEADER,
      asOfDate: '2024-12-31',
      periodStartDate: null,
      accounts: ACCOUNTS,
      figures: figures(CLOSED, { to: '2024-12-31', excludeClosing: true }),
      excludeZeroBalances: true,
    });
    const nums = (tb: typeof pre) => tb.lineItems.map((l) => l.accountNumber);
    expect(nums(pre)).toEqual([
      '1000',
      '1200',
      '1300',
      '1500',
      '1510',
      '2000',
      '2100',
      '2500',
      '3000',
      '4000',
      '5000',
      '6000',
      '6100',
      '7000',
      '8000',
    ]);
    // debits: cash 33,000 + AR 25,000 + inventory 2,000 + equipment 30,000 + expenses 10,000 + 6,000 + 3,000 + 1,000 + 1,250 = 111,250
    expect(pre.totalDebits.value).toBe('111250.00');
    expect(pre.isBalanced).toBe(true);

    const post = buildTrialBalance({
      ...HEADER,
      asOfDate: '2024-12-31',
      periodStartDate: null,
      accounts: ACCOUNTS,
      figures: figures(CLOSED, { to: '2024-12-31' }),
      excludeZeroBalances: true,
    });
    // revenue/expense accounts are zero after the close and omitted; retained earnings 3,750 Cr appears
    expect(nums(post)).toEqual([
      '1000',
      '1200',
      '1300',
      '1500',
      '1510',
      '2000',
      '2100',
      '2500',
      '3000',
      '3200',
    ]);
    // 111,250 − 21,250 expenses = 90,000
    expect(post.totalDebits.value).toBe('90000.00');
    expect(post.isBalanced).toBe(true);

    // Zero balances shown: every postable account (1400 never used, zero revenue/expense accounts),
    // but not the non-postable summary account 1900.
    const all = buildTrialBalance({
      ...HEADER,
      asOfDate: '2024-12-31',
      periodStartDate: null,
      accounts: ACCOUNTS,
      figures: figures(CLOSED, { to: '2024-12-31' }),
      excludeZeroBalances: false,
    });
    expect(all.lineItems).toHaveLength(ACCOUNTS.length - 1);
    expect(nums(all)).not.toContain('1900');
    const sales = all.lineItems.find((l) => l.accountNumber === '4000')!;
    expect([sales.debitBalance.value, sales.creditBalance.value]).toEqual(['0.00', '0.00']);
  });

  it('period trial balance shows activity between the dates', () => {
    const tb = buildTrialBalance({
      ...HEADER,
      asOfDate: '2025-06-30',
      periodStartDate: '2025-01-01',
      accounts: ACCOUNTS,
      figures: figures(CLOSED, { from: '2025-01-01', to: '2025-06-30' }),
      excludeZeroBalances: true,
    });
    expect(tb.periodStartDate).toBe('2025-01-01');
    const cash = tb.lineItems.find((l) => l.accountNumber === '1000')!;
    expect(cash.debitBalance.value).toBe('34250.00'); // 2025 movements only: 67,250 − 33,000
    const ar = tb.lineItems.find((l) => l.accountNumber === '1200')!;
    expect(ar.creditBalance.value).toBe('20000.00'); // collected, net credit activity
    expect(tb.lineItems.map((l) => l.accountNumber)).not.toContain('3000'); // no 2025 capital activity
    expect(tb.isBalanced).toBe(true);
  });

  it('accepts net figures, several rows per account, and JPY', () => {
    const tb = buildTrialBalance({
      ...HEADER,
      currency: 'JPY',
      asOfDate: '2025-06-30',
      periodStartDate: null,
      accounts: ACCOUNTS,
      figures: [
        { accountId: 'acc-1000', net: '1000' },
        { accountId: 'acc-1000', debit: '500', credit: '0' }, // 1,000 + 500 = 1,500
        { accountId: 'acc-3000', net: '-1500' },
      ],
      excludeZeroBalances: true,
    });
    expect(tb.lineItems.map((l) => [l.debitBalance.value, l.creditBalance.value])).toEqual([
      ['1500', '0'],
      ['0', '1500'],
    ]);
    expect(tb.totalDebits).toEqual({ value: '1500', currency: 'JPY' });
  });

  it('rejects figures of an account that is not in the account list', () => {
    expect(() =>
      buildTrialBalance({
        ...HEADER,
        asOfDate: '2025-06-30',
        periodStartDate: null,
        accounts: ACCOUNTS,
        figures: [{ accountId: 'nope', net: '1' }],
        excludeZeroBalances: true,
      }),
    ).toThrow(/unknown account/);
  });
});

describe('balance sheet', () => {
  it('comparative balance sheet 2025-06-30 vs 2024-12-31 (2024 closed)', () => {
    const bs = buildBalanceSheet({
      ...HEADER,
      asOfDate: '2025-06-30',
      comparativeDate: '2024-12-31',
      accounts: ACCOUNTS,
      ...balanceSheetAt(CLOSED, '2025-06-30', '2025-01-01'),
      comparative: balanceSheetAt(CLOSED, '2024-12-31', '2024-01-01'),
      includeZeroBalances: false,
    });
    expect(bs.currentAssets.title).toBe('Current Assets');
    expect(rows(bs.currentAssets)).toEqual([
      ['1000', '67250.00', '33000.00', '34250.00', '103.79'], // 34,250 / 33,000 × 100 = 103.787…
      ['1200', '5000.00', '25000.00', '-20000.00', '-80.00'], // −20,000 / 25,000
      ['1300', '5000.00', '2000.00', '3000.00', '150.00'],
      ['10000', '100.00', '0.00', '100.00', null], // zero comparative → null percentage
    ]);
    expect(bs.currentAssets.subtotal.value).toBe('77350.00'); // 67,250 + 5,000 + 5,000 + 100
    expect(bs.currentAssets.comparativeSubtotal?.value).toBe('60000.00'); // 33,000 + 25,000 + 2,000
    expect(rows(bs.nonCurrentAssets)).toEqual([
      ['1500', '30000.00', '30000.00', '0.00', '0.00'],
      ['1510', '-4500.00', '-3000.00', '-1500.00', '-50.00'], // contra asset negative; −1,500 / |−3,000|
      ['1600', '2500.00', '0.00', '2500.00', null],
    ]);
    expect(bs.nonCurrentAssets.subtotal.value).toBe('28000.00'); // 30,000 − 4,500 + 2,500
    expect(bs.totalAssets.value).toBe('105350.00'); // 77,350 + 28,000
    expect(rows(bs.currentLiabilities)).toEqual([
      ['2000', '22000.00', '12000.00', '10000.00', '83.33'], // 10,000 / 12,000 = 83.333…
      ['2100', '3000.00', '1250.00', '1750.00', '140.00'],
    ]);
    expect(rows(bs.nonCurrentLiabilities)).toEqual([['2500', '15000.00', '20000.00', '-5000.00', '-25.00']]);
    expect(bs.totalLiabilities.value).toBe('40000.00'); // 25,000 + 15,000
    expect(rows(bs.equity)).toEqual([
      ['3000', '50000.00', '50000.00', '0.00', '0.00'],
      ['3050', '-1000.00', '0.00', '-1000.00', null],
      ['3200', '3750.00', '3750.00', '0.00', '0.00'],
      ['3300', '-2000.00', '0.00', '-2000.00', null],
      ['3500', '500.00', '0.00', '500.00', null],
      // CYE = H1 2025 NI 14,100; at 2024-12-31 the closed year's earnings are 0
      ['Current Year Earnings', '14100.00', '0.00', '14100.00', null],
      // no "Unclosed Earnings of Prior Years": zero at both dates (2024 closed)
    ]);
    const cye = bs.equity.lineItems.at(-1)!;
    expect([cye.accountId, cye.accountNumber, cye.style, cye.indentLevel]).toEqual([null, null, 'Normal', 1]);
    // 50,000 − 1,000 + 3,750 − 2,000 + 500 + 14,100 = 65,350
    expect(bs.totalEquity.value).toBe('65350.00');
    expect(bs.equity.comparativeSubtotal?.value).toBe('53750.00'); // 50,000 + 3,750
    expect(bs.totalLiabilitiesAndEquity.value).toBe('105350.00'); // 40,000 + 65,350
    expect(bs.isBalanced).toBe(true);
    expect(bs.comparativeDate).toBe('2024-12-31');
  });

  it('shows "Unclosed Earnings of Prior Years" when the prior year was never closed', () => {
    const bs = buildBalanceSheet({
      ...HEADER,
      asOfDate: '2025-06-30',
      comparativeDate: null,
      accounts: ACCOUNTS,
      ...balanceSheetAt(UNCLOSED, '2025-06-30', '2025-01-01'),
      comparative: null,
      includeZeroBalances: false,
    });
    // retained earnings account 3200 is zero (never closed into) and omitted
    expect(rows(bs.equity)).toEqual([
      ['3000', '50000.00', null, null, null],
      ['3050', '-1000.00', null, null, null],
      ['3300', '-2000.00', null, null, null],
      ['3500', '500.00', null, null, null],
      ['Current Year Earnings', '14100.00', null, null, null],
      ['Unclosed Earnings of Prior Years', '3750.00', null, null, null], // 2024 NI still in revenue/expense accounts
    ]);
    expect(bs.equity.comparativeSubtotal).toBeNull();
    expect(bs.totalEquity.value).toBe('65350.00'); // same total as after the close
    expect(bs.isBalanced).toBe(true);
  });

  it('right after year-end close Current Year Earnings is present and zero', () => {
    const bs = buildBalanceSheet({
      ...HEADER,
      asOfDate: '2024-12-31',
      comparativeDate: null,
      accounts: ACCOUNTS,
      ...balanceSheetAt(CLOSED, '2024-12-31', '2024-01-01'),
      comparative: null,
      includeZeroBalances: false,
    });
    expect(rows(bs.equity)).toEqual([
      ['3000', '50000.00', null, null, null],
      ['3200', '3750.00', null, null, null],
      ['Current Year Earnings', '0.00', null, null, null],
    ]);
    // assets 33,000 + 25,000 + 2,000 + 30,000 − 3,000 = 87,000 = liabilities 33,250 + equity 53,750
    expect(bs.totalAssets.value).toBe('87000.00');
    expect(bs.totalLiabilitiesAndEquity.value).toBe('87000.00');
    expect(bs.isBalanced).toBe(true);
  });

  it('includeZeroBalances lists every postable account of the sections (not non-postable ones)', () => {
    const bs = buildBalanceSheet({
      ...HEADER,
      asOfDate: '2024-12-31',
      comparativeDate: null,
      accounts: ACCOUNTS,
      ...balanceSheetAt(CLOSED, '2024-12-31', '2024-01-01'),
      comparative: null,
      includeZeroBalances: true,
    });
    expect(bs.currentAssets.lineItems.map((l) => l.accountNumber)).toEqual([
      '1000',
      '1200',
      '1300',
      '1400',
      '10000',
    ]);
    expect(bs.nonCurrentAssets.lineItems.map((l) => l.accountNumber)).toEqual(['1500', '1510', '1600']);
    expect(rows(bs.equity).map((r) => r[0])).toEqual([
      '3000',
      '3050',
      '3200',
      '3300',
      '3500',
      'Current Year Earnings',
    ]);
  });

  it('reports an inconsistent ledger as unbalanced instead of failing', () => {
    const bs = buildBalanceSheet({
      ...HEADER,
      asOfDate: '2025-06-30',
      comparativeDate: null,
      accounts: ACCOUNTS,
      balances: [{ accountId: 'acc-1000', net: '10' }],
      currentYearEarnings: '0',
      priorUnclosedEarnings: '0',
      comparative: null,
      includeZeroBalances: false,
    });
    expect(bs.isBalanced).toBe(false);
  });
});

describe('income statement', () => {
  it('H1 2025 with H1 2024 as comparative', () => {
    const is = buildIncomeStatement({
      ...HEADER,
      periodStartDate: '2025-01-01',
      periodEndDate: '2025-06-30',
      comparativeStartDate: '2024-01-01',
      comparativeEndDate: '2024-06-30',
      accounts: ACCOUNTS,
      activity: figures(CLOSED, { from: '2025-01-01', to: '2025-06-30', excludeClosing: true }),
      comparativeActivity: figures(CLOSED, { from: '2024-01-01', to: '2024-06-30', excludeClosing: true }),
    });
    expect(is.revenue.title).toBe('Revenue');
    expect(rows(is.revenue)).toEqual([['4000', '40000.00', '25000.00', '15000.00', '60.00']]);
    expect(rows(is.costOfSales)).toEqual([['5000', '15000.00', '10000.00', '5000.00', '50.00']]);
    expect(is.costOfSales.title).toBe('Cost of Sales');
    expect(is.grossProfit.value).toBe('25000.00'); // 40,000 − 15,000
    expect(is.operatingExpenses.title).toBe('Operating Expenses');
    expect(rows(is.operatingExpenses)).toEqual([
      ['6000', '6000.00', '0.00', '6000.00', null], // rent of 2024 was paid in July
      ['6100', '1500.00', '0.00', '1500.00', null],
    ]);
    expect(is.operatingExpenses.subtotal.value).toBe('7500.00');
    expect(is.operatingExpenses.comparativeSubtotal?.value).toBe('0.00');
    expect(is.operatingIncome.value).toBe('17500.00'); // 25,000 − 7,500
    expect(is.otherIncomeExpense.title).toBe('Other Income and Expenses');
    expect(rows(is.otherIncomeExpense)).toEqual([
      ['4900', '100.00', '0.00', '100.00', null], // other revenue credit − debit
      ['7000', '-500.00', '0.00', '-500.00', null], // interest expense credit − debit → negative
    ]);
    expect(is.otherIncomeExpense.subtotal.value).toBe('-400.00');
    expect(is.incomeBeforeTax.value).toBe('17100.00'); // 17,500 − 400
    expect(is.taxExpense.value).toBe('3000.00');
    expect(is.netIncome.value).toBe('14100.00'); // 17,100 − 3,000
    expect(is.comparativeStartDate).toBe('2024-01-01');
  });

  it('a closed year still shows its results (closing entry excluded)', () => {
    const is = buildIncomeStatement({
      ...HEADER,
      periodStartDate: '2024-01-01',
      periodEndDate: '2024-12-31',
      comparativeStartDate: null,
      comparativeEndDate: null,
      accounts: ACCOUNTS,
      activity: figures(CLOSED, { from: '2024-01-01', to: '2024-12-31', excludeClosing: true }),
      comparativeActivity: null,
    });
    expect(rows(is.revenue)).toEqual([['4000', '25000.00', null, null, null]]);
    expect(is.revenue.comparativeSubtotal).toBeNull();
    expect(is.grossProfit.value).toBe('15000.00'); // 25,000 − 10,000
    expect(is.operatingExpenses.subtotal.value).toBe('9000.00'); // rent 6,000 + depreciation 3,000
    expect(is.operatingIncome.value).toBe('6000.00');
    expect(rows(is.otherIncomeExpense)).toEqual([['7000', '-1000.00', null, null, null]]);
    expect(is.incomeBeforeTax.value).toBe('5000.00');
    expect(is.taxExpense.value).toBe('1250.00');
    expect(is.netIncome.value).toBe('3750.00');
  });
});

describe('cash-flow statement', () => {
  const cashFlow = (ledger: readonly Entry[], start: string, end: string) =>
    buildCashFlowStatement({
      ...HEADER,
      periodStartDate: start,
      periodEndDate: end,
      accounts: ACCOUNTS,
      activity: figures(ledger, { from: start, to: end, excludeClosing: true }),
      beginningBalances: figures(ledger, { to: addDays(start, -1), excludeClosing: true }),
      endingBalances: figures(ledger, { to: end, excludeClosing: true }),
    });
  type CfRow = [string, string | null, string, string, number];
  const cfRows = (s: {
    lineItems: {
      description: string;
      accountNumber: string | null;
      amount: { value: string };
      style: string;
      indentLevel: number;
    }[];
  }): CfRow[] =>
    s.lineItems.map((l) => [l.description, l.accountNumber, l.amount.value, l.style, l.indentLevel]);

  it('H1 2025, indirect method', () => {
    const cf = cashFlow(CLOSED, '2025-01-01', '2025-06-30');
    expect(cf.method).toBe('indirect');
    expect(cf.beginningCash.value).toBe('33000.00'); // cash 33,000 + petty cash 0 at 2024-12-31
    expect(cf.operatingActivities.title).toBe('Cash Flows from Operating Activities');
    expect(cfRows(cf.operatingActivities)).toEqual([
      ['Net Income', null, '14100.00', 'Normal', 0],
      ['Adjustments for non-cash items', null, '0.00', 'Header', 0],
      ['Accumulated Depreciation', '1510', '1500.00', 'Normal', 1], // −(−1,500)
      ['Fair Value Reserve', '3500', '500.00', 'Normal', 1], // OCI defaults to NonCash: −(−500)
      ['Changes in working capital', null, '0.00', 'Header', 0],
      ['Accounts Receivable', '1200', '20000.00', 'Normal', 1], // decrease of an asset = inflow
      ['Inventory', '1300', '-3000.00', 'Normal', 1], // +18,000 − 15,000 increase = outflow
      ['Accounts Payable', '2000', '10000.00', 'Normal', 1], // −8,000 + 18,000
      ['Income Tax Payable', '2100', '1750.00', 'Normal', 1], // −1,250 + 3,000
      // 14,100 + 1,500 + 500 + 20,000 − 3,000 + 10,000 + 1,750 = 44,850
      ['Net Cash from Operating Activities', null, '44850.00', 'Total', 0],
    ]);
    expect(cf.operatingActivities.netCashFlow.value).toBe('44850.00');
    expect(cfRows(cf.investingActivities)).toEqual([
      ['Investments at Fair Value', '1600', '-2500.00', 'Normal', 1], // 2,000 bought + 500 revaluation
      ['Net Cash from Investing Activities', null, '-2500.00', 'Total', 0],
    ]);
    expect(cfRows(cf.financingActivities)).toEqual([
      ['Bank Loan', '2500', '-5000.00', 'Normal', 1],
      ['Treasury Stock', '3050', '-1000.00', 'Normal', 1],
      ['Dividends', '3300', '-2000.00', 'Normal', 1],
      ['Net Cash from Financing Activities', null, '-8000.00', 'Total', 0],
    ]);
    expect(cf.exchangeRateEffect.value).toBe('0.00');
    expect(cf.netChangeInCash.value).toBe('34350.00'); // 44,850 − 2,500 − 8,000
    expect(cf.endingCash.value).toBe('67350.00'); // 67,250 + 100
    expect(cf.isReconciled).toBe(true); // 33,000 + 34,350 = 67,350
  });

  it('FY 2024 ignores the closing entry (retained earnings show no financing flow)', () => {
    const cf = cashFlow(CLOSED, '2024-01-01', '2024-12-31');
    expect(cf.beginningCash.value).toBe('0.00');
    expect(cfRows(cf.operatingActivities)).toEqual([
      ['Net Income', null, '3750.00', 'Normal', 0],
      ['Adjustments for non-cash items', null, '0.00', 'Header', 0],
      ['Accumulated Depreciation', '1510', '3000.00', 'Normal', 1],
      ['Changes in working capital', null, '0.00', 'Header', 0],
      ['Accounts Receivable', '1200', '-25000.00', 'Normal', 1],
      ['Inventory', '1300', '-2000.00', 'Normal', 1],
      ['Accounts Payable', '2000', '12000.00', 'Normal', 1],
      ['Income Tax Payable', '2100', '1250.00', 'Normal', 1],
      // 3,750 + 3,000 − 25,000 − 2,000 + 12,000 + 1,250 = −7,000
      ['Net Cash from Operating Activities', null, '-7000.00', 'Total', 0],
    ]);
    expect(cfRows(cf.investingActivities)).toEqual([
      ['Equipment', '1500', '-30000.00', 'Normal', 1],
      ['Net Cash from Investing Activities', null, '-30000.00', 'Total', 0],
    ]);
    expect(cfRows(cf.financingActivities)).toEqual([
      ['Bank Loan', '2500', '20000.00', 'Normal', 1],
      ['Share Capital', '3000', '50000.00', 'Normal', 1],
      ['Net Cash from Financing Activities', null, '70000.00', 'Total', 0],
    ]);
    expect(cf.netChangeInCash.value).toBe('33000.00'); // −7,000 − 30,000 + 70,000
    expect(cf.endingCash.value).toBe('33000.00');
    expect(cf.isReconciled).toBe(true);
  });

  it('omits the headers when there are no non-cash or working-capital lines', () => {
    const cf = cashFlow([je('2025-01-02', '1000', '3000', '100')], '2025-01-01', '2025-01-31');
    expect(cfRows(cf.operatingActivities)).toEqual([
      ['Net Income', null, '0.00', 'Normal', 0],
      ['Net Cash from Operating Activities', null, '0.00', 'Total', 0],
    ]);
    expect(cfRows(cf.investingActivities)).toEqual([
      ['Net Cash from Investing Activities', null, '0.00', 'Total', 0],
    ]);
    expect(cf.netChangeInCash.value).toBe('100.00');
    expect(cf.isReconciled).toBe(true);
  });
});

describe('statement of changes in equity', () => {
  const equity = (ledger: readonly Entry[], start: string, end: string) =>
    buildEquityStatement({
      ...HEADER,
      periodStartDate: start,
      periodEndDate: end,
      accounts: ACCOUNTS,
      openingBalances: figures(ledger, { to: addDays(start, -1) }),
      closingBalances: figures(ledger, { to: end }),
      activity: figures(ledger, { from: start, to: end, excludeClosing: true }),
    });
  const cols = (r: {
    contributedCapital: { value: string };
    retainedEarnings: { value: string };
    treasuryStock: { value: string };
    accumulatedOCI: { value: string };
    nonControllingInterest: { value: string };
    total: { value: string };
  }) => [
    r.contributedCapital.value,
    r.retainedEarnings.value,
    r.treasuryStock.value,
    r.accumulatedOCI.value,
    r.nonControllingInterest.value,
    r.total.value,
  ];

  it('H1 2025 after the 2024 close', () => {
    const eq = equity(CLOSED, '2025-01-01', '2025-06-30');
    expect(eq.openingBalances.movementType).toBe('OpeningBalance');
    expect(eq.openingBalances.description).toBe('Opening Balance');
    // capital 50,000; retained earnings 3,750 (closed 2024 NI) + 0 unclosed
    expect(cols(eq.openingBalances)).toEqual(['50000.00', '3750.00', '0.00', '0.00', '0.00', '53750.00']);
    expect(eq.movements.map((m) => [m.movementType, m.description, ...cols(m)])).toEqual([
      ['NetIncome', 'Net Income', '0.00', '14100.00', '0.00', '0.00', '0.00', '14100.00'],
      [
        'OtherComprehensiveIncome',
        'Other Comprehensive Income',
        '0.00',
        '0.00',
        '0.00',
        '500.00',
        '0.00',
        '500.00',
      ],
      ['DividendsDeclared', 'Dividends Declared', '0.00', '-2000.00', '0.00', '0.00', '0.00', '-2000.00'],
      ['StockIssuance', 'Stock Issuance', '0.00', '0.00', '0.00', '0.00', '0.00', '0.00'],
      ['StockRepurchase', 'Stock Repurchase', '0.00', '0.00', '-1000.00', '0.00', '0.00', '-1000.00'],
      ['Other', 'Other Adjustments', '0.00', '0.00', '0.00', '0.00', '0.00', '0.00'],
    ]);
    // retained earnings 3,750 + 14,100 − 2,000 = 15,850 (= 3,750 + dividends −2,000 + unclosed 14,100)
    expect(cols(eq.closingBalances)).toEqual([
      '50000.00',
      '15850.00',
      '-1000.00',
      '500.00',
      '0.00',
      '65350.00',
    ]);
    expect(eq.closingBalances.movementType).toBe('ClosingBalance');
    expect(eq.closingBalances.description).toBe('Closing Balance');
  });

  it('FY 2024 including its year-end close', () => {
    const eq = equity(CLOSED, '2024-01-01', '2024-12-31');
    expect(cols(eq.openingBalances)).toEqual(['0.00', '0.00', '0.00', '0.00', '0.00', '0.00']);
    expect(eq.movements.map((m) => m.total.value)).toEqual([
      '3750.00', // net income (closing entry excluded)
      '0.00',
      '0.00',
      '50000.00', // stock issuance
      '0.00',
      '0.00', // the closing entry's credit to 3200 is not an "Other" movement
    ]);
    // closing: capital 50,000; retained earnings account 3,750 + revenue/expense 0 after close
    expect(cols(eq.closingBalances)).toEqual(['50000.00', '3750.00', '0.00', '0.00', '0.00', '53750.00']);
  });

  it('a manual entry on the retained-earnings account is an "Other" movement', () => {
    const ledger = [...CLOSED, je('2025-03-31', '3200', '2000', '250')]; // prior-period correction
    const eq = equity(ledger, '2025-01-01', '2025-06-30');
    expect(eq.movements[5]!.retainedEarnings.value).toBe('-250.00');
    expect(eq.closingBalances.retainedEarnings.value).toBe('15600.00'); // 15,850 − 250
  });

  it('without a configured retained-earnings account every RetainedEarnings account is a dividend movement', () => {
    const accounts = ACCOUNTS.map((a) => ({ ...a, isRetainedEarningsAccount: false }));
    const ledger = [...CLOSED, je('2025-03-31', '3200', '2000', '250')];
    const eq = buildEquityStatement({
      ...HEADER,
      periodStartDate: '2025-01-01',
      periodEndDate: '2025-06-30',
      accounts,
      openingBalances: figures(ledger, { to: '2024-12-31' }),
      closingBalances: figures(ledger, { to: '2025-06-30' }),
      activity: figures(ledger, { from: '2025-01-01', to: '2025-06-30', excludeClosing: true }),
    });
    expect(eq.movements[2]!.retainedEarnings.value).toBe('-2250.00'); // −2,000 dividends − 250
    expect(eq.movements[5]!.retainedEarnings.value).toBe('0.00');
  });
});

describe('generic helpers for consolidated statements', () => {
  const src = (
    accountNumber: string,
    name: string,
    accountType: LineSource['accountType'],
    accountCategory: LineSource['accountCategory'],
    net: string,
    extra: Partial<LineSource> = {},
  ): LineSource => ({
    accountId: null,
    accountNumber,
    name,
    accountType,
    accountCategory,
    cashFlowCategory: null,
    isCashEquivalent: false,
    net,
    ...extra,
  });

  it('builds balance-sheet sections from lines without accountId; NCI and P&L lines stay out', () => {
    const lines = [
      src('1000', 'Cash', 'Asset', 'CurrentAsset', '900', { isCashEquivalent: true }),
      src('3000', 'Share Capital', 'Equity', 'ContributedCapital', '-500'),
      src('CTA', 'Cumulative translation adjustment', 'Equity', 'OtherComprehensiveIncome', '20'),
      src('RETAINED_EARNINGS', 'Retained earnings', 'Equity', 'RetainedEarnings', '-100'),
      src('NCI', 'Non-controlling interest', 'Equity', 'NonControllingInterest', '-60'),
      src('4000', 'Sales', 'Revenue', 'OperatingRevenue', '-260'),
    ];
    // consolidated equity section: equity lines except NCI + "Current Year Earnings" = NI to parent (240)
    const s = balanceSheetSections({
      currency: 'EUR',
      hasComparative: false,
      sources: lines,
      equityExtraLines: [computedLine('Current Year Earnings', '240', null)],
    });
    expect(rows(s.equity)).toEqual([
      ['3000', '500.00', null, null, null],
      ['CTA', '-20.00', null, null, null], // synthetic numbers after numeric ones, input order kept
      ['RETAINED_EARNINGS', '100.00', null, null, null],
      ['Current Year Earnings', '240.00', null, null, null],
    ]);
    expect(s.equity.lineItems.every((l) => l.accountId === null && l.comparativeAmount === null)).toBe(true);
    expect(s.totalAssets).toEqual({ value: '900.00', currency: 'EUR' });
    // 900 = 0 liabilities + equity 820 + NCI (60 line + 20 NCI share of NI) = 900
    expect(moneyValue(s.equity.subtotal).plus(80).equals(900)).toBe(true);
  });

  it('builds income-statement sections and cash-flow sections from consolidated lines', () => {
    const is = incomeStatementSections({
      currency: 'USD',
      hasComparative: false,
      sources: [
        src('4000', 'Sales', 'Revenue', 'OperatingRevenue', '-1000'),
        src('EQUITY_METHOD_INCOME', 'Share of profit of B', 'Revenue', 'OtherRevenue', '-50'),
        src('6000', 'Rent', 'Expense', 'OperatingExpense', '300'),
      ],
    });
    expect(rows(is.otherIncomeExpense)).toEqual([['EQUITY_METHOD_INCOME', '50.00', null, null, null]]);
    expect(is.netIncome.value).toBe('750.00'); // 1,000 − 300 + 50

    const cf = cashFlowBody({
      currency: 'USD',
      netIncome: '750',
      sources: [
        src('1000', 'Cash', 'Asset', 'CurrentAsset', '800', { isCashEquivalent: true }), // skipped
        src('1200', 'Receivables', 'Asset', 'CurrentAsset', '100'),
        src('NCI', 'Non-controlling interest', 'Equity', 'NonControllingInterest', '-40', {
          cashFlowCategory: 'Financing',
        }),
        src('EQUITY_METHOD_INVESTMENT', 'Investment in B', 'Asset', 'NonCurrentAsset', '50', {
          cashFlowCategory: 'NonCash',
        }),
      ],
      beginningCash: '200',
      endingCash: '1000',
      exchangeRateEffect: '60', // −ΔCTA
    });
    // operating 750 − 50 (equity-method investment, NonCash) − 100 (receivables) = 600; financing +40;
    // net change 600 + 0 + 40 + 60 = 700
    expect(cf.operatingActivities.netCashFlow.value).toBe('600.00');
    expect(cf.financingActivities.netCashFlow.value).toBe('40.00');
    expect(cf.netChangeInCash.value).toBe('700.00');
    expect(cf.isReconciled).toBe(false); // 200 + 700 ≠ 1,000: the helper reports, never forces
    expect(() =>
      cashFlowBody({
        currency: 'USD',
        netIncome: '0',
        sources: [src('NCI', 'Non-controlling interest', 'Equity', 'NonControllingInterest', '-40')],
        beginningCash: '0',
        endingCash: '0',
        exchangeRateEffect: '0',
      }),
    ).toThrow(/No cash-flow category/);
  });

  it('builds equity rows with the NCI column', () => {
    const eq = equityStatementRows({
      currency: 'USD',
      opening: { contributedCapital: '1000', nonControllingInterest: '200' },
      movements: { NetIncome: { retainedEarnings: '90', nonControllingInterest: '10' } },
      closing: { contributedCapital: '1000', retainedEarnings: '90', nonControllingInterest: '210' },
    });
    expect(eq.movements).toHaveLength(6);
    expect(eq.movements[0]!.total.value).toBe('100.00');
    expect(eq.closingBalances.total.value).toBe('1300.00');
  });
});

// ---------------------------------------------------------------------------------------------------
// Properties on random balanced ledgers
// ---------------------------------------------------------------------------------------------------

const POSTABLE = ACCOUNTS.filter((a) => a.isPostable).map((a) => a.accountNumber);
const DAYS = 731; // 2024-01-01 … 2025-12-31

const entryArb = fc
  .record({
    day: fc.integer({ min: 0, max: DAYS - 1 }),
    closing: fc.boolean(),
    legs: fc.array(
      fc.record({
        account: fc.constantFrom(...POSTABLE),
        cents: fc.integer({ min: 1, max: 10_000_000 }),
        debit: fc.boolean(),
      }),
      { minLength: 1, maxLength: 4 },
    ),
    balancing: fc.constantFrom(...POSTABLE),
  })
  .map(({ day, closing, legs, balancing }): Entry => {
    const lines: Line[] = legs.map((l) => {
      const amount = new Decimal(l.cents).dividedBy(100).toFixed(2);
      return l.debit ? { account: l.account, debit: amount } : { account: l.account, credit: amount };
    });
    const net = lines.reduce((t, l) => t.plus(l.debit ?? 0).minus(l.credit ?? 0), ZERO);
    if (!net.isZero()) {
      lines.push(
        net.greaterThan(0)
          ? { account: balancing, credit: net.toFixed(2) }
          : { account: balancing, debit: net.negated().toFixed(2) },
      );
    }
    // Client "closing" entries here close dividends into retained earnings (both in the
    // retained-earnings column); other random entries are ordinary.
    const date = addDays('2024-01-01', day);
    if (closing) {
      const amount = new Decimal(legs[0]!.cents).dividedBy(100).toFixed(2);
      return je(date, '3200', '3300', amount, true);
    }
    return { date, lines };
  });

const ledgerArb = fc
  .record({ entries: fc.array(entryArb, { maxLength: 25 }), close2024: fc.boolean() })
  .map(({ entries, close2024 }) => {
    if (!close2024) return entries;
    const close = yearEndClose(entries, '2024-01-01', '2024-12-31');
    return close ? [...entries, close] : entries;
  });

const dayArb = fc.integer({ min: 0, max: DAYS - 1 }).map((d) => addDays('2024-01-01', d));
const rangeArb = fc.tuple(dayArb, dayArb).map(([a, b]) => (a <= b ? ([a, b] as const) : ([b, a] as const)));

describe('properties', () => {
  it('trial balance: total debits equal total credits for any date, period and closing option', () => {
    fc.assert(
      fc.property(
        ledgerArb,
        rangeArb,
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        (ledger, [from, to], period, excl, zero) => {
          const tb = buildTrialBalance({
            ...HEADER,
            asOfDate: to,
            periodStartDate: period ? from : null,
            accounts: ACCOUNTS,
            figures: figures(ledger, { from: period ? from : undefined, to, excludeClosing: excl }),
            excludeZeroBalances: zero,
          });
          expect(tb.totalDebits).toEqual(tb.totalCredits);
          expect(tb.isBalanced).toBe(true);
        },
      ),
    );
  });

  it('balance sheet: total assets = total liabilities + equity at the date and at the comparative date', () => {
    fc.assert(
      fc.property(ledgerArb, dayArb, dayArb, fc.boolean(), (ledger, date, cmp, zero) => {
        const bs = buildBalanceSheet({
          ...HEADER,
          asOfDate: date,
          comparativeDate: cmp,
          accounts: ACCOUNTS,
          ...balanceSheetAt(ledger, date, `${date.slice(0, 4)}-01-01`),
          comparative: balanceSheetAt(ledger, cmp, `${cmp.slice(0, 4)}-01-01`),
          includeZeroBalances: zero,
        });
        expect(bs.isBalanced).toBe(true);
        expect(bs.totalAssets).toEqual(bs.totalLiabilitiesAndEquity);
        const c = (s: ReportSection) => dec(s.comparativeSubtotal!.value);
        expect(c(bs.currentAssets).plus(c(bs.nonCurrentAssets)).toFixed(2)).toBe(
          c(bs.currentLiabilities).plus(c(bs.nonCurrentLiabilities)).plus(c(bs.equity)).toFixed(2),
        );
      }),
    );
  });

  it('income statement: net income = Σ revenue and expense activity (credit − debit), closing entries excluded', () => {
    fc.assert(
      fc.property(ledgerArb, rangeArb, (ledger, [from, to]) => {
        const is = buildIncomeStatement({
          ...HEADER,
          periodStartDate: from,
          periodEndDate: to,
          comparativeStartDate: null,
          comparativeEndDate: null,
          accounts: ACCOUNTS,
          activity: figures(ledger, { from, to, excludeClosing: true }),
          comparativeActivity: null,
        });
        expect(is.netIncome.value).toBe(dec(earnings(ledger, { from, to, excludeClosing: true })).toFixed(2));
      }),
    );
  });

  it('cash flow: beginning cash + net change in cash = ending cash (isReconciled)', () => {
    fc.assert(
      fc.property(ledgerArb, rangeArb, (ledger, [from, to]) => {
        const cf = buildCashFlowStatement({
          ...HEADER,
          periodStartDate: from,
          periodEndDate: to,
          accounts: ACCOUNTS,
          activity: figures(ledger, { from, to, excludeClosing: true }),
          beginningBalances: figures(ledger, { to: addDays(from, -1), excludeClosing: true }),
          endingBalances: figures(ledger, { to, excludeClosing: true }),
        });
        expect(cf.isReconciled).toBe(true);
        expect(dec(cf.beginningCash.value).plus(cf.netChangeInCash.value).toFixed(2)).toBe(
          cf.endingCash.value,
        );
        for (const s of [cf.operatingActivities, cf.investingActivities, cf.financingActivities]) {
          const normal = s.lineItems
            .filter((l) => l.style === 'Normal')
            .reduce((t, l) => t.plus(l.amount.value), ZERO);
          expect(normal.toFixed(2)).toBe(s.netCashFlow.value);
          expect(s.lineItems.at(-1)!.amount).toEqual(s.netCashFlow);
        }
      }),
    );
  });

  it('equity statement: closing = opening + Σ movements for every column, and closing total = balance-sheet equity', () => {
    fc.assert(
      fc.property(ledgerArb, rangeArb, (ledger, [from, to]) => {
        const eq = buildEquityStatement({
          ...HEADER,
          periodStartDate: from,
          periodEndDate: to,
          accounts: ACCOUNTS,
          openingBalances: figures(ledger, { to: addDays(from, -1) }),
          closingBalances: figures(ledger, { to }),
          activity: figures(ledger, { from, to, excludeClosing: true }),
        });
        for (const col of [...EQUITY_COLUMNS, 'total'] as const) {
          const expected = eq.movements.reduce(
            (t, m) => t.plus(m[col].value),
            dec(eq.openingBalances[col].value),
          );
          expect(expected.toFixed(2)).toBe(eq.closingBalances[col].value);
        }
        expect(eq.closingBalances.nonControllingInterest.value).toBe('0.00');
        const bs = buildBalanceSheet({
          ...HEADER,
          asOfDate: to,
          comparativeDate: null,
          accounts: ACCOUNTS,
          ...balanceSheetAt(ledger, to, `${to.slice(0, 4)}-01-01`),
          comparative: null,
          includeZeroBalances: false,
        });
        expect(eq.closingBalances.total).toEqual(bs.totalEquity);
      }),
    );
  });
});
