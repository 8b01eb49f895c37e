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
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { type Db, type Queryable, queryRows, readInSnapshot } from '../../db/client.ts';
import { companies } from '../../db/schema/index.ts';
import type { AccountCategory, AccountType, CashFlowCategory } from '../../domain/accounts.ts';
import {
  type AccountInfo,
  type CompanyInput,
  type CompanyLedger,
  type ConsolidationInput,
  columnLedger,
  type GroupPeriod,
  type IntercompanyTransactionInput,
  type IntercompanyTransactionType,
  type LedgerColumns,
  type MatchingStatus,
  type RateProvider,
  type ResolvedRate,
  type ViewData,
} from '../../domain/consolidation/index.ts';
import { ledgerCuts, ownershipTree } from '../../domain/consolidation/ownership.ts';
import type { AcquisitionInput, CutLedger } from '../../domain/consolidation/types.ts';
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
import { scaledToString } from '../../domain/consolidation/scaled.ts';
import { CLOSING_RATE_TYPES, HISTORICAL_RATE_TYPES, type RateResolution } from '../../domain/rates.ts';
import { loadRateBook, type RateBook, type RateQuery } from '../exchange-rates/service.ts';
import { loadTransactionsForRun } from '../intercompany/repo.ts';
import { loadAdjustmentInputs } from './adjustments.service.ts';
import { loadGroupChartInput } from './chart.service.ts';
import { loadRuleInputs } from './rules.repo.ts';
import { type RunRow, type StoredRunMember, storedMembers, storedOptions } from './runs.repo.ts';

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

/** One view of a company's statements in another currency: its date and the year start it uses. */
export interface CompanyTranslationView {
  asOfDate: string;
  yearStartDate: string;
  /**
   * read the monetary accounts' movements from yearStartDate on per period, as a run's closing view
   * does (what the cash-flow statement's translation differences need)
   */
  flows?: boolean;
}

/**
 * The engine input that translates ONE company into `currency` (which differs from its functional
 * currency), one per view, read in one snapshot: the company alone, as the parent of a group of
 * one, with the same figures (`queryFigures`, no period-13 exclusion, closing entries excluded),
 * the same chart reading and the same rate book and rate resolution (`rateProvider`) as a run.
 * The company statements in another currency translate these with the engine's Translate step.
 */
export function loadCompanyTranslationInputs(
  db: Db,
  scope: {
    organizationId: string;
    company: CompanyRow;
    currency: string;
    views: readonly CompanyTranslationView[];
  },
): Promise<ConsolidationInput[]> {
  return db.transaction(
    async (tx) => {
      const { organizationId: orgId, company: c, currency: G } = scope;
      const ids = [c.id];
      const fye = fyeOf(c);
      await tx.execute(sql`select set_config('enable_nestloop', 'off', true), set_config('jit', 'off', true),
        set_config('work_mem', '64MB', true)`);
      const [earliestRow] = await queryRows<{ d: string | null }>(
        tx,
        sql`select min(start_date)::text as d from fiscal_years
            where organization_id = ${orgId} and company_id = ${c.id}::uuid`,
      );
      const lastAsOf = scope.views.map((v) => v.asOfDate).reduce((a, b) => (a > b ? a : b));
      const last = periodOf(fye, lastAsOf);
      const book = await loadRateBook(
        tx,
        orgId,
        [G, c.functionalCurrency],
        periodRange(fye, last.year, last.period).endDate,
      );
      const rateChangeDates = [
        ...new Set(
          book.rates.filter((r) => HISTORICAL_RATE_TYPES.includes(r.rateType)).map((r) => r.effectiveDate),
        ),
      ].sort();
      const classes = await accountClasses(tx, orgId, ids, ids);
      const chart = await loadChart(tx, orgId, ids, new Set(ids));
      const rates = rateProvider(book);
      const company: CompanyInput = {
        companyId: c.id,
        companyName: c.name,
        functionalCurrency: c.functionalCurrency,
        isActive: c.isActive,
        role: 'Parent',
        consolidationMethod: 'FullConsolidation',
        ownershipPercentage: '100',
        retainedEarningsAccountNumber:
          c.retainedEarningsAccountId === null
            ? null
            : (chart.figures.byId.get(c.retainedEarningsAccountId)?.number ?? null),
        accounts: chart.byCompany.get(c.id) ?? [],
        fiscalPeriodStatus: null,
        unpostedEntryCount: 0,
      };
      const inputs: ConsolidationInput[] = [];
      for (const v of scope.views) {
        const earliestDate = minDate(earliestRow?.d ?? v.yearStartDate, v.yearStartDate);
        const figureScope: FigureScope = {
          organizationId: orgId,
          ids,
          foreignIds: ids,
          groupFye: fye,
          asOfDate: v.asOfDate,
          yearStartDate: v.yearStartDate,
          rateChangeDates,
          earliestDate,
          flows: v.flows ?? false,
          withinViewDates: true,
        };
        const texts = await queryFigures(tx, figureScope, [], classes);
        const figures = readFigures(texts, figureScope, chart.figures);
        const groupPeriods: GroupPeriod[] = [];
        const from = minDate(figures.earliestPeriodDate ?? v.yearStartDate, v.yearStartDate);
        const lastYear = fiscalYearOf(fye, v.asOfDate);
        for (let y = fiscalYearOf(fye, from); y <= lastYear; y++) {
          for (const p of periodsOfYear(fye, y)) {
            if (p.periodNumber <= 12) {
              groupPeriods.push({
                year: y,
                period: p.periodNumber,
                startDate: p.startDate,
                endDate: p.endDate,
              });
            }
          }
        }
        const view: ViewData = {
          asOfDate: v.asOfDate,
          yearStartDate: v.yearStartDate,
          ledgers: figures.ledgers,
          intercompanyTransactions: [],
        };
        const p = periodOf(fye, v.asOfDate);
        inputs.push({
          reportingCurrency: G,
          periodRef: { year: p.year, period: p.period },
          asOfDate: v.asOfDate,
          yearStartDate: v.yearStartDate,
          groupPeriods,
          options: {
            skipValidation: true,
            continueOnWarnings: true,
            includeEquityMethodInvestments: false,
            approvedManualRuleIds: [],
          },
          companies: [company],
          rules: [],
          rates,
          closing: view,
          opening: { ...view, ledgers: [] },
        });
      }
      return inputs;
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
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

/** The (company, cut date) pairs of the run: every member's ledger cuts (ownership.ts). */
function memberCuts(members: readonly StoredRunMember[]): { companyId: string; cutDate: string }[] {
  const parent = members.find((m) => m.role === 'Parent');
  const others = members.filter((m) => m.role === 'Member');
  if (!parent || !others.some((m) => m.acquisition)) return [];
  let tree;
  try {
    tree = ownershipTree(
      parent.companyId,
      others.map((m) => ({
        companyId: m.companyId,
        heldByCompanyId: m.heldByCompanyId ?? null,
        ownershipPercentage: m.ownershipPercentage,
        consolidationMethod: m.consolidationMethod,
        acquisitionDate: m.acquisitionDate ?? null,
        hasAcquisition: !!m.acquisition && m.consolidationMethod !== 'ProportionateConsolidation',
      })),
    );
  } catch {
    return []; // an invalid structure fails the run in the engine
  }
  return others.flatMap((m) =>
    ledgerCuts(tree, m.companyId).map((cutDate) => ({ companyId: m.companyId, cutDate })),
  );
}

/**
 * Σ (debit − credit) per account of each company's ledger data dated before each of its cut dates,
 * ONE statement: whole months before the cut's month from the monthly roll-up, the days of the cut's
 * month from the daily balances (closing entries excluded, as for every figure).
 */
async function queryCuts(
  q: Queryable,
  organizationId: string,
  cuts: readonly { companyId: string; cutDate: string }[],
): Promise<CutRow[]> {
  if (cuts.length === 0) return [];
  const pairs = sql.join(
    cuts.map((c) => sql`(${c.companyId}::uuid, ${c.cutDate}::date)`),
    sql`, `,
  );
  return queryRows<CutRow>(
    q,
    sql`select c.company_id::text as company_id, c.cut::text as cut,
          string_agg(x.account_id::text || ',' || ${units(sql`x.amount`)}, ';') as text
        from (values ${pairs}) c(company_id, cut)
        cross join lateral (
          select u.account_id, sum(u.amount) as amount
          from (
            select mb.account_id, mb.debit_total - mb.credit_total as amount
            from account_month_balances mb
            where mb.organization_id = ${organizationId} and mb.company_id = c.company_id
              and not mb.is_closing and mb.month_start < date_trunc('month', c.cut)::date
            union all
            select ab.account_id, ab.debit_total - ab.credit_total
            from account_balances ab
            where ab.organization_id = ${organizationId} and ab.company_id = c.company_id
              and not ab.is_closing and ab.balance_date >= date_trunc('month', c.cut)::date
              and ab.balance_date < c.cut
          ) u
          group by u.account_id
          having sum(u.amount) <> 0
        ) x
        group by 1, 2`,
  );
}

type CutRow = { company_id: string; cut: string; text: string };

/** The cut ledgers from the answer of `queryCuts`: account ids become the accounts' numbers. */
function readCuts(
  rows: readonly CutRow[],
  cuts: readonly { companyId: string; cutDate: string }[],
  accounts: ReadonlyMap<string, { number: string }>,
): CutLedger[] {
  const byKey = new Map(rows.map((r) => [`${r.company_id}|${r.cut}`, r.text]));
  return cuts.map(({ companyId, cutDate }) => {
    const text = byKey.get(`${companyId}|${cutDate}`) ?? '';
    const figures = text
      ? text.split(';').map((part) => {
          const [accountId, amount] = part.split(',') as [string, string];
          return {
            accountNumber: accounts.get(accountId)?.number ?? '',
            amount: scaledToString(BigInt(amount), AMOUNT_SCALE),
          };
        })
      : [];
    return { companyId, cutDate, figures };
  });
}

/**
 * The chart of every company of the run, read in ONE statement: per company one delimited string,
 * one account per line (`id,number,type,category,cash,cashFlowCategory,nonMonetary,"name"`: ids,
 * numbers and enumerations contain no comma, and the name comes last as a JSON string, which never
 * contains a raw line break). Tens of thousands of rows, or one JSON document of every field, cost
 * several times more to produce and to read. Each account is classified for the figure statement in
 * the same pass (`FigureClass`).
 */
async function loadChart(
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

/**
 * `column = any(ids)` for a long list of ids, as one array parameter (hashed by the executor). Wrapped
 * in a CASE so that the planner does not estimate its selectivity element by element against the
 * column's statistics: for thousands of ids that took longer than running the query.
 */
function inList(column: SQL, arrayLiteral: string): SQL {
  return sql`(case when ${column} = any(${arrayLiteral}::uuid[]) then true else false end)`;
}

/**
 * The accounts the figure statement reads row by row, as PostgreSQL array literals of their ids (see
 * `FigureClass`; `loadChart` classifies the same way): `keyed` (period and historical), `historical`,
 * and `flows` (monetary accounts of companies not in G). Computed by the database from the accounts'
 * types, so that the figure statement need not wait for the chart.
 */
interface AccountClasses {
  keyed: string;
  historical: string;
  flows: string;
}

async function accountClasses(
  q: Queryable,
  organizationId: string,
  ids: readonly string[],
  foreignIds: readonly string[],
): Promise<AccountClasses> {
  if (foreignIds.length === 0) return { keyed: '{}', historical: '{}', flows: '{}' };
  const [row] = await queryRows<{ keyed: string; historical: string; flows: string }>(
    q,
    sql`select coalesce(string_agg(a.id::text, ',') filter (where a.f and (a.inc or a.hist)), '') as keyed,
          coalesce(string_agg(a.id::text, ',') filter (where a.f and a.hist and not a.inc), '') as historical,
          coalesce(string_agg(a.id::text, ',') filter (where a.f and not (a.inc or a.hist)), '') as flows
        from (
          select id, company_id in (${idList(foreignIds)}) as f,
            account_type in ('Revenue', 'Expense') as inc,
            (account_type = 'Equity' or is_non_monetary) as hist
          from accounts where organization_id = ${organizationId} and company_id in (${idList(ids)})
        ) a`,
  );
  const literal = (list: string | undefined) => `{${list ?? ''}}`;
  return { keyed: literal(row?.keyed), historical: literal(row?.historical), flows: literal(row?.flows) };
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
  /** the companies not in the reporting currency */
  foreignIds: readonly string[];
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
  /** read the movements of the year of monetary accounts not in the reporting currency per group period */
  flows: boolean;
  /**
   * A company statement's view, whose dates need not be period ends: figures stay on their side of
   * yearStartDate and are never dated after asOfDate. A run's views date figures by group period.
   */
  withinViewDates?: boolean;
}

/** Per exclusion group: the companies whose adjustment entries dated from `fromDate` are left out. */
export interface AdjustmentExclusion {
  fiscalYear: number;
  fromDate: string;
  companyIds: string[];
}

const EPOCH = '1970-01-01';

/**
 * How the figures of an account are keyed (see `queryFigures`):
 *   - `cumulative`: one figure, date null (monetary items; equity and non-monetary items of a company
 *     in the reporting currency);
 *   - `domestic`: Revenue/Expense of a company in the reporting currency: the view's yearStartDate − 1
 *     (prior years) or yearStartDate;
 *   - `period`: Revenue/Expense of a company not in the reporting currency: one figure per GROUP period;
 *   - `historical`: Equity and `isNonMonetary` accounts of a company not in the reporting currency: one
 *     figure per date on which the historical rate may differ.
 */
type FigureClass = 'cumulative' | 'domestic' | 'period' | 'historical';

interface FigureAccount {
  id: string;
  companyId: string;
  number: string;
  cls: FigureClass;
  /** 0, 1, 2 … in the order of the run's accounts (keys of merged figures) */
  ordinal: number;
}

/** The figure class of every account of the run, and the id lists the figure query needs. */
interface FigureAccounts {
  byId: Map<string, FigureAccount>;
}

/**
 * The days on which the group-period key of a Revenue/Expense figure (see `queryFigures`) changes
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
 * The representative date of the GROUP period of `date`: the last day of its calendar month, except
 * for days 1..d of the year-end month m when d is not that month's last day: they belong to period 12,
 * which starts on the 1st of the previous month, so that month's last day.
 */
function groupPeriodDate(fye: FiscalYearEnd, date: string): string {
  const { year, month, day } = parts(date);
  const last = daysInMonth(year, month);
  if (month === fye.month && day <= fye.day && fye.day < last) return addDays(makeDate(year, month, 1), -1);
  return makeDate(year, month, last);
}

/** Daily rows of the ledger data: no closing rows, no excluded adjustment-period (13) rows. */
function dailyConditions(ab: SQL, exclusions: readonly AdjustmentExclusion[]): SQL {
  if (exclusions.length === 0) return sql`not ${ab}.is_closing`;
  const excluded = exclusions.map(
    (e) =>
      sql`(${ab}.fiscal_year = ${sql.raw(String(Math.trunc(e.fiscalYear)))} and ${ab}.company_id in (${idList(e.companyIds)}))`,
  );
  return sql`not ${ab}.is_closing and not (${ab}.fiscal_period = 13 and (${sql.join(excluded, sql` or `)}))`;
}

/** The figure statement's answer: per part, its delimited string. */
type FigureTexts = Map<number, string>;

interface ViewFigures {
  ledgers: CompanyLedger[];
  /** the earliest representative date of a `period` figure (they need average rates), or null */
  earliestPeriodDate: string | null;
}

/** Amounts of the figure query: NUMERIC(28, 8) sums and differences, always written with 8 decimals. */
const AMOUNT_SCALE = 8;

/**
 * One statement over the posted balances of all companies of the run, as of the view's `asOfDate`,
 * answering Σ (debit − credit) per account and key (see `FigureClass`):
 *   - `cumulative` and `domestic` accounts are summed in the database, per account and (for `domestic`
 *     only) per side of the view's yearStartDate;
 *   - the rows of the `period` and `historical` accounts come back as they are stored (a month of the
 *     roll-up, or a day), and are keyed here: by the representative date of the row's GROUP period
 *     (`groupPeriodDate`; rows of one period are merged into one figure) or by the row's own date.
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
 * The statement joins nothing: the accounts' classes arrive as id arrays, and each part of the answer
 * is ONE delimited string (`account,key,amount;…`): an embedded database answers one large value far
 * faster than tens of thousands of rows.
 */
async function queryFigures(
  q: Queryable,
  scope: FigureScope,
  exclusions: readonly AdjustmentExclusion[],
  classes: AccountClasses,
): Promise<FigureTexts> {
  const { organizationId, ids, groupFye } = scope;
  if (ids.length === 0) return new Map();
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
  if (classes.historical !== '{}') {
    for (const d of scope.rateChangeDates) {
      if (d.endsWith('-01') || d > scope.asOfDate || split.has(monthOf(d))) continue;
      if (!tails.has(monthOf(d))) tails.set(monthOf(d), d);
    }
  }
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
  const dailyCommon = (companyIds: readonly string[]) =>
    sql.join(
      [
        sql`ab.organization_id = ${organizationId}`,
        sql`ab.company_id in (${idList(companyIds)})`,
        sql`ab.balance_date <= ${scope.asOfDate}::date`,
        dailyConditions(sql`ab`, exclusions),
      ],
      sql` and `,
    );

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
  const monthRows = sql`select mb.account_id, mb.month_start as day, mb.debit_total - mb.credit_total as amount
      from account_month_balances mb where ${sql.join(monthly, sql` and `)}`;
  const splitRows =
    splitMonths.length > 0
      ? sql`select ab.account_id, ab.balance_date, ab.debit_total - ab.credit_total
          from account_balances ab
          where ${dailyCommon(ids)} and (${ranges(splitMonths.map((x) => [x, x] as const))})`
      : null;
  // Tail rows of the historical accounts (each is a figure of its own date, and is taken out of the
  // month's roll-up row, keyed by the month's first day).
  const tailRows =
    tails.size > 0
      ? sql`select ab.account_id, ab.balance_date, ab.debit_total - ab.credit_total as amount
          from account_balances ab
          where ${dailyCommon(scope.foreignIds)}
            and (${ranges([...tails].map(([month, from]) => [from, month] as const))})
            and ${inList(sql`ab.account_id`, classes.historical)}`
      : null;
  const union = (parts: (SQL | null)[]) =>
    sql.join(
      parts.filter((x): x is SQL => x !== null),
      sql` union all `,
    );
  const rows = sql`(${union([monthRows, splitRows])}) s(account_id, day, amount)`;
  // Monetary accounts of companies not in G: this year's movements per group period (closing view).
  const flows = scope.flows && classes.flows !== '{}';
  const day = sql`(s.day - date '${sql.raw(EPOCH)}')::text`;

  // Independent parts, each aggregated to ONE delimited string where it is computed: PostgreSQL may
  // run them side by side (a parallel append; each worker then hands over a single value) when they
  // are large enough to pay for it.
  const parts = await queryRows<{ part: number; text: string | null }>(
    q,
    sql`select 0 as part, string_agg(g.account_id::text || ',' || g.p::text || ',' || ${units(sql`g.amount`)}, ';') as text
        from (
          select s.account_id, (s.day >= ${scope.yearStartDate}::date)::int as p, sum(s.amount) as amount
          from ${rows}
          where not ${inList(sql`s.account_id`, classes.keyed)}${
            flows
              ? sql` and not (${inList(sql`s.account_id`, classes.flows)} and s.day >= ${scope.yearStartDate}::date)`
              : sql``
          }
          group by 1, 2
          having sum(s.amount) <> 0
        ) g
        union all
        select 1, string_agg(k.account_id::text || ':' || k.cells, ';')
        from (
          select s.account_id, string_agg(${day} || '=' || ${units(sql`s.amount`)}, ',') as cells
          from ${rows}
          where ${inList(sql`s.account_id`, classes.keyed)}
          group by 1
        ) k
        ${
          tailRows
            ? sql`union all
        select 2, string_agg(s.account_id::text || ',' || ${day} || ',' || ${units(sql`s.amount`)}, ';')
        from (${tailRows}) s(account_id, day, amount)`
            : sql``
        }
        ${
          flows
            ? sql`union all
        select 3, string_agg(k.account_id::text || ':' || k.cells, ';')
        from (
          select s.account_id, string_agg(${day} || '=' || ${units(sql`s.amount`)}, ',') as cells
          from ${rows}
          where ${inList(sql`s.account_id`, classes.flows)} and s.day >= ${scope.yearStartDate}::date
          group by 1
        ) k`
            : sql``
        }`,
  );
  return new Map(parts.map((r) => [Number(r.part), r.text ?? '']));
}

/** The ledgers of a view from the answer of `queryFigures` (see there). */
function readFigures(texts: FigureTexts, scope: FigureScope, accounts: FigureAccounts): ViewFigures {
  const { groupFye } = scope;
  const text = (part: number) => texts.get(part) ?? '';

  const ledgers = new Map<string, LedgerColumns>();
  const columnsOf = (companyId: string): LedgerColumns => {
    let c = ledgers.get(companyId);
    if (!c) {
      c = { scale: AMOUNT_SCALE, accountNumbers: [], dates: [], units: [] };
      ledgers.set(companyId, c);
    }
    return c;
  };
  const priorDay = addDays(scope.yearStartDate, -1);

  // Summed accounts: `account,p,amount` with p = 1 for the rows from the view's yearStartDate on: the
  // two sides are the prior and current-year figures of a `domestic` account, and are added up for a
  // `cumulative` one.
  const cumulative = new Map<number, number>();
  const summed = text(0);
  for (let i = 0; i < summed.length;) {
    const c1 = summed.indexOf(',', i);
    const c2 = c1 + 2; // p is one digit
    let end = summed.indexOf(';', c2 + 1);
    if (end < 0) end = summed.length;
    const ref = accounts.byId.get(summed.slice(i, c1));
    if (ref) {
      const units = unitsAt(summed, c2 + 1, end);
      const cols = columnsOf(ref.companyId);
      if (ref.cls === 'domestic') {
        push(cols, ref.number, summed.charCodeAt(c1 + 1) === 49 ? scope.yearStartDate : priorDay, units);
      } else {
        const at = cumulative.get(ref.ordinal);
        if (at !== undefined) cols.units[at]! += units;
        else {
          cumulative.set(ref.ordinal, cols.units.length);
          push(cols, ref.number, null, units);
        }
      }
    }
    i = end + 1;
  }

  // Keyed rows, per account: `account:day=amount,day=amount,…` (day = days since 1970-01-01): a
  // historical figure per row, a period figure per GROUP period (rows of one period merged).
  const dates = new Map<number, string>();
  const dateOf = (d: number): string => {
    let date = dates.get(d);
    if (date === undefined) {
      date = addDays(EPOCH, d);
      dates.set(d, date);
    }
    return date;
  };
  /** per day: its group period's representative date, and where the current account's figure of it is */
  const periods = new Map<number, { date: string; account: FigureAccount | null; at: number }>();
  let earliestPeriodDate: string | null = null;
  const periodOfDay = (d: number) => {
    let q = periods.get(d);
    if (q === undefined) {
      const day = dateOf(d);
      let date = groupPeriodDate(groupFye, day);
      // A view whose dates are not period ends (a company statement's): the rows of a period on
      // either side of yearStartDate stay apart, and no figure is dated after asOfDate (each stays in
      // its period). A run's views keep the group period's date.
      if (scope.withinViewDates) {
        if (day < scope.yearStartDate && date >= scope.yearStartDate) date = addDays(scope.yearStartDate, -1);
        if (date > scope.asOfDate) date = scope.asOfDate;
      }
      const same = [...periods.values()].find((p) => p.date === date);
      q = same ?? { date, account: null, at: -1 };
      periods.set(d, q);
      if (earliestPeriodDate === null || date < earliestPeriodDate) earliestPeriodDate = date;
    }
    return q;
  };
  /**
   * Keyed rows (part 1, and the flow rows of part 3), per account: `account:day=amount,day=amount,…`
   * (day = days since 1970-01-01): a historical figure per row, otherwise a figure per GROUP period
   * (rows of one period merged).
   */
  const readKeyed = (keyed: string, perRow: (ref: FigureAccount) => boolean) => {
    for (let i = 0; i < keyed.length;) {
      const colon = keyed.indexOf(':', i);
      let end = keyed.indexOf(';', colon + 1);
      if (end < 0) end = keyed.length;
      const ref = accounts.byId.get(keyed.slice(i, colon));
      if (ref) {
        const cols = columnsOf(ref.companyId);
        for (let j = colon + 1; j < end;) {
          // day: a (possibly negative) integer, read digit by digit
          let eq = j;
          let d = 0;
          const negative = keyed.charCodeAt(eq) === 45;
          if (negative) eq++;
          for (let c = keyed.charCodeAt(eq); c !== 61; c = keyed.charCodeAt(++eq)) d = d * 10 + (c - 48);
          if (negative) d = -d;
          let next = keyed.indexOf(',', eq + 1);
          if (next < 0 || next > end) next = end;
          const units = unitsAt(keyed, eq + 1, next);
          if (perRow(ref)) push(cols, ref.number, dateOf(d), units);
          else {
            const q = periodOfDay(d);
            // Another row of the same group period (an adjustment row, another month) adds to its
            // figure (the rows of one account come together).
            if (q.account === ref) cols.units[q.at]! += units;
            else {
              q.account = ref;
              q.at = cols.units.length;
              push(cols, ref.number, q.date, units);
            }
          }
          j = next + 1;
        }
      }
      i = end + 1;
    }
  };
  readKeyed(text(1), (ref) => ref.cls === 'historical');
  readKeyed(text(3), () => false);

  // Tails: `account,day,amount`, a figure of its own date taken out of the month's figure.
  const tailText = text(2);
  for (let i = 0; i < tailText.length;) {
    const c1 = tailText.indexOf(',', i);
    const c2 = tailText.indexOf(',', c1 + 1);
    let end = tailText.indexOf(';', c2 + 1);
    if (end < 0) end = tailText.length;
    const ref = accounts.byId.get(tailText.slice(i, c1));
    if (ref) {
      const date = dateOf(Number(tailText.slice(c1 + 1, c2)));
      const units = unitsAt(tailText, c2 + 1, end);
      const cols = columnsOf(ref.companyId);
      push(cols, ref.number, date, units);
      push(cols, ref.number, `${date.slice(0, 8)}01`, -units);
    }
    i = end + 1;
  }
  return {
    ledgers: [...ledgers].map(([companyId, columns]) => columnLedger(companyId, columns)),
    earliestPeriodDate,
  };
}

function push(cols: LedgerColumns, accountNumber: string, date: string | null, units: bigint): void {
  cols.accountNumbers.push(accountNumber);
  cols.dates.push(date);
  cols.units.push(units);
}

/**
 * An amount of the figure statement as an integer of 10^-8 units: the text of a NUMERIC(28, 8) sum or
 * difference — always written with exactly 8 decimals — without its decimal point.
 */
function units(amount: SQL): SQL {
  return sql`replace(${amount}::text, '.', '')`;
}

/** The integer written in `text` from `start` to `end` (see `units`). */
function unitsAt(text: string, start: number, end: number): bigint {
  return BigInt(text.slice(start, end));
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
