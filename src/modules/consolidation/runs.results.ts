/** Results of completed consolidation runs: trial balances, contributions, reports, elimination entries, comparisons. */

import { type Db } from '../../db/client.ts';
import {
  buildConsolidatedBalanceSheet,
  buildConsolidatedCashFlowStatement,
  buildConsolidatedEquityStatement,
  buildConsolidatedIncomeStatement,
  type EliminationEntry,
  type StatementContext,
} from '../../domain/consolidation/index.ts';
import { DomainError } from '../../domain/errors.ts';
import { type Access } from '../../access/access.ts';
import { minorUnits } from '../../domain/codes.ts';
import { contributionsAddUp } from '../../domain/consolidation/contributions.ts';
import { compareTrialBalances } from '../../domain/consolidation/compare.ts';
import { hasResults } from '../../domain/consolidation/run-lifecycle.ts';
import { scaledToString, toScaled } from '../../domain/consolidation/scaled.ts';
import { findGroup } from './groups.repo.ts';
import {
  findRun,
  hasLineContributions,
  loadLineContributions,
  loadTrialBalances,
  type RunRow,
  statusOf,
  runNotFound,
  type StoredTrialBalance,
} from './runs.repo.ts';
import { authorizeRun, notCompleted } from './runs.service.ts';
import { errors } from '../../domain/error-catalogue.ts';

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
      throw errors.ContributionsNotRecordedError(
        'The run completed before contributions were recorded: rerun it to trace its lines',
        { runId: run.id },
      );
    throw errors.ConsolidatedLineNotFoundError(
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
  return errors.ConsolidationRunComparisonError('Only completed runs of the same group can be compared', {
    runId: run.id,
    otherRunId: other.id,
  });
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
