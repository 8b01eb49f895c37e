/** The lifecycle of a consolidation run: which status changes are allowed and what each status permits. */
import { describe, expect, it } from 'vitest';
import {
  cancelledSteps,
  canTransition,
  deletion,
  failedSteps,
  hasResults,
  isUnfinished,
  orphanedSteps,
  RUN_STATUSES,
  type StepStatus,
} from '../../src/domain/consolidation/run-lifecycle.ts';

const step = (status: StepStatus) => ({
  status,
  errorMessage: null as string | null,
  completedAt: null as string | null,
});

describe('run lifecycle', () => {
  it('allows exactly the documented transitions', () => {
    const allowed = RUN_STATUSES.flatMap((from) =>
      RUN_STATUSES.filter((to) => canTransition(from, to)).map((to) => `${from}→${to}`),
    );
    expect(allowed.sort()).toEqual(
      [
        'Pending→InProgress',
        'Pending→Failed',
        'Pending→Cancelled',
        'InProgress→Completed',
        'InProgress→Failed',
        'InProgress→Cancelled',
      ].sort(),
    );
  });

  it('finished runs never change again; only Completed ones have results', () => {
    for (const s of ['Completed', 'Failed', 'Cancelled'] as const) {
      expect(isUnfinished(s)).toBe(false);
      expect(RUN_STATUSES.some((to) => canTransition(s, to))).toBe(false);
    }
    expect(RUN_STATUSES.filter(hasResults)).toEqual(['Completed']);
    expect(RUN_STATUSES.filter(isUnfinished)).toEqual(['Pending', 'InProgress']);
  });

  it('deletes failed and cancelled runs, cancels a pending one first, refuses the others', () => {
    expect(RUN_STATUSES.map((s) => [s, deletion(s)])).toEqual([
      ['Pending', 'cancelFirst'],
      ['InProgress', 'refuse'],
      ['Completed', 'refuse'],
      ['Failed', 'delete'],
      ['Cancelled', 'delete'],
    ]);
  });

  it('ends the steps of a stopped run', () => {
    const steps = [step('Completed'), step('InProgress'), step('Pending'), step('Pending')];
    expect(cancelledSteps(steps).map((s) => s.status)).toEqual([
      'Completed',
      'Skipped',
      'Skipped',
      'Skipped',
    ]);
    const orphaned = orphanedSteps(steps, 'executor stopped', '2026-01-01T00:00:00.000Z');
    expect(orphaned.map((s) => s.status)).toEqual(['Completed', 'Failed', 'Skipped', 'Skipped']);
    expect(orphaned[1]!.errorMessage).toBe('executor stopped');
    // a run orphaned before any step started fails its first step
    expect(orphanedSteps([step('Pending'), step('Pending')], 'x', 't').map((s) => s.status)).toEqual([
      'Failed',
      'Skipped',
    ]);
    const failed = failedSteps(steps, 1, 'boom', 't');
    expect(failed.map((s) => s.status)).toEqual(['Completed', 'Failed', 'Skipped', 'Skipped']);
    expect(failed[1]).toMatchObject({ errorMessage: 'boom', completedAt: 't' });
  });
});
