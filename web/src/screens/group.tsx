/**
 * One consolidation group: its ownership structure drawn as a tree (ownership and non-controlling
 * interest on the edges), its members, its elimination rules, its runs, and starting a new run.
 */
import { keepPreviousData, useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import type {
  AccountSelector,
  Company,
  ConsolidationGroup,
  ConsolidationMethod,
  EliminationRule,
  EliminationType,
} from '../api/types.ts';
import { AccountPicker } from '../components/account-picker.tsx';
import { CompanySelect } from '../components/inputs.tsx';
import { useConfirm } from '../components/confirm.tsx';
import { useToast } from '../components/toast.tsx';
import {
  Alert,
  Badge,
  Button,
  Card,
  Dialog,
  Empty,
  EnumSelect,
  Field,
  Form,
  Loaded,
  Loading,
  PageHeader,
  Pager,
} from '../components/ui.tsx';
import { errorMessage, type FormErrors, formErrors, NO_ERRORS } from '../lib/errors.ts';
import { useFeatures } from '../lib/features.ts';
import { endOfPreviousMonth, periodOf } from '../lib/dates.ts';
import { formatDuration, formatPercent, formatTimestamp, humanize, today } from '../lib/format.ts';
import { useOrg } from '../lib/org.tsx';
import { atLeast } from '../lib/permissions.ts';
import { accountsQuery, useCompanies } from '../lib/queries.ts';
import { findHolders, ownershipTree, type TreeNode } from '../lib/structure.ts';
import { METHODS } from './groups.tsx';

const ELIMINATION_TYPES: EliminationType[] = [
  'IntercompanyReceivablesPayables',
  'IntercompanySales',
  'IntercompanyProfit',
  'IntercompanyDividends',
  'IntercompanyInvestment',
  'Custom',
];

export function GroupPage() {
  const { orgId, role } = useOrg();
  const { groupId = '' } = useParams();
  const group = useQuery({
    queryKey: ['org', orgId, 'group', groupId],
    queryFn: () =>
      call(
        api.GET('/api/v1/consolidation/groups/{id}', {
          params: { path: { id: groupId }, query: { organizationId: orgId } },
        }),
      ),
  });
  const { byId } = useCompanies(orgId);
  if (group.isPending) return <Loading />;
  if (group.error) return <Alert kind="error">{group.error.message}</Alert>;
  const g = group.data;
  const admin = atLeast(role, 'admin');
  return (
    <>
      <GroupHeader group={g} admin={admin} />
      <div className="grid-2">
        <Card title="Ownership structure">
          <StructureTree group={g} companies={byId} />
        </Card>
        {admin ? <StartRun group={g} /> : <RunsSummary group={g} />}
      </div>
      <Members group={g} companies={byId} admin={admin} />
      <Rules group={g} companies={byId} admin={admin} />
      <Runs group={g} />
    </>
  );
}

function GroupHeader({ group, admin }: { group: ConsolidationGroup; admin: boolean }) {
  const { orgId } = useOrg();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [error, setError] = useState<string | null>(null);
  const toggle = useMutation({
    mutationFn: () => {
      const params = { params: { path: { id: group.id }, query: { organizationId: orgId } } };
      return group.isActive
        ? call(api.POST('/api/v1/consolidation/groups/{id}/deactivate', params))
        : call(api.POST('/api/v1/consolidation/groups/{id}/activate', params));
    },
    onSuccess: async (g) => {
      toast(`${g.name} ${g.isActive ? 'activated' : 'deactivated'}`);
      await queryClient.invalidateQueries({ queryKey: ['org', orgId] });
    },
    onError: (err) => setError(errorMessage(err)),
  });
  return (
    <>
      <PageHeader
        title={group.name}
        subtitle={
          <>
            {humanize(group.consolidationMethod)} in {group.reportingCurrency} ·{' '}
            <Badge value={group.isActive ? 'Active' : 'Inactive'} />
          </>
        }
        actions={
          <>
            <Link className="btn" to={`/o/${orgId}/consolidation`}>
              All groups
            </Link>
            {admin ? (
              <Button busy={toggle.isPending} onClick={() => toggle.mutate()}>
                {group.isActive ? 'Deactivate' : 'Activate'}
              </Button>
            ) : null}
          </>
        }
      />
      {error ? <Alert kind="error">{error}</Alert> : null}
    </>
  );
}

function StructureTree({ group, companies }: { group: ConsolidationGroup; companies: Map<string, Company> }) {
  const { orgId } = useOrg();
  const features = useFeatures();
  const structure = useQuery({
    queryKey: ['org', orgId, 'group-structure', group.id, group.updatedAt],
    // The holding chain, where the service describes it (older versions do not: see lib/features.ts).
    queryFn: () =>
      call(
        api.GET('/api/v1/consolidation/groups/{id}/structure', {
          params: { path: { id: group.id }, query: { organizationId: orgId } },
        }),
      ),
    enabled: features.structure,
  });
  const members = useMemo(() => {
    const fromStructure = findHolders(structure.data);
    if (!fromStructure) return group.members;
    return group.members.map((m) => ({ ...m, heldByCompanyId: fromStructure.get(m.companyId) ?? null }));
  }, [structure.data, group.members]);
  const tree = ownershipTree(group.parentCompanyId, members);
  const node = (n: TreeNode) => {
    const company = companies.get(n.companyId);
    const m = n.member;
    return (
      <li key={n.companyId}>
        {m ? (
          <span className="edge-label" data-testid={`edge-${company?.name ?? n.companyId}`}>
            {formatPercent(m.ownershipPercentage)}
            {m.consolidationMethod !== 'FullConsolidation' ? ` · ${humanize(m.consolidationMethod)}` : ''}
            {m.nonControllingInterestPercentage !== '0.00' ? (
              <span className="nci"> · NCI {formatPercent(m.nonControllingInterestPercentage)}</span>
            ) : null}
          </span>
        ) : null}
        <div className={`entity${m ? '' : ' parent'}`}>
          <div className="entity-name">{company?.name ?? n.companyId.slice(0, 8)}</div>
          <div className="entity-meta">
            {m ? (m.acquisitionDate ? `since ${m.acquisitionDate}` : 'member') : 'parent'} ·{' '}
            {company?.functionalCurrency ?? ''}
          </div>
        </div>
        {n.children.length > 0 ? <ul>{n.children.map(node)}</ul> : null}
      </li>
    );
  };
  return (
    <div className="org-chart" role="group" aria-label={`Ownership structure of ${group.name}`}>
      <ul>{node(tree)}</ul>
    </div>
  );
}

function Members({
  group,
  companies,
  admin,
}: {
  group: ConsolidationGroup;
  companies: Map<string, Company>;
  admin: boolean;
}) {
  const { orgId } = useOrg();
  const queryClient = useQueryClient();
  const toast = useToast();
  const { confirm } = useConfirm();
  const [error, setError] = useState<string | null>(null);
  const [adding, setAdding] = useState({
    companyId: '',
    ownership: '100',
    method: group.consolidationMethod,
    acquisitionDate: '',
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['org', orgId] });
  const update = useMutation({
    mutationFn: (v: {
      companyId: string;
      ownershipPercentage?: string;
      consolidationMethod?: ConsolidationMethod;
    }) =>
      call(
        api.PUT('/api/v1/consolidation/groups/{id}/members/{companyId}', {
          params: { path: { id: group.id, companyId: v.companyId }, query: { organizationId: orgId } },
          body: {
            ...(v.ownershipPercentage !== undefined ? { ownershipPercentage: v.ownershipPercentage } : {}),
            ...(v.consolidationMethod ? { consolidationMethod: v.consolidationMethod } : {}),
          },
        }),
      ),
    onSuccess: async () => {
      setError(null);
      toast('Member updated');
      await refresh();
    },
    onError: (err) => setError(errorMessage(err)),
  });
  const remove = useMutation({
    mutationFn: (companyId: string) =>
      call(
        api.DELETE('/api/v1/consolidation/groups/{id}/members/{companyId}', {
          params: { path: { id: group.id, companyId }, query: { organizationId: orgId } },
        }),
      ),
    onSuccess: async () => {
      setError(null);
      toast('Member removed');
      await refresh();
    },
    onError: (err) => setError(errorMessage(err)),
  });
  const add = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/consolidation/groups/{id}/members', {
          params: { path: { id: group.id }, query: { organizationId: orgId } },
          body: {
            companyId: adding.companyId,
            ownershipPercentage: adding.ownership,
            consolidationMethod: adding.method,
            acquisitionDate: adding.acquisitionDate || null,
          },
        }),
      ),
    onSuccess: async () => {
      setError(null);
      toast('Member added');
      setAdding((a) => ({ ...a, companyId: '' }));
      await refresh();
    },
    onError: (err) => setError(errorMessage(err)),
  });
  const candidates = [...companies.values()].filter(
    (c) => c.id !== group.parentCompanyId && !group.members.some((m) => m.companyId === c.id),
  );
  return (
    <Card title="Members">
      {error ? <Alert kind="error">{error}</Alert> : null}
      {group.members.length === 0 ? (
        <Empty>Only the parent so far.</Empty>
      ) : (
        <table className="table" aria-label="Group members">
          <thead>
            <tr>
              <th scope="col">Company</th>
              <th scope="col" className="num">
                Ownership
              </th>
              <th scope="col" className="num">
                NCI
              </th>
              <th scope="col">Method</th>
              <th scope="col">Acquired</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {group.members.map((m) => {
              const c = companies.get(m.companyId);
              return (
                <tr key={m.companyId}>
                  <td>
                    {c?.name ?? m.companyId} <span className="muted">{c?.functionalCurrency}</span>
                  </td>
                  <td className="num">
                    {admin ? (
                      <input
                        className="num narrow-input"
                        aria-label={`Ownership of ${c?.name ?? 'member'} in percent`}
                        defaultValue={m.ownershipPercentage}
                        onBlur={(ev) => {
                          if (ev.target.value !== m.ownershipPercentage)
                            update.mutate({ companyId: m.companyId, ownershipPercentage: ev.target.value });
                        }}
                      />
                    ) : (
                      formatPercent(m.ownershipPercentage)
                    )}
                  </td>
                  <td className="num">{formatPercent(m.nonControllingInterestPercentage)}</td>
                  <td>
                    {admin ? (
                      <EnumSelect
                        aria-label={`Method of ${c?.name ?? 'member'}`}
                        values={METHODS}
                        value={m.consolidationMethod as ConsolidationMethod}
                        onChange={(consolidationMethod) =>
                          update.mutate({ companyId: m.companyId, consolidationMethod })
                        }
                      />
                    ) : (
                      humanize(m.consolidationMethod)
                    )}
                  </td>
                  <td className="tabular">{m.acquisitionDate ?? '—'}</td>
                  <td className="actions">
                    {admin ? (
                      <Button
                        size="sm"
                        variant="ghost"
                        onClick={async () => {
                          if (
                            await confirm({
                              title: 'Remove the member',
                              message: `Remove ${c?.name ?? 'this member'} from the group?`,
                              confirmLabel: 'Remove member',
                              danger: true,
                            })
                          )
                            remove.mutate(m.companyId);
                        }}
                      >
                        Remove
                      </Button>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {admin && candidates.length > 0 ? (
        <Form className="inline-form add-member" onSubmit={() => add.mutate()}>
          <Field label="Add company">
            <CompanySelect
              companies={candidates}
              value={adding.companyId}
              onChange={(companyId) => setAdding({ ...adding, companyId })}
              placeholder="Company"
            />
          </Field>
          <Field label="Ownership %">
            <input
              className="num"
              value={adding.ownership}
              onChange={(ev) => setAdding({ ...adding, ownership: ev.target.value })}
            />
          </Field>
          <Field label="Method">
            <EnumSelect
              values={METHODS}
              value={adding.method}
              onChange={(method) => setAdding({ ...adding, method })}
            />
          </Field>
          <Field label="Acquired on">
            <input
              type="date"
              value={adding.acquisitionDate}
              onChange={(ev) => setAdding({ ...adding, acquisitionDate: ev.target.value })}
            />
          </Field>
          <Button type="submit" busy={add.isPending} disabled={!adding.companyId}>
            Add member
          </Button>
        </Form>
      ) : null}
    </Card>
  );
}

function selectorText(s: AccountSelector, companies: Map<string, Company>): string {
  return `${s.accountNumber}${s.companyId ? ` (${companies.get(s.companyId)?.name ?? 'company'})` : ''}`;
}

/** A rule's debit or credit account: a company account by its number, a group account as such. */
function ruleAccountText(
  id: string,
  kind: 'CompanyAccount' | 'GroupAccount' | undefined,
  accountIds: Map<string, string>,
): string {
  if (kind === 'GroupAccount') return 'group account';
  return accountIds.get(id) ?? '…';
}

function Rules({
  group,
  companies,
  admin,
}: {
  group: ConsolidationGroup;
  companies: Map<string, Company>;
  admin: boolean;
}) {
  const { orgId } = useOrg();
  const queryClient = useQueryClient();
  const toast = useToast();
  const { confirm } = useConfirm();
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const rules = useQuery({
    queryKey: ['org', orgId, 'rules', group.id],
    queryFn: () =>
      call(
        api.GET('/api/v1/elimination-rules', {
          params: { query: { organizationId: orgId, consolidationGroupId: group.id, limit: 100 } },
        }),
      ),
  });
  const groupCompanies = [group.parentCompanyId, ...group.members.map((m) => m.companyId)];
  const accountIds = useAccountNumbers(orgId, groupCompanies);
  const act = useMutation({
    mutationFn: async (v: {
      rule: EliminationRule;
      action: 'activate' | 'deactivate' | 'delete' | 'priority';
      priority?: number;
    }) => {
      const params = { params: { path: { id: v.rule.id }, query: { organizationId: orgId } } };
      if (v.action === 'activate') return call(api.POST('/api/v1/elimination-rules/{id}/activate', params));
      if (v.action === 'deactivate')
        return call(api.POST('/api/v1/elimination-rules/{id}/deactivate', params));
      if (v.action === 'priority')
        return call(
          api.POST('/api/v1/elimination-rules/{id}/priority', { ...params, body: { priority: v.priority! } }),
        );
      await call(api.DELETE('/api/v1/elimination-rules/{id}', params));
      return null;
    },
    onSuccess: async () => {
      setError(null);
      toast('Rule updated');
      await queryClient.invalidateQueries({ queryKey: ['org', orgId, 'rules', group.id] });
    },
    onError: (err) => setError(errorMessage(err)),
  });
  return (
    <Card
      title="Elimination rules"
      actions={
        admin ? (
          <Button variant="primary" size="sm" onClick={() => setOpen(true)}>
            New rule
          </Button>
        ) : null
      }
    >
      {error ? <Alert kind="error">{error}</Alert> : null}
      <Loaded
        query={rules}
        empty={(data) =>
          data.rules.length === 0 ? 'No rule: intercompany balances stay in the consolidated figures.' : null
        }
      >
        {(data) => (
          <table className="table" aria-label="Elimination rules">
            <thead>
              <tr>
                <th scope="col" className="num">
                  Priority
                </th>
                <th scope="col">Rule</th>
                <th scope="col">Type</th>
                <th scope="col">Source → target</th>
                <th scope="col">Debit / credit</th>
                <th scope="col">Applies</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.rules.map((r) => (
                <tr key={r.id}>
                  <td className="num">
                    {admin ? (
                      <input
                        className="num narrow-input"
                        aria-label={`Priority of ${r.name}`}
                        type="number"
                        min={0}
                        max={999}
                        defaultValue={r.priority}
                        onBlur={(ev) => {
                          const p = Number(ev.target.value);
                          if (p !== r.priority) act.mutate({ rule: r, action: 'priority', priority: p });
                        }}
                      />
                    ) : (
                      r.priority
                    )}
                  </td>
                  <td>
                    {r.name}
                    {r.description ? <div className="muted">{r.description}</div> : null}
                  </td>
                  <td>{humanize(r.eliminationType)}</td>
                  <td>
                    {r.sourceAccounts.map((s) => selectorText(s, companies)).join(', ')}
                    {r.targetAccounts.length > 0
                      ? ` → ${r.targetAccounts.map((s) => selectorText(s, companies)).join(', ')}`
                      : ''}
                    {r.triggerConditions.length > 0 ? (
                      <div className="muted">{r.triggerConditions.length} trigger condition(s)</div>
                    ) : null}
                  </td>
                  <td>
                    Dr {ruleAccountText(r.debitAccountId, r.debitAccountKind, accountIds)} / Cr{' '}
                    {ruleAccountText(r.creditAccountId, r.creditAccountKind, accountIds)}
                  </td>
                  <td>
                    <Badge value={r.isActive ? 'Active' : 'Inactive'} />{' '}
                    {r.isAutomatic ? 'automatic' : 'when approved for a run'}
                  </td>
                  <td className="actions">
                    {admin ? (
                      <>
                        <Button
                          size="sm"
                          variant="ghost"
                          onClick={() =>
                            act.mutate({ rule: r, action: r.isActive ? 'deactivate' : 'activate' })
                          }
                        >
                          {r.isActive ? 'Deactivate' : 'Activate'}
                        </Button>
                        <Button
                          size="sm"
                          variant="ghost"
                          onClick={async () => {
                            if (
                              await confirm({
                                title: 'Delete the rule',
                                message: `Delete the elimination rule ${r.name}?`,
                                confirmLabel: 'Delete rule',
                                danger: true,
                              })
                            )
                              act.mutate({ rule: r, action: 'delete' });
                          }}
                        >
                          Delete
                        </Button>
                      </>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Loaded>
      <Dialog open={open} title="New elimination rule" onClose={() => setOpen(false)}>
        {open ? <RuleForm group={group} companies={companies} onDone={() => setOpen(false)} /> : null}
      </Dialog>
    </Card>
  );
}

/** Account id → "1100 (Acme Inc.)" for the rule table. */
function useAccountNumbers(orgId: string, companyIds: string[]): Map<string, string> {
  const { byId } = useCompanies(orgId);
  const results = useQueries({ queries: companyIds.map((id) => accountsQuery(orgId, id)) });
  const map = new Map<string, string>();
  results.forEach((r, i) => {
    for (const a of r.data ?? [])
      map.set(a.id, `${a.accountNumber} (${byId.get(companyIds[i]!)?.name ?? ''})`);
  });
  return map;
}

interface SelectorDraft {
  pattern: string;
  companyId: string;
}

function SelectorRows(props: {
  label: string;
  rows: SelectorDraft[];
  set: (rows: SelectorDraft[]) => void;
  companies: Company[];
  errors: Record<string, string>;
  pointer: string;
}) {
  return (
    <fieldset className="controls">
      <legend>{props.label}</legend>
      {props.rows.map((r, i) => (
        <div key={i} className="inline-form">
          <Field
            label="Account pattern"
            hint="1100, 11* or 1100-1199"
            error={
              props.errors[`${props.pointer}/${i}/accountNumber`] ?? props.errors[`${props.pointer}/${i}`]
            }
          >
            <input
              value={r.pattern}
              onChange={(e) =>
                props.set(props.rows.map((x, j) => (j === i ? { ...x, pattern: e.target.value } : x)))
              }
            />
          </Field>
          <Field label="Company">
            <CompanySelect
              companies={props.companies}
              value={r.companyId}
              allowAll="Every consolidated company"
              onChange={(companyId) =>
                props.set(props.rows.map((x, j) => (j === i ? { ...x, companyId } : x)))
              }
            />
          </Field>
          <Button
            variant="ghost"
            aria-label={`Remove ${props.label} ${i + 1}`}
            onClick={() => props.set(props.rows.filter((_, j) => j !== i))}
          >
            ✕
          </Button>
        </div>
      ))}
      <Button size="sm" onClick={() => props.set([...props.rows, { pattern: '', companyId: '' }])}>
        + Add selector
      </Button>
      {props.errors[props.pointer] ? <div className="error">{props.errors[props.pointer]}</div> : null}
    </fieldset>
  );
}

function AccountOfCompany(props: {
  label: string;
  companies: Company[];
  companyId: string;
  accountId: string;
  onChange: (companyId: string, accountId: string) => void;
  error?: string | undefined;
}) {
  const { orgId } = useOrg();
  const accounts = useQuery(accountsQuery(orgId, props.companyId));
  return (
    <div className="inline-form">
      <Field label={`${props.label} company`}>
        <CompanySelect
          companies={props.companies}
          value={props.companyId}
          onChange={(c) => props.onChange(c, '')}
        />
      </Field>
      <Field label={`${props.label} account`} error={props.error}>
        <AccountPicker
          accounts={accounts.data ?? []}
          value={props.accountId}
          onChange={(a) => props.onChange(props.companyId, a)}
        />
      </Field>
    </div>
  );
}

function RuleForm(props: { group: ConsolidationGroup; companies: Map<string, Company>; onDone: () => void }) {
  const { group } = props;
  const { orgId } = useOrg();
  const queryClient = useQueryClient();
  const toast = useToast();
  const groupCompanies = [group.parentCompanyId, ...group.members.map((m) => m.companyId)]
    .map((id) => props.companies.get(id))
    .filter((c): c is Company => !!c);
  const [ruleName, setName] = useState('');
  const [description, setDescription] = useState('');
  const [type, setType] = useState<EliminationType>('IntercompanySales');
  const [sources, setSources] = useState<SelectorDraft[]>([
    { pattern: '', companyId: group.parentCompanyId },
  ]);
  const [targets, setTargets] = useState<SelectorDraft[]>([
    { pattern: '', companyId: group.members[0]?.companyId ?? '' },
  ]);
  const [debit, setDebit] = useState({ companyId: group.parentCompanyId, accountId: '' });
  const [credit, setCredit] = useState({
    companyId: group.members[0]?.companyId ?? group.parentCompanyId,
    accountId: '',
  });
  const [automatic, setAutomatic] = useState(true);
  const [priority, setPriority] = useState('10');
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const selectors = (rows: SelectorDraft[]) =>
    rows.map((r) => ({ accountNumber: r.pattern.trim(), companyId: r.companyId || null }));
  const create = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/elimination-rules', {
          body: {
            organizationId: orgId,
            consolidationGroupId: group.id,
            name: ruleName,
            description: description.trim() || null,
            eliminationType: type,
            triggerConditions: [],
            sourceAccounts: selectors(sources),
            targetAccounts: selectors(targets),
            debitAccountId: debit.accountId,
            creditAccountId: credit.accountId,
            isAutomatic: automatic,
            priority: Number(priority),
          },
        }),
      ),
    onSuccess: async (r) => {
      toast(`Rule ${r.name} created`);
      await queryClient.invalidateQueries({ queryKey: ['org', orgId, 'rules', group.id] });
      await queryClient.invalidateQueries({ queryKey: ['org', orgId, 'group', group.id] });
      props.onDone();
    },
    onError: (err) =>
      setErrors(
        formErrors(
          err,
          [
            '/name',
            '/description',
            '/eliminationType',
            '/priority',
            '/debitAccountId',
            '/creditAccountId',
            '/sourceAccounts',
            '/targetAccounts',
            ...sources.flatMap((_, i) => [`/sourceAccounts/${i}`, `/sourceAccounts/${i}/accountNumber`]),
            ...targets.flatMap((_, i) => [`/targetAccounts/${i}`, `/targetAccounts/${i}/accountNumber`]),
          ],
          (e) =>
            e.tag === 'AccountNotFoundError'
              ? e.body.accountId === debit.accountId
                ? '/debitAccountId'
                : '/creditAccountId'
              : undefined,
        ),
      ),
  });
  const e = errors.fields;
  return (
    <Form onSubmit={() => create.mutate()} error={errors.general}>
      <div className="form-grid">
        <Field label="Rule name" error={e['/name']}>
          <input value={ruleName} onChange={(ev) => setName(ev.target.value)} />
        </Field>
        <Field label="Type" error={e['/eliminationType']}>
          <EnumSelect values={ELIMINATION_TYPES} value={type} onChange={setType} />
        </Field>
        <Field label="Priority" error={e['/priority']} hint="Lower runs first (0–999).">
          <input
            type="number"
            min={0}
            max={999}
            value={priority}
            onChange={(ev) => setPriority(ev.target.value)}
          />
        </Field>
        <Field label="Description" error={e['/description']} className="wide">
          <input value={description} onChange={(ev) => setDescription(ev.target.value)} />
        </Field>
      </div>
      <SelectorRows
        label="Source accounts"
        rows={sources}
        set={setSources}
        companies={groupCompanies}
        errors={e}
        pointer="/sourceAccounts"
      />
      <SelectorRows
        label="Target accounts"
        rows={targets}
        set={setTargets}
        companies={groupCompanies}
        errors={e}
        pointer="/targetAccounts"
      />
      <AccountOfCompany
        label="Debit"
        companies={groupCompanies}
        companyId={debit.companyId}
        accountId={debit.accountId}
        onChange={(companyId, accountId) => setDebit({ companyId, accountId })}
        error={e['/debitAccountId']}
      />
      <AccountOfCompany
        label="Credit"
        companies={groupCompanies}
        companyId={credit.companyId}
        accountId={credit.accountId}
        onChange={(companyId, accountId) => setCredit({ companyId, accountId })}
        error={e['/creditAccountId']}
      />
      <label className="check">
        <input type="checkbox" checked={automatic} onChange={(ev) => setAutomatic(ev.target.checked)} />
        Apply automatically in every run
      </label>
      <div className="form-actions">
        <Button type="submit" variant="primary" busy={create.isPending}>
          Create rule
        </Button>
      </div>
    </Form>
  );
}

function StartRun({ group }: { group: ConsolidationGroup }) {
  const { orgId } = useOrg();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  // A month is closed after it ends: the period of last month, in the parent's calendar, is offered.
  const { byId } = useCompanies(orgId);
  const fye = byId.get(group.parentCompanyId)?.fiscalYearEnd ?? { month: 12, day: 31 };
  const lastMonth = periodOf(fye, endOfPreviousMonth(today()));
  const [year, setYear] = useState(String(lastMonth.year));
  const [period, setPeriod] = useState(String(lastMonth.period));
  const [asOfDate, setAsOfDate] = useState('');
  const [options, setOptions] = useState({
    skipValidation: false,
    continueOnWarnings: true,
    includeEquityMethodInvestments: true,
    forceRegeneration: false,
  });
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const start = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/consolidation/groups/{groupId}/runs', {
          params: { path: { groupId: group.id }, query: { organizationId: orgId } },
          // The run executes in the background; its page follows the seven steps as they progress.
          headers: { prefer: 'respond-async' },
          body: {
            periodRef: { year: Number(year), period: Number(period) },
            asOfDate: asOfDate || null,
            ...options,
          },
        }),
      ),
    onSuccess: async (run) => {
      // The run's page starts from this answer (Pending, its steps not begun) and polls from there.
      queryClient.setQueryData(['org', orgId, 'run', run.id], run);
      await queryClient.invalidateQueries({ queryKey: ['org', orgId, 'runs'] });
      navigate(`/o/${orgId}/consolidation/runs/${run.id}`);
    },
    onError: (err) =>
      setErrors(formErrors(err, ['/periodRef', '/periodRef/year', '/periodRef/period', '/asOfDate'])),
  });
  const option = (key: keyof typeof options, label: string) => (
    <label className="check">
      <input
        type="checkbox"
        checked={options[key]}
        onChange={(ev) => setOptions({ ...options, [key]: ev.target.checked })}
      />
      {label}
    </label>
  );
  const e = errors.fields;
  return (
    <Card title="Run a consolidation">
      <Form
        onSubmit={() => {
          setErrors(NO_ERRORS);
          start.mutate();
        }}
        error={errors.general}
      >
        <div className="form-grid">
          <Field label="Fiscal year" error={e['/periodRef/year']}>
            <input
              type="number"
              min={1900}
              max={2999}
              value={year}
              onChange={(ev) => setYear(ev.target.value)}
            />
          </Field>
          <Field label="Period" error={e['/periodRef/period'] ?? e['/periodRef']}>
            <input
              type="number"
              min={1}
              max={13}
              value={period}
              onChange={(ev) => setPeriod(ev.target.value)}
            />
          </Field>
          <Field label="As of (optional)" error={e['/asOfDate']} hint="Defaults to the period end.">
            <input type="date" value={asOfDate} onChange={(ev) => setAsOfDate(ev.target.value)} />
          </Field>
        </div>
        {option('continueOnWarnings', 'Continue on warnings')}
        {option('includeEquityMethodInvestments', 'Include equity-method investments')}
        {option('skipValidation', 'Skip validation')}
        {option('forceRegeneration', 'Run again even if a completed run exists for the period')}
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={start.isPending} disabled={!group.isActive}>
            Start run
          </Button>
          {!group.isActive ? <span className="muted">The group is inactive.</span> : null}
        </div>
      </Form>
    </Card>
  );
}

function RunsSummary({ group }: { group: ConsolidationGroup }) {
  return (
    <Card title="Runs">
      <p className="muted">
        Admins and owners start runs of {group.name}; everyone can read their results below.
      </p>
    </Card>
  );
}

function Runs({ group }: { group: ConsolidationGroup }) {
  const { orgId } = useOrg();
  const navigate = useNavigate();
  const [offset, setOffset] = useState(0);
  const runs = useQuery({
    queryKey: ['org', orgId, 'runs', group.id, offset],
    queryFn: () =>
      call(
        api.GET('/api/v1/consolidation/runs', {
          params: { query: { organizationId: orgId, groupId: group.id, limit: 20, offset } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  return (
    <Card title="Runs">
      <Loaded query={runs} empty={(data) => (data.runs.length === 0 ? 'No run yet.' : null)}>
        {(data) => (
          <>
            <table className="table" aria-label="Consolidation runs">
              <thead>
                <tr>
                  <th scope="col">Period</th>
                  <th scope="col">As of</th>
                  <th scope="col">Status</th>
                  <th scope="col">Started</th>
                  <th scope="col" className="num">
                    Duration
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.runs.map((r) => (
                  <tr
                    key={r.id}
                    className="clickable"
                    onClick={() => navigate(`/o/${orgId}/consolidation/runs/${r.id}`)}
                  >
                    <td>
                      <Link
                        to={`/o/${orgId}/consolidation/runs/${r.id}`}
                        onClick={(ev) => ev.stopPropagation()}
                      >
                        {r.periodRef.year}/{String(r.periodRef.period).padStart(2, '0')}
                      </Link>
                    </td>
                    <td className="tabular">{r.asOfDate}</td>
                    <td>
                      <Badge value={r.status} />
                    </td>
                    <td>{formatTimestamp(r.initiatedAt)}</td>
                    <td className="num">{formatDuration(r.totalDurationMs)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager total={data.total} limit={20} offset={offset} onChange={setOffset} label="Run pages" />
          </>
        )}
      </Loaded>
    </Card>
  );
}
