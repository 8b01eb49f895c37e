/**
 * The engine computes with exact scaled integers (scaled.ts, ledger.ts, view.ts). It must give exactly
 * the results of the decimal.js engine it replaced, kept as a frozen oracle in
 * test/helpers/legacy-consolidation: same status, steps, issues (and their order), rates used,
 * eliminations and both trial balances, to the last digit — on random groups (methods, ownerships,
 * currencies with 0 and 2 minor digits), ledgers with amounts of any scale (numbers, texts with up to
 * 10 decimals), figures in any order, missing and fallback rates, unbalanced ledgers, rules and
 * intercompany transactions; and the same when the ledgers come as columns (`columnLedger`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CompanyLedger,
  type ConsolidationInput,
  type ConsolidationMethod,
  type ConsolidationResult,
  columnLedger,
  type EliminationRuleInput,
  type IntercompanyTransactionInput,
  type LedgerFigure,
  runConsolidation,
} from '../../src/domain/consolidation/index.ts';
import { scaleOf, toScaled } from '../../src/domain/consolidation/scaled.ts';
import {
  account,
  buildTestInput,
  type SimpleLine,
  type StoredRate,
  type TestCompany,
} from '../helpers/consolidation-input.ts';
import { lastDayOfMonth, makeDate } from '../../src/domain/dates.ts';
import { dec } from '../../src/domain/money.ts';
import { runConsolidation as legacyRun } from '../helpers/legacy-consolidation/engine.ts';

const CHART = [
  account('1000', 'Cash', 'Asset', 'CurrentAsset', { isCashEquivalent: true }),
  account('1200', 'Receivables', 'Asset', 'CurrentAsset'),
  account('1300', 'Intercompany receivable', 'Asset', 'CurrentAsset'),
  account('1400', 'Inventory', 'Asset', 'CurrentAsset', { isNonMonetary: true }),
  account('1500', 'Investments', 'Asset', 'NonCurrentAsset'),
  account('2000', 'Payables', 'Liability', 'CurrentLiability'),
  account('2300', 'Intercompany payable', 'Liability', 'CurrentLiability'),
  account('2600', 'Deferred revenue', 'Liability', 'NonCurrentLiability', { isNonMonetary: true }),
  account('3000', 'Share capital', 'Equity', 'ContributedCapital'),
  account('3200', 'Retained earnings', 'Equity', 'RetainedEarnings'),
  account('3300', 'Dividends', 'Equity', 'RetainedEarnings'),
  account('4000', 'Sales', 'Revenue', 'OperatingRevenue'),
  account('4100', 'Intercompany sales', 'Revenue', 'OperatingRevenue'),
  account('4500', 'Other income', 'Revenue', 'OtherRevenue'),
  account('5000', 'Cost of goods sold', 'Expense', 'CostOfGoodsSold'),
  account('6000', 'Operating expenses', 'Expense', 'OperatingExpense'),
];
const NUMBERS = CHART.map((a) => a.accountNumber);
const CURRENCIES = ['USD', 'EUR', 'JPY'] as const;
const PAIRS: [string, string][] = [
  ['EUR', 'USD'],
  ['JPY', 'USD'],
  ['EUR', 'JPY'],
];
const MONTHS: { y: number; m: number }[] = [];
for (let y = 2024; y <= 2026; y++) for (let m = 1; m <= 12; m++) MONTHS.push({ y, m });

function dateFromIndex(i: number): string {
  const d = new Date(Date.UTC(2024, 0, 1) + i * 86_400_000);
  return makeDate(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate());
}

/** units / 10^decimals as text */
function text(units: number, decimals: number): string {
  return dec(units).div(dec(10).pow(decimals)).toFixed(decimals);
}

const lineArb = fc.record({
  account: fc.constantFrom(...NUMBERS),
  units: fc.integer({ min: -5_000_000, max: 5_000_000 }),
});
const entryArb = fc.record({
  day: fc.integer({ min: 0, max: 1095 }),
  lines: fc.array(lineArb, { minLength: 1, maxLength: 3 }),
  balancing: fc.constantFrom(...NUMBERS),
  // fraction digits of the amounts: most often 2, sometimes 0, 8 or 10
  decimals: fc.constantFrom(2, 2, 2, 0, 8, 10),
});
const companyArb = fc.record({
  currency: fc.constantFrom(...CURRENCIES),
  method: fc.constantFrom<ConsolidationMethod>(
    'FullConsolidation',
    'ProportionateConsolidation',
    'EquityMethod',
  ),
  ownership: fc.constantFrom('100.00', '80.00', '60.00', '33.33', '50.50', '0.01', '99.99'),
  entries: fc.array(entryArb, { maxLength: 10 }),
});
const rateArb = fc.record({
  spots: fc.array(fc.option(fc.integer({ min: 1, max: 40_000 }), { nil: null, freq: 6 }), {
    minLength: MONTHS.length,
    maxLength: MONTHS.length,
  }),
  averages: fc.array(fc.option(fc.integer({ min: 1, max: 40_000 }), { nil: null }), {
    minLength: MONTHS.length,
    maxLength: MONTHS.length,
  }),
  // a pair without a first Spot rate can leave closing and historical look-ups without a rate
  firstSpot: fc.boolean(),
  digits: fc.constantFrom(4, 6, 12),
});
const icArb = fc.record({
  from: fc.nat(3),
  to: fc.nat(3),
  type: fc.constantFrom<IntercompanyTransactionInput['transactionType']>('Sale', 'Dividend', 'Loan'),
  status: fc.constantFrom<IntercompanyTransactionInput['matchingStatus']>('Matched', 'Unmatched'),
  day: fc.integer({ min: 366, max: 1095 }),
  units: fc.integer({ min: 1, max: 1_000_000 }),
  currency: fc.constantFrom(...CURRENCIES),
});
const groupArb = fc.record({
  reporting: fc.constantFrom(...CURRENCIES),
  parentCurrency: fc.constantFrom(...CURRENCIES),
  parentEntries: fc.array(entryArb, { minLength: 1, maxLength: 10 }),
  parentHasRe: fc.boolean(),
  members: fc.array(companyArb, { maxLength: 3 }),
  rates: fc.array(rateArb, { minLength: PAIRS.length, maxLength: PAIRS.length }),
  ic: fc.array(icArb, { maxLength: 5 }),
  rules: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  minimum: fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: null }),
  period: fc.integer({ min: 1, max: 13 }),
  unbalanced: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  skipValidation: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
  amountsAsNumbers: fc.boolean(),
  seed: fc.nat(),
});
type Group = typeof groupArb extends fc.Arbitrary<infer T> ? T : never;

const ids = (i: number) => `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`;

function linesOf(entries: Group['parentEntries'], unbalanced: boolean): SimpleLine[] {
  const out: SimpleLine[] = [];
  for (const e of entries) {
    const date = dateFromIndex(e.day);
    let total = 0;
    for (const l of e.lines) {
      out.push({ date, accountNumber: l.account, amount: text(l.units, e.decimals) });
      total += l.units;
    }
    out.push({ date, accountNumber: e.balancing, amount: text(-total + (unbalanced ? 1 : 0), e.decimals) });
  }
  return out;
}

function buildGroup(g: Group): ConsolidationInput {
  const companies: TestCompany[] = [
    {
      companyId: ids(0),
      companyName: 'Parent',
      functionalCurrency: g.parentCurrency,
      retainedEarningsAccountNumber: g.parentHasRe ? '3200' : null,
      accounts: CHART,
      lines: linesOf(g.parentEntries, g.unbalanced),
    },
    ...g.members.map((m, i) => ({
      companyId: ids(i + 1),
      companyName: `Member ${String.fromCharCode(90 - i)}`,
      functionalCurrency: m.currency,
      consolidationMethod: m.method,
      ownershipPercentage: m.ownership,
      accounts: CHART,
      lines: linesOf(m.entries, false),
    })),
  ];
  const rates: StoredRate[] = [];
  PAIRS.forEach(([from, to], p) => {
    const r = g.rates[p]!;
    const scale = from === 'EUR' && to === 'JPY' ? 100 : 0.0001;
    MONTHS.forEach(({ y, m }, i) => {
      const units = r.spots[i] ?? (i === 0 && r.firstSpot ? 12_345 : null);
      if (units !== null) {
        rates.push({
          id: `s-${p}-${i}`,
          fromCurrency: from,
          toCurrency: to,
          rateType: 'Spot',
          // mid-month rates make historical rates change within months
          effectiveDate: makeDate(y, m, i % 3 === 0 ? 1 : 15),
          rate: dec(units).times(scale).toDecimalPlaces(r.digits).toFixed(),
        });
      }
      const avg = r.averages[i];
      if (avg !== null && avg !== undefined) {
        rates.push({
          id: `a-${p}-${i}`,
          fromCurrency: from,
          toCurrency: to,
          rateType: 'Average',
          effectiveDate: makeDate(y, m, 15),
          rate: dec(avg).times(scale).toDecimalPlaces(r.digits).toFixed(),
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
      amount: text(t.units, t.currency === 'JPY' ? 0 : 2),
      currency: t.currency,
      matchingStatus: t.status,
    }))
    .filter((t) => t.fromCompanyId !== t.toCompanyId);
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
                minimumAmount: text(g.minimum, 3),
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
  const input = buildTestInput({
    reportingCurrency: g.reporting,
    asOfDate: g.period === 13 ? '2026-12-31' : lastDayOfMonth(2026, g.period),
    periodRef: { year: 2026, period: g.period },
    companies,
    rules: pool.filter((_, i) => g.rules[i]),
    intercompanyTransactions,
    rates,
    options: { skipValidation: g.skipValidation },
  });
  // Figures in a scrambled order, and (sometimes) amounts as numbers.
  let seed = g.seed;
  const scramble = (figures: LedgerFigure[]): LedgerFigure[] => {
    const out = figures.map((f) => ({
      ...f,
      amount: g.amountsAsNumbers ? Number(dec(f.amount).toFixed()) : f.amount,
    }));
    for (let i = out.length - 1; i > 0; i--) {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      const j = seed % (i + 1);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
  for (const view of [input.closing, input.opening]) {
    view.ledgers = view.ledgers.map((l) => ({ companyId: l.companyId, figures: scramble(l.figures) }));
  }
  return input;
}

/** The same ledger as columns: amounts as exact scaled integers at the largest scale any needs. */
function asColumns(l: CompanyLedger): CompanyLedger {
  const scale = Math.max(0, ...l.figures.map((f) => scaleOf(f.amount)));
  return columnLedger(l.companyId, {
    scale,
    accountNumbers: l.figures.map((f) => f.accountNumber),
    dates: l.figures.map((f) => f.date),
    units: l.figures.map((f) => toScaled(f.amount, scale)!),
  });
}

/**
 * The run's result without the statement facts stored with each view and the lines' contributions:
 * they came after the frozen engine (the cash-flow and equity statements' translation differences,
 * the traceability of the lines), which does not compute them.
 */
function run(input: ConsolidationInput): ConsolidationResult {
  const result = runConsolidation(input);
  for (const tb of [result.closingTrialBalance, result.openingTrialBalance]) if (tb) delete tb.statementFacts;
  delete result.contributions;
  return result;
}

describe('scaled-integer engine', () => {
  it('property: gives the decimal.js engine results exactly (figures and columns alike)', () => {
    fc.assert(
      fc.property(groupArb, (g) => {
        const expected = legacyRun(buildGroup(g));
        expect(run(buildGroup(g))).toEqual(expected);
        const input = buildGroup(g);
        for (const view of [input.closing, input.opening]) view.ledgers = view.ledgers.map(asColumns);
        expect(run(input)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('columnLedger builds its figures from the columns', () => {
    const l = columnLedger('c', {
      scale: 8,
      accountNumbers: ['1000', '4000'],
      dates: [null, '2026-01-31'],
      units: [12_345_000_000n, -5n],
    });
    expect(l.figures).toEqual([
      { accountNumber: '1000', date: null, amount: '123.45000000' },
      { accountNumber: '4000', date: '2026-01-31', amount: '-0.00000005' },
    ]);
  });
});

describe('figures the engine refuses', () => {
  const base = () =>
    buildTestInput({
      reportingCurrency: 'USD',
      asOfDate: '2026-06-30',
      periodRef: { year: 2026, period: 6 },
      companies: [
        { companyId: ids(0), companyName: 'Parent', functionalCurrency: 'USD', accounts: CHART, lines: [] },
        { companyId: ids(1), companyName: 'Sub', functionalCurrency: 'EUR', accounts: CHART, lines: [] },
      ],
      rates: [
        {
          id: 'r1',
          fromCurrency: 'EUR',
          toCurrency: 'USD',
          rateType: 'Spot',
          effectiveDate: '2024-01-01',
          rate: '1.1',
        },
      ],
    });
  const cases: [string, LedgerFigure][] = [
    ['an unknown account', { accountNumber: '9999', date: '2026-01-10', amount: '5' }],
    [
      'an equity figure of a foreign member without a date',
      { accountNumber: '3000', date: null, amount: '5' },
    ],
    ['a revenue figure without a date', { accountNumber: '4000', date: null, amount: '5' }],
    ['a figure dated after the view', { accountNumber: '4000', date: '2026-07-01', amount: '5' }],
    [
      'a revenue figure outside the group periods',
      { accountNumber: '4000', date: '1990-01-01', amount: '5' },
    ],
  ];
  for (const [what, figure] of cases) {
    it(`fails Translate for ${what} exactly as the decimal.js engine did`, () => {
      const make = () => {
        const input = base();
        input.closing.ledgers = [
          {
            companyId: ids(1),
            figures: [
              { accountNumber: '1000', date: '2026-01-05', amount: '-6.5' },
              figure,
              { accountNumber: '1200', date: '2026-01-06', amount: '1.5' },
            ],
          },
        ];
        return input;
      };
      const expected = legacyRun(make());
      expect(expected.steps.find((s) => s.status === 'Failed')?.stepType).toBe('Translate');
      expect(run(make())).toEqual(expected);
      const columns = make();
      columns.closing.ledgers = columns.closing.ledgers.map(asColumns);
      expect(run(columns)).toEqual(expected);
    });
  }
});
