import { sql } from 'drizzle-orm';
import { v4 as uuidv4 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext, type TestUser, uniq } from '../helpers/app.ts';

let t: TestContext;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let viewer: TestUser;
let outsider: TestUser;
let orgA: string;
let orgB: string;

const companyBody = (organizationId: string, extra: Record<string, unknown> = {}) => ({
  organizationId,
  name: uniq('Company'),
  legalName: 'Company Ltd',
  jurisdiction: 'US-DE',
  functionalCurrency: 'USD',
  reportingCurrency: 'USD',
  fiscalYearEnd: { month: 12, day: 31 },
  ...extra,
});

async function createCompany(token: string, organizationId: string, extra: Record<string, unknown> = {}) {
  const res = await t.post('/api/v1/companies', { token, body: companyBody(organizationId, extra) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const companyUrl = (orgId: string, id: string) => `/api/v1/organizations/${orgId}/companies/${id}`;

async function insertEntry(organizationId: string, companyId: string, status: string, userId: string) {
  const id = uuidv4();
  const [{ n }] = (
    (await t.database.db.execute(
      sql`select coalesce(max(entry_number), 0)::int + 1 as n from journal_entries where organization_id = ${organizationId} and company_id = ${companyId}`,
    )) as unknown as { rows: { n: number }[] }
  ).rows as [{ n: number }];
  await t.database.db.execute(sql`
    insert into journal_entries (id, organization_id, company_id, entry_number, description, transaction_date,
      fiscal_year, fiscal_period, status, total_debits, total_credits, created_by)
    values (${id}, ${organizationId}, ${companyId}, ${n}, 'test', '2026-01-15', 2026, 1, ${status}, 0, 0, ${userId})`);
  return id;
}

async function auditOf(organizationId: string, entityId: string) {
  const res = await t.get('/api/v1/audit-log', { token: owner.token, query: { organizationId, entityId } });
  expect(res.status).toBe(200);
  return res.body.entries as { action: string; entityType: string; changes: unknown }[];
}

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
});
afterAll(async () => {
  await t.close();
});

describe('POST /api/v1/companies', () => {
  it('creates a company with every field and returns the full record', async () => {
    const name = uniq('Acme');
    const res = await t.post('/api/v1/companies', {
      token: admin.token,
      body: {
        organizationId: orgA.toUpperCase(),
        name: `  ${name}  `,
        legalName: ' Acme Holdings Inc. ',
        jurisdiction: 'US-DE',
        taxId: ' 12-3456789 ',
        incorporationDate: '1850-03-01',
        registrationNumber: 'REG-1',
        registeredAddress: { line1: '1 Main St', city: 'Dover', postalCode: '19901', country: 'US' },
        industryCode: '5412',
        companyType: 'Corporation',
        incorporationJurisdiction: 'US-DE',
        functionalCurrency: 'USD',
        reportingCurrency: 'EUR',
        fiscalYearEnd: { month: 2, day: 30 },
        isActive: false,
        retainedEarningsAccountId: uuidv4(),
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      organizationId: orgA,
      name,
      legalName: 'Acme Holdings Inc.',
      jurisdiction: 'US-DE',
      taxId: '12-3456789',
      incorporationDate: '1850-03-01',
      registrationNumber: 'REG-1',
      registeredAddress: {
        line1: '1 Main St',
        line2: null,
        city: 'Dover',
        region: null,
        postalCode: '19901',
        country: 'US',
      },
      industryCode: '5412',
      companyType: 'Corporation',
      incorporationJurisdiction: 'US-DE',
      functionalCurrency: 'USD',
      reportingCurrency: 'EUR',
      fiscalYearEnd: { month: 2, day: 30 },
      retainedEarningsAccountId: null,
      // Revaluation settings (added later): empty without a template.
      unrealizedFxGainLossAccountId: null,
      realizedFxGainLossAccountId: null,
      isActive: true,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: res.body.createdAt,
    });
    const audit = await auditOf(orgA, res.body.id);
    expect(audit.map((a) => a.action)).toEqual(['Create']);
    expect(audit[0]!.changes).toBeNull();
  });

  it('returns null for every optional field that was omitted', async () => {
    const c = await createCompany(admin.token, orgA);
    for (const f of [
      'taxId',
      'incorporationDate',
      'registrationNumber',
      'registeredAddress',
      'industryCode',
      'companyType',
      'incorporationJurisdiction',
      'retainedEarningsAccountId',
    ]) {
      expect(c[f], f).toBeNull();
    }
    const empty = await createCompany(admin.token, orgA, { taxId: '   ', accountTemplate: null });
    expect(empty.taxId).toBeNull();
  });

  it('refuses a name already used in the organization, case-insensitively after trimming', async () => {
    const c = await createCompany(admin.token, orgA);
    const dup = await t.post('/api/v1/companies', {
      token: admin.token,
      body: companyBody(orgA, { name: ` ${c.name.toUpperCase()} ` }),
    });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({
      _tag: 'CompanyNameAlreadyExistsError',
      message: expect.any(String),
      name: c.name.toUpperCase(),
      organizationId: orgA,
    });
    // Another organization may use the same name.
    const other = await t.post('/api/v1/companies', {
      token: outsider.token,
      body: companyBody(orgB, { name: c.name }),
    });
    expect(other.status).toBe(201);
  });

  it('creates a name once when two requests race', async () => {
    const name = uniq('Race');
    const results = await Promise.all(
      [admin, owner].map((user) =>
        t.post('/api/v1/companies', { token: user.token, body: companyBody(orgA, { name }) }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(results.find((r) => r.status === 409)?.body._tag).toBe('CompanyNameAlreadyExistsError');
  });

  it('validates the body', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ legalName: undefined }, '/legalName'],
      [{ name: '   ' }, '/name'],
      [{ jurisdiction: 'XX' }, '/jurisdiction'],
      [{ jurisdiction: 'us' }, '/jurisdiction'],
      [{ functionalCurrency: 'usd' }, '/functionalCurrency'],
      [{ reportingCurrency: 'ABC' }, '/reportingCurrency'],
      [{ fiscalYearEnd: { month: 13, day: 1 } }, '/fiscalYearEnd/month'],
      [{ fiscalYearEnd: { month: 1, day: 32 } }, '/fiscalYearEnd/day'],
      [{ industryCode: '1' }, '/industryCode'],
      [{ industryCode: '1234567' }, '/industryCode'],
      [{ companyType: 'Corp' }, '/companyType'],
      [{ incorporationDate: '0999-01-01' }, '/incorporationDate'],
      [{ incorporationDate: '2023-02-29' }, '/incorporationDate'],
      [{ taxId: 'x'.repeat(51) }, '/taxId'],
      [
        { registeredAddress: { line1: 'a', city: 'b', postalCode: 'c', country: 'UK' } },
        '/registeredAddress/country',
      ],
      [{ registeredAddress: { line1: 'a', city: 'b', country: 'US' } }, '/registeredAddress/postalCode'],
      [{ accountTemplate: 'generalBusiness' }, '/accountTemplate'],
      [{ organizationId: 'nope' }, '/organizationId'],
    ];
    for (const [patch, path] of cases) {
      const body: Record<string, unknown> = { ...companyBody(orgA), ...patch };
      for (const k of Object.keys(patch)) if (patch[k] === undefined) delete body[k];
      const res = await t.post('/api/v1/companies', { token: admin.token, body });
      expect(res.status, JSON.stringify(patch)).toBe(400);
      expect(res.body._tag).toBe('ValidationError');
      expect(
        res.body.issues.map((i: { path: string }) => i.path),
        JSON.stringify(patch),
      ).toContain(path);
    }
  });

  it('answers 404 for an unknown organization and 403 for a non-member', async () => {
    const missing = uuidv4();
    const res = await t.post('/api/v1/companies', { token: admin.token, body: companyBody(missing) });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ _tag: 'OrganizationNotFoundError', organizationId: missing });
    const foreign = await t.post('/api/v1/companies', { token: admin.token, body: companyBody(orgB) });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({
      _tag: 'ForbiddenError',
      resource: 'Company',
      action: 'company:manage',
      requiredRole: 'admin',
      currentRole: null,
    });
  });

  it('applies the role matrix: admin and owner create, member and viewer do not', async () => {
    for (const [user, role] of [
      [viewer, 'viewer'],
      [member, 'member'],
    ] as const) {
      const res = await t.post('/api/v1/companies', { token: user.token, body: companyBody(orgA) });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ action: 'company:manage', requiredRole: 'admin', currentRole: role });
    }
    await createCompany(owner.token, orgA);
    await createCompany(admin.token, orgA);
    expect((await t.post('/api/v1/companies', { body: companyBody(orgA) })).status).toBe(401);
  });

  it('applies an account template in the same transaction', async () => {
    const c = await createCompany(admin.token, orgA, { accountTemplate: 'GeneralBusiness' });
    expect(c.retainedEarningsAccountId).toMatch(/^[0-9a-f-]{36}$/);
    const list = await t.get('/api/v1/accounts', {
      token: viewer.token,
      query: { organizationId: orgA, companyId: c.id, limit: 100 },
    });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(78);
    const re = list.body.accounts.filter((a: { isRetainedEarnings: boolean }) => a.isRetainedEarnings);
    expect(re).toHaveLength(1);
    expect(re[0]).toMatchObject({ id: c.retainedEarningsAccountId, accountNumber: '3300' });
    const audit = await auditOf(orgA, c.id);
    expect(audit.map((a) => a.action).sort()).toEqual(['ApplyTemplate', 'Create']);
  });
});

describe('GET /api/v1/companies', () => {
  let org: string;
  beforeAll(async () => {
    org = (await t.org(owner)).id;
    await t.addMember(owner, org, viewer, 'viewer');
    await createCompany(owner.token, org, { name: 'beta', jurisdiction: 'GB' });
    await createCompany(owner.token, org, { name: 'Alpha', jurisdiction: 'US-DE' });
    const gamma = await createCompany(owner.token, org, { name: 'Gamma', jurisdiction: 'US-DE' });
    expect((await t.del(companyUrl(org, gamma.id), { token: owner.token })).status).toBe(204);
  });

  it('lists companies ordered by name case-insensitively, with pagination', async () => {
    const res = await t.get('/api/v1/companies', { token: viewer.token, query: { organizationId: org } });
    expect(res.status).toBe(200);
    expect(res.body.companies.map((c: { name: string }) => c.name)).toEqual(['Alpha', 'beta', 'Gamma']);
    expect(res.body).toMatchObject({ total: 3, limit: 50, offset: 0 });
    const page = await t.get('/api/v1/companies', {
      token: viewer.token,
      query: { organizationId: org, limit: 1, offset: 1 },
    });
    expect(page.body.companies.map((c: { name: string }) => c.name)).toEqual(['beta']);
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1 });
  });

  it('filters by isActive and jurisdiction', async () => {
    const active = await t.get('/api/v1/companies', {
      token: viewer.token,
      query: { organizationId: org, isActive: true },
    });
    expect(active.body.companies.map((c: { name: string }) => c.name)).toEqual(['Alpha', 'beta']);
    const inactive = await t.get('/api/v1/companies', {
      token: viewer.token,
      query: { organizationId: org, isActive: false },
    });
    expect(inactive.body.companies.map((c: { name: string }) => c.name)).toEqual(['Gamma']);
    const de = await t.get('/api/v1/companies', {
      token: viewer.token,
      query: { organizationId: org, jurisdiction: 'US-DE', isActive: true },
    });
    expect(de.body.companies.map((c: { name: string }) => c.name)).toEqual(['Alpha']);
    expect(de.body.total).toBe(1);
    const us = await t.get('/api/v1/companies', {
      token: viewer.token,
      query: { organizationId: org, jurisdiction: 'US' },
    });
    expect(us.body.total).toBe(0);
  });

  it('validates the query', async () => {
    for (const query of [
      {},
      { organizationId: 'x' },
      { organizationId: org, jurisdiction: 'XX' },
      { organizationId: org, isActive: 'yes' },
      { organizationId: org, limit: 101 },
      { organizationId: org, offset: -1 },
    ]) {
      const res = await t.get('/api/v1/companies', { token: viewer.token, query });
      expect(res.status, JSON.stringify(query)).toBe(400);
    }
  });

  it('refuses non-members (403) and unknown organizations (404); never shows other organizations', async () => {
    const res = await t.get('/api/v1/companies', { token: outsider.token, query: { organizationId: org } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ _tag: 'ForbiddenError', action: 'company:read', currentRole: null });
    const missing = await t.get('/api/v1/companies', {
      token: viewer.token,
      query: { organizationId: uuidv4() },
    });
    expect(missing.status).toBe(404);
    const own = await t.get('/api/v1/companies', { token: outsider.token, query: { organizationId: orgB } });
    expect(own.status).toBe(200);
    expect(own.body.companies.every((c: { organizationId: string }) => c.organizationId === orgB)).toBe(true);
  });
});

describe('GET /api/v1/organizations/{organizationId}/companies/{id}', () => {
  it('returns the company to every member role', async () => {
    const c = await createCompany(admin.token, orgA);
    for (const user of [viewer, member, admin, owner]) {
      const res = await t.get(companyUrl(orgA, c.id.toUpperCase()), { token: user.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(c);
    }
  });

  it('answers 404 for unknown, malformed and foreign companies and 403 for non-members', async () => {
    const missing = uuidv4();
    const res = await t.get(companyUrl(orgA, missing), { token: viewer.token });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ _tag: 'CompanyNotFoundError', companyId: missing });
    const bad = await t.get(companyUrl(orgA, 'abc'), { token: viewer.token });
    expect(bad.body).toMatchObject({ _tag: 'CompanyNotFoundError', companyId: 'abc' });
    const badOrg = await t.get(companyUrl('abc', missing), { token: viewer.token });
    expect(badOrg.body).toMatchObject({ _tag: 'OrganizationNotFoundError', organizationId: 'abc' });

    const foreign = await createCompany(outsider.token, orgB);
    const underOwn = await t.get(companyUrl(orgA, foreign.id), { token: viewer.token });
    expect(underOwn.status).toBe(404);
    expect(underOwn.body._tag).toBe('CompanyNotFoundError');
    const underTheirs = await t.get(companyUrl(orgB, foreign.id), { token: viewer.token });
    expect(underTheirs.status).toBe(403);
    expect(underTheirs.body).toMatchObject({ _tag: 'ForbiddenError', currentRole: null });
    expect(JSON.stringify(underTheirs.body)).not.toContain(foreign.name);
    const unknownOrg = await t.get(companyUrl(uuidv4(), foreign.id), { token: viewer.token });
    expect(unknownOrg.status).toBe(404);
    expect(unknownOrg.body._tag).toBe('OrganizationNotFoundError');
  });
});

describe('PUT /api/v1/organizations/{organizationId}/companies/{id}', () => {
  it('changes the fields sent, clears with null and leaves the others unchanged', async () => {
    const c = await createCompany(admin.token, orgA, {
      taxId: 'T1',
      registeredAddress: { line1: 'a', line2: 'b', city: 'c', region: 'DE', postalCode: '1', country: 'US' },
      companyType: 'LLC',
    });
    const res = await t.put(companyUrl(orgA, c.id), {
      token: admin.token,
      body: {
        legalName: ' New Legal ',
        taxId: null,
        companyType: null,
        registeredAddress: { line1: 'x', city: 'y', postalCode: 'z', country: 'GB' },
        reportingCurrency: 'GBP',
        industryCode: '11',
        functionalCurrency: 'USD',
        organizationId: orgA,
        id: uuidv4(),
        createdAt: 'ignored',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: c.name,
      legalName: 'New Legal',
      taxId: null,
      companyType: null,
      registeredAddress: { line1: 'x', line2: null, city: 'y', region: null, postalCode: 'z', country: 'GB' },
      reportingCurrency: 'GBP',
      industryCode: '11',
      id: c.id,
      createdAt: c.createdAt,
    });
    expect(res.body.updatedAt >= c.updatedAt).toBe(true);
    const audit = await auditOf(orgA, c.id);
    const update = audit.find((a) => a.action === 'Update');
    expect(update?.changes).toMatchObject({ legalName: { from: 'Company Ltd', to: 'New Legal' } });
  });

  it('leaves updatedAt unchanged and writes no audit entry when nothing changes', async () => {
    const c = await createCompany(admin.token, orgA);
    const res = await t.put(companyUrl(orgA, c.id), {
      token: admin.token,
      body: { name: c.name, fiscalYearEnd: { month: 12, day: 31 }, isActive: null },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(c);
    const empty = await t.put(companyUrl(orgA, c.id), { token: admin.token, body: {} });
    expect(empty.body).toEqual(c);
    expect((await auditOf(orgA, c.id)).map((a) => a.action)).toEqual(['Create']);
  });

  it('refuses null for required fields and different immutable values', async () => {
    const c = await createCompany(admin.token, orgA);
    for (const [body, path] of [
      [{ name: null }, '/name'],
      [{ legalName: null }, '/legalName'],
      [{ jurisdiction: null }, '/jurisdiction'],
      [{ reportingCurrency: null }, '/reportingCurrency'],
      [{ fiscalYearEnd: null }, '/fiscalYearEnd'],
      [{ functionalCurrency: 'EUR' }, '/functionalCurrency'],
      [{ organizationId: orgB }, '/organizationId'],
    ] as const) {
      const res = await t.put(companyUrl(orgA, c.id), { token: admin.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body._tag).toBe('ValidationError');
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
  });

  it('refuses a name used by another company of the organization', async () => {
    const a = await createCompany(admin.token, orgA);
    const b = await createCompany(admin.token, orgA);
    const res = await t.put(companyUrl(orgA, b.id), {
      token: admin.token,
      body: { name: a.name.toLowerCase() },
    });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      _tag: 'CompanyNameAlreadyExistsError',
      name: a.name.toLowerCase(),
      organizationId: orgA,
    });
    // Changing only the case of its own name is fine.
    const own = await t.put(companyUrl(orgA, b.id), {
      token: admin.token,
      body: { name: b.name.toUpperCase() },
    });
    expect(own.status).toBe(200);
    expect(own.body.name).toBe(b.name.toUpperCase());
  });

  it('changes fiscalYearEnd only while the company has no fiscal year', async () => {
    const c = await createCompany(admin.token, orgA);
    const ok = await t.put(companyUrl(orgA, c.id), {
      token: admin.token,
      body: { fiscalYearEnd: { month: 6, day: 30 } },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.fiscalYearEnd).toEqual({ month: 6, day: 30 });
    const fy = await t.post(`${companyUrl(orgA, c.id)}/fiscal-years`, {
      token: admin.token,
      body: { year: 2026 },
    });
    expect(fy.status).toBe(201);
    const refused = await t.put(companyUrl(orgA, c.id), {
      token: admin.token,
      body: { fiscalYearEnd: { month: 12, day: 31 } },
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      _tag: 'FiscalYearEndChangeNotAllowedError',
      message: expect.any(String),
      companyId: c.id,
      fiscalYearCount: 1,
    });
    const same = await t.put(companyUrl(orgA, c.id), {
      token: admin.token,
      body: { fiscalYearEnd: { month: 6, day: 30 } },
    });
    expect(same.status).toBe(200);
  });

  it('sets, validates and clears retainedEarningsAccountId', async () => {
    const c = await createCompany(admin.token, orgA);
    const mk = async (accountNumber: string, extra: Record<string, unknown>) => {
      const res = await t.post('/api/v1/accounts', {
        token: admin.token,
        body: { organizationId: orgA, companyId: c.id, accountNumber, name: `A ${accountNumber}`, ...extra },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    const re = await mk('3300', { accountType: 'Equity', accountCategory: 'RetainedEarnings' });
    const capital = await mk('3100', { accountType: 'Equity', accountCategory: 'ContributedCapital' });
    const summary = await mk('3900', {
      accountType: 'Equity',
      accountCategory: 'RetainedEarnings',
      isPostable: false,
    });
    const inactive = await mk('3910', { accountType: 'Equity', accountCategory: 'RetainedEarnings' });
    await t.put(`/api/v1/accounts/organizations/${orgA}/accounts/${inactive.id}`, {
      token: admin.token,
      body: { isActive: false },
    });
    const other = await createCompany(admin.token, orgA, { accountTemplate: 'HoldingCompany' });

    const unknown = uuidv4();
    let res = await t.put(companyUrl(orgA, c.id), {
      token: admin.token,
      body: { retainedEarningsAccountId: unknown },
    });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ _tag: 'AccountNotFoundError', accountId: unknown });
    res = await t.put(companyUrl(orgA, c.id), {
      token: admin.token,
      body: { retainedEarningsAccountId: other.retainedEarningsAccountId },
    });
    expect(res.status).toBe(404);
    expect(res.body._tag).toBe('AccountNotFoundError');
    for (const acc of [capital, summary, inactive]) {
      res = await t.put(companyUrl(orgA, c.id), {
        token: admin.token,
        body: { retainedEarningsAccountId: acc.id },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        _tag: 'InvalidRetainedEarningsAccountError',
        message: expect.any(String),
        accountId: acc.id,
        accountType: 'Equity',
        accountCategory: acc.accountCategory,
      });
    }
    res = await t.put(companyUrl(orgA, c.id), {
      token: admin.token,
      body: { retainedEarningsAccountId: re.id },
    });
    expect(res.status).toBe(200);
    expect(res.body.retainedEarningsAccountId).toBe(re.id);
    const acc = await t.get(`/api/v1/accounts/organizations/${orgA}/accounts/${re.id}`, {
      token: viewer.token,
    });
    expect(acc.body.isRetainedEarnings).toBe(true);
    res = await t.put(companyUrl(orgA, c.id), {
      token: admin.token,
      body: { retainedEarningsAccountId: null },
    });
    expect(res.status).toBe(200);
    expect(res.body.retainedEarningsAccountId).toBeNull();
  });

  it('deactivates with isActive false unless unposted entries exist, and null reactivates', async () => {
    const c = await createCompany(admin.token, orgA);
    const entry = await insertEntry(orgA, c.id, 'PendingApproval', admin.id);
    await insertEntry(orgA, c.id, 'Posted', admin.id);
    const refused = await t.put(companyUrl(orgA, c.id), { token: admin.token, body: { isActive: false } });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      _tag: 'CompanyHasUnpostedEntriesError',
      message: expect.any(String),
      companyId: c.id,
      unpostedEntryCount: 1,
    });
    await t.database.db.execute(sql`update journal_entries set status = 'Posted' where id = ${entry}`);
    const ok = await t.put(companyUrl(orgA, c.id), { token: admin.token, body: { isActive: false } });
    expect(ok.status).toBe(200);
    expect(ok.body.isActive).toBe(false);
    const back = await t.put(companyUrl(orgA, c.id), { token: admin.token, body: { isActive: null } });
    expect(back.body.isActive).toBe(true);
  });

  it('applies the role matrix and tenant isolation', async () => {
    const c = await createCompany(admin.token, orgA);
    for (const [user, role] of [
      [viewer, 'viewer'],
      [member, 'member'],
    ] as const) {
      const res = await t.put(companyUrl(orgA, c.id), { token: user.token, body: { legalName: 'x' } });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ action: 'company:manage', requiredRole: 'admin', currentRole: role });
    }
    expect(
      (await t.put(companyUrl(orgA, c.id), { token: owner.token, body: { legalName: 'o' } })).status,
    ).toBe(200);
    const foreign = await createCompany(outsider.token, orgB);
    const underOwn = await t.put(companyUrl(orgA, foreign.id), {
      token: admin.token,
      body: { legalName: 'x' },
    });
    expect(underOwn.status).toBe(404);
    const underTheirs = await t.put(companyUrl(orgB, foreign.id), {
      token: admin.token,
      body: { legalName: 'x' },
    });
    expect(underTheirs.status).toBe(403);
    const check = await t.get(companyUrl(orgB, foreign.id), { token: outsider.token });
    expect(check.body.legalName).toBe('Company Ltd');
  });
});

describe('DELETE /api/v1/organizations/{organizationId}/companies/{id}', () => {
  it('deactivates idempotently and records Deactivate once', async () => {
    const c = await createCompany(admin.token, orgA);
    const first = await t.del(companyUrl(orgA, c.id), { token: admin.token });
    expect(first.status).toBe(204);
    expect(first.body).toBe('');
    const second = await t.del(companyUrl(orgA, c.id), { token: admin.token });
    expect(second.status).toBe(204);
    const after = await t.get(companyUrl(orgA, c.id), { token: viewer.token });
    expect(after.body.isActive).toBe(false);
    const audit = await auditOf(orgA, c.id);
    expect(audit.filter((a) => a.action === 'Deactivate')).toHaveLength(1);
    expect(audit.find((a) => a.action === 'Deactivate')?.changes).toEqual({
      isActive: { from: true, to: false },
    });
  });

  it('refuses while entries are Draft, PendingApproval or Approved', async () => {
    const c = await createCompany(admin.token, orgA);
    await insertEntry(orgA, c.id, 'Draft', admin.id);
    await insertEntry(orgA, c.id, 'Approved', admin.id);
    await insertEntry(orgA, c.id, 'Reversed', admin.id);
    const res = await t.del(companyUrl(orgA, c.id), { token: admin.token });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      _tag: 'CompanyHasUnpostedEntriesError',
      companyId: c.id,
      unpostedEntryCount: 2,
    });
    expect((await t.get(companyUrl(orgA, c.id), { token: viewer.token })).body.isActive).toBe(true);
  });

  it('applies the role matrix, 404s and tenant isolation', async () => {
    const c = await createCompany(admin.token, orgA);
    for (const user of [viewer, member]) {
      expect((await t.del(companyUrl(orgA, c.id), { token: user.token })).status).toBe(403);
    }
    expect((await t.del(companyUrl(orgA, uuidv4()), { token: admin.token })).body._tag).toBe(
      'CompanyNotFoundError',
    );
    const foreign = await createCompany(outsider.token, orgB);
    expect((await t.del(companyUrl(orgA, foreign.id), { token: admin.token })).status).toBe(404);
    expect((await t.del(companyUrl(orgB, foreign.id), { token: admin.token })).status).toBe(403);
    expect((await t.get(companyUrl(orgB, foreign.id), { token: outsider.token })).body.isActive).toBe(true);
    expect((await t.del(companyUrl(orgA, c.id), { token: owner.token })).status).toBe(204);
  });
});
