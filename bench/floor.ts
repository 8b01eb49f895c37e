/**
 * The raw-SQL floor: the rows that `POST /api/v1/journal-entries` writes (the counter bump, the entry
 * header, its two lines and the audit entry), written by a plain driver client with no HTTP, no
 * validation, no reads and no ORM, at the same concurrency as the HTTP scenario, in ONE statement
 * (data-modifying CTEs) run on its own — one statement, one transaction, one round trip: the least a
 * client writing entries one by one can do.
 *
 * `entriesPerStatement` > 1 writes that many entries per statement (one counter bump by n, one
 * commit): the floor of group commit, which the service uses under load (db/combiner.ts). The report
 * shows both, so that the service's numbers can be read against either.
 */
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { loop } from './load.ts';

export interface FloorTarget {
  organizationId: string;
  companyId: string;
  currency: string;
  userId: string;
  debitAccountId: string;
  creditAccountId: string;
  transactionDate: string;
  fiscalYear: number;
  fiscalPeriod: number;
}

type Run = (text: string, params: unknown[]) => Promise<unknown>;

/** `n` entries in ONE statement: counter bump by n → n headers → 2n lines → n audit entries. */
const FLOOR_SQL = `with counter as (
     insert into entry_counters (organization_id, company_id, last_number) values ($2, $3, $11::int)
     on conflict (organization_id, company_id) do update set last_number = entry_counters.last_number + $11::int
     returning last_number),
   items as (
     select e.id, e.ord from unnest($1::uuid[]) with ordinality as e(id, ord)),
   entry as (
     insert into journal_entries (id, organization_id, company_id, entry_number, reference_number,
       description, transaction_date, document_date, posting_date, fiscal_year, fiscal_period,
       entry_type, source_module, source_document_ref, is_multi_currency, status, total_debits,
       total_credits, created_by, created_at, updated_at)
     select items.id, $2::uuid, $3::uuid, last_number - $11::int + items.ord, null, $4, $5::date,
       null::date, null::date, $6::int, $7::smallint, 'Standard', 'GeneralLedger', null, false, 'Draft',
       $8::numeric, $8::numeric, $9::uuid, $10::timestamptz, $10::timestamptz from counter, items
     returning id),
   lines as (
     insert into journal_lines (id, organization_id, journal_entry_id, company_id, line_number,
       account_id, currency, debit_amount, credit_amount, functional_debit_amount,
       functional_credit_amount, exchange_rate, exchange_rate_id, exchange_rate_leg_ids, memo,
       dimensions, intercompany_partner_id)
     select gen_random_uuid(), $2::uuid, entry.id, $3::uuid, v.n, v.account, $14, v.debit, v.credit,
       v.debit, v.credit, 1, null::uuid, '{}'::uuid[], null, null::jsonb, null::uuid
     from entry, (values (1::smallint, $12::uuid, $8::numeric, null::numeric),
                         (2::smallint, $13::uuid, null::numeric, $8::numeric))
                 as v (n, account, debit, credit))
   insert into audit_log (id, organization_id, user_id, action, entity_type, entity_id, changes)
   select gen_random_uuid(), $2, $9, 'Create', 'JournalEntry', entry.id, null from entry`;

async function writeEntries(run: Run, t: FloorTarget, n: number): Promise<void> {
  await run(FLOOR_SQL, [
    Array.from({ length: n }, () => uuidv7()),
    t.organizationId,
    t.companyId,
    'Office supplies',
    t.transactionDate,
    t.fiscalYear,
    t.fiscalPeriod,
    '125.5',
    t.userId,
    new Date(),
    n,
    t.debitAccountId,
    t.creditAccountId,
    t.currency,
  ]);
}

/**
 * The floor on a PostgreSQL server: `connections` clients, each writing entries in a loop (rate =
 * entries per second).
 */
export async function floorPostgres(
  url: string,
  t: FloorTarget,
  connections: number,
  seconds: number,
  entriesPerStatement = 1,
) {
  const pool = new pg.Pool({ connectionString: url, max: connections });
  pool.on('error', () => {});
  try {
    const clients = await Promise.all(Array.from({ length: connections }, () => pool.connect()));
    const free = [...clients];
    const result = await loop(connections, seconds, async () => {
      const client = free.pop()!;
      try {
        await writeEntries(
          (text, params) => client.query({ name: 'floor', text, values: params }),
          t,
          entriesPerStatement,
        );
        return true;
      } catch {
        return false;
      } finally {
        free.push(client);
      }
    });
    for (const c of clients) c.release();
    return perEntry(result, entriesPerStatement);
  } finally {
    await pool.end();
  }
}

/** The floor on PGlite (in process; PGlite runs one statement at a time). */
export async function floorPglite(
  client: PGlite,
  t: FloorTarget,
  connections: number,
  seconds: number,
  entriesPerStatement = 1,
) {
  const result = await loop(connections, seconds, async () => {
    await writeEntries((text, params) => client.query(text, params), t, entriesPerStatement);
    return true;
  });
  return perEntry(result, entriesPerStatement);
}

/** Statements per second → entries per second. */
function perEntry<R extends { rate: number; count: number }>(r: R, n: number): R {
  return { ...r, rate: r.rate * n, count: r.count * n };
}
