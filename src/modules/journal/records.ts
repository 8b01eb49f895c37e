/**
 * The wire records of journal entries and their lines, built from stored rows (or loaded by id):
 * what every journal endpoint answers, and what other modules show of an entry.
 */
import type { Queryable } from '../../db/client.ts';
import type { PeriodRef } from '../../domain/journal/rules.ts';
import { formatRate, type Money, money } from '../../domain/money.ts';
import type { EntryRow, LineRow } from './repo.ts';
import * as repo from './repo.ts';

export interface JournalLineRecord {
  id: string;
  journalEntryId: string;
  lineNumber: number;
  accountId: string;
  debitAmount: Money | null;
  creditAmount: Money | null;
  functionalCurrencyDebitAmount: Money | null;
  functionalCurrencyCreditAmount: Money | null;
  exchangeRate: string;
  exchangeRateId: string | null;
  exchangeRateLegIds: string[];
  memo: string | null;
  dimensions: Record<string, string> | null;
  intercompanyPartnerId: string | null;
}

export interface JournalEntryRecord {
  id: string;
  organizationId: string;
  companyId: string;
  entryNumber: string;
  referenceNumber: string | null;
  description: string;
  transactionDate: string;
  documentDate: string | null;
  postingDate: string | null;
  fiscalPeriod: PeriodRef;
  entryType: string;
  sourceModule: string;
  sourceDocumentRef: string | null;
  isMultiCurrency: boolean;
  status: string;
  isReversing: boolean;
  reversedEntryId: string | null;
  reversingEntryId: string | null;
  totalDebits: Money;
  totalCredits: Money;
  createdBy: string;
  submittedBy: string | null;
  submittedAt: string | null;
  approvedBy: string | null;
  approvedAt: string | null;
  rejectedBy: string | null;
  rejectedAt: string | null;
  rejectionReason: string | null;
  postedBy: string | null;
  postedAt: string | null;
  reversedBy: string | null;
  reversedAt: string | null;
  createdAt: string;
  updatedAt: string;
  lines: JournalLineRecord[];
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
const amountOrNull = (v: string | null, currency: string): Money | null =>
  v === null ? null : money(v, currency);

export function lineRecord(l: LineRow, functionalCurrency: string): JournalLineRecord {
  return {
    id: l.id,
    journalEntryId: l.journalEntryId,
    lineNumber: l.lineNumber,
    accountId: l.accountId,
    debitAmount: amountOrNull(l.debitAmount, l.currency),
    creditAmount: amountOrNull(l.creditAmount, l.currency),
    functionalCurrencyDebitAmount: amountOrNull(l.functionalDebitAmount, functionalCurrency),
    functionalCurrencyCreditAmount: amountOrNull(l.functionalCreditAmount, functionalCurrency),
    exchangeRate: formatRate(l.exchangeRate),
    exchangeRateId: l.exchangeRateId,
    exchangeRateLegIds: l.exchangeRateLegIds ?? [],
    memo: l.memo,
    dimensions: (l.dimensions as Record<string, string> | null) ?? null,
    intercompanyPartnerId: l.intercompanyPartnerId,
  };
}

/** The wire record of an entry; `lines` are this entry's lines (any order). */
export function entryRecord(row: EntryRow, lines: LineRow[], functionalCurrency: string): JournalEntryRecord {
  return {
    id: row.id,
    organizationId: row.organizationId,
    companyId: row.companyId,
    entryNumber: repo.formatEntryNumber(row.entryNumber),
    referenceNumber: row.referenceNumber,
    description: row.description,
    transactionDate: row.transactionDate,
    documentDate: row.documentDate,
    postingDate: row.postingDate,
    fiscalPeriod: { year: row.fiscalYear, period: row.fiscalPeriod },
    entryType: row.entryType,
    sourceModule: row.sourceModule,
    sourceDocumentRef: row.sourceDocumentRef,
    isMultiCurrency: row.isMultiCurrency,
    status: row.status,
    isReversing: row.isReversing,
    reversedEntryId: row.reversedEntryId,
    reversingEntryId: row.reversingEntryId,
    totalDebits: money(row.totalDebits, functionalCurrency),
    totalCredits: money(row.totalCredits, functionalCurrency),
    createdBy: row.createdBy,
    submittedBy: row.submittedBy,
    submittedAt: iso(row.submittedAt),
    approvedBy: row.approvedBy,
    approvedAt: iso(row.approvedAt),
    rejectedBy: row.rejectedBy,
    rejectedAt: iso(row.rejectedAt),
    rejectionReason: row.rejectionReason,
    postedBy: row.postedBy,
    postedAt: iso(row.postedAt),
    reversedBy: row.reversedBy,
    reversedAt: iso(row.reversedAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    lines: lines
      .filter((l) => l.journalEntryId === row.id)
      .sort((a, b) => a.lineNumber - b.lineNumber)
      .map((l) => lineRecord(l, functionalCurrency)),
  };
}

async function functionalCurrencyOf(db: Queryable, row: EntryRow): Promise<string> {
  const map = await repo.functionalCurrencies(db, [row.organizationId], [row.companyId]);
  return map.get(row.companyId)!;
}

/** Loads the record of an entry of the organization (lines included), or null. */
export async function getEntryRecord(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<JournalEntryRecord | null> {
  const row = await repo.findEntry(db, organizationId, id);
  if (!row) return null;
  return loadRecord(db, row);
}

export async function loadRecord(db: Queryable, row: EntryRow): Promise<JournalEntryRecord> {
  const [lines, fc] = await Promise.all([
    repo.loadLines(db, row.organizationId, [row.id]),
    functionalCurrencyOf(db, row),
  ]);
  return entryRecord(row, lines, fc);
}
