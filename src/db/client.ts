/**
 * One Drizzle handle over either a PostgreSQL server (`pg` pool) or the embedded PGlite. Code outside
 * `src/db` never branches on which one it talks to.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import { type SQL, sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { type CommitResolver, MarkingPool, markingClient, markPglite, needsMark } from './commit-marks.ts';
import { ConnectionClient, failoverClient, isUnavailableError, parsePostgresUrl } from './failover.ts';
import { pgliteStatements } from './pglite-statements.ts';
import * as schema from './schema/index.ts';
import { activeRecorder, recordingClient, recordPglite } from './statement-log.ts';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Anything queries can run on: the database handle or an open transaction. */
export type Queryable = Db | Tx;

export interface Database {
  db: Db;
  kind: 'postgres' | 'pglite';
  migrate(): Promise<void>;
  /** A trivial query with a timeout; false when the database does not answer. */
  ping(timeoutMs?: number): Promise<boolean>;
  /**
   * Whether the database answered a statement — any statement of this process, a result or a refusal
   * from the server — within the last `windowMs`: evidence that it is up which costs no query, for the
   * health check of a busy process (its own `select 1` would wait behind the queued work).
   */
  answeredWithin(windowMs: number): boolean;
  close(): Promise<void>;
  /** PGlite only: a dump of the data directory (used by the tests to clone a migrated database). */
  dump?: () => Promise<Blob | File>;
}

export interface OpenOptions {
  /** PostgreSQL URL; when absent PGlite is used. */
  url?: string | undefined;
  /** PGlite data directory, or `memory://`. */
  dataDir?: string;
  /** PostgreSQL schema to use (tests isolate themselves in a schema of their own). */
  searchPath?: string;
  poolSize?: number;
  /** PGlite only: start from a data-directory dump (`PGlite.dumpDataDir`) instead of an empty cluster. */
  snapshot?: Blob;
  /** PGlite only: its shared buffers in MB (default `PGLITE_SHARED_BUFFERS_MB`). */
  pgliteSharedBuffersMb?: number;
  /** PostgreSQL only: the stall watch's timeout (`DB_STALL_TIMEOUT_MS`, see `StallWatch`); 0: off. */
  stallTimeoutMs?: number;
}

const MIGRATIONS = fileURLToPath(new URL('./migrations', import.meta.url));

// Dates stay `YYYY-MM-DD` strings and numerics stay decimal strings in every raw query result.
pg.types.setTypeParser(1082, (v) => v);

export async function openDatabase(options: OpenOptions): Promise<Database> {
  if (options.url) return openPostgres(options.url, options);
  return openPglite(
    options.dataDir ?? './data',
    options.snapshot,
    options.pgliteSharedBuffersMb ?? PGLITE_SHARED_BUFFERS_MB,
  );
}

/**
 * Bound on waiting for a connection (a free one from the pool, or a new one): a request never waits
 * longer for an unreachable or overloaded server; it fails with a connection error (answered 503).
 */
const CONNECT_TIMEOUT_MS = 10_000;

async function openPostgres(url: string, options: OpenOptions): Promise<Database> {
  // A libpq multi-host URL or `target_session_attrs`: connections follow the primary (failover.ts).
  const parsed = parsePostgresUrl(url);
  const following = parsed.hosts.length > 1 || parsed.targetSessionAttrs !== 'any';
  const record = activeRecorder();
  // Idempotent requests mark their commits (commit-marks.ts); a test may record the statements.
  // A commit cut off by a lost connection is resolved on another one (commit-marks.ts).
  const resolver: CommitResolver = {
    run: (text, values) => pool.query(text, values),
    isUnavailable: isUnavailableError,
  };
  const Client = markingClient(
    record ? recordingClient(ConnectionClient, record) : ConnectionClient,
    () => resolver,
  );
  const pool: pg.Pool = new MarkingPool({
    connectionString: following ? parsed.singleHostUrl : url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // Detects servers that vanished without closing the connection (failover, network loss).
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    Client: following ? failoverClient(parsed, CONNECT_TIMEOUT_MS / 2, Client) : Client,
    ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
  });
  // A dropped idle connection must not crash the process; the pool discards it and the next query
  // reconnects.
  pool.on('error', () => {});
  // The server answered when a connection is ready for the next statement again (after a result or an
  // error alike); a connection that broke, or a server that stopped answering, does not get there.
  const answers = new AnswerClock();
  pool.on('connect', (client) => client.connection.on('readyForQuery', () => answers.stamp()));
  const stallWatch = new StallWatch(pool, answers, options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS);
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  pools.set(db, { pool, max: options.poolSize ?? 10, distributed: null });
  runners.set(db, async (statement, params) => {
    const result = await pool.query({
      name: statement.name,
      text: statement.text,
      values: params as unknown[],
    });
    return result.rows;
  });
  return {
    db,
    kind: 'postgres',
    migrate: async () => {
      await migratePg(drizzlePg(pool), {
        migrationsFolder: MIGRATIONS,
        ...(options.searchPath ? { migrationsSchema: options.searchPath } : {}),
      });
    },
    ping: (timeoutMs = 2000) => pingWithTimeout(db, timeoutMs),
    answeredWithin: (windowMs) => answers.within(windowMs),
    close: async () => {
      stallWatch.close();
      await pool.end();
    },
  };
}

/** Default of `DB_STALL_TIMEOUT_MS`. */
export const DEFAULT_STALL_TIMEOUT_MS = 5000;
/** How long the stall watch's probe of the server may take before the server counts as stalled. */
const STALL_PROBE_TIMEOUT_MS = 2000;

/**
 * The stall watch: a server that stops answering without closing its connections (a primary gone
 * with its machine or network, so that no TCP reset arrives) leaves statements waiting for as long as
 * the operating system keeps the connection — minutes. Once a second the watch looks for statements
 * that have waited longer than the timeout while no connection of the pool got any answer in that
 * time; it then probes the server (a new connection and `select 1`, at most 2 s). A server that
 * answers the probe is only slow, and its statements go on (a long report is not cut short); one that
 * does not answer is stalled: the waiting connections are destroyed, their statements fail as a lost
 * connection does (answered 503 with Retry-After) and the pool connects again, to whichever server
 * accepts writes by then. A statement on a stalled server therefore fails after at most the timeout,
 * one second and the probe.
 */
class StallWatch {
  private readonly clients = new Set<pg.PoolClient>();
  /** The statement each connection was executing at the last look, and since when. */
  private readonly seen = new Map<pg.PoolClient, { query: unknown; since: number }>();
  private readonly timer: NodeJS.Timeout | null = null;
  private probing = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly answers: AnswerClock,
    private readonly timeoutMs: number,
  ) {
    if (timeoutMs <= 0) return;
    pool.on('connect', (client) => this.clients.add(client));
    pool.on('remove', (client) => {
      this.clients.delete(client);
      this.seen.delete(client);
    });
    this.timer = setInterval(() => this.look(), Math.min(1000, timeoutMs));
    this.timer.unref();
  }

  private look(): void {
    const now = performance.now();
    const waiting: pg.PoolClient[] = [];
    for (const client of this.clients) {
      const query = (client as unknown as { _activeQuery: unknown })._activeQuery;
      if (!query) {
        this.seen.delete(client);
        continue;
      }
      const last = this.seen.get(client);
      if (last?.query !== query) this.seen.set(client, { query, since: now });
      else if (now - last.since >= this.timeoutMs) waiting.push(client);
    }
    if (waiting.length === 0 || this.probing || this.answers.within(this.timeoutMs)) return;
    this.probing = true;
    void this.probe(waiting[0]!)
      .then((answered) => {
        if (answered) {
          this.answers.stamp();
          return;
        }
        for (const client of waiting) {
          this.seen.delete(client);
          (
            client as unknown as { connection: { stream: { destroy(err?: Error): void } } }
          ).connection.stream.destroy(
            Object.assign(new Error('Connection terminated: the database stopped answering (stall watch)'), {
              code: 'ETIMEDOUT',
            }),
          );
        }
      })
      .finally(() => {
        this.probing = false;
      });
  }

  /** Whether the server of `client` answers a new connection's `select 1` within the probe timeout. */
  private async probe(client: pg.PoolClient): Promise<boolean> {
    const { host, port, user, database, password } = client as unknown as pg.ClientConfig & { host: string };
    const probe = new pg.Client({
      host,
      port,
      user,
      database,
      ...(typeof password === 'string' ? { password } : {}),
      connectionTimeoutMillis: STALL_PROBE_TIMEOUT_MS,
      query_timeout: STALL_PROBE_TIMEOUT_MS,
    });
    probe.on('error', () => {});
    try {
      await probe.connect();
      await probe.query('select 1');
      return true;
    } catch {
      return false;
    } finally {
      void probe.end().catch(() => {});
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
  }
}

/**
 * PGlite's shared buffers (its page cache, in MB). PostgreSQL's default of 128 MB lives in the
 * WebAssembly heap and made most of the embedded service's resident memory; the data files are read
 * through the operating system's file cache anyway, so a small pool costs little: with 16 MB the
 * service starts at about 120 MB less and twice as fast (see docs/performance.md).
 */
export const PGLITE_SHARED_BUFFERS_MB = 16;

async function openPglite(
  dataDir: string,
  snapshot: Blob | undefined,
  sharedBuffersMb: number,
): Promise<Database> {
  const inMemory = dataDir === 'memory://' || dataDir === '';
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const client = new PGlite({
    ...(inMemory ? {} : { dataDir }),
    ...(snapshot ? { loadDataDir: snapshot } : {}),
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffersMb}MB`],
  });
  await client.waitReady;
  const answers = new AnswerClock();
  yieldBeforeEachStatement(client, answers);
  const record = activeRecorder();
  if (record) recordPglite(client, record);
  // Idempotent requests mark their commits here too (commit-marks.ts).
  markPglite(client as unknown as Parameters<typeof markPglite>[0]);
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  // The hot statements run prepared, one protocol message each (pglite-statements.ts); a statement to
  // be recorded or marked goes through `query`, which the recorder and the marks wrap.
  const prepared = pgliteStatements(client, PGLITE_PARSERS);
  runners.set(db, async (statement, params) => {
    if (record || needsMark(statement.text)) {
      const result = await client.query<Record<string, unknown>>(statement.text, params as unknown[], {
        parsers: PGLITE_PARSERS,
      });
      return result.rows;
    }
    return prepared(statement.name, statement.text, params);
  });
  return {
    db,
    kind: 'pglite',
    migrate: async () => {
      await migratePglite(drizzlePglite(client), { migrationsFolder: MIGRATIONS });
    },
    ping: (timeoutMs = 2000) => pingWithTimeout(db, timeoutMs),
    answeredWithin: (windowMs) => answers.within(windowMs),
    close: () => client.close(),
    dump: () => client.dumpDataDir('none'),
  };
}

/**
 * PGlite executes a statement synchronously on the event loop, and hands its one connection to the
 * next queued statement through promise callbacks only: a queue of statements would run back to back
 * without letting the event loop read a socket or fire a timer (20 concurrent large list reads held
 * it for seconds). Each statement therefore first yields to the event loop once (`setImmediate`), so
 * that requests that arrive meanwhile are read and answered between statements — one statement is
 * the longest a request waits for the loop, instead of the whole queue. A statement that completes
 * or is refused with an SQLSTATE is stamped on `answers`.
 */
function yieldBeforeEachStatement(client: PGlite, answers: AnswerClock): void {
  const runExclusive = client._runExclusiveQuery.bind(client);
  client._runExclusiveQuery = <T>(fn: () => Promise<T>): Promise<T> =>
    runExclusive(async () => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      try {
        const result = await fn();
        answers.stamp();
        return result;
      } catch (err) {
        // a refusal with an SQLSTATE is an answer too; a closed or broken instance's error is not
        if (pgErrorCode(err) !== undefined) answers.stamp();
        throw err;
      }
    });
}

/** When the database last answered a statement (monotonic clock). */
class AnswerClock {
  private at = Number.NEGATIVE_INFINITY;
  stamp(): void {
    this.at = performance.now();
  }
  within(windowMs: number): boolean {
    return performance.now() - this.at <= windowMs;
  }
}

async function pingWithTimeout(db: Db, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([db.execute(sql`select 1`).then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

const RETRYABLE = new Set(['40001', '40P01']);

/**
 * Runs `fn` in one database transaction. Serialization failures and deadlocks are
 * retried a few times; every other error rolls back and propagates.
 */
export async function inTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    // what this attempt asks to run once it has committed (nothing of an attempt that rolled back)
    const hooks = new Set<(db: Db) => void>();
    try {
      const result = await commitHooks.run(hooks, () => db.transaction(fn));
      for (const hook of hooks) {
        try {
          hook(db);
        } catch {
          // the transaction has committed: a failing hook cannot change its outcome
        }
      }
      return result;
    } catch (err) {
      const code = pgErrorCode(err);
      if (attempt < 4 && code !== undefined && RETRYABLE.has(code)) continue;
      throw err;
    }
  }
}

const commitHooks = new AsyncLocalStorage<Set<(db: Db) => void>>();

/**
 * Runs `hook` once the `inTransaction` that is running the caller has committed (once per transaction
 * for the same function; never when it rolls back). Outside `inTransaction` it does nothing.
 */
export function afterCommit(hook: (db: Db) => void): void {
  commitHooks.getStore()?.add(hook);
}

/** The pool of a PostgreSQL handle, for the companion connections of `readInSnapshot`. */
interface PoolInfo {
  pool: pg.Pool;
  max: number;
  /** whether the server distributes tables (Citus): a snapshot then does not span its nodes */
  distributed: Promise<boolean> | null;
  /** set when the server refused `pg_export_snapshot` */
  exportRefused?: boolean;
}
const pools = new WeakMap<Db, PoolInfo>();
/** At most one companion connection per process (see `readInSnapshot`). */
let companionInUse = false;

/**
 * Runs `fn` in ONE consistent snapshot: a REPEATABLE READ, READ ONLY transaction. On a PostgreSQL
 * server `fn` also receives a companion: a second connection whose transaction imports the first
 * one's snapshot (`pg_export_snapshot`), so that independent reads run side by side and still see
 * exactly the same data. The companion is null — `fn` then runs everything on the transaction — on
 * PGlite (one connection), when the pool has no connection to spare, while another reader of the
 * process holds the companion (two readers each waiting for a second connection could exhaust the
 * pool), and on a distributed (Citus) database, whose snapshots do not span its nodes.
 */
export async function readInSnapshot<T>(
  db: Db,
  fn: (tx: Tx, companion: Queryable | null) => Promise<T>,
): Promise<T> {
  const attempt = (withCompanion: boolean) =>
    db.transaction(
      async (tx) => {
        const companion = withCompanion ? await openCompanion(db, tx) : null;
        try {
          return await fn(tx, companion?.db ?? null);
        } finally {
          await companion?.close();
        }
      },
      { isolationLevel: 'repeatable read', accessMode: 'read only' },
    );
  try {
    return await attempt(true);
  } catch (err) {
    // A server that refused to export the snapshot aborted the transaction: read without companion.
    if (err instanceof SnapshotExportError) return attempt(false);
    throw err;
  }
}

class SnapshotExportError extends Error {}

const SNAPSHOT_ID = /^[0-9A-F]+-[0-9A-F]+(-[0-9]+)?$/i;

async function openCompanion(db: Db, tx: Tx): Promise<{ db: Queryable; close: () => Promise<void> } | null> {
  const info = pools.get(db);
  if (!info || info.exportRefused || companionInUse || info.max < 2) return null;
  if (info.pool.idleCount === 0 && info.pool.totalCount >= info.max) return null;
  companionInUse = true;
  let client: pg.PoolClient | null = null;
  try {
    info.distributed ??= queryRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from pg_catalog.pg_extension where extname = 'citus'`,
    ).then((rows) => Number(rows[0]?.n ?? 0) > 0);
    if (await info.distributed) {
      companionInUse = false;
      return null;
    }
    let id: string;
    try {
      const [row] = await queryRows<{ id: string }>(tx, sql`select pg_export_snapshot() as id`);
      id = row?.id ?? '';
    } catch {
      info.exportRefused = true;
      companionInUse = false;
      throw new SnapshotExportError('The server does not export snapshots');
    }
    if (!SNAPSHOT_ID.test(id)) throw new Error('unexpected snapshot id');
    client = await info.pool.connect();
    await client.query('begin isolation level repeatable read read only');
    await client.query(`set transaction snapshot '${id}'`);
  } catch (err) {
    if (err instanceof SnapshotExportError) throw err;
    client?.release(true);
    companionInUse = false;
    return null;
  }
  const held = client;
  return {
    db: drizzlePg(held, { schema }) as unknown as Queryable,
    close: async () => {
      try {
        await held.query('rollback');
        held.release();
      } catch (err) {
        held.release(err instanceof Error ? err : true);
      } finally {
        companionInUse = false;
      }
    },
  };
}

/** The SQLSTATE of a database error, looking through Drizzle's wrapping. */
export function pgErrorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 4 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The constraint name of a unique-violation error, when there is one. */
export function pgConstraint(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 4 && e && typeof e === 'object'; i++) {
    const c = (e as { constraint?: unknown }).constraint;
    if (typeof c === 'string') return c;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------
// Prepared statements

/**
 * A fixed SQL text with `$n` parameters, run as a named prepared statement: on a PostgreSQL server it
 * is parsed and planned once per pooled connection, and no query builder runs per request. Used for
 * the statements of the hot request paths (authentication, journal create and workflow). Every
 * statement runs on its own (autocommit): one statement is one transaction, so a multi-table write
 * expressed as one statement (data-modifying CTEs) is atomic.
 */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

const statementNames = new Set<string>();

/** Declares a statement; names are unique per process (they name server-side prepared statements). */
export function statement(name: string, text: string): Statement {
  if (statementNames.has(name)) throw new Error(`duplicate statement name ${name}`);
  statementNames.add(name);
  return { name, text };
}

type Runner = (statement: Statement, params: readonly unknown[]) => Promise<Record<string, unknown>[]>;
const runners = new WeakMap<object, Runner>();

/** PGlite's result types aligned with the `pg` pool's: dates stay `YYYY-MM-DD` strings. */
const PGLITE_PARSERS = { 1082: (value: string) => value };

/**
 * Runs a statement on the database (not inside a Drizzle transaction) and returns its rows: NUMERIC as
 * decimal strings, `date` as `YYYY-MM-DD`, `timestamptz` as Date, `int4`/`int2` as numbers on both
 * drivers (avoid `int8` results: the drivers differ).
 */
export async function run<T>(db: Db, statement: Statement, params: readonly unknown[]): Promise<T[]> {
  const runner = runners.get(db);
  if (!runner) throw new Error('not a database handle opened by openDatabase');
  return (await runner(statement, params)) as T[];
}

/** Runs a raw SQL query and returns its rows (same shape on both drivers). */
export async function queryRows<T>(db: Queryable, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
