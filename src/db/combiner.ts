/**
 * Combines concurrent statements of the same shape into one (group commit for writes, batched
 * look-ups for reads). Items whose `key` is equal are queued per key; while `maxInFlight` statements
 * for a key run, the items that arrive for that key wait and then go together, in arrival order, in
 * the next statement. With no concurrency an item runs at once on its own, so nothing ever waits for
 * a timer; under load one statement carries many items:
 *
 * - writes that serialise on one row lock (new journal entries of one company all draw numbers from
 *   that company's counter row): one transaction, one commit and one hold of the lock
 *   for many writes, so throughput is no longer bounded by one commit per write;
 * - hot look-ups (the session of every request): one round trip for many requests.
 *
 * Every item keeps its own outcome: `runBatch` returns one result per item. When a batch statement
 * fails as a whole (an unexpected database error), its items are retried one by one, so that one bad
 * item cannot fail the others; a failure of a single-item batch is that item's error, and so is the
 * failure of a batch that lost its database (every item fails with it).
 */
import type { Db } from './client.ts';
import { type MarkScope, markScope } from './commit-marks.ts';
import { isUnavailableError } from './failover.ts';

export class Combiner<I, R> {
  private readonly queues = new Map<string, Queue<I, R>>();

  constructor(
    private readonly runBatch: (items: I[]) => Promise<R[]>,
    private readonly maxBatch = 64,
    private readonly maxInFlight = 1,
  ) {}

  run(key: string, item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let queue = this.queues.get(key);
      if (!queue) {
        queue = { items: [], running: 0 };
        this.queues.set(key, queue);
      }
      queue.items.push({ item, resolve, reject, scope: markScope.getStore() });
      if (queue.running < this.maxInFlight) void this.drain(key, queue);
    });
  }

  private async drain(key: string, queue: Queue<I, R>): Promise<void> {
    queue.running++;
    try {
      while (queue.items.length > 0) {
        const batch = queue.items.splice(0, this.maxBatch);
        await this.runOne(batch);
      }
    } finally {
      queue.running--;
      if (queue.running === 0 && queue.items.length === 0) this.queues.delete(key);
    }
  }

  private async runOne(batch: Pending<I, R>[]): Promise<void> {
    try {
      const results = await this.inScopeOf(batch, () => this.runBatch(batch.map((p) => p.item)));
      batch.forEach((p, i) => p.resolve(results[i]!));
      return;
    } catch (err) {
      // Unreachable database: retrying each item would fail the same way, and a connection lost during
      // the commit leaves its outcome unknown (the items may have been written): no item runs again.
      if (batch.length === 1 || isUnavailableError(err)) {
        for (const p of batch) p.reject(err);
        return;
      }
    }
    for (const p of batch) await this.runOne([p]);
  }

  /**
   * Runs a batch with the idempotency claims of its own items (commit-marks.ts), not those of the
   * request that happened to start the queue's drain.
   */
  private inScopeOf<T>(batch: Pending<I, R>[], fn: () => Promise<T>): Promise<T> {
    let claims: MarkScope['claims'] | undefined;
    for (const p of batch) if (p.scope && p.scope.claims.length > 0) (claims ??= []).push(...p.scope.claims);
    if (claims) return markScope.run({ claims }, fn);
    return markScope.getStore() === undefined ? fn() : markScope.exit(fn);
  }
}

interface Queue<I, R> {
  items: Pending<I, R>[];
  /** Statements of this key in flight. */
  running: number;
}

interface Pending<I, R> {
  item: I;
  /** The idempotency claims of the request that queued the item, if any. */
  scope: MarkScope | undefined;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

/**
 * One value per database handle, made on first use: the combiner of a statement belongs to the
 * database it runs on (tests open several databases in one process).
 */
export function perDatabase<T>(make: (db: Db) => T): (db: Db) => T {
  const values = new WeakMap<Db, T>();
  return (db) => {
    let value = values.get(db);
    if (value === undefined) {
      value = make(db);
      values.set(db, value);
    }
    return value;
  };
}
