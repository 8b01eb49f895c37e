/**
 * THE data-loading step of a consolidation run (contract 3.12.3 "Execution reads all ledger data of one
 * run from one consistent database snapshot"): one REPEATABLE READ, READ ONLY transaction reads
 * everything the pure engine needs and returns its `ConsolidationInput`.
 *
 * Queries (each over all companies of the group at once — no per-company or per-account queries):
 *   companies, accounts, fiscal-period status, unposted-entry counts, intercompany transactions (one
 *   query for both views), elimination rules, the exchange rates (one rate book for every currency
 *   involved, resolved in memory) and the ledger figures of each view (one GROUP BY per view over the
 *   monthly balance roll-up, with daily balance rows only where a month is cut — never journal lines).
 *
 * Ledger figures follow the engine's ViewData contract (domain/consolidation/types.ts):
 *   - Revenue/Expense: one figure per account and GROUP period (dated with a representative date
 *     inside that period), prior years included;
 *   - Equity and `isNonMonetary` accounts of companies not in the reporting currency: one per date
 *     on which the historical rate may differ (see `loadFigures`);
 *   - everything else: one cumulative figure (date null).
 * Closing entries (and their reversals) are excluded (`is_closing`); in the closing view of a run for
 * a period 1–12 the period-13 entries of each company's own fiscal year containing asOfDate are
 * excluded too. The opening view applies no period-13 exclusion (every earlier year is complete).
 */
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { type Db, type Queryable, queryRows } from '../../db/client.ts';
import { companies } from '../../db/schema/index.ts';
import type { AccountCategory, AccountType, CashFlowCategory } from '../../domain/accounts.ts';
import type {
  AccountInfo,
  CompanyInput,
  CompanyLedger,
  ConsolidationInput,
  GroupPeriod,
  IntercompanyTransactionInput,
  IntercompanyTransactionType,
  MatchingStatus,
  RateProvider,
  ResolvedRate,
  RunMember,
  ViewData,
} from '../../domain/consolidation/index.ts';
import { addDays, daysInMonth, makeDate, minDate, parts } from '../../domain/dates.ts';
import {
  type FiscalYearEnd,
  fiscalYearOf,
  fiscalYearStartDate,
  periodOf,
  periodRange,
  periodsOfYear,
} from '../../domain/fiscal-calendar.ts';
import { dec, formatRate } from '../../domain/money.ts';
import { CLOSING_RATE_TYPES, HISTORICAL_RATE_TYPES, type RateResolution } from '../../domain/rates.ts';
import { loadRateBook, type RateBook, type RateQuery } from '../exchange-rates/service.ts';
import { loadTransactionsForRun } from '../intercompany/repo.ts';
import { loadRuleInputs } from './rules.repo.ts';
import { type RunRow, storedOptions } from './runs.repo.ts';

const ALL_MATCHING_STATUSES: readonly MatchingStatus[] = [
  'Unmatched',
  'PartiallyMatched',
  'Matched',
  'VarianceApproved',
];

/** Loads the engine input of the run in one consistent snapshot. */
export function loadRunInput(db: Db, run: RunRow): Promise<ConsolidationInput> {
  return db.transaction((tx) => loadInSnapshot(tx, run), {
    isolationLevel: 'repeatable read',
    accessMode: 'read only',
  });
}

interface CompanyRow {
  id: string;
  name: string;
  functionalCurrency: string;
  isActive: boolean;
  retainedEarningsAccountId: string | null;
  fiscalYearEndMonth: number;
  fiscalYearEndDay: number;
}

const fyeOf = (c: CompanyRow): FiscalYearEnd => ({ month: c.fiscalYearEndMonth, day: c.fiscalYearEndDay });

async function loadInSnapshot(tx: Queryable, run: RunRow): Promise<ConsolidationInput> {
  const orgId = run.organizationId;
  const G = run.reportingCurrency;
  const members = (run.members ?? []) as RunMember[];
  const ids = members.map((m) => m.companyId);
  const parentMember = members.find((m) => m.role === 'Parent');
  if (!parentMember) throw new Error('The run has no parent company');
  const options = storedOptions(run);
  const asOfDate = run.asOfDate;
  const yearStartDate = run.yearStartDate;
  const openingAsOf = addDays(yearStartDate, -1);

  // The first statement fixes the snapshot; every later one sees the same database state.
  const companyRows: CompanyRow[] = await tx
    .select({
      id: companies.id,
      name: companies.name,
      functionalCurrency: companies.functionalCurrency,
      isActive: companies.isActive,
      retainedEarningsAccountId: companies.retainedEarningsAccountId,
      fiscalYearEndMonth: companies.fiscalYearEndMonth,
      fiscalYearEndDay: companies.fiscalYearEndDay,
    })
    .from(companies)
    .where(and(eq(companies.organizationId, orgId), inArray(companies.id, ids)));
  const companyById = new Map(companyRows.map((c) => [c.id, c]));
  for (const id of ids)
    if (!companyById.has(id)) throw new Error(`Company ${id} of the run no longer exists`);
  const groupFye = fyeOf(companyById.get(parentMember.companyId)!);
  const openingYearStart = fiscalYearStartDate(groupFye, run.year - 1);

  // Period-13 exclusion of the closing view (p ≤ 12): per company, its own fiscal year containing
  // asOfDate. Companies are grouped by that year and its first day (usually one group).
  const exclusionGroups = new Map<string, AdjustmentExclusion>();
  if (run.period <= 12) {
    for (const c of companyRows) {
      const fy = fiscalYearOf(fyeOf(c), asOfDate);
      const fromDate = fiscalYearStartDate(fyeOf(c), fy);
      const key = `${fy}|${fromDate}`;
      const group = exclusionGroups.get(key) ?? { fiscalYear: fy, fromDate, companyIds: [] };
      group.companyIds.push(c.id);
      exclusionGroups.set(key, group);
    }
  }
  const exclusions = [...exclusionGroups.values()];

  // Statements run one after the other: a transaction has one connection (node-postgres refuses
  // overlapping queries on it). The aggregations join 10^5+ balance rows with the accounts: hash joins
  // and in-memory aggregation, whatever the (often poor) row estimates say.
  // No JIT: the disabled nested loops inflate plan costs past jit_above_cost, and compiling the
  // expressions costs far more than running these queries.
  await tx.execute(sql`set local enable_nestloop = off`);
  await tx.execute(sql`set local jit = off`);
  await tx.execute(sql`set local work_mem = '64MB'`);
  const accountRows = await loadAccounts(tx, orgId, ids);
  const periodRows = await queryRows<{ company_id: string; status: string }>(
    tx,
    sql`select company_id::text as company_id, status from fiscal_periods
        where organization_id = ${orgId} and company_id in (${idList(ids)})
          and period_number between 1 and 12
          and start_date <= ${asOfDate}::date and end_date >= ${asOfDate}::date`,
  );
  const unpostedRows = await queryRows<{ company_id: string; n: number }>(
    tx,
    sql`select company_id::text as company_id, count(*)::int as n from journal_entries
        where organization_id = ${orgId} and company_id in (${idList(ids)})
          and status in ('Draft', 'PendingApproval', 'Approved')
          and transaction_date <= ${asOfDate}::date
        group by company_id`,
  );
  const [earliestRow] = await queryRows<{ d: string | null }>(
    tx,
    sql`select min(start_date)::text as d from fiscal_years
        where organization_id = ${orgId} and company_id in (${idList(ids)})`,
  );
  const earliestDate = minDate(earliestRow?.d ?? openingYearStart, openingYearStart);
  const accountRefs = new Map(
    accountRows.map((a) => [a.id, { companyId: a.companyId, number: a.accountNumber }]),
  );
  const icRows = await loadTransactionsForRun(tx, {
    organizationId: orgId,
    companyIds: ids,
    startDate: openingYearStart,
    endDate: asOfDate,
    statuses: ALL_MATCHING_STATUSES,
  });
  const rules = await loadRuleInputs(tx, orgId, run.groupId);
  // Rates: every currency involved, effective up to the end of the group period containing asOfDate
  // (an average rate of that period may be dated after asOfDate but within the period).
  const currencies = new Set<string>([G, ...companyRows.map((c) => c.functionalCurrency)]);
  for (const r of icRows) currencies.add(r.currency);
  const last = periodOf(groupFye, asOfDate);
  const untilDate = periodRange(groupFye, last.year, last.period).endDate;
  const book = await loadRateBook(tx, orgId, [...currencies], untilDate);
  // A historical rate HR(d) can only change on the effective date of a rate it may be resolved from.
  const rateChangeDates = [
    ...new Set(
      book.rates.filter((r) => HISTORICAL_RATE_TYPES.includes(r.rateType)).map((r) => r.effectiveDate),
    ),
  ].sort();

  const figureQuery = (
    view: { asOfDate: string; yearStartDate: string },
    exclusions: readonly AdjustmentExclusion[],
  ) =>
    loadFigures(
      tx,
      { organizationId: orgId, ids, reportingCurrency: G, groupFye, rateChangeDates, earliestDate, ...view },
      exclusions,
      accountRefs,
    );
  const closingFigures = await figureQuery({ asOfDate, yearStartDate }, exclusions);
  const openingFigures = await figureQuery({ asOfDate: openingAsOf, yearStartDate: openingYearStart }, []);

  const accountsByCompany = new Map<string, AccountInfo[]>(ids.map((id) => [id, []]));
  const accountNumberById = new Map<string, string>();
  for (const a of accountRows) {
    accountNumberById.set(a.id, a.accountNumber);
    accountsByCompany.get(a.companyId)?.push({
      accountNumber: a.accountNumber,
      name: a.name,
      accountType: a.accountType as AccountType,
      accountCategory: a.accountCategory as AccountCategory,
      isCashEquivalent: a.isCashEquivalent,
      cashFlowCategory: (a.cashFlowCategory ?? null) as CashFlowCategory | null,
      isNonMonetary: a.isNonMonetary,
    });
  }
  const periodStatus = new Map(periodRows.map((r) => [r.company_id, r.status]));
  const unposted = new Map(unpostedRows.map((r) => [r.company_id, Number(r.n)]));

  const companyInputs: CompanyInput[] = members.map((m) => {
    const c = companyById.get(m.companyId)!;
    const status = periodStatus.get(c.id);
    return {
      companyId: c.id,
      companyName: c.name,
      functionalCurrency: c.functionalCurrency,
      isActive: c.isActive,
      role: m.role,
      consolidationMethod: m.role === 'Parent' ? 'FullConsolidation' : m.consolidationMethod,
      ownershipPercentage: m.role === 'Parent' ? '100' : m.ownershipPercentage,
      retainedEarningsAccountNumber:
        c.retainedEarningsAccountId === null
          ? null
          : (accountNumberById.get(c.retainedEarningsAccountId) ?? null),
      accounts: accountsByCompany.get(c.id) ?? [],
      fiscalPeriodStatus: status === 'Open' || status === 'Closed' ? status : null,
      unpostedEntryCount: unposted.get(c.id) ?? 0,
    };
  });

  const ic: IntercompanyTransactionInput[] = icRows.map((r) => ({
    id: r.id,
    fromCompanyId: r.fromCompanyId,
    toCompanyId: r.toCompanyId,
    transactionType: r.transactionType as IntercompanyTransactionType,
    transactionDate: r.transactionDate,
    amount: r.amount,
    currency: r.currency,
    matchingStatus: r.matchingStatus as MatchingStatus,
  }));
  const closing: ViewData = {
    asOfDate,
    yearStartDate,
    ledgers: closingFigures,
    intercompanyTransactions: ic.filter((t) => t.transactionDate >= yearStartDate),
  };
  const opening: ViewData = {
    asOfDate: openingAsOf,
    yearStartDate: openingYearStart,
    ledgers: openingFigures,
    intercompanyTransactions: ic.filter((t) => t.transactionDate < yearStartDate),
  };

  // Group periods covering every date that may need an average rate (both views).
  let earliest = openingYearStart;
  const foreign = new Set(companyRows.filter((c) => c.functionalCurrency !== G).map((c) => c.id));
  const revenueOrExpense = new Set<string>();
  for (const c of companyInputs) {
    for (const a of c.accounts) {
      if (a.accountType === 'Revenue' || a.accountType === 'Expense') {
        revenueOrExpense.add(`${c.companyId}|${a.accountNumber}`);
      }
    }
  }
  for (const ledger of [...closingFigures, ...openingFigures]) {
    if (!foreign.has(ledger.companyId)) continue;
    for (const f of ledger.figures) {
      if (f.date !== null && revenueOrExpense.has(`${ledger.companyId}|${f.accountNumber}`)) {
        earliest = minDate(earliest, f.date);
      }
    }
  }
  const groupPeriods: GroupPeriod[] = [];
  for (let y = fiscalYearOf(groupFye, earliest); y <= run.year; y++) {
    for (const p of periodsOfYear(groupFye, y)) {
      if (p.periodNumber <= 12) {
        groupPeriods.push({ year: y, period: p.periodNumber, startDate: p.startDate, endDate: p.endDate });
      }
    }
  }

  return {
    reportingCurrency: G,
    periodRef: { year: run.year, period: run.period },
    asOfDate,
    yearStartDate,
    groupPeriods,
    options: {
      skipValidation: options.skipValidation,
      continueOnWarnings: options.continueOnWarnings,
      includeEquityMethodInvestments: options.includeEquityMethodInvestments,
      approvedManualRuleIds: options.approvedManualRuleIds,
    },
    companies: companyInputs,
    rules,
    rates: rateProvider(book),
    closing,
    opening,
  };
}

interface AccountRow {
  id: string;
  companyId: string;
  accountNumber: string;
  name: string;
  accountType: string;
  accountCategory: string;
  isCashEquivalent: boolean;
  cashFlowCategory: string | null;
  isNonMonetary: boolean;
}

/** Every account of the companies, as ONE JSON value (thousands of rows cost far more as rows). */
async function loadAccounts(
  tx: Queryable,
  organizationId: string,
  ids: readonly string[],
): Promise<AccountRow[]> {
  const [row] = await queryRows<{ j: string }>(
    tx,
    sql`select coalesce(json_agg(json_build_array(id, company_id, account_number, name, account_type,
          account_category, is_cash_equivalent, cash_flow_category, is_non_monetary)), '[]')::text as j
        from accounts where organization_id = ${organizationId} and company_id in (${idList(ids)})`,
  );
  const list = JSON.parse(row?.j ?? '[]') as Array<
    [string, string, string, string, string, string, boolean, string | null, boolean]
  >;
  return list.map(
    ([id, companyId, accountNumber, name, accountType, accountCategory, cash, cfc, nonMonetary]) => ({
      id,
      companyId,
      accountNumber,
      name,
      accountType,
      accountCategory,
      isCashEquivalent: cash,
      cashFlowCategory: cfc,
      isNonMonetary: nonMonetary,
    }),
  );
}

function idList(ids: readonly string[]): SQL {
  return sql.join(
    ids.map((id) => sql`${id}::uuid`),
    sql`, `,
  );
}

interface FigureScope {
  organizationId: string;
  ids: readonly string[];
  reportingCurrency: string;
  groupFye: FiscalYearEnd;
  /** the view's asOfDate and yearStartDate */
  asOfDate: string;
  yearStartDate: string;
  /**
   * Sorted effective dates of the rates a historical rate may be resolved from: HR(d) is constant
   * between two consecutive ones.
   */
  rateChangeDates: readonly string[];
  /** First day of the earliest fiscal year of any member (how far back group-period cuts go). */
  earliestDate: string;
}

/** Per exclusion group: the companies whose adjustment entries dated from `fromDate` are left out. */
export interface AdjustmentExclusion {
  fiscalYear: number;
  fromDate: string;
  companyIds: string[];
}

const EPOCH = '1970-01-01';

/**
 * The days on which the group-period key of a Revenue/Expense figure (see `loadFigures`) changes
 * inside a calendar month: with a group year end of day d in month m, d < that month's last day,
 * days 1..d of month m belong to period 12 and the later ones to period 1 of the next year.
 */
function groupPeriodCuts(fye: FiscalYearEnd, fromDate: string, toDate: string): string[] {
  const cuts: string[] = [];
  for (let y = parts(fromDate).year; y <= parts(toDate).year; y++) {
    if (fye.day < daysInMonth(y, fye.month)) cuts.push(makeDate(y, fye.month, fye.day + 1));
  }
  return cuts;
}

/**
 * One aggregation over the posted balances of all companies of the run, as of the view's `asOfDate`:
 * Σ (debit − credit) per account and date key (see the module comment). The date key is a day number
 * (days since 1970-01-01) or null:
 *   - Revenue/Expense of a company not in G: the representative date of the line's GROUP period — the
 *     last day of its calendar month, except for days 1..d of the year-end month m when d is not that
 *     month's last day: they belong to period 12, which starts on the 1st of the previous month, so
 *     that month's last day;
 *   - Revenue/Expense of a company in G: the view's yearStartDate − 1 (prior years) or yearStartDate;
 *   - Equity and `isNonMonetary` accounts of a company not in G: a date with the same historical rate
 *     as the transaction dates it stands for (below);
 *   - otherwise null (cumulative).
 * Whole months come from the monthly roll-up `account_month_balances`, so the cost grows with
 * accounts × months, not with entries or active days. Daily rows of `account_balances` are read only
 * for the "split" months in which a key other than the historical one changes value (the month of
 * asOfDate when it is not a month end, of yearStartDate and of each adjustment exclusion when they
 * are not a 1st, of a group year end that is not a month end), and for the historical keys: a month
 * whose only rate change (if any) falls on its 1st has one historical rate, so its roll-up row keyed
 * by the month's first day stands for all its days; in a month with a rate change on day b > 1, the
 * daily rows from b on (the "tail") keep their own dates and are taken out of the roll-up row.
 * Adjustment-period rows are kept apart in the roll-up (`is_adjustment`), so the period-13 exclusion
 * needs no daily rows either.
 * The result comes back as ONE delimited string (`account,day,amount;…`): an embedded database
 * answers one large value far faster than tens of thousands of rows.
 */
async function loadFigures(
  tx: Queryable,
  scope: FigureScope,
  exclusions: readonly AdjustmentExclusion[],
  accountRefs: Map<string, { companyId: string; number: string }>,
): Promise<CompanyLedger[]> {
  const { organizationId, ids, reportingCurrency, groupFye } = scope;
  if (ids.length === 0) return [];
  const monthOf = (date: string) => `${date.slice(0, 8)}01`;
  const cuts = [
    addDays(scope.asOfDate, 1),
    scope.yearStartDate,
    ...exclusions.map((e) => e.fromDate),
    ...groupPeriodCuts(groupFye, scope.earliestDate, scope.asOfDate),
  ];
  const splitMonths = [...new Set(cuts.filter((c) => !c.endsWith('-01')).map(monthOf))]
    .filter((m) => m <= scope.asOfDate)
    .sort();
  const split = new Set(splitMonths);
  // Per month outside the split ones: the first day > 1 on which the historical rate may change.
  const tails = new Map<string, string>();
  for (const d of scope.rateChangeDates) {
    if (d.endsWith('-01') || d > scope.asOfDate || split.has(monthOf(d))) continue;
    if (!tails.has(monthOf(d))) tails.set(monthOf(d), d);
  }
  const m = sql.raw(String(Math.trunc(groupFye.month)));
  const d = sql.raw(String(Math.trunc(groupFye.day)));
  const monthStart = sql`date_trunc('month', s.day::timestamp)`;
  const monthEnd = sql`(${monthStart} + interval '1 month' - interval '1 day')`;
  const periodDate = sql`(case
      when extract(month from s.day) = ${m} and extract(day from s.day) <= ${d}
        and ${d} < extract(day from ${monthEnd})
      then (${monthStart} - interval '1 day')::date
      else ${monthEnd}::date end)`;
  const priorDay = addDays(scope.yearStartDate, -1);
  const dateList = (dates: readonly string[]) =>
    sql.join(
      dates.map((x) => sql`${x}::date`),
      sql`, `,
    );
  const ranges = (pairs: readonly (readonly [string, string])[]) =>
    sql.join(
      pairs.map(
        ([from, month]) =>
          sql`(ab.balance_date >= ${from}::date and ab.balance_date < (${month}::date + interval '1 month'))`,
      ),
      sql` or `,
    );
  const dailyCommon = [
    sql`ab.organization_id = ${organizationId}`,
    sql`ab.company_id in (${idList(ids)})`,
    sql`not ab.is_closing`,
    sql`ab.balance_date <= ${scope.asOfDate}::date`,
  ];
  if (exclusions.length > 0) {
    const excluded = exclusions.map(
      (e) =>
        sql`(ab.fiscal_year = ${sql.raw(String(Math.trunc(e.fiscalYear)))} and ab.company_id in (${idList(e.companyIds)}))`,
    );
    dailyCommon.push(sql`not (ab.fiscal_period = 13 and (${sql.join(excluded, sql` or `)}))`);
  }

  // Monthly roll-up: every month outside the split ones, less the excluded adjustment rows.
  const monthly = [
    sql`mb.organization_id = ${organizationId}`,
    sql`mb.company_id in (${idList(ids)})`,
    sql`not mb.is_closing`,
    sql`mb.month_start <= ${scope.asOfDate}::date`,
  ];
  if (splitMonths.length > 0) monthly.push(sql`mb.month_start not in (${dateList(splitMonths)})`);
  if (exclusions.length > 0) {
    const excluded = exclusions.map(
      (e) => sql`(mb.company_id in (${idList(e.companyIds)}) and mb.month_start >= ${e.fromDate}::date)`,
    );
    monthly.push(sql`not (mb.is_adjustment and (${sql.join(excluded, sql` or `)}))`);
  }
  const branches = [
    sql`select mb.account_id, mb.company_id, mb.month_start as day, mb.debit_total - mb.credit_total as amount
        from account_month_balances mb where ${sql.join(monthly, sql` and `)}`,
  ];
  if (splitMonths.length > 0) {
    branches.push(sql`select ab.account_id, ab.company_id, ab.balance_date, ab.debit_total - ab.credit_total
        from account_balances ab
        where ${sql.join(dailyCommon, sql` and `)} and (${ranges(splitMonths.map((x) => [x, x] as const))})`);
  }
  if (tails.size > 0) {
    // Tail rows of the historical-key accounts: once with their own date, once taken out of the
    // month's roll-up row (keyed by the month's first day).
    branches.push(sql`select t.account_id, t.company_id, v.day, v.amount
        from (
          select ab.account_id, ab.company_id, ab.balance_date, ab.debit_total - ab.credit_total as amount
          from account_balances ab
          join accounts a on a.organization_id = ab.organization_id and a.id = ab.account_id
          join companies c on c.organization_id = ab.organization_id and c.id = ab.company_id
          where ${sql.join(dailyCommon, sql` and `)} and (${ranges([...tails].map(([month, from]) => [from, month] as const))})
            and c.functional_currency <> ${reportingCurrency}
            and (a.account_type = 'Equity' or a.is_non_monetary)
        ) t
        cross join lateral (values (t.balance_date, t.amount),
          (date_trunc('month', t.balance_date)::date, -t.amount)) v(day, amount)`);
  }

  const [row] = await queryRows<{ f: string | null }>(
    tx,
    sql`with s(account_id, company_id, day, amount) as (${sql.join(branches, sql` union all `)})
        select string_agg(x.account_id::text || ',' || coalesce(x.k::text, '') || ',' || trim_scale(x.amount)::text, ';') as f
        from (
          select s.account_id,
            (case
              when a.account_type in ('Revenue', 'Expense') then
                (case when c.functional_currency <> ${reportingCurrency} then ${periodDate}
                      when s.day < ${scope.yearStartDate}::date then ${priorDay}::date
                      else ${scope.yearStartDate}::date end) - date '${sql.raw(EPOCH)}'
              when c.functional_currency <> ${reportingCurrency}
                and (a.account_type = 'Equity' or a.is_non_monetary)
                then s.day - date '${sql.raw(EPOCH)}'
              else null end) as k,
            sum(s.amount) as amount
          from s
          join accounts a on a.organization_id = ${organizationId} and a.id = s.account_id
          join companies c on c.organization_id = ${organizationId} and c.id = s.company_id
          group by 1, 2
          having sum(s.amount) <> 0
        ) x`,
  );
  const byCompany = new Map<string, CompanyLedger>();
  const dayCache = new Map<string, string>();
  const text = row?.f ?? '';
  if (text === '') return [];
  for (const item of text.split(';')) {
    const [accountId, k, amount] = item.split(',') as [string, string, string];
    const ref = accountRefs.get(accountId);
    if (!ref) continue;
    let ledger = byCompany.get(ref.companyId);
    if (!ledger) {
      ledger = { companyId: ref.companyId, figures: [] };
      byCompany.set(ref.companyId, ledger);
    }
    let date: string | null = null;
    if (k !== '') {
      date = dayCache.get(k) ?? null;
      if (date === null) {
        date = addDays(EPOCH, Number(k));
        dayCache.set(k, date);
      }
    }
    ledger.figures.push({ accountNumber: ref.number, date, amount });
  }
  return [...byCompany.values()];
}

function resolved(from: string, to: string, r: RateResolution): ResolvedRate {
  const first = r.legs[0]!;
  return {
    effectiveRate: r.effectiveRate,
    usage: {
      exchangeRateId: first.id,
      fromCurrency: from,
      toCurrency: to,
      rateType: first.rateType,
      effectiveDate: first.effectiveDate,
      rate: formatRate(dec(first.rate)),
      effectiveRate: formatRate(r.effectiveRate),
      derivation: r.derivation,
      legIds: r.legs.map((l) => l.id),
    },
  };
}

/** The engine's synchronous RateProvider over a preloaded rate book (3.8.4 in memory), memoised. */
export function rateProvider(book: RateBook): RateProvider {
  const memo = new Map<string, ResolvedRate | null>();
  const get = (key: string, q: RateQuery): ResolvedRate | null => {
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    const r = book.resolve(q);
    const value = r && r.legs.length > 0 ? resolved(q.from, q.to, r) : null;
    memo.set(key, value);
    return value;
  };
  return {
    closing: (from, to, date) =>
      get(`C|${from}|${to}|${date}`, {
        from,
        to,
        types: CLOSING_RATE_TYPES,
        condition: { kind: 'onOrBefore', date },
      }),
    average: (from, to, start, end) =>
      get(`A|${from}|${to}|${start}|${end}`, {
        from,
        to,
        types: ['Average'],
        condition: { kind: 'within', start, end },
        computeAverage: true,
      }),
    historical: (from, to, date) =>
      get(`H|${from}|${to}|${date}`, {
        from,
        to,
        types: HISTORICAL_RATE_TYPES,
        condition: { kind: 'onOrBefore', date },
      }),
  };
}
