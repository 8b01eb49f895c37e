/**
 * Entries the service writes already posted: reversals (reversal.ts) and the year-end closing entries
 * (`insertPostedSystemEntry`, for the closing module). They draw the company's next number and are
 * written, booked into the balances and audited in the caller's transaction; the rules of a create do
 * not apply to them (the caller has checked what applies).
 */
import { v7 as uuidv7 } from 'uuid';
import type { Queryable } from '../../db/client.ts';
import type { IsoDate } from '../../domain/dates.ts';
import type { LineSide } from '../../domain/journal/amounts.ts';
import { isClosingRelated, type PeriodRef } from '../../domain/journal/rules.ts';
import { BOOKED_STATUS, DEFAULT_SOURCE_MODULE, type EntryType } from '../../domain/journal/workflow.ts';
import { type Decimal, dec } from '../../domain/money.ts';
import { recordAudit } from '../audit/service.ts';
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
  return repo.insertEntry(tx, entry, lines);
}

export interface SystemLine {
  accountId: string;
  side: LineSide;
  /** Functional-currency amount (> 0), rate 1. */
  amount: Decimal;
}

/**
 * Creates an entry directly posted (the year-end closing entry): lines in the functional currency
 * with rate 1, balances updated; no rule of a create applies (the caller guarantees the balance and
 * accepts closed periods and inactive accounts). Audited as `Create` and `Post` by `userId`.
 */
export async function insertPostedSystemEntry(
  tx: Queryable,
  args: {
    company: CompanyRow;
    description: string;
    transactionDate: IsoDate;
    postingDate: IsoDate;
    period: PeriodRef;
    entryType: EntryType;
    sourceDocumentRef: string | null;
    lines: SystemLine[];
    userId: string;
  },
): Promise<{ entry: EntryRow; lines: LineRow[] }> {
  const { company } = args;
  const organizationId = company.organizationId;
  const id = uuidv7();
  const total = (side: LineSide) =>
    args.lines.filter((l) => l.side === side).reduce((s, l) => s.plus(l.amount), dec(0));
  const header: BookedHeader = {
    id,
    organizationId,
    companyId: company.id,
    referenceNumber: null,
    description: args.description,
    transactionDate: args.transactionDate,
    postingDate: args.postingDate,
    fiscalYear: args.period.year,
    fiscalPeriod: args.period.period,
    entryType: args.entryType,
    sourceModule: DEFAULT_SOURCE_MODULE,
    sourceDocumentRef: args.sourceDocumentRef,
    isMultiCurrency: false,
    totalDebits: total('debit').toFixed(),
    totalCredits: total('credit').toFixed(),
    createdBy: args.userId,
    postedBy: args.userId,
  };
  const entry = await insertBookedEntry(tx, header, systemLineRows(company, id, args.lines), new Date());
  await addEntryToBalances(tx, entry, isClosingRelated(entry.entryType));
  await recordAudit(tx, [
    { organizationId, userId: args.userId, action: 'Create', entityType: 'JournalEntry', entityId: id },
    {
      organizationId,
      userId: args.userId,
      action: 'Post',
      entityType: 'JournalEntry',
      entityId: id,
      changes: { status: { from: null, to: BOOKED_STATUS } },
    },
  ]);
  return { entry, lines: await repo.loadLines(tx, organizationId, [id]) };
}

function systemLineRows(company: CompanyRow, entryId: string, lines: SystemLine[]): NewLineRow[] {
  return lines.map((l, i) => {
    const v = l.amount.toFixed();
    return {
      id: uuidv7(),
      organizationId: company.organizationId,
      journalEntryId: entryId,
      companyId: company.id,
      lineNumber: i + 1,
      accountId: l.accountId,
      currency: company.functionalCurrency,
      debitAmount: l.side === 'debit' ? v : null,
      creditAmount: l.side === 'credit' ? v : null,
      functionalDebitAmount: l.side === 'debit' ? v : null,
      functionalCreditAmount: l.side === 'credit' ? v : null,
      exchangeRate: '1',
      exchangeRateId: null,
      exchangeRateLegIds: [],
      memo: null,
      dimensions: null,
      intercompanyPartnerId: null,
    };
  });
}
