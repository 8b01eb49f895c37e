/**
 * The general-ledger report (account activity): for one account, a range of account numbers or every
 * account of a company, the posted lines of a date range in the order they affect the account (date,
 * entry number, line number), each with its entry, the other accounts of its entry and the running
 * balance, plus each account's opening and closing balance.
 *
 * Balances are debit-positive (Σ debit − Σ credit) in the company's functional currency, and
 * include every booked entry (posted, and posted-then-reversed: a reversal is an entry of its own).
 * The running balance is computed by the database over every line of the account in the range (a
 * window sum on top of the opening balance), so a page shows the same running balances whatever its
 * offset. Lines are paginated; the per-account summary is always complete.
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import { ValidationError } from '../../domain/errors.ts';
import { BOOKED_STATUS } from '../../domain/journal/workflow.ts';
import { dec, type Money, money } from '../../domain/money.ts';
import type { Table, TableRow } from '../../domain/reports/tabular.ts';
import type { Access } from '../../access/access.ts';
import { requireCompany } from '../companies/lookup.ts';
import { formatEntryNumber } from '../journal/repo.ts';
import { checkPeriod, functionalOnly } from './service.ts';
import { errors } from '../../domain/error-catalogue.ts';

/** Entries whose lines are in the balances: posted, and posted then reversed. */
const BOOKED = [BOOKED_STATUS, 'Reversed'];

export interface GeneralLedgerQuery {
  organizationId: string;
  companyId: string;
  /** only the functional currency (400 ReportCurrencyNotSupportedError otherwise) */
  currency?: string | null | undefined;
  accountId?: string | undefined;
  accountNumberFrom?: string | undefined;
  accountNumberTo?: string | undefined;
  startDate: string;
  endDate: string;
}

export interface GeneralLedgerAccount {
  accountId: string;
  accountNumber: string;
  accountName: string;
  accountType: string;
  openingBalance: Money;
  totalDebits: Money;
  totalCredits: Money;
  closingBalance: Money;
}

export interface GeneralLedgerLine {
  accountId: string;
  accountNumber: string;
  entryId: string;
  entryNumber: string;
  transactionDate: string;
  description: string;
  lineNumber: number;
  memo: string | null;
  counterpartAccounts: string[];
  debit: Money;
  credit: Money;
  runningBalance: Money;
}

export interface GeneralLedgerReport {
  companyId: string;
  companyName: string;
  currency: string;
  startDate: string;
  endDate: string;
  generatedAt: string;
  accounts: GeneralLedgerAccount[];
  lines: GeneralLedgerLine[];
  total: number;
  limit: number;
  offset: number;
}

/** `(length, text)`: account numbers (digits, no leading zero) in numeric order. */
const numberKey = (column: string) => sql.raw(`(length(${column}), ${column})`);

function accountFilter(q: GeneralLedgerQuery) {
  if (q.accountId !== undefined) return sql`a.id = ${q.accountId}`;
  const parts = [sql`true`];
  if (q.accountNumberFrom !== undefined) {
    parts.push(
      sql`${numberKey('a.account_number')} >= (length(${q.accountNumberFrom}), ${q.accountNumberFrom}::text)`,
    );
  }
  if (q.accountNumberTo !== undefined) {
    parts.push(
      sql`${numberKey('a.account_number')} <= (length(${q.accountNumberTo}), ${q.accountNumberTo}::text)`,
    );
  }
  return sql.join(parts, sql` and `);
}

/** The query's own checks: the account selection and the date range. */
export function checkGeneralLedgerQuery(q: GeneralLedgerQuery): void {
  if (q.accountId !== undefined && (q.accountNumberFrom !== undefined || q.accountNumberTo !== undefined)) {
    throw new ValidationError([
      { path: '/query/accountId', message: 'Give accountId or an account-number range, not both' },
    ]);
  }
  checkPeriod(q.startDate, q.endDate);
}

/**
 * The report; `page` null reads every line (exports). The account of `accountId` must be one of the
 * company's (404 AccountNotFoundError otherwise).
 */
export async function generalLedger(
  db: Db,
  access: Access,
  q: GeneralLedgerQuery,
  page: { limit: number; offset: number } | null,
): Promise<GeneralLedgerReport> {
  await access.authorize(q.organizationId, 'report:read');
  const company = await requireCompany(db, q.organizationId, q.companyId);
  functionalOnly(company, 'general-ledger', q.currency);
  const org = q.organizationId;
  const co = company.id;
  const currency = company.functionalCurrency;
  const selected = accountFilter(q);
  const summaries = await accountSummaries(db, org, co, selected, q);
  if (q.accountId !== undefined && summaries.length === 0) {
    throw errors.AccountNotFoundError('Account not found', { accountId: q.accountId });
  }
  const accounts: GeneralLedgerAccount[] = summaries
    .map((r) => {
      const opening = money(r.opening!, currency);
      return {
        accountId: r.id!,
        accountNumber: r.account_number!,
        accountName: r.name!,
        accountType: r.account_type!,
        openingBalance: opening,
        totalDebits: money(r.debit!, currency),
        totalCredits: money(r.credit!, currency),
        closingBalance: money(sumText(r.opening!, r.debit!, r.credit!), currency),
      };
    })
    .filter((a) => q.accountId !== undefined || !isZeroAccount(a));
  const lineSource = sql`
    with sel as (
      select a.id, a.account_number from accounts a
      where a.organization_id = ${org} and a.company_id = ${co} and ${selected}),
    opening as (
      select b.account_id, sum(b.debit_total - b.credit_total) as net from account_balances b
      where b.organization_id = ${org} and b.company_id = ${co} and b.balance_date < ${q.startDate}::date
        and b.account_id in (select id from sel)
      group by b.account_id),
    booked as (
      select l.account_id, sel.account_number, e.id as entry_id, e.entry_number, e.transaction_date,
        e.description, l.line_number, l.memo, coalesce(l.functional_debit_amount, 0) as debit,
        coalesce(l.functional_credit_amount, 0) as credit
      from journal_lines l
      join sel on sel.id = l.account_id
      join journal_entries e on e.organization_id = l.organization_id and e.id = l.journal_entry_id
      where l.organization_id = ${org} and l.company_id = ${co}
        and e.status in (${sql.join(
          BOOKED.map((s) => sql`${s}`),
          sql`, `,
        )})
        and e.transaction_date >= ${q.startDate}::date and e.transaction_date <= ${q.endDate}::date)`;
  const [count] = await queryRows<{ n: number }>(
    db,
    sql`${lineSource} select count(*)::int as n from booked`,
  );
  const paging = page ? sql`limit ${page.limit} offset ${page.offset}` : sql``;
  const rows = await queryRows<Record<string, unknown>>(
    db,
    sql`${lineSource},
      ordered as (
        select k.*, coalesce(o.net, 0) + sum(k.debit - k.credit) over (
          partition by k.account_id order by k.transaction_date, k.entry_number, k.line_number
          rows unbounded preceding) as running
        from booked k left join opening o on o.account_id = k.account_id)
      select x.account_id::text as account_id, x.account_number, x.entry_id::text as entry_id,
        x.entry_number::int as entry_number, x.transaction_date, x.description, x.line_number::int as line_number,
        x.memo, x.debit::text as debit, x.credit::text as credit, x.running::text as running,
        (select coalesce(json_agg(distinct a2.account_number), '[]'::json)
         from journal_lines l2 join accounts a2 on a2.organization_id = l2.organization_id and a2.id = l2.account_id
         where l2.organization_id = ${org} and l2.journal_entry_id = x.entry_id
           and l2.account_id <> x.account_id) as counterparts
      from ordered x
      order by length(x.account_number), x.account_number, x.transaction_date, x.entry_number, x.line_number
      ${paging}`,
  );
  const lines = rows.map((r) => ledgerLine(r, currency));
  return {
    companyId: co,
    companyName: company.name,
    currency,
    startDate: q.startDate,
    endDate: q.endDate,
    generatedAt: new Date().toISOString(),
    accounts,
    lines,
    total: Number(count?.n ?? 0),
    limit: page?.limit ?? lines.length,
    offset: page?.offset ?? 0,
  };
}

/** Each selected account's opening balance and movements of the range (from the daily balances). */
function accountSummaries(
  db: Db,
  org: string,
  co: string,
  selected: ReturnType<typeof accountFilter>,
  q: GeneralLedgerQuery,
): Promise<Record<string, string>[]> {
  return queryRows<Record<string, string>>(
    db,
    sql`with sel as (
        select a.id, a.account_number, a.name, a.account_type from accounts a
        where a.organization_id = ${org} and a.company_id = ${co} and ${selected}),
      figures as (
        select b.account_id,
          coalesce(sum(b.debit_total - b.credit_total) filter (where b.balance_date < ${q.startDate}::date), 0) as opening,
          coalesce(sum(b.debit_total) filter (where b.balance_date >= ${q.startDate}::date), 0) as debit,
          coalesce(sum(b.credit_total) filter (where b.balance_date >= ${q.startDate}::date), 0) as credit
        from account_balances b
        where b.organization_id = ${org} and b.company_id = ${co} and b.balance_date <= ${q.endDate}::date
          and b.account_id in (select id from sel)
        group by b.account_id)
      select sel.id::text as id, sel.account_number, sel.name, sel.account_type,
        coalesce(f.opening, 0)::text as opening, coalesce(f.debit, 0)::text as debit,
        coalesce(f.credit, 0)::text as credit
      from sel left join figures f on f.account_id = sel.id
      order by length(sel.account_number), sel.account_number`,
  );
}

/** A line of the report from its row (functional amounts as exact text). */
function ledgerLine(r: Record<string, unknown>, currency: string): GeneralLedgerLine {
  return {
    accountId: String(r.account_id),
    accountNumber: String(r.account_number),
    entryId: String(r.entry_id),
    entryNumber: formatEntryNumber(Number(r.entry_number)),
    transactionDate: String(r.transaction_date),
    description: String(r.description),
    lineNumber: Number(r.line_number),
    memo: (r.memo as string | null) ?? null,
    counterpartAccounts: sortNumbers(
      (typeof r.counterparts === 'string' ? JSON.parse(r.counterparts) : r.counterparts) as string[],
    ),
    debit: money(String(r.debit), currency),
    credit: money(String(r.credit), currency),
    runningBalance: money(String(r.running), currency),
  };
}

/** opening + debit − credit, exactly. */
const sumText = (opening: string, debit: string, credit: string) =>
  dec(opening).plus(debit).minus(credit).toFixed();

const sortNumbers = (numbers: string[]) =>
  [...numbers].sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));

const isZeroAccount = (a: GeneralLedgerAccount) =>
  [a.openingBalance, a.totalDebits, a.totalCredits].every((m) => /^-?0(\.0+)?$/.test(m.value));

/** The export of the report: per account a header row, its lines and its closing row. */
export function generalLedgerTable(report: GeneralLedgerReport): Table {
  const rows: TableRow[] = [];
  const byAccount = new Map<string, GeneralLedgerLine[]>();
  for (const l of report.lines) byAccount.set(l.accountId, [...(byAccount.get(l.accountId) ?? []), l]);
  for (const a of report.accounts) {
    rows.push({
      style: 'Header',
      cells: [a.accountNumber, null, null, `${a.accountNumber} ${a.accountName}`, null, null, null, null],
    });
    rows.push({
      style: 'Normal',
      cells: [
        a.accountNumber,
        null,
        report.startDate,
        'Opening balance',
        null,
        null,
        null,
        a.openingBalance.value,
      ],
    });
    for (const l of byAccount.get(a.accountId) ?? []) {
      rows.push({
        style: 'Normal',
        cells: [
          l.accountNumber,
          l.entryNumber,
          l.transactionDate,
          l.description,
          l.counterpartAccounts.join(' '),
          l.debit.value,
          l.credit.value,
          l.runningBalance.value,
        ],
      });
    }
    rows.push({
      style: 'Subtotal',
      cells: [
        a.accountNumber,
        null,
        report.endDate,
        'Closing balance',
        null,
        a.totalDebits.value,
        a.totalCredits.value,
        a.closingBalance.value,
      ],
    });
  }
  return {
    title: 'General ledger',
    currency: report.currency,
    columns: [
      { header: 'Account number', kind: 'text', width: 14 },
      { header: 'Entry number', kind: 'text', width: 12 },
      { header: 'Date', kind: 'date', width: 12 },
      { header: 'Description', kind: 'text', width: 40 },
      { header: 'Counterpart accounts', kind: 'text', width: 24 },
      { header: 'Debit', kind: 'amount', width: 16 },
      { header: 'Credit', kind: 'amount', width: 16 },
      { header: 'Balance', kind: 'amount', width: 16 },
    ],
    rows,
  };
}
