/**
 * Commit marks (src/db/commit-marks.ts) on a PostgreSQL server: the writes of a request with a
 * claimed Idempotency-Key mark the key `committed` in their own transaction; reads, read-only
 * transactions, failed writes and requests without a claim leave it alone (on a PostgreSQL server, with
 * TEST_DATABASE_URL: the `pg` pool's client class adds the marks; the same on PGlite, whose transactions
 * and single writes are wrapped, without reading the key while a transaction holds the one connection).
 * The mark is a fence: a transaction whose claim was taken over is refused before it commits. Then, on
 * either database, how a claimed key is completed or released according to its state.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { type Db, inTransaction, queryRows, run, statement } from '../../src/db/client.ts';
import { Combiner } from '../../src/db/combiner.ts';
import {
  ClaimLostError,
  type CommitResolver,
  commitHappened,
  type KeyClaim,
  MarkingPool,
  markingClient,
  markScope,
} from '../../src/db/commit-marks.ts';
import { ConnectionClient, isUnavailableError } from '../../src/db/failover.ts';
import type { FastifyReply } from 'fastify';
import { claimKey, completeKey } from '../../src/http/idempotency.ts';
import { createTestContext, openTestDatabase, TestContext, uniq } from '../helpers/app.ts';
import { createCompany } from '../helpers/ledger.ts';

const onServer = Boolean(process.env.TEST_DATABASE_URL);

describe.skipIf(!onServer)('commit marks', () => {
  let ctx: TestContext;
  let userId: string;

  beforeAll(async () => {
    ctx = await createTestContext();
    userId = (await ctx.user('marks')).id;
    await ctx.database.db.execute(sql`create table mark_probe (id text primary key)`);
    // A table whose inserts take 300 ms more to commit (a deferred trigger runs in the COMMIT).
    await ctx.database.db.execute(sql`create table mark_probe_slow (id text primary key)`);
    await ctx.database.db.execute(
      sql.raw(`create function mark_probe_sleep() returns trigger language plpgsql
        as $$ begin perform pg_sleep(0.3); return null; end $$`),
    );
    await ctx.database.db.execute(
      sql.raw(`create constraint trigger mark_probe_slow_commit after insert on mark_probe_slow
        deferrable initially deferred for each row execute function mark_probe_sleep()`),
    );
  });
  afterAll(async () => ctx?.close());

  const db = () => ctx.database.db;

  async function claim(): Promise<KeyClaim> {
    const key = uniq('key');
    const claimedAt = new Date().toISOString();
    await db().execute(
      sql`insert into idempotency_keys (user_id, key, fingerprint, state, created_at, expires_at)
          values (${userId}, ${key}, 'f', 'running', ${claimedAt}, now() + interval '1 day')`,
    );
    return { userId, key, claimedAt };
  }

  async function state(c: KeyClaim): Promise<string> {
    const rows = await queryRows<{ state: string }>(
      db(),
      sql`select state from idempotency_keys where user_id = ${c.userId} and key = ${c.key}`,
    );
    return rows[0]!.state;
  }

  // Drizzle's queries run when awaited: inside the scope.
  const inScope = <T>(claims: KeyClaim[], fn: () => Promise<T>) =>
    markScope.run({ claims }, async () => await fn());

  it('marks an autocommit write, in the same transaction, and leaves reads alone', async () => {
    const c = await claim();
    await inScope([c], () => db().execute(sql`select count(*) from mark_probe`));
    await inScope([c], () => db().execute(sql`select 1 from idempotency_keys for update`));
    expect(await state(c)).toBe('running');
    await inScope([c], () => db().execute(sql`insert into mark_probe values (${uniq('row')})`));
    expect(await state(c)).toBe('committed');
  });

  it('marks the commit of a transaction that wrote, not of one that only read', async () => {
    const reader = await claim();
    await inScope([reader], () => inTransaction(db(), (tx) => tx.execute(sql`select 1`)));
    expect(await state(reader)).toBe('running');
    const writer = await claim();
    await inScope([writer], () =>
      inTransaction(db(), async (tx) => {
        await tx.execute(sql`insert into mark_probe values (${uniq('row')})`);
        expect(await state(writer)).toBe('running'); // not before the commit
      }),
    );
    expect(await state(writer)).toBe('committed');
  });

  it('leaves the key running when the write fails, with the error of the write', async () => {
    const c = await claim();
    const id = uniq('row');
    await db().execute(sql`insert into mark_probe values (${id})`);
    await expect(
      inScope([c], () => db().execute(sql`insert into mark_probe values (${id})`)),
    ).rejects.toMatchObject({ cause: { code: '23505' } });
    await expect(
      inScope([c], () =>
        inTransaction(db(), async (tx) => {
          await tx.execute(sql`insert into mark_probe values (${uniq('row')})`);
          throw new Error('business rule');
        }),
      ),
    ).rejects.toThrow('business rule');
    expect(await state(c)).toBe('running');
  });

  it('marks prepared statements and writes outside a scope never mark', async () => {
    const insert = statement('commit_marks_probe', 'insert into mark_probe values ($1)');
    const c = await claim();
    await run(db(), insert, [uniq('row')]);
    expect(await state(c)).toBe('running');
    await inScope([c], () => run(db(), insert, [uniq('row')]));
    expect(await state(c)).toBe('committed');
  });

  it("marks the first write of a new connection of the pool, sent from the pool's own query", async () => {
    const pool = (db() as unknown as { $client: pg.Pool }).$client;
    const fresh = new MarkingPool({ ...pool.options, Client: markingClient(ConnectionClient), max: 1 });
    try {
      const c = await claim();
      await inScope([c], () => fresh.query('insert into mark_probe values ($1)', [uniq('row')]));
      expect(await state(c)).toBe('committed');
    } finally {
      await fresh.end();
    }
  });

  it('marks the claims of every item of a combined statement, and only theirs', async () => {
    const [starter, a, b] = [await claim(), await claim(), await claim()];
    // Items named `read:…` write nothing.
    const combiner = new Combiner(async (ids: string[]) => {
      const rows = ids.filter((id) => !id.startsWith('read:'));
      if (rows.length > 0)
        await db().execute(
          sql`insert into mark_probe select json_array_elements_text(${JSON.stringify(rows)}::json)`,
        );
      await new Promise((r) => setTimeout(r, 20));
      return ids;
    });
    // `starter`'s request starts the queue's drain with a read; the next batches run in its async
    // context but carry other requests' items: an unscoped one, then a and b together.
    const first = inScope([starter], () => combiner.run('k', `read:${uniq('x')}`));
    await new Promise((r) => setTimeout(r, 5));
    const unscoped = combiner.run('k', uniq('row'));
    await first;
    await new Promise((r) => setTimeout(r, 5));
    const scoped = Promise.all([
      inScope([a], () => combiner.run('k', uniq('row'))),
      inScope([b], () => combiner.run('k', uniq('row'))),
    ]);
    await Promise.all([unscoped, scoped]);
    expect([await state(starter), await state(a), await state(b)]).toEqual([
      'running',
      'committed',
      'committed',
    ]);
  });

  it('resolves a COMMIT whose answer was lost by its token, on another connection', async () => {
    const pool = (db() as unknown as { $client: pg.Pool }).$client;
    const resolver: CommitResolver = {
      run: (text, values) => pool.query(text, values),
      isUnavailable: isUnavailableError,
    };
    const outcomes: string[] = [];
    resolver.onResolved = (o) => outcomes.push(o);
    // A connection that loses the answer of a COMMIT (sent and executed, or never sent).
    let cut: 'after' | 'before' | null = null;
    class CutOff extends pg.Client {
      override query(config: any, values?: any, callback?: any): any {
        const lost = () => Object.assign(new Error('Connection terminated unexpectedly'), {});
        const text: string = typeof config === 'string' ? config : (config?.text ?? '');
        if (cut && /^commit$/i.test(text.trim())) {
          // Never reached the server: the server ends the transaction when it finds the connection gone.
          if (cut === 'before')
            return (super.query('rollback') as Promise<unknown>).then(() => Promise.reject(lost()));
          return (super.query(config, values) as Promise<unknown>).then(() => Promise.reject(lost()));
        }
        return super.query(config, values, callback);
      }
    }
    const cutting = new pg.Pool({ ...pool.options, Client: markingClient(CutOff, () => resolver), max: 2 });
    const cdb = drizzlePg(cutting) as unknown as Db;
    try {
      const writeIn = (c: KeyClaim, row: string) =>
        inScope([c], () =>
          inTransaction(cdb, (tx) => tx.execute(sql`insert into mark_probe values (${row})`)),
        );
      // Committed, answer lost: the request goes on as if the COMMIT had answered.
      cut = 'after';
      const committed = await claim();
      const row = uniq('row');
      await writeIn(committed, row);
      expect(await state(committed)).toBe('committed');
      const found = await queryRows(db(), sql`select 1 from mark_probe where id = ${row}`);
      expect(found).toHaveLength(1);
      // Never committed: the original error, and nothing written.
      cut = 'before';
      const lostOne = await claim();
      const row2 = uniq('row');
      const error = await writeIn(lostOne, row2).catch((err: unknown) => err);
      expect(isUnavailableError(error)).toBe(true);
      expect(await state(lostOne)).toBe('running');
      expect(await queryRows(db(), sql`select 1 from mark_probe where id = ${row2}`)).toHaveLength(0);
      expect(outcomes).toEqual(['committed', 'not committed']);
    } finally {
      cut = null;
      await cutting.end();
    }
    // No server answering: in doubt after the bound; other errors are not retried.
    const down = () =>
      Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const c = await claim();
    const started = Date.now();
    expect(await commitHappened(down, [c], randomUUID(), isUnavailableError, 600)).toBeNull();
    expect(Date.now() - started).toBeLessThan(2000);
    await expect(
      commitHappened(() => Promise.reject(new Error('syntax')), [c], randomUUID(), isUnavailableError),
    ).rejects.toThrow('syntax');
  });

  it('answers a statement of the pool whose COMMIT lost its connection with what the COMMIT was found to be', async () => {
    // The connection really breaks: `pg` then fails the COMMIT and also reports the error on the
    // client, which `pg.Pool.query` would answer at once, before the resolution below.
    const pool = (db() as unknown as { $client: pg.Pool }).$client;
    const outcomes: string[] = [];
    const resolver: CommitResolver = {
      run: (text, values) => pool.query(text, values),
      isUnavailable: isUnavailableError,
      onResolved: (o) => outcomes.push(o),
    };
    let cut: 'after' | 'during' | 'before' | null = null;
    class Breaking extends ConnectionClient {
      override query(config: any, values?: any, callback?: any): any {
        const text: string = typeof config === 'string' ? config : (config?.text ?? '');
        if (!cut || !/^commit$/i.test(text.trim())) return super.query(config, values, callback);
        const stream = (
          this as unknown as { connection: { stream: NodeJS.ReadWriteStream & { destroy(): void } } }
        ).connection.stream;
        if (cut === 'before') {
          // The connection is lost before the COMMIT reaches the server: the transaction rolls back.
          stream.destroy();
          return super.query(config, values) as Promise<unknown>;
        }
        if (cut === 'during') {
          // The connection is lost while the server is still committing: asked at once, the server
          // has not finished, and the answer must wait for it.
          const answered = super.query(config, values) as Promise<unknown>;
          setTimeout(() => stream.destroy(), 50);
          return answered;
        }
        // The server commits, but its answer is never read.
        stream.pause();
        const answered = super.query(config, values) as Promise<unknown>;
        setTimeout(() => stream.destroy(), 200);
        return answered;
      }
    }
    const breaking = new MarkingPool({
      ...pool.options,
      Client: markingClient(Breaking, () => resolver),
      max: 2,
    });
    breaking.on('error', () => {});
    const bdb = drizzlePg(breaking) as unknown as Db;
    try {
      cut = 'after';
      const committed = await claim();
      const row = uniq('row');
      const result = await inScope([committed], () =>
        bdb.execute(sql`insert into mark_probe values (${row})`),
      );
      expect(result).toBeDefined();
      expect(outcomes).toEqual(['committed']);
      expect(await state(committed)).toBe('committed');
      expect(await queryRows(db(), sql`select 1 from mark_probe where id = ${row}`)).toHaveLength(1);

      cut = 'during';
      const slow = await claim();
      const slowRow = uniq('row');
      await inScope([slow], () => bdb.execute(sql`insert into mark_probe_slow values (${slowRow})`));
      expect(outcomes).toEqual(['committed', 'committed']);
      expect(await state(slow)).toBe('committed');
      expect(await queryRows(db(), sql`select 1 from mark_probe_slow where id = ${slowRow}`)).toHaveLength(1);

      cut = 'before';
      const lostOne = await claim();
      const row2 = uniq('row');
      const error = await inScope([lostOne], () =>
        bdb.execute(sql`insert into mark_probe values (${row2})`),
      ).catch((err: unknown) => err);
      expect(isUnavailableError(error)).toBe(true);
      // The error came once the commit was known not to have happened, not before.
      expect(outcomes).toEqual(['committed', 'committed', 'not committed']);
      expect(await state(lostOne)).toBe('running');
      expect(await queryRows(db(), sql`select 1 from mark_probe where id = ${row2}`)).toHaveLength(0);
    } finally {
      cut = null;
      await breaking.end();
    }
  });
});

describe('commit marks on either database, and the fence', () => {
  let ctx: TestContext;
  let userId: string;

  beforeAll(async () => {
    ctx = await createTestContext();
    userId = (await ctx.user('fence')).id;
    await ctx.database.db.execute(sql`create table fence_probe (id text primary key)`);
  });
  afterAll(async () => ctx?.close());

  const db = () => ctx.database.db;
  const inScope = <T>(claims: KeyClaim[], fn: () => Promise<T>) =>
    markScope.run({ claims }, async () => await fn());

  async function claim(): Promise<KeyClaim> {
    const key = uniq('key');
    const claimedAt = new Date().toISOString();
    await db().execute(
      sql`insert into idempotency_keys (user_id, key, fingerprint, state, created_at, expires_at)
          values (${userId}, ${key}, 'f', 'running', ${claimedAt}, now() + interval '1 day')`,
    );
    return { userId, key, claimedAt };
  }
  async function state(c: KeyClaim): Promise<string> {
    const rows = await queryRows<{ state: string }>(
      db(),
      sql`select state from idempotency_keys where user_id = ${c.userId} and key = ${c.key}`,
    );
    return rows[0]!.state;
  }
  // The driver may wrap the error (drizzle's failed query, with the fence's error as its cause).
  const isClaimLost = (e: unknown) =>
    e instanceof ClaimLostError || (e as { cause?: unknown })?.cause instanceof ClaimLostError;
  const probeRows = async (id: string) =>
    (await queryRows<{ id: string }>(db(), sql`select id from fence_probe where id = ${id}`)).length;

  it('marks writes (single and in a transaction), not reads, not failed transactions', async () => {
    const single = await claim();
    await inScope([single], () => db().execute(sql`select 1`));
    expect(await state(single)).toBe('running');
    await inScope([single], () => db().execute(sql`insert into fence_probe values (${uniq('r')})`));
    expect(await state(single)).toBe('committed');
    const reader = await claim();
    await inScope([reader], () => inTransaction(db(), (tx) => tx.execute(sql`select 1`)));
    expect(await state(reader)).toBe('running');
    const writer = await claim();
    await inScope([writer], () =>
      inTransaction(db(), (tx) => tx.execute(sql`insert into fence_probe values (${uniq('r')})`)),
    );
    expect(await state(writer)).toBe('committed');
    // A second transaction of the same request keeps the key committed.
    await inScope([writer], () =>
      inTransaction(db(), (tx) => tx.execute(sql`insert into fence_probe values (${uniq('r')})`)),
    );
    expect(await state(writer)).toBe('committed');
    const failing = await claim();
    await expect(
      inScope([failing], () =>
        inTransaction(db(), async (tx) => {
          await tx.execute(sql`insert into fence_probe values (${uniq('r')})`);
          throw new Error('business rule');
        }),
      ),
    ).rejects.toThrow('business rule');
    expect(await state(failing)).toBe('running');
  });

  it('refuses the commit of a transaction whose claim was taken over (nothing written)', async () => {
    const old = await claim();
    // A retry took the claim over (the old process had stopped renewing its lease).
    await db().execute(
      sql`update idempotency_keys set created_at = now() + interval '1 second'
          where user_id = ${old.userId} and key = ${old.key}`,
    );
    const id = uniq('late');
    await expect(
      inScope([old], () =>
        inTransaction(db(), (tx) => tx.execute(sql`insert into fence_probe values (${id})`)),
      ),
    ).rejects.toSatisfy(isClaimLost);
    const single = uniq('late-single');
    await expect(
      inScope([old], () => db().execute(sql`insert into fence_probe values (${single})`)),
    ).rejects.toSatisfy(isClaimLost);
    expect(await probeRows(id)).toBe(0);
    expect(await probeRows(single)).toBe(0);
    expect(await state(old)).toBe('running');
  });
});

describe.skipIf(!onServer)('commit marks of HTTP requests', () => {
  let ctx: TestContext;
  /** Key state seen just before the response is serialised (before the key is completed). */
  const seen = new Map<string, string>();

  beforeAll(async () => {
    const { database, cleanup } = await openTestDatabase();
    const app = await buildApp({ database, logger: false });
    app.addHook('preSerialization', async (request, _reply, payload) => {
      const key = request.headers['idempotency-key'];
      if (typeof key === 'string') {
        const rows = await queryRows<{ state: string }>(
          database.db,
          sql`select state from idempotency_keys where key = ${key}`,
        );
        seen.set(key, rows[0]?.state ?? 'none');
      }
      return payload;
    });
    await app.ready();
    ctx = new TestContext(app, database, cleanup);
  });
  afterAll(async () => ctx?.close());

  it('marks the writes of every request with a key, through hooks, combiners and transactions', async () => {
    const user = await ctx.user('http-marks');
    const orgKey = uniq('org');
    const org = await ctx.post('/api/v1/organizations', {
      token: user.token,
      headers: { 'idempotency-key': orgKey },
      body: { name: uniq('Org'), reportingCurrency: 'USD', settings: { requireApproval: false } },
    });
    expect(org.status).toBe(201);
    const co = await createCompany(ctx, org.body.id);
    const body = (description: string) => ({
      organizationId: org.body.id,
      companyId: co.id,
      description,
      transactionDate: '2026-03-15',
      lines: [
        { accountId: co.accounts.cash, debitAmount: { value: '10.00', currency: 'USD' } },
        { accountId: co.accounts.revenue, creditAmount: { value: '10.00', currency: 'USD' } },
      ],
    });
    // Concurrent creates of one company share combined statements.
    const keys = Array.from({ length: 6 }, () => uniq('create'));
    const created = await Promise.all(
      keys.map((key) =>
        ctx.post('/api/v1/journal-entries', {
          token: user.token,
          headers: { 'idempotency-key': key },
          body: body(key),
        }),
      ),
    );
    expect(created.map((r) => r.status)).toEqual(keys.map(() => 201));
    const postKey = uniq('post');
    const posted = await ctx.post(`/api/v1/journal-entries/${created[0]!.body.id}/post`, {
      token: user.token,
      headers: { 'idempotency-key': postKey },
      body: {},
    });
    expect(posted.status).toBe(200);
    for (const key of [orgKey, ...keys, postKey]) expect(seen.get(key), key).toBe('committed');
    // A request that writes nothing leaves its key running until its (4xx) response is stored.
    const refusedKey = uniq('refused');
    const refused = await ctx.post(`/api/v1/journal-entries/${created[0]!.body.id}/post`, {
      token: user.token,
      headers: { 'idempotency-key': refusedKey },
      body: {},
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(seen.get(refusedKey)).toBe('running');
  });
});

describe('completing a claimed key', () => {
  let ctx: TestContext;
  let userId: string;

  beforeAll(async () => {
    ctx = await createTestContext();
    userId = (await ctx.user('complete')).id;
  });
  afterAll(async () => ctx?.close());

  async function claimed(state: string) {
    const key = uniq('key');
    const claimedAt = new Date().toISOString();
    await ctx.database.db.execute(
      sql`insert into idempotency_keys (user_id, key, fingerprint, state, created_at, expires_at)
          values (${userId}, ${key}, 'f', ${state}, ${claimedAt}, now() + interval '1 day')`,
    );
    return { userId, key, claimedAt };
  }

  async function row(key: string) {
    const rows = await queryRows<{ state: string; response_status: number | null }>(
      ctx.database.db,
      sql`select state, response_status from idempotency_keys where key = ${key}`,
    );
    return rows[0] ?? null;
  }

  it('releases a key after a 5xx only while nothing of its request committed', async () => {
    const running = await claimed('running');
    await completeKey(ctx.database.db, running, 503, null);
    expect(await row(running.key)).toBeNull();
    const committed = await claimed('committed');
    await completeKey(ctx.database.db, committed, 503, null);
    expect(await row(committed.key)).toMatchObject({ state: 'committed' });
  });

  it('stores the response of a committed request, and never touches a later claim of the key', async () => {
    const committed = await claimed('committed');
    await completeKey(ctx.database.db, committed, 201, '{}');
    expect(await row(committed.key)).toEqual({ state: 'done', response_status: 201 });
    const later = await claimed('running');
    await completeKey(ctx.database.db, { ...later, claimedAt: '2000-01-01T00:00:00.000Z' }, 503, null);
    expect(await row(later.key)).toMatchObject({ state: 'running' });
  });

  it('retries in the background while the database is unavailable', async () => {
    const c = await claimed('committed');
    let failures = 2;
    const flaky = {
      execute: (query: unknown) => {
        if (failures-- > 0)
          return Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
        return ctx.database.db.execute(query as never);
      },
    } as unknown as Db;
    await completeKey(flaky, c, 201, '{}');
    expect(await row(c.key)).toMatchObject({ state: 'committed' });
    await expect.poll(() => row(c.key), { timeout: 5000, interval: 100 }).toMatchObject({ state: 'done' });
  });

  it('releases a claim whose answer was lost, since nothing ran under it', async () => {
    const key = uniq('lost-claim');
    let first = true;
    // The claim commits, then the connection is lost before its answer arrives.
    const cut = {
      execute: async (query: unknown) => {
        const result = await ctx.database.db.execute(query as never);
        if (!first) return result;
        first = false;
        throw Object.assign(new Error('Connection terminated unexpectedly'), { code: undefined });
      },
    } as unknown as Db;
    await expect(claimKey(cut, userId, key, 'f', {} as FastifyReply)).rejects.toThrow(
      'Connection terminated',
    );
    await expect.poll(() => row(key), { timeout: 5000, interval: 100 }).toBeNull();
  });

  it('gives up at once on an error that is not about availability', async () => {
    const c = await claimed('running');
    const broken = { execute: () => Promise.reject(new Error('syntax')) } as unknown as Db;
    await expect(completeKey(broken, c, 201, '{}')).rejects.toThrow('syntax');
  });
});
