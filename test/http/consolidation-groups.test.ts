import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext, type TestUser, uniq } from '../helpers/app.ts';
import { type CompanyFixture, createCompany } from '../helpers/consolidation.ts';
import { groupRowCounts, insertRun } from '../helpers/consolidation-db.ts';

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
let sub1: CompanyFixture;
let sub2: CompanyFixture;
let sub3: CompanyFixture;
let foreign: CompanyFixture;

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
  sub1 = await createCompany(t, owner, orgA);
  sub2 = await createCompany(t, owner, orgA);
  sub3 = await createCompany(t, owner, orgA, { template: false });
  foreign = await createCompany(t, outsider, orgB);
});
afterAll(async () => {
  await t.close();
});

function groupBody(extra: Record<string, unknown> = {}) {
  return {
    organizationId: orgA,
    name: uniq('Group'),
    reportingCurrency: 'USD',
    consolidationMethod: 'FullConsolidation',
    parentCompanyId: parent.id,
    members: [],
    ...extra,
  };
}

async function createGroup(extra: Record<string, unknown> = {}, user: TestUser = admin) {
  const res = await t.post(GROUPS, { token: user.token, body: groupBody(extra) });
  if (res.status !== 201) throw new Error(`create group failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

function ruleBody(groupId: string, extra: Record<string, unknown> = {}) {
  return {
    organizationId: orgA,
    consolidationGroupId: groupId,
    name: uniq('Rule'),
    eliminationType: 'IntercompanyReceivablesPayables',
    triggerConditions: [],
    sourceAccounts: [{ accountNumber: '1100', companyId: null }],
    targetAccounts: [{ accountNumber: '2000', companyId: null }],
    debitAccountId: parent.accounts['2000'],
    creditAccountId: parent.accounts['1100'],
    isAutomatic: true,
    priority: 10,
    ...extra,
  };
}

async function auditEntries(entityType: string, entityId: string) {
  const res = await t.get('/api/v1/audit-log', {
    token: owner.token,
    query: { organizationId: orgA, entityType, entityId },
  });
  expect(res.status).toBe(200);
  return res.body.entries as Array<{ action: string; changes: any; userId: string }>;
}

const forbiddenFor = (
  currentRole: string | null,
  action = 'consolidation:manage',
  requiredRole = 'admin',
) => ({
  _tag: 'ForbiddenError',
  message: expect.any(String),
  resource: 'ConsolidationGroup',
  action,
  requiredRole,
  currentRole,
});

describe('create a group', () => {
  it('creates a group with members, percentages normalised, NCI derived', async () => {
    const body = groupBody({
      name: '  Alpha Holdings  ',
      members: [
        { companyId: sub1.id, ownershipPercentage: 80, consolidationMethod: 'FullConsolidation' },
        {
          companyId: sub2.id.toUpperCase(),
          ownershipPercentage: '33.5',
          consolidationMethod: 'ProportionateConsolidation',
          acquisitionDate: '2024-02-29',
        },
        { companyId: sub3.id, ownershipPercentage: '100', consolidationMethod: 'FullConsolidation' },
      ],
    });
    const res = await t.post(GROUPS, { token: admin.token, body });
    expect(res.status).toBe(201);
    const g = res.body;
    expect(g).toMatchObject({
      organizationId: orgA,
      name: 'Alpha Holdings',
      reportingCurrency: 'USD',
      consolidationMethod: 'FullConsolidation',
      parentCompanyId: parent.id,
      eliminationRuleIds: [],
      isActive: true,
    });
    expect(g.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(g.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // Members created together share createdAt, so they are ordered by companyId.
    const expected = [
      {
        companyId: sub1.id,
        ownershipPercentage: '80.00',
        consolidationMethod: 'FullConsolidation',
        acquisitionDate: null,
        nonControllingInterestPercentage: '20.00', // 100 − 80
        // added with ownership structures: held by the parent, effective = direct, no acquisition data
        heldByCompanyId: null,
        effectiveOwnershipPercentage: '80.0000',
        acquisition: null,
      },
      {
        companyId: sub2.id,
        ownershipPercentage: '33.50',
        consolidationMethod: 'ProportionateConsolidation',
        acquisitionDate: '2024-02-29',
        nonControllingInterestPercentage: '0.00', // no NCI for proportionate
        heldByCompanyId: null,
        effectiveOwnershipPercentage: '33.5000',
        acquisition: null,
      },
      {
        companyId: sub3.id,
        ownershipPercentage: '100.00',
        consolidationMethod: 'FullConsolidation',
        acquisitionDate: null,
        nonControllingInterestPercentage: '0.00', // 100 − 100
        heldByCompanyId: null,
        effectiveOwnershipPercentage: '100.0000',
        acquisition: null,
      },
    ].sort((a, b) => (a.companyId < b.companyId ? -1 : 1));
    expect(g.members).toEqual(
      expected.map((m) => ({ ...m, createdAt: expect.any(String), updatedAt: expect.any(String) })),
    );
    const audit = await auditEntries('ConsolidationGroup', g.id);
    expect(audit).toEqual([expect.objectContaining({ action: 'Create', changes: null, userId: admin.id })]);
  });

  it('accepts ownership numbers by their literal text and refuses other forms', async () => {
    const raw = (pct: string) =>
      `{"organizationId":"${orgA}","name":"${uniq('G')}","reportingCurrency":"USD","consolidationMethod":"FullConsolidation","parentCompanyId":"${parent.id}","members":[{"companyId":"${sub1.id}","ownershipPercentage":${pct},"consolidationMethod":"EquityMethod"}]}`;
    const ok = await t.post(GROUPS, { token: admin.token, body: raw('33.33') });
    expect(ok.status).toBe(201);
    expect(ok.body.members[0]).toMatchObject({
      ownershipPercentage: '33.33',
      nonControllingInterestPercentage: '0.00',
    });
    const zero = await t.post(GROUPS, { token: admin.token, body: raw('0') });
    expect(zero.status).toBe(201);
    expect(zero.body.members[0].ownershipPercentage).toBe('0.00');
    for (const bad of [
      '80.000',
      '8e1',
      '100.01',
      '-1',
      '101',
      '"80.5 "',
      '"abc"',
      'null',
      '"1e2"',
      '"080"',
    ]) {
      const res = await t.post(GROUPS, { token: admin.token, body: raw(bad) });
      expect(res.status, bad).toBe(400);
      expect(res.body._tag).toBe('ValidationError');
      expect(res.body.issues.map((i: any) => i.path)).toContain('/members/0/ownershipPercentage');
    }
  });

  it('refuses a member equal to the parent or listed twice, at /members/<i>/companyId', async () => {
    const res = await t.post(GROUPS, {
      token: admin.token,
      body: groupBody({
        members: [
          { companyId: parent.id, ownershipPercentage: 50, consolidationMethod: 'FullConsolidation' },
          { companyId: sub1.id, ownershipPercentage: 50, consolidationMethod: 'FullConsolidation' },
          { companyId: sub1.id, ownershipPercentage: 60, consolidationMethod: 'EquityMethod' },
        ],
      }),
    });
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe('ValidationError');
    expect(res.body.issues.map((i: any) => i.path).sort()).toEqual([
      '/members/0/companyId',
      '/members/2/companyId',
    ]);
  });

  it('validates required fields, enumerations, currencies and dates', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: '   ' }, '/name'],
      [{ reportingCurrency: 'usd' }, '/reportingCurrency'],
      [{ consolidationMethod: 'Full' }, '/consolidationMethod'],
      [{ parentCompanyId: 'nope' }, '/parentCompanyId'],
      [{ members: undefined }, '/members'],
      [
        {
          members: [
            {
              companyId: sub1.id,
              ownershipPercentage: 1,
              consolidationMethod: 'EquityMethod',
              acquisitionDate: '2023-02-29',
            },
          ],
        },
        '/members/0/acquisitionDate',
      ],
      [
        { members: [{ companyId: sub1.id, consolidationMethod: 'EquityMethod' }] },
        '/members/0/ownershipPercentage',
      ],
    ];
    for (const [extra, path] of cases) {
      const res = await t.post(GROUPS, { token: admin.token, body: groupBody(extra) });
      expect(res.status, path).toBe(400);
      expect(
        res.body.issues.map((i: any) => i.path),
        path,
      ).toContain(path);
    }
  });

  it('answers 404 CompanyNotFoundError for the parent first, then members in order', async () => {
    const foreignParent = await t.post(GROUPS, {
      token: admin.token,
      body: groupBody({
        parentCompanyId: foreign.id,
        members: [{ companyId: MISSING, ownershipPercentage: 1, consolidationMethod: 'EquityMethod' }],
      }),
    });
    expect(foreignParent.status).toBe(404);
    expect(foreignParent.body).toEqual({
      _tag: 'CompanyNotFoundError',
      message: expect.any(String),
      companyId: foreign.id,
    });
    const badMember = await t.post(GROUPS, {
      token: admin.token,
      body: groupBody({
        members: [
          { companyId: sub1.id, ownershipPercentage: 1, consolidationMethod: 'EquityMethod' },
          { companyId: foreign.id, ownershipPercentage: 1, consolidationMethod: 'EquityMethod' },
          { companyId: MISSING, ownershipPercentage: 1, consolidationMethod: 'EquityMethod' },
        ],
      }),
    });
    expect(badMember.status).toBe(404);
    expect(badMember.body.companyId).toBe(foreign.id);
  });

  it('refuses a duplicate name (case-insensitive, trimmed) with 409', async () => {
    const name = uniq('Dup');
    await createGroup({ name });
    const res = await t.post(GROUPS, {
      token: admin.token,
      body: groupBody({ name: `  ${name.toUpperCase()} ` }),
    });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      _tag: 'ConsolidationGroupNameAlreadyExistsError',
      message: expect.any(String),
      name: name.toUpperCase(),
      organizationId: orgA,
    });
    // The same name is free in another organization.
    const other = await t.post(GROUPS, {
      token: outsider.token,
      body: { ...groupBody({ name }), organizationId: orgB, parentCompanyId: foreign.id },
    });
    expect(other.status).toBe(201);
  });

  it('checks the organization before the companies and the role', async () => {
    const unknownOrg = await t.post(GROUPS, {
      token: admin.token,
      body: groupBody({ organizationId: MISSING }),
    });
    expect(unknownOrg.status).toBe(404);
    expect(unknownOrg.body._tag).toBe('OrganizationNotFoundError');
    const notMember = await t.post(GROUPS, { token: outsider.token, body: groupBody() });
    expect(notMember.status).toBe(403);
    expect(notMember.body).toEqual(forbiddenFor(null));
    const viewerRes = await t.post(GROUPS, {
      token: viewer.token,
      body: groupBody({ parentCompanyId: MISSING }),
    });
    expect(viewerRes.status).toBe(403);
    expect(viewerRes.body).toEqual(forbiddenFor('viewer'));
  });
});

describe('get and list groups', () => {
  it('gets a group by id, with or without its organizationId', async () => {
    const g = await createGroup({
      members: [{ companyId: sub1.id, ownershipPercentage: 75, consolidationMethod: 'FullConsolidation' }],
    });
    for (const query of [{}, { organizationId: orgA }]) {
      const res = await t.get(`${GROUPS}/${g.id.toUpperCase()}`, { token: viewer.token, query });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(g);
    }
  });

  it('answers 404 for a malformed, unknown or other-organization id', async () => {
    const g = await createGroup();
    const malformed = await t.get(`${GROUPS}/abc`, { token: viewer.token });
    expect(malformed.status).toBe(404);
    expect(malformed.body).toEqual({
      _tag: 'ConsolidationGroupNotFoundError',
      message: expect.any(String),
      consolidationGroupId: 'abc',
    });
    const unknown = await t.get(`${GROUPS}/${MISSING}`, { token: viewer.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body.consolidationGroupId).toBe(MISSING);
    // The outsider names its own organization: A's group is not in it.
    const wrongOrg = await t.get(`${GROUPS}/${g.id}`, {
      token: outsider.token,
      query: { organizationId: orgB },
    });
    expect(wrongOrg.status).toBe(404);
    expect(wrongOrg.body._tag).toBe('ConsolidationGroupNotFoundError');
    const unknownOrg = await t.get(`${GROUPS}/${g.id}`, {
      token: viewer.token,
      query: { organizationId: MISSING },
    });
    expect(unknownOrg.status).toBe(404);
    expect(unknownOrg.body._tag).toBe('OrganizationNotFoundError');
  });

  it('lists by name case-insensitively, filters, paginates and spans the caller organizations', async () => {
    const u = await t.user('lister');
    const org1 = (await t.org(u)).id;
    const org2 = (await t.org(u)).id;
    const p1 = await createCompany(t, u, org1, { template: false });
    const p2 = await createCompany(t, u, org2, { template: false });
    const mk = async (org: string, p: string, name: string) => {
      const res = await t.post(GROUPS, {
        token: u.token,
        body: { ...groupBody({ name }), organizationId: org, parentCompanyId: p },
      });
      expect(res.status).toBe(201);
      return res.body;
    };
    const b = await mk(org1, p1.id, 'beta');
    const a = await mk(org1, p1.id, 'Alpha');
    const c = await mk(org2, p2.id, 'Charlie');
    const inactive = await mk(org2, p2.id, 'delta');
    expect((await t.post(`${GROUPS}/${inactive.id}/deactivate`, { token: u.token })).status).toBe(200);

    const all = await t.get(GROUPS, { token: u.token });
    expect(all.status).toBe(200);
    expect(all.body.groups.map((g: any) => g.name)).toEqual(['Alpha', 'beta', 'Charlie', 'delta']);
    expect(all.body).toMatchObject({ total: 4, limit: 50, offset: 0 });

    const one = await t.get(GROUPS, { token: u.token, query: { organizationId: org1 } });
    expect(one.body.groups.map((g: any) => g.id)).toEqual([a.id, b.id]);

    const active = await t.get(GROUPS, { token: u.token, query: { isActive: true } });
    expect(active.body.groups.map((g: any) => g.id)).toEqual([a.id, b.id, c.id]);
    const notActive = await t.get(GROUPS, { token: u.token, query: { isActive: false } });
    expect(notActive.body.groups.map((g: any) => g.id)).toEqual([inactive.id]);

    const page = await t.get(GROUPS, { token: u.token, query: { limit: 2, offset: 1 } });
    expect(page.body.groups.map((g: any) => g.name)).toEqual(['beta', 'Charlie']);
    expect(page.body).toMatchObject({ total: 4, limit: 2, offset: 1 });
    const beyond = await t.get(GROUPS, { token: u.token, query: { offset: 10 } });
    expect(beyond.body).toMatchObject({ groups: [], total: 4 });

    for (const query of [
      { limit: 0 },
      { limit: 101 },
      { offset: -1 },
      { isActive: 'yes' },
      { organizationId: 'x' },
    ]) {
      const bad = await t.get(GROUPS, { token: u.token, query: query as any });
      expect(bad.status, JSON.stringify(query)).toBe(400);
    }
  });

  it('never lists groups of organizations the caller does not belong to', async () => {
    await createGroup();
    const mine = await t.get(GROUPS, { token: outsider.token });
    expect(mine.status).toBe(200);
    expect(mine.body.groups.every((g: any) => g.organizationId === orgB)).toBe(true);
    const foreignList = await t.get(GROUPS, { token: outsider.token, query: { organizationId: orgA } });
    expect(foreignList.status).toBe(403);
    expect(foreignList.body).toEqual(forbiddenFor(null, 'consolidation:read', 'viewer'));
    expect(JSON.stringify(foreignList.body)).not.toContain(parent.id);
  });
});

describe('update a group', () => {
  it('changes name, currency and method; a no-op keeps updatedAt and writes no audit', async () => {
    const g = await createGroup();
    const res = await t.put(`${GROUPS}/${g.id}`, {
      token: admin.token,
      body: {
        name: ' Renamed Group ',
        reportingCurrency: 'EUR',
        consolidationMethod: 'EquityMethod',
        parentCompanyId: parent.id,
        organizationId: orgA,
        id: MISSING,
        isActive: false,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Renamed Group',
      reportingCurrency: 'EUR',
      consolidationMethod: 'EquityMethod',
      isActive: true,
      id: g.id,
    });
    expect(res.body.updatedAt >= g.updatedAt).toBe(true);
    const noop = await t.put(`${GROUPS}/${g.id}`, {
      token: admin.token,
      query: { organizationId: orgA },
      body: { name: 'Renamed Group', reportingCurrency: 'EUR' },
    });
    expect(noop.status).toBe(200);
    expect(noop.body.updatedAt).toBe(res.body.updatedAt);
    const empty = await t.put(`${GROUPS}/${g.id}`, { token: admin.token, body: {} });
    expect(empty.body).toEqual(noop.body);
    const audit = await auditEntries('ConsolidationGroup', g.id);
    expect(audit.map((e) => e.action).sort()).toEqual(['Create', 'Update']);
    const update = audit.find((e) => e.action === 'Update')!;
    expect(update.changes).toEqual({
      name: { from: g.name, to: 'Renamed Group' },
      reportingCurrency: { from: 'USD', to: 'EUR' },
      consolidationMethod: { from: 'FullConsolidation', to: 'EquityMethod' },
    });
  });

  it('refuses null for required fields and changes of immutable fields', async () => {
    const g = await createGroup();
    for (const [body, path] of [
      [{ name: null }, '/name'],
      [{ reportingCurrency: null }, '/reportingCurrency'],
      [{ consolidationMethod: null }, '/consolidationMethod'],
      [{ parentCompanyId: sub1.id }, '/parentCompanyId'],
      [{ organizationId: orgB }, '/organizationId'],
    ] as const) {
      const res = await t.put(`${GROUPS}/${g.id}`, { token: admin.token, body });
      expect(res.status, path).toBe(400);
      expect(res.body.issues.map((i: any) => i.path)).toContain(path);
    }
  });

  it('answers 409 for a name used by another group, and 404 for unknown groups', async () => {
    const a = await createGroup();
    const b = await createGroup();
    const res = await t.put(`${GROUPS}/${b.id}`, {
      token: admin.token,
      body: { name: a.name.toUpperCase() },
    });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      _tag: 'ConsolidationGroupNameAlreadyExistsError',
      name: a.name.toUpperCase(),
      organizationId: orgA,
    });
    // Changing only the case of its own name is allowed.
    const own = await t.put(`${GROUPS}/${a.id}`, {
      token: admin.token,
      body: { name: a.name.toUpperCase() },
    });
    expect(own.status).toBe(200);
    const missing = await t.put(`${GROUPS}/${MISSING}`, { token: admin.token, body: { name: 'x' } });
    expect(missing.status).toBe(404);
    expect(missing.body._tag).toBe('ConsolidationGroupNotFoundError');
  });

  it('refuses a reporting currency that cannot hold a rule minimumAmount', async () => {
    const g = await createGroup({
      members: [{ companyId: sub1.id, ownershipPercentage: 60, consolidationMethod: 'FullConsolidation' }],
    });
    const rule = await t.post('/api/v1/elimination-rules', {
      token: admin.token,
      body: ruleBody(g.id, {
        triggerConditions: [
          { description: 'big', sourceAccounts: [{ accountNumber: '11*' }], minimumAmount: '100.5' },
        ],
      }),
    });
    expect(rule.status).toBe(201);
    expect(rule.body.triggerConditions[0].minimumAmount).toBe('100.50');
    const jpy = await t.put(`${GROUPS}/${g.id}`, { token: admin.token, body: { reportingCurrency: 'JPY' } });
    expect(jpy.status).toBe(400);
    expect(jpy.body.issues).toEqual([{ path: '/reportingCurrency', message: expect.any(String) }]);
    const kwd = await t.put(`${GROUPS}/${g.id}`, { token: admin.token, body: { reportingCurrency: 'KWD' } });
    expect(kwd.status).toBe(200);
    const reread = await t.get(`/api/v1/elimination-rules/${rule.body.id}`, { token: viewer.token });
    expect(reread.body.triggerConditions[0].minimumAmount).toBe('100.500');
    expect((await t.get(`${GROUPS}/${g.id}`, { token: viewer.token })).body.eliminationRuleIds).toEqual([
      rule.body.id,
    ]);
  });
});

describe('delete a group', () => {
  it('deletes the group with its members, rules and failed or cancelled runs', async () => {
    const g = await createGroup({
      members: [{ companyId: sub1.id, ownershipPercentage: 60, consolidationMethod: 'FullConsolidation' }],
    });
    const rule = await t.post('/api/v1/elimination-rules', { token: admin.token, body: ruleBody(g.id) });
    expect(rule.status).toBe(201);
    await insertRun(t, orgA, g.id, 'Failed', admin.id);
    await insertRun(t, orgA, g.id, 'Cancelled', admin.id);
    expect(await groupRowCounts(t, orgA, g.id)).toEqual({ members: 1, rules: 1, runs: 2 });
    const res = await t.del(`${GROUPS}/${g.id}`, { token: admin.token, query: { organizationId: orgA } });
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect(await groupRowCounts(t, orgA, g.id)).toEqual({ members: 0, rules: 0, runs: 0 });
    expect((await t.get(`${GROUPS}/${g.id}`, { token: admin.token })).status).toBe(404);
    expect((await t.get(`/api/v1/elimination-rules/${rule.body.id}`, { token: admin.token })).status).toBe(
      404,
    );
    const audit = await auditEntries('ConsolidationGroup', g.id);
    expect(audit.map((e) => e.action).sort()).toEqual(['Create', 'Delete']);
    const again = await t.del(`${GROUPS}/${g.id}`, { token: admin.token });
    expect(again.status).toBe(404);
  });

  it('refuses while completed runs exist, then while a run is pending or in progress', async () => {
    const g = await createGroup();
    await insertRun(t, orgA, g.id, 'Completed', admin.id);
    await insertRun(t, orgA, g.id, 'Completed', admin.id);
    const pending = await insertRun(t, orgA, g.id, 'Pending', admin.id);
    const res = await t.del(`${GROUPS}/${g.id}`, { token: admin.token });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      _tag: 'ConsolidationGroupHasCompletedRunsError',
      message: expect.any(String),
      groupId: g.id,
      completedRunCount: 2,
    });

    const h = await createGroup();
    const running = await insertRun(t, orgA, h.id, 'InProgress', admin.id);
    await insertRun(t, orgA, h.id, 'Failed', admin.id);
    const busy = await t.del(`${GROUPS}/${h.id}`, { token: admin.token });
    expect(busy.status).toBe(409);
    expect(busy.body).toEqual({
      _tag: 'ConsolidationRunInProgressError',
      message: expect.any(String),
      groupId: h.id,
      existingRunId: running,
    });
    expect(pending).toBeTruthy();
    expect(await groupRowCounts(t, orgA, h.id)).toMatchObject({ runs: 2 });
  });
});

describe('activate and deactivate', () => {
  it('toggles isActive idempotently and audits only real changes', async () => {
    const g = await createGroup();
    const off = await t.post(`${GROUPS}/${g.id}/deactivate`, { token: admin.token });
    expect(off.status).toBe(200);
    expect(off.body.isActive).toBe(false);
    const offAgain = await t.post(`${GROUPS}/${g.id}/deactivate`, { token: admin.token, body: 'ignored{' });
    expect(offAgain.status).toBe(200);
    expect(offAgain.body).toEqual(off.body);
    const on = await t.post(`${GROUPS}/${g.id}/activate`, {
      token: admin.token,
      query: { organizationId: orgA },
    });
    expect(on.status).toBe(200);
    expect(on.body.isActive).toBe(true);
    const onAgain = await t.post(`${GROUPS}/${g.id}/activate`, { token: admin.token });
    expect(onAgain.body).toEqual(on.body);
    const audit = await auditEntries('ConsolidationGroup', g.id);
    expect(audit.map((e) => e.action).sort()).toEqual(['Activate', 'Create', 'Deactivate']);
    for (const path of ['activate', 'deactivate']) {
      const missing = await t.post(`${GROUPS}/${MISSING}/${path}`, { token: admin.token });
      expect(missing.status).toBe(404);
      expect(missing.body._tag).toBe('ConsolidationGroupNotFoundError');
    }
  });
});

describe('members', () => {
  it('adds a member (201 with the group), refuses the parent, unknown companies and duplicates', async () => {
    const g = await createGroup();
    const add = await t.post(`${GROUPS}/${g.id}/members`, {
      token: admin.token,
      body: { companyId: sub1.id, ownershipPercentage: 51.25, consolidationMethod: 'FullConsolidation' },
    });
    expect(add.status).toBe(201);
    expect(add.body.id).toBe(g.id);
    expect(add.body.members).toEqual([
      {
        companyId: sub1.id,
        ownershipPercentage: '51.25',
        consolidationMethod: 'FullConsolidation',
        acquisitionDate: null,
        nonControllingInterestPercentage: '48.75', // 100 − 51.25
        heldByCompanyId: null,
        effectiveOwnershipPercentage: '51.2500',
        acquisition: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    ]);
    const second = await t.post(`${GROUPS}/${g.id}/members`, {
      token: admin.token,
      query: { organizationId: orgA },
      body: {
        companyId: sub2.id,
        ownershipPercentage: '20',
        consolidationMethod: 'EquityMethod',
        acquisitionDate: '2025-06-30',
      },
    });
    expect(second.status).toBe(201);
    // Ordered by createdAt: sub1 was added first.
    expect(second.body.members.map((m: any) => m.companyId)).toEqual([sub1.id, sub2.id]);

    const asParent = await t.post(`${GROUPS}/${g.id}/members`, {
      token: admin.token,
      body: { companyId: parent.id, ownershipPercentage: 100, consolidationMethod: 'FullConsolidation' },
    });
    expect(asParent.status).toBe(400);
    expect(asParent.body.issues).toEqual([{ path: '/companyId', message: expect.any(String) }]);

    for (const companyId of [foreign.id, MISSING]) {
      const res = await t.post(`${GROUPS}/${g.id}/members`, {
        token: admin.token,
        body: { companyId, ownershipPercentage: 10, consolidationMethod: 'EquityMethod' },
      });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ _tag: 'CompanyNotFoundError', message: expect.any(String), companyId });
    }

    const dup = await t.post(`${GROUPS}/${g.id}/members`, {
      token: admin.token,
      body: { companyId: sub1.id, ownershipPercentage: 10, consolidationMethod: 'EquityMethod' },
    });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({
      _tag: 'ConsolidationMemberAlreadyExistsError',
      message: expect.any(String),
      groupId: g.id,
      companyId: sub1.id,
    });

    const noGroup = await t.post(`${GROUPS}/${MISSING}/members`, {
      token: admin.token,
      body: { companyId: sub1.id, ownershipPercentage: 10, consolidationMethod: 'EquityMethod' },
    });
    expect(noGroup.status).toBe(404);
    expect(noGroup.body._tag).toBe('ConsolidationGroupNotFoundError');

    const badPct = await t.post(`${GROUPS}/${g.id}/members`, {
      token: admin.token,
      body: `{"companyId":"${sub3.id}","ownershipPercentage":12.345,"consolidationMethod":"EquityMethod"}`,
    });
    expect(badPct.status).toBe(400);
    expect(badPct.body.issues.map((i: any) => i.path)).toContain('/ownershipPercentage');

    const audit = await auditEntries('ConsolidationMember', sub1.id);
    const added = audit.find((e) => e.action === 'AddMember' && e.changes.groupId.to === g.id);
    expect(added?.changes).toMatchObject({ ownershipPercentage: { from: null, to: '51.25' } });
  });

  it('updates a member: percentages, method, acquisitionDate; PUT semantics', async () => {
    const g = await createGroup({
      members: [
        {
          companyId: sub1.id,
          ownershipPercentage: 60,
          consolidationMethod: 'FullConsolidation',
          acquisitionDate: '2020-01-01',
        },
      ],
    });
    const url = `${GROUPS}/${g.id}/members/${sub1.id}`;
    const pct = await t.put(url, { token: admin.token, body: { ownershipPercentage: '90.5' } });
    expect(pct.status).toBe(200);
    expect(pct.body.members[0]).toMatchObject({
      ownershipPercentage: '90.50',
      nonControllingInterestPercentage: '9.50', // 100 − 90.5
      consolidationMethod: 'FullConsolidation',
      acquisitionDate: '2020-01-01',
    });
    const method = await t.put(url, {
      token: admin.token,
      query: { organizationId: orgA },
      body: { consolidationMethod: 'ProportionateConsolidation', acquisitionDate: null },
    });
    expect(method.body.members[0]).toMatchObject({
      consolidationMethod: 'ProportionateConsolidation',
      nonControllingInterestPercentage: '0.00',
      acquisitionDate: null,
    });
    const noop = await t.put(url, { token: admin.token, body: { ownershipPercentage: 90.5 } });
    expect(noop.body.members[0].updatedAt).toBe(method.body.members[0].updatedAt);
    for (const body of [
      { ownershipPercentage: null },
      { consolidationMethod: null },
      { ownershipPercentage: 100.5 },
    ]) {
      const res = await t.put(url, { token: admin.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const audit = await auditEntries('ConsolidationMember', sub1.id);
    const updates = audit.filter((e) => e.action === 'UpdateMember' && e.changes.groupId.to === g.id);
    expect(updates).toHaveLength(2);

    const notMember = await t.put(`${GROUPS}/${g.id}/members/${sub2.id}`, { token: admin.token, body: {} });
    expect(notMember.status).toBe(404);
    expect(notMember.body).toEqual({
      _tag: 'ConsolidationMemberNotFoundError',
      message: expect.any(String),
      groupId: g.id,
      companyId: sub2.id,
    });
    const malformed = await t.put(`${GROUPS}/${g.id}/members/xyz`, { token: admin.token, body: {} });
    expect(malformed.status).toBe(404);
    expect(malformed.body).toEqual({
      _tag: 'ConsolidationMemberNotFoundError',
      message: expect.any(String),
      groupId: g.id,
      companyId: 'xyz',
    });
    const noGroup = await t.put(`${GROUPS}/${MISSING}/members/${sub1.id}`, { token: admin.token, body: {} });
    expect(noGroup.body._tag).toBe('ConsolidationGroupNotFoundError');
  });

  it('removes a member with 204, then answers 404', async () => {
    const g = await createGroup({
      members: [
        { companyId: sub1.id, ownershipPercentage: 60, consolidationMethod: 'FullConsolidation' },
        { companyId: sub2.id, ownershipPercentage: 30, consolidationMethod: 'EquityMethod' },
      ],
    });
    const res = await t.del(`${GROUPS}/${g.id}/members/${sub1.id}`, { token: admin.token });
    expect(res.status).toBe(204);
    const after = await t.get(`${GROUPS}/${g.id}`, { token: viewer.token });
    expect(after.body.members.map((m: any) => m.companyId)).toEqual([sub2.id]);
    const again = await t.del(`${GROUPS}/${g.id}/members/${sub1.id}`, { token: admin.token });
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({
      _tag: 'ConsolidationMemberNotFoundError',
      groupId: g.id,
      companyId: sub1.id,
    });
    const malformed = await t.del(`${GROUPS}/${g.id}/members/1`, { token: admin.token });
    expect(malformed.body).toMatchObject({ _tag: 'ConsolidationMemberNotFoundError', companyId: '1' });
    const audit = await auditEntries('ConsolidationMember', sub1.id);
    expect(audit.some((e) => e.action === 'RemoveMember' && e.changes.groupId.from === g.id)).toBe(true);
  });
});

describe('role matrix', () => {
  it('lets viewers and members read, and only admins and owners manage', async () => {
    const g = await createGroup({
      members: [{ companyId: sub1.id, ownershipPercentage: 60, consolidationMethod: 'FullConsolidation' }],
    });
    for (const u of [viewer, member, admin, owner]) {
      expect((await t.get(`${GROUPS}/${g.id}`, { token: u.token })).status).toBe(200);
      const list = await t.get(GROUPS, { token: u.token, query: { organizationId: orgA } });
      expect(list.status).toBe(200);
      expect(list.body.groups.some((x: any) => x.id === g.id)).toBe(true);
    }
    const writes = (u: TestUser) => [
      t.post(GROUPS, { token: u.token, body: groupBody() }),
      t.put(`${GROUPS}/${g.id}`, { token: u.token, body: { name: uniq('n') } }),
      t.post(`${GROUPS}/${g.id}/deactivate`, { token: u.token }),
      t.post(`${GROUPS}/${g.id}/activate`, { token: u.token }),
      t.post(`${GROUPS}/${g.id}/members`, {
        token: u.token,
        body: { companyId: sub2.id, ownershipPercentage: 10, consolidationMethod: 'EquityMethod' },
      }),
      t.put(`${GROUPS}/${g.id}/members/${sub1.id}`, { token: u.token, body: { ownershipPercentage: 70 } }),
      t.del(`${GROUPS}/${g.id}/members/${sub1.id}`, { token: u.token }),
      t.del(`${GROUPS}/${g.id}`, { token: u.token }),
    ];
    for (const u of [viewer, member]) {
      for (const res of await Promise.all(writes(u))) {
        expect(res.status).toBe(403);
        expect(res.body).toEqual(forbiddenFor(u === viewer ? 'viewer' : 'member'));
      }
    }
    const ownerCreate = await t.post(GROUPS, { token: owner.token, body: groupBody() });
    expect(ownerCreate.status).toBe(201);
    const ownerUpdate = await t.put(`${GROUPS}/${g.id}`, {
      token: owner.token,
      body: { name: uniq('owned') },
    });
    expect(ownerUpdate.status).toBe(200);
    const ownerDelete = await t.del(`${GROUPS}/${ownerCreate.body.id}`, { token: owner.token });
    expect(ownerDelete.status).toBe(204);
  });
});

describe('tenant isolation', () => {
  it('refuses every by-id access to another organization with 403 and no data', async () => {
    const g = await createGroup({
      members: [{ companyId: sub1.id, ownershipPercentage: 60, consolidationMethod: 'FullConsolidation' }],
    });
    const calls = [
      ['read', t.get(`${GROUPS}/${g.id}`, { token: outsider.token })],
      ['manage', t.put(`${GROUPS}/${g.id}`, { token: outsider.token, body: { name: 'stolen' } })],
      ['manage', t.del(`${GROUPS}/${g.id}`, { token: outsider.token })],
      ['manage', t.post(`${GROUPS}/${g.id}/activate`, { token: outsider.token })],
      ['manage', t.post(`${GROUPS}/${g.id}/deactivate`, { token: outsider.token })],
      [
        'manage',
        t.post(`${GROUPS}/${g.id}/members`, {
          token: outsider.token,
          body: { companyId: foreign.id, ownershipPercentage: 10, consolidationMethod: 'EquityMethod' },
        }),
      ],
      ['manage', t.put(`${GROUPS}/${g.id}/members/${sub1.id}`, { token: outsider.token, body: {} })],
      ['manage', t.del(`${GROUPS}/${g.id}/members/${sub1.id}`, { token: outsider.token })],
    ] as const;
    for (const [kind, p] of calls) {
      const res = await p;
      expect(res.status).toBe(403);
      expect(res.body).toEqual(
        kind === 'read' ? forbiddenFor(null, 'consolidation:read', 'viewer') : forbiddenFor(null),
      );
      expect(JSON.stringify(res.body)).not.toContain(g.name);
    }
    // Naming its own organization, the outsider gets "not found" for A's group.
    const scoped = await t.put(`${GROUPS}/${g.id}`, {
      token: outsider.token,
      query: { organizationId: orgB },
      body: { name: 'stolen' },
    });
    expect(scoped.status).toBe(404);
    expect(scoped.body._tag).toBe('ConsolidationGroupNotFoundError');
    const unchanged = await t.get(`${GROUPS}/${g.id}`, { token: admin.token });
    expect(unchanged.body).toEqual(g);
  });

  it('treats companies of another organization in bodies as missing', async () => {
    const res = await t.post(GROUPS, {
      token: outsider.token,
      body: {
        ...groupBody(),
        organizationId: orgB,
        parentCompanyId: foreign.id,
        members: [{ companyId: sub1.id, ownershipPercentage: 10, consolidationMethod: 'EquityMethod' }],
      },
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      _tag: 'CompanyNotFoundError',
      message: expect.any(String),
      companyId: sub1.id,
    });
  });
});

describe('routing, documentation and races', () => {
  it('documents every endpoint and answers 405 for unsupported methods', async () => {
    const doc = await t.get('/api/openapi.json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/consolidation/groups',
        '/api/v1/consolidation/groups/{id}',
        '/api/v1/consolidation/groups/{id}/activate',
        '/api/v1/consolidation/groups/{id}/deactivate',
        '/api/v1/consolidation/groups/{id}/members',
        '/api/v1/consolidation/groups/{id}/members/{companyId}',
      ]),
    );
    const patch = await t.req('PATCH', `${GROUPS}/${MISSING}`, { token: admin.token });
    expect(patch.status).toBe(405);
    expect(patch.body.allowedMethods).toEqual(['DELETE', 'GET', 'PUT']);
  });

  it('reports concurrent duplicate names and members as 409, never 5xx', async () => {
    const name = uniq('Race');
    const created = await Promise.all(
      [1, 2, 3].map(() => t.post(GROUPS, { token: admin.token, body: groupBody({ name }) })),
    );
    expect(created.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const g = created.find((r) => r.status === 201)!.body;
    const added = await Promise.all(
      [1, 2, 3].map(() =>
        t.post(`${GROUPS}/${g.id}/members`, {
          token: admin.token,
          body: { companyId: sub1.id, ownershipPercentage: 10, consolidationMethod: 'EquityMethod' },
        }),
      ),
    );
    expect(added.map((r) => r.status).sort()).toEqual([201, 409, 409]);
  });
});

describe('idempotency', () => {
  it('does not store a refusal of the member cross-field rules under the key', async () => {
    const headers = { 'idempotency-key': uniq('idem') };
    const bad = await t.post(GROUPS, {
      token: admin.token,
      headers,
      body: groupBody({
        members: [{ companyId: parent.id, ownershipPercentage: 1, consolidationMethod: 'EquityMethod' }],
      }),
    });
    expect(bad.status).toBe(400);
    expect(bad.body.issues).toEqual([{ path: '/members/0/companyId', message: expect.any(String) }]);
    const good = await t.post(GROUPS, { token: admin.token, headers, body: groupBody() });
    expect(good.status).toBe(201);
  });
});
