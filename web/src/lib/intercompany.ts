/** The two sides of an intercompany transaction, from the journal entries linked to it. */
import { Decimal } from 'decimal.js';
import type { JournalEntry, Money } from '../api/types.ts';

/**
 * What one side booked for the transaction, from its linked entry: the lines that name the other
 * company as intercompany partner (all lines when none does), in the transaction's currency; the
 * larger of their debits and credits. Null when there is no entry or no line in that currency.
 */
export function sideAmount(
  entry: JournalEntry | undefined,
  counterparty: string,
  currency: string,
): Money | null {
  if (!entry) return null;
  const partnerLines = entry.lines.filter((l) => l.intercompanyPartnerId === counterparty);
  const lines = (partnerLines.length > 0 ? partnerLines : entry.lines).filter(
    (l) => (l.debitAmount ?? l.creditAmount)?.currency === currency,
  );
  if (lines.length === 0) return null;
  let debits = new Decimal(0);
  let credits = new Decimal(0);
  for (const l of lines) {
    if (l.debitAmount) debits = debits.plus(l.debitAmount.value);
    if (l.creditAmount) credits = credits.plus(l.creditAmount.value);
  }
  const sample = (lines[0]!.debitAmount ?? lines[0]!.creditAmount)!.value;
  const digits = sample.split('.')[1]?.length ?? 0;
  return { value: Decimal.max(debits, credits).toFixed(digits), currency };
}

/** a − b when both are in the same currency, else null. */
export function difference(a: Money | null, b: Money | null): Money | null {
  if (!a || !b || a.currency !== b.currency) return null;
  const digits = a.value.split('.')[1]?.length ?? 0;
  return { value: new Decimal(a.value).minus(b.value).toFixed(digits), currency: a.currency };
}
