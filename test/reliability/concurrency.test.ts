/**
 * Concurrency (contract 1.15, 1.16): many requests in flight at once against the same company and the
 * same accounts. On PGlite the database serialises transactions; with TEST_DATABASE_URL (PostgreSQL,
 * pool of 20) they really interleave, so row locks, the entry-number counter, balance upserts and the
 * idempotency claims are exercised for real.
 *
 * Invariants: every create succeeds with a distinct entry number; every post and reversal happens
 * exactly once (the loser of a race gets the documented 400/409); an idempotency key runs its request
 * exactly once (the others replay it or answer 409 InProgress); and `account_balances` equals the sum
 * of the posted lines exactly (SQL over both tables).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { createTestContext, type TestContext, type TestUser, uniq } from '../helpers/app.ts';
import { balanceMismatches, trialBalanceNets } from '../helpers/ledger.ts';

let t: TestContext;
let owner: TestUser;
let orgId: string;
let companyId: string;
let cash: string;
let revenue: string;
let receivable: string;

beforeAll(async () => {
  t = await createTestContext();
  owner = await t.user('conc-owner');
  orgId = (await t.org(owner, { settings: { requireApproval: false } })).id;
  const co = await t.post('/api/v1/companies', {
    token: owner.token,
    body: {
      organizationId: orgId,
      name: uniq('ConcCo'),
      legalName: 'Conc Inc.',
      jurisdiction: 'US',
      functionalCurrency: 'USD',
      reportingCurrency: 'USD',
      fiscalYearEnd: { month: 12, day: 31 },
      accountTemplate: 'GeneralBusiness',
    },
  });
  expect(co.status).toBe(201);
  companyId = co.body.id;
  const accounts = await t.get('/api/v1/accounts', {
    token: owner.token,
    query: { organizationId: orgId, companyId, limit: 100 },
  });
  const byNumber = new Map<string, string>(
    accounts.body.accounts.map((a: { accountNumber: string; id: string }) => [a.accountNumber, a.id]),
  );
  cash = byNumber.get('1010')!;
  revenue = byNumber.get('4000')!;
  receivable = byNumber.get('1100')!;
}, 60_000);

afterAll(async () => {
  await t?.close();
});

/** Dr cash / Cr revenue (and Dr receivable when `three`), amount in cents, all on one date. */
function entryBody(cents: number, description = uniq('Conc'), three = false) {
  const value = (c: number) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;
  const lines = three
    ? [
        { accountId: cash, debitAmount: { value: value(cents), currency: 'USD' } },
        { accountId: receivable, debitAmount: { value: value(cents + 1), currency: 'USD' } },
        { accountId: revenue, creditAmount: { value: value(2 * cents + 1), currency: 'USD' } },
      ]
    : [
        { accountId: cash, debitAmount: { value: value(cents), currency: 'USD' } },
        { accountId: revenue, creditAmount: { value: value(cents), currency: 'USD' } },
      ];
  return { organizationId: orgId, companyId, description, transactionDate: '2026-05-10', lines };
}

const create = (body: unknown, headers?: Record<string, string>) =>
  t.post('/api/v1/journal-entries', { token: owner.token, body, ...(headers ? { headers } : {}) });

async function ledgerIsConsistent(): Promise<void> {
  expect(await balanceMismatches(t, orgId)).toEqual([]);
  for (const row of await trialBalanceNets(t, orgId)) expect(Number(row.net)).toBe(0);
  // Status vs lines vs reversal links: each reversed entry has exactly one posted reversal.
  const broken = await queryRows<{ id: string; status: string; reversals: number }>(
    t.database.db,
    sql`select e.id, e.status, count(r.id)::int as reversals
        from journal_entries e
        left join journal_entries r on r.organization_id = e.organization_id and r.reversed_entry_id = e.id
                                    and r.is_reversing
        where e.organization_id = ${orgId} and not e.is_reversing
        group by e.id, e.status
        having (e.status = 'Reversed') <> (count(r.id) = 1) or count(r.id) > 1`,
  );
  expect(broken).toEqual([]);
}

describe('concurrency', () => {
  it('creates 50 entries at once in one company: all 201, distinct numbers', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => create(entryBody(100 + i))));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    const numbers = new Set(results.map((r) => r.body.entryNumber));
    expect(numbers.size).toBe(50);
  }, 60_000);

  it('runs 200 posts and reversals at once on the same accounts exactly once each', async () => {
    // 50 entries to post (each posted twice at once) and 50 posted entries to reverse (each twice).
    const drafts = await Promise.all(
      Array.from({ length: 100 }, (_, i) => create(entryBody(1000 + i, undefined, i % 3 === 0))),
    );
    expect(drafts.every((r) => r.status === 201)).toBe(true);
    const ids = drafts.map((r) => r.body.id as string);
    const toPost = ids.slice(0, 50);
    const toReverse = ids.slice(50);
    const prePosted = await Promise.all(
      toReverse.map((id) => t.post(`/api/v1/journal-entries/${id}/post`, { token: owner.token, body: {} })),
    );
    expect(prePosted.every((r) => r.status === 200)).toBe(true);

    const post = (id: string) =>
      t.post(`/api/v1/journal-entries/${id}/post`, { token: owner.token, body: {} });
    const reverse = (id: string) =>
      t.post(`/api/v1/journal-entries/${id}/reverse`, {
        token: owner.token,
        body: { reversalDate: '2026-05-11' },
      });
    const requests: Array<Promise<{ kind: 'post' | 'reverse'; id: string; status: number; tag?: string }>> =
      [];
    for (let i = 0; i < 50; i++) {
      for (const kind of ['post', 'reverse'] as const) {
        const id = kind === 'post' ? toPost[i]! : toReverse[i]!;
        for (let copy = 0; copy < 2; copy++) {
          requests.push(
            (kind === 'post' ? post(id) : reverse(id)).then((r) => ({
              kind,
              id,
              status: r.status,
              tag: r.body?._tag,
            })),
          );
        }
      }
    }
    const outcomes = await Promise.all(requests);
    expect(outcomes).toHaveLength(200);
    expect(outcomes.filter((o) => o.status >= 500)).toEqual([]);
    for (const id of toPost) {
      const mine = outcomes.filter((o) => o.id === id).map((o) => `${o.status} ${o.tag ?? ''}`.trim());
      expect(mine.sort()).toEqual(['200', '400 InvalidStatusTransitionError']);
    }
    for (const id of toReverse) {
      const mine = outcomes.filter((o) => o.id === id).map((o) => `${o.status} ${o.tag ?? ''}`.trim());
      expect(mine.sort()).toEqual(['201', '409 JournalEntryAlreadyReversedError']);
    }
    await ledgerIsConsistent();
  }, 120_000);

  it('executes a request exactly once under concurrent retries with one Idempotency-Key', async () => {
    const description = uniq('Idem');
    const body = entryBody(4242, description);
    const key = uniq('key');
    const results = await Promise.all(
      Array.from({ length: 20 }, () => create(body, { 'idempotency-key': key })),
    );
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of results) {
      if (r.status === 409) expect(r.body._tag).toBe('IdempotencyKeyInProgressError');
      else expect(r.status).toBe(201);
    }
    // One entry, and every 201 (the original and the replays) names it.
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    expect(created.filter((r) => r.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    const rows = await queryRows<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from journal_entries where organization_id = ${orgId} and description = ${description}`,
    );
    expect(rows[0]!.n).toBe(1);

    // A retry after completion replays; the same key with another body is refused.
    const replay = await create(body, { 'idempotency-key': key });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(created[0]!.body.id);
    const reused = await create(entryBody(1, description), { 'idempotency-key': key });
    expect(reused.status).toBe(409);
    expect(reused.body._tag).toBe('IdempotencyKeyReusedError');

    // Concurrent idempotent posts of one entry: posted once.
    const postKey = uniq('post');
    const id = created[0]!.body.id as string;
    const posts = await Promise.all(
      Array.from({ length: 10 }, () =>
        t.post(`/api/v1/journal-entries/${id}/post`, {
          token: owner.token,
          body: {},
          headers: { 'idempotency-key': postKey },
        }),
      ),
    );
    expect(posts.filter((r) => r.status === 200 && r.headers['idempotent-replayed'] !== 'true')).toHaveLength(
      1,
    );
    for (const r of posts) expect([200, 409]).toContain(r.status);
    await ledgerIsConsistent();
  }, 60_000);
});
