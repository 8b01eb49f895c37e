/**
 * Hand-computed consolidation examples (contract 3.12.4, 3.12.5). Group calendar: calendar year;
 * run {2026, 3}: asOfDate 2026-03-31, yearStartDate 2026-01-01; opening view as of 2025-12-31.
 * All amounts are debit-positive unless stated.
 */
import { describe, expect, it } from 'vitest';
import {
  buildConsolidatedBalanceSheet,
  buildConsolidatedCashFlowStatement,
  buildConsolidatedEquityStatement,
  buildConsolidatedIncomeStatement,
  type ConsolidationResult,
  type EliminationRuleInput,
  runConsolidation,
  type StatementContext,
  type TrialBalanceView,
} from '../../src/domain/consolidation/index.ts';
import { account, buildTestInput, entry, type StoredRate } from '../helpers/consolidation-input.ts';

const CHART = [
  account('1000', 'Cash', 'Asset', 'CurrentAsset', { isCashEquivalent: true }),
  account('1200', 'Receivables', 'Asset', 'CurrentAsset'),
  account('1300', 'Intercompany receivable', 'Asset', 'CurrentAsset'),
  account('1400', 'Inventory', 'Asset', 'CurrentAsset', { isNonMonetary: true }),
  account('1500', 'Investment in subsidiary', 'Asset', 'NonCurrentAsset'),
  account('2000', 'Payables', 'Liability', 'CurrentLiability'),
  account('2300', 'Intercompany payable', 'Liability', 'CurrentLiability'),
  account('3000', 'Share capital', 'Equity', 'ContributedCapital'),
  account('3200', 'Retained earnings', 'Equity', 'RetainedEarnings'),
  account('4000', 'Sales', 'Revenue', 'OperatingRevenue'),
  account('4100', 'Intercompany sales', 'Revenue', 'OperatingRevenue'),
  account('5000', 'Cost of goods sold', 'Expense', 'CostOfGoodsSold'),
  account('6000', 'Operating expenses', 'Expense', 'OperatingExpense'),
];

const P = '00000000-0000-4000-8000-000000000001';
const S = '00000000-0000-4000-8000-000000000002';

function rule(partial: Partial<EliminationRuleInput> & Pick<EliminationRuleInput, 'id' | 'eliminationType'>) {
  return {
    name: partial.id,
    priority: 10,
    createdAt: '2026-01-01T00:00:00.000Z',
    isActive: true,
    isAutomatic: true,
    triggerConditions: [],
    sourceAccounts: [],
    targetAccounts: [],
    debitAccount: { companyId: P, accountNumber: '9999' },
    creditAccount: { companyId: P, accountNumber: '9999' },
    ...partial,
  } satisfies EliminationRuleInput;
}

/** [accountNumber, aggregated, elimination, nci, consolidated] per line, in TB order. */
function rows(tb: TrialBalanceView): string[][] {
  return tb.lineItems.map((l) => [
    l.accountNumber,
    l.aggregatedBalance.value,
    l.eliminationAmount.value,
    l.nciAmount.value,
    l.consolidatedBalance.value,
  ]);
}

function ctx(result: ConsolidationResult): StatementContext {
  return {
    runId: 'run-1',
    groupId: 'group-1',
    groupName: 'Group',
    periodRef: { year: 2026, period: 3 },
    asOfDate: '2026-03-31',
    yearStartDate: '2026-01-01',
    currency: 'USD',
    generatedAt: '2026-04-01T00:00:00.000Z',
    retainedEarningsLine: result.retainedEarningsLine,
  };
}

function statements(result: ConsolidationResult) {
  const c = ctx(result);
  const closing = result.closingTrialBalance!;
  const opening = result.openingTrialBalance!;
  return {
    bs: buildConsolidatedBalanceSheet(c, closing),
    is: buildConsolidatedIncomeStatement(c, closing),
    cf: buildConsolidatedCashFlowStatement(c, opening, closing),
    eq: buildConsolidatedEquityStatement(c, opening, closing),
  };
}

function sectionLines(section: {
  lineItems: { accountNumber: string | null; currentAmount: { value: string } }[];
}) {
  return section.lineItems.map((l) => [l.accountNumber, l.currentAmount.value]);
}

function cashLines(section: {
  lineItems: { description: string; amount: { value: string }; style: string }[];
}) {
  return section.lineItems.map((l) => [l.description, l.amount.value, l.style]);
}

function eqRow(r: {
  contributedCapital: { value: string };
  retainedEarnings: { value: string };
  treasuryStock: { value: string };
  accumulatedOCI: { value: string };
  nonControllingInterest: { value: string };
  total: { value: string };
}) {
  return [
    r.contributedCapital.value,
    r.retainedEarnings.value,
    r.treasuryStock.value,
    r.accumulatedOCI.value,
    r.nonControllingInterest.value,
    r.total.value,
  ];
}

// -------------------------------------------------------------------------------------------------
// (a) 100% domestic subsidiary with intercompany receivable/payable and sales eliminations
// -------------------------------------------------------------------------------------------------
describe('(a) 100% domestic subsidiary, receivable/payable, sales and investment eliminations', () => {
  // Parent P (USD, RE account 3200):
  //   2025-01-01 capital 10000; 2025-03-01 invests 5000 in S; 2025-06 sales 3000 cash, expenses 1000 cash
  //   2026-02-10 sells to S on credit 800 (Dr 1300 / Cr 4100), cost 500 paid in cash; 2026-03-05 cash sales 2000
  // Sub S (USD, Full 100%):
  //   2025-03-01 capital 5000; 2025-07 sales 1500 cash, expenses 500 cash
  //   2026-02-10 buys from P 800 on credit (Dr 6000 / Cr 2300); 2026-03-10 credit sales 1200
  const parentLines = [
    ...entry('2025-01-01', ['1000', '10000'], ['3000', '-10000']),
    ...entry('2025-03-01', ['1500', '5000'], ['1000', '-5000']),
    ...entry('2025-06-15', ['1000', '3000'], ['4000', '-3000']),
    ...entry('2025-06-20', ['6000', '1000'], ['1000', '-1000']),
    ...entry('2026-02-10', ['1300', '800'], ['4100', '-800'], ['5000', '500'], ['1000', '-500']),
    ...entry('2026-03-05', ['1000', '2000'], ['4000', '-2000']),
  ];
  const subLines = [
    ...entry('2025-03-01', ['1000', '5000'], ['3000', '-5000']),
    ...entry('2025-07-01', ['1000', '1500'], ['4000', '-1500']),
    ...entry('2025-07-02', ['6000', '500'], ['1000', '-500']),
    ...entry('2026-02-10', ['6000', '800'], ['2300', '-800']),
    ...entry('2026-03-10', ['1200', '1200'], ['4000', '-1200']),
  ];
  const input = buildTestInput({
    reportingCurrency: 'USD',
    asOfDate: '2026-03-31',
    periodRef: { year: 2026, period: 3 },
    companies: [
      {
        companyId: P,
        companyName: 'Parent Inc',
        functionalCurrency: 'USD',
        retainedEarningsAccountNumber: '3200',
        accounts: CHART,
        lines: parentLines,
      },
      { companyId: S, companyName: 'Sub LLC', functionalCurrency: 'USD', accounts: CHART, lines: subLines },
    ],
    intercompanyTransactions: [
      {
        id: 'tx-sale',
        fromCompanyId: P,
        toCompanyId: S,
        transactionType: 'Sale',
        transactionDate: '2026-02-10',
        amount: '800',
        currency: 'USD',
        matchingStatus: 'Matched',
      },
    ],
    rules: [
      rule({
        id: 'r1-recpay',
        eliminationType: 'IntercompanyReceivablesPayables',
        priority: 10,
        sourceAccounts: [{ accountNumber: '1300', companyId: null }],
        targetAccounts: [{ accountNumber: '2300', companyId: null }],
        debitAccount: { companyId: S, accountNumber: '2300' },
        creditAccount: { companyId: P, accountNumber: '1300' },
      }),
      rule({
        id: 'r2-sales',
        eliminationType: 'IntercompanySales',
        priority: 20,
        sourceAccounts: [{ accountNumber: '4100', companyId: P }],
        targetAccounts: [{ accountNumber: '6000', companyId: S }],
        debitAccount: { companyId: P, accountNumber: '4100' },
        creditAccount: { companyId: S, accountNumber: '6000' },
      }),
      rule({
        id: 'r3-invest',
        eliminationType: 'IntercompanyInvestment',
        priority: 30,
        sourceAccounts: [{ accountNumber: '1500', companyId: P }],
        targetAccounts: [{ accountNumber: '3000', companyId: S }],
        debitAccount: { companyId: S, accountNumber: '3000' },
        creditAccount: { companyId: P, accountNumber: '1500' },
      }),
    ],
  });
  const result = runConsolidation(input);

  it('completes every step', () => {
    expect(result.status).toBe('Completed');
    expect(result.steps.map((s) => [s.stepType, s.status])).toEqual([
      ['Validate', 'Completed'],
      ['Translate', 'Completed'],
      ['Aggregate', 'Completed'],
      ['MatchIC', 'Completed'],
      ['Eliminate', 'Completed'],
      ['NCI', 'Completed'],
      ['GenerateTB', 'Completed'],
    ]);
    expect(result.validationResult).toEqual({ isValid: true, issues: [] });
    expect(result.exchangeRatesUsed).toEqual([]);
  });

  it('eliminates receivable/payable (min(|S|,|T|)), the matched sale and the investment', () => {
    // r1: S = P's 1300 = +800, T = S's 2300 = −800 → A = min(800, 800) = 800
    // r2: the Sale of 800 (weights 1 and 1) is assigned → A = 800
    // r3: S = P's 1500 = +5000, T = S's 3000 = −5000 → A = 5000
    expect(
      result.eliminations.map((e) => [
        e.eliminationRuleId,
        e.status,
        e.sourceBalance.value,
        e.targetBalance.value,
        e.amount?.value,
      ]),
    ).toEqual([
      ['r1-recpay', 'Applied', '800.00', '-800.00', '800.00'],
      ['r2-sales', 'Applied', '-800.00', '800.00', '800.00'],
      ['r3-invest', 'Applied', '5000.00', '-5000.00', '5000.00'],
    ]);
    expect(result.eliminations[1]!.intercompanyTransactionIds).toEqual(['tx-sale']);
    expect(result.eliminatedTransactionIds).toEqual(['tx-sale']);
  });

  it('produces the closing trial balance', () => {
    // P: 1000 = 10000 − 5000 + 3000 − 1000 − 500 + 2000 = 8500; prior-year results −3000 + 1000 = −2000 → 3200
    // S: 1000 = 5000 + 1500 − 500 = 6000; prior-year results −1500 + 500 = −1000 → 3200
    const tb = result.closingTrialBalance!;
    expect(rows(tb)).toEqual([
      ['1000', '14500.00', '0.00', '0.00', '14500.00'],
      ['1200', '1200.00', '0.00', '0.00', '1200.00'],
      ['1300', '800.00', '-800.00', '0.00', '0.00'],
      ['1500', '5000.00', '-5000.00', '0.00', '0.00'],
      ['2300', '-800.00', '800.00', '0.00', '0.00'],
      ['3000', '-15000.00', '5000.00', '0.00', '-10000.00'],
      ['3200', '-3000.00', '0.00', '0.00', '-3000.00'],
      ['4000', '-3200.00', '0.00', '0.00', '-3200.00'],
      ['4100', '-800.00', '800.00', '0.00', '0.00'],
      ['5000', '500.00', '0.00', '0.00', '500.00'],
      ['6000', '800.00', '-800.00', '0.00', '0.00'],
    ]);
    // debits 14500 + 1200 + 500 = 16200 = credits 10000 + 3000 + 3200
    expect(tb.totalDebits.value).toBe('16200.00');
    expect(tb.totalCredits.value).toBe('16200.00');
    expect(tb.isBalanced).toBe(true);
    expect(tb.totalEliminations.value).toBe('6600.00'); // 800 + 800 + 5000
    expect(tb.netIncome.value).toBe('2700.00'); // 3200 − 500
    expect(tb.netIncomeAttributableToParent.value).toBe('2700.00');
    expect(tb.totalNCI.value).toBe('0.00');
    expect(tb.lineItems[0]).toMatchObject({
      accountName: 'Cash',
      accountType: 'Asset',
      accountCategory: 'CurrentAsset',
      lineType: 'Account',
      companyId: null,
      isCashEquivalent: true,
      debitBalance: { value: '14500.00', currency: 'USD' },
      creditBalance: { value: '0.00', currency: 'USD' },
    });
  });

  it('produces the opening trial balance with revenue and expense folded into 3200', () => {
    // 2025: P cash 7000, 1500 5000, 3000 −10000, result −3000 + 1000; S cash 6000, 3000 −5000, result −1500 + 500
    // r1, r2: nothing to eliminate (ZERO_AMOUNT); r3 eliminates 5000. Results fold into 3200: −4500 + 1500 = −3000
    const tb = result.openingTrialBalance!;
    expect(tb.view).toBe('opening');
    expect(tb.asOfDate).toBe('2025-12-31');
    expect(rows(tb)).toEqual([
      ['1000', '13000.00', '0.00', '0.00', '13000.00'],
      ['1500', '5000.00', '-5000.00', '0.00', '0.00'],
      ['3000', '-15000.00', '5000.00', '0.00', '-10000.00'],
      ['3200', '-3000.00', '0.00', '0.00', '-3000.00'],
    ]);
    expect(tb.netIncome.value).toBe('0.00');
    expect(tb.isBalanced).toBe(true);
  });

  it('builds the four statements', () => {
    const { bs, is, cf, eq } = statements(result);
    expect(sectionLines(bs.currentAssets)).toEqual([
      ['1000', '14500.00'],
      ['1200', '1200.00'],
    ]);
    expect(bs.totalAssets.value).toBe('15700.00');
    expect(bs.totalLiabilities.value).toBe('0.00');
    expect(sectionLines(bs.equity)).toEqual([
      ['3000', '10000.00'],
      ['3200', '3000.00'],
      [null, '2700.00'],
    ]);
    expect(bs.equity.lineItems[2]!.description).toBe('Current Year Earnings');
    expect(bs.totalEquity.value).toBe('15700.00');
    expect(bs.totalLiabilitiesAndEquity.value).toBe('15700.00');
    expect(bs.isBalanced).toBe(true);

    expect(sectionLines(is.revenue)).toEqual([['4000', '3200.00']]);
    expect(is.grossProfit.value).toBe('2700.00'); // 3200 − 500
    expect(is.operatingExpenses.subtotal.value).toBe('0.00');
    expect(is.netIncome.value).toBe('2700.00');
    expect(is.periodStartDate).toBe('2026-01-01');

    // cash 13000 → 14500; receivables +1200 is an outflow; net income 2700
    expect(cf.beginningCash.value).toBe('13000.00');
    expect(cashLines(cf.operatingActivities)).toEqual([
      ['Net Income', '2700.00', 'Normal'],
      ['Changes in working capital', '0.00', 'Header'],
      ['Receivables', '-1200.00', 'Normal'],
      ['Net Cash from Operating Activities', '1500.00', 'Total'],
    ]);
    expect(cf.netChangeInCash.value).toBe('1500.00');
    expect(cf.endingCash.value).toBe('14500.00');
    expect(cf.isReconciled).toBe(true);

    expect(eqRow(eq.openingBalances)).toEqual(['10000.00', '3000.00', '0.00', '0.00', '0.00', '13000.00']);
    expect(eq.movements.map((m) => [m.movementType, ...eqRow(m)])).toEqual([
      ['NetIncome', '0.00', '2700.00', '0.00', '0.00', '0.00', '2700.00'],
      ['OtherComprehensiveIncome', '0.00', '0.00', '0.00', '0.00', '0.00', '0.00'],
      ['DividendsDeclared', '0.00', '0.00', '0.00', '0.00', '0.00', '0.00'],
      ['StockIssuance', '0.00', '0.00', '0.00', '0.00', '0.00', '0.00'],
      ['StockRepurchase', '0.00', '0.00', '0.00', '0.00', '0.00', '0.00'],
      ['Other', '0.00', '0.00', '0.00', '0.00', '0.00', '0.00'],
    ]);
    expect(eqRow(eq.closingBalances)).toEqual(['10000.00', '5700.00', '0.00', '0.00', '0.00', '15700.00']);
  });

  it('is deterministic', () => {
    expect(runConsolidation(input)).toEqual(result);
  });
});

// -------------------------------------------------------------------------------------------------
// (b) 80% EUR subsidiary of a USD group: translation, CTA and NCI
// -------------------------------------------------------------------------------------------------
const F = '00000000-0000-4000-8000-000000000003';
const EUR_RATES: StoredRate[] = [
  {
    id: 'r-spot-0115',
    fromCurrency: 'EUR',
    toCurrency: 'USD',
    rateType: 'Spot',
    effectiveDate: '2025-01-15',
    rate: '1.10',
  },
  {
    id: 'r-avg-2506',
    fromCurrency: 'EUR',
    toCurrency: 'USD',
    rateType: 'Average',
    effectiveDate: '2025-06-30',
    rate: '1.08',
  },
  {
    id: 'r-ye-2512',
    fromCurrency: 'EUR',
    toCurrency: 'USD',
    rateType: 'YearEnd',
    effectiveDate: '2025-12-31',
    rate: '1.05',
  },
  {
    id: 'r-avg-2601',
    fromCurrency: 'EUR',
    toCurrency: 'USD',
    rateType: 'Average',
    effectiveDate: '2026-01-31',
    rate: '1.12',
  },
  {
    id: 'r-spot-0210',
    fromCurrency: 'EUR',
    toCurrency: 'USD',
    rateType: 'Spot',
    effectiveDate: '2026-02-10',
    rate: '1.13',
  },
  {
    id: 'r-spot-0220',
    fromCurrency: 'EUR',
    toCurrency: 'USD',
    rateType: 'Spot',
    effectiveDate: '2026-02-20',
    rate: '1.15',
  },
  {
    id: 'r-spot-0301',
    fromCurrency: 'EUR',
    toCurrency: 'USD',
    rateType: 'Spot',
    effectiveDate: '2026-03-01',
    rate: '1.16',
  },
  {
    id: 'r-ye-2603',
    fromCurrency: 'EUR',
    toCurrency: 'USD',
    rateType: 'YearEnd',
    effectiveDate: '2026-03-31',
    rate: '1.20',
  },
];

function euroGroup(rates: StoredRate[] = EUR_RATES) {
  // Parent P (USD): 2025-01-10 capital 2000 cash; 2026-03-15 cash sales 100.
  // F (EUR, Full 80%):
  //   2025-01-15 capital 1000 (HR = Spot 1.10)
  //   2025-06-10 cash sales 400 (prior-year result; AR(June 2025) = Average 1.08)
  //   2026-01-20 cash sales 500 (AR(Jan 2026) = Average 1.12)
  //   2026-02-15 expense 200.15 on credit (AR(Feb 2026) = mean of Spot 1.13 and 1.15 = 1.14)
  //   2026-03-01 inventory 300 for cash (non-monetary: HR(2026-03-01) = Spot 1.16)
  return buildTestInput({
    reportingCurrency: 'USD',
    asOfDate: '2026-03-31',
    periodRef: { year: 2026, period: 3 },
    companies: [
      {
        companyId: P,
        companyName: 'Parent Inc',
        functionalCurrency: 'USD',
        retainedEarningsAccountNumber: '3200',
        accounts: CHART,
        lines: [
          ...entry('2025-01-10', ['1000', '2000'], ['3000', '-2000']),
          ...entry('2026-03-15', ['1000', '100'], ['4000', '-100']),
        ],
      },
      {
        companyId: F,
        companyName: 'Filiale GmbH',
        functionalCurrency: 'EUR',
        ownershipPercentage: '80.00',
        accounts: CHART,
        lines: [
          ...entry('2025-01-15', ['1000', '1000'], ['3000', '-1000']),
          ...entry('2025-06-10', ['1000', '400'], ['4000', '-400']),
          ...entry('2026-01-20', ['1000', '500'], ['4000', '-500']),
          ...entry('2026-02-15', ['6000', '200.15'], ['2000', '-200.15']),
          ...entry('2026-03-01', ['1400', '300'], ['1000', '-300']),
        ],
      },
    ],
    rates,
  });
}

describe('(b) 80% EUR subsidiary: closing ≠ average ≠ historical rates, CTA and NCI', () => {
  const result = runConsolidation(euroGroup());

  it('translates, aggregates and moves NCI', () => {
    expect(result.status).toBe('Completed');
    // F translated (closing): cash 1600 × 1.20 = 1920.00; inventory 300 × 1.16 = 348.00;
    // payables −200.15 × 1.20 = −240.18; capital −1000 × 1.10 = −1100.00; sales −500 × 1.12 = −560.00;
    // expense 200.15 × 1.14 = 228.171 → 228.17; prior-year result −400 × 1.08 = −432.00 (→ 3200)
    // Σ = 163.99 → CTA(F) = −163.99
    // NCI π = 0.2: capital −1100 → −220.00; prior-year −432 → −86.40; CTA −163.99 → −32.798 → −32.80
    const tb = result.closingTrialBalance!;
    expect(rows(tb)).toEqual([
      ['1000', '4020.00', '0.00', '0.00', '4020.00'], // 2100 + 1920
      ['1400', '348.00', '0.00', '0.00', '348.00'],
      ['2000', '-240.18', '0.00', '0.00', '-240.18'],
      ['3000', '-3100.00', '0.00', '220.00', '-2880.00'], // −2000 − 1100
      ['3200', '-432.00', '0.00', '86.40', '-345.60'],
      ['4000', '-660.00', '0.00', '0.00', '-660.00'], // −100 − 560
      ['6000', '228.17', '0.00', '0.00', '228.17'],
      ['CTA', '-163.99', '0.00', '32.80', '-131.19'],
      ['NCI', '0.00', '0.00', '-339.20', '-339.20'], // −(220 + 86.40 + 32.80)
    ]);
    expect(tb.lineItems.at(-2)).toMatchObject({
      accountName: 'Cumulative translation adjustment',
      accountType: 'Equity',
      accountCategory: 'OtherComprehensiveIncome',
      lineType: 'CurrencyTranslationAdjustment',
      cashFlowCategory: null,
    });
    expect(tb.lineItems.at(-1)).toMatchObject({
      accountName: 'Non-controlling interest',
      accountCategory: 'NonControllingInterest',
      lineType: 'NonControllingInterest',
    });
    // debits 4020 + 348 + 228.17 = 4596.17 = credits 240.18 + 2880 + 345.60 + 660 + 131.19 + 339.20
    expect(tb.totalDebits.value).toBe('4596.17');
    expect(tb.totalCredits.value).toBe('4596.17');
    expect(tb.netIncome.value).toBe('431.83'); // 660 − 228.17
    // NciDetail: netIncome = 560 − 228.17 = 331.83; share = round(66.366) = 66.37
    // netAssets = −(−1100 − 432 − 163.99) + 331.83 = 2027.82 = 1920 + 348 − 240.18
    expect(tb.nonControllingInterests).toEqual([
      {
        companyId: F,
        companyName: 'Filiale GmbH',
        nonControllingInterestPercentage: '20.00',
        netAssets: { value: '2027.82', currency: 'USD' },
        netIncome: { value: '331.83', currency: 'USD' },
        nciShareOfEquity: { value: '339.20', currency: 'USD' },
        nciShareOfNetIncome: { value: '66.37', currency: 'USD' },
      },
    ]);
    expect(tb.netIncomeAttributableToNCI.value).toBe('66.37');
    expect(tb.netIncomeAttributableToParent.value).toBe('365.46'); // 431.83 − 66.37
    expect(tb.totalNCI.value).toBe('405.57'); // 339.20 + 66.37
    expect(result.totals).toEqual({
      totalDebits: tb.totalDebits,
      totalCredits: tb.totalCredits,
      totalEliminations: { value: '0.00', currency: 'USD' },
      totalNCI: tb.totalNCI,
      netIncome: tb.netIncome,
      netIncomeAttributableToParent: tb.netIncomeAttributableToParent,
      netIncomeAttributableToNCI: tb.netIncomeAttributableToNCI,
    });
  });

  it('computes the opening view at the 2025 rates and moves the NCI share of 2025 income', () => {
    // F at 2025-12-31: cash 1400 × 1.05 = 1470.00; capital −1100.00; 2025 sales −400 × 1.08 = −432.00
    // Σ = −62 → CTA(F) = +62.00. NCI: capital −220.00, CTA round(12.40) = 12.40 → NCI line −207.60
    // Fold: 4000 (−432) into 3200; move nciShareOfNetIncome round(0.2 × 432) = 86.40 from 3200 to NCI.
    const tb = result.openingTrialBalance!;
    expect(rows(tb)).toEqual([
      ['1000', '3470.00', '0.00', '0.00', '3470.00'],
      ['3000', '-3100.00', '0.00', '220.00', '-2880.00'],
      ['3200', '-432.00', '0.00', '86.40', '-345.60'],
      ['CTA', '62.00', '0.00', '-12.40', '49.60'],
      ['NCI', '0.00', '0.00', '-294.00', '-294.00'],
    ]);
    expect(tb.netIncome.value).toBe('0.00');
    expect(tb.totalNCI.value).toBe('294.00');
    expect(tb.nonControllingInterests[0]).toMatchObject({
      netAssets: { value: '1470.00' },
      netIncome: { value: '0.00' },
      nciShareOfEquity: { value: '294.00' },
      nciShareOfNetIncome: { value: '0.00' },
    });
  });

  it('records every rate used, deduplicated and ordered by pair, type and date', () => {
    expect(
      result.exchangeRatesUsed.map((u) => [
        u.rateType,
        u.effectiveDate,
        u.derivation,
        u.effectiveRate,
        u.purpose,
        u.legIds,
      ]),
    ).toEqual([
      ['Spot', '2025-01-15', 'Direct', '1.1', 'Historical', ['r-spot-0115']],
      ['Spot', '2026-02-10', 'ComputedAverage', '1.14', 'Average', ['r-spot-0210', 'r-spot-0220']],
      ['Spot', '2026-03-01', 'Direct', '1.16', 'Historical', ['r-spot-0301']],
      ['Average', '2025-06-30', 'Direct', '1.08', 'Average', ['r-avg-2506']],
      ['Average', '2026-01-31', 'Direct', '1.12', 'Average', ['r-avg-2601']],
      ['YearEnd', '2025-12-31', 'Direct', '1.05', 'Closing', ['r-ye-2512']],
      ['YearEnd', '2026-03-31', 'Direct', '1.2', 'Closing', ['r-ye-2603']],
    ]);
  });

  it('builds the four statements', () => {
    const { bs, is, cf, eq } = statements(result);
    expect(bs.totalAssets.value).toBe('4368.00'); // 4020 + 348
    expect(bs.totalLiabilities.value).toBe('240.18');
    expect(sectionLines(bs.equity)).toEqual([
      ['3000', '2880.00'],
      ['3200', '345.60'],
      ['CTA', '131.19'],
      [null, '365.46'],
    ]);
    expect(bs.equity.subtotal.value).toBe('3722.25');
    expect(bs.nonControllingInterest.value).toBe('405.57');
    expect(bs.totalEquity.value).toBe('4127.82');
    expect(bs.totalLiabilitiesAndEquity.value).toBe('4368.00');
    expect(bs.isBalanced).toBe(true);

    expect(is.revenue.subtotal.value).toBe('660.00');
    expect(is.operatingExpenses.subtotal.value).toBe('228.17');
    expect(is.netIncome.value).toBe('431.83');
    expect(is.netIncomeAttributableToParent.value).toBe('365.46');
    expect(is.netIncomeAttributableToNCI.value).toBe('66.37');

    // Cash flows are F's movements at the average rate of their month; what is left of each line's
    // change is a translation difference, not a cash flow:
    //   inventory +300 on 2026-03-01 × AR(Mar) 1.16 = 348.00 (its change, at the historical rate, is the same);
    //   payables −200.15 on 2026-02-15 × AR(Feb) 1.14 = −228.17; its change −240.18 less a translation
    //   difference of −12.01 (= −200.15 × (1.20 − 1.14));
    //   NCI −294.00 → −339.20: the change −45.20 is the NCI's share of the CTA change (−12.40 → +32.80
    //   credit), OCI — no financing flow.
    // Operating: 431.83 − 348.00 + 228.17 = 312.00 (P's sales 100 + F's 500 × 1.12 − 300 × 1.16).
    // Effect of rates on cash: F's opening cash 1400 × (1.20 − 1.05) = 210.00, + January 500 × (1.20 − 1.12)
    // = 40.00, − March 300 × (1.20 − 1.16) = −12.00 → 238.00; 312.00 + 238.00 = 550.00 = 4020 − 3470.
    expect(cashLines(cf.operatingActivities)).toEqual([
      ['Net Income', '431.83', 'Normal'],
      ['Changes in working capital', '0.00', 'Header'],
      ['Inventory', '-348.00', 'Normal'],
      ['Payables', '228.17', 'Normal'],
      ['Net Cash from Operating Activities', '312.00', 'Total'],
    ]);
    expect(cashLines(cf.financingActivities)).toEqual([
      ['Net Cash from Financing Activities', '0.00', 'Total'],
    ]);
    expect(cf.exchangeRateEffect.value).toBe('238.00');
    expect(cf.beginningCash.value).toBe('3470.00');
    expect(cf.netChangeInCash.value).toBe('550.00');
    expect(cf.endingCash.value).toBe('4020.00');
    expect(cf.isReconciled).toBe(true);

    // opening: capital 2880, RE 345.60, OCI −49.60, NCI 294 → 3470
    expect(eqRow(eq.openingBalances)).toEqual(['2880.00', '345.60', '0.00', '-49.60', '294.00', '3470.00']);
    expect(eq.movements.map((m) => [m.movementType, ...eqRow(m)])).toEqual([
      ['NetIncome', '0.00', '365.46', '0.00', '0.00', '66.37', '431.83'],
      // the NCI's share of the CTA change (45.20) is its other comprehensive income
      ['OtherComprehensiveIncome', '0.00', '0.00', '0.00', '180.79', '45.20', '225.99'],
      ['DividendsDeclared', '0.00', '0.00', '0.00', '0.00', '0.00', '0.00'],
      ['StockIssuance', '0.00', '0.00', '0.00', '0.00', '0.00', '0.00'],
      ['StockRepurchase', '0.00', '0.00', '0.00', '0.00', '0.00', '0.00'],
      ['Other', '0.00', '0.00', '0.00', '0.00', '0.00', '0.00'],
    ]);
    // closing: RE 345.60 + 365.46 = 711.06; NCI 339.20 + 66.37 = 405.57; total = totalEquity
    expect(eqRow(eq.closingBalances)).toEqual(['2880.00', '711.06', '0.00', '131.19', '405.57', '4127.82']);
  });

  it('falls back to the closing rate of the period with AVERAGE_RATE_FALLBACK', () => {
    // Without the January average, AR(Jan 2026) = closing rate of January = YearEnd 2025-12-31 1.05:
    // sales −500 × 1.05 = −525.00 instead of −560.00.
    const r = runConsolidation(euroGroup(EUR_RATES.filter((x) => x.id !== 'r-avg-2601')));
    expect(r.status).toBe('Completed');
    expect(r.validationResult!.isValid).toBe(true);
    expect(r.validationResult!.issues).toEqual([
      expect.objectContaining({
        severity: 'Warning',
        code: 'AVERAGE_RATE_FALLBACK',
        entityReference: 'EUR/USD Average 2026-01-01..2026-01-31',
      }),
    ]);
    expect(
      r.closingTrialBalance!.lineItems.find((l) => l.accountNumber === '4000')!.aggregatedBalance.value,
    ).toBe('-625.00');
  });

  it('uses the only stored rate for every look-up when it is all there is', () => {
    // Only Spot 2025-01-15 (1.10): CR, HR and the fallback of every average resolve to it (all on or
    // before their dates); three periods fall back (June 2025, January and February 2026).
    const r = runConsolidation(euroGroup(EUR_RATES.filter((x) => x.id === 'r-spot-0115')));
    expect(r.status).toBe('Completed');
    expect(r.validationResult!.issues.map((i) => i.entityReference)).toEqual([
      'EUR/USD Average 2026-01-01..2026-01-31',
      'EUR/USD Average 2026-02-01..2026-02-28',
      'EUR/USD Average 2025-06-01..2025-06-30',
    ]);
    // with one rate there is no translation difference in F: CTA(F) = 0 → no CTA line
    expect(r.closingTrialBalance!.lineItems.some((l) => l.accountNumber === 'CTA')).toBe(false);
  });

  it('fails with MISSING_EXCHANGE_RATE when no rate exists', () => {
    const none = runConsolidation(euroGroup([]));
    expect(none.status).toBe('Failed');
    expect(none.steps.map((s) => s.status)).toEqual([
      'Completed',
      'Failed',
      'Skipped',
      'Skipped',
      'Skipped',
      'Skipped',
      'Skipped',
    ]);
    expect(none.steps[1]!.errorMessage).toContain('EUR/USD YearEnd|Spot on or before 2026-03-31');
    expect(none.errorMessage).toBe(none.steps[1]!.errorMessage);
    expect(none.validationResult!.isValid).toBe(false);
    const refs = none
      .validationResult!.issues.filter((i) => i.code === 'MISSING_EXCHANGE_RATE')
      .map((i) => i.entityReference);
    expect(refs).toEqual([
      'EUR/USD YearEnd|Spot on or before 2026-03-31',
      'EUR/USD Historical|Spot|YearEnd on or before 2026-03-01',
      'EUR/USD Historical|Spot|YearEnd on or before 2025-01-15',
      'EUR/USD YearEnd|Spot on or before 2026-01-31',
      'EUR/USD YearEnd|Spot on or before 2026-02-28',
      'EUR/USD YearEnd|Spot on or before 2025-06-30',
    ]);
    expect(none.closingTrialBalance).toBeNull();
    expect(none.exchangeRatesUsed).toEqual([]);
  });

  it('fails in GenerateTB when only the opening view misses a rate', () => {
    // Drop the 2025 rates the opening view needs except HR(2025-01-15): CR(2025-12-31) then finds
    // Spot 2025-01-15, so remove that too and give the closing view its own historical rate.
    const rates: StoredRate[] = [
      ...EUR_RATES.filter((x) => x.effectiveDate >= '2026-01-01'),
      {
        id: 'h',
        fromCurrency: 'EUR',
        toCurrency: 'USD',
        rateType: 'Historical',
        effectiveDate: '2025-01-15',
        rate: '1.10',
      },
      {
        id: 'a',
        fromCurrency: 'EUR',
        toCurrency: 'USD',
        rateType: 'Average',
        effectiveDate: '2025-06-30',
        rate: '1.08',
      },
    ];
    const r = runConsolidation(euroGroup(rates));
    expect(r.status).toBe('Failed');
    expect(r.steps.map((s) => s.status)).toEqual([
      'Completed',
      'Completed',
      'Completed',
      'Completed',
      'Completed',
      'Completed',
      'Failed',
    ]);
    expect(r.errorMessage).toBe(
      'Missing exchange rate (opening view): EUR/USD YearEnd|Spot on or before 2025-12-31',
    );
  });
});

// -------------------------------------------------------------------------------------------------
// (c) proportionate member
// -------------------------------------------------------------------------------------------------
describe('(c) 50% proportionate member with a rounding residual and a matched management fee', () => {
  const J = '00000000-0000-4000-8000-000000000004';
  // P (USD, no retained-earnings account): 2025-01-01 capital 1000; 2026-03-10 sales 50 cash;
  //   2026-03-01 management fee from J 20 (Dr cash / Cr 4100)
  // J (USD, Proportionate 50%): 2025-02-01 capital 200.02; 2026-02-01 receivable 100.01 for cash;
  //   2026-03-01 sales 60 cash; fee to P 20 cash
  const result = runConsolidation(
    buildTestInput({
      reportingCurrency: 'USD',
      asOfDate: '2026-03-31',
      periodRef: { year: 2026, period: 3 },
      companies: [
        {
          companyId: P,
          companyName: 'Parent Inc',
          functionalCurrency: 'USD',
          accounts: CHART,
          lines: [
            ...entry('2025-01-01', ['1000', '1000'], ['3000', '-1000']),
            ...entry('2026-03-01', ['1000', '20'], ['4100', '-20']),
            ...entry('2026-03-10', ['1000', '50'], ['4000', '-50']),
          ],
        },
        {
          companyId: J,
          companyName: 'Joint Venture',
          functionalCurrency: 'USD',
          consolidationMethod: 'ProportionateConsolidation',
          ownershipPercentage: '50.00',
          accounts: CHART,
          lines: [
            ...entry('2025-02-01', ['1000', '200.02'], ['3000', '-200.02']),
            ...entry('2026-02-01', ['1200', '100.01'], ['1000', '-100.01']),
            ...entry('2026-03-01', ['1000', '60'], ['4000', '-60']),
            ...entry('2026-03-01', ['6000', '20'], ['1000', '-20']),
          ],
        },
      ],
      intercompanyTransactions: [
        {
          id: 'tx-fee',
          fromCompanyId: P,
          toCompanyId: J,
          transactionType: 'ManagementFee',
          transactionDate: '2026-03-01',
          amount: '20',
          currency: 'USD',
          matchingStatus: 'Matched',
        },
      ],
      rules: [
        rule({
          id: 'fees',
          eliminationType: 'IntercompanySales',
          sourceAccounts: [{ accountNumber: '41*', companyId: null }],
          targetAccounts: [{ accountNumber: '6000', companyId: null }],
          debitAccount: { companyId: P, accountNumber: '4100' },
          creditAccount: { companyId: J, accountNumber: '6000' },
        }),
      ],
    }),
  );

  it('weights every balance by 50% and puts the rounding residual into CTA', () => {
    expect(result.status).toBe('Completed');
    // J: cash 200.02 − 100.01 + 60 − 20 = 140.01 → × 0.5 = 70.005 → 70.01; receivable 100.01 → 50.01;
    // capital −200.02 → −100.01; sales −60 → −30.00; fee 20 → 10.00. Σ = +0.01 → CTA contribution −0.01.
    // The fee of 20 is weighted min(w(P), w(J)) = min(1, 0.5) → A = 10.00.
    const tb = result.closingTrialBalance!;
    expect(rows(tb)).toEqual([
      ['1000', '1140.01', '0.00', '0.00', '1140.01'], // 1070 + 70.01
      ['1200', '50.01', '0.00', '0.00', '50.01'],
      ['3000', '-1100.01', '0.00', '0.00', '-1100.01'],
      ['4000', '-80.00', '0.00', '0.00', '-80.00'],
      ['4100', '-20.00', '10.00', '0.00', '-10.00'],
      ['6000', '10.00', '-10.00', '0.00', '0.00'],
      ['CTA', '-0.01', '0.00', '0.00', '-0.01'],
    ]);
    expect(tb.totalDebits.value).toBe('1190.02');
    expect(tb.totalCredits.value).toBe('1190.02');
    expect(tb.netIncome.value).toBe('90.00'); // 80 + 10
    expect(tb.nonControllingInterests).toEqual([]);
    expect(result.eliminations[0]).toMatchObject({
      status: 'Applied',
      sourceBalance: { value: '-20.00' },
      targetBalance: { value: '10.00' },
      amount: { value: '10.00' },
      intercompanyTransactionIds: ['tx-fee'],
    });
  });

  it('uses the synthetic RETAINED_EARNINGS line and reconciles the statements', () => {
    // opening: P cash 1000, capital −1000; J cash 100.01, capital −100.01 (no R/E, no RE line)
    const opening = result.openingTrialBalance!;
    expect(rows(opening)).toEqual([
      ['1000', '1100.01', '0.00', '0.00', '1100.01'],
      ['3000', '-1100.01', '0.00', '0.00', '-1100.01'],
    ]);
    expect(result.retainedEarningsLine).toBe('RETAINED_EARNINGS');
    const { bs, cf, eq } = statements(result);
    expect(bs.totalAssets.value).toBe('1190.02');
    expect(sectionLines(bs.equity)).toEqual([
      ['3000', '1100.01'],
      ['CTA', '0.01'],
      [null, '90.00'],
    ]);
    expect(bs.isBalanced).toBe(true);
    // cash 1100.01 → 1140.01; receivable −50.01; CTA −Δ = 0.01; 90 − 50.01 + 0.01 = 40.00
    expect(cf.operatingActivities.netCashFlow.value).toBe('39.99');
    expect(cf.exchangeRateEffect.value).toBe('0.01');
    expect(cf.netChangeInCash.value).toBe('40.00');
    expect(cf.isReconciled).toBe(true);
    expect(eqRow(eq.closingBalances)).toEqual(['1100.01', '90.00', '0.00', '0.01', '0.00', '1190.02']);
  });
});

// -------------------------------------------------------------------------------------------------
// (d) equity-method member
// -------------------------------------------------------------------------------------------------
describe('(d) 30% equity-method investee in EUR', () => {
  const E = '00000000-0000-4000-8000-000000000005';
  // P (USD): 2025-01-10 capital 2000 cash; 2026-02-01 sales 100 cash.
  // E (EUR, EquityMethod 30%): 2025-01-15 capital 1000 (HR 1.10); 2026-01-20 sales 500 cash (AR Jan 1.12).
  const input = buildTestInput({
    reportingCurrency: 'USD',
    asOfDate: '2026-03-31',
    periodRef: { year: 2026, period: 3 },
    companies: [
      {
        companyId: P,
        companyName: 'Parent Inc',
        functionalCurrency: 'USD',
        retainedEarningsAccountNumber: '3200',
        accounts: CHART,
        lines: [
          ...entry('2025-01-10', ['1000', '2000'], ['3000', '-2000']),
          ...entry('2026-02-01', ['1000', '100'], ['4000', '-100']),
        ],
      },
      {
        companyId: E,
        companyName: 'Associate SA',
        functionalCurrency: 'EUR',
        consolidationMethod: 'EquityMethod',
        ownershipPercentage: '30.00',
        accounts: CHART,
        lines: [
          ...entry('2025-01-15', ['1000', '1000'], ['3000', '-1000']),
          ...entry('2026-01-20', ['1000', '500'], ['4000', '-500']),
        ],
      },
    ],
    rates: EUR_RATES,
  });
  const result = runConsolidation(input);

  it('adds the investment, income and reserve lines', () => {
    expect(result.status).toBe('Completed');
    // E translated: cash 1500 × 1.20 = 1800; capital −1100; sales −500 × 1.12 = −560
    // NA = 1800, NI = 560, s = 0.3: investment 540.00, income −168.00, reserve −(540 − 168) = −372.00
    const tb = result.closingTrialBalance!;
    expect(rows(tb)).toEqual([
      ['1000', '2100.00', '0.00', '0.00', '2100.00'],
      ['3000', '-2000.00', '0.00', '0.00', '-2000.00'],
      ['4000', '-100.00', '0.00', '0.00', '-100.00'],
      ['EQUITY_METHOD_INVESTMENT', '540.00', '0.00', '0.00', '540.00'],
      ['EQUITY_METHOD_INCOME', '-168.00', '0.00', '0.00', '-168.00'],
      ['EQUITY_METHOD_RESERVE', '-372.00', '0.00', '0.00', '-372.00'],
    ]);
    expect(
      tb.lineItems.slice(3).map((l) => [l.accountName, l.accountType, l.accountCategory, l.companyId]),
    ).toEqual([
      ['Investment in Associate SA (equity method)', 'Asset', 'NonCurrentAsset', E],
      ['Share of profit of Associate SA', 'Revenue', 'OtherRevenue', E],
      ['Equity-method reserve – Associate SA', 'Equity', 'RetainedEarnings', E],
    ]);
    expect(tb.netIncome.value).toBe('268.00'); // 100 + 168
    expect(tb.totalDebits.value).toBe('2640.00');
    expect(tb.isBalanced).toBe(true);
    expect(
      result.members.map((m) => [m.companyId, m.role, m.included, m.nonControllingInterestPercentage]),
    ).toEqual([
      [P, 'Parent', true, '0.00'],
      [E, 'Member', true, '0.00'],
    ]);
  });

  it('builds the opening view and the statements', () => {
    // opening: E cash 1000 × 1.05 = 1050 → investment 315.00, reserve −315.00, no income
    expect(rows(result.openingTrialBalance!)).toEqual([
      ['1000', '2000.00', '0.00', '0.00', '2000.00'],
      ['3000', '-2000.00', '0.00', '0.00', '-2000.00'],
      ['EQUITY_METHOD_INVESTMENT', '315.00', '0.00', '0.00', '315.00'],
      ['EQUITY_METHOD_RESERVE', '-315.00', '0.00', '0.00', '-315.00'],
    ]);
    const { bs, is, cf, eq } = statements(result);
    expect(sectionLines(bs.nonCurrentAssets)).toEqual([['EQUITY_METHOD_INVESTMENT', '540.00']]);
    expect(sectionLines(bs.equity)).toEqual([
      ['3000', '2000.00'],
      ['EQUITY_METHOD_RESERVE', '372.00'],
      [null, '268.00'],
    ]);
    expect(bs.isBalanced).toBe(true);
    expect(sectionLines(is.otherIncomeExpense)).toEqual([['EQUITY_METHOD_INCOME', '168.00']]);
    expect(is.incomeBeforeTax.value).toBe('268.00');
    // investment 315 → 540: −225; reserve −315 → −372: +57 (both non-cash); 268 − 225 + 57 = 100
    expect(cashLines(cf.operatingActivities)).toEqual([
      ['Net Income', '268.00', 'Normal'],
      ['Adjustments for non-cash items', '0.00', 'Header'],
      ['Investment in Associate SA (equity method)', '-225.00', 'Normal'],
      ['Equity-method reserve – Associate SA', '57.00', 'Normal'],
      ['Net Cash from Operating Activities', '100.00', 'Total'],
    ]);
    expect(cf.isReconciled).toBe(true);
    // RE column: reserve 315 → 372 + 268 = 640; Other = Δ reserve 57
    expect(eqRow(eq.openingBalances)).toEqual(['2000.00', '315.00', '0.00', '0.00', '0.00', '2315.00']);
    expect(eqRow(eq.movements[5]!)).toEqual(['0.00', '57.00', '0.00', '0.00', '0.00', '57.00']);
    expect(eqRow(eq.closingBalances)).toEqual(['2000.00', '640.00', '0.00', '0.00', '0.00', '2640.00']);
  });

  it('ignores the investee entirely when includeEquityMethodInvestments is false', () => {
    const r = runConsolidation({
      ...input,
      options: { ...input.options, includeEquityMethodInvestments: false },
    });
    expect(r.status).toBe('Completed');
    expect(r.closingTrialBalance!.lineItems.map((l) => l.accountNumber)).toEqual(['1000', '3000', '4000']);
    expect(r.members[1]!.included).toBe(false);
    expect(r.exchangeRatesUsed).toEqual([]);
  });
});

// -------------------------------------------------------------------------------------------------
// Validation and elimination edge cases
// -------------------------------------------------------------------------------------------------
describe('validation and elimination rules', () => {
  const OTHER_CHART = CHART.map((a) =>
    a.accountNumber === '4100' ? { ...a, accountType: 'Expense' as const } : a,
  );
  function group(
    overrides: {
      options?: Record<string, unknown>;
      sub?: Record<string, unknown>;
      rules?: EliminationRuleInput[];
    } = {},
  ) {
    return buildTestInput({
      reportingCurrency: 'USD',
      asOfDate: '2026-03-31',
      periodRef: { year: 2026, period: 3 },
      companies: [
        {
          companyId: P,
          companyName: 'Parent Inc',
          functionalCurrency: 'USD',
          retainedEarningsAccountNumber: '3200',
          accounts: CHART,
          lines: [
            ...entry('2025-01-01', ['1000', '1000'], ['3000', '-1000']),
            ...entry('2026-01-15', ['1300', '300'], ['4000', '-300']),
          ],
        },
        {
          companyId: S,
          companyName: 'Sub LLC',
          functionalCurrency: 'USD',
          accounts: CHART,
          lines: [...entry('2026-01-15', ['6000', '250'], ['2300', '-250'])],
          ...overrides.sub,
        },
      ],
      intercompanyTransactions: [
        {
          id: 'tx-unmatched',
          fromCompanyId: P,
          toCompanyId: S,
          transactionType: 'Sale',
          transactionDate: '2026-01-15',
          amount: '300',
          currency: 'USD',
          matchingStatus: 'Unmatched',
        },
        {
          id: 'tx-matched',
          fromCompanyId: P,
          toCompanyId: S,
          transactionType: 'Service',
          transactionDate: '2026-01-16',
          amount: '250',
          currency: 'USD',
          matchingStatus: 'Matched',
        },
      ],
      rules: overrides.rules ?? [],
      options: overrides.options,
    });
  }

  it('reports warnings in table order and keeps going with continueOnWarnings', () => {
    const r = runConsolidation(
      group({ sub: { fiscalPeriodStatus: 'Open', unpostedEntryCount: 2, isActive: false } }),
    );
    expect(r.status).toBe('Completed');
    expect(r.validationResult!.issues.map((i) => [i.code, i.severity, i.entityReference])).toEqual([
      ['PERIOD_NOT_CLOSED', 'Warning', S],
      ['UNPOSTED_ENTRIES', 'Warning', S],
      ['UNMATCHED_INTERCOMPANY', 'Warning', 'tx-unmatched'],
      ['INACTIVE_COMPANY', 'Warning', S],
      ['IC_TRANSACTION_NOT_ELIMINATED', 'Warning', 'tx-matched'],
    ]);
    expect(r.validationResult!.isValid).toBe(true);
  });

  it('fails on warnings when continueOnWarnings is false', () => {
    const r = runConsolidation(group({ options: { continueOnWarnings: false } }));
    expect(r.status).toBe('Failed');
    expect(r.errorMessage).toBe('Validation failed with 0 error(s) and 1 warning(s)');
    expect(r.steps[0]!.status).toBe('Failed');
    expect(r.steps.slice(1).every((s) => s.status === 'Skipped')).toBe(true);
  });

  it('fails on ACCOUNT_TYPE_CONFLICT and TRIAL_BALANCE_UNBALANCED errors', () => {
    const r = runConsolidation(
      group({
        sub: { accounts: OTHER_CHART, lines: [...entry('2026-01-15', ['6000', '250'], ['2300', '-249'])] },
      }),
    );
    expect(r.status).toBe('Failed');
    expect(
      r
        .validationResult!.issues.filter((i) => i.severity === 'Error')
        .map((i) => [i.code, i.entityReference]),
    ).toEqual([
      ['ACCOUNT_TYPE_CONFLICT', '4100'],
      ['TRIAL_BALANCE_UNBALANCED', S],
    ]);
    expect(r.errorMessage).toBe('Validation failed with 2 error(s) and 1 warning(s)');
  });

  it('skips validation when asked (validationResult null without later issues)', () => {
    const r = runConsolidation(
      group({
        options: { skipValidation: true },
        rules: [
          rule({
            id: 'sales',
            eliminationType: 'IntercompanySales',
            sourceAccounts: [{ accountNumber: '4000', companyId: P }],
            targetAccounts: [{ accountNumber: '6000', companyId: S }],
            debitAccount: { companyId: P, accountNumber: '4000' },
            creditAccount: { companyId: S, accountNumber: '6000' },
          }),
        ],
      }),
    );
    expect(r.status).toBe('Completed');
    expect(r.steps[0]).toMatchObject({ stepType: 'Validate', status: 'Skipped' });
    expect(r.validationResult).toBeNull();
    // the matched Service of 250 is taken by the sales rule (A = 250, not min(|S|,|T|) = 250 by chance)
    expect(r.eliminations[0]).toMatchObject({ status: 'Applied', amount: { value: '250.00' } });
    expect(r.eliminatedTransactionIds).toEqual(['tx-matched']);
  });

  it('applies priority order, trigger conditions, ZERO_AMOUNT and ACCOUNT_COMPANY_NOT_CONSOLIDATED', () => {
    const other = '00000000-0000-4000-8000-000000000099';
    const r = runConsolidation(
      group({
        rules: [
          // processed last (priority 50): receivable 300 vs payable −250 → A = 250
          rule({
            id: 'rp',
            eliminationType: 'IntercompanyReceivablesPayables',
            priority: 50,
            sourceAccounts: [{ accountNumber: '1300-1399', companyId: null }],
            targetAccounts: [{ accountNumber: '23*', companyId: null }],
            debitAccount: { companyId: S, accountNumber: '2300' },
            creditAccount: { companyId: P, accountNumber: '1300' },
          }),
          // trigger: |1300 of P| = 300 < 1000 → not met
          rule({
            id: 'trig',
            eliminationType: 'Custom',
            priority: 1,
            triggerConditions: [
              {
                description: 'big',
                sourceAccounts: [{ accountNumber: '1300', companyId: P }],
                minimumAmount: '1000.00',
              },
            ],
            sourceAccounts: [{ accountNumber: '1300', companyId: P }],
            debitAccount: { companyId: S, accountNumber: '2300' },
            creditAccount: { companyId: P, accountNumber: '1300' },
          }),
          // nothing on 1500 → ZERO_AMOUNT
          rule({
            id: 'zero',
            eliminationType: 'IntercompanyInvestment',
            priority: 2,
            sourceAccounts: [{ accountNumber: '1500', companyId: null }],
            debitAccount: { companyId: S, accountNumber: '3000' },
            creditAccount: { companyId: P, accountNumber: '1500' },
          }),
          // debit account of a company outside the group → skipped with a warning
          rule({
            id: 'outside',
            eliminationType: 'Custom',
            priority: 3,
            sourceAccounts: [{ accountNumber: '4000', companyId: null }],
            debitAccount: { companyId: other, accountNumber: '4000' },
            creditAccount: { companyId: P, accountNumber: '6000' },
          }),
          // manual rule not approved → not processed at all
          rule({
            id: 'manual',
            eliminationType: 'Custom',
            isAutomatic: false,
            sourceAccounts: [{ accountNumber: '1*', companyId: null }],
          }),
        ],
      }),
    );
    expect(
      r.eliminations.map((e) => [e.eliminationRuleId, e.status, e.skipReason, e.amount?.value ?? null]),
    ).toEqual([
      ['trig', 'Skipped', 'TRIGGER_NOT_MET', null],
      ['zero', 'Skipped', 'ZERO_AMOUNT', null],
      ['outside', 'Skipped', 'ACCOUNT_COMPANY_NOT_CONSOLIDATED', null],
      ['rp', 'Applied', null, '250.00'],
    ]);
    expect(r.validationResult!.issues.map((i) => [i.code, i.entityReference])).toContainEqual([
      'RULE_ACCOUNT_NOT_CONSOLIDATED',
      'outside',
    ]);
    const line = (n: string) => r.closingTrialBalance!.lineItems.find((l) => l.accountNumber === n)!;
    expect(line('1300').consolidatedBalance.value).toBe('50.00'); // 300 − 250
    expect(line('2300').consolidatedBalance.value).toBe('0.00');
  });
});
