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

/**
 * The floor of a bulk create: the rows `POST /api/v1/journal-entries/bulk` writes for `entries`
 * entries of `linesPerEntry` lines (counter bump, headers, lines, audit entries), written in ONE
 * transaction by multi-row INSERT statements with no HTTP, no validation and no reads. Returns the
 * seconds it took (the best of `runs`).
 */
export async function bulkFloor(
  run: Run,
  transaction: <T>(fn: () => Promise<T>) => Promise<T>,
  t: FloorTarget,
  entries: number,
  linesPerEntry: number,
  runs = 3,
): Promise<number> {
  let best = Infinity;
  for (let r = 0; r < runs; r++) {
    const ids = Array.from({ length: entries }, () => uuidv7());
    const t0 = performance.now();
    await transaction(async () => {
      await run(
        `insert into entry_counters (organization_id, company_id, last_number) values ($1, $2, $3::int)
         on conflict (organization_id, company_id) do update set last_number = entry_counters.last_number + $3::int`,
        [t.organizationId, t.companyId, entries],
      );
      const rows = await run(
        `select last_number::int as n from entry_counters where organization_id = $1 and company_id = $2`,
        [t.organizationId, t.companyId],
      );
      const last = Number(
        (rows as { rows?: { n: number }[] }).rows?.[0]?.n ?? (rows as { n: number }[])[0]?.n,
      );
      const now = new Date();
      for (let i = 0; i < entries; i += 1000) {
        const chunk = ids.slice(i, i + 1000);
        const values: unknown[] = [];
        const tuples = chunk.map((id, k) => {
          const b = values.length;
          values.push(
            id,
            t.organizationId,
            t.companyId,
            last - entries + i + k + 1,
            t.transactionDate,
            t.fiscalYear,
            t.fiscalPeriod,
            t.userId,
            now,
          );
          return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, 'Bulk floor', $${b + 5}::date, $${b + 6}::int, $${b + 7}::smallint, 'Standard', 'GeneralLedger', false, 'Draft', 500, 500, $${b + 8}, $${b + 9}, $${b + 9})`;
        });
        await run(
          `insert into journal_entries (id, organization_id, company_id, entry_number, description, transaction_date,
             fiscal_year, fiscal_period, entry_type, source_module, is_multi_currency, status, total_debits,
             total_credits, created_by, created_at, updated_at) values ${tuples.join(', ')}`,
          values,
        );
      }
      const lines: unknown[][] = [];
      for (const id of ids) {
        for (let n = 1; n <= linesPerEntry; n++) {
          const debit = n <= linesPerEntry / 2;
          lines.push([
            uuidv7(),
            t.organizationId,
            id,
            t.companyId,
            n,
            debit ? t.debitAccountId : t.creditAccountId,
            t.currency,
            debit ? '100' : null,
            debit ? null : '100',
          ]);
        }
      }
      for (let i = 0; i < lines.length; i += 5000) {
        const values: unknown[] = [];
        const tuples = lines.slice(i, i + 5000).map((l) => {
          const b = values.length;
          values.push(...l);
          return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}, $${b + 8}::numeric, $${b + 9}::numeric, $${b + 8}::numeric, $${b + 9}::numeric, 1)`;
        });
        await run(
          `insert into journal_lines (id, organization_id, journal_entry_id, company_id, line_number, account_id,
             currency, debit_amount, credit_amount, functional_debit_amount, functional_credit_amount, exchange_rate)
           values ${tuples.join(', ')}`,
          values,
        );
      }
      for (let i = 0; i < ids.length; i += 1000) {
        const values: unknown[] = [];
        const tuples = ids.slice(i, i + 1000).map((id) => {
          const b = values.length;
          values.push(uuidv7(), t.organizationId, t.userId, id);
          return `($${b + 1}, $${b + 2}, $${b + 3}, 'Create', 'JournalEntry', $${b + 4})`;
        });
        await run(
          `insert into audit_log (id, organization_id, user_id, action, entity_type, entity_id) values ${tuples.join(', ')}`,
          values,
        );
      }
    });
    best = Math.min(best, (performance.now() - t0) / 1000);
  }
  return best;
}

/** `bulkFloor` on a PostgreSQL server (one client, one transaction per run). */
export async function bulkFloorPostgres(
  url: string,
  t: FloorTarget,
  entries: number,
  linesPerEntry: number,
): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await bulkFloor(
      (text, params) => client.query(text, params).then((r) => r.rows),
      async (fn) => {
        await client.query('begin');
        try {
          const out = await fn();
          await client.query('commit');
          return out;
        } catch (err) {
          await client.query('rollback');
          throw err;
        }
      },
      t,
      entries,
      linesPerEntry,
    );
  } finally {
    await client.end();
  }
}

/** `bulkFloor` on PGlite (the bench's own handle on the data directory). */
export async function bulkFloorPglite(
  db: PGlite,
  t: FloorTarget,
  entries: number,
  linesPerEntry: number,
): Promise<number> {
  return bulkFloor(
    (text, params) => db.query(text, params).then((r) => r.rows),
    async (fn) => {
      await db.query('begin');
      try {
        const out = await fn();
        await db.query('commit');
        return out;
      } catch (err) {
        await db.query('rollback');
        throw err;
      }
    },
    t,
    entries,
    linesPerEntry,
  );
}
