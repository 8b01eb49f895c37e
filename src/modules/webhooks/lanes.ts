/**
 * Sending: claimed deliveries wait in a lane per endpoint, which POSTs them signed per the Standard
 * Webhooks specification, in the order claimed (event order per endpoint) with a few in flight at
 * once, outside any transaction. Finished attempts are kept until the dispatcher records them.
 */
import { Webhook } from 'standardwebhooks';
import { Outbound, type SendResult } from './outbound.ts';

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
  /** A first attempt of a fan-out batch (no delivery row yet): its batch, event tx and type. */
  batch?: FanoutBatch;
  eventTx?: string;
  eventType?: string;
}

/**
 * A fan-out batch in flight, for one endpoint: its deliveries are recorded together, once none is
 * left unfinished, by the statement that deletes its row (only while the lease is still `leaseUntil`).
 */
export interface FanoutBatch {
  id: string;
  leaseUntil: Date;
  /** Deliveries not finished yet (queued or in flight). */
  remaining: number;
  outcomes: Outcome[];
  /** Deliveries never sent (the dispatcher stopped first). */
  unsent: ClaimedDelivery[];
}

/** A finished attempt. */
export interface Outcome {
  delivery: ClaimedDelivery;
  result: SendResult;
  attemptedAt: Date;
}

export class Lanes {
  /** Claimed deliveries per endpoint: those waiting to be sent, and how many are in flight. */
  private readonly lanes = new Map<string, { queue: ClaimedDelivery[]; inFlight: number }>();
  /** Claimed deliveries whose attempt has not finished (queued or in flight). */
  unfinished = 0;
  /** Attempts that finished, not yet recorded. */
  finished: Outcome[] = [];
  private onDrained: (() => void) | null = null;
  private readonly signers = new Map<string, Webhook>();

  constructor(
    readonly outbound: Outbound,
    private readonly perEndpoint: number,
    /** Called when an attempt finished (while the lanes are not draining). */
    private readonly onFinished: () => void,
  ) {}

  /**
   * Queues claimed deliveries (in the order claimed: event order per endpoint) on their endpoint's
   * lane; each lane sends its queue in order with a few in flight at once.
   */
  enqueue(claimed: ClaimedDelivery[]): void {
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
          else this.onFinished();
        });
    }
  }

  /** Takes the deliveries not yet sent off their lanes (the dispatcher stops). */
  takeUnsent(): ClaimedDelivery[] {
    const unsent: ClaimedDelivery[] = [];
    for (const lane of this.lanes.values()) unsent.push(...lane.queue.splice(0));
    this.unfinished -= unsent.length;
    return unsent;
  }

  /** Resolves when no attempt is in flight. */
  async idle(): Promise<void> {
    if (this.unfinished > 0) await new Promise<void>((resolve) => (this.onDrained = resolve));
  }

  /** One attempt: signs the body and POSTs it. */
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
}
