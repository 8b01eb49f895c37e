/**
 * Cursor paging (`after` / `nextCursor`) on the journal-entry, audit-log and intercompany lists: pages
 * read while new rows are being created neither skip nor repeat a row that existed when the reading
 * started, and follow the documented order; offset paging keeps working beside it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext, type TestUser } from '../helpers/app.ts';

let t: TestContext;
let owner: TestUser;
let orgId: string;
let c1: string;
let c2: string;
let accounts: Record<string, string>;

async function company(name: string): Promise<string> {
  const res = await t.post('/api/v1/companies', {
    token: owner.token,
    body: {
      organizationId: orgId,
      name,
      legalName: `${name} Inc.`,
      jurisdiction: 'US-DE',
      functionalCurrency: 'USD',
      reportingCurrency: 'USD',
      fiscalYearEnd: { month: 12, day: 31 },
      accountTemplate: 'GeneralBusiness',
    },
  });
  expect(res.status).toBe(201);
  const fy = await t.post(`/api/v1/organizations/${orgId}/companies/${res.body.id}/fiscal-years`, {
    token: owner.token,
    body: { year: 2026 },
  });
  expect(fy.status).toBe(201);
  return res.body.id;
}

let entryCounter = 0;
async function entry(): Promise<string> {
  const n = ++entryCounter;
  // Dates spread over the year, several entries per day, so that ties on the date are common.
  const day = String((n % 9) + 1).padStart(2, '0');
  const month = String((n % 6) + 1).padStart(2, '0');
  const res = await t.post('/api/v1/journal-entries', {
    token: owner.token,
    body: {
      organizationId: orgId,
      companyId: c1,
      description: `Cursor test ${n}`,
      transactionDate: `2026-${month}-${day}`,
      lines: [
        { accountId: accounts['1010'], debitAmount: { value: '10.00', currency: 'USD' } },
        { accountId: accounts['4000'], creditAmount: { value: '10.00', currency: 'USD' } },
      ],
    },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function ic(n: number): Promise<string> {
  const res = await t.post('/api/v1/intercompany-transactions', {
    token: owner.token,
    body: {
      organizationId: orgId,
      fromCompanyId: c1,
      toCompanyId: c2,
      transactionType: 'Sale',
      transactionDate: `2026-0${(n % 3) + 1}-15`,
      amount: { value: `${100 + n}.00`, currency: 'USD' },
      description: `Cursor IC ${n}`,
    },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

const num = (entryNumber: string) => Number(entryNumber.replace(/\D/g, ''));

/** Reads the whole list page by page with `after`, running `during` between pages. */
async function readAll(
  url: string,
  key: string,
  query: Record<string, string | number>,
  during: () => Promise<unknown>,
): Promise<Array<Record<string, any>>> {
  const seen: Array<Record<string, any>> = [];
  let after: string | null = null;
  for (let pages = 0; pages < 200; pages++) {
    const res: { status: number; body: any } = await t.get(url, {
      token: owner.token,
      query: { ...query, ...(after ? { after } : {}) },
    });
    expect(res.status).toBe(200);
    seen.push(...res.body[key]);
    after = res.body.nextCursor ?? null;
    if (after === null) return seen;
    await during();
  }
  throw new Error('too many pages');
}

beforeAll(async () => {
  t = await createTestContext();
  owner = await t.user('cursor');
  orgId = (await t.org(owner, { settings: { requireApproval: false } })).id;
  c1 = await company('Cursor One');
  c2 = await company('Cursor Two');
  const list = await t.get('/api/v1/accounts', {
    token: owner.token,
    query: { organizationId: orgId, companyId: c1, limit: 100 },
  });
  accounts = Object.fromEntries(list.body.accounts.map((a: any) => [a.accountNumber, a.id]));
}, 60_000);
afterAll(async () => t?.close());

describe('cursor paging', () => {
  it('journal entries: no entry skipped or repeated while entries are created between pages', async () => {
    const before: string[] = [];
    for (let i = 0; i < 40; i++) before.push(await entry());
    const created: string[] = [];
    const seen = await readAll(
      '/api/v1/journal-entries',
      'entries',
      { organizationId: orgId, limit: 7 },
      async () => {
        created.push(await entry(), await entry());
      },
    );
    const ids = seen.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length); // nothing repeated
    for (const id of before) expect(ids).toContain(id); // nothing skipped
    // The documented order: transactionDate desc, entry number desc, id.
    for (let i = 1; i < seen.length; i++) {
      const a = seen[i - 1]!;
      const b = seen[i]!;
      const ok =
        a.transactionDate > b.transactionDate ||
        (a.transactionDate === b.transactionDate && num(a.entryNumber) > num(b.entryNumber));
      expect(ok, `${a.transactionDate} ${a.entryNumber} before ${b.transactionDate} ${b.entryNumber}`).toBe(
        true,
      );
    }
    expect(created.length).toBeGreaterThan(5);
  }, 120_000);

  it('at rest, cursor pages equal offset pages; the last page has no nextCursor', async () => {
    const all = await t.get('/api/v1/journal-entries', {
      token: owner.token,
      query: { organizationId: orgId, limit: 100 },
    });
    expect(all.status).toBe(200);
    const byCursor = await readAll(
      '/api/v1/journal-entries',
      'entries',
      { organizationId: orgId, limit: 9 },
      async () => {},
    );
    expect(byCursor.map((e) => e.id)).toEqual(
      all.body.entries.map((e: any) => e.id).slice(0, byCursor.length),
    );
    expect(byCursor.length).toBe(Math.min(all.body.total, 100));
    const first = await t.get('/api/v1/journal-entries', {
      token: owner.token,
      query: { organizationId: orgId, limit: 5 },
    });
    expect(first.body).toMatchObject({
      total: all.body.total,
      limit: 5,
      offset: 0,
      nextCursor: expect.any(String),
    });
    const second = await t.get('/api/v1/journal-entries', {
      token: owner.token,
      query: { organizationId: orgId, limit: 5, after: first.body.nextCursor },
    });
    const third = await t.get('/api/v1/journal-entries', {
      token: owner.token,
      query: { organizationId: orgId, limit: 5, offset: 5 },
    });
    expect(second.body.entries.map((e: any) => e.id)).toEqual(third.body.entries.map((e: any) => e.id));
    expect(second.body.total).toBe(all.body.total);
    const last = await t.get('/api/v1/journal-entries', {
      token: owner.token,
      query: { organizationId: orgId, limit: 100, offset: all.body.total - 1 },
    });
    expect(last.body.entries).toHaveLength(1);
    expect(last.body).not.toHaveProperty('nextCursor');
  });

  it('refuses a malformed cursor and a cursor combined with an offset', async () => {
    for (const after of [
      'not-a-cursor',
      'W10',
      Buffer.from('["2026-01-01","x","y"]').toString('base64url'),
    ]) {
      const res = await t.get('/api/v1/journal-entries', {
        token: owner.token,
        query: { organizationId: orgId, after },
      });
      expect(res.status).toBe(400);
      expect(res.body.issues).toEqual([{ path: '/query/after', message: expect.any(String) }]);
    }
    const first = await t.get('/api/v1/journal-entries', {
      token: owner.token,
      query: { organizationId: orgId, limit: 2 },
    });
    const res = await t.get('/api/v1/journal-entries', {
      token: owner.token,
      query: { organizationId: orgId, after: first.body.nextCursor, offset: 4 },
    });
    expect(res.status).toBe(400);
    expect(res.body.issues[0].path).toBe('/query/offset');
  });

  it('audit log: no entry skipped or repeated while the log grows', async () => {
    const start = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: orgId, limit: 100 },
    });
    const existing = start.body.entries.map((e: any) => e.id);
    const seen = await readAll('/api/v1/audit-log', 'entries', { organizationId: orgId, limit: 6 }, () =>
      entry(),
    );
    const ids = seen.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of existing) expect(ids).toContain(id);
    for (let i = 1; i < seen.length; i++) expect(seen[i - 1]!.createdAt >= seen[i]!.createdAt).toBe(true);
  }, 120_000);

  it('intercompany transactions: no transaction skipped or repeated while others are created', async () => {
    const before: string[] = [];
    for (let i = 0; i < 15; i++) before.push(await ic(i));
    let n = 100;
    const seen = await readAll(
      '/api/v1/intercompany-transactions',
      'transactions',
      { organizationId: orgId, limit: 4 },
      async () => {
        await Promise.all([ic(n++), ic(n++)]);
      },
    );
    const ids = seen.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of before) expect(ids).toContain(id);
    for (let i = 1; i < seen.length; i++) {
      const a = seen[i - 1]!;
      const b = seen[i]!;
      expect(
        a.transactionDate > b.transactionDate ||
          (a.transactionDate === b.transactionDate && a.createdAt >= b.createdAt),
      ).toBe(true);
    }
  }, 120_000);
});
