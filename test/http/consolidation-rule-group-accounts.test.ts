/**
 * Elimination rules whose debit and credit accounts are group accounts, through the API.
 *
 * A parent P and two members S1 and S2 (USD, the GeneralBusiness chart) report on a group chart with
 * five-digit numbers (11000 receivables, 20000 payables, 40000 revenue, 50000 cost of sales, …), mapped
 * by patterns. S1 sold to S2 for $100 on credit. Rule R1 eliminates the balances on group accounts only
 * (debit 20000, credit 11000); rule R2 mixes a member account (S1's 4000, debit) with a group account
 * (50000, credit). The ids are sent in the usual `debitAccountId` / `creditAccountId` fields; the server
 * tells which kind each names. Group accounts of another group, of another organization, or in a group
 * without a chart are unknown accounts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext, type TestUser, uniq } from '../helpers/app.ts';
import {
  type CompanyFixture,
  createCompany,
  createWholeGroup,
  type LineSpec,
  postEntry,
} from '../helpers/consolidation.ts';

const RULES = '/api/v1/elimination-rules';
const base = (id: string) => `/api/v1/consolidation/groups/${id}`;

let t: TestContext;
let owner: TestUser;
let orgA: string;
let orgB: string;
let p: CompanyFixture;
let s1: CompanyFixture;
let s2: CompanyFixture;
/** the group with a chart, one without, and a second group with a chart */
let chartGroup: string;
let plainGroup: string;
let otherGroup: string;
/** group account number → id, in `chartGroup` */
const ga: Record<string, string> = {};
let otherGroupAccount: string;
let foreignGroupAccount: string;
let foreignGroup: string;
let r1: any;
let r2: any;
let run: any;

const GROUP_CHART: Array<[string, string, string, string, boolean]> = [
  ['10100', 'Cash', 'Asset', 'CurrentAsset', true],
  ['11000', 'Trade receivables', 'Asset', 'CurrentAsset', false],
  ['11800', 'Receivables held for sale', 'Asset', 'CurrentAsset', false],
  ['11900', 'Intercompany clearing', 'Asset', 'CurrentAsset', false],
  ['20000', 'Trade payables', 'Liability', 'CurrentLiability', false],
  ['30000', 'Share capital', 'Equity', 'ContributedCapital', false],
  ['33000', 'Retained earnings', 'Equity', 'RetainedEarnings', false],
  ['40000', 'Revenue', 'Revenue', 'OperatingRevenue', false],
  ['50000', 'Cost of sales', 'Expense', 'CostOfGoodsSold', false],
];
const MAPPINGS: Array<[string, string]> = [
  ['1010', '10100'],
  ['1100', '11000'],
  ['2000', '20000'],
  ['3000', '30000'],
  ['3300', '33000'],
  ['4000', '40000'],
  ['5000', '50000'],
];

const group = (organizationId: string, parent: CompanyFixture, members: CompanyFixture[]) =>
  createWholeGroup(t, owner, organizationId, parent, members);

async function groupAccount(groupId: string, row: (typeof GROUP_CHART)[number]) {
  const [accountNumber, name, accountType, accountCategory, isCashEquivalent] = row;
  const res = await t.post(`${base(groupId)}/accounts`, {
    token: owner.token,
    body: { accountNumber, name, accountType, accountCategory, isCashEquivalent },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

function ruleBody(groupId: string, overrides: Record<string, unknown> = {}) {
  return {
    organizationId: orgA,
    consolidationGroupId: groupId,
    name: uniq('Rule'),
    eliminationType: 'IntercompanyReceivablesPayables',
    triggerConditions: [],
    sourceAccounts: [{ accountNumber: '11000', companyId: s1.id }],
    targetAccounts: [{ accountNumber: '20000', companyId: s2.id }],
    debitAccountId: ga['20000'],
    creditAccountId: ga['11000'],
    isAutomatic: true,
    priority: 10,
    ...overrides,
  };
}

const createRule = (body: Record<string, unknown>) => t.post(RULES, { token: owner.token, body });
const updateRule = (id: string, body: Record<string, unknown>) =>
  t.put(`${RULES}/${id}`, { token: owner.token, query: { organizationId: orgA }, body });

async function startRun(groupId: string, forceRegeneration = false) {
  const res = await t.post(`${base(groupId)}/runs`, {
    token: owner.token,
    body: { periodRef: { year: 2025, period: 12 }, forceRegeneration },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.status, JSON.stringify(res.body.validationResult ?? res.body.errorMessage)).toBe(
    'Completed',
  );
  return res.body;
}

async function get(path: string, query: Record<string, string> = {}) {
  const res = await t.get(path, { token: owner.token, query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const money = (value: string) => ({ value, currency: 'USD' });

beforeAll(async () => {
  t = await createTestContext();
  owner = await t.user('owner');
  orgA = (await t.org(owner, { settings: { requireApproval: false } })).id;
  orgB = (await t.org(owner, { settings: { requireApproval: false } })).id;
  p = await createCompany(t, owner, orgA);
  s1 = await createCompany(t, owner, orgA);
  s2 = await createCompany(t, owner, orgA);
  const post = (co: CompanyFixture, date: string, lines: LineSpec[]) =>
    postEntry(t, owner, orgA, co, 'USD', date, lines);
  await post(p, '2025-01-02', [
    ['1010', 'D', '5000'],
    ['3000', 'C', '5000'],
  ]);
  await post(s1, '2025-01-02', [
    ['1010', 'D', '1000'],
    ['3000', 'C', '1000'],
  ]);
  await post(s1, '2025-03-31', [
    ['1100', 'D', '100'],
    ['4000', 'C', '100'],
  ]);
  await post(s2, '2025-01-02', [
    ['1010', 'D', '2000'],
    ['3000', 'C', '2000'],
  ]);
  await post(s2, '2025-03-31', [
    ['5000', 'D', '100'],
    ['2000', 'C', '100'],
  ]);

  chartGroup = await group(orgA, p, [s1, s2]);
  plainGroup = await group(orgA, p, [s1, s2]);
  otherGroup = await group(orgA, p, [s1]);
  for (const row of GROUP_CHART) ga[row[0]] = await groupAccount(chartGroup, row);
  for (const [pattern, n] of MAPPINGS) {
    const res = await t.post(`${base(chartGroup)}/mappings`, {
      token: owner.token,
      body: { groupAccountId: ga[n], pattern },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  otherGroupAccount = await groupAccount(otherGroup, GROUP_CHART[1]!);

  const pB = await createCompany(t, owner, orgB);
  foreignGroup = await group(orgB, pB, []);
  foreignGroupAccount = await groupAccount(foreignGroup, GROUP_CHART[1]!);

  const created1 = await createRule(ruleBody(chartGroup, { name: 'Receivables and payables' }));
  expect(created1.status, JSON.stringify(created1.body)).toBe(201);
  r1 = created1.body;
  const created2 = await createRule(
    ruleBody(chartGroup, {
      name: 'Intercompany sales',
      eliminationType: 'IntercompanySales',
      sourceAccounts: [{ accountNumber: '40000', companyId: s1.id }],
      targetAccounts: [{ accountNumber: '50000', companyId: s2.id }],
      debitAccountId: s1.accounts['4000'],
      creditAccountId: ga['50000'],
      priority: 20,
    }),
  );
  expect(created2.status, JSON.stringify(created2.body)).toBe(201);
  r2 = created2.body;
  run = await startRun(chartGroup);
}, 180_000);

afterAll(async () => {
  await t.close();
});

describe('elimination rules on group accounts', () => {
  it('answers the given ids with the kind of account each names', async () => {
    expect(r1).toMatchObject({
      debitAccountId: ga['20000'],
      creditAccountId: ga['11000'],
      debitAccountKind: 'GroupAccount',
      creditAccountKind: 'GroupAccount',
    });
    expect(r2).toMatchObject({
      debitAccountId: s1.accounts['4000'],
      creditAccountId: ga['50000'],
      debitAccountKind: 'CompanyAccount',
      creditAccountKind: 'GroupAccount',
    });
    const read = await get(`${RULES}/${r1.id}`);
    expect(read).toEqual(r1);
    const list = await get(RULES, { organizationId: orgA, consolidationGroupId: chartGroup });
    expect(list.rules.map((r: any) => r.id)).toEqual([r1.id, r2.id]);
    expect(list.rules[1]).toEqual(r2);
  });

  it('answers a rule on company accounts alone exactly as before, without kinds', async () => {
    const res = await createRule(
      ruleBody(chartGroup, {
        debitAccountId: s2.accounts['2000'],
        creditAccountId: s1.accounts['1100'],
        isActive: false,
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.debitAccountId).toBe(s2.accounts['2000']);
    expect(res.body).not.toHaveProperty('debitAccountKind');
    expect(res.body).not.toHaveProperty('creditAccountKind');
    expect(
      (await t.del(`${RULES}/${res.body.id}`, { token: owner.token, query: { organizationId: orgA } }))
        .status,
    ).toBe(204);
  });

  it('books the eliminations on the group accounts themselves (consolidated trial balance)', async () => {
    expect(
      run.eliminations.map((e: any) => [e.status, e.amount, e.debitAccountNumber, e.creditAccountNumber]),
    ).toEqual([
      ['Applied', money('100.00'), '20000', '11000'],
      ['Applied', money('100.00'), '40000', '50000'],
    ]);
    const tb = await get(`/api/v1/consolidation/runs/${run.id}/trial-balance`);
    const line = (n: string) => tb.lineItems.find((l: any) => l.accountNumber === n);
    expect(line('11000')).toMatchObject({
      accountName: 'Trade receivables',
      aggregatedBalance: money('100.00'),
      eliminationAmount: money('-100.00'),
      consolidatedBalance: money('0.00'),
    });
    expect(line('20000')).toMatchObject({
      aggregatedBalance: money('-100.00'),
      eliminationAmount: money('100.00'),
      consolidatedBalance: money('0.00'),
    });
    expect(line('40000')).toMatchObject({
      eliminationAmount: money('100.00'),
      consolidatedBalance: money('0.00'),
    });
    expect(line('50000')).toMatchObject({
      eliminationAmount: money('-100.00'),
      consolidatedBalance: money('0.00'),
    });
    expect(tb.isBalanced).toBe(true);
    // No line under a member's own number: nothing went through the company-account mapping twice.
    expect(tb.lineItems.some((l: any) => ['1100', '2000', '4000', '5000'].includes(l.accountNumber))).toBe(
      false,
    );
  });

  it('shows the group-account lines in the elimination journal, on the parent', async () => {
    const journal = await get(`/api/v1/consolidation/runs/${run.id}/elimination-entries`);
    expect(journal.isBalanced).toBe(true);
    const byRule = new Map(journal.entries.map((e: any) => [e.eliminationRuleId, e.lines]));
    expect(byRule.get(r1.id)).toEqual([
      { accountNumber: '20000', companyId: p.id, debit: money('100.00'), credit: money('0.00') },
      { accountNumber: '11000', companyId: p.id, debit: money('0.00'), credit: money('100.00') },
    ]);
    const traced = await get(`/api/v1/consolidation/runs/${run.id}/trial-balance/lines/11000/contributions`);
    expect(JSON.stringify(traced)).toContain(r1.id);
    expect(byRule.get(r2.id)).toEqual([
      { accountNumber: '40000', companyId: s1.id, debit: money('100.00'), credit: money('0.00') },
      { accountNumber: '50000', companyId: p.id, debit: money('0.00'), credit: money('100.00') },
    ]);
  });

  it('refuses a group account of another group, of another organization, or without a chart', async () => {
    const unknown = (res: any, accountId: string) => {
      expect(res.status, JSON.stringify(res.body)).toBe(404);
      expect(res.body).toMatchObject({ _tag: 'AccountNotFoundError', accountId });
    };
    unknown(await createRule(ruleBody(chartGroup, { debitAccountId: otherGroupAccount })), otherGroupAccount);
    unknown(
      await createRule(ruleBody(chartGroup, { creditAccountId: foreignGroupAccount })),
      foreignGroupAccount,
    );
    unknown(await createRule(ruleBody(plainGroup)), ga['20000']!);
    unknown(await updateRule(r1.id, { creditAccountId: otherGroupAccount }), otherGroupAccount);
    unknown(await updateRule(r1.id, { debitAccountId: foreignGroupAccount }), foreignGroupAccount);
    // Organization B cannot name A's group account either (from its own group with a chart).
    unknown(
      await createRule({
        ...ruleBody(foreignGroup, {
          organizationId: orgB,
          sourceAccounts: [{ accountNumber: '11000' }],
          targetAccounts: [],
        }),
        creditAccountId: foreignGroupAccount,
      }),
      ga['20000']!,
    );
    const bulk = await t.post(`${RULES}/bulk`, {
      token: owner.token,
      body: { rules: [ruleBody(chartGroup), ruleBody(chartGroup, { debitAccountId: otherGroupAccount })] },
    });
    unknown(bulk, otherGroupAccount);
    const same = await createRule(ruleBody(chartGroup, { creditAccountId: ga['20000'] }));
    expect(same.status).toBe(400);
    expect(same.body._tag).toBe('EliminationRuleOperationFailedError');
    expect(same.body.reason).toBe(
      'creditAccountId: the debit and credit accounts have the same account number 20000',
    );
    // Nothing was written.
    const list = await get(RULES, { organizationId: orgA, consolidationGroupId: chartGroup });
    expect(list.total).toBe(2);
  });

  it('creates rules on group accounts in bulk', async () => {
    const res = await t.post(`${RULES}/bulk`, {
      token: owner.token,
      body: {
        rules: [
          ruleBody(chartGroup, { isActive: false }),
          ruleBody(chartGroup, { isActive: false, debitAccountId: s2.accounts['2000'] }),
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.created.map((r: any) => [r.debitAccountKind, r.creditAccountKind])).toEqual([
      ['GroupAccount', 'GroupAccount'],
      ['CompanyAccount', 'GroupAccount'],
    ]);
    for (const r of res.body.created) {
      expect(
        (await t.del(`${RULES}/${r.id}`, { token: owner.token, query: { organizationId: orgA } })).status,
      ).toBe(204);
    }
  });

  it('switches a side between a company account and a group account on update', async () => {
    const created = await createRule(
      ruleBody(chartGroup, {
        debitAccountId: s2.accounts['2000'],
        creditAccountId: s1.accounts['1100'],
        isActive: false,
      }),
    );
    expect(created.status).toBe(201);
    const id = created.body.id;
    const toGroup = await updateRule(id, { debitAccountId: ga['20000'] });
    expect(toGroup.status, JSON.stringify(toGroup.body)).toBe(200);
    expect(toGroup.body).toMatchObject({
      debitAccountId: ga['20000'],
      creditAccountId: s1.accounts['1100'],
      debitAccountKind: 'GroupAccount',
      creditAccountKind: 'CompanyAccount',
    });
    // Another change keeps the group account.
    const renamed = await updateRule(id, { name: 'Renamed' });
    expect(renamed.body).toMatchObject({ debitAccountId: ga['20000'], debitAccountKind: 'GroupAccount' });
    const back = await updateRule(id, { debitAccountId: s2.accounts['2000'] });
    expect(back.status).toBe(200);
    expect(back.body.debitAccountId).toBe(s2.accounts['2000']);
    expect(back.body).not.toHaveProperty('debitAccountKind');
    const audit = await get('/api/v1/audit-log', {
      organizationId: orgA,
      entityType: 'EliminationRule',
      entityId: id,
    });
    const updates = audit.entries.filter((e: any) => e.action === 'Update');
    const switched = updates.find((e: any) => e.changes.debitGroupAccountId?.to === ga['20000']);
    expect(switched.changes).toEqual({
      debitAccountId: { from: s2.accounts['2000'], to: null },
      debitGroupAccountId: { from: null, to: ga['20000'] },
    });
    expect(
      (await t.del(`${RULES}/${id}`, { token: owner.token, query: { organizationId: orgA } })).status,
    ).toBe(204);
  });

  it('refuses to delete a group account a rule books to (409), and deletes it once no rule does', async () => {
    const created = await createRule(ruleBody(chartGroup, { debitAccountId: ga['11800'], isActive: false }));
    expect(created.status).toBe(201);
    const refused = await t.del(`${base(chartGroup)}/accounts/${ga['11800']}`, { token: owner.token });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      _tag: 'GroupAccountInUseError',
      groupAccountId: ga['11800'],
      reason: 'EliminationRules',
    });
    expect((await updateRule(created.body.id, { debitAccountId: ga['20000'] })).status).toBe(200);
    const deleted = await t.del(`${base(chartGroup)}/accounts/${ga['11800']}`, { token: owner.token });
    expect(deleted.status).toBe(204);
    expect(
      (await t.del(`${RULES}/${created.body.id}`, { token: owner.token, query: { organizationId: orgA } }))
        .status,
    ).toBe(204);
  });

  it("changes the run's input digest when a rule's group account changes, and restores it", async () => {
    // (The chart changed since the first run: a group account was deleted.)
    const before = await startRun(chartGroup, true);
    const same = await startRun(chartGroup, true);
    expect(same.inputDigest).toBe(before.inputDigest);
    expect((await updateRule(r1.id, { creditAccountId: ga['11900'] })).status).toBe(200);
    const changed = await startRun(chartGroup, true);
    expect(changed.inputDigest).not.toBe(before.inputDigest);
    const tb = await get(`/api/v1/consolidation/runs/${changed.id}/trial-balance`);
    const line = (n: string) => tb.lineItems.find((l: any) => l.accountNumber === n);
    expect(line('11900').eliminationAmount).toEqual(money('-100.00'));
    expect(line('11000').consolidatedBalance).toEqual(money('100.00'));
    const restored = await updateRule(r1.id, { creditAccountId: ga['11000'] });
    expect(restored.body).toEqual({ ...r1, updatedAt: restored.body.updatedAt });
    const back = await startRun(chartGroup, true);
    expect(back.inputDigest).toBe(before.inputDigest);
  });

  it('deletes a group together with its chart and the rules booking to it', async () => {
    const doomed = await group(orgA, p, [s1, s2]);
    const receivable = await groupAccount(doomed, GROUP_CHART[1]!);
    const payable = await groupAccount(doomed, GROUP_CHART[4]!);
    const mapped = await t.post(`${base(doomed)}/mappings`, {
      token: owner.token,
      body: { groupAccountId: receivable, pattern: '1100' },
    });
    expect(mapped.status).toBe(201);
    const created = await createRule(
      ruleBody(doomed, { debitAccountId: payable, creditAccountId: receivable }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const deleted = await t.del(base(doomed), { token: owner.token });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
    const gone = await t.get(`${RULES}/${created.body.id}`, { token: owner.token });
    expect(gone.status).toBe(404);
  });

  it('describes the kinds in the OpenAPI document', async () => {
    const doc = await get('/api/openapi.json');
    const schema = JSON.stringify(doc);
    expect(schema).toContain('debitAccountKind');
    expect(schema).toContain('GroupAccount');
  });
});
