/**
 * Exact decimal arithmetic for amounts, rates and percentages.
 *
 * Every amount is a decimal.js value with enough precision that no operation here ever rounds
 * implicitly; rounding happens only through the explicit helpers below, half away from zero.
 */
import { Decimal as DecimalBase } from 'decimal.js';
import { minorUnits } from './codes.ts';

export const Decimal = DecimalBase.clone({
  precision: 80,
  rounding: DecimalBase.ROUND_HALF_UP, // half away from zero
  toExpNeg: -100,
  toExpPos: 100,
});
export type Decimal = InstanceType<typeof Decimal>;
export type DecimalInput = Decimal | string | number;

export interface Money {
  value: string;
  currency: string;
}

export const ZERO = new Decimal(0);

export function dec(value: DecimalInput): Decimal {
  return value instanceof Decimal ? value : new Decimal(value);
}

/** Rounds half away from zero to `decimals` fraction digits. */
export function roundTo(value: DecimalInput, decimals: number): Decimal {
  return dec(value).toDecimalPlaces(decimals, Decimal.ROUND_HALF_UP);
}

/** Rounds to the currency's minor unit (its ISO 4217 exponent). */
export function roundMoney(value: DecimalInput, currency: string): Decimal {
  return roundTo(value, minorUnits(currency));
}

/** Fixed-point text with exactly `decimals` fraction digits, never `-0`, never exponent notation. */
export function toFixedString(value: DecimalInput, decimals: number): string {
  const text = typeof value === 'string' ? plainDecimal(value) : null;
  if (text) {
    const { sign, whole, fraction } = text;
    // Digits past `decimals` that are all zeros need no rounding: the text is cut or padded as it is.
    if (!/[1-9]/.test(fraction.slice(decimals))) {
      const kept = fraction.length >= decimals ? fraction.slice(0, decimals) : fraction.padEnd(decimals, '0');
      const zero = whole === '0' && !/[1-9]/.test(kept);
      return `${zero ? '' : sign}${whole}${decimals > 0 ? `.${kept}` : ''}`;
    }
  }
  const d = roundTo(value, decimals);
  return (d.isZero() ? ZERO : d).toFixed(decimals);
}

const PLAIN_DECIMAL = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

/**
 * The parts of a plain decimal text — what a NUMERIC column reads as (`-12.50000000`, `7`) — or null
 * for any other input (exponents, leading zeros, more digits than the decimal precision), which the
 * formatters leave to decimal.js. Formatting such texts by cutting them costs a fraction of parsing each
 * into a Decimal and makes almost no garbage: a page of 2,000 journal lines formats 8,000 amounts.
 */
function plainDecimal(value: string): { sign: string; whole: string; fraction: string } | null {
  if (value.length > 80) return null;
  const m = PLAIN_DECIMAL.exec(value);
  return m ? { sign: m[1]!, whole: m[2]!, fraction: m[3] ?? '' } : null;
}

/** Wire form of an amount: exactly the currency's minor-unit digits. */
export function formatAmount(value: DecimalInput, currency: string): string {
  return toFixedString(value, minorUnits(currency));
}

export function money(value: DecimalInput, currency: string): Money {
  return { value: formatAmount(value, currency), currency };
}

export function zeroMoney(currency: string): Money {
  return money(ZERO, currency);
}

/** Canonical rate text: no trailing fraction zeros, no trailing point (`"1.1"`, `"150"`). */
export function formatRate(value: DecimalInput): string {
  const text = typeof value === 'string' ? plainDecimal(value) : null;
  if (text) {
    const fraction = text.fraction.replace(/0+$/, '');
    const zero = text.whole === '0' && fraction === '';
    return `${zero ? '' : text.sign}${text.whole}${fraction ? `.${fraction}` : ''}`;
  }
  const d = dec(value);
  const s = d.toFixed();
  if (!s.includes('.')) return s;
  return s.replace(/0+$/, '').replace(/\.$/, '');
}

/** Percentage with exactly two decimals (`"80.00"`). */
export function formatPercentage(value: DecimalInput): string {
  return toFixedString(value, 2);
}

export const MONEY_VALUE_PATTERN = /^-?(0|[1-9][0-9]{0,14})(\.[0-9]+)?$/;
export const RATE_PATTERN = /^(0|[1-9][0-9]{0,11})(\.[0-9]{1,10})?$/;

/** Number of fraction digits written in a decimal literal. */
export function fractionDigits(text: string): number {
  const i = text.indexOf('.');
  return i < 0 ? 0 : text.length - i - 1;
}

export function sum(values: Iterable<DecimalInput>): Decimal {
  let total = ZERO;
  for (const v of values) total = total.plus(dec(v));
  return total;
}

export function maxDec(a: Decimal, b: Decimal): Decimal {
  return a.greaterThan(b) ? a : b;
}
