/**
 * How a run ends `Failed`, written once for the two ways it happens: its executor records the failure
 * (a failed step, an input deleted or changed meanwhile, an unexpected error), or a process finds the
 * run orphaned (its executor stopped renewing the lease). Either way the caller's transaction, which
 * holds the run's row lock, writes the run's final columns, the audit record `FailRun` and the event
 * `ConsolidationRunFailed`, so that a client subscribed to failures hears of both.
 */
import type { Tx } from '../../db/client.ts';
import { durationSince, type RunStatus } from '../../domain/consolidation/run-lifecycle.ts';
import type { ConsolidationResult } from '../../domain/consolidation/index.ts';
import { recordAudit } from '../audit/service.ts';
import { type EventInput, recordEvent } from '../events/record.ts';
import { type RunRow, type StepRecord, updateRun } from './runs.repo.ts';

export interface RunFailure {
  steps: StepRecord[];
  errorMessage: string;
  /** when the run started (null when it never did): its duration ends now */
  startedAt: Date | null;
  /** the validation issues found before the failure, when the engine got that far */
  validationResult?: ConsolidationResult['validationResult'];
}

/** Marks the locked run `run` (found in status `from`) Failed, with its audit record and event. */
export async function recordRunFailure(
  tx: Tx,
  run: RunRow,
  from: RunStatus,
  failure: RunFailure,
): Promise<void> {
  const { steps, errorMessage, startedAt, validationResult } = failure;
  const orgId = run.organizationId;
  const completedAt = new Date();
  const totalDurationMs = durationSince(startedAt, completedAt);
  await updateRun(tx, orgId, run.id, {
    status: 'Failed',
    steps,
    ...(validationResult !== undefined ? { validationResult } : {}),
    eliminations: [],
    exchangeRatesUsed: [],
    totals: null,
    completedAt,
    totalDurationMs,
    errorMessage,
    updatedAt: completedAt,
  });
  await recordAudit(tx, {
    organizationId: orgId,
    userId: run.requestedBy,
    action: 'FailRun',
    entityType: 'ConsolidationRun',
    entityId: run.id,
    changes: { status: { from, to: 'Failed' }, errorMessage: { from: null, to: errorMessage } },
  });
  await recordEvent(
    tx,
    runEvent('ConsolidationRunFailed', run, {
      status: 'Failed',
      completedAt,
      totalDurationMs,
      errorMessage,
      totals: null,
    }),
  );
}

/**
 * The event of a finished run: a summary (the run's full record, with its trial balances and
 * eliminations, is read with `GET /consolidation/runs/{id}`).
 */
export function runEvent(
  type: 'ConsolidationRunCompleted' | 'ConsolidationRunFailed',
  run: RunRow,
  end: {
    status: string;
    completedAt: Date;
    totalDurationMs: number | null;
    errorMessage: string | null;
    totals: unknown;
  },
): EventInput {
  return {
    organizationId: run.organizationId,
    type,
    actorId: run.requestedBy,
    resourceType: 'ConsolidationRun',
    resourceId: run.id,
    data: {
      id: run.id,
      organizationId: run.organizationId,
      groupId: run.groupId,
      year: run.year,
      period: run.period,
      asOfDate: run.asOfDate,
      reportingCurrency: run.reportingCurrency,
      status: end.status,
      initiatedBy: run.initiatedBy,
      completedAt: end.completedAt.toISOString(),
      totalDurationMs: end.totalDurationMs,
      errorMessage: end.errorMessage,
      totals: end.totals ?? null,
    },
  };
}
