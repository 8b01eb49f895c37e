/** Routes: consolidation groups and members. */
import { type RouteApp, routesPlugin } from '../../http/route-app.ts';
import { listed } from '../../http/pagination.ts';
import { activationRoutes, byId, byIds, created, forId, noContent, route } from '../../http/route.ts';
import {
  CurrencyCode,
  IsoDate,
  Money,
  MONEY_VALUE,
  Nullable,
  Page,
  PageQuery,
  Percentage,
  StringEnum,
  Text,
  Timestamp,
  Type,
  Uuid,
  UUID_PATTERN,
} from '../../http/schemas.ts';
import { ACCOUNT_NUMBER_PATTERN } from '../../http/account-schemas.ts';
import { withBodyCheck } from '../../http/validation.ts';
import { CONSOLIDATION_METHODS, MAX_MEMBERS } from './groups.repo.ts';
import * as groups from './groups.service.ts';
import { MAX_FAIR_VALUE_ADJUSTMENTS } from './holdings.ts';
import * as members from './members.service.ts';

const Method = StringEnum(CONSOLIDATION_METHODS);

/** JSON number or decimal string, 0–100, at most 2 decimals, judged by its literal text. */
export const OwnershipPercentageInput = Type.Union(
  [Type.String({ pattern: groups.PERCENTAGE_INPUT_PATTERN }), Type.Number({ minimum: 0, maximum: 100 })],
  { description: 'Percentage 0–100 with at most 2 decimals: a JSON number (`80.5`) or a string (`"80.50"`)' },
);

const NciMeasurement = StringEnum(['Proportionate', 'FairValue'] as const, {
  description:
    'How the non-controlling interest is measured at acquisition: its share of the net assets (partial goodwill) or its fair value (full goodwill)',
});
const UuidOf = (description: string) => Type.String({ pattern: UUID_PATTERN, 'x-uuid': true, description });
const AmountOf = (description: string) =>
  Type.Object(
    { value: Type.String({ pattern: MONEY_VALUE, description: 'Decimal string' }), currency: CurrencyCode },
    { 'x-money': true, 'x-sign': 'nonNegative', description },
  );

/** Acquisition data of a member, as stored and returned. */
export const AcquisitionRecord = Type.Object(
  {
    consideration: Money,
    investmentAccountId: Uuid,
    nciMeasurement: NciMeasurement,
    nciFairValue: Nullable(Money),
    fairValueAdjustments: Type.Array(Type.Object({ accountId: Uuid, amount: Type.String() })),
    goodwillAccountNumber: Nullable(Type.String()),
  },
  { description: 'Acquisition data: the run derives the elimination of the investment from it' },
);

const AcquisitionInput = Type.Object(
  {
    consideration: AmountOf("What the holder paid, in the holder's functional currency (≥ 0)"),
    investmentAccountId: UuidOf('The Asset account of the holder that carries the investment'),
    nciMeasurement: NciMeasurement,
    nciFairValue: Type.Optional(
      Nullable(
        AmountOf(
          "With FairValue: the NCI's fair value at acquisition, in the member's or the holder's functional currency",
        ),
      ),
    ),
    fairValueAdjustments: Type.Optional(
      Type.Array(
        Type.Object({
          accountId: UuidOf('An Asset or Liability account of the member'),
          amount: Type.String({
            pattern: MONEY_VALUE,
            examples: ['25000.00'],
            description:
              "Fair value − carrying amount at acquisition, debit-positive, in the member's functional currency",
          }),
        }),
        { maxItems: MAX_FAIR_VALUE_ADJUSTMENTS },
      ),
    ),
    goodwillAccountNumber: Type.Optional(
      Nullable(
        Type.String({
          pattern: ACCOUNT_NUMBER_PATTERN,
          description:
            'The number of an Asset account of the parent or the holder; null = a GOODWILL line of the member',
        }),
      ),
    ),
  },
  {
    description:
      'Acquisition data (business combination): requires acquisitionDate; fully consolidated and equity-method members only',
  },
);

const HeldBy = UuidOf(
  'The member of the group that holds this one (its ownershipPercentage is the direct stake of that holder); null or absent = the parent',
);

export const ConsolidationMember = Type.Object({
  companyId: Uuid,
  heldByCompanyId: Nullable(HeldBy),
  ownershipPercentage: Percentage,
  effectiveOwnershipPercentage: Type.String({
    description: 'Product of the direct stakes from the parent down, 4 decimals ("48.0000")',
  }),
  consolidationMethod: Method,
  acquisitionDate: Nullable(IsoDate),
  nonControllingInterestPercentage: Type.String({
    description:
      '100 − effective ownership for FullConsolidation ("20.00", or 4 decimals where needed), "0.00" otherwise',
  }),
  acquisition: Nullable(AcquisitionRecord),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ConsolidationGroup = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  name: Type.String(),
  reportingCurrency: Type.String(),
  consolidationMethod: Method,
  parentCompanyId: Uuid,
  members: Type.Array(ConsolidationMember),
  eliminationRuleIds: Type.Array(Uuid),
  isActive: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const GroupMemberInput = Type.Object({
  companyId: Uuid,
  ownershipPercentage: OwnershipPercentageInput,
  consolidationMethod: Method,
  acquisitionDate: Type.Optional(Nullable(IsoDate)),
  heldByCompanyId: Type.Optional(Nullable(HeldBy)),
  acquisition: Type.Optional(Nullable(AcquisitionInput)),
});

const StructureNode = Type.Object({
  companyId: Uuid,
  companyName: Type.String(),
  role: StringEnum(['Parent', 'Member'] as const),
  heldByCompanyId: Nullable(Uuid),
  depth: Type.Integer({ minimum: 0, description: '0 for the parent, 1 for a member it holds, …' }),
  consolidationMethod: Method,
  ownershipPercentage: Percentage,
  effectiveOwnershipPercentage: Type.String(),
  nonControllingInterestPercentage: Type.String(),
  functionalCurrency: Type.String(),
  acquisitionDate: Nullable(IsoDate),
  hasAcquisitionData: Type.Boolean(),
});

const GroupStructure = Type.Object({
  groupId: Uuid,
  parentCompanyId: Uuid,
  reportingCurrency: Type.String(),
  nodes: Type.Array(StructureNode, {
    description: 'The parent first, then each member below its holder, depth first',
  }),
});

/** A group's id in a path: malformed or unknown, it answers 404 ConsolidationGroupNotFoundError. */
export const GROUP_ID_RULE = {
  tag: 'ConsolidationGroupNotFoundError',
  field: 'consolidationGroupId',
  message: 'Consolidation group not found',
};
/** A group addressed by `:id`, in the organization the query names (optional). */
export const groupById = byId(GROUP_ID_RULE);
/** A member of a group addressed by `:id` and the member's `:companyId`. */
const member = byIds({
  ...groupById.pathIds,
  companyId: {
    tag: 'ConsolidationMemberNotFoundError',
    field: 'companyId',
    message: 'The company is not a member of the group',
    extra: { groupId: 'id' },
  },
});
const tags = ['Consolidation groups'];

export const consolidationGroupRoutes = routesPlugin(
  groupRecordRoutes,
  groupChangeRoutes,
  memberAddRoutes,
  memberChangeRoutes,
);

/** Groups: list, get, create. */
function groupRecordRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: '/api/v1/consolidation/groups',
    tags,
    summary: 'List consolidation groups',
    description:
      'Viewer. Without organizationId: groups of every organization of the caller. Ordered by name (case-insensitive), then id.',
    access: 'consolidation:read',
    querystring: Type.Object({
      organizationId: Type.Optional(Uuid),
      isActive: Type.Optional(Type.Boolean()),
      ...PageQuery,
    }),
    response: { 200: Page('groups', ConsolidationGroup) },
    handler: listed(db, groups.listGroups),
  });

  route(app, {
    method: 'GET',
    url: '/api/v1/consolidation/groups/:id',
    tags,
    summary: 'Get a consolidation group',
    description: 'Viewer. The group with its members and elimination rule ids.',
    ...groupById,
    access: 'consolidation:read',
    errors: ['ConsolidationGroupNotFoundError'],
    response: { 200: ConsolidationGroup },
    handler: forId(db, groups.getGroup),
  });

  route(app, {
    method: 'POST',
    url: '/api/v1/consolidation/groups',
    tags,
    summary: 'Create a consolidation group',
    description:
      'Admin. The parent and every member must be companies of the organization; the parent cannot be a member; names are unique per organization (case-insensitive). A member may be held by another member (heldByCompanyId) and carry acquisition data.',
    access: 'consolidation:manage',
    errors: ['CompanyNotFoundError', 'ConsolidationGroupNameAlreadyExistsError', 'ValidationError'],
    validatorCompiler: withBodyCheck(groups.checkCreateGroup),
    body: Type.Object({
      organizationId: Uuid,
      name: Text(255),
      reportingCurrency: CurrencyCode,
      consolidationMethod: Method,
      parentCompanyId: Uuid,
      members: Type.Array(GroupMemberInput, { maxItems: MAX_MEMBERS }),
    }),
    ...created(ConsolidationGroup),
    handler: async ({ access, body }) => groups.createGroup(db, access, body),
  });
}

/** Groups: update, delete, activate and deactivate. */
function groupChangeRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'PUT',
    url: '/api/v1/consolidation/groups/:id',
    tags,
    summary: 'Update a consolidation group',
    description:
      'Admin. name, reportingCurrency, consolidationMethod; parentCompanyId and organizationId are immutable. A new reportingCurrency must fit every rule minimumAmount.',
    ...groupById,
    access: 'consolidation:manage',
    errors: [
      'ConsolidationGroupNotFoundError',
      'ConsolidationGroupNameAlreadyExistsError',
      'ValidationError',
    ],
    body: Type.Object({
      name: Type.Optional(Text(255)),
      reportingCurrency: Type.Optional(CurrencyCode),
      consolidationMethod: Type.Optional(Method),
      parentCompanyId: Type.Optional(Uuid),
      organizationId: Type.Optional(Uuid),
    }),
    response: { 200: ConsolidationGroup },
    handler: async ({ access, params, query, body }) =>
      groups.updateGroup(db, access, params.id, query.organizationId, body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/v1/consolidation/groups/:id',
    tags,
    summary: 'Delete a consolidation group',
    description:
      'Admin. Deletes the group with its members, elimination rules and (failed or cancelled) runs. Refused while it has completed, pending or running runs.',
    ...groupById,
    access: 'consolidation:manage',
    errors: [
      'ConsolidationGroupNotFoundError',
      'ConsolidationGroupHasCompletedRunsError',
      'ConsolidationRunInProgressError',
    ],
    ...noContent,
    handler: forId(db, groups.deleteGroup),
  });

  activationRoutes(app, {
    url: '/api/v1/consolidation/groups/:id',
    tags,
    resource: 'a consolidation group',
    description: (active) => `Admin. Idempotent.${active ? '' : ' An inactive group cannot start runs.'}`,
    ...groupById,
    access: 'consolidation:manage',
    errors: ['ConsolidationGroupNotFoundError'],
    response: { 200: ConsolidationGroup },
    setActive: ({ access, params, query }, active) =>
      groups.setGroupActive(db, access, params.id, query.organizationId, active),
  });
}

/** The ownership structure and adding a member. */
function memberAddRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: '/api/v1/consolidation/groups/:id/structure',
    tags,
    summary: 'Get the ownership structure',
    description:
      'Viewer. The ownership tree: the parent, then each member below its holder, with its direct, effective and non-controlling percentages, method, functional currency and acquisition date.',
    ...groupById,
    access: 'consolidation:read',
    errors: ['ConsolidationGroupNotFoundError'],
    response: { 200: GroupStructure },
    handler: forId(db, members.getStructure),
  });

  route(app, {
    method: 'POST',
    url: '/api/v1/consolidation/groups/:id/members',
    tags,
    summary: 'Add a member',
    description: 'Admin. Answers 201 with the group.',
    ...groupById,
    access: 'consolidation:manage',
    errors: [
      'ConsolidationGroupNotFoundError',
      'ValidationError',
      'CompanyNotFoundError',
      'ConsolidationMemberAlreadyExistsError',
    ],
    body: GroupMemberInput,
    ...created(ConsolidationGroup),
    handler: async ({ access, params, query, body }) =>
      members.addMember(db, access, params.id, query.organizationId, body),
  });
}

/** Members: update, remove. */
function memberChangeRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'PUT',
    url: '/api/v1/consolidation/groups/:id/members/:companyId',
    tags,
    summary: 'Update a member',
    description:
      'Admin. ownershipPercentage, consolidationMethod, acquisitionDate (null clears), heldByCompanyId (null = the parent), acquisition (null clears). The structure after the change must be valid.',
    ...member,
    access: 'consolidation:manage',
    errors: ['ConsolidationGroupNotFoundError', 'ConsolidationMemberNotFoundError', 'ValidationError'],
    body: Type.Object({
      ownershipPercentage: Type.Optional(OwnershipPercentageInput),
      consolidationMethod: Type.Optional(Method),
      acquisitionDate: Type.Optional(Nullable(IsoDate)),
      heldByCompanyId: Type.Optional(Nullable(HeldBy)),
      acquisition: Type.Optional(Nullable(AcquisitionInput)),
    }),
    response: { 200: ConsolidationGroup },
    handler: async ({ access, params, query, body }) =>
      members.updateMember(db, access, params.id, params.companyId, query.organizationId, body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/v1/consolidation/groups/:id/members/:companyId',
    tags,
    summary: 'Remove a member',
    description:
      'Admin. Completed runs keep their member snapshot. A member that holds others cannot be removed (409).',
    ...member,
    access: 'consolidation:manage',
    errors: [
      'ConsolidationGroupNotFoundError',
      'ConsolidationMemberNotFoundError',
      'ConsolidationMemberHoldsOthersError',
    ],
    ...noContent,
    handler: async ({ access, params, query }) =>
      members.removeMember(db, access, params.id, params.companyId, query.organizationId),
  });
}
