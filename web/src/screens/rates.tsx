/**
 * Exchange rates: the list with its filters, adding one rate, pasting many from a spreadsheet (one
 * all-or-nothing request), and the lookups the service uses (latest, nearest to a date, on a date,
 * period average and period closing, with how the rate was derived).
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { ApiError, api, call } from '../api/client.ts';
import type { CurrencyCode, RateLookup, RateSource, RateType } from '../api/types.ts';
import { CompanySelect, CurrencyInput } from '../components/inputs.tsx';
import { useConfirm } from '../components/confirm.tsx';
import { useToast } from '../components/toast.tsx';
import {
  Alert,
  Badge,
  Button,
  Card,
  Definition,
  Empty,
  Field,
  Form,
  Loaded,
  PageHeader,
  Pager,
  Tabs,
} from '../components/ui.tsx';
import { errorMessage, type FormErrors, formErrors, NO_ERRORS } from '../lib/errors.ts';
import { today } from '../lib/format.ts';
import { useOrg } from '../lib/org.tsx';
import { atLeast } from '../lib/permissions.ts';
import { useCompanies } from '../lib/queries.ts';
import { parseRates } from '../lib/tsv.ts';

const RATE_TYPES: RateType[] = ['Spot', 'Average', 'Historical', 'YearEnd'];
const SOURCES: RateSource[] = ['Manual', 'CentralBankEU', 'CentralBankUS', 'System'];
const PAGE = 50;

export function Rates() {
  const { role } = useOrg();
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') ?? 'list';
  const select = (id: string) => setParams(id === 'list' ? {} : { tab: id }, { replace: true });
  const canEdit = atLeast(role, 'member');
  const tabs = [
    { id: 'list', label: 'Rates' },
    ...(canEdit ? [{ id: 'paste', label: 'Paste from a spreadsheet' }] : []),
    { id: 'lookup', label: 'Lookups' },
  ];
  return (
    <>
      <PageHeader
        title="Exchange rates"
        subtitle="Spot rates convert journal lines; closing, average and historical rates translate subsidiaries in consolidation."
      />
      <Tabs label="Exchange-rate views" items={tabs} selected={tab} onSelect={select} />
      <div role="tabpanel" aria-labelledby={`tab-${tab}`}>
        {tab === 'paste' && canEdit ? (
          <BulkPaste />
        ) : tab === 'lookup' ? (
          <Lookups />
        ) : (
          <RateList canEdit={canEdit} />
        )}
      </div>
    </>
  );
}

function RateList({ canEdit }: { canEdit: boolean }) {
  const { orgId } = useOrg();
  const { confirm } = useConfirm();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [offset, setOffset] = useState(0);
  const [filter, setFilter] = useState({ from: '', to: '', type: '', startDate: '', endDate: '' });
  const query = {
    organizationId: orgId,
    limit: PAGE,
    offset,
    ...(/^[A-Z]{3}$/.test(filter.from) ? { fromCurrency: filter.from as CurrencyCode } : {}),
    ...(/^[A-Z]{3}$/.test(filter.to) ? { toCurrency: filter.to as CurrencyCode } : {}),
    ...(filter.type ? { rateType: filter.type as RateType } : {}),
    ...(filter.startDate ? { startDate: filter.startDate } : {}),
    ...(filter.endDate ? { endDate: filter.endDate } : {}),
  };
  const rates = useQuery({
    queryKey: ['org', orgId, 'rates', query],
    queryFn: () => call(api.GET('/api/v1/exchange-rates', { params: { query } })),
    placeholderData: keepPreviousData,
  });
  const [error, setError] = useState<string | null>(null);
  const remove = useMutation({
    mutationFn: (id: string) =>
      call(
        api.DELETE('/api/v1/exchange-rates/{id}', {
          params: { path: { id }, query: { organizationId: orgId } },
        }),
      ),
    onSuccess: async () => {
      setError(null);
      toast('Rate deleted');
      await queryClient.invalidateQueries({ queryKey: ['org', orgId, 'rates'] });
    },
    onError: (err) => setError(errorMessage(err)),
  });
  const update = (patch: Partial<typeof filter>) => {
    setFilter((f) => ({ ...f, ...patch }));
    setOffset(0);
  };
  return (
    <>
      {canEdit ? <AddRate /> : null}
      <Card title="Stored rates">
        {error ? <Alert kind="error">{error}</Alert> : null}
        <div className="filters" role="search" aria-label="Filter rates">
          <Field label="From">
            <CurrencyInput value={filter.from} onChange={(e) => update({ from: e.target.value })} />
          </Field>
          <Field label="To">
            <CurrencyInput value={filter.to} onChange={(e) => update({ to: e.target.value })} />
          </Field>
          <Field label="Type">
            <select value={filter.type} onChange={(e) => update({ type: e.target.value })}>
              <option value="">Any type</option>
              {RATE_TYPES.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </Field>
          <Field label="From date">
            <input
              type="date"
              value={filter.startDate}
              onChange={(e) => update({ startDate: e.target.value })}
            />
          </Field>
          <Field label="To date">
            <input type="date" value={filter.endDate} onChange={(e) => update({ endDate: e.target.value })} />
          </Field>
        </div>
        <Loaded query={rates} empty={(data) => (data.rates.length === 0 ? 'No rate matches.' : null)}>
          {(data) => (
            <>
              <table className="table" aria-label="Exchange rates">
                <thead>
                  <tr>
                    <th scope="col">Effective</th>
                    <th scope="col">Pair</th>
                    <th scope="col">Type</th>
                    <th scope="col" className="num">
                      Rate
                    </th>
                    <th scope="col">Source</th>
                    <th scope="col">
                      <span className="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.rates.map((r) => (
                    <tr key={r.id}>
                      <td className="tabular">{r.effectiveDate}</td>
                      <td>
                        {r.fromCurrency} → {r.toCurrency}
                      </td>
                      <td>
                        <Badge value={r.rateType} label={r.rateType} />
                      </td>
                      <td className="num">{r.rate}</td>
                      <td>{r.source}</td>
                      <td className="actions">
                        {canEdit ? (
                          <Button
                            size="sm"
                            variant="ghost"
                            aria-label={`Delete ${r.fromCurrency}/${r.toCurrency} ${r.rateType} ${r.effectiveDate}`}
                            onClick={async () => {
                              if (
                                await confirm({
                                  title: 'Delete the rate',
                                  message: `Delete the ${r.rateType} rate ${r.fromCurrency}/${r.toCurrency} of ${r.effectiveDate}?`,
                                  confirmLabel: 'Delete rate',
                                  danger: true,
                                })
                              )
                                remove.mutate(r.id);
                            }}
                          >
                            Delete
                          </Button>
                        ) : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager
                total={data.total}
                limit={PAGE}
                offset={offset}
                onChange={setOffset}
                label="Rate pages"
              />
            </>
          )}
        </Loaded>
      </Card>
    </>
  );
}

function AddRate() {
  const { orgId, org } = useOrg();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [v, setV] = useState({
    from: org.reportingCurrency === 'EUR' ? 'USD' : 'EUR',
    to: org.reportingCurrency,
    rate: '',
    date: today(),
    type: 'Spot' as RateType,
    source: 'Manual' as RateSource,
  });
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const add = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/exchange-rates', {
          body: {
            organizationId: orgId,
            fromCurrency: v.from as CurrencyCode,
            toCurrency: v.to as CurrencyCode,
            rate: v.rate,
            effectiveDate: v.date,
            rateType: v.type,
            source: v.source,
          },
        }),
      ),
    onSuccess: async (r) => {
      setErrors(NO_ERRORS);
      setV((x) => ({ ...x, rate: '' }));
      toast(`${r.fromCurrency}/${r.toCurrency} ${r.rateType} ${r.rate} on ${r.effectiveDate} added`);
      await queryClient.invalidateQueries({ queryKey: ['org', orgId, 'rates'] });
    },
    onError: (err) =>
      setErrors(
        formErrors(err, ['/fromCurrency', '/toCurrency', '/rate', '/effectiveDate', '/rateType', '/source']),
      ),
  });
  const e = errors.fields;
  return (
    <Card title="Add a rate">
      <Form className="inline-form" onSubmit={() => add.mutate()}>
        <Field label="From" error={e['/fromCurrency']}>
          <CurrencyInput value={v.from} onChange={(ev) => setV({ ...v, from: ev.target.value })} />
        </Field>
        <Field label="To" error={e['/toCurrency']}>
          <CurrencyInput value={v.to} onChange={(ev) => setV({ ...v, to: ev.target.value })} />
        </Field>
        <Field label="Rate" error={e['/rate']} hint={`1 ${v.from || '…'} = ? ${v.to || '…'}`}>
          <input
            className="num"
            inputMode="decimal"
            value={v.rate}
            onChange={(ev) => setV({ ...v, rate: ev.target.value })}
          />
        </Field>
        <Field label="Effective date" error={e['/effectiveDate']}>
          <input type="date" value={v.date} onChange={(ev) => setV({ ...v, date: ev.target.value })} />
        </Field>
        <Field label="Type" error={e['/rateType']}>
          <select value={v.type} onChange={(ev) => setV({ ...v, type: ev.target.value as RateType })}>
            {RATE_TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </Field>
        <Field label="Source" error={e['/source']}>
          <select value={v.source} onChange={(ev) => setV({ ...v, source: ev.target.value as RateSource })}>
            {SOURCES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </Field>
        <Button type="submit" variant="primary" busy={add.isPending}>
          Add rate
        </Button>
      </Form>
      {errors.general ? <Alert kind="error">{errors.general}</Alert> : null}
    </Card>
  );
}

function BulkPaste() {
  const { orgId } = useOrg();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [text, setText] = useState('');
  const rows = useMemo(() => parseRates(text), [text]);
  const [serverErrors, setServerErrors] = useState<Map<number, string[]>>(new Map());
  const [general, setGeneral] = useState<string | null>(null);
  const clientProblems = rows.some((r) => r.problems.length > 0);
  const save = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/exchange-rates/bulk', {
          body: {
            rates: rows.map((r) => ({
              organizationId: orgId,
              fromCurrency: r.fromCurrency as CurrencyCode,
              toCurrency: r.toCurrency as CurrencyCode,
              rate: r.rate,
              effectiveDate: r.effectiveDate,
              rateType: r.rateType as RateType,
              source: r.source as RateSource,
            })),
          },
        }),
      ),
    onSuccess: async (result) => {
      toast(`${result.count} rates added`);
      setText('');
      setServerErrors(new Map());
      setGeneral(null);
      await queryClient.invalidateQueries({ queryKey: ['org', orgId, 'rates'] });
    },
    onError: (err) => {
      // Problems are reported per element (/rates/3/rate); a conflict names the duplicated rate.
      const byRow = new Map<number, string[]>();
      if (err instanceof ApiError && err.tag === 'ValidationError') {
        for (const issue of err.issues) {
          const m = /^\/rates\/(\d+)(\/.*)?$/.exec(issue.path);
          const i = m ? Number(m[1]) : -1;
          if (i >= 0)
            byRow.set(i, [...(byRow.get(i) ?? []), `${(m![2] ?? '').slice(1) || 'row'}: ${issue.message}`]);
        }
      } else if (err instanceof ApiError && err.tag === 'ExchangeRateAlreadyExistsError') {
        const b = err.body;
        const i = rows.findIndex(
          (r) =>
            r.fromCurrency === b.fromCurrency &&
            r.toCurrency === b.toCurrency &&
            r.effectiveDate === b.effectiveDate &&
            r.rateType === b.rateType,
        );
        if (i >= 0) byRow.set(i, ['this rate already exists']);
      } else if (err instanceof ApiError && err.tag === 'SameCurrencyExchangeRateError') {
        const i = rows.findIndex((r) => r.fromCurrency === r.toCurrency);
        if (i >= 0) byRow.set(i, [err.message]);
      }
      setServerErrors(byRow);
      setGeneral(byRow.size > 0 ? 'Nothing was saved: fix the rows marked below.' : errorMessage(err));
    },
  });
  return (
    <Card title="Paste rates">
      <p className="muted">
        Copy cells from a spreadsheet — columns <strong>from, to, rate, date</strong>, optionally{' '}
        <strong>type</strong> (Spot, Average, Historical, YearEnd) and <strong>source</strong> — and paste
        them here. Either every row is saved or none.
      </p>
      <Field label="Rates (tab-separated)">
        <textarea
          className="mono"
          rows={8}
          value={text}
          placeholder={'EUR\tUSD\t1.0800\t2026-01-01\tSpot\nEUR\tUSD\t1.0850\t2026-01-15\tAverage'}
          onChange={(e) => {
            setText(e.target.value);
            setServerErrors(new Map());
            setGeneral(null);
          }}
        />
      </Field>
      {general ? <Alert kind="error">{general}</Alert> : null}
      {rows.length > 0 ? (
        <table className="table table-compact" aria-label="Pasted rates">
          <thead>
            <tr>
              <th scope="col">Row</th>
              <th scope="col">Pair</th>
              <th scope="col" className="num">
                Rate
              </th>
              <th scope="col">Date</th>
              <th scope="col">Type</th>
              <th scope="col">Source</th>
              <th scope="col">Check</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => {
              const problems = [...r.problems, ...(serverErrors.get(i) ?? [])];
              return (
                <tr key={r.row}>
                  <td className="muted">{r.row}</td>
                  <td>
                    {r.fromCurrency} → {r.toCurrency}
                  </td>
                  <td className="num">{r.rate}</td>
                  <td className="tabular">{r.effectiveDate}</td>
                  <td>{r.rateType}</td>
                  <td>{r.source}</td>
                  <td>
                    {problems.length ? (
                      <span className="error-text">{problems.join('; ')}</span>
                    ) : (
                      <span className="ok-text">✓</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      <div className="form-actions">
        <Button
          variant="primary"
          disabled={rows.length === 0 || clientProblems || rows.length > 500}
          busy={save.isPending}
          onClick={() => save.mutate()}
        >
          Save {rows.length || ''} rate{rows.length === 1 ? '' : 's'}
        </Button>
        {rows.length > 500 ? <span className="error-text">At most 500 rates at once.</span> : null}
      </div>
    </Card>
  );
}

type LookupKind = 'latest' | 'closest' | 'rate' | 'period-average' | 'period-closing';

function Lookups() {
  const { orgId, org } = useOrg();
  const { companies } = useCompanies(orgId);
  const [kind, setKind] = useState<LookupKind>('latest');
  const [from, setFrom] = useState(org.reportingCurrency === 'EUR' ? 'USD' : 'EUR');
  const [to, setTo] = useState(org.reportingCurrency);
  const [date, setDate] = useState(today());
  const [type, setType] = useState<RateType | ''>('');
  const [year, setYear] = useState(String(new Date().getFullYear()));
  const [period, setPeriod] = useState('1');
  const [companyId, setCompanyId] = useState('');
  const [result, setResult] = useState<RateLookup | null>(null);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const lookup = useMutation({
    mutationFn: async (): Promise<RateLookup> => {
      const base = {
        organizationId: orgId,
        fromCurrency: from as CurrencyCode,
        toCurrency: to as CurrencyCode,
      };
      const rateType = type ? { rateType: type } : {};
      const periodQuery = {
        ...base,
        year: Number(year),
        period: Number(period),
        ...(companyId ? { companyId } : {}),
      };
      switch (kind) {
        case 'latest':
          return call(
            api.GET('/api/v1/exchange-rates/latest', { params: { query: { ...base, ...rateType } } }),
          );
        case 'closest':
          return call(
            api.GET('/api/v1/exchange-rates/closest', { params: { query: { ...base, date, ...rateType } } }),
          );
        case 'rate':
          return call(
            api.GET('/api/v1/exchange-rates/rate', {
              params: { query: { ...base, effectiveDate: date, rateType: type || 'Spot' } },
            }),
          );
        case 'period-average':
          return call(api.GET('/api/v1/exchange-rates/period-average', { params: { query: periodQuery } }));
        case 'period-closing':
          return call(api.GET('/api/v1/exchange-rates/period-closing', { params: { query: periodQuery } }));
      }
    },
    onSuccess: (r) => {
      setErrors(NO_ERRORS);
      setResult(r);
    },
    onError: (err) => {
      setResult(null);
      setErrors(
        formErrors(
          err,
          [
            '/query/fromCurrency',
            '/query/toCurrency',
            '/query/date',
            '/query/effectiveDate',
            '/query/year',
            '/query/period',
          ],
          (e) => (e.tag === 'SameCurrencyExchangeRateError' ? '/query/toCurrency' : undefined),
        ),
      );
    },
  });
  const e = errors.fields;
  const periodBased = kind === 'period-average' || kind === 'period-closing';
  return (
    <div className="grid-2">
      <Card title="Look up a rate">
        <Form onSubmit={() => lookup.mutate()}>
          <Field label="Lookup">
            <select value={kind} onChange={(ev) => setKind(ev.target.value as LookupKind)}>
              <option value="latest">Latest rate</option>
              <option value="closest">Nearest to a date</option>
              <option value="rate">On a date (exact)</option>
              <option value="period-average">Period average</option>
              <option value="period-closing">Period closing</option>
            </select>
          </Field>
          <div className="form-grid">
            <Field label="From" error={e['/query/fromCurrency']}>
              <CurrencyInput value={from} onChange={(ev) => setFrom(ev.target.value)} />
            </Field>
            <Field label="To" error={e['/query/toCurrency']}>
              <CurrencyInput value={to} onChange={(ev) => setTo(ev.target.value)} />
            </Field>
            {kind === 'closest' || kind === 'rate' ? (
              <Field label="Date" error={e['/query/date'] ?? e['/query/effectiveDate']}>
                <input type="date" value={date} onChange={(ev) => setDate(ev.target.value)} />
              </Field>
            ) : null}
            {!periodBased ? (
              <Field label="Type">
                <select value={type} onChange={(ev) => setType(ev.target.value as RateType | '')}>
                  {kind !== 'rate' ? <option value="">Any type</option> : null}
                  {RATE_TYPES.map((t) => (
                    <option key={t}>{t}</option>
                  ))}
                </select>
              </Field>
            ) : (
              <>
                <Field label="Fiscal year" error={e['/query/year']}>
                  <input type="number" value={year} onChange={(ev) => setYear(ev.target.value)} />
                </Field>
                <Field label="Period" error={e['/query/period']}>
                  <input
                    type="number"
                    min={1}
                    max={13}
                    value={period}
                    onChange={(ev) => setPeriod(ev.target.value)}
                  />
                </Field>
                <Field label="Calendar of" hint="The organization's calendar when empty.">
                  <CompanySelect
                    companies={companies}
                    value={companyId}
                    onChange={setCompanyId}
                    allowAll="Organization"
                  />
                </Field>
              </>
            )}
          </div>
          {errors.general ? <Alert kind="error">{errors.general}</Alert> : null}
          <div className="form-actions">
            <Button type="submit" variant="primary" busy={lookup.isPending}>
              Look up
            </Button>
          </div>
        </Form>
      </Card>
      <Card title="Result">
        {!result ? (
          <Empty>The rate the service would use appears here.</Empty>
        ) : !result.effectiveRate ? (
          <Alert kind="warning">
            No rate found for {result.fromCurrency} → {result.toCurrency}.
          </Alert>
        ) : (
          <>
            <div className="kpi lookup-kpi">
              <div className="label">1 {result.fromCurrency} =</div>
              <div className="value" data-testid="lookup-rate">
                {result.effectiveRate} {result.toCurrency}
              </div>
            </div>
            <Definition
              items={[
                ['Derivation', result.derivation ?? '—'],
                [
                  'Stored rate used',
                  result.rate
                    ? `${result.rate.fromCurrency}/${result.rate.toCurrency} ${result.rate.rate}`
                    : '—',
                ],
              ]}
            />
            <h3 className="section-title">Stored rates it comes from</h3>
            <table className="table table-compact">
              <thead>
                <tr>
                  <th scope="col">Pair</th>
                  <th scope="col">Type</th>
                  <th scope="col">Effective</th>
                  <th scope="col" className="num">
                    Rate
                  </th>
                </tr>
              </thead>
              <tbody>
                {result.legs.map((l) => (
                  <tr key={l.id}>
                    <td>
                      {l.fromCurrency} → {l.toCurrency}
                    </td>
                    <td>{l.rateType}</td>
                    <td className="tabular">{l.effectiveDate}</td>
                    <td className="num">{l.rate}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </Card>
    </div>
  );
}
