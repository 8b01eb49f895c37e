/**
 * Orphaned runs (runs.lease.ts): a run left Pending or InProgress by a process that stopped — its
 * lease no longer renewed — is marked Failed with a clear message (and the event
 * ConsolidationRunFailed) by any live process, at start-up and periodically; a run whose executor
 * renews its lease is left alone. The crash test (scripts/crash-test.ts) does the same with a real
 * SIGKILL.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { failOrphanedRuns, renewLeases } from '../../src/modules/consolidation/runs.lease.ts';
import { createTestContext, type TestContext, type TestUser, uniq } from '../helpers/app.ts';
import { insertRun } from '../helpers/consolidation-db.ts';
import { createCompany } from '../helpers/consolidation.ts';

let t: TestContext;
let owner: TestUser;
let orgId: string;
let groupId: string;

beforeAll(async () => {
  t = await createTestContext();
  owner = await t.user('lease');
  orgId = (await t.org(owner)).id;
  const parent = await createCompany(t, owner, orgId, { template: false });
  const group = await t.post('/api/v1/consolidation/groups', {
    token: owner.token,
    body: {
      organizationId: orgId,
      name: uniq('LeaseGroup'),
      reportingCurrency: 'USD',
      consolidationMethod: 'FullConsolidation',
      parentCompanyId: parent.id,
      members: [],
    },
  });
  expect(group.status).toBe(201);
  groupId = group.body.id;
}, 60_000);

afterAll(async () => {
  await t?.close();
});

async function orphan(status: 'Pending' | 'InProgress', executor: string, expiredMsAgo: number) {
  const id = await insertRun(t, orgId, groupId, status, owner.id);
  await t.database.db.execute(sql`
    update consolidation_runs set executor_id = ${executor},
      lease_expires_at = ${new Date(Date.now() - expiredMsAgo).toISOString()},
      started_at = ${status === 'InProgress' ? new Date().toISOString() : null}
    where id = ${id}`);
  return id;
}

describe('orphaned runs', () => {
  it('blocks the period until the lease expires, then fails the run with a clear message', async () => {
    const id = await orphan('InProgress', 'dead-host:4242:abcd', 1_000);
    // Before the sweep: the orphan blocks a new run of its period, its deletion and its group's.
    const blocked = await t.post(`/api/v1/consolidation/groups/${groupId}/runs`, {
      token: owner.token,
      body: { periodRef: { year: 2026, period: 1 } },
    });
    expect(blocked.status).toBe(409);
    expect(blocked.body._tag).toBe('ConsolidationRunInProgressError');

    expect(await failOrphanedRuns(t.database.db)).toContain(id);
    const run = await t.get(`/api/v1/consolidation/runs/${id}`, { token: owner.token });
    expect(run.body.status).toBe('Failed');
    expect(run.body.errorMessage).toMatch(/dead-host:4242:abcd.*stopped before the run finished/);
    expect(run.body.completedAt).toEqual(expect.any(String));
    // A second sweep (another worker) does nothing more.
    expect(await failOrphanedRuns(t.database.db)).not.toContain(id);
    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: orgId, entityId: id, action: 'FailRun' },
    });
    expect(audit.body.total).toBe(1);
    // Subscribers hear of it as of any other failure: one ConsolidationRunFailed event.
    const events = await t.get('/api/v1/events', {
      token: owner.token,
      query: { organizationId: orgId, type: 'ConsolidationRunFailed', limit: 100 },
    });
    expect(events.status).toBe(200);
    const failedEvents = events.body.events.filter((e: any) => e.resourceId === id);
    expect(failedEvents).toHaveLength(1);
    expect(failedEvents[0].data).toMatchObject({ id, status: 'Failed', errorMessage: run.body.errorMessage });
    const del = await t.del(`/api/v1/consolidation/runs/${id}`, { token: owner.token });
    expect(del.status).toBe(204);
  });

  it('fails a Pending orphan too, and leaves runs with a live lease alone', async () => {
    const pending = await orphan('Pending', 'dead-host:1:ffff', 5);
    const live = await orphan('InProgress', 'live-host:2:eeee', -60_000); // lease still 60 s ahead
    const failed = await failOrphanedRuns(t.database.db);
    expect(failed).toContain(pending);
    expect(failed).not.toContain(live);
    const liveRun = await t.get(`/api/v1/consolidation/runs/${live}`, { token: owner.token });
    expect(liveRun.body.status).toBe('InProgress');
    await t.post(`/api/v1/consolidation/runs/${live}/cancel`, { token: owner.token, body: {} });
  });

  it('renews only the leases of its own executor', async () => {
    const foreign = await orphan('InProgress', 'other:3:aaaa', 1_000);
    await renewLeases(t.database.db, [foreign], 60_000);
    expect(await failOrphanedRuns(t.database.db)).toContain(foreign);
  });

  it('sweeps at start-up and periodically in every app instance', async () => {
    const id = await orphan('InProgress', 'dead-host:5:bbbb', 10);
    const app = await buildApp({ database: t.database, logger: false, runLeaseMs: 300 });
    await app.ready();
    try {
      let status = '';
      for (let i = 0; i < 50 && status !== 'Failed'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const res = await app.inject({
          method: 'GET',
          url: `/api/v1/consolidation/runs/${id}`,
          headers: { authorization: `Bearer ${owner.token}` },
        });
        status = res.json().status;
      }
      expect(status).toBe('Failed');
    } finally {
      await app.close();
    }
  });

  it('a run executed by a live process keeps its lease and completes', async () => {
    const res = await t.post(`/api/v1/consolidation/groups/${groupId}/runs`, {
      token: owner.token,
      body: { periodRef: { year: 2026, period: 2 } },
      headers: { prefer: 'respond-async' },
    });
    expect(res.status).toBe(201);
    let run = res.body;
    for (let i = 0; i < 100 && (run.status === 'Pending' || run.status === 'InProgress'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      run = (await t.get(`/api/v1/consolidation/runs/${run.id}`, { token: owner.token })).body;
    }
    expect(['Completed', 'Failed']).toContain(run.status);
    expect(run.errorMessage ?? '').not.toMatch(/lease/);
  });

  it('a run started with an Idempotency-Key reads in its snapshot and completes (the mark skips read-only transactions)', async () => {
    const res = await t.post(`/api/v1/consolidation/groups/${groupId}/runs`, {
      token: owner.token,
      body: { periodRef: { year: 2026, period: 4 } },
      headers: { 'idempotency-key': uniq('run-key') },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.status).toBe('Completed');
  });
});
