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

/** The rows of an entry's derived lines, with fresh ids. */
export function lineRows(
  organizationId: string,
  companyId: string,
  entryId: string,
  lines: DerivedLine[],
  fc: string,
): NewLineRow[] {
  const of: LineRowsOf = {
    organizationId,
    journalEntryId: entryId,
    companyId,
    ids: lines.map(() => uuidv7()),
    firstId: 0,
  };
  return lines.map((l, i) => derivedLineRow(l, fc, of, i));
}

/**
 * The stored row of the `i`-th derived line of an entry (its id is `of.ids[of.firstId + i]`): the one
 * place a single create and a bulk create turn a derived line into its row.
 */
export function derivedLineRow(l: DerivedLine, fc: string, of: LineRowsOf, i: number): LineRow {
  const rate = {
    exchangeRate: l.currency === fc ? '1' : l.exchangeRate.toFixed(),
    exchangeRateId: l.exchangeRateId,
    exchangeRateLegIds: l.legIds,
  };
  const amount = dec(l.amount).toFixed();
  return lineRow(l, of, i, amount, l.functionalAmount.toFixed(), rate, l.effectivePartner);
}

/** How a stored line was converted into the functional currency. */
interface LineRate {
  exchangeRate: string;
  exchangeRateId: string | null;
  exchangeRateLegIds: string[];
}

/**
 * The stored row of line `d`, the `index`-th of its entry (id `of.ids[of.firstId + index]`), from its
 * amount and functional amount as stored text: the one row literal that the general derivation
 * (`derivedLineRow`) and the functional-currency fast path (`functionalLineRows`) both fill in.
 */
function lineRow(
  d: DraftLine,
  of: LineRowsOf,
  index: number,
  amount: string,
  functional: string,
  rate: LineRate,
  partner: string | null,
): LineRow {
  const debit = d.side === 'debit';
  return {
    id: of.ids[of.firstId + index]!,
    organizationId: of.organizationId,
    journalEntryId: of.journalEntryId,
    companyId: of.companyId,
    lineNumber: d.lineNumber,
    accountId: d.accountId,
    currency: d.currency,
    debitAmount: debit ? amount : null,
    creditAmount: debit ? null : amount,
    functionalDebitAmount: debit ? functional : null,
    functionalCreditAmount: debit ? null : functional,
    exchangeRate: rate.exchangeRate,
    exchangeRateId: rate.exchangeRateId,
    exchangeRateLegIds: rate.exchangeRateLegIds,
    memo: d.memo,
    dimensions: d.dimensions,
    intercompanyPartnerId: partner,
  };
}

/** The entry's totals of functional amounts, as stored. */
export function totalsOf(lines: DerivedLine[], fc: string) {
  const t = entryTotals(lines, fc);
  return {
    totalDebits: dec(t.totalDebits.value).toFixed(),
    totalCredits: dec(t.totalCredits.value).toFixed(),
  };
}

/** What the stored rows of an entry's lines share, and where their ids come from. */
export interface LineRowsOf {
  organizationId: string;
  journalEntryId: string;
  companyId: string;
  /** Ids drawn for the request's lines; this entry's start at `firstId`. */
  ids: readonly string[];
  firstId: number;
}

/** An amount as the request may give it: digits, at most 15 before the point. */
const PLAIN_AMOUNT = /^(0|[1-9][0-9]{0,14})(?:\.([0-9]+))?$/;
/** A given rate equal to 1. */
const RATE_ONE = /^1(?:\.0+)?$/;

/** Canonical text of a plain decimal: no trailing fraction zeros, no trailing point (as decimal.js writes it). */
function canonical(whole: string, fraction: string | undefined): string {
  if (fraction === undefined) return whole;
  let end = fraction.length;
  while (end > 0 && fraction.charCodeAt(end - 1) === 48) end--;
  return end === 0 ? whole : `${whole}.${fraction.slice(0, end)}`;
}

/** Canonical text of `scaled` minor units of a currency with `minor` digits. */
function scaledText(scaled: number, minor: number): string {
  if (minor === 0) return String(scaled);
  const digits = String(scaled).padStart(minor + 1, '0');
  return canonical(digits.slice(0, -minor), digits.slice(-minor));
}

/**
 * R5 and R6 without decimal arithmetic, for the common entry: every line in the functional currency
 * (no rate, or a given rate of 1) with at most the currency's `minor` fraction digits. R5 then leaves
 * each amount as it is (rate 1, nothing to round) and R6 reduces to Σ debits = Σ credits, summed here
 * as integers of minor units. Returns the lines' row fields and the entry's totals as the general
 * derivation stores them (ids in line order), or null when the entry is not of this kind or does not balance — then the
 * general derivation (checks.ts) runs and gives its answer or its refusal.
 */
export function functionalLineRows(
  drafts: readonly DraftLine[],
  partners: ReadonlyMap<number, string | null>,
  functionalCurrency: string,
  minor: number,
  of: LineRowsOf,
): { lines: LineRow[]; totalDebits: string; totalCredits: string } | null {
  const scale = 10 ** minor;
  let debits = 0;
  let credits = 0;
  const lines: LineRow[] = [];
  for (const d of drafts) {
    if (d.currency !== functionalCurrency) return null;
    if (d.givenRate !== null && !RATE_ONE.test(d.givenRate)) return null;
    const m = PLAIN_AMOUNT.exec(d.amount);
    if (!m) return null;
    const fraction = m[2];
    if (fraction !== undefined && fraction.length > minor) return null;
    const scaled =
      Number(m[1]) * scale +
      (fraction === undefined ? 0 : Number(fraction) * 10 ** (minor - fraction.length));
    if (!Number.isSafeInteger(scaled)) return null;
    const text = canonical(m[1]!, fraction);
    if (d.side === 'debit') debits += scaled;
    else credits += scaled;
    const rate = { exchangeRate: '1', exchangeRateId: null, exchangeRateLegIds: [] };
    lines.push(lineRow(d, of, lines.length, text, text, rate, partners.get(d.lineNumber) ?? null));
  }
  if (!Number.isSafeInteger(debits) || !Number.isSafeInteger(credits) || debits !== credits) return null;
  return { lines, totalDebits: scaledText(debits, minor), totalCredits: scaledText(credits, minor) };
}
