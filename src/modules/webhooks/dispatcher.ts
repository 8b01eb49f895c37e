/**
 * The webhook dispatcher: runs inside every service process (no process of its own) and repeats one
 * cycle while there is work; otherwise it waits for a nudge — a write of this process that recorded
 * events has just committed, or a delivery was retried by hand — or for `pollMs` (events written by
 * other processes, retries falling due). A cycle is ONE statement and the sends:
 *
 * 1. record — the attempts of the previous cycle's sends (only while the lease is still the one they
 *    were sent under): success, or the next attempt after an exponential, jittered delay, or Failed
 *    after the retry window; the endpoint's `failing_since` follows;
 * 2. fan-out — events past the shared fan-out position become one delivery per subscribed, enabled
 *    endpoint. Only events of transactions older than every transaction still running are taken, so
 *    an event that commits late cannot fall behind the position; one process at a time advances it
 *    (its row is claimed with FOR UPDATE SKIP LOCKED). The new deliveries are inserted already leased
 *    to this process: the insert is their claim;
 * 3. claim — other due deliveries (retries, those fanned out by another process, leases that lapsed)
 *    are leased (`lease_until`) with FOR UPDATE SKIP LOCKED, so several processes share the work
 *    without sending one delivery twice; a delivery leased by a process that died is claimed again
 *    once its lease has expired;
 * 4. send — outside any transaction and while the next cycles go on: the claimed deliveries join
 *    their endpoint's lane, which POSTs them signed per the Standard Webhooks specification, in event
 *    order with a few in flight at once. A finished attempt nudges the loop, and step 1 of the next
 *    cycle records it (or a last statement when the dispatcher stops, which also gives up the leases
 *    of deliveries not yet sent). A cycle claims no more than the lanes have room for, so a claimed
 *    delivery is sent well within its lease.
 *
 * Steps 1–3 commit together before anything they claimed is sent, so a crash at any point loses
 * nothing: a delivery sent but not recorded is sent again when its lease lapses (at least once).
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
import { onEventsCommitted, recordEvent } from '../events/record.ts';
import { Outbound, type SendResult } from './outbound.ts';

export interface DispatcherOptions {
  outbound: OutboundPolicy;
  retry?: RetryPolicy;
  /** Wait between cycles when there was nothing to do. */
  pollMs?: number;
  /**
   * Least time between the starts of two cycles (default 50 ms): a nudge right after a cycle waits
   * for the rest of it, so that under load one cycle takes the events of that interval together.
   */
  cycleSpacingMs?: number;
  /**
   * While the cycles keep finding work, the spacing grows by half per cycle up to this (default: the
   * same as `cycleSpacingMs`, no growth), so that a steady load is carried by fewer, larger cycles;
   * a cycle that finds nothing brings it back to `cycleSpacingMs`, and a full one is followed at once.
   */
  maxCycleSpacingMs?: number;
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

/** The wire form of an event (GET /events and webhook bodies), as JSON text. */
export const EVENT_JSON = (e: string) => `json_build_object('id', ${e}.id, 'type', ${e}.type,
    'timestamp', ${e}.occurred_at, 'organizationId', ${e}.organization_id, 'occurredAt', ${e}.occurred_at,
    'actorId', ${e}.actor_id, 'resourceType', ${e}.resource_type, 'resourceId', ${e}.resource_id,
    'data', ${e}.data)`;

/** Records attempts `r` (only while the lease is still the one they were sent under). */
const COMPLETED_ATTEMPTS = `update webhook_deliveries d set
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
     returning d.organization_id, d.endpoint_id, r.ok, r.attempted_at`;

/** The endpoints' `failing_since` after the attempts grouped in `h`. */
const FAILING_SINCE = `update webhook_endpoints w
     set failing_since = case when h.any_ok then null else coalesce(w.failing_since, h.first_at) end
     from h where w.organization_id = h.organization_id and w.id = h.endpoint_id
       and w.failing_since is distinct from
         (case when h.any_ok then null else coalesce(w.failing_since, h.first_at) end)
     returning 1`;

/** Gives up the leases of claimed deliveries that were not sent (the dispatcher stops). */
const RELEASE = statement(
  'webhook_release',
  `update webhook_deliveries d set lease_until = null
   from jsonb_to_recordset($1::jsonb) as r(organization_id uuid, id uuid, lease_until timestamptz)
   where d.organization_id = r.organization_id and d.id = r.id and d.lease_until = r.lease_until`,
);

const COMPLETE = statement(
  'webhook_complete',
  `with r as (
     select * from jsonb_to_recordset($1::jsonb) as r(organization_id uuid, id uuid, lease_until timestamptz,
       ok boolean, response_status int, duration_ms int, error text, attempted_at timestamptz,
       next_attempt_at timestamptz)),
   d as (${COMPLETED_ATTEMPTS}),
   h as (
     select organization_id, endpoint_id, bool_or(ok) as any_ok, min(attempted_at) as first_at
     from d group by organization_id, endpoint_id),
   w as (${FAILING_SINCE})
   select (select count(*) from d)::int as recorded`,
);

/**
 * One dispatcher cycle in one statement (one round trip, and on PGlite one turn of its single
 * connection):
 *
 * - `r`, `done`, `h`, `fail`: record the attempts of the previous cycle (as `COMPLETE` below);
 * - `cur` … `adv`: fan-out of up to $1 events past the shared position, as described above; the new
 *   deliveries are inserted already leased to this process (they are claimed by their insert), unless
 *   the claim of older due deliveries was full, so that an endpoint's backlog keeps its order;
 * - `due`, `claimed`: up to $4 due deliveries written before this statement (retries, deliveries
 *   fanned out by another process, leases that lapsed), leased for $2 ms with FOR UPDATE SKIP LOCKED —
 *   never one whose attempt this statement is recording ($3).
 *
 * The position and the horizon enter the event reads as scalar subqueries, so that they are index
 * conditions of the (tx, id) index: the plan PostgreSQL keeps for this prepared statement then reads
 * only the events past the position, where a join with `cur` walked the index from its first entry in
 * every cycle (the cost of a cycle grew with the whole event log).
 *
 * Rows: one per delivery to send now (`kind` 'send', with the body), then one summary row (`kind`
 * 'summary': events fanned out, attempts recorded, and `held_back` when the fan-out could not take
 * every event there is — another process holds the position, or an event's transaction is younger
 * than one still running — so that the dispatcher looks again shortly).
 */
const CYCLE = statement(
  'webhook_cycle',
  `with r as (
     select * from jsonb_to_recordset($3::jsonb) as r(organization_id uuid, id uuid, lease_until timestamptz,
       ok boolean, response_status int, duration_ms int, error text, attempted_at timestamptz,
       next_attempt_at timestamptz)),
   done as (${COMPLETED_ATTEMPTS}),
   h as (
     select organization_id, endpoint_id, bool_or(ok) as any_ok, min(attempted_at) as first_at
     from done group by organization_id, endpoint_id),
   fail as (${FAILING_SINCE}),
   cur as (select tx, event_id from webhook_fanout where id = 1 for update skip locked),
   horizon as (select pg_snapshot_xmin(pg_current_snapshot())::text::bigint as xmin),
   batch as (
     select e.* from events e
     where (e.tx, e.id) > ((select tx from cur), (select event_id from cur))
       and e.tx < (select xmin from horizon)
     order by e.tx, e.id limit $1),
   due as (
     select d.organization_id, d.id from webhook_deliveries d
     join webhook_endpoints w on w.organization_id = d.organization_id and w.id = d.endpoint_id and w.enabled
     where d.status = 'Pending' and d.next_attempt_at <= now()
       and (d.lease_until is null or d.lease_until < now())
       and not exists (select 1 from r where r.organization_id = d.organization_id and r.id = d.id)
     order by d.next_attempt_at, d.event_tx, d.event_id
     limit $4
     for update of d skip locked),
   claimed as (
     update webhook_deliveries d set lease_until = now() + $2::int * interval '1 millisecond'
     from due where d.organization_id = due.organization_id and d.id = due.id
     returning d.organization_id, d.id, d.endpoint_id, d.event_id, d.event_tx, d.payload, d.attempt_count,
       d.created_at, d.lease_until),
   ins as (
     insert into webhook_deliveries (id, organization_id, endpoint_id, event_id, event_tx, event_type,
       status, next_attempt_at, lease_until, created_at, updated_at)
     select gen_random_uuid(), b.organization_id, w.id, b.id, b.tx, b.type, 'Pending', now(),
       case when (select count(*) from due) < $4 then now() + $2::int * interval '1 millisecond' end,
       now(), now()
     from batch b join webhook_endpoints w on w.organization_id = b.organization_id and w.enabled
       and (cardinality(w.event_types) = 0 or b.type = any(w.event_types)) and w.created_at <= b.occurred_at
     returning organization_id, id, endpoint_id, event_id, event_tx, attempt_count, created_at, lease_until),
   last as (select tx, id from batch order by tx desc, id desc limit 1),
   adv as (update webhook_fanout f set tx = last.tx, event_id = last.id from last where f.id = 1 returning 1),
   send as (
     select c.organization_id, c.id, c.endpoint_id, c.event_id, c.event_tx, c.attempt_count, c.created_at,
       c.lease_until, coalesce(c.payload::text, ${EVENT_JSON('e')}::text) as body
     from claimed c
     left join events e on e.organization_id = c.organization_id and e.id = c.event_id
     union all
     select i.organization_id, i.id, i.endpoint_id, i.event_id, i.event_tx, i.attempt_count, i.created_at,
       i.lease_until, ${EVENT_JSON('b')}::text
     from ins i join batch b on b.id = i.event_id
     where i.lease_until is not null)
   select 'send' as kind, s.organization_id, s.id, s.endpoint_id, s.event_tx, s.event_id, s.attempt_count,
     s.created_at, s.lease_until, w.url, w.secret, s.body, null::int as events, null::int as recorded,
     null::boolean as held_back
   from send s join webhook_endpoints w on w.organization_id = s.organization_id and w.id = s.endpoint_id
   union all
   select 'summary', null, null, null, null, null, null, null, null, null, null, null,
     (select count(*) from batch)::int, (select count(*) from done)::int,
     not exists (select 1 from cur)
       or (select e.tx from events e
           where (e.tx, e.id) > ((select tx from cur), (select event_id from cur))
             and e.tx >= (select xmin from horizon)
           order by e.tx, e.id limit 1) is not null
   order by kind, endpoint_id, event_tx, event_id`,
);

/** First wait before looking again at events the fan-out could not take yet (doubling up to pollMs). */
const HELD_BACK_RETRY_MS = 20;

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
  /** A nudge came while a cycle was running: run another one at once instead of waiting. */
  private nudged = false;
  private unsubscribe: (() => void) | null = null;
  private endPause: (() => void) | null = null;
  private readonly spacingMs: number;
  private readonly maxSpacingMs: number;
  private lastHealthCheck = 0;
  /** Claimed deliveries per endpoint: those waiting to be sent, and how many are in flight. */
  private readonly lanes = new Map<string, { queue: ClaimedDelivery[]; inFlight: number }>();
  /** Claimed deliveries whose attempt has not finished (queued or in flight). */
  private unfinished = 0;
  /** Attempts that finished, not yet recorded. */
  private finished: Outcome[] = [];
  private onDrained: (() => void) | null = null;
  private readonly signers = new Map<string, Webhook>();

  constructor(
    private readonly db: Db,
    options: DispatcherOptions,
  ) {
    this.outbound = new Outbound(options.outbound, options.timeoutMs ?? 10_000);
    this.retry = options.retry ?? DEFAULT_RETRY_POLICY;
    this.pollMs = options.pollMs ?? 200;
    this.spacingMs = options.cycleSpacingMs ?? 50;
    this.maxSpacingMs = Math.max(this.spacingMs, options.maxCycleSpacingMs ?? this.spacingMs);
    this.batchSize = options.batchSize ?? 500;
    this.leaseMs = options.leaseMs ?? Math.max(60_000, (options.timeoutMs ?? 10_000) * 3);
    this.perEndpoint = options.perEndpointConcurrency ?? 8;
    this.disableAfterMs = options.disableAfterMs ?? DISABLE_AFTER_MS;
    this.onError = options.onError ?? (() => {});
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    // A write of this process that committed events starts a cycle at once: no polling wait.
    this.unsubscribe = onEventsCommitted(this.db, () => this.nudge());
    this.loop = this.runLoop();
  }

  /** Stops after the cycle in progress; the sends in flight finish and are recorded (see drain). */
  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.endPause?.();
    this.nudge();
    await this.loop;
    this.loop = null;
    this.outbound.close();
  }

  /** Waits `ms` (a nudge does not shorten it; stopping does). */
  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.endPause = null;
        resolve();
      }, ms);
      this.endPause = () => {
        clearTimeout(timer);
        this.endPause = null;
        resolve();
      };
    });
  }

  /** Starts the next cycle now instead of after the poll interval. */
  nudge(): void {
    this.nudged = true;
    const wake = this.wake;
    this.wake = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    wake?.();
  }

  /**
   * Cycles while there is work, then waits for a nudge (a commit of events in this process, a retry
   * by hand, a send that finished) or the poll interval (events of other processes, retries falling
   * due). Claimed deliveries go to their endpoint's lane and are sent while the cycles go on; the
   * attempts that finished are recorded by the next cycle's statement, together with its fan-out
   * and claim. When the loop stops, the sends in flight finish and are recorded, and the leases of
   * deliveries not yet sent are given up.
   */
  private async runLoop(): Promise<void> {
    let failures = 0;
    let heldBackStreak = 0; // looks again soon, then less often (a long transaction holds events back)
    let lastStart = 0;
    let spacing = this.spacingMs;
    let full = false;
    while (this.running) {
      // Under a steady load, cycles are spaced so that each carries the events of that interval:
      // fewer statements and less per-cycle work, at the cost of at most the spacing in lag. A
      // statement costs the database about as much as a few dozen deliveries it carries, so while
      // every cycle finds work the spacing grows (up to maxCycleSpacingMs); a cycle whose fan-out
      // was full is followed at once.
      const gap = full ? 0 : lastStart + spacing - Date.now();
      if (gap > 0) await this.pause(gap);
      if (!this.running) break;
      lastStart = Date.now();
      this.nudged = false;
      let more = false;
      let heldBack = false;
      const outcomes = this.finished.splice(0);
      try {
        const step = await this.step(outcomes, Math.max(0, this.batchSize - this.unfinished));
        failures = 0;
        more = step.more;
        full = step.events >= this.batchSize;
        const worked = step.events > 0 || outcomes.length > 0 || step.claimed.length > 0;
        spacing = worked ? Math.min(this.maxSpacingMs, Math.round(spacing * 1.5)) : this.spacingMs;
        heldBack = step.heldBack;
        if (!heldBack || step.claimed.length > 0) heldBackStreak = 0;
        this.enqueue(step.claimed);
        if (Date.now() - this.lastHealthCheck > 5_000) {
          this.lastHealthCheck = Date.now();
          await this.disableFailingEndpoints();
        }
      } catch (err) {
        // e.g. the database is unreachable: reported once per wait, waits growing up to 10 s (the
        // attempts not recorded are recorded by a later cycle, while their leases last)
        full = false;
        this.finished.unshift(...outcomes);
        failures++;
        this.onError(err);
      }
      if (!this.running) break;
      if (failures === 0 && (more || this.nudged)) continue;
      const wait =
        failures > 0
          ? Math.min(this.pollMs * 2 ** failures, 10_000)
          : heldBack
            ? Math.min(this.pollMs, HELD_BACK_RETRY_MS * 2 ** Math.min(heldBackStreak++, 8))
            : this.pollMs;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.timer = setTimeout(() => this.nudge(), wait);
      });
    }
    await this.drain();
  }

  /** On stop: lets the sends in flight finish, records them, gives up the leases of the others. */
  private async drain(): Promise<void> {
    const unsent: ClaimedDelivery[] = [];
    for (const lane of this.lanes.values()) unsent.push(...lane.queue.splice(0));
    this.unfinished -= unsent.length;
    if (this.unfinished > 0) await new Promise<void>((resolve) => (this.onDrained = resolve));
    try {
      await this.complete(this.finished.splice(0));
      if (unsent.length > 0) {
        await run(this.db, RELEASE, [
          JSON.stringify(
            unsent.map((d) => ({
              organization_id: d.organizationId,
              id: d.id,
              lease_until: d.leaseUntil.toISOString(),
            })),
          ),
        ]);
      }
    } catch (err) {
      this.onError(err); // the leases lapse and the deliveries are sent again
    }
  }

  /**
   * One statement: records `outcomes`, fans new events out and claims up to `claimLimit` due
   * deliveries. `more` when the fan-out or the claim was full (more work is waiting); `heldBack` when
   * events wait for the fan-out (see CYCLE); `events`: how many events it fanned out.
   */
  async step(
    outcomes: Outcome[],
    claimLimit: number,
  ): Promise<{ claimed: ClaimedDelivery[]; more: boolean; heldBack: boolean; events: number }> {
    const rows = await run<Record<string, unknown>>(this.db, CYCLE, [
      this.batchSize,
      this.leaseMs,
      JSON.stringify(this.attemptRows(outcomes)),
      claimLimit,
    ]);
    const claimed: ClaimedDelivery[] = [];
    let events = 0;
    let heldBack = false;
    for (const r of rows) {
      if (r.kind === 'summary') {
        events = Number(r.events);
        heldBack = r.held_back === true;
        continue;
      }
      claimed.push({
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
      });
    }
    const more = events >= this.batchSize || (claimLimit > 0 && claimed.length >= claimLimit);
    return { claimed, more, heldBack, events };
  }

  /**
   * Queues claimed deliveries (in the order claimed: event order per endpoint) on their endpoint's
   * lane; each lane sends its queue in order with a few in flight at once.
   */
  private enqueue(claimed: ClaimedDelivery[]): void {
    const touched = new Set<string>();
    for (const d of claimed) {
      let lane = this.lanes.get(d.endpointId);
      if (!lane) {
        lane = { queue: [], inFlight: 0 };
        this.lanes.set(d.endpointId, lane);
      }
      lane.queue.push(d);
      this.unfinished++;
      touched.add(d.endpointId);
    }
    for (const endpointId of touched) this.pump(endpointId);
  }

  private pump(endpointId: string): void {
    const lane = this.lanes.get(endpointId);
    if (!lane) return;
    while (lane.inFlight < this.perEndpoint && lane.queue.length > 0) {
      const delivery = lane.queue.shift()!;
      lane.inFlight++;
      void this.sendOne(delivery)
        .catch((err: unknown): Outcome => ({
          delivery,
          attemptedAt: new Date(),
          result: { status: null, ok: false, durationMs: 0, error: String(err) },
        }))
        .then((outcome) => {
          lane.inFlight--;
          this.unfinished--;
          this.finished.push(outcome);
          if (lane.queue.length === 0 && lane.inFlight === 0) this.lanes.delete(endpointId);
          else this.pump(endpointId);
          if (this.unfinished === 0 && this.onDrained) this.onDrained();
          else if (this.running) this.nudge(); // record it (with what else finished by then)
        });
    }
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
    await run(this.db, COMPLETE, [JSON.stringify(this.attemptRows(outcomes))]);
  }

  private attemptRows(outcomes: Outcome[]) {
    const now = new Date();
    return outcomes.map(({ delivery: d, result, attemptedAt }) => ({
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
