/**
 * The dispatcher's statements: a cycle's record of finished attempts, fan-out and claim (one
 * statement, `CYCLE`), the record of attempts on their own (`COMPLETE`) and the release of leases
 * not used (`RELEASE`). See the dispatcher for what a cycle does.
 *
 * A delivery row is written once its first attempt has finished: a fan-out takes a batch of events
 * and leases it per endpoint (a `webhook_fanout_batches` row: the endpoint, the range of events after
 * the fan-out position, and a lease), the batch's deliveries are sent, and once every one of an
 * endpoint's has finished they are inserted with their outcome — Succeeded, or Pending with the next attempt — in the
 * statement that deletes the batch row (only while its lease is still the one they were sent
 * under). A batch whose lease lapses (its process died) is fanned out again by any process. Retries
 * (by time or by hand) work on the delivery rows: claimed with their own lease, recorded by an update.
 */
import { statement } from '../../db/client.ts';

/** The wire form of an event (GET /events and webhook bodies), as JSON text. */
export const EVENT_JSON = (e: string) => `json_build_object('id', ${e}.id, 'type', ${e}.type,
    'timestamp', ${e}.occurred_at, 'organizationId', ${e}.organization_id, 'occurredAt', ${e}.occurred_at,
    'actorId', ${e}.actor_id, 'resourceType', ${e}.resource_type, 'resourceId', ${e}.resource_id,
    'data', ${e}.data)`;

/** Records attempts `r` of delivery rows (only while the lease is still the one they were sent under). */
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

/** The attempts of delivery rows, `r`, from parameter `p`. */
const ATTEMPTS = (
  p: string,
) => `select * from jsonb_to_recordset(${p}::jsonb) as r(organization_id uuid, id uuid,
       lease_until timestamptz, ok boolean, response_status int, duration_ms int, error text,
       attempted_at timestamptz, next_attempt_at timestamptz)`;

/**
 * The deliveries of finished fan-out batches, `rb`, from parameter `p`: every delivery of each batch,
 * with its first attempt (`attempted_at` null: never sent, the dispatcher stopped first).
 */
const BATCH_ROWS = (p: string) => `select * from jsonb_to_recordset(${p}::jsonb) as r(batch_id uuid,
       lease_until timestamptz, organization_id uuid, id uuid, endpoint_id uuid, event_id uuid, event_tx bigint,
       event_type text, ok boolean, response_status int, duration_ms int, error text, attempted_at timestamptz,
       next_attempt_at timestamptz)`;

/** Deletes the batch rows of `rb` still under the lease they were sent under: those are recorded. */
const BATCHES_DONE = `delete from webhook_fanout_batches b
     using (select distinct organization_id, batch_id, lease_until from rb) k
     where b.organization_id = k.organization_id and b.id = k.batch_id and b.lease_until = k.lease_until
     returning b.organization_id, b.id, b.created_at`;

/**
 * Inserts the deliveries of the batches in `gone` with their first attempt (one write per delivery),
 * skipping endpoints deleted meanwhile.
 */
const FIRST_ATTEMPTS = `insert into webhook_deliveries (id, organization_id, endpoint_id, event_id, event_tx,
       event_type, status, attempt_count, next_attempt_at, last_attempt_at, response_status, duration_ms,
       last_error, attempts, delivered_at, created_at, updated_at)
     select r.id, r.organization_id, r.endpoint_id, r.event_id, r.event_tx, r.event_type,
       case when r.attempted_at is null then 'Pending' when r.ok then 'Succeeded'
         when r.next_attempt_at is null then 'Failed' else 'Pending' end,
       case when r.attempted_at is null then 0 else 1 end,
       case when r.attempted_at is null then now() when r.ok then null else r.next_attempt_at end,
       r.attempted_at, r.response_status, r.duration_ms, r.error,
       case when r.attempted_at is null then '[]'::jsonb
         else jsonb_build_array(jsonb_build_object('attemptedAt', r.attempted_at,
           'responseStatus', r.response_status, 'durationMs', r.duration_ms, 'error', r.error)) end,
       case when r.ok then r.attempted_at end,
       g.created_at, coalesce(r.attempted_at, now())
     from rb r join gone g on g.organization_id = r.organization_id and g.id = r.batch_id
     where exists (select 1 from webhook_endpoints w where w.organization_id = r.organization_id
       and w.id = r.endpoint_id)
     returning organization_id, endpoint_id, delivered_at is not null as ok, last_attempt_at as attempted_at`;

/**
 * Records attempts: `r` (delivery rows, updated) from `$a`, `rb` (finished batches, inserted)
 * from `$b`; then the endpoints' `failing_since`.
 */
const RECORD = (a: string, b: string) => `r as (${ATTEMPTS(a)}),
   done as (${COMPLETED_ATTEMPTS}),
   rb as (${BATCH_ROWS(b)}),
   gone as (${BATCHES_DONE}),
   first as (${FIRST_ATTEMPTS}),
   h as (
     select organization_id, endpoint_id, bool_or(ok) as any_ok, min(attempted_at) as first_at
     from (select organization_id, endpoint_id, ok, attempted_at from done
           union all
           select organization_id, endpoint_id, ok, attempted_at from first where attempted_at is not null) a
     group by organization_id, endpoint_id),
   fail as (${FAILING_SINCE})`;

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

/** Records attempts: $1 of delivery rows, $2 of finished batches (as the cycle's first step). */
export const COMPLETE = statement(
  'webhook_complete',
  `with ${RECORD('$1', '$2')}
   select (select count(*) from done)::int + (select count(*) from first)::int as recorded`,
);

/** The columns of a fanned-out delivery to send, from events `e` and endpoints `w`. */
const FANNED = (
  e: string,
  w: string,
) => `${e}.organization_id, gen_random_uuid() as id, ${w}.id as endpoint_id,
       ${e}.id as event_id, ${e}.tx as event_tx, ${e}.type as event_type, 0 as attempt_count, ${w}.url, ${w}.secret,
       ${EVENT_JSON(e)}::text as body`;

/** The endpoints `w` subscribed to an event `e`, enabled or not. */
const MATCHES = (e: string, w: string) => `${w}.organization_id = ${e}.organization_id
       and (cardinality(${w}.event_types) = 0 or ${e}.type = any(${w}.event_types))
       and ${w}.created_at <= ${e}.occurred_at`;

/** The endpoints `w` an event `e` goes to. */
const SUBSCRIBED = (e: string, w: string) => `${w}.enabled and ${MATCHES(e, w)}`;

/**
 * One dispatcher cycle in one statement (one round trip, and on PGlite one turn of its single
 * connection):
 *
 * - `r` … `fail`: record the attempts of the previous cycles (as `COMPLETE`): $3 of delivery rows,
 *   $5 of fan-out batches whose every delivery has finished;
 * - `cur` … `newb`: fan-out of up to $1 events past the shared position, as described in the
 *   dispatcher: the position advances past them and, for each endpoint they go to, the endpoint's
 *   batch is leased for $2 ms as a `webhook_fanout_batches` row — no delivery row yet;
 * - `lapsed` … `dropped`: the oldest batches whose lease lapsed (their process died; never one this
 *   statement records), fanned out again and leased again for $2 ms — or deleted, when none of its
 *   events goes to its endpoint now: an endpoint disabled since gets them as Pending deliveries (sent
 *   once it is enabled again, as any of its pending deliveries), one unsubscribed since does not;
 * - `due`, `claimed`: up to $4 due delivery rows (retries, leases that lapsed), leased for $2 ms
 *   with FOR UPDATE SKIP LOCKED — never one whose attempt this statement is recording.
 *
 * The position and the horizon enter the event reads as scalar subqueries, so that they are index
 * conditions of the (tx, id) index: the plan PostgreSQL keeps for this prepared statement then reads
 * only the events past the position, where a join with `cur` walked the index from its first entry in
 * every cycle (the cost of a cycle grew with the whole event log).
 *
 * Rows: one per delivery to send now (`kind` 'send', with the body; `batch_id` for a fanned-out
 * one), then one summary row (`kind` 'summary': events fanned out, attempts recorded, and
 * `held_back` when the fan-out could not take every event there is — another process holds the
 * position, or an event's transaction is younger than one still running — so that the dispatcher
 * looks again shortly).
 */
export const CYCLE = statement(
  'webhook_cycle',
  `with ${RECORD('$3', '$5')},
   cur as (select tx, event_id from webhook_fanout where id = 1 for update skip locked),
   horizon as (select pg_snapshot_xmin(pg_current_snapshot())::text::bigint as xmin),
   batch as (
     select e.* from events e
     where (e.tx, e.id) > ((select tx from cur), (select event_id from cur))
       and e.tx < (select xmin from horizon)
     order by e.tx, e.id limit $1),
   fan as (
     select ${FANNED('b', 'w')}
     from batch b join webhook_endpoints w on ${SUBSCRIBED('b', 'w')}),
   last as (select tx, id from batch order by tx desc, id desc limit 1),
   adv as (update webhook_fanout f set tx = last.tx, event_id = last.id from last where f.id = 1 returning 1),
   newb as (
     insert into webhook_fanout_batches (id, organization_id, endpoint_id, after_tx, after_event_id, last_tx,
       last_event_id, created_at, lease_until)
     select gen_random_uuid(), f.organization_id, f.endpoint_id, cur.tx, cur.event_id, last.tx, last.id, now(),
       now() + $2::int * interval '1 millisecond'
     from (select distinct organization_id, endpoint_id from fan) f, cur, last
     returning id, organization_id, endpoint_id, created_at, lease_until),
   lapsed as (
     select b.organization_id, b.id, b.endpoint_id, b.after_tx, b.after_event_id, b.last_tx, b.last_event_id,
       b.created_at
     from webhook_fanout_batches b
     where b.lease_until < now() and not exists (select 1 from rb where rb.batch_id = b.id)
     order by b.last_tx, b.last_event_id limit 10
     for update skip locked),
   refan as (
     select ${FANNED('e', 'w')}, l.id as batch_id, l.created_at,
       (now() + $2::int * interval '1 millisecond')::timestamptz(3) as lease_until
     from lapsed l
     join events e on e.organization_id = l.organization_id
       and (e.tx, e.id) > (l.after_tx, l.after_event_id) and (e.tx, e.id) <= (l.last_tx, l.last_event_id)
     join webhook_endpoints w on w.id = l.endpoint_id and ${SUBSCRIBED('e', 'w')}),
   parked as (
     insert into webhook_deliveries (id, organization_id, endpoint_id, event_id, event_tx, event_type, status,
       next_attempt_at, created_at, updated_at)
     select gen_random_uuid(), e.organization_id, w.id, e.id, e.tx, e.type, 'Pending', now(), l.created_at, now()
     from lapsed l
     join events e on e.organization_id = l.organization_id
       and (e.tx, e.id) > (l.after_tx, l.after_event_id) and (e.tx, e.id) <= (l.last_tx, l.last_event_id)
     join webhook_endpoints w on w.id = l.endpoint_id and not w.enabled and ${MATCHES('e', 'w')}
     returning 1),
   relet as (
     update webhook_fanout_batches b set lease_until = now() + $2::int * interval '1 millisecond'
     from lapsed l where b.organization_id = l.organization_id and b.id = l.id
       and exists (select 1 from refan where refan.batch_id = l.id)
     returning 1),
   dropped as (
     delete from webhook_fanout_batches b
     using lapsed l where b.organization_id = l.organization_id and b.id = l.id
       and not exists (select 1 from refan where refan.batch_id = l.id)
     returning 1),
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
     returning d.organization_id, d.id, d.endpoint_id, d.event_id, d.event_tx, d.event_type, d.payload,
       d.attempt_count, d.created_at, d.lease_until),
   send as (
     select c.organization_id, c.id, c.endpoint_id, c.event_id, c.event_tx, c.event_type, c.attempt_count,
       w.url, w.secret, coalesce(c.payload::text, ${EVENT_JSON('e')}::text) as body, null::uuid as batch_id,
       c.created_at, c.lease_until
     from claimed c
     join webhook_endpoints w on w.organization_id = c.organization_id and w.id = c.endpoint_id
     left join events e on e.organization_id = c.organization_id and e.id = c.event_id
     union all
     select f.*, n.id, n.created_at, n.lease_until
     from fan f join newb n on n.organization_id = f.organization_id and n.endpoint_id = f.endpoint_id
     union all
     select * from refan)
   select 'send' as kind, s.organization_id, s.id, s.endpoint_id, s.event_tx, s.event_id, s.event_type,
     s.attempt_count, s.created_at, s.lease_until, s.url, s.secret, s.body, s.batch_id, null::int as events,
     null::int as recorded, null::boolean as held_back
   from send s
   union all
   select 'summary', null, null, null, null, null, null, null, null, null, null, null, null, null,
     (select count(*) from batch)::int, (select count(*) from done)::int + (select count(*) from first)::int,
     not exists (select 1 from cur)
       or (select e.tx from events e
           where (e.tx, e.id) > ((select tx from cur), (select event_id from cur))
             and e.tx >= (select xmin from horizon)
           order by e.tx, e.id limit 1) is not null
   order by kind, endpoint_id, event_tx, event_id`,
);
