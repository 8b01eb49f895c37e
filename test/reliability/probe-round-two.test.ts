/**
 * Regression tests of the second adversarial probe: requests a client can send that answered 5xx
 * (amounts past what the ledger stores, huge offsets, U+0000 in a query value, creates racing deletes),
 * references left dangling by a race, the one definition of white space, and the login throttle under
 * concurrency. The races really interleave with TEST_DATABASE_URL (PostgreSQL, pool of 20); on PGlite
 * they run serialised and check the same outcomes.
 */
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { queryRows } from '../../src/db/client.ts';
import { canonicalJson } from '../../src/http/idempotency.ts';
import { MAX_OFFSET } from '../../src/http/schemas.ts';
import {
  createTestContext,
  PASSWORD,
  type Res,
  type TestContext,
  type TestUser,
  uniq,
} from '../helpers/app.ts';
import { type CompanyFixture, createCompany } from '../helpers/consolidation.ts';

let t: TestContext;
let owner: TestUser;
let orgId: string;
let usd: CompanyFixture;
let eur: CompanyFixture;

beforeAll(async () => {
  t = await createTestContext();
  owner = await t.user('probe2');
  orgId = (await t.org(owner, { settings: { requireApproval: false } })).id;
  usd = await createCompany(t, owner, orgId);
  eur = await createCompany(t, owner, orgId, { functionalCurrency: 'EUR' });
}, 60_000);

afterAll(async () => {
  await t?.close();
});

const ROUNDS = 6;

function noServerError(responses: Res[]): void {
  for (const r of responses) expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
}

function entry(company: CompanyFixture, lines: unknown[], transactionDate = '2026-04-10') {
  return {
    organizationId: orgId,
    companyId: company.id,
    description: uniq('Probe'),
    transactionDate,
    lines,
  };
}

const dr = (accountId: string, value: string, currency: string, exchangeRate?: string) => ({
  accountId,
  debitAmount: { value, currency },
  ...(exchangeRate ? { exchangeRate } : {}),
});
const cr = (accountId: string, value: string, currency: string, exchangeRate?: string) => ({
  accountId,
  creditAmount: { value, currency },
  ...(exchangeRate ? { exchangeRate } : {}),
});

describe('amounts near the limits', () => {
  it('refuses a line whose functional amount exceeds the bound with 400 naming the line (was 500)', async () => {
    const res = await t.post('/api/v1/journal-entries', {
      token: owner.token,
      body: entry(eur, [
        dr(eur.accounts['1010']!, '999999999999999.99', 'USD', '99999999'),
        cr(eur.accounts['4000']!, '999999999999999.99', 'USD', '99999999'),
      ]),
    });
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe('ValidationError');
    expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual([
      '/lines/0/debitAmount',
      '/lines/1/creditAmount',
    ]);
    expect(res.body.issues[0].message).toMatch(/functional amount/);
  });

  it('accepts functional amounts just below 10^15 and refuses 10^15', async () => {
    const below = await t.post('/api/v1/journal-entries', {
      token: owner.token,
      body: entry(eur, [
        dr(eur.accounts['1010']!, '499999999999999.99', 'USD', '2'),
        cr(eur.accounts['4000']!, '999999999999999.98', 'EUR'),
      ]),
    });
    expect(below.status, JSON.stringify(below.body)).toBe(201);
    expect(below.body.totalDebits).toEqual({ value: '999999999999999.98', currency: 'EUR' });
    const at = await t.post('/api/v1/journal-entries', {
      token: owner.token,
      body: entry(eur, [
        dr(eur.accounts['1010']!, '500000000000000.00', 'USD', '2'),
        cr(eur.accounts['4000']!, '500000000000000.00', 'USD', '2'),
      ]),
    });
    expect(at.status).toBe(400);
    expect(at.body.issues).toHaveLength(2);
  });

  it('refuses a post whose account balance would overflow with 409 AmountOutOfRangeError (was 500), nothing written', async () => {
    const co = await createCompany(t, owner, orgId);
    const created = await t.post('/api/v1/journal-entries', {
      token: owner.token,
      body: entry(co, [dr(co.accounts['1010']!, '100.00', 'USD'), cr(co.accounts['4000']!, '100.00', 'USD')]),
    });
    expect(created.status).toBe(201);
    // The account's month already holds a balance at the edge of what the ledger stores (as if it had
    // taken 100,000 lines of the largest amount).
    await t.database.db.execute(sql`
      insert into account_month_balances (organization_id, company_id, account_id, month_start, is_closing,
        is_adjustment, debit_total, credit_total)
      values (${orgId}, ${co.id}, ${co.accounts['1010']}, '2026-04-01', false, false,
        '99999999999999999999.00', '0')`);
    const posted = await t.post(`/api/v1/journal-entries/${created.body.id}/post`, {
      token: owner.token,
      body: { organizationId: orgId },
    });
    expect(posted.status).toBe(409);
    expect(posted.body).toEqual({ _tag: 'AmountOutOfRangeError', message: expect.any(String) });
    const after = await t.get(`/api/v1/journal-entries/${created.body.id}`, { token: owner.token });
    expect(after.body.status).toBe('Draft');
    const daily = await queryRows<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from account_balances where organization_id = ${orgId} and company_id = ${co.id}`,
    );
    expect(daily[0]!.n).toBe(0);
  });
});

describe('offset', () => {
  it('refuses offsets past the bound with 400 on every list, never rounding them (was 500)', async () => {
    const lists: Array<[string, Record<string, string>]> = [
      ['/api/v1/organizations', {}],
      ['/api/v1/companies', { organizationId: orgId }],
      ['/api/v1/accounts', { organizationId: orgId, companyId: usd.id }],
      ['/api/v1/journal-entries', {}],
      ['/api/v1/exchange-rates', {}],
      ['/api/v1/intercompany-transactions', {}],
      ['/api/v1/consolidation/groups', {}],
      ['/api/v1/consolidation/runs', {}],
      ['/api/v1/elimination-rules', {}],
      ['/api/v1/audit-log', { organizationId: orgId }],
      [`/api/v1/organizations/${orgId}/members`, {}],
    ];
    const huge = [
      '9223372036854775807',
      '9007199254740993',
      '1'.repeat(23),
      '9'.repeat(401),
      String(MAX_OFFSET + 1),
    ];
    for (const [path, query] of lists) {
      for (const offset of huge) {
        const res = await t.get(path, { token: owner.token, query: { ...query, offset } });
        expect(res.status, `${path} offset=${offset.slice(0, 30)}`).toBe(400);
        expect(res.body._tag).toBe('ValidationError');
        expect(res.body.issues[0].path).toBe('/query/offset');
      }
      const edge = await t.get(path, { token: owner.token, query: { ...query, offset: String(MAX_OFFSET) } });
      expect(edge.status, path).toBe(200);
      expect(edge.body.offset).toBe(MAX_OFFSET);
    }
  });
});

describe('U+0000 in query values', () => {
  it('answers 400 ValidationError (was 500)', async () => {
    const res = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: orgId, entityId: 'a\u0000b' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ _tag: 'ValidationError', issues: [{ path: '/query/entityId' }] });
  });
});

describe('white space', () => {
  it('trims U+0085 from names and keeps U+FEFF (one definition of white space)', async () => {
    const name = uniq('Ws');
    const first = await t.post('/api/v1/companies', {
      token: owner.token,
      body: {
        organizationId: orgId,
        name,
        legalName: 'Ws Inc.',
        jurisdiction: 'US',
        functionalCurrency: 'USD',
        reportingCurrency: 'USD',
        fiscalYearEnd: { month: 12, day: 31 },
      },
    });
    expect(first.status).toBe(201);
    const nel = await t.post('/api/v1/companies', {
      token: owner.token,
      body: {
        organizationId: orgId,
        name: `\u0085${name}\u0085`,
        legalName: '\u0085Ws Inc.\u2028',
        jurisdiction: 'US',
        functionalCurrency: 'USD',
        reportingCurrency: 'USD',
        fiscalYearEnd: { month: 12, day: 31 },
      },
    });
    expect(nel.status).toBe(409);
    expect(nel.body).toMatchObject({ _tag: 'CompanyNameAlreadyExistsError', name });
    // U+FEFF is not white space: kept. (Trailing: PGlite's text decoding drops a leading byte-order
    // mark of any value it returns, whatever the service stored.)
    const bom = await t.post('/api/v1/organizations', {
      token: owner.token,
      body: { name: `${name}\uFEFF`, reportingCurrency: 'USD' },
    });
    expect(bom.status).toBe(201);
    expect(bom.body.name).toBe(`${name}\uFEFF`);
  });
});

describe('login throttle under concurrency', () => {
  it('checks at most the limit of concurrent wrong passwords for one e-mail, the real one included', async () => {
    const user = await t.user('conc-login');
    const guesses = Array.from({ length: 60 }, (_, i) =>
      t.post('/api/auth/login', {
        body: { email: user.email, password: i === 55 ? PASSWORD : `Wrong-pass${i}` },
      }),
    );
    const results = await Promise.all(guesses);
    const statuses = results.map((r) => r.status);
    // The default limit is 10 failures per e-mail: at most 10 attempts are checked, the rest are 429.
    expect(statuses.filter((s) => s === 401 || s === 200).length).toBeLessThanOrEqual(10);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(50);
    expect(statuses[55]).toBe(429);
  });
});

describe('deletes racing creates (PostgreSQL: real interleaving)', () => {
  it('an organization deleted while a company, a member or a rate is created: NotFound, never 500', async () => {
    const other = await t.user('race-member');
    for (let i = 0; i < ROUNDS; i++) {
      const org = (await t.org(owner)).id;
      const [del, company, member, rate] = await Promise.all([
        t.del(`/api/v1/organizations/${org}`, { token: owner.token }),
        t.post('/api/v1/companies', {
          token: owner.token,
          body: {
            organizationId: org,
            name: uniq('Race'),
            legalName: 'Race Inc.',
            jurisdiction: 'US',
            functionalCurrency: 'USD',
            reportingCurrency: 'USD',
            fiscalYearEnd: { month: 12, day: 31 },
          },
        }),
        t.post(`/api/v1/organizations/${org}/members`, {
          token: owner.token,
          body: { email: other.email, role: 'viewer' },
        }),
        t.post('/api/v1/exchange-rates', {
          token: owner.token,
          body: {
            organizationId: org,
            fromCurrency: 'EUR',
            toCurrency: 'USD',
            rate: '1.1',
            effectiveDate: '2026-01-01',
            rateType: 'Spot',
            source: 'Manual',
          },
        }),
      ]);
      noServerError([del, company, member, rate]);
      expect([204, 409]).toContain(del.status);
      if (del.status === 204) expect(company.status).not.toBe(201);
      for (const r of [company, member, rate]) {
        if (r.status === 404) expect(r.body._tag).toBe('OrganizationNotFoundError');
      }
    }
  });

  it('an account deleted while an entry using it is created: InvalidJournalLineAccountError, never 500', async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const account = await t.post('/api/v1/accounts', {
        token: owner.token,
        body: {
          organizationId: orgId,
          companyId: usd.id,
          accountNumber: String(70000 + Math.floor(Math.random() * 29999)),
          name: uniq('Race'),
          accountType: 'Asset',
          accountCategory: 'CurrentAsset',
        },
      });
      expect(account.status, JSON.stringify(account.body)).toBe(201);
      const [del, created] = await Promise.all([
        t.del(`/api/v1/accounts/organizations/${orgId}/accounts/${account.body.id}`, { token: owner.token }),
        t.post('/api/v1/journal-entries', {
          token: owner.token,
          body: entry(usd, [dr(account.body.id, '10.00', 'USD'), cr(usd.accounts['4000']!, '10.00', 'USD')]),
        }),
      ]);
      noServerError([del, created]);
      expect(del.status === 204 && created.status === 201).toBe(false);
      if (created.status === 400) {
        expect(created.body).toMatchObject({
          _tag: 'InvalidJournalLineAccountError',
          lineNumber: 1,
          accountId: account.body.id,
          reason: 'NotFound',
        });
      }
    }
  });

  it('an elimination rule created while its debit account is deleted never points at a missing account', async () => {
    const parent = await createCompany(t, owner, orgId);
    const sub = await createCompany(t, owner, orgId);
    const group = await t.post('/api/v1/consolidation/groups', {
      token: owner.token,
      body: {
        organizationId: orgId,
        name: uniq('RaceGroup'),
        reportingCurrency: 'USD',
        consolidationMethod: 'FullConsolidation',
        parentCompanyId: parent.id,
        members: [{ companyId: sub.id, ownershipPercentage: 100, consolidationMethod: 'FullConsolidation' }],
      },
    });
    expect(group.status).toBe(201);
    for (let i = 0; i < ROUNDS; i++) {
      const account = await t.post('/api/v1/accounts', {
        token: owner.token,
        body: {
          organizationId: orgId,
          companyId: sub.id,
          accountNumber: String(80000 + Math.floor(Math.random() * 19999)),
          name: uniq('RuleRace'),
          accountType: 'Liability',
          accountCategory: 'CurrentLiability',
        },
      });
      expect(account.status).toBe(201);
      const [del, rule] = await Promise.all([
        t.del(`/api/v1/accounts/organizations/${orgId}/accounts/${account.body.id}`, { token: owner.token }),
        t.post('/api/v1/elimination-rules', {
          token: owner.token,
          body: {
            organizationId: orgId,
            consolidationGroupId: group.body.id,
            name: uniq('Rule'),
            eliminationType: 'IntercompanyReceivablesPayables',
            triggerConditions: [],
            sourceAccounts: [{ accountNumber: '1100', companyId: parent.id }],
            targetAccounts: [],
            debitAccountId: account.body.id,
            creditAccountId: parent.accounts['1100'],
            isAutomatic: true,
            priority: 10,
          },
        }),
      ]);
      noServerError([del, rule]);
      expect(del.status === 204 && rule.status === 201).toBe(false);
      if (rule.status === 404) expect(rule.body).toMatchObject({ _tag: 'AccountNotFoundError' });
    }
    const dangling = await queryRows<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from elimination_rules r where organization_id = ${orgId}
          and not exists (select 1 from accounts a where a.organization_id = r.organization_id
                          and a.id = r.debit_account_id)`,
    );
    expect(dangling[0]!.n).toBe(0);
  });

  it('an intercompany link written while its draft entry is deleted ends null (or refused), never dangling', async () => {
    const other = await createCompany(t, owner, orgId);
    for (let i = 0; i < ROUNDS; i++) {
      const draft = await t.post('/api/v1/journal-entries', {
        token: owner.token,
        body: entry(usd, [
          dr(usd.accounts['1010']!, '5.00', 'USD'),
          cr(usd.accounts['4000']!, '5.00', 'USD'),
        ]),
      });
      expect(draft.status).toBe(201);
      const tx = await t.post('/api/v1/intercompany-transactions', {
        token: owner.token,
        body: {
          organizationId: orgId,
          fromCompanyId: usd.id,
          toCompanyId: other.id,
          transactionType: 'Loan',
          transactionDate: '2026-04-10',
          amount: { value: '5.00', currency: 'USD' },
        },
      });
      expect(tx.status).toBe(201);
      const [del, link] = await Promise.all([
        t.del(`/api/v1/journal-entries/${draft.body.id}`, { token: owner.token }),
        t.post(`/api/v1/intercompany-transactions/${tx.body.id}/link-from-journal-entry`, {
          token: owner.token,
          body: { journalEntryId: draft.body.id },
        }),
      ]);
      noServerError([del, link]);
      if (link.status === 404) expect(link.body._tag).toBe('JournalEntryNotFoundError');
      const after = await t.get(`/api/v1/intercompany-transactions/${tx.body.id}`, { token: owner.token });
      if (del.status === 204) expect(after.body.fromJournalEntryId).toBeNull();
    }
  });
});

describe('Idempotency-Key claims left in progress by a stopped process', () => {
  const fingerprint = (body: unknown) =>
    createHash('sha256')
      .update(`POST\n/api/v1/journal-entries\n\n${canonicalJson(body)}`)
      .digest('hex');

  async function orphanClaim(key: string, body: unknown, leaseMsFromNow: number | null, state = 'running') {
    await t.database.db.execute(sql`
      insert into idempotency_keys (user_id, key, fingerprint, state, created_at, expires_at, lease_expires_at)
      values (${owner.id}, ${key}, ${fingerprint(body)}, ${state}, now() - interval '1 minute',
        now() + interval '1 day',
        ${leaseMsFromNow === null ? null : new Date(Date.now() + leaseMsFromNow).toISOString()})`);
  }
  const send = (key: string, body: unknown) =>
    t.post('/api/v1/journal-entries', { token: owner.token, body, headers: { 'idempotency-key': key } });
  const body = () =>
    entry(usd, [dr(usd.accounts['1010']!, '7.00', 'USD'), cr(usd.accounts['4000']!, '7.00', 'USD')]);

  it('a retry takes over a claim whose lease expired and executes once; later retries replay it', async () => {
    const key = uniq('orphan');
    const b = body();
    await orphanClaim(key, b, -1_000);
    const first = await send(key, b);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const again = await send(key, b);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const list = await t.get('/api/v1/journal-entries', {
      token: owner.token,
      query: { organizationId: orgId, companyId: usd.id, limit: 100 },
    });
    expect(
      list.body.entries.filter((e: { description: string }) => e.description === b.description),
    ).toHaveLength(1);
  });

  it('a claim whose lease is still running answers 409 InProgress; another body under the key 409 Reused', async () => {
    const key = uniq('live');
    const b = body();
    await orphanClaim(key, b, 60_000);
    const res = await send(key, b);
    expect(res.status).toBe(409);
    expect(res.body._tag).toBe('IdempotencyKeyInProgressError');
    const expiredOther = uniq('other');
    await orphanClaim(expiredOther, b, -1_000);
    const reused = await send(expiredOther, body());
    expect(reused.status).toBe(409);
    expect(reused.body._tag).toBe('IdempotencyKeyReusedError');
  });

  it('a claim whose writes committed is never taken over, even with its lease expired', async () => {
    const key = uniq('committed');
    const b = body();
    await orphanClaim(key, b, -1_000, 'committed');
    const res = await send(key, b);
    expect(res.status).toBe(409);
    expect(res.body._tag).toBe('IdempotencyKeyInProgressError');
  });

  it('on the embedded database, a new process releases the claims left running at start-up', async () => {
    if (t.database.kind !== 'pglite') return;
    const key = uniq('restart');
    const b = body();
    await orphanClaim(key, b, 60_000); // the lease had not expired when the process died
    const restarted = await buildApp({ database: t.database, logger: false });
    await restarted.ready();
    await restarted.close();
    const res = await send(key, b);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});

describe('large list reads', () => {
  it('bounds a journal-entry page to its line budget and echoes the entries it holds as limit', async () => {
    const co = await createCompany(t, owner, orgId);
    const lines = Array.from({ length: 500 }, (_, i) =>
      i % 2 === 0 ? dr(co.accounts['1010']!, '1.00', 'USD') : cr(co.accounts['4000']!, '1.00', 'USD'),
    );
    for (let i = 0; i < 5; i++) {
      const res = await t.post('/api/v1/journal-entries', { token: owner.token, body: entry(co, lines) });
      expect(res.status).toBe(201);
    }
    const small = await t.post('/api/v1/journal-entries', {
      token: owner.token,
      body: entry(
        co,
        [dr(co.accounts['1010']!, '1.00', 'USD'), cr(co.accounts['4000']!, '1.00', 'USD')],
        '2026-01-05',
      ),
    });
    expect(small.status).toBe(201);
    const seen: string[] = [];
    let offset = 0;
    const pages: Array<{ limit: number; count: number; lines: number }> = [];
    while (offset < 6) {
      const page = await t.get('/api/v1/journal-entries', {
        token: owner.token,
        query: { organizationId: orgId, companyId: co.id, limit: 100, offset },
      });
      expect(page.status).toBe(200);
      expect(page.body.total).toBe(6);
      const count = page.body.entries.length;
      const lineCount = page.body.entries.reduce(
        (n: number, e: { lines: unknown[] }) => n + e.lines.length,
        0,
      );
      pages.push({ limit: page.body.limit, count, lines: lineCount });
      for (const e of page.body.entries) {
        expect(e.lines.length).toBeGreaterThan(0);
        seen.push(e.id);
      }
      offset += page.body.limit;
    }
    // 2,000 lines a page: four 500-line entries, then the fifth and the small one.
    expect(pages).toEqual([
      { limit: 4, count: 4, lines: 2000 },
      { limit: 100, count: 2, lines: 502 },
    ]);
    expect(new Set(seen).size).toBe(6);
  });
});
