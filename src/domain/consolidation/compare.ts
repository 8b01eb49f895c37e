/**
 * Comparison of two consolidated trial balances, line by line: for each line (account number,
 * company, line type) present in either, the balance components that differ. A line missing from one
 * side counts as zero there.
 */
import { scaledToString, toScaled } from './scaled.ts';
import type { ConsolidatedLine, TrialBalanceView } from './types.ts';

export const COMPARED_FIELDS = [
  'aggregatedBalance',
  'eliminationAmount',
  'adjustmentAmount',
  'nciAmount',
  'consolidatedBalance',
] as const;
export type ComparedField = (typeof COMPARED_FIELDS)[number];

export interface FieldDifference {
  field: ComparedField;
  /** this run's amount */
  value: string;
  /** the other run's amount */
  otherValue: string;
  /** value − otherValue */
  difference: string;
}

export interface LineDifference {
  view: 'closing' | 'opening';
  accountNumber: string;
  accountName: string;
  lineType: ConsolidatedLine['lineType'];
  companyId: string | null;
  currency: string;
  changes: FieldDifference[];
}

const SCALE = 8;

function amountOf(line: ConsolidatedLine | undefined, field: ComparedField): bigint {
  const m = line ? (line as unknown as Record<string, { value: string } | undefined>)[field] : undefined;
  return m ? (toScaled(m.value, SCALE) ?? 0n) : 0n;
}

function trimmed(units: bigint, minor: number): string {
  const text = scaledToString(units, SCALE);
  // Back to the currency's minor units (every amount compared has at most that many digits).
  const [int, frac = ''] = text.split('.');
  return minor === 0 ? int! : `${int}.${frac.slice(0, minor).padEnd(minor, '0')}`;
}

const keyOf = (l: ConsolidatedLine) => `${l.lineType}|${l.accountNumber}|${l.companyId ?? ''}`;

export function compareTrialBalances(
  view: 'closing' | 'opening',
  tb: Pick<TrialBalanceView, 'lineItems' | 'currency'>,
  other: Pick<TrialBalanceView, 'lineItems'>,
  minor: number,
): LineDifference[] {
  const mine = new Map(tb.lineItems.map((l) => [keyOf(l), l]));
  const theirs = new Map(other.lineItems.map((l) => [keyOf(l), l]));
  const keys = [...mine.keys()];
  for (const k of theirs.keys()) if (!mine.has(k)) keys.push(k);
  const out: LineDifference[] = [];
  for (const k of keys) {
    const a = mine.get(k);
    const b = theirs.get(k);
    const changes: FieldDifference[] = [];
    for (const field of COMPARED_FIELDS) {
      const x = amountOf(a, field);
      const y = amountOf(b, field);
      if (x === y) continue;
      changes.push({
        field,
        value: trimmed(x, minor),
        otherValue: trimmed(y, minor),
        difference: trimmed(x - y, minor),
      });
    }
    if (changes.length === 0) continue;
    const l = (a ?? b)!;
    out.push({
      view,
      accountNumber: l.accountNumber,
      accountName: l.accountName,
      lineType: l.lineType,
      companyId: l.companyId,
      currency: tb.currency,
      changes,
    });
  }
  return out;
}
