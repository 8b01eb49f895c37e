/** The organization at a glance: what waits for the user in this month's close. */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, call } from '../api/client.ts';
import { Alert, Badge, Card, Empty, PageHeader } from '../components/ui.tsx';
import { formatTimestamp } from '../lib/format.ts';
import { useOrg } from '../lib/org.tsx';
import { atLeast } from '../lib/permissions.ts';
import { groupsQuery, useCompanies } from '../lib/queries.ts';

function useCount(key: string, fetch: () => Promise<{ total: number }>) {
  const { orgId } = useOrg();
  return useQuery({ queryKey: ['org', orgId, 'count', key], queryFn: fetch, staleTime: 15_000 });
}

export function Overview() {
  const { orgId, org, role } = useOrg();
  const { companies, isPending } = useCompanies(orgId);
  const groups = useQuery(groupsQuery(orgId));
  const journal = (status: 'Draft' | 'PendingApproval' | 'Approved') => () =>
    call(
      api.GET('/api/v1/journal-entries', { params: { query: { organizationId: orgId, status, limit: 1 } } }),
    );
  const drafts = useCount('drafts', journal('Draft'));
  const pending = useCount('pending', journal('PendingApproval'));
  const approved = useCount('approved', journal('Approved'));
  const unmatched = useCount('unmatched', () =>
    call(
      api.GET('/api/v1/intercompany-transactions', {
        params: { query: { organizationId: orgId, unmatched: true, limit: 1 } },
      }),
    ),
  );
  const runs = useQuery({
    queryKey: ['org', orgId, 'runs', 'recent'],
    queryFn: () =>
      call(api.GET('/api/v1/consolidation/runs', { params: { query: { organizationId: orgId, limit: 5 } } })),
  });
  const groupName = (id: string) => groups.data?.find((g) => g.id === id)?.name ?? 'Group';
  const tile = (label: string, count: number | undefined, to: string) => (
    <Link className="kpi kpi-link" to={to}>
      <div className="label">{label}</div>
      <div className="value">{count ?? '…'}</div>
    </Link>
  );
  return (
    <>
      <PageHeader
        title={org.name}
        subtitle={`Reporting in ${org.reportingCurrency} · ${org.settings.requireApproval ? 'entries need approval' : 'admins post directly'} · your role: ${role}`}
      />
      {!isPending && companies.length === 0 ? (
        <Alert kind="info">
          Start by creating the companies of the group.{' '}
          {atLeast(role, 'admin') ? <Link to={`/o/${orgId}/companies/new`}>New company</Link> : null}
        </Alert>
      ) : null}
      <div className="kpis">
        {tile('Companies', companies.length, `/o/${orgId}/companies`)}
        {tile('Drafts', drafts.data?.total, `/o/${orgId}/journal?status=Draft`)}
        {tile('Waiting for approval', pending.data?.total, `/o/${orgId}/journal?status=PendingApproval`)}
        {tile('Approved, not posted', approved.data?.total, `/o/${orgId}/journal?status=Approved`)}
        {tile('Unmatched intercompany', unmatched.data?.total, `/o/${orgId}/intercompany`)}
      </div>
      <div className="grid-2">
        <Card title="Recent consolidation runs">
          {runs.data && runs.data.runs.length > 0 ? (
            <table className="table table-compact" aria-label="Recent runs">
              <tbody>
                {runs.data.runs.map((r) => (
                  <tr key={r.id}>
                    <td>
                      <Link to={`/o/${orgId}/consolidation/runs/${r.id}`}>
                        {groupName(r.groupId)} {r.periodRef.year}/
                        {String(r.periodRef.period).padStart(2, '0')}
                      </Link>
                    </td>
                    <td>
                      <Badge value={r.status} />
                    </td>
                    <td className="muted">{formatTimestamp(r.initiatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <Empty>No run yet.</Empty>
          )}
        </Card>
        <Card title="Close checklist">
          <ol className="checklist">
            <li>
              <Link to={`/o/${orgId}/journal`}>Book, approve and post the month's entries</Link>
            </li>
            <li>
              <Link to={`/o/${orgId}/rates`}>Enter closing and average exchange rates</Link>
            </li>
            <li>
              <Link to={`/o/${orgId}/intercompany`}>Reconcile intercompany transactions</Link>
            </li>
            <li>
              <Link to={`/o/${orgId}/fiscal`}>Close the period in every company</Link>
            </li>
            <li>
              <Link to={`/o/${orgId}/consolidation`}>Run the consolidation and read the statements</Link>
            </li>
          </ol>
        </Card>
      </div>
    </>
  );
}
