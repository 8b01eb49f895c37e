/**
 * The workflow's statements (statements.ts): submit, approve, reject and post, each one guarded
 * statement; and the organization of an entry addressed by id alone, read alone or with the session
 * look-up.
 */
import { v7 as uuidv7 } from 'uuid';
import { type Db, run, statement } from '../../db/client.ts';
import { SESSION_COLUMNS, SESSION_JOINS, type SessionRow } from '../../http/auth.ts';
import { Combiner, perDatabase } from '../../db/combiner.ts';
import {
  CLOSING_ENTRY_TYPE,
  LINE_ACCOUNT_REASONS,
  type LineAccountReason,
  OPEN_PERIOD_STATUS,
} from '../../domain/journal/rules.ts';
import { type Actor, MOVES, SEGREGATION, type SegregatedOperation } from '../../domain/journal/workflow.ts';
import { eventCte, type EventType, eventsCommitted, JOURNAL_ENTRY_SUMMARY } from '../events/record.ts';
import { balancePostingCtes } from '../ledger/posting.ts';
import { entryWithLines, LINES_JSON, type StoredRows } from './statements.ts';

/**
 * The entry as this statement's snapshot saw it must be the version now locked (`locked.v`, its
 * `xmin`): then everything read from the snapshot — its lines above all — is current. A concurrent change
 * (a PUT replacing the lines, another transition) gives the row a new version, and the statement
 * writes nothing.
 */
const SAME_VERSION = `(select xmin from journal_entries where organization_id = $1 and id = $2) = locked.v`;

/** The returned entry, its company's functional currency and its lines. */
const RETURN_ENTRY = `select u.*, c.functional_currency,
     (select ${LINES_JSON('l')} from journal_lines l
      where l.organization_id = $1 and l.journal_entry_id = u.id) as lines
   from u join companies c on c.organization_id = u.organization_id and c.id = u.company_id`;

/**
 * The SQL form of a segregation rule of the workflow on the locked entry `e`: true when the rule
 * allows the move. `enforced` is the parameter of the organization's setting, `actors` the
 * parameters holding each actor's user id.
 */
function segregationAllows<O extends SegregatedOperation>(
  operation: O,
  enforced: string,
  actors: Record<(typeof SEGREGATION)[O]['actors'][number], string>,
): string {
  const rule: { exemptStatus: string | null; actors: readonly Actor[] } = SEGREGATION[operation];
  const named = actors as Partial<Record<Actor, string>>;
  const exempt = rule.exemptStatus === null ? '' : ` and e.status <> '${rule.exemptStatus}'`;
  const creators = rule.actors.map((actor) => `e.created_by = ${named[actor]!}`).join(' or ');
  return `not (${enforced}${exempt} and (${creators}))`;
}

/** The workflow moves that need no more than the caller (each starts from one status). */
export type SimpleOperation = 'submit' | 'approve' | 'reject';

/**
 * Submit, approve or reject: `$1` organization, `$2` entry, `$3` caller, `$4` now, `$5` audit id,
 * `$6` event id; `extra` adds conditions on the locked row `e` (with its own parameter `$7`). The
 * source and target status are the move's in the workflow.
 */
function transition(operation: SimpleOperation, set: string, action: string, extra = '') {
  const {
    from: [from],
    to,
  } = MOVES[operation];
  return statement(
    `journal_${operation}`,
    `with locked as (
       select e.id, e.xmin as v from journal_entries e
       where e.organization_id = $1 and e.id = $2 and e.status = '${from}' ${extra}
       for update),
     u as (
       update journal_entries j set status = '${to}', ${set}, updated_at = $4
       from locked where j.organization_id = $1 and j.id = locked.id and ${SAME_VERSION}
       returning j.*),
     audit as (
       insert into audit_log (id, organization_id, user_id, action, entity_type, entity_id, changes)
       select $5, $1, $3, '${action}', 'JournalEntry', u.id,
         '{"status": {"from": "${from}", "to": "${to}"}}'::jsonb
       from u),
     ${eventCte('event', {
       from: 'u',
       id: '$6::uuid',
       organizationId: '$1',
       type: TRANSITION_EVENTS[operation],
       actorId: '$3',
       resourceType: 'JournalEntry',
       resourceId: 'u.id',
       data: JOURNAL_ENTRY_SUMMARY('u'),
     })}
     ${RETURN_ENTRY}`,
  );
}

const TRANSITION_EVENTS = {
  submit: 'JournalEntrySubmitted',
  approve: 'JournalEntryApproved',
  reject: 'JournalEntryRejected',
} as const satisfies Record<SimpleOperation, EventType>;

const TRANSITIONS: Record<SimpleOperation, ReturnType<typeof statement>> = {
  submit: transition('submit', 'submitted_by = $3, submitted_at = $4', 'Submit'),
  // $7: segregation of duties enforced.
  approve: transition(
    'approve',
    'approved_by = $3, approved_at = $4',
    'Approve',
    `and ${segregationAllows('approve', '$7::boolean', { caller: '$3' })}`,
  ),
  // $7: the rejection reason.
  reject: transition('reject', 'rejected_by = $3, rejected_at = $4, rejection_reason = $7::text', 'Reject'),
};

export type StoredEntry = StoredRows & { functionalCurrency: string };

function storedEntry(r: Record<string, unknown>): StoredEntry {
  return { ...entryWithLines(r), functionalCurrency: r.functional_currency as string };
}

/**
 * Submit, approve or reject in ONE statement: the entry is locked, and only when it is still in the
 * transition's source status (and, for approve, `segregation` does not forbid the caller) and
 * unchanged since the statement's snapshot is it moved and the audit entry written. Null when nothing
 * was written.
 */
export async function transitionEntry(
  db: Db,
  operation: SimpleOperation,
  p: {
    organizationId: string;
    id: string;
    userId: string;
    auditId: string;
    eventId?: string;
    extra?: unknown;
  },
): Promise<StoredEntry | null> {
  const params: unknown[] = [p.organizationId, p.id, p.userId, new Date(), p.auditId, p.eventId ?? uuidv7()];
  if (operation !== 'submit') params.push(p.extra ?? null);
  const [r] = await run<Record<string, unknown>>(db, TRANSITIONS[operation], params);
  if (r) eventsCommitted(db); // the statement (its own transaction) wrote the event
  return r ? storedEntry(r) : null;
}

/**
 * The line-account rule of the workflow's posting rules on a line's account `a` (null when not found)
 * of the locked entry: each reason the rule refuses a line for, as SQL. Keyed by the rule's reasons,
 * so a new reason cannot be left out here.
 */
const LINE_ACCOUNT_REFUSES: Record<LineAccountReason, string> = {
  NotFound: 'a.id is null',
  DifferentCompany: 'a.company_id <> locked.company_id',
  Inactive: 'not a.is_active',
  NotPostable: 'not a.is_postable',
};
const LINE_ACCOUNT_REFUSED = LINE_ACCOUNT_REASONS.map((reason) => LINE_ACCOUNT_REFUSES[reason]).join(' or ');

const POST = statement(
  'journal_post',
  `with locked as (
     select e.id, e.xmin as v, e.status, e.company_id, e.fiscal_year, e.fiscal_period
     from journal_entries e
     where e.organization_id = $1 and e.id = $2 and e.status = any($6::text[])
       and ${segregationAllows('post', '$7::boolean', { caller: '$3', postedBy: '$9' })}
     for update),
   guard as (
     select locked.id, locked.status from locked
     join companies c on c.organization_id = $1 and c.id = locked.company_id and c.is_active
     join fiscal_periods p on p.organization_id = $1 and p.company_id = locked.company_id
       and p.fiscal_year = locked.fiscal_year and p.period_number = locked.fiscal_period
       and p.status = '${OPEN_PERIOD_STATUS}'
     where ${SAME_VERSION}
       and not exists (
         select 1 from journal_lines l
         left join accounts a on a.organization_id = $1 and a.id = l.account_id
         where l.organization_id = $1 and l.journal_entry_id = locked.id
           and (${LINE_ACCOUNT_REFUSED}))
     for share of c, p),
   u as (
     update journal_entries j
     set status = '${MOVES.post.to}', posting_date = $8::date, posted_by = $9, posted_at = $4, updated_at = $4
     from guard where j.organization_id = $1 and j.id = guard.id
     returning j.*),
   ${balancePostingCtes({ entry: 'u', organization: '$1', isClosing: `u.entry_type = '${CLOSING_ENTRY_TYPE}'` })},
   audit as (
     insert into audit_log (id, organization_id, user_id, action, entity_type, entity_id, changes)
     select $5, $1, $3, 'Post', 'JournalEntry', u.id,
       jsonb_build_object('status', jsonb_build_object('from', guard.status, 'to', '${MOVES.post.to}'))
     from u, guard),
   ${eventCte('event', {
     from: 'u',
     id: '$10::uuid',
     organizationId: '$1',
     type: 'JournalEntryPosted',
     actorId: '$3',
     resourceType: 'JournalEntry',
     resourceId: 'u.id',
     data: JOURNAL_ENTRY_SUMMARY('u'),
   })}
   ${RETURN_ENTRY}`,
);

/**
 * Posts an entry in ONE statement: the entry is locked; only when it is in an allowed status,
 * segregation of duties allows the caller and the posting user, it is unchanged since the snapshot,
 * its company is active, its fiscal period open (both share-locked, as the transactional path does)
 * and every line account belongs to the company, is active and postable, is it posted, its lines'
 * functional amounts added per account to the daily and monthly balances (ledger/posting.ts) and the
 * audit entry written. Null when nothing was written.
 */
export async function postEntry(
  db: Db,
  p: {
    organizationId: string;
    id: string;
    userId: string;
    auditId: string;
    allowedStatuses: readonly string[];
    segregation: boolean;
    postingDate: string;
    postedBy: string;
    eventId?: string;
  },
): Promise<StoredEntry | null> {
  const [r] = await run<Record<string, unknown>>(db, POST, [
    p.organizationId,
    p.id,
    p.userId,
    new Date(),
    p.auditId,
    p.allowedStatuses,
    p.segregation,
    p.postingDate,
    p.postedBy,
    p.eventId ?? uuidv7(),
  ]);
  if (r) eventsCommitted(db); // the statement (its own transaction) wrote the event
  return r ? storedEntry(r) : null;
}

const ENTRY_ORGANIZATION = statement(
  'journal_entry_organization',
  `select e.organization_id, m.role, case when m.role is not null then o.settings end as settings
   from journal_entries e
   join organizations o on o.id = e.organization_id
   left join memberships m on m.organization_id = e.organization_id and m.user_id = $2
   where e.id = $1`,
);

/**
 * The organization of an entry addressed by id alone, with the caller's role there (null: not a
 * member) and, for a member, the organization's settings.
 */
export async function entryOrganization(
  db: Db,
  id: string,
  userId: string,
): Promise<{ organizationId: string; exists: true; role: string | null; settings: unknown } | null> {
  const [r] = await run<{ organization_id: string; role: string | null; settings: unknown }>(
    db,
    ENTRY_ORGANIZATION,
    [id, userId],
  );
  return r ? { organizationId: r.organization_id, exists: true, role: r.role, settings: r.settings } : null;
}

/**
 * The session look-up of a request addressing an entry by id alone, with the entry's organization
 * (http/auth.ts `LookAhead`): the session columns are those of the entry's organization.
 */
const SESSION_AND_ENTRY_ORGANIZATION = statement(
  'auth_sessions_journal_entry',
  `select q.ord::int as ord, q.organization_id, ${SESSION_COLUMNS}
   from (select r.ord, r.token_hash, e.organization_id
         from unnest($1::text[], $2::uuid[]) with ordinality as r(token_hash, entry_id, ord)
         left join journal_entries e on e.id = r.entry_id) as q
   ${SESSION_JOINS}`,
);

/** An entry's organization read with the session (as `entryOrganization` answers it), and the entry. */
export interface EntryOrganizationReadAhead {
  entryId: string;
  found: Awaited<ReturnType<typeof entryOrganization>>;
}

type SessionAndEntry = { session: SessionRow | null; ahead: EntryOrganizationReadAhead };

/** Session look-ups with entry organizations of concurrent requests go together (db/combiner.ts). */
const sessionAndEntryReader = perDatabase(
  (db) =>
    new Combiner<{ tokenHash: string; entryId: string }, SessionAndEntry>(async (items) => {
      const rows = await run<SessionRow & { ord: number; organization_id: string | null }>(
        db,
        SESSION_AND_ENTRY_ORGANIZATION,
        [items.map((i) => i.tokenHash), items.map((i) => i.entryId)],
      );
      const byOrd = new Map(rows.map((r) => [r.ord, r]));
      return items.map((item, i) => {
        const r = byOrd.get(i + 1) ?? null;
        const found =
          r && r.organization_id !== null
            ? {
                organizationId: r.organization_id,
                exists: true as const,
                role: r.role,
                settings: r.settings ?? null,
              }
            : null;
        return { session: r, ahead: { entryId: item.entryId, found } };
      });
    }, 100),
);

/** The session look-up of a request addressing an entry by id alone, with the entry's organization. */
export function sessionWithEntryOrganization(
  db: Db,
  tokenHash: string,
  entryId: string,
): Promise<SessionAndEntry> {
  return sessionAndEntryReader(db).run('', { tokenHash, entryId });
}
