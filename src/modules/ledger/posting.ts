/**
 * Posting into the balances. The ledger keeps, per account, the functional debit and credit totals
 * of the lines of the posted and reversed entries in two tables that every figure of the service is
 * read from (see the other files of this module):
 * - `account_balances`, per organization, company, account, transaction date, fiscal year, fiscal
 *   period and closing flag;
 * - `account_month_balances`, its monthly roll-up: the same totals per calendar month, closing flag
 *   and adjustment period (13), kept equal to the daily rows summed per month;
 * - `account_currency_balances` and `account_currency_month_balances`: for lines in a foreign
 *   currency, the net foreign and functional amounts per account, currency and day (and month).
 *
 * An entry's lines enter both in the transaction that books it, through ONE text of SQL: the journal's
 * one-statement post embeds it (`balancePostingCtes`), every other booking runs it on its own
 * (`addEntryToBalances`). Rows are upserted in ascending account-id order (every key of one entry
 * shares organization, company, date, period and closing flag), so concurrent postings lock balance
 * rows in the same order and cannot deadlock.
 */
import { type SQL, sql } from 'drizzle-orm';
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
 * The inserts into the four balance tables, each with its key's upsert: a key already there adds the
 * new amounts to its totals. Shared by the single-entry and the set-based postings below.
 */
const UPSERT = {
  daily: {
    into: `insert into account_balances as b (organization_id, company_id, account_id, balance_date,
       fiscal_year, fiscal_period, is_closing, debit_total, credit_total)`,
    onConflict: `on conflict (organization_id, company_id, account_id, balance_date, fiscal_year, fiscal_period,
       is_closing)
     do update set debit_total = b.debit_total + excluded.debit_total,
       credit_total = b.credit_total + excluded.credit_total`,
  },
  monthly: {
    into: `insert into account_month_balances as m (organization_id, company_id, account_id, month_start,
       is_closing, is_adjustment, debit_total, credit_total)`,
    onConflict: `on conflict (organization_id, company_id, account_id, month_start, is_closing, is_adjustment)
     do update set debit_total = m.debit_total + excluded.debit_total,
       credit_total = m.credit_total + excluded.credit_total`,
  },
  fxDaily: {
    into: `insert into account_currency_balances as cb (organization_id, company_id, account_id, currency,
       balance_date, foreign_net, functional_net)`,
    onConflict: `on conflict (organization_id, company_id, account_id, currency, balance_date)
     do update set foreign_net = cb.foreign_net + excluded.foreign_net,
       functional_net = cb.functional_net + excluded.functional_net`,
  },
  fxMonthly: {
    into: `insert into account_currency_month_balances as cm (organization_id, company_id, account_id,
       currency, month_start, foreign_net, functional_net)`,
    onConflict: `on conflict (organization_id, company_id, month_start, account_id, currency)
     do update set foreign_net = cm.foreign_net + excluded.foreign_net,
       functional_net = cm.functional_net + excluded.functional_net`,
  },
} as const;

/**
 * The CTEs `totals`, `daily` and `monthly` (to follow other CTEs of a WITH clause) that add the
 * functional amounts of the entry's lines, summed per account, to the daily and monthly balances;
 * and `fx_totals`, `fx_daily` and `fx_monthly`, which add the lines in a currency other than the
 * company's functional one, summed per account and currency (net foreign and net functional amount),
 * to the balances per transaction currency that foreign-currency revaluation reads. An entry whose
 * lines are all in the functional currency writes no row there.
 */
export function balancePostingCtes(p: BalancePosting): string {
  const { entry: u, organization, isClosing } = p;
  return `totals as (
     select l.account_id, coalesce(sum(l.functional_debit_amount), 0) as debit,
            coalesce(sum(l.functional_credit_amount), 0) as credit
     from ${u} join journal_lines l on l.organization_id = ${organization} and l.journal_entry_id = ${u}.id
     group by l.account_id),
   daily as (
     ${UPSERT.daily.into}
     select ${organization}, ${u}.company_id, t.account_id, ${u}.transaction_date, ${u}.fiscal_year, ${u}.fiscal_period,
       ${isClosing}, t.debit, t.credit
     from ${u}, totals t order by t.account_id
     ${UPSERT.daily.onConflict}),
   monthly as (
     ${UPSERT.monthly.into}
     select ${organization}, ${u}.company_id, t.account_id, date_trunc('month', ${u}.transaction_date)::date,
       ${isClosing}, ${u}.fiscal_period = ${ADJUSTMENT_PERIOD}, t.debit, t.credit
     from ${u}, totals t order by t.account_id
     ${UPSERT.monthly.onConflict}),
   fx_totals as (
     select l.account_id, l.currency,
            coalesce(sum(l.debit_amount), 0) - coalesce(sum(l.credit_amount), 0) as foreign_net,
            coalesce(sum(l.functional_debit_amount), 0) - coalesce(sum(l.functional_credit_amount), 0)
              as functional_net
     from ${u} join journal_lines l on l.organization_id = ${organization} and l.journal_entry_id = ${u}.id
     join companies c on c.organization_id = ${organization} and c.id = ${u}.company_id
     where l.currency <> c.functional_currency
     group by l.account_id, l.currency),
   fx_daily as (
     ${UPSERT.fxDaily.into}
     select ${organization}, ${u}.company_id, t.account_id, t.currency, ${u}.transaction_date,
       t.foreign_net, t.functional_net
     from ${u}, fx_totals t order by t.account_id, t.currency
     ${UPSERT.fxDaily.onConflict}),
   fx_monthly as (
     ${UPSERT.fxMonthly.into}
     select ${organization}, ${u}.company_id, t.account_id, t.currency,
       date_trunc('month', ${u}.transaction_date)::date, t.foreign_net, t.functional_net
     from ${u}, fx_totals t order by t.account_id, t.currency
     ${UPSERT.fxMonthly.onConflict})`;
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

/**
 * Adds the lines of many entries of one organization to the balances in the statement that inserts
 * them (bulk creation with immediate posting, trial-balance imports): the caller's CTE `lines` is the
 * `journal_lines` insert (returning entry, account, currency and the four amounts) of entries already
 * stored, so the lines are not read back. The upserts are those of `balancePostingCtes`, with the lines
 * first summed per balance key — company, account, date, fiscal period and closing flag for the daily
 * rows, company, account, month, closing and adjustment flags for the monthly ones — since one
 * statement may not update a row twice. Lines in a currency other than their company's functional one
 * also enter the balances per transaction currency (summed per company, account, currency and day or
 * month), as `balancePostingCtes` does for one entry. Keys are upserted in ascending company and
 * account order, as single postings do, so that concurrent postings lock balance rows in one order.
 */
export function insertedLinesPostingCtes(organizationId: string, closingEntryType: string): SQL {
  return sql`u as (
      select id, company_id, transaction_date, fiscal_year, fiscal_period,
        entry_type = ${closingEntryType} as is_closing
      from journal_entries
      where organization_id = ${organizationId} and id in (select journal_entry_id from lines)),
    ${entriesPostingCtes(organizationId, sql`lines l on l.journal_entry_id = u.id`)}`;
}

/** The balance CTEs over the entries `u` and their lines (`lines`: what follows `join`). */
function entriesPostingCtes(organizationId: string, lines: SQL): SQL {
  return sql`totals as (
          select u.company_id, l.account_id, u.transaction_date, u.fiscal_year, u.fiscal_period, u.is_closing,
            coalesce(sum(l.functional_debit_amount), 0) as debit,
            coalesce(sum(l.functional_credit_amount), 0) as credit
          from u join ${lines}
          group by 1, 2, 3, 4, 5, 6),
        daily as (
          ${sql.raw(UPSERT.daily.into)}
          select ${organizationId}, t.company_id, t.account_id, t.transaction_date, t.fiscal_year,
            t.fiscal_period, t.is_closing, t.debit, t.credit
          from totals t order by t.company_id, t.account_id, t.transaction_date, t.fiscal_year,
            t.fiscal_period, t.is_closing
          ${sql.raw(UPSERT.daily.onConflict)}),
        monthly as (
          ${sql.raw(UPSERT.monthly.into)}
          select ${organizationId}, t.company_id, t.account_id, date_trunc('month', t.transaction_date)::date,
            t.is_closing, t.fiscal_period = ${sql.raw(String(ADJUSTMENT_PERIOD))}, sum(t.debit), sum(t.credit)
          from totals t group by 2, 3, 4, 5, 6 order by 2, 3, 4, 5, 6
          ${sql.raw(UPSERT.monthly.onConflict)}),
        fx_totals as (
          select u.company_id, l.account_id, l.currency, u.transaction_date,
            coalesce(sum(l.debit_amount), 0) - coalesce(sum(l.credit_amount), 0) as foreign_net,
            coalesce(sum(l.functional_debit_amount), 0) - coalesce(sum(l.functional_credit_amount), 0)
              as functional_net
          from u join ${lines}
          join companies c on c.organization_id = ${organizationId} and c.id = u.company_id
          where l.currency <> c.functional_currency
          group by 1, 2, 3, 4),
        fx_daily as (
          ${sql.raw(UPSERT.fxDaily.into)}
          select ${organizationId}, t.company_id, t.account_id, t.currency, t.transaction_date,
            t.foreign_net, t.functional_net
          from fx_totals t order by t.company_id, t.account_id, t.currency, t.transaction_date
          ${sql.raw(UPSERT.fxDaily.onConflict)}),
        fx_monthly as (
          ${sql.raw(UPSERT.fxMonthly.into)}
          select ${organizationId}, t.company_id, t.account_id, t.currency,
            date_trunc('month', t.transaction_date)::date, sum(t.foreign_net), sum(t.functional_net)
          from fx_totals t group by 2, 3, 4, 5 order by 2, 3, 4, 5
          ${sql.raw(UPSERT.fxMonthly.onConflict)})`;
}

/** Rebuilds an organization's monthly roll-up of the balances per transaction currency. */
export async function rebuildCurrencyMonthBalances(db: Queryable, organizationId: string): Promise<void> {
  await db.execute(
    sql`delete from account_currency_month_balances where organization_id = ${organizationId}`,
  );
  await db.execute(sql`
    insert into account_currency_month_balances (organization_id, company_id, account_id, currency,
      month_start, foreign_net, functional_net)
    select organization_id, company_id, account_id, currency, date_trunc('month', balance_date)::date,
      sum(foreign_net), sum(functional_net)
    from account_currency_balances where organization_id = ${organizationId}
    group by 1, 2, 3, 4, 5`);
}
