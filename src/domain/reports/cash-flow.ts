/** Company cash-flow statement, indirect method, and the sections the consolidated one reuses. */
import type { CashFlowCategory } from '../accounts.ts';
import { type Decimal, dec, type Money, money, roundMoney, ZERO } from '../money.ts';
import {
  type AccountFigures,
  type Amount,
  accountLineSource,
  type CompanyReportHeader,
  effectiveCashFlowCategory,
  indexAccounts,
  type LineSource,
  type LineStyle,
  netByAccount,
  type ReportAccount,
  sortByAccountNumber,
} from './common.ts';

export interface CashFlowLine {
  description: string;
  accountId: string | null;
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

export const CASH_FLOW_TITLES = {
  operating: 'Cash Flows from Operating Activities',
  investing: 'Cash Flows from Investing Activities',
  financing: 'Cash Flows from Financing Activities',
  netIncome: 'Net Income',
  nonCashHeader: 'Adjustments for non-cash items',
  workingCapitalHeader: 'Changes in working capital',
  operatingTotal: 'Net Cash from Operating Activities',
  investingTotal: 'Net Cash from Investing Activities',
  financingTotal: 'Net Cash from Financing Activities',
} as const;

export interface CashFlowSections {
  operatingActivities: CashFlowSection;
  investingActivities: CashFlowSection;
  financingActivities: CashFlowSection;
}

/** Fields common to the company and the consolidated cash-flow statement (after the header fields). */
export interface CashFlowBody extends CashFlowSections {
  method: 'indirect';
  beginningCash: Money;
  exchangeRateEffect: Money;
  netChangeInCash: Money;
  endingCash: Money;
  isReconciled: boolean;
}

interface Effect {
  source: LineSource;
  amount: Decimal;
}

function line(
  description: string,
  accountId: string | null,
  accountNumber: string | null,
  amount: Amount,
  style: LineStyle,
  indentLevel: number,
  currency: string,
): CashFlowLine {
  return { description, accountId, accountNumber, amount: money(amount, currency), style, indentLevel };
}

function accountLines(effects: readonly Effect[], currency: string): CashFlowLine[] {
  return sortByAccountNumber(effects.map((e) => ({ ...e, accountNumber: e.source.accountNumber }))).map((e) =>
    line(e.source.name, e.source.accountId, e.source.accountNumber, e.amount, 'Normal', 1, currency),
  );
}

/**
 * The three cash-flow sections from net income and the period changes of balance-sheet
 * lines.
 *
 * `sources[i].net` is the line's debit-positive change over the period (company: activity excluding
 * closing-related entries; consolidated: closing-view balance − opening-view balance). Cash lines
 * (`isCashEquivalent`) and Revenue/Expense lines are skipped; every other line's effect is `−net`,
 * classified by its `cashFlowCategory` or its category's default (a consolidated caller sets the
 * category of `NCI` and equity-method lines explicitly and leaves out the `CTA` line, whose change is
 * the exchange-rate effect). Lines with a zero effect are omitted.
 *
 * Operating: "Net Income" (Normal, indent 0); when there are NonCash lines, the Header "Adjustments
 * for non-cash items" (zero, indent 0) and the lines (indent 1); when there are Operating lines, the
 * Header "Changes in working capital" and the lines; then "Net Cash from Operating Activities"
 * (Total, indent 0). Investing and Financing: the lines (indent 1), then their Total line.
 * `netCashFlow` = Σ of the section's Normal lines.
 */
export function cashFlowSections(input: {
  currency: string;
  /** Net income of the period, credit-positive. */
  netIncome: Amount;
  sources: readonly LineSource[];
}): CashFlowSections {
  const { currency } = input;
  const groups: Record<CashFlowCategory, Effect[]> = {
    Operating: [],
    Investing: [],
    Financing: [],
    NonCash: [],
  };
  for (const s of input.sources) {
    if (s.isCashEquivalent || s.accountType === 'Revenue' || s.accountType === 'Expense') continue;
    const amount = roundMoney(dec(s.net).negated(), currency);
    if (amount.isZero()) continue;
    groups[effectiveCashFlowCategory(s)].push({ source: s, amount });
  }
  const total = (effects: readonly Effect[], start = ZERO) =>
    effects.reduce((t, e) => t.plus(e.amount), start);

  const netIncome = roundMoney(input.netIncome, currency);
  const operatingLines: CashFlowLine[] = [
    line(CASH_FLOW_TITLES.netIncome, null, null, netIncome, 'Normal', 0, currency),
  ];
  if (groups.NonCash.length > 0) {
    operatingLines.push(line(CASH_FLOW_TITLES.nonCashHeader, null, null, ZERO, 'Header', 0, currency));
    operatingLines.push(...accountLines(groups.NonCash, currency));
  }
  if (groups.Operating.length > 0) {
    operatingLines.push(line(CASH_FLOW_TITLES.workingCapitalHeader, null, null, ZERO, 'Header', 0, currency));
    operatingLines.push(...accountLines(groups.Operating, currency));
  }
  const operatingNet = total(groups.Operating, total(groups.NonCash, netIncome));
  operatingLines.push(line(CASH_FLOW_TITLES.operatingTotal, null, null, operatingNet, 'Total', 0, currency));

  const simple = (title: string, totalTitle: string, effects: readonly Effect[]): CashFlowSection => {
    const net = total(effects);
    return {
      title,
      lineItems: [
        ...accountLines(effects, currency),
        line(totalTitle, null, null, net, 'Total', 0, currency),
      ],
      netCashFlow: money(net, currency),
    };
  };

  return {
    operatingActivities: {
      title: CASH_FLOW_TITLES.operating,
      lineItems: operatingLines,
      netCashFlow: money(operatingNet, currency),
    },
    investingActivities: simple(
      CASH_FLOW_TITLES.investing,
      CASH_FLOW_TITLES.investingTotal,
      groups.Investing,
    ),
    financingActivities: simple(
      CASH_FLOW_TITLES.financing,
      CASH_FLOW_TITLES.financingTotal,
      groups.Financing,
    ),
  };
}

/**
 * The cash-flow body: sections, `netChangeInCash` = Σ netCashFlow + `exchangeRateEffect`,
 * `isReconciled` = (beginningCash + netChangeInCash = endingCash).
 */
export function cashFlowBody(input: {
  currency: string;
  netIncome: Amount;
  sources: readonly LineSource[];
  beginningCash: Amount;
  endingCash: Amount;
  /** Zero for a company; −Δ of the `CTA` line for a consolidation. */
  exchangeRateEffect: Amount;
}): CashFlowBody {
  const { currency } = input;
  const sections = cashFlowSections(input);
  const beginningCash = roundMoney(input.beginningCash, currency);
  const endingCash = roundMoney(input.endingCash, currency);
  const exchangeRateEffect = roundMoney(input.exchangeRateEffect, currency);
  const netChangeInCash = dec(sections.operatingActivities.netCashFlow.value)
    .plus(sections.investingActivities.netCashFlow.value)
    .plus(sections.financingActivities.netCashFlow.value)
    .plus(exchangeRateEffect);
  return {
    method: 'indirect',
    beginningCash: money(beginningCash, currency),
    ...sections,
    exchangeRateEffect: money(exchangeRateEffect, currency),
    netChangeInCash: money(netChangeInCash, currency),
    endingCash: money(endingCash, currency),
    isReconciled: beginningCash.plus(netChangeInCash).equals(endingCash),
  };
}

export interface CashFlowStatementReport extends CashFlowBody {
  companyId: string;
  periodStartDate: string;
  periodEndDate: string;
  currency: string;
  generatedAt: string;
}

export interface CashFlowStatementInput extends CompanyReportHeader {
  periodStartDate: string;
  periodEndDate: string;
  accounts: readonly ReportAccount[];
  /**
   * Per account (all types), Σ debit and Σ credit of the ledger lines with
   * `periodStartDate ≤ transactionDate ≤ periodEndDate`, EXCLUDING closing-related entries.
   * Revenue/Expense rows give net income; non-cash balance-sheet rows give the line effects.
   */
  activity: readonly AccountFigures[];
  /**
   * Per account, Σ debit and Σ credit of the ledger lines with `transactionDate ≤ periodStartDate − 1`,
   * EXCLUDING closing-related entries. Only cash accounts (`isCashEquivalent`) are used; other rows
   * are ignored.
   */
  beginningBalances: readonly AccountFigures[];
  /** The same with `transactionDate ≤ periodEndDate`. */
  endingBalances: readonly AccountFigures[];
}

/** Builds the CashFlowStatementReport; `exchangeRateEffect` is zero for a company. */
export function buildCashFlowStatement(input: CashFlowStatementInput): CashFlowStatementReport {
  const { currency } = input;
  const byId = indexAccounts(input.accounts);
  const activity = netByAccount(input.activity, byId, currency);
  const begin = netByAccount(input.beginningBalances, byId, currency);
  const end = netByAccount(input.endingBalances, byId, currency);

  let netIncome = ZERO;
  let beginningCash = ZERO;
  let endingCash = ZERO;
  const sources: LineSource[] = [];
  for (const a of input.accounts) {
    const net = activity.get(a.id) ?? ZERO;
    if (a.accountType === 'Revenue' || a.accountType === 'Expense') {
      netIncome = netIncome.minus(net);
    } else if (a.isCashEquivalent) {
      beginningCash = beginningCash.plus(begin.get(a.id) ?? ZERO);
      endingCash = endingCash.plus(end.get(a.id) ?? ZERO);
    } else if (!net.isZero()) {
      sources.push(accountLineSource(a, net));
    }
  }
  const body = cashFlowBody({
    currency,
    netIncome,
    sources,
    beginningCash,
    endingCash,
    exchangeRateEffect: ZERO,
  });
  return {
    companyId: input.companyId,
    periodStartDate: input.periodStartDate,
    periodEndDate: input.periodEndDate,
    currency,
    generatedAt: input.generatedAt,
    ...body,
  };
}
