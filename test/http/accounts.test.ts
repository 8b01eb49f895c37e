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

const accountUrl = (orgId: string, id: string) => `/api/v1/accounts/organizations/${orgId}/accounts/${id}`;

async function createCompany(token: string, organizationId: string, extra: Record<string, unknown> = {}) {
  const res = await t.post('/api/v1/companies', {
    token,
    body: {
      organizationId,
      name: uniq('Company'),
      legalName: 'Company Ltd',
      jurisdiction: 'US',
      functionalCurrency: 'USD',
      reportingCurrency: 'USD',
      fiscalYearEnd: { month: 12, day: 31 },
      ...extra,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

let numberSeq = 5000;
const nextNumber = () => String(numberSeq++);

async function createAccount(
  companyId: string,
  extra: Record<string, unknown> = {},
  token = admin.token,
  organizationId = orgA,
) {
  const res = await t.post('/api/v1/accounts', {
    token,
    body: {
      organizationId,
      companyId,
      accountNumber: nextNumber(),
      name: 'Account',
      accountType: 'Asset',
      accountCategory: 'CurrentAsset',
      ...extra,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
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

describe('account templates', () => {
  it('lists the four templates in the contract order, to any user', async () => {
    const stranger = await t.user('stranger');
    const res = await t.get('/api/v1/account-templates', { token: stranger.token });
    expect(res.status).toBe(200);
    expect(
      res.body.templates.map((x: { templateType: string; accountCount: number }) => [
        x.templateType,
        x.accountCount,
      ]),
    ).toEqual([
      ['GeneralBusiness', 78],
      ['Manufacturing', 95],
      ['ServiceBusiness', 80],
      ['HoldingCompany', 66],
    ]);
    expect(res.body.templates[0]).toEqual({
      templateType: 'GeneralBusiness',
      name: 'General Business',
      description: 'A general-purpose chart of accounts for trading and service companies.',
      accountCount: 78,
    });
    expect((await t.get('/api/v1/account-templates')).status).toBe(401);
  });

  it('returns one template with its accounts ordered by number', async () => {
    const res = await t.get('/api/v1/account-templates/GeneralBusiness', { token: outsider.token });
    expect(res.status).toBe(200);
    const { template } = res.body;
    expect(template.accounts).toHaveLength(78);
    expect(template.accounts[0]).toEqual({
      accountNumber: '1000',
      name: 'Cash and Cash Equivalents',
      description: null,
      accountType: 'Asset',
      accountCategory: 'CurrentAsset',
      normalBalance: 'Debit',
      parentAccountNumber: null,
      isPostable: false,
      cashFlowCategory: null,
      isCashEquivalent: true,
      isIntercompany: false,
      isRetainedEarnings: false,
    });
    const re = template.accounts.filter((a: { isRetainedEarnings: boolean }) => a.isRetainedEarnings);
    expect(re.map((a: { accountNumber: string }) => a.accountNumber)).toEqual(['3300']);
  });

  it('answers 404 for an unknown or wrongly cased template type', async () => {
    for (const type of ['generalBusiness', 'Nope']) {
      const res = await t.get(`/api/v1/account-templates/${type}`, { token: viewer.token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        _tag: 'AccountTemplateNotFoundError',
        message: expect.any(String),
        templateType: type,
      });
    }
  });

  it('applies a template: 201 with the result, then 409 when accounts exist', async () => {
    const c = await createCompany(admin.token, orgA);
    const res = await t.post('/api/v1/account-templates/Manufacturing/apply', {
      token: admin.token,
      body: { organizationId: orgA, companyId: c.id },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      templateType: 'Manufacturing',
      companyId: c.id,
      createdCount: 95,
      retainedEarningsAccountId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const company = await t.get(`/api/v1/organizations/${orgA}/companies/${c.id}`, { token: viewer.token });
    expect(company.body.retainedEarningsAccountId).toBe(res.body.retainedEarningsAccountId);
    const list = await t.get('/api/v1/accounts', {
      token: viewer.token,
      query: { organizationId: orgA, companyId: c.id, limit: 100 },
    });
    expect(list.body.total).toBe(95);
    const byNumber = new Map(list.body.accounts.map((a: { accountNumber: string }) => [a.accountNumber, a]));
    const re = byNumber.get('3300') as Record<string, unknown>;
    expect(re).toMatchObject({
      id: res.body.retainedEarningsAccountId,
      isRetainedEarnings: true,
      isActive: true,
    });
    for (const a of list.body.accounts) {
      expect(a.description).toBeNull();
      expect(a.intercompanyPartnerId).toBeNull();
      expect(a.isNonMonetary).toBe(false);
      if (a.parentAccountId) {
        const parent = list.body.accounts.find((p: { id: string }) => p.id === a.parentAccountId);
        expect(parent.accountType).toBe(a.accountType);
        expect(a.hierarchyLevel).toBe(parent.hierarchyLevel + 1);
      } else {
        expect(a.hierarchyLevel).toBe(1);
      }
    }
    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: orgA, entityId: c.id, action: 'ApplyTemplate' },
    });
    expect(audit.body.entries).toHaveLength(1);
    expect(audit.body.entries[0]).toMatchObject({ entityType: 'Company', userId: admin.id });

    const again = await t.post('/api/v1/account-templates/GeneralBusiness/apply', {
      token: admin.token,
      body: { organizationId: orgA, companyId: c.id },
    });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      _tag: 'AccountsAlreadyExistError',
      message: expect.any(String),
      companyId: c.id,
      accountCount: 95,
    });
  });

  it('creates the chart once when two applications race', async () => {
    const c = await createCompany(admin.token, orgA);
    const results = await Promise.all(
      [admin, owner].map((user) =>
        t.post('/api/v1/account-templates/GeneralBusiness/apply', {
          token: user.token,
          body: { organizationId: orgA, companyId: c.id },
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    const list = await t.get('/api/v1/accounts', {
      token: viewer.token,
      query: { organizationId: orgA, companyId: c.id, limit: 1 },
    });
    expect(list.body.total).toBe(78);
  });

  it('refuses a template on a company with one (inactive) account', async () => {
    const c = await createCompany(admin.token, orgA);
    const a = await createAccount(c.id);
    await t.put(accountUrl(orgA, a.id), { token: admin.token, body: { isActive: false } });
    const res = await t.post('/api/v1/account-templates/HoldingCompany/apply', {
      token: admin.token,
      body: { organizationId: orgA, companyId: c.id },
    });
    expect(res.status).toBe(409);
    expect(res.body.accountCount).toBe(1);
  });

  it('checks template, organization, role and company in order', async () => {
    const c = await createCompany(admin.token, orgA);
    const unknownTemplate = await t.post('/api/v1/account-templates/Nope/apply', {
      token: admin.token,
      body: {},
    });
    expect(unknownTemplate.status).toBe(404);
    expect(unknownTemplate.body._tag).toBe('AccountTemplateNotFoundError');
    const invalidBody = await t.post('/api/v1/account-templates/GeneralBusiness/apply', {
      token: admin.token,
      body: { organizationId: orgA },
    });
    expect(invalidBody.status).toBe(400);
    const missingOrg = await t.post('/api/v1/account-templates/GeneralBusiness/apply', {
      token: admin.token,
      body: { organizationId: uuidv4(), companyId: c.id },
    });
    expect(missingOrg.body._tag).toBe('OrganizationNotFoundError');
    const foreignOrg = await t.post('/api/v1/account-templates/GeneralBusiness/apply', {
      token: admin.token,
      body: { organizationId: orgB, companyId: c.id },
    });
    expect(foreignOrg.status).toBe(403);
    for (const user of [viewer, member]) {
      const res = await t.post('/api/v1/account-templates/GeneralBusiness/apply', {
        token: user.token,
        body: { organizationId: orgA, companyId: c.id },
      });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ action: 'account:manage', requiredRole: 'admin' });
    }
    const foreignCompany = await createCompany(outsider.token, orgB);
    const res = await t.post('/api/v1/account-templates/GeneralBusiness/apply', {
      token: admin.token,
      body: { organizationId: orgA, companyId: foreignCompany.id },
    });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ _tag: 'CompanyNotFoundError', companyId: foreignCompany.id });
    const ok = await t.post('/api/v1/account-templates/ServiceBusiness/apply', {
      token: owner.token,
      body: { organizationId: orgA, companyId: c.id },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.createdCount).toBe(80);
  });
});

describe('POST /api/v1/accounts', () => {
  let company: { id: string };
  beforeAll(async () => {
    company = await createCompany(admin.token, orgA);
  });

  it('creates an account with defaults and returns every field', async () => {
    const res = await t.post('/api/v1/accounts', {
      token: admin.token,
      body: {
        organizationId: orgA,
        companyId: company.id,
        accountNumber: '1010',
        name: '  Cash  ',
        description: '   ',
        accountType: 'Asset',
        accountCategory: 'CurrentAsset',
        normalBalance: 'Credit',
        hierarchyLevel: 7,
        isCashEquivalent: true,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      organizationId: orgA,
      companyId: company.id,
      accountNumber: '1010',
      name: 'Cash',
      description: null,
      accountType: 'Asset',
      accountCategory: 'CurrentAsset',
      normalBalance: 'Debit',
      parentAccountId: null,
      hierarchyLevel: 1,
      isPostable: true,
      isActive: true,
      isIntercompany: false,
      intercompanyPartnerId: null,
      cashFlowCategory: null,
      isCashEquivalent: true,
      isRetainedEarnings: false,
      isNonMonetary: false,
      createdAt: expect.any(String),
      updatedAt: res.body.createdAt,
      deactivatedAt: null,
    });
    const dup = await t.post('/api/v1/accounts', {
      token: admin.token,
      body: {
        organizationId: orgA,
        companyId: company.id,
        accountNumber: '1010',
        name: 'Again',
        accountType: 'Liability',
        accountCategory: 'CurrentLiability',
      },
    });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({
      _tag: 'AccountNumberAlreadyExistsError',
      message: expect.any(String),
      accountNumber: '1010',
      companyId: company.id,
    });
    // The same number is free in another company.
    const other = await createCompany(admin.token, orgA);
    await createAccount(other.id, { accountNumber: '1010' });
  });

  it('derives the normal balance from the type', async () => {
    const expected = {
      Asset: 'Debit',
      Expense: 'Debit',
      Liability: 'Credit',
      Equity: 'Credit',
      Revenue: 'Credit',
    };
    const categories = {
      Asset: 'FixedAsset',
      Expense: 'TaxExpense',
      Liability: 'NonCurrentLiability',
      Equity: 'TreasuryStock',
      Revenue: 'OtherRevenue',
    };
    for (const [type, balance] of Object.entries(expected)) {
      const a = await createAccount(company.id, {
        accountType: type,
        accountCategory: categories[type as keyof typeof categories],
      });
      expect(a.normalBalance).toBe(balance);
    }
  });

  it('validates the body and the cross-field rules', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ accountNumber: '0123' }, '/accountNumber'],
      [{ accountNumber: '123' }, '/accountNumber'],
      [{ accountNumber: '12345678901' }, '/accountNumber'],
      [{ accountNumber: 1234 }, '/accountNumber'],
      [{ name: '' }, '/name'],
      [{ accountType: 'asset' }, '/accountType'],
      [{ accountCategory: 'OperatingRevenue' }, '/accountCategory'],
      [{ intercompanyPartnerId: uuidv4() }, '/intercompanyPartnerId'],
      [
        { accountType: 'Revenue', accountCategory: 'OperatingRevenue', cashFlowCategory: 'Operating' },
        '/cashFlowCategory',
      ],
      [{ isCashEquivalent: true, cashFlowCategory: 'Operating' }, '/cashFlowCategory'],
      [{ accountCategory: 'FixedAsset', isCashEquivalent: true }, '/isCashEquivalent'],
      [
        { accountType: 'Equity', accountCategory: 'ContributedCapital', isNonMonetary: true },
        '/isNonMonetary',
      ],
      [{ isCashEquivalent: true, isNonMonetary: true }, '/isNonMonetary'],
      [{ cashFlowCategory: 'Other' }, '/cashFlowCategory'],
      [{ companyId: 'x' }, '/companyId'],
      [{ description: 'x'.repeat(2001) }, '/description'],
    ];
    for (const [patch, path] of cases) {
      const res = await t.post('/api/v1/accounts', {
        token: admin.token,
        body: {
          organizationId: orgA,
          companyId: company.id,
          accountNumber: '9999',
          name: 'X',
          accountType: 'Asset',
          accountCategory: 'CurrentAsset',
          ...patch,
        },
      });
      expect(res.status, JSON.stringify(patch)).toBe(400);
      expect(res.body._tag).toBe('ValidationError');
      expect(
        res.body.issues.map((i: { path: string }) => i.path),
        JSON.stringify(patch),
      ).toContain(path);
    }
    const self = await t.post('/api/v1/accounts', {
      token: admin.token,
      body: {
        organizationId: orgA,
        companyId: company.id,
        accountNumber: '9999',
        name: 'X',
        accountType: 'Asset',
        accountCategory: 'CurrentAsset',
        isIntercompany: true,
        intercompanyPartnerId: company.id,
      },
    });
    expect(self.status).toBe(400);
    expect(self.body.issues[0].path).toBe('/intercompanyPartnerId');
  });

  it('checks company, parent, retained earnings, depth and partner', async () => {
    const base = {
      organizationId: orgA,
      companyId: company.id,
      name: 'X',
      accountType: 'Asset',
      accountCategory: 'CurrentAsset',
    };
    const post = (body: Record<string, unknown>) =>
      t.post('/api/v1/accounts', {
        token: admin.token,
        body: { ...base, accountNumber: nextNumber(), ...body },
      });

    const foreignCompany = await createCompany(outsider.token, orgB);
    let res = await post({ companyId: foreignCompany.id });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ _tag: 'CompanyNotFoundError', companyId: foreignCompany.id });

    const missingParent = uuidv4();
    res = await post({ parentAccountId: missingParent });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      _tag: 'ParentAccountNotFoundError',
      message: expect.any(String),
      parentAccountId: missingParent,
    });

    const otherCompany = await createCompany(admin.token, orgA);
    const otherParent = await createAccount(otherCompany.id);
    res = await post({ parentAccountId: otherParent.id });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      _tag: 'ParentAccountDifferentCompanyError',
      message: expect.any(String),
      accountCompanyId: company.id,
      parentAccountCompanyId: otherCompany.id,
    });

    const liability = await createAccount(company.id, {
      accountType: 'Liability',
      accountCategory: 'CurrentLiability',
    });
    res = await post({ parentAccountId: liability.id });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      _tag: 'AccountTypeMismatchError',
      message: expect.any(String),
      accountType: 'Asset',
      parentAccountId: liability.id,
      parentAccountType: 'Liability',
    });

    for (const patch of [
      { accountType: 'Equity', accountCategory: 'ContributedCapital' },
      { accountType: 'Equity', accountCategory: 'RetainedEarnings', isPostable: false },
    ]) {
      res = await post({ ...patch, isRetainedEarnings: true });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        _tag: 'InvalidRetainedEarningsAccountError',
        message: expect.any(String),
        accountId: null,
        accountType: 'Equity',
        accountCategory: patch.accountCategory,
      });
    }

    // A chain of 10 levels is allowed; the 11th is refused.
    let parent = await createAccount(company.id);
    for (let level = 2; level <= 10; level++) {
      parent = await createAccount(company.id, { parentAccountId: parent.id });
      expect(parent.hierarchyLevel).toBe(level);
    }
    res = await post({ parentAccountId: parent.id });
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe('ValidationError');
    expect(res.body.issues[0].path).toBe('/parentAccountId');

    const missingPartner = uuidv4();
    res = await post({ isIntercompany: true, intercompanyPartnerId: missingPartner });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ _tag: 'CompanyNotFoundError', companyId: missingPartner });
    res = await post({ isIntercompany: true, intercompanyPartnerId: foreignCompany.id });
    expect(res.status).toBe(404);
    const partnered = await createAccount(company.id, {
      isIntercompany: true,
      intercompanyPartnerId: otherCompany.id,
    });
    expect(partnered).toMatchObject({ isIntercompany: true, intercompanyPartnerId: otherCompany.id });
  });

  it('makes a new account the retained-earnings account and moves the flag', async () => {
    const c = await createCompany(admin.token, orgA);
    const first = await createAccount(c.id, {
      accountType: 'Equity',
      accountCategory: 'RetainedEarnings',
      isRetainedEarnings: true,
    });
    expect(first.isRetainedEarnings).toBe(true);
    const second = await createAccount(c.id, {
      accountType: 'Equity',
      accountCategory: 'RetainedEarnings',
      isRetainedEarnings: true,
    });
    expect(second.isRetainedEarnings).toBe(true);
    expect((await t.get(accountUrl(orgA, first.id), { token: viewer.token })).body.isRetainedEarnings).toBe(
      false,
    );
    const company = await t.get(`/api/v1/organizations/${orgA}/companies/${c.id}`, { token: viewer.token });
    expect(company.body.retainedEarningsAccountId).toBe(second.id);
  });

  it('applies the role matrix and organization checks', async () => {
    for (const [user, role] of [
      [viewer, 'viewer'],
      [member, 'member'],
    ] as const) {
      const res = await t.post('/api/v1/accounts', {
        token: user.token,
        body: {
          organizationId: orgA,
          companyId: company.id,
          accountNumber: nextNumber(),
          name: 'X',
          accountType: 'Asset',
          accountCategory: 'CurrentAsset',
        },
      });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        resource: 'Account',
        action: 'account:manage',
        requiredRole: 'admin',
        currentRole: role,
      });
    }
    await createAccount(company.id, {}, owner.token);
    const foreign = await t.post('/api/v1/accounts', {
      token: admin.token,
      body: {
        organizationId: orgB,
        companyId: company.id,
        accountNumber: nextNumber(),
        name: 'X',
        accountType: 'Asset',
        accountCategory: 'CurrentAsset',
      },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.currentRole).toBeNull();
    const missing = await t.post('/api/v1/accounts', {
      token: admin.token,
      body: {
        organizationId: uuidv4(),
        companyId: company.id,
        accountNumber: nextNumber(),
        name: 'X',
        accountType: 'Asset',
        accountCategory: 'CurrentAsset',
      },
    });
    expect(missing.body._tag).toBe('OrganizationNotFoundError');
  });
});

describe('GET /api/v1/accounts and GET by id', () => {
  let company: { id: string };
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    company = await createCompany(admin.token, orgA);
    const parent = await createAccount(company.id, {
      accountNumber: '2000',
      accountType: 'Liability',
      accountCategory: 'CurrentLiability',
      isPostable: false,
    });
    ids.parent = parent.id;
    ids.child = (
      await createAccount(company.id, {
        accountNumber: '10000',
        accountType: 'Liability',
        accountCategory: 'CurrentLiability',
        parentAccountId: parent.id,
      })
    ).id;
    ids.ic = (
      await createAccount(company.id, {
        accountNumber: '1500',
        accountType: 'Asset',
        accountCategory: 'CurrentAsset',
        isIntercompany: true,
      })
    ).id;
    ids.rev = (
      await createAccount(company.id, {
        accountNumber: '400000',
        accountType: 'Revenue',
        accountCategory: 'OperatingRevenue',
      })
    ).id;
    await t.put(accountUrl(orgA, ids.rev!), { token: admin.token, body: { isActive: false } });
  });

  it('orders by account number numerically', async () => {
    const res = await t.get('/api/v1/accounts', {
      token: viewer.token,
      query: { organizationId: orgA, companyId: company.id },
    });
    expect(res.status).toBe(200);
    expect(res.body.accounts.map((a: { accountNumber: string }) => a.accountNumber)).toEqual([
      '1500',
      '2000',
      '10000',
      '400000',
    ]);
    expect(res.body).toMatchObject({ total: 4, limit: 50, offset: 0 });
    const page = await t.get('/api/v1/accounts', {
      token: viewer.token,
      query: { organizationId: orgA, companyId: company.id, limit: 2, offset: 2 },
    });
    expect(page.body.accounts.map((a: { accountNumber: string }) => a.accountNumber)).toEqual([
      '10000',
      '400000',
    ]);
  });

  it('applies every filter', async () => {
    const q = async (query: Record<string, string | boolean>) =>
      (
        await t.get('/api/v1/accounts', {
          token: viewer.token,
          query: { organizationId: orgA, companyId: company.id, ...query },
        })
      ).body.accounts.map((a: { accountNumber: string }) => a.accountNumber);
    expect(await q({ accountType: 'Liability' })).toEqual(['2000', '10000']);
    expect(await q({ accountCategory: 'OperatingRevenue' })).toEqual(['400000']);
    expect(await q({ isActive: false })).toEqual(['400000']);
    expect(await q({ isPostable: false })).toEqual(['2000']);
    expect(await q({ isIntercompany: true })).toEqual(['1500']);
    expect(await q({ parentAccountId: ids.parent! })).toEqual(['10000']);
    expect(await q({ accountType: 'Liability', isPostable: true })).toEqual(['10000']);
    expect(await q({ parentAccountId: uuidv4() })).toEqual([]);
  });

  it('validates the query and checks organization and company', async () => {
    for (const query of [
      { organizationId: orgA },
      { organizationId: orgA, companyId: company.id, accountType: 'asset' },
      { organizationId: orgA, companyId: company.id, isActive: 'TRUE' },
      { organizationId: orgA, companyId: company.id, parentAccountId: 'x' },
    ]) {
      expect(
        (await t.get('/api/v1/accounts', { token: viewer.token, query })).status,
        JSON.stringify(query),
      ).toBe(400);
    }
    const foreignCompany = await createCompany(outsider.token, orgB);
    const res = await t.get('/api/v1/accounts', {
      token: viewer.token,
      query: { organizationId: orgA, companyId: foreignCompany.id },
    });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ _tag: 'CompanyNotFoundError', companyId: foreignCompany.id });
    const forbidden = await t.get('/api/v1/accounts', {
      token: viewer.token,
      query: { organizationId: orgB, companyId: foreignCompany.id },
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ action: 'account:read', currentRole: null });
    const missing = await t.get('/api/v1/accounts', {
      token: viewer.token,
      query: { organizationId: uuidv4(), companyId: company.id },
    });
    expect(missing.body._tag).toBe('OrganizationNotFoundError');
  });

  it('gets an account; 404 for unknown, malformed and foreign ids; 403 for non-members', async () => {
    for (const user of [viewer, member, admin, owner]) {
      const res = await t.get(accountUrl(orgA, ids.child!), { token: user.token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: ids.child,
        parentAccountId: ids.parent,
        hierarchyLevel: 2,
        normalBalance: 'Credit',
      });
    }
    const missing = uuidv4();
    const notFound = await t.get(accountUrl(orgA, missing), { token: viewer.token });
    expect(notFound.status).toBe(404);
    expect(notFound.body).toEqual({
      _tag: 'AccountNotFoundError',
      message: expect.any(String),
      accountId: missing,
    });
    expect((await t.get(accountUrl(orgA, 'zzz'), { token: viewer.token })).body).toMatchObject({
      _tag: 'AccountNotFoundError',
      accountId: 'zzz',
    });
    const foreignCompany = await createCompany(outsider.token, orgB);
    const foreign = await createAccount(foreignCompany.id, {}, outsider.token, orgB);
    expect((await t.get(accountUrl(orgA, foreign.id), { token: viewer.token })).status).toBe(404);
    const theirs = await t.get(accountUrl(orgB, foreign.id), { token: viewer.token });
    expect(theirs.status).toBe(403);
    expect(theirs.body).toMatchObject({ _tag: 'ForbiddenError', currentRole: null });
    expect((await t.get(accountUrl(uuidv4(), foreign.id), { token: viewer.token })).body._tag).toBe(
      'OrganizationNotFoundError',
    );
  });
});

describe('PUT /api/v1/accounts/organizations/{organizationId}/accounts/{id}', () => {
  let company: { id: string };
  beforeAll(async () => {
    company = await createCompany(admin.token, orgA);
  });
  const put = (id: string, body: Record<string, unknown>, token = admin.token) =>
    t.put(accountUrl(orgA, id), { token, body });

  it('updates the fields sent with PUT semantics', async () => {
    const a = await createAccount(company.id, {
      description: 'D',
      isPostable: false,
      cashFlowCategory: 'Operating',
      isNonMonetary: true,
    });
    let res = await put(a.id, {
      name: ' Renamed ',
      description: null,
      isPostable: null,
      cashFlowCategory: null,
      isNonMonetary: null,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Renamed',
      description: null,
      isPostable: true,
      cashFlowCategory: null,
      isNonMonetary: false,
      accountNumber: a.accountNumber,
    });
    // Immutable fields with their current values are accepted; read-only keys are ignored.
    res = await put(a.id, {
      companyId: company.id,
      organizationId: orgA,
      accountNumber: a.accountNumber,
      accountType: 'Asset',
      accountCategory: 'CurrentAsset',
      normalBalance: 'Credit',
      hierarchyLevel: 4,
    });
    expect(res.status).toBe(200);
    expect(res.body.hierarchyLevel).toBe(1);
    const unchanged = await put(a.id, { name: 'Renamed' });
    expect(unchanged.body.updatedAt).toBe(res.body.updatedAt);
  });

  it('refuses different immutable values and null for name', async () => {
    const a = await createAccount(company.id);
    for (const [body, path] of [
      [{ accountNumber: '8888' }, '/accountNumber'],
      [{ accountType: 'Liability' }, '/accountType'],
      [{ accountCategory: 'FixedAsset' }, '/accountCategory'],
      [{ companyId: uuidv4() }, '/companyId'],
      [{ organizationId: orgB }, '/organizationId'],
      [{ name: null }, '/name'],
      [{ cashFlowCategory: 'Operating', isCashEquivalent: true }, '/cashFlowCategory'],
      [{ intercompanyPartnerId: company.id }, '/intercompanyPartnerId'],
    ] as const) {
      const res = await put(a.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body._tag).toBe('ValidationError');
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
  });

  it('re-parents and recomputes the hierarchy level of the account and its descendants', async () => {
    const root = await createAccount(company.id);
    const a = await createAccount(company.id);
    const b = await createAccount(company.id, { parentAccountId: a.id });
    const c = await createAccount(company.id, { parentAccountId: b.id });
    let res = await put(a.id, { parentAccountId: root.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ parentAccountId: root.id, hierarchyLevel: 2 });
    expect((await t.get(accountUrl(orgA, b.id), { token: viewer.token })).body.hierarchyLevel).toBe(3);
    expect((await t.get(accountUrl(orgA, c.id), { token: viewer.token })).body.hierarchyLevel).toBe(4);
    res = await put(a.id, { parentAccountId: null });
    expect(res.body).toMatchObject({ parentAccountId: null, hierarchyLevel: 1 });
    expect((await t.get(accountUrl(orgA, c.id), { token: viewer.token })).body.hierarchyLevel).toBe(3);

    for (const target of [a, c]) {
      const cyc = await put(a.id, { parentAccountId: target.id });
      expect(cyc.status).toBe(400);
      expect(cyc.body).toEqual({
        _tag: 'CircularAccountReferenceError',
        message: expect.any(String),
        accountId: a.id,
        parentAccountId: target.id,
      });
    }
    const liability = await createAccount(company.id, {
      accountType: 'Liability',
      accountCategory: 'CurrentLiability',
    });
    expect((await put(a.id, { parentAccountId: liability.id })).body._tag).toBe('AccountTypeMismatchError');
    const missing = uuidv4();
    expect((await put(a.id, { parentAccountId: missing })).body).toMatchObject({
      _tag: 'ParentAccountNotFoundError',
      parentAccountId: missing,
    });
    const other = await createCompany(admin.token, orgA);
    const otherAcc = await createAccount(other.id);
    expect((await put(a.id, { parentAccountId: otherAcc.id })).body._tag).toBe(
      'ParentAccountDifferentCompanyError',
    );

    // Depth: the subtree a > b > c under a chain of 7 levels puts c at level 10 (7 + 3) — allowed;
    // under a chain of 8 levels c would be at level 11 — refused.
    let chain = await createAccount(company.id);
    for (let i = 2; i <= 7; i++) chain = await createAccount(company.id, { parentAccountId: chain.id });
    expect((await put(a.id, { parentAccountId: chain.id })).status).toBe(200);
    expect((await t.get(accountUrl(orgA, c.id), { token: viewer.token })).body.hierarchyLevel).toBe(10);
    const deeper = await createAccount(company.id, { parentAccountId: chain.id });
    const tooDeep = await put(a.id, { parentAccountId: deeper.id });
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body._tag).toBe('ValidationError');
  });

  it('deactivates and reactivates, refusing while active children exist', async () => {
    const parent = await createAccount(company.id);
    const child = await createAccount(company.id, { parentAccountId: parent.id });
    const refused = await put(parent.id, { isActive: false });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      _tag: 'HasActiveChildAccountsError',
      message: expect.any(String),
      accountId: parent.id,
      childCount: 1,
    });
    const c = await put(child.id, { isActive: false });
    expect(c.body.isActive).toBe(false);
    expect(c.body.deactivatedAt).toMatch(/Z$/);
    const p = await put(parent.id, { isActive: false });
    expect(p.status).toBe(200);
    const back = await put(parent.id, { isActive: null });
    expect(back.body).toMatchObject({ isActive: true, deactivatedAt: null });
  });

  it('moves, clears and protects the retained-earnings flag', async () => {
    const c = await createCompany(admin.token, orgA, { accountTemplate: 'GeneralBusiness' });
    const re = c.retainedEarningsAccountId as string;
    const other = await createAccount(c.id, { accountType: 'Equity', accountCategory: 'RetainedEarnings' });
    const capital = await createAccount(c.id, {
      accountType: 'Equity',
      accountCategory: 'ContributedCapital',
    });

    for (const body of [
      { isActive: false },
      { isPostable: false },
      { isRetainedEarnings: true, isActive: false },
    ]) {
      const res = await put(re, body);
      expect(res.status, JSON.stringify(body)).toBe(409);
      expect(res.body).toEqual({
        _tag: 'AccountInUseError',
        message: expect.any(String),
        accountId: re,
        reason: 'RetainedEarningsAccount',
      });
    }
    const wrong = await put(capital.id, { isRetainedEarnings: true });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({
      _tag: 'InvalidRetainedEarningsAccountError',
      message: expect.any(String),
      accountId: capital.id,
      accountType: 'Equity',
      accountCategory: 'ContributedCapital',
    });
    const notPostable = await put(other.id, { isRetainedEarnings: true, isPostable: false });
    expect(notPostable.body._tag).toBe('InvalidRetainedEarningsAccountError');

    const moved = await put(other.id, { isRetainedEarnings: true });
    expect(moved.status).toBe(200);
    expect(moved.body.isRetainedEarnings).toBe(true);
    expect((await t.get(accountUrl(orgA, re), { token: viewer.token })).body.isRetainedEarnings).toBe(false);
    let company = await t.get(`/api/v1/organizations/${orgA}/companies/${c.id}`, { token: viewer.token });
    expect(company.body.retainedEarningsAccountId).toBe(other.id);

    // The previous account may now be deactivated.
    expect((await put(re, { isActive: false })).status).toBe(200);

    const cleared = await put(other.id, { isRetainedEarnings: null });
    expect(cleared.body.isRetainedEarnings).toBe(false);
    company = await t.get(`/api/v1/organizations/${orgA}/companies/${c.id}`, { token: viewer.token });
    expect(company.body.retainedEarningsAccountId).toBeNull();
    // false on a non-retained-earnings account changes nothing.
    const noop = await put(capital.id, { isRetainedEarnings: false });
    expect(noop.body.updatedAt).toBe(capital.updatedAt);
  });

  it('manages the intercompany flag and partner', async () => {
    const partner = await createCompany(admin.token, orgA);
    const a = await createAccount(company.id);
    let res = await put(a.id, { isIntercompany: true, intercompanyPartnerId: partner.id });
    expect(res.body).toMatchObject({ isIntercompany: true, intercompanyPartnerId: partner.id });
    const missing = uuidv4();
    res = await put(a.id, { intercompanyPartnerId: missing });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ _tag: 'CompanyNotFoundError', companyId: missing });
    res = await put(a.id, { isIntercompany: false });
    expect(res.body).toMatchObject({ isIntercompany: false, intercompanyPartnerId: null });
    res = await put(a.id, { isIntercompany: false, intercompanyPartnerId: partner.id });
    expect(res.status).toBe(400);
  });

  it('applies the role matrix and tenant isolation', async () => {
    const a = await createAccount(company.id);
    for (const user of [viewer, member]) {
      const res = await put(a.id, { name: 'x' }, user.token);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ action: 'account:manage', requiredRole: 'admin' });
    }
    expect((await put(a.id, { name: 'by owner' }, owner.token)).status).toBe(200);
    const foreignCompany = await createCompany(outsider.token, orgB);
    const foreign = await createAccount(foreignCompany.id, {}, outsider.token, orgB);
    expect((await put(foreign.id, { name: 'x' })).status).toBe(404);
    const theirs = await t.put(accountUrl(orgB, foreign.id), { token: admin.token, body: { name: 'x' } });
    expect(theirs.status).toBe(403);
    expect((await t.get(accountUrl(orgB, foreign.id), { token: outsider.token })).body.name).toBe('Account');
    expect((await put(uuidv4(), { name: 'x' })).body._tag).toBe('AccountNotFoundError');
  });
});

describe('DELETE /api/v1/accounts/organizations/{organizationId}/accounts/{id}', () => {
  it('deletes an unused account and reports the first reason an account is in use', async () => {
    const c = await createCompany(admin.token, orgA, { accountTemplate: 'GeneralBusiness' });
    const accounts = (
      await t.get('/api/v1/accounts', {
        token: viewer.token,
        query: { organizationId: orgA, companyId: c.id, limit: 100 },
      })
    ).body.accounts as { id: string; accountNumber: string }[];
    const byNumber = (n: string) => accounts.find((a) => a.accountNumber === n)!.id;

    let res = await t.del(accountUrl(orgA, c.retainedEarningsAccountId), { token: admin.token });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      _tag: 'AccountInUseError',
      message: expect.any(String),
      accountId: c.retainedEarningsAccountId,
      reason: 'RetainedEarningsAccount',
    });
    res = await t.del(accountUrl(orgA, byNumber('1000')), { token: admin.token });
    expect(res.body).toMatchObject({ reason: 'ChildAccounts' });

    const db = t.database.db;
    const entryId = uuidv4();
    await db.execute(sql`
      insert into journal_entries (id, organization_id, company_id, entry_number, description, transaction_date,
        fiscal_year, fiscal_period, status, total_debits, total_credits, created_by)
      values (${entryId}, ${orgA}, ${c.id}, 1, 'x', '2026-01-01', 2026, 1, 'Draft', 0, 0, ${admin.id})`);
    await db.execute(sql`
      insert into journal_lines (id, organization_id, journal_entry_id, company_id, line_number, account_id, currency,
        debit_amount, exchange_rate)
      values (${uuidv4()}, ${orgA}, ${entryId}, ${c.id}, 1, ${byNumber('1010')}, 'USD', 10, 1)`);
    res = await t.del(accountUrl(orgA, byNumber('1010')), { token: admin.token });
    expect(res.body).toMatchObject({ reason: 'JournalEntryLines', accountId: byNumber('1010') });

    const groupId = uuidv4();
    await db.execute(sql`
      insert into consolidation_groups (id, organization_id, name, name_key, reporting_currency, consolidation_method,
        parent_company_id)
      values (${groupId}, ${orgA}, 'G', ${uniq('g')}, 'USD', 'FullConsolidation', ${c.id})`);
    await db.execute(sql`
      insert into elimination_rules (id, organization_id, group_id, name, elimination_type, trigger_conditions,
        source_accounts, target_accounts, debit_account_id, credit_account_id, is_automatic, priority)
      values (${uuidv4()}, ${orgA}, ${groupId}, 'R', 'IntercompanyReceivablePayable', '[]', '[]', '[]',
        ${byNumber('1020')}, ${byNumber('1030')}, true, 1)`);
    for (const n of ['1020', '1030']) {
      res = await t.del(accountUrl(orgA, byNumber(n)), { token: admin.token });
      expect(res.body).toMatchObject({ reason: 'EliminationRules' });
    }

    const unused = byNumber('1110');
    for (const user of [viewer, member]) {
      expect((await t.del(accountUrl(orgA, unused), { token: user.token })).status).toBe(403);
    }
    res = await t.del(accountUrl(orgA, unused), { token: admin.token });
    expect(res.status).toBe(204);
    expect((await t.get(accountUrl(orgA, unused), { token: viewer.token })).status).toBe(404);
    res = await t.del(accountUrl(orgA, unused), { token: admin.token });
    expect(res.status).toBe(404);
    expect(res.body._tag).toBe('AccountNotFoundError');
    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: orgA, entityId: unused, action: 'Delete' },
    });
    expect(audit.body.entries).toHaveLength(1);
    expect(audit.body.entries[0].changes).toBeNull();
  });

  it('refuses other organizations\u2019 accounts', async () => {
    const foreignCompany = await createCompany(outsider.token, orgB);
    const foreign = await createAccount(foreignCompany.id, {}, outsider.token, orgB);
    expect((await t.del(accountUrl(orgA, foreign.id), { token: admin.token })).status).toBe(404);
    expect((await t.del(accountUrl(orgB, foreign.id), { token: admin.token })).status).toBe(403);
    expect((await t.get(accountUrl(orgB, foreign.id), { token: outsider.token })).status).toBe(200);
    const c = await createCompany(owner.token, orgA);
    const mine = await createAccount(c.id, {}, owner.token);
    expect((await t.del(accountUrl(orgA, mine.id), { token: owner.token })).status).toBe(204);
  });
});
