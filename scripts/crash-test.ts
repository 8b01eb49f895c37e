/**
 * Crash safety (issue 11, docs/security.md): starts the real server (the production bundle
 * `dist/server.mjs` that `npm start` builds and runs) as a child process,
 * runs a concurrent posting load (creates with Idempotency-Keys, posts, reversals on the same
 * accounts), SIGKILLs the server in the middle of it, and checks the database as the crash left it:
 *
 *   - every entry is fully posted or not at all: Posted/Reversed entries have their lines and posting
 *     data, balances (account_balances) equal the sum of the posted lines exactly, no entry without
 *     lines, every Reversed entry has exactly one reversal, every company's trial balance nets to zero;
 *   - every write the server acknowledged before the kill is there (created, posted, reversed);
 *   - retrying the unacknowledged creates with their Idempotency-Key never creates a second entry, and
 *     either replays or executes: a key still answering 409 IdempotencyKeyInProgressError once its lease
 *     has expired must belong to a create that committed (its entry exists) — a key whose request never
 *     wrote is taken over (PostgreSQL, after IDEMPOTENCY_LEASE_SECONDS) or released at start-up (PGlite);
 *   - a consolidation run started (asynchronously) just before the kill does not stay Pending or
 *     InProgress: once its lease (RUN_LEASE_SECONDS) has expired the restarted server marks it Failed,
 *     and a new run of the period can start;
 *   - the server restarts cleanly (migrations, health) and takes writes again;
 *   - with a webhook endpoint subscribed to `JournalEntryPosted` (a receiver in this process): after
 *     the last cycle every committed post — acknowledged or not — is delivered at least once, with a
 *     signature that verifies, and nothing is delivered for a post that did not commit.
 *
 * Repeated for several cycles on the same database, on PGlite with a data directory on disk and on
 * PostgreSQL with a freshly created database.
 *
 *   npm run crash-test                      # 5 cycles on each database
 *   CRASH_CYCLES=2 CRASH_DB=pglite npm run crash-test
 *
 * Env: CRASH_CYCLES (default 5), CRASH_DB (pglite,postgres), PGURL_BASE
 * (postgres://postgres@127.0.0.1:5432; the database `postgres` is used to create the test database),
 * CRASH_SEED. Exit code 0 when every cycle passed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { type Database, openDatabase, queryRows } from '../src/db/client.ts';
import { sql } from 'drizzle-orm';
import {
  type Acks,
  api,
  duplicateDescriptions,
  entryBody,
  kill,
  ROOT,
  seededRandom,
  startServer,
  type Tenant,
  setupTenant,
  verifyLedger,
} from './harness.ts';

const CYCLES = Number(process.env.CRASH_CYCLES ?? 5);
const TARGETS = (process.env.CRASH_DB ?? 'pglite,postgres').split(',').map((s) => s.trim());
const PGURL_BASE = process.env.PGURL_BASE ?? 'postgres://postgres@127.0.0.1:5432';
// reproducible kill times for a given CRASH_SEED
const random = seededRandom(Number(process.env.CRASH_SEED ?? 20_260_415));

const log = (msg: string) => process.stdout.write(`crash-test: ${msg}\n`);
/** Short leases, so that the recovery of orphaned runs and claims is observed within a cycle. */
const LEASE_SECONDS = 2;
const LEASE_ENV = {
  RUN_LEASE_SECONDS: String(LEASE_SECONDS),
  IDEMPOTENCY_LEASE_SECONDS: String(LEASE_SECONDS),
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A consolidation group of the tenant's company alone (runs of it are quick but real). */
async function runGroup(port: number, tenant: Tenant): Promise<string> {
  const res = await api(port, 'POST', '/api/v1/consolidation/groups', {
    token: tenant.token,
    body: {
      organizationId: tenant.orgId,
      name: `Crash group ${Date.now()}`,
      reportingCurrency: 'USD',
      consolidationMethod: 'FullConsolidation',
      parentCompanyId: tenant.companyId,
      members: [],
    },
  });
  if (res.status !== 201) throw new Error(`group: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/** Starts an asynchronous run of the period (forced); returns its id, or null when refused. */
async function startAsyncRun(port: number, tenant: Tenant, groupId: string, period: number) {
  const res = await api(port, 'POST', `/api/v1/consolidation/groups/${groupId}/runs`, {
    token: tenant.token,
    body: { periodRef: { year: 2026, period }, forceRegeneration: true },
    headers: { prefer: 'respond-async' },
  });
  return res.status === 201 ? (res.body.id as string) : null;
}

/** Waits until the run is no longer Pending/InProgress (at most `ms`); returns the run. */
async function settledRun(port: number, tenant: Tenant, runId: string, ms: number) {
  const until = Date.now() + ms;
  for (;;) {
    const res = await api(port, 'GET', `/api/v1/consolidation/runs/${runId}`, { token: tenant.token });
    const status = res.body?.status as string;
    if ((status !== 'Pending' && status !== 'InProgress') || Date.now() > until) return res.body;
    await sleep(200);
  }
}

interface CrashAcks extends Acks {
  /** Creates sent with an Idempotency-Key and never answered: key → description. */
  unanswered: Map<string, { description: string; body: unknown }>;
}

/** Runs `workers` loops of create → post (→ sometimes reverse) until the server dies. */
async function load(
  port: number,
  tenant: Tenant,
  acks: CrashAcks,
  workers: number,
  progress: { requests: number },
): Promise<number> {
  let requests = 0;
  const worker = async (w: number) => {
    for (let i = 0; ; i++) {
      const key = `crash-${w}-${Date.now()}-${i}-${Math.floor(random() * 1e9)}`;
      const description = `crash ${key}`;
      const body = entryBody(tenant, description, random);
      try {
        acks.unanswered.set(key, { description, body });
        const created = await api(port, 'POST', '/api/v1/journal-entries', {
          token: tenant.token,
          body,
          headers: { 'idempotency-key': key },
        });
        requests++;
        progress.requests++;
        acks.unanswered.delete(key);
        if (created.status !== 201)
          throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
        const id = created.body.id as string;
        acks.created.add(id);
        const posted = await api(port, 'POST', `/api/v1/journal-entries/${id}/post`, {
          token: tenant.token,
          body: {},
        });
        requests++;
        progress.requests++;
        if (posted.status !== 200) throw new Error(`post: ${posted.status} ${JSON.stringify(posted.body)}`);
        acks.posted.add(id);
        if (i % 3 === 2) {
          const reversed = await api(port, 'POST', `/api/v1/journal-entries/${id}/reverse`, {
            token: tenant.token,
            body: { reversalDate: '2026-06-16' },
          });
          requests++;
          progress.requests++;
          if (reversed.status !== 201)
            throw new Error(`reverse: ${reversed.status} ${JSON.stringify(reversed.body)}`);
          acks.reversed.add(id);
        }
      } catch (err) {
        if (err instanceof TypeError) return; // fetch failed: the server is gone
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
  return requests;
}

/** A webhook receiver on 127.0.0.1 that verifies each message and keeps the posted entry ids. */
async function startReceiver() {
  const posted = new Map<string, number>();
  let secret: string | null = null;
  let badSignatures = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      try {
        const event = new Webhook(secret!).verify(body, req.headers as Record<string, string>) as {
          type: string;
          resourceId: string;
        };
        if (event.type === 'JournalEntryPosted')
          posted.set(event.resourceId, (posted.get(event.resourceId) ?? 0) + 1);
      } catch {
        badSignatures++;
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    posted,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    setSecret: (s: string) => (secret = s),
    badSignatures: () => badSignatures,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_BASE_MS: '200',
  WEBHOOK_POLL_MS: '50',
};

/** The ids of the `JournalEntryPosted` events of the tenant, read through the event log API. */
async function postedEvents(port: number, tenant: Tenant): Promise<Set<string>> {
  const ids = new Set<string>();
  let after: string | null = null;
  for (;;) {
    const query = `organizationId=${tenant.orgId}&type=JournalEntryPosted&limit=500${after ? `&after=${after}` : ''}`;
    const page = await api(port, 'GET', `/api/v1/events?${query}`, { token: tenant.token });
    if (page.status !== 200) throw new Error(`events: ${page.status} ${JSON.stringify(page.body)}`);
    for (const e of page.body.events as { resourceId: string }[]) ids.add(e.resourceId);
    after = page.body.nextCursor as string | null;
    if (!page.body.hasMore) return ids;
  }
}

/**
 * After the last cycle, with the last server running: every `JournalEntryPosted` event reaches the
 * receiver (the server delivers what the killed ones left undelivered). Returns the event ids.
 */
async function awaitDeliveries(
  port: number,
  tenant: Tenant,
  received: Map<string, number>,
): Promise<Set<string>> {
  const ids = await postedEvents(port, tenant);
  const deadline = Date.now() + 60_000;
  while ([...ids].some((id) => !received.has(id)) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  return ids;
}

/**
 * With the server stopped: each committed post has exactly one `JournalEntryPosted` event (written in
 * its transaction), every one was delivered, and nothing was delivered for a post that did not commit.
 */
async function verifyDeliveries(
  database: Database,
  tenant: Tenant,
  acks: CrashAcks,
  eventIds: Set<string>,
  received: Map<string, number>,
): Promise<{ committed: number; duplicates: number }> {
  const committed = await queryRows<{ id: string }>(
    database.db,
    sql`select id from journal_entries where organization_id = ${tenant.orgId}
        and status in ('Posted', 'Reversed')`,
  );
  const events = await queryRows<{ resource_id: string; n: number }>(
    database.db,
    sql`select resource_id, count(*)::int as n from events
        where organization_id = ${tenant.orgId} and type = 'JournalEntryPosted' group by resource_id`,
  );
  const ids = new Set(committed.map((r) => r.id));
  const problems: string[] = [];
  if (events.length !== ids.size || events.some((e) => !ids.has(e.resource_id) || e.n !== 1))
    problems.push(`${events.length} JournalEntryPosted events for ${ids.size} committed posts`);
  if (eventIds.size !== ids.size) problems.push(`the event log listed ${eventIds.size} of ${ids.size} posts`);
  const missing = [...ids].filter((id) => !received.has(id));
  if (missing.length > 0)
    problems.push(`${missing.length} committed posts never delivered: ${missing.slice(0, 5).join(', ')}`);
  const phantom = [...received.keys()].filter((id) => !ids.has(id));
  if (phantom.length > 0)
    problems.push(
      `${phantom.length} deliveries for posts that did not commit: ${phantom.slice(0, 5).join(', ')}`,
    );
  const unacked = [...acks.posted].filter((id) => !received.has(id));
  if (unacked.length > 0) problems.push(`${unacked.length} acknowledged posts never delivered`);
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return { committed: ids.size, duplicates: [...received.values()].filter((n) => n > 1).length };
}

async function openForCheck(target: string, location: string): Promise<Database> {
  return target === 'pglite'
    ? openDatabase({ dataDir: location })
    : openDatabase({ url: location, poolSize: 2 });
}

// ---------------------------------------------------------------------------------------------------

async function runTarget(
  target: string,
): Promise<{ cycles: number; requests: number; stuckKeys: number; delivered: number; duplicates: number }> {
  let location: string;
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  if (target === 'pglite') {
    location = mkdtempSync(join(tmpdir(), 'groupbook-crash-'));
    env = { DATA_DIR: location, DATABASE_URL: '', ...WEBHOOK_ENV };
    cleanup = async () => rmSync(location, { recursive: true, force: true });
  } else if (target === 'postgres') {
    const name = `groupbook_crash_${Date.now()}_${process.pid}`;
    const admin = new pg.Client({ connectionString: `${PGURL_BASE}/postgres` });
    await admin.connect();
    await admin.query(`create database ${name}`);
    location = `${PGURL_BASE}/${name}`;
    env = { DATABASE_URL: location, DB_POOL_SIZE: '10', ...WEBHOOK_ENV };
    cleanup = async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    };
  } else {
    throw new Error(`unknown CRASH_DB target ${target}`);
  }
  let totalRequests = 0;
  let stuckKeys = 0;
  const receiver = await startReceiver();
  const orphanRuns = { failed: 0, finished: 0 };
  try {
    env = { ...env, ...LEASE_ENV };
    let server = await startServer(env);
    const tenant = await setupTenant(server.port, 'Crash', random);
    const endpoint = await api(server.port, 'POST', '/api/v1/webhook-endpoints', {
      token: tenant.token,
      body: { organizationId: tenant.orgId, url: receiver.url, eventTypes: ['JournalEntryPosted'] },
    });
    if (endpoint.status !== 201)
      throw new Error(`webhook endpoint: ${endpoint.status} ${JSON.stringify(endpoint.body)}`);
    receiver.setSecret(endpoint.body.secret as string);
    const groupId = await runGroup(server.port, tenant);
    const acks: CrashAcks = {
      created: new Set(),
      posted: new Set(),
      reversed: new Set(),
      unanswered: new Map(),
    };
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      // Kill in the middle of the load: once it is flowing, after a random extra delay.
      const progress = { requests: 0 };
      const running = load(server.port, tenant, acks, 8, progress);
      const started = Date.now();
      while (progress.requests < 15 && Date.now() - started < 30_000)
        await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, Math.floor(random() * 800)));
      // A run committed just before the kill: Pending or InProgress when the process dies.
      const period = ((cycle - 1) % 12) + 1;
      const orphanRun = await startAsyncRun(server.port, tenant, groupId, period).catch(() => null);
      const killAfter = Date.now() - started;
      await kill(server);
      const requests = await running;
      totalRequests += requests;

      const database = await openForCheck(target, location);
      const problems = await verifyLedger(database, tenant, acks);
      await database.close();
      if (problems.length > 0) throw new Error(`${target} cycle ${cycle}: ${problems.join('\n')}`);

      server = await startServer(env);
      // Unanswered creates retried with their key: never a second entry. A key still in progress is
      // retried once its lease has expired; one that still answers 409 must have committed.
      const inProgress = new Map<string, { description: string; body: unknown }>();
      const retryAll = async (keys: Iterable<[string, { description: string; body: unknown }]>) => {
        inProgress.clear();
        for (const [key, item] of keys) {
          const retry = await api(server.port, 'POST', '/api/v1/journal-entries', {
            token: tenant.token,
            body: item.body,
            headers: { 'idempotency-key': key },
          });
          if (retry.status === 409 && retry.body?._tag === 'IdempotencyKeyInProgressError')
            inProgress.set(key, item);
          else if (retry.status !== 201)
            throw new Error(`retry of ${key}: ${retry.status} ${JSON.stringify(retry.body)}`);
          else acks.created.add(retry.body.id);
        }
      };
      await retryAll(acks.unanswered);
      if (inProgress.size > 0) {
        await sleep(LEASE_SECONDS * 1000 + 500);
        await retryAll([...inProgress]);
      }
      for (const [key, { description }] of inProgress) {
        const found = await api(
          server.port,
          'GET',
          `/api/v1/journal-entries?organizationId=${tenant.orgId}&companyId=${tenant.companyId}&limit=100`,
          { token: tenant.token },
        );
        const all = (found.body.entries ?? []) as Array<{ description: string }>;
        // Only the newest 100 are looked at: the stuck key's entry is among the latest writes.
        if (!all.some((e) => e.description === description))
          throw new Error(
            `${target} cycle ${cycle}: key ${key} stuck in progress although its create never committed`,
          );
        stuckKeys++;
      }
      // The run in flight at the kill: failed as orphaned once its lease expired (or finished before).
      if (orphanRun) {
        const run = await settledRun(server.port, tenant, orphanRun, LEASE_SECONDS * 4000 + 5000);
        if (run.status === 'Pending' || run.status === 'InProgress')
          throw new Error(
            `${target} cycle ${cycle}: run ${orphanRun} still ${run.status} after its lease expired`,
          );
        if (run.status === 'Failed' && !/lease expired/.test(run.errorMessage ?? ''))
          throw new Error(`${target} cycle ${cycle}: run ${orphanRun} failed: ${run.errorMessage}`);
        orphanRuns[run.status === 'Failed' ? 'failed' : 'finished']++;
        const next = await startAsyncRun(server.port, tenant, groupId, period);
        if (!next) throw new Error(`${target} cycle ${cycle}: no new run of period ${period} after recovery`);
        await settledRun(server.port, tenant, next, 30_000);
      }
      const dup = await duplicateDescriptions(server.port, tenant);
      if (dup.length > 0)
        throw new Error(`${target} cycle ${cycle}: duplicate entries after retry: ${dup.join(', ')}`);
      acks.unanswered.clear();
      log(
        `${target} cycle ${cycle}/${CYCLES}: killed after ${killAfter} ms and ${requests} requests; ` +
          `${acks.created.size} entries acknowledged so far; ledger consistent; restarted cleanly`,
      );
    }
    // The last server delivers what the killed ones left undelivered.
    const eventIds = await awaitDeliveries(server.port, tenant, receiver.posted);
    await kill(server);
    log(
      `${target}: runs in flight at a kill: ${orphanRuns.failed} failed as orphaned after their lease, ` +
        `${orphanRuns.finished} had finished before the kill`,
    );
    const database = await openForCheck(target, location);
    let delivery: { committed: number; duplicates: number };
    try {
      delivery = await verifyDeliveries(database, tenant, acks, eventIds, receiver.posted);
    } finally {
      await database.close();
    }
    if (receiver.badSignatures() > 0)
      throw new Error(`${receiver.badSignatures()} deliveries with a bad signature`);
    return {
      cycles: CYCLES,
      requests: totalRequests,
      stuckKeys,
      delivered: delivery.committed,
      duplicates: delivery.duplicates,
    };
  } finally {
    await receiver.close();
    await cleanup();
  }
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const started = Date.now();
  let failed = 0;
  let passed = 0;
  for (const target of TARGETS) {
    try {
      const r = await runTarget(target);
      passed += r.cycles;
      log(
        `${target}: ${r.cycles} crash cycles survived, ${r.requests} requests acknowledged before kills, ` +
          `${r.stuckKeys} idempotency keys whose create committed but whose answer was lost ` +
          '(409 until they expire; never executed twice); every other key replayed or executed once; ' +
          `${r.delivered} committed posts all delivered by webhook (${r.duplicates} more than once)`,
      );
    } catch (err) {
      failed++;
      log(`${target}: FAILED: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  log(`done in ${Math.round((Date.now() - started) / 1000)} s`);
  log(`${passed} crash cycles survived; ${failed} database target(s) failed`);
  process.exit(failed > 0 ? 1 : 0);
}

void main();
