/**
 * The balances per transaction currency of a company's monetary accounts as of a date, from the
 * balances the posting keeps per (account, currency) (posting.ts): whole months before the date's
 * month from the monthly roll-up, the days of its own month from the daily rows. The cost grows with
 * accounts × currencies × months, never with the number of posted lines.
 */
import { sql } from 'drizzle-orm';
import { type Queryable, queryRows } from '../../db/client.ts';
import { addDays, type IsoDate } from '../../domain/dates.ts';
import { type Decimal, dec } from '../../domain/money.ts';

export interface AccountCurrencyFigure {
  accountId: string;
  accountNumber: string;
  accountName: string;
  accountType: string;
  currency: string;
  /** Net foreign amount (debits − credits). */
  foreignBalance: Decimal;
  /** Net functional amount carried for the same lines (debits − credits). */
  carryingAmount: Decimal;
}

/**
 * Every (monetary account, foreign currency) of the company whose foreign balance or carrying amount
 * is not zero as of `asOfDate` (inclusive), in account-number order then currency. Monetary: an
 * `Asset` or `Liability` account not marked `isNonMonetary`.
 */
/**
 * The first month not wholly read from the monthly roll-up: the date's own month, or the next one
 * when the date is a month end (then no daily row is read at all).
 */
function firstUnreadMonth(asOfDate: IsoDate): IsoDate {
  const next = addDays(asOfDate, 1);
  return next.endsWith('-01') ? next : `${asOfDate.slice(0, 7)}-01`;
}

export async function monetaryCurrencyBalances(
  db: Queryable,
  company: { organizationId: string; id: string },
  asOfDate: IsoDate,
): Promise<AccountCurrencyFigure[]> {
  const o = company.organizationId;
  const c = company.id;
  const rows = await queryRows<{
    account_id: string;
    account_number: string;
    name: string;
    account_type: string;
    currency: string;
    foreign_net: string;
    functional_net: string;
  }>(
    db,
    sql`with month_of(m) as (select ${firstUnreadMonth(asOfDate)}::date),
      b as (
        select account_id, currency, sum(foreign_net) as foreign_net, sum(functional_net) as functional_net
        from (
          select account_id, currency, foreign_net, functional_net
          from account_currency_month_balances, month_of
          where organization_id = ${o} and company_id = ${c} and month_start < month_of.m
          union all
          select account_id, currency, foreign_net, functional_net
          from account_currency_balances, month_of
          where organization_id = ${o} and company_id = ${c} and balance_date >= month_of.m
            and balance_date <= ${asOfDate}::date) s
        group by account_id, currency
        having sum(foreign_net) <> 0 or sum(functional_net) <> 0)
      select a.id::text as account_id, a.account_number, a.name, a.account_type, b.currency,
             b.foreign_net::text as foreign_net, b.functional_net::text as functional_net
      from b join accounts a on a.organization_id = ${o} and a.id = b.account_id
      where a.account_type in ('Asset', 'Liability') and not a.is_non_monetary
      order by length(a.account_number), a.account_number, b.currency`,
  );
  return rows.map((r) => ({
    accountId: r.account_id,
    accountNumber: r.account_number,
    accountName: r.name,
    accountType: r.account_type,
    currency: r.currency,
    foreignBalance: dec(r.foreign_net),
    carryingAmount: dec(r.functional_net),
  }));
}
