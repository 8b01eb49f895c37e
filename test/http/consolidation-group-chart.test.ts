/**
 * Group chart of accounts, through the API.
 *
 * Worked example with two charts: a parent P (USD) and two subsidiaries keep the same ledger twice —
 * once on the common GeneralBusiness chart (group "one chart", no group chart), once with their own
 * numbering (group "two charts"): S1b (EUR, 80 %) numbers like a German SKR chart (1800 bank, 1400
 * receivables, 2900 capital, 4400 revenue, 6300 expenses), S2b (USD) like a US chart with five digits
 * (10100 cash, 20100 payables, 30100 capital, 50100 purchases). Mapped onto a group chart with the
 * GeneralBusiness numbers, both groups must publish the same consolidated statements — whatever the
 * figures are, the mapping may not change them. S1 sold to S2 for €100 on credit; S2 booked $115: the
 * reciprocal rule leaves a $5 residual (€100 × 1.20 − $115) that must be reported, or booked to the
 * group's intercompany-difference account when within its tolerance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dec } from '../../src/domain/money.ts';
import { createTestContext, type TestContext, type TestUser, uniq } from '../helpers/app.ts';
import {
  type CompanyFixture,
  createCompany,
  addEurUsdRate,
  type LineSpec,
  postEntry,
} from '../helpers/consolidation.ts';

let t: TestContext;
let owner: TestUser;
let org: { id: string };
let p: CompanyFixture;
let s1: CompanyFixture;
let s2: CompanyFixture;
let s1b: CompanyFixture;
let s2b: CompanyFixture;
let groupA: string;
let groupB: string;
let runA: any;
let runB: any;

const post = (co: CompanyFixture, currency: string, transactionDate: string, lines: LineSpec[]) =>
  postEntry(t, owner, org.id, co, currency, transactionDate, lines);

const rate = (value: string, effectiveDate: string, rateType: string) =>
  addEurUsdRate(t, owner, org.id, value, effectiveDate, rateType);

async function account(
  co: CompanyFixture,
  accountNumber: string,
  name: string,
  accountType: string,
  accountCategory: string,
  extra: Record<string, unknown> = {},
) {
  const res = await t.post('/api/v1/accounts', {
    token: owner.token,
    body: {
      organizationId: org.id,
      companyId: co.id,
      accountNumber,
      name,
      accountType,
      accountCategory,
      ...extra,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  co.accounts[accountNumber] = res.body.id;
}

async function group(name: string, members: CompanyFixture[]) {
  const res = await t.post('/api/v1/consolidation/groups', {
    token: owner.token,
    body: {
      organizationId: org.id,
      name: uniq(name),
      reportingCurrency: 'USD',
      consolidationMethod: 'FullConsolidation',
      parentCompanyId: p.id,
      members: members.map((m, i) => ({
        companyId: m.id,
        ownershipPercentage: i === 0 ? '80' : '100',
        consolidationMethod: 'FullConsolidation',
      })),
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

async function rule(
  groupId: string,
  debitAccountId: string,
  creditAccountId: string,
  src: string,
  tgt: string,
) {
  const res = await t.post('/api/v1/elimination-rules', {
    token: owner.token,
    body: {
      organizationId: org.id,
      consolidationGroupId: groupId,
      name: 'Receivables and payables',
      eliminationType: 'IntercompanyReceivablesPayables',
      triggerConditions: [],
      sourceAccounts: [{ accountNumber: '1100', companyId: src }],
      targetAccounts: [{ accountNumber: '2000', companyId: tgt }],
      debitAccountId,
      creditAccountId,
      isAutomatic: true,
      priority: 10,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

async function startRun(groupId: string, forceRegeneration = false) {
  const res = await t.post(`/api/v1/consolidation/groups/${groupId}/runs`, {
    token: owner.token,
    body: { periodRef: { year: 2025, period: 12 }, forceRegeneration },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function get(path: string, query: Record<string, string> = {}) {
  const res = await t.get(path, { token: owner.token, query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const base = (id: string) => `/api/v1/consolidation/groups/${id}`;

async function map(groupId: string, body: Record<string, unknown>) {
  const res = await t.post(`${base(groupId)}/mappings`, { token: owner.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** A statement without the fields that name the run or the group. */
function content(statement: any) {
  const {
    runId: _r,
    groupId: _g,
    groupName: _n,
    generatedAt: _t,
    consolidationRunId: _c,
    ...rest
  } = statement;
  return rest;
}

const issuesOf = (run: any, code: string) =>
  (run.validationResult?.issues ?? []).filter((i: any) => i.code === code);

const groupAccountIds: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestContext();
  owner = await t.user('owner');
  org = await t.org(owner, { settings: { requireApproval: false } });
  p = await createCompany(t, owner, org.id);
  s1 = await createCompany(t, owner, org.id, { functionalCurrency: 'EUR' });
  s2 = await createCompany(t, owner, org.id);
  s1b = await createCompany(t, owner, org.id, { functionalCurrency: 'EUR', template: false });
  s2b = await createCompany(t, owner, org.id, { template: false });

  await account(s1b, '1800', 'Bank', 'Asset', 'CurrentAsset', { isCashEquivalent: true });
  await account(s1b, '1400', 'Forderungen', 'Asset', 'CurrentAsset');
  await account(s1b, '2900', 'Gezeichnetes Kapital', 'Equity', 'ContributedCapital');
  await account(s1b, '4400', 'Umsatzerlöse', 'Revenue', 'OperatingRevenue');
  await account(s1b, '6300', 'Sonstige Aufwendungen', 'Expense', 'CostOfGoodsSold');
  await account(s2b, '10100', 'Cash', 'Asset', 'CurrentAsset', { isCashEquivalent: true });
  await account(s2b, '20100', 'Trade payables', 'Liability', 'CurrentLiability');
  await account(s2b, '30100', 'Share capital', 'Equity', 'ContributedCapital');
  await account(s2b, '50100', 'Purchases', 'Expense', 'CostOfGoodsSold');

  // P on the common chart (it is the parent of both groups).
  await post(p, 'USD', '2025-01-02', [
    ['1010', 'D', '5000'],
    ['3000', 'C', '5000'],
  ]);
  await post(p, 'USD', '2025-06-30', [
    ['1010', 'D', '800'],
    ['4000', 'C', '800'],
  ]);
  await post(p, 'USD', '2025-07-31', [
    ['5000', 'D', '300'],
    ['1010', 'C', '300'],
  ]);
  // S1 / S1b: €1,000 capital, a €100 sale to S2 on credit, €40 of costs.
  for (const [co, cash, recv, cap, rev, exp] of [
    [s1, '1010', '1100', '3000', '4000', '5000'],
    [s1b, '1800', '1400', '2900', '4400', '6300'],
  ] as const) {
    await post(co, 'EUR', '2025-01-02', [
      [cash, 'D', '1000'],
      [cap, 'C', '1000'],
    ]);
    await post(co, 'EUR', '2025-03-31', [
      [recv, 'D', '100'],
      [rev, 'C', '100'],
    ]);
    await post(co, 'EUR', '2025-05-31', [
      [exp, 'D', '40'],
      [cash, 'C', '40'],
    ]);
  }
  // S2 / S2b: $2,000 capital, the purchase from S1 booked at $115.
  for (const [co, cash, pay, cap, exp] of [
    [s2, '1010', '2000', '3000', '5000'],
    [s2b, '10100', '20100', '30100', '50100'],
  ] as const) {
    await post(co, 'USD', '2025-01-02', [
      [cash, 'D', '2000'],
      [cap, 'C', '2000'],
    ]);
    await post(co, 'USD', '2025-03-31', [
      [exp, 'D', '115'],
      [pay, 'C', '115'],
    ]);
  }

  await rate('1.10', '2025-01-01', 'Spot');
  for (let month = 1; month <= 12; month++) {
    await rate('1.15', `2025-${String(month).padStart(2, '0')}-28`, 'Average');
  }
  await rate('1.20', '2025-12-31', 'YearEnd');

  groupA = await group('One chart', [s1, s2]);
  groupB = await group('Two charts', [s1b, s2b]);
  await rule(groupA, s2.accounts['2000']!, s1.accounts['1100']!, s1.id, s2.id);

  // The group chart of B: P's whole chart, copied through the bulk endpoint.
  const pAccounts: any[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await get('/api/v1/accounts', {
      organizationId: org.id,
      companyId: p.id,
      limit: '100',
      offset: String(offset),
    });
    pAccounts.push(...page.accounts);
    if (offset + 100 >= page.total) break;
  }
  const bulk = await t.post(`${base(groupB)}/accounts/bulk`, {
    token: owner.token,
    body: {
      accounts: pAccounts.map((a) => ({
        accountNumber: a.accountNumber,
        name: a.name,
        accountType: a.accountType,
        accountCategory: a.accountCategory,
        cashFlowCategory: a.cashFlowCategory,
        isCashEquivalent: a.isCashEquivalent,
        isNonMonetary: a.isNonMonetary,
      })),
    },
  });
  expect(bulk.status, JSON.stringify(bulk.body)).toBe(201);
  expect(bulk.body.count).toBe(pAccounts.length);
  for (const a of bulk.body.created) groupAccountIds[a.accountNumber] = a.id;

  // P maps one to one (explicitly), S1b by its own patterns, S2b explicitly and by a pattern for every member.
  const pRe = pAccounts.find((a) => a.isRetainedEarnings);
  for (const n of ['1010', '3000', '4000', '5000', ...(pRe ? [pRe.accountNumber] : [])]) {
    await map(groupB, { groupAccountId: groupAccountIds[n], accountId: p.accounts[n] });
  }
  for (const [pattern, n] of [
    ['18*', '1010'],
    ['1400', '1100'],
    ['2900-2999', '3000'],
    ['44*', '4000'],
    ['6000-6999', '5000'],
  ] as const) {
    await map(groupB, { groupAccountId: groupAccountIds[n], pattern, companyId: s1b.id });
  }
  await map(groupB, { groupAccountId: groupAccountIds['1010'], accountId: s2b.accounts['10100'] });
  await map(groupB, { groupAccountId: groupAccountIds['3000'], accountId: s2b.accounts['30100'] });
  await map(groupB, { groupAccountId: groupAccountIds['2000'], pattern: '201*', companyId: s2b.id });
  await map(groupB, { groupAccountId: groupAccountIds['5000'], pattern: '50000-59999' });
  // The rule names group accounts in its selectors; its debit and credit accounts are the members' own.
  await rule(groupB, s2b.accounts['20100']!, s1b.accounts['1400']!, s1b.id, s2b.id);

  runA = await startRun(groupA);
  runB = await startRun(groupB);
}, 180_000);

afterAll(async () => {
  await t.close();
});

describe('a group chart with two member charts', () => {
  it('completes both runs', () => {
    expect(runA.status, runA.errorMessage).toBe('Completed');
    expect(runB.status, runB.errorMessage).toBe('Completed');
  });

  it('publishes the same consolidated statements as the same ledger on one chart', async () => {
    for (const path of [
      'reports/balance-sheet',
      'reports/income-statement',
      'reports/cash-flow',
      'reports/equity-statement',
    ]) {
      const a = await get(`/api/v1/consolidation/runs/${runA.id}/${path}`);
      const b = await get(`/api/v1/consolidation/runs/${runB.id}/${path}`);
      expect(content(b), path).toEqual(content(a));
    }
    const tbA = await get(`/api/v1/consolidation/runs/${runA.id}/trial-balance`);
    const tbB = await get(`/api/v1/consolidation/runs/${runB.id}/trial-balance`);
    expect(tbB.lineItems).toEqual(tbA.lineItems);
    expect(runB.totals).toEqual(runA.totals);
    // The group chart's names: S1b's "Forderungen" is reported as Accounts Receivable.
    expect(tbB.lineItems.find((l: any) => l.accountNumber === '1100')?.accountName).toBe(
      'Accounts Receivable',
    );
  });

  it('reports the residual of the reciprocal rule as IC_DIFFERENCE (€100 × 1.20 − $115 = $5)', () => {
    for (const run of [runA, runB]) {
      const [issue, ...more] = issuesOf(run, 'IC_DIFFERENCE');
      expect(more).toHaveLength(0);
      expect(issue.severity).toBe('Warning');
      expect(issue.message).toContain('a residual of 5.00 USD');
      expect(issue.entityReference).toBe(run.eliminations[0].eliminationRuleId);
      expect(run.eliminations[0].amount).toEqual({ value: '115.00', currency: 'USD' });
    }
  });

  it('answers one mapping as the list shows it, and 404 for a mapping not of the group', async () => {
    const list = await get(`${base(groupB)}/mappings`, { limit: '1' });
    const [first] = list.mappings;
    expect(await get(`${base(groupB)}/mappings/${first.id}`)).toEqual(first);
    for (const path of [`${base(groupA)}/mappings/${first.id}`, `${base(groupB)}/mappings/not-an-id`]) {
      const missing = await t.get(path, { token: owner.token });
      expect(missing.status, path).toBe(404);
      expect(missing.body._tag).toBe('GroupAccountMappingNotFoundError');
    }
  });

  it('previews every member account with its group account', async () => {
    const preview = await get(`${base(groupB)}/mappings/preview`);
    expect(preview.hasGroupChart).toBe(true);
    const line = (co: CompanyFixture, n: string) =>
      preview.accounts.find((l: any) => l.companyId === co.id && l.accountNumber === n);
    expect(line(s1b, '1400')).toMatchObject({
      groupAccountNumber: '1100',
      mappedBy: 'Pattern',
      pattern: '1400',
    });
    expect(line(s1b, '6300')).toMatchObject({ groupAccountNumber: '5000', pattern: '6000-6999' });
    expect(line(s2b, '10100')).toMatchObject({
      groupAccountNumber: '1010',
      mappedBy: 'Explicit',
      pattern: null,
    });
    expect(line(s2b, '50100')).toMatchObject({ groupAccountNumber: '5000', pattern: '50000-59999' });
    expect(preview.unmapped.some((l: any) => l.companyId === s2b.id)).toBe(false);
    const noChart = await get(`${base(groupA)}/mappings/preview`);
    expect(noChart.hasGroupChart).toBe(false);
  });

  it('publishes the elimination journal, balanced', async () => {
    const journal = await get(`/api/v1/consolidation/runs/${runB.id}/elimination-entries`);
    expect(journal.isBalanced).toBe(true);
    expect(journal.entries).toHaveLength(1);
    expect(journal.entries[0].lines).toEqual([
      {
        accountNumber: '2000',
        companyId: s2b.id,
        debit: { value: '115.00', currency: 'USD' },
        credit: { value: '0.00', currency: 'USD' },
      },
      {
        accountNumber: '1100',
        companyId: s1b.id,
        debit: { value: '0.00', currency: 'USD' },
        credit: { value: '115.00', currency: 'USD' },
      },
    ]);
  });

  it('compares a rerun over the same data: no difference, same input digest', async () => {
    const rerun = await startRun(groupB, true);
    expect(rerun.status).toBe('Completed');
    expect(rerun.inputDigest).toMatch(/^[0-9a-f]{64}$/);
    const cmp = await get(`/api/v1/consolidation/runs/${rerun.id}/compare`, { otherRunId: runB.id });
    expect(cmp.differences).toEqual([]);
    expect(cmp.sameInputs).toBe(true);
    expect(cmp.inputDigest).toBe(runB.inputDigest);
    runB = rerun;
  });

  it('gives a different input digest once a member account changes, and the same one once it is back', async () => {
    const rename = (name: string) =>
      t.put(`/api/v1/accounts/organizations/${org.id}/accounts/${s2b.accounts['10100']}`, {
        token: owner.token,
        body: { name },
      });
    expect((await rename('Cash at bank')).status).toBe(200);
    const renamed = await startRun(groupB, true);
    expect(renamed.status).toBe('Completed');
    expect(renamed.inputDigest).not.toBe(runB.inputDigest);
    expect((await rename('Cash')).status).toBe(200);
    const back = await startRun(groupB, true);
    expect(back.inputDigest).toBe(runB.inputDigest);
    runB = back;
  });

  it('books a residual within the tolerance to the intercompany-difference account', async () => {
    const created = await t.post(`${base(groupB)}/accounts`, {
      token: owner.token,
      body: {
        accountNumber: '5950',
        name: 'Intercompany differences',
        accountType: 'Expense',
        accountCategory: 'OtherExpense',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const bad = await t.put(`${base(groupB)}/intercompany-difference`, {
      token: owner.token,
      body: { accountNumber: '5951', tolerance: '10.00' },
    });
    expect(bad.status).toBe(400);
    const set = await t.put(`${base(groupB)}/intercompany-difference`, {
      token: owner.token,
      body: { accountNumber: '5950', tolerance: '10.00' },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toEqual({ consolidationGroupId: groupB, accountNumber: '5950', tolerance: '10.00' });

    const before = runB;
    const run = await startRun(groupB, true);
    expect(run.status, run.errorMessage).toBe('Completed');
    expect(issuesOf(run, 'IC_DIFFERENCE')).toHaveLength(0);
    expect(run.eliminations[0].intercompanyDifference).toEqual({
      amount: { value: '5.00', currency: 'USD' },
      accountNumber: '5950',
    });
    const tb = await get(`/api/v1/consolidation/runs/${run.id}/trial-balance`);
    const line = (n: string) => tb.lineItems.find((l: any) => l.accountNumber === n);
    expect(line('1100').eliminationAmount).toEqual({ value: '-120.00', currency: 'USD' });
    expect(line('1100').consolidatedBalance).toEqual({ value: '0.00', currency: 'USD' });
    expect(line('5950').consolidatedBalance).toEqual({ value: '5.00', currency: 'USD' });
    expect(tb.isBalanced).toBe(true);

    const journal = await get(`/api/v1/consolidation/runs/${run.id}/elimination-entries`);
    expect(journal.isBalanced).toBe(true);
    expect(journal.entries[0].lines).toHaveLength(4);
    expect(journal.entries[0].totalDebit).toEqual({ value: '120.00', currency: 'USD' });
    expect(journal.entries[0].totalCredit).toEqual({ value: '120.00', currency: 'USD' });

    // The comparison with the run before shows why the figures moved.
    const cmp = await get(`/api/v1/consolidation/runs/${run.id}/compare`, { otherRunId: before.id });
    expect(cmp.sameInputs).toBe(false);
    const changed = cmp.differences.filter((d: any) => d.view === 'closing');
    expect(changed.find((d: any) => d.accountNumber === '5950').changes).toContainEqual({
      field: 'eliminationAmount',
      value: '5.00',
      otherValue: '0.00',
      difference: '5.00',
    });
    expect(changed.find((d: any) => d.accountNumber === '1100').changes).toContainEqual({
      field: 'consolidatedBalance',
      value: '0.00',
      otherValue: '5.00',
      difference: '-5.00',
    });
    // A residual above the tolerance is only reported.
    await t.put(`${base(groupB)}/intercompany-difference`, {
      token: owner.token,
      body: { accountNumber: '5950', tolerance: '4.99' },
    });
    const above = await startRun(groupB, true);
    expect(issuesOf(above, 'IC_DIFFERENCE')).toHaveLength(1);
    expect(above.eliminations[0].intercompanyDifference).toBeUndefined();
    const cleared = await t.put(`${base(groupB)}/intercompany-difference`, {
      token: owner.token,
      body: { accountNumber: null },
    });
    expect(cleared.body).toEqual({ consolidationGroupId: groupB, accountNumber: null, tolerance: null });
  });

  it('manages group accounts and mappings with clear refusals', async () => {
    const dup = await t.post(`${base(groupB)}/accounts`, {
      token: owner.token,
      body: { accountNumber: '1010', name: 'Again', accountType: 'Asset', accountCategory: 'CurrentAsset' },
    });
    expect(dup.status).toBe(409);
    expect(dup.body._tag).toBe('GroupAccountNumberAlreadyExistsError');
    const wrongCategory = await t.post(`${base(groupB)}/accounts`, {
      token: owner.token,
      body: { accountNumber: '1999', name: 'Odd', accountType: 'Asset', accountCategory: 'OperatingRevenue' },
    });
    expect(wrongCategory.status).toBe(400);
    expect(wrongCategory.body._tag).toBe('ValidationError');
    const inUse = await t.del(`${base(groupB)}/accounts/${groupAccountIds['1010']}`, { token: owner.token });
    expect(inUse.status).toBe(409);
    expect(inUse.body).toMatchObject({ _tag: 'GroupAccountInUseError', reason: 'Mappings' });
    // An explicit mapping needs the same account type.
    const mismatch = await t.post(`${base(groupB)}/mappings`, {
      token: owner.token,
      body: { groupAccountId: groupAccountIds['4000'], accountId: s2b.accounts['50100'] },
    });
    expect(mismatch.status).toBe(400);
    const both = await t.post(`${base(groupB)}/mappings`, {
      token: owner.token,
      body: { groupAccountId: groupAccountIds['4000'], pattern: '4*', accountId: s2b.accounts['50100'] },
    });
    expect(both.status).toBe(400);
    const badPattern = await t.post(`${base(groupB)}/mappings`, {
      token: owner.token,
      body: { groupAccountId: groupAccountIds['4000'], pattern: '4**' },
    });
    expect(badPattern.status).toBe(400);
    const twice = await t.post(`${base(groupB)}/mappings`, {
      token: owner.token,
      body: { groupAccountId: groupAccountIds['1010'], accountId: s2b.accounts['10100'] },
    });
    expect(twice.status).toBe(409);
    expect(twice.body._tag).toBe('GroupAccountMappingExistsError');
    const renamed = await t.put(`${base(groupB)}/accounts/${groupAccountIds['1010']}`, {
      token: owner.token,
      body: { name: 'Cash and banks' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Cash and banks');
    const retype = await t.put(`${base(groupB)}/accounts/${groupAccountIds['4000']}`, {
      token: owner.token,
      body: { accountType: 'Expense', accountCategory: 'CostOfGoodsSold' },
    });
    expect(retype.status).toBe(409);
    expect(retype.body).toMatchObject({ _tag: 'GroupAccountInUseError', reason: 'Mappings' });
    const list = await get(`${base(groupB)}/accounts`, { limit: '5' });
    expect(list.accounts).toHaveLength(5);
    expect(list.accounts[0].accountNumber).toBe('1000');
    const missing = await t.get(`${base(groupB)}/accounts/${groupA}`, { token: owner.token });
    expect(missing.status).toBe(404);
    expect(missing.body._tag).toBe('GroupAccountNotFoundError');
    const restored = await t.put(`${base(groupB)}/accounts/${groupAccountIds['1010']}`, {
      token: owner.token,
      body: { name: 'Cash - Operating Account' },
    });
    expect(restored.status).toBe(200);
  });

  it('fails the run with UNMAPPED_ACCOUNT naming an account with a balance that has no group account', async () => {
    await account(s2b, '7777', 'Consulting', 'Expense', 'OperatingExpense');
    await post(s2b, 'USD', '2025-08-31', [
      ['7777', 'D', '10'],
      ['10100', 'C', '10'],
    ]);
    const preview = await get(`${base(groupB)}/mappings/preview`);
    expect(preview.unmapped).toContainEqual(
      expect.objectContaining({ companyId: s2b.id, accountNumber: '7777', groupAccountNumber: null }),
    );
    const run = await startRun(groupB, true);
    expect(run.status).toBe('Failed');
    const [issue, ...more] = issuesOf(run, 'UNMAPPED_ACCOUNT');
    expect(more).toHaveLength(0);
    expect(issue).toMatchObject({ severity: 'Error', entityReference: `${s2b.id}/7777` });
    expect(issue.message).toContain('7777');
    expect(run.steps[0]).toMatchObject({ stepType: 'Validate', status: 'Failed' });
  });
});

describe('contributions to a consolidated line', () => {
  const path = (runId: string, n: string) =>
    `/api/v1/consolidation/runs/${runId}/trial-balance/lines/${n}/contributions`;
  const v = (m: { value: string }) => dec(m.value);

  it('traces the receivable: S1 translates €100 at the closing rate 1.20, the rule eliminates $115', async () => {
    const res = await get(path(runA.id, '1100'));
    expect(res.view).toBe('closing');
    expect(res.lines).toHaveLength(1);
    const [line] = res.lines;
    expect(line.addsUp).toBe(true);
    expect(line.companies).toHaveLength(1);
    const [s1c] = line.companies;
    expect(s1c.companyId).toBe(s1.id);
    expect(s1c.weight).toBe('1');
    expect(s1c.items[0]).toMatchObject({ source: 'Account', basis: 'Closing' });
    expect(v(s1c.items[0].functionalBalance).equals(100)).toBe(true);
    expect(s1c.items[0].rates.map((r: any) => dec(r.rate).toString())).toEqual(['1.2']);
    expect(s1c.amount).toEqual({ value: '120.00', currency: 'USD' });
    expect(line.eliminations).toEqual([
      {
        source: 'Rule',
        eliminationRuleId: runA.eliminations[0].eliminationRuleId,
        ruleName: runA.eliminations[0].ruleName,
        companyId: s1.id,
        amount: { value: '-115.00', currency: 'USD' },
      },
    ]);
    expect(line.nci.value).toBe('0.00');
    // $120 − $115 = the $5 residual left on the consolidated statements
    expect(line.consolidatedBalance).toEqual({ value: '5.00', currency: 'USD' });
  });

  it('traces share capital: historical rate 1.10 for S1, and 20 % of it moved to the NCI', async () => {
    const { lines } = await get(path(runA.id, '3000'));
    const [line] = lines;
    const by = (id: string) => line.companies.find((c: any) => c.companyId === id);
    expect(by(p.id).amount.value).toBe('-5000.00');
    expect(by(s2.id).amount.value).toBe('-2000.00');
    expect(by(s1.id).items[0]).toMatchObject({ basis: 'Historical' });
    expect(by(s1.id).items[0].rates.map((r: any) => dec(r.rate).toString())).toEqual(['1.1']);
    // €1,000 × 1.10 = $1,100; 20 % of it is the NCI's: $220
    expect(by(s1.id).amount.value).toBe('-1100.00');
    expect(line.nci.value).toBe('220.00');
    expect(line.consolidatedBalance.value).toBe('-7880.00');
    expect(line.addsUp).toBe(true);
  });

  it('adds up exactly on every line of the closing trial balance', async () => {
    const tb = await get(`/api/v1/consolidation/runs/${runA.id}/trial-balance`);
    for (const item of tb.lineItems) {
      const { lines } = await get(path(runA.id, encodeURIComponent(item.accountNumber)));
      const line = lines.find((l: any) => l.companyId === item.companyId);
      expect(line.consolidatedBalance).toEqual(item.consolidatedBalance);
      const total = [
        ...line.companies.map((c: any) => v(c.amount)),
        ...line.eliminations.map((e: any) => v(e.amount)),
        ...line.adjustments.map((e: any) => v(e.amount)),
        v(line.nci),
        v(line.unattributed.aggregated),
        v(line.unattributed.elimination),
        v(line.unattributed.adjustment),
      ].reduce((a, b) => a.plus(b), dec(0));
      expect(total.equals(v(item.consolidatedBalance)), item.accountNumber).toBe(true);
    }
  });

  it('refuses an unknown line, a bad view, and another organization', async () => {
    const unknown = await t.get(path(runA.id, '9999'), { token: owner.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({
      _tag: 'ConsolidatedLineNotFoundError',
      accountNumber: '9999',
      view: 'closing',
    });
    // Nothing was booked before 2025: the opening view has no line 1100.
    const opening = await t.get(path(runA.id, '1100'), { token: owner.token, query: { view: 'opening' } });
    expect(opening.status).toBe(404);
    expect(opening.body._tag).toBe('ConsolidatedLineNotFoundError');
    const badView = await t.get(path(runA.id, '1100'), { token: owner.token, query: { view: 'middle' } });
    expect(badView.status).toBe(400);
    expect(badView.body._tag).toBe('ValidationError');
    const outsider = await t.user('outsider');
    const otherOrg = await t.org(outsider, { settings: { requireApproval: false } });
    const foreign = await t.get(path(runA.id, '1100'), {
      token: outsider.token,
      query: { organizationId: otherOrg.id },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body._tag).toBe('ConsolidationRunNotFoundError');
  });
});

describe('top-side adjustments', () => {
  const adj = (path = '') => `${base(groupA)}/adjustments${path}`;
  const act = async (id: string, action: string, status = 200) => {
    const res = await t.post(adj(`/${id}/${action}`), { token: owner.token });
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    return res.body;
  };
  const usd = (value: string) => ({ value, currency: 'USD' });
  let baseline: any;
  let baselineTb: any;

  beforeAll(async () => {
    baseline = await startRun(groupA, true);
    baselineTb = await get(`/api/v1/consolidation/runs/${baseline.id}/trial-balance`);
  });

  it('an adjustment attributed to the 80 % member moves 20 % of it to NCI; reversing it restores the figures', async () => {
    expect(baselineTb.lineItems[0].adjustmentAmount).toBeUndefined();
    const unbalanced = await t.post(adj(), {
      token: owner.token,
      body: {
        periodRef: { year: 2025, period: 12 },
        description: 'Accrual',
        lines: [
          { accountNumber: '5000', debit: '100.00', companyId: s1.id },
          { accountNumber: '2000', credit: '90.00', companyId: s1.id },
        ],
      },
    });
    expect(unbalanced.status).toBe(400);
    expect(unbalanced.body._tag).toBe('ConsolidationAdjustmentUnbalancedError');
    const created = await t.post(adj(), {
      token: owner.token,
      body: {
        periodRef: { year: 2025, period: 12 },
        description: 'Accrual of S1 costs',
        lines: [
          { accountNumber: '5000', debit: '100.00', companyId: s1.id },
          { accountNumber: '2000', credit: '100.00', companyId: s1.id },
        ],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ status: 'Draft', totalDebit: usd('100.00'), recurring: false });
    const id = created.body.id;
    await act(id, 'approve', 400); // not submitted yet
    expect((await act(id, 'submit')).status).toBe('PendingApproval');
    expect((await act(id, 'approve')).status).toBe('Approved');
    const posted = await act(id, 'post');
    expect(posted).toMatchObject({ status: 'Posted', postedBy: owner.id });
    const edit = await t.put(adj(`/${id}`), { token: owner.token, body: { description: 'changed' } });
    expect(edit.status).toBe(400);
    expect(edit.body._tag).toBe('InvalidStatusTransitionError');

    const run = await startRun(groupA, true);
    expect(run.status, run.errorMessage).toBe('Completed');
    expect(run.adjustmentIds).toEqual([id]);
    const tb = await get(`/api/v1/consolidation/runs/${run.id}/trial-balance`);
    const line = (n: string, view = tb) => view.lineItems.find((l: any) => l.accountNumber === n);
    expect(line('5000').adjustmentAmount).toEqual(usd('100.00'));
    expect(line('2000').adjustmentAmount).toEqual(usd('-100.00'));
    // The contributions of line 5000 name the adjustment with its $100.
    const traced = await get(`/api/v1/consolidation/runs/${run.id}/trial-balance/lines/5000/contributions`);
    expect(traced.lines[0].adjustments).toEqual([
      { adjustmentId: id, companyId: s1.id, amount: usd('100.00') },
    ]);
    expect(traced.lines[0].addsUp).toBe(true);
    expect(traced.lines[0].consolidatedBalance).toEqual(line('5000').consolidatedBalance);
    const delta = (a: any, b: any) => dec(a.value).minus(b.value).toFixed(2);
    expect(delta(line('5000').consolidatedBalance, line('5000', baselineTb).consolidatedBalance)).toBe(
      '100.00',
    );
    expect(delta(run.totals.netIncome, baseline.totals.netIncome)).toBe('-100.00');
    expect(delta(run.totals.netIncomeAttributableToNCI, baseline.totals.netIncomeAttributableToNCI)).toBe(
      '-20.00',
    );
    expect(
      delta(run.totals.netIncomeAttributableToParent, baseline.totals.netIncomeAttributableToParent),
    ).toBe('-80.00');
    for (const l of tb.lineItems) {
      expect(
        dec(l.aggregatedBalance.value)
          .plus(l.eliminationAmount.value)
          .plus(l.adjustmentAmount.value)
          .plus(l.nciAmount.value)
          .toFixed(2),
      ).toBe(dec(l.consolidatedBalance.value).toFixed(2));
    }

    const reversed = await act(id, 'reverse');
    expect(reversed.status).toBe('Reversed');
    expect(reversed.reversedById).not.toBeNull();
    await act(id, 'reverse', 409);
    const after = await startRun(groupA, true);
    expect(after.totals).toEqual(baseline.totals);
    const afterTb = await get(`/api/v1/consolidation/runs/${after.id}/trial-balance`);
    expect(afterTb.lineItems.map((l: any) => [l.accountNumber, l.consolidatedBalance])).toEqual(
      baselineTb.lineItems.map((l: any) => [l.accountNumber, l.consolidatedBalance]),
    );
  });

  it('a recurring adjustment appears in every later period of its year', async () => {
    const created = await t.post(adj(), {
      token: owner.token,
      body: {
        periodRef: { year: 2025, period: 10 },
        description: 'Group management fee',
        recurring: true,
        lines: [
          { accountNumber: '5000', debit: '50.00' },
          { accountNumber: '1010', credit: '50.00' },
        ],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id;
    await act(id, 'post'); // the organization does not require approval
    const runOf = async (period: number) => {
      const res = await t.post(`${base(groupA)}/runs`, {
        token: owner.token,
        body: { periodRef: { year: 2025, period }, forceRegeneration: true },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.status, res.body.errorMessage).toBe('Completed');
      return res.body;
    };
    expect((await runOf(9)).adjustmentIds).toBeUndefined();
    for (const period of [10, 11, 12]) {
      const run = await runOf(period);
      expect(run.adjustmentIds, `period ${period}`).toContain(id);
      const tb = await get(`/api/v1/consolidation/runs/${run.id}/trial-balance`);
      expect(tb.lineItems.find((l: any) => l.accountNumber === '1010').adjustmentAmount).toEqual(
        usd('-50.00'),
      );
    }
    const list = await get(adj(), { year: '2025', status: 'Posted' });
    expect(list.adjustments.map((a: any) => a.id)).toContain(id);
  });

  it('answers 404 for a malformed or unknown adjustment id', async () => {
    for (const id of ['not-an-id', '00000000-0000-4000-8000-000000000000']) {
      const missing = await t.get(adj(`/${id}`), { token: owner.token });
      expect(missing.status, id).toBe(404);
      expect(missing.body._tag).toBe('ConsolidationAdjustmentNotFoundError');
    }
  });
});
