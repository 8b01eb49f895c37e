/** Users, sessions, organizations, memberships, audit log and idempotency keys. */

import { index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, orgId, tenantKey, timestamps, ts } from './columns.ts';

export const users = pgTable('users', {
  id: id().primaryKey(),
  email: text('email').notNull().unique(),
  displayName: text('display_name').notNull(),
  passwordHash: text('password_hash').notNull(),
  ...timestamps(),
});

/** Bearer tokens, stored only as SHA-256 hashes (hex). */
export const sessions = pgTable(
  'sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: id('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
    revokedAt: ts('revoked_at'),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
);

export const organizations = pgTable(
  'organizations',
  {
    id: id().primaryKey(),
    name: text('name').notNull(),
    /** Lower-cased trimmed name: the service-wide uniqueness key. */
    nameKey: text('name_key').notNull(),
    reportingCurrency: text('reporting_currency').notNull(),
    settings: jsonb('settings').notNull(),
    ...timestamps(),
  },
  (t) => [uniqueIndex('organizations_name_key_uq').on(t.nameKey)],
);

/**
 * The key columns of a tenant row that goes with its organization: its id and its organization, whose
 * deletion deletes the row (the primary key is `tenantKey`).
 */
export const orgOwnedRow = () => ({
  id: id().notNull(),
  organizationId: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
});

export const memberships = pgTable(
  'memberships',
  {
    organizationId: orgId().references(() => organizations.id, { onDelete: 'cascade' }),
    userId: id('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role').notNull(),
    ...timestamps(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.userId] }), index('memberships_user_idx').on(t.userId)],
);

export const auditLog = pgTable(
  'audit_log',
  {
    ...orgOwnedRow(),
    userId: id('user_id').notNull(),
    action: text('action').notNull(),
    entityType: text('entity_type').notNull(),
    entityId: text('entity_id').notNull(),
    changes: jsonb('changes'),
    createdAt: createdAt(),
  },
  (t) => [tenantKey(t), index('audit_log_org_created_idx').on(t.organizationId, t.createdAt.desc(), t.id)],
);

/** Idempotency keys, scoped to the user. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    userId: id('user_id').notNull(),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    /** `running` while the first request executes, `done` once its response is stored. */
    state: text('state').notNull(),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
    /**
     * While `running`: the claim's lease, renewed by the process executing the request. A `running`
     * claim whose lease expired belongs to a process that died before its writes committed (a commit
     * would have marked it `committed`), so the key may be claimed again. Null on older rows.
     */
    leaseExpiresAt: ts('lease_expires_at'),
    /**
     * Written with the commit mark, in the same transaction as the request's writes: a token of that
     * transaction (db/commit-marks.ts). When the connection is lost while its COMMIT is on the way, the
     * process asks the server that took over for this token to learn whether the commit happened.
     */
    commitToken: id('commit_token'),
  },
  (t) => [primaryKey({ columns: [t.userId, t.key] }), index('idempotency_expires_idx').on(t.expiresAt)],
);
