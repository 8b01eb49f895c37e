/**
 * Bearer tokens: opaque 32-byte random values, base64url without padding,
 * stored only as SHA-256 hashes, valid 7 days from issue.
 */
import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { FastifyRequest } from 'fastify';
import { type Db, run, statement } from '../db/client.ts';
import { Combiner, perDatabase } from '../db/combiner.ts';
import { DomainError } from '../domain/errors.ts';
import { errors } from '../domain/error-catalogue.ts';

const scrypt = promisify(scryptCb) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: object,
) => Promise<Buffer>;

export const TOKEN_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

export interface AuthUser {
  id: string;
  email: string;
  displayName: string;
}

export function unauthorized(message = 'Authentication required'): DomainError {
  return errors.UnauthorizedError(message, {});
}

export function newToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

/**
 * Compares two secrets (hashes, fingerprints) in time independent of where they differ. Strings of
 * different lengths compare unequal after a comparison of equal cost.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y) && a.length === b.length;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The token of the Authorization header, or a 401 for every malformed form. */
export function bearerToken(request: FastifyRequest): string {
  const raw = request.raw.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'authorization') count++;
  if (count !== 1)
    throw unauthorized(count === 0 ? 'Authentication required' : 'More than one Authorization header');
  const header = request.headers.authorization ?? '';
  const m = /^bearer +(.+)$/i.exec(header);
  if (!m) throw unauthorized('Authorization must use the Bearer scheme');
  const token = m[1]!;
  if (!TOKEN_RE.test(token)) throw unauthorized('Invalid token');
  return token;
}

/** What authentication learned of the organization a request names (see `authenticate`). */
export interface OrganizationContext {
  organizationId: string;
  exists: boolean;
  role: string | null;
  /** The organization's stored settings; null unless the caller is a member. */
  settings: unknown;
}

/**
 * The session look-up's columns and joins over a row source `q` with `token_hash` and
 * `organization_id`: the user of a live session, whether the organization exists, the caller's role
 * there and, for a member, its settings. Shared with the look-ups that read ahead (`LookAhead`).
 */
export const SESSION_COLUMNS = `u.id, u.email, u.display_name, o.id is not null as org_exists, m.role,
   case when m.role is not null then o.settings end as settings`;
export const SESSION_JOINS = `join sessions s on s.token_hash = q.token_hash and s.revoked_at is null
     and s.expires_at > now()
   join users u on u.id = s.user_id
   left join organizations o on o.id = q.organization_id
   left join memberships m on m.organization_id = o.id and m.user_id = u.id`;

const AUTHENTICATE = statement(
  'auth_sessions',
  `select q.ord::int as ord, ${SESSION_COLUMNS}
   from unnest($1::text[], $2::uuid[]) with ordinality as q(token_hash, organization_id, ord)
   ${SESSION_JOINS}`,
);

/** A row of the session look-up (`SESSION_COLUMNS`). */
export interface SessionRow {
  id: string;
  email: string;
  display_name: string;
  org_exists: boolean;
  role: string | null;
  settings: unknown;
}

/**
 * A read a route's handler needs, made by the request's own session look-up: one statement instead of
 * two. A route declares it in `config.lookAhead`. `input` picks the read's parameters from the path
 * parameters and the parsed, not yet validated, body, with the organization the request names (null:
 * none); it answers null when there is nothing to read ahead, and the plain look-up runs. `lookUp`
 * runs the session look-up with the read and answers the session row (null: unknown session) and what
 * it read, which the handler receives as `request.lookAhead`. What is read ahead is only used once the
 * request has passed every check in between, and a handler must treat it as a read made at
 * authentication time (it reads again when its validated input differs from the read's).
 */
export interface LookAhead {
  input(request: { params: unknown; body: unknown }, organizationId: string | null): unknown;
  lookUp(
    db: Db,
    tokenHash: string,
    organizationId: string | null,
    input: unknown,
  ): Promise<{ session: SessionRow | null; ahead: unknown }>;
}

type Lookup = { tokenHash: string; organizationId: string | null };

/** Session look-ups of concurrent requests go to the database together (db/combiner.ts). */
const sessionLookups = perDatabase(
  (db) =>
    new Combiner<Lookup, SessionRow | null>(async (items) => {
      const rows = await run<SessionRow & { ord: number }>(db, AUTHENTICATE, [
        items.map((i) => i.tokenHash),
        items.map((i) => i.organizationId),
      ]);
      const byOrd = new Map(rows.map((r) => [r.ord, r]));
      return items.map((_, i) => byOrd.get(i + 1) ?? null);
    }, 100),
);

/**
 * Resolves a presented token to its user; unknown, revoked or expired → 401. When the request names an
 * organization (`organizationId`), the same query also reads whether it exists and the caller's role
 * and settings there, so the authorization steps of the request (pipeline steps 7 and 9) need no query
 * of their own. That part is only looked at by those later steps, never before the checks in between.
 * With a route's `lookAhead` (and its input in the body), the query also makes the route's read.
 */
export async function authenticate(
  db: Db,
  token: string,
  organizationId: string | null = null,
  ahead: { lookAhead: LookAhead; params: unknown; body: unknown } | null = null,
): Promise<{
  user: AuthUser;
  tokenHash: string;
  organization: OrganizationContext | null;
  /** What the route's look-ahead read, or null. */
  ahead: unknown;
}> {
  const tokenHash = hashToken(token);
  const input = ahead ? ahead.lookAhead.input(ahead, organizationId) : null;
  let row: SessionRow | null;
  let read: unknown = null;
  if (ahead && input !== null) {
    const found = await ahead.lookAhead.lookUp(db, tokenHash, organizationId, input);
    row = found.session;
    read = found.ahead;
  } else {
    row = await sessionLookups(db).run('', { tokenHash, organizationId });
  }
  if (!row) throw unauthorized('Invalid or expired token');
  return {
    user: { id: row.id, email: row.email, displayName: row.display_name },
    tokenHash,
    organization:
      organizationId === null
        ? null
        : { organizationId, exists: row.org_exists, role: row.role, settings: row.settings ?? null },
    ahead: read,
  };
}

// scrypt parameters: N=2^15, r=8, p=1 (64 MiB-class memory-hard hash, ~50 ms here).
const SCRYPT = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, saltB64, keyB64] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(keyB64, 'base64');
  const key = await scrypt(password, Buffer.from(saltB64, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash to verify against when the e-mail is unknown, so both failures take the same time. */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword('dummy-password-Aa1');
  return dummyHash;
}
