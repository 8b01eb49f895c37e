/**
 * The parts the company statements and the consolidated statements share: a statement line, a section
 * of lines, a cash-flow section and a row of the statement of changes in equity. A company statement's
 * line may name its account and carry comparative figures; a consolidated line does neither (its
 * fields are always null), which each side states by the schemas it passes.
 */
import { type TSchema } from 'typebox';
import { Money, Nullable, StringEnum, Type } from './schemas.ts';

/** A date in a report answer (a statement, a run, a rate it used): `YYYY-MM-DD`. */
export const Day = Type.String({ format: 'date', description: 'Date YYYY-MM-DD' });

export const LineStyle = StringEnum(['Normal', 'Subtotal', 'Total', 'Header'] as const);

/** A statement line; `f`: the schemas of the fields a company line fills and a consolidated one leaves null. */
export function statementLine<A extends TSchema, C extends TSchema, V extends TSchema, P extends TSchema>(f: {
  accountId: A;
  comparativeAmount: C;
  variance: V;
  variancePercentage: P;
}) {
  return Type.Object({
    accountId: f.accountId,
    accountNumber: Nullable(Type.String()),
    description: Type.String(),
    currentAmount: Money,
    comparativeAmount: f.comparativeAmount,
    variance: f.variance,
    variancePercentage: f.variancePercentage,
    style: LineStyle,
    indentLevel: Type.Integer({ minimum: 0 }),
  });
}

/** A titled section of statement lines with its subtotal. */
export function statementSection<L extends TSchema, S extends TSchema>(line: L, comparativeSubtotal: S) {
  return Type.Object({
    title: Type.String(),
    lineItems: Type.Array(line),
    subtotal: Money,
    comparativeSubtotal,
  });
}

/** A section of the cash-flow statement (operating, investing, financing). */
export function cashFlowSection<A extends TSchema>(accountId: A) {
  return Type.Object({
    title: Type.String(),
    lineItems: Type.Array(
      Type.Object({
        description: Type.String(),
        accountId,
        accountNumber: Nullable(Type.String()),
        amount: Money,
        style: LineStyle,
        indentLevel: Type.Integer({ minimum: 0 }),
      }),
    ),
    netCashFlow: Money,
  });
}

/** A row of the statement of changes in equity. */
export const EquityRow = Type.Object({
  movementType: StringEnum([
    'OpeningBalance',
    'NetIncome',
    'OtherComprehensiveIncome',
    'DividendsDeclared',
    'StockIssuance',
    'StockRepurchase',
    'Other',
    'ClosingBalance',
  ] as const),
  description: Type.String(),
  contributedCapital: Money,
  retainedEarnings: Money,
  treasuryStock: Money,
  accumulatedOCI: Money,
  nonControllingInterest: Money,
  total: Money,
});

/** The body of a statement of changes in equity: the opening row, the movements, the closing row. */
export const equityStatementRows = {
  openingBalances: EquityRow,
  movements: Type.Array(EquityRow),
  closingBalances: EquityRow,
};

/**
 * The body of a balance sheet, in its order: assets, liabilities and the equity section (`section`: the
 * section schema of the company or the consolidated statement). Totals of equity follow it.
 */
export function balanceSheetSections<S extends TSchema>(section: S) {
  return {
    currentAssets: section,
    nonCurrentAssets: section,
    totalAssets: Money,
    currentLiabilities: section,
    nonCurrentLiabilities: section,
    totalLiabilities: Money,
    equity: section,
  };
}

/** The body of an income statement, in its order, from revenue down to net income. */
export function incomeStatementSections<S extends TSchema>(section: S) {
  return {
    revenue: section,
    costOfSales: section,
    grossProfit: Money,
    operatingExpenses: section,
    operatingIncome: Money,
    otherIncomeExpense: section,
    incomeBeforeTax: Money,
    taxExpense: Money,
    netIncome: Money,
  };
}

/**
 * The body of a cash-flow statement (indirect method), in its order, from beginning cash to the check
 * that it reconciles (`section`: the cash-flow section of the company or the consolidated statement).
 */
export function cashFlowStatementSections<S extends TSchema>(section: S) {
  return {
    beginningCash: Money,
    operatingActivities: section,
    investingActivities: section,
    financingActivities: section,
    exchangeRateEffect: Money,
    netChangeInCash: Money,
    endingCash: Money,
    isReconciled: Type.Boolean(),
  };
}
