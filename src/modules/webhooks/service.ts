/**
 * Webhook endpoints (admin): create (the signing secret is returned once, in the create response),
 * list, get, update, delete; their deliveries, a manual retry and a test ping.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { desc } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type Db, inTransaction, type Queryable } from '../../db/client.ts';
import { firstRow, inOrg, sameRow, updateRow } from '../../db/rows.ts';
import { webhookDeliveries, webhookEndpoints } from '../../db/schema/index.ts';
import { DomainError, invalid } from '../../domain/errors.ts';
import { type OutboundPolicy, urlRefusal } from '../../domain/webhooks.ts';
import type { Access } from '../../access/access.ts';
import type { PageParams } from '../../http/pagination.ts';
import { pagedRows } from '../shared/lists.ts';
import { auditWrite, diffChanges } from '../audit/service.ts';
import { type Dispatcher, endpointSummary } from './dispatcher.ts';
import { errors } from '../../domain/error-catalogue.ts';

type EndpointRow = typeof webhookEndpoints.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export type EndpointRecord = ReturnType<typeof endpointSummary>;

export interface DeliveryRecord {
  id: string;
  organizationId: string;
  endpointId: string;
  eventId: string | null;
  eventType: string;
  status: string;
  attemptCount: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  responseStatus: number | null;
  durationMs: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  attempts: unknown[];
  createdAt: string;
  updatedAt: string;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function deliveryRecord(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    organizationId: row.organizationId,
    endpointId: row.endpointId,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status,
    attemptCount: row.attemptCount,
    nextAttemptAt: row.status === 'Pending' ? iso(row.nextAttemptAt) : null,
    lastAttemptAt: iso(row.lastAttemptAt),
    responseStatus: row.responseStatus,
    durationMs: row.durationMs,
    lastError: row.lastError,
    deliveredAt: iso(row.deliveredAt),
    attempts: Array.isArray(row.attempts) ? row.attempts : [],
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function endpointNotFound(endpointId: string): DomainError {
  return errors.WebhookEndpointNotFoundError('Webhook endpoint not found', { endpointId });
}

export function deliveryNotFound(deliveryId: string): DomainError {
  return errors.WebhookDeliveryNotFoundError('Webhook delivery not found', { deliveryId });
}

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

function checkUrl(url: string, policy: OutboundPolicy): void {
  const refusal = urlRefusal(url, policy);
  if (refusal) throw invalid('/url', refusal);
}

export interface CreateEndpointInput {
  organizationId: string;
  url: string;
  description?: string | null;
  eventTypes?: string[];
  enabled?: boolean;
}

export async function createEndpoint(
  db: Db,
  access: Access,
  policy: OutboundPolicy,
  input: CreateEndpointInput,
): Promise<EndpointRecord & { secret: string }> {
  checkUrl(input.url, policy);
  await access.authorize(input.organizationId, 'webhook:manage');
  return inTransaction(db, async (tx) => {
    const now = new Date();
    const [row] = await tx
      .insert(webhookEndpoints)
      .values({
        id: uuidv7(),
        organizationId: input.organizationId,
        url: input.url,
        description: input.description ?? null,
        eventTypes: [...new Set(input.eventTypes ?? [])],
        secret: newSecret(),
        enabled: input.enabled ?? true,
        createdBy: access.userId,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await auditWrite(
      tx,
      access,
      'WebhookEndpoint',
      { organizationId: input.organizationId, id: row!.id },
      'Create',
    );
    return { ...endpointSummary(row!), secret: row!.secret };
  });
}

/** The endpoint addressed by id, after the caller's access is checked; locked when `lock`. */
async function addressed(
  db: Queryable,
  access: Access,
  organizationId: string,
  endpointId: string,
  lock = false,
): Promise<EndpointRow> {
  return access.addressed(
    organizationId,
    'webhook:manage',
    () =>
      firstRow(
        db,
        webhookEndpoints,
        inOrg(webhookEndpoints, organizationId, { id: endpointId }),
        lock ? 'update' : undefined,
      ),
    () => endpointNotFound(endpointId),
  );
}

export async function getEndpoint(db: Db, access: Access, organizationId: string, endpointId: string) {
  return endpointSummary(await addressed(db, access, organizationId, endpointId));
}

export async function listEndpoints(db: Db, access: Access, organizationId: string, page: PageParams) {
  await access.authorize(organizationId, 'webhook:manage');
  const where = inOrg(webhookEndpoints, organizationId);
  const order = [webhookEndpoints.createdAt, webhookEndpoints.id];
  return pagedRows(db, webhookEndpoints, where, order, page, 'endpoints', (rows) =>
    rows.map(endpointSummary),
  );
}

export interface UpdateEndpointInput {
  url?: string;
  description?: string | null;
  eventTypes?: string[];
  enabled?: boolean;
}

/** PUT: omitted fields unchanged. Enabling an endpoint clears why and since when it was failing. */
export async function updateEndpoint(
  db: Db,
  access: Access,
  policy: OutboundPolicy,
  organizationId: string,
  endpointId: string,
  input: UpdateEndpointInput,
): Promise<EndpointRecord> {
  if (input.url !== undefined) checkUrl(input.url, policy);
  return inTransaction(db, async (tx) => {
    const row = await addressed(tx, access, organizationId, endpointId, true);
    const before = endpointSummary(row);
    const set: Partial<EndpointRow> = {};
    if (input.url !== undefined) set.url = input.url;
    if (input.description !== undefined) set.description = input.description;
    if (input.eventTypes !== undefined) set.eventTypes = [...new Set(input.eventTypes)];
    if (input.enabled !== undefined) {
      set.enabled = input.enabled;
      if (input.enabled && !row.enabled) {
        set.disabledReason = null;
        set.failingSince = null;
      }
    }
    const after = endpointSummary({ ...row, ...set });
    const changes = diffChanges(before, after);
    if (Object.keys(changes).length === 0) return before;
    const updated = await updateRow(tx, webhookEndpoints, sameRow(webhookEndpoints, row), {
      ...set,
      updatedAt: new Date(),
    });
    await auditWrite(tx, access, 'WebhookEndpoint', { organizationId, id: endpointId }, 'Update', changes);
    return endpointSummary(updated);
  });
}

/** DELETE: the endpoint and its delivery records. */
export async function deleteEndpoint(
  db: Db,
  access: Access,
  organizationId: string,
  endpointId: string,
): Promise<void> {
  await access.enterOrganization(organizationId, 'webhook:manage');
  await inTransaction(db, async (tx) => {
    const [row] = await tx
      .delete(webhookEndpoints)
      .where(inOrg(webhookEndpoints, organizationId, { id: endpointId }))
      .returning({ id: webhookEndpoints.id });
    if (!row) throw endpointNotFound(endpointId);
    await access.authorize(organizationId, 'webhook:manage');
    await auditWrite(tx, access, 'WebhookEndpoint', { organizationId, id: endpointId }, 'Delete');
  });
}

export async function listDeliveries(
  db: Db,
  access: Access,
  organizationId: string,
  endpointId: string,
  status: string | undefined,
  page: PageParams,
) {
  await addressed(db, access, organizationId, endpointId);
  const where = inOrg(webhookDeliveries, organizationId, { endpointId, status });
  const order = [desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id)];
  return pagedRows(db, webhookDeliveries, where, order, page, 'deliveries', (rows) =>
    rows.map(deliveryRecord),
  );
}

/** POST …/deliveries/{id}/retry: the delivery is due again now, whatever its status. */
export async function retryDelivery(
  db: Db,
  access: Access,
  dispatcher: Dispatcher,
  organizationId: string,
  endpointId: string,
  deliveryId: string,
): Promise<DeliveryRecord> {
  await addressed(db, access, organizationId, endpointId);
  const now = new Date();
  const [row] = await db
    .update(webhookDeliveries)
    .set({ status: 'Pending', nextAttemptAt: now, leaseUntil: null, updatedAt: now })
    .where(inOrg(webhookDeliveries, organizationId, { endpointId, id: deliveryId }))
    .returning();
  if (!row) throw deliveryNotFound(deliveryId);
  dispatcher.nudge();
  return deliveryRecord(row);
}

/**
 * POST …/test: a `WebhookTest` ping to the endpoint, sent during the request; the answer is the
 * delivery with the attempt's outcome (a failed ping is retried like any delivery).
 */
export async function testEndpoint(
  db: Db,
  access: Access,
  dispatcher: Dispatcher,
  organizationId: string,
  endpointId: string,
): Promise<DeliveryRecord> {
  const endpoint = await addressed(db, access, organizationId, endpointId);
  const id = randomUUID();
  const now = new Date();
  const payload = {
    id,
    type: 'WebhookTest',
    timestamp: now.toISOString(),
    organizationId,
    occurredAt: now.toISOString(),
    actorId: access.userId,
    resourceType: 'WebhookEndpoint',
    resourceId: endpointId,
    data: { endpointId, message: 'Test delivery from Groupbook' },
  };
  const leaseUntil = new Date(now.getTime() + 60_000);
  await db.insert(webhookDeliveries).values({
    id,
    organizationId,
    endpointId,
    eventId: null,
    eventTx: 0n,
    eventType: 'WebhookTest',
    payload,
    status: 'Pending',
    nextAttemptAt: now,
    leaseUntil,
    createdAt: now,
    updatedAt: now,
  });
  const outcome = await dispatcher.sendOne({
    organizationId,
    id,
    endpointId,
    eventId: null,
    attemptCount: 0,
    createdAt: now,
    leaseUntil,
    url: endpoint.url,
    secret: endpoint.secret,
    body: JSON.stringify(payload),
  });
  await dispatcher.complete([outcome]);
  const row = await firstRow(db, webhookDeliveries, inOrg(webhookDeliveries, organizationId, { id }));
  return deliveryRecord(row!);
}
