/**
 * A run reuses the charts of accounts an earlier run of the process read, as long as their version
 * (raised by the database in every transaction that changes a company's accounts) is unchanged: a
 * change of an account — a new one, a new name, one deleted — shows in the
 * next run, and so does a change made by a statement the service did not write. The versions
 * themselves: raised once per changing statement and company, not by a rolled-back change.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction, queryRows } from '../../src/db/client.ts';
import { ChartCache, chartCacheOf } from '../../src/modules/consolidation/runs.chart.ts';
import { createTestContext, type TestContext, type TestUser } from '../helpers/app.ts';
import { type CompanyFixture, createCompany, createWholeGroup, postEntry } from '../helpers/consolidation.ts';

let t: TestContext;
let owner: TestUser;
let orgId: string;
let parent: CompanyFixture;
let sub: CompanyFixture;
let groupId: string;

const accountUrl = (id: string) => `/api/v1/accounts/organizations/${orgId}/accounts/${id}`;

async function version(companyId: string): Promise<number> {
  const rows = await queryRows<{ v: string }>(
    t.database.db,
    sql`select coalesce((select version from account_chart_versions
                         where organization_id = ${orgId} and company_id = ${companyId}), 0)::text as v`,
  );
  return Number(rows[0]!.v);
}

/** Runs the group for December 2026 and returns its closing trial balance. */
async function runTrialBalance(): Promise<any> {
  const started = await t.post(`/api/v1/consolidation/groups/${groupId}/runs`, {
    token: owner.token,
    body: { periodRef: { year: 2026, period: 12 }, forceRegeneration: true },
  });
  expect([201, 202], JSON.stringify(started.body)).toContain(started.status);
  let run = started.body;
  for (let i = 0; i < 400 && !['Completed', 'Failed', 'Cancelled'].includes(run.status); i++) {
    await new Promise((r) => setTimeout(r, 10));
    run = (await t.get(`/api/v1/consolidation/runs/${run.id}`, { token: owner.token })).body;
  }
  expect(run.status, JSON.stringify(run.errorMessage)).toBe('Completed');
  const tb = await t.get(`/api/v1/consolidation/runs/${run.id}/trial-balance`, { token: owner.token });
  expect(tb.status).toBe(200);
  return tb.body;
}

const line = (tb: any, accountNumber: string) =>
  tb.lineItems.find((l: any) => l.accountNumber === accountNumber);

async function createAccount(co: CompanyFixture, accountNumber: string, name: string): Promise<string> {
  const res = await t.post('/api/v1/accounts', {
    token: owner.token,
    body: {
      organizationId: orgId,
      companyId: co.id,
      accountNumber,
      name,
      accountType: 'Asset',
      accountCategory: 'CurrentAsset',
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  co.accounts[accountNumber] = res.body.id;
  return res.body.id;
}

beforeAll(async () => {
  t = await createTestContext();
  owner = await t.user('chart-cache');
  orgId = (await t.org(owner, { settings: { requireApproval: false } })).id;
  parent = await createCompany(t, owner, orgId);
  sub = await createCompany(t, owner, orgId, { functionalCurrency: 'USD' });
  groupId = await createWholeGroup(t, owner, orgId, parent, [sub]);
  await postEntry(t, owner, orgId, parent, 'USD', '2026-03-10', [
    ['1010', 'D', '500.00'],
    ['3000', 'C', '500.00'],
  ]);
});

afterAll(async () => {
  await t?.close();
});

describe('a run after a change of a chart of accounts', () => {
  it('shows a new account, then its new name', async () => {
    const first = await runTrialBalance();
    expect(line(first, '1990')).toBeUndefined();
    expect(chartCacheOf(t.database.db).size).toBeGreaterThan(0); // the charts were kept

    const id = await createAccount(sub, '1990', 'Escrow deposits');
    await postEntry(t, owner, orgId, sub, 'USD', '2026-04-02', [
      ['1990', 'D', '75.00'],
      ['3000', 'C', '75.00'],
    ]);
    const second = await runTrialBalance();
    expect(line(second, '1990')).toMatchObject({
      accountName: 'Escrow deposits',
      consolidatedBalance: { value: '75.00', currency: 'USD' },
    });

    const renamed = await t.put(accountUrl(id), { token: owner.token, body: { name: 'Restricted cash' } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(line(await runTrialBalance(), '1990').accountName).toBe('Restricted cash');
  });

  it('shows a change made by a statement the service did not write, and an account deleted', async () => {
    const id = await createAccount(sub, '1991', 'Old name');
    await postEntry(t, owner, orgId, sub, 'USD', '2026-05-02', [
      ['1991', 'D', '10.00'],
      ['3000', 'C', '10.00'],
    ]);
    expect(line(await runTrialBalance(), '1991').accountName).toBe('Old name');
    await t.database.db.execute(
      sql`update accounts set name = 'Renamed by hand' where organization_id = ${orgId} and id = ${id}`,
    );
    expect(line(await runTrialBalance(), '1991').accountName).toBe('Renamed by hand');

    // An unused account of the parent's chart that only it has: deleted, its line disappears from
    // the chart the run reads (its validation sees one account fewer).
    const unused = await createAccount(parent, '1992', 'Never used');
    const before = await version(parent.id);
    const deleted = await t.del(accountUrl(unused), { token: owner.token });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
    expect(await version(parent.id)).toBe(before + 1);
    expect(line(await runTrialBalance(), '1992')).toBeUndefined();
  });
});

describe('chart versions', () => {
  it('rise once per changing statement and company, and not for a change rolled back', async () => {
    const v0 = await version(sub.id);
    const p0 = await version(parent.id);
    await createAccount(sub, '1993', 'One');
    expect(await version(sub.id)).toBe(v0 + 1);
    expect(await version(parent.id)).toBe(p0);
    // One statement changing the accounts of both companies: each rises by one.
    await t.database.db.execute(
      sql`update accounts set description = 'touched'
          where organization_id = ${orgId} and company_id in (${sub.id}::uuid, ${parent.id}::uuid)`,
    );
    expect(await version(sub.id)).toBe(v0 + 2);
    expect(await version(parent.id)).toBe(p0 + 1);
    await expect(
      inTransaction(t.database.db, async (tx) => {
        await tx.execute(
          sql`update accounts set name = 'never' where organization_id = ${orgId} and company_id = ${sub.id}`,
        );
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await version(sub.id)).toBe(v0 + 2);
  });
});

describe('the kept charts', () => {
  const chart = (n: number) => ({
    accounts: Array.from({ length: n }, () => ({}) as never),
    ids: [],
    figures: [null, null] as [null, null],
  });

  it('are found at their version only, and the least recently used give way beyond the bound', () => {
    const cache = new ChartCache(10);
    cache.set('a', '1', chart(4));
    cache.set('b', '1', chart(4));
    expect(cache.get('a', '2')).toBeUndefined();
    expect(cache.get('a', '1')).toBeDefined(); // now the most recently used
    cache.set('c', '1', chart(4)); // 12 > 10: b goes
    expect(cache.get('b', '1')).toBeUndefined();
    expect(cache.get('a', '1')).toBeDefined();
    expect(cache.get('c', '1')).toBeDefined();
    expect(cache.size).toBe(8);
    cache.set('a', '2', chart(2)); // a newer version replaces the kept one
    expect(cache.get('a', '1')).toBeUndefined();
    expect(cache.size).toBe(6);
    cache.set('d', '1', chart(11)); // larger than the bound: not kept
    expect(cache.get('d', '1')).toBeUndefined();
    expect(cache.size).toBe(6);
  });
});
