/**
 * The raw-SQL floor: the rows one `POST /api/v1/journal-entries` writes (the counter bump, the entry
 * header, its two lines and the audit entry), written in one transaction per entry by a plain driver
 * client with no HTTP, no validation and no ORM, at the same concurrency as the HTTP scenario. The
 * service cannot be faster than this on the same database; the benchmark reports the ratio.
 */
import type { PGlite, Transaction } from '@electric-sql/pglite';
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

type Run = (text: string, params: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;

/**
 * One entry in ONE statement (data-modifying CTEs: counter bump → header → lines → audit), the fewest
 * round trips plain SQL allows; with BEGIN and COMMIT that is three per entry.
 */
async function writeEntry(run: Run, t: FloorTarget): Promise<void> {
  const id = uuidv7();
  await run(
    `with counter as (
       insert into entry_counters (organization_id, company_id, last_number) values ($2, $3, 1)
       on conflict (organization_id, company_id) do update set last_number = entry_counters.last_number + 1
       returning last_number),
     entry as (
       insert into journal_entries (id, organization_id, company_id, entry_number, reference_number,
         description, transaction_date, document_date, posting_date, fiscal_year, fiscal_period,
         entry_type, source_module, source_document_ref, is_multi_currency, status, total_debits,
         total_credits, created_by, created_at, updated_at)
       select $1::uuid, $2::uuid, $3::uuid, last_number, null, $4, $5::date, null::date, null::date,
         $6::int, $7::smallint, 'Standard', 'GeneralLedger', null, false, 'Draft', $8::numeric,
         $8::numeric, $9::uuid, $10::timestamptz, $10::timestamptz from counter
       returning id),
     lines as (
       insert into journal_lines (id, organization_id, journal_entry_id, company_id, line_number,
         account_id, currency, debit_amount, credit_amount, functional_debit_amount,
         functional_credit_amount, exchange_rate, exchange_rate_id, exchange_rate_leg_ids, memo,
         dimensions, intercompany_partner_id)
       select v.id, $2::uuid, entry.id, $3::uuid, v.n, v.account, $15, v.debit, v.credit, v.debit,
         v.credit, 1, null::uuid, '{}'::uuid[], null, null::jsonb, null::uuid
       from entry, (values ($11::uuid, 1::smallint, $13::uuid, $8::numeric, null::numeric),
                           ($12::uuid, 2::smallint, $14::uuid, null::numeric, $8::numeric))
                   as v (id, n, account, debit, credit))
     insert into audit_log (id, organization_id, user_id, action, entity_type, entity_id, changes)
     values ($16, $2, $9, 'Create', 'JournalEntry', $1, null)`,
    [
      id,
      t.organizationId,
      t.companyId,
      'Office supplies',
      t.transactionDate,
      t.fiscalYear,
      t.fiscalPeriod,
      '125.5',
      t.userId,
      new Date(),
      uuidv7(),
      uuidv7(),
      t.debitAccountId,
      t.creditAccountId,
      t.currency,
      uuidv7(),
    ],
  );
}

/** The floor on a PostgreSQL server: `connections` pooled clients, each writing entries in a loop. */
export async function floorPostgres(url: string, t: FloorTarget, connections: number, seconds: number) {
  const pool = new pg.Pool({ connectionString: url, max: connections });
  pool.on('error', () => {});
  try {
    const clients = await Promise.all(Array.from({ length: connections }, () => pool.connect()));
    const free = [...clients];
    const result = await loop(connections, seconds, async () => {
      const client = free.pop()!;
      try {
        await client.query('begin');
        await writeEntry((text, params) => client.query(text, params), t);
        await client.query('commit');
        return true;
      } catch {
        await client.query('rollback').catch(() => {});
        return false;
      } finally {
        free.push(client);
      }
    });
    for (const c of clients) c.release();
    return result;
  } finally {
    await pool.end();
  }
}

/** The floor on PGlite (in process; PGlite runs one transaction at a time). */
export async function floorPglite(client: PGlite, t: FloorTarget, connections: number, seconds: number) {
  return loop(connections, seconds, async () => {
    await client.transaction(async (tx: Transaction) => {
      await writeEntry((text, params) => tx.query(text, params), t);
    });
    return true;
  });
}
