/**
 * Idempotency-Key handling for POST under /api/v1. The key row is claimed before the handler runs
 * (`running`), marked `committed` in the same transaction as the request's writes (db/commit-marks.ts)
 * and completed with the final response (`done`). 5xx and 429 results release the key so the client
 * may retry — unless the request's writes committed, which a failover can cut off from their response:
 * such a key is never released, so the request never executes twice. Storing the response and
 * releasing the key are retried in the background while the database is unavailable.
 *
 * A claim in progress has a lease, renewed by its process while the request executes (`ClaimLeases`).
 * A process that dies leaves its claims `running` (had the request's writes committed, the same
 * transaction would have marked them `committed`): once the lease has expired, a retry takes the claim
 * over and executes the request — once, since a transaction of the old claim could no longer mark it
 * and would be refused. On the embedded database, which one process owns, the claims left `running`
 * by the previous process are released at start-up.
 */
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Database, type Db, queryRows } from '../db/client.ts';
import { markScope } from '../db/commit-marks.ts';
import { isUnavailableError } from '../db/failover.ts';
import { ValidationError } from '../domain/errors.ts';
import { constantTimeEqual } from './auth.ts';
import { errors } from '../domain/error-catalogue.ts';

const KEY_RE = /^[\x21-\x7E]{1,255}$/;
const TTL_MS = 24 * 60 * 60 * 1000;
/** Default lease of a claim in progress (IDEMPOTENCY_LEASE_SECONDS). */
export const DEFAULT_CLAIM_LEASE_MS = 60_000;

/** Canonical JSON: object keys sorted recursively, no insignificant white space. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

export function idempotencyApplies(request: FastifyRequest): boolean {
  return request.method === 'POST' && request.url.startsWith('/api/v1/');
}

export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return undefined;
  if (Array.isArray(header) || !KEY_RE.test(header)) {
    throw new ValidationError([
      { path: '/headers/Idempotency-Key', message: 'Must be 1–255 visible ASCII characters' },
    ]);
  }
  return header;
}

export function fingerprintOf(request: FastifyRequest, parsedBody: unknown): string {
  const [path, query = ''] = request.url.split('?', 2) as [string, string?];
  return createHash('sha256')
    .update(`${request.method}\n${path}\n${query}\n${canonicalJson(parsedBody)}`)
    .digest('hex');
}

export interface ClaimedKey {
  userId: string;
  key: string;
  /**
   * `created_at` of this claim (milliseconds, as stored): tells it from a later claim of the same key,
   * which can only follow its release.
   */
  claimedAt: string;
}

/**
 * Claims the key, or answers the request from storage. Returns the claim when the request should run,
 * or null when a stored response was sent.
 */
export async function claimKey(
  db: Db,
  userId: string,
  key: string,
  fingerprint: string,
  reply: FastifyReply,
  leaseMs: number = DEFAULT_CLAIM_LEASE_MS,
): Promise<ClaimedKey | null> {
  const now = Date.now();
  const expiresAt = new Date(now + TTL_MS);
  const claimedAt = new Date(now).toISOString();
  const leaseExpiresAt = new Date(now + leaseMs).toISOString();
  // An expired key is claimed again; so is a claim in progress whose lease expired (its process
  // stopped before the request's writes committed). The fingerprint must then be the same request's.
  const claim = () =>
    queryRows<{ key: string }>(
      db,
      sql`insert into idempotency_keys (user_id, key, fingerprint, state, created_at, expires_at,
            lease_expires_at)
          values (${userId}, ${key}, ${fingerprint}, 'running', ${claimedAt}, ${expiresAt}, ${leaseExpiresAt})
          on conflict (user_id, key) do update
            set fingerprint = excluded.fingerprint, state = 'running', response_status = null,
                response_body = null, created_at = excluded.created_at, expires_at = excluded.expires_at,
                lease_expires_at = excluded.lease_expires_at
            where idempotency_keys.expires_at <= now()
               or (idempotency_keys.state = 'running' and idempotency_keys.lease_expires_at < ${claimedAt}
                   and idempotency_keys.fingerprint = excluded.fingerprint)
          returning key`,
    );
  const claimed = await claim().catch((err: unknown) => {
    // The claim may have committed with its answer lost (a failover): it is released, in the
    // background if need be, since nothing ran under it.
    if (isUnavailableError(err)) void completeKey(db, { userId, key, claimedAt }, 503, null).catch(() => {});
    throw err;
  });
  if (claimed.length > 0) return { userId, key, claimedAt };
  const rows = await queryRows<{
    fingerprint: string;
    state: string;
    response_status: number | null;
    response_body: string | null;
  }>(
    db,
    sql`select fingerprint, state, response_status, response_body from idempotency_keys
        where user_id = ${userId} and key = ${key}`,
  );
  const row = rows[0];
  if (!row) return claimKey(db, userId, key, fingerprint, reply, leaseMs); // expired and removed meanwhile
  if (!constantTimeEqual(row.fingerprint, fingerprint)) {
    throw errors.IdempotencyKeyReusedError('Idempotency-Key was used for a different request', {
      idempotencyKey: key,
    });
  }
  // `running`, or `committed` without a stored response: still running (a COMMIT cut off by a
  // failover is being resolved on the new primary, db/commit-marks.ts), or — when no server answered
  // in time to resolve it — its response was lost (it executed; it will not execute again).
  if (row.state !== 'done') {
    throw errors.IdempotencyKeyInProgressError('A request with this Idempotency-Key is running', {
      idempotencyKey: key,
    });
  }
  reply.header('idempotent-replayed', 'true').code(row.response_status ?? 200);
  if (row.response_body) reply.type('application/json; charset=utf-8').send(row.response_body);
  else reply.send();
  return null;
}

/** Background retries of a completion while the database is unavailable: every second, 5 minutes. */
const COMPLETION_RETRY_MS = 1000;
const COMPLETION_RETRY_FOR_MS = 5 * 60_000;

/**
 * Stores the final response of a claimed key, or releases the key after a 5xx or 429 (a key whose
 * request committed writes is kept: see the module comment). When the database is unavailable the
 * write is retried in the background until it succeeds; `onGiveUp` hears of a failure that is final.
 */
export async function completeKey(
  db: Db,
  claim: ClaimedKey,
  status: number,
  body: string | null,
  onGiveUp: (err: unknown) => void = () => {},
): Promise<void> {
  const write =
    status >= 500 || status === 429
      ? () =>
          db.execute(
            sql`delete from idempotency_keys where user_id = ${claim.userId} and key = ${claim.key}
                and created_at = ${claim.claimedAt} and state = 'running'`,
          )
      : () =>
          db.execute(
            sql`update idempotency_keys set state = 'done', response_status = ${status},
                  response_body = ${body}
                where user_id = ${claim.userId} and key = ${claim.key} and created_at = ${claim.claimedAt}`,
          );
  try {
    await write();
  } catch (err) {
    if (!isUnavailableError(err)) throw err;
    const until = Date.now() + COMPLETION_RETRY_FOR_MS;
    const retry = () => {
      write().catch((again: unknown) => {
        if (isUnavailableError(again) && Date.now() < until) setTimeout(retry, COMPLETION_RETRY_MS).unref();
        else onGiveUp(again);
      });
    };
    setTimeout(retry, COMPLETION_RETRY_MS).unref();
  }
}

/**
 * The claims this process executes, and their leases: renewed every third of the lease while the
 * request runs (one statement for all of them).
 */
export class ClaimLeases {
  private readonly held = new Set<ClaimedKey>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: Db,
    readonly leaseMs: number,
    onError: (err: unknown) => void,
  ) {
    this.timer = setInterval(
      () => {
        this.renew().catch(onError);
      },
      Math.max(50, Math.floor(leaseMs / 3)),
    );
    this.timer.unref();
  }

  add(claim: ClaimedKey): void {
    this.held.add(claim);
  }

  delete(claim: ClaimedKey): void {
    this.held.delete(claim);
  }

  async renew(): Promise<void> {
    const claims = [...this.held];
    if (claims.length === 0) return;
    const until = new Date(Date.now() + this.leaseMs).toISOString();
    await this.db.execute(
      sql`update idempotency_keys set lease_expires_at = ${until}
          where state = 'running' and (user_id, key, created_at) in (
            select * from unnest(${`{${claims.map((c) => c.userId).join(',')}}`}::uuid[],
                                 ${pgTextArray(claims.map((c) => c.key))}::text[],
                                 ${`{${claims.map((c) => c.claimedAt).join(',')}}`}::timestamptz[]))`,
    );
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/** A text[] literal (keys are visible ASCII: quotes and backslashes escaped). */
function pgTextArray(values: string[]): string {
  return `{${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

/**
 * On the embedded database, at start-up: the claims left `running` by the previous process, which
 * owned the database alone, are released (their writes did not commit: a commit would have marked
 * them). Claims from before leases existed (no lease) are left to expire.
 */
export async function releaseOrphanedClaims(db: Db): Promise<number> {
  const rows = await queryRows<{ key: string }>(
    db,
    sql`delete from idempotency_keys where state = 'running' and lease_expires_at is not null returning key`,
  );
  return rows.length;
}

/**
 * The idempotency steps of the request pipeline: a request that may claim a key runs in a scope of its
 * own, in which its writes mark the key committed (db/commit-marks.ts); the key is claimed in
 * preHandler (step 6) and completed with the response in onSend. Claims in progress hold a lease this
 * process renews; on the embedded database the claims a stopped process left in progress are released
 * at start-up.
 */
export function registerIdempotency(
  app: FastifyInstance,
  db: Db,
  kind: Database['kind'],
  leaseMs: number,
): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.headers['idempotency-key'] !== undefined && idempotencyApplies(request))
      markScope.run({ claims: [] }, done);
    else done();
  });

  const claimLeases = new ClaimLeases(db, leaseMs, (err) =>
    app.log.warn({ err }, 'could not renew Idempotency-Key leases'),
  );
  app.addHook('onReady', async () => {
    if (kind !== 'pglite') return;
    const released = await releaseOrphanedClaims(db);
    if (released > 0)
      app.log.warn({ released }, 'released Idempotency-Key claims left running by a stopped process');
  });
  app.addHook('onClose', async () => claimLeases.close());

  app.addHook('preHandler', async (request, reply) => {
    if (request.user && idempotencyApplies(request)) {
      const key = idempotencyKeyOf(request);
      if (key !== undefined) {
        const fingerprint = request.idempotencyFingerprint ?? fingerprintOf(request, undefined);
        request.idempotencyClaim = await claimKey(
          db,
          request.user.id,
          key,
          fingerprint,
          reply,
          claimLeases.leaseMs,
        );
        if (request.idempotencyClaim === null) return reply;
        claimLeases.add(request.idempotencyClaim);
        markScope.getStore()?.claims.push(request.idempotencyClaim);
      }
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotencyClaim;
    if (claim) {
      request.idempotencyClaim = null;
      claimLeases.delete(claim);
      // The request's own writes are over: the completion below is not one of them.
      const scope = markScope.getStore();
      if (scope) scope.claims = [];
      const body = typeof payload === 'string' ? payload : payload == null ? null : String(payload);
      const failed = (err: unknown) => request.log.error({ err }, 'could not store idempotent response');
      await completeKey(db, claim, reply.statusCode, body, failed).catch(failed);
    }
    return payload;
  });
}
