/**
 * The engine input that translates one company's statements into another currency: the company read
 * as the parent of a group of one, with the figures, chart and rates a run would read.
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import {
  type CompanyInput,
  type ConsolidationInput,
  type GroupPeriod,
  type ViewData,
} from '../../domain/consolidation/index.ts';
import { minDate } from '../../domain/dates.ts';
import { fiscalYearOf, periodOf, periodRange, periodsOfYear } from '../../domain/fiscal-calendar.ts';
import { HISTORICAL_RATE_TYPES } from '../../domain/rates.ts';
import { loadRateBook } from '../exchange-rates/service.ts';
import { queryFigures, readFigures, type FigureScope } from './runs.figures.ts';
import { loadChart } from './runs.chart.ts';
import { type CompanyRow, fyeOf, rateProvider } from './runs.loader.ts';

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
      const chart = await loadChart(tx, orgId, ids, new Set(ids));
      const rates = rateProvider(book);
      const company = soleParent(c, chart);
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
        const texts = await queryFigures(tx, figureScope, []);
        const figures = readFigures(texts, figureScope, chart.figures);
        const from = minDate(figures.earliestPeriodDate ?? v.yearStartDate, v.yearStartDate);
        const groupPeriods = groupPeriodsBetween(fye, from, v.asOfDate);
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

/** The company as the parent of a group of one: wholly owned, fully consolidated. */
function soleParent(c: CompanyRow, chart: Awaited<ReturnType<typeof loadChart>>): CompanyInput {
  return {
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
}

/** The twelve regular periods of every fiscal year from the one of `from` to the one of `asOfDate`. */
function groupPeriodsBetween(fye: ReturnType<typeof fyeOf>, from: string, asOfDate: string): GroupPeriod[] {
  const groupPeriods: GroupPeriod[] = [];
  const lastYear = fiscalYearOf(fye, asOfDate);
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
  return groupPeriods;
}
