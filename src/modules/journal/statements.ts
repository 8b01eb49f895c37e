/**
 * The journal's hot-path SQL as prepared statements (db/client.ts `statement`): creating an entry and
 * moving it through the workflow are one read and one write statement each, instead of a transaction
 * of many builder queries. Each write is ONE statement — one transaction — whose data-modifying CTEs
 * all depend on a guard that re-checks, under the same row locks the transactional path takes, the
 * state the service validated: when the guard finds the state changed, the statement writes nothing
 * and returns no row, and the service falls back to its transactional path, which reports the error
 * of the new state (concurrent requests are serialised and each sees the state left by
 * the previous one).
 *
 * Results come back as table rows (`entryRowOf`) and the lines as a JSON array whose amounts are text
 * (`LINES_JSON`, `lineRowOf`): NUMERIC never passes through a JS number.
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
import {
  type Actor,
  INITIAL_STATUS,
  MOVES,
  SEGREGATION,
  type SegregatedOperation,
} from '../../domain/journal/workflow.ts';
import { eventCte, type EventType, eventsCommitted, JOURNAL_ENTRY_SUMMARY } from '../events/record.ts';
import { balancePostingCtes } from '../ledger/posting.ts';
import type { EntryRow, LineRow, NewEntryRow, NewLineRow } from './repo.ts';

/** `journal_entries` columns (snake_case, as a statement returns them) → the Drizzle row shape. */
export function entryRowOf(r: Record<string, unknown>): EntryRow {
  return {
    id: r.id as string,
    organizationId: r.organization_id as string,
    companyId: r.company_id as string,
    entryNumber: Number(r.entry_number),
    referenceNumber: r.reference_number as string | null,
    description: r.description as string,
    transactionDate: r.transaction_date as string,
    documentDate: r.document_date as string | null,
    postingDate: r.posting_date as string | null,
    fiscalYear: Number(r.fiscal_year),
    fiscalPeriod: Number(r.fiscal_period),
    entryType: r.entry_type as string,
    sourceModule: r.source_module as string,
    sourceDocumentRef: r.source_document_ref as string | null,
    isMultiCurrency: r.is_multi_currency as boolean,
    status: r.status as string,
    isReversing: r.is_reversing as boolean,
    reversedEntryId: r.reversed_entry_id as string | null,
    reversingEntryId: r.reversing_entry_id as string | null,
    totalDebits: r.total_debits as string,
    totalCredits: r.total_credits as string,
    createdBy: r.created_by as string,
    submittedBy: r.submitted_by as string | null,
    submittedAt: r.submitted_at as Date | null,
    approvedBy: r.approved_by as string | null,
    approvedAt: r.approved_at as Date | null,
    rejectedBy: r.rejected_by as string | null,
    rejectedAt: r.rejected_at as Date | null,
    rejectionReason: r.rejection_reason as string | null,
    postedBy: r.posted_by as string | null,
    postedAt: r.posted_at as Date | null,
    reversedBy: r.reversed_by as string | null,
    reversedAt: r.reversed_at as Date | null,
    createdAt: r.created_at as Date,
    updatedAt: r.updated_at as Date,
  };
}

/**
 * A JSON array of the lines of relation `l` (a `journal_lines` row source), amounts and rates as
 * text, ordered by line number; `[]` when there are none.
 */
const LINES_JSON = (l: string) => `coalesce(json_agg(json_build_object(
    'id', ${l}.id, 'organizationId', ${l}.organization_id, 'journalEntryId', ${l}.journal_entry_id,
    'companyId', ${l}.company_id, 'lineNumber', ${l}.line_number, 'accountId', ${l}.account_id,
    'currency', ${l}.currency, 'debitAmount', ${l}.debit_amount::text,
    'creditAmount', ${l}.credit_amount::text, 'functionalDebitAmount', ${l}.functional_debit_amount::text,
    'functionalCreditAmount', ${l}.functional_credit_amount::text, 'exchangeRate', ${l}.exchange_rate::text,
    'exchangeRateId', ${l}.exchange_rate_id, 'exchangeRateLegIds', ${l}.exchange_rate_leg_ids,
    'memo', ${l}.memo, 'dimensions', ${l}.dimensions, 'intercompanyPartnerId', ${l}.intercompany_partner_id)
    order by ${l}.line_number), '[]'::json)`;

/** A line of `LINES_JSON` → the Drizzle row shape. */
export function lineRowOf(j: Record<string, unknown>): LineRow {
  return {
    id: j.id as string,
    organizationId: j.organizationId as string,
    journalEntryId: j.journalEntryId as string,
    companyId: j.companyId as string,
    lineNumber: Number(j.lineNumber),
    accountId: j.accountId as string,
    currency: j.currency as string,
    debitAmount: j.debitAmount as string | null,
    creditAmount: j.creditAmount as string | null,
    functionalDebitAmount: j.functionalDebitAmount as string | null,
    functionalCreditAmount: j.functionalCreditAmount as string | null,
    exchangeRate: j.exchangeRate as string,
    exchangeRateId: j.exchangeRateId as string | null,
    exchangeRateLegIds: (j.exchangeRateLegIds as string[] | null) ?? [],
    memo: j.memo as string | null,
    dimensions: j.dimensions ?? null,
    intercompanyPartnerId: j.intercompanyPartnerId as string | null,
  };
}

/** An entry and its lines as stored. */
export interface StoredRows {
  row: EntryRow;
  lines: LineRow[];
}

/** A returned `journal_entries` row with its `lines` JSON column → entry and lines. */
function entryWithLines(r: Record<string, unknown>): StoredRows {
  const lines = (typeof r.lines === 'string' ? JSON.parse(r.lines) : r.lines) as Record<string, unknown>[];
  return { row: entryRowOf(r), lines: lines.map(lineRowOf) };
}

// ---------------------------------------------------------------------------------------------------
// Create

/** What R1–R4 of a create need, read in one statement (no locks; the write re-checks under locks). */
export interface CreateContext {
  company: {
    id: string;
    isActive: boolean;
    functionalCurrency: string;
    fiscalYearEndMonth: number;
    fiscalYearEndDay: number;
  };
  /** The line accounts found in the organization, by id. */
  accounts: Map<string, LineAccount>;
  /** Which of the given partner ids are companies of the organization. */
  partnerCompanies: Set<string>;
  /** Status of the periods that may hold the date: the regular period of each candidate fiscal year
   * containing it, and the adjustment periods of those years. */
  periods: { year: number; period: number; status: string }[];
}

export interface LineAccount {
  id: string;
  companyId: string;
  isActive: boolean;
  isPostable: boolean;
  isIntercompany: boolean;
  intercompanyPartnerId: string | null;
}

/**
 * The create context's columns over a row source `q` (`organization_id`, `company_id`, `account_ids`,
 * `partner_ids`, `year`, `date`) joined to its company `c`: null company columns when the company is
 * not one of the organization.
 */
const CONTEXT_COLUMNS = `c.id as company_id, c.is_active, c.functional_currency, c.fiscal_year_end_month,
     c.fiscal_year_end_day,
     (select coalesce(json_agg(json_build_object('id', a.id, 'companyId', a.company_id,
         'isActive', a.is_active, 'isPostable', a.is_postable, 'isIntercompany', a.is_intercompany,
         'intercompanyPartnerId', a.intercompany_partner_id)), '[]'::json)
      from accounts a where c.id is not null and a.organization_id = q.organization_id
        and a.id = any(q.account_ids)) as accounts,
     (select coalesce(json_agg(x.id), '[]'::json)
      from companies x where c.id is not null and x.organization_id = q.organization_id
        and x.id = any(q.partner_ids)) as partners,
     (select coalesce(json_agg(json_build_object('year', p.fiscal_year, 'period', p.period_number,
         'status', p.status)), '[]'::json)
      from fiscal_periods p
      where c.id is not null and p.organization_id = q.organization_id and p.company_id = q.company_id
        and p.fiscal_year between q.year - 1 and q.year + 1
        and (p.period_number = 13 or (p.start_date <= q.date and p.end_date >= q.date))) as periods`;

const CONTEXT_ITEM = `ord int, organization_id uuid, company_id uuid, account_ids uuid[], partner_ids uuid[],
     year int, date date`;

const CREATE_CONTEXT = statement(
  'journal_create_context',
  `select q.ord, ${CONTEXT_COLUMNS}
   from jsonb_to_recordset($1::jsonb) as q(${CONTEXT_ITEM})
   join companies c on c.organization_id = q.organization_id and c.id = q.company_id`,
);

/**
 * The session look-up of a create request with its create context (http/auth.ts `LookAhead`): one
 * statement for both. The context is read for a member of the organization only.
 */
const SESSION_AND_CREATE_CONTEXT = statement(
  'auth_sessions_journal_create',
  `select q.ord, ${SESSION_COLUMNS}, ${CONTEXT_COLUMNS}
   from jsonb_to_recordset($1::jsonb) as q(token_hash text, ${CONTEXT_ITEM})
   ${SESSION_JOINS}
   left join companies c on m.role is not null and c.organization_id = q.organization_id
     and c.id = q.company_id`,
);

const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;

export interface ContextQuery {
  organizationId: string;
  companyId: string;
  accountIds: string[];
  partnerIds: string[];
  transactionDate: string;
}

/** A context query as an item of the statements' `jsonb_to_recordset` (`CONTEXT_ITEM`). */
const contextItem = (q: ContextQuery, ord: number) => ({
  ord,
  organization_id: q.organizationId,
  company_id: q.companyId,
  account_ids: [...new Set(q.accountIds)],
  partner_ids: [...new Set(q.partnerIds)],
  year: Number(q.transactionDate.slice(0, 4)),
  date: q.transactionDate,
});

/** Create contexts of concurrent requests are read together (db/combiner.ts). */
const contextReader = perDatabase(
  (db) =>
    new Combiner<ContextQuery, CreateContext | null>(async (queries) => {
      const rows = await run<Record<string, unknown>>(db, CREATE_CONTEXT, [
        JSON.stringify(queries.map(contextItem)),
      ]);
      const byOrd = new Map(rows.map((r) => [Number(r.ord), r]));
      return queries.map((_, ord) => {
        const r = byOrd.get(ord);
        return r ? contextOf(r) : null;
      });
    }, 100),
);

/** The context of a row with `CONTEXT_COLUMNS`, or null when it has no company. */
function contextOf(r: Record<string, unknown>): CreateContext | null {
  if (r.company_id === null || r.company_id === undefined) return null;
  return {
    company: {
      id: r.company_id as string,
      isActive: r.is_active as boolean,
      functionalCurrency: r.functional_currency as string,
      fiscalYearEndMonth: Number(r.fiscal_year_end_month),
      fiscalYearEndDay: Number(r.fiscal_year_end_day),
    },
    accounts: new Map(json<LineAccount[]>(r.accounts).map((a) => [a.id, a])),
    partnerCompanies: new Set(json<string[]>(r.partners)),
    periods: json<{ year: number; period: number; status: string }[]>(r.periods),
  };
}

/**
 * The create context, or null when the company is not one of the organization. The reads of
 * concurrent creates (of any company) share one statement.
 */
export function createContext(db: Db, query: ContextQuery): Promise<CreateContext | null> {
  return contextReader(db).run('', query);
}

/** A create context read with the session, and the query it was read for. */
export interface ContextReadAhead {
  query: ContextQuery;
  context: CreateContext | null;
}

type SessionAndContext = { session: SessionRow | null; ahead: ContextReadAhead };

/** Session look-ups with create contexts of concurrent requests go together (db/combiner.ts). */
const sessionAndContextReader = perDatabase(
  (db) =>
    new Combiner<{ tokenHash: string; query: ContextQuery }, SessionAndContext>(async (items) => {
      const rows = await run<Record<string, unknown>>(db, SESSION_AND_CREATE_CONTEXT, [
        JSON.stringify(items.map((i, ord) => ({ ...contextItem(i.query, ord), token_hash: i.tokenHash }))),
      ]);
      const byOrd = new Map(rows.map((r) => [Number(r.ord), r]));
      return items.map((item, ord) => {
        const r = byOrd.get(ord);
        const session = r ? (r as unknown as SessionRow) : null;
        return { session, ahead: { query: item.query, context: r ? contextOf(r) : null } };
      });
    }, 100),
);

/** The session look-up of a create request with its create context (http/auth.ts `LookAhead`). */
export function sessionWithCreateContext(
  db: Db,
  tokenHash: string,
  query: ContextQuery,
): Promise<SessionAndContext> {
  return sessionAndContextReader(db).run('', { tokenHash, query });
}

const CREATE = statement(
  'journal_create',
  `with items as (
     select * from jsonb_to_recordset($3::jsonb) as i(ord int, id uuid, fiscal_year int,
       fiscal_period smallint, reference_number text, description text, transaction_date date,
       document_date date, entry_type text, source_module text, source_document_ref text,
       is_multi_currency boolean, total_debits numeric, total_credits numeric, created_by uuid,
       created_at timestamptz, audit_id uuid, event_id uuid)),
   open_periods as (
     select p.fiscal_year, p.period_number from companies c
     join fiscal_periods p on p.organization_id = c.organization_id and p.company_id = c.id
     where c.organization_id = $1 and c.id = $2 and c.is_active and p.status = '${OPEN_PERIOD_STATUS}'
       and (p.fiscal_year, p.period_number) in (select fiscal_year, fiscal_period from items)
     for share of c, p),
   accepted as (
     select i.*, row_number() over (order by i.ord)::int as rn, count(*) over ()::int as n
     from items i
     where exists (select 1 from open_periods o
                   where o.fiscal_year = i.fiscal_year and o.period_number = i.fiscal_period)),
   counter as (
     insert into entry_counters as ec (organization_id, company_id, last_number)
     select $1, $2, count(*)::int from accepted having count(*) > 0
     on conflict (organization_id, company_id) do update set last_number = ec.last_number + excluded.last_number
     returning last_number),
   header as (
     insert into journal_entries (id, organization_id, company_id, entry_number, reference_number,
       description, transaction_date, document_date, fiscal_year, fiscal_period, entry_type,
       source_module, source_document_ref, is_multi_currency, status, total_debits, total_credits,
       created_by, created_at, updated_at)
     select a.id, $1, $2, counter.last_number - a.n + a.rn, a.reference_number, a.description,
       a.transaction_date, a.document_date, a.fiscal_year, a.fiscal_period, a.entry_type,
       a.source_module, a.source_document_ref, a.is_multi_currency, '${INITIAL_STATUS}', a.total_debits,
       a.total_credits, a.created_by, a.created_at, a.created_at
     from accepted a, counter
     returning *),
   lines as (
     insert into journal_lines (id, organization_id, journal_entry_id, company_id, line_number,
       account_id, currency, debit_amount, credit_amount, functional_debit_amount,
       functional_credit_amount, exchange_rate, exchange_rate_id, exchange_rate_leg_ids, memo,
       dimensions, intercompany_partner_id)
     select l.id, $1, header.id, $2, l.line_number, l.account_id, l.currency, l.debit_amount,
       l.credit_amount, l.functional_debit_amount, l.functional_credit_amount, l.exchange_rate,
       l.exchange_rate_id, l.exchange_rate_leg_ids, l.memo, l.dimensions, l.intercompany_partner_id
     from jsonb_to_recordset($4::jsonb) as l(entry_id uuid, id uuid, line_number smallint,
       account_id uuid, currency text, debit_amount numeric, credit_amount numeric,
       functional_debit_amount numeric, functional_credit_amount numeric, exchange_rate numeric,
       exchange_rate_id uuid, exchange_rate_leg_ids uuid[], memo text, dimensions jsonb,
       intercompany_partner_id uuid)
     join header on header.id = l.entry_id
     returning *),
   audit as (
     insert into audit_log (id, organization_id, user_id, action, entity_type, entity_id, changes)
     select a.audit_id, $1, a.created_by, 'Create', 'JournalEntry', a.id, null
     from accepted a join header on header.id = a.id),
   ${eventCte('event', {
     from: 'accepted a join header on header.id = a.id',
     id: 'a.event_id',
     organizationId: '$1',
     type: 'JournalEntryCreated',
     actorId: 'a.created_by',
     resourceType: 'JournalEntry',
     resourceId: 'header.id',
     data: JOURNAL_ENTRY_SUMMARY('header'),
   })}
   select header.*,
     (select ${LINES_JSON('l')} from lines l where l.journal_entry_id = header.id) as lines
   from header`,
);

/** A validated new entry of one company, ready to be written (see `insertEntries`). */
export interface NewEntry {
  entry: Omit<NewEntryRow, 'entryNumber'> & { createdAt: Date };
  lines: NewLineRow[];
  auditId: string;
  /** Id of the entry's `JournalEntryCreated` event (default: a new UUIDv7). */
  eventId?: string;
}

/**
 * Writes validated new entries of ONE company in ONE statement: under share locks on the company and
 * the entries' fiscal periods (as the transactional path takes them) it re-checks that the company is
 * active and each entry's period exists and is open; the accepted entries, in the given order, draw
 * consecutive numbers (the counter row stays locked only until this statement commits) and their
 * headers, lines and `Create` audit entries are inserted. Returns, per given entry, its stored row and
 * lines, or null — nothing written for it — when its re-check failed.
 */
export async function insertEntries(db: Db, entries: NewEntry[]): Promise<(StoredRows | null)[]> {
  const first = entries[0]!.entry;
  const rows = await run<Record<string, unknown>>(db, CREATE, [
    first.organizationId,
    first.companyId,
    JSON.stringify(
      entries.map(({ entry: e, auditId, eventId }, ord) => ({
        ord,
        id: e.id,
        fiscal_year: e.fiscalYear,
        fiscal_period: e.fiscalPeriod,
        reference_number: e.referenceNumber ?? null,
        description: e.description,
        transaction_date: e.transactionDate,
        document_date: e.documentDate ?? null,
        entry_type: e.entryType ?? 'Standard',
        source_module: e.sourceModule ?? 'GeneralLedger',
        source_document_ref: e.sourceDocumentRef ?? null,
        is_multi_currency: e.isMultiCurrency ?? false,
        total_debits: e.totalDebits,
        total_credits: e.totalCredits,
        created_by: e.createdBy,
        created_at: e.createdAt.toISOString(),
        audit_id: auditId,
        event_id: eventId ?? uuidv7(),
      })),
    ),
    JSON.stringify(
      entries.flatMap(({ entry, lines }) =>
        lines.map((l) => ({
          entry_id: entry.id,
          id: l.id,
          line_number: l.lineNumber,
          account_id: l.accountId,
          currency: l.currency,
          debit_amount: l.debitAmount ?? null,
          credit_amount: l.creditAmount ?? null,
          functional_debit_amount: l.functionalDebitAmount ?? null,
          functional_credit_amount: l.functionalCreditAmount ?? null,
          exchange_rate: l.exchangeRate,
          exchange_rate_id: l.exchangeRateId ?? null,
          exchange_rate_leg_ids: l.exchangeRateLegIds ?? [],
          memo: l.memo ?? null,
          dimensions: l.dimensions ?? null,
          intercompany_partner_id: l.intercompanyPartnerId ?? null,
        })),
      ),
    ),
  ]);
  if (rows.length > 0) eventsCommitted(db); // the statement (its own transaction) wrote their events
  const stored = new Map(rows.map((r) => [r.id as string, entryWithLines(r)]));
  return entries.map((e) => stored.get(e.entry.id) ?? null);
}

// ---------------------------------------------------------------------------------------------------
// Workflow

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
