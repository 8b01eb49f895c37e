/** Company balance sheet and the section structure the consolidated one reuses. */
import type { AccountCategory } from '../accounts.ts';
import { type Money, money, roundMoney, ZERO } from '../money.ts';
import {
  type AccountFigures,
  type Amount,
  accountLineSource,
  type CompanyReportHeader,
  indexAccounts,
  type LineCategory,
  type LineDraft,
  type LineSource,
  moneyValue,
  NATURAL_SIGN,
  netByAccount,
  type ReportAccount,
  type ReportSection,
  sectionFromSources,
} from './common.ts';

/** The five sections of the balance sheet: key, title and the categories they hold. */
export const BALANCE_SHEET_SECTIONS = [
  { key: 'currentAssets', title: 'Current Assets', categories: ['CurrentAsset'] },
  {
    key: 'nonCurrentAssets',
    title: 'Non-Current Assets',
    categories: ['NonCurrentAsset', 'FixedAsset', 'IntangibleAsset'],
  },
  { key: 'currentLiabilities', title: 'Current Liabilities', categories: ['CurrentLiability'] },
  { key: 'nonCurrentLiabilities', title: 'Non-Current Liabilities', categories: ['NonCurrentLiability'] },
  {
    key: 'equity',
    title: 'Equity',
    categories: ['ContributedCapital', 'RetainedEarnings', 'OtherComprehensiveIncome', 'TreasuryStock'],
  },
] as const satisfies readonly { key: string; title: string; categories: readonly AccountCategory[] }[];

export type BalanceSheetSectionKey = (typeof BALANCE_SHEET_SECTIONS)[number]['key'];

export const CURRENT_YEAR_EARNINGS = 'Current Year Earnings';
export const UNCLOSED_PRIOR_EARNINGS = 'Unclosed Earnings of Prior Years';
export const TRANSLATION_ADJUSTMENT = 'Cumulative Translation Adjustment';

/** Sections and totals common to the company and the consolidated balance sheet. */
export interface BalanceSheetSections {
  currentAssets: ReportSection;
  nonCurrentAssets: ReportSection;
  totalAssets: Money;
  currentLiabilities: ReportSection;
  nonCurrentLiabilities: ReportSection;
  totalLiabilities: Money;
  equity: ReportSection;
}

/** The section key holding a category, or null (Revenue, Expense, `NonControllingInterest`). */
export function balanceSheetSectionOf(category: LineCategory): BalanceSheetSectionKey | null {
  for (const s of BALANCE_SHEET_SECTIONS) {
    if ((s.categories as readonly string[]).includes(category)) return s.key;
  }
  return null;
}

/**
 * A computed line of the equity section (`accountId` and `accountNumber` null, style Normal,
 * indent 1). Amounts are credit-positive; `comparative` null when the report has none.
 */
export function computedLine(description: string, current: Amount, comparative: Amount | null): LineDraft {
  return {
    accountId: null,
    accountNumber: null,
    description,
    current,
    comparative,
    style: 'Normal',
    indentLevel: 1,
  };
}

/**
 * Builds the five balance-sheet sections from line sources (company accounts or consolidated lines),
 * natural sign, ordered by account number. Sources whose category belongs to no section (Revenue,
 * Expense, `NonControllingInterest`) are ignored; sources zero at both dates are omitted unless
 * `keepWhenZero`. `equityExtraLines` (credit-positive computed lines such as "Current Year Earnings")
 * follow the equity accounts. `totalAssets` and `totalLiabilities` are the sums of the two
 * sections' subtotals.
 */
export function balanceSheetSections(input: {
  currency: string;
  hasComparative: boolean;
  sources: readonly LineSource[];
  equityExtraLines: readonly LineDraft[];
}): BalanceSheetSections {
  const { currency, hasComparative } = input;
  const grouped = new Map<BalanceSheetSectionKey, LineSource[]>();
  for (const s of input.sources) {
    const key = balanceSheetSectionOf(s.accountCategory);
    if (key === null) continue;
    const list = grouped.get(key) ?? [];
    list.push(s);
    grouped.set(key, list);
  }
  const section = (key: BalanceSheetSectionKey): ReportSection => {
    const def = BALANCE_SHEET_SECTIONS.find((s) => s.key === key)!;
    return sectionFromSources(def.title, grouped.get(key) ?? [], {
      currency,
      hasComparative,
      sign: NATURAL_SIGN,
      extraLines: key === 'equity' ? input.equityExtraLines : [],
    });
  };
  const currentAssets = section('currentAssets');
  const nonCurrentAssets = section('nonCurrentAssets');
  const currentLiabilities = section('currentLiabilities');
  const nonCurrentLiabilities = section('nonCurrentLiabilities');
  const equity = section('equity');
  return {
    currentAssets,
    nonCurrentAssets,
    totalAssets: money(
      moneyValue(currentAssets.subtotal).plus(moneyValue(nonCurrentAssets.subtotal)),
      currency,
    ),
    currentLiabilities,
    nonCurrentLiabilities,
    totalLiabilities: money(
      moneyValue(currentLiabilities.subtotal).plus(moneyValue(nonCurrentLiabilities.subtotal)),
      currency,
    ),
    equity,
  };
}

export interface BalanceSheetReport extends BalanceSheetSections {
  companyId: string;
  asOfDate: string;
  comparativeDate: string | null;
  currency: string;
  generatedAt: string;
  totalEquity: Money;
  totalLiabilitiesAndEquity: Money;
  isBalanced: boolean;
}

/** The figures of one balance-sheet date (the report date or the comparative date). */
export interface BalanceSheetDateFigures {
  /**
   * Per account, Σ debit and Σ credit of ALL ledger lines (closing-related entries included) with
   * `transactionDate ≤ date`. Only balance-sheet accounts (Asset, Liability, Equity) are used;
   * rows of Revenue and Expense accounts may be passed and are ignored.
   */
  balances: readonly AccountFigures[];
  /**
   * Σ credit − Σ debit over the lines of Revenue and Expense accounts with
   * `fiscalYearStart(date) ≤ transactionDate ≤ date`, where fiscalYearStart(date) is the first day of
   * the company's fiscal year containing `date`; closing-related entries included (so it is
   * zero right after the year-end close).
   */
  currentYearEarnings: Amount;
  /**
   * Σ credit − Σ debit over the lines of Revenue and Expense accounts with
   * `transactionDate < fiscalYearStart(date)`; closing-related entries included (zero when every
   * earlier year has been closed).
   */
  priorUnclosedEarnings: Amount;
}

export interface BalanceSheetInput extends CompanyReportHeader, BalanceSheetDateFigures {
  asOfDate: string;
  /** Null without comparative; then `comparative` must be null too. */
  comparativeDate: string | null;
  /** The same aggregates at `comparativeDate`, or null. */
  comparative: BalanceSheetDateFigures | null;
  accounts: readonly ReportAccount[];
  includeZeroBalances: boolean;
  /**
   * A balance sheet translated into another currency: the cumulative translation adjustment
   * (credit-positive) at the report date and at the comparative date (null without comparative),
   * shown as the last equity line. Absent for a balance sheet in the functional currency.
   */
  translationAdjustment?: { current: Amount; comparative: Amount | null };
}

/**
 * Builds the BalanceSheetReport.
 *
 * Account lines: natural sign, balances at `asOfDate` (and `comparativeDate`); accounts zero at both
 * dates are omitted unless `includeZeroBalances` (then every postable account of the section's
 * categories appears, as does any account with a figures row). The equity section ends with
 * "Current Year Earnings" (always) and "Unclosed Earnings of Prior Years" (only when it is non-zero
 * at the report date or at the comparative date).
 */
export function buildBalanceSheet(input: BalanceSheetInput): BalanceSheetReport {
  const { currency } = input;
  if ((input.comparativeDate === null) !== (input.comparative === null)) {
    throw new Error('comparativeDate and comparative figures must be given together');
  }
  const byId = indexAccounts(input.accounts);
  const current = netByAccount(input.balances, byId, currency);
  const comparative = input.comparative ? netByAccount(input.comparative.balances, byId, currency) : null;
  const hasComparative = comparative !== null;

  const sources: LineSource[] = [];
  for (const a of input.accounts) {
    if (balanceSheetSectionOf(a.accountCategory) === null) continue;
    const hasRow = current.has(a.id) || (comparative?.has(a.id) ?? false);
    sources.push(
      accountLineSource(
        a,
        current.get(a.id) ?? ZERO,
        comparative ? (comparative.get(a.id) ?? ZERO) : null,
        input.includeZeroBalances && (a.isPostable || hasRow),
      ),
    );
  }

  const cye = roundMoney(input.currentYearEarnings, currency);
  const cmpCye = input.comparative ? roundMoney(input.comparative.currentYearEarnings, currency) : null;
  const prior = roundMoney(input.priorUnclosedEarnings, currency);
  const cmpPrior = input.comparative ? roundMoney(input.comparative.priorUnclosedEarnings, currency) : null;
  const extra: LineDraft[] = [computedLine(CURRENT_YEAR_EARNINGS, cye, cmpCye)];
  if (!prior.isZero() || (cmpPrior !== null && !cmpPrior.isZero())) {
    extra.push(computedLine(UNCLOSED_PRIOR_EARNINGS, prior, cmpPrior));
  }
  const cta = input.translationAdjustment;
  if (cta) {
    extra.push(
      computedLine(
        TRANSLATION_ADJUSTMENT,
        roundMoney(cta.current, currency),
        input.comparative ? roundMoney(cta.comparative ?? ZERO, currency) : null,
      ),
    );
  }

  const sections = balanceSheetSections({ currency, hasComparative, sources, equityExtraLines: extra });
  const totalAssets = moneyValue(sections.totalAssets);
  const totalEquity = moneyValue(sections.equity.subtotal);
  const totalLiabilitiesAndEquity = moneyValue(sections.totalLiabilities).plus(totalEquity);

  return {
    companyId: input.companyId,
    asOfDate: input.asOfDate,
    comparativeDate: input.comparativeDate,
    currency,
    generatedAt: input.generatedAt,
    currentAssets: sections.currentAssets,
    nonCurrentAssets: sections.nonCurrentAssets,
    totalAssets: sections.totalAssets,
    currentLiabilities: sections.currentLiabilities,
    nonCurrentLiabilities: sections.nonCurrentLiabilities,
    totalLiabilities: sections.totalLiabilities,
    equity: sections.equity,
    totalEquity: money(totalEquity, currency),
    totalLiabilitiesAndEquity: money(totalLiabilitiesAndEquity, currency),
    isBalanced: totalAssets.equals(totalLiabilitiesAndEquity),
  };
}
