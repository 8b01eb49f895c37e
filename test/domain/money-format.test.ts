/**
 * The formatters of src/domain/money.ts format plain decimal texts (what NUMERIC columns read as) by
 * cutting the text; the answer must be exactly decimal.js's, which they use for every other input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal, formatRate, roundTo, toFixedString, ZERO } from '../../src/domain/money.ts';

/** The formatters as they were: through decimal.js for every input. */
const viaDecimal = {
  toFixedString(value: string, decimals: number): string {
    const d = roundTo(value, decimals);
    return (d.isZero() ? ZERO : d).toFixed(decimals);
  },
  formatRate(value: string): string {
    const s = new Decimal(value).toFixed();
    return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
  },
};

const digits = (min: number, max: number) =>
  fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((d) => d.join(''));

/** Plain decimal texts: NUMERIC(28, 8)-like amounts with many trailing zeros, and any others. */
const plainText = fc
  .record({
    negative: fc.boolean(),
    whole: fc.oneof(
      fc.constant('0'),
      fc.tuple(fc.constantFrom(...'123456789'), digits(0, 19)).map(([a, b]) => a + b),
    ),
    fraction: fc.oneof(
      fc.constant(''),
      digits(1, 4).map((d) => d.padEnd(8, '0')),
      digits(1, 12),
      fc.constant('00000000'),
    ),
  })
  .map(({ negative, whole, fraction }) => `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`);

describe('money formatting of decimal texts', () => {
  it('toFixedString of any plain decimal text equals decimal.js', () => {
    fc.assert(
      fc.property(plainText, fc.integer({ min: 0, max: 4 }), (text, decimals) => {
        expect(toFixedString(text, decimals)).toBe(viaDecimal.toFixedString(text, decimals));
      }),
      { numRuns: 5000 },
    );
  });

  it('formatRate of any plain decimal text equals decimal.js', () => {
    fc.assert(
      fc.property(plainText, (text) => {
        expect(formatRate(text)).toBe(viaDecimal.formatRate(text));
      }),
      { numRuns: 5000 },
    );
  });

  it.each([
    ['-0.00000000', 2, '0.00'],
    ['-0.00400000', 2, '0.00'],
    ['-0.00500000', 2, '-0.01'],
    ['12.34500000', 2, '12.35'],
    ['1234.00000000', 0, '1234'],
    ['7', 3, '7.000'],
    ['1e3', 2, '1000.00'],
    ['007.5', 2, '7.50'],
  ])('toFixedString(%s, %i) is %s', (text, decimals, expected) => {
    expect(toFixedString(text, decimals)).toBe(expected);
    expect(viaDecimal.toFixedString(text, decimals)).toBe(expected);
  });

  it.each([
    ['1.10000000', '1.1'],
    ['150.000000000000', '150'],
    ['-0.000', '0'],
    ['0.000000000001', '0.000000000001'],
  ])('formatRate(%s) is %s', (text, expected) => {
    expect(formatRate(text)).toBe(expected);
    expect(viaDecimal.formatRate(text)).toBe(expected);
  });
});
