/** Company statement of changes in equity and the row structure the consolidated one reuses. */
import { type Decimal, dec, type Money, money, roundMoney, ZERO } from '../money.ts';
import {
  type AccountFigures,
  type Amount,
  type CompanyReportHeader,
  indexAccounts,
  netByAccount,
  type PeriodReportHeader,
  periodReportHeader,
  type ReportAccount,
} from './common.ts';

export const EQUITY_COLUMNS = [
  'contributedCapital',
  'retainedEarnings',
  'treasuryStock',
  'accumulatedOCI',
  'nonControllingInterest',
] as const;
export type EquityColumn = (typeof EQUITY_COLUMNS)[number];

export type EquityMovementType =
  | 'OpeningBalance'
  | 'NetIncome'
  | 'OtherComprehensiveIncome'
  | 'DividendsDeclared'
  | 'StockIssuance'
  | 'StockRepurchase'
  | 'Other'
  | 'ClosingBalance';

/** The six movements, in the published order, with their descriptions. */
export const EQUITY_MOVEMENTS = [
  { movementType: 'NetIncome', description: 'Net Income' },
  { movementType: 'OtherComprehensiveIncome', description: 'Other Comprehensive Income' },
  { movementType: 'DividendsDeclared', description: 'Dividends Declared' },
  { movementType: 'StockIssuance', description: 'Stock Issuance' },
  { movementType: 'StockRepurchase', description: 'Stock Repurchase' },
  { movementType: 'Other', description: 'Other Adjustments' },
] as const satisfies readonly { movementType: EquityMovementType; description: string }[];

export type EquityMovement = (typeof EQUITY_MOVEMENTS)[number]['movementType'];

export interface EquityRow {
  movementType: EquityMovementType;
  description: string;
  contributedCapital: Money;
  retainedEarnings: Money;
  treasuryStock: Money;
  accumulatedOCI: Money;
  nonControllingInterest: Money;
  total: Money;
}

/** Column amounts, credit-positive; a missing column is zero. */
export type EquityColumnAmounts = Partial<Record<EquityColumn, Amount>>;

/** Formats one EquityRow; `total` = Σ of the five (rounded) columns. */
export function equityRow(
  movementType: EquityMovementType,
  description: string,
  columns: EquityColumnAmounts,
  currency: string,
): EquityRow {
  const v = (c: EquityColumn): Decimal => roundMoney(columns[c] ?? ZERO, currency);
  const total = EQUITY_COLUMNS.reduce((t, c) => t.plus(v(c)), ZERO);
  return {
    movementType,
    description,
    contributedCapital: money(v('contributedCapital'), currency),
    retainedEarnings: money(v('retainedEarnings'), currency),
    treasuryStock: money(v('treasuryStock'), currency),
    accumulatedOCI: money(v('accumulatedOCI'), currency),
    nonControllingInterest: money(v('nonControllingInterest'), currency),
    total: money(total, currency),
  };
}

export interface EquityStatementBody {
  openingBalances: EquityRow;
  movements: EquityRow[];
  closingBalances: EquityRow;
}

/**
 * The rows of the statement: "Opening Balance", the six movements in the published order (a
 * movement not given is all zero), "Closing Balance". Amounts are credit-positive. The builder does
 * not force `closing = opening + Σ movements`; it holds when the caller's figures are consistent.
 */
export function equityStatementRows(input: {
  currency: string;
  opening: EquityColumnAmounts;
  movements: Partial<Record<EquityMovement, EquityColumnAmounts>>;
  closing: EquityColumnAmounts;
}): EquityStatementBody {
  const { currency } = input;
  return {
    openingBalances: equityRow('OpeningBalance', 'Opening Balance', input.opening, currency),
    movements: EQUITY_MOVEMENTS.map((m) =>
      equityRow(m.movementType, m.description, input.movements[m.movementType] ?? {}, currency),
    ),
    closingBalances: equityRow('ClosingBalance', 'Closing Balance', input.closing, currency),
  };
}

export interface EquityStatementReport extends PeriodReportHeader, EquityStatementBody {}

export interface EquityStatementInput extends CompanyReportHeader {
  periodStartDate: string;
  periodEndDate: string;
  /** Must include every Equity, Revenue and Expense account that has figures; the retained-earnings account is flagged. */
  accounts: readonly ReportAccount[];
  /**
   * Per account, Σ debit and Σ credit of ALL ledger lines (closing-related entries included) with
   * `transactionDate ≤ periodStartDate − 1`. Only Equity, Revenue and Expense accounts are used.
   */
  openingBalances: readonly AccountFigures[];
  /** The same with `transactionDate ≤ periodEndDate`. */
  closingBalances: readonly AccountFigures[];
  /**
   * Per account, Σ debit and Σ credit of the ledger lines with
   * `periodStartDate ≤ transactionDate ≤ periodEndDate`, EXCLUDING closing-related entries.
   * Only Equity, Revenue and Expense accounts are used.
   */
  activity: readonly AccountFigures[];
}

/**
 * Column balances at a date from per-account debit-positive nets: contributedCapital = Σ
 * ContributedCapital; retainedEarnings = Σ RetainedEarnings-category + Σ Revenue and Expense
 * (unclosed earnings); treasuryStock = Σ TreasuryStock; accumulatedOCI = Σ OtherComprehensiveIncome;
 * nonControllingInterest = 0. All credit − debit.
 */
function columnsAt(
  accounts: readonly ReportAccount[],
  nets: ReadonlyMap<string, Decimal>,
): EquityColumnAmounts {
  const cols = {
    contributedCapital: ZERO,
    retainedEarnings: ZERO,
    treasuryStock: ZERO,
    accumulatedOCI: ZERO,
  };
  for (const a of accounts) {
    const v = nets.get(a.id);
    if (v === undefined) continue;
    const credit = v.negated();
    if (a.accountType === 'Revenue' || a.accountType === 'Expense') {
      cols.retainedEarnings = cols.retainedEarnings.plus(credit);
      continue;
    }
    switch (a.accountCategory) {
      case 'ContributedCapital':
        cols.contributedCapital = cols.contributedCapital.plus(credit);
        break;
      case 'RetainedEarnings':
        cols.retainedEarnings = cols.retainedEarnings.plus(credit);
        break;
      case 'TreasuryStock':
        cols.treasuryStock = cols.treasuryStock.plus(credit);
        break;
      case 'OtherComprehensiveIncome':
        cols.accumulatedOCI = cols.accumulatedOCI.plus(credit);
        break;
      default:
        break;
    }
  }
  return cols;
}

/**
 * Builds the EquityStatementReport.
 *
 * Movements (activity excluding closing-related entries, credit − debit):
 * NetIncome → retainedEarnings = Σ Revenue and Expense; OtherComprehensiveIncome → accumulatedOCI =
 * Σ OtherComprehensiveIncome; DividendsDeclared → retainedEarnings = Σ RetainedEarnings-category
 * accounts other than the retained-earnings account (all of them when none is flagged);
 * StockIssuance → contributedCapital = Σ ContributedCapital; StockRepurchase → treasuryStock =
 * Σ TreasuryStock; Other → retainedEarnings = the retained-earnings account.
 *
 * `closing = opening + Σ movements` holds column by column whenever the closing-related entries of
 * the period net to zero within each column — true for the year-end closing entry and its reopen
 * reversal (Revenue, Expense and the retained-earnings account only) and for client closing entries
 * that close Revenue, Expense and RetainedEarnings-category accounts into one another.
 */
export function buildEquityStatement(input: EquityStatementInput): EquityStatementReport {
  const { currency } = input;
  const byId = indexAccounts(input.accounts);
  const opening = columnsAt(input.accounts, netByAccount(input.openingBalances, byId, currency));
  const closing = columnsAt(input.accounts, netByAccount(input.closingBalances, byId, currency));
  const activity = netByAccount(input.activity, byId, currency);

  const hasRetainedEarningsAccount = input.accounts.some((a) => a.isRetainedEarningsAccount);
  let netIncome = ZERO;
  let oci = ZERO;
  let dividends = ZERO;
  let issuance = ZERO;
  let repurchase = ZERO;
  let other = ZERO;
  for (const a of input.accounts) {
    const v = activity.get(a.id);
    if (v === undefined) continue;
    const credit = dec(v).negated();
    if (a.accountType === 'Revenue' || a.accountType === 'Expense') {
      netIncome = netIncome.plus(credit);
      continue;
    }
    switch (a.accountCategory) {
      case 'OtherComprehensiveIncome':
        oci = oci.plus(credit);
        break;
      case 'RetainedEarnings':
        if (hasRetainedEarningsAccount && a.isRetainedEarningsAccount) other = other.plus(credit);
        else dividends = dividends.plus(credit);
        break;
      case 'ContributedCapital':
        issuance = issuance.plus(credit);
        break;
      case 'TreasuryStock':
        repurchase = repurchase.plus(credit);
        break;
      default:
        break;
    }
  }

  const body = equityStatementRows({
    currency,
    opening,
    closing,
    movements: {
      NetIncome: { retainedEarnings: netIncome },
      OtherComprehensiveIncome: { accumulatedOCI: oci },
      DividendsDeclared: { retainedEarnings: dividends },
      StockIssuance: { contributedCapital: issuance },
      StockRepurchase: { treasuryStock: repurchase },
      Other: { retainedEarnings: other },
    },
  });
  return { ...periodReportHeader(input), ...body };
}
