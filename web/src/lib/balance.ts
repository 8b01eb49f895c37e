/**
 * The journal editor's live totals, with the API's own balance rules: lines in one currency must
 * balance exactly in that currency; lines in several currencies must balance in the functional
 * currency, where a difference of at most one minor unit per foreign-currency line is absorbed by the
 * service when it saves. Functional amounts are amount × rate rounded half away from zero to the
 * functional currency's minor unit. Exact decimal arithmetic (decimal.js), never binary floats.
 */
import { Decimal } from 'decimal.js';

export interface BalanceLine {
  debit: string;
  credit: string;
  currency: string;
  /** Units of functional currency per unit of the line currency; null while unknown. */
  rate: string | null;
}

export type BalanceState = 'empty' | 'balanced' | 'unbalanced' | 'pending';

export interface Balance {
  state: BalanceState;
  /** The lines' currency when they all use one, else the functional currency. */
  currency: string;
  totalDebits: string;
  totalCredits: string;
  /** |debits − credits| in `currency`; "0" when balanced. */
  difference: string;
  /** Totals in the functional currency, or null while a rate is unknown. */
  functionalDebits: string | null;
  functionalCredits: string | null;
  /** Functional amount of each line (null: no amount yet or rate unknown). */
  lineFunctional: Array<string | null>;
}

const AMOUNT = /^\d{1,15}(\.\d+)?$/;

export function isAmount(value: string): boolean {
  return AMOUNT.test(value.trim()) && new Decimal(value.trim()).gt(0);
}

export function functionalAmount(amount: string, rate: string, digits: number): string {
  return new Decimal(amount).times(rate).toDecimalPlaces(digits, Decimal.ROUND_HALF_UP).toFixed(digits);
}

export function computeBalance(
  lines: BalanceLine[],
  functionalCurrency: string,
  digitsOf: (currency: string) => number,
): Balance {
  const fDigits = digitsOf(functionalCurrency);
  const currencies = new Set<string>();
  let debits = new Decimal(0);
  let credits = new Decimal(0);
  let fDebits = new Decimal(0);
  let fCredits = new Decimal(0);
  let functionalKnown = true;
  let foreignLines = 0;
  let counted = 0;
  const lineFunctional = lines.map((line) => {
    const side = isAmount(line.debit) ? 'debit' : isAmount(line.credit) ? 'credit' : null;
    if (!side) return null;
    const amount = (side === 'debit' ? line.debit : line.credit).trim();
    counted++;
    currencies.add(line.currency);
    if (side === 'debit') debits = debits.plus(amount);
    else credits = credits.plus(amount);
    const foreign = line.currency !== functionalCurrency;
    if (foreign) foreignLines++;
    const rate = foreign ? line.rate : '1';
    if (!rate) {
      functionalKnown = false;
      return null;
    }
    const f = foreign ? functionalAmount(amount, rate, fDigits) : new Decimal(amount).toFixed(fDigits);
    if (side === 'debit') fDebits = fDebits.plus(f);
    else fCredits = fCredits.plus(f);
    return f;
  });
  const functionalDebits = functionalKnown ? fDebits.toFixed(fDigits) : null;
  const functionalCredits = functionalKnown ? fCredits.toFixed(fDigits) : null;
  const base = { lineFunctional, functionalDebits, functionalCredits };
  if (counted === 0) {
    return {
      ...base,
      state: 'empty',
      currency: functionalCurrency,
      totalDebits: '0',
      totalCredits: '0',
      difference: '0',
    };
  }
  if (currencies.size === 1) {
    const currency = [...currencies][0]!;
    const digits = digitsOf(currency);
    const diff = debits.minus(credits).abs();
    return {
      ...base,
      state: diff.isZero() ? 'balanced' : 'unbalanced',
      currency,
      totalDebits: debits.toFixed(digits),
      totalCredits: credits.toFixed(digits),
      difference: diff.toFixed(digits),
    };
  }
  const totals = {
    currency: functionalCurrency,
    totalDebits: functionalDebits ?? '0',
    totalCredits: functionalCredits ?? '0',
  };
  if (!functionalKnown) return { ...base, ...totals, state: 'pending', difference: '0' };
  const diff = fDebits.minus(fCredits).abs();
  const tolerance = new Decimal(10).pow(-fDigits).times(foreignLines);
  return {
    ...base,
    ...totals,
    state: diff.lte(tolerance) ? 'balanced' : 'unbalanced',
    difference: diff.lte(tolerance) ? new Decimal(0).toFixed(fDigits) : diff.toFixed(fDigits),
  };
}

/** The amount (and side) that a new line needs so that single-currency lines balance. */
export function balancingAmount(
  lines: BalanceLine[],
  digitsOf: (currency: string) => number,
): { side: 'debit' | 'credit'; amount: string; currency: string } | null {
  const currencies = new Set(
    lines.filter((l) => isAmount(l.debit) || isAmount(l.credit)).map((l) => l.currency),
  );
  if (currencies.size !== 1) return null;
  const currency = [...currencies][0]!;
  let diff = new Decimal(0);
  for (const l of lines) {
    if (isAmount(l.debit)) diff = diff.plus(l.debit.trim());
    else if (isAmount(l.credit)) diff = diff.minus(l.credit.trim());
  }
  if (diff.isZero()) return null;
  return {
    side: diff.gt(0) ? 'credit' : 'debit',
    amount: diff.abs().toFixed(digitsOf(currency)),
    currency,
  };
}
