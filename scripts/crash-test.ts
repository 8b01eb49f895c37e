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
 *   - retrying the unacknowledged creates with their Idempotency-Key never creates a second entry;
 *   - the server restarts cleanly (migrations, health) and takes writes again.
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
import pg from 'pg';
import { type Database, openDatabase } from '../src/db/client.ts';
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

async function openForCheck(target: string, location: string): Promise<Database> {
  return target === 'pglite'
    ? openDatabase({ dataDir: location })
    : openDatabase({ url: location, poolSize: 2 });
}

// ---------------------------------------------------------------------------------------------------

async function runTarget(target: string): Promise<{ cycles: number; requests: number; stuckKeys: number }> {
  let location: string;
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  if (target === 'pglite') {
    location = mkdtempSync(join(tmpdir(), 'groupbook-crash-'));
    env = { DATA_DIR: location, DATABASE_URL: '' };
    cleanup = async () => rmSync(location, { recursive: true, force: true });
  } else if (target === 'postgres') {
    const name = `groupbook_crash_${Date.now()}_${process.pid}`;
    const admin = new pg.Client({ connectionString: `${PGURL_BASE}/postgres` });
    await admin.connect();
    await admin.query(`create database ${name}`);
    location = `${PGURL_BASE}/${name}`;
    env = { DATABASE_URL: location, DB_POOL_SIZE: '10' };
    cleanup = async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    };
  } else {
    throw new Error(`unknown CRASH_DB target ${target}`);
  }
  let totalRequests = 0;
  let stuckKeys = 0;
  try {
    let server = await startServer(env);
    const tenant = await setupTenant(server.port, 'Crash', random);
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
      const killAfter = Date.now() - started;
      await kill(server);
      const requests = await running;
      totalRequests += requests;

      const database = await openForCheck(target, location);
      const problems = await verifyLedger(database, tenant, acks);
      await database.close();
      if (problems.length > 0) throw new Error(`${target} cycle ${cycle}: ${problems.join('\n')}`);

      server = await startServer(env);
      // Unanswered creates retried with their key: never a second entry.
      for (const [key, { body }] of acks.unanswered) {
        const retry = await api(server.port, 'POST', '/api/v1/journal-entries', {
          token: tenant.token,
          body,
          headers: { 'idempotency-key': key },
        });
        if (retry.status === 409 && retry.body?._tag === 'IdempotencyKeyInProgressError') stuckKeys++;
        else if (retry.status !== 201)
          throw new Error(`retry of ${key}: ${retry.status} ${JSON.stringify(retry.body)}`);
        else acks.created.add(retry.body.id);
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
    await kill(server);
    return { cycles: CYCLES, requests: totalRequests, stuckKeys };
  } finally {
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
          `${r.stuckKeys} in-flight idempotency keys still reserved after restart (never executed twice)`,
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
