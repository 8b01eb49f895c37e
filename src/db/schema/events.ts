/**
 * Event log (transactional outbox) and webhooks.
 *
 * `events` rows are written in the same transaction as the change they announce. `tx` is the writing
 * transaction's id (`pg_current_xact_id()`, by default): readers list events in `(tx, id)` order and
 * only those of transactions older than every transaction still running, so that an event committed
 * late can never land behind a cursor a reader has already passed.
 */
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  type PgColumn,
  pgTable,
  smallint,
  text,
  uuid,
} from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { orgId, sameOrgRef, tenantKey, tenantRow, timestamps, ts } from './columns.ts';
import { orgOwnedRow } from './core.ts';

export const events = pgTable(
  'events',
  {
    ...orgOwnedRow(),
    tx: bigint('tx', { mode: 'bigint' })
      .notNull()
      .default(sql`(pg_current_xact_id()::text::bigint)`),
    type: text('type').notNull(),
    occurredAt: ts('occurred_at').notNull().defaultNow(),
    /** The user whose request made the change; null for the service itself. */
    actorId: uuid('actor_id'),
    resourceType: text('resource_type').notNull(),
    resourceId: uuid('resource_id').notNull(),
    data: jsonb('data').notNull(),
  },
  (t) => [
    tenantKey(t),
    index('events_org_tx_idx').on(t.organizationId, t.tx, t.id),
    index('events_tx_idx').on(t.tx, t.id),
  ],
);

export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    ...orgOwnedRow(),
    url: text('url').notNull(),
    description: text('description'),
    /** Event types delivered; empty: every type. */
    eventTypes: text('event_types')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** Standard Webhooks secret (`whsec_…`). */
    secret: text('secret').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    /** Why the service disabled the endpoint (null: enabled, or disabled by a user). */
    disabledReason: text('disabled_reason'),
    /** First failed attempt since the last success; null while deliveries succeed. */
    failingSince: ts('failing_since'),
    createdBy: uuid('created_by').notNull(),
    ...timestamps(),
  },
  (t) => [tenantKey(t), index('webhook_endpoints_id_idx').on(t.id)],
);

/** A row of a webhook endpoint's (`name`: its constraint's name), deleted with the endpoint. */
const ofEndpoint = (t: { organizationId: PgColumn; endpointId: PgColumn }, name: string) =>
  sameOrgRef(t.organizationId, t.endpointId, webhookEndpoints, name).onDelete('cascade');

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    ...tenantRow(),
    endpointId: uuid('endpoint_id').notNull(),
    /** The delivered event; null for a test ping (whose body is `payload`). */
    eventId: uuid('event_id'),
    /** Ordering of the event (`events.tx`, then the event id) for in-order sending per endpoint. */
    eventTx: bigint('event_tx', { mode: 'bigint' }).notNull(),
    eventType: text('event_type').notNull(),
    payload: jsonb('payload'),
    /** Pending, Succeeded, Failed (gave up). */
    status: text('status').notNull(),
    attemptCount: smallint('attempt_count').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at'),
    /** A dispatcher holds the delivery until then; after it a crashed holder's claim lapses. */
    leaseUntil: ts('lease_until'),
    lastAttemptAt: ts('last_attempt_at'),
    responseStatus: integer('response_status'),
    durationMs: integer('duration_ms'),
    lastError: text('last_error'),
    /** The recorded attempts, oldest first: `[{attemptedAt, responseStatus, durationMs, error}]`. */
    attempts: jsonb('attempts')
      .notNull()
      .default(sql`'[]'::jsonb`),
    deliveredAt: ts('delivered_at'),
    ...timestamps(),
  },
  (t) => [
    tenantKey(t),
    ofEndpoint(t, 'webhook_deliveries_endpoint_fk'),
    index('webhook_deliveries_endpoint_idx').on(t.organizationId, t.endpointId, t.createdAt, t.id),
    index('webhook_deliveries_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`status = 'Pending'`),
  ],
);

/** Fan-out position: the last event (by `tx`, id) turned into deliveries. One row. */
export const webhookFanout = pgTable('webhook_fanout', {
  id: smallint('id').primaryKey(),
  tx: bigint('tx', { mode: 'bigint' }).notNull(),
  eventId: uuid('event_id').notNull(),
});

/**
 * Fan-out batches in flight (issue 23): for one endpoint, the events after one fan-out position up
 * to the next, whose deliveries are being sent; leased by the dispatcher that fanned them out, fanned
 * out again by any dispatcher once the lease lapses. Their deliveries are written, with the first
 * attempt's outcome, by the statement that deletes the row.
 */
export const webhookFanoutBatches = pgTable(
  'webhook_fanout_batches',
  {
    id: uuid('id').notNull(),
    organizationId: orgId(),
    endpointId: uuid('endpoint_id').notNull(),
    afterTx: bigint('after_tx', { mode: 'bigint' }).notNull(),
    afterEventId: uuid('after_event_id').notNull(),
    lastTx: bigint('last_tx', { mode: 'bigint' }).notNull(),
    lastEventId: uuid('last_event_id').notNull(),
    createdAt: ts('created_at').notNull(),
    leaseUntil: ts('lease_until').notNull(),
  },
  (t) => [tenantKey(t), ofEndpoint(t, 'webhook_fanout_batches_endpoint_fk')],
);
