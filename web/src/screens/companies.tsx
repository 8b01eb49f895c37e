/** Companies: the list, creation from an account template, editing and deactivation. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import type { Company, CurrencyCode, RequestBody } from '../api/types.ts';
import { CurrencyInput } from '../components/inputs.tsx';
import { useConfirm } from '../components/confirm.tsx';
import { useToast } from '../components/toast.tsx';
import { Alert, Badge, Button, Card, Empty, Field, Form, Loading, PageHeader } from '../components/ui.tsx';
import { type FormErrors, formErrors, NO_ERRORS } from '../lib/errors.ts';
import { useOrg } from '../lib/org.tsx';
import { atLeast } from '../lib/permissions.ts';
import { accountsQuery, templatesQuery, useCompanies } from '../lib/queries.ts';

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const COMPANY_TYPES = [
  'Corporation',
  'LLC',
  'Partnership',
  'SoleProprietor',
  'NonProfit',
  'Trust',
  'Other',
] as const;

type CreateBody = RequestBody<'/api/v1/companies', 'post'>;
type UpdateBody = RequestBody<'/api/v1/organizations/{organizationId}/companies/{companyId}', 'put'>;

export function fiscalYearEndText(fye: { month: number; day: number }): string {
  return `${fye.day} ${MONTHS[fye.month - 1] ?? fye.month}`;
}

export function Companies() {
  const { orgId, role } = useOrg();
  const { companies, isPending, error } = useCompanies(orgId);
  const navigate = useNavigate();
  return (
    <>
      <PageHeader
        title="Companies"
        subtitle="The legal entities of the group, each with its own chart of accounts, calendar and ledger."
        actions={
          atLeast(role, 'admin') ? (
            <Link className="btn btn-primary" to={`/o/${orgId}/companies/new`}>
              New company
            </Link>
          ) : null
        }
      />
      <Card>
        {isPending ? (
          <Loading />
        ) : error ? (
          <Alert kind="error">{error.message}</Alert>
        ) : companies.length === 0 ? (
          <Empty>
            No company yet.{' '}
            {atLeast(role, 'admin') ? (
              <Link to={`/o/${orgId}/companies/new`}>Create the first one</Link>
            ) : null}
          </Empty>
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Legal name</th>
                <th scope="col">Jurisdiction</th>
                <th scope="col">Functional currency</th>
                <th scope="col">Fiscal year ends</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="sr-only">Links</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {companies.map((c) => (
                <tr
                  key={c.id}
                  className="clickable"
                  onClick={() => navigate(`/o/${orgId}/companies/${c.id}`)}
                >
                  <td>
                    <Link to={`/o/${orgId}/companies/${c.id}`} onClick={(e) => e.stopPropagation()}>
                      {c.name}
                    </Link>
                  </td>
                  <td>{c.legalName}</td>
                  <td>{c.jurisdiction}</td>
                  <td>{c.functionalCurrency}</td>
                  <td>{fiscalYearEndText(c.fiscalYearEnd)}</td>
                  <td>
                    <Badge value={c.isActive ? 'Active' : 'Inactive'} />
                  </td>
                  <td className="actions">
                    <Link
                      to={`/o/${orgId}/companies/${c.id}/accounts`}
                      onClick={(e) => e.stopPropagation()}
                      className="btn btn-sm btn-ghost"
                    >
                      Chart of accounts
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
    </>
  );
}

interface CompanyDraft {
  name: string;
  legalName: string;
  jurisdiction: string;
  functionalCurrency: string;
  reportingCurrency: string;
  month: number;
  day: number;
  taxId: string;
  registrationNumber: string;
  incorporationDate: string;
  industryCode: string;
  companyType: string;
  incorporationJurisdiction: string;
}

const KNOWN_FIELDS = [
  '/name',
  '/legalName',
  '/jurisdiction',
  '/functionalCurrency',
  '/reportingCurrency',
  '/fiscalYearEnd',
  '/taxId',
  '/registrationNumber',
  '/incorporationDate',
  '/industryCode',
  '/companyType',
  '/incorporationJurisdiction',
  '/accountTemplate',
  '/retainedEarningsAccountId',
];

function draftOf(company: Company | null, reportingCurrency: string): CompanyDraft {
  return {
    name: company?.name ?? '',
    legalName: company?.legalName ?? '',
    jurisdiction: company?.jurisdiction ?? '',
    functionalCurrency: company?.functionalCurrency ?? reportingCurrency,
    reportingCurrency: company?.reportingCurrency ?? reportingCurrency,
    month: company?.fiscalYearEnd.month ?? 12,
    day: company?.fiscalYearEnd.day ?? 31,
    taxId: company?.taxId ?? '',
    registrationNumber: company?.registrationNumber ?? '',
    incorporationDate: company?.incorporationDate ?? '',
    industryCode: company?.industryCode ?? '',
    companyType: company?.companyType ?? '',
    incorporationJurisdiction: company?.incorporationJurisdiction ?? '',
  };
}

/** Optional text: empty means "no value" (null). */
const opt = (v: string) => (v.trim() === '' ? null : v.trim());

function CompanyFields(props: {
  draft: CompanyDraft;
  set: (patch: Partial<CompanyDraft>) => void;
  errors: FormErrors;
  creating: boolean;
}) {
  const { draft, set, errors } = props;
  const e = errors.fields;
  return (
    <>
      <div className="form-grid">
        <Field label="Name" error={e['/name']}>
          <input value={draft.name} onChange={(ev) => set({ name: ev.target.value })} />
        </Field>
        <Field label="Legal name" error={e['/legalName']}>
          <input value={draft.legalName} onChange={(ev) => set({ legalName: ev.target.value })} />
        </Field>
        <Field
          label="Jurisdiction"
          error={e['/jurisdiction']}
          hint="Country code, optionally with a region: US-DE, DE."
        >
          <input
            className="code-input"
            value={draft.jurisdiction}
            onChange={(ev) => set({ jurisdiction: ev.target.value.toUpperCase() })}
          />
        </Field>
        <Field
          label="Functional currency"
          error={e['/functionalCurrency']}
          hint={props.creating ? 'The currency of its ledger; it cannot change later.' : 'Cannot change.'}
        >
          <CurrencyInput
            value={draft.functionalCurrency}
            disabled={!props.creating}
            onChange={(ev) => set({ functionalCurrency: ev.target.value })}
          />
        </Field>
        <Field label="Reporting currency" error={e['/reportingCurrency']}>
          <CurrencyInput
            value={draft.reportingCurrency}
            onChange={(ev) => set({ reportingCurrency: ev.target.value })}
          />
        </Field>
        <Field label="Fiscal year ends on" error={e['/fiscalYearEnd']}>
          <span className="inline-pair">
            <select
              aria-label="Month of the fiscal year end"
              value={draft.month}
              onChange={(ev) => set({ month: Number(ev.target.value) })}
            >
              {MONTHS.map((m, i) => (
                <option key={m} value={i + 1}>
                  {m}
                </option>
              ))}
            </select>
            <input
              aria-label="Day of the fiscal year end"
              type="number"
              min={1}
              max={31}
              value={draft.day}
              onChange={(ev) => set({ day: Number(ev.target.value) })}
            />
          </span>
        </Field>
      </div>
      <details className="more">
        <summary>Registration details</summary>
        <div className="form-grid">
          <Field label="Company type" error={e['/companyType']}>
            <select value={draft.companyType} onChange={(ev) => set({ companyType: ev.target.value })}>
              <option value="">—</option>
              {COMPANY_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Tax id" error={e['/taxId']}>
            <input value={draft.taxId} onChange={(ev) => set({ taxId: ev.target.value })} />
          </Field>
          <Field label="Registration number" error={e['/registrationNumber']}>
            <input
              value={draft.registrationNumber}
              onChange={(ev) => set({ registrationNumber: ev.target.value })}
            />
          </Field>
          <Field label="Incorporated on" error={e['/incorporationDate']}>
            <input
              type="date"
              value={draft.incorporationDate}
              onChange={(ev) => set({ incorporationDate: ev.target.value })}
            />
          </Field>
          <Field label="Incorporation jurisdiction" error={e['/incorporationJurisdiction']}>
            <input
              className="code-input"
              value={draft.incorporationJurisdiction}
              onChange={(ev) => set({ incorporationJurisdiction: ev.target.value.toUpperCase() })}
            />
          </Field>
          <Field label="Industry (NAICS)" error={e['/industryCode']}>
            <input value={draft.industryCode} onChange={(ev) => set({ industryCode: ev.target.value })} />
          </Field>
        </div>
      </details>
    </>
  );
}

function commonBody(draft: CompanyDraft) {
  return {
    name: draft.name,
    legalName: draft.legalName,
    jurisdiction: draft.jurisdiction,
    reportingCurrency: draft.reportingCurrency as CurrencyCode,
    fiscalYearEnd: { month: draft.month, day: draft.day },
    taxId: opt(draft.taxId),
    registrationNumber: opt(draft.registrationNumber),
    incorporationDate: opt(draft.incorporationDate),
    industryCode: opt(draft.industryCode),
    companyType: (opt(draft.companyType) as CreateBody['companyType']) ?? null,
    incorporationJurisdiction: opt(draft.incorporationJurisdiction),
  };
}

export function NewCompany() {
  const { orgId, org } = useOrg();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const toast = useToast();
  const templates = useQuery(templatesQuery);
  const [draft, setDraft] = useState(() => draftOf(null, org.reportingCurrency));
  const [template, setTemplate] = useState<string>('GeneralBusiness');
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const set = (patch: Partial<CompanyDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const create = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/companies', {
          body: {
            organizationId: orgId,
            ...commonBody(draft),
            functionalCurrency: draft.functionalCurrency as CurrencyCode,
            accountTemplate: (template || null) as CreateBody['accountTemplate'],
          },
        }),
      ),
    onSuccess: async (company) => {
      await queryClient.invalidateQueries({ queryKey: ['org', orgId, 'companies'] });
      toast(`${company.name} created`);
      navigate(`/o/${orgId}/companies/${company.id}`);
    },
    onError: (err) => setErrors(formErrors(err, KNOWN_FIELDS)),
  });
  return (
    <>
      <PageHeader title="New company" subtitle="A legal entity with its own ledger." />
      <Card>
        <Form
          onSubmit={() => {
            setErrors(NO_ERRORS);
            create.mutate();
          }}
          error={errors.general}
        >
          <CompanyFields draft={draft} set={set} errors={errors} creating />
          <fieldset className="controls">
            <legend>Chart of accounts</legend>
            <div className="template-choices" role="radiogroup" aria-label="Account template">
              {(templates.data?.templates ?? []).map((t) => (
                <label
                  key={t.templateType}
                  className={`template-choice${template === t.templateType ? ' selected' : ''}`}
                >
                  <input
                    type="radio"
                    name="template"
                    value={t.templateType}
                    checked={template === t.templateType}
                    onChange={() => setTemplate(t.templateType)}
                  />
                  <span>
                    <strong>{t.name}</strong> <span className="muted">({t.accountCount} accounts)</span>
                    <br />
                    <span className="muted">{t.description}</span>
                  </span>
                </label>
              ))}
              <label className={`template-choice${template === '' ? ' selected' : ''}`}>
                <input
                  type="radio"
                  name="template"
                  value=""
                  checked={template === ''}
                  onChange={() => setTemplate('')}
                />
                <span>
                  <strong>Empty</strong>
                  <br />
                  <span className="muted">Start without accounts (a template can be applied later).</span>
                </span>
              </label>
            </div>
            {errors.fields['/accountTemplate'] ? (
              <div className="error">{errors.fields['/accountTemplate']}</div>
            ) : null}
          </fieldset>
          <div className="form-actions">
            <Button type="submit" variant="primary" busy={create.isPending}>
              Create company
            </Button>
            <Link to={`/o/${orgId}/companies`} className="btn btn-ghost">
              Cancel
            </Link>
          </div>
        </Form>
      </Card>
    </>
  );
}

export function EditCompany() {
  const { orgId, org, role } = useOrg();
  const { companyId = '' } = useParams();
  const company = useQuery({
    queryKey: ['org', orgId, 'company', companyId],
    queryFn: () =>
      call(
        api.GET('/api/v1/organizations/{organizationId}/companies/{companyId}', {
          params: { path: { organizationId: orgId, companyId } },
        }),
      ),
  });
  if (company.isPending) return <Loading />;
  if (company.error) return <Alert kind="error">{company.error.message}</Alert>;
  return (
    <CompanyEditor
      key={company.data.updatedAt}
      company={company.data}
      canEdit={atLeast(role, 'admin')}
      orgId={orgId}
      reporting={org.reportingCurrency}
    />
  );
}

function CompanyEditor(props: { company: Company; canEdit: boolean; orgId: string; reporting: string }) {
  const { company, orgId } = props;
  const queryClient = useQueryClient();
  const toast = useToast();
  const [draft, setDraft] = useState(() => draftOf(company, props.reporting));
  const [retained, setRetained] = useState(company.retainedEarningsAccountId ?? '');
  const { confirm } = useConfirm();
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const accounts = useQuery(accountsQuery(orgId, company.id));
  const retainedChoices = (accounts.data ?? []).filter(
    (a) =>
      a.accountType === 'Equity' && a.accountCategory === 'RetainedEarnings' && a.isPostable && a.isActive,
  );
  const set = (patch: Partial<CompanyDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: ['org', orgId, 'company', company.id] });
    await queryClient.invalidateQueries({ queryKey: ['org', orgId, 'companies'] });
  };
  const save = useMutation({
    mutationFn: (body: UpdateBody) =>
      call(
        api.PUT('/api/v1/organizations/{organizationId}/companies/{companyId}', {
          params: { path: { organizationId: orgId, companyId: company.id } },
          body,
        }),
      ),
    onSuccess: async (saved) => {
      toast(`${saved.name} saved`);
      setErrors(NO_ERRORS);
      await refresh();
    },
    onError: (err) => setErrors(formErrors(err, KNOWN_FIELDS)),
  });
  const deactivate = useMutation({
    mutationFn: () =>
      call(
        api.DELETE('/api/v1/organizations/{organizationId}/companies/{companyId}', {
          params: { path: { organizationId: orgId, companyId: company.id } },
        }),
      ),
    onSuccess: async () => {
      toast(`${company.name} deactivated`);
      setErrors(NO_ERRORS);
      await refresh();
    },
    onError: (err) => setErrors(formErrors(err, KNOWN_FIELDS)),
  });

  return (
    <>
      <PageHeader
        title={company.name}
        subtitle={
          <>
            {company.legalName} · {company.jurisdiction} · {company.functionalCurrency} ·{' '}
            <Badge value={company.isActive ? 'Active' : 'Inactive'} />
          </>
        }
        actions={
          <>
            <Link className="btn" to={`/o/${orgId}/companies/${company.id}/accounts`}>
              Chart of accounts
            </Link>
            <Link className="btn" to={`/o/${orgId}/journal?companyId=${company.id}`}>
              Journal
            </Link>
            <Link className="btn" to={`/o/${orgId}/reports?companyId=${company.id}`}>
              Statements
            </Link>
          </>
        }
      />
      <Card title="Details">
        <Form
          onSubmit={() => save.mutate({ ...commonBody(draft), retainedEarningsAccountId: retained || null })}
          error={errors.general}
        >
          <fieldset disabled={!props.canEdit}>
            <CompanyFields draft={draft} set={set} errors={errors} creating={false} />
            <div className="form-grid">
              <Field
                label="Retained-earnings account"
                error={errors.fields['/retainedEarningsAccountId']}
                hint="Receives the year's result at year-end close."
              >
                <select value={retained} onChange={(ev) => setRetained(ev.target.value)}>
                  <option value="">— none —</option>
                  {retainedChoices.map((a) => (
                    <option key={a.id} value={a.id}>
                      {a.accountNumber} {a.name}
                    </option>
                  ))}
                </select>
              </Field>
            </div>
            <div className="form-actions">
              <Button type="submit" variant="primary" busy={save.isPending}>
                Save changes
              </Button>
              {company.isActive ? (
                <Button
                  variant="danger"
                  busy={deactivate.isPending}
                  onClick={async () => {
                    if (
                      await confirm({
                        title: `Deactivate ${company.name}`,
                        message: 'It stays visible and reportable but takes no new entries.',
                        confirmLabel: 'Deactivate company',
                        danger: true,
                      })
                    )
                      deactivate.mutate();
                  }}
                >
                  Deactivate
                </Button>
              ) : (
                <Button busy={save.isPending} onClick={() => save.mutate({ isActive: true })}>
                  Reactivate
                </Button>
              )}
            </div>
          </fieldset>
        </Form>
      </Card>
    </>
  );
}
