/** Routes: consolidation runs, their trial balances and the consolidated reports. */
import {
  consolidatedTrialBalanceTable,
  equityStatementTable,
  statementTable,
} from '../../domain/reports/tabular.ts';
import { exportFormat, FormatQuery, sendTable } from '../../http/export.ts';
import { findGroup } from './groups.repo.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listed } from '../../http/pagination.ts';
import { byId, byIds, created, forId, noContent, route } from '../../http/route.ts';
import { GROUP_ID_RULE } from './groups.routes.ts';
import type { RouteApp } from '../../http/route-app.ts';
import { Page, PageQuery, StringEnum, Type, Uuid } from '../../http/schemas.ts';
import { RUN_STATUSES } from '../../domain/consolidation/run-lifecycle.ts';
import { type RunExecutor, runExecutor } from './runs.executor.ts';
import * as results from './runs.results.ts';
import * as runs from './runs.service.ts';
import {
  ConsolidationRun,
  EliminationJournal,
  RunComparison,
  ConsolidatedTrialBalance,
  ConsolidatedBalanceSheet,
  ConsolidatedIncomeStatement,
  ConsolidatedCashFlowStatement,
  ConsolidatedEquityStatement,
  StartRunBody,
  LineContributionsReport,
} from './runs.schemas.ts';

/** A run addressed by id (a malformed id answers 404 ConsolidationRunNotFoundError). */
const run = byId({
  tag: 'ConsolidationRunNotFoundError',
  field: 'runId',
  message: 'Consolidation run not found',
});
/** The query of a run's trial-balance views: the organization (optional) and the view, closing by default. */
const ViewQuery = {
  organizationId: Type.Optional(Uuid),
  view: Type.Optional(StringEnum(['closing', 'opening'] as const)),
};
const tags = ['Consolidation runs'];

/** True when the `Prefer` header asks for `respond-async` (RFC 7240 token, case-insensitive). */
export function prefersAsync(header: string | string[] | undefined): boolean {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return values.some((v) =>
    v.split(',').some((p) => p.split(';')[0]!.trim().toLowerCase() === 'respond-async'),
  );
}

const REPORTS: Array<{ path: results.ReportKind; summary: string; description: string; schema: unknown }> = [
  {
    path: 'balance-sheet',
    summary: 'Consolidated balance sheet',
    description:
      'Viewer. Closing view of a Completed run: sections by category, equity with "Current Year Earnings" (attributable to the parent), non-controlling interest, totals; groupName is the group\'s current name. 409 ConsolidationRunNotCompletedError unless Completed.',
    schema: ConsolidatedBalanceSheet,
  },
  {
    path: 'income-statement',
    summary: 'Consolidated income statement',
    description:
      'Viewer. Year-to-date revenue and expense lines of the closing view, net income split between the parent and non-controlling interest. 409 unless Completed.',
    schema: ConsolidatedIncomeStatement,
  },
  {
    path: 'cash-flow',
    summary: 'Consolidated cash-flow statement',
    description:
      'Viewer. Indirect method over the change from the opening to the closing view; the change of the CTA line is the exchange-rate effect. Always reconciles. 409 unless Completed.',
    schema: ConsolidatedCashFlowStatement,
  },
  {
    path: 'equity-statement',
    summary: 'Consolidated statement of changes in equity',
    description:
      'Viewer. Opening balances from the opening view, closing balances from the closing view, movements by type, with a non-controlling-interest column. 409 unless Completed.',
    schema: ConsolidatedEquityStatement,
  },
];

/** A group addressed by its id in the path (a malformed id answers 404 ConsolidationGroupNotFoundError). */
const group = byIds({ groupId: GROUP_ID_RULE });
const RUN_ERRORS = ['ConsolidationRunNotCompletedError', 'ConsolidationRunNotFoundError'] as const;

export const consolidationRunRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const executor = runExecutor(app);
  runReadRoutes(app);
  runStartRoutes(app, executor);
  runEndRoutes(app);
  runTrialBalanceRoutes(app);
  runJournalRoutes(app);
  runReportRoutes(app);
};

/** Runs: list, get. */
function runReadRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: '/api/v1/consolidation/runs',
    tags,
    summary: 'List consolidation runs',
    description:
      'Viewer. Without organizationId: runs of every organization of the caller. Filters: groupId (404 ConsolidationGroupNotFoundError when it is not a group of that organization), status, year, period. Ordered by initiatedAt descending, then id. Runs are returned without their trial balances.',
    access: 'consolidation:read',
    errors: ['ConsolidationGroupNotFoundError'],
    querystring: Type.Object({
      organizationId: Type.Optional(Uuid),
      groupId: Type.Optional(Uuid),
      status: Type.Optional(StringEnum(RUN_STATUSES)),
      year: Type.Optional(Type.Integer({ minimum: 1900, maximum: 2999 })),
      period: Type.Optional(Type.Integer({ minimum: 1, maximum: 13 })),
      ...PageQuery,
    }),
    response: { 200: Page('runs', ConsolidationRun) },
    handler: listed(db, runs.listRuns),
  });

  route(app, {
    method: 'GET',
    url: '/api/v1/consolidation/runs/:id',
    tags,
    summary: 'Get a consolidation run',
    description:
      'Viewer. The run with its steps, validation result, members snapshot, eliminations, rates used and totals (without trial balances). Poll this endpoint for runs started asynchronously.',
    access: 'consolidation:read',
    errors: ['ConsolidationRunNotFoundError'],
    ...run,
    response: { 200: ConsolidationRun },
    handler: forId(db, runs.getRun),
  });
}

/** Start a run (executed in the request, or queued with `Prefer: respond-async`). */
function runStartRoutes(app: RouteApp, executor: RunExecutor): void {
  const { db } = app.deps;

  route(app, {
    method: 'POST',
    url: '/api/v1/consolidation/groups/:groupId/runs',
    tags,
    summary: 'Start a consolidation run',
    description:
      "Admin. Consolidates the group for one period of its calendar (the parent's fiscal year end). Checks, in order: group exists, membership, role, group active (400 ConsolidationGroupInactiveError), asOfDate within the period (400 at /asOfDate), initiatedBy an admin or owner (400), approvedManualRuleIds active manual rules of the group (400 EliminationRuleOperationFailedError), no Pending/InProgress run for the period (409 ConsolidationRunInProgressError), no Completed run unless forceRegeneration (409 ConsolidationRunExistsForPeriodError). By default the run executes before the response (201 with status Completed or Failed). With `Prefer: respond-async` the response is 201 with status Pending and `Preference-Applied: respond-async`; poll GET /api/v1/consolidation/runs/{id}. Options may be sent flat or inside `options` (top-level wins).",
    access: 'consolidation:run',
    errors: [
      'ConsolidationGroupNotFoundError',
      'ConsolidationGroupInactiveError',
      'ValidationError',
      'UserNotMemberOfOrganizationError',
      'UserRoleInsufficientError',
      'EliminationRuleOperationFailedError',
      'ConsolidationRunInProgressError',
      'ConsolidationRunExistsForPeriodError',
    ],
    ...group,
    headers: Type.Object({
      prefer: Type.Optional(Type.String({ description: '`respond-async` to execute in the background' })),
    }),
    body: StartRunBody,
    ...created(ConsolidationRun),
    handler: async ({ access, params, query, body, headers }, reply) => {
      const async = prefersAsync(headers.prefer);
      const record = await runs.startRun(db, access, params.groupId, query.organizationId, body, {
        async,
        ...executor,
      });
      if (async) reply.header('preference-applied', 'respond-async');
      return record;
    },
  });
}

/** Runs: cancel, delete, the latest completed one of a group. */
function runEndRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'POST',
    url: '/api/v1/consolidation/runs/:id/cancel',
    tags,
    summary: 'Cancel a consolidation run',
    description:
      'Admin. Pending or InProgress → Cancelled (completedAt now; unfinished steps Skipped); execution stops at the next step boundary and writes no results. Otherwise 400 ConsolidationRunCannotBeCancelledError.',
    access: 'consolidation:run',
    errors: ['ConsolidationRunCannotBeCancelledError', 'ConsolidationRunNotFoundError'],
    ...run,
    response: { 200: ConsolidationRun },
    handler: forId(db, runs.cancelRun),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/v1/consolidation/runs/:id',
    tags,
    summary: 'Delete a consolidation run',
    description:
      'Admin. Deletes a Pending (cancelled first), Failed or Cancelled run. Completed and InProgress runs: 409 ConsolidationRunCannotBeDeletedError.',
    access: 'consolidation:run',
    errors: ['ConsolidationRunCannotBeDeletedError', 'ConsolidationRunNotFoundError'],
    ...run,
    ...noContent,
    handler: forId(db, runs.deleteRun),
  });

  route(app, {
    method: 'GET',
    url: '/api/v1/consolidation/groups/:groupId/latest-run',
    tags,
    summary: 'Latest completed run of a group',
    description:
      "Viewer. The group's Completed run with the latest completedAt, or the JSON value `null` when it has none.",
    access: 'consolidation:read',
    errors: ['ConsolidationGroupNotFoundError'],
    ...group,
    response: {
      200: Type.Union([ConsolidationRun, Type.Null()], {
        description: 'The run, or null when the group has no completed run',
      }),
    },
    handler: async ({ access, params, query }, reply) => {
      const latest = await runs.latestRun(db, access, params.groupId, query.organizationId);
      return reply
        .code(200)
        .type('application/json; charset=utf-8')
        .send(latest === null ? 'null' : latest);
    },
  });
}

/** A run's trial balance and the contributions to one of its lines. */
function runTrialBalanceRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: '/api/v1/consolidation/runs/:id/trial-balance',
    tags,
    summary: 'Consolidated trial balance of a run',
    description:
      'Viewer. view=closing (default; as of asOfDate) or view=opening (as of the day before yearStartDate). 409 ConsolidationRunNotCompletedError unless the run is Completed. In a run that included top-side adjustments every line also carries adjustmentAmount (consolidatedBalance = aggregatedBalance + eliminationAmount + adjustmentAmount + nciAmount).',
    access: 'consolidation:read',
    errors: RUN_ERRORS,
    ...run,
    querystring: Type.Object({ ...ViewQuery, format: FormatQuery }),
    response: { 200: ConsolidatedTrialBalance },
    handler: async (request, reply) => {
      const { params, query } = request;
      const view = query.view ?? 'closing';
      const report = await results.trialBalance(db, request.access, params.id, query.organizationId, view);
      const format = exportFormat(request, query.format);
      if (format === 'json') return report;
      const found = await findGroup(db, report.groupId);
      const table = consolidatedTrialBalanceTable('Consolidated trial balance', report as never);
      return sendTable(reply, format, table, [
        found?.name ?? report.groupId,
        'consolidated-trial-balance',
        report.asOfDate,
      ]);
    },
  });

  route(app, {
    method: 'GET',
    url: '/api/v1/consolidation/runs/:id/trial-balance/lines/:accountNumber/contributions',
    tags,
    summary: 'Contributions to a consolidated line',
    description:
      'Viewer. Where one line of the trial balance comes from, as the run recorded it: per company its translated items (functional balance, the basis and rate(s) applied, the translated amount), its weight and its weighted amount; each elimination entry touching the line (rule id and name, or acquisition, with the amount); each top-side adjustment (id, amount); and the non-controlling interest moved. The pieces add up exactly: Σ companies = aggregatedBalance, Σ eliminations = eliminationAmount, Σ adjustments = adjustmentAmount, nci = nciAmount, and together consolidatedBalance (an unattributed part, zero unless acquisition accounting booked on the line, completes them). view=closing (default) or opening, as for the trial balance. lines holds every line with that account number (one, or one per investee for the equity-method lines). 404 ConsolidatedLineNotFoundError when the view has no such line; 409 ConsolidationRunNotCompletedError unless Completed; 409 ContributionsNotRecordedError for a run completed before contributions were recorded.',
    access: 'consolidation:read',
    errors: [
      'ConsolidationRunNotFoundError',
      'ConsolidationRunNotCompletedError',
      'ConsolidatedLineNotFoundError',
      'ContributionsNotRecordedError',
    ],
    pathIds: run.pathIds,
    params: Type.Object({
      id: Type.String(),
      accountNumber: Type.String({ minLength: 1, maxLength: 100 }),
    }),
    querystring: Type.Object(ViewQuery),
    response: { 200: LineContributionsReport },
    handler: async ({ access, params, query }) =>
      results.lineContributions(
        db,
        access,
        params.id,
        query.organizationId,
        query.view ?? 'closing',
        params.accountNumber,
      ),
  });
}

/** A run's elimination journal, and its comparison with another run. */
function runJournalRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: '/api/v1/consolidation/runs/:id/elimination-entries',
    tags,
    summary: 'Elimination journal of a run',
    description:
      'Viewer. The closing view’s eliminations as balanced journal entries: one per applied rule (its debit and credit account, and the intercompany-difference lines it booked) in processing order, then one per acquisition elimination. 409 unless the run is Completed.',
    access: 'consolidation:read',
    errors: RUN_ERRORS,
    ...run,
    response: { 200: EliminationJournal },
    handler: forId(db, results.eliminationEntries),
  });

  route(app, {
    method: 'GET',
    url: '/api/v1/consolidation/runs/:id/compare',
    tags,
    summary: 'Compare two runs',
    description:
      'Viewer. Line-by-line differences (balances and each component) between this run and otherRunId, both completed runs of the same group, in both views; lines without differences are left out. A rerun over unchanged inputs answers no differences and sameInputs true.',
    access: 'consolidation:read',
    errors: [...RUN_ERRORS, 'ConsolidationRunComparisonError'],
    ...run,
    querystring: Type.Object({ organizationId: Type.Optional(Uuid), otherRunId: Uuid }),
    response: { 200: RunComparison },
    handler: async ({ access, params, query }) =>
      results.compareRuns(db, access, params.id, query.otherRunId, query.organizationId),
  });
}

/** The consolidated statements of a run (JSON, CSV or XLSX), one route per entry of `REPORTS`. */
function runReportRoutes(app: RouteApp): void {
  const { db } = app.deps;
  for (const r of REPORTS) {
    route(app, {
      method: 'GET',
      url: `/api/v1/consolidation/runs/:id/reports/${r.path}`,
      tags,
      summary: r.summary,
      description: r.description,
      access: 'consolidation:read',
      errors: RUN_ERRORS,
      ...run,
      querystring: Type.Object({ organizationId: Type.Optional(Uuid), format: FormatQuery }),
      response: { 200: r.schema as typeof ConsolidatedBalanceSheet },
      handler: async (request, reply) => {
        const { params, query } = request;
        const report = await results.report(db, request.access, params.id, query.organizationId, r.path);
        const format = exportFormat(request, query.format);
        if (format === 'json') return report;
        const json = report as unknown as Record<string, unknown>;
        const title = r.summary;
        const table =
          r.path === 'equity-statement' ? equityStatementTable(title, json) : statementTable(title, json);
        const date = String(json.asOfDate ?? json.periodEndDate);
        return sendTable(reply, format, table, [String(json.groupName), `consolidated-${r.path}`, date]);
      },
    });
  }
}
