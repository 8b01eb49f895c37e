/**
 * Company statements: trial balance, balance sheet, income statement, cash flow and changes in equity,
 * with date pickers and comparatives, all in the company's functional currency. The choices are kept
 * in the URL, so a statement can be bookmarked or shared.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { api, call } from '../api/client.ts';
import type {
  BalanceSheetReport,
  CashFlowReport,
  Company,
  EquityStatementReport,
  IncomeStatementReport,
  TrialBalanceReport,
} from '../api/types.ts';
import { type Download, type ExportFormat, ExportButtons, type ExportPath } from '../components/export.tsx';
import { CompanySelect } from '../components/inputs.tsx';
import {
  BalanceSheetChart,
  BalanceSheetView,
  balanceSheetCheck,
  CashFlowView,
  EquityStatementView,
  IncomeStatementView,
  StatementHeader,
  TrialBalanceView,
} from '../components/statements.tsx';
import { Alert, Card, Empty, Field, Loading, PageHeader, Tabs } from '../components/ui.tsx';
import { errorMessage } from '../lib/errors.ts';
import { fiscalYearStart, yearEarlier } from '../lib/dates.ts';
import { today } from '../lib/format.ts';
import { useOrg } from '../lib/org.tsx';
import { useCompanies } from '../lib/queries.ts';

const REPORTS = [
  { id: 'balance-sheet', label: 'Balance sheet' },
  { id: 'income-statement', label: 'Income statement' },
  { id: 'cash-flow', label: 'Cash flow' },
  { id: 'equity', label: 'Changes in equity' },
  { id: 'trial-balance', label: 'Trial balance' },
];

export function Reports() {
  const { orgId } = useOrg();
  const { companies, byId } = useCompanies(orgId);
  const [params, setParams] = useSearchParams();
  // Without a choice in the URL, the first company.
  const companyId = params.get('companyId') || companies[0]?.id || '';
  const report = params.get('report') ?? 'balance-sheet';
  const company = byId.get(companyId);
  const set = (patch: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(patch)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    setParams(next, { replace: true });
  };

  return (
    <>
      <PageHeader
        title="Company statements"
        subtitle={
          company
            ? `${company.name} · amounts in ${company.functionalCurrency}`
            : 'Statements of one company, in its functional currency.'
        }
        actions={
          <Field label="Company" className="header-field">
            <CompanySelect
              companies={companies}
              value={companyId}
              onChange={(id) => set({ companyId: id })}
            />
          </Field>
        }
      />
      <Tabs
        label="Statements"
        items={REPORTS}
        selected={report}
        onSelect={(id) => set({ report: id === 'balance-sheet' ? '' : id })}
      />
      <div role="tabpanel" aria-labelledby={`tab-${report}`}>
        {!company ? (
          <Empty>Choose a company.</Empty>
        ) : (
          <CompanyReport key={company.id} company={company} report={report} params={params} set={set} />
        )}
      </div>
    </>
  );
}

function CompanyReport(props: {
  company: Company;
  report: string;
  params: URLSearchParams;
  set: (p: Record<string, string>) => void;
}) {
  const { orgId } = useOrg();
  const { company, report, params, set } = props;
  const asOf = params.get('asOf') ?? today();
  const from = params.get('from') ?? fiscalYearStart(company.fiscalYearEnd, asOf);
  const to = params.get('to') ?? asOf;
  const comparative = params.get('compare') === '1';
  const [zero, setZero] = useState(false);
  const base = { organizationId: orgId, companyId: company.id };
  const pointInTime = report === 'balance-sheet' || report === 'trial-balance';

  const query = useQuery({
    queryKey: ['org', orgId, 'report', company.id, report, asOf, from, to, comparative, zero],
    queryFn: async () => {
      switch (report) {
        case 'income-statement':
          return {
            kind: report,
            data: await call(
              api.GET('/api/v1/reports/income-statement', {
                params: {
                  query: {
                    ...base,
                    periodStartDate: from,
                    periodEndDate: to,
                    ...(comparative
                      ? { comparativeStartDate: yearEarlier(from), comparativeEndDate: yearEarlier(to) }
                      : {}),
                  },
                },
              }),
            ),
          } as const;
        case 'cash-flow':
          return {
            kind: report,
            data: await call(
              api.GET('/api/v1/reports/cash-flow', {
                params: { query: { ...base, periodStartDate: from, periodEndDate: to } },
              }),
            ),
          } as const;
        case 'equity':
          return {
            kind: report,
            data: await call(
              api.GET('/api/v1/reports/equity-statement', {
                params: { query: { ...base, periodStartDate: from, periodEndDate: to } },
              }),
            ),
          } as const;
        case 'trial-balance':
          return {
            kind: report,
            data: await call(
              api.GET('/api/v1/reports/trial-balance', {
                params: { query: { ...base, asOfDate: asOf, excludeZeroBalances: !zero } },
              }),
            ),
          } as const;
        default:
          return {
            kind: 'balance-sheet',
            data: await call(
              api.GET('/api/v1/reports/balance-sheet', {
                params: {
                  query: {
                    ...base,
                    asOfDate: asOf,
                    includeZeroBalances: zero,
                    ...(comparative ? { comparativeDate: yearEarlier(asOf) } : {}),
                  },
                },
              }),
            ),
          } as const;
      }
    },
    placeholderData: keepPreviousData,
  });

  // The statement as a file (CSV, XLSX), requested through the typed client in the chosen format.
  const point = { ...base, asOfDate: asOf };
  const period = { ...base, periodStartDate: from, periodEndDate: to };
  const blob = 'blob' as const;
  const exports: Record<string, { path: ExportPath; download: (format: ExportFormat) => Promise<Download> }> =
    {
      'balance-sheet': {
        path: '/api/v1/reports/balance-sheet',
        download: (format) =>
          api.GET('/api/v1/reports/balance-sheet', {
            params: { query: { ...point, format } },
            parseAs: blob,
          }),
      },
      'income-statement': {
        path: '/api/v1/reports/income-statement',
        download: (format) =>
          api.GET('/api/v1/reports/income-statement', {
            params: { query: { ...period, format } },
            parseAs: blob,
          }),
      },
      'cash-flow': {
        path: '/api/v1/reports/cash-flow',
        download: (format) =>
          api.GET('/api/v1/reports/cash-flow', { params: { query: { ...period, format } }, parseAs: blob }),
      },
      equity: {
        path: '/api/v1/reports/equity-statement',
        download: (format) =>
          api.GET('/api/v1/reports/equity-statement', {
            params: { query: { ...period, format } },
            parseAs: blob,
          }),
      },
      'trial-balance': {
        path: '/api/v1/reports/trial-balance',
        download: (format) =>
          api.GET('/api/v1/reports/trial-balance', {
            params: { query: { ...point, format } },
            parseAs: blob,
          }),
      },
    };
  const file = exports[report] ?? exports['balance-sheet']!;

  return (
    <Card>
      <form className="filters" aria-label="Statement dates" onSubmit={(e) => e.preventDefault()}>
        {pointInTime ? (
          <Field label="As of">
            <input type="date" value={asOf} onChange={(e) => set({ asOf: e.target.value })} />
          </Field>
        ) : (
          <>
            <Field label="From">
              <input type="date" value={from} onChange={(e) => set({ from: e.target.value })} />
            </Field>
            <Field label="To">
              <input type="date" value={to} onChange={(e) => set({ to: e.target.value })} />
            </Field>
          </>
        )}
        {report === 'balance-sheet' || report === 'income-statement' ? (
          <label className="check">
            <input
              type="checkbox"
              checked={comparative}
              onChange={(e) => set({ compare: e.target.checked ? '1' : '' })}
            />
            Compare with a year earlier
          </label>
        ) : null}
        {pointInTime ? (
          <label className="check">
            <input type="checkbox" checked={zero} onChange={(e) => setZero(e.target.checked)} />
            Show zero balances
          </label>
        ) : null}
      </form>
      {query.isPending ? (
        <Loading label="Loading the statement…" />
      ) : query.error ? (
        <Alert kind="error">{errorMessage(query.error)}</Alert>
      ) : (
        <div aria-busy={query.isFetching}>
          <ReportBody
            result={query.data}
            company={company}
            actions={
              <ExportButtons
                path={file.path}
                download={file.download}
                filename={`${company.name}-${report}`}
              />
            }
          />
        </div>
      )}
    </Card>
  );
}

type ReportResult =
  | { kind: 'balance-sheet'; data: BalanceSheetReport }
  | { kind: 'income-statement'; data: IncomeStatementReport }
  | { kind: 'cash-flow'; data: CashFlowReport }
  | { kind: 'equity'; data: EquityStatementReport }
  | { kind: 'trial-balance'; data: TrialBalanceReport };

function ReportBody({
  result,
  company,
  actions,
}: {
  result: ReportResult;
  company: Company;
  actions: React.ReactNode;
}) {
  switch (result.kind) {
    case 'balance-sheet':
      return (
        <>
          <StatementHeader
            title="Balance sheet"
            subtitle={`${company.name} · as of ${result.data.asOfDate}`}
            check={balanceSheetCheck(result.data)}
            actions={actions}
          />
          <BalanceSheetChart report={result.data} />
          <BalanceSheetView report={result.data} />
        </>
      );
    case 'income-statement':
      return (
        <>
          <StatementHeader
            title="Income statement"
            subtitle={`${company.name} · ${result.data.periodStartDate} to ${result.data.periodEndDate}`}
            actions={actions}
          />
          <IncomeStatementView report={result.data} />
        </>
      );
    case 'cash-flow':
      return (
        <>
          <StatementHeader
            title="Cash-flow statement"
            subtitle={`${company.name} · indirect method · ${result.data.periodStartDate} to ${result.data.periodEndDate}`}
            check={
              <span className={`statement-check ${result.data.isReconciled ? 'ok' : 'off'}`}>
                {result.data.isReconciled ? '✓ Reconciled' : '✗ Not reconciled'}
              </span>
            }
            actions={actions}
          />
          <CashFlowView report={result.data} />
        </>
      );
    case 'equity':
      return (
        <>
          <StatementHeader
            title="Statement of changes in equity"
            subtitle={`${company.name} · ${result.data.periodStartDate} to ${result.data.periodEndDate}`}
            actions={actions}
          />
          <EquityStatementView report={result.data} />
        </>
      );
    case 'trial-balance':
      return (
        <>
          <StatementHeader
            title="Trial balance"
            subtitle={`${company.name} · as of ${result.data.asOfDate}`}
            check={
              <span className={`statement-check ${result.data.isBalanced ? 'ok' : 'off'}`}>
                {result.data.isBalanced ? '✓ Balanced' : '✗ Not balanced'}
              </span>
            }
            actions={actions}
          />
          <TrialBalanceView report={result.data} />
        </>
      );
  }
}
