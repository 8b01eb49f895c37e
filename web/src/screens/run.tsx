/**
 * A consolidation run: its seven steps as they progress (polled while the run is pending or in
 * progress), then its result — validation issues, eliminations applied or skipped with the reason,
 * the rates used, the consolidated trial balance — and the four consolidated statements.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { api, call } from '../api/client.ts';
import type { ConsolidationRun, RunStep } from '../api/types.ts';
import {
  BalanceSheetChart,
  BalanceSheetView,
  balanceSheetCheck,
  CashFlowView,
  ConsolidatedTrialBalanceView,
  EquityStatementView,
  IncomeStatementView,
  StatementHeader,
} from '../components/statements.tsx';
import { useToast } from '../components/toast.tsx';
import {
  Alert,
  Amount,
  Badge,
  Button,
  Card,
  Definition,
  Empty,
  Loading,
  PageHeader,
  Tabs,
} from '../components/ui.tsx';
import { errorMessage } from '../lib/errors.ts';
import { formatDuration, formatPercent, formatTimestamp, humanize } from '../lib/format.ts';
import { useOrg } from '../lib/org.tsx';
import { atLeast } from '../lib/permissions.ts';
import { groupsQuery } from '../lib/queries.ts';
import { ContributionsDialog, CompositionByCompany, type DrillTarget } from '../components/contributions.tsx';
import { type Download, type ExportFormat, ExportButtons, type ExportPath } from '../components/export.tsx';

const FINAL = ['Completed', 'Failed', 'Cancelled'];
const STEP_TEXT: Record<RunStep['stepType'], string> = {
  Validate: 'Validate',
  Translate: 'Translate currencies',
  Aggregate: 'Aggregate',
  MatchIC: 'Match intercompany',
  Eliminate: 'Eliminate',
  NCI: 'Non-controlling interest',
  GenerateTB: 'Trial balance',
};
const SKIP_REASONS: Record<string, string> = {
  TRIGGER_NOT_MET: 'no trigger condition held',
  ZERO_AMOUNT: 'nothing to eliminate',
  ACCOUNT_COMPANY_NOT_CONSOLIDATED: 'an account belongs to a company that is not consolidated',
};
const VIEWS = [
  { id: 'summary', label: 'Summary' },
  { id: 'balance-sheet', label: 'Balance sheet' },
  { id: 'income-statement', label: 'Income statement' },
  { id: 'cash-flow', label: 'Cash flow' },
  { id: 'equity', label: 'Changes in equity' },
  { id: 'trial-balance', label: 'Trial balance' },
];

export function RunPage() {
  const { orgId, role } = useOrg();
  const { runId = '' } = useParams();
  const run = useQuery({
    queryKey: ['org', orgId, 'run', runId],
    queryFn: () =>
      call(
        api.GET('/api/v1/consolidation/runs/{id}', {
          params: { path: { id: runId }, query: { organizationId: orgId } },
        }),
      ),
    // Poll while the run works; stop as soon as it reaches a final status.
    refetchInterval: (q) => (q.state.data && FINAL.includes(q.state.data.status) ? false : 400),
  });
  const groups = useQuery(groupsQuery(orgId));
  if (run.isPending) return <Loading label="Loading the run…" />;
  if (run.error) return <Alert kind="error">{run.error.message}</Alert>;
  const r = run.data;
  const group = groups.data?.find((g) => g.id === r.groupId);
  return (
    <>
      <PageHeader
        title={`${group?.name ?? 'Consolidation'} · ${r.periodRef.year}/${String(r.periodRef.period).padStart(2, '0')}`}
        subtitle={
          <>
            <Badge value={r.status} /> as of {r.asOfDate} (year from {r.yearStartDate}) in{' '}
            {r.reportingCurrency}
            {r.totalDurationMs !== null ? ` · ${formatDuration(r.totalDurationMs)}` : ''}
          </>
        }
        actions={
          <>
            <Link className="btn" to={`/o/${orgId}/consolidation/groups/${r.groupId}`}>
              Group
            </Link>
            {atLeast(role, 'admin') ? <RunActions run={r} /> : null}
          </>
        }
      />
      <Progress run={r} />
      {r.status === 'Failed' ? (
        <Alert kind="error">The run failed: {r.errorMessage ?? 'see the steps above'}</Alert>
      ) : null}
      {r.status === 'Cancelled' ? (
        <Alert kind="warning">The run was cancelled; it wrote no results.</Alert>
      ) : null}
      {r.status === 'Completed' ? <Results run={r} /> : r.validationResult ? <Validation run={r} /> : null}
    </>
  );
}

function RunActions({ run }: { run: ConsolidationRun }) {
  const { orgId } = useOrg();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [error, setError] = useState<string | null>(null);
  const act = useMutation({
    mutationFn: async (action: 'cancel' | 'delete') => {
      const params = { params: { path: { id: run.id }, query: { organizationId: orgId } } };
      if (action === 'cancel') return call(api.POST('/api/v1/consolidation/runs/{id}/cancel', params));
      await call(api.DELETE('/api/v1/consolidation/runs/{id}', params));
      return null;
    },
    onSuccess: async (_r, action) => {
      await queryClient.invalidateQueries({ queryKey: ['org', orgId] });
      toast(action === 'cancel' ? 'Run cancelled' : 'Run deleted');
      if (action === 'delete') navigate(`/o/${orgId}/consolidation/groups/${run.groupId}`);
    },
    onError: (err) => setError(errorMessage(err)),
  });
  return (
    <>
      {run.status === 'Pending' || run.status === 'InProgress' ? (
        <Button busy={act.isPending} onClick={() => act.mutate('cancel')}>
          Cancel run
        </Button>
      ) : null}
      {run.status === 'Failed' || run.status === 'Cancelled' ? (
        <Button variant="danger" busy={act.isPending} onClick={() => act.mutate('delete')}>
          Delete run
        </Button>
      ) : null}
      {error ? <span className="error-text">{error}</span> : null}
    </>
  );
}

function Progress({ run }: { run: ConsolidationRun }) {
  const done = run.steps.filter((s) => s.status === 'Completed' || s.status === 'Skipped').length;
  const final = FINAL.includes(run.status);
  return (
    <Card>
      <ol className="stepper" aria-label="Run steps">
        {run.steps.map((s, i) => (
          <li
            key={s.stepType}
            className={s.status}
            aria-current={s.status === 'InProgress' ? 'step' : undefined}
            data-testid={`step-${s.stepType}`}
          >
            <div className="step-name">
              {i + 1}. {STEP_TEXT[s.stepType]}
            </div>
            <div className="step-meta">
              <Badge value={s.status} />
              {s.durationMs !== null ? ` ${formatDuration(s.durationMs)}` : ''}
            </div>
            {s.details ? <div className="step-details">{s.details}</div> : null}
            {s.errorMessage ? <div className="step-details error-text">{s.errorMessage}</div> : null}
          </li>
        ))}
      </ol>
      <div
        className="progress"
        role="progressbar"
        aria-label="Run progress"
        aria-valuemin={0}
        aria-valuemax={7}
        aria-valuenow={done}
        aria-valuetext={final ? humanize(run.status) : `${done} of 7 steps`}
      >
        <div style={{ width: `${(done / 7) * 100}%` }} />
      </div>
      <p className="muted" aria-live="polite">
        {final
          ? `${humanize(run.status)} ${run.completedAt ? formatTimestamp(run.completedAt) : ''}`
          : `${done} of 7 steps done…`}
      </p>
    </Card>
  );
}

function Validation({ run }: { run: ConsolidationRun }) {
  const issues = run.validationResult?.issues ?? [];
  return (
    <Card title="Validation">
      {issues.length === 0 ? (
        <p className="ok-text">No issue.</p>
      ) : (
        <table className="table table-compact" aria-label="Validation issues">
          <thead>
            <tr>
              <th scope="col">Severity</th>
              <th scope="col">Code</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {issues.map((i, n) => (
              <tr key={n}>
                <td>
                  <Badge value={i.severity} />
                </td>
                <td className="mono">{i.code}</td>
                <td>{i.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}

function Results({ run }: { run: ConsolidationRun }) {
  const [params, setParams] = useSearchParams();
  const view = params.get('view') ?? 'summary';
  return (
    <>
      <Tabs
        label="Run views"
        items={VIEWS}
        selected={view}
        onSelect={(id) => setParams(id === 'summary' ? {} : { view: id }, { replace: true })}
      />
      <div role="tabpanel" aria-labelledby={`tab-${view}`}>
        {view === 'summary' ? <Summary run={run} /> : <Statement run={run} view={view} />}
      </div>
    </>
  );
}

function Summary({ run }: { run: ConsolidationRun }) {
  const t = run.totals;
  const applied = run.eliminations.filter((e) => e.status === 'Applied').length;
  return (
    <>
      {t ? (
        <div className="kpis">
          <Kpi label="Net income" value={<Amount money={t.netIncome} currency />} />
          <Kpi
            label="Attributable to the parent"
            value={<Amount money={t.netIncomeAttributableToParent} currency />}
          />
          <Kpi label="Attributable to NCI" value={<Amount money={t.netIncomeAttributableToNCI} currency />} />
          <Kpi label="Non-controlling interest" value={<Amount money={t.totalNCI} currency />} />
          <Kpi
            label={`Eliminations (${applied} applied)`}
            value={<Amount money={t.totalEliminations} currency />}
          />
        </div>
      ) : null}
      <Validation run={run} />
      <Card title="Eliminations">
        {run.eliminations.length === 0 ? (
          <Empty>No elimination rule was evaluated.</Empty>
        ) : (
          <table className="table" aria-label="Eliminations">
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col">Status</th>
                <th scope="col">Debit / credit</th>
                <th scope="col" className="num">
                  Source
                </th>
                <th scope="col" className="num">
                  Target
                </th>
                <th scope="col" className="num">
                  Eliminated
                </th>
              </tr>
            </thead>
            <tbody>
              {run.eliminations.map((e) => (
                <tr key={e.eliminationRuleId}>
                  <td>
                    {e.ruleName}
                    <div className="muted">
                      {humanize(e.eliminationType)} · priority {e.priority}
                      {e.intercompanyTransactionIds.length > 0
                        ? ` · ${e.intercompanyTransactionIds.length} intercompany transaction(s)`
                        : ''}
                    </div>
                  </td>
                  <td>
                    <Badge value={e.status} />
                    {e.skipReason ? (
                      <div className="muted">{SKIP_REASONS[e.skipReason] ?? e.skipReason}</div>
                    ) : null}
                  </td>
                  <td>
                    Dr {e.debitAccountNumber} / Cr {e.creditAccountNumber}
                  </td>
                  <td className="num">
                    <Amount money={e.sourceBalance} />
                  </td>
                  <td className="num">
                    <Amount money={e.targetBalance} />
                  </td>
                  <td className="num">
                    <Amount money={e.amount} strong />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
      <div className="grid-2">
        <Card title="Exchange rates used">
          {run.exchangeRatesUsed.length === 0 ? (
            <Empty>Every company reports in the group currency.</Empty>
          ) : (
            <table className="table table-compact" aria-label="Exchange rates used">
              <thead>
                <tr>
                  <th scope="col">Pair</th>
                  <th scope="col">Purpose</th>
                  <th scope="col">Stored rate</th>
                  <th scope="col" className="num">
                    Applied
                  </th>
                </tr>
              </thead>
              <tbody>
                {run.exchangeRatesUsed.map((u, i) => (
                  <tr key={`${u.exchangeRateId}-${u.purpose}-${i}`}>
                    <td>
                      {u.fromCurrency} → {u.toCurrency}
                    </td>
                    <td>{u.purpose}</td>
                    <td className="muted">
                      {u.rateType} {u.effectiveDate}{' '}
                      {u.derivation !== 'Direct' ? `(${humanize(u.derivation).toLowerCase()})` : ''}
                    </td>
                    <td className="num">{u.effectiveRate}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Card>
        <Card title="Companies in this run">
          <table className="table table-compact" aria-label="Run members">
            <thead>
              <tr>
                <th scope="col">Company</th>
                <th scope="col">Method</th>
                <th scope="col" className="num">
                  Ownership
                </th>
                <th scope="col" className="num">
                  NCI
                </th>
                <th scope="col">Currency</th>
              </tr>
            </thead>
            <tbody>
              {run.members.map((m) => (
                <tr key={m.companyId}>
                  <td>
                    {m.companyName} {m.role === 'Parent' ? <span className="muted">(parent)</span> : null}
                    {!m.included ? <span className="muted"> (not included)</span> : null}
                  </td>
                  <td>{humanize(m.consolidationMethod)}</td>
                  <td className="num">{formatPercent(m.ownershipPercentage)}</td>
                  <td className="num">{formatPercent(m.nonControllingInterestPercentage)}</td>
                  <td>{m.functionalCurrency}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Card>
      </div>
      <Card title="Run">
        <Definition
          items={[
            ['Started', formatTimestamp(run.startedAt)],
            ['Completed', formatTimestamp(run.completedAt)],
            [
              'Options',
              Object.entries(run.options)
                .filter(([, v]) => v === true)
                .map(([k]) => humanize(k))
                .join(', ') || '—',
            ],
            ['Manual rules approved', String(run.options.approvedManualRuleIds.length)],
          ]}
        />
      </Card>
    </>
  );
}

function Kpi(props: { label: string; value: React.ReactNode }) {
  return (
    <div className="kpi">
      <div className="label">{props.label}</div>
      <div className="value">{props.value}</div>
    </div>
  );
}

function Statement({ run, view }: { run: ConsolidationRun; view: string }) {
  const { orgId } = useOrg();
  const [tbView, setTbView] = useState<'closing' | 'opening'>('closing');
  const [drill, setDrill] = useState<DrillTarget | null>(null);
  const query = { organizationId: orgId };
  const path = { id: run.id };
  const report = useQuery({
    queryKey: ['org', orgId, 'run-report', run.id, view, tbView],
    queryFn: async () => {
      switch (view) {
        case 'balance-sheet':
          return {
            kind: view,
            data: await call(
              api.GET('/api/v1/consolidation/runs/{id}/reports/balance-sheet', { params: { path, query } }),
            ),
          } as const;
        case 'income-statement':
          return {
            kind: view,
            data: await call(
              api.GET('/api/v1/consolidation/runs/{id}/reports/income-statement', {
                params: { path, query },
              }),
            ),
          } as const;
        case 'cash-flow':
          return {
            kind: view,
            data: await call(
              api.GET('/api/v1/consolidation/runs/{id}/reports/cash-flow', { params: { path, query } }),
            ),
          } as const;
        case 'equity':
          return {
            kind: view,
            data: await call(
              api.GET('/api/v1/consolidation/runs/{id}/reports/equity-statement', {
                params: { path, query },
              }),
            ),
          } as const;
        default:
          return {
            kind: 'trial-balance',
            data: await call(
              api.GET('/api/v1/consolidation/runs/{id}/trial-balance', {
                params: { path, query: { ...query, view: tbView } },
              }),
            ),
          } as const;
      }
    },
    staleTime: Infinity,
  });
  if (report.isPending) return <Loading label="Loading the statement…" />;
  if (report.error) return <Alert kind="error">{report.error.message}</Alert>;
  const r = report.data;
  // The statement as a file (CSV, XLSX), requested through the typed client in the chosen format.
  const blob = 'blob' as const;
  const files: Record<
    typeof r.kind,
    { path: ExportPath; download: (format: ExportFormat) => Promise<Download> }
  > = {
    'balance-sheet': {
      path: '/api/v1/consolidation/runs/{id}/reports/balance-sheet',
      download: (format) =>
        api.GET('/api/v1/consolidation/runs/{id}/reports/balance-sheet', {
          params: { path, query: { ...query, format } },
          parseAs: blob,
        }),
    },
    'income-statement': {
      path: '/api/v1/consolidation/runs/{id}/reports/income-statement',
      download: (format) =>
        api.GET('/api/v1/consolidation/runs/{id}/reports/income-statement', {
          params: { path, query: { ...query, format } },
          parseAs: blob,
        }),
    },
    'cash-flow': {
      path: '/api/v1/consolidation/runs/{id}/reports/cash-flow',
      download: (format) =>
        api.GET('/api/v1/consolidation/runs/{id}/reports/cash-flow', {
          params: { path, query: { ...query, format } },
          parseAs: blob,
        }),
    },
    equity: {
      path: '/api/v1/consolidation/runs/{id}/reports/equity-statement',
      download: (format) =>
        api.GET('/api/v1/consolidation/runs/{id}/reports/equity-statement', {
          params: { path, query: { ...query, format } },
          parseAs: blob,
        }),
    },
    'trial-balance': {
      path: '/api/v1/consolidation/runs/{id}/trial-balance',
      download: (format) =>
        api.GET('/api/v1/consolidation/runs/{id}/trial-balance', {
          params: { path, query: { ...query, view: tbView, format } },
          parseAs: blob,
        }),
    },
  };
  const exports = (
    <ExportButtons
      path={files[r.kind].path}
      download={files[r.kind].download}
      filename={`${r.kind}-${run.periodRef.year}-${run.periodRef.period}`}
    />
  );
  // Where a line comes from: opened from the trial balance (its view) or a statement (closing view).
  const drilled = (
    <ContributionsDialog
      run={run}
      target={drill}
      view={r.kind === 'trial-balance' ? tbView : 'closing'}
      onClose={() => setDrill(null)}
    />
  );
  switch (r.kind) {
    case 'balance-sheet':
      return (
        <Card>
          <StatementHeader
            title="Consolidated balance sheet"
            subtitle={`${r.data.groupName} · as of ${r.data.asOfDate}`}
            check={balanceSheetCheck(r.data)}
            actions={exports}
          />
          <BalanceSheetChart report={r.data} />
          <CompositionByCompany run={run} nci={r.data.nonControllingInterest} />
          <BalanceSheetView report={r.data} drill={setDrill} />
          {drilled}
        </Card>
      );
    case 'income-statement':
      return (
        <Card>
          <StatementHeader
            title="Consolidated income statement"
            subtitle={`${r.data.groupName} · ${r.data.periodStartDate} to ${r.data.periodEndDate}`}
            actions={exports}
          />
          <IncomeStatementView report={r.data} drill={setDrill} />
          {drilled}
        </Card>
      );
    case 'cash-flow':
      return (
        <Card>
          <StatementHeader
            title="Consolidated cash-flow statement"
            subtitle={`${r.data.groupName} · indirect method · ${r.data.periodStartDate} to ${r.data.periodEndDate}`}
            check={
              <span className={`statement-check ${r.data.isReconciled ? 'ok' : 'off'}`}>
                {r.data.isReconciled ? '✓ Reconciled' : '✗ Not reconciled'}
              </span>
            }
            actions={exports}
          />
          <CashFlowView report={r.data} />
        </Card>
      );
    case 'equity':
      return (
        <Card>
          <StatementHeader
            title="Consolidated statement of changes in equity"
            subtitle={`${r.data.groupName} · ${r.data.periodStartDate} to ${r.data.periodEndDate}`}
            actions={exports}
          />
          <EquityStatementView report={r.data} />
        </Card>
      );
    case 'trial-balance':
      return (
        <Card>
          <StatementHeader
            title="Consolidated trial balance"
            subtitle={`${r.data.view === 'opening' ? 'Opening view' : 'Closing view'} as of ${r.data.asOfDate}`}
            check={
              <span className={`statement-check ${r.data.isBalanced ? 'ok' : 'off'}`}>
                {r.data.isBalanced ? '✓ Balanced' : '✗ Not balanced'}
              </span>
            }
            actions={
              <>
                <select
                  aria-label="Trial-balance view"
                  value={tbView}
                  onChange={(e) => setTbView(e.target.value as 'closing' | 'opening')}
                >
                  <option value="closing">Closing view</option>
                  <option value="opening">Opening view</option>
                </select>
                {exports}
              </>
            }
          />
          <p className="muted">
            Choose a line to see which companies, eliminations and adjustments make it up.
          </p>
          <ConsolidatedTrialBalanceView tb={r.data} drill={setDrill} />
          {drilled}
          {r.data.nonControllingInterests.length > 0 ? (
            <>
              <h3 className="section-title">Non-controlling interests</h3>
              <table className="table table-compact" aria-label="Non-controlling interests">
                <thead>
                  <tr>
                    <th scope="col">Company</th>
                    <th scope="col" className="num">
                      NCI
                    </th>
                    <th scope="col" className="num">
                      Net assets
                    </th>
                    <th scope="col" className="num">
                      Net income
                    </th>
                    <th scope="col" className="num">
                      Share of equity
                    </th>
                    <th scope="col" className="num">
                      Share of net income
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {r.data.nonControllingInterests.map((n) => (
                    <tr key={n.companyId}>
                      <td>{n.companyName}</td>
                      <td className="num">{formatPercent(n.nonControllingInterestPercentage)}</td>
                      <td className="num">
                        <Amount money={n.netAssets} />
                      </td>
                      <td className="num">
                        <Amount money={n.netIncome} />
                      </td>
                      <td className="num">
                        <Amount money={n.nciShareOfEquity} />
                      </td>
                      <td className="num">
                        <Amount money={n.nciShareOfNetIncome} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          ) : null}
        </Card>
      );
  }
}
