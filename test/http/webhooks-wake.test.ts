/**
 * The dispatcher hears of committed events in its own process: with a polling interval of a minute,
 * an event is still delivered at once after its write commits — a single-statement write (journal
 * create and workflow) as well as a transaction (company create). A transaction that rolls back asks
 * for nothing. A fan-out batch left leased by a process that died is fanned out again once its lease
 * has lapsed. When the dispatcher stops, a send in flight finishes and is recorded, and a claimed
 * delivery not yet sent is given back (Pending, no lease) for the next start.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { afterCommit, inTransaction, queryRows } from '../../src/db/client.ts';
import { openTestDatabase, TestContext, type TestUser } from '../helpers/app.ts';
import { type Company, createCompany } from '../helpers/ledger.ts';

const POLL_MS = 60_000;

/** A receiver that keeps every body and answers after `delayMs` on the paths under /slow, at once on others. */
let server: Server;
let port = 0;
let delayMs = 0;
const received: { path: string; body: any; at: number }[] = [];

let t: TestContext;
let owner: TestUser;
let org: { id: string };
let co: Company;
let promptEndpoint = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', body: JSON.parse(body), at: Date.now() });
      setTimeout(() => res.writeHead(204).end(), req.url?.startsWith('/slow') ? delayMs : 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  const { database, cleanup } = await openTestDatabase();
  const app = await buildApp({
    database,
    logger: false,
    webhooks: {
      policy: { allowHttp: true, allowPrivateNetworks: true },
      dispatch: true,
      dispatcher: { pollMs: POLL_MS, perEndpointConcurrency: 1 },
    },
  });
  await app.ready();
  t = new TestContext(app, database, cleanup);
  owner = await t.user('owner');
  org = await t.org(owner);
  co = await createCompany(t, org.id);
}, 60_000);

afterAll(async () => {
  await t.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function entryBody(description: string) {
  return {
    organizationId: org.id,
    companyId: co.id,
    description,
    transactionDate: '2026-03-15',
    lines: [
      { accountId: co.accounts.cash, debitAmount: { value: '10.00', currency: 'USD' } },
      { accountId: co.accounts.revenue, creditAmount: { value: '10.00', currency: 'USD' } },
    ],
  };
}

async function until<T>(what: string, fn: () => T | Promise<T>, timeoutMs: number): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Well below the polling interval: only the commit's nudge can explain a delivery this soon. */
const PROMPT_MS = 5_000;

describe('dispatcher woken by commits', () => {
  it('delivers an event as soon as its write commits, not after the polling interval', async () => {
    const created = await t.post('/api/v1/webhook-endpoints', {
      token: owner.token,
      body: { organizationId: org.id, url: `http://127.0.0.1:${port}/prompt` },
    });
    expect(created.status).toBe(201);
    promptEndpoint = created.body.id as string;

    // single-statement writes: the create and a workflow step
    const start = Date.now();
    const entry = await t.post('/api/v1/journal-entries', { token: owner.token, body: entryBody('Prompt') });
    expect(entry.status).toBe(201);
    const id = entry.body.id as string;
    await until(
      'JournalEntryCreated',
      () => received.find((r) => r.body.type === 'JournalEntryCreated' && r.body.resourceId === id),
      PROMPT_MS,
    );
    expect((await t.post(`/api/v1/journal-entries/${id}/submit`, { token: owner.token })).status).toBe(200);
    await until(
      'JournalEntrySubmitted',
      () => received.find((r) => r.body.type === 'JournalEntrySubmitted' && r.body.resourceId === id),
      PROMPT_MS,
    );

    // a transaction recording its event with recordEvent
    const company = await t.post('/api/v1/companies', {
      token: owner.token,
      body: {
        organizationId: org.id,
        name: 'Wake Co',
        legalName: 'Wake Co Ltd',
        jurisdiction: 'US',
        functionalCurrency: 'USD',
        reportingCurrency: 'USD',
        fiscalYearEnd: { month: 12, day: 31 },
      },
    });
    expect(company.status).toBe(201);
    await until(
      'CompanyCreated',
      () => received.find((r) => r.body.type === 'CompanyCreated' && r.body.resourceId === company.body.id),
      PROMPT_MS,
    );
    expect(Date.now() - start).toBeLessThan(POLL_MS / 2);
  });

  it('runs after-commit hooks only for a transaction that committed', async () => {
    const ran: string[] = [];
    await inTransaction(t.database.db, async (tx) => {
      await tx.execute(sql`select 1`);
      afterCommit(() => ran.push('committed'));
      afterCommit(() => ran.push('committed')); // a second, distinct hook runs too
    });
    await expect(
      inTransaction(t.database.db, async (tx) => {
        await tx.execute(sql`select 1`);
        afterCommit(() => ran.push('rolled back'));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(ran).toEqual(['committed', 'committed']);
  });

  it('fans out again a batch whose lease lapsed (its process died), records it once, drops an empty one', async () => {
    const entry = await t.post('/api/v1/journal-entries', { token: owner.token, body: entryBody('Orphan') });
    expect(entry.status).toBe(201);
    const [event] = await queryRows<{ tx: string; id: string }>(
      t.database.db,
      sql`select tx::text as tx, id from events
          where organization_id = ${org.id} and resource_id = ${entry.body.id} and type = 'JournalEntryCreated'`,
    );
    const delivery = () =>
      queryRows<{ status: string; attempt_count: number; created_at: Date }>(
        t.database.db,
        sql`select status, attempt_count, created_at from webhook_deliveries
            where organization_id = ${org.id} and endpoint_id = ${promptEndpoint} and event_id = ${event!.id}`,
      );
    await until('the first delivery recorded', async () => (await delivery()).length === 1, PROMPT_MS);
    const arrivals = () => received.filter((r) => r.body.id === event!.id).length;
    expect(arrivals()).toBe(1);
    // as a process that died after fanning the event out and sending it, before recording it leaves it
    const createdAt = new Date(Date.now() - 60_000);
    await t.database.db.execute(sql`delete from webhook_deliveries
      where organization_id = ${org.id} and endpoint_id = ${promptEndpoint} and event_id = ${event!.id}`);
    await t.database.db.execute(sql`insert into webhook_fanout_batches (id, organization_id, endpoint_id,
        after_tx, after_event_id, last_tx, last_event_id, created_at, lease_until)
      values (gen_random_uuid(), ${org.id}, ${promptEndpoint}, ${event!.tx}::bigint,
        '00000000-0000-0000-0000-000000000000',
        ${event!.tx}::bigint, ${event!.id}, ${createdAt.toISOString()}, now() - interval '1 second')`);
    t.app.deps.webhooks.dispatcher.nudge();
    await until('the event sent again', () => arrivals() === 2, PROMPT_MS);
    await until('the delivery recorded', async () => (await delivery()).length === 1, PROMPT_MS);
    const [row] = await delivery();
    // one row, created when the batch was first fanned out (its retry window runs from then)
    expect(row).toMatchObject({ status: 'Succeeded', attempt_count: 1 });
    expect(new Date(row!.created_at).getTime()).toBe(createdAt.getTime());
    const batches = await queryRows<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from webhook_fanout_batches`,
    );
    expect(batches[0]!.n).toBe(0);

    // a lapsed batch none of whose events goes to an endpoint any more is dropped, not leased again
    await t.database.db.execute(sql`insert into webhook_fanout_batches (id, organization_id, endpoint_id,
        after_tx, after_event_id, last_tx, last_event_id, created_at, lease_until)
      values (gen_random_uuid(), ${org.id}, ${promptEndpoint}, 0, '00000000-0000-0000-0000-000000000000', 0,
        '00000000-0000-0000-0000-000000000000', now(), now() - interval '1 second')`);
    t.app.deps.webhooks.dispatcher.nudge();
    await until(
      'the empty batch dropped',
      async () =>
        (
          await queryRows<{ n: number }>(
            t.database.db,
            sql`select count(*)::int as n from webhook_fanout_batches`,
          )
        )[0]!.n === 0,
      PROMPT_MS,
    );
  });

  it("records an endpoint's deliveries without waiting for a slower endpoint's; parks a disabled one's", async () => {
    const slow = await t.post('/api/v1/webhook-endpoints', {
      token: owner.token,
      body: {
        organizationId: org.id,
        url: `http://127.0.0.1:${port}/slow-other`,
        eventTypes: ['JournalEntryCreated'],
      },
    });
    expect(slow.status).toBe(201);
    delayMs = 1_500;
    const entry = await t.post('/api/v1/journal-entries', {
      token: owner.token,
      body: entryBody('Two speeds'),
    });
    expect(entry.status).toBe(201);
    const rows = (endpointId: string) =>
      queryRows<{ status: string }>(
        t.database.db,
        sql`select d.status from webhook_deliveries d join events e
              on e.organization_id = d.organization_id and e.id = d.event_id
            where d.organization_id = ${org.id} and d.endpoint_id = ${endpointId}
              and e.resource_id = ${entry.body.id} and e.type = 'JournalEntryCreated'`,
      );
    // the prompt endpoint's delivery is recorded while the slow one's answer is still on its way
    await until(
      'the prompt delivery recorded',
      async () => (await rows(promptEndpoint)).length === 1,
      PROMPT_MS,
    );
    expect(await rows(slow.body.id as string)).toHaveLength(0);
    await until(
      'the slow delivery recorded',
      async () => (await rows(slow.body.id as string)).length === 1,
      PROMPT_MS,
    );
    expect(await rows(slow.body.id as string)).toEqual([{ status: 'Succeeded' }]);
    delayMs = 0;
    const off = await t.put(`/api/v1/webhook-endpoints/${slow.body.id}`, {
      token: owner.token,
      query: { organizationId: org.id },
      body: { enabled: false },
    });
    expect(off.status).toBe(200);

    // a batch of it left leased by a process that died, found after the endpoint was disabled: its
    // deliveries are written Pending (sent once the endpoint is enabled again), not sent now
    const [event] = await queryRows<{ tx: string; id: string }>(
      t.database.db,
      sql`select tx::text as tx, id from events
          where organization_id = ${org.id} and resource_id = ${entry.body.id} and type = 'JournalEntryCreated'`,
    );
    await t.database.db.execute(sql`delete from webhook_deliveries
      where organization_id = ${org.id} and endpoint_id = ${slow.body.id} and event_id = ${event!.id}`);
    await t.database.db.execute(sql`insert into webhook_fanout_batches (id, organization_id, endpoint_id,
        after_tx, after_event_id, last_tx, last_event_id, created_at, lease_until)
      values (gen_random_uuid(), ${org.id}, ${slow.body.id}, ${event!.tx}::bigint,
        '00000000-0000-0000-0000-000000000000', ${event!.tx}::bigint, ${event!.id}, now(),
        now() - interval '1 second')`);
    t.app.deps.webhooks.dispatcher.nudge();
    await until(
      'the parked delivery',
      async () => (await rows(slow.body.id as string)).length === 1,
      PROMPT_MS,
    );
    expect(await rows(slow.body.id as string)).toEqual([{ status: 'Pending' }]);
    const batches = await queryRows<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from webhook_fanout_batches`,
    );
    expect(batches[0]!.n).toBe(0);
  });

  it('on stop, records the send in flight and gives back the claimed delivery not yet sent', async () => {
    // one endpoint, one send at a time, a slow receiver: the second delivery waits in its lane
    const off = await t.put(`/api/v1/webhook-endpoints/${promptEndpoint}`, {
      token: owner.token,
      query: { organizationId: org.id },
      body: { enabled: false },
    });
    expect(off.status).toBe(200);
    const created = await t.post('/api/v1/webhook-endpoints', {
      token: owner.token,
      body: {
        organizationId: org.id,
        url: `http://127.0.0.1:${port}/slow`,
        eventTypes: ['JournalEntryCreated'],
      },
    });
    expect(created.status).toBe(201);
    delayMs = 800;
    const ids: string[] = [];
    for (const d of ['Slow one', 'Slow two']) {
      const res = await t.post('/api/v1/journal-entries', { token: owner.token, body: entryBody(d) });
      expect(res.status).toBe(201);
      ids.push(res.body.id as string);
    }
    await until(
      'the first slow delivery to arrive',
      () => received.some((r) => r.path === '/slow'),
      PROMPT_MS,
    );
    const deliveries = () =>
      queryRows<{ event_id: string; status: string; attempt_count: number; lease_until: Date | null }>(
        t.database.db,
        sql`select d.event_id, d.status, d.attempt_count, d.lease_until from webhook_deliveries d
            where d.organization_id = ${org.id} and d.endpoint_id = ${created.body.id}
            order by d.event_tx, d.event_id`,
      );
    // both events fanned out (the second while the first is in flight: a delivery row is written
    // once its attempt has finished, or when the dispatcher stops), then stop
    const fannedOut = async () =>
      (
        await queryRows<{ n: number }>(
          t.database.db,
          sql`select count(*)::int as n from webhook_fanout f join events e
              on e.organization_id = ${org.id} and e.resource_id = ${ids[1]} and e.type = 'JournalEntryCreated'
              where f.id = 1 and (f.tx, f.event_id) >= (e.tx, e.id)`,
        )
      )[0]!.n === 1;
    await until('both events fanned out', fannedOut, PROMPT_MS);
    await t.app.deps.webhooks.dispatcher.stop();
    const rows = await deliveries();
    const sent = received.filter((r) => r.path === '/slow').map((r) => r.body.id as string);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      if (sent.includes(row.event_id)) {
        // the send in flight finished and was recorded
        expect(row).toMatchObject({ status: 'Succeeded', attempt_count: 1, lease_until: null });
      } else {
        // never sent: back to Pending without a lease, so the next start sends it at once
        expect(row).toMatchObject({ status: 'Pending', attempt_count: 0, lease_until: null });
      }
    }
    expect(sent.length).toBeGreaterThanOrEqual(1);
    delayMs = 0;
  });
});
