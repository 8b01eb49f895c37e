/**
 * Ledger fixtures for HTTP tests: companies with a small chart of accounts and exchange rates,
 * inserted directly (independent of the company/account endpoints), plus SQL checks of the posted
 * balances invariant (contract 3.7.7).
 */
import { and, eq, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { queryRows } from '../../src/db/client.ts';
import { accounts, companies, exchangeRates, fiscalPeriods, fiscalYears } from '../../src/db/schema/index.ts';
import { type TestContext, uniq } from './app.ts';

export interface Chart {
  cash: string;
  receivable: string;
  summary: string;
  inactive: string;
  payable: string;
  retainedEarnings: string;
  revenue: string;
  expense: string;
  otherExpense: string;
}

export interface Company {
  id: string;
  organizationId: string;
  functionalCurrency: string;
  accounts: Chart;
}

const CHART: [keyof Chart, string, string, string, { isPostable?: boolean; isActive?: boolean }?][] = [
  ['cash', '1000', 'Asset', 'CurrentAsset'],
  ['receivable', '1100', 'Asset', 'CurrentAsset'],
  ['summary', '1900', 'Asset', 'CurrentAsset', { isPostable: false }],
  ['inactive', '1950', 'Asset', 'CurrentAsset', { isActive: false }],
  ['payable', '2000', 'Liability', 'CurrentLiability'],
  ['retainedEarnings', '3300', 'Equity', 'RetainedEarnings'],
  ['revenue', '4000', 'Revenue', 'OperatingRevenue'],
  ['expense', '5000', 'Expense', 'OperatingExpense'],
  ['otherExpense', '10000', 'Expense', 'OtherExpense'],
];

export async function createCompany(
  t: TestContext,
  organizationId: string,
  options: {
    functionalCurrency?: string;
    fiscalYearEnd?: { month: number; day: number };
    retainedEarnings?: boolean;
    isActive?: boolean;
  } = {},
): Promise<Company> {
  const db = t.database.db;
  const id = uuidv7();
  const name = uniq('Co');
  const functionalCurrency = options.functionalCurrency ?? 'USD';
  await db.insert(companies).values({
    id,
    organizationId,
    name,
    nameKey: name.toLowerCase(),
    legalName: `${name} Ltd`,
    jurisdiction: 'US',
    functionalCurrency,
    reportingCurrency: functionalCurrency,
    fiscalYearEndMonth: options.fiscalYearEnd?.month ?? 12,
    fiscalYearEndDay: options.fiscalYearEnd?.day ?? 31,
    isActive: options.isActive ?? true,
  });
  const chart = {} as Chart;
  for (const [key, number, type, category, flags] of CHART) {
    const accountId = uuidv7();
    chart[key] = accountId;
    await db.insert(accounts).values({
      id: accountId,
      organizationId,
      companyId: id,
      accountNumber: number,
      name: `${key} ${number}`,
      accountType: type,
      accountCategory: category,
      isPostable: flags?.isPostable ?? true,
      isActive: flags?.isActive ?? true,
    });
  }
  if (options.retainedEarnings !== false) {
    await db
      .update(companies)
      .set({ retainedEarningsAccountId: chart.retainedEarnings })
      .where(and(eq(companies.organizationId, organizationId), eq(companies.id, id)));
  }
  return { id, organizationId, functionalCurrency, accounts: chart };
}

/** An extra account of a company. */
export async function createAccount(
  t: TestContext,
  company: Company,
  values: {
    accountNumber: string;
    accountType?: string;
    accountCategory?: string;
    isIntercompany?: boolean;
    intercompanyPartnerId?: string | null;
  },
): Promise<string> {
  const id = uuidv7();
  await t.database.db.insert(accounts).values({
    id,
    organizationId: company.organizationId,
    companyId: company.id,
    accountNumber: values.accountNumber,
    name: `Account ${values.accountNumber}`,
    accountType: values.accountType ?? 'Asset',
    accountCategory: values.accountCategory ?? 'CurrentAsset',
    isIntercompany: values.isIntercompany ?? false,
    intercompanyPartnerId: values.intercompanyPartnerId ?? null,
  });
  return id;
}

export async function insertRate(
  t: TestContext,
  organizationId: string,
  createdBy: string,
  values: { from: string; to: string; rate: string; date: string; type?: string },
): Promise<string> {
  const id = uuidv7();
  await t.database.db.insert(exchangeRates).values({
    id,
    organizationId,
    fromCurrency: values.from,
    toCurrency: values.to,
    rate: values.rate,
    effectiveDate: values.date,
    rateType: values.type ?? 'Spot',
    source: 'Manual',
    createdBy,
  });
  return id;
}

export async function fiscalYearId(t: TestContext, company: Company, year: number): Promise<string | null> {
  const [row] = await t.database.db
    .select({ id: fiscalYears.id })
    .from(fiscalYears)
    .where(
      and(
        eq(fiscalYears.organizationId, company.organizationId),
        eq(fiscalYears.companyId, company.id),
        eq(fiscalYears.year, year),
      ),
    );
  return row?.id ?? null;
}

/** Sets a period's status directly (the period close endpoint belongs to another module). */
export async function setPeriodStatus(
  t: TestContext,
  company: Pick<Company, 'id' | 'organizationId'>,
  year: number,
  period: number,
  status: 'Open' | 'Closed',
): Promise<void> {
  await t.database.db
    .update(fiscalPeriods)
    .set({ status })
    .where(
      and(
        eq(fiscalPeriods.organizationId, company.organizationId),
        eq(fiscalPeriods.companyId, company.id),
        eq(fiscalPeriods.fiscalYear, year),
        eq(fiscalPeriods.periodNumber, period),
      ),
    );
}

export interface BalanceMismatch {
  company_id: string;
  account_id: string;
  balance_date: string;
  fiscal_year: number;
  fiscal_period: number;
  is_closing: boolean;
  stored_debit: string | null;
  stored_credit: string | null;
  line_debit: string | null;
  line_credit: string | null;
}

/**
 * Rows where `account_balances` differs from the aggregate of the functional amounts of the lines of
 * `Posted` and `Reversed` entries (closing flag: type Closing, or a reversal of a Closing entry), and
 * rows where the monthly roll-up `account_month_balances` differs from the daily balances.
 * Empty when the invariants hold.
 */
export async function balanceMismatches(t: TestContext, organizationId: string): Promise<BalanceMismatch[]> {
  return queryRows<BalanceMismatch>(
    t.database.db,
    sql`with lines as (
          select e.company_id, l.account_id, e.transaction_date as balance_date, e.fiscal_year,
                 e.fiscal_period,
                 (e.entry_type = 'Closing' or coalesce(o.entry_type = 'Closing', false)) as is_closing,
                 sum(coalesce(l.functional_debit_amount, 0)) as debit,
                 sum(coalesce(l.functional_credit_amount, 0)) as credit
          from journal_entries e
          join journal_lines l on l.organization_id = e.organization_id and l.journal_entry_id = e.id
          left join journal_entries o on o.organization_id = e.organization_id and o.id = e.reversed_entry_id
                                     and e.is_reversing
          where e.organization_id = ${organizationId} and e.status in ('Posted', 'Reversed')
          group by 1, 2, 3, 4, 5, 6
        ), stored as (
          select company_id, account_id, balance_date, fiscal_year, fiscal_period, is_closing,
                 debit_total as debit, credit_total as credit
          from account_balances where organization_id = ${organizationId}
        )
        select coalesce(s.company_id, l.company_id) as company_id, coalesce(s.account_id, l.account_id) as account_id,
               coalesce(s.balance_date, l.balance_date)::text as balance_date,
               coalesce(s.fiscal_year, l.fiscal_year) as fiscal_year,
               coalesce(s.fiscal_period, l.fiscal_period)::int as fiscal_period,
               coalesce(s.is_closing, l.is_closing) as is_closing,
               s.debit::text as stored_debit, s.credit::text as stored_credit,
               l.debit::text as line_debit, l.credit::text as line_credit
        from stored s
        full join lines l on l.company_id = s.company_id and l.account_id = s.account_id
          and l.balance_date = s.balance_date and l.fiscal_year = s.fiscal_year
          and l.fiscal_period = s.fiscal_period and l.is_closing = s.is_closing
        where s.debit is distinct from l.debit or s.credit is distinct from l.credit
        union all
        -- the monthly roll-up must equal the daily balances summed per month and adjustment flag
        -- (fiscal year 0, fiscal period 13 for adjustment totals, else 0)
        select coalesce(m.company_id, d.company_id), coalesce(m.account_id, d.account_id),
               coalesce(m.month_start, d.month_start)::text, 0,
               case when coalesce(m.is_adjustment, d.is_adjustment) then 13 else 0 end,
               coalesce(m.is_closing, d.is_closing),
               m.debit_total::text, m.credit_total::text, d.debit::text, d.credit::text
        from (select * from account_month_balances where organization_id = ${organizationId}) m
        full join (
          select company_id, account_id, date_trunc('month', balance_date)::date as month_start, is_closing,
                 fiscal_period = 13 as is_adjustment, sum(debit_total) as debit, sum(credit_total) as credit
          from account_balances where organization_id = ${organizationId} group by 1, 2, 3, 4, 5
        ) d on d.company_id = m.company_id and d.account_id = m.account_id and d.month_start = m.month_start
          and d.is_closing = m.is_closing and d.is_adjustment = m.is_adjustment
        where m.debit_total is distinct from d.debit or m.credit_total is distinct from d.credit`,
  );
}

/** Per company: Σ debit_total − Σ credit_total of the stored balances (must be zero). */
export async function trialBalanceNets(
  t: TestContext,
  organizationId: string,
): Promise<{ company_id: string; net: string }[]> {
  return queryRows(
    t.database.db,
    sql`select company_id, (sum(debit_total) - sum(credit_total))::text as net
        from account_balances where organization_id = ${organizationId} group by company_id`,
  );
}

/**
 * Rows where the balances per transaction currency (`account_currency_balances`, and its monthly
 * roll-up) differ from the lines of `Posted` and `Reversed` entries in a currency other than their
 * company's functional currency. Empty when the invariant holds.
 */
export async function currencyBalanceMismatches(t: TestContext, organizationId: string) {
  return queryRows<Record<string, unknown>>(
    t.database.db,
    sql`with lines as (
          select e.company_id, l.account_id, l.currency, e.transaction_date as d,
                 sum(coalesce(l.debit_amount, 0) - coalesce(l.credit_amount, 0)) as f,
                 sum(coalesce(l.functional_debit_amount, 0) - coalesce(l.functional_credit_amount, 0)) as fn
          from journal_lines l
          join journal_entries e on e.organization_id = l.organization_id and e.id = l.journal_entry_id
          join companies c on c.organization_id = e.organization_id and c.id = e.company_id
          where l.organization_id = ${organizationId} and e.status in ('Posted', 'Reversed')
            and l.currency <> c.functional_currency
          group by 1, 2, 3, 4),
        daily as (
          select company_id, account_id, currency, balance_date as d, foreign_net as f, functional_net as fn
          from account_currency_balances where organization_id = ${organizationId}),
        months as (
          select company_id, account_id, currency, month_start as m, foreign_net as f, functional_net as fn
          from account_currency_month_balances where organization_id = ${organizationId}),
        rolled as (
          select company_id, account_id, currency, date_trunc('month', d)::date as m, sum(f) as f, sum(fn) as fn
          from daily group by 1, 2, 3, 4)
        select 'daily' as kind, coalesce(a.account_id, b.account_id)::text as account_id,
               coalesce(a.d, b.d)::text as d, a.f::text as line_f, b.f::text as stored_f
        from lines a full join daily b on a.company_id = b.company_id and a.account_id = b.account_id
          and a.currency = b.currency and a.d = b.d
        where a.f is distinct from b.f or a.fn is distinct from b.fn
        union all
        select 'monthly', coalesce(a.account_id, b.account_id)::text, coalesce(a.m, b.m)::text,
               a.f::text, b.f::text
        from rolled a full join months b on a.company_id = b.company_id and a.account_id = b.account_id
          and a.currency = b.currency and a.m = b.m
        where a.f is distinct from b.f or a.fn is distinct from b.fn`,
  );
}
