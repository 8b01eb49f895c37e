/**
 * The webhook dispatcher: runs inside every service process (no process of its own) and repeats one
 * cycle while there is work; otherwise it waits for a nudge — a write of this process that recorded
 * events has just committed, or a delivery was retried by hand — or for `pollMs` (events written by
 * other processes, retries falling due). A cycle is ONE statement (statements.ts) and the sends:
 *
 * 1. record — the attempts that finished since the previous cycle (only while the lease is still the
 *    one they were sent under): a delivery row is updated (success, or the next attempt after an
 *    exponential, jittered delay, or Failed after the retry window); a fan-out batch whose every
 *    delivery has finished is recorded by inserting its delivery rows with their first attempt, in
 *    the statement that deletes the batch (one write per delivery); the endpoint's `failing_since`
 *    follows;
 * 2. fan-out — events past the shared fan-out position become one delivery per subscribed, enabled
 *    endpoint. Only events of transactions older than every transaction still running are taken, so
 *    an event that commits late cannot fall behind the position; one process at a time advances it
 *    (its row is claimed with FOR UPDATE SKIP LOCKED). The events taken form a batch, leased to this
 *    process per endpoint as `webhook_fanout_batches` rows: its deliveries are sent before any row of
 *    theirs is written, and an endpoint's are recorded once all of them have finished (a slow
 *    endpoint holds back no other's). A batch whose lease lapsed (its process died) is leased and
 *    fanned out again here;
 * 3. claim — due delivery rows (retries, by time or by hand; leases that lapsed) are leased
 *    (`lease_until`) with FOR UPDATE SKIP LOCKED, so several processes share the work without sending
 *    one delivery twice; a delivery leased by a process that died is claimed again once its lease has
 *    expired;
 * 4. send — outside any transaction and while the next cycles go on: the claimed deliveries join
 *    their endpoint's lane (lanes.ts), which POSTs them signed per the Standard Webhooks
 *    specification, in event order with a few in flight at once. A finished attempt nudges the loop,
 *    and step 1 of a next cycle records it (or a last statement when the dispatcher stops, which also
 *    gives up the leases of deliveries not yet sent: a batch's are written Pending, due now). A cycle
 *    claims and fans out no more than the lanes have room for, so a claimed delivery is sent well
 *    within its lease.
 *
 * Steps 1–3 commit together before anything they claimed is sent, so a crash at any point loses
 * nothing: a delivery sent but not recorded is sent again when its lease — or its batch's — lapses
 * (at least once).
 *
 * Endpoints failing without a success for five days are disabled, with a `WebhookEndpointDisabled`
 * event, by a check every few seconds (endpoint-health.ts).
 */
import { type Db, run } from '../../db/client.ts';
import {
  DEFAULT_RETRY_POLICY,
  DISABLE_AFTER_MS,
  nextAttemptAfterFailure,
  type OutboundPolicy,
  type RetryPolicy,
} from '../../domain/webhooks.ts';
import { onEventsCommitted } from '../events/record.ts';
import { disableFailingEndpoints } from './endpoint-health.ts';
import { type ClaimedDelivery, type FanoutBatch, Lanes, type Outcome } from './lanes.ts';
import { Outbound } from './outbound.ts';
import { COMPLETE, CYCLE, RELEASE } from './statements.ts';

export type { ClaimedDelivery } from './lanes.ts';
export { endpointSummary } from './endpoint-health.ts';

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

/** First wait before looking again at events the fan-out could not take yet (doubling up to pollMs). */
const HELD_BACK_RETRY_MS = 20;

export class Dispatcher {
  readonly outbound: Outbound;
  private readonly retry: RetryPolicy;
  private readonly pollMs: number;
  private readonly batchSize: number;
  private readonly leaseMs: number;
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
  /** The sends: a lane per endpoint. */
  private readonly lanes: Lanes;
  /** Fan-out batches whose every delivery has finished, not yet recorded. */
  private readyBatches: FanoutBatch[] = [];

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
    // a finished attempt nudges the loop: the next cycle records it (with what else finished by then)
    this.lanes = new Lanes(this.outbound, options.perEndpointConcurrency ?? 8, () => {
      if (this.running) this.nudge();
    });
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
      const outcomes = this.takeFinished();
      const batches = this.readyBatches.splice(0);
      try {
        const step = await this.step(outcomes, Math.max(0, this.batchSize - this.lanes.unfinished), batches);
        failures = 0;
        more = step.more;
        full = step.events >= this.batchSize;
        const worked =
          step.events > 0 || outcomes.length > 0 || batches.length > 0 || step.claimed.length > 0;
        spacing = worked ? Math.min(this.maxSpacingMs, Math.round(spacing * 1.5)) : this.spacingMs;
        heldBack = step.heldBack;
        if (!heldBack || step.claimed.length > 0) heldBackStreak = 0;
        this.lanes.enqueue(step.claimed);
        if (Date.now() - this.lastHealthCheck > 5_000) {
          this.lastHealthCheck = Date.now();
          await disableFailingEndpoints(this.db, this.disableAfterMs);
        }
      } catch (err) {
        // e.g. the database is unreachable: reported once per wait, waits growing up to 10 s (the
        // attempts not recorded are recorded by a later cycle, while their leases last)
        full = false;
        this.lanes.finished.unshift(...outcomes);
        this.readyBatches.unshift(...batches);
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

  /**
   * The attempts that finished, of delivery rows; those of fan-out batches go to their batch, and a
   * batch with none left unfinished to `readyBatches`.
   */
  private takeFinished(): Outcome[] {
    const outcomes: Outcome[] = [];
    for (const outcome of this.lanes.finished.splice(0)) {
      const batch = outcome.delivery.batch;
      if (!batch) {
        outcomes.push(outcome);
        continue;
      }
      batch.outcomes.push(outcome);
      if (--batch.remaining === 0) this.readyBatches.push(batch);
    }
    return outcomes;
  }

  /**
   * On stop: lets the sends in flight finish, records them, gives up the leases of the others (a
   * delivery of a fan-out batch never sent is written Pending, due now).
   */
  private async drain(): Promise<void> {
    const unsent: ClaimedDelivery[] = [];
    for (const d of this.lanes.takeUnsent()) {
      if (!d.batch) {
        unsent.push(d);
        continue;
      }
      d.batch.unsent.push(d);
      if (--d.batch.remaining === 0) this.readyBatches.push(d.batch);
    }
    await this.lanes.idle();
    try {
      const outcomes = this.takeFinished();
      await this.complete(outcomes, this.readyBatches.splice(0));
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
   * One statement: records `outcomes` and the finished `batches`, fans new events out (unless the
   * lanes are full) and claims up to `claimLimit` due deliveries. `more` when the fan-out or the
   * claim was full (more work is waiting); `heldBack` when events wait for the fan-out (see CYCLE);
   * `events`: how many events it fanned out.
   */
  async step(
    outcomes: Outcome[],
    claimLimit: number,
    batches: FanoutBatch[] = [],
  ): Promise<{ claimed: ClaimedDelivery[]; more: boolean; heldBack: boolean; events: number }> {
    const rows = await run<Record<string, unknown>>(this.db, CYCLE, [
      claimLimit > 0 ? this.batchSize : 0,
      this.leaseMs,
      JSON.stringify(this.attemptRows(outcomes)),
      claimLimit,
      JSON.stringify(this.batchRows(batches)),
    ]);
    const claimed: ClaimedDelivery[] = [];
    const fanned = new Map<string, FanoutBatch>();
    let events = 0;
    let heldBack = false;
    for (const r of rows) {
      if (r.kind === 'summary') {
        events = Number(r.events);
        heldBack = r.held_back === true;
        continue;
      }
      const delivery: ClaimedDelivery = {
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
      };
      const batchId = r.batch_id as string | null;
      if (batchId !== null) {
        let batch = fanned.get(batchId);
        if (!batch) {
          batch = { id: batchId, leaseUntil: delivery.leaseUntil, remaining: 0, outcomes: [], unsent: [] };
          fanned.set(batchId, batch);
        }
        batch.remaining++;
        delivery.batch = batch;
        delivery.eventTx = String(r.event_tx);
        delivery.eventType = r.event_type as string;
      }
      claimed.push(delivery);
    }
    const more = events >= this.batchSize || (claimLimit > 0 && claimed.length >= claimLimit);
    return { claimed, more, heldBack, events };
  }

  /** One attempt of `delivery`, outside the lanes (the test ping). */
  sendOne(delivery: ClaimedDelivery): Promise<Outcome> {
    return this.lanes.sendOne(delivery);
  }

  /**
   * Records the attempts of claimed deliveries and the deliveries of finished fan-out batches (only
   * those whose lease is still this claim's).
   */
  async complete(outcomes: Outcome[], batches: FanoutBatch[] = []): Promise<void> {
    if (outcomes.length === 0 && batches.length === 0) return;
    await run(this.db, COMPLETE, [
      JSON.stringify(this.attemptRows(outcomes)),
      JSON.stringify(this.batchRows(batches)),
    ]);
  }

  /** An attempt's outcome, as the statements record it. */
  private attempt({ delivery: d, result, attemptedAt }: Outcome, now: Date) {
    return {
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
    };
  }

  private attemptRows(outcomes: Outcome[]) {
    const now = new Date();
    return outcomes.map((o) => this.attempt(o, now));
  }

  /** The deliveries of finished batches: each with its first attempt, or none (never sent). */
  private batchRows(batches: FanoutBatch[]) {
    const now = new Date();
    const rows: Record<string, unknown>[] = [];
    for (const batch of batches) {
      const lease = batch.leaseUntil.toISOString();
      const of = (d: ClaimedDelivery) => ({
        batch_id: batch.id,
        endpoint_id: d.endpointId,
        event_id: d.eventId,
        event_tx: d.eventTx,
        event_type: d.eventType,
      });
      for (const o of batch.outcomes)
        rows.push({ ...this.attempt(o, now), ...of(o.delivery), lease_until: lease });
      for (const d of batch.unsent) {
        rows.push({ ...of(d), organization_id: d.organizationId, id: d.id, lease_until: lease });
      }
    }
    return rows;
  }

  /** Disables endpoints that have failed without a success for too long, each with its event. */
  disableFailingEndpoints(): Promise<number> {
    return disableFailingEndpoints(this.db, this.disableAfterMs);
  }
}
