/**
 * Exact fixed-point kernel for the per-figure arithmetic of a consolidation run (decisions.md,
 * "Consolidation runs: exact scaled-integer kernel").
 *
 * A decimal value is held as a BigInt coefficient and a scale (number of fraction digits): the value
 * is `coefficient / 10^scale`. Parsing, addition and multiplication are exact integer operations (no
 * floating point at any step); the only rounding is the explicit `roundScaled` (half away from zero,
 * like `roundTo` in money.ts). Results are converted to decimal.js values once per account, so a run
 * creates a handful of Decimals per account instead of several per figure.
 *
 * Property tests (test/domain/consolidation-scaled.test.ts) hold every function to decimal.js.
 */
import { Decimal, type DecimalInput, dec } from '../money.ts';

const POW10: bigint[] = [1n];

/** 10^n as a BigInt (n ≥ 0), cached. */
export function pow10(n: number): bigint {
  for (let i = POW10.length; i <= n; i++) POW10.push(POW10[i - 1]! * 10n);
  return POW10[n]!;
}

const PLAIN = /^-?\d+(?:\.\d+)?$/;

/** Plain decimal text of any finite DecimalInput (no exponent), or throws like decimal.js. */
function plainText(value: DecimalInput): string {
  if (typeof value === 'string' && PLAIN.test(value)) return value;
  const d = dec(value);
  if (!d.isFinite()) throw new Error(`Amount ${String(value)} is not a finite decimal`);
  return d.toFixed();
}

/** Number of fraction digits of a plain decimal text. */
function fractionOf(text: string): number {
  const i = text.indexOf('.');
  return i < 0 ? 0 : text.length - i - 1;
}

/**
 * Fraction digits needed to hold `value` exactly (trailing zeros of a text count: "1.50" needs 2).
 * Throws like decimal.js for an invalid value.
 */
export function scaleOf(value: DecimalInput): number {
  return fractionOf(plainText(value));
}

/**
 * The coefficient of `value` at `scale` fraction digits, or null when the value has more fraction
 * digits than that (so that it cannot be held exactly at this scale). Throws like decimal.js for an
 * invalid value.
 */
export function toScaled(value: DecimalInput, scale: number): bigint | null {
  const text = plainText(value);
  const i = text.indexOf('.');
  if (i < 0) {
    const v = BigInt(text);
    return scale === 0 ? v : v * pow10(scale);
  }
  const digits = text.length - i - 1;
  if (digits > scale) return null;
  const v = BigInt(text.slice(0, i) + text.slice(i + 1));
  // "-0.5" → "-05" → -5n: the sign of the integer part carries over.
  return digits === scale ? v : v * pow10(scale - digits);
}

/** `v` (at `scale`) rounded to `decimals` fraction digits, half away from zero; result at `decimals`. */
export function roundScaled(v: bigint, scale: number, decimals: number): bigint {
  if (decimals >= scale) return v * pow10(decimals - scale);
  const d = pow10(scale - decimals);
  const q = v / d; // truncates toward zero
  const r = v - q * d;
  if (r === 0n) return q;
  const twice = r < 0n ? -2n * r : 2n * r;
  if (twice >= d) return v < 0n ? q - 1n : q + 1n;
  return q;
}

/** Fixed-point text of `v` at `scale`: exactly `scale` fraction digits, "-" only for negatives. */
export function scaledToString(v: bigint, scale: number): string {
  const negative = v < 0n;
  let digits = (negative ? -v : v).toString();
  if (scale > 0) {
    if (digits.length <= scale) digits = '0'.repeat(scale - digits.length + 1) + digits;
    digits = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  }
  return negative ? `-${digits}` : digits;
}

/** `v` at `scale` as a Decimal (exact). */
export function scaledToDecimal(v: bigint, scale: number): Decimal {
  return new Decimal(scaledToString(v, scale));
}

/**
 * Least scale of rates as multipliers: stored rates have up to 12 fraction digits (NUMERIC(28, 12)),
 * derived ones 10, so products of one view share a scale and add without rescaling.
 */
export const RATE_SCALE = 12;

/** A rate (or any multiplier) as coefficient and scale. */
export interface ScaledValue {
  readonly coef: bigint;
  readonly scale: number;
}

/**
 * A Decimal as coefficient and scale, with at least `minScale` fraction digits (so that products of
 * values of one kind usually share a scale and add without rescaling).
 */
export function scaledValue(value: DecimalInput, minScale = 0): ScaledValue {
  const scale = Math.max(minScale, scaleOf(value));
  return { coef: toScaled(value, scale)!, scale };
}

/**
 * Exact Σ of amounts (all at one fixed scale) and of products amount × multiplier. The running
 * scale grows when a multiplier has more fraction digits than any before; nothing is ever rounded.
 */
export class ExactSum {
  private v = 0n;
  /** current scale of `v` (≥ amountScale) */
  private s: number;

  constructor(private readonly amountScale: number) {
    this.s = amountScale;
  }

  /** Adds an amount given at the accumulator's amount scale. */
  add(amount: bigint): void {
    this.v += this.s === this.amountScale ? amount : amount * pow10(this.s - this.amountScale);
  }

  /** Adds amount × m exactly. */
  addProduct(amount: bigint, m: ScaledValue): void {
    const ps = this.amountScale + m.scale;
    const p = amount * m.coef;
    if (ps === this.s) this.v += p;
    else if (ps < this.s) this.v += p * pow10(this.s - ps);
    else {
      this.v = this.v * pow10(ps - this.s) + p;
      this.s = ps;
    }
  }

  isZero(): boolean {
    return this.v === 0n;
  }

  /** The exact sum as a Decimal. */
  toDecimal(): Decimal {
    return scaledToDecimal(this.v, this.s);
  }

  /** The sum rounded to `decimals` fraction digits (half away from zero), as a coefficient at `decimals`. */
  rounded(decimals: number): bigint {
    return roundScaled(this.v, this.s, decimals);
  }

  /** round(sum × m) to `decimals` fraction digits (half away from zero): one rounding of the exact product. */
  timesRounded(m: ScaledValue, decimals: number): bigint {
    return roundScaled(this.v * m.coef, this.s + m.scale, decimals);
  }
}
