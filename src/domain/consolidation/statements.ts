/**
 * Consolidated statements, built from the stored trial balances of a completed
 * run: the closing view (as of `asOfDate`) and the opening view (as of `yearStartDate − 1`).
 *
 * Amounts come from `consolidatedBalance` with the natural sign of the line's `accountType`
 * (Asset and Expense debit-positive; Liability, Equity and Revenue credit-positive). The sections,
 * lines and rows are those of the company reports, fed with the consolidated lines.
 */
import { type CashFlowCategory, defaultCashFlowCategory } from '../accounts.ts';
import { type Decimal, dec, type Money, money, ZERO } from '../money.ts';
import {
  type BalanceSheetSections,
  balanceSheetSections,
  CURRENT_YEAR_EARNINGS,
  computedLine,
} from '../reports/balance-sheet.ts';
import {
  type CashFlowBody,
  type CashFlowGroups,
  cashFlowLine,
  cashFlowSectionsOf,
  cashFlowTotals,
  sectionsNet,
} from '../reports/cash-flow.ts';
import type { LineSource } from '../reports/common.ts';
import type { EquityStatementBody } from '../reports/equity-statement.ts';
import { type IncomeStatementBody, incomeStatementSections } from '../reports/income-statement.ts';
import { cmpAccountNumber, cmpStr } from './setup.ts';
import type { ConsolidatedLine, PeriodRef, TrialBalanceView } from './types.ts';

export type { CashFlowLine, CashFlowSection } from '../reports/cash-flow.ts';
export type { LineStyle, ReportLine, ReportSection } from '../reports/common.ts';
export type { EquityRow } from '../reports/equity-statement.ts';

/** What a statement needs besides the trial balances. */
export interface StatementContext {
  runId: string;
  groupId: string;
  /** the group's current name */
  groupName: string;
  periodRef: PeriodRef;
  asOfDate: string;
  yearStartDate: string;
  currency: string;
  generatedAt: string;
  /**
   * The run's `retainedEarningsLine` (ConsolidationResult): the parent's retained-earnings account
   * number, or `RETAINED_EARNINGS` (null is read as `RETAINED_EARNINGS`).
   */
  retainedEarningsLine: string | null;
}

interface Header {
  runId: string;
  groupId: string;
  groupName: string;
}

/** Header fields of a statement over the group's period. */
interface PeriodHeader extends Header {
  periodRef: PeriodRef;
  periodStartDate: string;
  periodEndDate: string;
  currency: string;
  generatedAt: string;
}

export interface ConsolidatedBalanceSheet extends Header, BalanceSheetSections {
  asOfDate: string;
  currency: string;
  generatedAt: string;
  nonControllingInterest: Money;
  totalEquity: Money;
  totalLiabilitiesAndEquity: Money;
  isBalanced: boolean;
}

export interface ConsolidatedIncomeStatement extends PeriodHeader, IncomeStatementBody {
  netIncomeAttributableToParent: Money;
  netIncomeAttributableToNCI: Money;
}

export interface ConsolidatedCashFlowStatement extends PeriodHeader, CashFlowBody {}

export interface ConsolidatedEquityStatement extends PeriodHeader, EquityStatementBody {}

const EM_TYPE_ORDER = ['EquityMethodInvestment', 'EquityMethodIncome', 'EquityMethodReserve'];
const SYNTHETIC_ORDER: Record<string, number> = {
  Account: 0,
  RetainedEarnings: 1,
  CurrencyTranslationAdjustment: 2,
  NonControllingInterest: 3,
};

/** Debit-positive consolidated balance of a line. */
export function dp(line: ConsolidatedLine): Decimal {
  return dec(line.consolidatedBalance.value);
}

function lineKey(line: ConsolidatedLine): string {
  return line.companyId === null ? line.accountNumber : `${line.accountNumber}|${line.companyId}`;
}

/**
 * A consolidated line as the source of a statement line: no account id, its account number (which
 * may be synthetic, e.g. `CTA`; such numbers sort after the numeric ones, in trial-balance order)
 * and its consolidated balance.
 */
function lineSource(line: ConsolidatedLine): LineSource {
  return {
    accountId: null,
    accountNumber: line.accountNumber,
    name: line.accountName,
    accountType: line.accountType,
    accountCategory: line.accountCategory,
    cashFlowCategory: line.cashFlowCategory,
    isCashEquivalent: line.isCashEquivalent,
    net: line.consolidatedBalance.value,
  };
}

/**
 * The balance sheet of the closing view. The NCI line belongs to no section (its category is
 * `NonControllingInterest`) and is shown as its own amount; the parent's share of the year's
 * earnings closes the equity section.
 */
export function buildConsolidatedBalanceSheet(
  ctx: StatementContext,
  closing: TrialBalanceView,
): ConsolidatedBalanceSheet {
  const cur = ctx.currency;
  const sections = balanceSheetSections({
    currency: cur,
    hasComparative: false,
    sources: closing.lineItems.map(lineSource),
    equityExtraLines: [
      computedLine(CURRENT_YEAR_EARNINGS, closing.netIncomeAttributableToParent.value, null),
    ],
  });
  const nci = dec(closing.totalNCI.value);
  const totalAssets = dec(sections.totalAssets.value);
  const totalEquity = dec(sections.equity.subtotal.value).plus(nci);
  const totalLE = dec(sections.totalLiabilities.value).plus(totalEquity);
  return {
    runId: ctx.runId,
    groupId: ctx.groupId,
    groupName: ctx.groupName,
    asOfDate: ctx.asOfDate,
    currency: cur,
    generatedAt: ctx.generatedAt,
    ...sections,
    nonControllingInterest: money(nci, cur),
    totalEquity: money(totalEquity, cur),
    totalLiabilitiesAndEquity: money(totalLE, cur),
    isBalanced: totalAssets.equals(totalLE),
  };
}

/** The header of a statement over the group's period: the run, the group, the period and the currency. */
export function periodHeader(ctx: StatementContext, cur: string): PeriodHeader {
  return {
    runId: ctx.runId,
    groupId: ctx.groupId,
    groupName: ctx.groupName,
    periodRef: { ...ctx.periodRef },
    periodStartDate: ctx.yearStartDate,
    periodEndDate: ctx.asOfDate,
    currency: cur,
    generatedAt: ctx.generatedAt,
  };
}

/** The income statement of the closing view (its lines carry the year's activity). */
export function buildConsolidatedIncomeStatement(
  ctx: StatementContext,
  closing: TrialBalanceView,
): ConsolidatedIncomeStatement {
  const cur = ctx.currency;
  const sources = closing.lineItems.map(lineSource);
  return {
    ...periodHeader(ctx, cur),
    ...incomeStatementSections({ currency: cur, hasComparative: false, sources }),
    netIncomeAttributableToParent: closing.netIncomeAttributableToParent,
    netIncomeAttributableToNCI: closing.netIncomeAttributableToNCI,
  };
}

interface PairedLine {
  line: ConsolidatedLine;
  opening: Decimal;
  closing: Decimal;
}

/** Balance-sheet lines of both views, matched by number (and investee), in trial-balance order. */
function pairBalanceSheetLines(opening: TrialBalanceView, closing: TrialBalanceView): PairedLine[] {
  const map = new Map<string, PairedLine>();
  const emRank = new Map<string, number>();
  for (const [tb, which] of [
    [closing, 'closing'],
    [opening, 'opening'],
  ] as const) {
    for (const l of tb.lineItems) {
      if (l.companyId !== null && !emRank.has(l.companyId)) emRank.set(l.companyId, emRank.size);
      if (l.accountType === 'Revenue' || l.accountType === 'Expense') continue;
      const key = lineKey(l);
      const p = map.get(key) ?? { line: l, opening: ZERO, closing: ZERO };
      p[which] = dp(l);
      map.set(key, p);
    }
  }
  const rank = (l: ConsolidatedLine): [number, number] => {
    if (l.companyId !== null) return [4, emRank.get(l.companyId)! * 3 + EM_TYPE_ORDER.indexOf(l.lineType)];
    return [SYNTHETIC_ORDER[l.lineType] ?? 0, 0];
  };
  return [...map.values()].sort((a, b) => {
    const ra = rank(a.line);
    const rb = rank(b.line);
    if (ra[0] !== rb[0]) return ra[0] - rb[0];
    if (ra[0] === 0)
      return (
        cmpAccountNumber(a.line.accountNumber, b.line.accountNumber) ||
        cmpStr(a.line.accountNumber, b.line.accountNumber)
      );
    return ra[1] - rb[1];
  });
}

function cashFlowCategoryOf(l: ConsolidatedLine): CashFlowCategory {
  if (l.lineType === 'NonControllingInterest') return 'Financing';
  if (
    l.lineType === 'EquityMethodInvestment' ||
    l.lineType === 'EquityMethodIncome' ||
    l.lineType === 'EquityMethodReserve'
  ) {
    return 'NonCash';
  }
  if (l.cashFlowCategory) return l.cashFlowCategory;
  if (l.accountCategory === 'NonControllingInterest') return 'Financing';
  return defaultCashFlowCategory(l.accountCategory) ?? 'Operating';
}

/** The balance-sheet changes of the year sorted into cash-flow sections, with the cash balances. */
interface ClassifiedCashFlows {
  beginningCash: Decimal;
  endingCash: Decimal;
  /** the CTA change, standing in for the effect of rates when the run has no statement facts */
  ctaEffect: Decimal;
  byCategory: CashFlowGroups;
}

/**
 * Each non-cash balance-sheet line's change, less what is not a cash flow (its translation
 * difference and the balances that arrived with an acquired member), becomes a line of its category.
 * Cash-equivalent lines are the cash balances the statement explains, not flows.
 */
function classifyCashFlows(
  opening: TrialBalanceView,
  closing: TrialBalanceView,
  cur: string,
): ClassifiedCashFlows {
  const facts = closing.statementFacts?.lines;
  let beginningCash = ZERO;
  let endingCash = ZERO;
  let ctaEffect = ZERO;
  let acquired = ZERO;
  const byCategory: CashFlowGroups = {
    Operating: [],
    Investing: [],
    Financing: [],
    NonCash: [],
  };
  for (const p of pairBalanceSheetLines(opening, closing)) {
    if (p.line.isCashEquivalent) {
      beginningCash = beginningCash.plus(p.opening);
      endingCash = endingCash.plus(p.closing);
      continue;
    }
    const fact = facts?.[lineKey(p.line)];
    const translation = fact ? dec(fact.translationDifference) : ZERO;
    const arrived = fact ? dec(fact.acquired) : ZERO;
    acquired = acquired.plus(arrived);
    if (p.line.lineType === 'CurrencyTranslationAdjustment') {
      // Without statement facts (runs completed before they existed) the CTA change stands in for
      // the effect of rates; with them it is a translation difference, not a cash flow.
      if (!facts) ctaEffect = ctaEffect.plus(p.closing.minus(p.opening).neg());
      continue;
    }
    const effect = p.closing.minus(p.opening).minus(translation).minus(arrived).neg();
    if (effect.isZero()) continue;
    byCategory[cashFlowCategoryOf(p.line)].push(
      cashFlowLine(p.line.accountName, null, p.line.accountNumber, effect, 'Normal', 1, cur),
    );
  }
  if (facts && !acquired.isZero()) {
    // Members acquired during the year: one investing line, the consideration less the cash they held.
    byCategory.Investing.push(
      cashFlowLine(
        'Acquisition of subsidiaries, net of cash acquired',
        null,
        null,
        acquired.neg(),
        'Normal',
        0,
        cur,
      ),
    );
  }
  return { beginningCash, endingCash, ctaEffect, byCategory };
}

export function buildConsolidatedCashFlowStatement(
  ctx: StatementContext,
  opening: TrialBalanceView,
  closing: TrialBalanceView,
): ConsolidatedCashFlowStatement {
  const cur = ctx.currency;
  const { beginningCash, endingCash, ctaEffect, byCategory } = classifyCashFlows(opening, closing, cur);
  const sections = cashFlowSectionsOf(cur, closing.netIncome.value, byCategory);
  // The effect of rate changes on cash; rounding of the translated flows (a few minor units at most)
  // is kept with it so that the statement reconciles. Without statement facts the CTA change stands in.
  const exchangeRateEffect = closing.statementFacts?.lines
    ? endingCash.minus(beginningCash).minus(sectionsNet(sections))
    : ctaEffect;
  return {
    ...periodHeader(ctx, cur),
    ...cashFlowTotals({ currency: cur, sections, beginningCash, endingCash, exchangeRateEffect }),
  };
}
