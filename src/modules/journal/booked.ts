/**
 * Entries the service writes already posted: reversals (reversal.ts) and the year-end closing entries
 * (`insertPostedSystemEntry`, for the closing module). They draw the company's next number and are
 * written, booked into the balances and audited in the caller's transaction; the rules of a create do
 * not apply to them (the caller has checked what applies).
 */
import { sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { journalEntries } from '../../db/schema/index.ts';
import type { Queryable } from '../../db/client.ts';
import type { IsoDate } from '../../domain/dates.ts';
import type { LineSide } from '../../domain/journal/amounts.ts';
import { isClosingRelated, type PeriodRef } from '../../domain/journal/rules.ts';
import {
  BOOKED_STATUS,
  DEFAULT_SOURCE_MODULE,
  type EntryType,
  INITIAL_STATUS,
} from '../../domain/journal/workflow.ts';
import { type Decimal, dec } from '../../domain/money.ts';
import { auditEntry, recordAudit } from '../audit/service.ts';
import { recordJournalEvents } from '../events/record.ts';
import type { CompanyRow } from '../companies/lookup.ts';
import { addEntryToBalances } from '../ledger/posting.ts';
import type { EntryRow, LineRow, NewEntryRow, NewLineRow } from './repo.ts';
import * as repo from './repo.ts';

/** The header of a booked entry without what every booked entry shares (number, status, times). */
export type BookedHeader = Omit<
  NewEntryRow,
  'entryNumber' | 'documentDate' | 'status' | 'postedAt' | 'createdAt' | 'updatedAt'
> & { id: string };

/** Draws the company's next entry number and writes the entry, posted at `now`, with its lines. */
export async function insertBookedEntry(
  tx: Queryable,
  header: BookedHeader,
  lines: NewLineRow[],
  now: Date,
  /** The lines are system lines (no memo, dimensions or partner): written in one statement. */
  systemLines = false,
): Promise<EntryRow> {
  const entryNumber = await repo.nextEntryNumber(tx, header.organizationId, header.companyId);
  const entry = {
    ...header,
    entryNumber,
    documentDate: null,
    status: BOOKED_STATUS,
    postedAt: now,
    createdAt: now,
    updatedAt: now,
  };
  return systemLines ? insertSystemRows(tx, entry, lines) : repo.insertEntry(tx, entry, lines);
}

/** A PostgreSQL array literal of text elements (null: NULL), passed as one parameter. */
function arrayLiteral(values: (string | null)[]): string {
  const items = values.map((v) => (v === null ? 'NULL' : `"${v.replace(/["\\]/g, '\\$&')}"`));
  return `{${items.join(',')}}`;
}

/**
 * Writes an entry and its lines (system lines: no memo, dimensions or partner) in two statements, the
 * lines as ONE set-based insert over parameter arrays, however many there are (a revaluation entry
 * has a line per account and currency).
 */
async function insertSystemRows(tx: Queryable, entry: NewEntryRow, lines: NewLineRow[]): Promise<EntryRow> {
  const [row] = await tx.insert(journalEntries).values(entry).returning();
  if (lines.length === 0) return row!;
  const col = <K extends keyof NewLineRow>(k: K) =>
    arrayLiteral(lines.map((l) => (l[k] == null ? null : String(l[k]))));
  const legs = arrayLiteral(lines.map((l) => `{${(l.exchangeRateLegIds ?? []).join(',')}}`));
  await tx.execute(sql`
    insert into journal_lines (id, organization_id, journal_entry_id, company_id, line_number, account_id,
      currency, debit_amount, credit_amount, functional_debit_amount, functional_credit_amount,
      exchange_rate, exchange_rate_id, exchange_rate_leg_ids)
    select u.id, ${entry.organizationId}, ${entry.id}, ${entry.companyId}, u.n, u.account, u.currency,
      u.d, u.c, u.fd, u.fc, u.rate, u.rate_id, u.legs::uuid[]
    from unnest(${col('id')}::uuid[], ${col('lineNumber')}::smallint[], ${col('accountId')}::uuid[],
      ${col('currency')}::text[], ${col('debitAmount')}::numeric[], ${col('creditAmount')}::numeric[],
      ${col('functionalDebitAmount')}::numeric[], ${col('functionalCreditAmount')}::numeric[],
      ${col('exchangeRate')}::numeric[], ${col('exchangeRateId')}::uuid[], ${legs}::text[])
      as u(id, n, account, currency, d, c, fd, fc, rate, rate_id, legs)`);
  return row!;
}

export interface SystemLine {
  accountId: string;
  side: LineSide;
  /** Functional-currency amount (> 0), rate 1. */
  amount: Decimal;
  /**
   * A line in another transaction currency that changes only the functional amount (a revaluation
   * difference): its foreign amount is zero, `rate` and `rateIds` name the rate it was measured at.
   */
  foreign?: { currency: string; rate: Decimal; rateIds: string[] };
}

/** What a system entry is made of. */
export interface SystemEntryInput {
  company: CompanyRow;
  description: string;
  transactionDate: IsoDate;
  postingDate: IsoDate;
  period: PeriodRef;
  entryType: EntryType;
  sourceDocumentRef: string | null;
  lines: SystemLine[];
  userId: string;
}

/**
 * Creates an entry directly posted (the year-end closing entry, revaluation entries): lines in the
 * functional currency with rate 1 (or revaluation lines, see `SystemLine.foreign`), balances updated;
 * no rule of a create applies (the caller guarantees the balance and accepts closed periods and
 * inactive accounts). Audited as `Create` and `Post` by `userId`.
 */
export async function insertPostedSystemEntry(
  tx: Queryable,
  args: SystemEntryInput,
): Promise<{ entry: EntryRow; lines: LineRow[] }> {
  const entry = await insertSystemEntry(tx, args, true);
  return { entry, lines: await repo.loadLines(tx, entry.organizationId, [entry.id]) };
}

/**
 * Creates a system entry as a `Draft` (an organization that requires approval: the entry then follows
 * the journal workflow like any other). Audited as `Create` by `userId`.
 */
export async function insertDraftSystemEntry(tx: Queryable, args: SystemEntryInput): Promise<EntryRow> {
  return insertSystemEntry(tx, args, false);
}

/**
 * Creates a system entry, posted (balances updated, audited as `Create` and `Post`) or as a `Draft`
 * (audited as `Create`), without reading its lines back.
 */
export async function insertSystemEntry(
  tx: Queryable,
  args: SystemEntryInput,
  posted: boolean,
): Promise<EntryRow> {
  const { company } = args;
  const organizationId = company.organizationId;
  const id = uuidv7();
  const total = (side: LineSide) =>
    args.lines.filter((l) => l.side === side).reduce((s, l) => s.plus(l.amount), dec(0));
  const currencies = new Set(args.lines.map((l) => l.foreign?.currency ?? company.functionalCurrency));
  const header: BookedHeader = {
    id,
    organizationId,
    companyId: company.id,
    referenceNumber: null,
    description: args.description,
    transactionDate: args.transactionDate,
    postingDate: posted ? args.postingDate : null,
    fiscalYear: args.period.year,
    fiscalPeriod: args.period.period,
    entryType: args.entryType,
    sourceModule: DEFAULT_SOURCE_MODULE,
    sourceDocumentRef: args.sourceDocumentRef,
    isMultiCurrency: currencies.size > 1,
    totalDebits: total('debit').toFixed(),
    totalCredits: total('credit').toFixed(),
    createdBy: args.userId,
    postedBy: posted ? args.userId : null,
  };
  const rows = systemLineRows(company, id, args.lines);
  const now = new Date();
  let entry: EntryRow;
  if (posted) {
    entry = await insertBookedEntry(tx, header, rows, now, true);
    await addEntryToBalances(tx, entry, isClosingRelated(entry.entryType));
  } else {
    const entryNumber = await repo.nextEntryNumber(tx, organizationId, company.id);
    entry = await insertSystemRows(
      tx,
      {
        ...header,
        entryNumber,
        documentDate: null,
        status: INITIAL_STATUS,
        postedAt: null,
        createdAt: now,
        updatedAt: now,
      },
      rows,
    );
  }
  const caller = { userId: args.userId };
  await recordAudit(tx, [
    auditEntry(caller, 'JournalEntry', { organizationId, id }, 'Create'),
    ...(posted
      ? [
          auditEntry(caller, 'JournalEntry', { organizationId, id }, 'Post', {
            status: { from: null, to: BOOKED_STATUS },
          }),
        ]
      : []),
  ]);
  await recordJournalEvents(tx, [
    { organizationId, entryId: id, type: 'JournalEntryCreated', actorId: args.userId },
    ...(posted
      ? [{ organizationId, entryId: id, type: 'JournalEntryPosted' as const, actorId: args.userId }]
      : []),
  ]);
  return entry;
}

function systemLineRows(company: CompanyRow, entryId: string, lines: SystemLine[]): NewLineRow[] {
  return lines.map((l, i) => {
    const v = l.amount.toFixed();
    const zero = '0';
    const foreign = l.foreign;
    return {
      id: uuidv7(),
      organizationId: company.organizationId,
      journalEntryId: entryId,
      companyId: company.id,
      lineNumber: i + 1,
      accountId: l.accountId,
      currency: foreign?.currency ?? company.functionalCurrency,
      debitAmount: l.side === 'debit' ? (foreign ? zero : v) : null,
      creditAmount: l.side === 'credit' ? (foreign ? zero : v) : null,
      functionalDebitAmount: l.side === 'debit' ? v : null,
      functionalCreditAmount: l.side === 'credit' ? v : null,
      exchangeRate: foreign ? foreign.rate.toFixed() : '1',
      exchangeRateId: foreign?.rateIds[0] ?? null,
      exchangeRateLegIds: foreign?.rateIds ?? [],
      memo: null,
      dimensions: null,
      intercompanyPartnerId: null,
    };
  });
}
