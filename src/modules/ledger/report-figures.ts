/**
 * The figures of the company reports, from the balances (posting.ts): ONE `GROUP BY account_id`
 * aggregation per report, in which each figure the report needs is a "bucket", a conditional sum
 * (`sum(case when <bucket condition> then debit_total end)`). Whole months are read from the monthly
 * roll-up, only the months that a report date cuts from the daily rows, so the cost grows with
 * accounts × months (plus the days of the cut months), never with the number of entries.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Queryable, queryRows } from '../../db/client.ts';
import { addDays } from '../../domain/dates.ts';
import type { AccountFigures } from '../../domain/reports/index.ts';

/**
 * A bucket condition on balance rows (`balance_date`, `is_closing`), with its cut dates: the days on
 * which the condition can change value from the day before. A month that contains no cut date (other
 * than its first day) can be read from the monthly roll-up, every day of it answering alike.
 */
export interface Condition {
  sql: SQL;
  cuts: string[];
}

/** `balance_date <= d`. */
export const onOrBefore = (d: string): Condition => ({
  sql: sql`balance_date <= ${d}::date`,
  cuts: [addDays(d, 1)],
});
/** `balance_date < d`. */
export const before = (d: string): Condition => ({ sql: sql`balance_date < ${d}::date`, cuts: [d] });
/** `s <= balance_date <= e`. */
export const within = (s: string, e: string): Condition => ({
  sql: sql`balance_date >= ${s}::date and balance_date <= ${e}::date`,
  cuts: [s, addDays(e, 1)],
});
/** Lines of entries that are not closing-related. */
export const notClosing: Condition = { sql: sql`not is_closing`, cuts: [] };

function combine(conditions: Condition[], empty: string, joiner: string): Condition {
  if (conditions.length === 0) return { sql: sql.raw(empty), cuts: [] };
  return {
    sql: sql.join(
      conditions.map((c) => sql`(${c.sql})`),
      sql.raw(joiner),
    ),
    cuts: conditions.flatMap((c) => c.cuts),
  };
}

/** Conjunction of conditions (true when empty). */
export function all(...conditions: Condition[]): Condition {
  return combine(conditions, 'true', ' and ');
}

/** Disjunction of conditions (false when empty). */
export function any(...conditions: Condition[]): Condition {
  return combine(conditions, 'false', ' or ');
}

/**
 * One aggregation over the company's balances: for every bucket, per account, Σ debit_total and
 * Σ credit_total of the rows matching `scope` and the bucket's condition. An account appears in a
 * bucket only when at least one balance row matches (it "has ledger lines in scope"). `scope` narrows
 * the scanned rows (it should imply every bucket's condition, e.g. `balance_date <= max date`).
 */
export async function aggregateBalances<K extends string>(
  db: Queryable,
  organizationId: string,
  companyId: string,
  scope: Condition,
  buckets: Record<K, Condition>,
): Promise<Record<K, AccountFigures[]>> {
  const names = Object.keys(buckets) as K[];
  const columns = names.map((name, i) => {
    const cond = buckets[name].sql;
    return sql`sum(case when ${cond} then debit_total end)::text as ${sql.raw(`b${i}_d`)},
      sum(case when ${cond} then credit_total end)::text as ${sql.raw(`b${i}_c`)}`;
  });
  // Months that no cut date splits come from the monthly roll-up (dated their first day); the others
  // from the daily rows. Both sources answer every bucket condition exactly as the daily rows alone.
  const cuts = [...new Set([scope, ...Object.values<Condition>(buckets)].flatMap((c) => c.cuts))];
  const cutList =
    cuts.length > 0
      ? sql.join(
          cuts.map((c) => sql`${c}::date`),
          sql`, `,
        )
      : sql`null::date`;
  const rows = await queryRows<Record<string, string | null>>(
    db,
    sql`with cut(day) as (select unnest(array[${cutList}])),
      split(month_start) as (select distinct date_trunc('month', day)::date from cut
        where day > date_trunc('month', day)::date),
      source as (
        select account_id, month_start as balance_date, is_closing, debit_total, credit_total
        from account_month_balances
        where organization_id = ${organizationId} and company_id = ${companyId}
          and month_start not in (select month_start from split where month_start is not null)
        union all
        select b.account_id, b.balance_date, b.is_closing, b.debit_total, b.credit_total
        from account_balances b join split s on b.balance_date >= s.month_start
          and b.balance_date < (s.month_start + interval '1 month')::date
        where b.organization_id = ${organizationId} and b.company_id = ${companyId})
      select account_id::text as account_id, ${sql.join(columns, sql`, `)}
      from source where (${scope.sql})
      group by account_id`,
  );
  const out = {} as Record<K, AccountFigures[]>;
  names.forEach((name, i) => {
    const list: AccountFigures[] = [];
    for (const row of rows) {
      const debit = row[`b${i}_d`];
      const credit = row[`b${i}_c`];
      if (debit == null || credit == null) continue;
      list.push({ accountId: String(row.account_id), debit, credit });
    }
    out[name] = list;
  });
  return out;
}
