/**
 * Events and webhooks end to end: the event log (GET /events), webhook endpoints, and deliveries to a
 * real HTTP receiver on 127.0.0.1 — signatures checked with the Standard Webhooks reference library,
 * retries after failures, a test ping, a manual retry, no redirects, the five-day disable, and no
 * event for a change that rolled back.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { queryRows } from '../../src/db/client.ts';
import { Outbound } from '../../src/modules/webhooks/outbound.ts';
import { openTestDatabase, TestContext, type TestUser } from '../helpers/app.ts';
import { type Company, createCompany } from '../helpers/ledger.ts';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver whose answer per path is scripted: a list of statuses used in turn, then 200. */
class Receiver {
  readonly received: Received[] = [];
  readonly script = new Map<string, number[]>();
  private server!: Server;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.received.push({ path, headers: req.headers, body });
        const statuses = this.script.get(path);
        const status = statuses && statuses.length > 0 ? statuses.shift()! : 200;
        if (status >= 300 && status < 400)
          res.setHeader('location', `http://127.0.0.1:${this.port}/elsewhere`);
        res.writeHead(status).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let t: TestContext;
let receiver: Receiver;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let viewer: TestUser;
let outsider: TestUser;
let org: { id: string };
let co: Company;

const JE = '/api/v1/journal-entries';
const WE = '/api/v1/webhook-endpoints';

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  const { database, cleanup } = await openTestDatabase();
  const app = await buildApp({
    database,
    logger: false,
    webhooks: {
      policy: { allowHttp: true, allowPrivateNetworks: true },
      dispatch: true,
      dispatcher: {
        pollMs: 20,
        retry: { baseDelayMs: 40, maxDelayMs: 200, retryForMs: 24 * 3600 * 1000 },
      },
    },
  });
  await app.ready();
  t = new TestContext(app, database, cleanup);
  [owner, admin, member, viewer, outsider] = await Promise.all([
    t.user('owner'),
    t.user('admin'),
    t.user('member'),
    t.user('viewer'),
    t.user('outsider'),
  ]);
  org = await t.org(owner);
  await t.addMember(owner, org.id, admin, 'admin');
  await t.addMember(owner, org.id, member, 'member');
  await t.addMember(owner, org.id, viewer, 'viewer');
  co = await createCompany(t, org.id);
}, 60_000);

afterAll(async () => {
  await t.close();
  await receiver.stop();
});

function entryBody(amount = '100.00') {
  return {
    organizationId: org.id,
    companyId: co.id,
    description: 'Cash sale',
    transactionDate: '2026-03-15',
    lines: [
      { accountId: co.accounts.cash, debitAmount: { value: amount, currency: 'USD' } },
      { accountId: co.accounts.revenue, creditAmount: { value: amount, currency: 'USD' } },
    ],
  };
}

async function createAndPost(): Promise<string> {
  const created = await t.post(JE, { token: member.token, body: entryBody() });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  expect((await t.post(`${JE}/${id}/submit`, { token: member.token })).status).toBe(200);
  expect((await t.post(`${JE}/${id}/approve`, { token: admin.token })).status).toBe(200);
  expect((await t.post(`${JE}/${id}/post`, { token: owner.token, body: {} })).status).toBe(200);
  return id;
}

async function events(query: Record<string, string | number> = {}, user: TestUser = viewer) {
  const res = await t.get('/api/v1/events', {
    token: user.token,
    query: { organizationId: org.id, ...query },
  });
  expect(res.status).toBe(200);
  return res.body as { events: any[]; nextCursor: string | null; hasMore: boolean };
}

async function until<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function createEndpoint(path: string, extra: Record<string, unknown> = {}) {
  const res = await t.post(WE, {
    token: admin.token,
    body: { organizationId: org.id, url: receiver.url(path), ...extra },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string };
}

describe('event log', () => {
  it('records each workflow step of an entry, oldest first, resumable from a cursor', async () => {
    const before = await events();
    const cursor = before.nextCursor;
    const id = await createAndPost();
    // An event is listed once every transaction that started before it has ended (on a shared
    // server, also those of other databases): wait for it.
    const after = await until('the four events', async () => {
      const page = await events(cursor ? { after: cursor } : {});
      return page.events.filter((e) => e.resourceId === id).length === 4 ? page : null;
    });
    const mine = after.events.filter((e) => e.resourceId === id);
    expect(mine.map((e) => e.type)).toEqual([
      'JournalEntryCreated',
      'JournalEntrySubmitted',
      'JournalEntryApproved',
      'JournalEntryPosted',
    ]);
    expect(mine[0]).toMatchObject({
      organizationId: org.id,
      actorId: member.id,
      resourceType: 'JournalEntry',
      data: { id, companyId: co.id, status: 'Draft', transactionDate: '2026-03-15', fiscalYear: 2026 },
    });
    expect(mine[0].data.entryNumber).toMatch(/^JE-\d{4,}$/);
    expect(mine[3]).toMatchObject({ actorId: owner.id, data: { status: 'Posted' } });
    // UUIDv7 ids
    for (const e of mine) expect(e.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);

    // Resuming from the last cursor lists nothing new; paging by one walks the same list.
    const resumed = await events({ after: after.nextCursor! });
    expect(resumed.events).toEqual([]);
    expect(resumed.nextCursor).toBe(after.nextCursor);
    const walked: string[] = [];
    let next: string | null = cursor;
    for (;;) {
      const page = await events({ limit: 1, ...(next ? { after: next } : {}) });
      walked.push(...page.events.map((e) => e.id));
      next = page.nextCursor;
      if (!page.hasMore) break;
    }
    expect(walked).toEqual(after.events.map((e) => e.id));
  });

  it('filters by type', async () => {
    const id = await createAndPost();
    const posted = await until('the posted event', async () => {
      const page = await events({ type: 'JournalEntryPosted,CompanyCreated', limit: 500 });
      return page.events.some((e) => e.resourceId === id) ? page : null;
    });
    expect(posted.events.length).toBeGreaterThan(0);
    expect(new Set(posted.events.map((e) => e.type))).toEqual(new Set(['JournalEntryPosted']));
    const bad = await t.get('/api/v1/events', {
      token: viewer.token,
      query: { organizationId: org.id, type: 'NoSuchEvent' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body._tag).toBe('ValidationError');
  });

  it('refuses an unknown cursor and other organizations', async () => {
    const bad = await t.get('/api/v1/events', {
      token: viewer.token,
      query: { organizationId: org.id, after: '0190a0a0-0000-7000-8000-000000000000' },
    });
    expect(bad.status).toBe(400);
    const foreign = await t.get('/api/v1/events', {
      token: outsider.token,
      query: { organizationId: org.id },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body._tag).toBe('ForbiddenError');
  });

  it('records company, period and exchange-rate events with their records', async () => {
    const cursor = (await events()).nextCursor;
    const company = await t.post('/api/v1/companies', {
      token: owner.token,
      body: {
        organizationId: org.id,
        name: 'Events Co',
        legalName: 'Events Co Ltd',
        jurisdiction: 'US',
        functionalCurrency: 'USD',
        reportingCurrency: 'USD',
        fiscalYearEnd: { month: 12, day: 31 },
      },
    });
    expect(company.status).toBe(201);
    const rates = await t.post('/api/v1/exchange-rates/bulk', {
      token: member.token,
      body: {
        rates: ['2026-01-02', '2026-01-03'].map((effectiveDate) => ({
          organizationId: org.id,
          fromCurrency: 'EUR',
          toCurrency: 'USD',
          rate: '1.1',
          effectiveDate,
          rateType: 'Spot',
          source: 'Manual',
        })),
      },
    });
    expect(rates.status).toBe(201);
    const deactivated = await t.del(`/api/v1/organizations/${org.id}/companies/${company.body.id}`, {
      token: owner.token,
    });
    expect(deactivated.status).toBe(204);
    const list = await until('the three events', async () => {
      const page = await events(cursor ? { after: cursor } : {});
      return page.events.length >= 3 ? page.events : null;
    });
    expect(list.map((e) => e.type)).toEqual(['CompanyCreated', 'ExchangeRateCreated', 'CompanyDeactivated']);
    expect(list[0].data).toEqual(company.body);
    expect(list[1].data.count).toBe(2);
    expect(list[1].data.rates).toEqual(rates.body.created);
    expect(list[2].data).toMatchObject({ id: company.body.id, isActive: false });
  });

  it('writes no event for a change that rolled back', async () => {
    const created = await t.post(JE, { token: member.token, body: entryBody() });
    const id = created.body.id as string;
    expect((await t.post(`${JE}/${id}/submit`, { token: member.token })).status).toBe(200);
    expect((await t.post(`${JE}/${id}/approve`, { token: admin.token })).status).toBe(200);
    // The post's audit entry fails after the entry, balances and event rows were written in the same
    // statement: everything rolls back.
    const db = t.database.db;
    await db.execute(
      sql.raw(`create function fail_audit() returns trigger language plpgsql as $$
      begin if new.entity_id = '${id}' and new.action = 'Post' then raise exception 'injected failure'; end if;
      return new; end $$`),
    );
    await db.execute(
      sql.raw(
        `create trigger fail_audit before insert on audit_log for each row execute function fail_audit()`,
      ),
    );
    try {
      const post = await t.post(`${JE}/${id}/post`, { token: owner.token, body: {} });
      expect(post.status).toBe(500);
    } finally {
      await db.execute(sql.raw(`drop trigger fail_audit on audit_log`));
      await db.execute(sql.raw(`drop function fail_audit()`));
    }
    const rows = await queryRows<{ type: string }>(
      db,
      sql`select type from events where organization_id = ${org.id} and resource_id = ${id} order by tx, id`,
    );
    expect(rows.map((r) => r.type)).toEqual([
      'JournalEntryCreated',
      'JournalEntrySubmitted',
      'JournalEntryApproved',
    ]);
    const entry = await t.get(`${JE}/${id}`, { token: viewer.token });
    expect(entry.body.status).toBe('Approved');
  });
});

describe('webhook endpoints', () => {
  it('shows the secret once and keeps the admin role', async () => {
    const created = await createEndpoint('/once', {
      description: 'first',
      eventTypes: ['JournalEntryPosted'],
    });
    expect(created.secret).toMatch(/^whsec_/);
    const got = await t.get(`${WE}/${created.id}`, { token: admin.token, query: { organizationId: org.id } });
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty('secret');
    expect(got.body).toMatchObject({
      description: 'first',
      eventTypes: ['JournalEntryPosted'],
      enabled: true,
    });
    const list = await t.get(WE, { token: admin.token, query: { organizationId: org.id } });
    expect(list.body.endpoints.some((e: any) => e.id === created.id)).toBe(true);
    expect(list.body.endpoints.every((e: any) => !('secret' in e))).toBe(true);
    const asMember = await t.get(WE, { token: member.token, query: { organizationId: org.id } });
    expect(asMember.status).toBe(403);
    const updated = await t.put(`${WE}/${created.id}`, {
      token: admin.token,
      query: { organizationId: org.id },
      body: { enabled: false, description: null },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ enabled: false, description: null });
    const deleted = await t.del(`${WE}/${created.id}`, {
      token: admin.token,
      query: { organizationId: org.id },
    });
    expect(deleted.status).toBe(204);
    const gone = await t.get(`${WE}/${created.id}`, {
      token: admin.token,
      query: { organizationId: org.id },
    });
    expect(gone.status).toBe(404);
    expect(gone.body._tag).toBe('WebhookEndpointNotFoundError');
  });

  it('refuses URLs that are not https unless allowed, and private addresses unless allowed', async () => {
    const { database, cleanup } = await openTestDatabase();
    const strict = await buildApp({ database, logger: false });
    await strict.ready();
    const s = new TestContext(strict, database, cleanup);
    try {
      const u = await s.user('strict');
      const o = await s.org(u);
      for (const url of [
        'http://example.com/hook',
        'https://127.0.0.1/hook',
        'https://[::1]/x',
        'https://10.1.2.3/x',
        'https://169.254.169.254/x',
        'ftp://example.com/',
      ]) {
        const res = await s.post(WE, { token: u.token, body: { organizationId: o.id, url } });
        expect(res.status, url).toBe(400);
        expect(res.body.issues[0].path).toBe('/url');
      }
      const ok = await s.post(WE, {
        token: u.token,
        body: { organizationId: o.id, url: 'https://example.com/hook' },
      });
      expect(ok.status).toBe(201);
    } finally {
      await s.close();
    }
    // At send time, resolved addresses are checked too.
    const outbound = new Outbound({ allowHttp: true, allowPrivateNetworks: false });
    const refused = await outbound.send(receiver.url('/private'), {}, '{}');
    outbound.close();
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatch(/refused/i);
    expect(receiver.at('/private')).toEqual([]);
  });
});

describe('deliveries', () => {
  it('delivers signed events that verify with the reference implementation', async () => {
    const endpoint = await createEndpoint('/signed');
    const id = await createAndPost();
    const got = await until('the posted event', () =>
      receiver
        .at('/signed')
        .find(
          (r) => JSON.parse(r.body).type === 'JournalEntryPosted' && JSON.parse(r.body).resourceId === id,
        ),
    );
    const verified = new Webhook(endpoint.secret).verify(
      got.body,
      got.headers as Record<string, string>,
    ) as any;
    expect(verified).toMatchObject({ type: 'JournalEntryPosted', resourceId: id, organizationId: org.id });
    expect(got.headers['webhook-id']).toBe(verified.id);
    expect(got.headers['content-type']).toBe('application/json');
    // A tampered body does not verify.
    expect(() =>
      new Webhook(endpoint.secret).verify(
        got.body.replace('Posted', 'Xosted'),
        got.headers as Record<string, string>,
      ),
    ).toThrow();
    // every step of the entry arrived (several are in flight at once: arrival order may vary)
    const types = receiver
      .at('/signed')
      .map((r) => JSON.parse(r.body))
      .filter((b) => b.resourceId === id)
      .map((b) => b.type);
    expect(types.sort()).toEqual([
      'JournalEntryApproved',
      'JournalEntryCreated',
      'JournalEntryPosted',
      'JournalEntrySubmitted',
    ]);
    await t.put(`${WE}/${endpoint.id}`, {
      token: admin.token,
      query: { organizationId: org.id },
      body: { enabled: false },
    });
  });

  it('retries a receiver answering 500 three times; the fourth attempt delivers', async () => {
    receiver.script.set('/flaky', [500, 500, 500]);
    const endpoint = await createEndpoint('/flaky', { eventTypes: ['JournalEntryPosted'] });
    const id = await createAndPost();
    const delivery = await until('a delivered delivery', async () => {
      const res = await t.get(`${WE}/${endpoint.id}/deliveries`, {
        token: admin.token,
        query: { organizationId: org.id },
      });
      return res.body.deliveries.find((d: any) => d.status === 'Succeeded');
    });
    expect(delivery).toMatchObject({ eventType: 'JournalEntryPosted', attemptCount: 4, responseStatus: 200 });
    expect(delivery.attempts.map((a: any) => a.responseStatus)).toEqual([500, 500, 500, 200]);
    const hits = receiver.at('/flaky');
    expect(hits).toHaveLength(4);
    expect(new Set(hits.map((h) => h.headers['webhook-id'])).size).toBe(1);
    expect(JSON.parse(hits[3]!.body).resourceId).toBe(id);
    await t.put(`${WE}/${endpoint.id}`, {
      token: admin.token,
      query: { organizationId: org.id },
      body: { enabled: false },
    });
  });

  it('does not follow redirects, sends a test ping and retries by hand', async () => {
    receiver.script.set('/redirect', [302]);
    const endpoint = await createEndpoint('/redirect', { eventTypes: ['CompanyCreated'] });
    const ping = await t.post(`${WE}/${endpoint.id}/test`, {
      token: admin.token,
      query: { organizationId: org.id },
    });
    expect(ping.status).toBe(200);
    expect(ping.body).toMatchObject({
      eventType: 'WebhookTest',
      status: 'Pending',
      responseStatus: 302,
      attemptCount: 1,
    });
    expect(receiver.at('/elsewhere')).toEqual([]);
    // The failed ping is retried on its own; once delivered, a retry by hand sends it once more.
    const deliveryOf = async (pred: (d: any) => boolean) =>
      until('the ping delivery', async () => {
        const res = await t.get(`${WE}/${endpoint.id}/deliveries`, {
          token: admin.token,
          query: { organizationId: org.id },
        });
        return res.body.deliveries.find((d: any) => d.id === ping.body.id && pred(d));
      });
    const delivered = await deliveryOf((d) => d.status === 'Succeeded');
    expect(delivered.attemptCount).toBe(2);
    const retried = await t.post(`${WE}/${endpoint.id}/deliveries/${ping.body.id}/retry`, {
      token: admin.token,
      query: { organizationId: org.id },
    });
    expect(retried.status).toBe(202);
    expect(retried.body.status).toBe('Pending');
    const again = await deliveryOf((d) => d.status === 'Succeeded' && d.attemptCount === 3);
    expect(again.attempts.map((a: any) => a.responseStatus)).toEqual([302, 200, 200]);
    expect(receiver.at('/redirect')).toHaveLength(3);
    const body = JSON.parse(receiver.at('/redirect').at(-1)!.body);
    expect(body).toMatchObject({ type: 'WebhookTest', resourceId: endpoint.id });
    const unknown = await t.post(
      `${WE}/${endpoint.id}/deliveries/0190a0a0-0000-7000-8000-000000000000/retry`,
      {
        token: admin.token,
        query: { organizationId: org.id },
      },
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body._tag).toBe('WebhookDeliveryNotFoundError');
  });

  it('gives up an attempt at the timeout, whether no answer or a trickling one', async () => {
    const silent = createServer((req, res) => {
      if (req.url === '/trickle') {
        res.writeHead(200);
        const tick = setInterval(() => res.write('.'), 50);
        res.on('close', () => clearInterval(tick));
      } // '/silent' never answers
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const outbound = new Outbound({ allowHttp: true, allowPrivateNetworks: true }, 300);
    try {
      for (const path of ['/silent', '/trickle']) {
        const result = await outbound.send(`${base}${path}`, {}, '{}');
        expect(result, path).toMatchObject({ ok: false, status: null, error: 'No response within 300 ms' });
        expect(result.durationMs, path).toBeGreaterThanOrEqual(290);
        expect(result.durationMs, path).toBeLessThan(2_000);
      }
    } finally {
      outbound.close();
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('disables an endpoint failing for five days, with an event', async () => {
    const endpoint = await createEndpoint('/down', { eventTypes: ['FiscalYearClosed'] });
    const db = t.database.db;
    await db.execute(
      sql`update webhook_endpoints set failing_since = now() - interval '6 days' where id = ${endpoint.id}`,
    );
    const disabled = await t.app.deps.webhooks.dispatcher.disableFailingEndpoints();
    expect(disabled).toBeGreaterThanOrEqual(1);
    const got = await t.get(`${WE}/${endpoint.id}`, {
      token: admin.token,
      query: { organizationId: org.id },
    });
    expect(got.body).toMatchObject({ enabled: false });
    expect(got.body.disabledReason).toMatch(/5 days/);
    const found = await until('the disable event', async () =>
      (await events({ type: 'WebhookEndpointDisabled' })).events.find((e) => e.resourceId === endpoint.id),
    );
    expect(found).toMatchObject({ actorId: null });
  });
});
