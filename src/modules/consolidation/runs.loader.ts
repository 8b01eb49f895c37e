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
import { sameOrgJoin } from '../../db/rows.ts';
import { accountChartVersions, companies } from '../../db/schema/index.ts';
import {
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
  anyOf,
  queryFigures,
  readFigures,
  type AdjustmentExclusion,
  type FigureScope,
  type ViewFigures,
} from './runs.figures.ts';
import { memberCuts, queryCuts, readCuts } from './runs.cuts.ts';
import { type ChartCache, chartCacheOf, loadChart } from './runs.chart.ts';
const ALL_MATCHING_STATUSES: readonly MatchingStatus[] = [
  'Unmatched',
  'PartiallyMatched',
  'Matched',
  'VarianceApproved',
];

/** Loads the engine input of the run in one consistent snapshot. */
export function loadRunInput(db: Db, run: RunRow): Promise<ConsolidationInput> {
  const charts = chartCacheOf(db);
  return readInSnapshot(db, (tx, companion) => loadInSnapshot(tx, companion, run, charts));
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

/** What the reads of a run share: its members, companies, scopes and the ledger cuts. */
interface RunContext {
  run: RunRow;
  orgId: string;
  members: StoredRunMember[];
  ids: string[];
  companyRows: CompanyRow[];
  companyById: Map<string, CompanyRow>;
  foreignIds: string[];
  groupFye: FiscalYearEnd;
  openingAsOf: string;
  openingYearStart: string;
  exclusions: AdjustmentExclusion[];
  /** the ledger cuts up to the run's date (acquisition accounting; `memberCuts`) */
  cuts: { companyId: string; cutDate: string }[];
  /** every ledger cut of the members (they split the historical figures too) */
  allCuts: { companyId: string; cutDate: string }[];
  /** the charts this process keeps, and each company's chart version in the snapshot */
  charts: { cache: ChartCache; versions: Map<string, string> };
}

type ViewDates = { asOfDate: string; yearStartDate: string; flows: boolean };
type Shared = { rateChangeDates: string[]; earliestDate: string };

const scopeOf = (ctx: RunContext, view: ViewDates, shared: Shared): FigureScope => ({
  organizationId: ctx.orgId,
  ids: ctx.ids,
  foreignIds: ctx.foreignIds,
  groupFye: ctx.groupFye,
  rateChangeDates: shared.rateChangeDates,
  earliestDate: shared.earliestDate,
  ...view,
});
const closingDates = (ctx: RunContext): ViewDates => ({
  asOfDate: ctx.run.asOfDate,
  yearStartDate: ctx.run.yearStartDate,
  flows: true,
});
const openingDates = (ctx: RunContext): ViewDates => ({
  asOfDate: ctx.openingAsOf,
  yearStartDate: ctx.openingYearStart,
  flows: false,
});

// The aggregations join 10^5+ balance rows with the accounts: hash joins and in-memory aggregation,
// whatever the (often poor) row estimates say.
// No JIT: the disabled nested loops inflate plan costs past jit_above_cost, and compiling the
// expressions costs far more than running these queries (measured again with the figure statement:
// still slower).
// All four settings are local to a transaction, set in one round trip.
const SNAPSHOT_SETTINGS = sql`select set_config('enable_nestloop', 'off', true), set_config('jit', 'off', true),
    set_config('work_mem', '64MB', true), set_config('min_parallel_table_scan_size', '8GB', true)`;

async function loadInSnapshot(
  tx: Queryable,
  companion: Queryable | null,
  run: RunRow,
  charts: ChartCache,
): Promise<ConsolidationInput> {
  // The first statement fixes the snapshot; every later one sees the same database state.
  const ctx = await runContext(tx, run, charts);
  await tx.execute(SNAPSHOT_SETTINGS);
  const reads = await readBothChains(tx, companion, ctx);
  return assembleInput(ctx, reads);
}

/** The run's companies (the snapshot's first statement) and what follows from them. */
async function runContext(tx: Queryable, run: RunRow, cache: ChartCache): Promise<RunContext> {
  const orgId = run.organizationId;
  const members = storedMembers(run);
  const ids = members.map((m) => m.companyId);
  const parentMember = members.find((m) => m.role === 'Parent');
  if (!parentMember) throw new Error('The run has no parent company');
  const rows = await tx
    .select({
      id: companies.id,
      name: companies.name,
      functionalCurrency: companies.functionalCurrency,
      isActive: companies.isActive,
      retainedEarningsAccountId: companies.retainedEarningsAccountId,
      fiscalYearEndMonth: companies.fiscalYearEndMonth,
      fiscalYearEndDay: companies.fiscalYearEndDay,
      chartVersion: sql<string>`coalesce(${accountChartVersions.version}, 0)::text`,
    })
    .from(companies)
    .leftJoin(
      accountChartVersions,
      sameOrgJoin(accountChartVersions.organizationId, accountChartVersions.companyId, companies),
    )
    .where(and(eq(companies.organizationId, orgId), inArray(companies.id, ids)));
  const versions = new Map(rows.map((r) => [r.id, r.chartVersion]));
  const companyRows: CompanyRow[] = rows.map(({ chartVersion: _version, ...c }) => c);
  const companyById = new Map(companyRows.map((c) => [c.id, c]));
  for (const id of ids)
    if (!companyById.has(id)) throw new Error(`Company ${id} of the run no longer exists`);
  const groupFye = fyeOf(companyById.get(parentMember.companyId)!);
  // Acquisition accounting cuts members' ledgers at acquisition dates (see `memberCuts`).
  const allCuts = memberCuts(members);
  return {
    run,
    orgId,
    members,
    ids,
    companyRows,
    companyById,
    foreignIds: companyRows.filter((c) => c.functionalCurrency !== run.reportingCurrency).map((c) => c.id),
    groupFye,
    openingAsOf: addDays(run.yearStartDate, -1),
    openingYearStart: fiscalYearStartDate(groupFye, run.year - 1),
    exclusions: periodThirteenExclusions(companyRows, run),
    cuts: allCuts.filter((c) => c.cutDate <= run.asOfDate),
    allCuts,
    charts: { cache, versions },
  };
}

/**
 * Period-13 exclusion of the closing view (p ≤ 12): per company, its own fiscal year containing
 * asOfDate. Companies are grouped by that year and its first day (usually one group).
 */
function periodThirteenExclusions(companyRows: readonly CompanyRow[], run: RunRow): AdjustmentExclusion[] {
  const groups = new Map<string, AdjustmentExclusion>();
  if (run.period > 12) return [];
  for (const c of companyRows) {
    const fy = fiscalYearOf(fyeOf(c), run.asOfDate);
    const fromDate = fiscalYearStartDate(fyeOf(c), fy);
    const key = `${fy}|${fromDate}`;
    const group = groups.get(key) ?? { fiscalYear: fy, fromDate, companyIds: [] };
    group.companyIds.push(c.id);
    groups.set(key, group);
  }
  return [...groups.values()];
}

type FigureReads = Awaited<ReturnType<typeof figureChain>>;
type OtherReads = Awaited<ReturnType<typeof otherChain>>;
type Chart = Awaited<ReturnType<typeof loadChart>>;

/** A promise with its settling functions, for the hand-overs between the two chains. */
function handOver<T>() {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {}); // the failing chain reports the error
  return { promise, resolve, reject };
}

/**
 * Two chains of reads: the closing figures (the largest statement) after what they depend on, and
 * everything else. With a companion connection (a PostgreSQL server) they run side by side in the
 * same snapshot; otherwise one after the other on the transaction. Statements of one chain run one
 * after the other: a connection runs one statement at a time. Each answer is read as soon as what it
 * needs has arrived (the closing figures once the chart is read too), so that reading one answer
 * overlaps the database's work on the next statements.
 */
async function readBothChains(
  tx: Queryable,
  companion: Queryable | null,
  ctx: RunContext,
): Promise<{ figures: FigureReads; other: OtherReads; closing: ViewFigures }> {
  const shared = handOver<Shared>();
  const chart = handOver<Chart>();
  const figures = (q: Queryable) =>
    figureChain(q, ctx, shared.resolve).catch((err: unknown) => {
      shared.reject(err);
      throw err;
    });
  const other = (q: Queryable) =>
    otherChain(q, q !== tx, ctx, shared.promise, chart.resolve).catch((err: unknown) => {
      chart.reject(err);
      throw err;
    });
  const figuresRead = companion ? figures(tx) : Promise.resolve(await figures(tx));
  const otherRead = other(companion ?? tx);
  // The closing figures are read as soon as both their text and the chart have arrived.
  const closing = Promise.all([figuresRead, chart.promise]).then(([f, c]) =>
    readFigures(f.closingTexts, f.closingScope, c.figures),
  );
  closing.catch(() => {}); // a failing chain reports the error
  const [a, b] = await Promise.allSettled([figuresRead, otherRead]);
  if (a.status === 'rejected') throw a.reason;
  if (b.status === 'rejected') throw b.reason;
  return { figures: a.value, other: b.value, closing: await closing };
}

async function figureChain(q: Queryable, ctx: RunContext, share: (shared: Shared) => void) {
  const { orgId, ids, run } = ctx;
  const [earliestRow] = await queryRows<{ d: string | null }>(
    q,
    sql`select min(start_date)::text as d from fiscal_years
        where organization_id = ${orgId} and company_id = any(${anyOf(ids)})`,
  );
  const earliestDate = minDate(earliestRow?.d ?? ctx.openingYearStart, ctx.openingYearStart);
  const icRows = await loadTransactionsForRun(q, {
    organizationId: orgId,
    companyIds: ids,
    startDate: ctx.openingYearStart,
    endDate: run.asOfDate,
    statuses: ALL_MATCHING_STATUSES,
  });
  // Rates: every currency involved, effective up to the end of the group period containing
  // asOfDate (an average rate of that period may be dated after asOfDate but within the period).
  const currencies = new Set<string>([
    run.reportingCurrency,
    ...ctx.companyRows.map((c) => c.functionalCurrency),
  ]);
  for (const r of icRows) currencies.add(r.currency);
  const last = periodOf(ctx.groupFye, run.asOfDate);
  const untilDate = periodRange(ctx.groupFye, last.year, last.period).endDate;
  const book = await loadRateBook(q, orgId, [...currencies], untilDate);
  // A historical rate HR(d) can only change on the effective date of a rate it may be resolved
  // from; acquisition dates split the figures of equity and non-monetary accounts too.
  const rateChangeDates = [
    ...new Set([
      ...book.rates.filter((r) => HISTORICAL_RATE_TYPES.includes(r.rateType)).map((r) => r.effectiveDate),
      ...ctx.allCuts.map((c) => c.cutDate),
    ]),
  ].sort();
  const shared = { rateChangeDates, earliestDate };
  share(shared);
  const closingScope = scopeOf(ctx, closingDates(ctx), shared);
  const closingTexts = await queryFigures(q, closingScope, ctx.exclusions);
  return { icRows, book, closingTexts, closingScope };
}

async function otherChain(
  q: Queryable,
  onCompanion: boolean,
  ctx: RunContext,
  shared: Promise<Shared>,
  shareChart: (chart: Chart) => void,
) {
  const { orgId, ids, run } = ctx;
  if (onCompanion) await q.execute(SNAPSHOT_SETTINGS);
  const chart = await loadChart(q, orgId, ids, new Set(ctx.foreignIds), ctx.charts);
  shareChart(chart);
  const periodRows = await queryRows<{ company_id: string; status: string }>(
    q,
    sql`select company_id::text as company_id, status from fiscal_periods
        where organization_id = ${orgId} and company_id = any(${anyOf(ids)})
          and period_number between 1 and 12
          and start_date <= ${run.asOfDate}::date and end_date >= ${run.asOfDate}::date`,
  );
  const unpostedRows = await queryRows<{ company_id: string; n: number }>(
    q,
    sql`select company_id::text as company_id, count(*)::int as n from journal_entries
        where organization_id = ${orgId} and company_id = any(${anyOf(ids)})
          and status in ('Draft', 'PendingApproval', 'Approved')
          and transaction_date <= ${run.asOfDate}::date
        group by company_id`,
  );
  const rules = await loadRuleInputs(q, orgId, run.groupId);
  const group = await groupExtras(q, orgId, run);
  const cutLedgers = readCuts(await queryCuts(q, orgId, ctx.cuts), ctx.cuts, chart.figures.byId);
  const scope = scopeOf(ctx, openingDates(ctx), await shared);
  const opening = readFigures(await queryFigures(q, scope, []), scope, chart.figures);
  return { chart, periodRows, unpostedRows, rules, cutLedgers, opening, ...group };
}
/**
 * The group's own settings and whether it has a group chart or adjustments: one statement, so a
 * group using none of them costs one round trip; then the chart and adjustments it has.
 */
async function groupExtras(q: Queryable, orgId: string, run: RunRow) {
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
  return { differenceRow, groupChart, adjustments };
}

/** The engine's input from the reads of both chains. */
function assembleInput(
  ctx: RunContext,
  reads: { figures: FigureReads; other: OtherReads; closing: ViewFigures },
): ConsolidationInput {
  const { run, openingAsOf, openingYearStart } = ctx;
  const { icRows, book } = reads.figures;
  const { rules, groupChart, differenceRow, adjustments, cutLedgers } = reads.other;
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
    asOfDate: run.asOfDate,
    yearStartDate: run.yearStartDate,
    ledgers: reads.closing.ledgers,
    intercompanyTransactions: ic.filter((t) => t.transactionDate >= run.yearStartDate),
    cuts: cutLedgers,
  };
  const opening: ViewData = {
    asOfDate: openingAsOf,
    yearStartDate: openingYearStart,
    ledgers: reads.other.opening.ledgers,
    intercompanyTransactions: ic.filter((t) => t.transactionDate < run.yearStartDate),
    cuts: cutLedgers.filter((c) => c.cutDate <= openingAsOf),
  };
  const options = storedOptions(run);
  return {
    reportingCurrency: run.reportingCurrency,
    periodRef: { year: run.year, period: run.period },
    asOfDate: run.asOfDate,
    yearStartDate: run.yearStartDate,
    groupPeriods: groupPeriodsOf(ctx, [reads.closing, reads.other.opening]),
    options: {
      skipValidation: options.skipValidation,
      continueOnWarnings: options.continueOnWarnings,
      includeEquityMethodInvestments: options.includeEquityMethodInvestments,
      approvedManualRuleIds: options.approvedManualRuleIds,
    },
    companies: companyInputs(ctx, reads.other),
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

/** The members as the engine reads them, in the run's order. */
function companyInputs(ctx: RunContext, other: OtherReads): CompanyInput[] {
  const figureAccounts = other.chart.figures;
  const periodStatus = new Map(other.periodRows.map((r) => [r.company_id, r.status]));
  const unposted = new Map(other.unpostedRows.map((r) => [r.company_id, Number(r.n)]));
  return ctx.members.map((m) => {
    const c = ctx.companyById.get(m.companyId)!;
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
      accounts: other.chart.byCompany.get(c.id) ?? [],
      fiscalPeriodStatus: status === 'Open' || status === 'Closed' ? status : null,
      unpostedEntryCount: unposted.get(c.id) ?? 0,
      heldByCompanyId: m.heldByCompanyId ?? null,
      acquisitionDate: m.acquisitionDate ?? null,
      acquisition: acquisitionInput(m, figureAccounts.byId),
    };
  });
}

/** Group periods covering every date that may need an average rate (both views). */
function groupPeriodsOf(ctx: RunContext, views: readonly ViewFigures[]): GroupPeriod[] {
  let earliest = ctx.openingYearStart;
  for (const v of views) {
    if (v.earliestPeriodDate !== null) earliest = minDate(earliest, v.earliestPeriodDate);
  }
  const groupPeriods: GroupPeriod[] = [];
  for (let y = fiscalYearOf(ctx.groupFye, earliest); y <= ctx.run.year; y++) {
    for (const p of periodsOfYear(ctx.groupFye, y)) {
      if (p.periodNumber <= 12) {
        groupPeriods.push({ year: y, period: p.periodNumber, startDate: p.startDate, endDate: p.endDate });
      }
    }
  }
  return groupPeriods;
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
