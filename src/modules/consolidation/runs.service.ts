/**
 * Consolidation runs: start, list, get, cancel, delete and the latest run. Execution is in
 * `runs.execute.ts` (called by the executor, `runs.executor.ts`), the results of completed runs in
 * `runs.results.ts`, the statuses and their transitions in the domain's run lifecycle.
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

import { and, eq, inArray, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type Db, inTransaction, queryRows, type Tx } from '../../db/client.ts';
import { companies } from '../../db/schema/index.ts';
import { DomainError, invalid } from '../../domain/errors.ts';
import { periodRange } from '../../domain/fiscal-calendar.ts';
import { formatPercentage } from '../../domain/money.ts';
import { type Access, type Action, ROLE_RANK, type Role } from '../../access/access.ts';
import { type PageParams, paged } from '../../http/pagination.ts';
import { recordAudit } from '../audit/service.ts';
import { isInGroupOn } from '../../domain/consolidation/ownership.ts';
import {
  canTransition,
  cancelledSteps,
  deletion,
  durationSince,
  type RunStatus,
  UNFINISHED_RUN_STATUSES,
} from '../../domain/consolidation/run-lifecycle.ts';
import { listedOrganizations } from '../shared/lists.ts';
import { findGroup, type GroupRow, groupNotFound, loadMembers, memberState } from './groups.repo.ts';
import { percentagesOf, treeOf } from './holdings.ts';
import { loadGroupRules } from './rules.repo.ts';
import {
  deleteRun as deleteRunRow,
  findRun,
  findRunForPeriod,
  insertRun,
  latestCompletedRun,
  listRuns as listRunRows,
  pendingSteps,
  type RunOptions,
  type RunRecord,
  type RunRow,
  statusOf,
  type StoredRunMember,
  runNotFound,
  runRecord,
  storedSteps,
  updateRun,
} from './runs.repo.ts';
import { DEFAULT_RUN_LEASE_MS, EXECUTOR_ID, leaseUntil } from './runs.lease.ts';
import { errors } from '../../domain/error-catalogue.ts';

export const RESOURCE = 'ConsolidationRun';

// ---------------------------------------------------------------------------------------------------
// Errors

function groupInactive(groupId: string): DomainError {
  return errors.ConsolidationGroupInactiveError('The consolidation group is inactive', {
    groupId,
  });
}

function runInProgress(groupId: string, existingRunId: string): DomainError {
  return errors.ConsolidationRunInProgressError(
    'A run of the group for this period is pending or in progress',
    { groupId, existingRunId },
  );
}

function runExists(groupId: string, year: number, period: number, existingRunId: string): DomainError {
  return errors.ConsolidationRunExistsForPeriodError(
    'A completed run exists for this period; send forceRegeneration to run again',
    { groupId, year, period, existingRunId },
  );
}

export function notCompleted(run: RunRow): DomainError {
  return errors.ConsolidationRunNotCompletedError('The run is not completed', {
    runId: run.id,
    currentStatus: run.status,
  });
}

function approveFailed(reason: string): DomainError {
  return errors.EliminationRuleOperationFailedError(
    'A rule in approvedManualRuleIds cannot be approved for this run',
    { operation: 'approveForRun', reason },
  );
}

// ---------------------------------------------------------------------------------------------------
// Access

export function authorizeRun(
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

/**
 * Runs the execution of a run: awaited (synchronous mode; resolves with the completed run's row as
 * committed, or null) or scheduled in the background.
 */
export type Executor = (run: RunRow) => Promise<RunRow | null | void>;

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

  const dates = await runDates(db, orgId, group.parentCompanyId, input);
  const initiatedBy = await checkInitiator(db, access, orgId, input.initiatedBy);
  const options = resolveOptions(input);
  await checkApprovedRules(db, orgId, group.id, options.approvedManualRuleIds);
  const start = { groupId: group.id, orgId, initiatedBy, options, ...dates };
  const row = await createPendingRun(db, access, start, mode);

  if (mode.async) {
    await mode.schedule(row);
    return runRecord(row);
  }
  // A run that completed answers with the row its final transaction committed; otherwise (failed,
  // cancelled meanwhile) the run is read again.
  const completed = await mode.execute(row);
  const after = completed ?? (await findRun(db, row.id, orgId));
  return runRecord(after ?? row);
}

/** The run's asOfDate (within the period of the group calendar: the parent's fiscal year end) and year start. */
async function runDates(
  db: Db,
  orgId: string,
  parentCompanyId: string,
  input: StartRunInput,
): Promise<{ year: number; period: number; asOfDate: string; yearStartDate: string }> {
  const [parent] = await db
    .select({
      id: companies.id,
      name: companies.name,
      functionalCurrency: companies.functionalCurrency,
      fyeMonth: companies.fiscalYearEndMonth,
      fyeDay: companies.fiscalYearEndDay,
    })
    .from(companies)
    .where(and(eq(companies.organizationId, orgId), eq(companies.id, parentCompanyId)));
  if (!parent) throw new Error(`Parent company ${parentCompanyId} not found`);
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
  return { year, period, asOfDate, yearStartDate };
}

/** initiatedBy (default: the caller), lower-cased: a member whose role may start runs. */
async function checkInitiator(
  db: Db,
  access: Access,
  orgId: string,
  requested: string | null | undefined,
): Promise<string> {
  const initiatedBy = (requested ?? access.userId).toLowerCase();
  if (initiatedBy !== access.userId) {
    const [m] = await queryRows<{ role: Role }>(
      db,
      sql`select role from memberships where organization_id = ${orgId} and user_id = ${initiatedBy}`,
    );
    if (!m) {
      throw errors.UserNotMemberOfOrganizationError('initiatedBy is not a member of the organization', {
        userId: initiatedBy,
        organizationId: orgId,
      });
    }
    if (ROLE_RANK[m.role] < ROLE_RANK.admin) {
      throw errors.UserRoleInsufficientError('initiatedBy may not start runs', {
        userId: initiatedBy,
        organizationId: orgId,
        requiredRole: 'admin',
        currentRole: m.role,
      });
    }
  }
  return initiatedBy;
}

/** Commits the run `Pending` (the group still active, no run of the period unfinished, nor completed unless forced). */
async function createPendingRun(
  db: Db,
  access: Access,
  start: {
    groupId: string;
    orgId: string;
    initiatedBy: string;
    options: ReturnType<typeof resolveOptions>;
    year: number;
    period: number;
    asOfDate: string;
    yearStartDate: string;
  },
  mode: { leaseMs?: number },
): Promise<RunRow> {
  const { groupId, orgId, initiatedBy, options, year, period, asOfDate, yearStartDate } = start;
  return inTransaction(db, async (tx) => {
    const locked = await findGroup(tx, groupId, orgId, true);
    if (!locked) throw groupNotFound(groupId);
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

export interface RunListQuery {
  organizationId?: string | undefined;
  groupId?: string | undefined;
  status?: RunStatus | undefined;
  year?: number | undefined;
  period?: number | undefined;
}

export async function listRuns(db: Db, access: Access, q: RunListQuery, page: PageParams) {
  const orgIds = await listedOrganizations(access, q.organizationId, 'consolidation:read', RESOURCE);
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
    throw errors.ConsolidationRunCannotBeCancelledError('The run cannot be cancelled', {
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
      throw errors.ConsolidationRunCannotBeDeletedError('The run cannot be deleted', {
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
