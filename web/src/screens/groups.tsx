/** Consolidation groups: the list with each group's latest run, and creating a group with its members. */
import { useMutation, useQueries, useQueryClient, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, call } from '../api/client.ts';
import type { ConsolidationMethod, CurrencyCode } from '../api/types.ts';
import { CompanySelect, CurrencyInput } from '../components/inputs.tsx';
import { useToast } from '../components/toast.tsx';
import { Badge, Button, Card, EnumSelect, Field, Form, Loaded, PageHeader } from '../components/ui.tsx';
import { type FormErrors, formErrors, NO_ERRORS } from '../lib/errors.ts';
import { formatPercent, today } from '../lib/format.ts';
import { useOrg } from '../lib/org.tsx';
import { atLeast } from '../lib/permissions.ts';
import { groupsQuery, useCompanies } from '../lib/queries.ts';

export const METHODS: ConsolidationMethod[] = [
  'FullConsolidation',
  'ProportionateConsolidation',
  'EquityMethod',
];

export function Groups() {
  const { orgId, role } = useOrg();
  const groups = useQuery(groupsQuery(orgId));
  const { name } = useCompanies(orgId);
  const [creating, setCreating] = useState(false);
  const latest = useQueries({
    queries: (groups.data ?? []).map((g) => ({
      queryKey: ['org', orgId, 'latest-run', g.id],
      queryFn: () =>
        call(
          api.GET('/api/v1/consolidation/groups/{groupId}/latest-run', {
            params: { path: { groupId: g.id }, query: { organizationId: orgId } },
          }),
        ),
    })),
  });
  return (
    <>
      <PageHeader
        title="Consolidation"
        subtitle="Groups of companies consolidated into one set of statements in the group's currency."
        actions={
          atLeast(role, 'admin') ? (
            <Button variant="primary" onClick={() => setCreating((c) => !c)} aria-expanded={creating}>
              New group
            </Button>
          ) : null
        }
      />
      {creating ? <NewGroup onCancel={() => setCreating(false)} /> : null}
      <Card>
        <Loaded query={groups} empty={(data) => (data.length === 0 ? 'No consolidation group yet.' : null)}>
          {(data) => (
            <table className="table" aria-label="Consolidation groups">
              <thead>
                <tr>
                  <th scope="col">Group</th>
                  <th scope="col">Parent</th>
                  <th scope="col" className="num">
                    Members
                  </th>
                  <th scope="col">Currency</th>
                  <th scope="col">Status</th>
                  <th scope="col">Latest completed run</th>
                </tr>
              </thead>
              <tbody>
                {data.map((g, i) => {
                  const run = latest[i]?.data;
                  return (
                    <tr key={g.id}>
                      <td>
                        <Link to={`/o/${orgId}/consolidation/groups/${g.id}`}>{g.name}</Link>
                      </td>
                      <td>{name(g.parentCompanyId)}</td>
                      <td className="num">{g.members.length}</td>
                      <td>{g.reportingCurrency}</td>
                      <td>
                        <Badge value={g.isActive ? 'Active' : 'Inactive'} />
                      </td>
                      <td>
                        {run ? (
                          <Link to={`/o/${orgId}/consolidation/runs/${run.id}`}>
                            {run.periodRef.year}/{String(run.periodRef.period).padStart(2, '0')} as of{' '}
                            {run.asOfDate}
                          </Link>
                        ) : (
                          <span className="muted">none</span>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
        </Loaded>
      </Card>
    </>
  );
}

interface MemberDraft {
  key: number;
  companyId: string;
  ownership: string;
  method: ConsolidationMethod;
  acquisitionDate: string;
}
let key = 1;

function NewGroup(props: { onCancel: () => void }) {
  const { orgId, org } = useOrg();
  const { companies } = useCompanies(orgId);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [groupName, setName] = useState('');
  const [currency, setCurrency] = useState(org.reportingCurrency);
  const [method, setMethod] = useState<ConsolidationMethod>('FullConsolidation');
  const [parent, setParent] = useState(companies[0]?.id ?? '');
  const [members, setMembers] = useState<MemberDraft[]>([]);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const setMember = (k: number, patch: Partial<MemberDraft>) =>
    setMembers((list) => list.map((m) => (m.key === k ? { ...m, ...patch } : m)));
  const create = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/consolidation/groups', {
          body: {
            organizationId: orgId,
            name: groupName,
            reportingCurrency: currency as CurrencyCode,
            consolidationMethod: method,
            parentCompanyId: parent,
            members: members.map((m) => ({
              companyId: m.companyId,
              ownershipPercentage: m.ownership,
              consolidationMethod: m.method,
              acquisitionDate: m.acquisitionDate || null,
            })),
          },
        }),
      ),
    onSuccess: async (g) => {
      toast(`${g.name} created`);
      await queryClient.invalidateQueries({ queryKey: ['org', orgId, 'groups'] });
      navigate(`/o/${orgId}/consolidation/groups/${g.id}`);
    },
    onError: (err) =>
      setErrors(
        formErrors(
          err,
          [
            '/name',
            '/reportingCurrency',
            '/consolidationMethod',
            '/parentCompanyId',
            ...members.flatMap((_, i) => [
              `/members/${i}/companyId`,
              `/members/${i}/ownershipPercentage`,
              `/members/${i}/acquisitionDate`,
              `/members/${i}`,
            ]),
          ],
          (e) => {
            if (e.tag !== 'CompanyNotFoundError') return undefined;
            const i = members.findIndex((m) => m.companyId === e.body.companyId);
            return i >= 0 ? `/members/${i}/companyId` : '/parentCompanyId';
          },
        ),
      ),
  });
  const e = errors.fields;
  const candidates = companies.filter((c) => c.id !== parent);
  return (
    <Card title="New consolidation group">
      <Form
        onSubmit={() => {
          setErrors(NO_ERRORS);
          create.mutate();
        }}
        error={errors.general}
      >
        <div className="form-grid">
          <Field label="Group name" error={e['/name']}>
            <input value={groupName} onChange={(ev) => setName(ev.target.value)} />
          </Field>
          <Field label="Reporting currency" error={e['/reportingCurrency']}>
            <CurrencyInput value={currency} onChange={(ev) => setCurrency(ev.target.value)} />
          </Field>
          <Field label="Default method" error={e['/consolidationMethod']}>
            <EnumSelect values={METHODS} value={method} onChange={setMethod} />
          </Field>
          <Field label="Parent company" error={e['/parentCompanyId']}>
            <CompanySelect
              companies={companies}
              value={parent}
              onChange={setParent}
              placeholder="Choose the parent"
            />
          </Field>
        </div>
        <h3 className="section-title">Members</h3>
        {members.length === 0 ? (
          <p className="muted">No member yet: add the subsidiaries and associates.</p>
        ) : null}
        {members.map((m, i) => (
          <div className="inline-form member-row" key={m.key}>
            <Field label={`Member ${i + 1}`} error={e[`/members/${i}/companyId`] ?? e[`/members/${i}`]}>
              <CompanySelect
                companies={candidates}
                value={m.companyId}
                onChange={(companyId) => setMember(m.key, { companyId })}
                placeholder="Company"
              />
            </Field>
            <Field label="Ownership %" error={e[`/members/${i}/ownershipPercentage`]}>
              <input
                className="num"
                inputMode="decimal"
                value={m.ownership}
                onChange={(ev) => setMember(m.key, { ownership: ev.target.value })}
              />
            </Field>
            <Field label="Method">
              <EnumSelect
                values={METHODS}
                value={m.method}
                onChange={(method) => setMember(m.key, { method })}
              />
            </Field>
            <Field label="Acquired on" error={e[`/members/${i}/acquisitionDate`]}>
              <input
                type="date"
                value={m.acquisitionDate}
                onChange={(ev) => setMember(m.key, { acquisitionDate: ev.target.value })}
              />
            </Field>
            <Button
              variant="ghost"
              aria-label={`Remove member ${i + 1}`}
              onClick={() => setMembers((l) => l.filter((x) => x.key !== m.key))}
            >
              ✕
            </Button>
          </div>
        ))}
        <Button
          size="sm"
          onClick={() =>
            setMembers((l) => [
              ...l,
              {
                key: key++,
                companyId: candidates.find((c) => !l.some((m) => m.companyId === c.id))?.id ?? '',
                ownership: '100',
                method,
                acquisitionDate: today(),
              },
            ])
          }
        >
          + Add member
        </Button>
        <p className="hint">
          {members.length > 0
            ? members
                .map(
                  (m) =>
                    `${companies.find((c) => c.id === m.companyId)?.name ?? '—'} ${formatPercent(m.ownership || '0')}`,
                )
                .join(' · ')
            : null}
        </p>
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={create.isPending}>
            Create group
          </Button>
          <Button variant="ghost" onClick={props.onCancel}>
            Cancel
          </Button>
        </div>
      </Form>
    </Card>
  );
}
