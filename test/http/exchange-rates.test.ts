import { eq } from 'drizzle-orm';
import { v4 as uuidv4 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/client.ts';
import {
  accounts,
  companies,
  consolidationGroups,
  consolidationRuns,
  journalEntries,
  journalLines,
  runRateUsages,
} from '../../src/db/schema/index.ts';
import { formatRate } from '../../src/domain/money.ts';
import {
  ANY_RATE_TYPE_ORDER,
  CLOSING_RATE_TYPES,
  type DateCondition,
  type RateType,
  resolveRate,
} from '../../src/domain/rates.ts';
import * as repo from '../../src/modules/exchange-rates/repo.ts';
import { loadRateBook, lockRatesForUse, resolveRateFor } from '../../src/modules/exchange-rates/service.ts';
import { createTestContext, type TestContext, type TestUser, uniq } from '../helpers/app.ts';

let t: TestContext;
let db: Db;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let viewer: TestUser;
let outsider: TestUser; // owner of org B, no membership in A
let stranger: TestUser; // no organization at all
let orgA: string;
let orgB: string;

const BASE = '/api/v1/exchange-rates';
const MISSING = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  t = await createTestContext();
  db = t.database.db;
  owner = await t.user('owner');
  admin = await t.user('admin');
  member = await t.user('member');
  viewer = await t.user('viewer');
  outsider = await t.user('outsider');
  stranger = await t.user('stranger');
  orgA = (await t.org(owner)).id;
  orgB = (await t.org(outsider)).id;
  await t.addMember(owner, orgA, admin, 'admin');
  await t.addMember(owner, orgA, member, 'member');
  await t.addMember(owner, orgA, viewer, 'viewer');
});
afterAll(async () => {
  await t.close();
});

interface RateBody {
  organizationId: string;
  fromCurrency: string;
  toCurrency: string;
  rate: unknown;
  effectiveDate: string;
  rateType: string;
  source: string;
}

function body(organizationId: string, over: Partial<RateBody> = {}): RateBody {
  return {
    organizationId,
    fromCurrency: 'EUR',
    toCurrency: 'USD',
    rate: '1.1',
    effectiveDate: '2026-01-15',
    rateType: 'Spot',
    source: 'Manual',
    ...over,
  };
}

async function create(user: TestUser, b: RateBody) {
  const res = await t.post(BASE, { token: user.token, body: b });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A fresh organization (owned by `owner`) for tests that need a controlled set of rates. */
async function freshOrg(settings: Record<string, unknown> = {}, reportingCurrency = 'USD'): Promise<string> {
  return (await t.org(owner, { reportingCurrency, ...(Object.keys(settings).length ? { settings } : {}) }))
    .id;
}

/** Stores rates `[from, to, rate, date, type?]` in `org` with one bulk request. */
async function seed(org: string, rows: Array<[string, string, string, string, string?]>) {
  const res = await t.post(`${BASE}/bulk`, {
    token: owner.token,
    body: {
      rates: rows.map(([fromCurrency, toCurrency, rate, effectiveDate, rateType]) =>
        body(org, { fromCurrency, toCurrency, rate, effectiveDate, rateType: rateType ?? 'Spot' }),
      ),
    },
  });
  if (res.status !== 201) throw new Error(`seed failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.created as Array<{ id: string }>;
}

function lookup(path: string, query: Record<string, string | number | undefined>, user: TestUser = owner) {
  return t.get(`${BASE}/${path}`, { token: user.token, query });
}

/** Inserts a company directly (the companies module is developed separately). */
async function insertCompany(org: string, fye: { month: number; day: number }): Promise<string> {
  const id = uuidv4();
  const name = uniq('Co');
  await db.insert(companies).values({
    id,
    organizationId: org,
    name,
    nameKey: name.toLowerCase(),
    legalName: name,
    jurisdiction: 'US',
    functionalCurrency: 'USD',
    reportingCurrency: 'USD',
    fiscalYearEndMonth: fye.month,
    fiscalYearEndDay: fye.day,
  });
  return id;
}

// -------------------------------------------------------------------------------------------------

describe('create', () => {
  it('creates a rate with every field, canonical rate text and equal timestamps', async () => {
    const res = await t.post(BASE, {
      token: member.token,
      body: body(orgA, {
        rate: '1.10',
        effectiveDate: '2025-06-30',
        rateType: 'YearEnd',
        source: 'CentralBankEU',
      }),
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      organizationId: orgA,
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      rate: '1.1',
      effectiveDate: '2025-06-30',
      rateType: 'YearEnd',
      source: 'CentralBankEU',
      createdBy: member.id,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: res.body.createdAt,
    });
    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: orgA, entityType: 'ExchangeRate', entityId: res.body.id },
    });
    expect(audit.body.entries).toEqual([
      expect.objectContaining({ action: 'Create', userId: member.id, changes: null }),
    ]);
  });

  it('writes rates in canonical form: no trailing zeros, no trailing point', async () => {
    const org = await freshOrg();
    const cases: Array<[string, string]> = [
      ['150.0000', '150'],
      ['150', '150'],
      ['0.0066666667', '0.0066666667'],
      ['1.2500000000', '1.25'],
      ['999999999999.9999999999', '999999999999.9999999999'],
      ['0.0000000001', '0.0000000001'],
    ];
    for (const [i, [input, output]] of cases.entries()) {
      const r = await create(owner, body(org, { rate: input, effectiveDate: `2026-02-${10 + i}` }));
      expect(r.rate).toBe(output);
      expect((await t.get(`${BASE}/${r.id}`, { token: owner.token })).body.rate).toBe(output);
    }
  });

  it('refuses invalid Rate inputs with ValidationError at /rate', async () => {
    for (const rate of [
      1.1,
      0,
      '0',
      '0.0',
      '-1',
      '1.12345678901',
      ' 1.1',
      '1e3',
      '01.5',
      '1.',
      '.5',
      '1234567890123',
      null,
    ]) {
      const res = await t.post(BASE, { token: owner.token, body: body(orgA, { rate }) });
      expect(res.status, String(rate)).toBe(400);
      expect(res.body._tag).toBe('ValidationError');
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain('/rate');
    }
  });

  it('requires every field (source included) and validates codes, dates and enumerations', async () => {
    for (const key of [
      'organizationId',
      'fromCurrency',
      'toCurrency',
      'rate',
      'effectiveDate',
      'rateType',
      'source',
    ]) {
      const b = body(orgA) as unknown as Record<string, unknown>;
      delete b[key];
      const res = await t.post(BASE, { token: owner.token, body: b });
      expect(res.status, key).toBe(400);
      expect(res.body.issues).toContainEqual({ path: `/${key}`, message: expect.any(String) });
    }
    const bad: Array<[Partial<RateBody>, string]> = [
      [{ fromCurrency: 'eur' }, '/fromCurrency'],
      [{ toCurrency: 'XXX' }, '/toCurrency'],
      [{ effectiveDate: '2026-02-30' }, '/effectiveDate'],
      [{ effectiveDate: '1899-12-31' }, '/effectiveDate'],
      [{ rateType: 'spot' }, '/rateType'],
      [{ source: 'Bank' }, '/source'],
      [{ organizationId: 'nope' }, '/organizationId'],
    ];
    for (const [over, path] of bad) {
      const res = await t.post(BASE, { token: owner.token, body: body(orgA, over) });
      expect(res.status, path).toBe(400);
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
  });

  it('answers SameCurrencyExchangeRateError before organization and role checks', async () => {
    const same = { fromCurrency: 'USD', toCurrency: 'USD' };
    const expected = { _tag: 'SameCurrencyExchangeRateError', message: expect.any(String), currency: 'USD' };
    for (const [user, org] of [
      [owner, orgA],
      [owner, MISSING], // organization does not exist (would be 404)
      [owner, orgB], // not a member (would be 403)
      [viewer, orgA], // role too low (would be 403)
    ] as const) {
      const res = await t.post(BASE, { token: user.token, body: body(org, same) });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(expected);
    }
  });

  it('answers 404 for an unknown organization and 403 for a foreign one', async () => {
    const missing = await t.post(BASE, { token: owner.token, body: body(MISSING) });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ _tag: 'OrganizationNotFoundError', organizationId: MISSING });
    const foreign = await t.post(BASE, { token: owner.token, body: body(orgB) });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({
      _tag: 'ForbiddenError',
      action: 'exchange_rate:manage',
      requiredRole: 'member',
      currentRole: null,
    });
  });

  it('refuses a duplicate (pair, date, type) with 409 and its fields; other types and directions are distinct', async () => {
    const org = await freshOrg();
    await create(owner, body(org, { effectiveDate: '2026-03-01' }));
    const dup = await t.post(BASE, {
      token: owner.token,
      body: body(org, { effectiveDate: '2026-03-01', rate: '2' }),
    });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({
      _tag: 'ExchangeRateAlreadyExistsError',
      message: expect.any(String),
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      effectiveDate: '2026-03-01',
      rateType: 'Spot',
    });
    await create(owner, body(org, { effectiveDate: '2026-03-01', rateType: 'Average' }));
    await create(owner, body(org, { effectiveDate: '2026-03-01', fromCurrency: 'USD', toCurrency: 'EUR' }));
    // the same key in another organization is independent
    await create(outsider, body(orgB, { effectiveDate: '2026-03-01' }));
  });

  it('treats organizationId case-insensitively', async () => {
    const org = await freshOrg();
    const r = await create(owner, body(org.toUpperCase(), { effectiveDate: '2026-03-02' }));
    expect(r.organizationId).toBe(org);
  });
});

describe('bulk create', () => {
  it('creates every rate, answering them in request order with the count', async () => {
    const org = await freshOrg();
    const res = await t.post(`${BASE}/bulk`, {
      token: owner.token,
      body: {
        rates: [
          body(org, { effectiveDate: '2026-01-03', rate: '1.30' }),
          body(org, { effectiveDate: '2026-01-01', rate: '1.10' }),
          body(org, { effectiveDate: '2026-01-02', rate: '1.20', fromCurrency: 'GBP' }),
        ],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.count).toBe(3);
    expect(
      res.body.created.map((r: { rate: string; effectiveDate: string }) => [r.rate, r.effectiveDate]),
    ).toEqual([
      ['1.3', '2026-01-03'],
      ['1.1', '2026-01-01'],
      ['1.2', '2026-01-02'],
    ]);
    const list = await t.get(BASE, { token: owner.token, query: { organizationId: org } });
    expect(list.body.total).toBe(3);
  });

  it('accepts 500 rates and refuses 0 or 501', async () => {
    const org = await freshOrg();
    // 500 distinct months from 2000-01 on
    const many = Array.from({ length: 500 }, (_, i) =>
      body(org, {
        rate: `1.${i + 1}`,
        effectiveDate: `${2000 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}-01`,
      }),
    );
    const ok = await t.post(`${BASE}/bulk`, { token: owner.token, body: { rates: many } });
    expect(ok.status).toBe(201);
    expect(ok.body.count).toBe(500);
    const empty = await t.post(`${BASE}/bulk`, { token: owner.token, body: { rates: [] } });
    expect(empty.status).toBe(400);
    expect(empty.body.issues[0].path).toBe('/rates');
    const tooMany = await t.post(`${BASE}/bulk`, {
      token: owner.token,
      body: { rates: [...many, body(org, { effectiveDate: '2026-12-31' })] },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body._tag).toBe('ValidationError');
  });

  it('requires the same organizationId in every element (ValidationError at /rates/<i>/organizationId)', async () => {
    const res = await t.post(`${BASE}/bulk`, {
      token: owner.token,
      body: { rates: [body(orgA), body(orgB, { effectiveDate: '2026-01-16' }), body(orgA), body(MISSING)] },
    });
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe('ValidationError');
    expect(res.body.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      '/rates/1/organizationId',
      '/rates/3/organizationId',
    ]);
  });

  it('reports element issues with their index and the first same-currency element before organization checks', async () => {
    const invalidRate = await t.post(`${BASE}/bulk`, {
      token: owner.token,
      body: { rates: [body(orgA), body(orgA, { rate: 5 })] },
    });
    expect(invalidRate.status).toBe(400);
    expect(invalidRate.body.issues.map((i: { path: string }) => i.path)).toContain('/rates/1/rate');

    const same = await t.post(`${BASE}/bulk`, {
      token: viewer.token,
      body: {
        rates: [
          body(MISSING),
          body(MISSING, { fromCurrency: 'GBP', toCurrency: 'GBP' }),
          body(MISSING, { fromCurrency: 'JPY', toCurrency: 'JPY' }),
        ],
      },
    });
    expect(same.status).toBe(400);
    expect(same.body).toMatchObject({ _tag: 'SameCurrencyExchangeRateError', currency: 'GBP' });
  });

  it('is all or nothing: a duplicate of a stored rate creates nothing and names the first duplicate', async () => {
    const org = await freshOrg();
    await create(owner, body(org, { effectiveDate: '2026-04-02' }));
    await create(owner, body(org, { effectiveDate: '2026-04-03' }));
    const res = await t.post(`${BASE}/bulk`, {
      token: owner.token,
      body: {
        rates: [
          body(org, { effectiveDate: '2026-04-01' }),
          body(org, { effectiveDate: '2026-04-03' }),
          body(org, { effectiveDate: '2026-04-02' }),
        ],
      },
    });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      _tag: 'ExchangeRateAlreadyExistsError',
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      effectiveDate: '2026-04-03',
      rateType: 'Spot',
    });
    const list = await t.get(BASE, { token: owner.token, query: { organizationId: org } });
    expect(list.body.total).toBe(2);
    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: org, entityType: 'ExchangeRate' },
    });
    expect(audit.body.total).toBe(2);
  });

  it('refuses an element duplicating an earlier element', async () => {
    const org = await freshOrg();
    const res = await t.post(`${BASE}/bulk`, {
      token: owner.token,
      body: {
        rates: [
          body(org, { effectiveDate: '2026-05-01' }),
          body(org, { effectiveDate: '2026-05-02', rateType: 'Average' }),
          body(org, { effectiveDate: '2026-05-02', rateType: 'Average', rate: '9' }),
          body(org, { effectiveDate: '2026-05-01', rate: '9' }),
        ],
      },
    });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ effectiveDate: '2026-05-02', rateType: 'Average' });
    expect((await t.get(BASE, { token: owner.token, query: { organizationId: org } })).body.total).toBe(0);
  });

  it('checks the organization and role: 404 unknown, 403 foreign, 403 viewer, member allowed', async () => {
    const missing = await t.post(`${BASE}/bulk`, { token: owner.token, body: { rates: [body(MISSING)] } });
    expect(missing.status).toBe(404);
    expect(missing.body._tag).toBe('OrganizationNotFoundError');
    const foreign = await t.post(`${BASE}/bulk`, { token: owner.token, body: { rates: [body(orgB)] } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.currentRole).toBeNull();
    const low = await t.post(`${BASE}/bulk`, { token: viewer.token, body: { rates: [body(orgA)] } });
    expect(low.status).toBe(403);
    expect(low.body).toMatchObject({
      currentRole: 'viewer',
      requiredRole: 'member',
      action: 'exchange_rate:manage',
    });
    const ok = await t.post(`${BASE}/bulk`, {
      token: member.token,
      body: { rates: [body(orgA, { effectiveDate: '2024-07-07', fromCurrency: 'CHF' })] },
    });
    expect(ok.status).toBe(201);
  });
});

describe('get by id', () => {
  let rateId: string;
  beforeAll(async () => {
    rateId = (
      await create(owner, body(orgA, { effectiveDate: '2024-08-08', fromCurrency: 'SEK', rate: '0.095' }))
    ).id;
  });

  it('returns the rate to viewers, with or without their organizationId', async () => {
    const res = await t.get(`${BASE}/${rateId}`, { token: viewer.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: rateId, organizationId: orgA, rate: '0.095', fromCurrency: 'SEK' });
    const withOrg = await t.get(`${BASE}/${rateId.toUpperCase()}`, {
      token: viewer.token,
      query: { organizationId: orgA },
    });
    expect(withOrg.status).toBe(200);
    expect(withOrg.body.id).toBe(rateId);
  });

  it('answers ExchangeRateIdNotFoundError for unknown and malformed ids', async () => {
    const unknown = await t.get(`${BASE}/${MISSING}`, { token: owner.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      _tag: 'ExchangeRateIdNotFoundError',
      message: expect.any(String),
      exchangeRateId: MISSING,
    });
    const malformed = await t.get(`${BASE}/abc`, { token: owner.token });
    expect(malformed.status).toBe(404);
    expect(malformed.body).toMatchObject({ _tag: 'ExchangeRateIdNotFoundError', exchangeRateId: 'abc' });
  });

  it('isolates tenants: 403 by id, 404 with own organizationId, 404 for an unknown organizationId', async () => {
    const foreign = await t.get(`${BASE}/${rateId}`, { token: outsider.token });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({
      _tag: 'ForbiddenError',
      currentRole: null,
      action: 'exchange_rate:read',
    });
    expect(foreign.body.rate).toBeUndefined();
    const ownOrg = await t.get(`${BASE}/${rateId}`, {
      token: outsider.token,
      query: { organizationId: orgB },
    });
    expect(ownOrg.status).toBe(404);
    expect(ownOrg.body).toMatchObject({ _tag: 'ExchangeRateIdNotFoundError', exchangeRateId: rateId });
    const named = await t.get(`${BASE}/${rateId}`, {
      token: outsider.token,
      query: { organizationId: orgA },
    });
    expect(named.status).toBe(403);
    const missingOrg = await t.get(`${BASE}/${rateId}`, {
      token: owner.token,
      query: { organizationId: MISSING },
    });
    expect(missingOrg.status).toBe(404);
    expect(missingOrg.body._tag).toBe('OrganizationNotFoundError');
    const stray = await t.get(`${BASE}/${MISSING}`, { token: stranger.token });
    expect(stray.status).toBe(404);
  });
});

describe('list', () => {
  let org: string;
  beforeAll(async () => {
    org = await freshOrg();
    await seed(org, [
      ['EUR', 'USD', '1.1', '2026-01-31', 'YearEnd'],
      ['EUR', 'USD', '1.1', '2026-01-31', 'Historical'],
      ['EUR', 'USD', '1.1', '2026-01-31', 'Average'],
      ['EUR', 'USD', '1.1', '2026-01-31', 'Spot'],
      ['EUR', 'GBP', '0.85', '2026-01-31', 'Spot'],
      ['CHF', 'USD', '1.12', '2026-01-31', 'Spot'],
      ['EUR', 'USD', '1.08', '2026-01-01', 'Spot'],
      ['EUR', 'USD', '1.12', '2026-02-28', 'Spot'],
    ]);
  });

  it('orders by effectiveDate desc, fromCurrency, toCurrency, Spot/Average/Historical/YearEnd, id', async () => {
    const res = await t.get(BASE, { token: owner.token, query: { organizationId: org } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 8, limit: 50, offset: 0 });
    expect(
      res.body.rates.map(
        (r: Record<string, string>) => `${r.effectiveDate} ${r.fromCurrency}${r.toCurrency} ${r.rateType}`,
      ),
    ).toEqual([
      '2026-02-28 EURUSD Spot',
      '2026-01-31 CHFUSD Spot',
      '2026-01-31 EURGBP Spot',
      '2026-01-31 EURUSD Spot',
      '2026-01-31 EURUSD Average',
      '2026-01-31 EURUSD Historical',
      '2026-01-31 EURUSD YearEnd',
      '2026-01-01 EURUSD Spot',
    ]);
  });

  it('applies every filter together, with inclusive date bounds', async () => {
    const q = async (query: Record<string, string | number>) =>
      (await t.get(BASE, { token: owner.token, query: { organizationId: org, ...query } })).body;
    expect((await q({ fromCurrency: 'EUR' })).total).toBe(7);
    expect((await q({ toCurrency: 'GBP' })).total).toBe(1);
    expect((await q({ rateType: 'Spot' })).total).toBe(5);
    expect((await q({ source: 'Manual' })).total).toBe(8);
    expect((await q({ source: 'System' })).total).toBe(0);
    expect((await q({ startDate: '2026-01-31' })).total).toBe(7);
    expect((await q({ endDate: '2026-01-31' })).total).toBe(7);
    expect((await q({ startDate: '2026-01-31', endDate: '2026-01-31' })).total).toBe(6);
    const combined = await q({
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      rateType: 'Spot',
      startDate: '2026-01-02',
    });
    expect(combined.rates.map((r: { effectiveDate: string }) => r.effectiveDate)).toEqual([
      '2026-02-28',
      '2026-01-31',
    ]);
  });

  it('paginates with total before paging', async () => {
    const page = await t.get(BASE, {
      token: owner.token,
      query: { organizationId: org, limit: 3, offset: 6 },
    });
    expect(page.body).toMatchObject({ total: 8, limit: 3, offset: 6 });
    expect(page.body.rates).toHaveLength(2);
    const beyond = await t.get(BASE, { token: owner.token, query: { organizationId: org, offset: 100 } });
    expect(beyond.body.rates).toEqual([]);
    for (const query of [{ limit: 0 }, { limit: 101 }, { offset: -1 }, { limit: '1.5' }]) {
      expect((await t.get(BASE, { token: owner.token, query })).status).toBe(400);
    }
  });

  it('refuses startDate after endDate and bad filters with ValidationError (before organization checks)', async () => {
    const res = await t.get(BASE, {
      token: owner.token,
      query: { organizationId: MISSING, startDate: '2026-02-01', endDate: '2026-01-31' },
    });
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe('ValidationError');
    expect(res.body.issues.map((i: { path: string }) => i.path)).toContain('/query/startDate');
    for (const query of [
      { rateType: 'spot' },
      { source: 'x' },
      { fromCurrency: 'usd' },
      { startDate: '2026-13-01' },
      { organizationId: 'x' },
    ]) {
      const r = await t.get(BASE, { token: owner.token, query });
      expect(r.status, JSON.stringify(query)).toBe(400);
    }
  });

  it("spans the caller's organizations without organizationId and never shows others'", async () => {
    const both = await t.user('both');
    const o1 = (await t.org(both)).id;
    const o2 = (await t.org(both)).id;
    await create(both, body(o1, { effectiveDate: '2026-01-10' }));
    await create(both, body(o2, { effectiveDate: '2026-01-11' }));
    const all = await t.get(BASE, { token: both.token });
    expect(all.body.total).toBe(2);
    expect(all.body.rates.map((r: { organizationId: string }) => r.organizationId)).toEqual([o2, o1]);
    const outsiderList = await t.get(BASE, { token: outsider.token });
    expect(outsiderList.body.rates.every((r: { organizationId: string }) => r.organizationId === orgB)).toBe(
      true,
    );
    const none = await t.get(BASE, { token: stranger.token });
    expect(none.body).toEqual({ rates: [], total: 0, limit: 50, offset: 0 });
  });

  it('answers 403 for a foreign organizationId and 404 for an unknown one', async () => {
    const foreign = await t.get(BASE, { token: outsider.token, query: { organizationId: org } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.rates).toBeUndefined();
    const missing = await t.get(BASE, { token: owner.token, query: { organizationId: MISSING } });
    expect(missing.status).toBe(404);
  });
});

describe('delete', () => {
  it('deletes a rate (member), audits it, and the id is gone', async () => {
    const r = await create(owner, body(orgA, { effectiveDate: '2023-01-01', fromCurrency: 'NOK' }));
    const res = await t.del(`${BASE}/${r.id}`, { token: member.token });
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect((await t.get(`${BASE}/${r.id}`, { token: owner.token })).status).toBe(404);
    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: orgA, entityType: 'ExchangeRate', entityId: r.id, action: 'Delete' },
    });
    expect(audit.body.total).toBe(1);
    expect((await t.del(`${BASE}/${r.id}`, { token: member.token })).status).toBe(404);
  });

  it('checks id, organization and role', async () => {
    const r = await create(owner, body(orgA, { effectiveDate: '2023-01-02', fromCurrency: 'NOK' }));
    expect((await t.del(`${BASE}/${MISSING}`, { token: owner.token })).body).toMatchObject({
      _tag: 'ExchangeRateIdNotFoundError',
      exchangeRateId: MISSING,
    });
    expect((await t.del(`${BASE}/zzz`, { token: owner.token })).body.exchangeRateId).toBe('zzz');
    const low = await t.del(`${BASE}/${r.id}`, { token: viewer.token });
    expect(low.status).toBe(403);
    expect(low.body).toMatchObject({ currentRole: 'viewer', requiredRole: 'member' });
    const foreign = await t.del(`${BASE}/${r.id}`, { token: outsider.token });
    expect(foreign.status).toBe(403);
    expect(foreign.body.currentRole).toBeNull();
    const foreignOwnOrg = await t.del(`${BASE}/${r.id}`, {
      token: outsider.token,
      query: { organizationId: orgB },
    });
    expect(foreignOwnOrg.status).toBe(404);
    const withOrg = await t.del(`${BASE}/${r.id}`, { token: admin.token, query: { organizationId: orgA } });
    expect(withOrg.status).toBe(204);
  });

  describe('in-use protection', () => {
    let org: string;
    let companyId: string;
    let accountId: string;
    let groupId: string;
    let entryNo = 0;

    beforeAll(async () => {
      org = await freshOrg();
      companyId = await insertCompany(org, { month: 12, day: 31 });
      accountId = uuidv4();
      await db.insert(accounts).values({
        id: accountId,
        organizationId: org,
        companyId,
        accountNumber: '1000',
        name: 'Cash',
        accountType: 'Asset',
        accountCategory: 'CurrentAsset',
      });
      groupId = uuidv4();
      await db.insert(consolidationGroups).values({
        id: groupId,
        organizationId: org,
        name: 'G',
        nameKey: 'g',
        reportingCurrency: 'USD',
        consolidationMethod: 'Full',
        parentCompanyId: companyId,
      });
    });

    /** An entry in `status` with one line per given reference: [exchangeRateId, legIds]. */
    async function entry(status: string, refs: Array<[string | null, string[]]>): Promise<string> {
      const id = uuidv4();
      entryNo += 1;
      await db.insert(journalEntries).values({
        id,
        organizationId: org,
        companyId,
        entryNumber: entryNo,
        description: 'FX',
        transactionDate: '2026-01-15',
        fiscalYear: 2026,
        fiscalPeriod: 1,
        status,
        totalDebits: '110',
        totalCredits: '110',
        createdBy: owner.id,
      });
      await db.insert(journalLines).values(
        refs.map(([rateId, legs], i) => ({
          id: uuidv4(),
          organizationId: org,
          journalEntryId: id,
          companyId,
          lineNumber: i + 1,
          accountId,
          currency: 'EUR',
          debitAmount: '100',
          functionalDebitAmount: '110',
          exchangeRate: '1.1',
          exchangeRateId: rateId,
          exchangeRateLegIds: legs,
        })),
      );
      return id;
    }

    async function run(status: string, rateIds: string[]): Promise<string> {
      const id = uuidv4();
      await db.insert(consolidationRuns).values({
        id,
        organizationId: org,
        groupId,
        year: 2026,
        period: 1,
        asOfDate: '2026-01-31',
        yearStartDate: '2026-01-01',
        reportingCurrency: 'USD',
        status,
        steps: [],
        options: {},
        members: [],
        initiatedBy: owner.id,
        requestedBy: owner.id,
        initiatedAt: new Date(),
      });
      if (rateIds.length > 0) {
        await db
          .insert(runRateUsages)
          .values(rateIds.map((exchangeRateId) => ({ organizationId: org, runId: id, exchangeRateId })));
      }
      return id;
    }

    async function linesOf(entryId: string) {
      return db
        .select({
          exchangeRateId: journalLines.exchangeRateId,
          legs: journalLines.exchangeRateLegIds,
          rate: journalLines.exchangeRate,
        })
        .from(journalLines)
        .where(eq(journalLines.journalEntryId, entryId))
        .orderBy(journalLines.lineNumber);
    }

    it('refuses deleting a rate that is any leg of a posted or reversed entry, counting entries and runs', async () => {
      const [first, second, other] = await seed(org, [
        ['EUR', 'USD', '1.1', '2026-01-10'],
        ['USD', 'GBP', '0.8', '2026-01-10'],
        ['CHF', 'USD', '1.2', '2026-01-10'],
      ]);
      // posted: triangulated line whose SECOND leg is the rate
      await entry('Posted', [[first!.id, [first!.id, second!.id]]]);
      // reversed: two lines both using the rate → counted once
      await entry('Reversed', [
        [second!.id, [second!.id]],
        [second!.id, [second!.id]],
      ]);
      // drafts do not count
      await entry('Draft', [[second!.id, [second!.id]]]);
      await run('Completed', [second!.id, other!.id]);
      await run('Completed', [second!.id]);
      await run('Failed', [second!.id]);

      const res = await t.del(`${BASE}/${second!.id}`, { token: owner.token });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        _tag: 'ExchangeRateInUseError',
        message: expect.any(String),
        exchangeRateId: second!.id,
        journalEntryCount: 2,
        consolidationRunCount: 2,
      });
      const onlyRun = await t.del(`${BASE}/${other!.id}`, { token: owner.token });
      expect(onlyRun.body).toMatchObject({ journalEntryCount: 0, consolidationRunCount: 1 });
      const firstLeg = await t.del(`${BASE}/${first!.id}`, { token: owner.token });
      expect(firstLeg.body).toMatchObject({ journalEntryCount: 1, consolidationRunCount: 0 });
      expect((await t.get(`${BASE}/${second!.id}`, { token: owner.token })).status).toBe(200);
    });

    it('deletes a rate used only by draft-stage entries; their lines keep the rate and lose the references', async () => {
      const [legA, legB, untouched] = await seed(org, [
        ['EUR', 'USD', '1.1', '2026-01-11'],
        ['USD', 'GBP', '0.8', '2026-01-11'],
        ['CHF', 'USD', '1.2', '2026-01-11'],
      ]);
      const draft = await entry('Draft', [
        [legA!.id, [legA!.id, legB!.id]],
        [untouched!.id, [untouched!.id]],
      ]);
      const pending = await entry('PendingApproval', [[legA!.id, [legA!.id, legB!.id]]]);
      const approved = await entry('Approved', [[legB!.id, [legB!.id]]]);
      await run('Running', [legB!.id]);
      await run('Failed', [legB!.id]);

      const res = await t.del(`${BASE}/${legB!.id}`, { token: owner.token });
      expect(res.status).toBe(204);
      expect(await linesOf(draft)).toEqual([
        { exchangeRateId: null, legs: [], rate: '1.100000000000' },
        { exchangeRateId: untouched!.id, legs: [untouched!.id], rate: '1.100000000000' },
      ]);
      expect(await linesOf(pending)).toEqual([{ exchangeRateId: null, legs: [], rate: '1.100000000000' }]);
      expect(await linesOf(approved)).toEqual([{ exchangeRateId: null, legs: [], rate: '1.100000000000' }]);
      // legA is now referenced by no line at all and can go too
      expect((await t.del(`${BASE}/${legA!.id}`, { token: owner.token })).status).toBe(204);
      expect((await t.del(`${BASE}/${untouched!.id}`, { token: owner.token })).status).toBe(204);
      expect(await linesOf(draft)).toEqual([
        { exchangeRateId: null, legs: [], rate: '1.100000000000' },
        { exchangeRateId: null, legs: [], rate: '1.100000000000' },
      ]);
    });

    it('lockRatesForUse makes a concurrent delete wait and then see the new usage', async () => {
      const [used, gone] = await seed(org, [
        ['EUR', 'USD', '1.1', '2026-01-13'],
        ['EUR', 'USD', '1.1', '2026-01-14'],
      ]);
      expect((await t.del(`${BASE}/${gone!.id}`, { token: owner.token })).status).toBe(204);
      let pendingDelete: Promise<{ status: number; body: any }> | undefined;
      await db.transaction(async (tx) => {
        const locked = await lockRatesForUse(tx, org, [used!.id, gone!.id, used!.id]);
        expect(locked).toEqual([used!.id]);
        pendingDelete = t.del(`${BASE}/${used!.id}`, { token: owner.token });
        await new Promise((resolve) => setTimeout(resolve, 150));
        const id = uuidv4();
        entryNo += 1;
        await tx.insert(journalEntries).values({
          id,
          organizationId: org,
          companyId,
          entryNumber: entryNo,
          description: 'FX',
          transactionDate: '2026-01-15',
          fiscalYear: 2026,
          fiscalPeriod: 1,
          status: 'Posted',
          totalDebits: '110',
          totalCredits: '110',
          createdBy: owner.id,
        });
        await tx.insert(journalLines).values({
          id: uuidv4(),
          organizationId: org,
          journalEntryId: id,
          companyId,
          lineNumber: 1,
          accountId,
          currency: 'EUR',
          debitAmount: '100',
          exchangeRate: '1.1',
          exchangeRateId: used!.id,
          exchangeRateLegIds: [used!.id],
        });
      });
      const res = await pendingDelete!;
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ _tag: 'ExchangeRateInUseError', journalEntryCount: 1 });
    });

    it("never counts or changes another organization's lines", async () => {
      const [mine] = await seed(org, [['EUR', 'USD', '1.1', '2026-01-12']]);
      // a line in org A's ledger naming org's rate id (cannot happen through the API) is not org's usage
      const otherCompany = await insertCompany(orgA, { month: 12, day: 31 });
      const otherAccount = uuidv4();
      await db.insert(accounts).values({
        id: otherAccount,
        organizationId: orgA,
        companyId: otherCompany,
        accountNumber: '1000',
        name: 'Cash',
        accountType: 'Asset',
        accountCategory: 'CurrentAsset',
      });
      const otherEntry = uuidv4();
      await db.insert(journalEntries).values({
        id: otherEntry,
        organizationId: orgA,
        companyId: otherCompany,
        entryNumber: 1,
        description: 'x',
        transactionDate: '2026-01-15',
        fiscalYear: 2026,
        fiscalPeriod: 1,
        status: 'Draft',
        totalDebits: '1',
        totalCredits: '1',
        createdBy: owner.id,
      });
      await db.insert(journalLines).values({
        id: uuidv4(),
        organizationId: orgA,
        journalEntryId: otherEntry,
        companyId: otherCompany,
        lineNumber: 1,
        accountId: otherAccount,
        currency: 'EUR',
        debitAmount: '1',
        exchangeRate: '1.1',
        exchangeRateId: mine!.id,
        exchangeRateLegIds: [mine!.id],
      });
      expect((await t.del(`${BASE}/${mine!.id}`, { token: owner.token })).status).toBe(204);
      expect(await linesOf(otherEntry)).toEqual([
        { exchangeRateId: mine!.id, legs: [mine!.id], rate: '1.100000000000' },
      ]);
    });
  });
});

describe('lookups', () => {
  let org: string;
  const base = () => ({ organizationId: org });

  beforeAll(async () => {
    org = await freshOrg();
    await seed(org, [
      ['EUR', 'USD', '1.1', '2026-01-15'],
      ['GBP', 'USD', '1.25', '2026-01-15'],
      ['USD', 'JPY', '150', '2026-01-15'],
      ['EUR', 'USD', '1.2', '2026-01-10', 'YearEnd'],
      ['EUR', 'USD', '1.05', '2026-01-20', 'Average'],
    ]);
  });

  it('rate: the rate of that type effective exactly on the date (Direct, as stored)', async () => {
    const res = await lookup('rate', {
      ...base(),
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      effectiveDate: '2026-01-15',
      rateType: 'Spot',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      rate: expect.objectContaining({
        fromCurrency: 'EUR',
        toCurrency: 'USD',
        rate: '1.1',
        rateType: 'Spot',
      }),
      effectiveRate: '1.1',
      derivation: 'Direct',
      legs: [res.body.rate],
    });
    const otherDay = await lookup('rate', {
      ...base(),
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      effectiveDate: '2026-01-16',
      rateType: 'Spot',
    });
    expect(otherDay.body).toEqual({
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      rate: null,
      effectiveRate: null,
      derivation: null,
      legs: [],
    });
    const otherType = await lookup('rate', {
      ...base(),
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      effectiveDate: '2026-01-15',
      rateType: 'Historical',
    });
    expect(otherType.body.rate).toBeNull();
  });

  it('inverts the opposite pair, rounded to 10 decimals; rate is the stored opposite rate', async () => {
    // 1 / 1.1 = 0.909090909090… → 0.9090909091
    const inv = await lookup('rate', {
      ...base(),
      fromCurrency: 'USD',
      toCurrency: 'EUR',
      effectiveDate: '2026-01-15',
      rateType: 'Spot',
    });
    expect(inv.body).toMatchObject({ derivation: 'Inverse', effectiveRate: '0.9090909091' });
    expect(inv.body.rate).toMatchObject({ fromCurrency: 'EUR', toCurrency: 'USD', rate: '1.1' });
    expect(inv.body.legs).toEqual([inv.body.rate]);
    // 1 / 150 = 0.00666666666… → 0.0066666667
    const jpy = await lookup('rate', {
      ...base(),
      fromCurrency: 'JPY',
      toCurrency: 'USD',
      effectiveDate: '2026-01-15',
      rateType: 'Spot',
    });
    expect(jpy.body.effectiveRate).toBe('0.0066666667');
    // 1 / 1.25 = 0.8 exactly, canonical form
    const gbp = await lookup('rate', {
      ...base(),
      fromCurrency: 'USD',
      toCurrency: 'GBP',
      effectiveDate: '2026-01-15',
      rateType: 'Spot',
    });
    expect(gbp.body.effectiveRate).toBe('0.8');
  });

  it('triangulates through the reporting currency: from→R then R→to, product rounded, rate null', async () => {
    // EUR→GBP: EUR→USD 1.1 (direct) × USD→GBP 1/1.25 = 0.8 (inverse) = 0.88
    const res = await lookup('rate', {
      ...base(),
      fromCurrency: 'EUR',
      toCurrency: 'GBP',
      effectiveDate: '2026-01-15',
      rateType: 'Spot',
    });
    expect(res.body.derivation).toBe('Triangulated');
    expect(res.body.effectiveRate).toBe('0.88');
    expect(res.body.rate).toBeNull();
    expect(res.body.legs.map((l: Record<string, string>) => `${l.fromCurrency}${l.toCurrency}`)).toEqual([
      'EURUSD',
      'GBPUSD',
    ]);
    // GBP→JPY: 1.25 × 150 = 187.5
    const jpy = await lookup('rate', {
      ...base(),
      fromCurrency: 'GBP',
      toCurrency: 'JPY',
      effectiveDate: '2026-01-15',
      rateType: 'Spot',
    });
    expect(jpy.body).toMatchObject({ derivation: 'Triangulated', effectiveRate: '187.5' });
    // JPY→EUR: (1/150 → 0.0066666667) × (1/1.1 → 0.9090909091) = 0.00606060609090… → 0.0060606061
    const back = await lookup('rate', {
      ...base(),
      fromCurrency: 'JPY',
      toCurrency: 'EUR',
      effectiveDate: '2026-01-15',
      rateType: 'Spot',
    });
    expect(back.body).toMatchObject({ derivation: 'Triangulated', effectiveRate: '0.0060606061' });
    // a missing leg gives nothing
    const none = await lookup('rate', {
      ...base(),
      fromCurrency: 'EUR',
      toCurrency: 'CHF',
      effectiveDate: '2026-01-15',
      rateType: 'Spot',
    });
    expect(none.body.derivation).toBeNull();
  });

  it('latest: the latest date of that type; without rateType any type, ties Spot > YearEnd > Average > Historical', async () => {
    const o = await freshOrg();
    await seed(o, [
      ['EUR', 'USD', '1.1', '2026-03-01'],
      ['EUR', 'USD', '1.3', '2026-03-01', 'YearEnd'],
      ['EUR', 'USD', '1.2', '2026-02-01', 'Average'],
      ['EUR', 'USD', '1.4', '2026-01-01', 'Historical'],
      ['USD', 'EUR', '0.5', '2026-03-05', 'Historical'],
    ]);
    const q = (rateType?: string, from = 'EUR', to = 'USD') =>
      lookup('latest', { organizationId: o, fromCurrency: from, toCurrency: to, rateType });
    expect((await q()).body).toMatchObject({ derivation: 'Inverse', effectiveRate: '2' });
    expect((await q('Spot')).body).toMatchObject({ derivation: 'Direct', effectiveRate: '1.1' });
    expect((await q('YearEnd')).body.effectiveRate).toBe('1.3');
    expect((await q('Average')).body.effectiveRate).toBe('1.2');
    expect((await q('Historical')).body).toMatchObject({ derivation: 'Inverse', effectiveRate: '2' });
    const o2 = await freshOrg();
    await seed(o2, [
      ['EUR', 'USD', '1.3', '2026-03-01', 'YearEnd'],
      ['EUR', 'USD', '1.2', '2026-03-01', 'Average'],
      ['EUR', 'USD', '1.4', '2026-03-01', 'Historical'],
    ]);
    expect(
      (await lookup('latest', { organizationId: o2, fromCurrency: 'EUR', toCurrency: 'USD' })).body.rate
        .rateType,
    ).toBe('YearEnd');
    await seed(o2, [['EUR', 'USD', '1.1', '2026-03-01']]);
    expect(
      (await lookup('latest', { organizationId: o2, fromCurrency: 'EUR', toCurrency: 'USD' })).body.rate
        .rateType,
    ).toBe('Spot');
  });

  it('closest: nearest date earlier or later, the earlier at equal distance, then type order, then direct', async () => {
    const o = await freshOrg();
    await seed(o, [
      ['EUR', 'USD', '1.1', '2026-01-10'],
      ['EUR', 'USD', '1.2', '2026-01-20'],
      ['USD', 'EUR', '0.5', '2026-02-01', 'YearEnd'],
      ['EUR', 'USD', '1.6', '2026-02-01', 'Average'],
      ['USD', 'EUR', '0.25', '2026-03-01'],
      ['EUR', 'USD', '3', '2026-03-01'],
    ]);
    const q = (date: string, rateType?: string) =>
      lookup('closest', { organizationId: o, fromCurrency: 'EUR', toCurrency: 'USD', date, rateType });
    expect((await q('2026-01-15')).body.effectiveRate).toBe('1.1'); // equal distance (5 days): earlier
    expect((await q('2026-01-16')).body.effectiveRate).toBe('1.2'); // later date nearer
    expect((await q('2025-06-01')).body.effectiveRate).toBe('1.1'); // only later rates
    expect((await q('2026-02-01')).body).toMatchObject({ derivation: 'Inverse', effectiveRate: '2' }); // YearEnd > Average
    expect((await q('2026-02-01', 'Average')).body.effectiveRate).toBe('1.6');
    expect((await q('2026-02-01', 'Spot')).body.effectiveRate).toBe('1.2'); // 01-20 (12 days) vs 03-01 (28 days)
    expect((await q('2026-03-01')).body).toMatchObject({ derivation: 'Direct', effectiveRate: '3' }); // direct before inverse
    expect((await q('2027-01-01')).body.effectiveRate).toBe('3');
    expect((await q('2026-01-15', 'Historical')).body.rate).toBeNull();
  });

  it('period-average: the latest stored Average in the period, else ComputedAverage of Spot rates (never closing)', async () => {
    const o = await freshOrg();
    await seed(o, [
      ['EUR', 'USD', '1.05', '2026-03-15', 'Average'],
      ['EUR', 'USD', '1.07', '2026-03-31', 'Average'],
      ['EUR', 'USD', '1.5', '2026-03-20'],
      ['EUR', 'USD', '1.0', '2026-02-01'],
      ['EUR', 'USD', '1.2', '2026-02-15'],
      ['USD', 'EUR', '0.8', '2026-02-28'], // inverse 1.25
      ['EUR', 'USD', '9', '2026-01-31', 'YearEnd'],
      ['EUR', 'USD', '9', '2026-03-01'], // outside February
    ]);
    const q = (period: number, year = 2026) =>
      lookup('period-average', { organizationId: o, fromCurrency: 'EUR', toCurrency: 'USD', year, period });
    const march = await q(3);
    expect(march.body).toMatchObject({ derivation: 'Direct', effectiveRate: '1.07' });
    const feb = await q(2);
    // (1.0 + 1.2 + 1.25) / 3 = 1.15
    expect(feb.body).toMatchObject({ derivation: 'ComputedAverage', effectiveRate: '1.15', rate: null });
    expect(
      feb.body.legs.map((l: Record<string, string>) => `${l.effectiveDate} ${l.fromCurrency}${l.toCurrency}`),
    ).toEqual(['2026-02-01 EURUSD', '2026-02-15 EURUSD', '2026-02-28 USDEUR']);
    // January has only a YearEnd rate: nothing (never a closing rate)
    expect((await q(1)).body).toEqual({
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      rate: null,
      effectiveRate: null,
      derivation: null,
      legs: [],
    });
    // inverse direction of a stored Average: 1 / 1.07 = 0.934579439252… → 0.9345794393
    const inverse = await lookup('period-average', {
      organizationId: o,
      fromCurrency: 'USD',
      toCurrency: 'EUR',
      year: 2026,
      period: 3,
    });
    expect(inverse.body).toMatchObject({ derivation: 'Inverse', effectiveRate: '0.9345794393' });
    // period 13 = the whole fiscal year: latest Average of the year
    expect((await q(13)).body).toMatchObject({ derivation: 'Direct', effectiveRate: '1.07' });
    expect((await q(13, 2025)).body.rate).toBeNull();
  });

  it('period-average rounds the computed mean to 10 decimals and period 13 averages the whole year', async () => {
    const o = await freshOrg();
    await seed(o, [
      ['EUR', 'USD', '1', '2026-01-01'],
      ['EUR', 'USD', '1', '2026-06-30'],
      ['EUR', 'USD', '2', '2026-12-31'],
      ['EUR', 'USD', '7', '2027-01-01'],
    ]);
    // (1 + 1 + 2) / 3 = 1.3333333333…
    const year = await lookup('period-average', {
      organizationId: o,
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      year: 2026,
      period: 13,
    });
    expect(year.body).toMatchObject({ derivation: 'ComputedAverage', effectiveRate: '1.3333333333' });
    expect(year.body.legs).toHaveLength(3);
  });

  it('period-closing: latest YearEnd or Spot on or before the period end, YearEnd preferred on the same date, never after', async () => {
    const o = await freshOrg();
    await seed(o, [
      ['EUR', 'USD', '1.1', '2026-12-31'],
      ['EUR', 'USD', '1.15', '2026-12-31', 'YearEnd'],
      ['EUR', 'USD', '1.3', '2027-01-01'],
      ['EUR', 'USD', '1.2', '2026-11-29', 'YearEnd'],
      ['EUR', 'USD', '1.25', '2026-11-30'],
      ['EUR', 'USD', '1.9', '2026-11-30', 'Average'],
      ['EUR', 'USD', '1.8', '2026-11-30', 'Historical'],
    ]);
    const q = (period: number, year = 2026) =>
      lookup('period-closing', { organizationId: o, fromCurrency: 'EUR', toCurrency: 'USD', year, period });
    expect((await q(12)).body).toMatchObject({
      derivation: 'Direct',
      effectiveRate: '1.15',
      rate: { rateType: 'YearEnd' },
    });
    expect((await q(13)).body.effectiveRate).toBe('1.15'); // whole year: same end date
    expect((await q(11)).body).toMatchObject({
      effectiveRate: '1.25',
      rate: { rateType: 'Spot', effectiveDate: '2026-11-30' },
    });
    expect((await q(10)).body.rate).toBeNull(); // nothing on or before 2026-10-31
    expect((await q(1, 2027)).body.effectiveRate).toBe('1.3');
  });

  it("period lookups use the company's calendar when companyId is given, else the organization's fiscalYearEnd", async () => {
    const o = await freshOrg({ fiscalYearEnd: { month: 6, day: 30 } });
    const company = await insertCompany(o, { month: 3, day: 31 });
    await seed(o, [
      ['EUR', 'USD', '1.01', '2025-04-30', 'Average'], // company FY2026 period 1 (April 2025)
      ['EUR', 'USD', '1.02', '2025-07-31', 'Average'], // org FY2026 period 1 (July 2025)
      ['EUR', 'USD', '1.03', '2026-01-31', 'Average'], // calendar-year period 1
      ['EUR', 'USD', '1.11', '2026-03-31', 'YearEnd'], // company FY2026 end
      ['EUR', 'USD', '1.12', '2026-06-30', 'YearEnd'], // org FY2026 end
    ]);
    const q = (path: string, period: number, companyId?: string) =>
      lookup(path, {
        organizationId: o,
        fromCurrency: 'EUR',
        toCurrency: 'USD',
        year: 2026,
        period,
        companyId,
      });
    expect((await q('period-average', 1, company)).body.effectiveRate).toBe('1.01');
    expect((await q('period-average', 1)).body.effectiveRate).toBe('1.02');
    expect((await q('period-closing', 12, company)).body.effectiveRate).toBe('1.11');
    expect((await q('period-closing', 12)).body.effectiveRate).toBe('1.12');
    expect((await q('period-closing', 13, company)).body.effectiveRate).toBe('1.11');
    // period 13 with the company calendar: whole year 2025-04-01 … 2026-03-31, latest Average 2026-01-31
    expect((await q('period-average', 13, company)).body.effectiveRate).toBe('1.03');
    // org calendar: 2025-07-01 … 2026-06-30
    expect((await q('period-average', 13)).body.effectiveRate).toBe('1.03');

    const calendarOrg = await freshOrg();
    await seed(calendarOrg, [['EUR', 'USD', '1.03', '2026-01-31', 'Average']]);
    const dflt = await lookup('period-average', {
      organizationId: calendarOrg,
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      year: 2026,
      period: 1,
    });
    expect(dflt.body.effectiveRate).toBe('1.03'); // default fiscalYearEnd 12-31
  });

  it('period lookups answer 404 CompanyNotFoundError for a company outside the organization', async () => {
    const foreignCompany = await insertCompany(orgB, { month: 12, day: 31 });
    for (const path of ['period-average', 'period-closing']) {
      for (const companyId of [MISSING, foreignCompany]) {
        const res = await lookup(path, {
          ...base(),
          fromCurrency: 'EUR',
          toCurrency: 'USD',
          year: 2026,
          period: 1,
          companyId,
        });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ _tag: 'CompanyNotFoundError', message: expect.any(String), companyId });
      }
      const malformed = await lookup(path, {
        ...base(),
        fromCurrency: 'EUR',
        toCurrency: 'USD',
        year: 2026,
        period: 1,
        companyId: 'x',
      });
      expect(malformed.status).toBe(400);
      expect(malformed.body.issues[0].path).toBe('/query/companyId');
    }
  });

  it('every lookup answers SameCurrencyExchangeRateError before organization checks', async () => {
    const extra: Record<string, Record<string, string | number>> = {
      rate: { effectiveDate: '2026-01-15', rateType: 'Spot' },
      latest: {},
      closest: { date: '2026-01-15' },
      'period-average': { year: 2026, period: 1 },
      'period-closing': { year: 2026, period: 1 },
    };
    for (const [path, params] of Object.entries(extra)) {
      for (const organizationId of [org, MISSING, orgB]) {
        const res = await lookup(path, { organizationId, fromCurrency: 'EUR', toCurrency: 'EUR', ...params });
        expect(res.status, path).toBe(400);
        expect(res.body).toEqual({
          _tag: 'SameCurrencyExchangeRateError',
          message: expect.any(String),
          currency: 'EUR',
        });
      }
      const missing = await lookup(path, {
        organizationId: MISSING,
        fromCurrency: 'EUR',
        toCurrency: 'USD',
        ...params,
      });
      expect(missing.status, path).toBe(404);
      expect(missing.body._tag).toBe('OrganizationNotFoundError');
    }
  });

  it('validates lookup parameters', async () => {
    const bad: Array<[string, Record<string, string | number>, string]> = [
      ['rate', { fromCurrency: 'EUR', toCurrency: 'USD', effectiveDate: '2026-01-15' }, '/query/rateType'],
      ['rate', { fromCurrency: 'EUR', toCurrency: 'USD', rateType: 'Spot' }, '/query/effectiveDate'],
      ['latest', { fromCurrency: 'EUR' }, '/query/toCurrency'],
      ['closest', { fromCurrency: 'EUR', toCurrency: 'USD' }, '/query/date'],
      [
        'closest',
        { fromCurrency: 'EUR', toCurrency: 'USD', date: '2026-01-15', rateType: 'spot' },
        '/query/rateType',
      ],
      ['period-average', { fromCurrency: 'EUR', toCurrency: 'USD', year: 2026, period: 14 }, '/query/period'],
      ['period-average', { fromCurrency: 'EUR', toCurrency: 'USD', year: 2026, period: 0 }, '/query/period'],
      ['period-closing', { fromCurrency: 'EUR', toCurrency: 'USD', year: 1899, period: 1 }, '/query/year'],
      [
        'period-closing',
        { fromCurrency: 'EUR', toCurrency: 'USD', year: '2026.5', period: 1 },
        '/query/year',
      ],
      ['period-closing', { fromCurrency: 'EUR', toCurrency: 'USD', period: 1 }, '/query/year'],
    ];
    for (const [path, params, issue] of bad) {
      const res = await lookup(path, { organizationId: org, ...params });
      expect(res.status, `${path} ${issue}`).toBe(400);
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(issue);
    }
    const noOrg = await lookup('latest', { fromCurrency: 'EUR', toCurrency: 'USD' });
    expect(noOrg.body.issues.map((i: { path: string }) => i.path)).toContain('/query/organizationId');
  });

  it('static lookup paths take precedence over the id segment', async () => {
    const res = await t.get(`${BASE}/latest`, { token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe('ValidationError');
    const del = await t.del(`${BASE}/latest`, { token: owner.token });
    expect(del.status).toBe(405);
    const bulkGet = await t.get(`${BASE}/bulk`, { token: owner.token });
    expect(bulkGet.status).toBe(405);
  });

  it('viewers may look up; non-members get 403', async () => {
    const q = { organizationId: orgA, fromCurrency: 'EUR', toCurrency: 'USD' };
    expect((await lookup('latest', q, viewer)).status).toBe(200);
    const foreign = await lookup('latest', q, outsider);
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({
      currentRole: null,
      action: 'exchange_rate:read',
      requiredRole: 'viewer',
    });
  });
});

describe('tenant isolation of lookups', () => {
  it("never uses another organization's rates, neither directly nor as a triangulation leg", async () => {
    const mine = await freshOrg();
    const theirs = (await t.org(outsider)).id;
    await seed(mine, [['GBP', 'USD', '1.25', '2026-01-15']]);
    for (const [from, to, rate, date, type] of [
      ['EUR', 'USD', '1.1', '2026-01-15', 'Spot'],
      ['EUR', 'GBP', '0.9', '2026-01-15', 'Spot'],
      ['EUR', 'USD', '1.1', '2026-01-15', 'Average'],
      ['EUR', 'USD', '1.1', '2026-12-31', 'YearEnd'],
    ] as const) {
      await create(
        outsider,
        body(theirs, { fromCurrency: from, toCurrency: to, rate, effectiveDate: date, rateType: type }),
      );
    }
    const q = { organizationId: mine, fromCurrency: 'EUR', toCurrency: 'GBP' };
    for (const [path, extra] of [
      ['rate', { effectiveDate: '2026-01-15', rateType: 'Spot' }],
      ['latest', {}],
      ['closest', { date: '2026-01-15' }],
      ['period-average', { year: 2026, period: 1 }],
      ['period-closing', { year: 2026, period: 12 }],
    ] as const) {
      for (const to of ['GBP', 'USD']) {
        const res = await lookup(path, { ...q, toCurrency: to, ...extra });
        expect(res.status).toBe(200);
        expect(res.body.rate, `${path} ${to}`).toBeNull();
        expect(res.body.legs).toEqual([]);
      }
    }
    const list = await t.get(BASE, { token: owner.token });
    expect(list.body.rates.some((r: { organizationId: string }) => r.organizationId === theirs)).toBe(false);
    const theirList = await t.get(BASE, { token: outsider.token, query: { organizationId: theirs } });
    expect(theirList.body.total).toBe(4);
  });
});

describe('role matrix', () => {
  it('viewer reads; member, admin and owner manage', async () => {
    const r = await create(owner, body(orgA, { effectiveDate: '2022-02-02', fromCurrency: 'DKK' }));
    for (const user of [viewer, member, admin, owner]) {
      expect((await t.get(`${BASE}/${r.id}`, { token: user.token })).status).toBe(200);
      expect((await t.get(BASE, { token: user.token, query: { organizationId: orgA } })).status).toBe(200);
      expect(
        (await lookup('latest', { organizationId: orgA, fromCurrency: 'DKK', toCurrency: 'USD' }, user))
          .status,
      ).toBe(200);
    }
    const low = await t.post(BASE, {
      token: viewer.token,
      body: body(orgA, { effectiveDate: '2022-02-03' }),
    });
    expect(low.status).toBe(403);
    expect(low.body).toEqual({
      _tag: 'ForbiddenError',
      message: expect.any(String),
      resource: 'ExchangeRate',
      action: 'exchange_rate:manage',
      requiredRole: 'member',
      currentRole: 'viewer',
    });
    for (const [i, user] of [member, admin, owner].entries()) {
      const created = await create(
        user,
        body(orgA, { effectiveDate: `2022-03-0${i + 1}`, fromCurrency: 'DKK' }),
      );
      expect((await t.del(`${BASE}/${created.id}`, { token: user.token })).status).toBe(204);
    }
    expect((await t.del(`${BASE}/${r.id}`, { token: viewer.token })).status).toBe(403);
    expect((await t.get(`${BASE}/${r.id}`, { token: stranger.token })).status).toBe(403);
    expect((await t.get(`${BASE}/${r.id}`)).status).toBe(401);
  });
});

describe('resolution entry points for other modules', () => {
  let org: string;
  beforeAll(async () => {
    org = await freshOrg({}, 'USD');
    const rows: Array<[string, string, string, string, string?]> = [];
    const types: RateType[] = ['Spot', 'Average', 'Historical', 'YearEnd'];
    const pairs: Array<[string, string]> = [
      ['EUR', 'USD'],
      ['USD', 'EUR'],
      ['GBP', 'USD'],
      ['USD', 'JPY'],
      ['EUR', 'GBP'],
    ];
    // a deterministic spread of dates, types and directions
    let n = 0;
    for (let m = 1; m <= 12; m++) {
      for (const [i, [from, to]] of pairs.entries()) {
        for (const [j, type] of types.entries()) {
          if ((m * 7 + i * 3 + j * 5) % 4 !== 0) continue;
          n++;
          const day = String(((m * 5 + i * 11 + j * 3) % 27) + 1).padStart(2, '0');
          rows.push([
            from,
            to,
            `1.${String((n * 37) % 97).padStart(2, '0')}`,
            `2026-${String(m).padStart(2, '0')}-${day}`,
            type,
          ]);
        }
      }
    }
    // Spot only: the Average queries of CHF fall back to ComputedAverage
    rows.push(
      ['CHF', 'USD', '1.1', '2026-01-05'],
      ['USD', 'CHF', '0.9', '2026-01-20'],
      ['CHF', 'USD', '1.12', '2026-05-05'],
    );
    await seed(org, rows);
  });

  const queries = (): Array<{
    from: string;
    to: string;
    types: readonly RateType[];
    condition: DateCondition;
    computeAverage?: boolean;
  }> => {
    const out: Array<{
      from: string;
      to: string;
      types: readonly RateType[];
      condition: DateCondition;
      computeAverage?: boolean;
    }> = [];
    const currencyPairs: Array<[string, string]> = [
      ['EUR', 'USD'],
      ['USD', 'EUR'],
      ['EUR', 'JPY'],
      ['JPY', 'GBP'],
      ['GBP', 'EUR'],
      ['CHF', 'USD'],
    ];
    for (const [from, to] of currencyPairs) {
      for (const date of ['2026-01-01', '2026-03-15', '2026-06-30', '2026-09-09', '2026-12-31']) {
        out.push({ from, to, types: ['Spot'], condition: { kind: 'onOrBefore', date } });
        out.push({ from, to, types: CLOSING_RATE_TYPES, condition: { kind: 'onOrBefore', date } });
        out.push({ from, to, types: ANY_RATE_TYPE_ORDER, condition: { kind: 'nearest', date } });
        out.push({ from, to, types: ['Historical'], condition: { kind: 'on', date } });
      }
      for (const [start, end] of [
        ['2026-01-01', '2026-01-31'],
        ['2026-04-01', '2026-06-30'],
        ['2026-01-01', '2026-12-31'],
      ] as const) {
        out.push({
          from,
          to,
          types: ['Average'],
          condition: { kind: 'within', start, end },
          computeAverage: true,
        });
        out.push({ from, to, types: ['Spot', 'YearEnd'], condition: { kind: 'within', start, end } });
      }
      out.push({ from, to, types: ANY_RATE_TYPE_ORDER, condition: { kind: 'any' } });
    }
    return out;
  };

  const view = (r: ReturnType<typeof resolveRate>) =>
    r && {
      rate: formatRate(r.effectiveRate),
      derivation: r.derivation,
      id: r.rate?.id ?? null,
      legs: r.legs.map((l) => l.id),
    };

  it('resolveRateFor (pruned candidate query) equals resolveRate over every stored rate of the organization', async () => {
    const all = (await repo.listRates(db, { organizationIds: [org] }, { limit: 100000, offset: 0 })).rows;
    expect(all.length).toBeGreaterThan(30);
    let found = 0;
    const derivations = new Set<string>();
    for (const q of queries()) {
      const expected = resolveRate({ ...q, reportingCurrency: 'USD', rates: all });
      const actual = await resolveRateFor(db, { organizationId: org, ...q });
      expect(view(actual), JSON.stringify(q)).toEqual(view(expected));
      if (actual) {
        found++;
        derivations.add(actual.derivation);
      }
    }
    expect(found).toBeGreaterThan(50);
    expect([...derivations].sort()).toEqual(['ComputedAverage', 'Direct', 'Inverse', 'Triangulated']);
  });

  it('loadRateBook resolves like resolveRateFor, in memory', async () => {
    const book = await loadRateBook(db, org, ['EUR', 'GBP', 'JPY', 'CHF'], null);
    expect(book.reportingCurrency).toBe('USD');
    expect(book.currencies).toEqual(['CHF', 'EUR', 'GBP', 'JPY', 'USD']);
    for (const q of queries()) {
      expect(view(book.resolve(q)), JSON.stringify(q)).toEqual(
        view(await resolveRateFor(db, { organizationId: org, ...q })),
      );
    }
  });

  it('a bounded rate book loads only rates up to its date and refuses conditions beyond it', async () => {
    const book = await loadRateBook(db, org, ['EUR', 'GBP'], '2026-06-30');
    expect(book.rates.every((r) => r.effectiveDate <= '2026-06-30')).toBe(true);
    const q = { from: 'EUR', to: 'GBP', types: ['Spot'] as RateType[] };
    const c: DateCondition = { kind: 'onOrBefore', date: '2026-06-30' };
    expect(view(book.resolve({ ...q, condition: c }))).toEqual(
      view(await resolveRateFor(db, { organizationId: org, ...q, condition: c })),
    );
    expect(() => book.resolve({ ...q, condition: { kind: 'onOrBefore', date: '2026-07-01' } })).toThrow();
    expect(() => book.resolve({ ...q, condition: { kind: 'any' } })).toThrow();
    expect(() => book.resolve({ ...q, to: 'JPY', condition: c })).toThrow();
  });

  it('resolveRateFor scopes by organization and works inside a transaction', async () => {
    const other = await freshOrg();
    const none = await resolveRateFor(db, {
      organizationId: other,
      from: 'EUR',
      to: 'USD',
      types: ['Spot'],
      condition: { kind: 'any' },
    });
    expect(none).toBeNull();
    const inTx = await db.transaction((tx) =>
      resolveRateFor(tx, {
        organizationId: org,
        from: 'EUR',
        to: 'USD',
        types: ANY_RATE_TYPE_ORDER,
        condition: { kind: 'any' },
      }),
    );
    expect(inTx).not.toBeNull();
  });
});
