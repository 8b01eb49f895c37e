/**
 * Commit marks: the database records, in the same transaction as the writes of a request sent with an
 * Idempotency-Key, that those writes committed. The key's row goes from `running` to `committed`
 * atomically with the request's own effects, so whatever happens to the connection afterwards (a
 * failover that cuts it while the commit is on its way, a response that cannot be stored), the key
 * tells on any server that took over whether the request took effect:
 *
 * - still `running` once the request has failed: nothing of it committed, the key may be released
 *   and the client's retry executes the request;
 * - `committed` (or `done`, with the response stored): it took effect, the key is never released and
 *   the request never executes a second time.
 *
 * The requests' code does not change: statements are marked where they reach the server (the pool's
 * client class below). For a request whose key is claimed (`markScope`):
 *
 * - a `commit` of an explicit transaction is preceded by the mark, inside that transaction;
 * - a statement that may write (insert, update, delete, merge) sent outside a transaction runs as
 *   `begin; statement; mark; commit` — the same single-statement transaction, with the mark.
 *
 * The mark is written only when the transaction wrote (`pg_current_xact_id_if_assigned()`, asked first).
 *
 * The mark also carries a token of its transaction (`commit_token`, a random UUID). A COMMIT whose
 * connection breaks on the way (the primary stops as it commits) may or may not have happened; the
 * client then asks the server that took over, on another connection, for that token — for up to
 * `COMMIT_RESOLUTION_MS` while no server answers, or while the transaction is still running on a
 * server that is still up. Found: the commit happened (it reached the synchronous standby that is now
 * the primary), and the request goes on as if the COMMIT had answered, so its response is sent and
 * stored. Not found: nothing of it committed; the request answers 503 and its key is released for the
 * retry. Only when no server answers in time does the commit stay in doubt (the key then says
 * `committed` or `running`, and a retry is told the request is in progress).
 * Requests without an Idempotency-Key cost one AsyncLocalStorage look-up per statement. The pool
 * (`MarkingPool`) hands its connections to `pool.query` in the caller's async context, so that a
 * statement is never attributed to another request's scope, and its `query` answers a scoped
 * statement only once the statement has settled, resolution included (`pg.Pool.query` would answer a
 * connection's error at once). The embedded database (PGlite) is marked the same way (`markPglite`):
 * its transactions get the mark before they commit, its single writing statements run in a
 * transaction with the mark.
 *
 * The mark is also a fence. A claim names the moment it was taken (`created_at`); a claim whose
 * process stopped renewing its lease may be taken over by a retry (http/idempotency.ts). A transaction
 * that wrote but whose claim is no longer its own (taken over meanwhile) finds nothing to mark and is
 * refused (409 IdempotencyKeyInProgressError) before it commits, so the request executes once.
 */
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import pg from 'pg';

export interface KeyClaim {
  userId: string;
  key: string;
  /** `created_at` of the claim (ISO timestamp with milliseconds). */
  claimedAt: string;
}

/** The claimed keys whose writes are being executed (a combined statement may carry several). */
export interface MarkScope {
  claims: KeyClaim[];
}

export const markScope = new AsyncLocalStorage<MarkScope | undefined>();

/** A copy of the claims the current request holds, or null when it holds none (no mark to write). */
function claimsNow(): KeyClaim[] | null {
  const scope = markScope.getStore();
  return scope === undefined || scope.claims.length === 0 ? null : [...scope.claims];
}

/** Statements that may write: `insert into`, `update … set`, `delete from`, `merge into` (not `for update`). */
const WRITE_RE =
  /\binsert\s+into\b|\bdelete\s+from\b|\bmerge\s+into\b|\bupdate\s+(?:only\s+)?[\w".]+(?:\s+(?:as\s+)?\w+)?\s+set\b/i;
const COMMIT_RE = /^\s*(commit|end)\s*;?\s*$/i;
const MARK_SQL = `with marked as (
    update idempotency_keys set state = 'committed', commit_token = $4
    where state in ('running', 'committed')
      and (user_id, key, created_at) in (select * from unnest($1::uuid[], $2::text[], $3::timestamptz[]))
    returning 1)
  select (select count(*) from marked)::int as marked`;
/**
 * Whether the transaction wrote: only then is the mark written (an UPDATE, even of no row, is refused
 * in a read-only transaction such as a run's snapshot read).
 */
const WROTE_SQL = `select pg_current_xact_id_if_assigned() is not null as wrote`;

const markParams = (claims: KeyClaim[], token: string) => [
  claims.map((c) => c.userId),
  claims.map((c) => c.key),
  claims.map((c) => c.claimedAt),
  token,
];

/**
 * Whether the transaction that wrote `token` with its mark committed, on the server now answering. The
 * keys' rows are read with a share lock, without waiting: the transaction holds their row locks from
 * its mark until it ends, so while a server that is still up (a connection cut by the network, not by
 * a failover) has not finished that COMMIT the read fails with `lock_not_available` and is asked again.
 * A plain read would see the rows as they were before the transaction and answer "not committed"
 * while the COMMIT is still on its way to succeeding.
 */
const COMMITTED_SQL = `select commit_token = $3 as ours from idempotency_keys
  where (user_id, key) in (select * from unnest($1::uuid[], $2::text[]))
  for share nowait`;
/** SQLSTATE `lock_not_available`: the marked transaction has not ended yet. */
const LOCK_NOT_AVAILABLE = '55P03';

/** Sends one statement on a connection other than the one that broke (the pool's `query`). */
export type QueryRunner = (text: string, values: unknown[]) => Promise<{ rows: unknown[] }>;

/**
 * How long a request whose COMMIT was cut off waits to learn whether it happened: the server that
 * took over is asked for the transaction's commit token until it answers or this much time has passed.
 * Failover managers commonly take tens of seconds to promote a standby (they first wait out the old
 * primary's lease), and a commit not resolved in time stays in doubt for good (its key `committed`
 * without a response): waiting longer costs this one request's latency, while its client's retries are
 * told it is in progress and then get its stored answer.
 */
export const COMMIT_RESOLUTION_MS = 30_000;
const RESOLUTION_RETRY_MS = 250;

/**
 * Whether the transaction marked with `token` committed: true or false once a server accepting writes
 * answers and the transaction has ended there, null when that did not happen within `forMs` (the
 * commit stays in doubt). `isUnavailable` tells a connection failure (asked again, as is a transaction
 * still running) from any other error (thrown).
 */
export async function commitHappened(
  run: QueryRunner,
  claims: KeyClaim[],
  token: string,
  isUnavailable: (err: unknown) => boolean,
  forMs: number = COMMIT_RESOLUTION_MS,
): Promise<boolean | null> {
  const until = Date.now() + forMs;
  for (;;) {
    try {
      const { rows } = await run(COMMITTED_SQL, [
        claims.map((c) => c.userId),
        claims.map((c) => c.key),
        token,
      ]);
      return (rows as Array<{ ours: boolean | null }>).some((row) => row.ours === true);
    } catch (err) {
      const running = (err as { code?: unknown } | null)?.code === LOCK_NOT_AVAILABLE;
      if (!running && !isUnavailable(err)) throw err;
      if (Date.now() + RESOLUTION_RETRY_MS > until) return null;
      await new Promise((resolve) => setTimeout(resolve, RESOLUTION_RETRY_MS));
    }
  }
}

/** What a COMMIT found to have happened answers (the connection it was sent on is gone). */
const COMMITTED_RESULT = { command: 'COMMIT', rowCount: null, oid: 0, rows: [], fields: [] };

/**
 * Resolves a commit that failed: when the connection broke while the COMMIT was on its way
 * (`isUnavailable`), the server that took over tells whether the transaction's token is there — if so
 * the commit happened and the request goes on as if the COMMIT had answered; otherwise (or when no
 * server answered in time) the original error stands and the request answers 503.
 */
export interface CommitResolver {
  run: QueryRunner;
  isUnavailable: (err: unknown) => boolean;
  /** Hears of every commit in doubt and what became of it. */
  onResolved?: (outcome: 'committed' | 'not committed' | 'unknown') => void;
}

/** The error of a transaction whose claim was taken over: it must not commit. */
export class ClaimLostError extends Error {
  readonly claims: KeyClaim[];
  constructor(claims: KeyClaim[]) {
    super('The Idempotency-Key claim of this request was taken over; its writes were not committed');
    this.claims = claims;
  }
}

function checkMark(rows: Array<{ marked: number }>, claims: KeyClaim[]): void {
  if ((rows[0]?.marked ?? 0) < claims.length) throw new ClaimLostError(claims);
}

type QueryCallback = (err: Error | null, result?: pg.QueryResult) => void;
type QueryArg = string | pg.QueryConfig;

/**
 * A `pg` client class that adds the commit marks to the statements of scoped requests; with a
 * `resolver`, a COMMIT of such a request cut off by a lost connection is resolved (see above).
 */
export function markingClient(
  Base: typeof pg.Client = pg.Client,
  resolver?: () => CommitResolver | undefined,
): typeof pg.Client {
  class MarkingClient extends Base {
    // pg's overloads are many; this one signature covers the forms the pool and Drizzle use.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    override query(config: any, values?: any, callback?: any): any {
      const claims = claimsNow();
      if (claims === null || typeof config?.submit === 'function')
        return super.query(config, values, callback);
      const text: string = typeof config === 'string' ? config : (config?.text ?? '');
      // No status yet (null) on a new connection's first statement when it is sent from the connect
      // callback, as `pg.Pool.query` does: `pg` calls that callback before it records the status of
      // the first ReadyForQuery. A new connection is never in a transaction.
      const status = this.getTransactionStatus();
      const commit = status === 'T' && COMMIT_RE.test(text);
      const autocommitWrite = (status === 'I' || status === null) && WRITE_RE.test(text);
      if (!commit && !autocommitWrite) return super.query(config, values, callback);

      const { vals, cb } = queryArgs(values, callback);
      const send = (q: QueryArg, v?: unknown[]) => super.query(q as string, v) as Promise<pg.QueryResult>;
      const token = randomUUID();
      let marked = false;
      const mark = async () => {
        const wrote = await send(WROTE_SQL);
        if (!(wrote.rows[0] as { wrote: boolean } | undefined)?.wrote) return;
        const result = await send(MARK_SQL, markParams(claims, token));
        checkMark(result.rows as Array<{ marked: number }>, claims);
        marked = true;
      };
      // The COMMIT itself: when its connection breaks on the way, whether it happened is asked.
      const commitNow = async (q: QueryArg, v?: unknown[]) => {
        try {
          return await send(q, v);
        } catch (err) {
          const r = marked ? resolver?.() : undefined;
          if (!r || !r.isUnavailable(err)) throw err;
          const happened = await commitHappened(r.run, claims, token, r.isUnavailable).catch(() => null);
          r.onResolved?.(happened === null ? 'unknown' : happened ? 'committed' : 'not committed');
          if (happened) return COMMITTED_RESULT as unknown as pg.QueryResult;
          throw err;
        }
      };
      const running = commit
        ? mark().then(() => commitNow(config, vals))
        : (async () => {
            await send('begin');
            try {
              const result = await send(config, vals);
              await mark();
              await commitNow('commit');
              return result;
            } catch (err) {
              await send('rollback').catch(() => {});
              throw err;
            }
          })();
      return answer(running, cb);
    }
  }
  return MarkingClient;
}

/** `pg`'s `query(config, values?, callback?)` arguments, where `values` may be the callback. */
function queryArgs(values: unknown, callback: unknown): { vals?: unknown[]; cb?: QueryCallback } {
  if (typeof values === 'function') return { cb: values as QueryCallback };
  return {
    vals: values as unknown[] | undefined,
    cb: typeof callback === 'function' ? (callback as QueryCallback) : undefined,
  };
}

/** A statement's outcome as `pg` gives it: the promise, or (with a callback) to the callback. */
function answer(
  running: Promise<pg.QueryResult>,
  cb: QueryCallback | undefined,
): Promise<pg.QueryResult> | undefined {
  if (!cb) return running;
  running.then(
    (result) => cb(null, result),
    (err: Error) => cb(err),
  );
  return undefined;
}

type ConnectCallback = (
  err: Error | undefined,
  client: pg.PoolClient | undefined,
  done: (release?: unknown) => void,
) => void;

/**
 * `pg.Pool` whose connection callbacks run in the async context of the caller: `pool.query` sends its
 * statement from such a callback, which the pool may otherwise call while serving another request
 * (a connection released by one request is handed to the next waiting one from the releasing
 * request's context). The whole context is restored (`AsyncResource.bind`), not only the marks'
 * scope: anything else kept per request (the statement recorder's origin, for one) follows the
 * statement too.
 */
export class MarkingPool extends pg.Pool {
  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
    if (!callback) return super.connect();
    super.connect(AsyncResource.bind(callback));
  }

  /**
   * `pg.Pool`'s own `query` answers as soon as its connection reports an error, without waiting for
   * the statement to settle. For a request holding a claim that is too early: a COMMIT cut off by the
   * lost connection is still being resolved on the server that took over (`markingClient`), and its
   * outcome, not the connection's error, is the statement's answer. Answering the error at once would
   * give the request a 503 while its writes may have committed, leaving its key `committed` with no
   * response for good. Such statements take a connection and wait for its client's own answer.
   */
  // pg's overloads are many; this one signature covers the forms Drizzle and the statements use.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(config: any, values?: any, callback?: any): any {
    if (claimsNow() === null || typeof config?.submit === 'function')
      return super.query(config, values, callback);
    const { vals, cb } = queryArgs(values, callback);
    const running = (async () => {
      const client = await this.connect();
      try {
        const result = (await client.query(config, vals)) as pg.QueryResult;
        client.release();
        return result;
      } catch (err) {
        // As `pg.Pool.query` does: the connection of a failed statement is not reused.
        client.release(err as Error);
        throw err;
      }
    })();
    return answer(running, cb);
  }
}

/**
 * Whether `text`, sent now outside a transaction, must be marked: the current request holds a claim and
 * the statement may write. Such a statement goes through the marked `query` of the embedded database.
 */
export function needsMark(text: string): boolean {
  return claimsNow() !== null && WRITE_RE.test(text);
}

/** The part of a PGlite instance the marks wrap. */
interface PgliteLike {
  query: (query: string, params?: unknown[], options?: unknown) => Promise<unknown>;
  transaction: <T>(callback: (tx: PgliteTx) => Promise<T>) => Promise<T>;
}
interface PgliteTx {
  query: <R>(query: string, params?: unknown[], options?: unknown) => Promise<{ rows: R[] }>;
}

/**
 * Adds the commit marks to an embedded database (PGlite, one connection): a transaction of a scoped
 * request is marked before it commits, and a writing statement sent outside a transaction runs in one
 * with its mark — as `markingClient` does for a server.
 */
export function markPglite(client: PgliteLike): void {
  const query = client.query.bind(client);
  const transaction = client.transaction.bind(client) as PgliteLike['transaction'];
  const mark = async (tx: PgliteTx, claims: KeyClaim[]) => {
    const wrote = await tx.query<{ wrote: boolean }>(WROTE_SQL);
    if (!wrote.rows[0]?.wrote) return;
    const result = await tx.query<{ marked: number }>(MARK_SQL, markParams(claims, randomUUID()));
    checkMark(result.rows, claims);
  };
  client.transaction = (<T>(callback: (tx: PgliteTx) => Promise<T>): Promise<T> => {
    const claims = claimsNow();
    if (!claims) return transaction(callback);
    return transaction(async (tx) => {
      const result = await callback(tx);
      await mark(tx, claims);
      return result;
    });
  }) as PgliteLike['transaction'];
  client.query = (text: string, params?: unknown[], options?: unknown) => {
    const claims = claimsNow();
    if (!claims || typeof text !== 'string' || !WRITE_RE.test(text)) return query(text, params, options);
    return transaction(async (tx) => {
      const result = await tx.query(text, params, options);
      await mark(tx, claims);
      return result;
    });
  };
}
