/**
 * Company statements in another currency (current-rate method, as a consolidation run translates a
 * member). The figures below are worked out by hand from the entries and rates of the test.
 *
 * A EUR company (year end 31 December), 2025:
 *   1 Jan   Dr Cash 10,000.00        / Cr Share capital 10,000.00
 *   15 Jan  Dr Equipment 4,000.00    / Cr Cash 4,000.00          (equipment: a non-monetary item)
 *   20 Jan  Dr Receivable 3,000.00   / Cr Revenue 3,000.00
 *   10 Feb  Dr Expense 1,000.00      / Cr Payable 1,000.00
 *   20 Feb  Dr Cash 500.55           / Cr Revenue 500.55
 *
 * Rates EUR→USD: Historical 1 Jan 1.10 and 15 Jan 1.12; Average January 1.11 (dated 31 Jan) and
 * February 1.13 (dated 28 Feb); Spot 28 Feb 1.15 (the closing rate on 28 Feb).
 *
 * Balance sheet at 28 Feb 2025 in USD:
 *   Cash 6,500.55 × 1.15 = 7,475.6325 → 7,475.63
 *   Receivable 3,000.00 × 1.15 = 3,450.00
 *   Equipment 4,000.00 × 1.12 (its date's historical rate) = 4,480.00
 *   Total assets 15,405.63
 *   Payable 1,000.00 × 1.15 = 1,150.00
 *   Share capital 10,000.00 × 1.10 = 11,000.00
 *   Revenue 3,000.00 × 1.11 + 500.55 × 1.13 = 3,330.00 + 565.6215 = 3,895.6215 → 3,895.62
 *   Expense 1,000.00 × 1.13 = 1,130.00; current year earnings 3,895.62 − 1,130.00 = 2,765.62
 *   CTA = 15,405.63 − 1,150.00 − 11,000.00 − 2,765.62 = 490.01
 *   Total liabilities and equity 1,150.00 + 11,000.00 + 2,765.62 + 490.01 = 15,405.63 (balances)
 *
 * Trial balance at 28 Feb 2025 in USD: debits 7,475.63 + 3,450.00 + 4,480.00 + 1,130.00 = 16,535.63;
 * credits 1,150.00 + 11,000.00 + 3,895.62 + CTA 490.01 = 16,535.63.
 *
 * Income statement of February in USD: revenue 500.55 × 1.13 = 565.62, expense 1,130.00, net income
 * −564.38; of January and February: revenue 3,895.62, net income 2,765.62.
 *
 * A Spot rate of 1.12 on 31 January is the closing rate at the end of January (used only by the
 * statements of February below).
 *
 * Cash-flow statement of January–February in USD (flows at the average rate of their month; nothing
 * before 1 January, so beginning cash is 0.00):
 *   Net income 2,765.62
 *   Receivable: 3,000.00 in January × 1.11 = 3,330.00 → −3,330.00
 *   Payable: 1,000.00 in February × 1.13 = 1,130.00 → +1,130.00
 *   Operating 2,765.62 − 3,330.00 + 1,130.00 = 565.62
 *   Equipment: 4,000.00 in January × 1.11 = 4,440.00 → investing −4,440.00
 *   Share capital: 10,000.00 in January × 1.11 = 11,100.00 → financing +11,100.00
 *   Cash flows at average rates: (10,000.00 − 4,000.00) × 1.11 + 500.55 × 1.13 = 6,660.00 + 565.6215
 *   = 7,225.6215; the sections give 565.62 − 4,440.00 + 11,100.00 = 7,225.62.
 *   Effect of rates on cash: 6,000.00 × (1.15 − 1.11) + 500.55 × (1.15 − 1.13) = 240.00 + 10.011 = 250.01
 *   Net change 7,225.62 + 250.01 = 7,475.63 = ending cash (the balance sheet's cash)
 *
 * Cash-flow statement of February in USD:
 *   Beginning cash 6,000.00 × 1.12 = 6,720.00 (the translated cash at 31 January)
 *   Net income −564.38; payable +1,130.00; operating 565.62 (= the February receipt 500.55 × 1.13)
 *   Receivable, equipment and share capital did not move in February: no line
 *   Effect of rates on cash: 6,000.00 × (1.15 − 1.12) + 500.55 × (1.15 − 1.13) = 180.00 + 10.011 = 190.01
 *   Net change 565.62 + 190.01 = 755.63; 6,720.00 + 755.63 = 7,475.63 = ending cash
 *
 * Statement of changes in equity of January–February in USD: opening all 0.00; net income 2,765.62
 * (retained earnings); other comprehensive income 490.01 (the CTA, accumulated OCI); stock issuance
 * 11,000.00 (share capital at its historical rate); closing 11,000.00 / 2,765.62 / 0.00 / 490.01,
 * total 14,255.63 = the translated balance sheet's total equity.
 *
 * Of February: the translated balance sheet at 31 January is cash 6,720.00 + receivable 3,360.00 +
 * equipment 4,480.00 = 14,560.00 of assets; share capital 11,000.00; January's earnings 3,000.00 × 1.11
 * = 3,330.00; CTA 14,560.00 − 11,000.00 − 3,330.00 = 230.00. Opening 11,000.00 / 3,330.00 / 0.00 /
 * 230.00 (total 14,560.00); net income −564.38; other comprehensive income 490.01 − 230.00 = 260.01;
 * closing 11,000.00 / 2,765.62 / 0.00 / 490.01 (total 14,255.63).
 *
 * A period starting mid-month, 15–28 February: the opening view is 14 February (closing rate: the Spot
 * 1.12 of 31 January). Cash 6,000.00 × 1.12 = 6,720.00; payable 1,000.00 × 1.12 = 1,120.00; earnings so
 * far 3,330.00 − 1,130.00 (the 10 February expense at February's 1.13) = 2,200.00; CTA 14,560.00 −
 * 1,120.00 − 11,000.00 − 2,200.00 = 240.00. In the period only the 20 February sale: net income 565.62,
 * operating 565.62 (the payable did not move), effect on cash 6,000.00 × 0.03 + 500.55 × 0.02 = 190.01,
 * ending cash 7,475.63. Equity: opening 11,000.00 / 2,200.00 / 0.00 / 240.00 (13,440.00 = assets
 * 14,560.00 − payable 1,120.00), net income 565.62, other comprehensive income 490.01 − 240.00 =
 * 250.01, closing total 14,255.63.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext, type TestUser } from '../helpers/app.ts';
import { type Company, createAccount, createCompany, insertRate } from '../helpers/ledger.ts';

let t: TestContext;
let owner: TestUser;
let viewer: TestUser;
let c: Company;
let capital: string;
let equipment: string;

const JE = '/api/v1/journal-entries';
const m = (value: string, currency: string) => ({ value, currency });

async function book(date: string, debit: string, credit: string, amount: string) {
  const res = await t.post(JE, {
    token: owner.token,
    body: {
      organizationId: c.organizationId,
      companyId: c.id,
      description: 'currency test',
      transactionDate: date,
      lines: [
        { accountId: debit, debitAmount: m(amount, 'EUR') },
        { accountId: credit, creditAmount: m(amount, 'EUR') },
      ],
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const posted = await t.post(`${JE}/${res.body.id}/post`, { token: owner.token });
  expect(posted.status, JSON.stringify(posted.body)).toBe(200);
}

beforeAll(async () => {
  t = await createTestContext();
  [owner, viewer] = await Promise.all([t.user('owner'), t.user('viewer')]);
  const org = await t.org(owner, { settings: { requireApproval: false } });
  await t.addMember(owner, org.id, viewer, 'viewer');
  c = await createCompany(t, org.id, { functionalCurrency: 'EUR' });
  capital = await createAccount(t, c, {
    accountNumber: '3000',
    accountType: 'Equity',
    accountCategory: 'ContributedCapital',
  });
  equipment = await createAccount(t, c, {
    accountNumber: '1500',
    accountType: 'Asset',
    accountCategory: 'FixedAsset',
  });
  await t.database.db.execute(
    sql`update accounts set is_non_monetary = true where organization_id = ${org.id} and id = ${equipment}`,
  );
  await t.database.db.execute(
    sql`update accounts set is_cash_equivalent = true where organization_id = ${org.id} and id = ${c.accounts.cash}`,
  );
  const a = c.accounts;
  await book('2025-01-01', a.cash, capital, '10000.00');
  await book('2025-01-15', equipment, a.cash, '4000.00');
  await book('2025-01-20', a.receivable, a.revenue, '3000.00');
  await book('2025-02-10', a.expense, a.payable, '1000.00');
  await book('2025-02-20', a.cash, a.revenue, '500.55');
  const rate = (r: { rate: string; date: string; type: string }) =>
    insertRate(t, org.id, owner.id, { from: 'EUR', to: 'USD', ...r });
  await rate({ rate: '1.10', date: '2025-01-01', type: 'Historical' });
  await rate({ rate: '1.12', date: '2025-01-15', type: 'Historical' });
  await rate({ rate: '1.11', date: '2025-01-31', type: 'Average' });
  await rate({ rate: '1.13', date: '2025-02-28', type: 'Average' });
  await rate({ rate: '1.15', date: '2025-02-28', type: 'Spot' });
  await rate({ rate: '1.12', date: '2025-01-31', type: 'Spot' });
}, 60_000);

afterAll(async () => {
  await t.close();
});

const report = (name: string, query: Record<string, string>, headers: Record<string, string> = {}) =>
  t.req('GET', `/api/v1/reports/${name}`, {
    token: viewer.token,
    query: { organizationId: c.organizationId, companyId: c.id, ...query },
    headers,
  });

/** The lines of a section as `description → amount`. */
const amounts = (section: any) =>
  Object.fromEntries(section.lineItems.map((l: any) => [l.description, l.currentAmount.value]));

describe('balance sheet in another currency', () => {
  it('translates at closing, historical and average rates, with the CTA balancing equity', async () => {
    const res = await report('balance-sheet', { asOfDate: '2025-02-28', currency: 'USD' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const b: any = res.body;
    expect(b.currency).toBe('USD');
    expect(b.functionalCurrency).toBe('EUR');
    expect(typeof b.companyName).toBe('string');
    expect(amounts(b.currentAssets)).toEqual({ 'cash 1000': '7475.63', 'receivable 1100': '3450.00' });
    expect(amounts(b.nonCurrentAssets)).toEqual({ 'Account 1500': '4480.00' });
    expect(b.totalAssets).toEqual({ value: '15405.63', currency: 'USD' });
    expect(amounts(b.currentLiabilities)).toEqual({ 'payable 2000': '1150.00' });
    expect(amounts(b.equity)).toEqual({
      'Account 3000': '11000.00',
      'Current Year Earnings': '2765.62',
      'Cumulative Translation Adjustment': '490.01',
    });
    expect(b.totalEquity.value).toBe('14255.63');
    expect(b.totalLiabilitiesAndEquity.value).toBe('15405.63');
    expect(b.isBalanced).toBe(true);
    const rates = b.exchangeRates.map((r: any) => [r.purpose, r.rateType, r.effectiveDate, r.effectiveRate]);
    expect(rates).toEqual(
      expect.arrayContaining([
        ['Closing', 'Spot', '2025-02-28', '1.15'],
        ['Average', 'Average', '2025-01-31', '1.11'],
        ['Average', 'Average', '2025-02-28', '1.13'],
        ['Historical', 'Historical', '2025-01-01', '1.1'],
        ['Historical', 'Historical', '2025-01-15', '1.12'],
      ]),
    );
    expect(rates).toHaveLength(5);
    for (const r of b.exchangeRates) expect([r.fromCurrency, r.toCurrency]).toEqual(['EUR', 'USD']);
  });

  it('without currency, or in the functional currency, answers the functional balance sheet unchanged', async () => {
    const plain = await report('balance-sheet', { asOfDate: '2025-02-28' });
    const same = await report('balance-sheet', { asOfDate: '2025-02-28', currency: 'EUR' });
    expect(plain.status).toBe(200);
    const strip = (body: any) => ({ ...body, generatedAt: null });
    expect(strip(same.body)).toEqual(strip(plain.body));
    expect(Object.keys(plain.body as object)).not.toContain('exchangeRates');
    expect(Object.keys(plain.body as object)).not.toContain('functionalCurrency');
    expect((plain.body as any).currency).toBe('EUR');
    expect((plain.body as any).totalAssets.value).toBe('13500.55');
  });

  it('answers 400 ExchangeRateNotFoundError naming the pair and date when a rate is missing', async () => {
    const res = await report('balance-sheet', { asOfDate: '2025-02-28', currency: 'GBP' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      _tag: 'ExchangeRateNotFoundError',
      fromCurrency: 'EUR',
      toCurrency: 'GBP',
      date: '2025-02-28',
    });
  });

  it('rejects an unknown currency code', async () => {
    const res = await report('balance-sheet', { asOfDate: '2025-02-28', currency: 'XYZ' });
    expect(res.status).toBe(400);
    expect((res.body as any)._tag).toBe('ValidationError');
  });

  it('exports the translated balance sheet as CSV with the rates used', async () => {
    const res = await report('balance-sheet', { asOfDate: '2025-02-28', currency: 'USD', format: 'csv' });
    expect(res.status).toBe(200);
    const text = res.raw.body;
    expect(text).toContain('7475.63');
    expect(text).toContain('Cumulative Translation Adjustment');
    expect(text).toContain('490.01');
    expect(text).toContain('Closing: EUR/USD Spot 2025-02-28 = 1.15');
    const xlsx = await report(
      'balance-sheet',
      { asOfDate: '2025-02-28', currency: 'USD' },
      {
        accept: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      },
    );
    expect(xlsx.status).toBe(200);
  });
});

describe('trial balance in another currency', () => {
  it('lists the translated balances and the CTA line, and balances', async () => {
    const res = await report('trial-balance', { asOfDate: '2025-02-28', currency: 'USD' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const tb: any = res.body;
    expect(tb.currency).toBe('USD');
    expect(tb.functionalCurrency).toBe('EUR');
    expect(
      tb.lineItems.map((l: any) => [
        l.accountNumber,
        l.accountId === null,
        l.debitBalance.value,
        l.creditBalance.value,
      ]),
    ).toEqual([
      ['1000', false, '7475.63', '0.00'],
      ['1100', false, '3450.00', '0.00'],
      ['1500', false, '4480.00', '0.00'],
      ['2000', false, '0.00', '1150.00'],
      ['3000', false, '0.00', '11000.00'],
      ['4000', false, '0.00', '3895.62'],
      ['5000', false, '1130.00', '0.00'],
      ['CTA', true, '0.00', '490.01'],
    ]);
    expect(tb.totalDebits.value).toBe('16535.63');
    expect(tb.totalCredits.value).toBe('16535.63');
    expect(tb.isBalanced).toBe(true);
    expect(tb.exchangeRates).toHaveLength(5);
  });

  it('exports it as CSV', async () => {
    const res = await report('trial-balance', { asOfDate: '2025-02-28', currency: 'USD', format: 'csv' });
    expect(res.status).toBe(200);
    expect(res.raw.body).toContain('CTA');
    expect(res.raw.body).toContain('16535.63');
    expect(res.raw.body).toContain('Average: EUR/USD Average 2025-01-31 = 1.11');
  });
});

describe('income statement in another currency', () => {
  it("translates each month's activity at its average rate", async () => {
    const res = await report('income-statement', {
      periodStartDate: '2025-02-01',
      periodEndDate: '2025-02-28',
      comparativeStartDate: '2025-01-01',
      comparativeEndDate: '2025-02-28',
      currency: 'USD',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const s: any = res.body;
    expect(s.currency).toBe('USD');
    expect(s.revenue.subtotal.value).toBe('565.62');
    expect(s.revenue.comparativeSubtotal.value).toBe('3895.62');
    expect(s.operatingExpenses.subtotal.value).toBe('1130.00');
    expect(s.netIncome.value).toBe('-564.38');
    const rates = s.exchangeRates.map((r: any) => [r.purpose, r.effectiveDate, r.effectiveRate]);
    expect(rates).toEqual([
      ['Average', '2025-01-31', '1.11'],
      ['Average', '2025-02-28', '1.13'],
    ]);
  });

  it('splits a month at a period start that is not its first day', async () => {
    // 15–28 February holds the 20 Feb sale and not the 10 Feb expense.
    const res = await report('income-statement', {
      periodStartDate: '2025-02-15',
      periodEndDate: '2025-02-28',
      currency: 'USD',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((res.body as any).revenue.subtotal.value).toBe('565.62');
    expect((res.body as any).netIncome.value).toBe('565.62');
  });

  it('for a period ending mid-month and the year to date', async () => {
    // 1 January – 12 February: revenue 3,330.00, expense 1,130.00, net income 2,200.00.
    const res = await report('income-statement', {
      periodStartDate: '2025-01-01',
      periodEndDate: '2025-02-12',
      currency: 'USD',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((res.body as any).revenue.subtotal.value).toBe('3330.00');
    expect((res.body as any).netIncome.value).toBe('2200.00');
  });
});

/** The lines of a cash-flow section as `accountNumber or description → amount` (Normal lines only). */
const flows = (section: any) =>
  Object.fromEntries(
    section.lineItems
      .filter((l: any) => l.style === 'Normal')
      .map((l: any) => [l.accountNumber ?? l.description, l.amount.value]),
  );

/** An equity row as [contributedCapital, retainedEarnings, treasuryStock, accumulatedOCI, NCI, total]. */
const cols = (r: any) =>
  [
    r.contributedCapital,
    r.retainedEarnings,
    r.treasuryStock,
    r.accumulatedOCI,
    r.nonControllingInterest,
    r.total,
  ].map((x: any) => x.value);

describe('cash-flow statement in another currency', () => {
  it('flows at average rates, the effect of rates on cash, reconciled to the translated cash', async () => {
    const res = await report('cash-flow', {
      periodStartDate: '2025-01-01',
      periodEndDate: '2025-02-28',
      currency: 'USD',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const s: any = res.body;
    expect(s.currency).toBe('USD');
    expect(s.functionalCurrency).toBe('EUR');
    expect(s.companyId).toBe(c.id);
    expect(typeof s.companyName).toBe('string');
    expect(s.beginningCash.value).toBe('0.00');
    expect(flows(s.operatingActivities)).toEqual({
      'Net Income': '2765.62',
      '1100': '-3330.00',
      '2000': '1130.00',
    });
    expect(s.operatingActivities.netCashFlow.value).toBe('565.62');
    expect(flows(s.investingActivities)).toEqual({ '1500': '-4440.00' });
    expect(flows(s.financingActivities)).toEqual({ '3000': '11100.00' });
    expect(s.exchangeRateEffect.value).toBe('250.01');
    expect(s.netChangeInCash.value).toBe('7475.63');
    expect(s.endingCash).toEqual({ value: '7475.63', currency: 'USD' });
    expect(s.isReconciled).toBe(true);
    // Account lines carry the company's account ids.
    const receivable = s.operatingActivities.lineItems.find((l: any) => l.accountNumber === '1100');
    expect(receivable.accountId).toBe(c.accounts.receivable);
    // Ending cash is the translated balance sheet's cash.
    const bs: any = (await report('balance-sheet', { asOfDate: '2025-02-28', currency: 'USD' })).body;
    expect(amounts(bs.currentAssets)['cash 1000']).toBe(s.endingCash.value);
    const rates = s.exchangeRates.map((r: any) => [r.purpose, r.rateType, r.effectiveDate, r.effectiveRate]);
    expect(rates).toContainEqual(['Closing', 'Spot', '2025-02-28', '1.15']);
    expect(rates).toContainEqual(['Average', 'Average', '2025-01-31', '1.11']);
  });

  it('of February: beginning cash at the closing rate of 31 January', async () => {
    const res = await report('cash-flow', {
      periodStartDate: '2025-02-01',
      periodEndDate: '2025-02-28',
      currency: 'USD',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const s: any = res.body;
    expect(s.beginningCash.value).toBe('6720.00');
    expect(flows(s.operatingActivities)).toEqual({ 'Net Income': '-564.38', '2000': '1130.00' });
    expect(s.operatingActivities.netCashFlow.value).toBe('565.62');
    expect(flows(s.investingActivities)).toEqual({});
    expect(flows(s.financingActivities)).toEqual({});
    expect(s.exchangeRateEffect.value).toBe('190.01');
    expect(s.netChangeInCash.value).toBe('755.63');
    expect(s.endingCash.value).toBe('7475.63');
    expect(s.isReconciled).toBe(true);
    const jan: any = (await report('balance-sheet', { asOfDate: '2025-01-31', currency: 'USD' })).body;
    expect(amounts(jan.currentAssets)['cash 1000']).toBe('6720.00');
    expect(s.exchangeRates.map((r: any) => [r.purpose, r.rateType, r.effectiveDate])).toContainEqual([
      'Closing',
      'Spot',
      '2025-01-31',
    ]);
  });

  it('of a period starting mid-month', async () => {
    const q = { periodStartDate: '2025-02-15', periodEndDate: '2025-02-28', currency: 'USD' };
    const cf: any = (await report('cash-flow', q)).body;
    expect(cf.beginningCash.value).toBe('6720.00');
    expect(flows(cf.operatingActivities)).toEqual({ 'Net Income': '565.62' });
    expect(cf.exchangeRateEffect.value).toBe('190.01');
    expect(cf.endingCash.value).toBe('7475.63');
    expect(cf.isReconciled).toBe(true);
    const eq: any = (await report('equity-statement', q)).body;
    expect(cols(eq.openingBalances)).toEqual(['11000.00', '2200.00', '0.00', '240.00', '0.00', '13440.00']);
    const mv = Object.fromEntries(eq.movements.map((r: any) => [r.movementType, cols(r)]));
    expect(mv.NetIncome[1]).toBe('565.62');
    expect(mv.OtherComprehensiveIncome[3]).toBe('250.01');
    expect(mv.Other[5]).toBe('0.00');
    expect(eq.closingBalances.total.value).toBe('14255.63');
  });

  it('exports it as CSV with the rates used', async () => {
    const res = await report('cash-flow', {
      periodStartDate: '2025-01-01',
      periodEndDate: '2025-02-28',
      currency: 'USD',
      format: 'csv',
    });
    expect(res.status).toBe(200);
    expect(res.raw.body).toContain('250.01');
    expect(res.raw.body).toContain('Closing: EUR/USD Spot 2025-02-28 = 1.15');
  });

  it('answers 400 ExchangeRateNotFoundError for a missing opening closing rate', async () => {
    // No closing rate on or before 14 January.
    const res = await report('cash-flow', {
      periodStartDate: '2025-01-15',
      periodEndDate: '2025-02-28',
      currency: 'USD',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toMatchObject({
      _tag: 'ExchangeRateNotFoundError',
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      date: '2025-01-14',
    });
  });
});

describe('statement of changes in equity in another currency', () => {
  it('puts the CTA in accumulated OCI; closing equity equals the translated balance sheet', async () => {
    const res = await report('equity-statement', {
      periodStartDate: '2025-01-01',
      periodEndDate: '2025-02-28',
      currency: 'USD',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const s: any = res.body;
    expect(s.currency).toBe('USD');
    expect(s.functionalCurrency).toBe('EUR');
    expect(cols(s.openingBalances)).toEqual(['0.00', '0.00', '0.00', '0.00', '0.00', '0.00']);
    const mv = Object.fromEntries(s.movements.map((r: any) => [r.movementType, cols(r)]));
    expect(mv.NetIncome).toEqual(['0.00', '2765.62', '0.00', '0.00', '0.00', '2765.62']);
    expect(mv.OtherComprehensiveIncome).toEqual(['0.00', '0.00', '0.00', '490.01', '0.00', '490.01']);
    expect(mv.StockIssuance).toEqual(['11000.00', '0.00', '0.00', '0.00', '0.00', '11000.00']);
    expect(mv.DividendsDeclared).toEqual(['0.00', '0.00', '0.00', '0.00', '0.00', '0.00']);
    expect(mv.Other).toEqual(['0.00', '0.00', '0.00', '0.00', '0.00', '0.00']);
    expect(cols(s.closingBalances)).toEqual(['11000.00', '2765.62', '0.00', '490.01', '0.00', '14255.63']);
    const bs: any = (await report('balance-sheet', { asOfDate: '2025-02-28', currency: 'USD' })).body;
    expect(s.closingBalances.total.value).toBe(bs.totalEquity.value);
  });

  it('of February: opening equity is the translated balance sheet of 31 January', async () => {
    const res = await report('equity-statement', {
      periodStartDate: '2025-02-01',
      periodEndDate: '2025-02-28',
      currency: 'USD',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const s: any = res.body;
    expect(cols(s.openingBalances)).toEqual(['11000.00', '3330.00', '0.00', '230.00', '0.00', '14560.00']);
    const mv = Object.fromEntries(s.movements.map((r: any) => [r.movementType, cols(r)]));
    expect(mv.NetIncome).toEqual(['0.00', '-564.38', '0.00', '0.00', '0.00', '-564.38']);
    expect(mv.OtherComprehensiveIncome).toEqual(['0.00', '0.00', '0.00', '260.01', '0.00', '260.01']);
    expect(mv.StockIssuance[5]).toBe('0.00');
    expect(mv.Other[5]).toBe('0.00');
    expect(cols(s.closingBalances)).toEqual(['11000.00', '2765.62', '0.00', '490.01', '0.00', '14255.63']);
    const jan: any = (await report('balance-sheet', { asOfDate: '2025-01-31', currency: 'USD' })).body;
    expect(jan.totalEquity.value).toBe('14560.00');
    expect(amounts(jan.equity)['Cumulative Translation Adjustment']).toBe('230.00');
  });

  it('exports it as CSV with the rates used', async () => {
    const res = await report('equity-statement', {
      periodStartDate: '2025-01-01',
      periodEndDate: '2025-02-28',
      currency: 'USD',
      format: 'csv',
    });
    expect(res.status).toBe(200);
    expect(res.raw.body).toContain('490.01');
    expect(res.raw.body).toContain('Exchange rates (EUR to USD)');
  });
});

describe('translated statements in the functional currency', () => {
  it.each([
    ['cash-flow', { periodStartDate: '2025-01-01', periodEndDate: '2025-02-28' }],
    ['equity-statement', { periodStartDate: '2025-01-01', periodEndDate: '2025-02-28' }],
  ])('%s without currency, or in EUR, is the functional statement unchanged', async (name, query) => {
    const plain = await report(name, query);
    const same = await report(name, { ...query, currency: 'EUR' });
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    expect({ ...(same.body as any), generatedAt: null }).toEqual({
      ...(plain.body as any),
      generatedAt: null,
    });
    expect(Object.keys(plain.body as object)).not.toContain('exchangeRates');
    expect((plain.body as any).currency).toBe('EUR');
  });
});

describe('reports in the functional currency only', () => {
  it.each([
    ['trial-balance', { asOfDate: '2025-02-28', periodStartDate: '2025-02-01' }],
    ['general-ledger', { startDate: '2025-01-01', endDate: '2025-02-28' }],
  ])('%s answers the functional report for its own currency and 400 for another', async (name, query) => {
    const plain = await report(name, query);
    const same = await report(name, { ...query, currency: 'EUR' });
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    expect({ ...(same.body as any), generatedAt: null }).toEqual({
      ...(plain.body as any),
      generatedAt: null,
    });
    const other = await report(name, { ...query, currency: 'USD' });
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({
      _tag: 'ReportCurrencyNotSupportedError',
      report: name,
      currency: 'USD',
      functionalCurrency: 'EUR',
    });
  });
});
