/** Routes of a group's chart of accounts, its account mappings and its intercompany-difference setting. */
import { type RouteApp, routesPlugin } from '../../http/route-app.ts';
import { pageParams } from '../../http/pagination.ts';
import { byIds, created, forId, noContent, OrgPageQuery, route } from '../../http/route.ts';
import { groupById } from './groups.routes.ts';
import { BulkCreated, Nullable, Page, StringEnum, Text, Timestamp, Type, Uuid } from '../../http/schemas.ts';
import {
  AccountCategorySchema,
  AccountNumber,
  AccountTypeSchema,
  CashFlowCategorySchema,
} from '../../http/account-schemas.ts';
import { withBodyCheck } from '../../http/validation.ts';
import * as mappings from './chart.mappings.ts';
import * as chart from './chart.service.ts';
import * as icDifference from './ic-difference.service.ts';

const GroupAccount = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  consolidationGroupId: Uuid,
  accountNumber: Type.String(),
  name: Type.String(),
  accountType: AccountTypeSchema,
  accountCategory: AccountCategorySchema,
  cashFlowCategory: Nullable(CashFlowCategorySchema),
  isCashEquivalent: Type.Boolean(),
  isNonMonetary: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const CreateGroupAccount = Type.Object({
  accountNumber: AccountNumber,
  name: Text(255),
  accountType: AccountTypeSchema,
  accountCategory: AccountCategorySchema,
  cashFlowCategory: Type.Optional(Nullable(CashFlowCategorySchema)),
  isCashEquivalent: Type.Optional(Type.Boolean()),
  isNonMonetary: Type.Optional(Type.Boolean()),
});
const UpdateGroupAccount = Type.Object({
  accountNumber: Type.Optional(AccountNumber),
  name: Type.Optional(Text(255)),
  accountType: Type.Optional(AccountTypeSchema),
  accountCategory: Type.Optional(AccountCategorySchema),
  cashFlowCategory: Type.Optional(Nullable(CashFlowCategorySchema)),
  isCashEquivalent: Type.Optional(Type.Boolean()),
  isNonMonetary: Type.Optional(Type.Boolean()),
});

const Mapping = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  consolidationGroupId: Uuid,
  groupAccountId: Uuid,
  groupAccountNumber: Type.String(),
  kind: StringEnum(['Explicit', 'Pattern'] as const),
  companyId: Nullable(Uuid),
  accountId: Nullable(Uuid),
  accountNumber: Nullable(Type.String()),
  pattern: Nullable(Type.String()),
  createdAt: Timestamp,
});
const CreateMapping = Type.Object({
  groupAccountId: Uuid,
  accountId: Type.Optional(Nullable(Uuid)),
  pattern: Type.Optional(
    Nullable(Type.String({ 'x-raw': true, description: 'Selector pattern: `4000`, `40*` or `4000-4999`' })),
  ),
  companyId: Type.Optional(Nullable(Uuid)),
});

const PreviewLine = Type.Object({
  companyId: Uuid,
  companyName: Type.String(),
  accountId: Uuid,
  accountNumber: Type.String(),
  accountName: Type.String(),
  accountType: AccountTypeSchema,
  groupAccountId: Nullable(Uuid),
  groupAccountNumber: Nullable(Type.String()),
  mappedBy: Nullable(StringEnum(['Explicit', 'Pattern'] as const)),
  pattern: Nullable(Type.String()),
});
const Preview = Type.Object({
  consolidationGroupId: Uuid,
  hasGroupChart: Type.Boolean(),
  accounts: Type.Array(PreviewLine),
  unmapped: Type.Array(PreviewLine),
});

const IcDifference = Type.Object({
  consolidationGroupId: Uuid,
  accountNumber: Nullable(Type.String()),
  tolerance: Nullable(Type.String()),
});
const SetIcDifference = Type.Object({
  accountNumber: Nullable(AccountNumber),
  tolerance: Type.Optional(
    Nullable(Type.String({ pattern: '^[0-9]{1,20}(\\.[0-9]{1,8})?$', description: 'Non-negative amount' })),
  ),
});

/** A group account, or an account mapping, addressed by the group's `:id` and its own id. */
const groupAccount = byIds({
  ...groupById.pathIds,
  accountId: {
    tag: 'GroupAccountNotFoundError',
    field: 'groupAccountId',
    message: 'Group account not found',
  },
});
const mapping = byIds({
  ...groupById.pathIds,
  mappingId: {
    tag: 'GroupAccountMappingNotFoundError',
    field: 'mappingId',
    message: 'Account mapping not found',
  },
});
const tags = ['Group chart of accounts'];

const base = '/api/v1/consolidation/groups/:id';

export const groupChartRoutes = routesPlugin(
  groupAccountListRoutes,
  groupAccountBulkRoutes,
  groupAccountChangeRoutes,
  mappingRoutes,
  mappingChangeRoutes,
  intercompanyDifferenceRoutes,
);

/** The group chart: list its accounts, create one. */
function groupAccountListRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: `${base}/accounts`,
    tags,
    summary: 'List the group chart of accounts',
    description: 'Viewer. Ordered by account number. A group without accounts has no group chart.',
    ...groupById,
    access: 'consolidation:read',
    errors: ['ConsolidationGroupNotFoundError'],
    querystring: OrgPageQuery,
    response: { 200: Page('accounts', GroupAccount) },
    handler: async ({ access, params, query }) =>
      chart.listGroupAccounts(db, access, params.id, query.organizationId, pageParams(query)),
  });

  route(app, {
    method: 'POST',
    url: `${base}/accounts`,
    tags,
    summary: 'Create a group account',
    description:
      'Admin. The first account gives the group a chart: its runs then aggregate by group account, and every member account with a balance must be mapped. Same rules as company accounts for categories, cash-flow category, cash equivalents and non-monetary accounts.',
    ...groupById,
    access: 'consolidation:manage',
    errors: ['ConsolidationGroupNotFoundError', 'ValidationError', 'GroupAccountNumberAlreadyExistsError'],
    body: CreateGroupAccount,
    ...created(GroupAccount),
    handler: async ({ access, params, query, body }) =>
      chart.createGroupAccount(db, access, params.id, query.organizationId, body),
  });
}

/** Group accounts: create in bulk, get one. */
function groupAccountBulkRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'POST',
    url: `${base}/accounts/bulk`,
    tags,
    summary: 'Create group accounts in bulk',
    description: 'Admin. 1–500 accounts; all or nothing.',
    ...groupById,
    access: 'consolidation:manage',
    errors: ['ConsolidationGroupNotFoundError', 'ValidationError', 'GroupAccountNumberAlreadyExistsError'],
    body: Type.Object({ accounts: Type.Array(CreateGroupAccount, { minItems: 1, maxItems: 500 }) }),
    ...created(BulkCreated(GroupAccount)),
    handler: async ({ access, params, query, body }) =>
      chart.bulkCreateGroupAccounts(db, access, params.id, query.organizationId, body.accounts),
  });

  route(app, {
    method: 'GET',
    url: `${base}/accounts/:accountId`,
    tags,
    summary: 'Get a group account',
    description: 'Viewer.',
    ...groupAccount,
    access: 'consolidation:read',
    errors: ['ConsolidationGroupNotFoundError', 'GroupAccountNotFoundError'],
    response: { 200: GroupAccount },
    handler: async ({ access, params, query }) =>
      chart.getGroupAccount(db, access, params.id, params.accountId, query.organizationId),
  });
}

/** A group account: update, delete. */
function groupAccountChangeRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'PUT',
    url: `${base}/accounts/:accountId`,
    tags,
    summary: 'Update a group account',
    description:
      'Admin. Fields left out keep their value. The account type and monetary nature cannot change while accounts are mapped to it, nor the number while it is the intercompany-difference account (409).',
    ...groupAccount,
    access: 'consolidation:manage',
    errors: [
      'ConsolidationGroupNotFoundError',
      'GroupAccountNotFoundError',
      'ValidationError',
      'GroupAccountNumberAlreadyExistsError',
      'GroupAccountInUseError',
    ],
    body: UpdateGroupAccount,
    response: { 200: GroupAccount },
    handler: async ({ access, params, query, body }) =>
      chart.updateGroupAccount(db, access, params.id, params.accountId, query.organizationId, body),
  });

  route(app, {
    method: 'DELETE',
    url: `${base}/accounts/:accountId`,
    tags,
    summary: 'Delete a group account',
    description:
      'Admin. Refused (409 GroupAccountInUseError, reason Mappings, IntercompanyDifferenceAccount or EliminationRules) while mappings name it, it is the intercompany-difference account, or an elimination rule books to it.',
    ...groupAccount,
    access: 'consolidation:manage',
    errors: ['ConsolidationGroupNotFoundError', 'GroupAccountNotFoundError', 'GroupAccountInUseError'],
    ...noContent,
    handler: async ({ access, params, query }) =>
      chart.deleteGroupAccount(db, access, params.id, params.accountId, query.organizationId),
  });
}

/** Account mappings: list, create. */
function mappingRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: `${base}/mappings`,
    tags,
    summary: 'List account mappings',
    description: 'Viewer. In creation order.',
    ...groupById,
    access: 'consolidation:read',
    errors: ['ConsolidationGroupNotFoundError'],
    querystring: OrgPageQuery,
    response: { 200: Page('mappings', Mapping) },
    handler: async ({ access, params, query }) =>
      mappings.listMappings(db, access, params.id, query.organizationId, pageParams(query)),
  });

  route(app, {
    method: 'POST',
    url: `${base}/mappings`,
    tags,
    summary: 'Map company accounts to a group account',
    description:
      'Admin. Either `accountId` (an explicit mapping of one account of the parent or a member) or `pattern` (a selector pattern, for `companyId` or, without it, for every member). Explicit mappings win over patterns; a company’s own patterns over patterns for every member; then the most specific pattern (exact, narrower range, longer prefix), then the oldest. A mapping applies only to accounts of the group account’s type and monetary nature.',
    ...groupById,
    access: 'consolidation:manage',
    errors: [
      'ConsolidationGroupNotFoundError',
      'ValidationError',
      'GroupAccountNotFoundError',
      'AccountNotFoundError',
      'CompanyNotFoundError',
      'GroupAccountMappingExistsError',
    ],
    validatorCompiler: withBodyCheck<mappings.CreateMappingInput>((body) => mappings.checkMapping(body)),
    body: CreateMapping,
    ...created(Mapping),
    handler: async ({ access, params, query, body }) =>
      mappings.createMapping(db, access, params.id, query.organizationId, body),
  });
}

/** Account mappings: get one, delete, preview. */
function mappingChangeRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: `${base}/mappings/:mappingId`,
    tags,
    summary: 'Get an account mapping',
    description: 'Viewer. One mapping of the group, as the list shows it.',
    ...mapping,
    access: 'consolidation:read',
    errors: ['ConsolidationGroupNotFoundError', 'GroupAccountMappingNotFoundError'],
    response: { 200: Mapping },
    handler: async ({ access, params, query }) =>
      mappings.getMapping(db, access, params.id, params.mappingId, query.organizationId),
  });

  route(app, {
    method: 'DELETE',
    url: `${base}/mappings/:mappingId`,
    tags,
    summary: 'Delete an account mapping',
    description: 'Admin.',
    ...mapping,
    access: 'consolidation:manage',
    errors: ['ConsolidationGroupNotFoundError', 'GroupAccountMappingNotFoundError'],
    ...noContent,
    handler: async ({ access, params, query }) =>
      mappings.deleteMapping(db, access, params.id, params.mappingId, query.organizationId),
  });

  route(app, {
    method: 'GET',
    url: `${base}/mappings/preview`,
    tags,
    summary: 'Preview the account mappings',
    description:
      'Viewer. Every account of the parent and of every member with the group account a run maps it to, and the accounts left unmapped (a run fails with UNMAPPED_ACCOUNT when one of them has a balance).',
    ...groupById,
    access: 'consolidation:read',
    errors: ['ConsolidationGroupNotFoundError'],
    response: { 200: Preview },
    handler: forId(db, mappings.previewMappings),
  });
}

/** The intercompany-difference setting: get, set. */
function intercompanyDifferenceRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: `${base}/intercompany-difference`,
    tags,
    summary: 'Get the intercompany-difference setting',
    description:
      'Viewer. accountNumber null: residuals of reciprocal rules are only reported (IC_DIFFERENCE).',
    ...groupById,
    access: 'consolidation:read',
    errors: ['ConsolidationGroupNotFoundError'],
    response: { 200: IcDifference },
    handler: forId(db, icDifference.getIcDifferenceSetting),
  });

  route(app, {
    method: 'PUT',
    url: `${base}/intercompany-difference`,
    tags,
    summary: 'Set the intercompany-difference account and tolerance',
    description:
      'Admin. A group account (with a group chart) or an account number of the parent. Residuals of reciprocal (balance-based) rules up to the tolerance, in the reporting currency, are booked to it as part of the rule’s elimination; larger ones are reported as IC_DIFFERENCE warnings. accountNumber null clears the setting.',
    ...groupById,
    access: 'consolidation:manage',
    errors: ['ConsolidationGroupNotFoundError', 'ValidationError'],
    body: SetIcDifference,
    response: { 200: IcDifference },
    handler: async ({ access, params, query, body }) =>
      icDifference.setIcDifferenceSetting(db, access, params.id, query.organizationId, body),
  });
}
