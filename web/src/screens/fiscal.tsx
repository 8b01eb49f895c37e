/**
 * Fiscal years and periods of a company: closing and reopening periods, and the year-end close with its
 * preview (revenue, expenses and the result that moves to retained earnings, and what blocks it).
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, call } from '../api/client.ts';
import type { FiscalPeriod, FiscalYear } from '../api/types.ts';
import { useConfirm } from '../components/confirm.tsx';
import { CompanySelect } from '../components/inputs.tsx';
import { useToast } from '../components/toast.tsx';
import {
  Alert,
  Amount,
  Badge,
  Button,
  Card,
  Definition,
  Empty,
  Field,
  Form,
  Loaded,
  Loading,
  PageHeader,
  Tabs,
} from '../components/ui.tsx';
import { errorMessage } from '../lib/errors.ts';
import { formatTimestamp, humanize } from '../lib/format.ts';
import { useOrg } from '../lib/org.tsx';
import { atLeast } from '../lib/permissions.ts';
import { useCompanies } from '../lib/queries.ts';

const BLOCKER_TEXT: Record<string, string> = {
  YEAR_ALREADY_CLOSED: 'The year is already closed.',
  RETAINED_EARNINGS_NOT_CONFIGURED: 'The company has no retained-earnings account (set it on the company).',
  RETAINED_EARNINGS_ACCOUNT_INVALID: 'The retained-earnings account is not a postable equity account.',
  UNPOSTED_ENTRIES:
    'Entries of the year are still draft, pending approval or approved: post or delete them first.',
};

export function Fiscal() {
  const { orgId, role } = useOrg();
  const { companies } = useCompanies(orgId);
  const [params, setParams] = useSearchParams();
  // Without a choice in the URL, the first company.
  const companyId = params.get('companyId') || companies[0]?.id || '';
  const selectedYear = params.get('year') ?? '';
  const setParam = (patch: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(patch)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    setParams(next, { replace: true });
  };

  const years = useQuery({
    queryKey: ['org', orgId, 'fiscal-years', companyId],
    queryFn: () =>
      call(
        api.GET('/api/v1/organizations/{organizationId}/companies/{companyId}/fiscal-years', {
          params: { path: { organizationId: orgId, companyId }, query: { limit: 100 } },
        }),
      ),
    enabled: !!companyId,
    placeholderData: keepPreviousData,
  });
  const list = years.data?.fiscalYears ?? [];
  const year = list.find((y) => String(y.year) === selectedYear) ?? list[0];

  return (
    <>
      <PageHeader
        title="Fiscal years and periods"
        subtitle="Close periods as the month is done; close the year to move its result to retained earnings."
        actions={
          <Field label="Company" className="header-field">
            <CompanySelect
              companies={companies}
              value={companyId}
              onChange={(id) => setParams(new URLSearchParams({ companyId: id }), { replace: true })}
            />
          </Field>
        }
      />
      {!companyId ? (
        <Empty>Create a company first.</Empty>
      ) : years.isPending ? (
        <Loading />
      ) : years.error ? (
        <Alert kind="error">{years.error.message}</Alert>
      ) : (
        <>
          <div className="year-bar">
            <Tabs
              label="Fiscal years"
              items={list.map((y) => ({
                id: String(y.year),
                label: `${y.name}${y.status === 'Closed' ? ' 🔒' : ''}`,
              }))}
              selected={year ? String(year.year) : ''}
              onSelect={(id) => setParam({ year: id })}
            />
            {atLeast(role, 'admin') ? (
              <NewYear orgId={orgId} companyId={companyId} onCreated={(y) => setParam({ year: String(y) })} />
            ) : null}
          </div>
          {year ? (
            <div role="tabpanel" aria-labelledby={`tab-${year.year}`}>
              <YearView
                key={year.id}
                orgId={orgId}
                companyId={companyId}
                year={year}
                canManage={atLeast(role, 'admin')}
              />
            </div>
          ) : (
            <Empty>
              No fiscal year yet. Years are created when the first entry is booked, or create one here.
            </Empty>
          )}
        </>
      )}
    </>
  );
}

function NewYear(props: { orgId: string; companyId: string; onCreated: (year: number) => void }) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const [value, setValue] = useState(String(new Date().getFullYear()));
  const [error, setError] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/organizations/{organizationId}/companies/{companyId}/fiscal-years', {
          params: { path: { organizationId: props.orgId, companyId: props.companyId } },
          body: { year: Number(value) },
        }),
      ),
    onSuccess: async (y) => {
      setError(null);
      toast(`${y.name} created`);
      await queryClient.invalidateQueries({
        queryKey: ['org', props.orgId, 'fiscal-years', props.companyId],
      });
      props.onCreated(y.year);
    },
    onError: (err) => setError(errorMessage(err)),
  });
  return (
    <Form className="inline-form" onSubmit={() => create.mutate()}>
      <Field label="New fiscal year" error={error ?? undefined}>
        <input type="number" min={1900} max={2999} value={value} onChange={(e) => setValue(e.target.value)} />
      </Field>
      <Button type="submit" busy={create.isPending}>
        Create year
      </Button>
    </Form>
  );
}

function YearView(props: { orgId: string; companyId: string; year: FiscalYear; canManage: boolean }) {
  const { orgId, companyId, year } = props;
  const queryClient = useQueryClient();
  const toast = useToast();
  const { confirm, ask } = useConfirm();
  const [error, setError] = useState<string | null>(null);
  const path = { organizationId: orgId, companyId, fiscalYearId: year.id };
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['org', orgId] });
  const preview = useQuery({
    queryKey: ['org', orgId, 'close-preview', year.id, year.updatedAt],
    queryFn: () =>
      call(
        api.GET(
          '/api/v1/organizations/{organizationId}/companies/{companyId}/fiscal-years/{fiscalYearId}/close/preview',
          { params: { path } },
        ),
      ),
  });
  const period = useMutation({
    mutationFn: async (v: { period: FiscalPeriod; open: boolean; reason?: string }) => {
      const p = { path: { ...path, periodId: v.period.id } };
      if (v.open)
        return call(
          api.POST(
            '/api/v1/organizations/{organizationId}/companies/{companyId}/fiscal-years/{fiscalYearId}/periods/{periodId}/open',
            { params: p, body: { reason: v.reason || null } },
          ),
        );
      return call(
        api.POST(
          '/api/v1/organizations/{organizationId}/companies/{companyId}/fiscal-years/{fiscalYearId}/periods/{periodId}/close',
          { params: p },
        ),
      );
    },
    onSuccess: async (p) => {
      setError(null);
      toast(`${p.name} ${p.status === 'Closed' ? 'closed' : 'reopened'}`);
      await refresh();
    },
    onError: (err) => setError(errorMessage(err)),
  });
  const closeYear = useMutation({
    mutationFn: () =>
      call(
        api.POST(
          '/api/v1/organizations/{organizationId}/companies/{companyId}/fiscal-years/{fiscalYearId}/close',
          {
            params: { path },
          },
        ),
      ),
    onSuccess: async (r) => {
      setError(null);
      toast(`${year.name} closed; ${r.closingEntryIds.length} closing entry posted`);
      await refresh();
    },
    onError: (err) => setError(errorMessage(err)),
  });
  const reopenYear = useMutation({
    mutationFn: (reason: string) =>
      call(
        api.POST(
          '/api/v1/organizations/{organizationId}/companies/{companyId}/fiscal-years/{fiscalYearId}/reopen',
          {
            params: { path },
            body: { reason: reason || null },
          },
        ),
      ),
    onSuccess: async () => {
      setError(null);
      toast(`${year.name} reopened`);
      await refresh();
    },
    onError: (err) => setError(errorMessage(err)),
  });

  return (
    <>
      {error ? <Alert kind="error">{error}</Alert> : null}
      <div className="grid-2 fiscal-grid">
        <Card
          title={
            <>
              {year.name} <Badge value={year.status} />
            </>
          }
        >
          <p className="muted">
            {year.startDate} to {year.endDate}
            {year.closedAt ? ` · closed ${formatTimestamp(year.closedAt)}` : ''}
          </p>
          <table className="table table-compact" aria-label={`Periods of ${year.name}`}>
            <thead>
              <tr>
                <th scope="col">Period</th>
                <th scope="col">From</th>
                <th scope="col">To</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Unposted
                </th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {year.periods.map((p) => (
                <tr key={p.id}>
                  <td>{p.name}</td>
                  <td className="tabular">{p.startDate}</td>
                  <td className="tabular">{p.endDate}</td>
                  <td>
                    <Badge value={p.status} />
                  </td>
                  <td className="num">
                    {p.unpostedEntryCount > 0 ? (
                      <Link
                        to={`/o/${orgId}/journal?companyId=${companyId}&fiscalYear=${year.year}&fiscalPeriod=${p.periodNumber}`}
                      >
                        {p.unpostedEntryCount}
                      </Link>
                    ) : (
                      <span className="muted">0</span>
                    )}
                  </td>
                  <td className="actions">
                    {props.canManage && year.status === 'Open' ? (
                      p.status === 'Open' ? (
                        <Button
                          size="sm"
                          busy={period.isPending}
                          onClick={() => period.mutate({ period: p, open: false })}
                        >
                          Close
                        </Button>
                      ) : (
                        <Button
                          size="sm"
                          busy={period.isPending}
                          aria-label={`Reopen ${p.name}`}
                          onClick={async () => {
                            const reason = await ask({
                              title: `Reopen ${p.name}`,
                              message: `Entries can be posted in ${p.name} again until it is closed once more.`,
                              label: 'Reason (kept in the reopening history)',
                              confirmLabel: 'Reopen period',
                            });
                            if (reason !== null) period.mutate({ period: p, open: true, reason });
                          }}
                        >
                          Reopen
                        </Button>
                      )
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Card>
        <Card title="Year-end close">
          <Loaded query={preview}>
            {(data) => (
              <>
                <Definition
                  items={[
                    ['Revenue', <Amount key="r" money={data.totalRevenue} currency />],
                    ['Expenses', <Amount key="e" money={data.totalExpenses} currency />],
                    ['Net income', <Amount key="n" money={data.netIncome} currency strong />],
                    [
                      'Moves to',
                      data.retainedEarningsAccount
                        ? `${data.retainedEarningsAccount.accountNumber} ${data.retainedEarningsAccount.name}`
                        : '—',
                    ],
                    ['Unposted entries', String(data.unpostedEntryCount)],
                  ]}
                />
                {data.blockers.length > 0 ? (
                  <ul className="blockers">
                    {data.blockers.map((b) => (
                      <li key={b}>{BLOCKER_TEXT[b] ?? humanize(b)}</li>
                    ))}
                  </ul>
                ) : (
                  <p className="muted">
                    Closing posts one closing entry in period 13 that moves every revenue and expense balance
                    to retained earnings, then closes all periods.
                  </p>
                )}
                {props.canManage ? (
                  <div className="form-actions">
                    {year.status === 'Open' ? (
                      <Button
                        variant="primary"
                        disabled={!data.canProceed}
                        busy={closeYear.isPending}
                        onClick={async () => {
                          if (
                            await confirm({
                              title: `Close ${year.name}`,
                              message: `Its periods close and its result moves to retained earnings in one closing entry.`,
                              confirmLabel: `Close ${year.name}`,
                            })
                          )
                            closeYear.mutate();
                        }}
                      >
                        Close {year.name}
                      </Button>
                    ) : (
                      <Button
                        busy={reopenYear.isPending}
                        onClick={async () => {
                          const reason = await ask({
                            title: `Reopen ${year.name}`,
                            message: 'Its closing entry is reversed and its periods can be reopened.',
                            label: 'Reason (kept in the reopening history)',
                            confirmLabel: `Reopen ${year.name}`,
                          });
                          if (reason !== null) reopenYear.mutate(reason);
                        }}
                      >
                        Reopen {year.name}
                      </Button>
                    )}
                  </div>
                ) : null}
              </>
            )}
          </Loaded>
        </Card>
      </div>
    </>
  );
}
