/**
 * Endpoint health: endpoints failing without a success for too long are disabled, each with a
 * `WebhookEndpointDisabled` event; and the endpoint as events carry it.
 */
import { and, eq, lt } from 'drizzle-orm';
import { type Db, inTransaction } from '../../db/client.ts';
import { webhookEndpoints } from '../../db/schema/index.ts';
import { recordEvent } from '../events/record.ts';

/** Disables endpoints that have failed without a success for too long, each with its event. */
export async function disableFailingEndpoints(db: Db, disableAfterMs: number): Promise<number> {
  const cutoff = new Date(Date.now() - disableAfterMs);
  const candidates = await db
    .select({ organizationId: webhookEndpoints.organizationId, id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.enabled, true), lt(webhookEndpoints.failingSince, cutoff)));
  let disabled = 0;
  for (const c of candidates) {
    const done = await inTransaction(db, async (tx) => {
      const [row] = await tx
        .update(webhookEndpoints)
        .set({
          enabled: false,
          disabledReason: 'Deliveries failed without a success for 5 days',
          updatedAt: new Date(),
        })
        .where(
          and(
            eq(webhookEndpoints.organizationId, c.organizationId),
            eq(webhookEndpoints.id, c.id),
            eq(webhookEndpoints.enabled, true),
            lt(webhookEndpoints.failingSince, cutoff),
          ),
        )
        .returning();
      if (!row) return false;
      await recordEvent(tx, {
        organizationId: row.organizationId,
        type: 'WebhookEndpointDisabled',
        actorId: null,
        resourceType: 'WebhookEndpoint',
        resourceId: row.id,
        data: endpointSummary(row),
      });
      return true;
    });
    if (done) disabled++;
  }
  return disabled;
}

/** An endpoint as events carry it (never its secret). */
export function endpointSummary(row: typeof webhookEndpoints.$inferSelect) {
  return {
    id: row.id,
    organizationId: row.organizationId,
    url: row.url,
    description: row.description,
    eventTypes: row.eventTypes,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    failingSince: row.failingSince?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
