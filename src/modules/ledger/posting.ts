/**
 * Posting into the balances. The ledger keeps, per account, the functional debit and credit totals
 * of the lines of the posted and reversed entries in two tables that every figure of the service is
 * read from (see the other files of this module):
 * - `account_balances`, per organization, company, account, transaction date, fiscal year, fiscal
 *   period and closing flag;
 * - `account_month_balances`, its monthly roll-up: the same totals per calendar month, closing flag
 *   and adjustment period (13), kept equal to the daily rows summed per month.
 *
 * An entry's lines enter both in the transaction that books it, through ONE text of SQL: the journal's
 * one-statement post embeds it (`balancePostingCtes`), every other booking runs it on its own
 * (`addEntryToBalances`). Rows are upserted in ascending account-id order (every key of one entry
 * shares organization, company, date, period and closing flag), so concurrent postings lock balance
 * rows in the same order and cannot deadlock.
 */
import { sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { ADJUSTMENT_PERIOD } from '../../domain/fiscal-calendar.ts';

/** Where the booked entry comes from, as SQL of the statement that embeds the posting. */
export interface BalancePosting {
  /** Name of the CTE holding the ONE `journal_entries` row whose lines are booked. */
  entry: string;
  /** The entry's organization id (a parameter or `<entry>.organization_id`). */
  organization: string;
  /** The closing flag of the booked lines (see `isClosingRelated` of the journal rules). */
  isClosing: string;
}

/**
 * The CTEs `totals`, `daily` and `monthly` (to follow other CTEs of a WITH clause) that add the
 * functional amounts of the entry's lines, summed per account, to the daily and monthly balances.
 */
export function balancePostingCtes(p: BalancePosting): string {
  const { entry: u, organization, isClosing } = p;
  return `totals as (
     select l.account_id, coalesce(sum(l.functional_debit_amount), 0) as debit,
            coalesce(sum(l.functional_credit_amount), 0) as credit
     from ${u} join journal_lines l on l.organization_id = ${organization} and l.journal_entry_id = ${u}.id
     group by l.account_id),
   daily as (
     insert into account_balances as b (organization_id, company_id, account_id, balance_date,
       fiscal_year, fiscal_period, is_closing, debit_total, credit_total)
     select ${organization}, ${u}.company_id, t.account_id, ${u}.transaction_date, ${u}.fiscal_year, ${u}.fiscal_period,
       ${isClosing}, t.debit, t.credit
     from ${u}, totals t order by t.account_id
     on conflict (organization_id, company_id, account_id, balance_date, fiscal_year, fiscal_period,
       is_closing)
     do update set debit_total = b.debit_total + excluded.debit_total,
       credit_total = b.credit_total + excluded.credit_total),
   monthly as (
     insert into account_month_balances as m (organization_id, company_id, account_id, month_start,
       is_closing, is_adjustment, debit_total, credit_total)
     select ${organization}, ${u}.company_id, t.account_id, date_trunc('month', ${u}.transaction_date)::date,
       ${isClosing}, ${u}.fiscal_period = ${ADJUSTMENT_PERIOD}, t.debit, t.credit
     from ${u}, totals t order by t.account_id
     on conflict (organization_id, company_id, account_id, month_start, is_closing, is_adjustment)
     do update set debit_total = m.debit_total + excluded.debit_total,
       credit_total = m.credit_total + excluded.credit_total)`;
}

/**
 * Adds the lines of a stored entry to the balances, in the caller's transaction (the entry and its
 * lines are written; the caller books them: a post, a reversal, a closing entry).
 */
export async function addEntryToBalances(
  tx: Queryable,
  entry: { organizationId: string; id: string },
  isClosing: boolean,
): Promise<void> {
  const ctes = balancePostingCtes({
    entry: 'u',
    organization: 'u.organization_id',
    isClosing: String(isClosing),
  });
  await tx.execute(
    sql`with u as (
          select * from journal_entries where organization_id = ${entry.organizationId} and id = ${entry.id}),
        ${sql.raw(ctes)}
        select 1`,
  );
}

/**
 * Rebuilds an organization's monthly roll-up from its daily balances (the invariant the posting
 * keeps). For ledgers written in bulk (the benchmark generator, tests); posting never needs it.
 */
export async function rebuildMonthBalances(db: Queryable, organizationId: string): Promise<void> {
  await db.execute(sql`delete from account_month_balances where organization_id = ${organizationId}`);
  await db.execute(sql`
    insert into account_month_balances (organization_id, company_id, account_id, month_start, is_closing,
      is_adjustment, debit_total, credit_total)
    select organization_id, company_id, account_id, date_trunc('month', balance_date)::date, is_closing,
      fiscal_period = ${sql.raw(String(ADJUSTMENT_PERIOD))}, sum(debit_total), sum(credit_total)
    from account_balances where organization_id = ${organizationId}
    group by 1, 2, 3, 4, 5, 6`);
}
