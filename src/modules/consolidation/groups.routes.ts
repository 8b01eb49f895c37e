/** Routes of contract 3.10: consolidation groups and members. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageParams } from '../../http/pagination.ts';
import { NoContent, responses } from '../../http/responses.ts';
import {
  CurrencyCode,
  IsoDate,
  Nullable,
  Page,
  PageQuery,
  Percentage,
  StringEnum,
  Text,
  Timestamp,
  Type,
  Uuid,
} from '../../http/schemas.ts';
import { withBodyCheck } from '../../http/validation.ts';
import { CONSOLIDATION_METHODS, MAX_MEMBERS } from './groups.repo.ts';
import * as groups from './groups.service.ts';

const Method = StringEnum(CONSOLIDATION_METHODS);

/** JSON number or decimal string, 0–100, at most 2 decimals, judged by its literal text (1.7). */
export const OwnershipPercentageInput = Type.Union(
  [Type.String({ pattern: groups.PERCENTAGE_INPUT_PATTERN }), Type.Number({ minimum: 0, maximum: 100 })],
  { description: 'Percentage 0–100 with at most 2 decimals: a JSON number (`80.5`) or a string (`"80.50"`)' },
);

export const ConsolidationMember = Type.Object({
  companyId: Uuid,
  ownershipPercentage: Percentage,
  consolidationMethod: Method,
  acquisitionDate: Nullable(IsoDate),
  nonControllingInterestPercentage: Percentage,
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
});

const groupPath = {
  id: {
    tag: 'ConsolidationGroupNotFoundError',
    field: 'consolidationGroupId',
    message: 'Consolidation group not found',
  },
};
const memberPath = {
  ...groupPath,
  companyId: {
    tag: 'ConsolidationMemberNotFoundError',
    field: 'companyId',
    message: 'The company is not a member of the group',
    extra: { groupId: 'id' },
  },
};
const IdParams = Type.Object({ id: Type.String() });
const MemberParams = Type.Object({ id: Type.String(), companyId: Type.String() });
const OrgQuery = Type.Object({ organizationId: Type.Optional(Uuid) });
const tags = ['Consolidation groups'];

export const consolidationGroupRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.deps;

  app.get(
    '/api/v1/consolidation/groups',
    {
      schema: {
        tags,
        summary: 'List consolidation groups',
        description:
          'Viewer. Without organizationId: groups of every organization of the caller. Ordered by name (case-insensitive), then id.',
        querystring: Type.Object({
          organizationId: Type.Optional(Uuid),
          isActive: Type.Optional(Type.Boolean()),
          ...PageQuery,
        }),
        response: responses({ 200: Page('groups', ConsolidationGroup) }),
      },
    },
    async (request) =>
      groups.listGroups(
        db,
        request.access,
        { organizationId: request.query.organizationId, isActive: request.query.isActive },
        pageParams(request.query),
      ),
  );

  app.get(
    '/api/v1/consolidation/groups/:id',
    {
      config: { pathIds: groupPath },
      schema: {
        tags,
        summary: 'Get a consolidation group',
        description: 'Viewer. The group with its members and elimination rule ids.',
        params: IdParams,
        querystring: OrgQuery,
        response: responses({ 200: ConsolidationGroup }),
      },
    },
    async (request) => groups.getGroup(db, request.access, request.params.id, request.query.organizationId),
  );

  app.post(
    '/api/v1/consolidation/groups',
    {
      validatorCompiler: withBodyCheck(groups.checkCreateGroup),
      schema: {
        tags,
        summary: 'Create a consolidation group',
        description:
          'Admin. The parent and every member must be companies of the organization; the parent cannot be a member; names are unique per organization (case-insensitive).',
        body: Type.Object({
          organizationId: Uuid,
          name: Text(255),
          reportingCurrency: CurrencyCode,
          consolidationMethod: Method,
          parentCompanyId: Uuid,
          members: Type.Array(GroupMemberInput, { maxItems: MAX_MEMBERS }),
        }),
        response: responses({ 201: ConsolidationGroup }),
      },
    },
    async (request, reply) =>
      reply.code(201).send(await groups.createGroup(db, request.access, request.body)),
  );

  app.put(
    '/api/v1/consolidation/groups/:id',
    {
      config: { pathIds: groupPath },
      schema: {
        tags,
        summary: 'Update a consolidation group',
        description:
          'Admin. name, reportingCurrency, consolidationMethod; parentCompanyId and organizationId are immutable. A new reportingCurrency must fit every rule minimumAmount.',
        params: IdParams,
        querystring: OrgQuery,
        body: Type.Object({
          name: Type.Optional(Text(255)),
          reportingCurrency: Type.Optional(CurrencyCode),
          consolidationMethod: Type.Optional(Method),
          parentCompanyId: Type.Optional(Uuid),
          organizationId: Type.Optional(Uuid),
        }),
        response: responses({ 200: ConsolidationGroup }),
      },
    },
    async (request) =>
      groups.updateGroup(db, request.access, request.params.id, request.query.organizationId, request.body),
  );

  app.delete(
    '/api/v1/consolidation/groups/:id',
    {
      config: { pathIds: groupPath },
      schema: {
        tags,
        summary: 'Delete a consolidation group',
        description:
          'Admin. Deletes the group with its members, elimination rules and (failed or cancelled) runs. Refused while it has completed, pending or running runs.',
        params: IdParams,
        querystring: OrgQuery,
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      await groups.deleteGroup(db, request.access, request.params.id, request.query.organizationId);
      return reply.code(204).send();
    },
  );

  for (const [path, active] of [
    ['activate', true],
    ['deactivate', false],
  ] as const) {
    app.post(
      `/api/v1/consolidation/groups/:id/${path}`,
      {
        config: { pathIds: groupPath },
        schema: {
          tags,
          summary: active ? 'Activate a consolidation group' : 'Deactivate a consolidation group',
          description: `Admin. Idempotent.${active ? '' : ' An inactive group cannot start runs.'}`,
          params: IdParams,
          querystring: OrgQuery,
          response: responses({ 200: ConsolidationGroup }),
        },
      },
      async (request) =>
        groups.setGroupActive(db, request.access, request.params.id, request.query.organizationId, active),
    );
  }

  app.post(
    '/api/v1/consolidation/groups/:id/members',
    {
      config: { pathIds: groupPath },
      schema: {
        tags,
        summary: 'Add a member',
        description: 'Admin. Answers 201 with the group.',
        params: IdParams,
        querystring: OrgQuery,
        body: GroupMemberInput,
        response: responses({ 201: ConsolidationGroup }),
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await groups.addMember(
            db,
            request.access,
            request.params.id,
            request.query.organizationId,
            request.body,
          ),
        ),
  );

  app.put(
    '/api/v1/consolidation/groups/:id/members/:companyId',
    {
      config: { pathIds: memberPath },
      schema: {
        tags,
        summary: 'Update a member',
        description: 'Admin. ownershipPercentage, consolidationMethod, acquisitionDate (null clears).',
        params: MemberParams,
        querystring: OrgQuery,
        body: Type.Object({
          ownershipPercentage: Type.Optional(OwnershipPercentageInput),
          consolidationMethod: Type.Optional(Method),
          acquisitionDate: Type.Optional(Nullable(IsoDate)),
        }),
        response: responses({ 200: ConsolidationGroup }),
      },
    },
    async (request) =>
      groups.updateMember(
        db,
        request.access,
        request.params.id,
        request.params.companyId,
        request.query.organizationId,
        request.body,
      ),
  );

  app.delete(
    '/api/v1/consolidation/groups/:id/members/:companyId',
    {
      config: { pathIds: memberPath },
      schema: {
        tags,
        summary: 'Remove a member',
        description: 'Admin. Completed runs keep their member snapshot.',
        params: MemberParams,
        querystring: OrgQuery,
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      await groups.removeMember(
        db,
        request.access,
        request.params.id,
        request.params.companyId,
        request.query.organizationId,
      );
      return reply.code(204).send();
    },
  );
};
