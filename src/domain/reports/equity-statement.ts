/** Company statement of changes in equity and the row structure the consolidated one reuses. */
import { type Decimal, type Money, money, roundMoney, ZERO } from '../money.ts';
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

/** The column each movement changes. */
const MOVEMENT_COLUMN: Record<EquityMovement, EquityColumn> = {
  NetIncome: 'retainedEarnings',
  OtherComprehensiveIncome: 'accumulatedOCI',
  DividendsDeclared: 'retainedEarnings',
  StockIssuance: 'contributedCapital',
  StockRepurchase: 'treasuryStock',
  Other: 'retainedEarnings',
};

/**
 * The movement an account's activity belongs to, or null for an account outside the statement:
 * Revenue and Expense → NetIncome; OtherComprehensiveIncome → OtherComprehensiveIncome; the
 * retained-earnings account → Other, the other RetainedEarnings-category accounts (all of them when
 * none is flagged) → DividendsDeclared; ContributedCapital → StockIssuance; TreasuryStock →
 * StockRepurchase.
 */
function movementOf(a: ReportAccount, hasRetainedEarningsAccount: boolean): EquityMovement | null {
  if (a.accountType === 'Revenue' || a.accountType === 'Expense') return 'NetIncome';
  switch (a.accountCategory) {
    case 'OtherComprehensiveIncome':
      return 'OtherComprehensiveIncome';
    case 'RetainedEarnings':
      return hasRetainedEarningsAccount && a.isRetainedEarningsAccount ? 'Other' : 'DividendsDeclared';
    case 'ContributedCapital':
      return 'StockIssuance';
    case 'TreasuryStock':
      return 'StockRepurchase';
    default:
      return null;
  }
}

/** Σ credit − debit of the accounts' debit-positive nets per movement (absent: no account). */
function creditByMovement(
  accounts: readonly ReportAccount[],
  nets: ReadonlyMap<string, Decimal>,
): Partial<Record<EquityMovement, Decimal>> {
  const hasRetainedEarningsAccount = accounts.some((a) => a.isRetainedEarningsAccount);
  const totals: Partial<Record<EquityMovement, Decimal>> = {};
  for (const a of accounts) {
    const v = nets.get(a.id);
    const m = movementOf(a, hasRetainedEarningsAccount);
    if (v === undefined || m === null) continue;
    totals[m] = (totals[m] ?? ZERO).plus(v.negated());
  }
  return totals;
}

/**
 * Column balances at a date from per-account debit-positive nets: each account's balance goes to
 * the column its movements change (so retainedEarnings also holds the unclosed earnings of Revenue
 * and Expense accounts); nonControllingInterest = 0. All credit − debit.
 */
function columnsAt(
  accounts: readonly ReportAccount[],
  nets: ReadonlyMap<string, Decimal>,
): EquityColumnAmounts {
  const byMovement = creditByMovement(accounts, nets);
  const cols: Partial<Record<EquityColumn, Decimal>> = {};
  for (const { movementType: m } of EQUITY_MOVEMENTS) {
    const c = MOVEMENT_COLUMN[m];
    cols[c] = (cols[c] ?? ZERO).plus(byMovement[m] ?? ZERO);
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

  const movements = creditByMovement(input.accounts, activity);
  const body = equityStatementRows({
    currency,
    opening,
    closing,
    movements: Object.fromEntries(
      EQUITY_MOVEMENTS.map(({ movementType: m }) => [m, { [MOVEMENT_COLUMN[m]]: movements[m] ?? ZERO }]),
    ),
  });
  return { ...periodReportHeader(input), ...body };
}
