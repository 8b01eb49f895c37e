/**
 * Consolidation runs: row access and wire records. Every query filters by
 * organization; the run row is locked (`FOR UPDATE`) wherever its status changes.
 */
import { and, asc, desc, eq, getTableColumns, inArray, type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { byId, firstRow, inOrg, pageOfRows } from '../../db/rows.ts';
import {
  consolidationLineContributions,
  consolidationRuns,
  consolidationTrialBalances,
} from '../../db/schema/index.ts';
import type { LineContributions } from '../../domain/consolidation/contributions.ts';
import type { StoredLineContributions } from '../../domain/consolidation/contributions-stored.ts';
import {
  CompanyDirectory,
  type PackedLine,
  unpackLine,
} from '../../domain/consolidation/contributions-codec.ts';
import {
  type AcquisitionAnalysis,
  type ConsolidatedTrialBalance,
  type EliminationResult,
  type RateUsage,
  type RunMember,
  type RunTotals,
  STEP_TYPES,
  type StepType,
  type ValidationResult,
} from '../../domain/consolidation/index.ts';
import { DomainError } from '../../domain/errors.ts';
import { formatEffectivePercentage } from '../../domain/consolidation/ownership.ts';
import { dec } from '../../domain/money.ts';
import type { RunStatus, StepStatus } from '../../domain/consolidation/run-lifecycle.ts';
import type { AcquisitionData } from './holdings.ts';
import { errors } from '../../domain/error-catalogue.ts';

export type RunRow = typeof consolidationRuns.$inferSelect;
export type NewRunRow = typeof consolidationRuns.$inferInsert;

/** The run's status, as the lifecycle knows it (the column holds only these). */
export function statusOf(run: Pick<RunRow, 'status'>): RunStatus {
  return run.status as RunStatus;
}

/** ConsolidationStep, as stored in `steps` (jsonb) and returned. */
export interface StepRecord {
  stepType: StepType;
  status: StepStatus;
  startedAt: string | null;
  completedAt: string | null;
  durationMs: number | null;
  errorMessage: string | null;
  details: string | null;
}

/** RunOptions, defaults applied. */
export interface RunOptions {
  skipValidation: boolean;
  continueOnWarnings: boolean;
  includeEquityMethodInvestments: boolean;
  forceRegeneration: boolean;
  approvedManualRuleIds: string[];
}

export interface RunRecord {
  id: string;
  organizationId: string;
  groupId: string;
  periodRef: { year: number; period: number };
  asOfDate: string;
  yearStartDate: string;
  reportingCurrency: string;
  status: RunStatus;
  steps: StepRecord[];
  validationResult: ValidationResult | null;
  options: RunOptions;
  members: RunMember[];
  eliminations: EliminationResult[];
  exchangeRatesUsed: RateUsage[];
  acquisitionAnalysis: AcquisitionAnalysis[];
  totals: RunTotals | null;
  initiatedBy: string;
  initiatedAt: string;
  startedAt: string | null;
  completedAt: string | null;
  totalDurationMs: number | null;
  errorMessage: string | null;
  /** SHA-256 of the run's inputs (completed runs; null before digests existed) */
  inputDigest: string | null;
  /** the top-side adjustments the run included (present only when it included some) */
  adjustmentIds?: string[];
  createdAt: string;
  updatedAt: string;
}

/** A member as the run stores it: the RunMember record plus what the run reads (acquisition data). */
export type StoredRunMember = RunMember & {
  acquisitionDate?: string | null;
  acquisition?: AcquisitionData | null;
};

/** The stored members, with the fields of runs started before holdings existed filled in. */
export function storedMembers(row: Pick<RunRow, 'members'>): StoredRunMember[] {
  return ((row.members ?? []) as StoredRunMember[]).map((m) => ({
    ...m,
    heldByCompanyId: m.heldByCompanyId ?? null,
    effectiveOwnershipPercentage:
      m.effectiveOwnershipPercentage ?? formatEffectivePercentage(dec(m.ownershipPercentage).div(100)),
  }));
}

/** The stored closing view also carries the retained-earnings line the equity statement needs. */
export type StoredTrialBalance = ConsolidatedTrialBalance & { retainedEarningsLine?: string };

export function runNotFound(runId: string): DomainError {
  return errors.ConsolidationRunNotFoundError('Consolidation run not found', { runId });
}

export function pendingSteps(): StepRecord[] {
  return STEP_TYPES.map((stepType) => ({
    stepType,
    status: 'Pending',
    startedAt: null,
    completedAt: null,
    durationMs: null,
    errorMessage: null,
    details: null,
  }));
}

/** The stored steps, always 7 in the fixed order (a malformed value is read as all Pending). */
export function storedSteps(row: Pick<RunRow, 'steps'>): StepRecord[] {
  const raw = Array.isArray(row.steps) ? (row.steps as Partial<StepRecord>[]) : [];
  return pendingSteps().map((base, i) => {
    const s = raw[i];
    if (!s || s.stepType !== base.stepType) return base;
    return {
      stepType: base.stepType,
      status: (s.status ?? 'Pending') as StepStatus,
      startedAt: s.startedAt ?? null,
      completedAt: s.completedAt ?? null,
      durationMs: s.durationMs ?? null,
      errorMessage: s.errorMessage ?? null,
      details: s.details ?? null,
    };
  });
}

export function storedOptions(row: Pick<RunRow, 'options'>): RunOptions {
  const o = (row.options ?? {}) as Partial<RunOptions>;
  return {
    skipValidation: o.skipValidation ?? false,
    continueOnWarnings: o.continueOnWarnings ?? true,
    includeEquityMethodInvestments: o.includeEquityMethodInvestments ?? true,
    forceRegeneration: o.forceRegeneration ?? false,
    approvedManualRuleIds: [...(o.approvedManualRuleIds ?? [])],
  };
}

export function runRecord(row: RunRow): RunRecord {
  return {
    id: row.id,
    organizationId: row.organizationId,
    groupId: row.groupId,
    periodRef: { year: row.year, period: row.period },
    asOfDate: row.asOfDate,
    yearStartDate: row.yearStartDate,
    reportingCurrency: row.reportingCurrency,
    status: row.status as RunStatus,
    steps: storedSteps(row),
    validationResult: (row.validationResult ?? null) as ValidationResult | null,
    options: storedOptions(row),
    members: storedMembers(row),
    eliminations: (row.eliminations ?? []) as EliminationResult[],
    exchangeRatesUsed: (row.exchangeRatesUsed ?? []) as RateUsage[],
    acquisitionAnalysis: (row.acquisitionAnalysis ?? []) as AcquisitionAnalysis[],
    totals: (row.totals ?? null) as RunTotals | null,
    initiatedBy: row.initiatedBy,
    initiatedAt: row.initiatedAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    completedAt: row.completedAt?.toISOString() ?? null,
    totalDurationMs: row.totalDurationMs ?? null,
    errorMessage: row.errorMessage ?? null,
    inputDigest: row.inputDigest ?? null,
    ...(Array.isArray(row.adjustmentIds) && row.adjustmentIds.length > 0
      ? { adjustmentIds: row.adjustmentIds as string[] }
      : {}),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The run with this id (within `organizationId` when given), or null; `lock` = FOR UPDATE. */
export async function findRun(
  db: Queryable,
  runId: string,
  organizationId?: string,
  lock = false,
): Promise<RunRow | null> {
  return firstRow(
    db,
    consolidationRuns,
    byId(consolidationRuns, runId, organizationId),
    lock ? 'update' : undefined,
  );
}

/** The first run of the group for the period in one of the statuses (oldest first), or null. */
export async function findRunForPeriod(
  db: Queryable,
  organizationId: string,
  groupId: string,
  year: number,
  period: number,
  statuses: readonly RunStatus[],
): Promise<RunRow | null> {
  return firstRunOf(
    db,
    and(
      inOrg(consolidationRuns, organizationId, { groupId, year, period }),
      inArray(consolidationRuns.status, [...statuses]),
    ),
    [asc(consolidationRuns.initiatedAt), asc(consolidationRuns.id)],
  );
}

/** The first run under `where` in `order`, or null. */
async function firstRunOf(db: Queryable, where: SQL | undefined, order: SQL[]): Promise<RunRow | null> {
  const [row] = await db
    .select()
    .from(consolidationRuns)
    .where(where)
    .orderBy(...order)
    .limit(1);
  return row ?? null;
}

/** The run `runId` of the organization, while it has the status `onlyIfStatus` when one is given. */
function theRun(organizationId: string, runId: string, onlyIfStatus?: RunStatus): SQL {
  return inOrg(consolidationRuns, organizationId, { id: runId, status: onlyIfStatus });
}

export async function insertRun(db: Queryable, values: NewRunRow): Promise<RunRow> {
  const [row] = await db.insert(consolidationRuns).values(values).returning();
  return row!;
}

/**
 * Updates the run like `updateRun` but reads nothing back (a run's row carries large JSON columns):
 * true when the row was updated.
 */
export async function touchRun(
  db: Queryable,
  organizationId: string,
  runId: string,
  values: Partial<NewRunRow>,
  onlyIfStatus?: RunStatus,
): Promise<boolean> {
  const rows = await db
    .update(consolidationRuns)
    .set(values)
    .where(theRun(organizationId, runId, onlyIfStatus))
    .returning({ id: consolidationRuns.id });
  return rows.length > 0;
}

/** Locks the run (FOR UPDATE) and returns its status only, or null when it is gone. */
export async function lockRunStatus(
  db: Queryable,
  organizationId: string,
  runId: string,
): Promise<Pick<RunRow, 'status'> | null> {
  const [row] = await db
    .select({ status: consolidationRuns.status })
    .from(consolidationRuns)
    .where(theRun(organizationId, runId))
    .for('update');
  return row ?? null;
}

/**
 * Updates the run; with `onlyIfStatus` only while it still has that status. Returns the new row or
 * null. The columns it writes are not read back (a completed run's results are megabytes of JSON,
 * which PostgreSQL would render and the driver parse again): the row is the other columns as read,
 * with `values` over them.
 */
export async function updateRun(
  db: Queryable,
  organizationId: string,
  runId: string,
  values: Partial<NewRunRow>,
  onlyIfStatus?: RunStatus,
): Promise<RunRow | null> {
  const [row] = await db
    .update(consolidationRuns)
    .set(values)
    .where(theRun(organizationId, runId, onlyIfStatus))
    .returning(columnsBut(values));
  if (!row) return null;
  const written = Object.entries(values).filter(([, value]) => value !== undefined);
  return { ...row, ...Object.fromEntries(written) } as RunRow;
}

const RUN_COLUMNS = getTableColumns(consolidationRuns);

/** The run's columns, but those `values` gives. */
function columnsBut(values: Partial<NewRunRow>): Partial<typeof RUN_COLUMNS> {
  const out: Partial<Record<keyof typeof RUN_COLUMNS, unknown>> = {};
  for (const key of Object.keys(RUN_COLUMNS) as (keyof typeof RUN_COLUMNS)[]) {
    if (!(key in values) || values[key] === undefined) out[key] = RUN_COLUMNS[key];
  }
  return out as Partial<typeof RUN_COLUMNS>;
}

export async function deleteRun(db: Queryable, organizationId: string, runId: string): Promise<void> {
  await db.delete(consolidationRuns).where(theRun(organizationId, runId));
}

export interface RunListFilter {
  organizationIds: string[];
  groupId?: string | undefined;
  status?: RunStatus | undefined;
  year?: number | undefined;
  period?: number | undefined;
}

/** A page of runs, ordered by initiatedAt descending, then id; with the total count. */
export async function listRuns(
  db: Queryable,
  f: RunListFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: RunRow[]; total: number }> {
  const conds: SQL[] = [inArray(consolidationRuns.organizationId, f.organizationIds)];
  if (f.groupId !== undefined) conds.push(eq(consolidationRuns.groupId, f.groupId));
  if (f.status !== undefined) conds.push(eq(consolidationRuns.status, f.status));
  if (f.year !== undefined) conds.push(eq(consolidationRuns.year, f.year));
  if (f.period !== undefined) conds.push(eq(consolidationRuns.period, f.period));
  return pageOfRows(
    db,
    consolidationRuns,
    and(...conds),
    [desc(consolidationRuns.initiatedAt), asc(consolidationRuns.id)],
    page,
  );
}

/** The group's Completed run with the latest completedAt (then the latest id), or null. */
export async function latestCompletedRun(
  db: Queryable,
  organizationId: string,
  groupId: string,
): Promise<RunRow | null> {
  return firstRunOf(db, inOrg(consolidationRuns, organizationId, { groupId, status: 'Completed' }), [
    desc(consolidationRuns.completedAt),
    desc(consolidationRuns.id),
  ]);
}

export async function insertTrialBalances(
  db: Queryable,
  organizationId: string,
  runId: string,
  views: StoredTrialBalance[],
): Promise<void> {
  if (views.length === 0) return;
  await db
    .insert(consolidationTrialBalances)
    .values(views.map((data) => ({ organizationId, runId, view: data.view, data })));
}

/** The stored trial balances of a run by view. */
export async function loadTrialBalances(
  db: Queryable,
  organizationId: string,
  runId: string,
): Promise<Map<string, StoredTrialBalance>> {
  const rows = await db
    .select({ view: consolidationTrialBalances.view, data: consolidationTrialBalances.data })
    .from(consolidationTrialBalances)
    .where(
      and(
        eq(consolidationTrialBalances.organizationId, organizationId),
        eq(consolidationTrialBalances.runId, runId),
      ),
    );
  return new Map(rows.map((r) => [r.view, r.data as StoredTrialBalance]));
}

/**
 * Writes the contributions of every line of a run's views (in the transaction that stores the run's
 * results), already in their compact stored form (a large group's run traces tens of thousands of
 * pieces), as ONE set-based insert.
 */
export async function insertLineContributions(
  db: Queryable,
  run: Pick<RunRow, 'organizationId' | 'id'>,
  views: { view: 'closing' | 'opening'; lines: readonly StoredLineContributions[] }[],
): Promise<void> {
  // Each text is a parameter of its own: the driver sends parameters as they are, so megabytes of
  // stored text need no escaping on the way (a JSON or array-literal parameter costs its escaping
  // here and its parsing on the server). At most INSERT_BATCH rows a statement keep far below the
  // protocol's 65,535 parameters.
  const rows: SQL[] = [];
  for (const { view, lines } of views) {
    for (const l of lines) rows.push(sql`(${view}, ${l.lineId}, ${l.accountNumber}, ${l.data})`);
  }
  for (let from = 0; from < rows.length; from += INSERT_BATCH) {
    await db.execute(sql`
      insert into consolidation_line_contributions (organization_id, run_id, view, line_id, account_number, data)
      select ${run.organizationId}::uuid, ${run.id}::uuid, v.view, v.line_id, v.account_number, v.data
      from (values ${sql.join(rows.slice(from, from + INSERT_BATCH), sql`, `)}) v(view, line_id, account_number, data)`);
  }
}
const INSERT_BATCH = 10_000;

/** The run's members as its stored contributions name them (by their index in the run's members). */
export function contributionsDirectory(run: Pick<RunRow, 'members'>): CompanyDirectory {
  return memberDirectory(run);
}

/** The contributions to the lines of one account number in one view of a run (usually one line). */
export async function loadLineContributions(
  db: Queryable,
  run: Pick<RunRow, 'organizationId' | 'id' | 'reportingCurrency' | 'members'>,
  view: 'closing' | 'opening',
  accountNumber: string,
): Promise<LineContributions[]> {
  const { organizationId, id: runId, reportingCurrency: currency } = run;
  const rows = await db
    .select({ lineId: consolidationLineContributions.lineId, data: consolidationLineContributions.data })
    .from(consolidationLineContributions)
    .where(
      and(
        eq(consolidationLineContributions.organizationId, organizationId),
        eq(consolidationLineContributions.runId, runId),
        eq(consolidationLineContributions.view, view),
        eq(consolidationLineContributions.accountNumber, accountNumber),
      ),
    )
    .orderBy(asc(consolidationLineContributions.lineId));
  const members = memberDirectory(run);
  return rows.map((r) =>
    unpackLine(JSON.parse(r.data) as PackedLine, { lineId: r.lineId, accountNumber }, currency, members),
  );
}

/** The run's members as the stored contributions name them (by their index in the run's members). */
function memberDirectory(run: Pick<RunRow, 'members'>): CompanyDirectory {
  return new CompanyDirectory(
    storedMembers(run).map((m) => ({
      companyId: m.companyId,
      companyName: m.companyName,
      consolidationMethod: m.consolidationMethod,
      functionalCurrency: m.functionalCurrency,
    })),
  );
}

/** Whether a run recorded contributions (runs completed before they existed did not). */
export async function hasLineContributions(
  db: Queryable,
  organizationId: string,
  runId: string,
): Promise<boolean> {
  const rows = await db
    .select({ lineId: consolidationLineContributions.lineId })
    .from(consolidationLineContributions)
    .where(
      and(
        eq(consolidationLineContributions.organizationId, organizationId),
        eq(consolidationLineContributions.runId, runId),
      ),
    )
    .limit(1);
  return rows.length > 0;
}
