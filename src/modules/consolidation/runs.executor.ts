/**
 * The run executor of one app instance: executes runs in the request or in a background queue, renews
 * the leases of the runs it holds (a heartbeat every third of the lease), marks Failed the runs
 * orphaned by a process that stopped (at start-up, then every half lease), and waits for its
 * background runs when the app closes, so that no run outlives the database.
 *
 * `runExecutor(app)` registers the executor's hooks on `app` (ready: first sweep; close: stop the
 * timers and wait) and returns what the run routes need: `execute` (in the request) and `schedule`
 * (after the response).
 */
import type { FastifyInstance } from 'fastify';
import type { RunRow } from './runs.repo.ts';
import { failOrphanedRuns, renewLeases } from './runs.lease.ts';
import { executeRun } from './runs.execute.ts';

export interface RunExecutor {
  /**
   * Executes the run now; resolves when it has completed or failed, with the completed run's row as
   * committed (null when it did not complete here).
   */
  execute(run: RunRow): Promise<RunRow | null>;
  /** Queues the run; it executes once the current request has been answered. */
  schedule(run: RunRow): Promise<void>;
  leaseMs: number;
}

export function runExecutor(app: FastifyInstance): RunExecutor {
  const { db, runLeaseMs: leaseMs } = app.deps;
  const log = app.log;
  // Background executions of this app instance: awaited on close.
  const inflight = new Set<Promise<void>>();
  // The runs this process executes or has queued: their leases are renewed.
  const held = new Set<string>();
  const execute = async (run: RunRow) => {
    held.add(run.id);
    try {
      return await executeRun(db, run, log, leaseMs);
    } finally {
      held.delete(run.id);
    }
  };
  const schedule = async (run: RunRow) => {
    held.add(run.id);
    const task: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(async () => {
        await execute(run);
      })
      .catch((err: unknown) => log.error({ err, runId: run.id }, 'background consolidation run crashed'))
      .finally(() => {
        inflight.delete(task);
      });
    inflight.add(task);
  };
  const heartbeat = setInterval(
    () => {
      renewLeases(db, [...held], leaseMs).catch((err: unknown) =>
        log.warn({ err }, 'could not renew the leases of consolidation runs'),
      );
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  heartbeat.unref();
  let sweeping: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    sweeping = failOrphanedRuns(db)
      .then((ids) => {
        if (ids.length > 0)
          log.warn({ runIds: ids }, 'consolidation runs orphaned by a stopped process marked Failed');
      })
      .catch((err: unknown) => log.warn({ err }, 'could not check for orphaned consolidation runs'));
  };
  const sweeper = setInterval(sweep, Math.max(100, Math.floor(leaseMs / 2)));
  sweeper.unref();
  app.addHook('onReady', async () => {
    sweep();
    await sweeping;
  });
  app.addHook('onClose', async () => {
    clearInterval(heartbeat);
    clearInterval(sweeper);
    await Promise.allSettled([...inflight, sweeping]);
  });
  return { execute, schedule, leaseMs };
}
