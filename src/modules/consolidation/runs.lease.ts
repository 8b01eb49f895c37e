/**
 * Run leases: who executes a run, and until when it is known to be alive.
 *
 * A run is executed by the process that started it (in the request, or in its background queue). That
 * process is the run's executor (`executor_id`) and holds a lease (`lease_expires_at`, database time):
 * taken when the run is committed `Pending`, renewed when it starts, at every step and by a heartbeat
 * every third of the lease while the process executes or queues it. Lease times are the processes'
 * clocks (kept in step by NTP; a skew far below the lease does not matter). A process that dies (a
 * crash, a SIGKILL, a lost host) stops renewing: once the lease has expired, any process of the
 * service — at start-up and then periodically — marks the run `Failed` with a message saying so, its
 * unfinished steps `Failed`/`Skipped`, and records FailRun and the event ConsolidationRunFailed. The
 * period is then free for a new run, and the run and its group can be deleted. Several processes may
 * sweep at once: each run is failed once (row lock, SKIP LOCKED, status re-checked).
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type Db, inTransaction, queryRows } from '../../db/client.ts';
import { orphanedSteps, UNFINISHED_RUN_STATUSES } from '../../domain/consolidation/run-lifecycle.ts';
import { recordRunFailure } from './runs.failure.ts';
import { findRun, statusOf, storedSteps } from './runs.repo.ts';

/** `status in (…)` of the runs that have not finished. */
const unfinished = sql`status in (${sql.join(
  UNFINISHED_RUN_STATUSES.map((s) => sql`${s}`),
  sql`, `,
)})`;

/** This process, as the executor of the runs it starts. */
export const EXECUTOR_ID = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

export const DEFAULT_RUN_LEASE_MS = 60_000;

/** The end of a lease taken now. */
export const leaseUntil = (leaseMs: number) => new Date(Date.now() + leaseMs);

export const orphanMessage = (executor: string | null) =>
  `The process executing the run${executor ? ` (${executor})` : ''} stopped before the run finished ` +
  '(its lease expired); start the run again';

/** Renews the leases of this process's runs still Pending or InProgress. */
export async function renewLeases(db: Db, runIds: readonly string[], leaseMs: number): Promise<void> {
  if (runIds.length === 0) return;
  await db.execute(sql`
    update consolidation_runs set lease_expires_at = ${leaseUntil(leaseMs).toISOString()}
    where id in (${sql.join(
      runIds.map((id) => sql`${id}::uuid`),
      sql`, `,
    )}) and executor_id = ${EXECUTOR_ID} and ${unfinished}`);
}

/**
 * Marks Failed every Pending or InProgress run whose lease has expired (runs without a lease are not
 * concerned: the migration that introduced leases gave the runs unfinished at that time one). Returns
 * the ids of the runs failed by this call.
 */
export async function failOrphanedRuns(db: Db): Promise<string[]> {
  const now = new Date().toISOString();
  const expiredWhere = sql`${unfinished} and lease_expires_at < ${now}`;
  const expired = await queryRows<{ id: string; organization_id: string }>(
    db,
    sql`select id::text as id, organization_id::text as organization_id from consolidation_runs
        where ${expiredWhere} limit 100`,
  );
  const failed: string[] = [];
  for (const { id, organization_id: orgId } of expired) {
    const done = await inTransaction(db, async (tx) => {
      const [locked] = await queryRows<{ id: string }>(
        tx,
        sql`select id::text as id from consolidation_runs
            where organization_id = ${orgId} and id = ${id} and ${expiredWhere}
            for update skip locked`,
      );
      if (!locked) return false;
      const run = (await findRun(tx, id, orgId))!;
      const message = orphanMessage(run.executorId);
      const steps = orphanedSteps(storedSteps(run), message, new Date().toISOString());
      await recordRunFailure(tx, run, statusOf(run), {
        steps,
        errorMessage: message,
        startedAt: run.startedAt,
      });
      return true;
    });
    if (done) failed.push(id);
  }
  return failed;
}
