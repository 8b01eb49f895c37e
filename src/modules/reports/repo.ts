/**
 * SQL of the company reports (contract 3.13). Every figure comes from `account_balances` (functional
 * debit/credit totals of Posted and Reversed entries per account, transaction date, fiscal period and
 * closing flag, 3.7.7) in ONE `GROUP BY account_id` aggregation per report: each figure the report
 * needs is a "bucket", a conditional sum (`sum(case when <bucket condition> then debit_total end)`),
 * so the cost grows with accounts × days with activity, never with the number of entries.
 */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type Queryable, queryRows } from '../../db/client.ts';
import { accounts } from '../../db/schema/index.ts';
import type { AccountCategory, AccountType, CashFlowCategory } from '../../domain/accounts.ts';
import type { AccountFigures, ReportAccount } from '../../domain/reports/index.ts';

/** A bucket condition on `account_balances` columns (`balance_date`, `is_closing`). */
export type Condition = SQL;

/** `balance_date <= d`. */
export const onOrBefore = (d: string): Condition => sql`balance_date <= ${d}::date`;
/** `balance_date < d`. */
export const before = (d: string): Condition => sql`balance_date < ${d}::date`;
/** `s <= balance_date <= e`. */
export const within = (s: string, e: string): Condition =>
  sql`balance_date >= ${s}::date and balance_date <= ${e}::date`;
/** Lines of entries that are not closing-related (3.13.1). */
export const notClosing: Condition = sql`not is_closing`;
/** Conjunction of conditions (true when empty). */
export function all(...conditions: Condition[]): Condition {
  if (conditions.length === 0) return sql`true`;
  return sql.join(
    conditions.map((c) => sql`(${c})`),
    sql` and `,
  );
}

/** Disjunction of conditions (false when empty). */
export function any(...conditions: Condition[]): Condition {
  if (conditions.length === 0) return sql`false`;
  return sql.join(
    conditions.map((c) => sql`(${c})`),
    sql` or `,
  );
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
    const cond = buckets[name];
    return sql`sum(case when ${cond} then debit_total end)::text as ${sql.raw(`b${i}_d`)},
      sum(case when ${cond} then credit_total end)::text as ${sql.raw(`b${i}_c`)}`;
  });
  const rows = await queryRows<Record<string, string | null>>(
    db,
    sql`select account_id::text as account_id, ${sql.join(columns, sql`, `)}
      from account_balances
      where organization_id = ${organizationId} and company_id = ${companyId} and (${scope})
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

/** Every account of the company, active or not, with the fields the statement builders need. */
export async function loadReportAccounts(
  db: Queryable,
  organizationId: string,
  companyId: string,
  retainedEarningsAccountId: string | null,
): Promise<ReportAccount[]> {
  const rows = await db
    .select({
      id: accounts.id,
      accountNumber: accounts.accountNumber,
      name: accounts.name,
      accountType: accounts.accountType,
      accountCategory: accounts.accountCategory,
      isPostable: accounts.isPostable,
      isCashEquivalent: accounts.isCashEquivalent,
      cashFlowCategory: accounts.cashFlowCategory,
    })
    .from(accounts)
    .where(and(eq(accounts.organizationId, organizationId), eq(accounts.companyId, companyId)));
  return rows.map((r) => ({
    id: r.id,
    accountNumber: r.accountNumber,
    name: r.name,
    accountType: r.accountType as AccountType,
    accountCategory: r.accountCategory as AccountCategory,
    isPostable: r.isPostable,
    isCashEquivalent: r.isCashEquivalent,
    cashFlowCategory: r.cashFlowCategory as CashFlowCategory | null,
    isRetainedEarningsAccount: retainedEarningsAccountId !== null && r.id === retainedEarningsAccountId,
  }));
}
