/**
 * Property: a company balance sheet translated into another currency (the engine's Translate step on
 * a group of one, then the balance-sheet builder) balances to the cent for any balanced ledger and
 * any rates, and its cumulative translation adjustment is exactly what makes it balance. And the
 * cash-flow and equity statements of a period in another currency (the consolidated statements of
 * the group of one) agree with the translated balance sheets at both ends of the period.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  translateCompany,
  translateCompanyPeriod,
  translatedCashFlowStatement,
  translatedEquityStatement,
} from '../../src/domain/consolidation/company-translation.ts';
import { addDays, lastDayOfMonth, makeDate } from '../../src/domain/dates.ts';
import { dec, ZERO } from '../../src/domain/money.ts';
import { buildBalanceSheet, type ReportAccount } from '../../src/domain/reports/index.ts';
import { translatedFigures } from '../../src/domain/consolidation/company-translation.ts';
import {
  account,
  buildTestInput,
  entry,
  type SimpleLine,
  type StoredRate,
} from '../helpers/consolidation-input.ts';

const CHART = [
  account('1000', 'Cash', 'Asset', 'CurrentAsset', { isCashEquivalent: true }),
  account('1500', 'Equipment', 'Asset', 'FixedAsset', { isNonMonetary: true }),
  account('2000', 'Payable', 'Liability', 'CurrentLiability'),
  account('3000', 'Share capital', 'Equity', 'ContributedCapital'),
  account('3300', 'Retained earnings', 'Equity', 'RetainedEarnings'),
  account('4000', 'Revenue', 'Revenue', 'OperatingRevenue'),
  account('5000', 'Expense', 'Expense', 'OperatingExpense'),
];
const NUMBERS = CHART.map((a) => a.accountNumber);

const reportAccounts = (withRe: boolean): ReportAccount[] =>
  CHART.map((a) => ({
    id: `id-${a.accountNumber}`,
    accountNumber: a.accountNumber,
    name: a.name,
    accountType: a.accountType,
    accountCategory: a.accountCategory,
    isPostable: true,
    isCashEquivalent: a.isCashEquivalent,
    cashFlowCategory: null,
    isRetainedEarningsAccount: withRe && a.accountNumber === '3300',
  }));

const day = fc.integer({ min: 0, max: 729 }).map((n) => {
  const d = new Date(Date.UTC(2024, 0, 1) + n * 86_400_000);
  return d.toISOString().slice(0, 10);
});
const cents = fc.integer({ min: 1, max: 5_000_000 }).map((n) => (n / 100).toFixed(2));
const rateText = fc.integer({ min: 5_000, max: 25_000 }).map((n) => (n / 10_000).toFixed(4));

const ledger = fc.array(
  fc.record({
    date: day,
    debit: fc.constantFrom(...NUMBERS),
    credit: fc.constantFrom(...NUMBERS),
    amount: cents,
  }),
  { minLength: 1, maxLength: 25 },
);

/** Spot rates at every month end, Historical rates at some dates, Average rates for some months. */
const rates = fc.record({
  spot: fc.array(rateText, { minLength: 25, maxLength: 25 }),
  average: fc.array(fc.option(rateText, { nil: null }), { minLength: 25, maxLength: 25 }),
  historical: fc.array(fc.record({ date: day, rate: rateText }), { maxLength: 6 }),
  opening: rateText,
});
type RateDraw = {
  spot: string[];
  average: (string | null)[];
  historical: { date: string; rate: string }[];
  opening: string;
};

/** The stored rates of a draw of `rates`. */
function storedRates(r: RateDraw): StoredRate[] {
  const stored: StoredRate[] = [
    {
      id: 'h0',
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      rateType: 'Historical',
      effectiveDate: '2023-12-31',
      rate: r.opening,
    },
  ];
  for (let i = 0; i < 25; i++) {
    const y = 2023 + Math.floor((i + 11) / 12);
    const mo = ((i + 11) % 12) + 1;
    const end = lastDayOfMonth(y, mo);
    stored.push({
      id: `s${i}`,
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      rateType: 'Spot',
      effectiveDate: end,
      rate: r.spot[i]!,
    });
    const avg = r.average[i];
    if (avg) {
      stored.push({
        id: `a${i}`,
        fromCurrency: 'EUR',
        toCurrency: 'USD',
        rateType: 'Average',
        effectiveDate: makeDate(y, mo, 15),
        rate: avg,
      });
    }
  }
  r.historical.forEach((h, i) =>
    stored.push({
      id: `h${i + 1}`,
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      rateType: 'Historical',
      effectiveDate: h.date,
      rate: h.rate,
    }),
  );
  return stored;
}

describe('translated company balance sheet', () => {
  it('balances to the cent for random ledgers and rates', () => {
    fc.assert(
      fc.property(ledger, rates, day, fc.boolean(), (entries, r, asOfDate, withRe) => {
        const lines: SimpleLine[] = entries.flatMap((e) =>
          entry(e.date, [e.debit, e.amount], [e.credit, `-${e.amount}`]),
        );
        const stored = storedRates(r);
        const year = Number(asOfDate.slice(0, 4));
        const input = buildTestInput({
          reportingCurrency: 'USD',
          asOfDate,
          periodRef: { year, period: Number(asOfDate.slice(5, 7)) },
          companies: [
            {
              companyId: 'c',
              companyName: 'EUR company',
              functionalCurrency: 'EUR',
              retainedEarningsAccountNumber: withRe ? '3300' : null,
              accounts: CHART,
              lines,
            },
          ],
          rates: stored,
        });
        const t = translateCompany(input);
        expect(t.ok).toBe(true);
        if (!t.ok) return;
        // The translated balances (CTA included) sum to zero exactly.
        const sum = t.balances.reduce((s, b) => s.plus(b.net), ZERO);
        expect(sum.isZero()).toBe(true);
        for (const b of t.balances) expect(dec(b.net).decimalPlaces()).toBeLessThanOrEqual(2);

        const accounts = reportAccounts(withRe);
        const f = translatedFigures(t.balances, accounts);
        const report = buildBalanceSheet({
          companyId: 'c',
          currency: 'USD',
          generatedAt: '2026-01-01T00:00:00.000Z',
          asOfDate,
          comparativeDate: null,
          comparative: null,
          balances: f.rows,
          currentYearEarnings: f.currentYearEarnings,
          priorUnclosedEarnings: f.priorUnclosedEarnings,
          accounts,
          includeZeroBalances: false,
          translationAdjustment: { current: f.translationAdjustment, comparative: null },
        });
        expect(report.isBalanced).toBe(true);
        expect(report.totalAssets.value).toBe(report.totalLiabilitiesAndEquity.value);
      }),
      { numRuns: 200 },
    );
  });
});

describe('translated company cash-flow and equity statements', () => {
  it('reconcile to the translated balance sheets at both ends of the period', () => {
    fc.assert(
      fc.property(ledger, rates, day, day, fc.boolean(), (entries, r, d1, d2, withRe) => {
        const [start, end] = d1 <= d2 ? [d1, d2] : [d2, d1];
        // The day before the period has a closing rate (Spot rates start at the end of 2023).
        const lines: SimpleLine[] = entries.flatMap((e) =>
          entry(e.date, [e.debit, e.amount], [e.credit, `-${e.amount}`]),
        );
        const stored = storedRates(r);
        const inputAt = (asOfDate: string) => {
          const input = buildTestInput({
            reportingCurrency: 'USD',
            asOfDate,
            periodRef: { year: Number(asOfDate.slice(0, 4)), period: Number(asOfDate.slice(5, 7)) },
            companies: [
              {
                companyId: 'c',
                companyName: 'EUR company',
                functionalCurrency: 'EUR',
                retainedEarningsAccountNumber: withRe ? '3300' : null,
                accounts: CHART,
                lines,
              },
            ],
            rates: stored,
            options: { skipValidation: true },
          });
          // The period's start stands for the year start in both views.
          return { ...input, yearStartDate: start, closing: { ...input.closing, yearStartDate: start } };
        };
        const views = translateCompanyPeriod(inputAt(end), inputAt(addDays(start, -1)));
        expect(views.ok).toBe(true);
        if (!views.ok) return;
        const accounts = reportAccounts(withRe);
        const header = {
          companyId: 'c',
          periodStartDate: start,
          periodEndDate: end,
          currency: 'USD',
          generatedAt: '2026-01-01T00:00:00.000Z',
        };
        const cash = (tb: typeof views.closing) =>
          tb.lineItems
            .filter((l) => l.isCashEquivalent)
            .reduce((t, l) => t.plus(l.consolidatedBalance.value), ZERO);
        const cf = translatedCashFlowStatement(header, views, accounts);
        expect(cf.isReconciled).toBe(true);
        expect(dec(cf.beginningCash.value).equals(cash(views.opening))).toBe(true);
        expect(dec(cf.endingCash.value).equals(cash(views.closing))).toBe(true);
        // The cash at both ends is the translated balance sheet's (the single-view translation).
        for (const [asOf, amount] of [
          [addDays(start, -1), cf.beginningCash.value],
          [end, cf.endingCash.value],
        ] as const) {
          const t = translateCompany({ ...inputAt(asOf) });
          expect(t.ok).toBe(true);
          if (!t.ok) return;
          const c = t.balances.find((b) => b.kind === 'account' && b.key === '1000')?.net ?? '0';
          expect(dec(c).equals(dec(amount))).toBe(true);
        }

        const eq = translatedEquityStatement(header, views);
        // Column by column, closing = opening + Σ movements.
        for (const col of [
          'contributedCapital',
          'retainedEarnings',
          'treasuryStock',
          'accumulatedOCI',
          'total',
        ] as const) {
          const moved = eq.movements.reduce(
            (t, m) => t.plus(m[col].value),
            dec(eq.openingBalances[col].value),
          );
          expect(moved.equals(dec(eq.closingBalances[col].value))).toBe(true);
        }
        // The closing total is the translated balance sheet's total equity at the period's end.
        const t = translateCompany(inputAt(end));
        if (!t.ok) return;
        const f = translatedFigures(t.balances, accounts);
        const bs = buildBalanceSheet({
          companyId: 'c',
          currency: 'USD',
          generatedAt: header.generatedAt,
          asOfDate: end,
          comparativeDate: null,
          comparative: null,
          balances: f.rows,
          currentYearEarnings: f.currentYearEarnings,
          priorUnclosedEarnings: f.priorUnclosedEarnings,
          accounts,
          includeZeroBalances: false,
          translationAdjustment: { current: f.translationAdjustment, comparative: null },
        });
        expect(eq.closingBalances.total.value).toBe(bs.totalEquity.value);
      }),
      { numRuns: 100 },
    );
  });
});
