/**
 * Group chart, elimination journal and run comparison in the pure engine, on random groups:
 *   - members keeping their ledgers under their own numbering, mapped onto a group chart with the
 *     common numbers (explicitly or by patterns), consolidate exactly as the same ledgers kept on the
 *     common chart;
 *   - the elimination journal balances, entry by entry, with or without an intercompany-difference
 *     account;
 *   - comparing a run with a rerun over the same input finds no difference.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareTrialBalances } from '../../src/domain/consolidation/compare.ts';
import {
  applyGroupChart,
  createConsolidationExecution,
  type EliminationRuleInput,
  type GroupChartInput,
  runConsolidation,
} from '../../src/domain/consolidation/index.ts';
import { dec } from '../../src/domain/money.ts';
import {
  account,
  buildTestInput,
  type SimpleLine,
  type TestCompany,
} from '../helpers/consolidation-input.ts';

const CHART = [
  account('1000', 'Cash', 'Asset', 'CurrentAsset', { isCashEquivalent: true }),
  account('1300', 'Intercompany receivable', 'Asset', 'CurrentAsset'),
  account('1600', 'Equipment', 'Asset', 'FixedAsset', { isNonMonetary: true }),
  account('2300', 'Intercompany payable', 'Liability', 'CurrentLiability'),
  account('3000', 'Share capital', 'Equity', 'ContributedCapital'),
  account('3200', 'Retained earnings', 'Equity', 'RetainedEarnings'),
  account('4000', 'Sales', 'Revenue', 'OperatingRevenue'),
  account('6000', 'Operating expenses', 'Expense', 'OperatingExpense'),
  account('6900', 'Intercompany differences', 'Expense', 'OtherExpense'),
];
const NUMBERS = CHART.map((a) => a.accountNumber).filter((n) => n !== '6900');

const entryArb = fc.record({
  month: fc.integer({ min: 0, max: 23 }),
  debit: fc.constantFrom(...NUMBERS),
  credit: fc.constantFrom(...NUMBERS),
  cents: fc.integer({ min: 1, max: 5_000_000 }),
});
const memberArb = fc.record({
  currency: fc.constantFrom('USD', 'EUR'),
  method: fc.constantFrom('FullConsolidation', 'ProportionateConsolidation') as fc.Arbitrary<
    'FullConsolidation' | 'ProportionateConsolidation'
  >,
  ownership: fc.integer({ min: 5100, max: 10000 }),
  entries: fc.array(entryArb, { minLength: 1, maxLength: 8 }),
  explicit: fc.boolean(),
});
const groupArb = fc.record({
  parent: fc.array(entryArb, { minLength: 1, maxLength: 8 }),
  members: fc.array(memberArb, { minLength: 1, maxLength: 3 }),
  rate: fc.integer({ min: 8000, max: 15000 }),
  tolerance: fc.option(fc.integer({ min: 0, max: 2_000_000 }), { nil: null }),
});
type Group = typeof groupArb extends fc.Arbitrary<infer T> ? T : never;

const id = (i: number) => `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`;
const dateOf = (m: number) => `${2025 + Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}-15`;
/** A member's own number of a common account: five digits, the member's index last. */
const own = (n: string, i: number) => (i === 0 ? n : `${n}${i}`);

function lines(entries: Group['parent'], i: number): SimpleLine[] {
  return entries.flatMap((e) => {
    const v = (e.cents / 100).toFixed(2);
    return [
      { date: dateOf(e.month), accountNumber: own(e.debit, i), amount: v },
      { date: dateOf(e.month), accountNumber: own(e.credit, i), amount: `-${v}` },
    ];
  });
}

function build(g: Group, renumbered: boolean) {
  const companies: TestCompany[] = [
    {
      companyId: id(0),
      companyName: 'Parent',
      functionalCurrency: 'USD',
      retainedEarningsAccountNumber: '3200',
      accounts: CHART,
      lines: lines(g.parent, 0),
    },
    ...g.members.map((m, k) => {
      const i = renumbered ? k + 1 : 0;
      return {
        companyId: id(k + 1),
        companyName: `Member ${k + 1}`,
        functionalCurrency: m.currency,
        consolidationMethod: m.method,
        ownershipPercentage: (m.ownership / 100).toFixed(2),
        accounts: CHART.map((a) => ({
          ...a,
          accountNumber: own(a.accountNumber, i),
          name: `${a.name} (${k})`,
        })),
        lines: lines(m.entries, i),
      };
    }),
  ];
  const last = g.members.length;
  const rules: EliminationRuleInput[] = [
    {
      id: 'rule-ic',
      name: 'Intercompany balances',
      eliminationType: 'IntercompanyReceivablesPayables',
      priority: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
      isActive: true,
      isAutomatic: true,
      triggerConditions: [],
      sourceAccounts: [{ accountNumber: '1300', companyId: null }],
      targetAccounts: [{ accountNumber: '2300', companyId: null }],
      debitAccount: { companyId: id(last), accountNumber: own('2300', renumbered ? last : 0) },
      creditAccount: { companyId: id(0), accountNumber: '1300' },
    },
  ];
  const rate = (g.rate / 10000).toFixed(4);
  const rates = [];
  for (let m = 0; m < 24; m++) {
    const d = `${2025 + Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}-01`;
    rates.push({
      id: `s${m}`,
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      rateType: 'Spot' as const,
      effectiveDate: d,
      rate,
    });
  }
  const input = buildTestInput({
    reportingCurrency: 'USD',
    asOfDate: '2026-12-31',
    periodRef: { year: 2026, period: 12 },
    companies,
    rules,
    rates,
  });
  if (g.tolerance !== null) {
    input.intercompanyDifference = { accountNumber: '6900', tolerance: (g.tolerance / 100).toFixed(2) };
  }
  if (!renumbered) return input;
  // The parent keeps the common numbers: the group chart has its names, so the lines read alike.
  const chart: GroupChartInput = {
    accounts: CHART.map((a) => ({
      accountNumber: a.accountNumber,
      name: a.name,
      accountType: a.accountType,
      accountCategory: a.accountCategory,
      cashFlowCategory: a.cashFlowCategory,
      isCashEquivalent: a.isCashEquivalent,
      isNonMonetary: a.isNonMonetary,
    })),
    explicit: [
      ...CHART.map((a) => ({
        companyId: id(0),
        accountNumber: a.accountNumber,
        groupAccountNumber: a.accountNumber,
      })),
      ...g.members.flatMap((m, k) =>
        m.explicit
          ? CHART.map((a) => ({
              companyId: id(k + 1),
              accountNumber: own(a.accountNumber, k + 1),
              groupAccountNumber: a.accountNumber,
            }))
          : [],
      ),
    ],
    patterns: g.members.flatMap((m, k) =>
      m.explicit
        ? []
        : CHART.map((a) => ({
            companyId: id(k + 1),
            pattern: `${a.accountNumber}*`,
            groupAccountNumber: a.accountNumber,
          })),
    ),
  };
  input.groupChart = chart;
  return input;
}

describe('group chart (random groups)', () => {
  it('property: members on their own charts, mapped to the group chart, consolidate as on one chart', () => {
    fc.assert(
      fc.property(groupArb, (g) => {
        const common = runConsolidation(build(g, false));
        const mapped = runConsolidation(build(g, true));
        expect(mapped.status).toBe(common.status);
        expect(mapped.errorMessage).toBe(common.errorMessage);
        expect(mapped.closingTrialBalance).toEqual(common.closingTrialBalance);
        expect(mapped.openingTrialBalance).toEqual(common.openingTrialBalance);
        expect(mapped.eliminations).toEqual(common.eliminations);
        expect(mapped.totals).toEqual(common.totals);
        expect(mapped.validationResult).toEqual(common.validationResult);
      }),
      { numRuns: 60 },
    );
  });

  it('property: the elimination journal balances entry by entry and matches the elimination column', () => {
    fc.assert(
      fc.property(groupArb, fc.boolean(), (g, renumbered) => {
        const ex = createConsolidationExecution(build(g, renumbered));
        while (ex.nextStep !== null) ex.runNextStep();
        const result = ex.result();
        if (result.status !== 'Completed') return;
        const perLine = new Map<string, ReturnType<typeof dec>>();
        for (const e of ex.eliminationEntries()) {
          let d = dec(0);
          let c = dec(0);
          for (const l of e.lines) {
            d = d.plus(l.debit.value);
            c = c.plus(l.credit.value);
            perLine.set(
              l.accountNumber,
              (perLine.get(l.accountNumber) ?? dec(0)).plus(l.debit.value).minus(l.credit.value),
            );
          }
          expect(d.toFixed(2)).toBe(c.toFixed(2));
        }
        // Without acquisitions, the journal is the elimination column of the closing trial balance.
        for (const line of result.closingTrialBalance!.lineItems) {
          expect((perLine.get(line.accountNumber) ?? dec(0)).toFixed(2)).toBe(
            dec(line.eliminationAmount.value).toFixed(2),
          );
        }
        // A booked residual is never above the tolerance, and nothing is booked without an account.
        for (const e of result.eliminations) {
          if (!e.intercompanyDifference) continue;
          expect(g.tolerance).not.toBeNull();
          expect(
            dec(e.intercompanyDifference.amount.value).lessThanOrEqualTo(dec(g.tolerance!).div(100)),
          ).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('property: a rerun over the same input compares equal', () => {
    fc.assert(
      fc.property(groupArb, (g) => {
        const a = runConsolidation(build(g, true));
        const b = runConsolidation(build(g, true));
        if (a.status !== 'Completed') return;
        expect(compareTrialBalances('closing', a.closingTrialBalance!, b.closingTrialBalance!, 2)).toEqual(
          [],
        );
        expect(compareTrialBalances('opening', a.openingTrialBalance!, b.openingTrialBalance!, 2)).toEqual(
          [],
        );
      }),
      { numRuns: 30 },
    );
  });

  it('reports an unmapped account with a balance, and fails at Translate when validation is skipped', () => {
    const g: Group = {
      parent: [{ month: 14, debit: '1000', credit: '3000', cents: 10000 }],
      members: [
        {
          currency: 'USD',
          method: 'FullConsolidation',
          ownership: 8000,
          entries: [{ month: 14, debit: '6000', credit: '1000', cents: 500 }],
          explicit: true,
        },
      ],
      rate: 10000,
      tolerance: null,
    };
    const input = build(g, true);
    input.groupChart!.explicit = input.groupChart!.explicit.filter((m) => m.accountNumber !== '60001');
    const { issues } = applyGroupChart(input, input.groupChart!);
    expect(issues).toEqual([
      expect.objectContaining({
        code: 'UNMAPPED_ACCOUNT',
        severity: 'Error',
        entityReference: `${id(1)}/60001`,
      }),
    ]);
    const failed = runConsolidation(input);
    expect(failed.status).toBe('Failed');
    expect(failed.steps[0]!.status).toBe('Failed');
    const skipped = runConsolidation({ ...input, options: { ...input.options, skipValidation: true } });
    expect(skipped.status).toBe('Failed');
    expect(skipped.steps[1]).toMatchObject({ stepType: 'Translate', status: 'Failed' });
    expect(skipped.errorMessage).toContain(`${id(1)}/60001`);
  });
});
