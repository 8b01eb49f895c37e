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

const base = (orgId: string, companyId: string) => `/api/v1/organizations/${orgId}/companies/${companyId}`;

async function createCompany(token: string, organizationId: string, fiscalYearEnd = { month: 12, day: 31 }) {
  const res = await t.post('/api/v1/companies', {
    token,
    body: {
      organizationId,
      name: uniq('Company'),
      legalName: 'Company Ltd',
      jurisdiction: 'US',
      functionalCurrency: 'USD',
      reportingCurrency: 'USD',
      fiscalYearEnd,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function createYear(orgId: string, companyId: string, year: number, token = admin.token) {
  const res = await t.post(`${base(orgId, companyId)}/fiscal-years`, { token, body: { year } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

let entrySeq = 1;
async function insertEntry(companyId: string, year: number, period: number, status: string) {
  await t.database.db.execute(sql`
    insert into journal_entries (id, organization_id, company_id, entry_number, description, transaction_date,
      fiscal_year, fiscal_period, status, total_debits, total_credits, created_by)
    values (${uuidv4()}, ${orgA}, ${companyId}, ${entrySeq++}, 'x', '2026-01-15', ${year}, ${period}, ${status},
      0, 0, ${admin.id})`);
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

describe('POST …/fiscal-years', () => {
  it('creates a year with 13 open periods following the company calendar', async () => {
    const c = await createCompany(admin.token, orgA, { month: 6, day: 30 });
    const res = await t.post(`${base(orgA, c.id)}/fiscal-years`, {
      token: admin.token,
      body: { year: 2026 },
    });
    expect(res.status).toBe(201);
    const fy = res.body;
    expect(fy).toMatchObject({
      organizationId: orgA,
      companyId: c.id,
      name: 'FY 2026',
      year: 2026,
      startDate: '2025-07-01',
      endDate: '2026-06-30',
      status: 'Open',
      includesAdjustmentPeriod: true,
      closedBy: null,
      closedAt: null,
    });
    expect(fy.periods).toHaveLength(13);
    expect(fy.periods[0]).toEqual({
      id: expect.any(String),
      fiscalYearId: fy.id,
      companyId: c.id,
      fiscalYear: 2026,
      periodNumber: 1,
      name: 'Period 1',
      periodType: 'Regular',
      startDate: '2025-07-01',
      endDate: '2025-07-31',
      status: 'Open',
      closedBy: null,
      closedAt: null,
      unpostedEntryCount: 0,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(fy.periods[11]).toMatchObject({
      periodNumber: 12,
      startDate: '2026-06-01',
      endDate: '2026-06-30',
    });
    expect(fy.periods[12]).toMatchObject({
      periodNumber: 13,
      name: 'Period 13 (Adjustment)',
      periodType: 'Adjustment',
      startDate: '2026-06-30',
      endDate: '2026-06-30',
    });
    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: orgA, entityId: fy.id },
    });
    expect(
      audit.body.entries.map((e: { action: string; entityType: string }) => [e.action, e.entityType]),
    ).toEqual([['Create', 'FiscalYear']]);
  });

  it('accepts an explicit name and matching dates, refuses other dates and duplicates', async () => {
    const c = await createCompany(admin.token, orgA, { month: 3, day: 15 });
    const url = `${base(orgA, c.id)}/fiscal-years`;
    const wrong = await t.post(url, {
      token: admin.token,
      body: { year: 2026, startDate: '2025-03-15', endDate: '2026-03-14' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.issues.map((i: { path: string }) => i.path).sort()).toEqual(['/endDate', '/startDate']);
    const ok = await t.post(url, {
      token: admin.token,
      body: { year: 2026, name: ' Year 26 ', startDate: '2025-03-16', endDate: '2026-03-15' },
    });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ name: 'Year 26', startDate: '2025-03-16', endDate: '2026-03-15' });
    expect(ok.body.periods[0]).toMatchObject({ startDate: '2025-03-16', endDate: '2025-03-31' });
    expect(ok.body.periods[11]).toMatchObject({ startDate: '2026-02-01', endDate: '2026-03-15' });
    const dup = await t.post(url, { token: admin.token, body: { year: 2026 } });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({
      _tag: 'FiscalYearAlreadyExistsError',
      message: expect.any(String),
      companyId: c.id,
      year: 2026,
    });
    const nullName = await t.post(url, { token: admin.token, body: { year: 2027, name: null } });
    expect(nullName.body.name).toBe('FY 2027');
    for (const body of [
      {},
      { year: 1899 },
      { year: 3000 },
      { year: '2026' },
      { year: 2028, name: 'x'.repeat(101) },
    ]) {
      const res = await t.post(url, { token: admin.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('applies the role matrix and organization/company checks', async () => {
    const c = await createCompany(admin.token, orgA);
    for (const [user, role] of [
      [viewer, 'viewer'],
      [member, 'member'],
    ] as const) {
      const res = await t.post(`${base(orgA, c.id)}/fiscal-years`, {
        token: user.token,
        body: { year: 2026 },
      });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        action: 'fiscal_period:manage',
        requiredRole: 'admin',
        currentRole: role,
      });
    }
    await createYear(orgA, c.id, 2026, owner.token);
    const foreign = await createCompany(outsider.token, orgB);
    const underOwn = await t.post(`${base(orgA, foreign.id)}/fiscal-years`, {
      token: admin.token,
      body: { year: 2026 },
    });
    expect(underOwn.status).toBe(404);
    expect(underOwn.body).toMatchObject({ _tag: 'CompanyNotFoundError', companyId: foreign.id });
    const underTheirs = await t.post(`${base(orgB, foreign.id)}/fiscal-years`, {
      token: admin.token,
      body: { year: 2026 },
    });
    expect(underTheirs.status).toBe(403);
    const missingOrg = await t.post(`${base(uuidv4(), c.id)}/fiscal-years`, {
      token: admin.token,
      body: { year: 2026 },
    });
    expect(missingOrg.body._tag).toBe('OrganizationNotFoundError');
    const badCompany = await t.post(`${base(orgA, 'nope')}/fiscal-years`, {
      token: admin.token,
      body: { year: 2026 },
    });
    expect(badCompany.body).toMatchObject({ _tag: 'CompanyNotFoundError', companyId: 'nope' });
  });
});

describe('fiscal years and periods: reads', () => {
  let company: { id: string };
  let fy2025: { id: string; periods: { id: string }[] };
  let fy2026: { id: string; periods: { id: string; periodNumber: number }[] };
  beforeAll(async () => {
    company = await createCompany(admin.token, orgA);
    fy2025 = await createYear(orgA, company.id, 2025);
    fy2026 = await createYear(orgA, company.id, 2026);
    await createYear(orgA, company.id, 2024);
  });

  it('lists years by year descending, with status filter and pagination', async () => {
    const url = `${base(orgA, company.id)}/fiscal-years`;
    const res = await t.get(url, { token: viewer.token });
    expect(res.status).toBe(200);
    expect(res.body.fiscalYears.map((y: { year: number }) => y.year)).toEqual([2026, 2025, 2024]);
    expect(res.body).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(res.body.fiscalYears.every((y: { periods: unknown[] }) => y.periods.length === 13)).toBe(true);
    const page = await t.get(url, { token: viewer.token, query: { limit: 1, offset: 1 } });
    expect(page.body.fiscalYears.map((y: { year: number }) => y.year)).toEqual([2025]);
    expect(page.body.total).toBe(3);
    await t.database.db.execute(sql`update fiscal_years set status = 'Closed' where id = ${fy2025.id}`);
    const closed = await t.get(url, { token: viewer.token, query: { status: 'Closed' } });
    expect(closed.body.fiscalYears.map((y: { year: number }) => y.year)).toEqual([2025]);
    const open = await t.get(url, { token: viewer.token, query: { status: 'Open' } });
    expect(open.body.total).toBe(2);
    await t.database.db.execute(sql`update fiscal_years set status = 'Open' where id = ${fy2025.id}`);
    expect((await t.get(url, { token: viewer.token, query: { status: 'open' } })).status).toBe(400);
  });

  it('gets a year and a period, counting unposted entries when read', async () => {
    await insertEntry(company.id, 2026, 1, 'Draft');
    await insertEntry(company.id, 2026, 1, 'Approved');
    await insertEntry(company.id, 2026, 1, 'Posted');
    await insertEntry(company.id, 2026, 13, 'PendingApproval');
    const res = await t.get(`${base(orgA, company.id)}/fiscal-years/${fy2026.id}`, { token: viewer.token });
    expect(res.status).toBe(200);
    expect(res.body.periods.map((p: { unpostedEntryCount: number }) => p.unpostedEntryCount)).toEqual([
      2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
    ]);
    const p1 = fy2026.periods[0]!;
    const period = await t.get(`${base(orgA, company.id)}/fiscal-years/${fy2026.id}/periods/${p1.id}`, {
      token: member.token,
    });
    expect(period.status).toBe(200);
    expect(period.body).toMatchObject({
      id: p1.id,
      periodNumber: 1,
      unpostedEntryCount: 2,
      startDate: '2026-01-01',
    });
  });

  it('lists periods ordered by number, with status filter and pagination', async () => {
    const url = `${base(orgA, company.id)}/fiscal-years/${fy2026.id}/periods`;
    const res = await t.get(url, { token: viewer.token });
    expect(res.body.periods.map((p: { periodNumber: number }) => p.periodNumber)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
    ]);
    expect(res.body.total).toBe(13);
    const page = await t.get(url, { token: viewer.token, query: { limit: 5, offset: 10 } });
    expect(page.body.periods.map((p: { periodNumber: number }) => p.periodNumber)).toEqual([11, 12, 13]);
    const closed = await t.get(url, { token: viewer.token, query: { status: 'Closed' } });
    expect(closed.body).toMatchObject({ periods: [], total: 0 });
  });

  it('answers the 404s of 3.6.4', async () => {
    const b = base(orgA, company.id);
    const missing = uuidv4();
    let res = await t.get(`${b}/fiscal-years/${missing}`, { token: viewer.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      _tag: 'FiscalYearNotFoundError',
      message: expect.any(String),
      fiscalYearId: missing,
    });
    res = await t.get(`${b}/fiscal-years/abc/periods`, { token: viewer.token });
    expect(res.body).toMatchObject({ _tag: 'FiscalYearNotFoundError', fiscalYearId: 'abc' });
    // A year of another company of the same organization.
    const other = await createCompany(admin.token, orgA);
    const otherYear = await createYear(orgA, other.id, 2026);
    res = await t.get(`${b}/fiscal-years/${otherYear.id}`, { token: viewer.token });
    expect(res.status).toBe(404);
    // A period of another year.
    res = await t.get(`${b}/fiscal-years/${fy2026.id}/periods/${fy2025.periods[0]!.id}`, {
      token: viewer.token,
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      _tag: 'FiscalPeriodNotFoundError',
      message: expect.any(String),
      fiscalPeriodId: fy2025.periods[0]!.id,
    });
    res = await t.get(`${b}/fiscal-years/${fy2026.id}/periods/xyz`, { token: viewer.token });
    expect(res.body).toMatchObject({ _tag: 'FiscalPeriodNotFoundError', fiscalPeriodId: 'xyz' });
    res = await t.post(`${b}/fiscal-years/${fy2026.id}/periods/${uuidv4()}/close`, { token: admin.token });
    expect(res.body._tag).toBe('FiscalPeriodNotFoundError');
  });

  it('isolates tenants on every read', async () => {
    const foreign = await createCompany(outsider.token, orgB);
    const foreignYear = await createYear(orgB, foreign.id, 2026, outsider.token);
    const fp = foreignYear.periods[0].id;
    const paths = [
      '/fiscal-years',
      `/fiscal-years/${foreignYear.id}`,
      `/fiscal-years/${foreignYear.id}/periods`,
      `/fiscal-years/${foreignYear.id}/periods/${fp}`,
      `/fiscal-years/${foreignYear.id}/periods/${fp}/reopen-history`,
      '/period-status?date=2026-01-01',
      '/fiscal-periods/summary',
    ];
    for (const p of paths) {
      const theirs = await t.get(`${base(orgB, foreign.id)}${p}`, { token: viewer.token });
      expect(theirs.status, p).toBe(403);
      expect(theirs.body).toMatchObject({
        _tag: 'ForbiddenError',
        action: 'fiscal_period:read',
        currentRole: null,
      });
      const underOwn = await t.get(`${base(orgA, foreign.id)}${p}`, { token: viewer.token });
      expect(underOwn.status, p).toBe(404);
      expect(underOwn.body._tag).toBe('CompanyNotFoundError');
    }
    // The foreign year addressed under one of our companies.
    const mine = await t.get(`${base(orgA, company.id)}/fiscal-years/${foreignYear.id}`, {
      token: viewer.token,
    });
    expect(mine.body._tag).toBe('FiscalYearNotFoundError');
    const list = await t.get(`${base(orgA, company.id)}/fiscal-years`, { token: viewer.token });
    expect(list.body.fiscalYears.some((y: { id: string }) => y.id === foreignYear.id)).toBe(false);
    for (const [method, p] of [
      ['POST', '/fiscal-years'],
      ['POST', `/fiscal-years/${foreignYear.id}/periods/${fp}/close`],
      ['POST', `/fiscal-years/${foreignYear.id}/periods/${fp}/open`],
    ] as const) {
      const res = await t.req(method, `${base(orgB, foreign.id)}${p}`, {
        token: admin.token,
        body: { year: 2027 },
      });
      expect(res.status, p).toBe(403);
    }
  });
});

describe('closing and opening periods', () => {
  let company: { id: string };
  let fy: { id: string; year: number; periods: { id: string }[] };
  const periodUrl = (n: number) =>
    `${base(orgA, company.id)}/fiscal-years/${fy.id}/periods/${fy.periods[n - 1]!.id}`;
  beforeAll(async () => {
    company = await createCompany(admin.token, orgA);
    fy = await createYear(orgA, company.id, 2026);
  });

  it('closes an open period even with unposted entries, and refuses closing it twice', async () => {
    await insertEntry(company.id, 2026, 2, 'Draft');
    const res = await t.post(`${periodUrl(2)}/close`, { token: admin.token, body: 'ignored {' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'Closed',
      closedBy: admin.id,
      closedAt: expect.stringMatching(/Z$/),
      unpostedEntryCount: 1,
    });
    const again = await t.post(`${periodUrl(2)}/close`, { token: admin.token });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({
      _tag: 'InvalidPeriodStatusTransitionError',
      message: expect.any(String),
      fiscalPeriodId: fy.periods[1]!.id,
      currentStatus: 'Closed',
      targetStatus: 'Closed',
    });
    const year = await t.get(`${base(orgA, company.id)}/fiscal-years/${fy.id}`, { token: viewer.token });
    expect(year.body.status).toBe('Open');
    expect(year.body.periods[1].status).toBe('Closed');
  });

  it('opens a closed period, writes reopen history, and refuses opening an open one', async () => {
    await t.post(`${periodUrl(3)}/close`, { token: admin.token });
    const first = await t.post(`${periodUrl(3)}/open`, {
      token: admin.token,
      body: { reason: ' Late invoice ' },
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'Open', closedBy: null, closedAt: null });
    await t.post(`${periodUrl(3)}/close`, { token: owner.token });
    const second = await t.post(`${periodUrl(3)}/open`, { token: owner.token });
    expect(second.status).toBe(200);
    const again = await t.post(`${periodUrl(3)}/open`, { token: admin.token, body: {} });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({
      _tag: 'InvalidPeriodStatusTransitionError',
      currentStatus: 'Open',
      targetStatus: 'Open',
    });
    const history = await t.get(`${periodUrl(3)}/reopen-history`, { token: viewer.token });
    expect(history.status).toBe(200);
    expect(history.body).toMatchObject({ total: 2, limit: 50, offset: 0 });
    expect(history.body.history[0]).toEqual({
      id: expect.any(String),
      periodId: fy.periods[2]!.id,
      reason: null,
      reopenedBy: owner.id,
      reopenedAt: expect.stringMatching(/Z$/),
      previousStatus: 'Closed',
    });
    expect(history.body.history[1]).toMatchObject({ reason: 'Late invoice', reopenedBy: admin.id });
    const page = await t.get(`${periodUrl(3)}/reopen-history`, {
      token: viewer.token,
      query: { limit: 1, offset: 1 },
    });
    expect(page.body.history.map((h: { reason: string | null }) => h.reason)).toEqual(['Late invoice']);
    const empty = await t.get(`${periodUrl(4)}/reopen-history`, { token: viewer.token });
    expect(empty.body).toMatchObject({ history: [], total: 0 });
    const tooLong = await t.post(`${periodUrl(3)}/open`, {
      token: admin.token,
      body: { reason: 'x'.repeat(2001) },
    });
    expect(tooLong.status).toBe(400);
  });

  it('refuses opening a period of a closed year (409)', async () => {
    const c = await createCompany(admin.token, orgA);
    const y = await createYear(orgA, c.id, 2025);
    await t.database.db.execute(sql`update fiscal_years set status = 'Closed' where id = ${y.id}`);
    await t.database.db.execute(
      sql`update fiscal_periods set status = 'Closed' where fiscal_year_id = ${y.id}`,
    );
    const res = await t.post(`${base(orgA, c.id)}/fiscal-years/${y.id}/periods/${y.periods[4].id}/open`, {
      token: admin.token,
    });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      _tag: 'YearAlreadyClosedError',
      message: expect.any(String),
      fiscalYearId: y.id,
      year: 2025,
    });
  });

  it('applies the role matrix to close and open, and audits them', async () => {
    for (const user of [viewer, member]) {
      const close = await t.post(`${periodUrl(5)}/close`, { token: user.token });
      expect(close.status).toBe(403);
      expect(close.body).toMatchObject({ action: 'fiscal_period:manage', requiredRole: 'admin' });
    }
    await t.post(`${periodUrl(5)}/close`, { token: admin.token });
    for (const user of [viewer, member]) {
      expect((await t.post(`${periodUrl(5)}/open`, { token: user.token })).status).toBe(403);
    }
    await t.post(`${periodUrl(5)}/open`, { token: admin.token });
    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: orgA, entityId: fy.periods[4]!.id },
    });
    expect(audit.body.entries.map((e: { action: string }) => e.action).sort()).toEqual(['Close', 'Open']);
  });
});

describe('period status and summary', () => {
  let company: { id: string };
  let fy: { id: string; periods: { id: string }[] };
  beforeAll(async () => {
    company = await createCompany(admin.token, orgA, { month: 6, day: 30 });
    fy = await createYear(orgA, company.id, 2026);
    await createYear(orgA, company.id, 2027);
  });

  it('reports the period of a date, with null status when the year does not exist', async () => {
    const url = `${base(orgA, company.id)}/period-status`;
    let res = await t.get(url, { token: viewer.token, query: { date: '2025-07-15' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      date: '2025-07-15',
      fiscalYear: 2026,
      periodNumber: 1,
      fiscalYearId: fy.id,
      periodId: fy.periods[0]!.id,
      status: 'Open',
      allowsJournalEntries: true,
      allowsModifications: true,
    });
    await t.post(`${base(orgA, company.id)}/fiscal-years/${fy.id}/periods/${fy.periods[11]!.id}/close`, {
      token: admin.token,
    });
    res = await t.get(url, { token: viewer.token, query: { date: '2026-06-30' } });
    expect(res.body).toMatchObject({
      fiscalYear: 2026,
      periodNumber: 12,
      status: 'Closed',
      allowsJournalEntries: false,
      allowsModifications: false,
    });
    res = await t.get(url, { token: viewer.token, query: { date: '2030-01-01' } });
    expect(res.body).toEqual({
      date: '2030-01-01',
      fiscalYear: 2030,
      periodNumber: 7,
      fiscalYearId: null,
      periodId: null,
      status: null,
      allowsJournalEntries: true,
      allowsModifications: true,
    });
    for (const query of [{}, { date: '2026-02-30' }, { date: '26-01-01' }, { date: '2999-12-31' }]) {
      expect((await t.get(url, { token: viewer.token, query })).status, JSON.stringify(query)).toBe(400);
    }
  });

  it('summarises periods and merges adjacent date ranges', async () => {
    // Period 12 of FY2026 was closed above; close period 1 of FY2027 too, so the closed ranges merge.
    const fy27 = (await t.get(`${base(orgA, company.id)}/fiscal-years`, { token: viewer.token })).body
      .fiscalYears[0];
    await t.post(`${base(orgA, company.id)}/fiscal-years/${fy27.id}/periods/${fy27.periods[0].id}/close`, {
      token: admin.token,
    });
    await t.post(`${base(orgA, company.id)}/fiscal-years/${fy.id}/periods/${fy.periods[12]!.id}/close`, {
      token: admin.token,
    });
    const res = await t.get(`${base(orgA, company.id)}/fiscal-periods/summary`, { token: viewer.token });
    expect(res.status).toBe(200);
    expect(res.body.periods).toHaveLength(26);
    expect(res.body.periods[0]).toEqual({
      fiscalYearId: fy27.id,
      fiscalYear: 2027,
      periodId: fy27.periods[0].id,
      periodNumber: 1,
      periodName: 'Period 1',
      periodType: 'Regular',
      startDate: '2026-07-01',
      endDate: '2026-07-31',
      status: 'Closed',
    });
    expect(res.body.periods[13]).toMatchObject({ fiscalYear: 2026, periodNumber: 1 });
    expect(res.body.closedDateRanges).toEqual([{ startDate: '2026-06-01', endDate: '2026-07-31' }]);
    expect(res.body.openDateRanges).toEqual([
      { startDate: '2025-07-01', endDate: '2026-05-31' },
      { startDate: '2026-08-01', endDate: '2027-06-30' },
    ]);
    const empty = await createCompany(admin.token, orgA);
    const none = await t.get(`${base(orgA, empty.id)}/fiscal-periods/summary`, { token: viewer.token });
    expect(none.body).toEqual({ periods: [], openDateRanges: [], closedDateRanges: [] });
  });
});
