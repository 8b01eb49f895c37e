/** Company income statement and the section structure the consolidated one reuses. */
import type { AccountCategory } from '../accounts.ts';
import { type Money, money } from '../money.ts';
import {
  type AccountFigures,
  accountLineSource,
  type CompanyReportHeader,
  CREDIT_POSITIVE,
  indexAccounts,
  type LineSource,
  moneyValue,
  NATURAL_SIGN,
  netByAccount,
  type ReportAccount,
  type ReportSection,
  type SectionSign,
  sectionFromSources,
} from './common.ts';

/** The four sections of the income statement with their categories and signs. */
export const INCOME_STATEMENT_SECTIONS = [
  { key: 'revenue', title: 'Revenue', categories: ['OperatingRevenue'], sign: NATURAL_SIGN },
  { key: 'costOfSales', title: 'Cost of Sales', categories: ['CostOfGoodsSold'], sign: NATURAL_SIGN },
  {
    key: 'operatingExpenses',
    title: 'Operating Expenses',
    categories: ['OperatingExpense', 'DepreciationAmortization'],
    sign: NATURAL_SIGN,
  },
  {
    key: 'otherIncomeExpense',
    title: 'Other Income and Expenses',
    categories: ['OtherRevenue', 'InterestExpense', 'OtherExpense'],
    sign: CREDIT_POSITIVE,
  },
] as const satisfies readonly {
  key: string;
  title: string;
  categories: readonly AccountCategory[];
  sign: SectionSign;
}[];

export type IncomeStatementSectionKey = (typeof INCOME_STATEMENT_SECTIONS)[number]['key'];

/** Sections and results common to the company and the consolidated income statement. */
export interface IncomeStatementBody {
  revenue: ReportSection;
  costOfSales: ReportSection;
  grossProfit: Money;
  operatingExpenses: ReportSection;
  operatingIncome: Money;
  otherIncomeExpense: ReportSection;
  incomeBeforeTax: Money;
  taxExpense: Money;
  netIncome: Money;
}

/**
 * Builds the income-statement sections and results from line sources (company accounts or
 * consolidated lines) whose `net` (and `comparativeNet`) are the debit-positive activity of the
 * period. Balance-sheet sources are ignored. Lines zero in both periods are omitted unless
 * `keepWhenZero`.
 *
 * grossProfit = revenue − costOfSales; operatingIncome = grossProfit − operatingExpenses;
 * incomeBeforeTax = operatingIncome + otherIncomeExpense; taxExpense = Σ TaxExpense (debit − credit);
 * netIncome = incomeBeforeTax − taxExpense (= Σ Revenue and Expense, credit − debit).
 */
export function incomeStatementSections(input: {
  currency: string;
  hasComparative: boolean;
  sources: readonly LineSource[];
}): IncomeStatementBody {
  const { currency, hasComparative } = input;
  const section = (key: IncomeStatementSectionKey): ReportSection => {
    const def = INCOME_STATEMENT_SECTIONS.find((s) => s.key === key)!;
    const cats = def.categories as readonly string[];
    return sectionFromSources(
      def.title,
      input.sources.filter((s) => cats.includes(s.accountCategory)),
      { currency, hasComparative, sign: def.sign },
    );
  };
  const revenue = section('revenue');
  const costOfSales = section('costOfSales');
  const operatingExpenses = section('operatingExpenses');
  const otherIncomeExpense = section('otherIncomeExpense');
  // Tax is a Money field, not a section; sum with the same per-line rounding as the sections.
  const taxSection = sectionFromSources(
    'Tax',
    input.sources.filter((s) => s.accountCategory === 'TaxExpense'),
    { currency, hasComparative: false, sign: NATURAL_SIGN },
  );

  const grossProfit = moneyValue(revenue.subtotal).minus(moneyValue(costOfSales.subtotal));
  const operatingIncome = grossProfit.minus(moneyValue(operatingExpenses.subtotal));
  const incomeBeforeTax = operatingIncome.plus(moneyValue(otherIncomeExpense.subtotal));
  const taxExpense = moneyValue(taxSection.subtotal);
  const netIncome = incomeBeforeTax.minus(taxExpense);
  return {
    revenue,
    costOfSales,
    grossProfit: money(grossProfit, currency),
    operatingExpenses,
    operatingIncome: money(operatingIncome, currency),
    otherIncomeExpense,
    incomeBeforeTax: money(incomeBeforeTax, currency),
    taxExpense: money(taxExpense, currency),
    netIncome: money(netIncome, currency),
  };
}

export interface IncomeStatementReport extends IncomeStatementBody {
  companyId: string;
  periodStartDate: string;
  periodEndDate: string;
  comparativeStartDate: string | null;
  comparativeEndDate: string | null;
  currency: string;
  generatedAt: string;
}

export interface IncomeStatementInput extends CompanyReportHeader {
  periodStartDate: string;
  periodEndDate: string;
  /** Both null without comparative (then `comparativeActivity` must be null). */
  comparativeStartDate: string | null;
  comparativeEndDate: string | null;
  accounts: readonly ReportAccount[];
  /**
   * Per account, Σ debit and Σ credit of the ledger lines with
   * `periodStartDate ≤ transactionDate ≤ periodEndDate`, EXCLUDING closing-related entries
   * (`entryType` `Closing` and reversals of such entries). Only Revenue and Expense accounts are
   * used; other rows are ignored.
   */
  activity: readonly AccountFigures[];
  /** The same for `comparativeStartDate … comparativeEndDate`, or null. */
  comparativeActivity: readonly AccountFigures[] | null;
}

/** Builds the IncomeStatementReport. Accounts with zero activity in both periods are omitted. */
export function buildIncomeStatement(input: IncomeStatementInput): IncomeStatementReport {
  const { currency } = input;
  const hasDates = input.comparativeStartDate !== null && input.comparativeEndDate !== null;
  const noDates = input.comparativeStartDate === null && input.comparativeEndDate === null;
  if (!(hasDates || noDates) || hasDates !== (input.comparativeActivity !== null)) {
    throw new Error('comparative dates and comparative activity must be given together');
  }
  const byId = indexAccounts(input.accounts);
  const current = netByAccount(input.activity, byId, currency);
  const comparative = input.comparativeActivity
    ? netByAccount(input.comparativeActivity, byId, currency)
    : null;

  const sources = input.accounts
    .filter((a) => a.accountType === 'Revenue' || a.accountType === 'Expense')
    .map((a) =>
      accountLineSource(a, current.get(a.id) ?? '0', comparative ? (comparative.get(a.id) ?? '0') : null),
    );
  const body = incomeStatementSections({ currency, hasComparative: comparative !== null, sources });
  return {
    companyId: input.companyId,
    periodStartDate: input.periodStartDate,
    periodEndDate: input.periodEndDate,
    comparativeStartDate: input.comparativeStartDate,
    comparativeEndDate: input.comparativeEndDate,
    currency,
    generatedAt: input.generatedAt,
    ...body,
  };
}
