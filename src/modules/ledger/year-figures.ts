/**
 * The figures of a year-end close: the net of each revenue and expense account over a fiscal year,
 * from the daily balances (posting.ts), whose rows equal the sums of the posted and reversed lines.
 * All periods of the year count, the adjustment period and the closing entries and their reversals
 * included, so the preview and the close read the same lines.
 */
import { sql } from 'drizzle-orm';
import { type Queryable, queryRows } from '../../db/client.ts';
import { type Decimal, dec } from '../../domain/money.ts';

export interface AccountNet {
  accountId: string;
  accountNumber: string;
  accountType: 'Revenue' | 'Expense';
  /** Σ functional debits − Σ functional credits. */
  net: Decimal;
}

/**
 * The net per revenue and expense account of a company over fiscal year `year`, in account-number
 * order (numeric: length, then text; account numbers have no leading zeros).
 */
export async function yearNets(
  db: Queryable,
  company: { organizationId: string; id: string },
  year: number,
): Promise<AccountNet[]> {
  const rows = await queryRows<{
    account_id: string;
    account_number: string;
    account_type: string;
    net: string;
  }>(
    db,
    sql`select a.id as account_id, a.account_number, a.account_type,
               (sum(b.debit_total) - sum(b.credit_total))::text as net
        from account_balances b
        join accounts a on a.organization_id = b.organization_id and a.id = b.account_id
        where b.organization_id = ${company.organizationId} and b.company_id = ${company.id}
          and b.fiscal_year = ${year} and a.account_type in ('Revenue', 'Expense')
        group by a.id, a.account_number, a.account_type
        order by length(a.account_number), a.account_number`,
  );
  return rows.map((r) => ({
    accountId: r.account_id,
    accountNumber: r.account_number,
    accountType: r.account_type as 'Revenue' | 'Expense',
    net: dec(r.net),
  }));
}
