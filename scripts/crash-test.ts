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
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { type Database, openDatabase, queryRows } from '../src/db/client.ts';
import { startArgs } from './start-command.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CYCLES = Number(process.env.CRASH_CYCLES ?? 5);
const TARGETS = (process.env.CRASH_DB ?? 'pglite,postgres').split(',').map((s) => s.trim());
const PGURL_BASE = process.env.PGURL_BASE ?? 'postgres://postgres@127.0.0.1:5432';
let seed = Number(process.env.CRASH_SEED ?? 20_260_415);
const random = () => {
  // mulberry32: reproducible kill times for a given CRASH_SEED
  seed = (seed + 0x6d2b79f5) | 0;
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
};

const log = (msg: string) => process.stdout.write(`crash-test: ${msg}\n`);

// ---------------------------------------------------------------------------------------------------
// Server process

interface Server {
  child: ChildProcess;
  port: number;
  output: string[];
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

async function startServer(env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, startArgs(ROOT), {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error', WORKERS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout?.on('data', (d) => output.push(String(d)));
  child.stderr?.on('data', (d) => output.push(String(d)));
  const started = Date.now();
  while (Date.now() - started < 90_000) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${output.join('')}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (res.status === 200) return { child, port, output };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not become healthy: ${output.join('')}`);
}

async function kill(server: Server): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((r) => server.child.once('exit', r));
  server.child.kill('SIGKILL');
  await exited;
}

async function api(
  port: number,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of many shapes, checked where used
): Promise<{ status: number; body: any }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: {
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.headers ?? {}),
    },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

// ---------------------------------------------------------------------------------------------------
// Tenant and load

interface Tenant {
  token: string;
  orgId: string;
  companyId: string;
  cash: string;
  revenue: string;
}

interface Acks {
  created: Set<string>;
  posted: Set<string>;
  reversed: Set<string>;
  /** Creates sent with an Idempotency-Key and never answered: key → description. */
  unanswered: Map<string, { description: string; body: unknown }>;
}

async function setupTenant(port: number): Promise<Tenant> {
  const email = `crash-${Date.now()}-${Math.floor(random() * 1e9)}@example.com`;
  const password = 'Crash-test-1';
  const reg = await api(port, 'POST', '/api/auth/register', {
    body: { email, password, displayName: 'Crash' },
  });
  if (reg.status !== 201) throw new Error(`register: ${reg.status} ${JSON.stringify(reg.body)}`);
  const login = await api(port, 'POST', '/api/auth/login', { body: { email, password } });
  const token = login.body.token as string;
  const org = await api(port, 'POST', '/api/v1/organizations', {
    token,
    body: { name: `Crash ${email}`, reportingCurrency: 'USD', settings: { requireApproval: false } },
  });
  if (org.status !== 201) throw new Error(`org: ${org.status} ${JSON.stringify(org.body)}`);
  const co = await api(port, 'POST', '/api/v1/companies', {
    token,
    body: {
      organizationId: org.body.id,
      name: 'Crash Co',
      legalName: 'Crash Co Inc.',
      jurisdiction: 'US',
      functionalCurrency: 'USD',
      reportingCurrency: 'USD',
      fiscalYearEnd: { month: 12, day: 31 },
      accountTemplate: 'GeneralBusiness',
    },
  });
  if (co.status !== 201) throw new Error(`company: ${co.status} ${JSON.stringify(co.body)}`);
  const accounts = await api(
    port,
    'GET',
    `/api/v1/accounts?organizationId=${org.body.id}&companyId=${co.body.id}&limit=100`,
    { token },
  );
  const byNumber = new Map<string, string>(
    accounts.body.accounts.map((a: { accountNumber: string; id: string }) => [a.accountNumber, a.id]),
  );
  return {
    token,
    orgId: org.body.id,
    companyId: co.body.id,
    cash: byNumber.get('1010')!,
    revenue: byNumber.get('4000')!,
  };
}

function entryBody(tenant: Tenant, description: string) {
  const cents = 100 + Math.floor(random() * 100_000);
  const value = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
  return {
    organizationId: tenant.orgId,
    companyId: tenant.companyId,
    description,
    transactionDate: '2026-06-15',
    lines: [
      { accountId: tenant.cash, debitAmount: { value, currency: 'USD' } },
      { accountId: tenant.revenue, creditAmount: { value, currency: 'USD' } },
    ],
  };
}

/** Runs `workers` loops of create → post (→ sometimes reverse) until the server dies. */
async function load(
  port: number,
  tenant: Tenant,
  acks: Acks,
  workers: number,
  progress: { requests: number },
): Promise<number> {
  let requests = 0;
  const worker = async (w: number) => {
    for (let i = 0; ; i++) {
      const key = `crash-${w}-${Date.now()}-${i}-${Math.floor(random() * 1e9)}`;
      const description = `crash ${key}`;
      const body = entryBody(tenant, description);
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

// ---------------------------------------------------------------------------------------------------
// Verification (with the server down, straight on the database it left behind)

async function verify(database: Database, tenant: Tenant, acks: Acks): Promise<string[]> {
  const db = database.db;
  const org = tenant.orgId;
  const problems: string[] = [];
  const mismatches = await queryRows(
    db,
    sql`with lines as (
          select l.account_id, e.transaction_date as d, e.fiscal_year as y, e.fiscal_period as p,
                 sum(coalesce(l.functional_debit_amount, 0)) as debit,
                 sum(coalesce(l.functional_credit_amount, 0)) as credit
          from journal_entries e
          join journal_lines l on l.organization_id = e.organization_id and l.journal_entry_id = e.id
          where e.organization_id = ${org} and e.status in ('Posted', 'Reversed')
          group by 1, 2, 3, 4
        ), stored as (
          select account_id, balance_date as d, fiscal_year as y, fiscal_period as p,
                 sum(debit_total) as debit, sum(credit_total) as credit
          from account_balances where organization_id = ${org} group by 1, 2, 3, 4
        )
        select coalesce(s.account_id, l.account_id) as account_id, s.debit::text as stored_debit,
               l.debit::text as line_debit, s.credit::text as stored_credit, l.credit::text as line_credit
        from stored s full join lines l on l.account_id = s.account_id and l.d = s.d and l.y = s.y and l.p = s.p
        where coalesce(s.debit, 0) <> coalesce(l.debit, 0) or coalesce(s.credit, 0) <> coalesce(l.credit, 0)`,
  );
  if (mismatches.length > 0)
    problems.push(`balances differ from posted lines: ${JSON.stringify(mismatches)}`);
  const lineless = await queryRows<{ id: string }>(
    db,
    sql`select e.id from journal_entries e
        left join journal_lines l on l.organization_id = e.organization_id and l.journal_entry_id = e.id
        where e.organization_id = ${org} group by e.id having count(l.id) < 2`,
  );
  if (lineless.length > 0)
    problems.push(`entries without their lines: ${lineless.map((r) => r.id).join(', ')}`);
  const halfPosted = await queryRows<{ id: string }>(
    db,
    sql`select id from journal_entries where organization_id = ${org}
        and ((status in ('Posted', 'Reversed')) <> (posted_at is not null))`,
  );
  if (halfPosted.length > 0)
    problems.push(`status and posting data disagree: ${halfPosted.map((r) => r.id).join(', ')}`);
  const reversals = await queryRows<{ id: string }>(
    db,
    sql`select e.id from journal_entries e
        left join journal_entries r on r.organization_id = e.organization_id and r.reversed_entry_id = e.id
                                    and r.is_reversing
        where e.organization_id = ${org} and not e.is_reversing
        group by e.id, e.status having (e.status = 'Reversed') <> (count(r.id) = 1) or count(r.id) > 1`,
  );
  if (reversals.length > 0) problems.push(`reversal links broken: ${reversals.map((r) => r.id).join(', ')}`);
  const nets = await queryRows<{ net: string }>(
    db,
    sql`select (sum(debit_total) - sum(credit_total))::text as net from account_balances
        where organization_id = ${org} group by company_id`,
  );
  for (const n of nets)
    if (Number(n.net) !== 0) problems.push(`trial balance does not net to zero: ${n.net}`);
  const statuses = new Map(
    (
      await queryRows<{ id: string; status: string }>(
        db,
        sql`select id, status from journal_entries where organization_id = ${org}`,
      )
    ).map((r) => [r.id, r.status]),
  );
  for (const id of acks.created) if (!statuses.has(id)) problems.push(`acknowledged create lost: ${id}`);
  for (const id of acks.posted)
    if (!['Posted', 'Reversed'].includes(statuses.get(id) ?? ''))
      problems.push(`acknowledged post lost: ${id}`);
  for (const id of acks.reversed)
    if (statuses.get(id) !== 'Reversed') problems.push(`acknowledged reversal lost: ${id}`);
  return problems;
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
    const tenant = await setupTenant(server.port);
    const acks: Acks = { created: new Set(), posted: new Set(), reversed: new Set(), unanswered: new Map() };
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
      const problems = await verify(database, tenant, acks);
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

/** Descriptions used by more than one entry (an idempotent create executed twice). */
async function duplicateDescriptions(port: number, tenant: Tenant): Promise<string[]> {
  const seen = new Map<string, number>();
  for (let offset = 0; ; offset += 100) {
    const page = await api(
      port,
      'GET',
      `/api/v1/journal-entries?organizationId=${tenant.orgId}&limit=100&offset=${offset}`,
      { token: tenant.token },
    );
    if (page.status !== 200) throw new Error(`list: ${page.status} ${JSON.stringify(page.body)}`);
    for (const e of page.body.entries as Array<{ description: string; isReversing: boolean }>) {
      if (e.isReversing) continue;
      seen.set(e.description, (seen.get(e.description) ?? 0) + 1);
    }
    if (offset + 100 >= page.body.total) break;
  }
  return [...seen.entries()].filter(([, n]) => n > 1).map(([d]) => d);
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
