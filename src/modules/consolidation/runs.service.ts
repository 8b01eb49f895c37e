/**
 * Consolidation runs: start, execute, list, get, cancel, delete, latest run, trial
 * balance and consolidated reports.
 *
 * Lifecycle of a run:
 *   1. start: every check in the pipeline order, then ONE transaction commits the run `Pending` (audit
 *      StartRun by the caller; the group row is locked so that concurrent starts and group deletion
 *      are serialised);
 *   2. execute (in the request, or in the background with `Prefer: respond-async`): `Pending →
 *      InProgress` (startedAt), the loader reads every input in one REPEATABLE READ snapshot, then the
 *      engine runs step by step; each step's status and timings are persisted as it starts and ends,
 *      and every such write only succeeds while the run is still `InProgress` — a cancelled (or
 *      deleted) run stops there and writes nothing more;
 *   3. finish: ONE transaction writes every result (both trial balances, rule applications, rate
 *      usages with their legs locked FOR SHARE, intercompany flags) and `Completed` (audit
 *      CompleteRun), or `Failed` with the failed step, its message and later steps `Skipped` (audit
 *      FailRun). Audit entries of execution name the user who made the start request.
 */
import { performance } from 'node:perf_hooks';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type Db, inTransaction, queryRows, type Tx } from '../../db/client.ts';
import { companies, runRateUsages, runRuleApplications } from '../../db/schema/index.ts';
import {
  buildConsolidatedBalanceSheet,
  buildConsolidatedCashFlowStatement,
  buildConsolidatedEquityStatement,
  buildConsolidatedIncomeStatement,
  type ConsolidationResult,
  createConsolidationExecution,
  type EliminationEntry,
  type IntercompanyTransactionInput,
  STEP_TYPES,
  type StatementContext,
} from '../../domain/consolidation/index.ts';
import { DomainError, invalid } from '../../domain/errors.ts';
import { periodRange } from '../../domain/fiscal-calendar.ts';
import { dec, formatPercentage } from '../../domain/money.ts';
import { type Access, type Action, ROLE_RANK, type Role } from '../../http/access.ts';
import { type PageParams, paged } from '../../http/pagination.ts';
import { recordAudit } from '../audit/service.ts';
import { type EventInput, recordEvent } from '../events/record.ts';
import { lockRatesForUse } from '../exchange-rates/service.ts';
import { lockTransactions, markTransactionsEliminated } from '../intercompany/repo.ts';
import { minorUnits } from '../../domain/codes.ts';
import { contributionsAddUp } from '../../domain/consolidation/contributions.ts';
import { compareTrialBalances } from '../../domain/consolidation/compare.ts';
import { isInGroupOn } from '../../domain/consolidation/ownership.ts';
import {
  canTransition,
  cancelledSteps,
  deletion,
  failedSteps,
  hasResults,
  isStepUnfinished,
  type RunStatus,
  UNFINISHED_RUN_STATUSES,
} from '../../domain/consolidation/run-lifecycle.ts';
import { scaledToString, toScaled } from '../../domain/consolidation/scaled.ts';
import { findGroup, type GroupRow, groupNotFound, loadMembers, memberState } from './groups.repo.ts';
import { percentagesOf, treeOf } from './holdings.ts';
import { loadGroupRules } from './rules.repo.ts';
import { inputDigestInSlices } from './runs.digest.ts';
import { loadRunInput } from './runs.loader.ts';
import {
  deleteRun as deleteRunRow,
  findRun,
  findRunForPeriod,
  insertRun,
  insertLineContributions,
  insertTrialBalances,
  hasLineContributions,
  loadLineContributions,
  latestCompletedRun,
  listRuns as listRunRows,
  loadTrialBalances,
  pendingSteps,
  type RunOptions,
  type RunRecord,
  type RunRow,
  statusOf,
  type StoredRunMember,
  runNotFound,
  runRecord,
  type StepRecord,
  type StoredTrialBalance,
  storedSteps,
  updateRun,
} from './runs.repo.ts';
import { DEFAULT_RUN_LEASE_MS, EXECUTOR_ID, leaseUntil } from './runs.lease.ts';

const RESOURCE = 'ConsolidationRun';

// ---------------------------------------------------------------------------------------------------
// Errors

function groupInactive(groupId: string): DomainError {
  return new DomainError(400, 'ConsolidationGroupInactiveError', 'The consolidation group is inactive', {
    groupId,
  });
}

function runInProgress(groupId: string, existingRunId: string): DomainError {
  return new DomainError(
    409,
    'ConsolidationRunInProgressError',
    'A run of the group for this period is pending or in progress',
    { groupId, existingRunId },
  );
}

function runExists(groupId: string, year: number, period: number, existingRunId: string): DomainError {
  return new DomainError(
    409,
    'ConsolidationRunExistsForPeriodError',
    'A completed run exists for this period; send forceRegeneration to run again',
    { groupId, year, period, existingRunId },
  );
}

function notCompleted(run: RunRow): DomainError {
  return new DomainError(409, 'ConsolidationRunNotCompletedError', 'The run is not completed', {
    runId: run.id,
    currentStatus: run.status,
  });
}

function approveFailed(reason: string): DomainError {
  return new DomainError(
    400,
    'EliminationRuleOperationFailedError',
    'A rule in approvedManualRuleIds cannot be approved for this run',
    { operation: 'approveForRun', reason },
  );
}

// ---------------------------------------------------------------------------------------------------
// Access

function authorizeRun(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  action: Action,
): Promise<RunRow> {
  return access.addressed(
    organizationId,
    action,
    (orgId) => findRun(db, id, orgId),
    () => runNotFound(id),
    RESOURCE,
  );
}

function authorizeGroupFor(
  db: Db,
  access: Access,
  groupId: string,
  organizationId: string | undefined,
  action: Action,
): Promise<GroupRow> {
  return access.addressed(
    organizationId,
    action,
    (orgId) => findGroup(db, groupId, orgId),
    () => groupNotFound(groupId),
  );
}

// ---------------------------------------------------------------------------------------------------
// Start

export interface StartOptionsInput {
  skipValidation?: boolean;
  continueOnWarnings?: boolean;
  includeEquityMethodInvestments?: boolean;
  forceRegeneration?: boolean;
  approvedManualRuleIds?: string[];
}

export interface StartRunInput extends StartOptionsInput {
  periodRef: { year: number; period: number };
  asOfDate?: string | null;
  initiatedBy?: string | null;
  options?: StartOptionsInput;
}

/** Options with defaults applied; a top-level field wins over the same key inside `options`. */
export function resolveOptions(input: StartRunInput): RunOptions {
  const nested = input.options ?? {};
  const pick = <K extends keyof StartOptionsInput>(k: K): StartOptionsInput[K] => input[k] ?? nested[k];
  const ids = (pick('approvedManualRuleIds') ?? []).map((id) => id.toLowerCase());
  return {
    skipValidation: pick('skipValidation') ?? false,
    continueOnWarnings: pick('continueOnWarnings') ?? true,
    includeEquityMethodInvestments: pick('includeEquityMethodInvestments') ?? true,
    forceRegeneration: pick('forceRegeneration') ?? false,
    approvedManualRuleIds: [...new Set(ids)],
  };
}

/** Runs the execution of a run: awaited (synchronous mode) or scheduled in the background. */
export type Executor = (run: RunRow) => Promise<void>;

/**
 * Starts a run: checks in the pipeline order, commits the run `Pending`, then executes it
 * (awaited unless `async`). Returns the run as it stands after that.
 */
export async function startRun(
  db: Db,
  access: Access,
  groupId: string,
  organizationId: string | undefined,
  input: StartRunInput,
  mode: { async: boolean; execute: Executor; schedule: Executor; leaseMs?: number },
): Promise<RunRecord> {
  const group = await authorizeGroupFor(db, access, groupId, organizationId, 'consolidation:run');
  const orgId = group.organizationId;
  if (!group.isActive) throw groupInactive(group.id);

  // asOfDate within the period of the group calendar (the parent's fiscal year end).
  const [parent] = await db
    .select({
      id: companies.id,
      name: companies.name,
      functionalCurrency: companies.functionalCurrency,
      fyeMonth: companies.fiscalYearEndMonth,
      fyeDay: companies.fiscalYearEndDay,
    })
    .from(companies)
    .where(and(eq(companies.organizationId, orgId), eq(companies.id, group.parentCompanyId)));
  if (!parent) throw new Error(`Parent company ${group.parentCompanyId} not found`);
  const fye = { month: parent.fyeMonth, day: parent.fyeDay };
  const { year, period } = input.periodRef;
  const range = periodRange(fye, year, period);
  const asOfDate = input.asOfDate ?? range.endDate;
  if (asOfDate < range.startDate || asOfDate > range.endDate) {
    throw invalid(
      '/asOfDate',
      `asOfDate must lie within period ${period} of ${year} (${range.startDate} to ${range.endDate})`,
    );
  }
  const yearStartDate = periodRange(fye, year, 1).startDate;

  // initiatedBy: a member whose role may start runs.
  const initiatedBy = (input.initiatedBy ?? access.userId).toLowerCase();
  if (initiatedBy !== access.userId) {
    const [m] = await queryRows<{ role: Role }>(
      db,
      sql`select role from memberships where organization_id = ${orgId} and user_id = ${initiatedBy}`,
    );
    if (!m) {
      throw new DomainError(
        400,
        'UserNotMemberOfOrganizationError',
        'initiatedBy is not a member of the organization',
        { userId: initiatedBy, organizationId: orgId },
      );
    }
    if (ROLE_RANK[m.role] < ROLE_RANK.admin) {
      throw new DomainError(400, 'UserRoleInsufficientError', 'initiatedBy may not start runs', {
        userId: initiatedBy,
        organizationId: orgId,
        requiredRole: 'admin',
        currentRole: m.role,
      });
    }
  }

  const options = resolveOptions(input);
  await checkApprovedRules(db, orgId, group.id, options.approvedManualRuleIds);

  const row = await inTransaction(db, async (tx) => {
    const locked = await findGroup(tx, group.id, orgId, true);
    if (!locked) throw groupNotFound(group.id);
    if (!locked.isActive) throw groupInactive(locked.id);
    const running = await findRunForPeriod(tx, orgId, locked.id, year, period, UNFINISHED_RUN_STATUSES);
    if (running) throw runInProgress(locked.id, running.id);
    if (!options.forceRegeneration) {
      const done = await findRunForPeriod(tx, orgId, locked.id, year, period, ['Completed']);
      if (done) throw runExists(locked.id, year, period, done.id);
    }
    const members = await memberSnapshot(tx, orgId, locked, options.includeEquityMethodInvestments, asOfDate);
    const now = new Date();
    const created = await insertRun(tx, {
      id: uuidv7(),
      organizationId: orgId,
      groupId: locked.id,
      year,
      period,
      asOfDate,
      yearStartDate,
      reportingCurrency: locked.reportingCurrency,
      status: 'Pending',
      steps: pendingSteps(),
      validationResult: null,
      options,
      members,
      eliminations: [],
      exchangeRatesUsed: [],
      totals: null,
      initiatedBy,
      requestedBy: access.userId,
      initiatedAt: now,
      // This process executes the run: its lease starts now (runs.lease.ts).
      executorId: EXECUTOR_ID,
      leaseExpiresAt: leaseUntil(mode.leaseMs ?? DEFAULT_RUN_LEASE_MS),
      createdAt: now,
      updatedAt: now,
    });
    await recordAudit(tx, {
      organizationId: orgId,
      userId: access.userId,
      action: 'StartRun',
      entityType: 'ConsolidationRun',
      entityId: created.id,
      changes: {
        status: { from: null, to: 'Pending' },
        groupId: { from: null, to: created.groupId },
        periodRef: { from: null, to: { year, period } },
        asOfDate: { from: null, to: asOfDate },
      },
    });
    return created;
  });

  if (mode.async) {
    await mode.schedule(row);
    return runRecord(row);
  }
  await mode.execute(row);
  const after = await findRun(db, row.id, orgId);
  return runRecord(after ?? row);
}

/** Each id: an active rule of this group with `isAutomatic: false`. */
async function checkApprovedRules(db: Db, orgId: string, groupId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const rules = new Map((await loadGroupRules(db, orgId, groupId)).map((r) => [r.id, r]));
  ids.forEach((id, i) => {
    const rule = rules.get(id);
    const at = `approvedManualRuleIds/${i}`;
    if (!rule) throw approveFailed(`${at}: ${id} is not an elimination rule of the group`);
    if (rule.isAutomatic) throw approveFailed(`${at}: rule ${id} is automatic, not a manual rule`);
    if (!rule.isActive) throw approveFailed(`${at}: rule ${id} is inactive`);
  });
}

/**
 * Snapshot of the parent and every member at the start: the RunMember records, plus what the run
 * reads of each (its acquisition date and data). A member that the group acquires after the run's
 * date is not included.
 */
async function memberSnapshot(
  tx: Tx,
  orgId: string,
  group: GroupRow,
  includeEquityMethodInvestments: boolean,
  asOfDate: string,
): Promise<StoredRunMember[]> {
  const rows = (await loadMembers(tx, orgId, [group.id])).get(group.id) ?? [];
  const states = rows.map(memberState);
  const tree = treeOf(group.parentCompanyId, states);
  const ids = [group.parentCompanyId, ...states.map((m) => m.companyId)];
  const companyRows = await tx
    .select({ id: companies.id, name: companies.name, functionalCurrency: companies.functionalCurrency })
    .from(companies)
    .where(and(eq(companies.organizationId, orgId), inArray(companies.id, ids)));
  const byId = new Map(companyRows.map((r) => [r.id, r]));
  const parent = byId.get(group.parentCompanyId);
  const out: StoredRunMember[] = [
    {
      companyId: group.parentCompanyId,
      companyName: parent?.name ?? '',
      role: 'Parent',
      consolidationMethod: 'FullConsolidation',
      ownershipPercentage: formatPercentage(100),
      nonControllingInterestPercentage: formatPercentage(0),
      functionalCurrency: parent?.functionalCurrency ?? group.reportingCurrency,
      included: true,
      heldByCompanyId: null,
      effectiveOwnershipPercentage: '100.0000',
    },
  ];
  for (const m of states) {
    const c = byId.get(m.companyId);
    out.push({
      companyId: m.companyId,
      companyName: c?.name ?? '',
      role: 'Member',
      consolidationMethod: m.consolidationMethod,
      ownershipPercentage: m.ownershipPercentage,
      ...percentagesOf(tree, m),
      functionalCurrency: c?.functionalCurrency ?? '',
      included:
        (m.consolidationMethod !== 'EquityMethod' || includeEquityMethodInvestments) &&
        (!tree || isInGroupOn(tree, m.companyId, asOfDate)),
      heldByCompanyId: m.heldByCompanyId,
      acquisitionDate: m.acquisitionDate,
      acquisition: m.acquisition,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Execution

/** Logger used by background execution (the app's logger). */
export interface RunLogger {
  error(obj: unknown, msg?: string): void;
}

class RunStopped extends Error {}

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
 * `Failed` (when the database still answers) and is logged.
 */
export async function executeRun(
  db: Db,
  run: RunRow,
  log: RunLogger,
  leaseMs: number = DEFAULT_RUN_LEASE_MS,
): Promise<void> {
  const orgId = run.organizationId;
  const steps = storedSteps(run);
  let current = -1;
  let startedAt: Date | null = null;
  try {
    startedAt = new Date();
    const begun = await inTransaction(db, async (tx) => {
      const locked = await findRun(tx, run.id, orgId, true);
      if (!locked || !canTransition(statusOf(locked), 'InProgress')) return null;
      return updateRun(tx, orgId, run.id, {
        status: 'InProgress',
        startedAt,
        executorId: EXECUTOR_ID,
        leaseExpiresAt: leaseUntil(leaseMs),
        updatedAt: startedAt as Date,
      });
    });
    if (!begun) return;

    const persistSteps = async () => {
      const ok = await updateRun(
        db,
        orgId,
        run.id,
        { steps, leaseExpiresAt: leaseUntil(leaseMs), updatedAt: new Date() },
        'InProgress',
      );
      if (!ok) throw new RunStopped();
    };

    current = 0;
    const input = await loadRunInput(db, begun).catch((err: unknown) => {
      throw new Error(`Could not load the run's data: ${err instanceof Error ? err.message : String(err)}`);
    });
    const execution = createConsolidationExecution(input);
    while (execution.nextStep !== null) {
      current = STEP_TYPES.indexOf(execution.nextStep);
      const stepStart = new Date();
      steps[current] = { ...steps[current]!, status: 'InProgress', startedAt: iso(stepStart) };
      await persistSteps();
      const outcome = await inSlices(execution.runNextStepInSlices());
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
    const result = execution.result();
    result.steps.forEach((s, i) => {
      if (isStepUnfinished(steps[i]!.status)) {
        steps[i] = { ...steps[i]!, status: s.status, details: s.details, errorMessage: s.errorMessage };
      }
    });
    if (result.status === 'Completed') {
      const extras = {
        inputDigest: await inSlices(inputDigestInSlices(input, result.exchangeRatesUsed)),
        eliminationEntries: execution.eliminationEntries(),
        adjustmentIds: (input.adjustments ?? []).map((a) => a.id),
      };
      const done = await finishCompleted(
        db,
        begun,
        steps,
        result,
        startedAt,
        extras,
        input.closing.intercompanyTransactions,
      );
      if (done === 'vanished' || done === 'changed') {
        const last = STEP_TYPES.length - 1;
        steps[last] = {
          ...steps[last]!,
          status: 'Failed',
          errorMessage:
            done === 'vanished'
              ? 'An exchange rate or elimination rule used by the run was deleted during execution; start the run again'
              : 'An intercompany transaction the run eliminates was changed or deleted during execution; start the run again',
        };
        await finishFailed(db, begun, steps, result.validationResult, steps[last]!.errorMessage!, startedAt);
      }
    } else {
      await finishFailed(
        db,
        begun,
        steps,
        result.validationResult,
        result.errorMessage ?? 'Failed',
        startedAt,
      );
    }
  } catch (err) {
    if (err instanceof RunStopped) return;
    const message = err instanceof Error ? err.message : String(err);
    try {
      const failed = failedSteps(steps, Math.max(current, 0), message, iso(new Date()));
      await finishFailed(db, run, failed, null, message, startedAt);
    } catch (inner) {
      log.error({ err: inner, runId: run.id }, 'could not record the failure of a consolidation run');
    }
    log.error({ err, runId: run.id }, 'consolidation run failed unexpectedly');
  }
}

function durationSince(startedAt: Date | null, end: Date): number | null {
  return startedAt ? end.getTime() - startedAt.getTime() : null;
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
  extras: { inputDigest: string; eliminationEntries: EliminationEntry[]; adjustmentIds: string[] },
  read: readonly IntercompanyTransactionInput[],
): Promise<'done' | 'stopped' | 'vanished' | 'changed'> {
  const orgId = run.organizationId;
  class Vanished extends Error {}
  class Changed extends Error {}
  try {
    return await inTransaction(db, async (tx) => {
      const locked = await findRun(tx, run.id, orgId, true);
      if (!locked || !canTransition(statusOf(locked), 'Completed')) return 'stopped';
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
      const completedAt = new Date();
      const generatedAt = iso(completedAt);
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
      if (result.contributions) {
        await insertLineContributions(tx, run, [
          { view: 'closing', lines: result.contributions.closing },
          { view: 'opening', lines: result.contributions.opening },
        ]);
      }
      if (applied.length > 0) {
        await tx
          .insert(runRuleApplications)
          .values(applied.map((ruleId) => ({ organizationId: orgId, runId: run.id, ruleId })));
      }
      if (legIds.length > 0) {
        await tx
          .insert(runRateUsages)
          .values(legIds.map((exchangeRateId) => ({ organizationId: orgId, runId: run.id, exchangeRateId })));
      }
      // The transactions it marks are locked and must still be exactly what the run eliminated:
      // changed (status, amount, parties, date) or deleted meanwhile, the run's result is stale.
      if (!(await transactionsUnchanged(tx, orgId, result.eliminatedTransactionIds, read)))
        throw new Changed();
      await markTransactionsEliminated(tx, orgId, result.eliminatedTransactionIds, run.id);
      await updateRun(tx, orgId, run.id, {
        status: 'Completed',
        steps,
        validationResult: result.validationResult,
        eliminations: result.eliminations,
        exchangeRatesUsed: result.exchangeRatesUsed,
        acquisitionAnalysis: result.acquisitionAnalysis,
        totals: result.totals,
        inputDigest: extras.inputDigest,
        eliminationEntries: extras.eliminationEntries,
        adjustmentIds: extras.adjustmentIds,
        completedAt,
        totalDurationMs: durationSince(startedAt, completedAt),
        errorMessage: null,
        updatedAt: completedAt,
      });
      await recordAudit(tx, {
        organizationId: orgId,
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
      return 'done' as const;
    });
  } catch (err) {
    if (err instanceof Vanished) return 'vanished';
    if (err instanceof Changed) return 'changed';
    throw err;
  }
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
  const orgId = run.organizationId;
  await inTransaction(db, async (tx) => {
    const locked = await findRun(tx, run.id, orgId, true);
    if (!locked || !canTransition(statusOf(locked), 'Failed')) return;
    const completedAt = new Date();
    await updateRun(tx, orgId, run.id, {
      status: 'Failed',
      steps,
      validationResult,
      eliminations: [],
      exchangeRatesUsed: [],
      totals: null,
      completedAt,
      totalDurationMs: durationSince(startedAt ?? locked.startedAt, completedAt),
      errorMessage,
      updatedAt: completedAt,
    });
    await recordAudit(tx, {
      organizationId: orgId,
      userId: run.requestedBy,
      action: 'FailRun',
      entityType: 'ConsolidationRun',
      entityId: run.id,
      changes: {
        status: { from: locked.status, to: 'Failed' },
        errorMessage: { from: null, to: errorMessage },
      },
    });
    await recordEvent(
      tx,
      runEvent('ConsolidationRunFailed', run, {
        status: 'Failed',
        completedAt,
        totalDurationMs: durationSince(startedAt ?? locked.startedAt, completedAt),
        errorMessage,
        totals: null,
      }),
    );
  });
}

/**
 * The event of a finished run: a summary (the run's full record, with its trial balances and
 * eliminations, is read with `GET /consolidation/runs/{id}`).
 */
function runEvent(
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

// ---------------------------------------------------------------------------------------------------
// Reads

export interface RunListQuery {
  organizationId?: string | undefined;
  groupId?: string | undefined;
  status?: RunStatus | undefined;
  year?: number | undefined;
  period?: number | undefined;
}

export async function listRuns(db: Db, access: Access, q: RunListQuery, page: PageParams) {
  let orgIds: string[];
  if (q.organizationId !== undefined) {
    await access.authorize(q.organizationId, 'consolidation:read', RESOURCE);
    orgIds = [q.organizationId];
  } else {
    orgIds = await access.memberOrganizationIds();
  }
  if (q.groupId !== undefined) {
    const groupId = q.groupId.toLowerCase();
    const group = await findGroup(db, groupId, q.organizationId);
    if (!group || !orgIds.includes(group.organizationId)) throw groupNotFound(groupId);
  }
  if (orgIds.length === 0) return paged('runs', [] as RunRecord[], 0, page);
  const { rows, total } = await listRunRows(
    db,
    {
      organizationIds: orgIds,
      groupId: q.groupId?.toLowerCase(),
      status: q.status,
      year: q.year,
      period: q.period,
    },
    page,
  );
  return paged('runs', rows.map(runRecord), total, page);
}

export async function getRun(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
): Promise<RunRecord> {
  return runRecord(await authorizeRun(db, access, id, organizationId, 'consolidation:read'));
}

export async function latestRun(
  db: Db,
  access: Access,
  groupId: string,
  organizationId: string | undefined,
): Promise<RunRecord | null> {
  const group = await authorizeGroupFor(db, access, groupId, organizationId, 'consolidation:read');
  const row = await latestCompletedRun(db, group.organizationId, group.id);
  return row ? runRecord(row) : null;
}

export async function cancelRun(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
): Promise<RunRecord> {
  const current = await authorizeRun(db, access, id, organizationId, 'consolidation:run');
  const row = await inTransaction(db, async (tx) => {
    const run = await findRun(tx, current.id, current.organizationId, true);
    if (!run) throw runNotFound(current.id);
    return cancelLocked(tx, run, access.userId);
  });
  return runRecord(row);
}

/** Pending/InProgress → Cancelled (unfinished steps become Skipped), with audit CancelRun. */
async function cancelLocked(tx: Tx, run: RunRow, userId: string): Promise<RunRow> {
  if (!canTransition(statusOf(run), 'Cancelled')) {
    throw new DomainError(400, 'ConsolidationRunCannotBeCancelledError', 'The run cannot be cancelled', {
      runId: run.id,
      currentStatus: run.status,
    });
  }
  const now = new Date();
  const steps = cancelledSteps(storedSteps(run));
  const updated = await updateRun(tx, run.organizationId, run.id, {
    status: 'Cancelled',
    steps,
    completedAt: now,
    totalDurationMs: durationSince(run.startedAt, now),
    updatedAt: now,
  });
  await recordAudit(tx, {
    organizationId: run.organizationId,
    userId,
    action: 'CancelRun',
    entityType: 'ConsolidationRun',
    entityId: run.id,
    changes: { status: { from: run.status, to: 'Cancelled' } },
  });
  return updated!;
}

export async function deleteRun(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
): Promise<void> {
  const current = await authorizeRun(db, access, id, organizationId, 'consolidation:run');
  await inTransaction(db, async (tx) => {
    const run = await findRun(tx, current.id, current.organizationId, true);
    if (!run) throw runNotFound(current.id);
    const how = deletion(statusOf(run));
    if (how === 'refuse') {
      throw new DomainError(409, 'ConsolidationRunCannotBeDeletedError', 'The run cannot be deleted', {
        runId: run.id,
        currentStatus: run.status,
      });
    }
    if (how === 'cancelFirst') await cancelLocked(tx, run, access.userId);
    await deleteRunRow(tx, run.organizationId, run.id);
    await recordAudit(tx, {
      organizationId: run.organizationId,
      userId: access.userId,
      action: 'Delete',
      entityType: 'ConsolidationRun',
      entityId: run.id,
    });
  });
}

async function completedRunViews(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
): Promise<{ run: RunRow; closing: StoredTrialBalance; opening: StoredTrialBalance }> {
  const run = await authorizeRun(db, access, id, organizationId, 'consolidation:read');
  if (!hasResults(statusOf(run))) throw notCompleted(run);
  const views = await loadTrialBalances(db, run.organizationId, run.id);
  const closing = views.get('closing');
  const opening = views.get('opening');
  if (!closing || !opening) throw new Error(`Trial balances of run ${run.id} are missing`);
  return { run, closing, opening };
}

function withoutExtras(tb: StoredTrialBalance): StoredTrialBalance {
  const { retainedEarningsLine: _ignored, ...rest } = tb;
  return rest;
}

export async function trialBalance(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  view: 'closing' | 'opening',
): Promise<StoredTrialBalance> {
  const { closing, opening } = await completedRunViews(db, access, id, organizationId);
  return withoutExtras(view === 'opening' ? opening : closing);
}

/**
 * The contributions to one consolidated line of a completed run (every line of the view with that
 * account number: one, or one per company for per-company lines), as the run recorded them.
 */
export async function lineContributions(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  view: 'closing' | 'opening',
  accountNumber: string,
) {
  const run = await authorizeRun(db, access, id, organizationId, 'consolidation:read');
  if (!hasResults(statusOf(run))) throw notCompleted(run);
  const lines = await loadLineContributions(db, run, view, accountNumber);
  if (lines.length === 0) {
    if (!(await hasLineContributions(db, run.organizationId, run.id)))
      throw new DomainError(
        409,
        'ContributionsNotRecordedError',
        'The run completed before contributions were recorded: rerun it to trace its lines',
        { runId: run.id },
      );
    throw new DomainError(
      404,
      'ConsolidatedLineNotFoundError',
      `The ${view} trial balance of the run has no line ${accountNumber}`,
      { runId: run.id, view, accountNumber },
    );
  }
  return {
    consolidationRunId: run.id,
    groupId: run.groupId,
    view,
    accountNumber,
    currency: run.reportingCurrency,
    lines: lines.map((l) => ({ ...l, addsUp: contributionsAddUp(l, minorUnits(run.reportingCurrency)) })),
  };
}

export type ReportKind = 'balance-sheet' | 'income-statement' | 'cash-flow' | 'equity-statement';

export async function report(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  kind: ReportKind,
) {
  const { run, closing, opening } = await completedRunViews(db, access, id, organizationId);
  const group = await findGroup(db, run.groupId, run.organizationId);
  const ctx: StatementContext = {
    runId: run.id,
    groupId: run.groupId,
    groupName: group?.name ?? '',
    periodRef: { year: run.year, period: run.period },
    asOfDate: run.asOfDate,
    yearStartDate: run.yearStartDate,
    currency: run.reportingCurrency,
    generatedAt: new Date().toISOString(),
    retainedEarningsLine: closing.retainedEarningsLine ?? null,
  };
  switch (kind) {
    case 'balance-sheet':
      return buildConsolidatedBalanceSheet(ctx, closing);
    case 'income-statement':
      return buildConsolidatedIncomeStatement(ctx, closing);
    case 'cash-flow':
      return buildConsolidatedCashFlowStatement(ctx, opening, closing);
    case 'equity-statement':
      return buildConsolidatedEquityStatement(ctx, opening, closing);
  }
}

// ---------------------------------------------------------------------------------------------------
// Traceability: the elimination journal and run comparison

/** The closing view's eliminations of a completed run as balanced journal entries. */
export async function eliminationEntries(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
) {
  const run = await authorizeRun(db, access, id, organizationId, 'consolidation:read');
  if (!hasResults(statusOf(run))) throw notCompleted(run);
  const entries = (run.eliminationEntries ?? []) as EliminationEntry[];
  const minor = minorUnits(run.reportingCurrency);
  let debits = 0n;
  let credits = 0n;
  const out = entries.map((e) => {
    let d = 0n;
    let c = 0n;
    for (const l of e.lines) {
      d += toScaled(l.debit.value, minor) ?? 0n;
      c += toScaled(l.credit.value, minor) ?? 0n;
    }
    debits += d;
    credits += c;
    return {
      ...e,
      totalDebit: { value: scaledToString(d, minor), currency: run.reportingCurrency },
      totalCredit: { value: scaledToString(c, minor), currency: run.reportingCurrency },
    };
  });
  return {
    runId: run.id,
    groupId: run.groupId,
    currency: run.reportingCurrency,
    entries: out,
    totalDebit: { value: scaledToString(debits, minor), currency: run.reportingCurrency },
    totalCredit: { value: scaledToString(credits, minor), currency: run.reportingCurrency },
    isBalanced: debits === credits,
  };
}

function sameRunGroupRequired(run: RunRow, other: RunRow): DomainError {
  return new DomainError(
    400,
    'ConsolidationRunComparisonError',
    'Only completed runs of the same group can be compared',
    { runId: run.id, otherRunId: other.id },
  );
}

/** Line-by-line differences of two completed runs of one group (both views). */
export async function compareRuns(
  db: Db,
  access: Access,
  id: string,
  otherRunId: string,
  organizationId: string | undefined,
) {
  const a = await completedRunViews(db, access, id, organizationId);
  const otherRow = await findRun(db, otherRunId.toLowerCase(), a.run.organizationId);
  if (!otherRow) throw runNotFound(otherRunId);
  if (otherRow.groupId !== a.run.groupId) throw sameRunGroupRequired(a.run, otherRow);
  if (!hasResults(statusOf(otherRow))) throw notCompleted(otherRow);
  const views = await loadTrialBalances(db, otherRow.organizationId, otherRow.id);
  const closing = views.get('closing');
  const opening = views.get('opening');
  if (!closing || !opening) throw new Error(`Trial balances of run ${otherRow.id} are missing`);
  const differences = [
    ...compareTrialBalances('closing', a.closing, closing, minorUnits(a.run.reportingCurrency)),
    ...compareTrialBalances('opening', a.opening, opening, minorUnits(a.run.reportingCurrency)),
  ];
  return {
    runId: a.run.id,
    otherRunId: otherRow.id,
    groupId: a.run.groupId,
    inputDigest: a.run.inputDigest ?? null,
    otherInputDigest: otherRow.inputDigest ?? null,
    sameInputs: a.run.inputDigest !== null && a.run.inputDigest === otherRow.inputDigest,
    periodRef: { year: a.run.year, period: a.run.period },
    otherPeriodRef: { year: otherRow.year, period: otherRow.period },
    differences,
  };
}
