/**
 * Consolidation reads revalued balances like any others: a USD parent lends EUR 1,000 to its EUR
 * subsidiary on 1 January (EUR 1 = USD 1.10); at 31 March the closing rate is 1.20.
 *
 * - Before the parent revalues, it still carries its receivable at USD 1,100 while the subsidiary's
 *   payable translates to EUR 1,000 × 1.20 = USD 1,200: the elimination removes 1,100 and the run
 *   reports the 100 it could not eliminate (the subsidiary's payable line keeps −100).
 * - After the parent's revaluation as of 31 March (receivable restated to USD 1,200, an unrealised
 *   gain of 100 in its income statement), both sides are 1,200 and the loan eliminates to zero.
 *
 * Figures computed by hand from the rates above.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext, type TestUser } from '../helpers/app.ts';
import {
  type CompanyFixture,
  createCompany,
  createWholeGroup,
  addEurUsdRate,
} from '../helpers/consolidation.ts';

let t: TestContext;
let owner: TestUser;
let org: { id: string };

beforeAll(async () => {
  t = await createTestContext();
  owner = await t.user('owner');
  org = await t.org(owner, { settings: { requireApproval: false } });
}, 60_000);

afterAll(async () => {
  await t.close();
});

async function post(co: CompanyFixture, date: string, lines: Record<string, unknown>[]) {
  const created = await t.post('/api/v1/journal-entries', {
    token: owner.token,
    body: { organizationId: org.id, companyId: co.id, description: 'loan', transactionDate: date, lines },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const posted = await t.post(`/api/v1/journal-entries/${created.body.id}/post`, {
    token: owner.token,
    body: { organizationId: org.id },
  });
  expect(posted.status, JSON.stringify(posted.body)).toBe(200);
}

const rate = (value: string, effectiveDate: string, rateType: string) =>
  addEurUsdRate(t, owner, org.id, value, effectiveDate, rateType);

describe('a revalued foreign-currency intercompany loan in a consolidation run', () => {
  let parent: CompanyFixture;
  let sub: CompanyFixture;
  let groupId: string;

  beforeAll(async () => {
    parent = await createCompany(t, owner, org.id, { functionalCurrency: 'USD' });
    sub = await createCompany(t, owner, org.id, { functionalCurrency: 'EUR' });
    await rate('1.10', '2026-01-01', 'Spot');
    await rate('1.10', '2026-01-31', 'Average');
    await rate('1.15', '2026-02-28', 'Average');
    await rate('1.20', '2026-03-31', 'Average');
    await rate('1.20', '2026-03-31', 'Spot');
    // Parent: IC loan receivable 1400, EUR 1,000 at 1.10 (USD 1,100), paid out of cash.
    await post(parent, '2026-01-01', [
      { accountId: parent.accounts['1400'], debitAmount: { value: '1000.00', currency: 'EUR' } },
      { accountId: parent.accounts['1010'], creditAmount: { value: '1100.00', currency: 'USD' } },
    ]);
    // Subsidiary: cash received, IC loan payable 2400 EUR 1,000.
    await post(sub, '2026-01-01', [
      { accountId: sub.accounts['1010'], debitAmount: { value: '1000.00', currency: 'EUR' } },
      { accountId: sub.accounts['2400'], creditAmount: { value: '1000.00', currency: 'EUR' } },
    ]);
    groupId = await createWholeGroup(t, owner, org.id, parent, [sub]);
    const rule = await t.post('/api/v1/elimination-rules', {
      token: owner.token,
      body: {
        organizationId: org.id,
        consolidationGroupId: groupId,
        name: 'IC loan',
        eliminationType: 'IntercompanyReceivablesPayables',
        triggerConditions: [],
        sourceAccounts: [{ accountNumber: '1400', companyId: parent.id }],
        targetAccounts: [{ accountNumber: '2400', companyId: sub.id }],
        debitAccountId: sub.accounts['2400'],
        creditAccountId: parent.accounts['1400'],
        isAutomatic: true,
        priority: 10,
      },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
  }, 60_000);

  async function runAndTrialBalance() {
    const res = await t.post(`/api/v1/consolidation/groups/${groupId}/runs`, {
      token: owner.token,
      body: { periodRef: { year: 2026, period: 3 }, forceRegeneration: true },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.status).toBe('Completed');
    const tb = await t.get(`/api/v1/consolidation/runs/${res.body.id}/trial-balance`, {
      token: owner.token,
    });
    expect(tb.status).toBe(200);
    const amounts = (n: string) => {
      const l = tb.body.lineItems.find((x: { accountNumber: string }) => x.accountNumber === n);
      return l && [l.aggregatedBalance.value, l.eliminationAmount.value, l.consolidatedBalance.value];
    };
    return { run: res.body, tb: tb.body, amounts };
  }

  it('before the revaluation the elimination leaves the 100 difference on the payable', async () => {
    const { run, tb, amounts } = await runAndTrialBalance();
    expect(
      run.eliminations.map((e: any) => [e.amount.value, e.sourceBalance.value, e.targetBalance.value]),
    ).toEqual([['1100.00', '1100.00', '-1200.00']]);
    expect(amounts('1400')).toEqual(['1100.00', '-1100.00', '0.00']);
    expect(amounts('2400')).toEqual(['-1200.00', '1100.00', '-100.00']);
    expect(tb.isBalanced).toBe(true);
  });

  it('after the revaluation the loan eliminates to zero in USD', async () => {
    const reval = await t.post(`/api/v1/organizations/${org.id}/companies/${parent.id}/fx-revaluations`, {
      token: owner.token,
      body: { asOfDate: '2026-03-31' },
    });
    expect(reval.status, JSON.stringify(reval.body)).toBe(200);
    // The template's 8400 Foreign Exchange Gain/Loss is the company's FX account.
    expect(reval.body.lines).toEqual([
      expect.objectContaining({
        accountId: parent.accounts['1400'],
        foreignAmount: { value: '1000.00', currency: 'EUR' },
        carryingAmount: { value: '1100.00', currency: 'USD' },
        revaluedAmount: { value: '1200.00', currency: 'USD' },
        difference: { value: '100.00', currency: 'USD' },
      }),
    ]);
    const { run, tb, amounts } = await runAndTrialBalance();
    expect(
      run.eliminations.map((e: any) => [e.amount.value, e.sourceBalance.value, e.targetBalance.value]),
    ).toEqual([['1200.00', '1200.00', '-1200.00']]);
    expect(amounts('1400')).toEqual(['1200.00', '-1200.00', '0.00']);
    expect(amounts('2400')).toEqual(['-1200.00', '1200.00', '0.00']);
    // The unrealised gain is in the group's income.
    expect(amounts('8400')).toEqual(['-100.00', '0.00', '-100.00']);
    expect(tb.isBalanced).toBe(true);
  });
});
