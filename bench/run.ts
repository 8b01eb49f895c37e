/**
 * `npm run bench [-- --db postgres] [--quick] [--workers N] [--big-lines N] [--only a,b] [--record-sql FILE]
 * [--db-prefix NAME]`
 *
 * Prepares a fresh database (a temporary PGlite data directory, or a new PostgreSQL database
 * `groupbook_bench_<ts>` (or `<--db-prefix>_<ts>`) on the server of DATABASE_URL, default postgres://postgres@127.0.0.1:5432),
 * generates two organizations (10 k and 1 M posted lines, 50 companies × 200 accounts in 3 currencies
 * each) and a third with an ownership structure (200 companies × 300 accounts in 4 currencies, three
 * tiers of holders, every member with acquisition data), measures cold start, starts the server as a separate process (`node dist/server.mjs`, the
 * bundle `npm start` builds and runs; LOG_LEVEL=warn), runs every scenario on loopback for a bounded time while sampling
 * the server's RSS from /proc, stops everything, drops the database and prints one table. The
 * results are also written as JSON to bench/results/.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { type Db, openDatabase, queryRows } from '../src/db/client.ts';
import { anyOf } from '../src/modules/consolidation/runs.figures.ts';
import { bulkFloorPglite, bulkFloorPostgres, type FloorTarget, floorPglite, floorPostgres } from './floor.ts';
import { type FxDataset, generateFxCompany } from './fx.ts';
import { checkBalances, type Dataset, generateDataset } from './generate.ts';
import { getTemplate } from '../src/domain/templates/index.ts';
import {
  backendCpuMs,
  Client,
  cannon,
  loop,
  mainThreadCpuMs,
  type Measurement,
  percentile,
  round,
  sampleRss,
  treeCpuMs,
  treeRssKb,
} from './load.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FLOOR = 'raw-SQL floor (journal create rows)';
const FLOOR_BATCHED = 'raw-SQL floor, 10 entries per statement';

// ---------------------------------------------------------------------------------------------------
// Options

function flag(name: string): boolean {
  return process.argv.includes(`--${name}`);
}
function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const quick = flag('quick');
const kind: 'postgres' | 'pglite' = option('db') === 'postgres' ? 'postgres' : 'pglite';
const workers = Number(option('workers') ?? 1);
const seconds = Number(option('seconds') ?? (quick ? 3 : 8));
const smallLines = 10_000;
const bigLines = Number(option('big-lines') ?? (quick ? 100_000 : 1_000_000));
const ownershipLines = Number(option('ownership-lines') ?? (quick ? 50_000 : 200_000));
const OWNERSHIP_COMPANIES = 200;

/** What a group's consolidation run reads: its monthly balance rows and the accounts they are of. */
interface BalanceVolume {
  monthRows: number;
  accounts: number;
}

async function balanceVolume(db: Db, ds: Dataset): Promise<BalanceVolume> {
  const [row] = await queryRows<{ month_rows: number; accounts: number }>(
    db,
    sql`select count(*)::int as month_rows, count(distinct account_id)::int as accounts
        from account_month_balances
        where organization_id = ${ds.organizationId}
          and company_id = any(${anyOf(ds.companyIds)})`,
  );
  return { monthRows: row!.month_rows, accounts: row!.accounts };
}
const only = option('only')?.split(',');
const coldRuns = quick ? 1 : 3;
/** Another checkout to start the server from (before/after comparisons); default this one. */
const serverDir = option('server-dir') ?? ROOT;
/** Extra Node.js options of the server process, e.g. `--node-args "--cpu-prof --cpu-prof-dir=prof"`. */
const nodeArgs = option('node-args')?.split(' ').filter(Boolean) ?? [];
/** Extra environment of the server process, e.g. `--server-env "PGLITE_WASM_OPTIMIZE=true"` (A/B runs). */
const serverEnv = Object.fromEntries(
  (option('server-env')?.split(' ').filter(Boolean) ?? []).map((kv) => [
    kv.slice(0, kv.indexOf('=')),
    kv.slice(kv.indexOf('=') + 1),
  ]),
);
const wants = (name: string) => !only || only.some((o) => name.startsWith(o));
/** Records the server's SQL statements to this file (GROUPBOOK_RECORD_SQL) for scripts/check-routing.ts. */
const recordSql = option('record-sql');
/** Name prefix of the PostgreSQL bench database (several checkouts benching on one server). */
const dbPrefix = option('db-prefix') ?? 'groupbook_bench';
if (!/^[a-z_][a-z0-9_]*$/.test(dbPrefix)) throw new Error(`--db-prefix: not a plain identifier: ${dbPrefix}`);

const log = (message: string) => process.stderr.write(`${message}\n`);

// ---------------------------------------------------------------------------------------------------
// Database

interface Target {
  /** Environment of the server process. */
  env: Record<string, string>;
  /** Options of openDatabase for the generator. */
  open: { url?: string; dataDir?: string };
  cleanup(): Promise<void>;
}

async function prepareTarget(): Promise<Target> {
  if (kind === 'pglite') {
    const dir = mkdtempSync(join(os.tmpdir(), 'groupbook-bench-'));
    return {
      env: { DATA_DIR: dir },
      open: { dataDir: dir },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const base = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  const name = `${dbPrefix}_${Date.now()}`;
  const admin = new URL(base);
  admin.pathname = '/postgres';
  const adminClient = new pg.Client({ connectionString: admin.toString() });
  await adminClient.connect();
  await adminClient.query(`create database ${name}`);
  await adminClient.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    open: { url: url.toString() },
    cleanup: async () => {
      const c = new pg.Client({ connectionString: admin.toString() });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Server process

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

interface Server {
  process: ChildProcess;
  pid: number;
  url: string;
  /** Milliseconds from spawn to the first 200 of /api/health. */
  readyMs: number;
  stop(): Promise<void>;
}

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/api/health`);
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

const serverLog = join(ROOT, 'bench', 'results', 'server.log');

/**
 * The server's command line: the production bundle that `npm start` runs (built once here), with the
 * Node.js options of the `start` script, or `tsx src/main.ts` for a `--server-dir` checkout that
 * predates the bundle.
 */
let serverArgs: string[] | null = null;
async function serverCommand(): Promise<string[]> {
  if (serverArgs) return serverArgs;
  if (existsSync(join(serverDir, 'scripts', 'build.mjs'))) {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: serverDir, stdio: 'inherit' });
    const startCommand = join(serverDir, 'scripts', 'start-command.ts');
    serverArgs = existsSync(startCommand)
      ? ((await import(startCommand)) as { startArgs(root: string): string[] }).startArgs(serverDir)
      : ['dist/server.mjs'];
  } else {
    serverArgs = ['--import', 'tsx', 'src/main.ts'];
  }
  return serverArgs!;
}

async function startServer(env: Record<string, string>, serverWorkers: number): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const out = openSync(serverLog, 'a');
  const args = [...nodeArgs, ...(await serverCommand())];
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: serverDir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      // the webhook scenario's receiver listens on 127.0.0.1
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WORKERS: String(serverWorkers),
      ...(recordSql ? { GROUPBOOK_RECORD_SQL: recordSql } : {}),
      ...serverEnv,
      ...env,
    },
    stdio: ['ignore', out, out],
    detached: true,
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  while (!(await healthy(url))) {
    if (exited) throw new Error(`server exited during start-up; see ${serverLog}`);
    if (performance.now() - t0 > 60_000) throw new Error('server did not become healthy within 60 s');
    await new Promise((r) => setTimeout(r, 5));
  }
  const readyMs = performance.now() - t0;
  return {
    process: child,
    pid: child.pid!,
    url,
    readyMs,
    stop: async () => {
      if (exited) return;
      const done = new Promise<void>((r) => child.once('exit', () => r()));
      process.kill(-child.pid!, 'SIGTERM');
      const timer = setTimeout(() => {
        if (!exited) process.kill(-child.pid!, 'SIGKILL');
      }, 5000);
      await done;
      clearTimeout(timer);
    },
  };
}

async function coldStart(env: Record<string, string>, label: string): Promise<Measurement> {
  const times: number[] = [];
  let rss = 0;
  for (let i = 0; i < coldRuns; i++) {
    const server = await startServer(env, 1);
    times.push(server.readyMs);
    rss = Math.max(rss, treeRssKb(server.pid));
    await server.stop();
  }
  times.sort((a, b) => a - b);
  return {
    scenario: `cold start (${label})`,
    connections: null,
    rate: null,
    p50: round(percentile(times, 50)),
    p99: round(times[times.length - 1]!),
    errors: 0,
    rssMb: Math.round(rss / 1024),
    count: times.length,
    note: 'process spawn → first 200 from /api/health, migrations already applied; p99 column = slowest run',
  };
}

// ---------------------------------------------------------------------------------------------------
// Scenarios

function entryBody(ds: Dataset, company: number, description: string) {
  const accounts = ds.entryAccounts[company]!;
  const currency = ds.companyCurrencies[company]!;
  return {
    organizationId: ds.organizationId,
    companyId: ds.companyIds[company]!,
    description,
    transactionDate: `${ds.year}-06-15`,
    lines: [
      { accountId: accounts.debit, debitAmount: { value: '125.50', currency } },
      { accountId: accounts.credit, creditAmount: { value: '125.50', currency } },
    ],
  };
}

async function measured(
  server: Server,
  scenario: string,
  connections: number | null,
  fn: () => Promise<{ rate: number; p50: number | null; p99: number | null; errors: number; count: number }>,
  note?: string,
): Promise<Measurement> {
  log(`  ${scenario}${connections ? ` (${connections} connections)` : ''} …`);
  const rss = sampleRss(server.pid);
  const cpu = treeCpuMs(server.pid);
  const main = mainThreadCpuMs(server.pid);
  const r = await fn();
  const cpuMs = treeCpuMs(server.pid) - cpu;
  const mainMs = mainThreadCpuMs(server.pid) - main;
  return {
    scenario,
    connections,
    rate: round(r.rate),
    p50: round(r.p50, 2),
    p99: round(r.p99, 2),
    errors: r.errors,
    rssMb: rss.stop(),
    cpuMsPerRequest: r.count > 0 ? round(cpuMs / r.count, 2) : null,
    mainThreadMsPerRequest: r.count > 0 ? round(mainMs / r.count, 2) : null,
    count: r.count,
    ...(note ? { note } : {}),
  };
}

async function journalFlow(client: Client, ds: Dataset, company: number): Promise<boolean> {
  const org = `?organizationId=${ds.organizationId}`;
  const created = await client.request(
    'POST',
    '/api/v1/journal-entries',
    ds.tokens.clerk,
    entryBody(ds, company, 'Flow entry'),
  );
  if (created.status !== 201) return false;
  const id = String(created.body.id);
  const steps: [string, string][] = [
    ['submit', ds.tokens.clerk],
    ['approve', ds.tokens.controller],
    ['post', ds.tokens.controller],
  ];
  for (const [step, token] of steps) {
    // As the API has it: the organization in the query for submit and approve, in the
    // body for post.
    const res =
      step === 'post'
        ? await client.request('POST', `/api/v1/journal-entries/${id}/post`, token, {
            organizationId: ds.organizationId,
          })
        : await client.request('POST', `/api/v1/journal-entries/${id}/${step}${org}`, token);
    if (res.status !== 200) return false;
  }
  return true;
}

/** The webhook scenario's receiver (a worker thread): counts deliveries and keeps their lags. */
const RECEIVER = `
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const counter = new Int32Array(workerData.counter);
const lags = [];
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const arrived = Date.now();
    try {
      const event = JSON.parse(Buffer.concat(chunks).toString());
      if (event.occurredAt) lags.push(arrived - Date.parse(event.occurredAt));
    } catch {
      // not an event body
    }
    Atomics.add(counter, 0, 1);
    res.writeHead(204).end();
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', () => parentPort.postMessage({ lags }));
`;

/**
 * Journal create with and without an active webhook endpoint (10 connections, same company), run in
 * turn (without, with, without, with) so that a drift of the machine hits both; then the delivery lag
 * of the events created under load: time from the event's transaction to its arrival at a receiver
 * on a thread of this process (`JournalEntryCreated` subscribed, so every create is delivered).
 */
async function webhookScenario(
  server: Server,
  ds: Dataset,
  s: number,
  database: string | null,
): Promise<Measurement[]> {
  // The receiver runs on a thread of its own: on the load generator's event loop, every delivery it
  // answered would hold up the responses of the measured requests (a receiver runs elsewhere in
  // production; here it still shares the machine's cores).
  const counter = new Int32Array(new SharedArrayBuffer(4));
  const receiver = new Worker(RECEIVER, { eval: true, workerData: { counter: counter.buffer } });
  const port = await new Promise<number>((resolve, reject) => {
    receiver.once('message', (m: { port: number }) => resolve(m.port));
    receiver.once('error', reject);
  });
  const receivedCount = () => Atomics.load(counter, 0);
  const client = new Client(server.url, 1);
  const create = () =>
    cannon({
      url: `${server.url}/api/v1/journal-entries`,
      method: 'POST',
      connections: 10,
      seconds: s,
      token: ds.tokens.clerk,
      body: entryBody(ds, 0, 'Webhook bench'),
    });
  const out: Measurement[] = [];
  const setEnabled = async (id: string, enabled: boolean) => {
    const res = await client.request(
      'PUT',
      `/api/v1/webhook-endpoints/${id}?organizationId=${ds.organizationId}`,
      ds.tokens.owner,
      { enabled },
    );
    if (res.status !== 200) throw new Error(`webhook endpoint update: ${res.status}`);
  };
  try {
    const created = await client.request('POST', '/api/v1/webhook-endpoints', ds.tokens.owner, {
      organizationId: ds.organizationId,
      url: `http://127.0.0.1:${port}/hooks`,
      eventTypes: ['JournalEntryCreated'],
      enabled: false,
    });
    if (created.status !== 201) {
      return [
        {
          scenario: 'webhooks',
          connections: null,
          rate: null,
          p50: null,
          p99: null,
          errors: 0,
          rssMb: null,
          count: 0,
          note: `skipped: POST /webhook-endpoints answered ${created.status}`,
        },
      ];
    }
    const id = created.body.id as string;
    const runs: Record<'off' | 'on', Measurement[]> = { off: [], on: [] };
    // CPU time spent per create, by process (from /proc), over the run and its catch-up: a figure that
    // other work on the machine disturbs much less than the rates
    const cpu: Record<'off' | 'on', { server: number; main: number; postgres: number; bench: number }> = {
      off: { server: 0, main: 0, postgres: 0, bench: 0 },
      on: { server: 0, main: 0, postgres: 0, bench: 0 },
    };
    const snapshot = () => ({
      server: treeCpuMs(server.pid),
      main: mainThreadCpuMs(server.pid),
      postgres: database ? backendCpuMs(database) : new Map<number, number>(),
      bench: process.cpuUsage(),
    });
    for (const mode of ['off', 'on', 'off', 'on'] as const) {
      await setEnabled(id, mode === 'on');
      const before = snapshot();
      runs[mode].push(
        await measured(server, `journal create, webhook ${mode === 'on' ? 'active' : 'none'}`, 10, create),
      );
      if (mode === 'on') {
        // let the dispatcher catch up before the next run
        const expected = runs.on.reduce((n, m) => n + m.count, 0);
        const deadline = Date.now() + 30_000;
        while (receivedCount() < expected && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 50));
      }
      const after = snapshot();
      cpu[mode].server += after.server - before.server;
      cpu[mode].main += after.main - before.main;
      for (const [pid, ms] of after.postgres) cpu[mode].postgres += ms - (before.postgres.get(pid) ?? 0);
      const bench = process.cpuUsage(before.bench);
      cpu[mode].bench += (bench.user + bench.system) / 1000;
    }
    await setEnabled(id, false);
    // one row per mode: the sum of its two runs
    for (const mode of ['off', 'on'] as const) {
      const [a, b] = runs[mode] as [Measurement, Measurement];
      out.push({
        ...b,
        rate: round(((a.rate ?? 0) + (b.rate ?? 0)) / 2, 1),
        p50: Math.max(a.p50 ?? 0, b.p50 ?? 0),
        p99: Math.max(a.p99 ?? 0, b.p99 ?? 0),
        errors: a.errors + b.errors,
        count: a.count + b.count,
        rssMb: Math.max(a.rssMb ?? 0, b.rssMb ?? 0),
        note:
          `mean of 2 runs of ${s} s, taken in turn; CPU ms per create: ` +
          `server ${perCreate(cpu[mode].server, a.count + b.count)} ` +
          `(its main thread ${perCreate(cpu[mode].main, a.count + b.count)}), ` +
          (database ? `PostgreSQL backends ${perCreate(cpu[mode].postgres, a.count + b.count)}, ` : '') +
          `bench process ${perCreate(cpu[mode].bench, a.count + b.count)}`,
      });
    }
    receiver.postMessage('lags');
    const lags = await new Promise<number[]>((resolve) =>
      receiver.once('message', (m: { lags: number[] }) => resolve(m.lags)),
    );
    const received = receivedCount();
    lags.sort((x, y) => x - y);
    const q = (f: number) =>
      lags.length ? lags[Math.min(lags.length - 1, Math.floor(f * lags.length))]! : null;
    const expected = runs.on.reduce((n, m) => n + m.count, 0);
    out.push({
      scenario: 'webhook delivery lag',
      connections: 10,
      rate: null,
      p50: q(0.5),
      p99: q(0.99),
      errors: Math.max(0, expected - received),
      rssMb: null,
      count: lags.length,
      note: `${received} of ${expected} created events delivered; lag = arrival − event time`,
    });
  } finally {
    client.close();
    await receiver.terminate();
  }
  return out;
}

const perCreate = (ms: number, count: number) => (count > 0 ? (ms / count).toFixed(2) : '–');

async function consolidationRuns(server: Server, ds: Dataset, label: string): Promise<Measurement> {
  const client = new Client(server.url, 1);
  const path = `/api/v1/consolidation/groups/${ds.groupId}/runs?organizationId=${ds.organizationId}`;
  const body = { periodRef: { year: ds.year, period: 12 }, forceRegeneration: true };
  try {
    const probe = await client.request('POST', path, ds.tokens.owner, body);
    const scenario = `consolidation run ${label}`;
    if (probe.status === 404 || probe.status === 405) {
      return {
        scenario,
        connections: 1,
        rate: null,
        p50: null,
        p99: null,
        errors: 0,
        rssMb: null,
        count: 0,
        note: `skipped: POST /consolidation/groups/{id}/runs answered ${probe.status} ${String(probe.body._tag)}`,
      };
    }
    let lastFailure = '';
    const m = await measured(server, scenario, 1, () =>
      loop(
        1,
        seconds,
        async () => {
          const res = await client.request('POST', path, ds.tokens.owner, body);
          const ok = res.status === 201 && res.body.status === 'Completed';
          if (!ok) lastFailure = `${res.status} ${String(res.body.status ?? res.body._tag)}`;
          return ok;
        },
        quick ? 5 : 20,
      ),
    );
    if (lastFailure) m.note = `last failure: ${lastFailure}`;
    return m;
  } finally {
    client.close();
  }
}

/**
 * Health during a heavy consolidation run: a group of 10 of the dataset's companies with 40 rules of
 * the most trigger conditions and selectors the rule bounds allow, and 100 draft entries of 500
 * lines. Runs start one after the other (each executes before its response) while 20 connections
 * read the drafts 100 at a time and one connection probes `/api/health` every 10 ms; reported: the
 * health latency. A run computes in slices that let other requests in, so health stays fast.
 */
async function healthDuringHeavyRun(server: Server, ds: Dataset): Promise<Measurement> {
  const scenario = 'health during heavy run';
  const setup = new Client(server.url, 1);
  const org = `?organizationId=${ds.organizationId}`;
  const token = ds.tokens.owner;
  const companies = ds.companyIds.slice(0, 10);
  const skipped = (why: string): Measurement => ({
    scenario,
    connections: 22,
    rate: null,
    p50: null,
    p99: null,
    errors: 0,
    rssMb: null,
    count: 0,
    note: `skipped: ${why}`,
  });
  let groupId: string;
  try {
    const group = await setup.request('POST', '/api/v1/consolidation/groups', token, {
      organizationId: ds.organizationId,
      name: `Heavy ${Date.now()}`,
      reportingCurrency: 'USD',
      consolidationMethod: 'FullConsolidation',
      parentCompanyId: companies[0],
      members: companies.slice(1).map((companyId) => ({
        companyId,
        ownershipPercentage: 100,
        consolidationMethod: 'FullConsolidation',
      })),
    });
    if (group.status !== 201) return skipped(`group: ${group.status} ${String(group.body._tag)}`);
    groupId = String(group.body.id);
    const forms = ['1*', '11*', '1000-19999999', '2*', '4*', '5000-79999999', '9999', '6*'];
    const scopes = [null, ...companies];
    const selectors = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        accountNumber: forms[i % forms.length]!,
        companyId: scopes[i % scopes.length]!,
      }));
    for (let r = 0; r < 40; r++) {
      const res = await setup.request('POST', '/api/v1/elimination-rules', token, {
        organizationId: ds.organizationId,
        consolidationGroupId: groupId,
        name: `Heavy ${r}`,
        eliminationType: 'IntercompanyReceivablesPayables',
        // 50 conditions of 10 selectors: the 500 in all the bounds allow; only the last one holds.
        triggerConditions: Array.from({ length: 50 }, (_, c) => ({
          description: `Condition ${c}`,
          sourceAccounts: selectors(10),
          minimumAmount: c === 49 ? '0.01' : '999999999999',
        })),
        sourceAccounts: selectors(100),
        targetAccounts: selectors(100),
        debitAccountId: ds.entryAccounts[0]!.debit,
        creditAccountId: ds.entryAccounts[1]!.credit,
        isAutomatic: true,
        priority: r,
      });
      if (res.status !== 201) return skipped(`rule: ${res.status} ${String(res.body._tag)}`);
    }
    const accounts = ds.entryAccounts[0]!;
    const currency = ds.companyCurrencies[0]!;
    for (let e = 0; e < 100; e++) {
      const lines = Array.from({ length: 500 }, (_, i) =>
        i % 2 === 0
          ? { accountId: accounts.debit, debitAmount: { value: `${i + 1}.00`, currency } }
          : { accountId: accounts.credit, creditAmount: { value: `${i}.00`, currency } },
      );
      const res = await setup.request('POST', '/api/v1/journal-entries', ds.tokens.clerk, {
        organizationId: ds.organizationId,
        companyId: companies[0],
        description: `Large draft ${e}`,
        transactionDate: `${ds.year}-07-01`,
        lines,
      });
      if (res.status !== 201) return skipped(`draft: ${res.status} ${String(res.body._tag)}`);
    }
  } finally {
    setup.close();
  }

  log(`  ${scenario} (20 list readers, 1 health probe, runs in a row) …`);
  const rss = sampleRss(server.pid);
  const runner = new Client(server.url, 1);
  const readers = new Client(server.url, 20);
  const prober = new Client(server.url, 1);
  const runPath = `/api/v1/consolidation/groups/${groupId}/runs${org}`;
  const listPath = `/api/v1/journal-entries${org}&companyId=${companies[0]}&status=Draft&limit=100`;
  let running = true;
  const runTimes: number[] = [];
  let runFailure = '';
  const health: number[] = [];
  let healthErrors = 0;
  try {
    const runs = (async () => {
      const deadline = performance.now() + Math.max(seconds, 4) * 1000;
      try {
        do {
          const t = performance.now();
          const res = await runner.request('POST', runPath, token, {
            periodRef: { year: ds.year, period: 12 },
            forceRegeneration: true,
          });
          if (res.status === 201 && res.body.status === 'Completed') runTimes.push(performance.now() - t);
          else {
            runFailure = `${res.status} ${String(res.body.status ?? res.body._tag)}`;
            break;
          }
        } while (performance.now() < deadline);
      } finally {
        running = false;
      }
    })();
    const reads = (async () => {
      const latencies: number[] = [];
      let errors = 0;
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          while (running) {
            const t = performance.now();
            const res = await readers.request('GET', listPath, token).catch(() => null);
            if (res?.status === 200) latencies.push(performance.now() - t);
            else errors++;
          }
        }),
      );
      latencies.sort((a, b) => a - b);
      return { latencies, errors };
    })();
    while (running) {
      const t = performance.now();
      const res = await prober.request('GET', '/api/health', null).catch(() => null);
      if (res?.status === 200) health.push(performance.now() - t);
      else healthErrors++;
      await new Promise((r) => setTimeout(r, 10));
    }
    await runs;
    const read = await reads;
    health.sort((a, b) => a - b);
    const runMean = runTimes.length ? runTimes.reduce((a, b) => a + b, 0) / runTimes.length : null;
    return {
      scenario,
      connections: 22,
      rate: null,
      p50: round(percentile(health, 50), 2),
      p99: round(percentile(health, 99), 2),
      errors: healthErrors,
      rssMb: rss.stop(),
      count: health.length,
      note:
        `latency of /api/health (target p99 ≤ 100 ms; max ${round(health.at(-1) ?? null, 1)} ms); ` +
        `${runTimes.length} heavy run(s), mean ${round(runMean, 0)} ms` +
        `${runFailure ? `, last failure ${runFailure}` : ''}; ` +
        `${read.latencies.length} list reads of 100 × 500-line drafts, p50 ${round(percentile(read.latencies, 50), 0)} ms, ` +
        `p99 ${round(percentile(read.latencies, 99), 0)} ms, ${read.errors} errors`,
    };
  } finally {
    runner.close();
    readers.close();
    prober.close();
  }
}

/**
 * Contributions of one line of the dataset's 50-company run: completes a run (if the group has none
 * yet), picks the closing trial-balance line with the most contributing companies, and measures
 * GET …/trial-balance/lines/{n}/contributions next to GET …/runs/{id} (the floor: one stored row read
 * through the same authorization path).
 */
async function lineContributionsScenario(server: Server, ds: Dataset): Promise<Measurement[]> {
  const client = new Client(server.url, 1);
  const org = `organizationId=${ds.organizationId}`;
  const scenario = 'contributions of one line (50-company run)';
  const skipped = (note: string): Measurement[] => [
    { scenario, connections: 1, rate: null, p50: null, p99: null, errors: 0, rssMb: null, count: 0, note },
  ];
  try {
    const run = await client.request(
      'POST',
      `/api/v1/consolidation/groups/${ds.groupId}/runs?${org}`,
      ds.tokens.owner,
      { periodRef: { year: ds.year, period: 12 }, forceRegeneration: false },
    );
    if (run.status !== 201 || run.body.status !== 'Completed') {
      return skipped(`skipped: run ${run.status} ${String(run.body.status ?? run.body._tag)}`);
    }
    const runId = String(run.body.id);
    let best = '';
    let most = -1;
    const tb = await client.request(
      'GET',
      `/api/v1/consolidation/runs/${runId}/trial-balance?${org}`,
      ds.tokens.owner,
    );
    for (const l of (tb.body.lineItems ?? []) as { accountNumber: string; lineType: string }[]) {
      if (l.lineType !== 'Account') continue;
      const c = await client.request(
        'GET',
        `/api/v1/consolidation/runs/${runId}/trial-balance/lines/${encodeURIComponent(l.accountNumber)}/contributions?${org}`,
        ds.tokens.owner,
      );
      const lines = c.body.lines as { companies: unknown[] }[] | undefined;
      const n = lines?.[0]?.companies.length ?? 0;
      if (n > most) {
        most = n;
        best = l.accountNumber;
      }
      if (most >= 50) break;
    }
    if (!best) return skipped('skipped: no account line');
    const u = server.url;
    const line = await measured(server, scenario, 1, () =>
      cannon({
        url: `${u}/api/v1/consolidation/runs/${runId}/trial-balance/lines/${encodeURIComponent(best)}/contributions?${org}`,
        connections: 1,
        seconds: Math.max(2, seconds / 2),
        token: ds.tokens.owner,
      }),
    );
    line.note = `line ${best}, ${most} companies`;
    const floor = await measured(server, 'run read (contributions floor)', 1, () =>
      cannon({
        url: `${u}/api/v1/consolidation/runs/${runId}?${org}`,
        connections: 1,
        seconds: Math.max(2, seconds / 2),
        token: ds.tokens.owner,
      }),
    );
    return [line, floor];
  } finally {
    client.close();
  }
}

/**
 * Gives the dataset's group a group chart (the GeneralBusiness accounts) and one pattern mapping per
 * account for every member (`1010*` → 1010: the template account and its padded copies), through
 * the API. Returns an error text, or null.
 */
async function addGroupChart(server: Server, ds: Dataset): Promise<string | null> {
  const client = new Client(server.url, 1);
  const base = `/api/v1/consolidation/groups/${ds.groupId}`;
  const org = `?organizationId=${ds.organizationId}`;
  try {
    const template = getTemplate('GeneralBusiness').accounts.filter((a) => a.isPostable);
    const created = await client.request('POST', `${base}/accounts/bulk${org}`, ds.tokens.owner, {
      accounts: template.map((a) => ({
        accountNumber: a.accountNumber,
        name: a.name,
        accountType: a.accountType,
        accountCategory: a.accountCategory,
        cashFlowCategory: a.isCashEquivalent ? null : a.cashFlowCategory,
        isCashEquivalent: a.isCashEquivalent,
      })),
    });
    if (created.status !== 201) return `group accounts: ${created.status} ${String(created.body._tag)}`;
    for (const a of created.body.created as { id: string; accountNumber: string }[]) {
      const res = await client.request('POST', `${base}/mappings${org}`, ds.tokens.owner, {
        groupAccountId: a.id,
        pattern: `${a.accountNumber}*`,
      });
      if (res.status !== 201) return `mapping: ${res.status} ${String(res.body._tag)}`;
    }
    return null;
  } finally {
    client.close();
  }
}

/**
 * Foreign-currency revaluation of the FX company (200 monetary accounts × 5 currencies): repeated dry
 * runs at the year end (the read of the balances per currency, the rates and the figures, nothing
 * written), then one real run per month end, each booking about 1,000 difference lines and their
 * reversal on the next day.
 */
async function fxRevaluations(server: Server, ds: Dataset, fx: FxDataset, label: string) {
  const client = new Client(server.url, 1);
  const path = `/api/v1/organizations/${fx.organizationId}/companies/${fx.companyId}`;
  const out: Measurement[] = [];
  try {
    let lastFailure = '';
    const dry = await measured(
      server,
      `fx revaluation dry run, ${fx.monetaryAccounts}×5, ${label} lines`,
      1,
      () =>
        loop(1, Math.max(2, seconds / 2), async () => {
          const res = await client.request('POST', `${path}/fx-revaluations`, ds.tokens.owner, {
            asOfDate: `${fx.year}-12-31`,
            dryRun: true,
          });
          const ok = res.status === 200 && Array.isArray(res.body.lines) && res.body.lines.length > 0;
          if (!ok) lastFailure = `${res.status} ${String(res.body._tag)}`;
          return ok;
        }),
    );
    if (lastFailure) dry.note = `last failure: ${lastFailure}`;
    out.push(dry);
    let month = 0;
    const run = await measured(
      server,
      `fx revaluation posted, ${fx.monetaryAccounts}×5, ${label} lines`,
      1,
      () =>
        loop(
          1,
          seconds * 4,
          async () => {
            month++;
            const asOfDate = new Date(Date.UTC(fx.year, month, 0)).toISOString().slice(0, 10);
            const res = await client.request('POST', `${path}/fx-revaluations`, ds.tokens.owner, {
              asOfDate,
            });
            const ok = res.status === 200 && res.body.entryStatus === 'Posted';
            if (!ok) lastFailure = `${res.status} ${String(res.body._tag ?? res.body.entryStatus)}`;
            return ok;
          },
          12,
        ),
      'one run per month end: ~1,000 difference lines booked and reversed the next day',
    );
    if (lastFailure) run.note = `${run.note}; last failure: ${lastFailure}`;
    out.push(run);
  } finally {
    client.close();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Output

function table(rows: Measurement[]): string {
  const header = ['scenario', 'conn', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'RSS MB', 'CPU ms/req'];
  const cells = rows.map((m) => [
    m.scenario,
    m.connections === null ? '–' : String(m.connections),
    m.rate === null ? '–' : m.rate.toFixed(m.rate < 100 ? 1 : 0),
    m.p50 === null ? '–' : String(m.p50),
    m.p99 === null ? '–' : String(m.p99),
    m.rate === null && m.p50 === null ? '–' : String(m.errors),
    m.rssMb === null ? '–' : String(m.rssMb),
    m.cpuMsPerRequest == null ? '–' : String(m.cpuMsPerRequest),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    `| ${c.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`,
    ...cells.map(line),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(serverLog, '');
  log(`groupbook bench: ${kind}${quick ? ' (quick)' : ''}, workers ${workers}, ${seconds} s per scenario`);
  const target = await prepareTarget();
  const results: Measurement[] = [];
  const datasets: Record<string, Omit<Dataset, 'tokens'>> = {};
  /** the balances each group's consolidation run reads, by dataset; and by measured run */
  const datasetVolumes = new Map<Dataset, BalanceVolume>();
  const volumes = new Map<Measurement, BalanceVolume>();
  let small: Dataset;
  let big: Dataset;
  let owned: Dataset | null = null;
  let fx: FxDataset | null = null;
  try {
    // Data.
    log('generating data …');
    const database = await openDatabase({ ...target.open, poolSize: 2 });
    try {
      await database.migrate();
      const stamp = Date.now();
      small = await generateDataset(
        database.db,
        { label: `10k-${stamp}`, companies: 50, accountsPerCompany: 200, lines: smallLines },
        log,
      );
      big = await generateDataset(
        database.db,
        { label: `big-${stamp}`, companies: 50, accountsPerCompany: 200, lines: bigLines },
        log,
      );
      await checkBalances(database.db, small.organizationId);
      await checkBalances(database.db, big.organizationId);
      if (wants('fx')) {
        fx = await generateFxCompany(
          database.db,
          {
            organizationId: big.organizationId,
            userId: big.userIds.owner,
            year: big.year,
            accounts: 200,
            lines: bigLines,
          },
          log,
        );
      }
      if (wants('consolidation')) {
        owned = await generateDataset(
          database.db,
          {
            label: `owned-${stamp}`,
            companies: OWNERSHIP_COMPANIES,
            accountsPerCompany: 300,
            lines: ownershipLines,
            currencies: ['USD', 'EUR', 'GBP', 'JPY'],
            ownership: { tiers: 3 },
          },
          log,
        );
      }
      if (wants('consolidation')) {
        for (const ds of [small, big, ...(owned ? [owned] : [])])
          datasetVolumes.set(ds, await balanceVolume(database.db, ds));
      }
    } finally {
      await database.close();
    }
    for (const ds of [small, big, ...(owned ? [owned] : [])]) {
      const { tokens: _t, ...rest } = ds;
      datasets[ds.label] = rest;
      log(`  ${ds.label}: ${ds.lines} lines in ${ds.seconds.toFixed(1)} s`);
    }
    const bigLabel = bigLines >= 1_000_000 ? `${bigLines / 1_000_000}M` : `${bigLines / 1000}k`;

    // Cold start.
    if (wants('cold')) {
      log('cold start …');
      results.push(await coldStart(target.env, kind));
      if (kind === 'postgres') {
        const dir = mkdtempSync(join(os.tmpdir(), 'groupbook-bench-cold-'));
        try {
          const db = await openDatabase({ dataDir: dir });
          await db.migrate();
          await db.close();
          results.push(await coldStart({ DATA_DIR: dir }, 'pglite'));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    }

    // HTTP scenarios.
    log('starting server …');
    const server = await startServer(target.env, kind === 'postgres' ? workers : 1);
    try {
      const u = server.url;
      const ownerOf = small.tokens.owner;
      if (wants('health'))
        results.push(
          await measured(server, 'health', 10, () =>
            cannon({ url: `${u}/api/health`, connections: 10, seconds }),
          ),
        );
      if (wants('organizations'))
        results.push(
          await measured(server, 'organizations list', 10, () =>
            cannon({ url: `${u}/api/v1/organizations`, connections: 10, seconds, token: ownerOf }),
          ),
        );
      if (wants('journal')) {
        const body = entryBody(small, 0, 'Office supplies');
        const create = (connections: number, s: number) =>
          cannon({
            url: `${u}/api/v1/journal-entries`,
            method: 'POST',
            connections,
            seconds: s,
            token: small.tokens.clerk,
            body,
          });
        await create(10, quick ? 1 : 2); // warm-up, not reported
        for (const connections of [10, 50]) {
          results.push(
            await measured(server, 'journal create', connections, () => create(connections, seconds)),
          );
        }
      }
      if (wants('webhooks')) {
        const database = target.env.DATABASE_URL ? new URL(target.env.DATABASE_URL).pathname.slice(1) : null;
        results.push(
          ...(await webhookScenario(server, small, quick ? 2 : Math.max(4, seconds / 2), database)),
        );
      }
      if (wants('flow')) {
        const client = new Client(u, 10);
        results.push(
          await measured(
            server,
            'flow create→submit→approve→post',
            10,
            () => loop(10, seconds, () => journalFlow(client, small, 1)),
            'req/s = complete flows per second (4 requests each); latency per flow',
          ),
        );
        client.close();
      }
      if (wants('balance')) {
        for (const [ds, label] of [
          [small, '10k'],
          [big, bigLabel],
        ] as const) {
          const q = `organizationId=${ds.organizationId}&companyId=${ds.companyIds[0]}&asOfDate=${ds.year}-12-31`;
          results.push(
            await measured(server, `balance sheet ${label} lines`, 1, () =>
              cannon({
                url: `${u}/api/v1/reports/balance-sheet?${q}`,
                connections: 1,
                seconds: Math.max(2, seconds / 2),
                token: ds.tokens.owner,
              }),
            ),
          );
        }
      }
      if (wants('bulk')) {
        const database = target.env.DATABASE_URL ? new URL(target.env.DATABASE_URL).pathname.slice(1) : null;
        results.push(await bulkCreate(server, small, database));
      }
      if (wants('tbimport')) results.push(await trialBalanceImport(server, small));
      if (wants('export')) results.push(await journalExport(server, big, bigLabel));
      if (wants('fx') && fx) {
        results.push(...(await fxRevaluations(server, big, fx, bigLabel)));
      }
      if (wants('health during')) results.push(await healthDuringHeavyRun(server, small));
      if (wants('contributions')) results.push(...(await lineContributionsScenario(server, small)));
      if (wants('consolidation')) {
        const runsOf = async (ds: Dataset, label: string) => {
          const m = await consolidationRuns(server, ds, label);
          const volume = datasetVolumes.get(ds);
          if (volume) volumes.set(m, volume);
          return m;
        };
        results.push(await runsOf(small, '10k lines'));
        results.push(await runsOf(big, `${bigLabel} lines`));
        // The same run with a group chart and pattern mappings (aggregation by group account).
        const chartError = await addGroupChart(server, big);
        const charted = await consolidationRuns(server, big, `${bigLabel} lines, group chart`);
        if (chartError) charted.note = `group chart not created: ${chartError}`;
        results.push(charted);
        if (owned) {
          const label = `${OWNERSHIP_COMPANIES} companies, 3 tiers, acquisitions`;
          results.push(await runsOf(owned, label));
        }
      }
    } finally {
      await server.stop();
    }

    // Raw-SQL floor, same company and concurrency as the journal-create scenario.
    if (wants('journal') || wants('floor')) {
      const floorTarget: FloorTarget = {
        organizationId: small.organizationId,
        companyId: small.companyIds[0]!,
        currency: small.companyCurrencies[0]!,
        userId: small.userIds.clerk,
        debitAccountId: small.entryAccounts[0]!.debit,
        creditAccountId: small.entryAccounts[0]!.credit,
        transactionDate: `${small.year}-06-15`,
        fiscalYear: small.year,
        fiscalPeriod: 6,
      };
      let pglite: PGlite | undefined;
      if (kind === 'pglite') {
        pglite = new PGlite(target.open.dataDir!);
        await pglite.waitReady;
      }
      try {
        const runs: [string, number, number, string][] = [
          [
            FLOOR,
            10,
            1,
            'plain driver, no HTTP: counter bump, header, 2 lines, audit in one statement (one transaction) per entry',
          ],
          [FLOOR, 50, 1, 'as above, 50 connections'],
          [
            FLOOR_BATCHED,
            10,
            10,
            'group-commit floor: 10 entries per statement (one counter bump, one commit); req/s = entries/s',
          ],
        ];
        for (const [scenario, connections, perStatement, note] of runs) {
          log(`  ${scenario} (${connections} connections) …`);
          const r = pglite
            ? await floorPglite(pglite, floorTarget, connections, seconds, perStatement)
            : await floorPostgres(target.open.url!, floorTarget, connections, seconds, perStatement);
          results.push({
            scenario,
            connections,
            rate: round(r.rate),
            p50: round(r.p50, 2),
            p99: round(r.p99, 2),
            errors: r.errors,
            rssMb: null,
            count: r.count,
            note,
          });
        }
      } finally {
        await pglite?.close();
      }
    }
    // Floor of the bulk create: the same rows by multi-row INSERTs in one transaction.
    if (wants('bulk')) {
      const t: FloorTarget = {
        organizationId: small.organizationId,
        companyId: small.companyIds[3]!,
        currency: small.companyCurrencies[3]!,
        userId: small.userIds.clerk,
        debitAccountId: small.entryAccounts[3]!.debit,
        creditAccountId: small.entryAccounts[3]!.credit,
        transactionDate: `${small.year}-06-15`,
        fiscalYear: small.year,
        fiscalPeriod: 6,
      };
      log(`  ${BULK_FLOOR} …`);
      let seconds: number;
      if (kind === 'pglite') {
        const pglite = new PGlite(target.open.dataDir!);
        await pglite.waitReady;
        try {
          seconds = await bulkFloorPglite(pglite, t, BULK_ENTRIES, BULK_LINES_PER_ENTRY);
        } finally {
          await pglite.close();
        }
      } else seconds = await bulkFloorPostgres(target.open.url!, t, BULK_ENTRIES, BULK_LINES_PER_ENTRY);
      results.push({
        scenario: BULK_FLOOR,
        connections: 1,
        rate: round((BULK_ENTRIES * BULK_LINES_PER_ENTRY) / seconds),
        p50: round(seconds * 1000),
        p99: null,
        errors: 0,
        rssMb: null,
        count: 3,
        note: 'plain driver, multi-row INSERTs of the same headers, lines and audit rows in one transaction; req/s = lines/s, p50 = best ms',
      });
    }
    report(results, datasets, volumes);
  } finally {
    await target.cleanup();
  }
}

// ---------------------------------------------------------------------------------------------------
// Data in and out

const BULK_ENTRIES = 1000;
const BULK_LINES_PER_ENTRY = 10;
const BULK = `bulk create ${BULK_ENTRIES}×${BULK_LINES_PER_ENTRY}`;
const BULK_FLOOR = `raw-SQL floor, bulk ${BULK_ENTRIES}×${BULK_LINES_PER_ENTRY}`;
const TB_ROWS = 50_000;

async function post(url: string, token: string, body: string, contentType = 'application/json') {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/**
 * 1,000 entries of 10 lines in one request, three times: lines/s of the best and the median. The note
 * gives the CPU time per request of the server and of the PostgreSQL backends (from /proc: a figure
 * that other work on the machine disturbs much less than the wall clock) and, with `--record-sql`,
 * the statements one request sends.
 */
async function bulkCreate(server: Server, ds: Dataset, database: string | null): Promise<Measurement> {
  const company = 2;
  const accounts = ds.entryAccounts[company]!;
  const currency = ds.companyCurrencies[company]!;
  const body = () =>
    JSON.stringify({
      entries: Array.from({ length: BULK_ENTRIES }, (_, i) => ({
        organizationId: ds.organizationId,
        companyId: ds.companyIds[company]!,
        description: `Bulk ${i}`,
        transactionDate: `${ds.year}-06-15`,
        lines: Array.from({ length: BULK_LINES_PER_ENTRY }, (_, n) =>
          n < BULK_LINES_PER_ENTRY / 2
            ? { accountId: accounts.debit, debitAmount: { value: '100.00', currency } }
            : { accountId: accounts.credit, creditAmount: { value: '100.00', currency } },
        ),
      })),
    });
  const statementsSent = () =>
    recordSql && existsSync(recordSql) ? readFileSync(recordSql, 'utf8').split('\n').length - 1 : 0;
  let cpu = '';
  const m = await measured(
    server,
    BULK,
    1,
    async () => {
      const times: number[] = [];
      const s0 = statementsSent();
      await post(`${server.url}/api/v1/journal-entries/bulk`, ds.tokens.clerk, body()); // warm-up
      const statements = statementsSent() - s0;
      const serverBefore = treeCpuMs(server.pid);
      const postgresBefore = database ? backendCpuMs(database) : new Map<number, number>();
      for (let r = 0; r < 3; r++) {
        const text = body();
        const t0 = performance.now();
        await post(`${server.url}/api/v1/journal-entries/bulk`, ds.tokens.clerk, text);
        times.push(performance.now() - t0);
      }
      const serverMs = (treeCpuMs(server.pid) - serverBefore) / 3;
      let postgresMs = 0;
      if (database) {
        for (const [pid, ms] of backendCpuMs(database)) postgresMs += ms - (postgresBefore.get(pid) ?? 0);
      }
      cpu =
        `; CPU ms per request: server ${round(serverMs)}` +
        (database ? `, PostgreSQL backends ${round(postgresMs / 3)}` : '') +
        (recordSql ? `; ${statements} statements per request` : '');
      times.sort((a, b) => a - b);
      const lines = BULK_ENTRIES * BULK_LINES_PER_ENTRY;
      return { rate: lines / (times[0]! / 1000), p50: times[1]!, p99: times[2]!, errors: 0, count: 3 };
    },
    'one request of 1,000 entries × 10 lines (one transaction); req/s = lines/s of the fastest of 3, p50/p99 = median/slowest ms',
  );
  return { ...m, note: `${m.note!}${cpu}` };
}

/** A 50,000-row trial balance (CSV) imported as Opening into a new company, its accounts created. */
async function trialBalanceImport(server: Server, ds: Dataset): Promise<Measurement> {
  const company = await post(
    `${server.url}/api/v1/companies`,
    ds.tokens.owner,
    JSON.stringify({
      organizationId: ds.organizationId,
      name: `TB import ${Date.now()}`,
      legalName: 'TB import Ltd',
      jurisdiction: 'US',
      functionalCurrency: 'USD',
      reportingCurrency: 'USD',
      fiscalYearEnd: { month: 12, day: 31 },
    }),
  );
  const lines = ['accountNumber,accountName,debit,credit'];
  for (let i = 0; i < TB_ROWS; i++) {
    const number = 1_000_000 + i;
    lines.push(
      i < TB_ROWS / 2
        ? `${number},Asset ${i},${100 + (i % 900)}.25,`
        : `${number},Liability ${i},,${100 + ((i - TB_ROWS / 2) % 900)}.25`,
    );
  }
  const csv = `${lines.join('\n')}\n`;
  const query = new URLSearchParams({
    organizationId: ds.organizationId,
    asOfDate: `${ds.year}-01-01`,
    mode: 'Opening',
    createMissingAccounts: 'true',
    categoryRules: `1000000-1024999:CurrentAsset,1025000-1049999:CurrentLiability`,
  });
  return measured(
    server,
    `trial-balance import ${TB_ROWS / 1000}k rows`,
    1,
    async () => {
      const t0 = performance.now();
      await post(
        `${server.url}/api/v1/companies/${String(company.id)}/trial-balance-imports?${query}`,
        ds.tokens.owner,
        csv,
        'text/csv',
      );
      const ms = performance.now() - t0;
      return { rate: TB_ROWS / (ms / 1000), p50: ms, p99: ms, errors: 0, count: 1 };
    },
    'CSV, Opening, 50,000 accounts created; req/s = rows/s, p50 = ms (target ≤ 5,000 ms)',
  );
}

/** Every journal line of the big dataset as CSV, streamed; the server's RSS is sampled meanwhile. */
async function journalExport(server: Server, ds: Dataset, label: string): Promise<Measurement> {
  return measured(
    server,
    `journal export CSV ${label} lines`,
    1,
    async () => {
      const t0 = performance.now();
      const res = await fetch(
        `${server.url}/api/v1/journal-entries?organizationId=${ds.organizationId}&format=csv`,
        {
          headers: { authorization: `Bearer ${ds.tokens.owner}` },
        },
      );
      if (res.status !== 200 || !res.body) throw new Error(`export: ${res.status}`);
      let rows = -1; // header row
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true });
        for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) rows++;
      }
      const ms = performance.now() - t0;
      if (rows !== ds.lines) log(`    exported ${rows} rows, dataset has ${ds.lines} lines`);
      return { rate: rows / (ms / 1000), p50: ms, p99: ms, errors: rows === ds.lines ? 0 : 1, count: rows };
    },
    'GET /journal-entries?format=csv, every line of the organization; req/s = rows/s, p50 = ms; RSS = server peak (target ≤ 250 MB)',
  );
}

function report(
  results: Measurement[],
  datasets: Record<string, Omit<Dataset, 'tokens'>>,
  volumes: ReadonlyMap<Measurement, BalanceVolume>,
): void {
  const find = (scenario: string, connections: number | null = null) =>
    results.find((m) => m.scenario === scenario && (connections === null || m.connections === connections));
  const ratios: Record<string, number | null> = {};
  for (const c of [10, 50]) {
    const app = find('journal create', c)?.rate;
    const raw = find(FLOOR, c)?.rate;
    if (app && raw) ratios[`journal create / raw-SQL floor @${c}`] = round(app / raw, 2);
  }
  const hooked = find('journal create, webhook active', 10)?.rate;
  const plain = find('journal create, webhook none', 10)?.rate;
  if (hooked && plain)
    ratios['journal create with an active webhook / without @10'] = round(hooked / plain, 2);
  const app10 = find('journal create', 10)?.rate;
  const batched = find(FLOOR_BATCHED, 10)?.rate;
  if (app10 && batched) ratios['journal create / group-commit floor @10'] = round(app10 / batched, 2);
  const bulk = find(BULK)?.rate;
  const bulkFloorRate = find(BULK_FLOOR)?.rate;
  if (bulk && bulkFloorRate)
    ratios['bulk create / bulk raw-SQL floor (lines/s)'] = round(bulk / bulkFloorRate, 2);
  // The data-in-and-out targets as figures against their thresholds (≥ 1 meets the target).
  if (bulk) ratios['bulk create lines/s / 20,000 target'] = round(bulk / 20_000, 2);
  const tb = find(`trial-balance import ${TB_ROWS / 1000}k rows`)?.p50;
  if (tb) ratios['trial-balance import 5,000 ms target / ms'] = round(5000 / tb, 2);
  const exported = results.find((m) => m.scenario.startsWith('journal export CSV'));
  if (exported?.rssMb)
    ratios['journal export 250 MB RSS target / peak RSS MB'] = round(250 / exported.rssMb, 2);
  const pairs: [string, string, string][] = [
    ['balance sheet', 'balance sheet 10k lines', 'balance sheet'],
    ['consolidation run', 'consolidation run 10k lines', 'consolidation run'],
  ];
  for (const [name, smallName, prefix] of pairs) {
    const a = find(smallName)?.p50;
    const b = results.find(
      (m) => m.scenario.startsWith(prefix) && m.scenario !== smallName && !m.scenario.includes('companies'),
    )?.p50;
    if (a && b) ratios[`${name} p50 big / 10k`] = round(b / a, 2);
  }
  // Group chart: the 50-company run with a group chart and pattern mappings against the same run without.
  const contributions = find('contributions of one line (50-company run)');
  const runRead = find('run read (contributions floor)');
  if (contributions?.p50 && runRead?.p50)
    ratios['contributions of one line / run read p50'] = round(contributions.p50 / runRead.p50, 2);
  const charted = results.find((m) => m.scenario.endsWith(', group chart'));
  const uncharted = charted && find(charted.scenario.replace(', group chart', ''));
  if (charted?.p50 && uncharted?.p50)
    ratios['consolidation run p50 group chart / without'] = round(charted.p50 / uncharted.p50, 2);
  // Ownership run: time per company against the 50-company runs (per company, p50).
  const owned = results.find(
    (m) => m.scenario.startsWith('consolidation run') && m.scenario.includes('companies'),
  );
  for (const m of results.filter(
    (x) =>
      x.scenario.startsWith('consolidation run') &&
      !x.scenario.includes('companies') &&
      !x.scenario.endsWith('group chart'),
  )) {
    if (owned?.p50 && m.p50) {
      const label = m.scenario.replace('consolidation run ', '');
      ratios[`ownership run per company / 50-company run (${label}) per company`] = round(
        owned.p50 / OWNERSHIP_COMPANIES / (m.p50 / 50),
        2,
      );
      // The same comparison per unit of what the runs read: the groups differ in data per company
      // (the ownership scenario has 300 accounts per company and 20 times the lines).
      const a = volumes.get(owned);
      const b = volumes.get(m);
      if (a && b) {
        ratios[`ownership run per account with balances / 50-company run (${label})`] = round(
          owned.p50 / a.accounts / (m.p50 / b.accounts),
          2,
        );
        ratios[`ownership run per month row of balances / 50-company run (${label})`] = round(
          owned.p50 / a.monthRows / (m.p50 / b.monthRows),
          2,
        );
      }
    }
  }

  const machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
  };
  const out = {
    date: new Date().toISOString(),
    database: kind,
    workers: kind === 'postgres' ? workers : 1,
    quick,
    secondsPerScenario: seconds,
    machine,
    datasets,
    results,
    ratios,
  };
  const file = join(ROOT, 'bench', 'results', `${out.date.replace(/[:.]/g, '-')}-${kind}.json`);
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);

  const print = (s: string) => process.stdout.write(`${s}\n`);
  print('');
  print(
    `Groupbook bench — ${kind}${kind === 'postgres' ? `, ${out.workers} worker(s)` : ''}, ` +
      `${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}${quick ? ', quick' : ''}`,
  );
  print(table(results));
  for (const [k, v] of Object.entries(ratios)) print(`${k}: ${v}`);
  for (const m of results) {
    if (m.note?.startsWith('skipped') || m.scenario.startsWith('journal create, webhook')) {
      print(`${m.scenario}: ${m.note}`);
    }
  }
  print(`results: ${file}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
