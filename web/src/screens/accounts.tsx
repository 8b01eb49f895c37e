/**
 * A company's chart of accounts as a tree (summary accounts with their children), with filters by
 * type, status and flags and a search by number or name; accounts are created and edited in a dialog.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { ACCOUNT_TYPES, CATEGORIES_BY_TYPE } from '../../../src/domain/accounts.ts';
import { api, call } from '../api/client.ts';
import type { Account, RequestBody } from '../api/types.ts';
import { CompanySelect } from '../components/inputs.tsx';
import { useToast } from '../components/toast.tsx';
import { Badge, Button, Card, Dialog, Field, Form, Loaded, PageHeader } from '../components/ui.tsx';
import { type FormErrors, formErrors, NO_ERRORS } from '../lib/errors.ts';
import { humanize } from '../lib/format.ts';
import { useOrg } from '../lib/org.tsx';
import { atLeast } from '../lib/permissions.ts';
import { accountsQuery, useCompanies } from '../lib/queries.ts';

type CreateBody = RequestBody<'/api/v1/accounts', 'post'>;
type AccountType = CreateBody['accountType'];
type AccountCategory = CreateBody['accountCategory'];

// The account vocabulary is the service's own (one declaration for the API and the console).
const CATEGORIES = CATEGORIES_BY_TYPE;
const TYPES = ACCOUNT_TYPES;

interface TreeRow {
  account: Account;
  depth: number;
  hasChildren: boolean;
}

/** Depth-first rows of the tree; `visible` limits them to matches and their ancestors. */
function treeRows(accounts: Account[], collapsed: Set<string>, visible: Set<string> | null): TreeRow[] {
  const children = new Map<string | null, Account[]>();
  const ids = new Set(accounts.map((a) => a.id));
  for (const a of accounts) {
    const parent = a.parentAccountId && ids.has(a.parentAccountId) ? a.parentAccountId : null;
    const list = children.get(parent) ?? [];
    list.push(a);
    children.set(parent, list);
  }
  const rows: TreeRow[] = [];
  const walk = (parent: string | null, depth: number) => {
    for (const a of children.get(parent) ?? []) {
      if (visible && !visible.has(a.id)) continue;
      const kids = (children.get(a.id) ?? []).filter((k) => !visible || visible.has(k.id));
      rows.push({ account: a, depth, hasChildren: kids.length > 0 });
      if (!collapsed.has(a.id) || visible) walk(a.id, depth + 1);
    }
  };
  walk(null, 0);
  return rows;
}

export function ChartOfAccounts() {
  const { orgId, role } = useOrg();
  const { companyId = '' } = useParams();
  const navigate = useNavigate();
  const { companies } = useCompanies(orgId);
  const accounts = useQuery(accountsQuery(orgId, companyId));
  const [params, setParams] = useSearchParams();
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());
  const [editing, setEditing] = useState<Account | 'new' | null>(null);
  const search = params.get('q') ?? '';
  const type = params.get('type') ?? '';
  const status = params.get('status') ?? 'active';
  const flag = params.get('flag') ?? '';
  const setFilter = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: true });
  };

  const list = useMemo(() => accounts.data ?? [], [accounts.data]);
  const visible = useMemo(() => {
    const q = search.trim().toLowerCase();
    const filtering = q !== '' || type !== '' || status !== 'all' || flag !== '';
    if (!filtering) return null;
    const byId = new Map(list.map((a) => [a.id, a]));
    const keep = new Set<string>();
    for (const a of list) {
      if (q && !a.accountNumber.startsWith(q) && !a.name.toLowerCase().includes(q)) continue;
      if (type && a.accountType !== type) continue;
      if (status === 'active' && !a.isActive) continue;
      if (status === 'inactive' && a.isActive) continue;
      if (flag === 'postable' && !a.isPostable) continue;
      if (flag === 'summary' && a.isPostable) continue;
      if (flag === 'intercompany' && !a.isIntercompany) continue;
      if (flag === 'cash' && !a.isCashEquivalent) continue;
      // A match keeps its ancestors, so it is shown in place in the tree.
      for (let cur: Account | undefined = a; cur && !keep.has(cur.id);) {
        keep.add(cur.id);
        cur = cur.parentAccountId ? byId.get(cur.parentAccountId) : undefined;
      }
    }
    return keep;
  }, [list, search, type, status, flag]);
  const rows = useMemo(() => treeRows(list, collapsed, visible), [list, collapsed, visible]);
  const company = companies.find((c) => c.id === companyId);
  const toggle = (id: string) =>
    setCollapsed((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <>
      <PageHeader
        title="Chart of accounts"
        subtitle={company ? `${company.name} · ${company.functionalCurrency}` : undefined}
        actions={
          <>
            <label className="sr-only" htmlFor="coa-company">
              Company
            </label>
            <CompanySelect
              id="coa-company"
              companies={companies}
              value={companyId}
              onChange={(id) => navigate(`/o/${orgId}/companies/${id}/accounts`)}
            />
            {atLeast(role, 'admin') ? (
              <Button variant="primary" onClick={() => setEditing('new')}>
                New account
              </Button>
            ) : null}
          </>
        }
      />
      <Card>
        <div className="filters" role="search">
          <Field label="Search number or name">
            <input type="search" value={search} onChange={(e) => setFilter('q', e.target.value)} />
          </Field>
          <Field label="Type">
            <select value={type} onChange={(e) => setFilter('type', e.target.value)}>
              <option value="">All types</option>
              {TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Status">
            <select
              value={status}
              onChange={(e) => setFilter('status', e.target.value === 'active' ? '' : e.target.value)}
            >
              <option value="active">Active</option>
              <option value="inactive">Inactive</option>
              <option value="all">All</option>
            </select>
          </Field>
          <Field label="Kind">
            <select value={flag} onChange={(e) => setFilter('flag', e.target.value)}>
              <option value="">Any</option>
              <option value="postable">Postable</option>
              <option value="summary">Summary (not postable)</option>
              <option value="intercompany">Intercompany</option>
              <option value="cash">Cash and equivalents</option>
            </select>
          </Field>
          <Button
            size="sm"
            variant="ghost"
            onClick={() => setCollapsed(new Set(list.filter((a) => !a.parentAccountId).map((a) => a.id)))}
          >
            Collapse all
          </Button>
          <Button size="sm" variant="ghost" onClick={() => setCollapsed(new Set())}>
            Expand all
          </Button>
        </div>
        <Loaded
          query={accounts}
          empty={() =>
            rows.length === 0 ? (
              list.length === 0 ? (
                <>
                  This company has no accounts yet. <Link to={`/o/${orgId}/companies`}>Companies</Link>
                </>
              ) : (
                'No account matches the filters.'
              )
            ) : null
          }
        >
          {() => (
            <table className="table table-compact" aria-label="Accounts">
              <thead>
                <tr>
                  <th scope="col">Number</th>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Category</th>
                  <th scope="col">Flags</th>
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map(({ account: a, depth, hasChildren }) => (
                  <tr key={a.id} className={`tree-row${a.isPostable ? '' : ' summary'}`}>
                    <td style={{ paddingLeft: 10 + depth * 18 }}>
                      {hasChildren ? (
                        <button
                          type="button"
                          className="tree-toggle"
                          aria-expanded={!collapsed.has(a.id) || visible !== null}
                          aria-label={`${collapsed.has(a.id) ? 'Expand' : 'Collapse'} ${a.accountNumber}`}
                          onClick={() => toggle(a.id)}
                        >
                          {collapsed.has(a.id) && visible === null ? '▸' : '▾'}
                        </button>
                      ) : (
                        <span className="tree-toggle" aria-hidden />
                      )}
                      <span className="acct-number">{a.accountNumber}</span>
                    </td>
                    <td>{a.name}</td>
                    <td>{a.accountType}</td>
                    <td>{humanize(a.accountCategory)}</td>
                    <td>
                      {!a.isActive ? <Badge value="Inactive" /> : null}{' '}
                      {!a.isPostable ? <Badge value="Summary" label="Summary" /> : null}{' '}
                      {a.isIntercompany ? <Badge value="Intercompany" label="Intercompany" /> : null}{' '}
                      {a.isCashEquivalent ? <Badge value="Cash" label="Cash" /> : null}{' '}
                      {a.isRetainedEarnings ? <Badge value="Approved" label="Retained earnings" /> : null}
                    </td>
                    <td className="actions">
                      {atLeast(role, 'admin') ? (
                        <Button
                          size="sm"
                          variant="ghost"
                          onClick={() => setEditing(a)}
                          aria-label={`Edit ${a.accountNumber}`}
                        >
                          Edit
                        </Button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Loaded>
        {accounts.data ? (
          <p className="hint">
            {list.length} accounts{visible ? `, ${rows.length} shown` : ''}.
          </p>
        ) : null}
      </Card>
      <Dialog
        open={editing !== null}
        title={
          editing === 'new' ? 'New account' : editing ? `Edit ${editing.accountNumber} ${editing.name}` : ''
        }
        onClose={() => setEditing(null)}
      >
        {editing !== null ? (
          <AccountForm
            orgId={orgId}
            companyId={companyId}
            account={editing === 'new' ? null : editing}
            accounts={list}
            companies={companies.filter((c) => c.id !== companyId)}
            onDone={() => setEditing(null)}
          />
        ) : null}
      </Dialog>
    </>
  );
}

const ACCOUNT_FIELDS = [
  '/accountNumber',
  '/name',
  '/description',
  '/accountType',
  '/accountCategory',
  '/parentAccountId',
  '/isPostable',
  '/isActive',
  '/isIntercompany',
  '/intercompanyPartnerId',
  '/cashFlowCategory',
  '/isCashEquivalent',
  '/isNonMonetary',
];

function AccountForm(props: {
  orgId: string;
  companyId: string;
  account: Account | null;
  accounts: Account[];
  companies: Array<{ id: string; name: string }>;
  onDone: () => void;
}) {
  const { account, orgId, companyId } = props;
  const queryClient = useQueryClient();
  const toast = useToast();
  const [accountNumber, setNumber] = useState(account?.accountNumber ?? '');
  const [name, setName] = useState(account?.name ?? '');
  const [description, setDescription] = useState(account?.description ?? '');
  const [accountType, setType] = useState<AccountType>((account?.accountType as AccountType) ?? 'Asset');
  const [accountCategory, setCategory] = useState<AccountCategory>(
    (account?.accountCategory as AccountCategory) ?? 'CurrentAsset',
  );
  const [parent, setParent] = useState(account?.parentAccountId ?? '');
  const [isPostable, setPostable] = useState(account?.isPostable ?? true);
  const [isActive, setActive] = useState(account?.isActive ?? true);
  const [isIntercompany, setIntercompany] = useState(account?.isIntercompany ?? false);
  const [partner, setPartner] = useState(account?.intercompanyPartnerId ?? '');
  const [cashFlow, setCashFlow] = useState(account?.cashFlowCategory ?? '');
  const [isCash, setCash] = useState(account?.isCashEquivalent ?? false);
  const [nonMonetary, setNonMonetary] = useState(account?.isNonMonetary ?? false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const parents = props.accounts.filter((a) => a.accountType === accountType && a.id !== account?.id);
  const balanceSheet = accountType === 'Asset' || accountType === 'Liability' || accountType === 'Equity';

  const shared = {
    name,
    description: description.trim() || null,
    parentAccountId: parent || null,
    isPostable,
    isIntercompany,
    intercompanyPartnerId: isIntercompany ? partner || null : null,
    cashFlowCategory: (balanceSheet && !isCash ? cashFlow || null : null) as CreateBody['cashFlowCategory'],
    isCashEquivalent: isCash,
    isNonMonetary: nonMonetary,
  };
  const save = useMutation({
    mutationFn: async () => {
      if (account)
        return call(
          api.PUT('/api/v1/accounts/organizations/{organizationId}/accounts/{id}', {
            params: { path: { organizationId: orgId, id: account.id } },
            body: { ...shared, isActive },
          }),
        );
      return call(
        api.POST('/api/v1/accounts', {
          body: { organizationId: orgId, companyId, accountNumber, accountType, accountCategory, ...shared },
        }),
      );
    },
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: ['org', orgId, 'accounts', companyId] });
      toast(`Account ${saved.accountNumber} ${account ? 'saved' : 'created'}`);
      props.onDone();
    },
    onError: (err) => setErrors(formErrors(err, ACCOUNT_FIELDS)),
  });
  const e = errors.fields;
  return (
    <Form onSubmit={() => save.mutate()} error={errors.general}>
      <div className="form-grid">
        <Field label="Number" error={e['/accountNumber']} hint="4–10 digits">
          <input
            value={accountNumber}
            disabled={!!account}
            inputMode="numeric"
            onChange={(ev) => setNumber(ev.target.value)}
          />
        </Field>
        <Field label="Name" error={e['/name']}>
          <input value={name} onChange={(ev) => setName(ev.target.value)} />
        </Field>
        <Field label="Type" error={e['/accountType']}>
          <select
            value={accountType}
            disabled={!!account}
            onChange={(ev) => {
              const t = ev.target.value as AccountType;
              setType(t);
              setCategory(CATEGORIES[t][0]!);
              setParent('');
            }}
          >
            {TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </Field>
        <Field label="Category" error={e['/accountCategory']}>
          <select
            value={accountCategory}
            disabled={!!account}
            onChange={(ev) => setCategory(ev.target.value as AccountCategory)}
          >
            {CATEGORIES[accountType].map((c) => (
              <option key={c} value={c}>
                {humanize(c)}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Parent account" error={e['/parentAccountId']}>
          <select value={parent} onChange={(ev) => setParent(ev.target.value)}>
            <option value="">— top level —</option>
            {parents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.accountNumber} {a.name}
              </option>
            ))}
          </select>
        </Field>
        {balanceSheet ? (
          <Field
            label="Cash-flow category"
            error={e['/cashFlowCategory']}
            hint="Empty: the category's default."
          >
            <select value={cashFlow} disabled={isCash} onChange={(ev) => setCashFlow(ev.target.value)}>
              <option value="">Default</option>
              <option>Operating</option>
              <option>Investing</option>
              <option>Financing</option>
              <option value="NonCash">Non-cash</option>
            </select>
          </Field>
        ) : null}
        <Field label="Description" error={e['/description']} className="wide">
          <input value={description} onChange={(ev) => setDescription(ev.target.value)} />
        </Field>
      </div>
      <label className="check">
        <input type="checkbox" checked={isPostable} onChange={(ev) => setPostable(ev.target.checked)} />
        Postable (journal lines may use it)
      </label>
      {account ? (
        <label className="check">
          <input type="checkbox" checked={isActive} onChange={(ev) => setActive(ev.target.checked)} />
          Active
        </label>
      ) : null}
      {accountType === 'Asset' && accountCategory === 'CurrentAsset' ? (
        <label className="check">
          <input type="checkbox" checked={isCash} onChange={(ev) => setCash(ev.target.checked)} />
          Cash or cash equivalent
        </label>
      ) : null}
      {accountType === 'Asset' || accountType === 'Liability' ? (
        <label className="check">
          <input type="checkbox" checked={nonMonetary} onChange={(ev) => setNonMonetary(ev.target.checked)} />
          Non-monetary (translated at historical rates)
        </label>
      ) : null}
      <label className="check">
        <input
          type="checkbox"
          checked={isIntercompany}
          onChange={(ev) => setIntercompany(ev.target.checked)}
        />
        Intercompany account
      </label>
      {isIntercompany ? (
        <Field label="Counterparty company" error={e['/intercompanyPartnerId']}>
          <select value={partner} onChange={(ev) => setPartner(ev.target.value)}>
            <option value="">— any —</option>
            {props.companies.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </Field>
      ) : null}
      {Object.entries(e)
        .filter(([k]) =>
          ['/isPostable', '/isActive', '/isIntercompany', '/isCashEquivalent', '/isNonMonetary'].includes(k),
        )
        .map(([k, v]) => (
          <div key={k} className="error">
            {v}
          </div>
        ))}
      <div className="form-actions">
        <Button type="submit" variant="primary" busy={save.isPending}>
          {account ? 'Save account' : 'Create account'}
        </Button>
        <Button variant="ghost" onClick={props.onDone}>
          Cancel
        </Button>
      </div>
    </Form>
  );
}
