/**
 * The wire records of journal entries and their lines, built from stored rows (or loaded by id):
 * what every journal endpoint answers, and what other modules show of an entry.
 */
import type { Queryable } from '../../db/client.ts';
import type { PeriodRef } from '../../domain/journal/rules.ts';
import { formatAmount, formatRate, type Money, money } from '../../domain/money.ts';
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

/** Characters JSON text must escape (and lone surrogates, which JSON.stringify escapes too). */
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;
/** A JSON string: quoted as is when nothing needs escaping, else as JSON.stringify writes it. */
const text = (v: string): string => (NEEDS_ESCAPE.test(v) ? JSON.stringify(v) : `"${v}"`);
const textOrNull = (v: string | null): string => (v === null ? 'null' : text(v));
const isoOrNull = (d: Date | null): string => (d === null ? 'null' : `"${d.toISOString()}"`);

/**
 * The money objects of one answer as JSON, by currency and stored text: the entries of a bulk request
 * repeat the same few amounts, each formatted once.
 */
class MoneyJson {
  private readonly byCurrency = new Map<string, Map<string, string>>();

  of(v: string | null, currency: string): string {
    if (v === null) return 'null';
    let known = this.byCurrency.get(currency);
    if (!known) this.byCurrency.set(currency, (known = new Map()));
    let json = known.get(v);
    if (json === undefined) {
      json = `{"value":${text(formatAmount(v, currency))},"currency":${text(currency)}}`;
      if (known.size < 10_000) known.set(v, json);
    }
    return json;
  }
}

/**
 * A value of a uuid column as a JSON string. The answer is sent only once the rows are written, and
 * PostgreSQL takes as uuid only hex digits, hyphens and braces: nothing to escape.
 */
const uuidText = (v: string): string => `"${v}"`;
const uuidOrNull = (v: string | null): string => (v === null ? 'null' : `"${v}"`);

/** A line as JSON; `entryPart` is the text of its entry's id property, the same for all its lines. */
function lineJson(l: LineRow, entryPart: string, functionalCurrency: string, money: MoneyJson): string {
  return (
    `{"id":${uuidText(l.id)},${entryPart},"lineNumber":${l.lineNumber},` +
    `"accountId":${uuidText(l.accountId)},"debitAmount":${money.of(l.debitAmount, l.currency)},` +
    `"creditAmount":${money.of(l.creditAmount, l.currency)},` +
    `"functionalCurrencyDebitAmount":${money.of(l.functionalDebitAmount, functionalCurrency)},` +
    `"functionalCurrencyCreditAmount":${money.of(l.functionalCreditAmount, functionalCurrency)},` +
    `"exchangeRate":${l.exchangeRate === '1' ? '"1"' : text(formatRate(l.exchangeRate))},` +
    `"exchangeRateId":${uuidOrNull(l.exchangeRateId)},` +
    `"exchangeRateLegIds":${l.exchangeRateLegIds?.length ? JSON.stringify(l.exchangeRateLegIds) : '[]'},` +
    `"memo":${textOrNull(l.memo)},` +
    `"dimensions":${l.dimensions == null ? 'null' : JSON.stringify(l.dimensions)},` +
    `"intercompanyPartnerId":${uuidOrNull(l.intercompanyPartnerId)}}`
  );
}

/**
 * The JSON text of `{entries: [...]}` for entries just written: byte for byte what the response
 * schema's serializer makes of `{entries: rows.map(entryRecord)}` (same properties, same order), built
 * straight from the rows without the record objects. A bulk answer holds up to 50,000 lines; this is
 * a fraction of the schema serializer's cost, which checks every nullable money object against the
 * schema's alternatives. `lines` of each entry are in line order.
 */
export function bulkAnswerJson(
  entries: readonly { row: EntryRow; lines: readonly LineRow[]; company: { functionalCurrency: string } }[],
): string {
  const parts: string[] = [];
  const money = new MoneyJson();
  for (const { row, lines, company } of entries) {
    const fc = company.functionalCurrency;
    const entryPart = `"journalEntryId":${uuidText(row.id)}`;
    parts.push(
      `{"id":${text(row.id)},"organizationId":${text(row.organizationId)},"companyId":${text(row.companyId)},` +
        `"entryNumber":${text(repo.formatEntryNumber(row.entryNumber))},` +
        `"referenceNumber":${textOrNull(row.referenceNumber)},"description":${text(row.description)},` +
        `"transactionDate":${text(row.transactionDate)},"documentDate":${textOrNull(row.documentDate)},` +
        `"postingDate":${textOrNull(row.postingDate)},` +
        `"fiscalPeriod":{"year":${row.fiscalYear},"period":${row.fiscalPeriod}},` +
        `"entryType":${text(row.entryType)},"sourceModule":${text(row.sourceModule)},` +
        `"sourceDocumentRef":${textOrNull(row.sourceDocumentRef)},"isMultiCurrency":${row.isMultiCurrency},` +
        `"status":${text(row.status)},"isReversing":${row.isReversing},` +
        `"reversedEntryId":${textOrNull(row.reversedEntryId)},"reversingEntryId":${textOrNull(row.reversingEntryId)},` +
        `"totalDebits":${money.of(row.totalDebits, fc)},"totalCredits":${money.of(row.totalCredits, fc)},` +
        `"createdBy":${text(row.createdBy)},"submittedBy":${textOrNull(row.submittedBy)},` +
        `"submittedAt":${isoOrNull(row.submittedAt)},"approvedBy":${textOrNull(row.approvedBy)},` +
        `"approvedAt":${isoOrNull(row.approvedAt)},"rejectedBy":${textOrNull(row.rejectedBy)},` +
        `"rejectedAt":${isoOrNull(row.rejectedAt)},"rejectionReason":${textOrNull(row.rejectionReason)},` +
        `"postedBy":${textOrNull(row.postedBy)},"postedAt":${isoOrNull(row.postedAt)},` +
        `"reversedBy":${textOrNull(row.reversedBy)},"reversedAt":${isoOrNull(row.reversedAt)},` +
        `"createdAt":"${row.createdAt.toISOString()}","updatedAt":"${row.updatedAt.toISOString()}","lines":[` +
        lines.map((l) => lineJson(l, entryPart, fc, money)).join(',') +
        ']}',
    );
  }
  return `{"entries":[${parts.join(',')}]}`;
}
