/**
 * The lines of an entry on their way in: as the request gives them (`LineInput`), as drafts to check
 * (from the request, or stored lines an update checks again), derived (rate and functional amount,
 * see checks.ts) and as rows to write.
 */
import { v7 as uuidv7 } from 'uuid';
import { entryTotals, type LineSide } from '../../domain/journal/amounts.ts';
import { type Decimal, dec } from '../../domain/money.ts';
import type { LineRow, NewLineRow } from './repo.ts';

export interface MoneyIn {
  value: string;
  currency: string;
}

export interface LineInput {
  accountId: string;
  debitAmount?: MoneyIn | null | undefined;
  creditAmount?: MoneyIn | null | undefined;
  exchangeRate?: string | null | undefined;
  memo?: string | null | undefined;
  dimensions?: Record<string, string> | null | undefined;
  intercompanyPartnerId?: string | null | undefined;
}

/** A line before derivation: from the request, or a stored line re-validated by an update. */
export interface DraftLine {
  lineNumber: number;
  accountId: string;
  side: LineSide;
  amount: string;
  currency: string;
  /** A rate given explicitly (request, or a stored line whose rate counts as given). */
  givenRate: string | null;
  /** Stored derivation, used when R5/R6 do not run again. */
  stored: {
    functionalAmount: string;
    exchangeRate: string;
    exchangeRateId: string | null;
    legIds: string[];
  } | null;
  memo: string | null;
  dimensions: Record<string, string> | null;
  partner: string | null;
}

export interface DerivedLine extends DraftLine {
  functionalAmount: Decimal;
  exchangeRate: Decimal;
  exchangeRateId: string | null;
  legIds: string[];
  effectivePartner: string | null;
}

/** The cross-field rule of the lines checked with the syntax checks: one side per line. */
export function lineShapeIssues(
  lines: readonly LineInput[] | undefined,
): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  (lines ?? []).forEach((l, i) => {
    const d = l.debitAmount != null;
    const c = l.creditAmount != null;
    if (d === c) {
      issues.push({
        path: `/lines/${i}`,
        message: 'Exactly one of debitAmount and creditAmount must be given',
      });
    }
  });
  return issues;
}

export function draftFromInput(l: LineInput, index: number): DraftLine {
  const m = (l.debitAmount ?? l.creditAmount)!;
  return {
    lineNumber: index + 1,
    accountId: l.accountId,
    side: l.debitAmount != null ? 'debit' : 'credit',
    amount: m.value,
    currency: m.currency,
    givenRate: l.exchangeRate ?? null,
    stored: null,
    memo: l.memo ?? null,
    dimensions: l.dimensions ?? null,
    partner: l.intercompanyPartnerId ?? null,
  };
}

export function draftFromStored(l: LineRow, functionalCurrency: string): DraftLine {
  const debit = l.debitAmount !== null;
  const foreign = l.currency !== functionalCurrency;
  return {
    lineNumber: l.lineNumber,
    accountId: l.accountId,
    side: debit ? 'debit' : 'credit',
    amount: (debit ? l.debitAmount : l.creditAmount)!,
    currency: l.currency,
    // A foreign line without stored legs had its rate given (or its rate was deleted since).
    givenRate: foreign && (l.exchangeRateLegIds ?? []).length === 0 ? l.exchangeRate : null,
    stored: {
      functionalAmount: (debit ? l.functionalDebitAmount : l.functionalCreditAmount)!,
      exchangeRate: l.exchangeRate,
      exchangeRateId: l.exchangeRateId,
      legIds: l.exchangeRateLegIds ?? [],
    },
    memo: l.memo,
    dimensions: (l.dimensions as Record<string, string> | null) ?? null,
    partner: l.intercompanyPartnerId,
  };
}

/** The partner companies the lines name. */
export const partnerIdsOf = (lines: readonly DraftLine[]) =>
  lines.map((l) => l.partner).filter((p): p is string => p !== null);

/** The rows of an entry's derived lines. */
export function lineRows(
  organizationId: string,
  companyId: string,
  entryId: string,
  lines: DerivedLine[],
  fc: string,
): NewLineRow[] {
  return lines.map((l) => {
    const fa = l.functionalAmount.toFixed();
    return {
      id: uuidv7(),
      organizationId,
      journalEntryId: entryId,
      companyId,
      lineNumber: l.lineNumber,
      accountId: l.accountId,
      currency: l.currency,
      debitAmount: l.side === 'debit' ? dec(l.amount).toFixed() : null,
      creditAmount: l.side === 'credit' ? dec(l.amount).toFixed() : null,
      functionalDebitAmount: l.side === 'debit' ? fa : null,
      functionalCreditAmount: l.side === 'credit' ? fa : null,
      exchangeRate: l.currency === fc ? '1' : l.exchangeRate.toFixed(),
      exchangeRateId: l.exchangeRateId,
      exchangeRateLegIds: l.legIds,
      memo: l.memo,
      dimensions: l.dimensions,
      intercompanyPartnerId: l.effectivePartner,
    };
  });
}

/** The entry's totals of functional amounts, as stored. */
export function totalsOf(lines: DerivedLine[], fc: string) {
  const t = entryTotals(lines, fc);
  return {
    totalDebits: dec(t.totalDebits.value).toFixed(),
    totalCredits: dec(t.totalCredits.value).toFixed(),
  };
}
