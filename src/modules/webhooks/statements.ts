/**
 * The dispatcher's statements: a cycle's record of finished attempts, fan-out and claim (one
 * statement, `CYCLE`), the record of attempts on their own (`COMPLETE`) and the release of leases
 * not used (`RELEASE`). See the dispatcher for what a cycle does.
 */
import { statement } from '../../db/client.ts';

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
export const RELEASE = statement(
  'webhook_release',
  `update webhook_deliveries d set lease_until = null
   from jsonb_to_recordset($1::jsonb) as r(organization_id uuid, id uuid, lease_until timestamptz)
   where d.organization_id = r.organization_id and d.id = r.id and d.lease_until = r.lease_until`,
);

export const COMPLETE = statement(
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
export const CYCLE = statement(
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
