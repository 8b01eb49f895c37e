/**
 * Recording events (transactional outbox). Every change a client may want to hear about writes one
 * `events` row in the SAME transaction as the change, so an event exists exactly when its change
 * committed: a rolled-back change leaves no event, a committed one cannot lose it.
 *
 * Two spellings of the one insert:
 * - `recordEvent(tx, …)` inside a Drizzle transaction (the transactional paths of every module);
 * - `eventCte(…)` as a data-modifying CTE of a single-statement write (the journal's prepared
 *   statements), so the event rides in the statement — and the group commit — of the change.
 *
 * Journal entries are announced with a summary of the entry (`JOURNAL_ENTRY_SUMMARY`), built by one
 * SQL expression on the stored row whichever path wrote it; other resources carry their API record.
 *
 * Once a write with events has committed, this process's listeners hear of it (`onEventsCommitted`):
 * the webhook dispatcher starts its next cycle at once instead of after its polling interval. The
 * signal is only a hint to look now; what is delivered is always read from the committed rows.
 */
import { type SQL, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { afterCommit, type Db, type Queryable, queryRows } from '../../db/client.ts';
import { events } from '../../db/schema/index.ts';
import { EVENT_TYPES, type EventType } from '../../domain/events.ts';

export { EVENT_TYPES, type EventType };

export interface EventInput {
  organizationId: string;
  type: EventType;
  /** The user whose request made the change; null when the service acted on its own. */
  actorId: string | null;
  resourceType: string;
  resourceId: string;
  /** The resource as the API returns it, or a summary of a large one. */
  data: unknown;
}

const listeners = new WeakMap<Db, Set<() => void>>();

/** Calls `listener` whenever a write of this process that recorded events on `db` has committed. */
export function onEventsCommitted(db: Db, listener: () => void): () => void {
  let set = listeners.get(db);
  if (!set) {
    set = new Set();
    listeners.set(db, set);
  }
  set.add(listener);
  return () => set.delete(listener);
}

/**
 * Tells the listeners that events were committed on `db`: called by `inTransaction` after the commit
 * of a transaction that recorded events, and by single-statement writers after their statement.
 */
export function eventsCommitted(db: Db): void {
  const set = listeners.get(db);
  if (set) for (const listener of set) listener();
}

/** Inserts events inside the caller's transaction. */
export async function recordEvent(tx: Queryable, input: EventInput | EventInput[]): Promise<void> {
  const list = Array.isArray(input) ? input : [input];
  if (list.length === 0) return;
  afterCommit(eventsCommitted);
  await tx.insert(events).values(
    list.map((e) => ({
      id: uuidv7(),
      organizationId: e.organizationId,
      type: e.type,
      actorId: e.actorId,
      resourceType: e.resourceType,
      resourceId: e.resourceId,
      data: e.data ?? {},
    })),
  );
}

/**
 * The summary of a journal entry carried by its events, from a `journal_entries` row `e`: what
 * identifies the entry and its state; the amounts and lines are read with `GET /journal-entries/{id}`.
 */
export const JOURNAL_ENTRY_SUMMARY = (e: string) => `jsonb_build_object(
    'id', ${e}.id, 'organizationId', ${e}.organization_id, 'companyId', ${e}.company_id,
    'entryNumber', 'JE-' || lpad(${e}.entry_number::text, greatest(4, length(${e}.entry_number::text)), '0'),
    'referenceNumber', ${e}.reference_number, 'description', ${e}.description,
    'transactionDate', ${e}.transaction_date, 'postingDate', ${e}.posting_date,
    'fiscalYear', ${e}.fiscal_year, 'fiscalPeriod', ${e}.fiscal_period, 'entryType', ${e}.entry_type,
    'status', ${e}.status, 'isReversing', ${e}.is_reversing, 'reversedEntryId', ${e}.reversed_entry_id,
    'reversingEntryId', ${e}.reversing_entry_id)`;

/**
 * A data-modifying CTE `name` inserting one event per row of `from` (SQL text of a prepared
 * statement). Each value is an SQL expression over the rows of `from`.
 */
export function eventCte(
  name: string,
  v: {
    from: string;
    id: string;
    organizationId: string;
    type: EventType | string;
    actorId: string;
    resourceType: string;
    resourceId: string;
    data: string;
  },
): string {
  const type = (EVENT_TYPES as readonly string[]).includes(v.type) ? `'${v.type}'` : v.type;
  return `${name} as (
     insert into events (id, organization_id, type, actor_id, resource_type, resource_id, data)
     select ${v.id}, ${v.organizationId}, ${type}, ${v.actorId}, '${v.resourceType}', ${v.resourceId}, ${v.data}
     from ${v.from})`;
}

/**
 * Journal-entry events inside a Drizzle transaction: one per entry, its data the summary of the row
 * as this transaction now sees it.
 */
export async function recordJournalEvents(
  tx: Queryable,
  items: { organizationId: string; entryId: string; type: EventType; actorId: string | null }[],
): Promise<void> {
  if (items.length === 0) return;
  afterCommit(eventsCommitted);
  // One statement for all items: their summaries as the rows now are, in the given order.
  const rows = items.map((item, ord) => ({
    ord,
    id: uuidv7(),
    organization_id: item.organizationId,
    entry_id: item.entryId,
    type: item.type,
    actor_id: item.actorId,
  }));
  await queryRows(
    tx,
    sql`insert into events (id, organization_id, type, actor_id, resource_type, resource_id, data)
        select i.id, e.organization_id, i.type, i.actor_id, 'JournalEntry', e.id, ${raw(JOURNAL_ENTRY_SUMMARY('e'))}
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          as i(ord int, id uuid, organization_id uuid, entry_id uuid, type text, actor_id uuid)
        join journal_entries e on e.organization_id = i.organization_id and e.id = i.entry_id
        order by i.ord`,
  );
}

const raw = (text: string): SQL => sql.raw(text);
