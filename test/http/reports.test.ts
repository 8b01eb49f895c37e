/**
 * Company reports (contract 3.13) through the real API: companies created with the GeneralBusiness
 * template, journal entries created and posted (organization setting requireApproval false), a
 * reversal, and a year-end close. Hand-computed expectations state their arithmetic in comments.
 */

import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dec, sum, toFixedString } from '../../src/domain/money.ts';
import { createTestContext, type TestContext, type TestUser, uniq } from '../helpers/app.ts';

let t: TestContext;
let owner: TestUser;
let org: { id: string };

beforeAll(async () => {
  t = await createTestContext();
  owner = await t.user('owner');
  org = await t.org(owner, { settings: { requireApproval: false } });
});
afterAll(async () => {
  await t.close();
});

// ---------------------------------------------------------------------------------------------------
// API helpers
// ---------------------------------------------------------------------------------------------------

interface Company {
  id: string;
  organizationId: string;
  /** account number → id */
  acc: Record<string, string>;
  /** postable account numbers */
  postable: string[];
}

async function createCompany(
  user: TestUser,
  organizationId: string,
  fiscalYearEnd = { month: 12, day: 31 },
): Promise<Company> {
  const res = await t.post('/api/v1/companies', {
    token: user.token,
    body: {
      organizationId,
      name: uniq('Co'),
      legalName: 'Report Co Ltd',
      jurisdiction: 'US-DE',
      functionalCurrency: 'USD',
      reportingCurrency: 'USD',
      fiscalYearEnd,
      accountTemplate: 'GeneralBusiness',
    },
  });
  if (res.status !== 201) throw new Error(`create company: ${res.status} ${JSON.stringify(res.body)}`);
  const list = await t.get('/api/v1/accounts', {
    token: user.token,
    query: { organizationId, companyId: res.body.id, limit: 100 },
  });
  if (list.status !== 200) throw new Error(`list accounts: ${list.status} ${JSON.stringify(list.body)}`);
  const acc: Record<string, string> = {};
  const postable: string[] = [];
  for (const a of list.body.accounts) {
    acc[a.accountNumber] = a.id;
    if (a.isPostable) postable.push(a.accountNumber);
  }
  return { id: res.body.id, organizationId, acc, postable };
}

type Line = [accountNumber: string, side: 'D' | 'C', value: string];

/** Creates and directly posts an entry (requireApproval is false); returns the posted entry. */
async function post(
  user: TestUser,
  co: Company,
  transactionDate: string,
  lines: Line[],
  extra: Record<string, unknown> = {},
): Promise<any> {
  const created = await t.post('/api/v1/journal-entries', {
    token: user.token,
    body: {
      organizationId: co.organizationId,
      companyId: co.id,
      description: `Entry ${transactionDate}`,
      transactionDate,
      lines: lines.map(([num, side, value]) => ({
        accountId: co.acc[num],
        [side === 'D' ? 'debitAmount' : 'creditAmount']: { value, currency: 'USD' },
      })),
      ...extra,
    },
  });
  if (created.status !== 201)
    throw new Error(`create entry: ${created.status} ${JSON.stringify(created.body)}`);
  const posted = await t.post(`/api/v1/journal-entries/${created.body.id}/post`, {
    token: user.token,
    body: { organizationId: co.organizationId },
  });
  if (posted.status !== 200) throw new Error(`post entry: ${posted.status} ${JSON.stringify(posted.body)}`);
  return posted.body;
}

async function reverse(user: TestUser, co: Company, entryId: string, reversalDate: string): Promise<any> {
  const res = await t.post(`/api/v1/journal-entries/${entryId}/reverse`, {
    token: user.token,
    body: { organizationId: co.organizationId, reversalDate },
  });
  if (res.status !== 201) throw new Error(`reverse: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function closeYear(user: TestUser, co: Company, year: number): Promise<any> {
  const base = `/api/v1/organizations/${co.organizationId}/companies/${co.id}/fiscal-years`;
  const years = await t.get(base, { token: user.token, query: { limit: 100 } });
  if (years.status !== 200) throw new Error(`list years: ${years.status} ${JSON.stringify(years.body)}`);
  let fy = years.body.fiscalYears.find((y: any) => y.year === year);
  if (!fy) {
    // No entry needed the year yet: create it explicitly (closing an empty year posts nothing).
    const created = await t.post(base, { token: user.token, body: { year } });
    if (created.status !== 201)
      throw new Error(`create year: ${created.status} ${JSON.stringify(created.body)}`);
    fy = created.body;
  }
  const res = await t.post(`${base}/${fy.id}/close`, { token: user.token });
  if (res.status !== 200) throw new Error(`close: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

type Kind = 'trial-balance' | 'balance-sheet' | 'income-statement' | 'cash-flow' | 'equity-statement';

function report(kind: Kind, user: TestUser, co: Company, query: Record<string, string | boolean> = {}) {
  return t.get(`/api/v1/reports/${kind}`, {
    token: user.token,
    query: { organizationId: co.organizationId, companyId: co.id, ...query },
  });
}

async function ok(kind: Kind, user: TestUser, co: Company, query: Record<string, string | boolean> = {}) {
  const res = await report(kind, user, co, query);
  if (res.status !== 200) throw new Error(`${kind}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const usd = (value: string) => ({ value, currency: 'USD' });

/** `{accountNumber or description: current value}` of a ReportSection or cash-flow section. */
function lines(section: { lineItems: any[] }): Record<string, string> {
  const out: Record<string, string> = {};
  for (const l of section.lineItems) {
    out[l.accountNumber ?? l.description] = (l.currentAmount ?? l.amount).value;
  }
  return out;
}

/** `{accountNumber: [debit, credit]}` of a trial balance. */
function tbLines(tb: any): Record<string, [string, string]> {
  const out: Record<string, [string, string]> = {};
  for (const l of tb.lineItems) out[l.accountNumber] = [l.debitBalance.value, l.creditBalance.value];
  return out;
}

/** The five columns and total of an EquityRow, as values. */
function row(r: any): string[] {
  return [
    r.contributedCapital.value,
    r.retainedEarnings.value,
    r.treasuryStock.value,
    r.accumulatedOCI.value,
    r.nonControllingInterest.value,
    r.total.value,
  ];
}

// ---------------------------------------------------------------------------------------------------
// A year of business, a reversal, the next year and the year-end close
// ---------------------------------------------------------------------------------------------------

describe('company reports on a hand-computed ledger', () => {
  let co: Company;
  let utilities: any;

  beforeAll(async () => {
    co = await createCompany(owner, org.id);
    // FY2025 (calendar year).
    await post(owner, co, '2025-01-05', [
      ['1010', 'D', '10000'],
      ['3000', 'C', '10000'],
    ]); // stock issued for cash
    await post(owner, co, '2025-01-20', [
      ['1200', 'D', '3000'],
      ['2000', 'C', '3000'],
    ]); // inventory bought on credit
    await post(owner, co, '2025-02-10', [
      ['1100', 'D', '5000'],
      ['4000', 'C', '5000'],
    ]); // sales on credit
    await post(owner, co, '2025-02-15', [
      ['5000', 'D', '2000'],
      ['1200', 'C', '2000'],
    ]); // cost of the goods sold
    await post(owner, co, '2025-03-01', [
      ['6300', 'D', '1000'],
      ['1010', 'C', '1000'],
    ]); // rent paid
    await post(owner, co, '2025-03-15', [
      ['1010', 'D', '4000'],
      ['1100', 'C', '4000'],
    ]); // customers pay
    await post(owner, co, '2025-04-01', [
      ['1540', 'D', '2400'],
      ['1010', 'C', '2400'],
    ]); // computer equipment bought
    await post(owner, co, '2025-06-30', [
      ['7000', 'D', '200'],
      ['1630', 'C', '200'],
    ]); // depreciation
    await post(owner, co, '2025-07-01', [
      ['1010', 'D', '5000'],
      ['2500', 'C', '5000'],
    ]); // long-term loan received
    await post(owner, co, '2025-08-01', [
      ['8100', 'D', '50'],
      ['1010', 'C', '50'],
    ]); // interest paid
    await post(owner, co, '2025-09-01', [
      ['1010', 'D', '30'],
      ['8000', 'C', '30'],
    ]); // interest received
    await post(owner, co, '2025-10-01', [
      ['8500', 'D', '300'],
      ['2130', 'C', '300'],
    ]); // income tax accrued
    utilities = await post(owner, co, '2025-11-01', [
      ['6400', 'D', '999'],
      ['1010', 'C', '999'],
    ]); // a mistake, reversed on 2025-11-05
    await reverse(owner, co, utilities.id, '2025-11-05');
    await post(owner, co, '2025-12-01', [
      ['3600', 'D', '500'],
      ['1010', 'C', '500'],
    ]); // dividends paid
    await post(owner, co, '2025-12-10', [
      ['1800', 'D', '100'],
      ['3500', 'C', '100'],
    ]); // other comprehensive income
    await post(owner, co, '2025-12-15', [
      ['3400', 'D', '700'],
      ['1010', 'C', '700'],
    ]); // treasury shares bought back
    // FY2026, January.
    await post(owner, co, '2026-01-10', [
      ['1010', 'D', '1500'],
      ['4100', 'C', '1500'],
    ]); // services sold for cash
    await post(owner, co, '2026-01-20', [
      ['6000', 'D', '600'],
      ['1010', 'C', '600'],
    ]); // salaries paid
  });

  // Cash 1010 at 2025-12-31: 10000 − 1000 + 4000 − 2400 + 5000 − 50 + 30 − 999 + 999 − 500 − 700 = 14380.

  it('trial balance at 2025-12-31: every account with a balance, debits = credits', async () => {
    const tb = await ok('trial-balance', owner, co, { asOfDate: '2025-12-31' });
    expect(tb).toMatchObject({
      companyId: co.id,
      asOfDate: '2025-12-31',
      periodStartDate: null,
      currency: 'USD',
      isBalanced: true,
    });
    expect(tb.generatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // 6400 Utilities nets to zero (999 − 999) and is omitted (excludeZeroBalances defaults to true).
    expect(tbLines(tb)).toEqual({
      '1010': ['14380.00', '0.00'],
      '1100': ['1000.00', '0.00'], // 5000 − 4000
      '1200': ['1000.00', '0.00'], // 3000 − 2000
      '1540': ['2400.00', '0.00'],
      '1630': ['0.00', '200.00'],
      '1800': ['100.00', '0.00'],
      '2000': ['0.00', '3000.00'],
      '2130': ['0.00', '300.00'],
      '2500': ['0.00', '5000.00'],
      '3000': ['0.00', '10000.00'],
      '3400': ['700.00', '0.00'],
      '3500': ['0.00', '100.00'],
      '3600': ['500.00', '0.00'],
      '4000': ['0.00', '5000.00'],
      '5000': ['2000.00', '0.00'],
      '6300': ['1000.00', '0.00'],
      '7000': ['200.00', '0.00'],
      '8000': ['0.00', '30.00'],
      '8100': ['50.00', '0.00'],
      '8500': ['300.00', '0.00'],
    });
    // Debits: 14380 + 1000 + 1000 + 2400 + 100 + 700 + 500 + 2000 + 1000 + 200 + 50 + 300 = 23630.
    // Credits: 200 + 3000 + 300 + 5000 + 10000 + 100 + 5000 + 30 = 23630.
    expect(tb.totalDebits).toEqual(usd('23630.00'));
    expect(tb.totalCredits).toEqual(usd('23630.00'));
    expect(tb.lineItems[0]).toEqual({
      accountId: co.acc['1010'],
      accountNumber: '1010',
      accountName: 'Cash - Operating Account',
      accountType: 'Asset',
      accountCategory: 'CurrentAsset',
      debitBalance: usd('14380.00'),
      creditBalance: usd('0.00'),
    });
  });

  it('trial balance of a reversed entry: both the entry and its reversal count', async () => {
    // Up to 2025-11-04 only the original utilities entry is in the ledger (the reversal is dated 11-05).
    const before = tbLines(await ok('trial-balance', owner, co, { asOfDate: '2025-11-04' }));
    expect(before['6400']).toEqual(['999.00', '0.00']);
    // Activity 2025-11-01…2025-11-30: utilities 999 − 999 = 0 (omitted); cash −999 + 999 = 0.
    const nov = await ok('trial-balance', owner, co, {
      asOfDate: '2025-11-30',
      periodStartDate: '2025-11-01',
    });
    expect(nov.lineItems).toEqual([]);
    expect(nov.periodStartDate).toBe('2025-11-01');
    // With zero balances: every postable account (78 template accounts − 6 summary accounts).
    const all = await ok('trial-balance', owner, co, {
      asOfDate: '2025-11-30',
      periodStartDate: '2025-11-01',
      excludeZeroBalances: false,
    });
    expect(all.lineItems).toHaveLength(72);
    expect(all.lineItems.map((l: any) => l.accountNumber)).not.toContain('1000');
    expect(all.totalDebits).toEqual(usd('0.00'));
  });

  it('trial balance activity for January 2026', async () => {
    const tb = await ok('trial-balance', owner, co, {
      asOfDate: '2026-01-31',
      periodStartDate: '2026-01-01',
    });
    // Cash 1500 − 600 = 900 debit; service revenue 1500 credit; salaries 600 debit.
    expect(tbLines(tb)).toEqual({
      '1010': ['900.00', '0.00'],
      '4100': ['0.00', '1500.00'],
      '6000': ['600.00', '0.00'],
    });
    expect(tb.totalDebits).toEqual(usd('1500.00'));
  });

  it('income statement FY2025 with every section', async () => {
    const is = await ok('income-statement', owner, co, {
      periodStartDate: '2025-01-01',
      periodEndDate: '2025-12-31',
    });
    expect(is).toMatchObject({
      companyId: co.id,
      periodStartDate: '2025-01-01',
      periodEndDate: '2025-12-31',
      comparativeStartDate: null,
      comparativeEndDate: null,
      currency: 'USD',
    });
    expect(is.revenue.title).toBe('Revenue');
    expect(lines(is.revenue)).toEqual({ '4000': '5000.00' });
    expect(is.revenue.subtotal).toEqual(usd('5000.00'));
    expect(is.revenue.comparativeSubtotal).toBeNull();
    expect(lines(is.costOfSales)).toEqual({ '5000': '2000.00' });
    expect(is.grossProfit).toEqual(usd('3000.00')); // 5000 − 2000
    // Utilities (6400) had 999 − 999 = 0 activity: omitted.
    expect(lines(is.operatingExpenses)).toEqual({ '6300': '1000.00', '7000': '200.00' });
    expect(is.operatingIncome).toEqual(usd('1800.00')); // 3000 − 1200
    expect(is.otherIncomeExpense.title).toBe('Other Income and Expenses');
    // Interest income +30, interest expense −50 (credit − debit): net −20.
    expect(lines(is.otherIncomeExpense)).toEqual({ '8000': '30.00', '8100': '-50.00' });
    expect(is.incomeBeforeTax).toEqual(usd('1780.00')); // 1800 − 20
    expect(is.taxExpense).toEqual(usd('300.00'));
    expect(is.netIncome).toEqual(usd('1480.00')); // 1780 − 300
    expect(is.revenue.lineItems[0]).toEqual({
      accountId: co.acc['4000'],
      accountNumber: '4000',
      description: 'Sales Revenue',
      currentAmount: usd('5000.00'),
      comparativeAmount: null,
      variance: null,
      variancePercentage: null,
      style: 'Normal',
      indentLevel: 1,
    });
  });

  it('income statement between an entry and its reversal shows the entry', async () => {
    const is = await ok('income-statement', owner, co, {
      periodStartDate: '2025-11-01',
      periodEndDate: '2025-11-04',
    });
    expect(lines(is.operatingExpenses)).toEqual({ '6400': '999.00' });
    expect(is.netIncome).toEqual(usd('-999.00'));
  });

  it('income statement with a comparative period', async () => {
    const is = await ok('income-statement', owner, co, {
      periodStartDate: '2026-01-01',
      periodEndDate: '2026-01-31',
      comparativeStartDate: '2025-01-01',
      comparativeEndDate: '2025-12-31',
    });
    expect(is.comparativeStartDate).toBe('2025-01-01');
    expect(is.comparativeEndDate).toBe('2025-12-31');
    // 4000: current 0, comparative 5000, variance −5000, −5000 ÷ 5000 × 100 = −100.00 %.
    // 4100: current 1500, comparative 0 → no percentage.
    expect(
      is.revenue.lineItems.map((l: any) => [
        l.accountNumber,
        l.currentAmount.value,
        l.comparativeAmount.value,
        l.variance.value,
        l.variancePercentage,
      ]),
    ).toEqual([
      ['4000', '0.00', '5000.00', '-5000.00', '-100.00'],
      ['4100', '1500.00', '0.00', '1500.00', null],
    ]);
    expect(is.revenue.subtotal).toEqual(usd('1500.00'));
    expect(is.revenue.comparativeSubtotal).toEqual(usd('5000.00'));
    expect(is.netIncome).toEqual(usd('900.00')); // 1500 − 600
  });

  it('balance sheet at 2025-12-31 balances with current year earnings', async () => {
    const bs = await ok('balance-sheet', owner, co, { asOfDate: '2025-12-31' });
    expect(bs).toMatchObject({
      companyId: co.id,
      asOfDate: '2025-12-31',
      comparativeDate: null,
      currency: 'USD',
    });
    expect(lines(bs.currentAssets)).toEqual({ '1010': '14380.00', '1100': '1000.00', '1200': '1000.00' });
    expect(bs.currentAssets.subtotal).toEqual(usd('16380.00')); // 14380 + 1000 + 1000
    // Accumulated depreciation is a contra asset: negative within its section.
    expect(lines(bs.nonCurrentAssets)).toEqual({ '1540': '2400.00', '1630': '-200.00', '1800': '100.00' });
    expect(bs.totalAssets).toEqual(usd('18680.00')); // 16380 + 2400 − 200 + 100
    expect(lines(bs.currentLiabilities)).toEqual({ '2000': '3000.00', '2130': '300.00' });
    expect(lines(bs.nonCurrentLiabilities)).toEqual({ '2500': '5000.00' });
    expect(bs.totalLiabilities).toEqual(usd('8300.00')); // 3300 + 5000
    // Net income 2025 = 5000 + 30 − 2000 − 1000 − 200 − 50 − 300 = 1480 (not yet closed).
    expect(lines(bs.equity)).toEqual({
      '3000': '10000.00',
      '3400': '-700.00',
      '3500': '100.00',
      '3600': '-500.00',
      'Current Year Earnings': '1480.00',
    });
    expect(bs.totalEquity).toEqual(usd('10380.00')); // 10000 − 700 + 100 − 500 + 1480
    expect(bs.totalLiabilitiesAndEquity).toEqual(usd('18680.00')); // 8300 + 10380
    expect(bs.isBalanced).toBe(true);
    const cye = bs.equity.lineItems.at(-1);
    expect(cye).toMatchObject({ accountId: null, accountNumber: null, style: 'Normal', indentLevel: 1 });
  });

  it('balance sheet shows unclosed prior-year earnings, and zero balances on request', async () => {
    const bs = await ok('balance-sheet', owner, co, { asOfDate: '2026-01-31', includeZeroBalances: true });
    // FY2026: 1500 − 600 = 900; FY2025 is not closed yet: 1480 of prior years.
    const eq = lines(bs.equity);
    expect(eq['Current Year Earnings']).toBe('900.00');
    expect(eq['Unclosed Earnings of Prior Years']).toBe('1480.00');
    expect(eq['3300']).toBe('0.00'); // postable, zero, shown
    expect(lines(bs.currentAssets)['1020']).toBe('0.00');
    expect(lines(bs.currentAssets)['1000']).toBeUndefined(); // summary account
    expect(bs.totalAssets).toEqual(usd('19580.00')); // 18680 + 900 of cash
    expect(bs.isBalanced).toBe(true);
  });

  it('cash-flow statement FY2025 reconciles', async () => {
    const cf = await ok('cash-flow', owner, co, {
      periodStartDate: '2025-01-01',
      periodEndDate: '2025-12-31',
      method: 'indirect',
    });
    expect(cf).toMatchObject({ companyId: co.id, method: 'indirect', currency: 'USD', isReconciled: true });
    expect(cf.beginningCash).toEqual(usd('0.00'));
    expect(cf.endingCash).toEqual(usd('14380.00'));
    const op = cf.operatingActivities;
    expect(op.title).toBe('Cash Flows from Operating Activities');
    expect(op.lineItems.map((l: any) => [l.description, l.amount.value, l.style, l.indentLevel])).toEqual([
      ['Net Income', '1480.00', 'Normal', 0],
      ['Adjustments for non-cash items', '0.00', 'Header', 0],
      ['Accumulated Depreciation - Equipment', '200.00', 'Normal', 1], // −(−200)
      ['Accumulated Other Comprehensive Income', '100.00', 'Normal', 1], // NonCash by default
      ['Changes in working capital', '0.00', 'Header', 0],
      ['Accounts Receivable', '-1000.00', 'Normal', 1], // −(5000 − 4000)
      ['Inventory', '-1000.00', 'Normal', 1], // −(3000 − 2000)
      ['Accounts Payable', '3000.00', 'Normal', 1],
      ['Accrued Taxes', '300.00', 'Normal', 1],
      ['Net Cash from Operating Activities', '3080.00', 'Total', 0],
    ]);
    // 1480 + 200 + 100 − 1000 − 1000 + 3000 + 300 = 3080.
    expect(op.netCashFlow).toEqual(usd('3080.00'));
    // Investing: equipment −2400, other non-current asset −100.
    expect(lines(cf.investingActivities)).toEqual({
      '1540': '-2400.00',
      '1800': '-100.00',
      'Net Cash from Investing Activities': '-2500.00',
    });
    // Financing: loan 5000 + stock 10000 − treasury 700 − dividends 500 = 13800.
    expect(lines(cf.financingActivities)).toEqual({
      '2500': '5000.00',
      '3000': '10000.00',
      '3400': '-700.00',
      '3600': '-500.00',
      'Net Cash from Financing Activities': '13800.00',
    });
    expect(cf.exchangeRateEffect).toEqual(usd('0.00'));
    expect(cf.netChangeInCash).toEqual(usd('14380.00')); // 3080 − 2500 + 13800
  });

  it('equity statement FY2025: closing = opening + movements', async () => {
    const es = await ok('equity-statement', owner, co, {
      periodStartDate: '2025-01-01',
      periodEndDate: '2025-12-31',
    });
    expect(es).toMatchObject({
      companyId: co.id,
      periodStartDate: '2025-01-01',
      periodEndDate: '2025-12-31',
    });
    // Columns: contributed capital, retained earnings, treasury stock, AOCI, NCI, total.
    expect(es.openingBalances.movementType).toBe('OpeningBalance');
    expect(es.openingBalances.description).toBe('Opening Balance');
    expect(row(es.openingBalances)).toEqual(['0.00', '0.00', '0.00', '0.00', '0.00', '0.00']);
    expect(es.movements.map((m: any) => [m.movementType, m.description, ...row(m)])).toEqual([
      ['NetIncome', 'Net Income', '0.00', '1480.00', '0.00', '0.00', '0.00', '1480.00'],
      [
        'OtherComprehensiveIncome',
        'Other Comprehensive Income',
        '0.00',
        '0.00',
        '0.00',
        '100.00',
        '0.00',
        '100.00',
      ],
      ['DividendsDeclared', 'Dividends Declared', '0.00', '-500.00', '0.00', '0.00', '0.00', '-500.00'],
      ['StockIssuance', 'Stock Issuance', '10000.00', '0.00', '0.00', '0.00', '0.00', '10000.00'],
      ['StockRepurchase', 'Stock Repurchase', '0.00', '0.00', '-700.00', '0.00', '0.00', '-700.00'],
      ['Other', 'Other Adjustments', '0.00', '0.00', '0.00', '0.00', '0.00', '0.00'],
    ]);
    // Retained earnings column: 3300 (0) + 3600 (−500) + unclosed earnings 1480 = 980.
    expect(row(es.closingBalances)).toEqual(['10000.00', '980.00', '-700.00', '100.00', '0.00', '10380.00']);
    expect(es.closingBalances.movementType).toBe('ClosingBalance');
  });

  describe('after the year-end close of FY2025', () => {
    beforeAll(async () => {
      const result = await closeYear(owner, co, 2025);
      expect(result.netIncome).toEqual(usd('1480.00')); // −T = 5030 − 3550
      expect(result.closingEntryIds).toHaveLength(1);
    });

    it('the balance sheet still balances; earnings moved into retained earnings', async () => {
      const bs = await ok('balance-sheet', owner, co, { asOfDate: '2025-12-31' });
      // The closing entry (dated 2025-12-31) credits 3300 with 1480 and zeroes revenue and expenses.
      expect(lines(bs.equity)).toEqual({
        '3000': '10000.00',
        '3300': '1480.00',
        '3400': '-700.00',
        '3500': '100.00',
        '3600': '-500.00',
        'Current Year Earnings': '0.00',
      });
      expect(bs.totalEquity).toEqual(usd('10380.00'));
      expect(bs.totalAssets).toEqual(usd('18680.00'));
      expect(bs.isBalanced).toBe(true);
    });

    it('the next year no longer shows unclosed prior earnings; comparative figures', async () => {
      const bs = await ok('balance-sheet', owner, co, {
        asOfDate: '2026-01-31',
        comparativeDate: '2025-12-31',
      });
      expect(lines(bs.equity)['Unclosed Earnings of Prior Years']).toBeUndefined();
      const cye = bs.equity.lineItems.find((l: any) => l.description === 'Current Year Earnings');
      expect(cye.currentAmount).toEqual(usd('900.00'));
      expect(cye.comparativeAmount).toEqual(usd('0.00'));
      const cash = bs.currentAssets.lineItems.find((l: any) => l.accountNumber === '1010');
      // 14380 + 900 = 15280; variance 900; 900 ÷ 14380 × 100 = 6.2586… → 6.26.
      expect(cash).toMatchObject({
        currentAmount: usd('15280.00'),
        comparativeAmount: usd('14380.00'),
        variance: usd('900.00'),
        variancePercentage: '6.26',
      });
      expect(bs.currentAssets.comparativeSubtotal).toEqual(usd('16380.00'));
      expect(bs.totalLiabilitiesAndEquity).toEqual(usd('19580.00')); // 8300 + 10380 + 900
      expect(bs.isBalanced).toBe(true);
    });

    it('the income statement still shows the closed year', async () => {
      const is = await ok('income-statement', owner, co, {
        periodStartDate: '2025-01-01',
        periodEndDate: '2025-12-31',
      });
      expect(is.netIncome).toEqual(usd('1480.00'));
      expect(lines(is.revenue)).toEqual({ '4000': '5000.00' });
    });

    it('trial balance: closed, and pre-closing with excludeClosingEntries', async () => {
      const closed = tbLines(await ok('trial-balance', owner, co, { asOfDate: '2025-12-31' }));
      expect(closed['3300']).toEqual(['0.00', '1480.00']);
      expect(closed['4000']).toBeUndefined();
      expect(closed['5000']).toBeUndefined();
      const pre = await ok('trial-balance', owner, co, {
        asOfDate: '2025-12-31',
        excludeClosingEntries: true,
      });
      expect(tbLines(pre)['3300']).toBeUndefined();
      expect(tbLines(pre)['4000']).toEqual(['0.00', '5000.00']);
      expect(pre.totalDebits).toEqual(usd('23630.00'));
      expect(pre.isBalanced).toBe(true);
    });

    it('cash flow and equity statement are unchanged by the closing entry', async () => {
      const cf = await ok('cash-flow', owner, co, {
        periodStartDate: '2025-01-01',
        periodEndDate: '2025-12-31',
      });
      expect(cf.operatingActivities.netCashFlow).toEqual(usd('3080.00'));
      expect(cf.operatingActivities.lineItems[0].amount).toEqual(usd('1480.00'));
      expect(cf.isReconciled).toBe(true);
      const es = await ok('equity-statement', owner, co, {
        periodStartDate: '2025-01-01',
        periodEndDate: '2025-12-31',
      });
      // Movements exclude the closing entry, so "Other Adjustments" stays zero although 3300 moved.
      expect(row(es.movements[0])).toEqual(['0.00', '1480.00', '0.00', '0.00', '0.00', '1480.00']);
      expect(row(es.movements[5])).toEqual(['0.00', '0.00', '0.00', '0.00', '0.00', '0.00']);
      // 3300 (1480) + 3600 (−500) + unclosed 0 = 980.
      expect(row(es.closingBalances)).toEqual([
        '10000.00',
        '980.00',
        '-700.00',
        '100.00',
        '0.00',
        '10380.00',
      ]);
    });

    it('January 2026: cash flow from the closed year balance, equity opening = FY2025 closing', async () => {
      const cf = await ok('cash-flow', owner, co, {
        periodStartDate: '2026-01-01',
        periodEndDate: '2026-01-31',
      });
      expect(cf.beginningCash).toEqual(usd('14380.00'));
      expect(cf.endingCash).toEqual(usd('15280.00'));
      expect(cf.operatingActivities.lineItems.map((l: any) => l.description)).toEqual([
        'Net Income',
        'Net Cash from Operating Activities',
      ]);
      expect(cf.netChangeInCash).toEqual(usd('900.00'));
      expect(lines(cf.investingActivities)).toEqual({ 'Net Cash from Investing Activities': '0.00' });
      const es = await ok('equity-statement', owner, co, {
        periodStartDate: '2026-01-01',
        periodEndDate: '2026-01-31',
      });
      expect(row(es.openingBalances)).toEqual([
        '10000.00',
        '980.00',
        '-700.00',
        '100.00',
        '0.00',
        '10380.00',
      ]);
      expect(row(es.movements[0])).toEqual(['0.00', '900.00', '0.00', '0.00', '0.00', '900.00']);
      expect(row(es.closingBalances)).toEqual([
        '10000.00',
        '1880.00',
        '-700.00',
        '100.00',
        '0.00',
        '11280.00',
      ]);
    });
  });
});

// ---------------------------------------------------------------------------------------------------
// Query validation and errors
// ---------------------------------------------------------------------------------------------------

describe('report query validation and errors', () => {
  let co: Company;
  beforeAll(async () => {
    co = await createCompany(owner, org.id);
  });

  const period = { periodStartDate: '2026-01-01', periodEndDate: '2026-03-31' };

  it('an empty ledger gives zero reports', async () => {
    const tb = await ok('trial-balance', owner, co, { asOfDate: '2026-03-31', format: 'json' });
    expect(tb.lineItems).toEqual([]);
    expect(tb.isBalanced).toBe(true);
    const bs = await ok('balance-sheet', owner, co, { asOfDate: '2026-03-31' });
    expect(bs.equity.lineItems.map((l: any) => l.description)).toEqual(['Current Year Earnings']);
    expect(bs.totalAssets).toEqual(usd('0.00'));
    const es = await ok('equity-statement', owner, co, period);
    expect(es.movements).toHaveLength(6);
  });

  it('splits unclosed earnings by the company fiscal year (year end 30 June)', async () => {
    const june = await createCompany(owner, org.id, { month: 6, day: 30 });
    await post(owner, june, '2025-06-15', [
      ['1010', 'D', '100'],
      ['4000', 'C', '100'],
    ]); // FY2025 (2024-07-01…2025-06-30)
    await post(owner, june, '2025-07-15', [
      ['1010', 'D', '40'],
      ['4000', 'C', '40'],
    ]); // FY2026 (2025-07-01…2026-06-30)
    const bs = await ok('balance-sheet', owner, june, {
      asOfDate: '2025-08-31',
      comparativeDate: '2025-06-30',
    });
    // At 2025-08-31: current year (from 2025-07-01) 40, prior years 100. At 2025-06-30: 100 and 0.
    expect(
      bs.equity.lineItems.map((l: any) => [l.description, l.currentAmount.value, l.comparativeAmount.value]),
    ).toEqual([
      ['Current Year Earnings', '40.00', '100.00'],
      ['Unclosed Earnings of Prior Years', '100.00', '0.00'],
    ]);
    expect(bs.totalEquity).toEqual(usd('140.00'));
    expect(bs.equity.comparativeSubtotal).toEqual(usd('100.00'));
    expect(bs.isBalanced).toBe(true);
  });

  it('accepts the extreme dates', async () => {
    expect(
      (await report('balance-sheet', owner, co, { asOfDate: '1900-01-01', comparativeDate: '2999-12-31' }))
        .status,
    ).toBe(200);
    expect(
      (await report('trial-balance', owner, co, { asOfDate: '2999-12-31', periodStartDate: '1900-01-01' }))
        .status,
    ).toBe(200);
    for (const kind of ['income-statement', 'cash-flow', 'equity-statement'] as Kind[]) {
      const res = await report(kind, owner, co, {
        periodStartDate: '1900-01-01',
        periodEndDate: '2999-12-31',
      });
      expect(res.status, kind).toBe(200);
    }
    const early = await report('trial-balance', owner, co, { asOfDate: '1899-12-31' });
    expect(early.status).toBe(400);
  });

  it('requires organizationId, companyId and the report dates', async () => {
    const noOrg = await t.get('/api/v1/reports/trial-balance', {
      token: owner.token,
      query: { companyId: co.id, asOfDate: '2026-01-31' },
    });
    expect(noOrg.status).toBe(400);
    expect(noOrg.body.issues).toContainEqual({ path: '/query/organizationId', message: expect.any(String) });
    const noDate = await report('balance-sheet', owner, co);
    expect(noDate.status).toBe(400);
    expect(noDate.body.issues.map((i: any) => i.path)).toContain('/query/asOfDate');
    const noEnd = await report('cash-flow', owner, co, { periodStartDate: '2026-01-01' });
    expect(noEnd.status).toBe(400);
    expect(noEnd.body.issues.map((i: any) => i.path)).toContain('/query/periodEndDate');
  });

  it('refuses malformed values, other formats and methods', async () => {
    const cases: [Kind, Record<string, string>, string][] = [
      ['trial-balance', { asOfDate: '2026-02-30' }, '/query/asOfDate'],
      ['trial-balance', { asOfDate: '2026-01-31', excludeZeroBalances: 'yes' }, '/query/excludeZeroBalances'],
      ['balance-sheet', { asOfDate: '2026-01-31', format: 'pdf' }, '/query/format'],
      ['balance-sheet', { asOfDate: '2026-01-31', format: 'JSON' }, '/query/format'],
      ['cash-flow', { ...period, method: 'direct' }, '/query/method'],
      ['equity-statement', { ...period, periodEndDate: '31-03-2026' }, '/query/periodEndDate'],
      ['income-statement', { ...period, companyId: 'nope' }, '/query/companyId'],
    ];
    for (const [kind, query, path] of cases) {
      const res = await report(kind, owner, co, query);
      expect(res.status, `${kind} ${JSON.stringify(query)}`).toBe(400);
      expect(res.body._tag).toBe('ValidationError');
      expect(res.body.issues.map((i: any) => i.path)).toContain(path);
    }
    const repeated = await t.get(
      `/api/v1/reports/trial-balance?organizationId=${org.id}&companyId=${co.id}&asOfDate=2026-01-31&asOfDate=2026-02-28`,
      { token: owner.token },
    );
    expect(repeated.status).toBe(400);
    expect(repeated.body.issues.map((i: any) => i.path)).toContain('/query/asOfDate');
  });

  it('comparative dates of the income statement: both or neither', async () => {
    const onlyStart = await report('income-statement', owner, co, {
      ...period,
      comparativeStartDate: '2025-01-01',
    });
    expect(onlyStart.status).toBe(400);
    expect(onlyStart.body).toMatchObject({
      _tag: 'ValidationError',
      issues: [{ path: '/query/comparativeEndDate', message: expect.any(String) }],
    });
    const onlyEnd = await report('income-statement', owner, co, {
      ...period,
      comparativeEndDate: '2025-03-31',
    });
    expect(onlyEnd.status).toBe(400);
    expect(onlyEnd.body.issues[0].path).toBe('/query/comparativeStartDate');
  });

  it('a start date after the end date is InvalidReportPeriodError', async () => {
    const cases: [Kind, Record<string, string>, string, string][] = [
      [
        'income-statement',
        { periodStartDate: '2026-02-01', periodEndDate: '2026-01-31' },
        '2026-02-01',
        '2026-01-31',
      ],
      [
        'income-statement',
        { ...period, comparativeStartDate: '2025-12-31', comparativeEndDate: '2025-01-01' },
        '2025-12-31',
        '2025-01-01',
      ],
      [
        'cash-flow',
        { periodStartDate: '2026-02-01', periodEndDate: '2026-01-31' },
        '2026-02-01',
        '2026-01-31',
      ],
      [
        'equity-statement',
        { periodStartDate: '2026-02-01', periodEndDate: '2026-01-31' },
        '2026-02-01',
        '2026-01-31',
      ],
      [
        'trial-balance',
        { asOfDate: '2026-01-31', periodStartDate: '2026-02-01' },
        '2026-02-01',
        '2026-01-31',
      ],
    ];
    for (const [kind, query, periodStart, periodEnd] of cases) {
      const res = await report(kind, owner, co, query);
      expect(res.status, kind).toBe(400);
      expect(res.body).toEqual({
        _tag: 'InvalidReportPeriodError',
        message: expect.any(String),
        periodStart,
        periodEnd,
      });
    }
    // A one-day period is fine.
    const day = await report('cash-flow', owner, co, {
      periodStartDate: '2026-01-31',
      periodEndDate: '2026-01-31',
    });
    expect(day.status).toBe(200);
  });

  it('unknown organization and unknown company are 404', async () => {
    const missingOrg = randomUUID();
    for (const kind of ['trial-balance', 'balance-sheet'] as Kind[]) {
      const res = await t.get(`/api/v1/reports/${kind}`, {
        token: owner.token,
        query: { organizationId: missingOrg, companyId: co.id, asOfDate: '2026-01-31' },
      });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ _tag: 'OrganizationNotFoundError', organizationId: missingOrg });
    }
    const missingCo = randomUUID();
    for (const kind of ['income-statement', 'cash-flow', 'equity-statement'] as Kind[]) {
      const res = await t.get(`/api/v1/reports/${kind}`, {
        token: owner.token,
        query: { organizationId: org.id, companyId: missingCo.toUpperCase(), ...period },
      });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        _tag: 'CompanyNotFoundError',
        message: expect.any(String),
        companyId: missingCo,
      });
    }
  });

  it('requires authentication', async () => {
    const res = await t.get('/api/v1/reports/trial-balance', {
      query: { organizationId: org.id, companyId: co.id, asOfDate: '2026-01-31' },
    });
    expect(res.status).toBe(401);
  });
});

// ---------------------------------------------------------------------------------------------------
// Roles and tenant isolation
// ---------------------------------------------------------------------------------------------------

describe('report access', () => {
  let co: Company;
  const queries: Record<Kind, Record<string, string>> = {
    'trial-balance': { asOfDate: '2026-01-31' },
    'balance-sheet': { asOfDate: '2026-01-31' },
    'income-statement': { periodStartDate: '2026-01-01', periodEndDate: '2026-01-31' },
    'cash-flow': { periodStartDate: '2026-01-01', periodEndDate: '2026-01-31' },
    'equity-statement': { periodStartDate: '2026-01-01', periodEndDate: '2026-01-31' },
  };
  const kinds = Object.keys(queries) as Kind[];

  beforeAll(async () => {
    co = await createCompany(owner, org.id);
    await post(owner, co, '2026-01-15', [
      ['1010', 'D', '250'],
      ['4000', 'C', '250'],
    ]);
  });

  it('every role from viewer up reads every report', async () => {
    for (const role of ['viewer', 'member', 'admin', 'owner']) {
      const user = role === 'owner' ? owner : await t.user(role);
      if (role !== 'owner') await t.addMember(owner, org.id, user, role);
      for (const kind of kinds) {
        const res = await report(kind, user, co, queries[kind]);
        expect(res.status, `${role} ${kind}`).toBe(200);
      }
      const tb = await ok('trial-balance', user, co, queries['trial-balance']);
      expect(tbLines(tb)['1010']).toEqual(['250.00', '0.00']);
    }
  });

  it('another organization: 403 naming it, 404 for its company under one own organization', async () => {
    const stranger = await t.user('stranger');
    const own = await t.org(stranger);
    for (const kind of kinds) {
      const foreign = await report(kind, stranger, co, queries[kind]);
      expect(foreign.status, kind).toBe(403);
      expect(foreign.body).toEqual({
        _tag: 'ForbiddenError',
        message: expect.any(String),
        resource: 'Report',
        action: 'report:read',
        requiredRole: 'viewer',
        currentRole: null,
      });
      const underOwn = await t.get(`/api/v1/reports/${kind}`, {
        token: stranger.token,
        query: { organizationId: own.id, companyId: co.id, ...queries[kind] },
      });
      expect(underOwn.status, kind).toBe(404);
      expect(underOwn.body).toEqual({
        _tag: 'CompanyNotFoundError',
        message: expect.any(String),
        companyId: co.id,
      });
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Properties over random ledgers
// ---------------------------------------------------------------------------------------------------

const dateArb = fc
  .integer({ min: 0, max: 729 })
  .map((n) => new Date(Date.UTC(2025, 0, 1) + n * 86_400_000).toISOString().slice(0, 10));
const centsArb = fc.integer({ min: 1, max: 1_000_000 }).map((c) => toFixedString(dec(c).dividedBy(100), 2));
const entryArb = fc.record({
  date: dateArb,
  picks: fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
  amounts: fc.tuple(centsArb, centsArb),
  threeLines: fc.boolean(),
  reverse: fc.boolean(),
});

const add = (a: string, b: string): string => toFixedString(dec(a).plus(b), 2);
/** Exact sum of decimal strings, as a 2-decimal string. */
const total = (values: string[]): string => toFixedString(sum(values), 2);

describe('report invariants on random ledgers', () => {
  it(
    'TB debits = credits, assets = liabilities + equity, cash flow reconciles to the cash balances, ' +
      'equity closing = opening + movements, and the statements agree on net income',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(entryArb, { minLength: 2, maxLength: 5 }),
          fc.boolean(),
          dateArb,
          dateArb,
          async (entries, close, d1, d2) => {
            const co = await createCompany(owner, org.id);
            const pool = co.postable;
            for (const e of entries) {
              const [a, b, c] = e.picks.map((p) => pool[p % pool.length]!);
              const [x, y] = e.amounts;
              const lines: Line[] = e.threeLines
                ? [
                    [a!, 'D', add(x, y)],
                    [b!, 'C', x],
                    [c!, 'C', y],
                  ]
                : [
                    [a!, 'D', x],
                    [b!, 'C', x],
                  ];
              const posted = await post(owner, co, e.date, lines);
              if (e.reverse)
                await reverse(owner, co, posted.id, e.date < '2026-06-01' ? '2026-06-01' : e.date);
            }
            if (close) await closeYear(owner, co, 2025);
            const [start, end] = d1 <= d2 ? [d1, d2] : [d2, d1];

            const tb = await ok('trial-balance', owner, co, { asOfDate: end });
            expect(tb.totalDebits).toEqual(tb.totalCredits);
            expect(tb.isBalanced).toBe(true);

            const bs = await ok('balance-sheet', owner, co, { asOfDate: end, comparativeDate: start });
            expect(bs.totalAssets).toEqual(bs.totalLiabilitiesAndEquity);
            expect(bs.isBalanced).toBe(true);
            expect(bs.equity.comparativeSubtotal).not.toBeNull();
            expect(
              total([
                bs.currentAssets.comparativeSubtotal.value,
                bs.nonCurrentAssets.comparativeSubtotal.value,
              ]),
            ).toBe(
              total([
                bs.currentLiabilities.comparativeSubtotal.value,
                bs.nonCurrentLiabilities.comparativeSubtotal.value,
                bs.equity.comparativeSubtotal.value,
              ]),
            );

            const cf = await ok('cash-flow', owner, co, { periodStartDate: start, periodEndDate: end });
            expect(cf.isReconciled).toBe(true);
            expect(total([cf.beginningCash.value, cf.netChangeInCash.value])).toBe(cf.endingCash.value);
            // Ending cash = the cash accounts' balances in the trial balance at the end date.
            const tbl = tbLines(tb);
            const cash = ['1010', '1020', '1030'].flatMap((n) => {
              const l = tbl[n];
              return l ? [l[0], `-${l[1]}`] : [];
            });
            expect(cf.endingCash.value).toBe(total(cash));

            const is = await ok('income-statement', owner, co, {
              periodStartDate: start,
              periodEndDate: end,
            });
            expect(cf.operatingActivities.lineItems[0].amount).toEqual(is.netIncome);

            const es = await ok('equity-statement', owner, co, {
              periodStartDate: start,
              periodEndDate: end,
            });
            const cols = [
              'contributedCapital',
              'retainedEarnings',
              'treasuryStock',
              'accumulatedOCI',
              'nonControllingInterest',
              'total',
            ];
            for (const col of cols) {
              const sum = total([
                es.openingBalances[col].value,
                ...es.movements.map((m: any) => m[col].value),
              ]);
              expect(es.closingBalances[col].value, col).toBe(sum);
            }
            expect(es.movements[0].retainedEarnings).toEqual(is.netIncome);
            // Equity statement closing total = balance-sheet equity at the end date.
            expect(es.closingBalances.total).toEqual(bs.totalEquity);
          },
        ),
        { numRuns: 10 },
      );
    },
    120_000,
  );
});
