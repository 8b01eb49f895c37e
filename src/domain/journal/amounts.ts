/**
 * Journal-entry line conversion and balancing, and the Money / Rate input rules.
 *
 * Pure: rates are resolved elsewhere (rates.ts `resolveRate`, types `[Spot]`, `onOrBefore` the
 * transaction date); this module only multiplies, rounds, sums and absorbs rounding differences.
 */
import type { LineSide } from '../accounts.ts';
import { isCurrencyCode, minorUnits } from '../codes.ts';
import {
  Decimal,
  type DecimalInput,
  dec,
  fractionDigits,
  MONEY_VALUE_PATTERN,
  type Money,
  money,
  RATE_PATTERN,
  roundMoney,
  sum,
  ZERO,
} from '../money.ts';

export type { LineSide };

/** A line as entered: its amount in its own (transaction) currency. */
export interface TransactionLine {
  lineNumber: number;
  side: LineSide;
  amount: DecimalInput;
  currency: string;
}

/** A line with its conversion rate (given in the request, or resolved by R5). */
export interface ConvertibleLine extends TransactionLine {
  /** Units of functional currency per one unit of the line currency. */
  exchangeRate: DecimalInput;
}

/** A line with its functional-currency amount. */
export interface FunctionalLine extends TransactionLine {
  functionalAmount: DecimalInput;
}

/** Data of `400 UnbalancedJournalEntryError` (R6a / R6b). `difference` = debits − credits. */
export interface UnbalancedEntry {
  basis: 'transaction' | 'functional';
  totalDebits: Money;
  totalCredits: Money;
  difference: Money;
}

/**
 * The bound of every functional amount a line may carry: below 10^15, the same 15 integer digits as
 * any Money value on input (a line in the functional currency cannot exceed it either). An entry has
 * at most 500 lines, so its totals stay below 5 × 10^17, and an account's balance (stored with 20
 * integer digits) can take at least 100,000 lines of the largest amount in one month before a post is
 * refused with `AmountOutOfRangeError`.
 */
export const FUNCTIONAL_AMOUNT_LIMIT = new Decimal(10).pow(15);
/** The bound of an effective (resolved or cross) rate the ledger stores: 16 integer digits. */
export const STORED_RATE_LIMIT = new Decimal(10).pow(16);

/** The issue message when a derived functional amount is out of range, else null. */
export function functionalAmountIssue(amount: Decimal, functionalCurrency: string): string | null {
  if (amount.abs().lessThan(FUNCTIONAL_AMOUNT_LIMIT)) return null;
  return (
    `The functional amount (${amount.toFixed()} ${functionalCurrency}) must be below 10^15: ` +
    'use a smaller amount or rate'
  );
}

/** R5: functional amount = amount × rate, rounded (half away from zero) to the functional minor unit. */
export function convertLine(amount: DecimalInput, rate: DecimalInput, functionalCurrency: string): Decimal {
  return roundMoney(dec(amount).times(dec(rate)), functionalCurrency);
}

/** Converts every line (R5, given or resolved rates); same order as the input. */
export function convertLines<L extends ConvertibleLine>(
  lines: readonly L[],
  functionalCurrency: string,
): (L & { functionalAmount: Decimal })[] {
  return lines.map((line) => ({
    ...line,
    functionalAmount: convertLine(line.amount, line.exchangeRate, functionalCurrency),
  }));
}

/** The entry uses more than one currency (the `isMultiCurrency` field). */
export function isMultiCurrency(lines: readonly { currency: string }[]): boolean {
  return new Set(lines.map((l) => l.currency)).size > 1;
}

function sideTotals<L extends { side: LineSide }>(
  lines: readonly L[],
  value: (line: L) => DecimalInput,
): { debits: Decimal; credits: Decimal } {
  return {
    debits: sum(lines.filter((l) => l.side === 'debit').map(value)),
    credits: sum(lines.filter((l) => l.side === 'credit').map(value)),
  };
}

function unbalanced(
  basis: UnbalancedEntry['basis'],
  debits: Decimal,
  credits: Decimal,
  currency: string,
): UnbalancedEntry {
  return {
    basis,
    totalDebits: money(debits, currency),
    totalCredits: money(credits, currency),
    difference: money(debits.minus(credits), currency),
  };
}

/**
 * R6a: when all lines use one currency, Σ debit values must equal Σ credit values exactly.
 * Returns null when balanced or when the lines use several currencies (R6a does not apply), else the
 * error data in that currency.
 */
export function checkTransactionBalance(lines: readonly TransactionLine[]): UnbalancedEntry | null {
  const first = lines[0];
  if (!first || isMultiCurrency(lines)) return null;
  const { debits, credits } = sideTotals(lines, (l) => l.amount);
  return debits.equals(credits) ? null : unbalanced('transaction', debits, credits, first.currency);
}

/** Totals of the functional amounts (the entry's `totalDebits` / `totalCredits`). */
export function entryTotals(
  lines: readonly FunctionalLine[],
  functionalCurrency: string,
): { totalDebits: Money; totalCredits: Money } {
  const { debits, credits } = sideTotals(lines, (l) => l.functionalAmount);
  return { totalDebits: money(debits, functionalCurrency), totalCredits: money(credits, functionalCurrency) };
}

export type FunctionalBalanceResult<L extends FunctionalLine> =
  | {
      ok: true;
      /** The input lines in input order, `functionalAmount` as Decimal, the absorbing line adjusted. */
      lines: (L & { functionalAmount: Decimal })[];
      /** The absorbed difference (debits − credits before adjustment), or null when already balanced. */
      adjustment: { lineNumber: number; difference: Decimal } | null;
    }
  | { ok: false; error: UnbalancedEntry };

/**
 * Balancing of rounding differences. `diff` = Σ functional debits − Σ functional credits. When
 * `diff ≠ 0`, let `n` be the number of lines whose currency differs from the functional currency; when `n ≥ 1` and
 * `|diff| ≤ n` minor units, the foreign-currency line with the largest functional amount (ties:
 * lowest `lineNumber`) absorbs it: a debit line's amount is reduced by `diff`, a credit line's is
 * increased by `diff`. Otherwise, or when the adjusted amount would not stay above zero, the entry
 * is unbalanced; the error data carries the totals before adjustment and `difference` = `diff`.
 */
export function balanceFunctional<L extends FunctionalLine>(
  lines: readonly L[],
  functionalCurrency: string,
): FunctionalBalanceResult<L> {
  const converted = lines.map((l) => ({ ...l, functionalAmount: dec(l.functionalAmount) }));
  const { debits, credits } = sideTotals(converted, (l) => l.functionalAmount);
  const diff = debits.minus(credits);
  if (diff.isZero()) return { ok: true, lines: converted, adjustment: null };

  const rejected = {
    ok: false as const,
    error: unbalanced('functional', debits, credits, functionalCurrency),
  };
  const foreign = converted.filter((l) => l.currency !== functionalCurrency);
  const minorUnit = new Decimal(10).pow(-minorUnits(functionalCurrency));
  if (foreign.length === 0 || diff.abs().greaterThan(minorUnit.times(foreign.length))) return rejected;

  let absorber = foreign[0]!;
  for (const l of foreign) {
    const larger = l.functionalAmount.greaterThan(absorber.functionalAmount);
    const tieLower =
      l.functionalAmount.equals(absorber.functionalAmount) && l.lineNumber < absorber.lineNumber;
    if (larger || tieLower) absorber = l;
  }
  const adjusted =
    absorber.side === 'debit' ? absorber.functionalAmount.minus(diff) : absorber.functionalAmount.plus(diff);
  if (!adjusted.greaterThan(ZERO)) return rejected;
  absorber.functionalAmount = adjusted;
  return { ok: true, lines: converted, adjustment: { lineNumber: absorber.lineNumber, difference: diff } };
}

export interface MoneyInputOptions {
  /** The field is documented as signed (negative values accepted). */
  allowNegative?: boolean;
  /** The field accepts zero ("greater than or equal to zero"). Implied by `allowNegative`. */
  allowZero?: boolean;
}

/**
 * Money `value` input rules. Returns an issue message, or null when valid:
 * - a JSON string (a number is refused) matching `^-?(0|[1-9][0-9]{0,14})(\.[0-9]+)?$` — no exponent,
 *   no `+`, no separators, no surrounding spaces, at most 15 integer digits;
 * - at most the currency's minor-unit digits after the point (JPY: no point at all);
 * - sign: negative only when `allowNegative`; zero only when `allowZero` (or `allowNegative`);
 *   otherwise strictly greater than zero. `"-0"` (and `"-0.00"`) is read as zero: it is judged by
 *   its value, so it is accepted wherever zero is and refused where zero is.
 * `currency` should already be validated; an unknown code yields a message rather than an exception.
 */
export function validateMoneyInput(
  value: unknown,
  currency: string,
  options: MoneyInputOptions = {},
): string | null {
  if (typeof value !== 'string') return 'must be a decimal string, for example "1250.00"';
  if (!MONEY_VALUE_PATTERN.test(value)) {
    return 'must be a decimal string without exponent, plus sign, separators or spaces, with at most 15 integer digits';
  }
  if (!isCurrencyCode(currency)) return `cannot be checked against unknown currency ${currency}`;
  const digits = minorUnits(currency);
  if (fractionDigits(value) > digits) {
    return digits === 0
      ? `must be a whole number for ${currency} (no decimal point)`
      : `must have at most ${digits} decimals for ${currency}`;
  }
  if (options.allowNegative) return null;
  const amount = dec(value);
  if (options.allowZero) return amount.lessThan(ZERO) ? 'must not be negative' : null;
  return amount.greaterThan(ZERO) ? null : 'must be greater than zero';
}

/** Parses a value accepted by {@link validateMoneyInput}; `"-0"` becomes plain zero. */
export function parseMoneyValue(value: string): Decimal {
  const amount = dec(value);
  return amount.isZero() ? ZERO : amount;
}

/**
 * Rate input rule: a JSON string matching `^(0|[1-9][0-9]{0,11})(\.[0-9]{1,10})?$`
 * (at most 12 integer digits and 10 decimals) whose value is greater than zero. Returns an issue
 * message or null.
 */
export function validateRateInput(value: unknown): string | null {
  if (typeof value !== 'string') return 'must be a decimal string, for example "1.0845"';
  if (!RATE_PATTERN.test(value)) {
    return 'must be a positive decimal string with at most 12 integer digits and at most 10 decimals';
  }
  return dec(value).greaterThan(ZERO) ? null : 'must be greater than zero';
}
