/** Account endpoints and account templates. */
import { type RouteApp, routesPlugin } from '../../http/route-app.ts';
import { isTemplateType, TEMPLATE_TYPES } from '../../domain/templates/index.ts';
import { listed } from '../../http/pagination.ts';
import { created, inPath, noContent, ORGANIZATION_ID, route } from '../../http/route.ts';
import { Nullable, Page, PageQuery, StringEnum, Text, Timestamp, Type, Uuid } from '../../http/schemas.ts';
import {
  AccountCategorySchema,
  AccountNumber,
  AccountTypeSchema,
  CashFlowCategorySchema,
} from '../../http/account-schemas.ts';
import * as service from './service.ts';

export const Account = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  companyId: Uuid,
  accountNumber: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  accountType: Type.String(),
  accountCategory: Type.String(),
  normalBalance: StringEnum(['Debit', 'Credit'] as const),
  parentAccountId: Nullable(Uuid),
  hierarchyLevel: Type.Integer(),
  isPostable: Type.Boolean(),
  isActive: Type.Boolean(),
  isIntercompany: Type.Boolean(),
  intercompanyPartnerId: Nullable(Uuid),
  cashFlowCategory: Nullable(Type.String()),
  isCashEquivalent: Type.Boolean(),
  isRetainedEarnings: Type.Boolean(),
  isNonMonetary: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  deactivatedAt: Nullable(Timestamp),
});

const CreateAccountBody = Type.Object({
  organizationId: Uuid,
  companyId: Uuid,
  accountNumber: AccountNumber,
  name: Text(255),
  description: Type.Optional(Nullable(Text(2000))),
  accountType: AccountTypeSchema,
  accountCategory: AccountCategorySchema,
  parentAccountId: Type.Optional(Nullable(Uuid)),
  isPostable: Type.Optional(Type.Boolean()),
  isIntercompany: Type.Optional(Type.Boolean()),
  intercompanyPartnerId: Type.Optional(Nullable(Uuid)),
  cashFlowCategory: Type.Optional(Nullable(CashFlowCategorySchema)),
  isCashEquivalent: Type.Optional(Type.Boolean()),
  isRetainedEarnings: Type.Optional(Type.Boolean()),
  isNonMonetary: Type.Optional(Type.Boolean()),
});

const NullableBool = Type.Optional(Nullable(Type.Boolean()));
const UpdateAccountBody = Type.Object({
  organizationId: Type.Optional(Uuid),
  companyId: Type.Optional(Uuid),
  accountNumber: Type.Optional(AccountNumber),
  accountType: Type.Optional(AccountTypeSchema),
  accountCategory: Type.Optional(AccountCategorySchema),
  name: Type.Optional(Text(255)),
  description: Type.Optional(Nullable(Text(2000))),
  parentAccountId: Type.Optional(Nullable(Uuid)),
  isPostable: NullableBool,
  isActive: NullableBool,
  isIntercompany: NullableBool,
  intercompanyPartnerId: Type.Optional(Nullable(Uuid)),
  cashFlowCategory: Type.Optional(Nullable(CashFlowCategorySchema)),
  isCashEquivalent: NullableBool,
  isRetainedEarnings: NullableBool,
  isNonMonetary: NullableBool,
});

const TemplateSummary = Type.Object({
  templateType: Type.String(),
  name: Type.String(),
  description: Type.String(),
  accountCount: Type.Integer(),
});
const TemplateAccount = Type.Object({
  accountNumber: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  accountType: Type.String(),
  accountCategory: Type.String(),
  normalBalance: Type.String(),
  parentAccountNumber: Nullable(Type.String()),
  isPostable: Type.Boolean(),
  cashFlowCategory: Nullable(Type.String()),
  isCashEquivalent: Type.Boolean(),
  isIntercompany: Type.Boolean(),
  isRetainedEarnings: Type.Boolean(),
});
const Template = Type.Object({
  templateType: Type.String(),
  name: Type.String(),
  description: Type.String(),
  accountCount: Type.Integer(),
  accounts: Type.Array(TemplateAccount),
});
const ApplyResult = Type.Object({
  templateType: Type.String(),
  companyId: Uuid,
  createdCount: Type.Integer(),
  retainedEarningsAccountId: Uuid,
});

/** An account addressed by its organization and id in the path. */
const account = inPath({
  organizationId: ORGANIZATION_ID,
  id: { tag: 'AccountNotFoundError', field: 'accountId', message: 'Account not found' },
});
const byIdPath = '/api/v1/accounts/organizations/:organizationId/accounts/:id';
const tags = ['Accounts'];
const templateTags = ['Account templates'];

export const accountRoutes = routesPlugin(accountReadRoutes, accountWriteRoutes, accountTemplateRoutes);

/** Accounts of a company: list, get. */
function accountReadRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: '/api/v1/accounts',
    tags,
    summary: 'List accounts of a company',
    description: 'Viewer. Ordered by account number (numeric), then id.',
    access: 'account:read',
    errors: ['OrganizationNotFoundError', 'CompanyNotFoundError'],
    querystring: Type.Object({
      organizationId: Uuid,
      companyId: Uuid,
      accountType: Type.Optional(AccountTypeSchema),
      accountCategory: Type.Optional(AccountCategorySchema),
      isActive: Type.Optional(Type.Boolean()),
      isPostable: Type.Optional(Type.Boolean()),
      isIntercompany: Type.Optional(Type.Boolean()),
      parentAccountId: Type.Optional(Uuid),
      ...PageQuery,
    }),
    response: { 200: Page('accounts', Account) },
    handler: listed(db, service.listAccounts),
  });

  route(app, {
    method: 'GET',
    url: byIdPath,
    tags,
    summary: 'Get an account',
    description: 'Viewer.',
    ...account,
    access: 'account:read',
    errors: ['OrganizationNotFoundError', 'AccountNotFoundError'],
    response: { 200: Account },
    handler: async ({ access, params }) => service.getAccount(db, access, params.organizationId, params.id),
  });
}

/** Accounts: create, update, delete. */
function accountWriteRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'POST',
    url: '/api/v1/accounts',
    tags,
    summary: 'Create an account',
    description:
      'Admin. The parent must be an account of the same company and type; at most 10 hierarchy levels.',
    access: 'account:manage',
    errors: [
      'OrganizationNotFoundError',
      'CompanyNotFoundError',
      'ParentAccountNotFoundError',
      'ParentAccountDifferentCompanyError',
      'AccountTypeMismatchError',
      'InvalidRetainedEarningsAccountError',
      'ValidationError',
      'AccountNumberAlreadyExistsError',
    ],
    body: CreateAccountBody,
    ...created(Account),
    handler: async ({ access, body }) => service.createAccount(db, access, body),
  });

  route(app, {
    method: 'PUT',
    url: byIdPath,
    tags,
    summary: 'Update an account',
    description:
      'Admin. PUT semantics. `companyId`, `organizationId`, `accountNumber`, `accountType` and `accountCategory` are immutable.',
    ...account,
    access: 'account:manage',
    errors: [
      'OrganizationNotFoundError',
      'AccountNotFoundError',
      'CircularAccountReferenceError',
      'CompanyNotFoundError',
      'InvalidRetainedEarningsAccountError',
      'HasActiveChildAccountsError',
      'AccountInUseError',
    ],
    body: UpdateAccountBody,
    response: { 200: Account },
    handler: async ({ access, params, body }) =>
      service.updateAccount(db, access, params.organizationId, params.id, body),
  });

  route(app, {
    method: 'DELETE',
    url: byIdPath,
    tags,
    summary: 'Delete an account',
    description:
      'Admin. Only accounts never used: not the retained-earnings account, no children, no journal lines, no elimination rules.',
    ...account,
    access: 'account:manage',
    errors: ['OrganizationNotFoundError', 'AccountNotFoundError', 'AccountInUseError'],
    ...noContent,
    handler: async ({ access, params }) =>
      service.deleteAccount(db, access, params.organizationId, params.id),
  });
}

/** Account templates: list, get, apply to a company. */
function accountTemplateRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: '/api/v1/account-templates',
    tags: templateTags,
    summary: 'List account templates',
    description: `Any user. In the order ${TEMPLATE_TYPES.join(', ')}.`,
    access: 'signedIn',
    response: { 200: Type.Object({ templates: Type.Array(TemplateSummary) }) },
    handler: async () => service.listAccountTemplates(),
  });

  route(app, {
    method: 'GET',
    url: '/api/v1/account-templates/:type',
    tags: templateTags,
    summary: 'Get an account template',
    description: 'Any user. Accounts ordered by account number.',
    access: 'signedIn',
    errors: ['AccountTemplateNotFoundError'],
    params: Type.Object({ type: Type.String() }),
    response: { 200: Type.Object({ template: Template }) },
    handler: async ({ params }) => service.getAccountTemplate(params.type),
  });

  route(app, {
    method: 'POST',
    url: '/api/v1/account-templates/:type/apply',
    tags: templateTags,
    summary: 'Apply an account template to a company',
    description:
      'Admin. Creates every template account and sets the company retained-earnings account (3300). Refused when the company has any account.',
    access: 'account:manage',
    errors: [
      'AccountTemplateNotFoundError',
      'OrganizationNotFoundError',
      'CompanyNotFoundError',
      'AccountsAlreadyExistError',
    ],
    // An unknown template type answers 404 before the body is validated, like a malformed path id.
    preValidation: async (request) => {
      const { type } = request.params as { type: string };
      if (!isTemplateType(type)) throw service.templateNotFound(type);
    },
    params: Type.Object({ type: Type.String() }),
    body: Type.Object({ organizationId: Uuid, companyId: Uuid }),
    ...created(ApplyResult),
    handler: async ({ access, params, body }) => service.applyAccountTemplate(db, access, params.type, body),
  });
}
