/** Organizations: the list and creation, members and roles, settings. */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, call } from '../api/client.ts';
import type { CurrencyCode, Member, Role } from '../api/types.ts';
import { CurrencyInput } from '../components/inputs.tsx';
import { useConfirm } from '../components/confirm.tsx';
import { useToast } from '../components/toast.tsx';
import {
  Alert,
  Badge,
  Button,
  Card,
  Empty,
  Field,
  Form,
  Loaded,
  Loading,
  PageHeader,
  Pager,
} from '../components/ui.tsx';
import { type FormErrors, formErrors, NO_ERRORS } from '../lib/errors.ts';
import { useOrg } from '../lib/org.tsx';
import { atLeast } from '../lib/permissions.ts';
import { meQuery, orgQuery } from '../lib/queries.ts';
import { clearSession } from '../lib/session.ts';

export function Organizations() {
  const me = useQuery(meQuery);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [currency, setCurrency] = useState('USD');
  const [requireApproval, setRequireApproval] = useState(true);
  const [month, setMonth] = useState(12);
  const [day, setDay] = useState(31);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const create = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/organizations', {
          body: {
            name,
            reportingCurrency: currency as CurrencyCode,
            settings: { requireApproval, fiscalYearEnd: { month, day } },
          },
        }),
      ),
    onSuccess: async (org) => {
      await queryClient.invalidateQueries({ queryKey: ['me'] });
      navigate(`/o/${org.id}`);
    },
    onError: (err) =>
      setErrors(formErrors(err, ['/name', '/reportingCurrency', '/settings/fiscalYearEnd', '/settings'])),
  });

  const signOut = () => {
    clearSession();
    queryClient.clear();
    navigate('/sign-in');
  };

  return (
    <div className="page narrow standalone" id="main">
      <PageHeader
        title="Your organizations"
        subtitle={me.data ? `Signed in as ${me.data.user.email}` : undefined}
        actions={
          <Button variant="ghost" onClick={signOut}>
            Sign out
          </Button>
        }
      />
      <Card title="Open an organization">
        {me.isPending ? (
          <Loading />
        ) : me.data && me.data.memberships.length > 0 ? (
          <ul className="link-list">
            {me.data.memberships.map((m) => (
              <li key={m.organizationId}>
                <Link to={`/o/${m.organizationId}`}>{m.organizationName}</Link> <Badge value={m.role} />
              </li>
            ))}
          </ul>
        ) : (
          <Empty>
            You are not a member of any organization yet. Create one below, or ask an owner to add you.
          </Empty>
        )}
      </Card>
      <Card title="Create an organization">
        <Form
          onSubmit={() => {
            setErrors(NO_ERRORS);
            create.mutate();
          }}
          error={errors.general}
        >
          <div className="form-grid">
            <Field label="Name" error={errors.fields['/name']}>
              <input value={name} onChange={(e) => setName(e.target.value)} required />
            </Field>
            <Field label="Reporting currency" error={errors.fields['/reportingCurrency']}>
              <CurrencyInput value={currency} onChange={(e) => setCurrency(e.target.value)} />
            </Field>
            <Field label="Fiscal year ends (month)" error={errors.fields['/settings/fiscalYearEnd']}>
              <input
                type="number"
                min={1}
                max={12}
                value={month}
                onChange={(e) => setMonth(Number(e.target.value))}
              />
            </Field>
            <Field label="Fiscal year ends (day)">
              <input
                type="number"
                min={1}
                max={31}
                value={day}
                onChange={(e) => setDay(Number(e.target.value))}
              />
            </Field>
          </div>
          <label className="check">
            <input
              type="checkbox"
              checked={requireApproval}
              onChange={(e) => setRequireApproval(e.target.checked)}
            />
            Journal entries need approval before posting
          </label>
          <div className="form-actions">
            <Button type="submit" variant="primary" busy={create.isPending}>
              Create organization
            </Button>
          </div>
        </Form>
      </Card>
    </div>
  );
}

const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer'];

export function Members() {
  const { orgId, role, me } = useOrg();
  const queryClient = useQueryClient();
  const toast = useToast();
  const { confirm } = useConfirm();
  const [offset, setOffset] = useState(0);
  const members = useQuery({
    queryKey: ['org', orgId, 'members', offset],
    queryFn: () =>
      call(
        api.GET('/api/v1/organizations/{organizationId}/members', {
          params: { path: { organizationId: orgId }, query: { limit: 50, offset } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const [email, setEmail] = useState('');
  const [newRole, setNewRole] = useState<Role>('member');
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [rowError, setRowError] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['org', orgId, 'members'] });

  const add = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/organizations/{organizationId}/members', {
          params: { path: { organizationId: orgId } },
          body: { email, role: newRole },
        }),
      ),
    onSuccess: (m) => {
      toast(`${m.displayName} added as ${m.role}`);
      setEmail('');
      setErrors(NO_ERRORS);
      void refresh();
    },
    onError: (err) => setErrors(formErrors(err, ['/email', '/role'])),
  });
  const change = useMutation({
    mutationFn: (v: { userId: string; role: Role }) =>
      call(
        api.PUT('/api/v1/organizations/{organizationId}/members/{userId}', {
          params: { path: { organizationId: orgId, userId: v.userId } },
          body: { role: v.role },
        }),
      ),
    onSuccess: (m) => {
      toast(`${m.displayName} is now ${m.role}`);
      setRowError(null);
      void refresh();
      void queryClient.invalidateQueries({ queryKey: ['me'] });
    },
    onError: (err) => setRowError(err.message),
  });
  const remove = useMutation({
    mutationFn: (userId: string) =>
      call(
        api.DELETE('/api/v1/organizations/{organizationId}/members/{userId}', {
          params: { path: { organizationId: orgId, userId } },
        }),
      ),
    onSuccess: () => {
      toast('Member removed');
      setRowError(null);
      void refresh();
    },
    onError: (err) => setRowError(err.message),
  });

  const canManage = atLeast(role, 'admin');
  const canTouch = (m: Member) => canManage && (m.role !== 'owner' || role === 'owner');
  const assignable = ROLES.filter((r) => r !== 'owner' || role === 'owner');

  return (
    <>
      <PageHeader title="Members and roles" subtitle="Who can read, book, approve and administer." />
      {rowError ? <Alert kind="error">{rowError}</Alert> : null}
      <Card>
        <Loaded query={members}>
          {(data) => (
            <>
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">E-mail</th>
                    <th scope="col">Role</th>
                    <th scope="col">
                      <span className="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.members.map((m) => (
                    <tr key={m.userId}>
                      <td>
                        {m.displayName}
                        {m.userId === me.user.id ? <span className="muted"> (you)</span> : null}
                      </td>
                      <td>{m.email}</td>
                      <td>
                        {canTouch(m) ? (
                          <select
                            aria-label={`Role of ${m.displayName}`}
                            value={m.role}
                            onChange={(e) =>
                              change.mutate({ userId: m.userId, role: e.target.value as Role })
                            }
                          >
                            {(m.role === 'owner' ? ROLES : assignable).map((r) => (
                              <option key={r} value={r}>
                                {r}
                              </option>
                            ))}
                          </select>
                        ) : (
                          <Badge value={m.role} label={m.role} />
                        )}
                      </td>
                      <td className="actions">
                        {canTouch(m) || m.userId === me.user.id ? (
                          <Button
                            size="sm"
                            variant="ghost"
                            onClick={async () => {
                              const what =
                                m.userId === me.user.id
                                  ? 'Leave this organization?'
                                  : `Remove ${m.displayName}?`;
                              if (
                                await confirm({
                                  title:
                                    m.userId === me.user.id ? 'Leave the organization' : 'Remove the member',
                                  message: what,
                                  confirmLabel: m.userId === me.user.id ? 'Leave' : 'Remove member',
                                  danger: true,
                                })
                              )
                                remove.mutate(m.userId);
                            }}
                          >
                            {m.userId === me.user.id ? 'Leave' : 'Remove'}
                          </Button>
                        ) : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager total={data.total} limit={50} offset={offset} onChange={setOffset} />
            </>
          )}
        </Loaded>
      </Card>
      {canManage ? (
        <Card title="Add a member">
          <Form className="inline-form" onSubmit={() => add.mutate()} error={errors.general}>
            <Field label="E-mail of a registered user" error={errors.fields['/email']}>
              <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} />
            </Field>
            <Field label="Role" error={errors.fields['/role']}>
              <select value={newRole} onChange={(e) => setNewRole(e.target.value as Role)}>
                {assignable.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            </Field>
            <Button type="submit" variant="primary" busy={add.isPending}>
              Add member
            </Button>
          </Form>
          <p className="hint">
            Viewers read everything; members also book entries, rates and intercompany transactions; admins
            approve, post, close periods and run consolidations; owners also manage owners and approval
            controls.
          </p>
        </Card>
      ) : null}
    </>
  );
}

export function Settings() {
  const { orgId, org, role } = useOrg();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [name, setName] = useState(org.name);
  const [currency, setCurrency] = useState(org.reportingCurrency);
  const [locale, setLocaleValue] = useState(org.settings.defaultLocale);
  const [timezone, setTimezone] = useState(org.settings.defaultTimezone);
  const [requireApproval, setRequireApproval] = useState(org.settings.requireApproval);
  const [sod, setSod] = useState(org.settings.enforceSegregationOfDuties);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const owner = role === 'owner';
  const save = useMutation({
    mutationFn: () =>
      call(
        api.PUT('/api/v1/organizations/{id}', {
          params: { path: { id: orgId } },
          body: {
            name,
            reportingCurrency: currency as CurrencyCode,
            settings: {
              defaultLocale: locale,
              defaultTimezone: timezone,
              ...(owner ? { requireApproval, enforceSegregationOfDuties: sod } : {}),
            },
          },
        }),
      ),
    onSuccess: (saved) => {
      queryClient.setQueryData(orgQuery(orgId).queryKey, saved);
      void queryClient.invalidateQueries({ queryKey: ['me'] });
      setErrors(NO_ERRORS);
      toast('Settings saved');
    },
    onError: (err) =>
      setErrors(
        formErrors(err, [
          '/name',
          '/reportingCurrency',
          '/settings/defaultLocale',
          '/settings/defaultTimezone',
          '/settings',
        ]),
      ),
  });
  const editable = atLeast(role, 'admin');
  return (
    <>
      <PageHeader title="Organization settings" />
      <Card>
        <Form onSubmit={() => save.mutate()} error={errors.general}>
          <fieldset disabled={!editable}>
            <div className="form-grid">
              <Field label="Name" error={errors.fields['/name']}>
                <input value={name} onChange={(e) => setName(e.target.value)} />
              </Field>
              <Field label="Reporting currency" error={errors.fields['/reportingCurrency']}>
                <CurrencyInput value={currency} onChange={(e) => setCurrency(e.target.value)} />
              </Field>
              <Field
                label="Number format (locale)"
                error={errors.fields['/settings/defaultLocale']}
                hint="For example en-US or de-DE; the console formats amounts with it."
              >
                <input value={locale} onChange={(e) => setLocaleValue(e.target.value)} />
              </Field>
              <Field
                label="Time zone"
                error={errors.fields['/settings/defaultTimezone']}
                hint="Defines “today”."
              >
                <input value={timezone} onChange={(e) => setTimezone(e.target.value)} />
              </Field>
            </div>
            <fieldset className="controls" disabled={!owner}>
              <legend>Approval controls {owner ? null : <span className="muted">(owners only)</span>}</legend>
              <label className="check">
                <input
                  type="checkbox"
                  checked={requireApproval}
                  onChange={(e) => setRequireApproval(e.target.checked)}
                />
                Journal entries need approval before posting
              </label>
              <label className="check">
                <input type="checkbox" checked={sod} onChange={(e) => setSod(e.target.checked)} />
                Segregation of duties: nobody approves or directly posts an entry they created
              </label>
            </fieldset>
            <p className="hint">
              Fiscal year end: {org.settings.fiscalYearEnd.month}/{org.settings.fiscalYearEnd.day} (used by
              rate lookups without a company).
            </p>
            <div className="form-actions">
              <Button type="submit" variant="primary" busy={save.isPending}>
                Save settings
              </Button>
            </div>
          </fieldset>
        </Form>
      </Card>
    </>
  );
}
