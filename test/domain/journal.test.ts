import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { minorUnits } from '../../src/domain/codes.ts';
import {
  balanceFunctional,
  type ConvertibleLine,
  checkTransactionBalance,
  convertLine,
  convertLines,
  entryTotals,
  isMultiCurrency,
  type LineSide,
  parseMoneyValue,
  validateMoneyInput,
  validateRateInput,
} from '../../src/domain/journal/amounts.ts';
import { dec, formatAmount, sum } from '../../src/domain/money.ts';

function line(
  lineNumber: number,
  side: LineSide,
  amount: string,
  currency: string,
  exchangeRate: string,
): ConvertibleLine {
  return { lineNumber, side, amount, currency, exchangeRate };
}

/** Converts and balances; returns the functional amounts as text, or the error. */
function book(lines: ConvertibleLine[], functional: string) {
  const result = balanceFunctional(convertLines(lines, functional), functional);
  if (!result.ok) return result;
  return {
    ok: true as const,
    amounts: result.lines.map((l) => formatAmount(l.functionalAmount, functional)),
    adjustment: result.adjustment && {
      lineNumber: result.adjustment.lineNumber,
      difference: result.adjustment.difference.toFixed(),
    },
    totals: entryTotals(result.lines, functional),
  };
}

describe('convertLine (R5)', () => {
  it('multiplies and rounds half away from zero to the functional minor unit', () => {
    expect(convertLine('100.01', '1.0845', 'USD').toFixed()).toBe('108.46'); // 108.460845
    expect(convertLine('1.25', '0.5', 'EUR').toFixed()).toBe('0.63'); // 0.625 → 0.63 (half-even: 0.62)
    expect(convertLine('10.00', '151.2345', 'JPY').toFixed()).toBe('1512'); // 1512.345
    expect(convertLine('1.5', '1', 'JPY').toFixed()).toBe('2'); // 1.5 → 2
    expect(convertLine('0.01', '0.3315', 'KWD').toFixed()).toBe('0.003'); // 0.003315
    expect(convertLine('1250', '0.0066666667', 'USD').toFixed()).toBe('8.33'); // 8.333333375
  });
});

describe('checkTransactionBalance (R6a)', () => {
  it('accepts a balanced single-currency entry', () => {
    expect(
      checkTransactionBalance([line(1, 'debit', '100.00', 'EUR', '1'), line(2, 'credit', '100', 'EUR', '1')]),
    ).toBeNull();
  });

  it('reports an unbalanced single-currency entry in that currency', () => {
    // debits 100.00 + 0.50 = 100.50, credits 100.00, difference 0.50
    expect(
      checkTransactionBalance([
        line(1, 'debit', '100.00', 'EUR', '1'),
        line(2, 'debit', '0.5', 'EUR', '1'),
        line(3, 'credit', '100.00', 'EUR', '1'),
      ]),
    ).toEqual({
      basis: 'transaction',
      totalDebits: { value: '100.50', currency: 'EUR' },
      totalCredits: { value: '100.00', currency: 'EUR' },
      difference: { value: '0.50', currency: 'EUR' },
    });
    // negative difference: debits 5 − credits 7 = −2 JPY
    expect(
      checkTransactionBalance([line(1, 'debit', '5', 'JPY', '1'), line(2, 'credit', '7', 'JPY', '1')])
        ?.difference,
    ).toEqual({ value: '-2', currency: 'JPY' });
  });

  it('does not apply to multi-currency entries', () => {
    expect(
      checkTransactionBalance([
        line(1, 'debit', '100.00', 'EUR', '1.1'),
        line(2, 'credit', '50.00', 'USD', '1'),
      ]),
    ).toBeNull();
  });
});

describe('balanceFunctional (R6b)', () => {
  it('absorbs a 0.01 rounding difference of EUR lines at 1.0845 into USD', () => {
    // 100.00 × 1.0845 = 108.45 (debit); 33.33 × 1.0845 = 36.146385 → 36.15 (twice);
    // 33.34 × 1.0845 = 36.157230 → 36.16. Credits 108.46, debits 108.45: diff = −0.01, n = 4.
    // Largest foreign line is line 1 (debit 108.45), reduced by −0.01 → 108.46.
    const lines = [
      line(1, 'debit', '100.00', 'EUR', '1.0845'),
      line(2, 'credit', '33.33', 'EUR', '1.0845'),
      line(3, 'credit', '33.33', 'EUR', '1.0845'),
      line(4, 'credit', '33.34', 'EUR', '1.0845'),
    ];
    expect(checkTransactionBalance(lines)).toBeNull();
    expect(book(lines, 'USD')).toEqual({
      ok: true,
      amounts: ['108.46', '36.15', '36.15', '36.16'],
      adjustment: { lineNumber: 1, difference: '-0.01' },
      totals: {
        totalDebits: { value: '108.46', currency: 'USD' },
        totalCredits: { value: '108.46', currency: 'USD' },
      },
    });
  });

  it('increases a credit line by the difference', () => {
    // debit USD 108.47 (rate 1); credit EUR 100.01 × 1.0845 = 108.460845 → 108.46; diff = +0.01, n = 1
    // → the EUR credit line becomes 108.46 + 0.01 = 108.47
    const r = book(
      [line(1, 'debit', '108.47', 'USD', '1'), line(2, 'credit', '100.01', 'EUR', '1.0845')],
      'USD',
    );
    expect(r).toMatchObject({ ok: true, amounts: ['108.47', '108.47'], adjustment: { lineNumber: 2 } });
  });

  it('leaves a balanced entry unchanged', () => {
    const r = book(
      [line(1, 'debit', '100.00', 'EUR', '1.0845'), line(2, 'credit', '100.00', 'EUR', '1.0845')],
      'USD',
    );
    expect(r).toMatchObject({ ok: true, amounts: ['108.45', '108.45'], adjustment: null });
  });

  it('breaks ties on the largest functional amount by the lowest line number, among foreign lines only', () => {
    // lines 2 and 3: 10.01 × 1.0845 = 10.855845 → 10.86 each; line 1 credit USD 21.71 (not foreign)
    // diff = 21.72 − 21.71 = 0.01, n = 2 → line 2 (lowest of the tie) is reduced to 10.85
    const r = book(
      [
        line(1, 'credit', '21.71', 'USD', '1'),
        line(2, 'debit', '10.01', 'EUR', '1.0845'),
        line(3, 'debit', '10.01', 'EUR', '1.0845'),
      ],
      'USD',
    );
    expect(r).toMatchObject({
      ok: true,
      amounts: ['21.71', '10.85', '10.86'],
      adjustment: { lineNumber: 2 },
    });
  });

  it('works in a zero-decimal functional currency (JPY)', () => {
    // USD lines at 151.2345: 10.00 → 1512.345 → 1512 (debit); 3.33 → 503.610885 → 504;
    // 6.67 → 1008.734115 → 1009 (credits). diff = 1512 − 1513 = −1 JPY, n = 3, 1 ≤ 3 minor units.
    // Largest foreign line is line 1 (debit 1512), reduced by −1 → 1513.
    const r = book(
      [
        line(1, 'debit', '10.00', 'USD', '151.2345'),
        line(2, 'credit', '3.33', 'USD', '151.2345'),
        line(3, 'credit', '6.67', 'USD', '151.2345'),
      ],
      'JPY',
    );
    expect(r).toMatchObject({
      ok: true,
      amounts: ['1513', '504', '1009'],
      adjustment: { lineNumber: 1, difference: '-1' },
      totals: {
        totalDebits: { value: '1513', currency: 'JPY' },
        totalCredits: { value: '1513', currency: 'JPY' },
      },
    });
  });

  it('works in a three-decimal functional currency (KWD)', () => {
    // EUR at 0.3315: 0.03 → 0.009945 → 0.010 (debit); 0.01 → 0.003315 → 0.003 (three credits, 0.009).
    // diff = 0.001 KWD, n = 4 → line 1 (largest) reduced to 0.009.
    const r = book(
      [
        line(1, 'debit', '0.03', 'EUR', '0.3315'),
        line(2, 'credit', '0.01', 'EUR', '0.3315'),
        line(3, 'credit', '0.01', 'EUR', '0.3315'),
        line(4, 'credit', '0.01', 'EUR', '0.3315'),
      ],
      'KWD',
    );
    expect(r).toMatchObject({
      ok: true,
      amounts: ['0.009', '0.003', '0.003', '0.003'],
      adjustment: { lineNumber: 1, difference: '0.001' },
    });
  });

  it('rejects a difference larger than n minor units', () => {
    // 100.00 × 1.0845 = 108.45 (debit), 100.00 × 1.0850 = 108.50 (credit): diff = −0.05 > 2 × 0.01
    const r = book(
      [line(1, 'debit', '100.00', 'EUR', '1.0845'), line(2, 'credit', '100.00', 'EUR', '1.0850')],
      'USD',
    );
    expect(r).toEqual({
      ok: false,
      error: {
        basis: 'functional',
        totalDebits: { value: '108.45', currency: 'USD' },
        totalCredits: { value: '108.50', currency: 'USD' },
        difference: { value: '-0.05', currency: 'USD' },
      },
    });
  });

  it('accepts a difference of exactly n minor units', () => {
    // 100.00 × 1.0845 = 108.45 (debit), 100.00 × 1.0847 = 108.47 (credit): diff = −0.02 = 2 × 0.01.
    // The largest foreign line is the credit line 2 (108.47), increased by −0.02 → 108.45.
    const r = book(
      [line(1, 'debit', '100.00', 'EUR', '1.0845'), line(2, 'credit', '100.00', 'EUR', '1.0847')],
      'USD',
    );
    expect(r).toMatchObject({ ok: true, amounts: ['108.45', '108.45'], adjustment: { lineNumber: 2 } });
  });

  it('rejects an absorption that would leave the amount at or below zero', () => {
    // 0.01 × 0.6 = 0.006 → 0.01 (debit); 0.01 × 0.4 = 0.004 → 0.00 (credit); diff = 0.01, n = 2.
    // The largest foreign line (line 1, debit 0.01) would become 0.01 − 0.01 = 0.00 → rejected.
    const r = book([line(1, 'debit', '0.01', 'EUR', '0.6'), line(2, 'credit', '0.01', 'EUR', '0.4')], 'USD');
    expect(r).toEqual({
      ok: false,
      error: {
        basis: 'functional',
        totalDebits: { value: '0.01', currency: 'USD' },
        totalCredits: { value: '0.00', currency: 'USD' },
        difference: { value: '0.01', currency: 'USD' },
      },
    });
  });

  it('rejects any difference when no line is in a foreign currency (n = 0)', () => {
    const r = balanceFunctional(
      [
        { lineNumber: 1, side: 'debit', amount: '1.00', currency: 'USD', functionalAmount: '1.00' },
        { lineNumber: 2, side: 'credit', amount: '0.99', currency: 'USD', functionalAmount: '0.99' },
      ],
      'USD',
    );
    expect(r.ok).toBe(false);
  });
});

describe('isMultiCurrency and entryTotals', () => {
  it('detects more than one currency', () => {
    expect(isMultiCurrency([{ currency: 'EUR' }, { currency: 'EUR' }])).toBe(false);
    expect(isMultiCurrency([{ currency: 'EUR' }, { currency: 'USD' }])).toBe(true);
  });

  it('sums functional amounts per side in the functional currency', () => {
    expect(
      entryTotals(
        [
          { lineNumber: 1, side: 'debit', amount: '1', currency: 'EUR', functionalAmount: '1.1' },
          { lineNumber: 2, side: 'debit', amount: '2', currency: 'EUR', functionalAmount: '2.2' },
          { lineNumber: 3, side: 'credit', amount: '3.3', currency: 'USD', functionalAmount: '3.3' },
        ],
        'USD',
      ),
    ).toEqual({
      totalDebits: { value: '3.30', currency: 'USD' },
      totalCredits: { value: '3.30', currency: 'USD' },
    });
  });
});

describe('validateMoneyInput (1.7)', () => {
  const positive = (v: unknown, c = 'USD') => validateMoneyInput(v, c);

  it('accepts fewer fraction digits than the minor unit', () => {
    expect(positive('100')).toBeNull();
    expect(positive('100.5')).toBeNull();
    expect(positive('100.50')).toBeNull();
    expect(positive('0.01')).toBeNull();
    expect(positive('1500', 'JPY')).toBeNull();
    expect(positive('1.250', 'KWD')).toBeNull();
    expect(positive('1.2345', 'CLF')).toBeNull();
  });

  it('refuses more fraction digits than the minor unit', () => {
    expect(positive('100.005')).toMatch(/at most 2 decimals/);
    expect(positive('1.5', 'JPY')).toMatch(/no decimal point/);
    expect(positive('1.0', 'JPY')).toMatch(/no decimal point/);
    expect(positive('1.2500', 'KWD')).toMatch(/at most 3 decimals/);
  });

  it('refuses anything off the pattern', () => {
    for (const bad of [
      ' 100.00',
      '100.00 ',
      '1e3',
      '+1',
      '1,000',
      '01',
      '1.',
      '.5',
      '',
      '1 000',
      '0x10',
      '١٠',
    ]) {
      expect(positive(bad), bad).not.toBeNull();
    }
    expect(positive(100)).toMatch(/string/);
    expect(positive(null)).not.toBeNull();
  });

  it('allows at most 15 integer digits', () => {
    expect(positive('123456789012345')).toBeNull();
    expect(positive('123456789012345.99')).toBeNull();
    expect(positive('1234567890123456')).not.toBeNull();
  });

  it('applies the sign rules; "-0" is zero', () => {
    expect(positive('0')).toMatch(/greater than zero/);
    expect(positive('-0')).toMatch(/greater than zero/);
    expect(positive('-5')).toMatch(/greater than zero/);
    expect(validateMoneyInput('0', 'USD', { allowZero: true })).toBeNull();
    expect(validateMoneyInput('-0', 'USD', { allowZero: true })).toBeNull();
    expect(validateMoneyInput('-0.00', 'USD', { allowZero: true })).toBeNull();
    expect(validateMoneyInput('-0.01', 'USD', { allowZero: true })).toMatch(/negative/);
    expect(validateMoneyInput('-12.50', 'USD', { allowNegative: true })).toBeNull();
    expect(validateMoneyInput('-0', 'USD', { allowNegative: true })).toBeNull();
    expect(validateMoneyInput('-1.005', 'USD', { allowNegative: true })).toMatch(/decimals/);
    expect(parseMoneyValue('-0').isNegative()).toBe(false);
    expect(formatAmount(parseMoneyValue('-0'), 'USD')).toBe('0.00');
  });

  it('does not throw for an unknown currency', () => {
    expect(positive('1', 'usd')).toMatch(/currency/);
  });
});

describe('validateRateInput (1.7)', () => {
  it('accepts positive decimals with at most 12 integer digits and 10 decimals', () => {
    for (const ok of ['1.0845', '150', '0.0066666667', '999999999999', '0.0000000001', '1.10']) {
      expect(validateRateInput(ok), ok).toBeNull();
    }
  });

  it('refuses zero, negatives, numbers, exponents and too many digits', () => {
    for (const bad of [
      '0',
      '0.0',
      '0.0000000000',
      '-1',
      '1e2',
      '0.00000000001',
      '1000000000000',
      '1.',
      '.5',
      ' 1',
    ]) {
      expect(validateRateInput(bad), bad).not.toBeNull();
    }
    expect(validateRateInput('0')).toMatch(/greater than zero/);
    expect(validateRateInput(1.0845)).toMatch(/string/);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

/** Positive amounts in minor units of `currency`, as Money text. */
function amountText(minor: number, currency: string): string {
  return formatAmount(dec(minor).dividedBy(dec(10).pow(minorUnits(currency))), currency);
}

/** Splits `total` (> 0, minor units) into `parts` positive pieces given by cut weights. */
function split(total: number, weights: number[]): number[] {
  const w = sum(weights);
  const pieces = weights.map((x) => dec(total).times(x).dividedBy(w).floor().toNumber());
  const rest = total - pieces.reduce((a, b) => a + b, 0);
  pieces[0] = (pieces[0] ?? 0) + rest;
  return pieces.filter((p) => p > 0);
}

/** A rate with 1–6 decimals between 0.1 and 1000. */
const arbRate = fc
  .integer({ min: 100_000, max: 1_000_000_000 })
  .map((n) => dec(n).dividedBy(1_000_000).toFixed());

/** Lines of one currency balanced in that currency (R6a holds per currency). */
function arbBalancedGroup(currency: string) {
  return fc
    .record({
      total: fc.integer({ min: 100_000, max: 1_000_000_000 }),
      debitWeights: fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 4 }),
      creditWeights: fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 4 }),
      rate: arbRate,
    })
    .map(({ total, debitWeights, creditWeights, rate }) => [
      ...split(total, debitWeights).map((m) => ({
        side: 'debit' as const,
        amount: amountText(m, currency),
        currency,
        rate,
      })),
      ...split(total, creditWeights).map((m) => ({
        side: 'credit' as const,
        amount: amountText(m, currency),
        currency,
        rate,
      })),
    ]);
}

const FUNCTIONAL = ['USD', 'JPY', 'KWD'] as const;

const arbEntry = fc.constantFrom(...FUNCTIONAL).chain((functional) =>
  fc
    .tuple(
      arbBalancedGroup('EUR'),
      fc.option(arbBalancedGroup('GBP'), { nil: null }),
      fc.option(arbBalancedGroup(functional), { nil: null }),
    )
    .chain(([eur, gbp, own]) => {
      const raw = [...eur, ...(gbp ?? []), ...(own ?? [])];
      return fc.shuffledSubarray(raw, { minLength: raw.length }).map((shuffled) => ({
        functional,
        lines: shuffled.map((l, i) =>
          line(i + 1, l.side, l.amount, l.currency, l.currency === functional ? '1' : l.rate),
        ),
      }));
    }),
);

describe('properties', () => {
  it('for balanced foreign-currency entries with one rate per currency, balancing always succeeds and the functional debits equal the functional credits exactly', () => {
    fc.assert(
      fc.property(arbEntry, ({ functional, lines }) => {
        expect(checkTransactionBalance(lines)).toBeNull();
        const converted = convertLines(lines, functional);
        const result = balanceFunctional(converted, functional);
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        const { totalDebits, totalCredits } = entryTotals(result.lines, functional);
        expect(totalDebits).toEqual(totalCredits);
        // at most one line changed, by at most n minor units, and it is a foreign line that stays > 0
        const changed = result.lines.filter(
          (l, i) => !l.functionalAmount.equals(converted[i]!.functionalAmount),
        );
        expect(changed.length).toBeLessThanOrEqual(1);
        const n = lines.filter((l) => l.currency !== functional).length;
        for (const c of changed) {
          expect(c.currency).not.toBe(functional);
          expect(c.functionalAmount.greaterThan(0)).toBe(true);
          expect(
            result.adjustment?.difference
              .abs()
              .lessThanOrEqualTo(dec(10).pow(-minorUnits(functional)).times(n)),
          ).toBe(true);
        }
      }),
    );
  });

  it('a functional difference beyond n minor units is always rejected with difference = debits − credits', () => {
    fc.assert(
      fc.property(
        arbEntry,
        fc.integer({ min: 1, max: 1000 }),
        fc.boolean(),
        ({ functional, lines }, extra, up) => {
          const converted = convertLines(lines, functional);
          const n = lines.filter((l) => l.currency !== functional).length;
          const unit = dec(10).pow(-minorUnits(functional));
          const base = sum(converted.filter((l) => l.side === 'debit').map((l) => l.functionalAmount)).minus(
            sum(converted.filter((l) => l.side === 'credit').map((l) => l.functionalAmount)),
          );
          // push the first debit line so that |diff| becomes n + extra minor units
          const target = unit.times(n + extra).times(up ? 1 : -1);
          const first = converted.find((l) => l.side === 'debit')!;
          const shifted = first.functionalAmount.plus(target.minus(base));
          fc.pre(shifted.greaterThan(0));
          first.functionalAmount = shifted;
          const result = balanceFunctional(converted, functional);
          expect(result.ok).toBe(false);
          if (result.ok) return;
          expect(result.error.basis).toBe('functional');
          expect(dec(result.error.difference.value).equals(target)).toBe(true);
          expect(
            dec(result.error.totalDebits.value).minus(result.error.totalCredits.value).equals(target),
          ).toBe(true);
        },
      ),
    );
  });

  it('the conversion rounding error of a line is at most half a minor unit', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('USD', 'JPY', 'KWD', 'CLF'),
        fc.integer({ min: 1, max: 1_000_000_000_000 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 1, max: 10_000_000_000 }),
        fc.integer({ min: 0, max: 10 }),
        (functional, amountMinor, amountScale, rateDigits, rateScale) => {
          const amount = dec(amountMinor).dividedBy(dec(10).pow(amountScale));
          const rate = dec(rateDigits).dividedBy(dec(10).pow(rateScale));
          const exact = amount.times(rate);
          const converted = convertLine(amount, rate, functional);
          const halfUnit = dec(10).pow(-minorUnits(functional)).dividedBy(2);
          expect(converted.minus(exact).abs().lessThanOrEqualTo(halfUnit)).toBe(true);
          expect(converted.decimalPlaces()).toBeLessThanOrEqual(minorUnits(functional));
        },
      ),
    );
  });

  it('every positive amount written by formatAmount passes validateMoneyInput', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('USD', 'JPY', 'KWD', 'CLF', 'EUR'),
        fc.bigInt({ min: 1n, max: 999_999_999_999_999n }),
        (currency, minor) => {
          const text = amountText(Number(minor), currency);
          fc.pre(text.split('.')[0]!.length <= 15);
          expect(validateMoneyInput(text, currency)).toBeNull();
          expect(validateMoneyInput('-' + text, currency)).not.toBeNull();
          expect(validateMoneyInput('-' + text, currency, { allowNegative: true })).toBeNull();
        },
      ),
    );
  });
});
