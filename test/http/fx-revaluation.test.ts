/**
 * Foreign-currency revaluation (ASC 830-20 / IAS 21): open balances per currency, revaluation runs,
 * realised differences, workflow and errors.
 *
 * Published worked examples replayed to the cent, one test each:
 *
 * - Payable, standard setter: IFRS Foundation, "Training Material for the IFRS for SMEs, Module 30 —
 *   Foreign Currency Translation" (IFRS Foundation education staff, version 2011-9), example "an entity
 *   buys goods on credit in a foreign currency" (Ex 9, page 17, in the notes on paragraph 30.10); text read
 *   at http://www.rasteredge.com/gallery/c17/1460/ (the module is distributed by the IFRS Foundation
 *   with its IFRS for SMEs supporting material). Raw materials bought on credit for FCU100,000 at CU2 are
 *   200,000; at the year end (CU2.1) the payable is 210,000, a loss of 10,000; the supplier is paid next
 *   year at CU2.05, 205,000.
 *
 * - Receivable, textbook: "Financial Accounting", open textbook published by the University of Minnesota
 *   Libraries Publishing, section 7.5 "Remeasuring Foreign Currency Balances",
 *   http://open.lib.umn.edu/financialaccounting/chapter/7-5-remeasuring-foreign-currency-balances/ —
 *   a service sold for 100,000 Mexican pesos at $0.08 is $8,000; at the year end the peso is $0.09 and
 *   the receivable is $9,000. The book stops there; the test's collection at the same rate is its own.
 *
 * - Receivable (IAS 21 closing-rate remeasurement, an exam-style question and answer, not a book,
 *   published at https://code.policylink.org/comparte/15302069): a receivable of £2,000 booked on
 *   1 October at $1.43 is carried at $2,860; at the year end the rate is $1.45, the receivable is restated
 *   to $2,900 and a gain of $40 is recognised; it is collected at $1.50, $3,000, a further gain of $100.
 *
 * - Payable (software vendor documentation, not a standard setter: Microsoft Dynamics 365 Business
 *   Central, "finance-currencies-example",
 *   https://github.com/MicrosoftDocs/dynamics365smb-docs/blob/main/business-central/includes/finance-currencies-example.md):
 *   a purchase invoice of 1,000 in foreign currency at 1.123 is 1,123 in local currency; the month-end
 *   adjustment at 1.125 restates it to 1,125 (an unrealised difference of 2), which is reversed; the
 *   invoice is paid at 1.120, 1,120, and the difference of 3 to the 1,123 it was booked at is realised.
 *   (The published table shows the vendor ledger's signs; for the company an increase of the payable
 *   is a loss and the lower payment a gain, which is what the ledger below shows.)
 *
 * Run with auto-reversal (the default): the unrealised difference is reversed the next day, so on
 * settlement the whole difference to the original booking is realised. All but the vendor example carry the
 * restated amount into the next year instead and book only the further movement on settlement; the two
 * conventions agree on each year's result, which is what the tests compare. For the £ receivable
 * $3,000 − $2,860 = $140 is realised, i.e. the published $40 of the first year and $100 of the second,
 * whose sum over the second year (−$40 reversal + $140 realised) is the published $100. For the IFRS
 * Foundation payable 205,000 − 200,000 = 5,000 is realised as a loss; with the reversal's 10,000 the
 * second year shows a gain of 5,000, which is FCU100,000 × (2.1 − 2.05), the second year's own rate
 * change, as the module's rule (each period bears the exchange difference of its own rate changes) has it.
 */
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { createTestContext, type TestContext, type TestUser } from '../helpers/app.ts';
import {
  balanceMismatches,
  type Company,
  createAccount,
  createCompany,
  currencyBalanceMismatches,
  insertRate,
  setPeriodStatus,
} from '../helpers/ledger.ts';

let t: TestContext;
let owner: TestUser;
let admin: TestUser;
let viewer: TestUser;
let outsider: TestUser;
let org: { id: string };
let approvalOrg: { id: string };
let otherOrg: { id: string };

const JE = '/api/v1/journal-entries';
const m = (value: string, currency: string) => ({ value, currency });

beforeAll(async () => {
  t = await createTestContext();
  [owner, admin, viewer, outsider] = await Promise.all([
    t.user('owner'),
    t.user('admin'),
    t.user('viewer'),
    t.user('outsider'),
  ]);
  org = await t.org(owner, { settings: { requireApproval: false } });
  await t.addMember(owner, org.id, admin, 'admin');
  await t.addMember(owner, org.id, viewer, 'viewer');
  approvalOrg = await t.org(owner, { settings: { requireApproval: true } });
  otherOrg = await t.org(outsider);
}, 60_000);

afterAll(async () => {
  await t.close();
});

interface FxCompany extends Company {
  unrealized: string;
  realized: string;
}

/** A USD company with FX gain/loss accounts configured through the company update. */
async function fxCompany(organizationId: string, functionalCurrency = 'USD'): Promise<FxCompany> {
  const c = await createCompany(t, organizationId, { functionalCurrency });
  const unrealized = await createAccount(t, c, {
    accountNumber: '8400',
    accountType: 'Revenue',
    accountCategory: 'OtherRevenue',
  });
  const realized = await createAccount(t, c, {
    accountNumber: '8410',
    accountType: 'Revenue',
    accountCategory: 'OtherRevenue',
  });
  const res = await t.put(`/api/v1/organizations/${organizationId}/companies/${c.id}`, {
    token: owner.token,
    body: { unrealizedFxGainLossAccountId: unrealized, realizedFxGainLossAccountId: realized },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.unrealizedFxGainLossAccountId).toBe(unrealized);
  expect(res.body.realizedFxGainLossAccountId).toBe(realized);
  return { ...c, unrealized, realized };
}

interface Line {
  accountId: string;
  debit?: [string, string];
  credit?: [string, string];
  rate?: string;
}

/** Creates and posts an entry (direct post: the organization does not require approval). */
async function book(c: Company, date: string, lines: Line[]) {
  const res = await t.post(JE, {
    token: owner.token,
    body: {
      organizationId: c.organizationId,
      companyId: c.id,
      description: 'fx test',
      transactionDate: date,
      lines: lines.map((l) => ({
        accountId: l.accountId,
        ...(l.debit ? { debitAmount: m(l.debit[0], l.debit[1]) } : {}),
        ...(l.credit ? { creditAmount: m(l.credit[0], l.credit[1]) } : {}),
        ...(l.rate ? { exchangeRate: l.rate } : {}),
      })),
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const posted = await t.post(`${JE}/${res.body.id}/post`, { token: owner.token });
  expect(posted.status, JSON.stringify(posted.body)).toBe(200);
  return posted.body;
}

const base = (c: Company) => `/api/v1/organizations/${c.organizationId}/companies/${c.id}`;

async function revalue(c: Company, body: Record<string, unknown>, token = owner.token) {
  return t.post(`${base(c)}/fx-revaluations`, { token, body });
}

/** Σ functional debits − credits of an account's posted lines up to `to` (from `from`). */
async function net(c: Company, accountId: string, from: string, to: string): Promise<string> {
  const [row] = await queryRows<{ n: string | null }>(
    t.database.db,
    sql`select (coalesce(sum(debit_total), 0) - coalesce(sum(credit_total), 0))::numeric(28,2)::text as n
        from account_balances where organization_id = ${c.organizationId} and company_id = ${c.id}
          and account_id = ${accountId} and balance_date >= ${from}::date and balance_date <= ${to}::date`,
  );
  return row!.n!;
}

async function trialBalanceNet(c: Company): Promise<string> {
  const [row] = await queryRows<{ n: string }>(
    t.database.db,
    sql`select (coalesce(sum(debit_total), 0) - coalesce(sum(credit_total), 0))::text as n
        from account_balances where organization_id = ${c.organizationId} and company_id = ${c.id}`,
  );
  return row!.n;
}

describe('published worked examples', () => {
  it('receivable in GBP: $40 unrealised at the year end, reversed, $100 more on collection', async () => {
    const c = await fxCompany(org.id);
    const A = c.accounts;
    await insertRate(t, org.id, owner.id, { from: 'GBP', to: 'USD', rate: '1.43', date: '2025-10-01' });
    // Sale on account, £2,000 at $1.43.
    await book(c, '2025-10-01', [
      { accountId: A.receivable, debit: ['2000.00', 'GBP'], rate: '1.43' },
      { accountId: A.revenue, credit: ['2860.00', 'USD'] },
    ]);
    expect(await net(c, A.receivable, '2025-01-01', '2025-12-31')).toBe('2860.00');
    await insertRate(t, org.id, owner.id, {
      from: 'GBP',
      to: 'USD',
      rate: '1.45',
      date: '2025-12-31',
      type: 'YearEnd',
    });

    // Mid-month (read from the daily rows) and before the sale.
    const mid = await t.get(`${base(c)}/foreign-currency-balances`, {
      token: viewer.token,
      query: { asOfDate: '2025-10-15' },
    });
    expect(mid.body.balances).toEqual([
      expect.objectContaining({ foreignAmount: m('2000.00', 'GBP'), carryingAmount: m('2860.00', 'USD') }),
    ]);
    const before = await t.get(`${base(c)}/foreign-currency-balances`, {
      token: viewer.token,
      query: { asOfDate: '2025-09-30' },
    });
    expect(before.body.balances).toEqual([]);

    // The open balance as the endpoint shows it.
    const open = await t.get(`${base(c)}/foreign-currency-balances`, {
      token: viewer.token,
      query: { asOfDate: '2025-12-31' },
    });
    expect(open.status, JSON.stringify(open.body)).toBe(200);
    expect(open.body.balances).toEqual([
      expect.objectContaining({
        accountId: A.receivable,
        currency: 'GBP',
        foreignAmount: m('2000.00', 'GBP'),
        carryingAmount: m('2860.00', 'USD'),
        closingRate: '1.45',
        revaluedAmount: m('2900.00', 'USD'),
        difference: m('40.00', 'USD'),
        differenceKind: 'Unrealized',
      }),
    ]);

    // Year end: restated to $2,900, gain $40; reversed on 1 January.
    const run = await revalue(c, { asOfDate: '2025-12-31' });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body.entryStatus).toBe('Posted');
    expect(run.body.totalUnrealized).toEqual(m('40.00', 'USD'));
    expect(run.body.reversalDate).toBe('2026-01-01');
    expect(run.body.rates).toEqual([
      expect.objectContaining({ currency: 'GBP', rate: '1.45', exchangeRateIds: [expect.any(String)] }),
    ]);
    expect(await net(c, A.receivable, '2025-01-01', '2025-12-31')).toBe('2900.00');
    expect(await net(c, c.unrealized, '2025-01-01', '2025-12-31')).toBe('-40.00');
    const entry = await t.get(`${JE}/${run.body.entryId}`, { token: viewer.token });
    expect(entry.body).toMatchObject({
      entryType: 'Adjusting',
      sourceModule: 'GeneralLedger',
      status: 'Posted',
      transactionDate: '2025-12-31',
      totalDebits: m('40.00', 'USD'),
    });
    expect(entry.body.lines).toEqual([
      expect.objectContaining({
        accountId: A.receivable,
        debitAmount: m('0.00', 'GBP'),
        functionalCurrencyDebitAmount: m('40.00', 'USD'),
        exchangeRate: '1.45',
      }),
      expect.objectContaining({
        accountId: c.unrealized,
        creditAmount: m('40.00', 'USD'),
        functionalCurrencyCreditAmount: m('40.00', 'USD'),
      }),
    ]);
    expect(await net(c, A.receivable, '2026-01-01', '2026-01-01')).toBe('-40.00');

    // Collection at $1.50: $3,000.
    await book(c, '2026-01-20', [
      { accountId: A.cash, debit: ['3000.00', 'USD'] },
      { accountId: A.receivable, credit: ['2000.00', 'GBP'], rate: '1.50' },
    ]);
    await insertRate(t, org.id, owner.id, { from: 'GBP', to: 'USD', rate: '1.50', date: '2026-01-31' });
    const settled = await t.get(`${base(c)}/foreign-currency-balances`, {
      token: viewer.token,
      query: { asOfDate: '2026-01-31' },
    });
    expect(settled.body.balances).toEqual([
      expect.objectContaining({
        foreignAmount: m('0.00', 'GBP'),
        carryingAmount: m('-140.00', 'USD'),
        difference: m('140.00', 'USD'),
        differenceKind: 'Realized',
      }),
    ]);
    const after = await revalue(c, { asOfDate: '2026-01-31' });
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    expect(after.body.totalRealized).toEqual(m('140.00', 'USD'));
    expect(after.body.reversalEntryId).toBeNull();
    // The receivable is cleared in both currencies; the year's FX result is the published $100.
    expect(await net(c, A.receivable, '2025-01-01', '2026-12-31')).toBe('0.00');
    const fy2026 = new Decimal(await net(c, c.unrealized, '2026-01-01', '2026-12-31')).plus(
      await net(c, c.realized, '2026-01-01', '2026-12-31'),
    );
    expect(fy2026.toFixed(2)).toBe('-100.00');
    expect(await net(c, c.realized, '2026-01-01', '2026-12-31')).toBe('-140.00');
    expect(await trialBalanceNet(c)).toMatch(/^0(\.0+)?$/);
    expect(await balanceMismatches(t, org.id)).toEqual([]);
  });

  it('payable in EUR: 1,123 restated to 1,125 (loss 2), reversed, paid at 1,120 (realised 3)', async () => {
    const c = await fxCompany(org.id);
    const A = c.accounts;
    await book(c, '2025-01-01', [
      { accountId: A.expense, debit: ['1123.00', 'USD'] },
      { accountId: A.payable, credit: ['1000.00', 'EUR'], rate: '1.123' },
    ]);
    await insertRate(t, org.id, owner.id, {
      from: 'EUR',
      to: 'USD',
      rate: '1.125',
      date: '2025-01-31',
      type: 'YearEnd',
    });
    const run = await revalue(c, { asOfDate: '2025-01-31' });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body.lines).toEqual([
      expect.objectContaining({
        accountId: A.payable,
        foreignAmount: m('-1000.00', 'EUR'),
        carryingAmount: m('-1123.00', 'USD'),
        revaluedAmount: m('-1125.00', 'USD'),
        difference: m('-2.00', 'USD'),
      }),
    ]);
    expect(await net(c, A.payable, '2025-01-01', '2025-01-31')).toBe('-1125.00');
    expect(await net(c, c.unrealized, '2025-01-01', '2025-01-31')).toBe('2.00');
    // Reversed on 1 February, then paid at 1.120.
    expect(await net(c, A.payable, '2025-01-01', '2025-02-01')).toBe('-1123.00');
    await book(c, '2025-02-15', [
      { accountId: A.payable, debit: ['1000.00', 'EUR'], rate: '1.120' },
      { accountId: A.cash, credit: ['1120.00', 'USD'] },
    ]);
    const paid = await revalue(c, { asOfDate: '2025-02-28' });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.totalRealized).toEqual(m('3.00', 'USD'));
    expect(await net(c, c.realized, '2025-02-01', '2025-02-28')).toBe('-3.00');
    expect(await net(c, A.payable, '2025-01-01', '2025-12-31')).toBe('0.00');
    expect(await trialBalanceNet(c)).toMatch(/^0(\.0+)?$/);
  });

  it('IFRS Foundation (IFRS for SMEs Module 30, Ex 9): payable of FCU100,000 — 200,000, loss 10,000 at the year end, reversed, paid 205,000', async () => {
    // The source's functional currency "CU" is played by USD and its foreign currency "FCU" by EUR;
    // 20X1/20X2 are 2025/2026. Source facts: bought on credit on 24 December 20X1 for FCU100,000 at
    // CU2 = FCU1; year end 31 December 20X1 at CU2.1; paid on 17 January 20X2 at CU2.05.
    const c = await fxCompany(org.id);
    const A = c.accounts;
    await insertRate(t, org.id, owner.id, { from: 'EUR', to: 'USD', rate: '2', date: '2025-12-24' });
    // Initial recognition: FCU100,000 × 2 = 200,000 (raw materials are a non-monetary expense here).
    await book(c, '2025-12-24', [
      { accountId: A.expense, debit: ['200000.00', 'USD'] },
      { accountId: A.payable, credit: ['100000.00', 'EUR'], rate: '2' },
    ]);
    expect(await net(c, A.payable, '2025-01-01', '2025-12-31')).toBe('-200000.00');
    await insertRate(t, org.id, owner.id, {
      from: 'EUR',
      to: 'USD',
      rate: '2.1',
      date: '2025-12-31',
      type: 'YearEnd',
    });

    // Year end: the payable is restated at the closing rate, FCU100,000 × 2.1 = 210,000, a loss of 10,000.
    const run = await revalue(c, { asOfDate: '2025-12-31' });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body.entryStatus).toBe('Posted');
    expect(run.body.reversalDate).toBe('2026-01-01');
    expect(run.body.totalUnrealized).toEqual(m('-10000.00', 'USD'));
    expect(run.body.totalRealized).toEqual(m('0.00', 'USD'));
    expect(run.body.lines).toEqual([
      expect.objectContaining({
        accountId: A.payable,
        currency: 'EUR',
        foreignAmount: m('-100000.00', 'EUR'),
        carryingAmount: m('-200000.00', 'USD'),
        closingRate: '2.1',
        revaluedAmount: m('-210000.00', 'USD'),
        difference: m('-10000.00', 'USD'),
        differenceKind: 'Unrealized',
      }),
    ]);
    expect(await net(c, A.payable, '2025-01-01', '2025-12-31')).toBe('-210000.00');
    // The loss is a debit of 10,000 to the unrealised FX account in 20X1; the raw materials stay at 200,000.
    expect(await net(c, c.unrealized, '2025-01-01', '2025-12-31')).toBe('10000.00');
    expect(await net(c, A.expense, '2025-01-01', '2025-12-31')).toBe('200000.00');

    // Reversal on 1 January 20X2: the payable is back at its booking amount of 200,000.
    expect(await net(c, A.payable, '2026-01-01', '2026-01-01')).toBe('10000.00');
    expect(await net(c, c.unrealized, '2026-01-01', '2026-01-01')).toBe('-10000.00');
    expect(await net(c, A.payable, '2025-01-01', '2026-01-01')).toBe('-200000.00');

    // Payment on 17 January 20X2: FCU100,000 × 2.05 = 205,000.
    await insertRate(t, org.id, owner.id, { from: 'EUR', to: 'USD', rate: '2.05', date: '2026-01-17' });
    await book(c, '2026-01-17', [
      { accountId: A.payable, debit: ['100000.00', 'EUR'], rate: '2.05' },
      { accountId: A.cash, credit: ['205000.00', 'USD'] },
    ]);
    const settled = await t.get(`${base(c)}/foreign-currency-balances`, {
      token: viewer.token,
      query: { asOfDate: '2026-01-31' },
    });
    expect(settled.status, JSON.stringify(settled.body)).toBe(200);
    expect(settled.body.balances).toEqual([
      expect.objectContaining({
        accountId: A.payable,
        foreignAmount: m('0.00', 'EUR'),
        carryingAmount: m('5000.00', 'USD'),
        difference: m('-5000.00', 'USD'),
        differenceKind: 'Realized',
      }),
    ]);
    const after = await revalue(c, { asOfDate: '2026-01-31' });
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    expect(after.body.totalUnrealized).toEqual(m('0.00', 'USD'));
    expect(after.body.totalRealized).toEqual(m('-5000.00', 'USD'));
    expect(after.body.reversalEntryId).toBeNull();

    // Convention: the source's rule carries the payable at 210,000 into 20X2 and books only the further
    // movement on payment, a gain of 5,000 (210,000 − 205,000). With the reversal the whole difference
    // to the booking amount is realised on payment, a loss of 5,000 (205,000 − 200,000), next to the
    // reversal's 10,000 credit; the two agree on each year's result: a loss of 10,000 in 20X1 and a
    // gain of 5,000 in 20X2 (credits are negative below), 5,000 paid more than booked over both.
    expect(await net(c, c.realized, '2026-01-01', '2026-12-31')).toBe('5000.00');
    const fxResult = async (from: string, to: string) =>
      new Decimal(await net(c, c.unrealized, from, to)).plus(await net(c, c.realized, from, to)).toFixed(2);
    expect(await fxResult('2025-01-01', '2025-12-31')).toBe('10000.00');
    expect(await fxResult('2026-01-01', '2026-12-31')).toBe('-5000.00');
    expect(await fxResult('2025-01-01', '2026-12-31')).toBe('5000.00');
    expect(await net(c, A.payable, '2025-01-01', '2026-12-31')).toBe('0.00');
    expect(await net(c, A.cash, '2025-01-01', '2026-12-31')).toBe('-205000.00');
    expect(await trialBalanceNet(c)).toMatch(/^0(\.0+)?$/);
    expect(await balanceMismatches(t, org.id)).toEqual([]);
  });

  it('open textbook (Financial Accounting, 7.5): receivable of 100,000 pesos — $8,000, restated to $9,000 (gain $1,000), reversed, collected', async () => {
    // Source facts: a service sold on 9 December of Year One for 100,000 Mexican pesos at $0.08 per
    // peso ($8,000); at the year end the peso is worth $0.09, so the receivable is $9,000. Year One and
    // Two are 2025 and 2026.
    const c = await fxCompany(org.id);
    const A = c.accounts;
    await insertRate(t, org.id, owner.id, { from: 'MXN', to: 'USD', rate: '0.08', date: '2025-12-09' });
    await book(c, '2025-12-09', [
      { accountId: A.receivable, debit: ['100000.00', 'MXN'], rate: '0.08' },
      { accountId: A.revenue, credit: ['8000.00', 'USD'] },
    ]);
    expect(await net(c, A.receivable, '2025-01-01', '2025-12-31')).toBe('8000.00');
    await insertRate(t, org.id, owner.id, {
      from: 'MXN',
      to: 'USD',
      rate: '0.09',
      date: '2025-12-31',
      type: 'YearEnd',
    });
    const run = await revalue(c, { asOfDate: '2025-12-31' });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body.totalUnrealized).toEqual(m('1000.00', 'USD'));
    expect(run.body.reversalDate).toBe('2026-01-01');
    expect(run.body.lines).toEqual([
      expect.objectContaining({
        accountId: A.receivable,
        currency: 'MXN',
        foreignAmount: m('100000.00', 'MXN'),
        carryingAmount: m('8000.00', 'USD'),
        closingRate: '0.09',
        revaluedAmount: m('9000.00', 'USD'),
        difference: m('1000.00', 'USD'),
        differenceKind: 'Unrealized',
      }),
    ]);
    // The receivable, a monetary item, is at the current rate; the revenue stays at the historical $8,000.
    expect(await net(c, A.receivable, '2025-01-01', '2025-12-31')).toBe('9000.00');
    expect(await net(c, c.unrealized, '2025-01-01', '2025-12-31')).toBe('-1000.00');
    expect(await net(c, A.revenue, '2025-01-01', '2025-12-31')).toBe('-8000.00');
    // Reversed on 1 January.
    expect(await net(c, A.receivable, '2026-01-01', '2026-01-01')).toBe('-1000.00');
    expect(await net(c, A.receivable, '2025-01-01', '2026-01-01')).toBe('8000.00');

    // The source stops at the year end. Not from the source: the pesos are collected in January at the
    // unchanged $0.09, so the whole $1,000 is realised on collection and Year Two's FX result is nil
    // (the reversal's $1,000 debit against the realised $1,000 credit).
    await book(c, '2026-01-20', [
      { accountId: A.cash, debit: ['9000.00', 'USD'] },
      { accountId: A.receivable, credit: ['100000.00', 'MXN'], rate: '0.09' },
    ]);
    const after = await revalue(c, { asOfDate: '2026-01-31' });
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    expect(after.body.totalUnrealized).toEqual(m('0.00', 'USD'));
    expect(after.body.totalRealized).toEqual(m('1000.00', 'USD'));
    expect(await net(c, c.realized, '2026-01-01', '2026-12-31')).toBe('-1000.00');
    expect(await net(c, c.unrealized, '2026-01-01', '2026-12-31')).toBe('1000.00');
    expect(await net(c, A.receivable, '2025-01-01', '2026-12-31')).toBe('0.00');
    expect(await trialBalanceNet(c)).toMatch(/^0(\.0+)?$/);
    expect(await balanceMismatches(t, org.id)).toEqual([]);
  });
});

describe('runs, workflow and errors', () => {
  it('a dry run writes nothing; list and get show the recorded run with its rates', async () => {
    const c = await fxCompany(org.id);
    const A = c.accounts;
    await book(c, '2025-03-03', [
      { accountId: A.cash, debit: ['500.00', 'EUR'], rate: '1.1' },
      { accountId: A.revenue, credit: ['550.00', 'USD'] },
    ]);
    const rateId = await insertRate(t, org.id, owner.id, {
      from: 'USD',
      to: 'EUR',
      rate: '0.8',
      date: '2025-03-31',
    });
    const dry = await revalue(c, { asOfDate: '2025-03-31', dryRun: true });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    // Inverse of 0.8 = 1.25: 500 × 1.25 = 625, difference 75.
    expect(dry.body).toMatchObject({ id: null, dryRun: true, entryId: null });
    expect(dry.body.lines[0]).toMatchObject({ difference: m('75.00', 'USD'), closingRate: '1.25' });
    expect(dry.body.rates).toEqual([
      { currency: 'EUR', rate: '1.25', derivation: 'Inverse', exchangeRateIds: [rateId] },
    ]);
    const list0 = await t.get(`${base(c)}/fx-revaluations`, { token: viewer.token });
    expect(list0.body.revaluations).toEqual([]);
    expect(await net(c, A.cash, '2025-01-01', '2025-12-31')).toBe('550.00');

    const run = await revalue(c, { asOfDate: '2025-03-31', autoReverse: false });
    expect(run.status).toBe(200);
    expect(run.body.reversalEntryId).toBeNull();
    expect(await net(c, A.cash, '2025-01-01', '2025-12-31')).toBe('625.00');
    const list = await t.get(`${base(c)}/fx-revaluations`, { token: viewer.token });
    expect(list.status).toBe(200);
    expect(list.body.revaluations.map((r: { id: string }) => r.id)).toEqual([run.body.id]);
    const got = await t.get(`${base(c)}/fx-revaluations/${run.body.id}`, { token: viewer.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ ...run.body });
    // A second run on the same date has nothing left to book.
    const again = await revalue(c, { asOfDate: '2025-03-31' });
    expect(again.status).toBe(200);
    expect(again.body.entryId).toBeNull();
    expect(again.body.lines).toEqual([]);
  });

  it('roles, isolation and the errors a client can cause', async () => {
    const c = await fxCompany(org.id);
    const A = c.accounts;
    await book(c, '2025-05-05', [
      { accountId: A.receivable, debit: ['100.00', 'CHF'], rate: '1.1' },
      { accountId: A.revenue, credit: ['110.00', 'USD'] },
    ]);
    const viewerRun = await revalue(c, { asOfDate: '2025-05-31' }, viewer.token);
    expect(viewerRun.status).toBe(403);
    expect(viewerRun.body._tag).toBe('ForbiddenError');
    const outsiderGet = await t.get(`${base(c)}/foreign-currency-balances`, {
      token: outsider.token,
      query: { asOfDate: '2025-05-31' },
    });
    expect(outsiderGet.status).toBe(403);
    const wrongOrg = await t.get(`/api/v1/organizations/${otherOrg.id}/companies/${c.id}/fx-revaluations`, {
      token: outsider.token,
    });
    expect(wrongOrg.status).toBe(404);
    expect(wrongOrg.body._tag).toBe('CompanyNotFoundError');

    // No CHF rate on or before the date.
    const missing = await revalue(c, { asOfDate: '2025-05-31' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      _tag: 'ExchangeRateNotFoundError',
      fromCurrency: 'CHF',
      toCurrency: 'USD',
      date: '2025-05-31',
    });
    const open = await t.get(`${base(c)}/foreign-currency-balances`, {
      token: viewer.token,
      query: { asOfDate: '2025-05-31' },
    });
    expect(open.body.missingRates).toEqual(['CHF']);
    expect(open.body.balances[0]).toMatchObject({ closingRate: null, difference: null });

    await insertRate(t, org.id, owner.id, { from: 'CHF', to: 'USD', rate: '1.2', date: '2025-05-31' });
    // `rateType` narrows the chain: there is no Average rate.
    const avg = await revalue(c, { asOfDate: '2025-05-31', rateType: 'Average' });
    expect(avg.status).toBe(400);
    expect(avg.body._tag).toBe('ExchangeRateNotFoundError');
    // A closed period.
    await revalue(c, { asOfDate: '2025-05-31', dryRun: true });
    await setPeriodStatus(t, c, 2025, 5, 'Closed');
    const closed = await revalue(c, { asOfDate: '2025-05-31' });
    expect(closed.status).toBe(400);
    expect(closed.body._tag).toBe('FiscalPeriodClosedError');
    await setPeriodStatus(t, c, 2025, 5, 'Open');
    // The reversal's period (June) closed.
    await setPeriodStatus(t, c, 2025, 6, 'Closed');
    const closedNext = await revalue(c, { asOfDate: '2025-05-31' });
    expect(closedNext.status).toBe(400);
    expect(closedNext.body._tag).toBe('FiscalPeriodClosedError');
    await setPeriodStatus(t, c, 2025, 6, 'Open');
    // Without the unrealised account.
    await t.put(`/api/v1/organizations/${org.id}/companies/${c.id}`, {
      token: owner.token,
      body: { unrealizedFxGainLossAccountId: null },
    });
    const unconfigured = await revalue(c, { asOfDate: '2025-05-31' });
    expect(unconfigured.status).toBe(400);
    expect(unconfigured.body).toMatchObject({
      _tag: 'FxGainLossAccountNotConfiguredError',
      setting: 'unrealizedFxGainLossAccountId',
    });
    // Settings must name a revenue or expense account of the company.
    const bad = await t.put(`/api/v1/organizations/${org.id}/companies/${c.id}`, {
      token: owner.token,
      body: { unrealizedFxGainLossAccountId: A.cash },
    });
    expect(bad.status).toBe(400);
    expect(bad.body._tag).toBe('InvalidFxGainLossAccountError');
    const missingAccount = await t.put(`/api/v1/organizations/${org.id}/companies/${c.id}`, {
      token: owner.token,
      body: { realizedFxGainLossAccountId: '00000000-0000-7000-8000-000000000000' },
    });
    expect(missingAccount.status).toBe(404);
    expect(missingAccount.body._tag).toBe('AccountNotFoundError');
    const notFound = await t.get(`${base(c)}/fx-revaluations/00000000-0000-7000-8000-000000000000`, {
      token: viewer.token,
    });
    expect(notFound.status).toBe(404);
    expect(notFound.body._tag).toBe('FxRevaluationNotFoundError');
  });

  it('with approval required the run is a draft; deleting it deletes the run and its reversal', async () => {
    const c = await fxCompany(approvalOrg.id);
    const A = c.accounts;
    // Book a posted foreign line directly through the workflow: submit, approve, post.
    const created = await t.post(JE, {
      token: owner.token,
      body: {
        organizationId: c.organizationId,
        companyId: c.id,
        description: 'loan',
        transactionDate: '2025-06-10',
        lines: [
          { accountId: A.cash, debitAmount: m('100.00', 'USD') },
          { accountId: A.payable, creditAmount: m('100', 'JPY'), exchangeRate: '1' },
        ],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    for (const step of ['submit', 'approve', 'post']) {
      const r = await t.post(`${JE}/${created.body.id}/${step}`, { token: owner.token });
      expect(r.status, `${step} ${JSON.stringify(r.body)}`).toBe(200);
    }
    await insertRate(t, approvalOrg.id, owner.id, {
      from: 'JPY',
      to: 'USD',
      rate: '1.5',
      date: '2025-06-30',
    });
    const run = await revalue(c, { asOfDate: '2025-06-30' });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body.entryStatus).toBe('Draft');
    const reversal = await t.get(`${JE}/${run.body.reversalEntryId}`, { token: owner.token });
    expect(reversal.body).toMatchObject({ status: 'Draft', transactionDate: '2025-07-01' });
    // Nothing in the balances yet, and a second run waits for the first.
    expect(await net(c, A.payable, '2025-01-01', '2025-12-31')).toBe('-100.00');
    const pending = await revalue(c, { asOfDate: '2025-06-30' });
    expect(pending.status).toBe(409);
    expect(pending.body).toMatchObject({ _tag: 'FxRevaluationPendingError', revaluationId: run.body.id });

    const del = await t.del(`${JE}/${run.body.entryId}`, { token: owner.token });
    expect(del.status).toBe(204);
    const gone = await t.get(`${base(c)}/fx-revaluations/${run.body.id}`, { token: owner.token });
    expect(gone.status).toBe(404);
    const reversalGone = await t.get(`${JE}/${run.body.reversalEntryId}`, { token: owner.token });
    expect(reversalGone.status).toBe(404);

    // Run again, and take the draft through the workflow: it posts like any entry.
    const again = await revalue(c, { asOfDate: '2025-06-30', autoReverse: false });
    expect(again.status).toBe(200);
    for (const step of ['submit', 'approve', 'post']) {
      const r = await t.post(`${JE}/${again.body.entryId}/${step}`, { token: owner.token });
      expect(r.status, `${step} ${JSON.stringify(r.body)}`).toBe(200);
    }
    expect(await net(c, A.payable, '2025-01-01', '2025-12-31')).toBe('-150.00');
    const got = await t.get(`${base(c)}/fx-revaluations/${again.body.id}`, { token: owner.token });
    expect(got.body.entryStatus).toBe('Posted');
    expect(await balanceMismatches(t, approvalOrg.id)).toEqual([]);
  });
});

/** Rounds half away from zero to the currency's minor units (2 for every currency used here). */
const round2 = (d: Decimal) => d.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);

describe('properties', () => {
  const CURRENCIES = ['EUR', 'GBP', 'CHF'] as const;
  const entryArb = fc.record({
    day: fc.integer({ min: 1, max: 28 }),
    month: fc.integer({ min: 1, max: 3 }),
    account: fc.constantFrom('cash', 'receivable', 'payable') as fc.Arbitrary<
      'cash' | 'receivable' | 'payable'
    >,
    currency: fc.constantFrom(...CURRENCIES),
    cents: fc.integer({ min: -500_000, max: 500_000 }).filter((n) => n !== 0),
    rate: fc.integer({ min: 50, max: 250 }),
  });
  const caseArb = fc.record({
    entries: fc.array(entryArb, { minLength: 1, maxLength: 6 }),
    closing: fc.record({
      EUR: fc.integer({ min: 5_000, max: 25_000 }),
      GBP: fc.integer({ min: 5_000, max: 25_000 }),
      CHF: fc.integer({ min: 5_000, max: 25_000 }),
    }),
    autoReverse: fc.boolean(),
    settle: fc.boolean(),
  });

  it('after a revaluation as of D every carrying amount is foreign × closing rate (rounded) and the trial balance nets to zero', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (k) => {
        const c = await fxCompany(org.id);
        const A = c.accounts;
        for (const e of k.entries) {
          const amount = new Decimal(e.cents).abs().dividedBy(100);
          const rate = new Decimal(e.rate).dividedBy(100);
          const functional = round2(amount.times(rate)).toFixed(2);
          const foreign: Line = { accountId: A[e.account], rate: rate.toFixed(2) };
          const other: Line = { accountId: e.cents > 0 ? A.revenue : A.expense };
          if (e.cents > 0) {
            foreign.debit = [amount.toFixed(2), e.currency];
            other.credit = [functional, 'USD'];
          } else {
            foreign.credit = [amount.toFixed(2), e.currency];
            other.debit = [functional, 'USD'];
          }
          const date = `2025-0${e.month}-${String(e.day).padStart(2, '0')}`;
          await book(c, date, [foreign, other]);
        }
        if (k.settle) {
          // Settle the first entry's foreign amount at another rate: a realised difference.
          const e = k.entries[0]!;
          const amount = new Decimal(e.cents).abs().dividedBy(100);
          const functional = round2(amount.times(3)).toFixed(2);
          const back: Line = { accountId: A[e.account], rate: '3' };
          const usd: Line = { accountId: A.expense };
          if (e.cents > 0) {
            back.credit = [amount.toFixed(2), e.currency];
            usd.debit = [functional, 'USD'];
          } else {
            back.debit = [amount.toFixed(2), e.currency];
            usd.credit = [functional, 'USD'];
          }
          await book(c, '2025-03-29', [back, usd]);
        }
        // This case's closing rates replace the previous case's (same organization, same date).
        await t.database.db.execute(
          sql`delete from exchange_rates where organization_id = ${org.id} and effective_date = '2025-03-31'`,
        );
        const closing: Record<string, Decimal> = {};
        for (const cur of CURRENCIES) {
          closing[cur] = new Decimal(k.closing[cur]).dividedBy(10_000);
          await insertRate(t, org.id, owner.id, {
            from: cur,
            to: 'USD',
            rate: closing[cur].toFixed(4),
            date: '2025-03-31',
            type: 'YearEnd',
          });
        }
        const run = await revalue(c, { asOfDate: '2025-03-31', autoReverse: k.autoReverse });
        expect(run.status, JSON.stringify(run.body)).toBe(200);
        const after = await t.get(`${base(c)}/foreign-currency-balances`, {
          token: viewer.token,
          query: { asOfDate: '2025-03-31' },
        });
        for (const b of after.body.balances) {
          const foreign = new Decimal(b.foreignAmount.value);
          const expected = round2(foreign.times(closing[b.currency]!));
          expect(new Decimal(b.carryingAmount.value).equals(expected), JSON.stringify(b)).toBe(true);
          expect(new Decimal(b.difference.value).isZero()).toBe(true);
        }
        expect(await trialBalanceNet(c)).toMatch(/^-?0(\.0+)?$/);
      }),
      { numRuns: Number(process.env.FX_PROPERTY_RUNS ?? 12) },
    );
    expect(await balanceMismatches(t, org.id)).toEqual([]);
    expect(await currencyBalanceMismatches(t, org.id)).toEqual([]);
  }, 600_000);
});

describe('concurrency', () => {
  it('a revaluation racing with posts into the same period sees each post whole or not at all', async () => {
    const c = await fxCompany(org.id);
    const A = c.accounts;
    await book(c, '2025-09-01', [
      { accountId: A.receivable, debit: ['1000.00', 'EUR'], rate: '1.10' },
      { accountId: A.revenue, credit: ['1100.00', 'USD'] },
    ]);
    await insertRate(t, org.id, owner.id, {
      from: 'EUR',
      to: 'USD',
      rate: '1.2',
      date: '2025-09-30',
      type: 'YearEnd',
    }).catch(() => undefined);
    // Drafts ready to post: each adds EUR 100.00 carried at $105.00.
    const drafts: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await t.post(JE, {
        token: owner.token,
        body: {
          organizationId: c.organizationId,
          companyId: c.id,
          description: `sale ${i}`,
          transactionDate: '2025-09-15',
          lines: [
            { accountId: A.receivable, debitAmount: m('100.00', 'EUR'), exchangeRate: '1.05' },
            { accountId: A.revenue, creditAmount: m('105.00', 'USD') },
          ],
        },
      });
      expect(res.status).toBe(201);
      drafts.push(res.body.id);
    }
    const [run, ...posts] = await Promise.all([
      revalue(c, { asOfDate: '2025-09-30', autoReverse: false }),
      ...drafts.map((id) => t.post(`${JE}/${id}/post`, { token: owner.token })),
    ]);
    expect(run!.status, JSON.stringify(run!.body)).toBe(200);
    for (const p of posts) expect(p.status).toBe(200);
    // The run saw k of the posts, each with both its foreign and its functional amount.
    const line = run!.body.lines[0];
    const k = new Decimal(line.foreignAmount.value).minus(1000).dividedBy(100);
    expect(k.isInteger() && k.gte(0) && k.lte(8)).toBe(true);
    expect(line.carryingAmount.value).toBe(new Decimal(1100).plus(k.times(105)).toFixed(2));
    // The posts it did not see are revalued by the next run; nothing is counted twice.
    const next = await revalue(c, { asOfDate: '2025-09-30', autoReverse: false });
    expect(next.status).toBe(200);
    const open = await t.get(`${base(c)}/foreign-currency-balances`, {
      token: viewer.token,
      query: { asOfDate: '2025-09-30' },
    });
    expect(open.body.balances[0]).toMatchObject({
      foreignAmount: m('1800.00', 'EUR'),
      carryingAmount: m('2160.00', 'USD'),
      difference: m('0.00', 'USD'),
    });
    expect(await trialBalanceNet(c)).toMatch(/^-?0(\.0+)?$/);
    expect(await balanceMismatches(t, org.id)).toEqual([]);
    expect(await currencyBalanceMismatches(t, org.id)).toEqual([]);
  }, 120_000);
});

describe('company reports', () => {
  it('carry the company name after its id', async () => {
    const c = await fxCompany(org.id);
    const company = await t.get(`/api/v1/organizations/${org.id}/companies/${c.id}`, { token: viewer.token });
    const q = { organizationId: org.id, companyId: c.id };
    const reports: [string, Record<string, string>][] = [
      ['trial-balance', { asOfDate: '2025-12-31' }],
      ['balance-sheet', { asOfDate: '2025-12-31' }],
      ['income-statement', { periodStartDate: '2025-01-01', periodEndDate: '2025-12-31' }],
      ['cash-flow', { periodStartDate: '2025-01-01', periodEndDate: '2025-12-31' }],
      ['equity-statement', { periodStartDate: '2025-01-01', periodEndDate: '2025-12-31' }],
    ];
    for (const [path, extra] of reports) {
      const res = await t.get(`/api/v1/reports/${path}`, { token: viewer.token, query: { ...q, ...extra } });
      expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
      expect(Object.keys(res.body).slice(0, 2)).toEqual(['companyId', 'companyName']);
      expect(res.body.companyName).toBe(company.body.name);
    }
  });
});
