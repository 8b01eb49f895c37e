/**
 * Reversal: a posted entry is undone by a new posted entry with its lines' sides swapped, and is
 * marked reversed. The reverse endpoint checks the move and its rules; year-end reopen (the closing
 * module) reverses closing entries through `reverseEntryInTx` on its own terms.
 */
import { v7 as uuidv7 } from 'uuid';
import { type Db, type Queryable } from '../../db/client.ts';
import type { IsoDate } from '../../domain/dates.ts';
import { invalid } from '../../domain/errors.ts';
import {
  CLOSING_ENTRY_TYPE,
  closingEntryReversalRefusal,
  isClosingRelated,
  type PeriodRef,
  yearEndRef,
} from '../../domain/journal/rules.ts';
import { MOVES, REVERSAL_ENTRY_TYPE } from '../../domain/journal/workflow.ts';
import type { Access } from '../../access/access.ts';
import { auditEntry, recordAudit } from '../audit/service.ts';
import { recordJournalEvents } from '../events/record.ts';
import type { CompanyRow } from '../companies/lookup.ts';
import { addEntryToBalances } from '../ledger/posting.ts';
import { insertBookedEntry } from './booked.ts';
import { checkActor, checkCompany, writeEntry, lockPeriod, refuseIf, resolveFiscalPeriod } from './checks.ts';
import { entryRecord, type JournalEntryRecord } from './records.ts';
import type { EntryRow, LineRow, NewLineRow } from './repo.ts';
import * as repo from './repo.ts';

export interface ReverseInput {
  organizationId?: string;
  reversalDate: string;
  reversalDescription?: string | null;
  reversedBy?: string | null;
}

/**
 * Reverses a posted entry, in order: the move (an entry already reversed has its own error), not a
 * year-end closing entry, the reversing user, a date not before the original's, the company (R1),
 * then the period of the date (R4, share-locked and open).
 */
export async function reverseEntry(
  db: Db,
  access: Access,
  id: string,
  input: ReverseInput,
): Promise<JournalEntryRecord> {
  return writeEntry(
    db,
    access,
    id,
    input.organizationId,
    'journal_entry:reverse',
    'reverse',
    async (tx, row) => {
      const { organizationId } = row;
      refuseIf(closingEntryReversalRefusal(row));
      const reversedBy = input.reversedBy ?? access.userId;
      if (reversedBy !== access.userId) await checkActor(tx, organizationId, reversedBy);
      if (input.reversalDate < row.transactionDate) {
        throw invalid('/reversalDate', "Must not be earlier than the original entry's transactionDate");
      }
      const company = checkCompany(
        row.companyId,
        await repo.companyForShare(tx, organizationId, row.companyId),
      );
      const ref = resolveFiscalPeriod(company, input.reversalDate, null, '/reversalDate');
      await lockPeriod(tx, { organizationId, company, ref, userId: access.userId, requireOpen: true });
      const { reversal, lines } = await reverseEntryInTx(tx, {
        original: row,
        company,
        date: input.reversalDate,
        period: ref,
        description: input.reversalDescription ?? null,
        reversedBy,
        userId: access.userId,
      });
      return entryRecord(reversal, lines, company.functionalCurrency);
    },
  );
}

/**
 * Creates the posted reversal of a posted entry and marks the original reversed, in the caller's
 * transaction. The caller has locked the original, checked every rule and the period (year-end reopen
 * reverses into a closed period 13 on purpose). The reversal is booked into the balances in its own
 * period, closing-related when the original is. Audited as `Create` of the reversal and `Reverse` of
 * the original.
 */
export async function reverseEntryInTx(
  tx: Queryable,
  args: {
    original: EntryRow;
    company: CompanyRow;
    date: IsoDate;
    period: PeriodRef;
    description: string | null;
    reversedBy: string;
    userId: string;
  },
): Promise<{ reversal: EntryRow; lines: LineRow[] }> {
  const { original, company } = args;
  const organizationId = original.organizationId;
  const originalLines = await repo.loadLines(tx, organizationId, [original.id]);
  const id = uuidv7();
  const now = new Date();
  const header = {
    id,
    organizationId,
    companyId: company.id,
    referenceNumber: original.referenceNumber,
    description: args.description ?? `Reversal of ${repo.formatEntryNumber(original.entryNumber)}`,
    transactionDate: args.date,
    postingDate: args.date,
    fiscalYear: args.period.year,
    fiscalPeriod: args.period.period,
    entryType: REVERSAL_ENTRY_TYPE,
    sourceModule: original.sourceModule,
    sourceDocumentRef: original.sourceDocumentRef,
    isMultiCurrency: original.isMultiCurrency,
    isReversing: true,
    reversedEntryId: original.id,
    reversingEntryId: null,
    totalDebits: original.totalCredits,
    totalCredits: original.totalDebits,
    createdBy: args.userId,
    postedBy: args.reversedBy,
  };
  const reversal = await insertBookedEntry(tx, header, swappedLines(originalLines, id), now);
  await repo.updateEntry(tx, organizationId, original.id, {
    status: MOVES.reverse.to,
    reversingEntryId: id,
    reversedBy: args.reversedBy,
    reversedAt: now,
    updatedAt: now,
  });
  await addEntryToBalances(tx, reversal, isClosingRelated(original.entryType));
  const caller = { userId: args.userId };
  await recordAudit(tx, [
    auditEntry(caller, 'JournalEntry', { organizationId, id }, 'Create'),
    auditEntry(caller, 'JournalEntry', { organizationId, id: original.id }, 'Reverse', {
      status: { from: original.status, to: MOVES.reverse.to },
      reversingEntryId: { from: null, to: id },
    }),
  ]);
  // The reversal is a new entry, created posted; the original is now reversed.
  await recordJournalEvents(tx, [
    { organizationId, entryId: id, type: 'JournalEntryCreated', actorId: args.userId },
    { organizationId, entryId: id, type: 'JournalEntryPosted', actorId: args.userId },
    { organizationId, entryId: original.id, type: 'JournalEntryReversed', actorId: args.userId },
  ]);
  const lines = await repo.loadLines(tx, organizationId, [id]);
  return { reversal, lines };
}

/**
 * Year-end reopen: reverses the posted closing entries of a fiscal year in entry-number order, each
 * dated `date` in `period` (the year's closed period 13), by `userId`. Returns the ids of the reversed
 * entries and of their reversals.
 */
export async function reverseClosingEntries(
  tx: Queryable,
  args: { company: CompanyRow; fiscalYearId: string; date: IsoDate; period: PeriodRef; userId: string },
): Promise<{ reversedEntryIds: string[]; reversingEntryIds: string[] }> {
  const { company } = args;
  const closing = await repo.lockPostedEntriesOf(
    tx,
    company.organizationId,
    company.id,
    CLOSING_ENTRY_TYPE,
    yearEndRef(args.fiscalYearId),
  );
  const reversingEntryIds: string[] = [];
  for (const original of closing) {
    const { reversal } = await reverseEntryInTx(tx, {
      original,
      company,
      date: args.date,
      period: args.period,
      description: null,
      reversedBy: args.userId,
      userId: args.userId,
    });
    reversingEntryIds.push(reversal.id);
  }
  return { reversedEntryIds: closing.map((e) => e.id), reversingEntryIds };
}

/** The lines of a reversal: the original's in line order, each on the other side. */
function swappedLines(originalLines: LineRow[], reversalId: string): NewLineRow[] {
  return originalLines
    .sort((a, b) => a.lineNumber - b.lineNumber)
    .map((l, i) => ({
      id: uuidv7(),
      organizationId: l.organizationId,
      journalEntryId: reversalId,
      companyId: l.companyId,
      lineNumber: i + 1,
      accountId: l.accountId,
      currency: l.currency,
      debitAmount: l.creditAmount,
      creditAmount: l.debitAmount,
      functionalDebitAmount: l.functionalCreditAmount,
      functionalCreditAmount: l.functionalDebitAmount,
      exchangeRate: l.exchangeRate,
      exchangeRateId: l.exchangeRateId,
      exchangeRateLegIds: l.exchangeRateLegIds ?? [],
      memo: l.memo,
      dimensions: l.dimensions,
      intercompanyPartnerId: l.intercompanyPartnerId,
    }));
}
