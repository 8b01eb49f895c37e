/**
 * One journal entry: the editor of a new or draft entry, with live debit/credit totals, the "out of
 * balance by X" state, account search, multi-currency lines with their functional amounts, and the
 * workflow buttons its status and the user's role allow (submit, approve, reject, post, reverse). API
 * errors appear beside the field or line they name.
 */
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { ApiError, api, call } from '../api/client.ts';
import type { Account, CurrencyCode, JournalEntry, RateLookup, RequestBody } from '../api/types.ts';
import { AccountPicker, accountLabel } from '../components/account-picker.tsx';
import { CompanySelect, CurrencyInput } from '../components/inputs.tsx';
import { useConfirm } from '../components/confirm.tsx';
import { useToast } from '../components/toast.tsx';
import { Alert, Badge, Button, Card, Dialog, Field, Form, Loading, PageHeader } from '../components/ui.tsx';
import { balancingAmount, computeBalance } from '../lib/balance.ts';
import { type FormErrors, formErrors, NO_ERRORS } from '../lib/errors.ts';
import { currencyDigits, formatAmount, formatTimestamp, humanize, today } from '../lib/format.ts';
import { useOrg } from '../lib/org.tsx';
import { type EntryAction, entryActions } from '../lib/permissions.ts';
import { accountsQuery, useCompanies } from '../lib/queries.ts';

type CreateBody = RequestBody<'/api/v1/journal-entries', 'post'>;
type EntryType = JournalEntry['entryType'];

interface LineDraft {
  key: number;
  accountId: string;
  memo: string;
  debit: string;
  credit: string;
  currency: string;
  rate: string;
  partnerId: string;
}

interface EntryDraft {
  companyId: string;
  transactionDate: string;
  description: string;
  referenceNumber: string;
  entryType: EntryType;
  documentDate: string;
  lines: LineDraft[];
}

let nextKey = 1;
const blankLine = (currency: string): LineDraft => ({
  key: nextKey++,
  accountId: '',
  memo: '',
  debit: '',
  credit: '',
  currency,
  rate: '',
  partnerId: '',
});

function draftFromEntry(entry: JournalEntry): EntryDraft {
  return {
    companyId: entry.companyId,
    transactionDate: entry.transactionDate,
    description: entry.description,
    referenceNumber: entry.referenceNumber ?? '',
    entryType: entry.entryType,
    documentDate: entry.documentDate ?? '',
    lines: entry.lines.map((l) => {
      const amount = l.debitAmount ?? l.creditAmount;
      const currency = amount?.currency ?? '';
      return {
        key: nextKey++,
        accountId: l.accountId,
        memo: l.memo ?? '',
        debit: l.debitAmount?.value ?? '',
        credit: l.creditAmount?.value ?? '',
        currency,
        // A rate the service looked up stays a lookup when the draft is saved again.
        rate:
          l.exchangeRateId || l.exchangeRateLegIds.length > 0 || l.exchangeRate === '1' ? '' : l.exchangeRate,
        partnerId: l.intercompanyPartnerId ?? '',
      };
    }),
  };
}

export function JournalEntryPage() {
  const { entryId } = useParams();
  const { orgId } = useOrg();
  const entry = useQuery({
    queryKey: ['org', orgId, 'entry', entryId],
    queryFn: () =>
      call(
        api.GET('/api/v1/journal-entries/{id}', {
          params: { path: { id: entryId! }, query: { organizationId: orgId } },
        }),
      ),
    enabled: !!entryId,
  });
  if (!entryId) return <EntryEditor key="new" entry={null} />;
  if (entry.isPending) return <Loading label="Loading the entry…" />;
  if (entry.error) return <Alert kind="error">{entry.error.message}</Alert>;
  return <EntryEditor key={`${entry.data.id}:${entry.data.updatedAt}`} entry={entry.data} />;
}

/** Rates for the foreign currencies of the draft (Spot, on or before the transaction date). */
function useLookedUpRates(orgId: string, functional: string, date: string, currencies: string[]) {
  const results = useQueries({
    queries: currencies.map((currency) => ({
      queryKey: ['org', orgId, 'rates', 'preview', currency, functional, date],
      queryFn: () =>
        call(
          api.GET('/api/v1/exchange-rates/closest', {
            params: {
              query: {
                organizationId: orgId,
                fromCurrency: currency as CurrencyCode,
                toCurrency: functional as CurrencyCode,
                date,
                rateType: 'Spot',
              },
            },
          }),
        ),
      enabled: /^\d{4}-\d\d-\d\d$/.test(date) && /^[A-Z]{3}$/.test(currency) && !!functional,
      staleTime: 30_000,
    })),
  });
  const rates = new Map<string, { lookup: RateLookup | null; usable: boolean }>();
  currencies.forEach((currency, i) => {
    const data = results[i]?.data;
    if (!data) return;
    // The service uses the latest rate on or before the date; "closest" may be a later one.
    const usable =
      !!data.effectiveRate &&
      [...data.legs, ...(data.rate ? [data.rate] : [])].every((l) => l.effectiveDate <= date);
    rates.set(currency, { lookup: data, usable });
  });
  return rates;
}

function lineFields(count: number): string[] {
  const fields = [
    '/reversalDate',
    '/reason',
    '/companyId',
    '/transactionDate',
    '/description',
    '/referenceNumber',
    '/entryType',
    '/documentDate',
    '/fiscalPeriod',
    '/lines',
  ];
  for (let i = 0; i < count; i++)
    for (const f of [
      'accountId',
      'debitAmount',
      'creditAmount',
      'exchangeRate',
      'memo',
      'intercompanyPartnerId',
      '',
    ])
      fields.push(f ? `/lines/${i}/${f}` : `/lines/${i}`);
  return fields;
}

function EntryEditor({ entry }: { entry: JournalEntry | null }) {
  const { orgId, org, role, me } = useOrg();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const toast = useToast();
  const { confirm } = useConfirm();
  const [params] = useSearchParams();
  const { companies, byId } = useCompanies(orgId);
  const activeCompanies = companies.filter((c) => c.isActive);
  const initialCompany = entry?.companyId ?? params.get('companyId') ?? '';
  const [draft, setDraft] = useState<EntryDraft>(() =>
    entry
      ? draftFromEntry(entry)
      : {
          companyId: initialCompany,
          transactionDate: today(),
          description: '',
          referenceNumber: '',
          entryType: 'Standard',
          documentDate: '',
          lines: [blankLine(''), blankLine('')],
        },
  );
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [dialog, setDialog] = useState<'reverse' | 'reject' | null>(null);
  const company = byId.get(draft.companyId);
  const functional = company?.functionalCurrency ?? '';

  // A new entry's company may arrive after the first render (the company list loads).
  useEffect(() => {
    if (entry || draft.companyId || activeCompanies.length === 0) return;
    setDraft((d) => ({ ...d, companyId: activeCompanies[0]!.id }));
  }, [entry, draft.companyId, activeCompanies]);
  // Lines without a currency take the company's functional currency.
  useEffect(() => {
    if (!functional) return;
    if (draft.lines.some((l) => l.currency === ''))
      setDraft((d) => ({
        ...d,
        lines: d.lines.map((l) => (l.currency ? l : { ...l, currency: functional })),
      }));
  }, [functional, draft.lines]);

  const actions = entry
    ? entryActions(entry, role, org.settings, me.user.id)
    : (['edit'] as EntryAction[]).filter(() => role !== 'viewer');
  const editable = entry === null ? role !== 'viewer' : actions.includes('edit');

  const accounts = useQuery(accountsQuery(orgId, draft.companyId));
  const postable = useMemo(
    () => (accounts.data ?? []).filter((a) => a.isPostable && a.isActive),
    [accounts.data],
  );
  const accountById = useMemo(() => new Map((accounts.data ?? []).map((a) => [a.id, a])), [accounts.data]);

  const foreign = [
    ...new Set(
      draft.lines.filter((l) => l.currency && l.currency !== functional && !l.rate).map((l) => l.currency),
    ),
  ];
  const looked = useLookedUpRates(orgId, functional, draft.transactionDate, editable ? foreign : []);
  const rateOf = (line: LineDraft): string | null => {
    if (!line.currency || line.currency === functional) return '1';
    if (line.rate.trim()) return line.rate.trim();
    const found = looked.get(line.currency);
    return found?.usable ? (found.lookup?.effectiveRate ?? null) : null;
  };
  const balance = computeBalance(
    draft.lines.map((l) => ({
      debit: l.debit,
      credit: l.credit,
      currency: l.currency || functional,
      rate: rateOf(l),
    })),
    functional || 'USD',
    currencyDigits,
  );

  const set = (patch: Partial<EntryDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const setLine = (key: number, patch: Partial<LineDraft>) =>
    setDraft((d) => ({ ...d, lines: d.lines.map((l) => (l.key === key ? { ...l, ...patch } : l)) }));
  const addLine = () =>
    setDraft((d) => {
      const line = blankLine(functional);
      const fill = balancingAmount(
        d.lines.map((l) => ({ debit: l.debit, credit: l.credit, currency: l.currency, rate: null })),
        currencyDigits,
      );
      if (fill) Object.assign(line, { currency: fill.currency, [fill.side]: fill.amount });
      return { ...d, lines: [...d.lines, line] };
    });
  const removeLine = (key: number) =>
    setDraft((d) => ({ ...d, lines: d.lines.filter((l) => l.key !== key) }));

  const body = (): CreateBody => ({
    organizationId: orgId,
    companyId: draft.companyId,
    transactionDate: draft.transactionDate,
    description: draft.description,
    referenceNumber: draft.referenceNumber.trim() || null,
    documentDate: draft.documentDate || null,
    entryType: draft.entryType,
    lines: draft.lines.map((l) => {
      const currency = (l.currency || functional) as CurrencyCode;
      const debit = l.debit.trim();
      const credit = l.credit.trim();
      return {
        accountId: l.accountId,
        debitAmount: debit ? { value: debit, currency } : null,
        creditAmount: !debit && credit ? { value: credit, currency } : null,
        exchangeRate: currency !== functional && l.rate.trim() ? l.rate.trim() : null,
        memo: l.memo.trim() || null,
        intercompanyPartnerId: l.partnerId || null,
      };
    }),
  });

  const known = lineFields(draft.lines.length);
  const showError = (err: unknown) =>
    setErrors(
      formErrors(err, known, (e: ApiError) => {
        if (e.tag === 'ExchangeRateNotFoundError') {
          const i = draft.lines.findIndex((l) => l.currency === e.body.fromCurrency);
          return i >= 0 ? `/lines/${i}/exchangeRate` : '/lines';
        }
        if (e.tag === 'CompanyInactiveError' || e.tag === 'CompanyNotFoundError') return '/companyId';
        return undefined;
      }),
    );
  const invalidate = () => queryClient.invalidateQueries({ queryKey: ['org', orgId] });

  const save = useMutation({
    mutationFn: () =>
      entry
        ? call(api.PUT('/api/v1/journal-entries/{id}', { params: { path: { id: entry.id } }, body: body() }))
        : call(api.POST('/api/v1/journal-entries', { body: body() })),
    onSuccess: async (saved) => {
      setErrors(NO_ERRORS);
      toast(`${saved.entryNumber} saved as draft`);
      await invalidate();
      if (!entry) navigate(`/o/${orgId}/journal/${saved.id}`, { replace: true });
    },
    onError: showError,
  });

  const transition = useMutation({
    mutationFn: async (v: {
      action: EntryAction;
      reason?: string;
      reversalDate?: string;
      reversalDescription?: string;
    }) => {
      const path = { id: entry!.id };
      const query = { organizationId: orgId };
      switch (v.action) {
        case 'submit':
          return call(api.POST('/api/v1/journal-entries/{id}/submit', { params: { path, query } }));
        case 'approve':
          return call(api.POST('/api/v1/journal-entries/{id}/approve', { params: { path, query } }));
        case 'reject':
          return call(
            api.POST('/api/v1/journal-entries/{id}/reject', {
              params: { path, query },
              body: { reason: v.reason || null },
            }),
          );
        case 'post':
          return call(api.POST('/api/v1/journal-entries/{id}/post', { params: { path }, body: {} }));
        case 'reverse':
          return call(
            api.POST('/api/v1/journal-entries/{id}/reverse', {
              params: { path },
              body: { reversalDate: v.reversalDate!, reversalDescription: v.reversalDescription || null },
            }),
          );
        case 'delete':
          await call(api.DELETE('/api/v1/journal-entries/{id}', { params: { path, query } }));
          return null;
        default:
          return null;
      }
    },
    onSuccess: async (result, v) => {
      setErrors(NO_ERRORS);
      setDialog(null);
      await invalidate();
      if (v.action === 'delete') {
        toast(`${entry!.entryNumber} deleted`);
        navigate(`/o/${orgId}/journal`, { replace: true });
      } else if (v.action === 'reverse' && result) {
        toast(`${entry!.entryNumber} reversed by ${result.entryNumber}`);
        navigate(`/o/${orgId}/journal/${result.id}`);
      } else if (result) {
        toast(`${result.entryNumber}: ${humanize(result.status).toLowerCase()}`);
      }
    },
    onError: showError,
  });

  const saveAndThen = async (action: EntryAction) => {
    // Unsaved edits of a draft are saved first, so the workflow acts on what the user sees.
    if (editable && entry) {
      try {
        await save.mutateAsync();
      } catch {
        return;
      }
    }
    transition.mutate({ action });
  };

  const onKeyDown = (e: React.KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && (e.key === 'Enter' || e.key === 's') && editable) {
      e.preventDefault();
      save.mutate();
    }
  };

  const title = entry ? `${entry.entryNumber} · ${entry.description}` : 'New journal entry';
  const busy = save.isPending || transition.isPending;
  const e = errors.fields;
  const digits = currencyDigits(functional || 'USD');

  return (
    <div onKeyDown={onKeyDown}>
      <PageHeader
        title={title}
        subtitle={
          entry ? (
            <>
              <Badge value={entry.status} /> {company?.name} · period {entry.fiscalPeriod.year}/
              {entry.fiscalPeriod.period}
              {entry.isReversing && entry.reversedEntryId ? (
                <>
                  {' '}
                  · reverses{' '}
                  <Link to={`/o/${orgId}/journal/${entry.reversedEntryId}`}>the original entry</Link>
                </>
              ) : null}
              {entry.reversingEntryId ? (
                <>
                  {' '}
                  · reversed by <Link to={`/o/${orgId}/journal/${entry.reversingEntryId}`}>its reversal</Link>
                </>
              ) : null}
            </>
          ) : (
            'Draft until it is posted; Ctrl+Enter saves.'
          )
        }
        actions={
          <div className="workflow" role="group" aria-label="Workflow actions">
            {actions.includes('submit') ? (
              <Button busy={busy} onClick={() => saveAndThen('submit')}>
                Submit for approval
              </Button>
            ) : null}
            {actions.includes('approve') ? (
              <Button variant="primary" busy={busy} onClick={() => transition.mutate({ action: 'approve' })}>
                Approve
              </Button>
            ) : null}
            {actions.includes('reject') ? (
              <Button busy={busy} onClick={() => setDialog('reject')}>
                Reject
              </Button>
            ) : null}
            {actions.includes('post') ? (
              <Button variant="primary" busy={busy} onClick={() => saveAndThen('post')}>
                Post
              </Button>
            ) : null}
            {actions.includes('reverse') ? (
              <Button busy={busy} onClick={() => setDialog('reverse')}>
                Reverse
              </Button>
            ) : null}
            {actions.includes('delete') ? (
              <Button
                variant="danger"
                busy={busy}
                onClick={async () => {
                  if (
                    await confirm({
                      title: 'Delete the draft',
                      message: `Delete draft ${entry!.entryNumber}? It is removed for good.`,
                      confirmLabel: 'Delete draft',
                      danger: true,
                    })
                  )
                    transition.mutate({ action: 'delete' });
                }}
              >
                Delete
              </Button>
            ) : null}
          </div>
        }
      />
      {errors.general ? <Alert kind="error">{errors.general}</Alert> : null}
      {entry?.status === 'Draft' && entry.rejectionReason ? (
        <Alert kind="warning">Rejected: {entry.rejectionReason}</Alert>
      ) : null}
      <Form onSubmit={() => save.mutate()}>
        <Card title="Entry">
          <fieldset disabled={!editable} className="form-grid">
            <Field label="Company" error={e['/companyId']}>
              <CompanySelect
                companies={entry ? companies : activeCompanies}
                value={draft.companyId}
                disabled={!!entry}
                placeholder="Choose a company"
                onChange={(id) =>
                  setDraft((d) => ({
                    ...d,
                    companyId: id,
                    lines: d.lines.map((l) => ({ ...l, accountId: '', currency: '' })),
                  }))
                }
              />
            </Field>
            <Field label="Date" error={e['/transactionDate'] ?? e['/fiscalPeriod']}>
              <input
                type="date"
                value={draft.transactionDate}
                onChange={(ev) => set({ transactionDate: ev.target.value })}
              />
            </Field>
            <Field label="Description" error={e['/description']} className="span-2">
              <input value={draft.description} onChange={(ev) => set({ description: ev.target.value })} />
            </Field>
            <Field label="Reference" error={e['/referenceNumber']}>
              <input
                value={draft.referenceNumber}
                onChange={(ev) => set({ referenceNumber: ev.target.value })}
              />
            </Field>
            <Field label="Type" error={e['/entryType']}>
              <select
                value={draft.entryType}
                onChange={(ev) => set({ entryType: ev.target.value as EntryType })}
              >
                {(['Standard', 'Adjusting', 'Closing', 'Reversing', 'Recurring'] as EntryType[]).map((t) => (
                  <option key={t}>{t}</option>
                ))}
              </select>
            </Field>
            <Field label="Document date" error={e['/documentDate']}>
              <input
                type="date"
                value={draft.documentDate}
                onChange={(ev) => set({ documentDate: ev.target.value })}
              />
            </Field>
          </fieldset>
        </Card>
        <Card
          title="Lines"
          actions={functional ? <span className="muted">Functional currency {functional}</span> : null}
        >
          {accounts.error ? <Alert kind="error">{accounts.error.message}</Alert> : null}
          <table className="table lines-table" aria-label="Entry lines">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col" className="col-account">
                  Account
                </th>
                <th scope="col" className="col-memo">
                  Memo
                </th>
                <th scope="col" className="num col-amount">
                  Debit
                </th>
                <th scope="col" className="num col-amount">
                  Credit
                </th>
                <th scope="col" className="col-cur">
                  Currency
                </th>
                <th scope="col" className="num col-fn">
                  Functional ({functional || '—'})
                </th>
                <th scope="col">Partner</th>
                <th scope="col">
                  <span className="sr-only">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {draft.lines.map((line, i) => (
                <LineRow
                  key={line.key}
                  index={i}
                  line={line}
                  editable={editable}
                  accounts={postable}
                  account={accountById.get(line.accountId)}
                  functional={functional}
                  functionalAmount={
                    entry && !editable
                      ? ((
                          entry.lines[i]?.functionalCurrencyDebitAmount ??
                          entry.lines[i]?.functionalCurrencyCreditAmount
                        )?.value ?? null)
                      : (balance.lineFunctional[i] ?? null)
                  }
                  rate={entry && !editable ? (entry.lines[i]?.exchangeRate ?? null) : rateOf(line)}
                  lookup={looked.get(line.currency)}
                  partners={companies.filter((c) => c.id !== draft.companyId)}
                  errors={e}
                  onChange={(patch) => setLine(line.key, patch)}
                  onRemove={draft.lines.length > 2 ? () => removeLine(line.key) : undefined}
                />
              ))}
            </tbody>
            <tfoot>
              <tr>
                <td colSpan={3}>
                  {editable ? (
                    <Button size="sm" onClick={addLine}>
                      + Add line
                    </Button>
                  ) : null}
                </td>
                <td className="num" data-testid="total-debits">
                  {formatAmount(balance.totalDebits, currencyDigits(balance.currency))}
                </td>
                <td className="num" data-testid="total-credits">
                  {formatAmount(balance.totalCredits, currencyDigits(balance.currency))}
                </td>
                <td>{balance.currency}</td>
                <td className="num">
                  {balance.functionalDebits !== null ? formatAmount(balance.functionalDebits, digits) : '—'}
                </td>
                <td colSpan={2} />
              </tr>
            </tfoot>
          </table>
          <BalanceBar state={balance.state} difference={balance.difference} currency={balance.currency} />
          {e['/lines'] ? <div className="error">{e['/lines']}</div> : null}
          {editable ? (
            <div className="form-actions">
              <Button type="submit" variant={entry ? 'secondary' : 'primary'} busy={save.isPending}>
                {entry ? 'Save changes' : 'Save draft'}
              </Button>
              <Link className="btn btn-ghost" to={`/o/${orgId}/journal`}>
                Back to the journal
              </Link>
            </div>
          ) : null}
        </Card>
      </Form>
      {entry ? <History entry={entry} /> : null}
      <Dialog
        open={dialog === 'reject'}
        title={`Reject ${entry?.entryNumber ?? ''}`}
        onClose={() => setDialog(null)}
      >
        <RejectForm
          busy={transition.isPending}
          onSubmit={(reason) => transition.mutate({ action: 'reject', reason })}
        />
      </Dialog>
      <Dialog
        open={dialog === 'reverse'}
        title={`Reverse ${entry?.entryNumber ?? ''}`}
        onClose={() => setDialog(null)}
      >
        {entry ? (
          <ReverseForm
            entry={entry}
            busy={transition.isPending}
            error={errors.fields['/reversalDate']}
            onSubmit={(reversalDate, reversalDescription) =>
              transition.mutate({ action: 'reverse', reversalDate, reversalDescription })
            }
          />
        ) : null}
      </Dialog>
    </div>
  );
}

function BalanceBar(props: { state: string; difference: string; currency: string }) {
  const text =
    props.state === 'balanced'
      ? '✓ Balanced'
      : props.state === 'unbalanced'
        ? `Out of balance by ${formatAmount(props.difference)} ${props.currency}`
        : props.state === 'pending'
          ? 'Waiting for exchange rates (looked up when saved)'
          : 'Enter amounts';
  const tone = props.state === 'balanced' ? 'ok' : props.state === 'unbalanced' ? 'off' : 'pending';
  return (
    <div className={`balance-bar ${tone}`} role="status" aria-live="polite" data-testid="balance-state">
      <span className="state">{text}</span>
    </div>
  );
}

function LineRow(props: {
  index: number;
  line: LineDraft;
  editable: boolean;
  accounts: Account[];
  account: Account | undefined;
  functional: string;
  functionalAmount: string | null;
  rate: string | null;
  lookup: { lookup: RateLookup | null; usable: boolean } | undefined;
  partners: Array<{ id: string; name: string }>;
  errors: Record<string, string>;
  onChange: (patch: Partial<LineDraft>) => void;
  onRemove?: (() => void) | undefined;
}) {
  const { line, index: i, errors: e, editable } = props;
  const n = i + 1;
  const foreign = line.currency !== '' && line.currency !== props.functional;
  const lineError =
    e[`/lines/${i}`] ??
    e[`/lines/${i}/accountId`] ??
    e[`/lines/${i}/debitAmount`] ??
    e[`/lines/${i}/creditAmount`];
  const rateError = e[`/lines/${i}/exchangeRate`];
  const errorId = `line-${n}-error`;
  const describe = lineError || rateError ? errorId : undefined;
  if (!editable) {
    return (
      <tr>
        <td className="muted">{n}</td>
        <td>{props.account ? accountLabel(props.account) : line.accountId.slice(0, 8)}</td>
        <td>{line.memo}</td>
        <td className="num">{line.debit ? formatAmount(line.debit) : ''}</td>
        <td className="num">{line.credit ? formatAmount(line.credit) : ''}</td>
        <td>{line.currency}</td>
        <td className="num">
          {props.functionalAmount !== null ? formatAmount(props.functionalAmount) : '—'}
          {foreign && props.rate ? <div className="fn-rate">at {props.rate}</div> : null}
        </td>
        <td>{props.partners.find((p) => p.id === line.partnerId)?.name ?? ''}</td>
        <td />
      </tr>
    );
  }
  const lookup = props.lookup?.lookup;
  return (
    <tr>
      <td className="muted">{n}</td>
      <td>
        <AccountPicker
          accounts={props.accounts}
          value={line.accountId}
          onChange={(accountId) => {
            const account = props.accounts.find((a) => a.id === accountId);
            props.onChange({ accountId, partnerId: account?.intercompanyPartnerId ?? line.partnerId });
          }}
          aria-label={`Account, line ${n}`}
          aria-invalid={!!(e[`/lines/${i}/accountId`] || e[`/lines/${i}`])}
          aria-describedby={describe}
        />
        {lineError ? (
          <div className="line-error" id={errorId}>
            {lineError}
          </div>
        ) : null}
      </td>
      <td>
        <input
          aria-label={`Memo, line ${n}`}
          value={line.memo}
          onChange={(ev) => props.onChange({ memo: ev.target.value })}
        />
      </td>
      <td>
        <input
          className="num"
          inputMode="decimal"
          aria-label={`Debit, line ${n}`}
          aria-invalid={!!e[`/lines/${i}/debitAmount`]}
          value={line.debit}
          onChange={(ev) =>
            props.onChange({ debit: ev.target.value, ...(ev.target.value ? { credit: '' } : {}) })
          }
        />
      </td>
      <td>
        <input
          className="num"
          inputMode="decimal"
          aria-label={`Credit, line ${n}`}
          aria-invalid={!!e[`/lines/${i}/creditAmount`]}
          value={line.credit}
          onChange={(ev) =>
            props.onChange({ credit: ev.target.value, ...(ev.target.value ? { debit: '' } : {}) })
          }
        />
      </td>
      <td>
        <CurrencyInput
          aria-label={`Currency, line ${n}`}
          value={line.currency}
          onChange={(ev) => props.onChange({ currency: ev.target.value, rate: '' })}
        />
      </td>
      <td className="num">
        {foreign ? (
          <div className="fn-cell">
            <span data-testid={`functional-${n}`}>
              {props.functionalAmount !== null ? formatAmount(props.functionalAmount) : '—'}
            </span>
            <input
              className="num rate-input"
              inputMode="decimal"
              aria-label={`Exchange rate ${line.currency} to ${props.functional}, line ${n}`}
              aria-invalid={!!rateError}
              aria-describedby={rateError ? errorId : undefined}
              placeholder={lookup?.effectiveRate && props.lookup?.usable ? lookup.effectiveRate : 'rate'}
              value={line.rate}
              onChange={(ev) => props.onChange({ rate: ev.target.value })}
            />
            <span className="fn-rate">
              {line.rate
                ? 'rate entered'
                : lookup && props.lookup?.usable
                  ? `${lookup.derivation?.toLowerCase()} ${lookup.legs[0]?.rateType ?? ''} ${lookup.legs[0]?.effectiveDate ?? ''}`
                  : 'looked up when saved'}
            </span>
            {rateError ? (
              <span className="line-error" id={lineError ? undefined : errorId}>
                {rateError}
              </span>
            ) : null}
          </div>
        ) : (
          <span className="muted">
            {props.functionalAmount !== null ? formatAmount(props.functionalAmount) : ''}
          </span>
        )}
      </td>
      <td>
        <select
          aria-label={`Intercompany partner, line ${n}`}
          value={line.partnerId}
          onChange={(ev) => props.onChange({ partnerId: ev.target.value })}
        >
          <option value="">—</option>
          {props.partners.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
        {e[`/lines/${i}/intercompanyPartnerId`] ? (
          <div className="line-error">{e[`/lines/${i}/intercompanyPartnerId`]}</div>
        ) : null}
      </td>
      <td>
        {props.onRemove ? (
          <Button size="sm" variant="ghost" onClick={props.onRemove} aria-label={`Remove line ${n}`}>
            ✕
          </Button>
        ) : null}
      </td>
    </tr>
  );
}

function History({ entry }: { entry: JournalEntry }) {
  const events: Array<[string, string | null]> = [
    ['Created', entry.createdAt],
    ['Submitted', entry.submittedAt],
    ['Rejected', entry.rejectedAt],
    ['Approved', entry.approvedAt],
    ['Posted', entry.postedAt],
    ['Reversed', entry.reversedAt],
  ];
  return (
    <Card title="History">
      <ul className="timeline">
        {events
          .filter(([, at]) => at)
          .map(([what, at]) => (
            <li key={what}>
              <strong>{what}</strong> {formatTimestamp(at)}
              {what === 'Rejected' && entry.rejectionReason ? ` — ${entry.rejectionReason}` : ''}
            </li>
          ))}
        {entry.postingDate ? (
          <li>
            <strong>Posting date</strong> {entry.postingDate}
          </li>
        ) : null}
      </ul>
    </Card>
  );
}

function RejectForm(props: { busy: boolean; onSubmit: (reason: string) => void }) {
  const [reason, setReason] = useState('');
  return (
    <Form onSubmit={() => props.onSubmit(reason)}>
      <Field label="Reason (sent back to the author)">
        <textarea rows={3} value={reason} onChange={(e) => setReason(e.target.value)} data-autofocus />
      </Field>
      <div className="form-actions">
        <Button type="submit" variant="primary" busy={props.busy}>
          Reject entry
        </Button>
      </div>
    </Form>
  );
}

function ReverseForm(props: {
  entry: JournalEntry;
  busy: boolean;
  error?: string | undefined;
  onSubmit: (date: string, description: string) => void;
}) {
  const [date, setDate] = useState(() =>
    today() >= props.entry.transactionDate ? today() : props.entry.transactionDate,
  );
  const [description, setDescription] = useState(`Reversal of ${props.entry.entryNumber}`);
  return (
    <Form onSubmit={() => props.onSubmit(date, description)}>
      <p>
        A new posted entry with debits and credits swapped is dated on the reversal date;{' '}
        {props.entry.entryNumber} becomes Reversed.
      </p>
      <Field label="Reversal date" error={props.error} hint={`Not before ${props.entry.transactionDate}.`}>
        <input
          type="date"
          value={date}
          min={props.entry.transactionDate}
          onChange={(e) => setDate(e.target.value)}
          data-autofocus
        />
      </Field>
      <Field label="Description">
        <input value={description} onChange={(e) => setDescription(e.target.value)} />
      </Field>
      <div className="form-actions">
        <Button type="submit" variant="primary" busy={props.busy}>
          Reverse entry
        </Button>
      </div>
    </Form>
  );
}
