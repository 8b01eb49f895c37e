/**
 * Consolidated statements, built from the stored trial balances of a completed
 * run: the closing view (as of `asOfDate`) and the opening view (as of `yearStartDate − 1`).
 *
 * Amounts come from `consolidatedBalance` with the natural sign of the line's `accountType`
 * (Asset and Expense debit-positive; Liability, Equity and Revenue credit-positive).
 */
import { type CashFlowCategory, defaultCashFlowCategory } from '../accounts.ts';
import { type Decimal, dec, type Money, money, ZERO } from '../money.ts';
import type { LineStyle } from '../reports/common.ts';
import { cmpAccountNumber, cmpStr } from './setup.ts';
import type { ConsolidatedLine, PeriodRef, TrialBalanceView } from './types.ts';

export type { LineStyle };

export interface ReportLine {
  accountId: null;
  accountNumber: string | null;
  description: string;
  currentAmount: Money;
  comparativeAmount: null;
  variance: null;
  variancePercentage: null;
  style: LineStyle;
  indentLevel: number;
}

export interface ReportSection {
  title: string;
  lineItems: ReportLine[];
  subtotal: Money;
  comparativeSubtotal: null;
}

export interface CashFlowLine {
  description: string;
  accountId: null;
  accountNumber: string | null;
  amount: Money;
  style: LineStyle;
  indentLevel: number;
}

export interface CashFlowSection {
  title: string;
  lineItems: CashFlowLine[];
  netCashFlow: Money;
}

export interface EquityRow {
  movementType:
    | 'OpeningBalance'
    | 'NetIncome'
    | 'OtherComprehensiveIncome'
    | 'DividendsDeclared'
    | 'StockIssuance'
    | 'StockRepurchase'
    | 'Other'
    | 'ClosingBalance';
  description: string;
  contributedCapital: Money;
  retainedEarnings: Money;
  treasuryStock: Money;
  accumulatedOCI: Money;
  nonControllingInterest: Money;
  total: Money;
}

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

export interface ConsolidatedBalanceSheet extends Header {
  asOfDate: string;
  currency: string;
  generatedAt: string;
  currentAssets: ReportSection;
  nonCurrentAssets: ReportSection;
  totalAssets: Money;
  currentLiabilities: ReportSection;
  nonCurrentLiabilities: ReportSection;
  totalLiabilities: Money;
  equity: ReportSection;
  nonControllingInterest: Money;
  totalEquity: Money;
  totalLiabilitiesAndEquity: Money;
  isBalanced: boolean;
}

export interface ConsolidatedIncomeStatement extends Header {
  periodRef: PeriodRef;
  periodStartDate: string;
  periodEndDate: string;
  currency: string;
  generatedAt: string;
  revenue: ReportSection;
  costOfSales: ReportSection;
  grossProfit: Money;
  operatingExpenses: ReportSection;
  operatingIncome: Money;
  otherIncomeExpense: ReportSection;
  incomeBeforeTax: Money;
  taxExpense: Money;
  netIncome: Money;
  netIncomeAttributableToParent: Money;
  netIncomeAttributableToNCI: Money;
}

export interface ConsolidatedCashFlowStatement extends Header {
  periodRef: PeriodRef;
  periodStartDate: string;
  periodEndDate: string;
  currency: string;
  generatedAt: string;
  method: 'indirect';
  beginningCash: Money;
  operatingActivities: CashFlowSection;
  investingActivities: CashFlowSection;
  financingActivities: CashFlowSection;
  exchangeRateEffect: Money;
  netChangeInCash: Money;
  endingCash: Money;
  isReconciled: boolean;
}

export interface ConsolidatedEquityStatement extends Header {
  periodRef: PeriodRef;
  periodStartDate: string;
  periodEndDate: string;
  currency: string;
  generatedAt: string;
  openingBalances: EquityRow;
  movements: EquityRow[];
  closingBalances: EquityRow;
}

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

/** Natural-sign amount: debit-positive for Asset/Expense, credit-positive otherwise. */
function natural(line: ConsolidatedLine): Decimal {
  const v = dp(line);
  return line.accountType === 'Asset' || line.accountType === 'Expense' ? v : v.neg();
}

function lineKey(line: ConsolidatedLine): string {
  return line.companyId === null ? line.accountNumber : `${line.accountNumber}|${line.companyId}`;
}

function accountLine(line: ConsolidatedLine, amount: Decimal, currency: string): ReportLine {
  return {
    accountId: null,
    accountNumber: line.accountNumber,
    description: line.accountName,
    currentAmount: money(amount, currency),
    comparativeAmount: null,
    variance: null,
    variancePercentage: null,
    style: 'Normal',
    indentLevel: 1,
  };
}

function computedLine(description: string, amount: Decimal, currency: string): ReportLine {
  return {
    accountId: null,
    accountNumber: null,
    description,
    currentAmount: money(amount, currency),
    comparativeAmount: null,
    variance: null,
    variancePercentage: null,
    style: 'Normal',
    indentLevel: 1,
  };
}

function section(title: string, lines: ReportLine[], currency: string): ReportSection {
  let total = ZERO;
  for (const l of lines) total = total.plus(dec(l.currentAmount.value));
  return { title, lineItems: lines, subtotal: money(total, currency), comparativeSubtotal: null };
}

/** Lines of a trial balance in the given categories, with an amount function; zero amounts omitted. */
function sectionLines(
  tb: TrialBalanceView,
  accept: (l: ConsolidatedLine) => boolean,
  amount: (l: ConsolidatedLine) => Decimal,
  currency: string,
): ReportLine[] {
  const out: ReportLine[] = [];
  for (const l of tb.lineItems) {
    if (!accept(l)) continue;
    const v = amount(l);
    if (v.isZero()) continue;
    out.push(accountLine(l, v, currency));
  }
  return out;
}

function isIn(...categories: string[]): (l: ConsolidatedLine) => boolean {
  return (l) => categories.includes(l.accountCategory);
}

export function buildConsolidatedBalanceSheet(
  ctx: StatementContext,
  closing: TrialBalanceView,
): ConsolidatedBalanceSheet {
  const cur = ctx.currency;
  const currentAssets = section(
    'Current Assets',
    sectionLines(closing, isIn('CurrentAsset'), natural, cur),
    cur,
  );
  const nonCurrentAssets = section(
    'Non-Current Assets',
    sectionLines(closing, isIn('NonCurrentAsset', 'FixedAsset', 'IntangibleAsset'), natural, cur),
    cur,
  );
  const currentLiabilities = section(
    'Current Liabilities',
    sectionLines(closing, isIn('CurrentLiability'), natural, cur),
    cur,
  );
  const nonCurrentLiabilities = section(
    'Non-Current Liabilities',
    sectionLines(closing, isIn('NonCurrentLiability'), natural, cur),
    cur,
  );
  const equityLines = sectionLines(
    closing,
    (l) => l.accountType === 'Equity' && l.lineType !== 'NonControllingInterest',
    natural,
    cur,
  );
  equityLines.push(
    computedLine('Current Year Earnings', dec(closing.netIncomeAttributableToParent.value), cur),
  );
  const equity = section('Equity', equityLines, cur);
  const nci = dec(closing.totalNCI.value);
  const totalAssets = dec(currentAssets.subtotal.value).plus(dec(nonCurrentAssets.subtotal.value));
  const totalLiabilities = dec(currentLiabilities.subtotal.value).plus(
    dec(nonCurrentLiabilities.subtotal.value),
  );
  const totalEquity = dec(equity.subtotal.value).plus(nci);
  const totalLE = totalLiabilities.plus(totalEquity);
  return {
    runId: ctx.runId,
    groupId: ctx.groupId,
    groupName: ctx.groupName,
    asOfDate: ctx.asOfDate,
    currency: cur,
    generatedAt: ctx.generatedAt,
    currentAssets,
    nonCurrentAssets,
    totalAssets: money(totalAssets, cur),
    currentLiabilities,
    nonCurrentLiabilities,
    totalLiabilities: money(totalLiabilities, cur),
    equity,
    nonControllingInterest: money(nci, cur),
    totalEquity: money(totalEquity, cur),
    totalLiabilitiesAndEquity: money(totalLE, cur),
    isBalanced: totalAssets.equals(totalLE),
  };
}

/** The header of a statement over the group's period: the run, the group, the period and the currency. */
export function periodHeader(ctx: StatementContext, cur: string) {
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
export function buildConsolidatedIncomeStatement(
  ctx: StatementContext,
  closing: TrialBalanceView,
): ConsolidatedIncomeStatement {
  const cur = ctx.currency;
  const creditPositive = (l: ConsolidatedLine) => dp(l).neg();
  const revenue = section(
    'Revenue',
    sectionLines(closing, isIn('OperatingRevenue'), creditPositive, cur),
    cur,
  );
  const costOfSales = section('Cost of Sales', sectionLines(closing, isIn('CostOfGoodsSold'), dp, cur), cur);
  const operatingExpenses = section(
    'Operating Expenses',
    sectionLines(closing, isIn('OperatingExpense', 'DepreciationAmortization'), dp, cur),
    cur,
  );
  const otherIncomeExpense = section(
    'Other Income and Expenses',
    sectionLines(closing, isIn('OtherRevenue', 'InterestExpense', 'OtherExpense'), creditPositive, cur),
    cur,
  );
  let tax = ZERO;
  for (const l of closing.lineItems) if (l.accountCategory === 'TaxExpense') tax = tax.plus(dp(l));
  const grossProfit = dec(revenue.subtotal.value).minus(dec(costOfSales.subtotal.value));
  const operatingIncome = grossProfit.minus(dec(operatingExpenses.subtotal.value));
  const incomeBeforeTax = operatingIncome.plus(dec(otherIncomeExpense.subtotal.value));
  const netIncome = incomeBeforeTax.minus(tax);
  return {
    ...periodHeader(ctx, cur),
    revenue,
    costOfSales,
    grossProfit: money(grossProfit, cur),
    operatingExpenses,
    operatingIncome: money(operatingIncome, cur),
    otherIncomeExpense,
    incomeBeforeTax: money(incomeBeforeTax, cur),
    taxExpense: money(tax, cur),
    netIncome: money(netIncome, cur),
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

function cashLine(
  description: string,
  amount: Decimal,
  currency: string,
  line?: ConsolidatedLine,
): CashFlowLine {
  return {
    description,
    accountId: null,
    accountNumber: line ? line.accountNumber : null,
    amount: money(amount, currency),
    style: 'Normal',
    indentLevel: line ? 1 : 0,
  };
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
  byCategory: Record<CashFlowCategory, CashFlowLine[]>;
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
  const byCategory: Record<CashFlowCategory, CashFlowLine[]> = {
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
    byCategory[cashFlowCategoryOf(p.line)].push(cashLine(p.line.accountName, effect, cur, p.line));
  }
  if (facts && !acquired.isZero()) {
    // Members acquired during the year: one investing line, the consideration less the cash they held.
    byCategory.Investing.push(
      cashLine('Acquisition of subsidiaries, net of cash acquired', acquired.neg(), cur),
    );
  }
  return { beginningCash, endingCash, ctaEffect, byCategory };
}

/** Σ of a section's flow lines (its headers carry no amount and its total is added after). */
function cashFlowTotal(lines: CashFlowLine[]): Decimal {
  let t = ZERO;
  for (const l of lines) if (l.style === 'Normal') t = t.plus(dec(l.amount.value));
  return t;
}

function cashFlowHeader(description: string, cur: string): CashFlowLine {
  return {
    description,
    accountId: null,
    accountNumber: null,
    amount: money(ZERO, cur),
    style: 'Header',
    indentLevel: 0,
  };
}

function cashFlowTotalLine(description: string, amount: Decimal, cur: string): CashFlowLine {
  return {
    description,
    accountId: null,
    accountNumber: null,
    amount: money(amount, cur),
    style: 'Total',
    indentLevel: 0,
  };
}

/** A section's lines closed by its total line, and the total. */
function cashFlowSection(
  lines: CashFlowLine[],
  totalDescription: string,
  cur: string,
): { lines: CashFlowLine[]; net: Decimal } {
  const net = cashFlowTotal(lines);
  return { lines: [...lines, cashFlowTotalLine(totalDescription, net, cur)], net };
}

/**
 * The indirect method's operating section: net income first, then the non-cash adjustments and the
 * working-capital changes, each group under its header only when it has lines.
 */
function operatingSection(
  closing: TrialBalanceView,
  byCategory: Record<CashFlowCategory, CashFlowLine[]>,
  cur: string,
): { lines: CashFlowLine[]; net: Decimal } {
  const lines: CashFlowLine[] = [cashLine('Net Income', dec(closing.netIncome.value), cur)];
  if (byCategory.NonCash.length > 0)
    lines.push(cashFlowHeader('Adjustments for non-cash items', cur), ...byCategory.NonCash);
  if (byCategory.Operating.length > 0)
    lines.push(cashFlowHeader('Changes in working capital', cur), ...byCategory.Operating);
  return cashFlowSection(lines, 'Net Cash from Operating Activities', cur);
}

export function buildConsolidatedCashFlowStatement(
  ctx: StatementContext,
  opening: TrialBalanceView,
  closing: TrialBalanceView,
): ConsolidatedCashFlowStatement {
  const cur = ctx.currency;
  const { beginningCash, endingCash, ctaEffect, byCategory } = classifyCashFlows(opening, closing, cur);
  const operating = operatingSection(closing, byCategory, cur);
  const investing = cashFlowSection(byCategory.Investing, 'Net Cash from Investing Activities', cur);
  const financing = cashFlowSection(byCategory.Financing, 'Net Cash from Financing Activities', cur);
  // The effect of rate changes on cash; rounding of the translated flows (a few minor units at most)
  // is kept with it so that the statement reconciles. Without statement facts the CTA change stands in.
  const exchangeRateEffect = closing.statementFacts?.lines
    ? endingCash.minus(beginningCash).minus(operating.net).minus(investing.net).minus(financing.net)
    : ctaEffect;
  const netChange = operating.net.plus(investing.net).plus(financing.net).plus(exchangeRateEffect);
  return {
    ...periodHeader(ctx, cur),
    method: 'indirect',
    beginningCash: money(beginningCash, cur),
    operatingActivities: {
      title: 'Cash Flows from Operating Activities',
      lineItems: operating.lines,
      netCashFlow: money(operating.net, cur),
    },
    investingActivities: {
      title: 'Cash Flows from Investing Activities',
      lineItems: investing.lines,
      netCashFlow: money(investing.net, cur),
    },
    financingActivities: {
      title: 'Cash Flows from Financing Activities',
      lineItems: financing.lines,
      netCashFlow: money(financing.net, cur),
    },
    exchangeRateEffect: money(exchangeRateEffect, cur),
    netChangeInCash: money(netChange, cur),
    endingCash: money(endingCash, cur),
    isReconciled: beginningCash.plus(netChange).equals(endingCash),
  };
}
