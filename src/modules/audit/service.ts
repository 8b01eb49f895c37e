/**
 * Audit trail: every successful write records an entry in the same transaction.
 */
import { sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { pgArray, pgTokens, uuidv7Batch } from '../../db/bulk-params.ts';
import type { Queryable } from '../../db/client.ts';
import { auditLog } from '../../db/schema/index.ts';
import {
  AUDIT_ACTIONS,
  AUDIT_ENTITY_TYPES,
  type AuditAction,
  type AuditEntityType,
} from '../../domain/audit.ts';

export { AUDIT_ACTIONS, AUDIT_ENTITY_TYPES, type AuditAction, type AuditEntityType };

export type Changes = Record<string, { from: unknown; to: unknown }>;

export interface AuditInput {
  organizationId: string;
  userId: string;
  action: AuditAction;
  entityType: AuditEntityType;
  entityId: string;
  changes?: Changes | null;
}

/** From this many entries on, `recordAudit` binds them as one JSON parameter (see below). */
const SET_BASED_FROM = 50;
/** Entries per statement of a set-based write. */
const AUDIT_CHUNK = 10_000;

export async function recordAudit(tx: Queryable, entry: AuditInput | AuditInput[]): Promise<void> {
  const entries = Array.isArray(entry) ? entry : [entry];
  if (entries.length === 0) return;
  if (entries.length >= SET_BASED_FROM) {
    // Bulk writes (imports, bulk creates): each column bound as one array parameter, expanded by
    // `unnest`, instead of seven bound values per row, whose building costs more than the insert.
    const ids = uuidv7Batch(entries.length);
    for (let i = 0; i < entries.length; i += AUDIT_CHUNK) {
      const rows = entries.slice(i, i + AUDIT_CHUNK);
      const col = (f: (e: AuditInput, k: number) => string) => pgTokens(rows.map(f));
      const text = (f: (e: AuditInput) => string | null) => pgArray(rows.map(f));
      await tx.execute(
        sql`insert into audit_log (id, organization_id, user_id, action, entity_type, entity_id, changes)
            select a.id, a.organization_id, a.user_id, a.action, a.entity_type, a.entity_id, a.changes::jsonb
            from unnest(${col((_, k) => ids[i + k]!)}::uuid[], ${col((e) => e.organizationId)}::uuid[],
              ${col((e) => e.userId)}::uuid[], ${col((e) => e.action)}::text[],
              ${col((e) => e.entityType)}::text[], ${text((e) => e.entityId)}::text[],
              ${text((e) => (e.changes && Object.keys(e.changes).length > 0 ? JSON.stringify(e.changes) : null))}::text[])
            as a(id, organization_id, user_id, action, entity_type, entity_id, changes)`,
      );
    }
    return;
  }
  await tx.insert(auditLog).values(
    entries.map((e) => ({
      id: uuidv7(),
      organizationId: e.organizationId,
      userId: e.userId,
      action: e.action,
      entityType: e.entityType,
      entityId: e.entityId,
      changes: e.changes && Object.keys(e.changes).length > 0 ? e.changes : null,
    })),
  );
}

/** The entry saying that the caller did `action` on an entity (`entityType`, the row's organization and id). */
export function auditEntry(
  caller: { userId: string },
  entityType: AuditEntityType,
  entity: { organizationId: string; id: string },
  action: AuditAction,
  changes?: Changes | null,
): AuditInput {
  return {
    organizationId: entity.organizationId,
    userId: caller.userId,
    action,
    entityType,
    entityId: entity.id,
    changes,
  };
}

/** Records the one entry most writes leave: the caller did `action` on an entity (see `auditEntry`). */
export function auditWrite(
  tx: Queryable,
  caller: { userId: string },
  entityType: AuditEntityType,
  entity: { organizationId: string; id: string },
  action: AuditAction,
  changes?: Changes | null,
): Promise<void> {
  return recordAudit(tx, auditEntry(caller, entityType, entity, action, changes));
}

/**
 * The changed fields between two wire representations of a record: `{field: {from, to}}`, compared
 * by their JSON encoding. Fields listed in `ignore` (timestamps, derived fields) are skipped.
 */
export function diffChanges(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  ignore: readonly string[] = ['updatedAt', 'createdAt'],
): Changes {
  const changes: Changes = {};
  for (const key of Object.keys(after)) {
    if (ignore.includes(key)) continue;
    const from = before[key] ?? null;
    const to = after[key] ?? null;
    if (JSON.stringify(from) !== JSON.stringify(to)) changes[key] = { from, to };
  }
  return changes;
}
