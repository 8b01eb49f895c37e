/** Users and sessions. */
import { nameKey } from '../../domain/text.ts';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type Db, inTransaction, pgErrorCode, queryRows } from '../../db/client.ts';
import { sessions, users } from '../../db/schema/index.ts';
import { DomainError, invalid } from '../../domain/errors.ts';
import {
  type AuthUser,
  dummyPasswordHash,
  hashPassword,
  newToken,
  TOKEN_TTL_MS,
  unauthorized,
  verifyPassword,
} from '../../http/auth.ts';
import type { LoginThrottle } from '../../http/security.ts';
import { errors } from '../../domain/error-catalogue.ts';

export interface UserRecord {
  id: string;
  email: string;
  displayName: string;
  createdAt: string;
  updatedAt: string;
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/u;

function userRecord(row: typeof users.$inferSelect): UserRecord {
  return {
    id: row.id,
    email: row.email,
    displayName: row.displayName,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Unmet password rules as English sentences; empty when the password is acceptable. */
export function passwordRequirements(password: string): string[] {
  const unmet: string[] = [];
  const length = [...password].length;
  if (length < 8) unmet.push('Password must be at least 8 characters long');
  if (length > 128) unmet.push('Password must be at most 128 characters long');
  if (!/\p{Ll}/u.test(password)) unmet.push('Password must contain a lower-case letter');
  if (!/\p{Lu}/u.test(password)) unmet.push('Password must contain an upper-case letter');
  if (!/[0-9]/.test(password)) unmet.push('Password must contain a digit');
  return unmet;
}

function passwordWeak(requirements: string[]): DomainError {
  return errors.PasswordWeakError('Password does not meet the requirements', {
    requirements,
  });
}

export async function register(
  db: Db,
  input: { email: string; password: string; displayName: string },
): Promise<UserRecord> {
  const email = input.email.toLowerCase();
  if ([...email].length > 254 || !EMAIL_RE.test(email)) throw invalid('/email', 'Invalid e-mail address');
  const unmet = passwordRequirements(input.password);
  if (unmet.length > 0) throw passwordWeak(unmet);
  const passwordHash = await hashPassword(input.password);
  try {
    const [row] = await db
      .insert(users)
      .values({ id: uuidv7(), email, displayName: input.displayName, passwordHash })
      .returning();
    return userRecord(row!);
  } catch (err) {
    if (pgErrorCode(err) === '23505') {
      throw errors.UserExistsError('An account with this e-mail exists', { email });
    }
    throw err;
  }
}

export interface SessionRecord {
  token: string;
  user: UserRecord;
  provider: 'local';
  expiresAt: string;
}

async function issueSession(db: Db | Parameters<Parameters<Db['transaction']>[0]>[0], user: UserRecord) {
  const { token, hash } = newToken();
  const expiresAt = new Date(Date.now() + TOKEN_TTL_MS);
  await db.insert(sessions).values({ tokenHash: hash, userId: user.id, expiresAt });
  return { token, user, provider: 'local' as const, expiresAt: expiresAt.toISOString() };
}

export async function login(
  db: Db,
  email: string,
  password: string,
  throttle?: LoginThrottle,
  ip = '',
): Promise<SessionRecord> {
  const key = nameKey(email);
  // Throttled e-mails and addresses answer 429 before any password is checked (docs/security.md).
  // The attempt is counted before any await: concurrent guesses cannot all pass the check at once.
  throttle?.reserve(key, ip);
  const [row] = await db.select().from(users).where(eq(users.email, key)).limit(1);
  const ok = await verifyPassword(password, row?.passwordHash ?? (await dummyPasswordHash()));
  if (!row || !ok) {
    throw errors.InvalidCredentialsError('Invalid e-mail or password', {});
  }
  throttle?.recordSuccess(key, ip);
  return issueSession(db, userRecord(row));
}

export async function logout(db: Db, tokenHash: string): Promise<void> {
  await db.update(sessions).set({ revokedAt: new Date() }).where(eq(sessions.tokenHash, tokenHash));
}

export async function refresh(db: Db, user: AuthUser, tokenHash: string): Promise<SessionRecord> {
  return inTransaction(db, async (tx) => {
    const revoked = await tx
      .update(sessions)
      .set({ revokedAt: new Date() })
      .where(and(eq(sessions.tokenHash, tokenHash), isNull(sessions.revokedAt)))
      .returning({ tokenHash: sessions.tokenHash });
    if (revoked.length === 0) throw unauthorized('Invalid or expired token');
    const [row] = await tx.select().from(users).where(eq(users.id, user.id));
    return issueSession(tx, userRecord(row!));
  });
}

export interface MembershipSummary {
  organizationId: string;
  organizationName: string;
  role: string;
}

export async function me(
  db: Db,
  userId: string,
): Promise<{ user: UserRecord; memberships: MembershipSummary[] }> {
  const [row] = await db.select().from(users).where(eq(users.id, userId));
  if (!row) throw unauthorized();
  const memberships = await queryRows<{ organization_id: string; name: string; role: string }>(
    db,
    sql`select m.organization_id, o.name, m.role from memberships m join organizations o on o.id = m.organization_id
        where m.user_id = ${userId} order by o.name_key, o.id`,
  );
  return {
    user: userRecord(row),
    memberships: memberships.map((m) => ({
      organizationId: m.organization_id,
      organizationName: m.name,
      role: m.role,
    })),
  };
}

export async function updateMe(db: Db, userId: string, displayName: string | undefined) {
  if (displayName !== undefined) {
    await db
      .update(users)
      .set({ displayName, updatedAt: new Date() })
      .where(and(eq(users.id, userId), sql`${users.displayName} <> ${displayName}`));
  }
  return me(db, userId);
}

export async function changePassword(db: Db, userId: string, currentPassword: string, newPassword: string) {
  const [row] = await db.select().from(users).where(eq(users.id, userId));
  if (!row) throw unauthorized();
  if (!(await verifyPassword(currentPassword, row.passwordHash))) {
    throw errors.ChangePasswordError('The current password is wrong', {});
  }
  const unmet = passwordRequirements(newPassword);
  if (newPassword === currentPassword) unmet.push('New password must differ from the current password');
  if (unmet.length > 0) throw passwordWeak(unmet);
  const passwordHash = await hashPassword(newPassword);
  await inTransaction(db, async (tx) => {
    await tx.update(users).set({ passwordHash, updatedAt: new Date() }).where(eq(users.id, userId));
    await tx
      .update(sessions)
      .set({ revokedAt: new Date() })
      .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)));
  });
}
