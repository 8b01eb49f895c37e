import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext, type TestUser, uniq } from '../helpers/app.ts';
import { type CompanyFixture, createCompany } from '../helpers/consolidation.ts';
import { insertRun } from '../helpers/consolidation-db.ts';

const RULES = '/api/v1/elimination-rules';
const GROUPS = '/api/v1/consolidation/groups';
const MISSING = '00000000-0000-4000-8000-000000000000';

let t: TestContext;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let viewer: TestUser;
let outsider: TestUser;
let orgA: string;
let orgB: string;
let parent: CompanyFixture;
let sub: CompanyFixture;
let stranger: CompanyFixture; // a company of org A outside the groups
let foreign: CompanyFixture; // a company of org B
let group: any; // USD group: parent + sub
let foreignGroup: any; // org B

beforeAll(async () => {
  t = await createTestContext();
  [owner, admin, member, viewer, outsider] = await Promise.all([
    t.user('owner'),
    t.user('admin'),
    t.user('member'),
    t.user('viewer'),
    t.user('outsider'),
  ]);
  orgA = (await t.org(owner)).id;
  orgB = (await t.org(outsider)).id;
  await t.addMember(owner, orgA, admin, 'admin');
  await t.addMember(owner, orgA, member, 'member');
  await t.addMember(owner, orgA, viewer, 'viewer');
  parent = await createCompany(t, owner, orgA);
  sub = await createCompany(t, owner, orgA);
  stranger = await createCompany(t, owner, orgA);
  foreign = await createCompany(t, outsider, orgB);
  group = await newGroup();
  const fg = await t.post(GROUPS, {
    token: outsider.token,
    body: {
      organizationId: orgB,
      name: uniq('ForeignGroup'),
      reportingCurrency: 'USD',
      consolidationMethod: 'FullConsolidation',
      parentCompanyId: foreign.id,
      members: [],
    },
  });
  expect(fg.status).toBe(201);
  foreignGroup = fg.body;
});
afterAll(async () => {
  await t.close();
});

async function newGroup(currency = 'USD') {
  const res = await t.post(GROUPS, {
    token: admin.token,
    body: {
      organizationId: orgA,
      name: uniq('Group'),
      reportingCurrency: currency,
      consolidationMethod: 'FullConsolidation',
      parentCompanyId: parent.id,
      members: [{ companyId: sub.id, ownershipPercentage: 80, consolidationMethod: 'FullConsolidation' }],
    },
  });
  expect(res.status).toBe(201);
  return res.body;
}

function ruleBody(groupId: string = group.id, extra: Record<string, unknown> = {}) {
  return {
    organizationId: orgA,
    consolidationGroupId: groupId,
    name: uniq('Rule'),
    eliminationType: 'IntercompanyReceivablesPayables',
    triggerConditions: [],
    sourceAccounts: [{ accountNumber: '1100', companyId: parent.id }],
    targetAccounts: [{ accountNumber: '2000', companyId: null }],
    debitAccountId: sub.accounts['2000'],
    creditAccountId: parent.accounts['1100'],
    isAutomatic: true,
    priority: 10,
    ...extra,
  };
}

async function createRule(extra: Record<string, unknown> = {}, groupId: string = group.id) {
  const res = await t.post(RULES, { token: admin.token, body: ruleBody(groupId, extra) });
  if (res.status !== 201) throw new Error(`create rule failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const failed = (operation: string, reason: string | RegExp) => ({
  _tag: 'EliminationRuleOperationFailedError',
  message: expect.any(String),
  operation,
  reason: typeof reason === 'string' ? reason : expect.stringMatching(reason),
});

const forbiddenFor = (
  currentRole: string | null,
  action = 'consolidation:manage',
  requiredRole = 'admin',
) => ({
  _tag: 'ForbiddenError',
  message: expect.any(String),
  resource: 'EliminationRule',
  action,
  requiredRole,
  currentRole,
});

describe('create a rule', () => {
  it('creates a rule with defaults and renders minimumAmount with the currency digits', async () => {
    const body = ruleBody(group.id, {
      name: '  AR/AP  ',
      description: '   ',
      triggerConditions: [
        {
          description: ' material ',
          sourceAccounts: [{ accountNumber: '11*', companyId: sub.id }],
          minimumAmount: '100',
        },
        { description: 'any', sourceAccounts: [{ accountNumber: '1100-1199' }] },
      ],
      sourceAccounts: [
        { accountNumber: '1100', companyId: parent.id.toUpperCase() },
        { accountNumber: '1*', companyId: null },
      ],
    });
    const res = await t.post(RULES, { token: admin.token, body });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      organizationId: orgA,
      consolidationGroupId: group.id,
      name: 'AR/AP',
      description: null,
      eliminationType: 'IntercompanyReceivablesPayables',
      triggerConditions: [
        {
          description: 'material',
          sourceAccounts: [{ accountNumber: '11*', companyId: sub.id }],
          minimumAmount: '100.00',
        },
        {
          description: 'any',
          sourceAccounts: [{ accountNumber: '1100-1199', companyId: null }],
          minimumAmount: null,
        },
      ],
      sourceAccounts: [
        { accountNumber: '1100', companyId: parent.id },
        { accountNumber: '1*', companyId: null },
      ],
      targetAccounts: [{ accountNumber: '2000', companyId: null }],
      debitAccountId: sub.accounts['2000'],
      creditAccountId: parent.accounts['1100'],
      isAutomatic: true,
      priority: 10,
      isActive: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const g = await t.get(`${GROUPS}/${group.id}`, { token: viewer.token });
    expect(g.body.eliminationRuleIds).toContain(res.body.id);
    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: orgA, entityType: 'EliminationRule', entityId: res.body.id },
    });
    expect(audit.body.entries).toEqual([
      expect.objectContaining({ action: 'Create', userId: admin.id, changes: null }),
    ]);
  });

  it('refuses invalid patterns with EliminationRuleOperationFailedError naming the field, before any lookup', async () => {
    for (const bad of ['13**', '*', '1399-1300', 'ab', '13 00', ' 1300', '130', '0130', '1300-', '']) {
      const res = await t.post(RULES, {
        token: admin.token,
        body: ruleBody(group.id, {
          organizationId: MISSING, // the pattern check runs with the syntax checks
          sourceAccounts: [
            { accountNumber: '1100', companyId: null },
            { accountNumber: '12*', companyId: null },
            { accountNumber: bad, companyId: null },
          ],
        }),
      });
      expect(res.status, bad).toBe(400);
      expect(res.body).toEqual(failed('create', `sourceAccounts/2/accountNumber: invalid pattern '${bad}'`));
    }
    const target = await t.post(RULES, {
      token: admin.token,
      body: ruleBody(group.id, { targetAccounts: [{ accountNumber: '2000-1000' }] }),
    });
    expect(target.body).toEqual(
      failed('create', "targetAccounts/0/accountNumber: invalid pattern '2000-1000'"),
    );
    const trigger = await t.post(RULES, {
      token: admin.token,
      body: ruleBody(group.id, {
        triggerConditions: [
          { description: 'x', sourceAccounts: [{ accountNumber: '1100' }, { accountNumber: 'x1' }] },
        ],
      }),
    });
    expect(trigger.body).toEqual(
      failed('create', "triggerConditions/0/sourceAccounts/1/accountNumber: invalid pattern 'x1'"),
    );
  });

  it('validates the body syntax (400 ValidationError)', async () => {
    const many = Array.from({ length: 101 }, () => ({ accountNumber: '1100' }));
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: '' }, '/name'],
      [{ eliminationType: 'Other' }, '/eliminationType'],
      [{ sourceAccounts: [] }, '/sourceAccounts'],
      [{ sourceAccounts: many }, '/sourceAccounts'],
      [{ targetAccounts: many }, '/targetAccounts'],
      [
        {
          triggerConditions: Array.from({ length: 51 }, () => ({
            description: 'x',
            sourceAccounts: [{ accountNumber: '1100' }],
          })),
        },
        '/triggerConditions',
      ],
      [
        { triggerConditions: [{ description: 'x', sourceAccounts: [] }] },
        '/triggerConditions/0/sourceAccounts',
      ],
      [
        {
          triggerConditions: [
            { description: 'x', sourceAccounts: [{ accountNumber: '1100' }], minimumAmount: '-1' },
          ],
        },
        '/triggerConditions/0/minimumAmount',
      ],
      [
        {
          triggerConditions: [
            { description: 'x', sourceAccounts: [{ accountNumber: '1100' }], minimumAmount: 5 },
          ],
        },
        '/triggerConditions/0/minimumAmount',
      ],
      [
        { triggerConditions: [{ sourceAccounts: [{ accountNumber: '1100' }] }] },
        '/triggerConditions/0/description',
      ],
      [{ priority: 1000 }, '/priority'],
      [{ priority: -1 }, '/priority'],
      [{ priority: 1.5 }, '/priority'],
      [{ isAutomatic: undefined }, '/isAutomatic'],
      [{ isActive: null }, '/isActive'],
      [{ debitAccountId: 'abc' }, '/debitAccountId'],
      [{ sourceAccounts: [{ accountNumber: '1100', companyId: 'abc' }] }, '/sourceAccounts/0/companyId'],
    ];
    for (const [extra, path] of cases) {
      const res = await t.post(RULES, { token: admin.token, body: ruleBody(group.id, extra) });
      expect(res.status, path).toBe(400);
      expect(res.body._tag, path).toBe('ValidationError');
      expect(
        res.body.issues.map((i: any) => i.path),
        path,
      ).toContain(path);
    }
  });

  it("checks organization, role, then the group (404, also for another organization's group)", async () => {
    const unknownOrg = await t.post(RULES, {
      token: admin.token,
      body: ruleBody(group.id, { organizationId: MISSING }),
    });
    expect(unknownOrg.body._tag).toBe('OrganizationNotFoundError');
    const notMember = await t.post(RULES, {
      token: admin.token,
      body: ruleBody(group.id, { organizationId: orgB }),
    });
    expect(notMember.status).toBe(403);
    expect(notMember.body).toEqual(forbiddenFor(null));
    const viewerRes = await t.post(RULES, { token: viewer.token, body: ruleBody(MISSING) });
    expect(viewerRes.status).toBe(403);
    expect(viewerRes.body).toEqual(forbiddenFor('viewer'));
    for (const gid of [MISSING, foreignGroup.id]) {
      const res = await t.post(RULES, { token: admin.token, body: ruleBody(gid) });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        _tag: 'ConsolidationGroupNotFoundError',
        message: expect.any(String),
        consolidationGroupId: gid,
      });
    }
  });

  it('runs the semantic checks in the contract order', async () => {
    // 1. selector companies must be the parent or a member (checked before the accounts)
    const selector = await t.post(RULES, {
      token: admin.token,
      body: ruleBody(group.id, {
        targetAccounts: [{ accountNumber: '2000', companyId: stranger.id }],
        debitAccountId: MISSING,
      }),
    });
    expect(selector.status).toBe(400);
    expect(selector.body).toEqual(failed('create', /^targetAccounts\/0\/companyId: /));
    const triggerSelector = await t.post(RULES, {
      token: admin.token,
      body: ruleBody(group.id, {
        triggerConditions: [
          { description: 'x', sourceAccounts: [{ accountNumber: '1100', companyId: foreign.id }] },
        ],
      }),
    });
    expect(triggerSelector.body).toEqual(
      failed('create', /^triggerConditions\/0\/sourceAccounts\/0\/companyId: /),
    );

    // 2. accounts exist in the organization (debit first; another organization's account is missing)
    for (const [extra, accountId] of [
      [{ debitAccountId: MISSING, creditAccountId: MISSING.replace('0000-4', '0001-4') }, MISSING],
      [{ creditAccountId: foreign.accounts['1100'] }, foreign.accounts['1100']],
    ] as const) {
      const res = await t.post(RULES, { token: admin.token, body: ruleBody(group.id, extra) });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ _tag: 'AccountNotFoundError', message: expect.any(String), accountId });
    }

    // 3. accounts belong to the parent or a member
    const outside = await t.post(RULES, {
      token: admin.token,
      body: ruleBody(group.id, {
        debitAccountId: stranger.accounts['2000'],
        creditAccountId: parent.accounts['1100'],
      }),
    });
    expect(outside.status).toBe(400);
    expect(outside.body).toEqual(failed('create', /^debitAccountId: /));

    // 4. account numbers differ (also across companies)
    const same = await t.post(RULES, {
      token: admin.token,
      body: ruleBody(group.id, {
        debitAccountId: sub.accounts['1100'],
        creditAccountId: parent.accounts['1100'],
      }),
    });
    expect(same.status).toBe(400);
    expect(same.body).toEqual(failed('create', /^creditAccountId: .*1100/));

    // 5. minimumAmount digits fit the group currency
    const digits = await t.post(RULES, {
      token: admin.token,
      body: ruleBody(group.id, {
        triggerConditions: [
          { description: 'ok', sourceAccounts: [{ accountNumber: '1100' }], minimumAmount: '0.5' },
          { description: 'bad', sourceAccounts: [{ accountNumber: '1100' }], minimumAmount: '1.005' },
        ],
      }),
    });
    expect(digits.status).toBe(400);
    expect(digits.body.issues).toEqual([
      { path: '/triggerConditions/1/minimumAmount', message: expect.any(String) },
    ]);
    const jpyGroup = await newGroup('JPY');
    const jpy = await t.post(RULES, {
      token: admin.token,
      body: ruleBody(jpyGroup.id, {
        triggerConditions: [
          { description: 'x', sourceAccounts: [{ accountNumber: '1100' }], minimumAmount: '100.0' },
        ],
      }),
    });
    expect(jpy.status).toBe(400);
    const jpyOk = await createRule(
      {
        triggerConditions: [
          { description: 'x', sourceAccounts: [{ accountNumber: '1100' }], minimumAmount: '1500' },
        ],
      },
      jpyGroup.id,
    );
    expect(jpyOk.triggerConditions[0].minimumAmount).toBe('1500');
  });
});

describe('bulk create', () => {
  it('creates every rule in request order, all or nothing', async () => {
    const g = await newGroup();
    const res = await t.post(`${RULES}/bulk`, {
      token: admin.token,
      body: {
        rules: [
          ruleBody(g.id, { name: 'first', priority: 5 }),
          ruleBody(g.id, { name: 'second', priority: 1 }),
        ],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.count).toBe(2);
    expect(res.body.created.map((r: any) => r.name)).toEqual(['first', 'second']);
    const gr = await t.get(`${GROUPS}/${g.id}`, { token: viewer.token });
    // Group rule ids follow the rule order (priority first).
    expect(gr.body.eliminationRuleIds).toEqual([res.body.created[1].id, res.body.created[0].id]);

    const countRules = async () =>
      (await t.get(RULES, { token: admin.token, query: { consolidationGroupId: g.id } })).body.total;
    const failing = await t.post(`${RULES}/bulk`, {
      token: admin.token,
      body: {
        rules: [
          ruleBody(g.id),
          ruleBody(g.id),
          ruleBody(g.id, { debitAccountId: stranger.accounts['2000'] }),
          ruleBody(g.id, { debitAccountId: MISSING }),
        ],
      },
    });
    expect(failing.status).toBe(400);
    expect(failing.body).toEqual(failed('bulkCreate', /^rules\/2\/debitAccountId: /));
    expect(await countRules()).toBe(2);

    const missingGroup = await t.post(`${RULES}/bulk`, {
      token: admin.token,
      body: { rules: [ruleBody(g.id), ruleBody(foreignGroup.id)] },
    });
    expect(missingGroup.status).toBe(404);
    expect(missingGroup.body.consolidationGroupId).toBe(foreignGroup.id);

    const digits = await t.post(`${RULES}/bulk`, {
      token: admin.token,
      body: {
        rules: [
          ruleBody(g.id),
          ruleBody(g.id, {
            triggerConditions: [
              { description: 'x', sourceAccounts: [{ accountNumber: '1100' }], minimumAmount: '0.001' },
            ],
          }),
        ],
      },
    });
    expect(digits.status).toBe(400);
    expect(digits.body.issues).toEqual([
      { path: '/rules/1/triggerConditions/0/minimumAmount', message: expect.any(String) },
    ]);
    expect(await countRules()).toBe(2);
  });

  it('validates the array, the shared organization and the patterns of every element', async () => {
    const empty = await t.post(`${RULES}/bulk`, { token: admin.token, body: { rules: [] } });
    expect(empty.status).toBe(400);
    expect(empty.body.issues.map((i: any) => i.path)).toContain('/rules');
    const tooMany = await t.post(`${RULES}/bulk`, {
      token: admin.token,
      body: { rules: Array.from({ length: 101 }, () => ruleBody()) },
    });
    expect(tooMany.status).toBe(400);
    const schema = await t.post(`${RULES}/bulk`, {
      token: admin.token,
      body: { rules: [ruleBody(group.id, { priority: 1000 }), ruleBody(group.id, { name: '' })] },
    });
    expect(schema.body.issues.map((i: any) => i.path).sort()).toEqual(['/rules/0/priority', '/rules/1/name']);
    const orgs = await t.post(`${RULES}/bulk`, {
      token: admin.token,
      body: { rules: [ruleBody(), ruleBody(group.id, { organizationId: orgB }), ruleBody()] },
    });
    expect(orgs.status).toBe(400);
    expect(orgs.body.issues).toEqual([{ path: '/rules/1/organizationId', message: expect.any(String) }]);
    const pattern = await t.post(`${RULES}/bulk`, {
      token: admin.token,
      body: {
        rules: [
          ruleBody(MISSING),
          ruleBody(group.id, { sourceAccounts: [{ accountNumber: '9*9' }] }),
          ruleBody(group.id, { targetAccounts: [{ accountNumber: '*' }] }),
        ],
      },
    });
    expect(pattern.status).toBe(400);
    expect(pattern.body).toEqual(
      failed('bulkCreate', "rules/1/sourceAccounts/0/accountNumber: invalid pattern '9*9'"),
    );
    const forbidden = await t.post(`${RULES}/bulk`, { token: member.token, body: { rules: [ruleBody()] } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual(forbiddenFor('member'));
    const foreignOrg = await t.post(`${RULES}/bulk`, {
      token: outsider.token,
      body: { rules: [ruleBody()] },
    });
    expect(foreignOrg.body).toEqual(forbiddenFor(null));
  });
});

describe('get and list rules', () => {
  it('gets a rule; 404 for malformed, unknown or other-organization ids', async () => {
    const rule = await createRule();
    for (const query of [{}, { organizationId: orgA }]) {
      const res = await t.get(`${RULES}/${rule.id.toUpperCase()}`, { token: viewer.token, query });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(rule);
    }
    const malformed = await t.get(`${RULES}/abc`, { token: viewer.token });
    expect(malformed.body).toEqual({
      _tag: 'EliminationRuleNotFoundError',
      message: expect.any(String),
      eliminationRuleId: 'abc',
    });
    const unknown = await t.get(`${RULES}/${MISSING}`, { token: viewer.token });
    expect(unknown.status).toBe(404);
    const scoped = await t.get(`${RULES}/${rule.id}`, {
      token: outsider.token,
      query: { organizationId: orgB },
    });
    expect(scoped.status).toBe(404);
    expect(scoped.body._tag).toBe('EliminationRuleNotFoundError');
  });

  it('lists by priority, createdAt, id with every filter', async () => {
    const g = await newGroup();
    const r1 = await createRule({ priority: 50, isAutomatic: false }, g.id);
    const r2 = await createRule({ priority: 5, eliminationType: 'IntercompanySales' }, g.id);
    const r3 = await createRule({ priority: 50, isActive: false }, g.id);
    const r4 = await createRule(
      { priority: 9, eliminationType: 'IntercompanySales', isAutomatic: false },
      g.id,
    );
    const ids = async (query: Record<string, unknown>) => {
      const res = await t.get(RULES, {
        token: viewer.token,
        query: { consolidationGroupId: g.id, ...query } as any,
      });
      expect(res.status).toBe(200);
      return res.body.rules.map((r: any) => r.id);
    };
    expect(await ids({})).toEqual([r2.id, r4.id, r1.id, r3.id]);
    expect(await ids({ eliminationType: 'IntercompanySales' })).toEqual([r2.id, r4.id]);
    expect(await ids({ isActive: false })).toEqual([r3.id]);
    expect(await ids({ isAutomatic: false })).toEqual([r4.id, r1.id]);
    expect(await ids({ highPriorityOnly: true })).toEqual([r2.id, r4.id]);
    expect(await ids({ highPriorityOnly: false })).toEqual([r2.id, r4.id, r1.id, r3.id]);
    expect(await ids({ organizationId: orgA, isAutomatic: true, isActive: true })).toEqual([r2.id]);
    const page = await t.get(RULES, {
      token: viewer.token,
      query: { consolidationGroupId: g.id, limit: 2, offset: 1 },
    });
    expect(page.body).toMatchObject({ total: 4, limit: 2, offset: 1 });
    expect(page.body.rules.map((r: any) => r.id)).toEqual([r4.id, r1.id]);

    for (const gid of [MISSING, foreignGroup.id]) {
      const res = await t.get(RULES, { token: viewer.token, query: { consolidationGroupId: gid } });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        _tag: 'ConsolidationGroupNotFoundError',
        message: expect.any(String),
        consolidationGroupId: gid,
      });
    }
    // The group filter must name a group of the given organization.
    const u = await t.user('two-orgs');
    await t.addMember(owner, orgA, u, 'viewer');
    const own = (await t.org(u)).id;
    const wrongOrg = await t.get(RULES, {
      token: u.token,
      query: { organizationId: own, consolidationGroupId: g.id },
    });
    expect(wrongOrg.status).toBe(404);
    const spanning = await t.get(RULES, { token: u.token, query: { consolidationGroupId: g.id } });
    expect(spanning.body.total).toBe(4);
    for (const query of [
      { highPriorityOnly: 'yes' },
      { eliminationType: 'x' },
      { consolidationGroupId: 'x' },
      { limit: 0 },
    ]) {
      expect((await t.get(RULES, { token: viewer.token, query: query as any })).status).toBe(400);
    }
  });

  it('lists by type for one group', async () => {
    const g = await newGroup();
    const a = await createRule({ eliminationType: 'IntercompanyDividends', priority: 3 }, g.id);
    await createRule({ eliminationType: 'Custom' }, g.id);
    const b = await createRule(
      { eliminationType: 'IntercompanyDividends', priority: 1, isActive: false },
      g.id,
    );
    const res = await t.get(`${RULES}/by-type`, {
      token: viewer.token,
      query: { consolidationGroupId: g.id, eliminationType: 'IntercompanyDividends' },
    });
    expect(res.status).toBe(200);
    expect(res.body.rules.map((r: any) => r.id)).toEqual([b.id, a.id]);
    expect(res.body).toMatchObject({ total: 2, limit: 50, offset: 0 });
    const missingParam = await t.get(`${RULES}/by-type`, {
      token: viewer.token,
      query: { consolidationGroupId: g.id },
    });
    expect(missingParam.status).toBe(400);
    expect(missingParam.body.issues.map((i: any) => i.path)).toContain('/query/eliminationType');
    const noGroup = await t.get(`${RULES}/by-type`, {
      token: viewer.token,
      query: { eliminationType: 'Custom' },
    });
    expect(noGroup.body.issues.map((i: any) => i.path)).toContain('/query/consolidationGroupId');
    for (const gid of [MISSING, foreignGroup.id]) {
      const r = await t.get(`${RULES}/by-type`, {
        token: viewer.token,
        query: { consolidationGroupId: gid, eliminationType: 'Custom' },
      });
      expect(r.status).toBe(404);
      expect(r.body._tag).toBe('ConsolidationGroupNotFoundError');
    }
    const outsiderRes = await t.get(`${RULES}/by-type`, {
      token: outsider.token,
      query: { consolidationGroupId: g.id, eliminationType: 'IntercompanyDividends' },
    });
    expect(outsiderRes.status).toBe(404);
  });
});

describe('update a rule', () => {
  it('applies PUT semantics and audits the changed fields only', async () => {
    const rule = await createRule({ description: 'first', isActive: false });
    const res = await t.put(`${RULES}/${rule.id}`, {
      token: admin.token,
      body: {
        name: 'Renamed',
        priority: 3,
        description: null,
        isActive: null,
        targetAccounts: [],
        triggerConditions: [
          { description: 'x', sourceAccounts: [{ accountNumber: '2*' }], minimumAmount: '10.10' },
        ],
        organizationId: orgA,
        consolidationGroupId: group.id,
        id: MISSING,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: rule.id,
      name: 'Renamed',
      priority: 3,
      description: null,
      isActive: true, // null restores the default
      targetAccounts: [],
      triggerConditions: [
        {
          description: 'x',
          sourceAccounts: [{ accountNumber: '2*', companyId: null }],
          minimumAmount: '10.10',
        },
      ],
      sourceAccounts: rule.sourceAccounts,
      debitAccountId: rule.debitAccountId,
    });
    const noop = await t.put(`${RULES}/${rule.id}`, {
      token: admin.token,
      query: { organizationId: orgA },
      body: {
        name: 'Renamed',
        triggerConditions: [
          { description: 'x', sourceAccounts: [{ accountNumber: '2*' }], minimumAmount: '10.1' },
        ],
      },
    });
    expect(noop.status).toBe(200);
    expect(noop.body.updatedAt).toBe(res.body.updatedAt);
    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: orgA, entityType: 'EliminationRule', entityId: rule.id },
    });
    const update = audit.body.entries.filter((e: any) => e.action === 'Update');
    expect(update).toHaveLength(1);
    expect(Object.keys(update[0].changes).sort()).toEqual([
      'description',
      'isActive',
      'name',
      'priority',
      'targetAccounts',
      'triggerConditions',
    ]);
  });

  it('refuses nulls for required fields, immutable changes, bad patterns and semantic failures', async () => {
    const rule = await createRule();
    for (const [body, path] of [
      [{ name: null }, '/name'],
      [{ priority: null }, '/priority'],
      [{ sourceAccounts: null }, '/sourceAccounts'],
      [{ sourceAccounts: [] }, '/sourceAccounts'],
      [{ organizationId: orgB }, '/organizationId'],
      [{ consolidationGroupId: foreignGroup.id }, '/consolidationGroupId'],
    ] as const) {
      const res = await t.put(`${RULES}/${rule.id}`, { token: admin.token, body });
      expect(res.status, path).toBe(400);
      expect(
        res.body.issues.map((i: any) => i.path),
        path,
      ).toContain(path);
    }
    const pattern = await t.put(`${RULES}/${MISSING}`, {
      token: admin.token,
      body: { targetAccounts: [{ accountNumber: '13**' }] },
    });
    expect(pattern.body).toEqual(failed('update', "targetAccounts/0/accountNumber: invalid pattern '13**'"));
    // Constraints apply to the resulting rule: a credit account with the debit account's number.
    const same = await t.put(`${RULES}/${rule.id}`, {
      token: admin.token,
      body: { creditAccountId: parent.accounts['2000'] },
    });
    expect(same.body).toEqual(failed('update', /^creditAccountId: /));
    const missingAccount = await t.put(`${RULES}/${rule.id}`, {
      token: admin.token,
      body: { debitAccountId: MISSING },
    });
    expect(missingAccount.status).toBe(404);
    expect(missingAccount.body).toMatchObject({ _tag: 'AccountNotFoundError', accountId: MISSING });
    const selector = await t.put(`${RULES}/${rule.id}`, {
      token: admin.token,
      body: { sourceAccounts: [{ accountNumber: '1100', companyId: stranger.id }] },
    });
    expect(selector.body).toEqual(failed('update', /^sourceAccounts\/0\/companyId: /));
    const digits = await t.put(`${RULES}/${rule.id}`, {
      token: admin.token,
      body: {
        triggerConditions: [
          { description: 'x', sourceAccounts: [{ accountNumber: '1100' }], minimumAmount: '1.234' },
        ],
      },
    });
    expect(digits.body.issues).toEqual([
      { path: '/triggerConditions/0/minimumAmount', message: expect.any(String) },
    ]);
    const unknown = await t.put(`${RULES}/${MISSING}`, { token: admin.token, body: { name: 'x' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body._tag).toBe('EliminationRuleNotFoundError');
    const unchanged = await t.get(`${RULES}/${rule.id}`, { token: admin.token });
    expect(unchanged.body).toEqual(rule);
  });
});

describe('delete, activate, deactivate and priority', () => {
  it('deletes a rule unless a completed run applied it', async () => {
    const g = await newGroup();
    const used = await createRule({}, g.id);
    const free = await createRule({}, g.id);
    await insertRun(t, orgA, g.id, 'Completed', admin.id, [used.id]);
    await insertRun(t, orgA, g.id, 'Completed', admin.id, [used.id]);
    await insertRun(t, orgA, g.id, 'Failed', admin.id, [free.id]);
    const refused = await t.del(`${RULES}/${used.id}`, { token: admin.token });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      _tag: 'EliminationRuleInUseError',
      message: expect.any(String),
      eliminationRuleId: used.id,
      completedRunCount: 2,
    });
    const ok = await t.del(`${RULES}/${free.id}`, { token: admin.token, query: { organizationId: orgA } });
    expect(ok.status).toBe(204);
    expect((await t.get(`${RULES}/${free.id}`, { token: admin.token })).status).toBe(404);
    expect((await t.del(`${RULES}/${free.id}`, { token: admin.token })).status).toBe(404);
    const gr = await t.get(`${GROUPS}/${g.id}`, { token: admin.token });
    expect(gr.body.eliminationRuleIds).toEqual([used.id]);
  });

  it('activates, deactivates and sets the priority idempotently', async () => {
    const rule = await createRule({ priority: 20 });
    const off = await t.post(`${RULES}/${rule.id}/deactivate`, { token: admin.token });
    expect(off.status).toBe(200);
    expect(off.body.isActive).toBe(false);
    expect((await t.post(`${RULES}/${rule.id}/deactivate`, { token: admin.token })).body).toEqual(off.body);
    const on = await t.post(`${RULES}/${rule.id}/activate`, {
      token: admin.token,
      query: { organizationId: orgA },
    });
    expect(on.body.isActive).toBe(true);
    expect((await t.post(`${RULES}/${rule.id}/activate`, { token: admin.token })).body).toEqual(on.body);
    const prio = await t.post(`${RULES}/${rule.id}/priority`, { token: admin.token, body: { priority: 0 } });
    expect(prio.status).toBe(200);
    expect(prio.body.priority).toBe(0);
    const same = await t.post(`${RULES}/${rule.id}/priority`, { token: admin.token, body: { priority: 0 } });
    expect(same.body).toEqual(prio.body);
    for (const body of [{}, { priority: 1000 }, { priority: '5' }, { priority: null }]) {
      const res = await t.post(`${RULES}/${rule.id}/priority`, { token: admin.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.issues.map((i: any) => i.path)).toContain('/priority');
    }
    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: orgA, entityType: 'EliminationRule', entityId: rule.id },
    });
    expect(audit.body.entries.map((e: any) => e.action).sort()).toEqual([
      'Activate',
      'Create',
      'Deactivate',
      'SetPriority',
    ]);
    for (const path of ['activate', 'deactivate', 'priority']) {
      const res = await t.post(`${RULES}/${MISSING}/${path}`, { token: admin.token, body: { priority: 1 } });
      expect(res.status).toBe(404);
      expect(res.body._tag).toBe('EliminationRuleNotFoundError');
    }
  });
});

describe('role matrix and tenant isolation', () => {
  it('lets viewers and members read, and only admins and owners manage', async () => {
    const rule = await createRule();
    for (const u of [viewer, member, admin, owner]) {
      expect((await t.get(`${RULES}/${rule.id}`, { token: u.token })).status).toBe(200);
      const list = await t.get(RULES, { token: u.token, query: { organizationId: orgA } });
      expect(list.body.rules.some((r: any) => r.id === rule.id)).toBe(true);
      const byType = await t.get(`${RULES}/by-type`, {
        token: u.token,
        query: { consolidationGroupId: group.id, eliminationType: rule.eliminationType },
      });
      expect(byType.status).toBe(200);
    }
    for (const u of [viewer, member]) {
      const results = await Promise.all([
        t.post(RULES, { token: u.token, body: ruleBody() }),
        t.post(`${RULES}/bulk`, { token: u.token, body: { rules: [ruleBody()] } }),
        t.put(`${RULES}/${rule.id}`, { token: u.token, body: { name: 'x' } }),
        t.del(`${RULES}/${rule.id}`, { token: u.token }),
        t.post(`${RULES}/${rule.id}/activate`, { token: u.token }),
        t.post(`${RULES}/${rule.id}/deactivate`, { token: u.token }),
        t.post(`${RULES}/${rule.id}/priority`, { token: u.token, body: { priority: 1 } }),
      ]);
      for (const res of results) {
        expect(res.status).toBe(403);
        expect(res.body).toEqual(forbiddenFor(u === viewer ? 'viewer' : 'member'));
      }
    }
    const byOwner = await t.post(RULES, { token: owner.token, body: ruleBody() });
    expect(byOwner.status).toBe(201);
    expect((await t.del(`${RULES}/${byOwner.body.id}`, { token: owner.token })).status).toBe(204);
  });

  it('refuses foreign by-id access with 403, hides foreign rules from lists, treats foreign ids as missing', async () => {
    const rule = await createRule();
    const calls = [
      ['read', t.get(`${RULES}/${rule.id}`, { token: outsider.token })],
      ['manage', t.put(`${RULES}/${rule.id}`, { token: outsider.token, body: { name: 'stolen' } })],
      ['manage', t.del(`${RULES}/${rule.id}`, { token: outsider.token })],
      ['manage', t.post(`${RULES}/${rule.id}/activate`, { token: outsider.token })],
      ['manage', t.post(`${RULES}/${rule.id}/deactivate`, { token: outsider.token })],
      ['manage', t.post(`${RULES}/${rule.id}/priority`, { token: outsider.token, body: { priority: 1 } })],
    ] as const;
    for (const [kind, p] of calls) {
      const res = await p;
      expect(res.status).toBe(403);
      expect(res.body).toEqual(
        kind === 'read' ? forbiddenFor(null, 'consolidation:read', 'viewer') : forbiddenFor(null),
      );
      expect(JSON.stringify(res.body)).not.toContain(rule.name);
    }
    const foreignList = await t.get(RULES, { token: outsider.token, query: { organizationId: orgA } });
    expect(foreignList.status).toBe(403);
    const ownRule = await t.post(RULES, {
      token: outsider.token,
      body: {
        ...ruleBody(foreignGroup.id),
        organizationId: orgB,
        sourceAccounts: [{ accountNumber: '1100' }],
        debitAccountId: foreign.accounts['2000'],
        creditAccountId: foreign.accounts['1100'],
      },
    });
    expect(ownRule.status).toBe(201);
    const mine = await t.get(RULES, { token: outsider.token });
    expect(mine.body.rules.map((r: any) => r.id)).toEqual([ownRule.body.id]);
    const aList = await t.get(RULES, { token: admin.token });
    expect(aList.body.rules.every((r: any) => r.organizationId === orgA)).toBe(true);
    // Org A ids in an org B body: selector company, accounts.
    const foreignSelector = await t.post(RULES, {
      token: outsider.token,
      body: {
        ...ownRule.body,
        id: undefined,
        sourceAccounts: [{ accountNumber: '1100', companyId: parent.id }],
      },
    });
    expect(foreignSelector.body).toEqual(failed('create', /^sourceAccounts\/0\/companyId: /));
    const foreignAccount = await t.post(RULES, {
      token: outsider.token,
      body: { ...ownRule.body, id: undefined, debitAccountId: parent.accounts['2000'] },
    });
    expect(foreignAccount.status).toBe(404);
    expect(foreignAccount.body).toMatchObject({
      _tag: 'AccountNotFoundError',
      accountId: parent.accounts['2000'],
    });
    const unchanged = await t.get(`${RULES}/${rule.id}`, { token: admin.token });
    expect(unchanged.body).toEqual(rule);
  });
});

describe('routing', () => {
  it('prefers the static bulk and by-type paths and documents every endpoint', async () => {
    const wrong = await t.get(`${RULES}/bulk`, { token: admin.token });
    expect(wrong.status).toBe(405);
    const doc = await t.get('/api/openapi.json');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/elimination-rules',
        '/api/v1/elimination-rules/bulk',
        '/api/v1/elimination-rules/by-type',
        '/api/v1/elimination-rules/{id}',
        '/api/v1/elimination-rules/{id}/activate',
        '/api/v1/elimination-rules/{id}/deactivate',
        '/api/v1/elimination-rules/{id}/priority',
      ]),
    );
  });
});

describe('idempotency', () => {
  it('does not store refusals of the syntax step (patterns, bulk organization) under the key', async () => {
    const key = uniq('idem');
    const headers = { 'idempotency-key': key };
    const bad = await t.post(`${RULES}/bulk`, {
      token: admin.token,
      headers,
      body: { rules: [ruleBody(group.id, { sourceAccounts: [{ accountNumber: '13**' }] })] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body._tag).toBe('EliminationRuleOperationFailedError');
    const body = { rules: [ruleBody(group.id)] };
    const good = await t.post(`${RULES}/bulk`, { token: admin.token, headers, body });
    expect(good.status).toBe(201);
    const replay = await t.post(`${RULES}/bulk`, { token: admin.token, headers, body });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(good.body);
  });
});
