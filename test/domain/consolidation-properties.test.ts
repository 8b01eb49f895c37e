/**
 * Property tests of the consolidation engine on random groups (methods, ownerships, currencies) with
 * random balanced ledgers, random intercompany transactions and random elimination rules.
 */
import fc from 'fast-check';
import {
  CompanyDirectory,
  type PackedLine,
  packLine,
  unpackLine,
} from '../../src/domain/consolidation/contributions-codec.ts';
import { describe, expect, it } from 'vitest';
import {
  buildConsolidatedBalanceSheet,
  buildConsolidatedCashFlowStatement,
  buildConsolidatedEquityStatement,
  buildConsolidatedIncomeStatement,
  contributionsAddUp,
  type ConsolidationMethod,
  createConsolidationExecution,
  type EliminationRuleInput,
  type EquityRow,
  type IntercompanyTransactionInput,
  runConsolidation,
  type TrialBalanceView,
} from '../../src/domain/consolidation/index.ts';
import {
  account,
  buildTestInput,
  type SimpleLine,
  type StoredRate,
  type TestCompany,
} from '../helpers/consolidation-input.ts';
import { lastDayOfMonth, makeDate } from '../../src/domain/dates.ts';
import { dec, sum } from '../../src/domain/money.ts';

const CHART = [
  account('1000', 'Cash', 'Asset', 'CurrentAsset', { isCashEquivalent: true }),
  account('1010', 'Money market', 'Asset', 'CurrentAsset', { isCashEquivalent: true }),
  account('1200', 'Receivables', 'Asset', 'CurrentAsset'),
  account('1300', 'Intercompany receivable', 'Asset', 'CurrentAsset'),
  account('1400', 'Inventory', 'Asset', 'CurrentAsset', { isNonMonetary: true }),
  account('1500', 'Investments', 'Asset', 'NonCurrentAsset'),
  account('1600', 'Equipment', 'Asset', 'FixedAsset', { isNonMonetary: true }),
  account('1650', 'Accumulated depreciation', 'Asset', 'FixedAsset', { cashFlowCategory: 'NonCash' }),
  account('2000', 'Payables', 'Liability', 'CurrentLiability'),
  account('2300', 'Intercompany payable', 'Liability', 'CurrentLiability'),
  account('2500', 'Loans', 'Liability', 'NonCurrentLiability'),
  account('3000', 'Share capital', 'Equity', 'ContributedCapital'),
  account('3100', 'Treasury stock', 'Equity', 'TreasuryStock'),
  account('3200', 'Retained earnings', 'Equity', 'RetainedEarnings'),
  account('3300', 'Dividends', 'Equity', 'RetainedEarnings'),
  account('3400', 'Other reserves', 'Equity', 'OtherComprehensiveIncome'),
  account('4000', 'Sales', 'Revenue', 'OperatingRevenue'),
  account('4100', 'Intercompany sales', 'Revenue', 'OperatingRevenue'),
  account('4500', 'Other income', 'Revenue', 'OtherRevenue'),
  account('5000', 'Cost of goods sold', 'Expense', 'CostOfGoodsSold'),
  account('6000', 'Operating expenses', 'Expense', 'OperatingExpense'),
  account('6500', 'Depreciation', 'Expense', 'DepreciationAmortization'),
  account('7000', 'Interest', 'Expense', 'InterestExpense'),
  account('8000', 'Income tax', 'Expense', 'TaxExpense'),
];
const NUMBERS = CHART.map((a) => a.accountNumber);
const CURRENCIES = ['USD', 'EUR', 'JPY'] as const;
const DIGITS: Record<string, number> = { USD: 2, EUR: 2, JPY: 0 };
const PAIRS: [string, string][] = [
  ['EUR', 'USD'],
  ['JPY', 'USD'],
  ['EUR', 'JPY'],
];
const MONTHS: { y: number; m: number }[] = [];
for (let y = 2023; y <= 2026; y++) for (let m = 1; m <= 12; m++) MONTHS.push({ y, m });

function dateFromIndex(i: number): string {
  // day index from 2024-01-01 over ~3 years
  const d = new Date(Date.UTC(2024, 0, 1) + i * 86_400_000);
  return makeDate(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate());
}

function amountText(units: number, currency: string): string {
  const digits = DIGITS[currency]!;
  return dec(units)
    .div(10 ** digits)
    .toFixed(digits);
}

const entryArb = fc.record({
  day: fc.integer({ min: 0, max: 1095 }),
  lines: fc.array(
    fc.record({
      account: fc.constantFrom(...NUMBERS),
      units: fc.integer({ min: -5_000_000, max: 5_000_000 }),
    }),
    {
      minLength: 1,
      maxLength: 3,
    },
  ),
  balancing: fc.constantFrom(...NUMBERS),
});

const companyArb = fc.record({
  currency: fc.constantFrom(...CURRENCIES),
  method: fc.constantFrom<ConsolidationMethod>(
    'FullConsolidation',
    'ProportionateConsolidation',
    'EquityMethod',
  ),
  ownershipCents: fc.integer({ min: 0, max: 10_000 }),
  entries: fc.array(entryArb, { minLength: 0, maxLength: 12 }),
});

const rateArb = fc.record({
  // a month without Spot and Average rates makes translation fall back to the period's closing rate
  spots: fc.array(fc.option(fc.integer({ min: 1, max: 40_000 }), { nil: null, freq: 8 }), {
    minLength: MONTHS.length,
    maxLength: MONTHS.length,
  }),
  averages: fc.array(fc.option(fc.integer({ min: 1, max: 40_000 }), { nil: null }), {
    minLength: MONTHS.length,
    maxLength: MONTHS.length,
  }),
});

const icArb = fc.record({
  from: fc.nat(3),
  to: fc.nat(3),
  type: fc.constantFrom<IntercompanyTransactionInput['transactionType']>(
    'Sale',
    'Service',
    'Dividend',
    'Loan',
    'Royalty',
  ),
  status: fc.constantFrom<IntercompanyTransactionInput['matchingStatus']>(
    'Matched',
    'Unmatched',
    'VarianceApproved',
  ),
  day: fc.integer({ min: 366, max: 1095 }),
  units: fc.integer({ min: 1, max: 1_000_000 }),
  currency: fc.constantFrom(...CURRENCIES),
});

const groupArb = fc.record({
  reporting: fc.constantFrom(...CURRENCIES),
  parentCurrency: fc.constantFrom(...CURRENCIES),
  parentEntries: fc.array(entryArb, { minLength: 1, maxLength: 12 }),
  parentHasRe: fc.boolean(),
  members: fc.array(companyArb, { minLength: 0, maxLength: 3 }),
  rates: fc.array(rateArb, { minLength: PAIRS.length, maxLength: PAIRS.length }),
  ic: fc.array(icArb, { maxLength: 6 }),
  ruleMask: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
  minimum: fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: null }),
  period: fc.integer({ min: 1, max: 13 }),
});

type Group = typeof groupArb extends fc.Arbitrary<infer T> ? T : never;

function ids(i: number): string {
  return `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`;
}

function linesOf(entries: Group['parentEntries'], currency: string): SimpleLine[] {
  const out: SimpleLine[] = [];
  for (const e of entries) {
    const date = dateFromIndex(e.day);
    let total = 0;
    for (const l of e.lines) {
      out.push({ date, accountNumber: l.account, amount: amountText(l.units, currency) });
      total += l.units;
    }
    out.push({ date, accountNumber: e.balancing, amount: amountText(-total, currency) });
  }
  return out;
}

function buildGroup(g: Group) {
  const companies: TestCompany[] = [
    {
      companyId: ids(0),
      companyName: 'Parent',
      functionalCurrency: g.parentCurrency,
      retainedEarningsAccountNumber: g.parentHasRe ? '3200' : null,
      accounts: CHART,
      lines: linesOf(g.parentEntries, g.parentCurrency),
    },
    ...g.members.map((m, i) => ({
      companyId: ids(i + 1),
      companyName: `Member ${String.fromCharCode(90 - i)}`,
      functionalCurrency: m.currency,
      consolidationMethod: m.method,
      ownershipPercentage: (m.ownershipCents / 100).toFixed(2),
      accounts: CHART,
      lines: linesOf(m.entries, m.currency),
    })),
  ];
  const rates: StoredRate[] = [];
  PAIRS.forEach(([from, to], p) => {
    const r = g.rates[p]!;
    MONTHS.forEach(({ y, m }, i) => {
      const scale = from === 'EUR' && to === 'JPY' ? 100 : from === 'JPY' ? 0.0001 : 0.0001;
      // the first month always has a Spot rate, so every closing and historical look-up finds one
      const units = r.spots[i] ?? (i === 0 ? 12_345 : null);
      if (units === null) return;
      const spot = dec(units).times(scale).toDecimalPlaces(6);
      rates.push({
        id: `s-${p}-${i}`,
        fromCurrency: from,
        toCurrency: to,
        rateType: 'Spot',
        effectiveDate: makeDate(y, m, 1),
        rate: spot.toFixed(),
      });
      const avg = r.averages[i];
      if (avg !== null && avg !== undefined) {
        rates.push({
          id: `a-${p}-${i}`,
          fromCurrency: from,
          toCurrency: to,
          rateType: 'Average',
          effectiveDate: makeDate(y, m, 15),
          rate: dec(avg).times(scale).toDecimalPlaces(6).toFixed(),
        });
      }
    });
  });
  const n = companies.length;
  const intercompanyTransactions: IntercompanyTransactionInput[] = g.ic
    .map((t, i) => ({
      id: `tx-${i}`,
      fromCompanyId: ids(t.from % n),
      toCompanyId: ids(t.to % n),
      transactionType: t.type,
      transactionDate: dateFromIndex(t.day),
      amount: amountText(t.units, t.currency),
      currency: t.currency,
      matchingStatus: t.status,
    }))
    .filter((t) => t.fromCompanyId !== t.toCompanyId && dec(t.amount).greaterThan(0));
  const lastMember = ids(n - 1);
  const pool: EliminationRuleInput[] = [
    {
      id: 'rule-rp',
      name: 'Receivables/payables',
      eliminationType: 'IntercompanyReceivablesPayables',
      priority: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
      isActive: true,
      isAutomatic: true,
      triggerConditions:
        g.minimum === null
          ? []
          : [
              {
                description: 'min',
                sourceAccounts: [{ accountNumber: '13*', companyId: null }],
                minimumAmount: amountText(g.minimum, g.reporting),
              },
            ],
      sourceAccounts: [{ accountNumber: '1300', companyId: null }],
      targetAccounts: [{ accountNumber: '2300-2399', companyId: null }],
      debitAccount: { companyId: ids(0), accountNumber: '2300' },
      creditAccount: { companyId: ids(0), accountNumber: '1300' },
    },
    {
      id: 'rule-sales',
      name: 'Sales',
      eliminationType: 'IntercompanySales',
      priority: 2,
      createdAt: '2026-01-01T00:00:00.000Z',
      isActive: true,
      isAutomatic: true,
      triggerConditions: [],
      sourceAccounts: [{ accountNumber: '4100', companyId: null }],
      targetAccounts: [{ accountNumber: '5000', companyId: null }],
      debitAccount: { companyId: ids(0), accountNumber: '4100' },
      creditAccount: { companyId: lastMember, accountNumber: '5000' },
    },
    {
      id: 'rule-div',
      name: 'Dividends',
      eliminationType: 'IntercompanyDividends',
      priority: 2,
      createdAt: '2026-01-02T00:00:00.000Z',
      isActive: true,
      isAutomatic: true,
      triggerConditions: [],
      sourceAccounts: [{ accountNumber: '4500', companyId: ids(0) }],
      targetAccounts: [{ accountNumber: '3300', companyId: lastMember }],
      debitAccount: { companyId: ids(0), accountNumber: '4500' },
      creditAccount: { companyId: lastMember, accountNumber: '3300' },
    },
    {
      id: 'rule-inv',
      name: 'Investment',
      eliminationType: 'IntercompanyInvestment',
      priority: 3,
      createdAt: '2026-01-01T00:00:00.000Z',
      isActive: true,
      isAutomatic: true,
      triggerConditions: [],
      sourceAccounts: [{ accountNumber: '1500', companyId: ids(0) }],
      targetAccounts: [],
      debitAccount: { companyId: lastMember, accountNumber: '3000' },
      creditAccount: { companyId: ids(0), accountNumber: '1500' },
    },
  ];
  const asOfDate = g.period === 13 ? '2026-12-31' : lastDayOfMonth(2026, g.period);
  return buildTestInput({
    reportingCurrency: g.reporting,
    asOfDate,
    periodRef: { year: 2026, period: g.period },
    companies,
    rules: pool.filter((_, i) => g.ruleMask[i]),
    intercompanyTransactions,
    rates,
  });
}

function columns(r: EquityRow) {
  return [
    r.contributedCapital,
    r.retainedEarnings,
    r.treasuryStock,
    r.accumulatedOCI,
    r.nonControllingInterest,
    r.total,
  ].map((m) => dec(m.value));
}

function checkTb(tb: TrialBalanceView) {
  expect(tb.isBalanced).toBe(true);
  expect(tb.totalDebits.value).toBe(tb.totalCredits.value);
  // Σ consolidated balances = 0 and every line's consolidated = aggregated + elimination + nci
  expect(sum(tb.lineItems.map((l) => l.consolidatedBalance.value)).isZero()).toBe(true);
  for (const l of tb.lineItems) {
    expect(
      dec(l.aggregatedBalance.value)
        .plus(l.eliminationAmount.value)
        .plus(l.nciAmount.value)
        .equals(l.consolidatedBalance.value),
    ).toBe(true);
  }
}

describe('consolidation properties', () => {
  it('property: both trial balances net to zero, statements balance and reconcile, equity rolls forward per column', () => {
    fc.assert(
      fc.property(groupArb, (g) => {
        const input = buildGroup(g);
        const result = runConsolidation(input);
        expect(result.errorMessage).toBeNull();
        expect(result.status).toBe('Completed');
        const closing = result.closingTrialBalance!;
        const opening = result.openingTrialBalance!;
        checkTb(closing);
        checkTb(opening);
        expect(opening.netIncome.value).toBe(dec(0).toFixed(DIGITS[g.reporting]!));
        expect(
          opening.lineItems.some((l) => l.accountType === 'Revenue' || l.accountType === 'Expense'),
        ).toBe(false);

        const ctx = {
          runId: 'r',
          groupId: 'g',
          groupName: 'G',
          periodRef: input.periodRef,
          asOfDate: input.asOfDate,
          yearStartDate: input.yearStartDate,
          currency: g.reporting,
          generatedAt: '2026-12-31T00:00:00.000Z',
          retainedEarningsLine: result.retainedEarningsLine,
        };
        const bs = buildConsolidatedBalanceSheet(ctx, closing);
        expect(bs.isBalanced).toBe(true);
        const is = buildConsolidatedIncomeStatement(ctx, closing);
        expect(is.netIncome.value).toBe(closing.netIncome.value);
        const cf = buildConsolidatedCashFlowStatement(ctx, opening, closing);
        expect(cf.isReconciled).toBe(true);
        const eq = buildConsolidatedEquityStatement(ctx, opening, closing);
        const open = columns(eq.openingBalances);
        const close = columns(eq.closingBalances);
        for (let c = 0; c < 6; c++) {
          const moved = eq.movements.reduce((acc, m) => acc.plus(columns(m)[c]!), dec(0));
          expect(open[c]!.plus(moved).equals(close[c]!)).toBe(true);
        }
        expect(close[5]!.equals(dec(bs.totalEquity.value))).toBe(true);
        // NCI totals agree with the details
        expect(
          sum(
            closing.nonControllingInterests.map((d) =>
              dec(d.nciShareOfEquity.value).plus(d.nciShareOfNetIncome.value),
            ),
          ).equals(closing.totalNCI.value),
        ).toBe(true);
        // eliminations total = Σ applied amounts
        expect(
          sum(result.eliminations.filter((e) => e.status === 'Applied').map((e) => e.amount!.value)).equals(
            closing.totalEliminations.value,
          ),
        ).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('property: a run is deterministic (same input, same result, whatever the input order of members)', () => {
    fc.assert(
      fc.property(groupArb, (g) => {
        const input = buildGroup(g);
        const a = runConsolidation(input);
        const reversed = {
          ...input,
          companies: [...input.companies].reverse(),
          rules: [...input.rules].reverse(),
        };
        const b = runConsolidation(reversed);
        expect({ ...b, members: [] }).toEqual({ ...a, members: [] });
      }),
      { numRuns: 60 },
    );
  });
});

describe('contributions of consolidated lines', () => {
  it('property: every line of both views is traced to companies, eliminations and the NCI, and the pieces add up exactly', () => {
    fc.assert(
      fc.property(groupArb, (g) => {
        const input = buildGroup(g);
        const execution = createConsolidationExecution(input);
        while (execution.nextStep !== null) execution.runNextStep();
        const result = execution.result();
        expect(result.status).toBe('Completed');
        const members = new CompanyDirectory(input.companies);
        // the stored form the run writes is packed directly, to the same text
        const stored = execution.storedContributions(members)!;
        for (const view of ['closing', 'opening'] as const) {
          expect(stored[view].map((s) => s.data)).toEqual(
            result.contributions![view].map((c) => JSON.stringify(packLine(c, g.reporting, members))),
          );
        }
        const minor = DIGITS[g.reporting]!;
        for (const view of ['closing', 'opening'] as const) {
          const tb = view === 'closing' ? result.closingTrialBalance! : result.openingTrialBalance!;
          const traced = result.contributions![view];
          expect(traced.length).toBe(tb.lineItems.length);
          for (const line of tb.lineItems) {
            const c = traced.find(
              (t) => t.accountNumber === line.accountNumber && t.companyId === line.companyId,
            )!;
            expect(c).toBeDefined();
            expect(c.consolidatedBalance).toEqual(line.consolidatedBalance);
            expect(c.aggregatedBalance).toEqual(line.aggregatedBalance);
            expect(c.eliminationAmount).toEqual(line.eliminationAmount);
            expect(c.nciAmount).toEqual(line.nciAmount);
            expect(contributionsAddUp(c, minor)).toBe(true);
            // the stored form keeps every fact
            const stored = JSON.parse(JSON.stringify(packLine(c, g.reporting))) as PackedLine;
            expect(unpackLine(stored, c, g.reporting)).toEqual(c);
            // naming the companies by their index in the run's members keeps every fact too
            const byIndex = JSON.parse(JSON.stringify(packLine(c, g.reporting, members))) as PackedLine;
            expect(unpackLine(byIndex, c, g.reporting, members)).toEqual(c);
            // a flat group without acquisition data: nothing is left unattributed
            expect(Number(c.unattributed.aggregated.value)).toBe(0);
            expect(Number(c.unattributed.elimination.value)).toBe(0);
            expect(Number(c.unattributed.adjustment.value)).toBe(0);
            // Σ companies' weighted amounts, Σ eliminations, NCI = the consolidated balance
            const total = sum([
              ...c.companies.map((x) => x.amount.value),
              ...c.eliminations.map((x) => x.amount.value),
              ...c.adjustments.map((x) => x.amount.value),
              c.nci.value,
            ]);
            expect(total.equals(line.consolidatedBalance.value)).toBe(true);
          }
        }
        // each rule's elimination entry balances
        for (const e of result.eliminations.filter((x) => x.status === 'Applied')) {
          const onLines = result.contributions!.closing.flatMap((l) =>
            l.eliminations.filter((x) => x.eliminationRuleId === e.eliminationRuleId),
          );
          expect(sum(onLines.map((x) => x.amount.value)).isZero()).toBe(true);
        }
      }),
      { numRuns: 120 },
    );
  });
});
