/**
 * The exact scaled-integer kernel of consolidation runs (src/domain/consolidation/scaled.ts) against
 * decimal.js: parsing, fixed-point text, rounding and sums of products must give the decimal.js
 * results digit for digit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ExactSum,
  pow10,
  RATE_SCALE,
  roundScaled,
  scaledToDecimal,
  scaledToString,
  scaledValue,
  scaleOf,
  toScaled,
} from '../../src/domain/consolidation/scaled.ts';
import { Decimal, dec, roundTo, toFixedString } from '../../src/domain/money.ts';

const digits = (max: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: max }).map((d) => d.join(''));

/** Plain decimal text: optional sign, up to 20 integer digits, up to `frac` fraction digits. */
const decimalText = (frac: number) =>
  fc
    .record({
      negative: fc.boolean(),
      int: fc.bigInt({ min: 0n, max: 10n ** 20n - 1n }),
      fraction: digits(frac),
    })
    .map(({ negative, int, fraction }) => `${negative ? '-' : ''}${int}${fraction ? `.${fraction}` : ''}`);

/** A rate as the engine gets it: stored (≤ 12 decimals), derived (10 decimals) or any Decimal. */
const rateArb = fc.oneof(
  decimalText(12).map((t) => dec(t).abs()),
  fc.integer({ min: 1, max: 10_000_000 }).map((n) => roundTo(dec(1).div(n), 10)),
  fc
    .record({ n: fc.integer({ min: 1, max: 1_000_000 }), e: fc.integer({ min: 0, max: 20 }) })
    .map(({ n, e }) => dec(n).div(dec(10).pow(e))),
);

describe('scaled-integer kernel', () => {
  it('property: toScaled / scaledToString give the decimal.js fixed-point text of any plain decimal', () => {
    fc.assert(
      fc.property(decimalText(14), fc.integer({ min: 0, max: 6 }), (text, extra) => {
        const s = scaleOf(text);
        const v = toScaled(text, s + extra);
        expect(v).not.toBeNull();
        expect(scaledToString(v!, s + extra)).toBe(toFixedString(text, s + extra));
        expect(scaledToDecimal(v!, s + extra).equals(dec(text))).toBe(true);
        if (s > 0) expect(toScaled(text, s - 1)).toBeNull();
      }),
      { numRuns: 2000 },
    );
  });

  it('property: numbers and Decimals (exponent notation included) are read exactly', () => {
    const value = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e15, max: 1e15 }),
      fc
        .record({
          n: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
          e: fc.integer({ min: -40, max: 10 }),
        })
        .map(({ n, e }) => new Decimal(`${n}e${e}`)),
    );
    fc.assert(
      fc.property(value, (x) => {
        const s = scaleOf(x);
        expect(scaledToDecimal(toScaled(x, s)!, s).equals(dec(x))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('property: roundScaled rounds half away from zero like roundTo', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
        fc.integer({ min: 0, max: 24 }),
        fc.integer({ min: 0, max: 26 }),
        (v, scale, decimals) => {
          const expected = roundTo(scaledToDecimal(v, scale), decimals);
          expect(scaledToString(roundScaled(v, scale, decimals), decimals)).toBe(
            toFixedString(expected, decimals),
          );
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('rounds ties away from zero on both signs', () => {
    expect(roundScaled(125n, 2, 1)).toBe(13n); // 1.25 → 1.3
    expect(roundScaled(-125n, 2, 1)).toBe(-13n); // −1.25 → −1.3
    expect(roundScaled(124n, 2, 1)).toBe(12n);
    expect(roundScaled(-5n, 1, 0)).toBe(-1n); // −0.5 → −1
    expect(roundScaled(4n, 1, 0)).toBe(0n);
    expect(roundScaled(7n, 0, 2)).toBe(700n);
  });

  it('property: ExactSum of amount × rate equals the decimal.js sum exactly, and rounds like roundTo', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ amount: decimalText(8), rate: fc.option(rateArb, { nil: null }) }), {
          maxLength: 40,
        }),
        fc.integer({ min: 0, max: 4 }),
        (terms, decimals) => {
          const sum = new ExactSum(8);
          let expected = new Decimal(0);
          for (const t of terms) {
            const amount = toScaled(t.amount, 8)!;
            if (t.rate === null) {
              sum.add(amount);
              expected = expected.plus(dec(t.amount));
            } else {
              sum.addProduct(amount, scaledValue(t.rate, RATE_SCALE));
              expected = expected.plus(dec(t.amount).times(t.rate));
            }
          }
          expect(sum.toDecimal().equals(expected)).toBe(true);
          expect(sum.isZero()).toBe(expected.isZero());
          expect(scaledToString(sum.rounded(decimals), decimals)).toBe(toFixedString(expected, decimals));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('pow10 is exact far beyond the double range', () => {
    expect(pow10(0)).toBe(1n);
    expect(pow10(30).toString()).toBe(`1${'0'.repeat(30)}`);
  });
});
