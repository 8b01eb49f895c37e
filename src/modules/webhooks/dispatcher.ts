/**
 * The webhook dispatcher: runs inside every service process (no process of its own) and repeats one
 * cycle while there is work, otherwise waits `pollMs`:
 *
 * 1. fan-out — events past the shared fan-out position become one delivery per subscribed, enabled
 *    endpoint. Only events of transactions older than every transaction still running are taken, so
 *    an event that commits late cannot fall behind the position; one process at a time advances it
 *    (its row is claimed with FOR UPDATE SKIP LOCKED);
 * 2. claim — due deliveries are leased (`lease_until`) with FOR UPDATE SKIP LOCKED, so several
 *    processes share the work without sending one delivery twice; a delivery leased by a process that
 *    died is claimed again once its lease has expired;
 * 3. send — POSTs signed per the Standard Webhooks specification, in event order per endpoint with a
 *    few in flight at once;
 * 4. complete — one statement records every attempt (only while the lease is still the one taken in
 *    2): success, or the next attempt after an exponential, jittered delay, or Failed after the retry
 *    window; the endpoint's `failing_since` follows.
 *
 * Endpoints failing without a success for five days are disabled, with a `WebhookEndpointDisabled`
 * event, by a check every few seconds.
 */
import { and, eq, lt } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { type Db, inTransaction, run, statement } from '../../db/client.ts';
import { webhookEndpoints } from '../../db/schema/index.ts';
import {
  DEFAULT_RETRY_POLICY,
  DISABLE_AFTER_MS,
  nextAttemptAfterFailure,
  type OutboundPolicy,
  type RetryPolicy,
} from '../../domain/webhooks.ts';
import { recordEvent } from '../events/record.ts';
import { Outbound, type SendResult } from './outbound.ts';

export interface DispatcherOptions {
  outbound: OutboundPolicy;
  retry?: RetryPolicy;
  /** Wait between cycles when there was nothing to do. */
  pollMs?: number;
  /** Deliveries claimed per cycle. */
  batchSize?: number;
  /** How long a claim holds a delivery (longer than a send's timeout). */
  leaseMs?: number;
  /** Timeout of one POST. */
  timeoutMs?: number;
  /** Deliveries of one endpoint in flight at once. */
  perEndpointConcurrency?: number;
  disableAfterMs?: number;
  /** Where failures of the dispatcher itself are reported. */
  onError?: (err: unknown) => void;
}

const FANOUT = statement(
  'webhook_fanout',
  `with cur as (select tx, event_id from webhook_fanout where id = 1 for update skip locked),
   horizon as (select pg_snapshot_xmin(pg_current_snapshot())::text::bigint as xmin),
   batch as (
     select e.organization_id, e.id, e.tx, e.type, e.occurred_at from events e, cur, horizon
     where (e.tx, e.id) > (cur.tx, cur.event_id) and e.tx < horizon.xmin
     order by e.tx, e.id limit $1),
   ins as (
     insert into webhook_deliveries (id, organization_id, endpoint_id, event_id, event_tx, event_type,
       status, next_attempt_at, created_at, updated_at)
     select gen_random_uuid(), b.organization_id, w.id, b.id, b.tx, b.type, 'Pending', now(), now(), now()
     from batch b join webhook_endpoints w on w.organization_id = b.organization_id and w.enabled
       and (cardinality(w.event_types) = 0 or b.type = any(w.event_types)) and w.created_at <= b.occurred_at
     returning 1),
   last as (select tx, id from batch order by tx desc, id desc limit 1),
   adv as (update webhook_fanout f set tx = last.tx, event_id = last.id from last where f.id = 1 returning 1)
   select (select count(*) from batch)::int as events, (select count(*) from ins)::int as deliveries,
     (select count(*) from adv)::int as advanced`,
);

/** The wire form of an event (GET /events and webhook bodies), as JSON text. */
export const EVENT_JSON = (e: string) => `json_build_object('id', ${e}.id, 'type', ${e}.type,
    'timestamp', ${e}.occurred_at, 'organizationId', ${e}.organization_id, 'occurredAt', ${e}.occurred_at,
    'actorId', ${e}.actor_id, 'resourceType', ${e}.resource_type, 'resourceId', ${e}.resource_id,
    'data', ${e}.data)`;

const CLAIM = statement(
  'webhook_claim',
  `with due as (
     select d.organization_id, d.id from webhook_deliveries d
     join webhook_endpoints w on w.organization_id = d.organization_id and w.id = d.endpoint_id and w.enabled
     where d.status = 'Pending' and d.next_attempt_at <= now()
       and (d.lease_until is null or d.lease_until < now())
     order by d.next_attempt_at, d.event_tx, d.event_id
     limit $1
     for update of d skip locked),
   claimed as (
     update webhook_deliveries d set lease_until = now() + $2::int * interval '1 millisecond'
     from due where d.organization_id = due.organization_id and d.id = due.id
     returning d.organization_id, d.id, d.endpoint_id, d.event_id, d.event_tx, d.payload, d.attempt_count,
       d.created_at, d.lease_until)
   select c.organization_id, c.id, c.endpoint_id, c.event_id, c.attempt_count, c.created_at, c.lease_until,
     w.url, w.secret, coalesce(c.payload::text, ${EVENT_JSON('e')}::text) as body
   from claimed c
   join webhook_endpoints w on w.organization_id = c.organization_id and w.id = c.endpoint_id
   left join events e on e.organization_id = c.organization_id and e.id = c.event_id
   order by c.endpoint_id, c.event_tx, c.event_id`,
);

const COMPLETE = statement(
  'webhook_complete',
  `with r as (
     select * from jsonb_to_recordset($1::jsonb) as r(organization_id uuid, id uuid, lease_until timestamptz,
       ok boolean, response_status int, duration_ms int, error text, attempted_at timestamptz,
       next_attempt_at timestamptz)),
   d as (
     update webhook_deliveries d set
       status = case when r.ok then 'Succeeded' when r.next_attempt_at is null then 'Failed' else 'Pending' end,
       attempt_count = d.attempt_count + 1,
       next_attempt_at = case when r.ok then null else r.next_attempt_at end,
       lease_until = null,
       last_attempt_at = r.attempted_at,
       response_status = r.response_status,
       duration_ms = r.duration_ms,
       last_error = r.error,
       delivered_at = case when r.ok then r.attempted_at end,
       attempts = d.attempts || jsonb_build_array(jsonb_build_object('attemptedAt', r.attempted_at,
         'responseStatus', r.response_status, 'durationMs', r.duration_ms, 'error', r.error)),
       updated_at = r.attempted_at
     from r where d.organization_id = r.organization_id and d.id = r.id and d.lease_until = r.lease_until
     returning d.organization_id, d.endpoint_id, r.ok, r.attempted_at),
   h as (
     select organization_id, endpoint_id, bool_or(ok) as any_ok, min(attempted_at) as first_at
     from d group by organization_id, endpoint_id),
   w as (
     update webhook_endpoints w
     set failing_since = case when h.any_ok then null else coalesce(w.failing_since, h.first_at) end
     from h where w.organization_id = h.organization_id and w.id = h.endpoint_id
       and w.failing_since is distinct from
         (case when h.any_ok then null else coalesce(w.failing_since, h.first_at) end)
     returning 1)
   select (select count(*) from d)::int as recorded`,
);

/** A claimed delivery, ready to send. */
export interface ClaimedDelivery {
  organizationId: string;
  id: string;
  endpointId: string;
  eventId: string | null;
  attemptCount: number;
  createdAt: Date;
  leaseUntil: Date;
  url: string;
  secret: string;
  body: string;
}

interface Outcome {
  delivery: ClaimedDelivery;
  result: SendResult;
  attemptedAt: Date;
}

export class Dispatcher {
  readonly outbound: Outbound;
  private readonly retry: RetryPolicy;
  private readonly pollMs: number;
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly perEndpoint: number;
  private readonly disableAfterMs: number;
  private readonly onError: (err: unknown) => void;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private lastHealthCheck = 0;
  private readonly signers = new Map<string, Webhook>();

  constructor(
    private readonly db: Db,
    options: DispatcherOptions,
  ) {
    this.outbound = new Outbound(options.outbound, options.timeoutMs ?? 10_000);
    this.retry = options.retry ?? DEFAULT_RETRY_POLICY;
    this.pollMs = options.pollMs ?? 200;
    this.batchSize = options.batchSize ?? 500;
    this.leaseMs = options.leaseMs ?? Math.max(60_000, (options.timeoutMs ?? 10_000) * 3);
    this.perEndpoint = options.perEndpointConcurrency ?? 8;
    this.disableAfterMs = options.disableAfterMs ?? DISABLE_AFTER_MS;
    this.onError = options.onError ?? (() => {});
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.runLoop();
  }

  /** Stops after the cycle in progress (its attempts are recorded). */
  async stop(): Promise<void> {
    this.running = false;
    this.nudge();
    await this.loop;
    this.loop = null;
    this.outbound.close();
  }

  /** Starts the next cycle now instead of after the poll interval. */
  nudge(): void {
    const wake = this.wake;
    this.wake = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    wake?.();
  }

  private async runLoop(): Promise<void> {
    let failures = 0;
    while (this.running) {
      let busy = false;
      try {
        busy = await this.cycle();
        failures = 0;
      } catch (err) {
        // e.g. the database is unreachable: reported once per wait, waits growing up to 10 s
        failures++;
        this.onError(err);
      }
      if (!this.running) break;
      if (!busy) {
        const wait = failures > 0 ? Math.min(this.pollMs * 2 ** failures, 10_000) : this.pollMs;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          this.timer = setTimeout(() => this.nudge(), wait);
        });
      }
    }
  }

  /** One fan-out, claim, send and complete; true when it found work. */
  async cycle(): Promise<boolean> {
    const [fan] = await run<{ events: number; advanced: number }>(this.db, FANOUT, [this.batchSize]);
    const claimed = await this.claim(this.batchSize);
    if (claimed.length > 0) await this.complete(await this.sendAll(claimed));
    if (Date.now() - this.lastHealthCheck > 5_000) {
      this.lastHealthCheck = Date.now();
      await this.disableFailingEndpoints();
    }
    return (fan?.events ?? 0) > 0 || claimed.length > 0;
  }

  async claim(limit: number): Promise<ClaimedDelivery[]> {
    const rows = await run<Record<string, unknown>>(this.db, CLAIM, [limit, this.leaseMs]);
    return rows.map((r) => ({
      organizationId: r.organization_id as string,
      id: r.id as string,
      endpointId: r.endpoint_id as string,
      eventId: r.event_id as string | null,
      attemptCount: Number(r.attempt_count),
      createdAt: new Date(r.created_at as Date),
      leaseUntil: new Date(r.lease_until as Date),
      url: r.url as string,
      secret: r.secret as string,
      body: r.body as string,
    }));
  }

  /** Sends claimed deliveries: per endpoint in the given order, a few at a time. */
  async sendAll(claimed: ClaimedDelivery[]): Promise<Outcome[]> {
    const byEndpoint = new Map<string, ClaimedDelivery[]>();
    for (const d of claimed) {
      const list = byEndpoint.get(d.endpointId) ?? [];
      list.push(d);
      byEndpoint.set(d.endpointId, list);
    }
    const outcomes: Outcome[] = [];
    await Promise.all(
      [...byEndpoint.values()].map(async (list) => {
        let next = 0;
        const worker = async () => {
          while (next < list.length) {
            const delivery = list[next++]!;
            outcomes.push(await this.sendOne(delivery));
          }
        };
        await Promise.all(Array.from({ length: Math.min(this.perEndpoint, list.length) }, worker));
      }),
    );
    return outcomes;
  }

  async sendOne(delivery: ClaimedDelivery): Promise<Outcome> {
    const attemptedAt = new Date();
    let signer = this.signers.get(delivery.secret);
    if (!signer) {
      signer = new Webhook(delivery.secret);
      this.signers.set(delivery.secret, signer);
    }
    const messageId = delivery.eventId ?? delivery.id;
    const headers = {
      'webhook-id': messageId,
      'webhook-timestamp': String(Math.floor(attemptedAt.getTime() / 1000)),
      'webhook-signature': signer.sign(messageId, attemptedAt, delivery.body),
    };
    const result = await this.outbound.send(delivery.url, headers, delivery.body);
    return { delivery, result, attemptedAt };
  }

  /** Records the attempts of claimed deliveries (only those whose lease is still this claim's). */
  async complete(outcomes: Outcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const now = new Date();
    const rows = outcomes.map(({ delivery: d, result, attemptedAt }) => ({
      organization_id: d.organizationId,
      id: d.id,
      lease_until: d.leaseUntil.toISOString(),
      ok: result.ok,
      response_status: result.status,
      duration_ms: result.durationMs,
      error: result.error?.slice(0, 500) ?? null,
      attempted_at: attemptedAt.toISOString(),
      next_attempt_at: result.ok
        ? null
        : (nextAttemptAfterFailure(
            d.createdAt,
            now,
            d.attemptCount + 1,
            this.retry,
            Math.random(),
          )?.toISOString() ?? null),
    }));
    await run(this.db, COMPLETE, [JSON.stringify(rows)]);
  }

  /** Disables endpoints that have failed without a success for too long, each with its event. */
  async disableFailingEndpoints(): Promise<number> {
    const cutoff = new Date(Date.now() - this.disableAfterMs);
    const candidates = await this.db
      .select({ organizationId: webhookEndpoints.organizationId, id: webhookEndpoints.id })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.enabled, true), lt(webhookEndpoints.failingSince, cutoff)));
    let disabled = 0;
    for (const c of candidates) {
      const done = await inTransaction(this.db, async (tx) => {
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
