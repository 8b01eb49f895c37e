/** Event log and webhook endpoints. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageParams } from '../../http/pagination.ts';
import { NoContent, responses } from '../../http/responses.ts';
import { Nullable, Page, PageQuery, StringEnum, Text, Timestamp, Type, Uuid } from '../../http/schemas.ts';
import { listEvents } from '../events/service.ts';
import { EVENT_TYPES } from '../events/record.ts';
import * as service from './service.ts';

const EventSchema = Type.Object(
  {
    id: Uuid,
    type: Type.String({ description: 'One of the event types, e.g. `JournalEntryPosted`' }),
    organizationId: Uuid,
    occurredAt: Timestamp,
    actorId: Nullable(Uuid),
    resourceType: Type.String(),
    resourceId: Uuid,
    data: Type.Unknown({
      description:
        'The resource as the API returns it; for journal entries and consolidation runs a summary (read the whole resource by its id)',
    }),
  },
  { description: 'An event: one state change, recorded in the same transaction as the change' },
);

const EventPage = Type.Object({
  events: Type.Array(EventSchema),
  nextCursor: Type.Union([Uuid, Type.Null()], {
    description: 'Pass as `after` to continue; the given cursor when nothing new was listed',
  }),
  hasMore: Type.Boolean(),
  limit: Type.Integer(),
});

const EventTypeSchema = StringEnum(EVENT_TYPES);

const Endpoint = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  url: Type.String(),
  description: Nullable(Type.String()),
  eventTypes: Type.Array(Type.String(), { description: 'Types delivered; empty: every type' }),
  enabled: Type.Boolean(),
  disabledReason: Nullable(Type.String()),
  failingSince: Nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const CreatedEndpoint = Type.Object({
  ...Endpoint.properties,
  secret: Type.String({
    description: 'Signing secret (`whsec_…`), shown only in this response',
  }),
});

const Delivery = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  endpointId: Uuid,
  eventId: Nullable(Uuid),
  eventType: Type.String(),
  status: StringEnum(['Pending', 'Succeeded', 'Failed'] as const),
  attemptCount: Type.Integer(),
  nextAttemptAt: Nullable(Timestamp),
  lastAttemptAt: Nullable(Timestamp),
  responseStatus: Nullable(Type.Integer()),
  durationMs: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  deliveredAt: Nullable(Timestamp),
  attempts: Type.Array(
    Type.Object({
      attemptedAt: Type.String(),
      responseStatus: Nullable(Type.Integer()),
      durationMs: Nullable(Type.Integer()),
      error: Nullable(Type.String()),
    }),
  ),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const WebhookUrl = Type.String({ minLength: 1, maxLength: 2000, description: 'https:// URL' });

const OrgQuery = Type.Object({ organizationId: Uuid });
const endpointPathIds = {
  endpointId: {
    tag: 'WebhookEndpointNotFoundError',
    field: 'endpointId',
    message: 'Webhook endpoint not found',
  },
};
const EndpointParams = Type.Object({ endpointId: Type.String() });
const tags = ['Webhooks'];
const byId = '/api/v1/webhook-endpoints/:endpointId';

export const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.deps;
  const { policy, dispatcher } = app.deps.webhooks;

  app.get(
    '/api/v1/events',
    {
      config: { access: 'event:read', errors: ['OrganizationNotFoundError'] },
      schema: {
        tags: ['Events'],
        summary: 'List events',
        description:
          'Viewer. Oldest first. Pass the last event id you processed as `after` to read what came since; ' +
          'an event becomes visible once every transaction that started before it has ended, so no ' +
          'event ever appears behind a cursor already returned.',
        querystring: Type.Object({
          organizationId: Uuid,
          after: Type.Optional(Uuid),
          type: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 2000,
              description: `Event type, or several separated by commas: ${EVENT_TYPES.join(', ')}`,
            }),
          ),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
        }),
        response: responses({ 200: EventPage }),
      },
    },
    async (request) => {
      const q = request.query;
      return listEvents(db, request.access, {
        organizationId: q.organizationId.toLowerCase(),
        after: q.after?.toLowerCase(),
        type: q.type,
        limit: q.limit,
      });
    },
  );

  app.get(
    '/api/v1/webhook-endpoints',
    {
      config: { access: 'webhook:manage', errors: ['OrganizationNotFoundError'] },
      schema: {
        tags,
        summary: 'List webhook endpoints',
        description: 'Admin. Oldest first.',
        querystring: Type.Object({ organizationId: Uuid, ...PageQuery }),
        response: responses({ 200: Page('endpoints', Endpoint) }),
      },
    },
    async (request) =>
      service.listEndpoints(db, request.access, request.query.organizationId, pageParams(request.query)),
  );

  app.post(
    '/api/v1/webhook-endpoints',
    {
      config: { access: 'webhook:manage', errors: ['OrganizationNotFoundError'] },
      schema: {
        tags,
        summary: 'Create a webhook endpoint',
        description:
          'Admin. The answer carries the signing secret, shown this once. Only https:// URLs ' +
          '(http:// when the service allows it); private, loopback and link-local addresses are refused.',
        body: Type.Object({
          organizationId: Uuid,
          url: WebhookUrl,
          description: Type.Optional(Nullable(Text(500))),
          eventTypes: Type.Optional(Type.Array(EventTypeSchema, { maxItems: 50 })),
          enabled: Type.Optional(Type.Boolean()),
        }),
        response: responses({ 201: CreatedEndpoint }),
      },
    },
    async (request, reply) =>
      reply.code(201).send(await service.createEndpoint(db, request.access, policy, request.body)),
  );

  app.get(
    byId,
    {
      config: {
        pathIds: endpointPathIds,
        access: 'webhook:manage',
        errors: ['OrganizationNotFoundError', 'WebhookEndpointNotFoundError'],
      },
      schema: {
        tags,
        summary: 'Get a webhook endpoint',
        description: 'Admin. The secret is never shown again.',
        params: EndpointParams,
        querystring: OrgQuery,
        response: responses({ 200: Endpoint }),
      },
    },
    async (request) =>
      service.getEndpoint(db, request.access, request.query.organizationId, request.params.endpointId),
  );

  app.put(
    byId,
    {
      config: {
        pathIds: endpointPathIds,
        access: 'webhook:manage',
        errors: ['OrganizationNotFoundError', 'WebhookEndpointNotFoundError'],
      },
      schema: {
        tags,
        summary: 'Update a webhook endpoint',
        description:
          'Admin. Omitted fields are unchanged. Enabling a disabled endpoint clears its failure state; its ' +
          'pending deliveries resume.',
        params: EndpointParams,
        querystring: OrgQuery,
        body: Type.Object({
          url: Type.Optional(WebhookUrl),
          description: Type.Optional(Nullable(Text(500))),
          eventTypes: Type.Optional(Type.Array(EventTypeSchema, { maxItems: 50 })),
          enabled: Type.Optional(Type.Boolean()),
        }),
        response: responses({ 200: Endpoint }),
      },
    },
    async (request) =>
      service.updateEndpoint(
        db,
        request.access,
        policy,
        request.query.organizationId,
        request.params.endpointId,
        request.body,
      ),
  );

  app.delete(
    byId,
    {
      config: {
        pathIds: endpointPathIds,
        access: 'webhook:manage',
        errors: ['OrganizationNotFoundError', 'WebhookEndpointNotFoundError'],
      },
      schema: {
        tags,
        summary: 'Delete a webhook endpoint',
        description: 'Admin. Its delivery records go with it.',
        params: EndpointParams,
        querystring: OrgQuery,
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      await service.deleteEndpoint(
        db,
        request.access,
        request.query.organizationId,
        request.params.endpointId,
      );
      return reply.code(204).send();
    },
  );

  app.get(
    `${byId}/deliveries`,
    {
      config: {
        pathIds: endpointPathIds,
        access: 'webhook:manage',
        errors: ['OrganizationNotFoundError', 'WebhookEndpointNotFoundError'],
      },
      schema: {
        tags,
        summary: 'List deliveries of a webhook endpoint',
        description: 'Admin. Newest first, with every attempt (time, response status, duration, error).',
        params: EndpointParams,
        querystring: Type.Object({
          organizationId: Uuid,
          status: Type.Optional(StringEnum(['Pending', 'Succeeded', 'Failed'] as const)),
          ...PageQuery,
        }),
        response: responses({ 200: Page('deliveries', Delivery) }),
      },
    },
    async (request) =>
      service.listDeliveries(
        db,
        request.access,
        request.query.organizationId,
        request.params.endpointId,
        request.query.status,
        pageParams(request.query),
      ),
  );

  app.post(
    `${byId}/deliveries/:deliveryId/retry`,
    {
      config: {
        pathIds: {
          ...endpointPathIds,
          deliveryId: {
            tag: 'WebhookDeliveryNotFoundError',
            field: 'deliveryId',
            message: 'Webhook delivery not found',
          },
        },
        access: 'webhook:manage',
        errors: ['OrganizationNotFoundError', 'WebhookEndpointNotFoundError', 'WebhookDeliveryNotFoundError'],
      },
      schema: {
        tags,
        summary: 'Retry a delivery',
        description: 'Admin. The delivery is sent again as soon as possible, whatever its status.',
        params: Type.Object({ endpointId: Type.String(), deliveryId: Type.String() }),
        querystring: OrgQuery,
        response: responses({ 202: Delivery }),
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(
          await service.retryDelivery(
            db,
            request.access,
            dispatcher,
            request.query.organizationId,
            request.params.endpointId,
            request.params.deliveryId,
          ),
        ),
  );

  app.post(
    `${byId}/test`,
    {
      config: {
        pathIds: endpointPathIds,
        access: 'webhook:manage',
        errors: ['OrganizationNotFoundError', 'WebhookEndpointNotFoundError'],
      },
      schema: {
        tags,
        summary: 'Send a test ping',
        description:
          'Admin. Sends a signed `WebhookTest` message to the endpoint now and answers with the delivery and ' +
          'the outcome of that attempt.',
        params: EndpointParams,
        querystring: OrgQuery,
        response: responses({ 200: Delivery }),
      },
    },
    async (request) =>
      service.testEndpoint(
        db,
        request.access,
        dispatcher,
        request.query.organizationId,
        request.params.endpointId,
      ),
  );
};
