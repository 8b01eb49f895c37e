/**
 * Failover (docs/scaling.md, "Replicas for availability"): a primary and a streaming standby as two
 * local PostgreSQL clusters on ports of their own (pg_createcluster, pg_basebackup; synchronous
 * replication as the docs recommend), the real server (the bundle `npm start` runs) with a libpq
 * multi-host URL (`target_session_attrs=read-write`), and a posting load sent with Idempotency-Keys.
 * In the middle of the load the standby takes over, in one of two orders that alternate by round:
 *
 *   stop-then-promote   the primary stops (fast shutdown), then the standby is promoted — a crash or
 *                       a planned switchover;
 *   promote-then-stop   the standby is promoted while the old primary still runs, which is stopped a
 *                       moment later — the window a failover manager needs to fence the old primary.
 *
 * Checked in every round:
 *   - requests during the switch answer 503 ServiceUnavailableError with Retry-After — never a 500,
 *     never another error, and none takes longer than HANG_BOUND_MS;
 *   - the service reconnects by itself (no restart) and takes writes on the new primary;
 *   - a request answered 503 and retried with its Idempotency-Key gets its final answer, executed
 *     once; every acknowledged request sent again with its key replays its stored answer;
 *   - on the new primary, every acknowledged create, post and reversal is there (lost = 0), no
 *     entry was created twice, and the ledger is consistent (balances equal the posted lines).
 * Then the old primary is rebuilt as the new primary's standby and the next round switches back.
 *
 *   npm run failover-test                       # 4 rounds
 *   FAILOVER_ROUNDS=2 npm run failover-test     # the short form CI runs
 *
 * Env: FAILOVER_ROUNDS (default 4), FAILOVER_SEED, FAILOVER_PORT (first port tried for the two
 * clusters, default 5440). Needs root (the clusters run as the postgres user) and the Debian
 * PostgreSQL tools. The clusters are removed at the end, also after a failure or Ctrl-C.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { sql } from 'drizzle-orm';
import { type Database, openDatabase, queryRows } from '../src/db/client.ts';
import {
  type Acks,
  type ApiResult,
  api,
  duplicateDescriptions,
  entryBody,
  kill,
  ROOT,
  seededRandom,
  type Server,
  setupTenant,
  sleep,
  startServer,
  type Tenant,
  verifyLedger,
} from './harness.ts';

const ROUNDS = Number(process.env.FAILOVER_ROUNDS ?? 4);
const random = seededRandom(Number(process.env.FAILOVER_SEED ?? 20_260_501));
const FIRST_PORT = Number(process.env.FAILOVER_PORT ?? 5440);
/**
 * No request may take longer than this, during the switch or otherwise. The service's own worst case
 * is longer (docs/scaling.md: a connection is waited for at most 10 s, a statement on a stalled server
 * fails within about 8 s, a COMMIT cut off is resolved within 30 s); on this machine a switch costs a
 * request far less, and this bound says so.
 */
const HANG_BOUND_MS = 15_000;
/** How long the old primary keeps running after the promotion in the promote-then-stop order. */
const FENCING_DELAY_MS = 1_000;
/** A request answered 503 is sent again after this long (clients may retry before Retry-After). */
const RETRY_DELAY_MS = 200;
/** Stop retrying a request that has no final answer after this long (then its key is examined). */
const RETRY_DEADLINE_MS = 20_000;
const VERBOSE = Boolean(process.env.FAILOVER_VERBOSE);
const WORKERS = 8;
const DATABASE = 'groupbook';
const CLUSTER_PREFIX = 'groupbook_failover_';

const log = (msg: string) => process.stdout.write(`failover-test: ${msg}\n`);

// ---------------------------------------------------------------------------------------------------
// Local clusters (Debian's postgresql-common tools, run as root; the servers run as postgres)

const VERSION = pgVersion();

function pgVersion(): string {
  const versions = readdirSync('/usr/lib/postgresql')
    .filter((v) => existsSync(`/usr/lib/postgresql/${v}/bin/pg_basebackup`))
    .sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error('no PostgreSQL server installation under /usr/lib/postgresql');
  return versions[0]!;
}

function sh(command: string, args: string[], options: { quiet?: boolean } = {}): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    if (options.quiet) return '';
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${command} ${args.join(' ')}: ${e.stderr || e.stdout || e.message}`, { cause: err });
  }
}

interface Cluster {
  name: string;
  port: number;
  dataDir: string;
}

function ctl(cluster: Cluster, ...action: string[]): void {
  sh('pg_ctlcluster', ['--skip-systemctl-redirect', VERSION, cluster.name, ...action]);
}

function psql(cluster: Cluster, command: string, database = 'postgres'): string {
  return sh('psql', [
    '-h',
    '127.0.0.1',
    '-p',
    String(cluster.port),
    '-U',
    'postgres',
    '-d',
    database,
    '-XAtqc',
    command,
  ]).trim();
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  const taken = new Set(
    sh('pg_lsclusters', ['-h'], { quiet: true })
      .split('\n')
      .map((line) => Number(line.split(/\s+/)[2])),
  );
  for (let port = FIRST_PORT; ports.length < count && port < FIRST_PORT + 200; port++)
    if (!taken.has(port) && (await portIsFree(port))) ports.push(port);
  if (ports.length < count) throw new Error(`no ${count} free ports from ${FIRST_PORT}`);
  return ports;
}

/** A new cluster (not started): its own port, trust authentication on 127.0.0.1 only. */
function createCluster(name: string, port: number): Cluster {
  sh('pg_createcluster', [VERSION, name, '-p', String(port), '--', '--auth=trust']);
  writeFileSync(
    `/etc/postgresql/${VERSION}/${name}/conf.d/failover-test.conf`,
    [
      "listen_addresses = '127.0.0.1'",
      // the standby rebuilt after a round copies the new primary; keep enough WAL for it
      "wal_keep_size = '256MB'",
      'max_connections = 50',
      '',
    ].join('\n'),
  );
  return { name, port, dataDir: `/var/lib/postgresql/${VERSION}/${name}` };
}

function dropCluster(name: string): void {
  sh('pg_dropcluster', ['--stop', VERSION, name], { quiet: true });
}

/** Replaces the data directory of `standby` (stopped) with a streaming copy of `primary`, starts it. */
async function attachStandby(standby: Cluster, primary: Cluster): Promise<void> {
  rmSync(standby.dataDir, { recursive: true, force: true });
  sh('install', ['-d', '-o', 'postgres', '-g', 'postgres', '-m', '700', standby.dataDir]);
  sh('runuser', [
    '-u',
    'postgres',
    '--',
    'pg_basebackup',
    '-h',
    '127.0.0.1',
    '-p',
    String(primary.port),
    '-U',
    'postgres',
    '-D',
    standby.dataDir,
    '-R', // standby.signal and primary_conninfo
    '-X',
    'stream',
    '-c',
    'fast',
  ]);
  ctl(standby, 'start');
  // Synchronous replication: a commit is acknowledged once the standby has it (docs/scaling.md).
  psql(primary, "alter system set synchronous_standby_names = '*'");
  psql(primary, 'select pg_reload_conf()');
  const started = Date.now();
  while (psql(primary, "select count(*) from pg_stat_replication where sync_state = 'sync'") !== '1') {
    if (Date.now() - started > 30_000)
      throw new Error(`${standby.name} did not become a synchronous standby`);
    await sleep(100);
  }
}

function promote(cluster: Cluster): void {
  ctl(cluster, 'promote'); // waits until the promotion is complete
}

function stopFast(cluster: Cluster): void {
  ctl(cluster, 'stop', '-m', 'fast');
}

// ---------------------------------------------------------------------------------------------------
// Load

interface Outcome {
  at: number;
  status: number | 'hang' | 'network';
  latencyMs: number;
  tag?: string;
  retryAfter?: string | null;
}

interface KeyedRequest {
  key: string;
  method: string;
  path: string;
  body: unknown;
  /** The final 2xx answer. */
  answer?: ApiResult;
  /** Still answered 409 IdempotencyKeyInProgressError when the retries stopped. */
  unresolved?: boolean;
}

interface Stats {
  outcomes: Outcome[];
  acknowledged: number;
  /** Requests answered 503 at least once before their final answer. */
  retried: number;
  /** Retries of such requests that were answered from storage (Idempotent-Replayed). */
  retryReplayed: number;
  /** Acknowledged requests sent again afterwards and replayed with the same answer. */
  replayed: number;
  /** Requests whose writes committed while their response was lost (the key says `committed`). */
  inDoubt: number;
  failures: string[];
}

/**
 * Sends one request with its Idempotency-Key until it has a final answer: 503 (with Retry-After) and
 * 409 IdempotencyKeyInProgressError are retried with the same key; every answer is recorded. Returns
 * the final answer, or null (a failure is recorded, or the key stayed in progress: `unresolved`).
 */
async function send(
  port: number,
  tenant: Tenant,
  request: KeyedRequest,
  stats: Stats,
): Promise<ApiResult | null> {
  const deadline = Date.now() + RETRY_DEADLINE_MS;
  const history: string[] = [];
  for (;;) {
    const started = Date.now();
    let res: ApiResult | null = null;
    const outcome: Outcome = { at: started, status: 'network', latencyMs: 0 };
    try {
      res = await api(port, request.method, request.path, {
        token: tenant.token,
        body: request.body,
        headers: { 'idempotency-key': request.key },
        timeoutMs: HANG_BOUND_MS,
      });
      outcome.status = res.status;
      outcome.tag = res.body?._tag;
      outcome.retryAfter = res.headers.get('retry-after');
    } catch (err) {
      outcome.status = (err as Error).name === 'TimeoutError' ? 'hang' : 'network';
    }
    outcome.latencyMs = Date.now() - started;
    stats.outcomes.push(outcome);
    history.push(`${outcome.status}${outcome.tag ? ` ${outcome.tag}` : ''}`);
    if (res && res.status >= 200 && res.status < 300) {
      const replayed = res.headers.get('idempotent-replayed') === 'true';
      stats.acknowledged++;
      if (history.length > 1) {
        stats.retried++;
        if (replayed) stats.retryReplayed++;
        if (VERBOSE) log(`  ${request.key}: ${history.join(' → ')}${replayed ? ' (replayed)' : ''}`);
      }
      request.answer = res;
      return res;
    }
    const unavailable =
      res?.status === 503 && res.body?._tag === 'ServiceUnavailableError' && res.headers.get('retry-after');
    const inProgress = res?.status === 409 && res.body?._tag === 'IdempotencyKeyInProgressError';
    if (!unavailable && !inProgress) {
      stats.failures.push(
        `${request.method} ${request.path} (key ${request.key}): ${history.join(' → ')}` +
          `${res ? ` ${JSON.stringify(res.body)}` : ''} after ${outcome.latencyMs} ms`,
      );
      return null;
    }
    if (Date.now() > deadline) {
      if (inProgress) request.unresolved = true;
      else stats.failures.push(`${request.key}: still unavailable after ${RETRY_DEADLINE_MS} ms`);
      if (VERBOSE) log(`  ${request.key}: ${history.slice(0, 4).join(' → ')} … ${history.at(-1)}`);
      return null;
    }
    await sleep(RETRY_DELAY_MS);
  }
}

/** Loops of create → post (→ every third entry: reverse) until `stop.now`. */
async function runLoad(
  port: number,
  tenant: Tenant,
  acks: Acks,
  stats: Stats,
  sent: KeyedRequest[],
  stop: { now: boolean },
  round: number,
): Promise<void> {
  const worker = async (w: number) => {
    for (let i = 0; !stop.now; i++) {
      const key = `failover-${round}-${w}-${i}-${Math.floor(random() * 1e9)}`;
      const create: KeyedRequest = {
        key: `${key}-create`,
        method: 'POST',
        path: '/api/v1/journal-entries',
        body: entryBody(tenant, `failover ${key}`, random),
      };
      sent.push(create);
      const created = await send(port, tenant, create, stats);
      if (!created) continue; // failed (recorded) or in doubt (checked after the round)
      const id = created.body.id as string;
      acks.created.add(id);
      const post: KeyedRequest = {
        key: `${key}-post`,
        method: 'POST',
        path: `/api/v1/journal-entries/${id}/post`,
        body: {},
      };
      sent.push(post);
      if (!(await send(port, tenant, post, stats))) continue;
      acks.posted.add(id);
      if (i % 3 === 2) {
        const reverse: KeyedRequest = {
          key: `${key}-reverse`,
          method: 'POST',
          path: `/api/v1/journal-entries/${id}/reverse`,
          body: { reversalDate: '2026-06-16' },
        };
        sent.push(reverse);
        if (!(await send(port, tenant, reverse, stats))) continue;
        acks.reversed.add(id);
      }
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
}

/** Every acknowledged request sent again with its key: the stored answer, unchanged, nothing executed. */
async function replayAll(port: number, tenant: Tenant, sent: KeyedRequest[], stats: Stats): Promise<void> {
  const answered = sent.filter((r) => r.answer);
  for (let i = 0; i < answered.length; i += WORKERS) {
    await Promise.all(
      answered.slice(i, i + WORKERS).map(async (request) => {
        const again = await api(port, request.method, request.path, {
          token: tenant.token,
          body: request.body,
          headers: { 'idempotency-key': request.key },
          timeoutMs: HANG_BOUND_MS,
        });
        if (
          again.status === request.answer!.status &&
          again.headers.get('idempotent-replayed') === 'true' &&
          JSON.stringify(again.body) === JSON.stringify(request.answer!.body)
        )
          stats.replayed++;
        else
          stats.failures.push(
            `replay of ${request.method} ${request.path} (key ${request.key}): ${again.status} ` +
              `replayed=${again.headers.get('idempotent-replayed')} ${JSON.stringify(again.body)}`,
          );
      }),
    );
  }
}

// ---------------------------------------------------------------------------------------------------

interface RoundReport {
  order: string;
  switchMs: number;
  recoveredMs: number;
  maxLatencyMs: number;
  errors: Map<string, number>;
  before: number;
  after: number;
  stats: Stats;
  lost: number;
}

/**
 * The commits the server found cut off by a lost connection and resolved on the new primary (it logs
 * each one with its outcome), counted in its output so far.
 */
function resolvedCommits(server: Server): Record<'committed' | 'not committed' | 'unknown', number> {
  const text = server.output.join('');
  const count = (outcome: string) => text.split(`"outcome":"${outcome}"`).length - 1;
  return {
    committed: count('committed'),
    'not committed': count('not committed'),
    unknown: count('unknown'),
  };
}

function databaseUrl(a: Cluster, b: Cluster): string {
  return `postgres://postgres@127.0.0.1:${a.port},127.0.0.1:${b.port}/${DATABASE}?target_session_attrs=read-write`;
}

async function round(
  n: number,
  server: Server,
  tenant: Tenant,
  primary: Cluster,
  standby: Cluster,
): Promise<RoundReport> {
  const order = process.env.FAILOVER_ORDER ?? (n % 2 === 1 ? 'stop-then-promote' : 'promote-then-stop');
  const acks: Acks = { created: new Set(), posted: new Set(), reversed: new Set() };
  const stats: Stats = {
    outcomes: [],
    acknowledged: 0,
    retried: 0,
    retryReplayed: 0,
    replayed: 0,
    inDoubt: 0,
    failures: [],
  };
  const sent: KeyedRequest[] = [];
  const stop = { now: false };
  const loadStarted = Date.now();
  const load = runLoad(server.port, tenant, acks, stats, sent, stop, n);

  // Let the load run, then switch in the middle of it.
  await sleep(1500 + Math.floor(random() * 1000));
  const switchAt = Date.now();
  if (order === 'stop-then-promote') {
    stopFast(primary);
    promote(standby);
  } else {
    promote(standby);
    await sleep(FENCING_DELAY_MS);
    stopFast(primary);
  }
  const switchMs = Date.now() - switchAt;
  // The load goes on against the new primary for a while.
  await sleep(3000);
  stop.now = true;
  const loadEnded = Date.now(); // requests still being retried after this do not count in the rates
  await load;

  const ok = (o: Outcome) => typeof o.status === 'number' && o.status < 300;
  // Writing again: the first request sent after the switch and acknowledged; the rate after the switch
  // is counted from the last 503 on (a 409 only says that the key of a retried request is still held).
  const firstOkAfter = stats.outcomes
    .filter((o) => ok(o) && o.at > switchAt + switchMs)
    .reduce((min, o) => Math.min(min, o.at + o.latencyMs), Infinity);
  const last503 = stats.outcomes
    .filter((o) => o.status === 503)
    .reduce((max, o) => Math.max(max, o.at + o.latencyMs), switchAt);
  const recoveredMs = firstOkAfter - switchAt;
  const errors = new Map<string, number>();
  for (const o of stats.outcomes.filter((x) => !ok(x))) {
    const label = `${o.status}${o.tag ? ` ${o.tag}` : ''}${o.status === 503 ? (o.retryAfter ? ' with Retry-After' : ' WITHOUT Retry-After') : ''}`;
    errors.set(label, (errors.get(label) ?? 0) + 1);
    if (
      o.status === 500 ||
      o.status === 'hang' ||
      o.status === 'network' ||
      (o.status === 503 && !o.retryAfter)
    )
      stats.failures.push(`unacceptable answer during the switch: ${label} after ${o.latencyMs} ms`);
  }
  const rate = (from: number, to: number) =>
    stats.outcomes.filter((o) => ok(o) && o.at >= from && o.at + o.latencyMs <= to).length /
    ((to - from) / 1000);
  const before = rate(loadStarted + 300, switchAt);
  const after = rate(Math.max(firstOkAfter, last503), loadEnded - 100);

  await replayAll(server.port, tenant, sent, stats);

  // On the new primary, directly.
  const database: Database = await openDatabase({
    url: `postgres://postgres@127.0.0.1:${standby.port}/${DATABASE}`,
    poolSize: 2,
  });
  let lost: number;
  try {
    const problems = await verifyLedger(database, tenant, acks);
    lost = problems.filter((p) => p.startsWith('acknowledged')).length;
    stats.failures.push(...problems);
    // A key still in progress long after the switch must say that its request committed (the
    // response was lost with the old primary's connection); a key left running would be stuck.
    for (const request of sent.filter((r) => r.unresolved)) {
      const rows = await queryRows<{ state: string }>(
        database.db,
        sql`select state from idempotency_keys where key = ${request.key}`,
      );
      const state = rows[0]?.state ?? 'absent';
      if (state === 'committed') stats.inDoubt++;
      else
        stats.failures.push(`${request.method} ${request.path} (key ${request.key}): key stuck (${state})`);
    }
    const creates = sent.filter((r) => r.path.endsWith('journal-entries'));
    const description = (r: KeyedRequest) => (r.body as { description: string }).description;
    const mustExist = new Set(creates.filter((r) => r.answer || r.unresolved).map(description));
    const counts = await queryRows<{ description: string; n: number }>(
      database.db,
      sql`select description, count(*)::int as n from journal_entries
          where organization_id = ${tenant.orgId} and not is_reversing and description like ${`failover failover-${n}-%`}
          group by description`,
    );
    for (const c of counts)
      if (c.n !== 1) stats.failures.push(`entry "${c.description}" exists ${c.n} times`);
    const present = new Set(counts.map((c) => c.description));
    for (const d of mustExist) if (!present.has(d)) stats.failures.push(`entry "${d}" missing`);
  } finally {
    await database.close();
  }
  const dups = await duplicateDescriptions(server.port, tenant);
  for (const d of dups) stats.failures.push(`created twice: ${d}`);
  const maxLatencyMs = stats.outcomes.reduce((m, o) => Math.max(m, o.latencyMs), 0);
  // The round proves something only if the service came through the switch: a request sent after the
  // old primary stopped and acknowledged was written on the new one, over connections the service
  // opened by itself. (Whether a request also saw a 503 depends on what was in flight at that moment.)
  if (!Number.isFinite(recoveredMs))
    stats.failures.push('no request sent after the switch was acknowledged: the service did not reconnect');
  if (stats.replayed === 0) stats.failures.push('no acknowledged request was replayed');
  // A request whose commit could not be resolved is in doubt: its client cannot learn its answer.
  if (stats.inDoubt > 0)
    stats.failures.push(`${stats.inDoubt} request(s) in doubt: committed, but their answer was lost`);
  return { order, switchMs, recoveredMs, maxLatencyMs, errors, before, after, stats, lost };
}

const created: string[] = [];

function cleanup(): void {
  for (const name of created.splice(0)) dropCluster(name);
}

async function main(): Promise<void> {
  // Leftovers of an earlier run that was killed: clusters of processes that no longer exist.
  for (const line of sh('pg_lsclusters', ['-h'], { quiet: true }).split('\n')) {
    const [version, name] = line.split(/\s+/);
    const pid = Number(/^groupbook_failover_(\d+)_/.exec(name ?? '')?.[1]);
    if (version === VERSION && pid && !isAlive(pid)) dropCluster(name!);
  }
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const started = Date.now();
  const [portA, portB] = (await freePorts(2)) as [number, number];
  const a = createCluster(`${CLUSTER_PREFIX}${process.pid}_a`, portA);
  created.push(a.name);
  const b = createCluster(`${CLUSTER_PREFIX}${process.pid}_b`, portB);
  created.push(b.name);
  ctl(a, 'start');
  psql(a, `create database ${DATABASE}`);
  await attachStandby(b, a);
  log(`primary ${a.name} on ${a.port}, synchronous standby ${b.name} on ${b.port} (PostgreSQL ${VERSION})`);

  // At `warn` the server logs each commit it resolved after a lost connection (counted at the end).
  const server = await startServer({
    DATABASE_URL: databaseUrl(a, b),
    DB_POOL_SIZE: '10',
    LOG_LEVEL: 'warn',
  });
  const totals = {
    acknowledged: 0,
    replayed: 0,
    retried: 0,
    inDoubt: 0,
    lost: 0,
    slowest: 0,
    rounds: 0,
    unavailable: 0,
    switches: [] as number[],
  };
  let failure: string | null = null;
  try {
    const tenant = await setupTenant(server.port, 'Failover', random);
    let [primary, standby] = [a, b];
    for (let n = 1; n <= ROUNDS; n++) {
      const r = await round(n, server, tenant, primary, standby);
      totals.rounds++;
      totals.acknowledged += r.stats.acknowledged;
      totals.replayed += r.stats.replayed + r.stats.retryReplayed;
      totals.retried += r.stats.retried;
      totals.inDoubt += r.stats.inDoubt;
      totals.lost += r.lost;
      totals.slowest = Math.max(totals.slowest, r.maxLatencyMs);
      totals.unavailable += r.stats.outcomes.filter((o) => o.status === 503).length;
      totals.switches.push(r.recoveredMs);
      const errors = [...r.errors.entries()].map(([k, v]) => `${v}× ${k}`).join(', ') || 'none';
      log(
        `round ${n}/${ROUNDS} ${primary.name.slice(-1)}→${standby.name.slice(-1)} (${r.order}): switch took ` +
          `${r.switchMs} ms; service writing again ${r.recoveredMs} ms after it began; slowest request ` +
          `${r.maxLatencyMs} ms (bound ${HANG_BOUND_MS} ms)`,
      );
      log(`  answers other than 2xx: ${errors}`);
      log(
        `  acknowledged ${r.stats.acknowledged}, retried after 503 ${r.stats.retried} ` +
          `(${r.stats.retryReplayed} replayed), replayed when sent again ${r.stats.replayed}, ` +
          `in doubt ${r.stats.inDoubt}, lost ${r.lost}; throughput ${r.before.toFixed(0)} → ` +
          `${r.after.toFixed(0)} acknowledged requests/s`,
      );
      if (r.stats.failures.length > 0) {
        for (const f of r.stats.failures.slice(0, 20)) log(`  FAIL ${f}`);
        if (r.stats.failures.length > 20) log(`  … and ${r.stats.failures.length - 20} more`);
        failure = `round ${n} failed`;
        break;
      }
      if (n < ROUNDS) await attachStandby(primary, standby);
      [primary, standby] = [standby, primary];
    }
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    failure = `${err instanceof Error ? (err.stack ?? err.message) : String(err)}${cause ? `\ncaused by ${String(cause)}` : ''}`;
  } finally {
    await kill(server, 'SIGTERM');
  }
  const resolved = resolvedCommits(server);
  log(
    `commits cut off by the switch and resolved on the new primary: ${resolved.committed} had committed ` +
      `(answered 2xx, replayed), ${resolved['not committed']} had not (answered 503, executed on retry), ` +
      `${resolved.unknown} unresolved`,
  );
  log(
    `${totals.rounds} failovers: acknowledged ${totals.acknowledged}, replayed ${totals.replayed}, ` +
      `retried after 503 ${totals.retried}, in doubt ${totals.inDoubt}, lost ${totals.lost}; ` +
      `${totals.unavailable}× 503; writing again ` +
      `${totals.switches.join(', ')} ms after each switch began; slowest request ${totals.slowest} ms ` +
      `(bound ${HANG_BOUND_MS} ms); done in ${Math.round((Date.now() - started) / 1000)} s`,
  );
  if (VERBOSE) log(`server output:\n${server.output.join('')}`);
  if (failure !== null || totals.lost > 0) {
    log(`server output (last 4000 characters):\n${server.output.join('').slice(-4000)}`);
    throw new Error(failure ?? 'acknowledged writes lost');
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    cleanup();
    process.exit(130);
  });

main()
  .then(() => {
    cleanup();
    process.exit(0);
  })
  .catch((err: unknown) => {
    log(`FAILED: ${err instanceof Error ? err.message : String(err)}`);
    cleanup();
    process.exit(1);
  });
