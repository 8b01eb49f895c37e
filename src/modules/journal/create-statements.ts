/**
 * The create's statements (statements.ts): the create context — company, line accounts, partners and
 * periods — read alone or with the session look-up, concurrent reads sharing one statement; and the
 * create itself, entries of one company written in one guarded statement.
 */
import { v7 as uuidv7 } from 'uuid';
import { type Db, run, statement } from '../../db/client.ts';
import { SESSION_COLUMNS, SESSION_JOINS, type SessionRow } from '../../http/auth.ts';
import { Combiner, perDatabase } from '../../db/combiner.ts';
import { OPEN_PERIOD_STATUS } from '../../domain/journal/rules.ts';
import { INITIAL_STATUS } from '../../domain/journal/workflow.ts';
import { eventCte, eventsCommitted, JOURNAL_ENTRY_SUMMARY } from '../events/record.ts';
import type { NewEntryRow, NewLineRow } from './repo.ts';
import { entryWithLines, LINES_JSON, type StoredRows } from './statements.ts';

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
