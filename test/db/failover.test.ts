/**
 * Connections to PostgreSQL across failures (src/db/failover.ts): libpq multi-host URLs, the choice of
 * a server that accepts writes, which errors mean "database unavailable", and a pool that survives
 * connections cut under it (the service answers 503 meanwhile and recovers by itself). The parts that
 * need a server run with TEST_DATABASE_URL; `npm run failover-test` switches a real standby over.
 */
import { createServer } from 'node:net';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction, openDatabase, queryRows } from '../../src/db/client.ts';
import { Combiner } from '../../src/db/combiner.ts';
import { isUnavailableError, parsePostgresUrl } from '../../src/db/failover.ts';
import { createTestContext, type TestContext } from '../helpers/app.ts';

const serverUrl = process.env.TEST_DATABASE_URL;

describe('parsePostgresUrl', () => {
  it('splits a libpq multi-host URL and keeps everything else for pg', () => {
    const parsed = parsePostgresUrl(
      'postgres://app:s%40cret@db1:5433,db2,[::1]:6000/books?target_session_attrs=read-write&sslmode=require',
    );
    expect(parsed.hosts).toEqual([
      { host: 'db1', port: 5433 },
      { host: 'db2', port: 5432 },
      { host: '::1', port: 6000 },
    ]);
    expect(parsed.targetSessionAttrs).toBe('read-write');
    expect(parsed.singleHostUrl).toBe('postgres://app:s%40cret@db1:5433/books?sslmode=require');
  });

  it('reads a plain URL as one host with any session', () => {
    const parsed = parsePostgresUrl('postgresql://postgres@127.0.0.1/groupbook');
    expect(parsed).toEqual({
      hosts: [{ host: '127.0.0.1', port: 5432 }],
      targetSessionAttrs: 'any',
      singleHostUrl: 'postgresql://postgres@127.0.0.1:5432/groupbook',
    });
  });

  it('refuses session attributes it cannot honour and empty hosts in a list', () => {
    expect(() => parsePostgresUrl('postgres://h1,h2/db?target_session_attrs=standby')).toThrow(
      /target_session_attrs/,
    );
    expect(() => parsePostgresUrl('postgres://h1,,h2/db')).toThrow(/malformed host/);
  });
});

describe('isUnavailableError', () => {
  const wrapped = (cause: unknown) => Object.assign(new Error('Failed query: select 1'), { cause });

  it('recognises lost and refused connections, shutdowns, standbys and pool time-outs', () => {
    for (const err of [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5440'), { code: 'ECONNREFUSED' }),
      wrapped(new Error('Connection terminated unexpectedly')),
      wrapped(new Error('Client has encountered a connection error and is not queryable')),
      wrapped(
        Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      ),
      wrapped(Object.assign(new Error('the database system is shutting down'), { code: '57P03' })),
      wrapped(
        Object.assign(new Error('cannot execute INSERT in a read-only transaction'), { code: '25006' }),
      ),
      Object.assign(new Error('no server accepts connections for writing'), { code: '08001' }),
      new Error('timeout exceeded when trying to connect'),
    ])
      expect(isUnavailableError(err), String(err)).toBe(true);
  });

  it('leaves every other error to the request', () => {
    for (const err of [
      wrapped(Object.assign(new Error('duplicate key'), { code: '23505' })),
      wrapped(Object.assign(new Error('could not serialize access'), { code: '40001' })),
      new Error('business rule'),
      null,
    ])
      expect(isUnavailableError(err)).toBe(false);
  });
});

describe('Combiner and an unavailable database', () => {
  it('fails every item of a batch that lost its database instead of running them again one by one', async () => {
    const batches: number[][] = [];
    const c = new Combiner(async (items: number[]) => {
      batches.push(items);
      await new Promise((r) => setTimeout(r, 5));
      if (items.length > 1) throw new Error('Connection terminated unexpectedly');
      return items;
    });
    const results = await Promise.allSettled([1, 2, 3].map((i) => c.run('k', i)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(batches).toEqual([[1], [2, 3]]);
  });
});

/** A TCP port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => resolve(typeof address === 'object' && address ? address.port : 1));
    });
  });
}

describe.skipIf(!serverUrl)('multi-host URLs on a server', () => {
  it('skips a host that refuses connections and one that does not accept writes', async () => {
    const url = new URL(serverUrl!);
    const dead = await closedPort();
    const multi = `postgres://${url.username}@127.0.0.1:${dead},${url.host}${url.pathname}?target_session_attrs=read-write`;
    const database = await openDatabase({ url: multi, poolSize: 2 });
    try {
      const rows = await queryRows<{ port: number }>(database.db, sql`select inet_server_port() as port`);
      expect(rows[0]!.port).toBe(Number(url.port || 5432));
    } finally {
      await database.close();
    }
    // The same server, read-only by default for these sessions: no host is acceptable.
    const readOnly = `${multi}&options=${encodeURIComponent('-c default_transaction_read_only=on')}`;
    const refused = await openDatabase({ url: readOnly, poolSize: 1 });
    try {
      const err = await refused.db.execute(sql`select 1`).catch((e: unknown) => e);
      expect(isUnavailableError(err), String(err)).toBe(true);
      expect(String((err as { cause?: unknown }).cause ?? err)).toMatch(/does not accept writes/);
    } finally {
      await refused.close();
    }
  });
});

describe.skipIf(!serverUrl)('connections cut under the service', () => {
  let ctx: TestContext;
  let admin: pg.Client;

  beforeAll(async () => {
    ctx = await createTestContext();
    admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await ctx?.close();
  });

  /** Terminates every server connection of the test database but the admin's (a restart, a failover). */
  async function cutConnections(): Promise<number> {
    const { rows } = await admin.query<{ n: number }>(
      `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
       where datname = (select datname from pg_stat_activity where pid = $1::int limit 1) and pid <> pg_backend_pid()`,
      [await backendPid()],
    );
    return rows[0]!.n;
  }

  async function backendPid(): Promise<number> {
    const rows = await queryRows<{ pid: number }>(ctx.database.db, sql`select pg_backend_pid() as pid`);
    return rows[0]!.pid;
  }

  it('survives a connection cut inside a transaction, answers 503 for it, and reconnects', async () => {
    const user = await ctx.user('cut');
    // A transaction whose connection is cut between two statements: no crash, an unavailability error.
    const failure = await inTransaction(ctx.database.db, async (tx) => {
      await tx.execute(sql`select 1`);
      await cutConnections();
      await new Promise((r) => setTimeout(r, 100));
      await tx.execute(sql`select 2`);
    }).catch((e: unknown) => e);
    expect(isUnavailableError(failure), String(failure)).toBe(true);
    // The idle connections were cut as well: the pool drops them and the next requests reconnect.
    await cutConnections();
    await new Promise((r) => setTimeout(r, 100));
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => ctx.get('/api/v1/organizations', { token: user.token })),
    );
    for (const res of answers) {
      expect([200, 503]).toContain(res.status);
      if (res.status === 503) {
        expect(res.body._tag).toBe('ServiceUnavailableError');
        expect(res.headers['retry-after']).toBeDefined();
      }
    }
    expect((await ctx.get('/api/v1/organizations', { token: user.token })).status).toBe(200);
  });
});
