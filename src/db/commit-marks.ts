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
 * The mark updates nothing when the transaction wrote nothing (`pg_current_xact_id_if_assigned()`).
 * Requests without an Idempotency-Key cost one AsyncLocalStorage look-up per statement. The pool
 * (`MarkingPool`) hands its connections to `pool.query` in the caller's async context, so that a
 * statement is never attributed to another request's scope.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';

export interface KeyClaim {
  userId: string;
  key: string;
}

/** The claimed keys whose writes are being executed (a combined statement may carry several). */
export interface MarkScope {
  claims: KeyClaim[];
}

export const markScope = new AsyncLocalStorage<MarkScope | undefined>();

/** Statements that may write: `insert into`, `update … set`, `delete from`, `merge into` (not `for update`). */
const WRITE_RE =
  /\binsert\s+into\b|\bdelete\s+from\b|\bmerge\s+into\b|\bupdate\s+(?:only\s+)?[\w".]+(?:\s+(?:as\s+)?\w+)?\s+set\b/i;
const COMMIT_RE = /^\s*(commit|end)\s*;?\s*$/i;
const MARK_SQL = `update idempotency_keys set state = 'committed'
  where state = 'running' and pg_current_xact_id_if_assigned() is not null
    and (user_id, key) in (select * from unnest($1::uuid[], $2::text[]))`;

type QueryCallback = (err: Error | null, result?: pg.QueryResult) => void;
type QueryArg = string | pg.QueryConfig;

/** A `pg` client class that adds the commit marks to the statements of scoped requests. */
export function markingClient(Base: typeof pg.Client = pg.Client): typeof pg.Client {
  class MarkingClient extends Base {
    // pg's overloads are many; this one signature covers the forms the pool and Drizzle use.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    override query(config: any, values?: any, callback?: any): any {
      const scope = markScope.getStore();
      if (scope === undefined || scope.claims.length === 0 || typeof config?.submit === 'function')
        return super.query(config, values, callback);
      const text: string = typeof config === 'string' ? config : (config?.text ?? '');
      const status = this.getTransactionStatus();
      const commit = status === 'T' && COMMIT_RE.test(text);
      const autocommitWrite = status === 'I' && WRITE_RE.test(text);
      if (!commit && !autocommitWrite) return super.query(config, values, callback);

      let cb: QueryCallback | undefined = callback;
      let vals: unknown[] | undefined = values;
      if (typeof values === 'function') {
        cb = values as QueryCallback;
        vals = undefined;
      }
      const send = (q: QueryArg, v?: unknown[]) => super.query(q as string, v) as Promise<pg.QueryResult>;
      const mark = () => send(MARK_SQL, [scope.claims.map((c) => c.userId), scope.claims.map((c) => c.key)]);
      const running = commit
        ? mark().then(() => send(config, vals))
        : (async () => {
            await send('begin');
            try {
              const result = await send(config, vals);
              await mark();
              await send('commit');
              return result;
            } catch (err) {
              await send('rollback').catch(() => {});
              throw err;
            }
          })();
      if (!cb) return running;
      running.then(
        (result) => cb(null, result),
        (err: Error) => cb(err),
      );
      return undefined;
    }
  }
  return MarkingClient;
}

type ConnectCallback = (
  err: Error | undefined,
  client: pg.PoolClient | undefined,
  done: (release?: unknown) => void,
) => void;

/**
 * `pg.Pool` whose connection callbacks run in the async context of the caller: `pool.query` sends its
 * statement from such a callback, which the pool may otherwise call while serving another request.
 */
export class MarkingPool extends pg.Pool {
  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
    if (!callback) return super.connect();
    const scope = markScope.getStore();
    super.connect((err, client, done) => markScope.run(scope, callback, err, client, done));
  }
}
