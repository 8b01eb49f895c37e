/**
 * Execution of a consolidation run: `Pending → InProgress`, the loader reads every input in one
 * snapshot, the engine runs step by step (in slices that let other requests in), each step's status
 * and timings are persisted as it starts and ends — every such write only succeeds while the run is
 * still `InProgress`, so a cancelled or deleted run stops there — and one final transaction writes
 * every result and `Completed`, or `Failed` with the failed step.
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { type Db, inTransaction, queryRows, type Tx } from '../../db/client.ts';
import { runRateUsages, runRuleApplications } from '../../db/schema/index.ts';
import {
  type ConsolidationInput,
  type ConsolidationResult,
  createConsolidationExecution,
  type EliminationEntry,
  type IntercompanyTransactionInput,
  STEP_TYPES,
} from '../../domain/consolidation/index.ts';
import type { StoredLineContributions } from '../../domain/consolidation/contributions-stored.ts';
import { dec } from '../../domain/money.ts';
import { relaxHeapGrowth } from '../../runtime/heap-growth.ts';
import { recordAudit } from '../audit/service.ts';
import { recordEvent } from '../events/record.ts';
import { lockRatesForUse } from '../exchange-rates/service.ts';
import { lockTransactions, markTransactionsEliminated } from '../intercompany/repo.ts';
import {
  canTransition,
  durationSince,
  failedSteps,
  isStepUnfinished,
} from '../../domain/consolidation/run-lifecycle.ts';
import { inputDigestInSlices } from './runs.digest.ts';
import { loadRunInput } from './runs.loader.ts';
import {
  contributionsDirectory,
  findRun,
  insertLineContributions,
  insertTrialBalances,
  lockRunStatus,
  type RunRow,
  statusOf,
  type StepRecord,
  type StoredTrialBalance,
  storedSteps,
  touchRun,
  updateRun,
} from './runs.repo.ts';
import { DEFAULT_RUN_LEASE_MS, EXECUTOR_ID, leaseUntil } from './runs.lease.ts';
import { recordRunFailure, runEvent } from './runs.failure.ts';

/** Logger used by background execution (the app's logger). */
export interface RunLogger {
  error(obj: unknown, msg?: string): void;
}

class RunStopped extends Error {}

/**
 * Optional observer of a run's phases (loading, each engine step, the input digest, the final
 * transaction) with their wall-clock milliseconds; used by the in-process bench, unset otherwise.
 */
export const runPhaseProbe: { mark?: (phase: string, ms: number) => void } = {};

const probed = async <T>(phase: string, work: () => Promise<T>): Promise<T> => {
  const mark = runPhaseProbe.mark;
  if (!mark) return work();
  const t = performance.now();
  const value = await work();
  mark(phase, performance.now() - t);
  return value;
};

/**
 * Longest stretch (ms) a run computes before it lets the event loop serve other requests. A slice
 * of the engine is at most one selector list of one elimination rule, a few milliseconds at the
 * largest the rule bounds allow.
 */
export const RUN_SLICE_MS = 10;

/**
 * Drives a step's slices to the step's outcome, yielding to the event loop (`setImmediate`: pending
 * I/O, so other requests, runs first) whenever it has computed for `RUN_SLICE_MS`. The outcome is
 * the one `runNextStep` gives: only the moments of computing change.
 */
async function inSlices<T>(slices: Generator<void, T, void>): Promise<T> {
  let since = performance.now();
  for (;;) {
    const next = slices.next();
    if (next.done) return next.value;
    if (performance.now() - since >= RUN_SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
}

const iso = (d: Date) => d.toISOString();

/**
 * Executes a `Pending` run to its final status. Never throws: an unexpected error marks the run
 * `Failed` (when the database still answers) and is logged. Returns the run's row as its final
 * transaction committed it when it completed here (so a caller need not read it again), else null.
 */
export async function executeRun(
  db: Db,
  run: RunRow,
  log: RunLogger,
  leaseMs: number = DEFAULT_RUN_LEASE_MS,
): Promise<RunRow | null> {
  const steps = storedSteps(run);
  /** the index of the step under way (−1 before loading) */
  const progress = { current: -1 };
  let startedAt: Date | null = null;
  // A very large run lets the heap grow as V8 sees fit while it executes (see `runtime/heap-growth.ts`).
  const members = Array.isArray(run.members) ? run.members.length : 0;
  const release = members >= LARGE_RUN_MEMBERS ? relaxHeapGrowth() : null;
  try {
    startedAt = new Date();
    const begun = await beginRun(db, run, startedAt, leaseMs);
    if (!begun) return null;
    progress.current = 0;
    const input = await probed('load', () =>
      loadRunInput(db, begun).catch((err: unknown) => {
        throw new Error(`Could not load the run's data: ${err instanceof Error ? err.message : String(err)}`);
      }),
    );
    const execution = createConsolidationExecution(input);
    await runSteps(db, begun, execution, steps, progress, leaseMs);
    const result = execution.result();
    result.steps.forEach((s, i) => {
      if (isStepUnfinished(steps[i]!.status)) {
        steps[i] = { ...steps[i]!, status: s.status, details: s.details, errorMessage: s.errorMessage };
      }
    });
    if (result.status === 'Completed') {
      return await completeRun(db, begun, steps, { execution, input, result }, startedAt);
    }
    const message = result.errorMessage ?? 'Failed';
    await finishFailed(db, begun, steps, result.validationResult, message, startedAt);
    return null;
  } catch (err) {
    if (err instanceof RunStopped) return null;
    const message = err instanceof Error ? err.message : String(err);
    try {
      const failed = failedSteps(steps, Math.max(progress.current, 0), message, iso(new Date()));
      await finishFailed(db, run, failed, null, message, startedAt);
    } catch (inner) {
      log.error({ err: inner, runId: run.id }, 'could not record the failure of a consolidation run');
    }
    log.error({ err, runId: run.id }, 'consolidation run failed unexpectedly');
    return null;
  } finally {
    release?.();
  }
}

/**
 * Members from which a run counts as very large: the 200-company group's run spent about a fifth of
 * its time in full collections under the start command's growth cap; the 50-company runs, whose
 * memory the cap was chosen for, stay under it.
 */
const LARGE_RUN_MEMBERS = 100;

/** `Pending → InProgress` with this executor's lease; null when the run may no longer start. */
async function beginRun(db: Db, run: RunRow, startedAt: Date, leaseMs: number): Promise<RunRow | null> {
  return inTransaction(db, async (tx) => {
    const locked = await lockRunStatus(tx, run.organizationId, run.id);
    if (!locked || !canTransition(statusOf(locked), 'InProgress')) return null;
    return updateRun(tx, run.organizationId, run.id, {
      status: 'InProgress',
      startedAt,
      executorId: EXECUTOR_ID,
      leaseExpiresAt: leaseUntil(leaseMs),
      updatedAt: startedAt,
    });
  });
}

/**
 * Runs the engine's steps in slices, recording each step's start (with the previous one's end) while
 * the run is still `InProgress` (`RunStopped` otherwise), until the last step or a failed one.
 */
async function runSteps(
  db: Db,
  run: RunRow,
  execution: ReturnType<typeof createConsolidationExecution>,
  steps: StepRecord[],
  progress: { current: number },
  leaseMs: number,
): Promise<void> {
  const persistSteps = async () => {
    const values = { steps, leaseExpiresAt: leaseUntil(leaseMs), updatedAt: new Date() };
    if (!(await touchRun(db, run.organizationId, run.id, values, 'InProgress'))) throw new RunStopped();
  };
  while (execution.nextStep !== null) {
    const current = STEP_TYPES.indexOf(execution.nextStep);
    progress.current = current;
    const stepStart = new Date();
    steps[current] = { ...steps[current]!, status: 'InProgress', startedAt: iso(stepStart) };
    await persistSteps();
    const outcome = await probed(execution.nextStep, () => inSlices(execution.runNextStepInSlices()));
    const stepEnd = new Date();
    const skipped = outcome.status === 'Skipped';
    steps[current] = {
      stepType: outcome.stepType,
      status: outcome.status,
      startedAt: skipped ? null : iso(stepStart),
      completedAt: skipped ? null : iso(stepEnd),
      durationMs: skipped ? null : stepEnd.getTime() - stepStart.getTime(),
      errorMessage: outcome.errorMessage,
      details: outcome.details,
    };
    // The next step's start (one write at the top of the loop) records this one's end too; the
    // last one's is recorded by the final transaction.
    if (outcome.status === 'Failed') break;
  }
}

/**
 * Stores a completed run's results (`finishCompleted`), or records it `Failed` when an input it used
 * was deleted or changed meanwhile. The input digest is computed in slices while the final
 * transaction's first statements (its locks, the trial balances and the contributions) run on the
 * database; that transaction waits for it only where it writes the run's row.
 */
async function completeRun(
  db: Db,
  run: RunRow,
  steps: StepRecord[],
  computed: {
    execution: ReturnType<typeof createConsolidationExecution>;
    input: ConsolidationInput;
    result: ConsolidationResult;
  },
  startedAt: Date | null,
): Promise<RunRow | null> {
  const { execution, input, result } = computed;
  // The contributions are computed in slices (a large run's take a few hundred milliseconds) before
  // the final transaction; the input digest in slices while the transaction's first statements run on
  // the database, awaited where the run's row is written (not needed when the transaction stops
  // first). Computing the contributions during the transaction too was measured slower: every
  // statement's answer then waits for the slice under way.
  const contributions = await probed('contributions', () =>
    inSlices(execution.storedContributionsInSlices(contributionsDirectory(run))),
  );
  const inputDigest = probed('digest', () => inSlices(inputDigestInSlices(input, result.exchangeRatesUsed)));
  inputDigest.catch(() => {});
  const extras = {
    inputDigest,
    eliminationEntries: execution.eliminationEntries(),
    contributions,
    adjustmentIds: (input.adjustments ?? []).map((a) => a.id),
  };
  const done = await probed('finish', () =>
    finishCompleted(db, run, steps, result, startedAt, extras, input.closing.intercompanyTransactions),
  );
  if (done !== 'vanished' && done !== 'changed') return done === 'stopped' ? null : done;
  const last = STEP_TYPES.length - 1;
  const errorMessage =
    done === 'vanished'
      ? 'An exchange rate or elimination rule used by the run was deleted during execution; start the run again'
      : 'An intercompany transaction the run eliminates was changed or deleted during execution; start the run again';
  steps[last] = { ...steps[last]!, status: 'Failed', errorMessage };
  await finishFailed(db, run, steps, result.validationResult, errorMessage, startedAt);
  return null;
}

class Vanished extends Error {}
class Changed extends Error {}

interface CompletedExtras {
  /** awaited only where the run's row is written (see `completeRun`) */
  inputDigest: Promise<string>;
  eliminationEntries: EliminationEntry[];
  adjustmentIds: string[];
  contributions: { closing: StoredLineContributions[]; opening: StoredLineContributions[] } | null;
}

/**
 * The final transaction of a completed run; 'stopped' when it was cancelled meanwhile, 'vanished' when
 * a rate or rule it used was deleted, 'changed' when an intercompany transaction it eliminates is no
 * longer what the run read (`read`: the transactions of the run's input).
 */
async function finishCompleted(
  db: Db,
  run: RunRow,
  steps: StepRecord[],
  result: ConsolidationResult,
  startedAt: Date | null,
  extras: CompletedExtras,
  read: readonly IntercompanyTransactionInput[],
): Promise<RunRow | 'stopped' | 'vanished' | 'changed'> {
  const orgId = run.organizationId;
  try {
    return await inTransaction(db, async (tx) => {
      const locked = await lockRunStatus(tx, orgId, run.id);
      if (!locked || !canTransition(statusOf(locked), 'Completed')) return 'stopped';
      const used = await lockUsedInputs(tx, orgId, result);
      const completedAt = new Date();
      await storeResults(tx, run, result, extras, used, iso(completedAt));
      // The transactions it marks are locked and must still be exactly what the run eliminated:
      // changed (status, amount, parties, date) or deleted meanwhile, the run's result is stale.
      if (!(await transactionsUnchanged(tx, orgId, result.eliminatedTransactionIds, read)))
        throw new Changed();
      await markTransactionsEliminated(tx, orgId, result.eliminatedTransactionIds, run.id);
      const inputDigest = await extras.inputDigest;
      const completed = await updateRun(tx, orgId, run.id, {
        status: 'Completed',
        steps,
        validationResult: result.validationResult,
        eliminations: result.eliminations,
        exchangeRatesUsed: result.exchangeRatesUsed,
        acquisitionAnalysis: result.acquisitionAnalysis,
        totals: result.totals,
        inputDigest,
        eliminationEntries: extras.eliminationEntries,
        adjustmentIds: extras.adjustmentIds,
        completedAt,
        totalDurationMs: durationSince(startedAt, completedAt),
        errorMessage: null,
        updatedAt: completedAt,
      });
      await recordCompletion(tx, run, result, startedAt, completedAt);
      return completed!;
    });
  } catch (err) {
    if (err instanceof Vanished) return 'vanished';
    if (err instanceof Changed) return 'changed';
    throw err;
  }
}

/** Locks the rates (legs) and the applied rules the run used; `Vanished` when one was deleted. */
async function lockUsedInputs(
  tx: Tx,
  orgId: string,
  result: ConsolidationResult,
): Promise<{ legIds: string[]; applied: string[] }> {
  const legIds = [...new Set(result.exchangeRatesUsed.flatMap((u) => u.legIds))];
  const present = await lockRatesForUse(tx, orgId, legIds);
  if (present.length !== legIds.length) throw new Vanished();
  const applied = [
    ...new Set(result.eliminations.filter((e) => e.status === 'Applied').map((e) => e.eliminationRuleId)),
  ];
  if (applied.length > 0) {
    const rows = await queryRows<{ id: string }>(
      tx,
      sql`select id::text as id from elimination_rules
          where organization_id = ${orgId} and id in (${sql.join(
            applied.map((id) => sql`${id}::uuid`),
            sql`, `,
          )})
          order by id for share`,
    );
    if (rows.length !== applied.length) throw new Vanished();
  }
  return { legIds, applied };
}

/** The run's trial balances, line contributions, applied rules and rates used. */
async function storeResults(
  tx: Tx,
  run: RunRow,
  result: ConsolidationResult,
  extras: CompletedExtras,
  used: { legIds: string[]; applied: string[] },
  generatedAt: string,
): Promise<void> {
  const orgId = run.organizationId;
  const views: StoredTrialBalance[] = [];
  for (const tb of [result.closingTrialBalance, result.openingTrialBalance]) {
    if (!tb) continue;
    views.push({
      consolidationRunId: run.id,
      groupId: run.groupId,
      generatedAt,
      ...tb,
      ...(tb.view === 'closing' ? { retainedEarningsLine: result.retainedEarningsLine } : {}),
    });
  }
  await insertTrialBalances(tx, orgId, run.id, views);
  const { contributions } = extras;
  if (contributions) {
    await insertLineContributions(tx, run, [
      { view: 'closing', lines: contributions.closing },
      { view: 'opening', lines: contributions.opening },
    ]);
  }
  if (used.applied.length > 0) {
    await tx
      .insert(runRuleApplications)
      .values(used.applied.map((ruleId) => ({ organizationId: orgId, runId: run.id, ruleId })));
  }
  if (used.legIds.length > 0) {
    await tx
      .insert(runRateUsages)
      .values(
        used.legIds.map((exchangeRateId) => ({ organizationId: orgId, runId: run.id, exchangeRateId })),
      );
  }
}

/** The audit record and the event of a completed run. */
async function recordCompletion(
  tx: Tx,
  run: RunRow,
  result: ConsolidationResult,
  startedAt: Date | null,
  completedAt: Date,
): Promise<void> {
  await recordAudit(tx, {
    organizationId: run.organizationId,
    userId: run.requestedBy,
    action: 'CompleteRun',
    entityType: 'ConsolidationRun',
    entityId: run.id,
    changes: { status: { from: 'InProgress', to: 'Completed' } },
  });
  await recordEvent(
    tx,
    runEvent('ConsolidationRunCompleted', run, {
      status: 'Completed',
      completedAt,
      totalDurationMs: durationSince(startedAt, completedAt),
      errorMessage: null,
      totals: result.totals,
    }),
  );
}

/** Locks the transactions `ids` (FOR UPDATE) and tells whether each still matches what was read. */
async function transactionsUnchanged(
  tx: Tx,
  orgId: string,
  ids: readonly string[],
  read: readonly IntercompanyTransactionInput[],
): Promise<boolean> {
  if (ids.length === 0) return true;
  const byId = new Map(read.map((t) => [t.id, t]));
  const rows = await lockTransactions(tx, orgId, ids);
  if (rows.length !== new Set(ids).size) return false;
  return rows.every((r) => {
    const t = byId.get(r.id);
    return (
      t !== undefined &&
      r.matchingStatus === t.matchingStatus &&
      r.fromCompanyId === t.fromCompanyId &&
      r.toCompanyId === t.toCompanyId &&
      r.transactionDate === t.transactionDate &&
      r.currency === t.currency &&
      dec(r.amount).equals(dec(t.amount))
    );
  });
}

/** Records the failure (only while the run is still Pending or InProgress). */
async function finishFailed(
  db: Db,
  run: RunRow,
  steps: StepRecord[],
  validationResult: ConsolidationResult['validationResult'],
  errorMessage: string,
  startedAt: Date | null,
): Promise<void> {
  await inTransaction(db, async (tx) => {
    const locked = await findRun(tx, run.id, run.organizationId, true);
    if (!locked || !canTransition(statusOf(locked), 'Failed')) return;
    await recordRunFailure(tx, run, statusOf(locked), {
      steps,
      errorMessage,
      startedAt: startedAt ?? locked.startedAt,
      validationResult,
    });
  });
}
