/**
 * The intercompany reconciliation board: transactions between companies of the group in three columns
 * (unmatched, partially matched, matched), each card showing what the seller and the buyer booked
 * (from their linked journal entries) and the difference, with the matching-status actions.
 */
import { keepPreviousData, useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../api/client.ts';
import type {
  CurrencyCode,
  IntercompanyTransaction,
  JournalEntry,
  MatchingStatus,
  Money,
  RequestBody,
} from '../api/types.ts';
import { useConfirm } from '../components/confirm.tsx';
import { CompanySelect, CurrencyInput } from '../components/inputs.tsx';
import { useToast } from '../components/toast.tsx';
import {
  Alert,
  Amount,
  Badge,
  Button,
  Dialog,
  EnumSelect,
  Field,
  Form,
  Loaded,
  PageHeader,
  Pager,
} from '../components/ui.tsx';
import { errorMessage, type FormErrors, formErrors, NO_ERRORS } from '../lib/errors.ts';
import { formatMoney, humanize, today } from '../lib/format.ts';
import { useOrg } from '../lib/org.tsx';
import { atLeast } from '../lib/permissions.ts';
import { difference, sideAmount } from '../lib/intercompany.ts';
import { useCompanies } from '../lib/queries.ts';

type TransactionType = RequestBody<'/api/v1/intercompany-transactions', 'post'>['transactionType'];
const TYPES: TransactionType[] = ['Sale', 'Service', 'Loan', 'Dividend', 'Royalty', 'ManagementFee', 'Other'];
const COLUMN_SIZE = 20;

interface Column {
  id: string;
  title: string;
  query: { matchingStatus?: MatchingStatus; requiresElimination?: boolean };
}
const COLUMNS: Column[] = [
  { id: 'unmatched', title: 'Unmatched', query: { matchingStatus: 'Unmatched' } },
  { id: 'partial', title: 'Partially matched', query: { matchingStatus: 'PartiallyMatched' } },
  { id: 'matched', title: 'Matched', query: { requiresElimination: true } },
];

export function Intercompany() {
  const { orgId, role } = useOrg();
  const { companies } = useCompanies(orgId);
  const [companyId, setCompanyId] = useState('');
  const [range, setRange] = useState({ startDate: '', endDate: '' });
  const [creating, setCreating] = useState(false);
  const canEdit = atLeast(role, 'member');
  const filter = {
    organizationId: orgId,
    ...(companyId ? { companyId } : {}),
    ...(range.startDate ? { startDate: range.startDate } : {}),
    ...(range.endDate ? { endDate: range.endDate } : {}),
  };
  return (
    <>
      <PageHeader
        title="Intercompany reconciliation"
        subtitle="Agree both sides of every intercompany transaction; matched ones are eliminated by the next consolidation run."
        actions={
          canEdit ? (
            <Button variant="primary" onClick={() => setCreating(true)}>
              New transaction
            </Button>
          ) : null
        }
      />
      <div className="filters" role="search" aria-label="Filter transactions">
        <Field label="Company (either side)">
          <CompanySelect
            companies={companies}
            value={companyId}
            onChange={setCompanyId}
            allowAll="All companies"
          />
        </Field>
        <Field label="From date">
          <input
            type="date"
            value={range.startDate}
            onChange={(e) => setRange({ ...range, startDate: e.target.value })}
          />
        </Field>
        <Field label="To date">
          <input
            type="date"
            value={range.endDate}
            onChange={(e) => setRange({ ...range, endDate: e.target.value })}
          />
        </Field>
      </div>
      <div className="board">
        {COLUMNS.map((c) => (
          <BoardColumn key={c.id} column={c} filter={filter} canEdit={canEdit} />
        ))}
      </div>
      <Dialog open={creating} title="New intercompany transaction" onClose={() => setCreating(false)}>
        {creating ? <NewTransaction onDone={() => setCreating(false)} /> : null}
      </Dialog>
    </>
  );
}

function BoardColumn(props: { column: Column; filter: Record<string, string>; canEdit: boolean }) {
  const { orgId } = useOrg();
  const [offset, setOffset] = useState(0);
  const query = { ...props.filter, ...props.column.query, limit: COLUMN_SIZE, offset };
  const list = useQuery({
    queryKey: ['org', orgId, 'intercompany', query],
    queryFn: () => call(api.GET('/api/v1/intercompany-transactions', { params: { query } })),
    placeholderData: keepPreviousData,
  });
  const transactions = list.data?.transactions ?? [];
  const entryIds = [
    ...new Set(
      transactions.flatMap((t) => [t.fromJournalEntryId, t.toJournalEntryId]).filter((x): x is string => !!x),
    ),
  ];
  const entries = useQueries({
    queries: entryIds.map((id) => ({
      queryKey: ['org', orgId, 'entry', id],
      queryFn: () =>
        call(
          api.GET('/api/v1/journal-entries/{id}', {
            params: { path: { id }, query: { organizationId: orgId } },
          }),
        ),
      staleTime: 30_000,
    })),
  });
  const entryById = new Map<string, JournalEntry>();
  entries.forEach((q) => {
    if (q.data) entryById.set(q.data.id, q.data);
  });
  const headingId = `column-${props.column.id}`;
  return (
    <section className="board-column" aria-labelledby={headingId}>
      <div className="board-column-head">
        <h2 id={headingId}>{props.column.title}</h2>
        <span className="muted tabular" aria-label={`${list.data?.total ?? 0} transactions`}>
          {list.data?.total ?? ''}
        </span>
      </div>
      <Loaded query={list} empty={() => (transactions.length === 0 ? 'Nothing here.' : null)}>
        {() =>
          transactions.map((t) => (
            <TransactionCard key={t.id} t={t} entries={entryById} canEdit={props.canEdit} />
          ))
        }
      </Loaded>
      {list.data && list.data.total > COLUMN_SIZE ? (
        <Pager
          total={list.data.total}
          limit={COLUMN_SIZE}
          offset={offset}
          onChange={setOffset}
          label={`${props.column.title} pages`}
        />
      ) : null}
    </section>
  );
}

function TransactionCard(props: {
  t: IntercompanyTransaction;
  entries: Map<string, JournalEntry>;
  canEdit: boolean;
}) {
  const { t } = props;
  const { orgId } = useOrg();
  const { name } = useCompanies(orgId);
  const queryClient = useQueryClient();
  const toast = useToast();
  const [dialog, setDialog] = useState<'variance' | 'link' | null>(null);
  const { confirm } = useConfirm();
  const [target, setTarget] = useState<MatchingStatus>('PartiallyMatched');
  const [error, setError] = useState<string | null>(null);
  const fromEntry = t.fromJournalEntryId ? props.entries.get(t.fromJournalEntryId) : undefined;
  const toEntry = t.toJournalEntryId ? props.entries.get(t.toJournalEntryId) : undefined;
  const seller = sideAmount(fromEntry, t.toCompanyId, t.amount.currency);
  const buyer = sideAmount(toEntry, t.fromCompanyId, t.amount.currency);
  const diff = difference(seller, buyer);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['org', orgId, 'intercompany'] });
  const setStatus = useMutation({
    mutationFn: (body: RequestBody<'/api/v1/intercompany-transactions/{id}/matching-status', 'post'>) =>
      call(
        api.POST('/api/v1/intercompany-transactions/{id}/matching-status', {
          params: { path: { id: t.id }, query: { organizationId: orgId } },
          body,
        }),
      ),
    onSuccess: async (saved) => {
      setError(null);
      setDialog(null);
      toast(
        `${name(saved.fromCompanyId)} → ${name(saved.toCompanyId)}: ${humanize(saved.matchingStatus).toLowerCase()}`,
      );
      await refresh();
    },
    onError: (err) => setError(errorMessage(err)),
  });
  const remove = useMutation({
    mutationFn: () =>
      call(
        api.DELETE('/api/v1/intercompany-transactions/{id}', {
          params: { path: { id: t.id }, query: { organizationId: orgId } },
        }),
      ),
    onSuccess: async () => {
      toast('Transaction deleted');
      await refresh();
    },
    onError: (err) => setError(errorMessage(err)),
  });
  const editable = props.canEdit && !t.isEliminated;
  const label = `${name(t.fromCompanyId)} to ${name(t.toCompanyId)}, ${humanize(t.transactionType).toLowerCase()} of ${formatMoney(t.amount, true)}`;
  return (
    <article className="ic-card" aria-label={label}>
      <header>
        <span className="parties">
          {name(t.fromCompanyId)} → {name(t.toCompanyId)}
        </span>
        <Badge value={t.matchingStatus} />
      </header>
      <div className="muted">
        {humanize(t.transactionType)} · {t.transactionDate}
        {t.description ? ` · ${t.description}` : ''}
      </div>
      <table className="ic-sides">
        <tbody>
          <tr>
            <td>Transaction</td>
            <td className="num">
              <Amount money={t.amount} currency strong />
            </td>
          </tr>
          <tr>
            <td>
              Seller booked{' '}
              {fromEntry ? (
                <Link to={`/o/${orgId}/journal/${fromEntry.id}`}>{fromEntry.entryNumber}</Link>
              ) : (
                <span className="muted">(no entry)</span>
              )}
            </td>
            <td className="num" data-testid="seller-amount">
              <Amount money={seller} currency />
            </td>
          </tr>
          <tr>
            <td>
              Buyer booked{' '}
              {toEntry ? (
                <Link to={`/o/${orgId}/journal/${toEntry.id}`}>{toEntry.entryNumber}</Link>
              ) : (
                <span className="muted">(no entry)</span>
              )}
            </td>
            <td className="num" data-testid="buyer-amount">
              <Amount money={buyer} currency />
            </td>
          </tr>
          <tr className="diff">
            <td>Difference</td>
            <td className="num" data-testid="difference">
              <Amount money={diff} currency />
            </td>
          </tr>
          {t.varianceAmount || t.varianceExplanation ? (
            <tr>
              <td colSpan={2} className="muted">
                Variance {t.varianceAmount ? formatMoney(t.varianceAmount, true) : ''}{' '}
                {t.varianceExplanation ?? ''}
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      {t.isEliminated ? (
        <div className="muted">
          Eliminated by{' '}
          {t.eliminatedByRunId ? (
            <Link to={`/o/${orgId}/consolidation/runs/${t.eliminatedByRunId}`}>a consolidation run</Link>
          ) : (
            'a run'
          )}
        </div>
      ) : null}
      {error ? <Alert kind="error">{error}</Alert> : null}
      {editable ? (
        <div className="card-buttons">
          {t.matchingStatus !== 'Matched' ? (
            <Button
              size="sm"
              variant="primary"
              busy={setStatus.isPending}
              onClick={() => setStatus.mutate({ matchingStatus: 'Matched' })}
            >
              Match
            </Button>
          ) : null}
          {t.matchingStatus === 'Unmatched' ? (
            <Button
              size="sm"
              onClick={() => {
                setTarget('PartiallyMatched');
                setDialog('variance');
              }}
            >
              Partially matched…
            </Button>
          ) : null}
          {t.matchingStatus === 'PartiallyMatched' ? (
            <Button
              size="sm"
              onClick={() => {
                setTarget('VarianceApproved');
                setDialog('variance');
              }}
            >
              Approve variance…
            </Button>
          ) : null}
          {t.matchingStatus !== 'Unmatched' ? (
            <Button
              size="sm"
              busy={setStatus.isPending}
              onClick={() => setStatus.mutate({ matchingStatus: 'Unmatched' })}
            >
              Unmatch
            </Button>
          ) : null}
          <Button size="sm" variant="ghost" onClick={() => setDialog('link')}>
            Link entries…
          </Button>
          {t.matchingStatus === 'Unmatched' || t.matchingStatus === 'PartiallyMatched' ? (
            <Button
              size="sm"
              variant="ghost"
              onClick={async () => {
                if (
                  await confirm({
                    title: 'Delete the transaction',
                    message: `Delete the ${label}?`,
                    confirmLabel: 'Delete transaction',
                    danger: true,
                  })
                )
                  remove.mutate();
              }}
            >
              Delete
            </Button>
          ) : null}
        </div>
      ) : null}
      <Dialog
        open={dialog === 'variance'}
        title={target === 'VarianceApproved' ? 'Approve the variance' : 'Partially matched'}
        onClose={() => setDialog(null)}
      >
        {dialog === 'variance' ? (
          <VarianceForm
            t={t}
            suggested={diff}
            busy={setStatus.isPending}
            error={error}
            onSubmit={(varianceExplanation, value) =>
              setStatus.mutate({
                matchingStatus: target,
                varianceExplanation,
                varianceAmount: value ? { value, currency: t.amount.currency as CurrencyCode } : null,
              })
            }
          />
        ) : null}
      </Dialog>
      <Dialog open={dialog === 'link'} title="Link journal entries" onClose={() => setDialog(null)}>
        {dialog === 'link' ? <LinkForm t={t} onDone={() => setDialog(null)} /> : null}
      </Dialog>
    </article>
  );
}

function VarianceForm(props: {
  t: IntercompanyTransaction;
  suggested: Money | null;
  busy: boolean;
  error: string | null;
  onSubmit: (explanation: string, amount: string) => void;
}) {
  const [explanation, setExplanation] = useState(props.t.varianceExplanation ?? '');
  const [amount, setAmount] = useState(props.t.varianceAmount?.value ?? props.suggested?.value ?? '');
  return (
    <Form onSubmit={() => props.onSubmit(explanation, amount.trim())}>
      <Field label="Explanation (required)">
        <textarea
          rows={3}
          value={explanation}
          onChange={(e) => setExplanation(e.target.value)}
          data-autofocus
        />
      </Field>
      <Field label={`Variance (${props.t.amount.currency}, signed)`}>
        <input className="num" value={amount} onChange={(e) => setAmount(e.target.value)} />
      </Field>
      {props.error ? <Alert kind="error">{props.error}</Alert> : null}
      <div className="form-actions">
        <Button type="submit" variant="primary" busy={props.busy}>
          Save
        </Button>
      </div>
    </Form>
  );
}

/** Recent entries of a company to link, newest first. */
function useEntryChoices(orgId: string, companyId: string) {
  return useQuery({
    queryKey: ['org', orgId, 'journal', { companyId, limit: 100, choices: true }],
    queryFn: () =>
      call(
        api.GET('/api/v1/journal-entries', {
          params: { query: { organizationId: orgId, companyId, limit: 100 } },
        }),
      ),
    enabled: !!companyId,
  });
}

function EntryChoice(props: {
  label: string;
  entries: JournalEntry[] | undefined;
  value: string;
  onChange: (v: string) => void;
  error?: string | undefined;
}) {
  return (
    <Field label={props.label} error={props.error}>
      <select value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        <option value="">— none —</option>
        {(props.entries ?? []).map((e) => (
          <option key={e.id} value={e.id}>
            {e.entryNumber} · {e.transactionDate} · {e.description} · {formatMoney(e.totalDebits, true)} ·{' '}
            {humanize(e.status)}
          </option>
        ))}
      </select>
    </Field>
  );
}

function LinkForm(props: { t: IntercompanyTransaction; onDone: () => void }) {
  const { t } = props;
  const { orgId } = useOrg();
  const { name } = useCompanies(orgId);
  const queryClient = useQueryClient();
  const toast = useToast();
  const fromChoices = useEntryChoices(orgId, t.fromCompanyId);
  const toChoices = useEntryChoices(orgId, t.toCompanyId);
  const [from, setFrom] = useState(t.fromJournalEntryId ?? '');
  const [to, setTo] = useState(t.toJournalEntryId ?? '');
  const [error, setError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: async () => {
      const params = { path: { id: t.id }, query: { organizationId: orgId } };
      if (from !== (t.fromJournalEntryId ?? ''))
        await call(
          api.POST('/api/v1/intercompany-transactions/{id}/link-from-journal-entry', {
            params,
            body: { journalEntryId: from || null },
          }),
        );
      if (to !== (t.toJournalEntryId ?? ''))
        await call(
          api.POST('/api/v1/intercompany-transactions/{id}/link-to-journal-entry', {
            params,
            body: { journalEntryId: to || null },
          }),
        );
    },
    onSuccess: async () => {
      toast('Entries linked');
      await queryClient.invalidateQueries({ queryKey: ['org', orgId, 'intercompany'] });
      props.onDone();
    },
    onError: (err) => setError(errorMessage(err)),
  });
  return (
    <Form onSubmit={() => save.mutate()}>
      <EntryChoice
        label={`Seller's entry (${name(t.fromCompanyId)})`}
        entries={fromChoices.data?.entries}
        value={from}
        onChange={setFrom}
      />
      <EntryChoice
        label={`Buyer's entry (${name(t.toCompanyId)})`}
        entries={toChoices.data?.entries}
        value={to}
        onChange={setTo}
      />
      {error ? <Alert kind="error">{error}</Alert> : null}
      <div className="form-actions">
        <Button type="submit" variant="primary" busy={save.isPending}>
          Save links
        </Button>
      </div>
    </Form>
  );
}

function NewTransaction(props: { onDone: () => void }) {
  const { orgId, org } = useOrg();
  const { companies } = useCompanies(orgId);
  const queryClient = useQueryClient();
  const toast = useToast();
  const active = companies.filter((c) => c.isActive);
  const [v, setV] = useState({
    from: active[0]?.id ?? '',
    to: active[1]?.id ?? '',
    type: 'Sale' as TransactionType,
    date: today(),
    amount: '',
    currency: org.reportingCurrency,
    description: '',
    fromEntry: '',
    toEntry: '',
  });
  const fromChoices = useEntryChoices(orgId, v.from);
  const toChoices = useEntryChoices(orgId, v.to);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const create = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/intercompany-transactions', {
          body: {
            organizationId: orgId,
            fromCompanyId: v.from,
            toCompanyId: v.to,
            transactionType: v.type,
            transactionDate: v.date,
            amount: { value: v.amount, currency: v.currency as CurrencyCode },
            description: v.description.trim() || null,
            fromJournalEntryId: v.fromEntry || null,
            toJournalEntryId: v.toEntry || null,
          },
        }),
      ),
    onSuccess: async () => {
      toast('Intercompany transaction recorded');
      await queryClient.invalidateQueries({ queryKey: ['org', orgId, 'intercompany'] });
      props.onDone();
    },
    onError: (err) =>
      setErrors(
        formErrors(
          err,
          [
            '/fromCompanyId',
            '/toCompanyId',
            '/transactionType',
            '/transactionDate',
            '/amount',
            '/description',
            '/fromJournalEntryId',
            '/toJournalEntryId',
          ],
          (e) =>
            e.tag === 'IntercompanyJournalEntryMismatchError'
              ? e.body.journalEntryId === v.fromEntry
                ? '/fromJournalEntryId'
                : '/toJournalEntryId'
              : e.tag === 'CompanyNotFoundError' || e.tag === 'CompanyInactiveError'
                ? e.body.companyId === v.from
                  ? '/fromCompanyId'
                  : '/toCompanyId'
                : undefined,
        ),
      ),
  });
  const e = errors.fields;
  return (
    <Form onSubmit={() => create.mutate()} error={errors.general}>
      <div className="form-grid">
        <Field label="Seller / lender" error={e['/fromCompanyId']}>
          <CompanySelect
            companies={active}
            value={v.from}
            onChange={(from) => setV({ ...v, from, fromEntry: '' })}
          />
        </Field>
        <Field label="Buyer / borrower" error={e['/toCompanyId']}>
          <CompanySelect companies={active} value={v.to} onChange={(to) => setV({ ...v, to, toEntry: '' })} />
        </Field>
        <Field label="Type" error={e['/transactionType']}>
          <EnumSelect values={TYPES} value={v.type} onChange={(type) => setV({ ...v, type })} />
        </Field>
        <Field label="Date" error={e['/transactionDate']}>
          <input type="date" value={v.date} onChange={(ev) => setV({ ...v, date: ev.target.value })} />
        </Field>
        <Field label="Amount" error={e['/amount']}>
          <input
            className="num"
            inputMode="decimal"
            value={v.amount}
            onChange={(ev) => setV({ ...v, amount: ev.target.value })}
          />
        </Field>
        <Field label="Currency">
          <CurrencyInput value={v.currency} onChange={(ev) => setV({ ...v, currency: ev.target.value })} />
        </Field>
        <Field label="Description" error={e['/description']} className="wide">
          <input value={v.description} onChange={(ev) => setV({ ...v, description: ev.target.value })} />
        </Field>
      </div>
      <EntryChoice
        label="Seller's entry"
        entries={fromChoices.data?.entries}
        value={v.fromEntry}
        onChange={(fromEntry) => setV({ ...v, fromEntry })}
        error={e['/fromJournalEntryId']}
      />
      <EntryChoice
        label="Buyer's entry"
        entries={toChoices.data?.entries}
        value={v.toEntry}
        onChange={(toEntry) => setV({ ...v, toEntry })}
        error={e['/toJournalEntryId']}
      />
      <div className="form-actions">
        <Button type="submit" variant="primary" busy={create.isPending}>
          Record transaction
        </Button>
      </div>
    </Form>
  );
}
