/**
 * Benchmark data of foreign-currency revaluation: in an existing benchmark organization, one USD
 * company with `accounts` monetary accounts (half assets, half liabilities) holding balances in five
 * foreign currencies, and `lines` posted lines (two-line entries: a foreign-currency line on a
 * monetary account, its functional counterpart on a revenue account) spread over the year, with
 * YearEnd rates on the year end and the company's FX gain/loss accounts set.
 *
 * Written with set-based SQL like generate.ts; the balances (`account_balances`, the balances per
 * transaction currency and both monthly roll-ups) are derived from the lines in SQL, so they equal
 * what posting would have written.
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Db } from '../src/db/client.ts';
import { accounts, companies, exchangeRates } from '../src/db/schema/index.ts';
import { ensureFiscalYear } from '../src/modules/fiscal/ensure.ts';

export const FX_CURRENCIES = ['EUR', 'GBP', 'CHF', 'CAD', 'AUD'] as const;
const BASE_RATE: Record<string, number> = { EUR: 1.08, GBP: 1.27, CHF: 1.12, CAD: 0.74, AUD: 0.66 };

export interface FxDataset {
  organizationId: string;
  companyId: string;
  year: number;
  lines: number;
  monetaryAccounts: number;
  seconds: number;
}

const prefix = () => uuidv7().slice(0, 24);
const uuidSql = (p: string, n: string) => `('${p}' || lpad(to_hex(${n}), 12, '0'))::uuid`;

export async function generateFxCompany(
  db: Db,
  opts: { organizationId: string; userId: string; year: number; accounts: number; lines: number },
  log: (m: string) => void,
): Promise<FxDataset> {
  const started = performance.now();
  const { organizationId, year } = opts;
  const companyId = uuidv7();
  const name = `FX bench ${companyId.slice(-8)}`;
  await db.insert(companies).values({
    id: companyId,
    organizationId,
    name,
    nameKey: name.toLowerCase(),
    legalName: `${name} Inc.`,
    jurisdiction: 'US',
    functionalCurrency: 'USD',
    reportingCurrency: 'USD',
    fiscalYearEndMonth: 12,
    fiscalYearEndDay: 31,
  });
  const accountPrefix = prefix();
  const N = opts.accounts;
  const rows = Array.from({ length: N }, (_, i) => ({
    id: `${accountPrefix}${i.toString(16).padStart(12, '0')}`,
    organizationId,
    companyId,
    accountNumber: String(20000 + i),
    name: `${i < N / 2 ? 'Receivable' : 'Payable'} ${i}`,
    accountType: i < N / 2 ? 'Asset' : 'Liability',
    accountCategory: i < N / 2 ? 'CurrentAsset' : 'CurrentLiability',
  }));
  const revenue = uuidv7();
  const fxAccount = uuidv7();
  await db.insert(accounts).values([
    ...rows,
    {
      id: revenue,
      organizationId,
      companyId,
      accountNumber: '4000',
      name: 'Sales',
      accountType: 'Revenue',
      accountCategory: 'OperatingRevenue',
    },
    {
      id: fxAccount,
      organizationId,
      companyId,
      accountNumber: '8400',
      name: 'Foreign Exchange Gain/Loss',
      accountType: 'Revenue',
      accountCategory: 'OtherRevenue',
    },
  ]);
  // Runs are posted directly (no approval), so that one run per month end can follow another.
  await db.execute(sql`update organizations set settings = settings || '{"requireApproval": false}'::jsonb
    where id = ${organizationId}`);
  await db.execute(sql`update companies set unrealized_fx_gain_loss_account_id = ${fxAccount},
    realized_fx_gain_loss_account_id = ${fxAccount}
    where organization_id = ${organizationId} and id = ${companyId}`);
  for (const y of [year, year + 1]) {
    await ensureFiscalYear(db, {
      organizationId,
      companyId,
      fiscalYearEnd: { month: 12, day: 31 },
      year: y,
      userId: opts.userId,
    });
  }
  // A closing (YearEnd) rate of every currency at every month end.
  await db.insert(exchangeRates).values(
    FX_CURRENCIES.flatMap((c) =>
      Array.from({ length: 12 }, (_, m) => ({
        id: uuidv7(),
        organizationId,
        fromCurrency: c,
        toCurrency: 'USD',
        rate: (BASE_RATE[c]! * (1.005 + m / 97)).toFixed(6),
        effectiveDate: new Date(Date.UTC(year, m + 1, 0)).toISOString().slice(0, 10),
        rateType: 'YearEnd',
        source: 'Manual',
        createdBy: opts.userId,
      })),
    ),
  );

  // Entry g: account g % N, currency (g / N) % 5, foreign amount 1.00 … 9,999.99 at the currency's
  // rate of the entry's month; the counterpart on revenue (assets) or expense side (liabilities).
  const entries = Math.floor(opts.lines / 2);
  const entryPrefix = prefix();
  const linePrefix = prefix();
  const t0 = `${year}-01-01`;
  const currencies = `'{${FX_CURRENCIES.join(',')}}'::text[]`;
  const bases = `'{${FX_CURRENCIES.map((c) => BASE_RATE[c]).join(',')}}'::numeric[]`;
  const batch = 100_000;
  const t = performance.now();
  for (let from = 1; from <= entries; from += batch) {
    const to = Math.min(entries, from + batch - 1);
    const src = `select g, d, cur, acct, amt, rate, round(amt * rate, 2) as fn
      from (select g, ('${t0}'::date + ((g::bigint * 37) % 365)::int) as d,
              (${currencies})[1 + ((g / ${N}) % 5)] as cur, (g % ${N}) as acct,
              (((g::bigint * 7919) % 999900 + 100)::numeric / 100) as amt,
              round((${bases})[1 + ((g / ${N}) % 5)] * (1 + extract(month from
                ('${t0}'::date + ((g::bigint * 37) % 365)::int)) / 100), 6) as rate
            from generate_series(${from}, ${to}) g) s`;
    await db.execute(
      sql.raw(`
      insert into journal_entries (id, organization_id, company_id, entry_number, description,
        transaction_date, posting_date, fiscal_year, fiscal_period, entry_type, source_module,
        is_multi_currency, status, total_debits, total_credits, created_by, posted_by, posted_at,
        created_at, updated_at)
      select ${uuidSql(entryPrefix, 'g')}, '${organizationId}', '${companyId}', g::int, 'FX entry ' || g,
        d, d, ${year}, extract(month from d)::int, 'Standard', 'GeneralLedger', true, 'Posted', fn, fn,
        '${opts.userId}', '${opts.userId}', now(), now(), now()
      from (${src}) x`),
    );
    await db.execute(
      sql.raw(`
      insert into journal_lines (id, organization_id, journal_entry_id, company_id, line_number,
        account_id, currency, debit_amount, credit_amount, functional_debit_amount,
        functional_credit_amount, exchange_rate, exchange_rate_leg_ids)
      select ${uuidSql(linePrefix, 'g * 2 + k')}, '${organizationId}', ${uuidSql(entryPrefix, 'g')},
        '${companyId}', (k + 1)::smallint,
        case when k = 0 then ${uuidSql(accountPrefix, 'acct')} else '${revenue}'::uuid end,
        case when k = 0 then cur else 'USD' end,
        case when (k = 0) = (acct < ${N / 2}) then (case when k = 0 then amt else fn end) end,
        case when (k = 0) <> (acct < ${N / 2}) then (case when k = 0 then amt else fn end) end,
        case when (k = 0) = (acct < ${N / 2}) then fn end,
        case when (k = 0) <> (acct < ${N / 2}) then fn end,
        case when k = 0 then rate else 1 end, '{}'
      from (${src}) x, generate_series(0, 1) k`),
    );
  }
  log(
    `  FX company: ${entries} entries, ${entries * 2} lines: ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  const t2 = performance.now();
  await db.execute(sql.raw('analyze journal_entries, journal_lines'));
  await db.execute(sql`insert into entry_counters (organization_id, company_id, last_number)
    values (${organizationId}, ${companyId}, ${entries})`);
  await db.execute(sql`
    insert into account_balances (organization_id, company_id, account_id, balance_date, fiscal_year,
      fiscal_period, is_closing, debit_total, credit_total)
    select l.organization_id, l.company_id, l.account_id, e.transaction_date, e.fiscal_year,
      e.fiscal_period, false, coalesce(sum(l.functional_debit_amount), 0),
      coalesce(sum(l.functional_credit_amount), 0)
    from journal_lines l
    join journal_entries e on e.organization_id = l.organization_id and e.id = l.journal_entry_id
    where l.organization_id = ${organizationId} and l.company_id = ${companyId}
    group by 1, 2, 3, 4, 5, 6`);
  await db.execute(sql`
    insert into account_month_balances (organization_id, company_id, account_id, month_start,
      is_closing, is_adjustment, debit_total, credit_total)
    select organization_id, company_id, account_id, date_trunc('month', balance_date)::date, false,
      false, sum(debit_total), sum(credit_total)
    from account_balances where organization_id = ${organizationId} and company_id = ${companyId}
    group by 1, 2, 3, 4`);
  await db.execute(sql`
    insert into account_currency_balances (organization_id, company_id, account_id, currency,
      balance_date, foreign_net, functional_net)
    select l.organization_id, l.company_id, l.account_id, l.currency, e.transaction_date,
      sum(coalesce(l.debit_amount, 0) - coalesce(l.credit_amount, 0)),
      sum(coalesce(l.functional_debit_amount, 0) - coalesce(l.functional_credit_amount, 0))
    from journal_lines l
    join journal_entries e on e.organization_id = l.organization_id and e.id = l.journal_entry_id
    where l.organization_id = ${organizationId} and l.company_id = ${companyId} and l.currency <> 'USD'
    group by 1, 2, 3, 4, 5`);
  await db.execute(sql`
    insert into account_currency_month_balances (organization_id, company_id, account_id, currency,
      month_start, foreign_net, functional_net)
    select organization_id, company_id, account_id, currency, date_trunc('month', balance_date)::date,
      sum(foreign_net), sum(functional_net)
    from account_currency_balances where organization_id = ${organizationId} and company_id = ${companyId}
    group by 1, 2, 3, 4, 5`);
  await db.execute(
    sql.raw(
      'analyze account_balances, account_month_balances, account_currency_balances, account_currency_month_balances, accounts',
    ),
  );
  log(`  FX company balances: ${((performance.now() - t2) / 1000).toFixed(1)} s`);
  return {
    organizationId,
    companyId,
    year,
    lines: entries * 2,
    monetaryAccounts: N,
    seconds: (performance.now() - started) / 1000,
  };
}
