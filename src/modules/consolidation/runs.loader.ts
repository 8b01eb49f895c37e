/**
 * THE data-loading step of a consolidation run: everything the pure engine needs, read from ONE
 * consistent database snapshot (a REPEATABLE READ, READ ONLY transaction, and on a PostgreSQL server a
 * companion connection that imports its snapshot so that two chains of statements run side by side;
 * `readInSnapshot`), returned as its `ConsolidationInput`.
 *
 * Queries (each over all companies of the group at once — no per-company or per-account queries):
 *   companies, the chart of accounts, fiscal-period status, unposted-entry counts, intercompany
 *   transactions (one query for both views), elimination rules, the exchange rates (one rate book for
 *   every currency involved, resolved in memory), the ledger figures of each view (one statement per
 *   view over the monthly balance roll-up, with daily balance rows only where a month is cut — never
 *   journal lines; see `queryFigures`) and the members' ledgers before their acquisition dates
 *   (`queryCuts`).
 *
 * Ledger figures follow the engine's ViewData contract (domain/consolidation/types.ts) and are handed
 * over as columns of exact scaled amounts (`columnLedger`; the figure objects are built only if read):
 *   - Revenue/Expense: one figure per account and GROUP period (dated with a representative date
 *     inside that period), prior years included;
 *   - Equity and `isNonMonetary` accounts of companies not in the reporting currency: one per date
 *     on which the historical rate may differ (see `queryFigures`);
 *   - everything else: one cumulative figure (date null).
 * Closing entries (and their reversals) are excluded (`is_closing`); in the closing view of a run for
 * a period 1–12 the period-13 entries of each company's own fiscal year containing asOfDate are
 * excluded too. The opening view applies no period-13 exclusion (every earlier year is complete).
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { type Db, type Queryable, queryRows, readInSnapshot } from '../../db/client.ts';
import { companies } from '../../db/schema/index.ts';
import type { AccountCategory, AccountType, CashFlowCategory } from '../../domain/accounts.ts';
import {
  type AccountInfo,
  type CompanyInput,
  type ConsolidationInput,
  type GroupPeriod,
  type IntercompanyTransactionInput,
  type IntercompanyTransactionType,
  type MatchingStatus,
  type RateProvider,
  type ResolvedRate,
  type ViewData,
} from '../../domain/consolidation/index.ts';
import type { AcquisitionInput } from '../../domain/consolidation/types.ts';
import { addDays, minDate } from '../../domain/dates.ts';
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
import { loadAdjustmentInputs } from './adjustments.service.ts';
import { loadGroupChartInput } from './chart.service.ts';
import { loadRuleInputs } from './rules.repo.ts';
import { type RunRow, type StoredRunMember, storedMembers, storedOptions } from './runs.repo.ts';
import {
  accountClasses,
  idList,
  queryFigures,
  readFigures,
  type AccountClasses,
  type AdjustmentExclusion,
  type FigureAccount,
  type FigureAccounts,
  type FigureClass,
  type FigureScope,
} from './runs.figures.ts';
import { memberCuts, queryCuts, readCuts } from './runs.cuts.ts';
const ALL_MATCHING_STATUSES: readonly MatchingStatus[] = [
  'Unmatched',
  'PartiallyMatched',
  'Matched',
  'VarianceApproved',
];

/** Loads the engine input of the run in one consistent snapshot. */
export function loadRunInput(db: Db, run: RunRow): Promise<ConsolidationInput> {
  return readInSnapshot(db, (tx, companion) => loadInSnapshot(tx, companion, run));
}

export interface CompanyRow {
  id: string;
  name: string;
  functionalCurrency: string;
  isActive: boolean;
  retainedEarningsAccountId: string | null;
  fiscalYearEndMonth: number;
  fiscalYearEndDay: number;
}

export const fyeOf = (c: CompanyRow): FiscalYearEnd => ({
  month: c.fiscalYearEndMonth,
  day: c.fiscalYearEndDay,
});

async function loadInSnapshot(
  tx: Queryable,
  companion: Queryable | null,
  run: RunRow,
): Promise<ConsolidationInput> {
  const orgId = run.organizationId;
  const G = run.reportingCurrency;
  const members = storedMembers(run);
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

  // The aggregations join 10^5+ balance rows with the accounts: hash joins and in-memory aggregation,
  // whatever the (often poor) row estimates say.
  // No JIT: the disabled nested loops inflate plan costs past jit_above_cost, and compiling the
  // expressions costs far more than running these queries (measured again with the figure statement:
  // still slower).
  // All four settings are local to a transaction, set in one round trip.
  const settings = sql`select set_config('enable_nestloop', 'off', true), set_config('jit', 'off', true),
    set_config('work_mem', '64MB', true), set_config('min_parallel_table_scan_size', '8GB', true)`;
  await tx.execute(settings);
  const foreignIds = companyRows.filter((c) => c.functionalCurrency !== G).map((c) => c.id);
  // Acquisition accounting cuts members' ledgers at acquisition dates (see `memberCuts`).
  const cuts = memberCuts(members);
  const scopeOf = (
    view: { asOfDate: string; yearStartDate: string; flows: boolean },
    shared: { rateChangeDates: readonly string[]; earliestDate: string },
  ): FigureScope => ({ organizationId: orgId, ids, foreignIds, groupFye, ...shared, ...view });
  const closingView = { asOfDate, yearStartDate, flows: true };
  const openingView = { asOfDate: openingAsOf, yearStartDate: openingYearStart, flows: false };

  // Two chains of reads: the closing figures (the largest statement) after what they depend on, and
  // everything else. With a companion connection (a PostgreSQL server) they run side by side in the
  // same snapshot; otherwise one after the other on the transaction. Statements of one chain run one
  // after the other: a connection runs one statement at a time.
  type Shared = { rateChangeDates: string[]; earliestDate: string; classes: AccountClasses };
  let shareScope!: (shared: Shared) => void;
  let failScope!: (err: unknown) => void;
  const shared = new Promise<Shared>((resolve, reject) => {
    shareScope = resolve;
    failScope = reject;
  });
  shared.catch(() => {}); // the failing chain reports the error
  const figureChain = async (q: Queryable) => {
    try {
      const [earliestRow] = await queryRows<{ d: string | null }>(
        q,
        sql`select min(start_date)::text as d from fiscal_years
            where organization_id = ${orgId} and company_id in (${idList(ids)})`,
      );
      const earliestDate = minDate(earliestRow?.d ?? openingYearStart, openingYearStart);
      const icRows = await loadTransactionsForRun(q, {
        organizationId: orgId,
        companyIds: ids,
        startDate: openingYearStart,
        endDate: asOfDate,
        statuses: ALL_MATCHING_STATUSES,
      });
      // Rates: every currency involved, effective up to the end of the group period containing
      // asOfDate (an average rate of that period may be dated after asOfDate but within the period).
      const currencies = new Set<string>([G, ...companyRows.map((c) => c.functionalCurrency)]);
      for (const r of icRows) currencies.add(r.currency);
      const last = periodOf(groupFye, asOfDate);
      const untilDate = periodRange(groupFye, last.year, last.period).endDate;
      const book = await loadRateBook(q, orgId, [...currencies], untilDate);
      // A historical rate HR(d) can only change on the effective date of a rate it may be resolved
      // from; acquisition dates split the figures of equity and non-monetary accounts too.
      const rateChangeDates = [
        ...new Set([
          ...book.rates.filter((r) => HISTORICAL_RATE_TYPES.includes(r.rateType)).map((r) => r.effectiveDate),
          ...cuts.map((c) => c.cutDate),
        ]),
      ].sort();
      const classes = await accountClasses(q, orgId, ids, foreignIds);
      shareScope({ rateChangeDates, earliestDate, classes });
      const closingTexts = await queryFigures(
        q,
        scopeOf(closingView, { rateChangeDates, earliestDate }),
        exclusions,
        classes,
      );
      return { icRows, book, rateChangeDates, earliestDate, closingTexts };
    } catch (err) {
      failScope(err);
      throw err;
    }
  };
  const otherChain = async (q: Queryable) => {
    if (q !== tx) await q.execute(settings);
    const chart = await loadChart(q, orgId, ids, new Set(foreignIds));
    const periodRows = await queryRows<{ company_id: string; status: string }>(
      q,
      sql`select company_id::text as company_id, status from fiscal_periods
          where organization_id = ${orgId} and company_id in (${idList(ids)})
            and period_number between 1 and 12
            and start_date <= ${asOfDate}::date and end_date >= ${asOfDate}::date`,
    );
    const unpostedRows = await queryRows<{ company_id: string; n: number }>(
      q,
      sql`select company_id::text as company_id, count(*)::int as n from journal_entries
          where organization_id = ${orgId} and company_id in (${idList(ids)})
            and status in ('Draft', 'PendingApproval', 'Approved')
            and transaction_date <= ${asOfDate}::date
          group by company_id`,
    );
    const rules = await loadRuleInputs(q, orgId, run.groupId);
    // The group's own settings and whether it has a group chart or adjustments: one statement, so a
    // group using none of them costs one round trip.
    const [differenceRow] = await queryRows<{
      n: string | null;
      t: string | null;
      chart: boolean;
      adj: boolean;
    }>(
      q,
      sql`select g.ic_difference_account_number as n, g.ic_difference_tolerance::text as t,
            exists (select 1 from group_accounts ga
                    where ga.organization_id = ${orgId} and ga.group_id = g.id) as chart,
            exists (select 1 from consolidation_adjustments ca
                    where ca.organization_id = ${orgId} and ca.group_id = g.id and ca.year = ${run.year}) as adj
          from consolidation_groups g where g.organization_id = ${orgId} and g.id = ${run.groupId}`,
    );
    const groupChart = differenceRow?.chart ? await loadGroupChartInput(q, orgId, run.groupId) : null;
    const adjustments = differenceRow?.adj
      ? await loadAdjustmentInputs(q, orgId, run.groupId, run.year, run.period)
      : [];
    const cutRows = await queryCuts(
      q,
      orgId,
      cuts.filter((c) => c.cutDate <= asOfDate),
    );
    const { classes, ...openingShared } = await shared;
    const openingTexts = await queryFigures(q, scopeOf(openingView, openingShared), [], classes);
    return {
      chart,
      periodRows,
      unpostedRows,
      rules,
      cutRows,
      openingTexts,
      groupChart,
      differenceRow,
      adjustments,
    };
  };
  let figureReads: Awaited<ReturnType<typeof figureChain>>;
  let otherReads: Awaited<ReturnType<typeof otherChain>>;
  if (companion) {
    const [a, b] = await Promise.allSettled([figureChain(tx), otherChain(companion)]);
    if (a.status === 'rejected') throw a.reason;
    if (b.status === 'rejected') throw b.reason;
    figureReads = a.value;
    otherReads = b.value;
  } else {
    figureReads = await figureChain(tx);
    otherReads = await otherChain(tx);
  }
  const { icRows, book, rateChangeDates, earliestDate } = figureReads;
  const { chart, periodRows, unpostedRows, rules, groupChart, differenceRow, adjustments } = otherReads;
  const figureAccounts = chart.figures;
  const closingFigures = readFigures(
    figureReads.closingTexts,
    scopeOf(closingView, { rateChangeDates, earliestDate }),
    figureAccounts,
  );
  const openingFigures = readFigures(
    otherReads.openingTexts,
    scopeOf(openingView, { rateChangeDates, earliestDate }),
    figureAccounts,
  );
  const cutLedgers = readCuts(
    otherReads.cutRows,
    cuts.filter((c) => c.cutDate <= asOfDate),
    figureAccounts.byId,
  );

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
          : (figureAccounts.byId.get(c.retainedEarningsAccountId)?.number ?? null),
      accounts: chart.byCompany.get(c.id) ?? [],
      fiscalPeriodStatus: status === 'Open' || status === 'Closed' ? status : null,
      unpostedEntryCount: unposted.get(c.id) ?? 0,
      heldByCompanyId: m.heldByCompanyId ?? null,
      acquisitionDate: m.acquisitionDate ?? null,
      acquisition: acquisitionInput(m, figureAccounts.byId),
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
    ledgers: closingFigures.ledgers,
    intercompanyTransactions: ic.filter((t) => t.transactionDate >= yearStartDate),
    cuts: cutLedgers,
  };
  const opening: ViewData = {
    asOfDate: openingAsOf,
    yearStartDate: openingYearStart,
    ledgers: openingFigures.ledgers,
    intercompanyTransactions: ic.filter((t) => t.transactionDate < yearStartDate),
    cuts: cutLedgers.filter((c) => c.cutDate <= openingAsOf),
  };

  // Group periods covering every date that may need an average rate (both views).
  let earliest = openingYearStart;
  for (const d of [closingFigures.earliestPeriodDate, openingFigures.earliestPeriodDate]) {
    if (d !== null) earliest = minDate(earliest, d);
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
    ...(groupChart ? { groupChart } : {}),
    ...(adjustments.length > 0 ? { adjustments } : {}),
    ...(differenceRow?.n && differenceRow.t !== null
      ? { intercompanyDifference: { accountNumber: differenceRow.n, tolerance: differenceRow.t } }
      : {}),
  };
}

/**
 * The engine's acquisition data of a member: account ids become the accounts' companies and numbers
 * (an account gone since becomes an empty number, which the run reports as invalid acquisition data).
 */
function acquisitionInput(
  m: StoredRunMember,
  accounts: ReadonlyMap<string, { companyId: string; number: string }>,
): AcquisitionInput | null {
  const a = m.acquisition;
  if (!a || m.role === 'Parent') return null;
  return {
    consideration: { amount: a.consideration.value, currency: a.consideration.currency },
    investmentAccount: {
      companyId: accounts.get(a.investmentAccountId)?.companyId ?? '',
      accountNumber: accounts.get(a.investmentAccountId)?.number ?? '',
    },
    nciMeasurement: a.nciMeasurement,
    nciFairValue: a.nciFairValue ? { amount: a.nciFairValue.value, currency: a.nciFairValue.currency } : null,
    fairValueAdjustments: a.fairValueAdjustments.map((f) => ({
      accountNumber: accounts.get(f.accountId)?.number ?? '',
      amount: f.amount,
    })),
    goodwillAccountNumber: a.goodwillAccountNumber,
  };
}

/**
 * The chart of every company of the run, read in ONE statement: per company one delimited string,
 * one account per line (`id,number,type,category,cash,cashFlowCategory,nonMonetary,"name"`: ids,
 * numbers and enumerations contain no comma, and the name comes last as a JSON string, which never
 * contains a raw line break). Tens of thousands of rows, or one JSON document of every field, cost
 * several times more to produce and to read. Each account is classified for the figure statement in
 * the same pass (`FigureClass`).
 */
export async function loadChart(
  tx: Queryable,
  organizationId: string,
  ids: readonly string[],
  foreignCompanyIds: ReadonlySet<string>,
): Promise<{ byCompany: Map<string, AccountInfo[]>; figures: FigureAccounts }> {
  const rows = await queryRows<{ company_id: string; text: string }>(
    tx,
    sql`select company_id::text as company_id,
          string_agg(id::text || ',' || account_number || ',' || account_type || ',' || account_category
            || ',' || is_cash_equivalent::int || ',' || coalesce(cash_flow_category, '')
            || ',' || is_non_monetary::int || ',' || to_json(name)::text, E'\n') as text
        from accounts where organization_id = ${organizationId} and company_id in (${idList(ids)})
        group by company_id`,
  );
  const byCompany = new Map<string, AccountInfo[]>(ids.map((id) => [id, []]));
  const byId = new Map<string, FigureAccount>();
  for (const row of rows) {
    const companyId = row.company_id;
    const foreign = foreignCompanyIds.has(companyId);
    const infos = byCompany.get(companyId) ?? [];
    const text = row.text;
    for (let i = 0; i < text.length;) {
      let end = text.indexOf('\n', i);
      if (end < 0) end = text.length;
      const c1 = text.indexOf(',', i);
      const c2 = text.indexOf(',', c1 + 1);
      const c3 = text.indexOf(',', c2 + 1);
      const c4 = text.indexOf(',', c3 + 1);
      const c5 = text.indexOf(',', c4 + 1);
      const c6 = text.indexOf(',', c5 + 1);
      const c7 = text.indexOf(',', c6 + 1);
      const id = text.slice(i, c1);
      const number = text.slice(c1 + 1, c2);
      const accountType = text.slice(c2 + 1, c3) as AccountType;
      const quoted = text.slice(c7 + 1, end);
      const nonMonetary = text.charCodeAt(c6 + 1) === 49;
      infos.push({
        accountNumber: number,
        name: quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1),
        accountType,
        accountCategory: text.slice(c3 + 1, c4) as AccountCategory,
        isCashEquivalent: text.charCodeAt(c4 + 1) === 49,
        cashFlowCategory: c6 === c5 + 1 ? null : (text.slice(c5 + 1, c6) as CashFlowCategory),
        isNonMonetary: nonMonetary,
      });
      const incomeStatement = accountType === 'Revenue' || accountType === 'Expense';
      let cls: FigureClass;
      if (incomeStatement) cls = foreign ? 'period' : 'domestic';
      else if (foreign && (accountType === 'Equity' || nonMonetary)) cls = 'historical';
      else cls = 'cumulative';
      byId.set(id, { id, companyId, number, cls, ordinal: byId.size });
      i = end + 1;
    }
  }
  return {
    byCompany,
    figures: {
      byId,
    },
  };
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

/** The engine's synchronous RateProvider over a preloaded rate book (the resolution procedure in memory), memoised. */
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
