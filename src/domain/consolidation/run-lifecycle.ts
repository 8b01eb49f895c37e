/**
 * The life of a consolidation run, as data: its statuses, the transitions between them, and what each
 * status allows (holding its period, being deleted, being read). The service checks every status change
 * and every status-dependent permission here instead of comparing statuses inline, and the SQL that
 * filters runs by status builds its lists from the same arrays.
 *
 *   Pending ──► InProgress ──► Completed
 *      │            │
 *      ├────────────┴────────► Failed       (a step failed, the input vanished, the executor stopped)
 *      └────────────┬────────► Cancelled    (a user cancelled it)
 *
 * A run's steps follow a smaller cycle: Pending ──► InProgress ──► Completed | Failed | Skipped, and
 * the steps a stopped run had not finished end Skipped (the one that was executing ends Failed when the
 * run failed).
 */

export const RUN_STATUSES = ['Pending', 'InProgress', 'Completed', 'Failed', 'Cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const STEP_STATUSES = ['Pending', 'InProgress', 'Completed', 'Failed', 'Skipped'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

/** The statuses each status may change to. */
const RUN_TRANSITIONS: Record<RunStatus, readonly RunStatus[]> = {
  Pending: ['InProgress', 'Failed', 'Cancelled'],
  InProgress: ['Completed', 'Failed', 'Cancelled'],
  Completed: [],
  Failed: [],
  Cancelled: [],
};

/** Whether a run in `from` may change to `to`. */
export function canTransition(from: RunStatus, to: RunStatus): boolean {
  return RUN_TRANSITIONS[from].includes(to);
}

/**
 * Runs that have not finished: they hold their group's period (no second run of it starts), renew
 * their executor's lease, and keep their group from being deleted.
 */
export const UNFINISHED_RUN_STATUSES = ['Pending', 'InProgress'] as const satisfies readonly RunStatus[];

export function isUnfinished(status: RunStatus): boolean {
  return (UNFINISHED_RUN_STATUSES as readonly RunStatus[]).includes(status);
}

/** A run whose results can be read (trial balances, statements, contributions, comparisons). */
export function hasResults(status: RunStatus): boolean {
  return status === 'Completed';
}

/**
 * What deleting a run in `status` takes: `refuse` (a completed run is a record of what was
 * consolidated; one being executed must finish or be cancelled first), `cancelFirst` (a Pending run
 * is cancelled, then deleted), or `delete`.
 */
export function deletion(status: RunStatus): 'refuse' | 'cancelFirst' | 'delete' {
  if (status === 'Completed' || status === 'InProgress') return 'refuse';
  return status === 'Pending' ? 'cancelFirst' : 'delete';
}

/** Whether a step has not finished (it ends Skipped when its run stops). */
export function isStepUnfinished(status: StepStatus): boolean {
  return status === 'Pending' || status === 'InProgress';
}

/** The steps of a run a user cancelled: those not finished are Skipped. */
export function cancelledSteps<S extends { status: StepStatus }>(steps: readonly S[]): S[] {
  return steps.map((s) => (isStepUnfinished(s.status) ? { ...s, status: 'Skipped' as const } : s));
}

/**
 * The steps of a run whose executor stopped: the step it was executing (or, when none had started,
 * the first one still pending) fails with `message`; the later pending steps are Skipped.
 */
export function orphanedSteps<
  S extends { status: StepStatus; errorMessage: string | null; completedAt: string | null },
>(steps: readonly S[], message: string, completedAt: string): S[] {
  let failedOne = false;
  return steps.map((s) => {
    if (s.status === 'InProgress' || (s.status === 'Pending' && !failedOne)) {
      failedOne = true;
      return { ...s, status: 'Failed' as const, errorMessage: message, completedAt };
    }
    return s.status === 'Pending' ? { ...s, status: 'Skipped' as const } : s;
  });
}

/**
 * The steps of a run that failed at step `at` with `message`: that step fails, the later ones are
 * Skipped.
 */
export function failedSteps<
  S extends { status: StepStatus; errorMessage: string | null; completedAt: string | null },
>(steps: readonly S[], at: number, message: string, completedAt: string): S[] {
  return steps.map((s, i) => {
    if (i === at) return { ...s, status: 'Failed' as const, errorMessage: message, completedAt };
    return i > at ? { ...s, status: 'Skipped' as const } : s;
  });
}

/** A run's duration in milliseconds from its start to `end`, or null when it never started. */
export function durationSince(startedAt: Date | null, end: Date): number | null {
  return startedAt ? end.getTime() - startedAt.getTime() : null;
}
