/**
 * The journal: entries of the organization, filtered by company, status, type, fiscal period and date
 * range (all kept in the URL), paged by the API fifty at a time — a ledger of any size loads one page.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, call } from '../api/client.ts';
import type { EntryStatus, JournalEntry } from '../api/types.ts';
import { CompanySelect } from '../components/inputs.tsx';
import { Amount, Badge, Button, Card, Field, Loaded, PageHeader, Pager } from '../components/ui.tsx';
import { humanize } from '../lib/format.ts';
import { useOrg } from '../lib/org.tsx';
import { atLeast } from '../lib/permissions.ts';
import { useCompanies } from '../lib/queries.ts';

export const PAGE_SIZE = 50;
const STATUSES: EntryStatus[] = ['Draft', 'PendingApproval', 'Approved', 'Posted', 'Reversed'];
const ENTRY_TYPES: JournalEntry['entryType'][] = [
  'Standard',
  'Adjusting',
  'Closing',
  'Reversing',
  'Recurring',
];
const FILTERS = [
  'companyId',
  'status',
  'entryType',
  'fiscalYear',
  'fiscalPeriod',
  'fromDate',
  'toDate',
] as const;

export function JournalList() {
  const { orgId, role } = useOrg();
  const navigate = useNavigate();
  const { companies, name } = useCompanies(orgId);
  const [params, setParams] = useSearchParams();
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  const filter = Object.fromEntries(FILTERS.map((k) => [k, params.get(k) ?? ''])) as Record<
    (typeof FILTERS)[number],
    string
  >;
  const setParam = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    if (key !== 'offset') next.delete('offset');
    setParams(next, { replace: key !== 'offset' });
  };

  const query = {
    organizationId: orgId,
    limit: PAGE_SIZE,
    offset,
    ...(filter.companyId ? { companyId: filter.companyId } : {}),
    ...(filter.status ? { status: filter.status as EntryStatus } : {}),
    ...(filter.entryType ? { entryType: filter.entryType as JournalEntry['entryType'] } : {}),
    ...(filter.fiscalYear ? { fiscalYear: Number(filter.fiscalYear) } : {}),
    ...(filter.fiscalPeriod ? { fiscalPeriod: Number(filter.fiscalPeriod) } : {}),
    ...(filter.fromDate ? { fromDate: filter.fromDate } : {}),
    ...(filter.toDate ? { toDate: filter.toDate } : {}),
  };
  const entries = useQuery({
    queryKey: ['org', orgId, 'journal', query],
    queryFn: () => call(api.GET('/api/v1/journal-entries', { params: { query } })),
    // The previous page stays on screen while the next one loads.
    placeholderData: keepPreviousData,
  });
  const filtered = FILTERS.some((k) => filter[k] !== '');

  return (
    <>
      <PageHeader
        title="Journal"
        subtitle="Entries of every company, newest first."
        actions={
          atLeast(role, 'member') ? (
            <Link
              className="btn btn-primary"
              to={`/o/${orgId}/journal/new${filter.companyId ? `?companyId=${filter.companyId}` : ''}`}
            >
              New entry
            </Link>
          ) : null
        }
      />
      <Card>
        <form
          className="filters"
          role="search"
          aria-label="Filter entries"
          onSubmit={(e) => e.preventDefault()}
        >
          <Field label="Company">
            <CompanySelect
              companies={companies}
              value={filter.companyId}
              onChange={(v) => setParam('companyId', v)}
              allowAll="All companies"
            />
          </Field>
          <Field label="Status">
            <select value={filter.status} onChange={(e) => setParam('status', e.target.value)}>
              <option value="">Any status</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {humanize(s)}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Type">
            <select value={filter.entryType} onChange={(e) => setParam('entryType', e.target.value)}>
              <option value="">Any type</option>
              {ENTRY_TYPES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Fiscal year">
            <input
              type="number"
              min={1900}
              max={2999}
              value={filter.fiscalYear}
              onChange={(e) => setParam('fiscalYear', e.target.value)}
            />
          </Field>
          <Field label="Period">
            <select value={filter.fiscalPeriod} onChange={(e) => setParam('fiscalPeriod', e.target.value)}>
              <option value="">Any</option>
              {Array.from({ length: 13 }, (_, i) => (
                <option key={i + 1} value={i + 1}>
                  {i + 1}
                </option>
              ))}
            </select>
          </Field>
          <Field label="From">
            <input
              type="date"
              value={filter.fromDate}
              onChange={(e) => setParam('fromDate', e.target.value)}
            />
          </Field>
          <Field label="To">
            <input type="date" value={filter.toDate} onChange={(e) => setParam('toDate', e.target.value)} />
          </Field>
          {filtered ? (
            <Button
              size="sm"
              variant="ghost"
              onClick={() => setParams(new URLSearchParams(), { replace: true })}
            >
              Clear filters
            </Button>
          ) : null}
        </form>
        <Loaded
          query={entries}
          loading="Loading entries…"
          empty={(data) =>
            data.entries.length === 0
              ? filtered
                ? 'No entry matches the filters.'
                : 'No journal entry yet.'
              : null
          }
        >
          {(data) => (
            <>
              <table className="table" aria-label="Journal entries" aria-busy={entries.isFetching}>
                <thead>
                  <tr>
                    <th scope="col">Date</th>
                    <th scope="col">Number</th>
                    <th scope="col">Company</th>
                    <th scope="col">Description</th>
                    <th scope="col">Period</th>
                    <th scope="col">Status</th>
                    <th scope="col" className="num">
                      Amount
                    </th>
                    <th scope="col">Currency</th>
                  </tr>
                </thead>
                <tbody>
                  {data.entries.map((e) => (
                    <tr
                      key={e.id}
                      className="clickable"
                      onClick={() => navigate(`/o/${orgId}/journal/${e.id}`)}
                    >
                      <td className="tabular">{e.transactionDate}</td>
                      <td>
                        <Link to={`/o/${orgId}/journal/${e.id}`} onClick={(ev) => ev.stopPropagation()}>
                          {e.entryNumber}
                        </Link>
                      </td>
                      <td>{name(e.companyId)}</td>
                      <td>
                        {e.description}
                        {e.isMultiCurrency ? <span className="muted"> · multi-currency</span> : null}
                      </td>
                      <td className="tabular">
                        {e.fiscalPeriod.year}/{String(e.fiscalPeriod.period).padStart(2, '0')}
                      </td>
                      <td>
                        <Badge value={e.status} />
                      </td>
                      <td className="num">
                        <Amount money={e.totalDebits} />
                      </td>
                      <td>{e.totalDebits.currency}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager
                total={data.total}
                limit={PAGE_SIZE}
                offset={offset}
                onChange={(o) => setParam('offset', o ? String(o) : '')}
                label="Journal pages"
              />
            </>
          )}
        </Loaded>
      </Card>
    </>
  );
}
