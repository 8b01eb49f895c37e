/**
 * Period-end remeasurement of foreign-currency monetary balances (ASC 830-20, IAS 21): pure.
 *
 * A company's monetary account (an asset or liability that is not marked non-monetary) may hold
 * amounts in several transaction currencies. For each (account, currency) the ledger knows the
 * foreign balance (Σ debits − Σ credits in that currency) and its carrying amount in the functional
 * currency (Σ of the functional amounts of the same lines, earlier revaluations included). At a date
 * D the balance is restated at the closing rate of D:
 *
 *   revalued   = round(foreign × closing rate, functional minor units)
 *   difference = revalued − carrying
 *
 * A positive difference on an asset is a gain, on a liability (credit balance, negative foreign
 * amount) a loss: the sign convention is that of the ledger (debit positive), so one rule fits both.
 *
 * When the foreign balance is zero but a carrying amount remains, the currency amount was settled at
 * another rate than it was carried at: that residual is a realised difference and is cleared to the
 * realised gain/loss account, without needing a rate. Every other difference is unrealised.
 */
import type { LineSide } from './accounts.ts';
import { type Decimal, dec, roundMoney, ZERO } from './money.ts';

export type FxDifferenceKind = 'Unrealized' | 'Realized';

/** The balance of one monetary account in one foreign currency, as of a date. */
export interface CurrencyBalance {
  accountId: string;
  currency: string;
  /** Net foreign amount (debits − credits) in `currency`. */
  foreignBalance: Decimal;
  /** Net functional amount carried for those lines (debits − credits), revaluations included. */
  carryingAmount: Decimal;
}

/** A closing rate: units of functional currency per one unit of the foreign currency. */
export interface ClosingRate {
  rate: Decimal;
  /** The stored rates the value comes from (one for a direct or inverse rate, two when triangulated). */
  rateIds: string[];
}

export interface RevaluedBalance extends CurrencyBalance {
  /** Null for a settled balance (nothing left to restate) and when no rate is needed. */
  closingRate: ClosingRate | null;
  revaluedAmount: Decimal;
  difference: Decimal;
  kind: FxDifferenceKind;
}

/** Whether the balance needs a closing rate (it still holds foreign currency). */
export const needsRate = (b: CurrencyBalance): boolean => !b.foreignBalance.isZero();

/**
 * Restates every balance at its currency's closing rate. `rateOf` returns null when no rate exists;
 * the currencies without one are returned in `missing` (in first-seen order) and their balances left
 * out of `lines`, so the caller can refuse the run naming them.
 */
export function revalueBalances(
  balances: readonly CurrencyBalance[],
  rateOf: (currency: string) => ClosingRate | null,
  functionalCurrency: string,
): { lines: RevaluedBalance[]; missing: string[] } {
  const lines: RevaluedBalance[] = [];
  const missing: string[] = [];
  for (const b of balances) {
    if (!needsRate(b)) {
      lines.push({
        ...b,
        closingRate: null,
        revaluedAmount: ZERO,
        difference: b.carryingAmount.negated(),
        kind: 'Realized',
      });
      continue;
    }
    const rate = rateOf(b.currency);
    if (!rate) {
      if (!missing.includes(b.currency)) missing.push(b.currency);
      continue;
    }
    const revaluedAmount = roundMoney(b.foreignBalance.times(rate.rate), functionalCurrency);
    lines.push({
      ...b,
      closingRate: rate,
      revaluedAmount,
      difference: revaluedAmount.minus(b.carryingAmount),
      kind: 'Unrealized',
    });
  }
  return { lines, missing };
}

/** One line of a revaluation entry. */
export interface FxEntryLine {
  accountId: string;
  side: LineSide;
  /** Functional amount (> 0). */
  amount: Decimal;
  /** Transaction currency of the line: the revalued currency, or null for the functional currency. */
  currency: string | null;
  /** Rate shown on the line (the closing rate used; 0 for a settled balance), null: 1. */
  exchangeRate: Decimal | null;
  exchangeRateIds: string[];
  kind: FxDifferenceKind;
}

const sideOf = (v: Decimal): LineSide => (v.isPositive() ? 'debit' : 'credit');

/**
 * The lines of the entries that book `revalued`: per (account, currency) with a difference, a line on
 * that account in that currency carrying the difference in functional amount only (its foreign amount
 * is zero: the foreign balance does not change); against them, per kind, one functional-currency line
 * on the kind's gain/loss account with the opposite net. Returned per kind so that the unrealised
 * part, which is reversed the next day, can be booked apart from the realised part, which is not.
 */
export function revaluationEntryLines(
  revalued: readonly RevaluedBalance[],
  accounts: { unrealized: string; realized: string },
): Record<FxDifferenceKind, FxEntryLine[]> {
  const out: Record<FxDifferenceKind, FxEntryLine[]> = { Unrealized: [], Realized: [] };
  for (const kind of ['Unrealized', 'Realized'] as const) {
    let net = ZERO;
    for (const r of revalued) {
      if (r.kind !== kind || r.difference.isZero()) continue;
      net = net.plus(r.difference);
      out[kind].push({
        accountId: r.accountId,
        side: sideOf(r.difference),
        amount: r.difference.abs(),
        currency: r.currency,
        exchangeRate: r.closingRate?.rate ?? dec(0),
        exchangeRateIds: r.closingRate?.rateIds ?? [],
        kind,
      });
    }
    if (out[kind].length === 0) continue;
    if (net.isZero()) continue;
    out[kind].push({
      accountId: kind === 'Unrealized' ? accounts.unrealized : accounts.realized,
      side: sideOf(net.negated()),
      amount: net.abs(),
      currency: null,
      exchangeRate: null,
      exchangeRateIds: [],
      kind,
    });
  }
  return out;
}

/** Σ debits and Σ credits of entry lines. */
export function entryLineTotals(lines: readonly FxEntryLine[]): { debits: Decimal; credits: Decimal } {
  let debits = ZERO;
  let credits = ZERO;
  for (const l of lines) {
    if (l.side === 'debit') debits = debits.plus(l.amount);
    else credits = credits.plus(l.amount);
  }
  return { debits, credits };
}
