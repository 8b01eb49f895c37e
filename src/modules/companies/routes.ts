/** Company endpoints. */
import { type RouteApp, routesPlugin } from '../../http/route-app.ts';
import { TEMPLATE_TYPES } from '../../domain/templates/index.ts';
import { listed } from '../../http/pagination.ts';
import { created, inPath, noContent, ORGANIZATION_ID, route } from '../../http/route.ts';
import {
  CountryCode,
  CurrencyCode,
  FiscalYearEnd,
  JurisdictionCode,
  Nullable,
  Page,
  PageQuery,
  StringEnum,
  Text,
  Timestamp,
  Type,
  Uuid,
  WideIsoDate,
} from '../../http/schemas.ts';
import * as service from './service.ts';

const AddressInput = Type.Object({
  line1: Text(200),
  line2: Type.Optional(Nullable(Text(200))),
  city: Text(100),
  region: Type.Optional(Nullable(Text(100))),
  postalCode: Text(20),
  country: CountryCode,
});
const Address = Type.Object({
  line1: Type.String(),
  line2: Nullable(Type.String()),
  city: Type.String(),
  region: Nullable(Type.String()),
  postalCode: Type.String(),
  country: Type.String(),
});
const CompanyTypeSchema = StringEnum(service.COMPANY_TYPES);
const IndustryCode = Type.String({ pattern: '^[0-9]{2,6}$', description: 'NAICS code, 2–6 digits' });

export const Company = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  name: Type.String(),
  legalName: Type.String(),
  jurisdiction: Type.String(),
  taxId: Nullable(Type.String()),
  incorporationDate: Nullable(Type.String()),
  registrationNumber: Nullable(Type.String()),
  registeredAddress: Nullable(Address),
  industryCode: Nullable(Type.String()),
  companyType: Nullable(Type.String()),
  incorporationJurisdiction: Nullable(Type.String()),
  functionalCurrency: Type.String(),
  reportingCurrency: Type.String(),
  fiscalYearEnd: FiscalYearEnd,
  retainedEarningsAccountId: Nullable(Uuid),
  /** Revenue or expense account that revaluation books unrealised exchange differences to. */
  unrealizedFxGainLossAccountId: Nullable(Uuid),
  /** Revenue or expense account that revaluation books the residual of a settled foreign balance to. */
  realizedFxGainLossAccountId: Nullable(Uuid),
  isActive: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** The company's optional registration details, alike on create and update (null clears one). */
const OptionalDetails = {
  taxId: Type.Optional(Nullable(Text(50))),
  incorporationDate: Type.Optional(Nullable(WideIsoDate)),
  registrationNumber: Type.Optional(Nullable(Text(100))),
  registeredAddress: Type.Optional(Nullable(AddressInput)),
  industryCode: Type.Optional(Nullable(IndustryCode)),
  companyType: Type.Optional(Nullable(CompanyTypeSchema)),
  incorporationJurisdiction: Type.Optional(Nullable(JurisdictionCode)),
};

const CreateCompanyBody = Type.Object({
  organizationId: Uuid,
  name: Text(255),
  legalName: Text(255),
  jurisdiction: JurisdictionCode,
  ...OptionalDetails,
  functionalCurrency: CurrencyCode,
  reportingCurrency: CurrencyCode,
  fiscalYearEnd: FiscalYearEnd,
  accountTemplate: Type.Optional(Nullable(StringEnum(TEMPLATE_TYPES))),
});

const UpdateCompanyBody = Type.Object({
  organizationId: Type.Optional(Uuid),
  name: Type.Optional(Text(255)),
  legalName: Type.Optional(Text(255)),
  jurisdiction: Type.Optional(JurisdictionCode),
  ...OptionalDetails,
  functionalCurrency: Type.Optional(CurrencyCode),
  reportingCurrency: Type.Optional(CurrencyCode),
  fiscalYearEnd: Type.Optional(FiscalYearEnd),
  retainedEarningsAccountId: Type.Optional(Nullable(Uuid)),
  unrealizedFxGainLossAccountId: Type.Optional(Nullable(Uuid)),
  realizedFxGainLossAccountId: Type.Optional(Nullable(Uuid)),
  isActive: Type.Optional(Nullable(Type.Boolean())),
});

/** A company addressed by its organization and id in the path. */
export const companyInPath = inPath({
  organizationId: ORGANIZATION_ID,
  companyId: { tag: 'CompanyNotFoundError', field: 'companyId', message: 'Company not found' },
});
const tags = ['Companies'];
/** The path of a company, and the prefix of the routes of its fiscal calendar and revaluations. */
export const COMPANY_PATH = '/api/v1/organizations/:organizationId/companies/:companyId';

export const companyRoutes = routesPlugin(companyReadRoutes, companyChangeRoutes);

/** Companies: list, get, create. */
function companyReadRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: '/api/v1/companies',
    tags,
    summary: 'List companies',
    description: 'Viewer. Ordered by name (case-insensitive), then id.',
    access: 'company:read',
    errors: ['OrganizationNotFoundError'],
    querystring: Type.Object({
      organizationId: Uuid,
      isActive: Type.Optional(Type.Boolean()),
      jurisdiction: Type.Optional(JurisdictionCode),
      ...PageQuery,
    }),
    response: { 200: Page('companies', Company) },
    handler: listed(db, service.listCompanies),
  });

  route(app, {
    method: 'GET',
    url: COMPANY_PATH,
    tags,
    summary: 'Get a company',
    description: 'Viewer.',
    ...companyInPath,
    access: 'company:read',
    errors: ['OrganizationNotFoundError', 'CompanyNotFoundError'],
    response: { 200: Company },
    handler: async ({ access, params }) =>
      service.getCompany(db, access, params.organizationId, params.companyId),
  });

  route(app, {
    method: 'POST',
    url: '/api/v1/companies',
    tags,
    summary: 'Create a company',
    description:
      'Admin. With `accountTemplate`, the template is applied in the same transaction and sets `retainedEarningsAccountId`.',
    access: 'company:manage',
    errors: ['OrganizationNotFoundError', 'CompanyNameAlreadyExistsError'],
    body: CreateCompanyBody,
    ...created(Company),
    handler: async ({ access, body }) => service.createCompany(db, access, body),
  });
}

/** Companies: update, deactivate. */
function companyChangeRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'PUT',
    url: COMPANY_PATH,
    tags,
    summary: 'Update a company',
    description:
      'Admin. PUT semantics: omitted fields unchanged, null clears. `functionalCurrency` and `organizationId` are immutable.',
    ...companyInPath,
    access: 'company:manage',
    errors: [
      'OrganizationNotFoundError',
      'CompanyNotFoundError',
      'CompanyNameAlreadyExistsError',
      'FiscalYearEndChangeNotAllowedError',
      'AccountNotFoundError',
      'InvalidRetainedEarningsAccountError',
      'InvalidFxGainLossAccountError',
      'CompanyHasUnpostedEntriesError',
    ],
    body: UpdateCompanyBody,
    response: { 200: Company },
    handler: async ({ access, params, body }) =>
      service.updateCompany(db, access, params.organizationId, params.companyId, body),
  });

  route(app, {
    method: 'DELETE',
    url: COMPANY_PATH,
    tags,
    summary: 'Deactivate a company',
    description:
      'Admin. Soft delete (isActive false), idempotent; refused while entries are Draft, PendingApproval or Approved.',
    ...companyInPath,
    access: 'company:manage',
    errors: ['OrganizationNotFoundError', 'CompanyNotFoundError', 'CompanyHasUnpostedEntriesError'],
    ...noContent,
    handler: async ({ access, params }) =>
      service.deactivateCompany(db, access, params.organizationId, params.companyId),
  });
}
