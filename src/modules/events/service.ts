/**
 * GET /events: an organization's event log, oldest first, read with a cursor (the id of the last
 * event the client has processed).
 *
 * Order is the writing transaction's id, then the event id, and only events of transactions older
 * than every transaction still running are listed: an event whose transaction commits later can only
 * come after every event already listed, so a client that resumes from its last cursor misses none.
 */
import { sql } from 'drizzle-orm';
import { pgTokens } from '../../db/bulk-params.ts';
import { type Db, queryRows } from '../../db/client.ts';
import { invalid } from '../../domain/errors.ts';
import type { Access } from '../../access/access.ts';
import { EVENT_TYPES } from './record.ts';

export interface EventRecord {
  id: string;
  type: string;
  organizationId: string;
  occurredAt: string;
  actorId: string | null;
  resourceType: string;
  resourceId: string;
  data: unknown;
}

export interface EventListQuery {
  organizationId: string;
  after?: string | undefined;
  /** One event type or several separated by commas. */
  type?: string | undefined;
  limit?: number | undefined;
}

export interface EventPage {
  events: EventRecord[];
  /** The id of the last event listed (or the given cursor when none): the `after` of the next call. */
  nextCursor: string | null;
  /** More events are available right now. */
  hasMore: boolean;
  limit: number;
}

/** The event types of a `type` filter; a 400 for an unknown one. */
export function parseTypeFilter(raw: string | undefined): string[] | null {
  if (raw === undefined) return null;
  const types = raw
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  const unknown = types.find((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (unknown !== undefined || types.length === 0) {
    throw invalid('/query/type', `Unknown event type ${unknown ?? '(empty)'}`);
  }
  return types;
}

export async function listEvents(db: Db, access: Access, q: EventListQuery): Promise<EventPage> {
  const types = parseTypeFilter(q.type);
  await access.authorize(q.organizationId, 'event:read');
  const limit = q.limit ?? 50;
  let cursor: { tx: string; id: string } | null = null;
  if (q.after !== undefined) {
    const [row] = await queryRows<{ tx: string; id: string }>(
      db,
      sql`select tx::text as tx, id from events where organization_id = ${q.organizationId} and id = ${q.after}`,
    );
    if (!row) throw invalid('/query/after', 'Not the id of an event of this organization');
    cursor = row;
  }
  const rows = await queryRows<{
    id: string;
    type: string;
    organization_id: string;
    occurred_at: Date | string;
    actor_id: string | null;
    resource_type: string;
    resource_id: string;
    data: unknown;
  }>(
    db,
    sql`select e.id, e.type, e.organization_id, e.occurred_at, e.actor_id, e.resource_type, e.resource_id,
          e.data
        from events e
        where e.organization_id = ${q.organizationId}
          and e.tx < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
          ${cursor ? sql`and (e.tx, e.id) > (${cursor.tx}::bigint, ${cursor.id}::uuid)` : sql``}
          ${types ? sql`and e.type = any(${pgTokens(types)}::text[])` : sql``}
        order by e.tx, e.id
        limit ${limit + 1}`,
  );
  const page = rows.slice(0, limit).map((r): EventRecord => ({
    id: r.id,
    type: r.type,
    organizationId: r.organization_id,
    occurredAt: new Date(r.occurred_at).toISOString(),
    actorId: r.actor_id,
    resourceType: r.resource_type,
    resourceId: r.resource_id,
    data: typeof r.data === 'string' ? JSON.parse(r.data) : r.data,
  }));
  return {
    events: page,
    nextCursor: page.at(-1)?.id ?? q.after ?? null,
    hasMore: rows.length > limit,
    limit,
  };
}
