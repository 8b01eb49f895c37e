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
  type PeriodReportHeader,
  periodReportHeader,
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

/** The flow lines of each cash-flow category, in the order they are shown (indent 1, style Normal). */
export type CashFlowGroups = Record<CashFlowCategory, CashFlowLine[]>;

interface Effect {
  source: LineSource;
  amount: Decimal;
}

/** One line of a cash-flow section. */
export function cashFlowLine(
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
    cashFlowLine(e.source.name, e.source.accountId, e.source.accountNumber, e.amount, 'Normal', 1, currency),
  );
}

/** A section's lines closed by its Total line; `netCashFlow` = Σ of its Normal lines. */
function closedSection(
  title: string,
  totalTitle: string,
  lines: readonly CashFlowLine[],
  currency: string,
): CashFlowSection {
  let net = ZERO;
  for (const l of lines) if (l.style === 'Normal') net = net.plus(l.amount.value);
  return {
    title,
    lineItems: [...lines, cashFlowLine(totalTitle, null, null, net, 'Total', 0, currency)],
    netCashFlow: money(net, currency),
  };
}

/**
 * The three sections from net income and the flow lines already sorted into their categories
 * (company accounts and consolidated lines alike).
 *
 * Operating: "Net Income" (Normal, indent 0); when there are NonCash lines, the Header "Adjustments
 * for non-cash items" (zero, indent 0) and the lines; when there are Operating lines, the Header
 * "Changes in working capital" and the lines; then "Net Cash from Operating Activities" (Total,
 * indent 0). Investing and Financing: the lines, then their Total line.
 */
export function cashFlowSectionsOf(
  currency: string,
  netIncome: Amount,
  groups: CashFlowGroups,
): CashFlowSections {
  const operatingLines: CashFlowLine[] = [
    cashFlowLine(CASH_FLOW_TITLES.netIncome, null, null, netIncome, 'Normal', 0, currency),
  ];
  const header = (title: string) => cashFlowLine(title, null, null, ZERO, 'Header', 0, currency);
  if (groups.NonCash.length > 0)
    operatingLines.push(header(CASH_FLOW_TITLES.nonCashHeader), ...groups.NonCash);
  if (groups.Operating.length > 0) {
    operatingLines.push(header(CASH_FLOW_TITLES.workingCapitalHeader), ...groups.Operating);
  }
  return {
    operatingActivities: closedSection(
      CASH_FLOW_TITLES.operating,
      CASH_FLOW_TITLES.operatingTotal,
      operatingLines,
      currency,
    ),
    investingActivities: closedSection(
      CASH_FLOW_TITLES.investing,
      CASH_FLOW_TITLES.investingTotal,
      groups.Investing,
      currency,
    ),
    financingActivities: closedSection(
      CASH_FLOW_TITLES.financing,
      CASH_FLOW_TITLES.financingTotal,
      groups.Financing,
      currency,
    ),
  };
}

/**
 * The three cash-flow sections from net income and the period changes of balance-sheet
 * lines.
 *
 * `sources[i].net` is the line's debit-positive change over the period (activity excluding
 * closing-related entries). Cash lines (`isCashEquivalent`) and Revenue/Expense lines are skipped;
 * every other line's effect is `−net`, classified by its `cashFlowCategory` or its category's
 * default. Lines with a zero effect are omitted; the rest are ordered by account number within
 * their category (see `cashFlowSectionsOf` for the layout).
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
  return cashFlowSectionsOf(currency, roundMoney(input.netIncome, currency), {
    Operating: accountLines(groups.Operating, currency),
    Investing: accountLines(groups.Investing, currency),
    Financing: accountLines(groups.Financing, currency),
    NonCash: accountLines(groups.NonCash, currency),
  });
}

/**
 * The cash-flow body around its sections: `netChangeInCash` = Σ netCashFlow + `exchangeRateEffect`,
 * `isReconciled` = (beginningCash + netChangeInCash = endingCash).
 */
export function cashFlowTotals(input: {
  currency: string;
  sections: CashFlowSections;
  beginningCash: Amount;
  endingCash: Amount;
  exchangeRateEffect: Amount;
}): CashFlowBody {
  const { currency, sections } = input;
  const beginningCash = roundMoney(input.beginningCash, currency);
  const endingCash = roundMoney(input.endingCash, currency);
  const exchangeRateEffect = roundMoney(input.exchangeRateEffect, currency);
  const netChangeInCash = sectionsNet(sections).plus(exchangeRateEffect);
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

/** Σ netCashFlow of the three sections. */
export function sectionsNet(sections: CashFlowSections): Decimal {
  return dec(sections.operatingActivities.netCashFlow.value)
    .plus(sections.investingActivities.netCashFlow.value)
    .plus(sections.financingActivities.netCashFlow.value);
}

/** The cash-flow body of line sources (see `cashFlowSections` and `cashFlowTotals`). */
export function cashFlowBody(input: {
  currency: string;
  netIncome: Amount;
  sources: readonly LineSource[];
  beginningCash: Amount;
  endingCash: Amount;
  /** Zero for a company's own statement. */
  exchangeRateEffect: Amount;
}): CashFlowBody {
  return cashFlowTotals({ ...input, sections: cashFlowSections(input) });
}

export interface CashFlowStatementReport extends PeriodReportHeader, CashFlowBody {}

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
  return { ...periodReportHeader(input), ...body };
}
