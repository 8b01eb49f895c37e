/** Event log and webhook endpoints. */
import { pageParams } from '../../http/pagination.ts';
import { created, inPath, noContent, route } from '../../http/route.ts';
import { type RouteApp, routesPlugin } from '../../http/route-app.ts';
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
const tags = ['Webhooks'];
const byId = '/api/v1/webhook-endpoints/:endpointId';
/** An endpoint addressed by id within the organization the query names. */
const endpoint = {
  ...inPath({
    endpointId: {
      tag: 'WebhookEndpointNotFoundError',
      field: 'endpointId',
      message: 'Webhook endpoint not found',
    },
  }),
  querystring: OrgQuery,
  access: 'webhook:manage',
  errors: ['OrganizationNotFoundError', 'WebhookEndpointNotFoundError'],
} as const;

export const webhookRoutes = routesPlugin(
  eventRoutes,
  endpointCollectionRoutes,
  endpointRoutes,
  deliveryRoutes,
);

/** The event log. */
function eventRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: '/api/v1/events',
    tags: ['Events'],
    summary: 'List events',
    description:
      'Viewer. Oldest first. Pass the last event id you processed as `after` to read what came since; ' +
      'an event becomes visible once every transaction that started before it has ended, so no ' +
      'event ever appears behind a cursor already returned.',
    access: 'event:read',
    errors: ['OrganizationNotFoundError'],
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
    response: { 200: EventPage },
    handler: async (request) => {
      const q = request.query;
      return listEvents(db, request.access, {
        organizationId: q.organizationId.toLowerCase(),
        after: q.after?.toLowerCase(),
        type: q.type,
        limit: q.limit,
      });
    },
  });
}

/** Webhook endpoints: list, create. */
function endpointCollectionRoutes(app: RouteApp): void {
  const { db } = app.deps;
  const { policy } = app.deps.webhooks;

  route(app, {
    method: 'GET',
    url: '/api/v1/webhook-endpoints',
    tags,
    summary: 'List webhook endpoints',
    description: 'Admin. Oldest first.',
    access: 'webhook:manage',
    errors: ['OrganizationNotFoundError'],
    querystring: Type.Object({ organizationId: Uuid, ...PageQuery }),
    response: { 200: Page('endpoints', Endpoint) },
    handler: async ({ access, query }) =>
      service.listEndpoints(db, access, query.organizationId, pageParams(query)),
  });

  route(app, {
    method: 'POST',
    url: '/api/v1/webhook-endpoints',
    tags,
    summary: 'Create a webhook endpoint',
    description:
      'Admin. The answer carries the signing secret, shown this once. Only https:// URLs ' +
      '(http:// when the service allows it); private, loopback and link-local addresses are refused.',
    access: 'webhook:manage',
    errors: ['OrganizationNotFoundError'],
    body: Type.Object({
      organizationId: Uuid,
      url: WebhookUrl,
      description: Type.Optional(Nullable(Text(500))),
      eventTypes: Type.Optional(Type.Array(EventTypeSchema, { maxItems: 50 })),
      enabled: Type.Optional(Type.Boolean()),
    }),
    ...created(CreatedEndpoint),
    handler: async ({ access, body }) => service.createEndpoint(db, access, policy, body),
  });
}

/** One webhook endpoint: get, update, delete. */
function endpointRoutes(app: RouteApp): void {
  const { db } = app.deps;
  const { policy } = app.deps.webhooks;

  route(app, {
    method: 'GET',
    url: byId,
    tags,
    summary: 'Get a webhook endpoint',
    description: 'Admin. The secret is never shown again.',
    ...endpoint,
    response: { 200: Endpoint },
    handler: async ({ access, params, query }) =>
      service.getEndpoint(db, access, query.organizationId, params.endpointId),
  });

  route(app, {
    method: 'PUT',
    url: byId,
    tags,
    summary: 'Update a webhook endpoint',
    description:
      'Admin. Omitted fields are unchanged. Enabling a disabled endpoint clears its failure state; its ' +
      'pending deliveries resume.',
    ...endpoint,
    body: Type.Object({
      url: Type.Optional(WebhookUrl),
      description: Type.Optional(Nullable(Text(500))),
      eventTypes: Type.Optional(Type.Array(EventTypeSchema, { maxItems: 50 })),
      enabled: Type.Optional(Type.Boolean()),
    }),
    response: { 200: Endpoint },
    handler: async ({ access, params, query, body }) =>
      service.updateEndpoint(db, access, policy, query.organizationId, params.endpointId, body),
  });

  route(app, {
    method: 'DELETE',
    url: byId,
    tags,
    summary: 'Delete a webhook endpoint',
    description: 'Admin. Its delivery records go with it.',
    ...endpoint,
    ...noContent,
    handler: async ({ access, params, query }) =>
      service.deleteEndpoint(db, access, query.organizationId, params.endpointId),
  });
}

/** An endpoint's deliveries: list, retry one, send a test ping. */
function deliveryRoutes(app: RouteApp): void {
  const { db } = app.deps;
  const { dispatcher } = app.deps.webhooks;

  route(app, {
    method: 'GET',
    url: `${byId}/deliveries`,
    tags,
    summary: 'List deliveries of a webhook endpoint',
    description: 'Admin. Newest first, with every attempt (time, response status, duration, error).',
    ...endpoint,
    querystring: Type.Object({
      organizationId: Uuid,
      status: Type.Optional(StringEnum(['Pending', 'Succeeded', 'Failed'] as const)),
      ...PageQuery,
    }),
    response: { 200: Page('deliveries', Delivery) },
    handler: async ({ access, params, query }) =>
      service.listDeliveries(
        db,
        access,
        query.organizationId,
        params.endpointId,
        query.status,
        pageParams(query),
      ),
  });

  route(app, {
    method: 'POST',
    url: `${byId}/deliveries/:deliveryId/retry`,
    tags,
    summary: 'Retry a delivery',
    description: 'Admin. The delivery is sent again as soon as possible, whatever its status.',
    ...endpoint,
    ...inPath({
      ...endpoint.pathIds,
      deliveryId: {
        tag: 'WebhookDeliveryNotFoundError',
        field: 'deliveryId',
        message: 'Webhook delivery not found',
      },
    }),
    errors: [...endpoint.errors, 'WebhookDeliveryNotFoundError'],
    response: { 202: Delivery },
    status: 202,
    handler: async ({ access, params, query }) =>
      service.retryDelivery(
        db,
        access,
        dispatcher,
        query.organizationId,
        params.endpointId,
        params.deliveryId,
      ),
  });

  route(app, {
    method: 'POST',
    url: `${byId}/test`,
    tags,
    summary: 'Send a test ping',
    description:
      'Admin. Sends a signed `WebhookTest` message to the endpoint now and answers with the delivery and ' +
      'the outcome of that attempt.',
    ...endpoint,
    response: { 200: Delivery },
    handler: async ({ access, params, query }) =>
      service.testEndpoint(db, access, dispatcher, query.organizationId, params.endpointId),
  });
}
