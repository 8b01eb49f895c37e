/**
 * Intercompany transactions: records, the reconciliation workflow (matching status) and the links
 * to each side's journal entry.
 *
 * Checks run in the pipeline order: organization (step 7) → addressed transaction (8) → role (9)
 * → the endpoint's business rules in the order of its Errors column (10). Every write is one
 * transaction with its audit entry; transitions lock the row.
 */
import { v7 as uuidv7 } from 'uuid';
import { type Db, inTransaction, type Queryable } from '../../db/client.ts';
import type { IsoDate } from '../../domain/dates.ts';
import { DomainError, type Issue, ValidationError } from '../../domain/errors.ts';
import { dec, type Money, money } from '../../domain/money.ts';
import type { Access, Action } from '../../access/access.ts';
import { type PageParams, paged } from '../../http/pagination.ts';
import { auditWrite, diffChanges } from '../audit/service.ts';
import { recordEvent } from '../events/record.ts';
import { companyInactive, companyNotFound, findCompany } from '../companies/lookup.ts';
import { listedOrganizations } from '../shared/lists.ts';
import { type Reconciliation, reconcileAll } from './reconciliation.ts';
import type { IntercompanyRow, MatchingStatus, TransactionType } from './repo.ts';
import * as repo from './repo.ts';
import { errors } from '../../domain/error-catalogue.ts';

export type { IntercompanyRow, MatchingStatus, TransactionType } from './repo.ts';
export {
  ELIMINABLE_STATUSES,
  loadTransactionsForRun,
  MATCHING_STATUSES,
  markTransactionsEliminated,
  type RunWindowQuery,
  TRANSACTION_TYPES,
} from './repo.ts';

export interface IntercompanyTransactionRecord {
  id: string;
  organizationId: string;
  fromCompanyId: string;
  toCompanyId: string;
  transactionType: TransactionType;
  transactionDate: IsoDate;
  amount: Money;
  description: string | null;
  fromJournalEntryId: string | null;
  toJournalEntryId: string | null;
  matchingStatus: MatchingStatus;
  varianceAmount: Money | null;
  varianceExplanation: string | null;
  requiresElimination: boolean;
  isEliminated: boolean;
  eliminatedByRunId: string | null;
  createdAt: string;
  updatedAt: string;
  reconciliation: Reconciliation;
}

type BaseRecord = Omit<IntercompanyTransactionRecord, 'reconciliation'>;

export function requiresElimination(status: string): boolean {
  return status === 'Matched' || status === 'VarianceApproved';
}

function baseRecord(row: IntercompanyRow): BaseRecord {
  return {
    id: row.id,
    organizationId: row.organizationId,
    fromCompanyId: row.fromCompanyId,
    toCompanyId: row.toCompanyId,
    transactionType: row.transactionType as TransactionType,
    transactionDate: row.transactionDate,
    amount: money(row.amount, row.currency),
    description: row.description,
    fromJournalEntryId: row.fromJournalEntryId,
    toJournalEntryId: row.toJournalEntryId,
    matchingStatus: row.matchingStatus as MatchingStatus,
    varianceAmount:
      row.varianceAmount === null ? null : money(row.varianceAmount, row.varianceCurrency ?? row.currency),
    varianceExplanation: row.varianceExplanation,
    requiresElimination: requiresElimination(row.matchingStatus),
    isEliminated: row.isEliminated,
    eliminatedByRunId: row.eliminatedByRunId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Wire records of rows, with their reconciliation (one line query for all rows). */
export async function toRecords(db: Queryable, rows: readonly IntercompanyRow[]) {
  const rec = await reconcileAll(db, rows);
  return rows.map((row): IntercompanyTransactionRecord => ({
    ...baseRecord(row),
    reconciliation: rec.get(row.id) ?? { fromAmount: null, toAmount: null, difference: null },
  }));
}

async function toRecord(db: Queryable, row: IntercompanyRow): Promise<IntercompanyTransactionRecord> {
  const [record] = await toRecords(db, [row]);
  return record!;
}

// ---------------------------------------------------------------------------------------------------
// Errors

export function transactionNotFound(transactionId: string): DomainError {
  return errors.IntercompanyTransactionNotFoundError('Intercompany transaction not found', {
    transactionId,
  });
}

function notEditable(row: IntercompanyRow, fields: string[]): DomainError {
  return errors.IntercompanyTransactionNotEditableError(
    `The transaction's state locks: ${fields.join(', ')}`,
    { transactionId: row.id, matchingStatus: row.matchingStatus, isEliminated: row.isEliminated, fields },
  );
}

function entryNotFound(entryId: string): DomainError {
  return errors.JournalEntryNotFoundError('Journal entry not found', { entryId });
}

function entryMismatch(journalEntryId: string, expectedCompanyId: string, actualCompanyId: string) {
  return errors.IntercompanyJournalEntryMismatchError('The journal entry belongs to another company', {
    journalEntryId,
    expectedCompanyId,
    actualCompanyId,
  });
}

export function sameCompany(companyId: string): DomainError {
  return errors.SameCompanyIntercompanyError('fromCompanyId and toCompanyId must differ', {
    companyId,
  });
}

// ---------------------------------------------------------------------------------------------------
// Access to a transaction addressed by id (optional organizationId)

async function addressed(
  db: Queryable,
  access: Access,
  id: string,
  organizationId: string | undefined,
  action: Action,
): Promise<IntercompanyRow> {
  return access.addressed(
    organizationId,
    action,
    (orgId) => repo.findTransaction(db, id, orgId),
    () => transactionNotFound(id),
  );
}

/** Inside the write transaction: the row again, locked (it may have been deleted meanwhile). */
async function locked(tx: Queryable, row: IntercompanyRow): Promise<IntercompanyRow> {
  const current = await repo.lockTransaction(tx, row.organizationId, row.id);
  if (!current) throw transactionNotFound(row.id);
  return current;
}

// ---------------------------------------------------------------------------------------------------
// Read

export async function getTransaction(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
): Promise<IntercompanyTransactionRecord> {
  const row = await addressed(db, access, id, organizationId, 'intercompany:read');
  return toRecord(db, row);
}

export interface ListQuery {
  organizationId?: string | undefined;
  fromCompanyId?: string | undefined;
  toCompanyId?: string | undefined;
  companyId?: string | undefined;
  transactionType?: TransactionType | undefined;
  matchingStatus?: MatchingStatus | undefined;
  startDate?: IsoDate | undefined;
  endDate?: IsoDate | undefined;
  requiresElimination?: boolean | undefined;
  unmatched?: boolean | undefined;
  isEliminated?: boolean | undefined;
}

export async function listTransactions(db: Db, access: Access, q: ListQuery, page: PageParams) {
  const organizationIds = await listedOrganizations(access, q.organizationId, 'intercompany:read');
  if (q.startDate !== undefined && q.endDate !== undefined && q.startDate > q.endDate) {
    throw new ValidationError([{ path: '/query/startDate', message: 'startDate must not be after endDate' }]);
  }
  const named = [q.fromCompanyId, q.toCompanyId, q.companyId].filter((c): c is string => c !== undefined);
  if (named.length > 0) {
    const found = await repo.existingCompanyIds(db, organizationIds, named);
    for (const c of named) if (!found.has(c)) throw companyNotFound(c);
  }
  const { rows, total, nextCursor } = await repo.listTransactions(db, { ...q, organizationIds }, page);
  return {
    ...paged('transactions', await toRecords(db, rows), total, page),
    ...(nextCursor === undefined ? {} : { nextCursor }),
  };
}

// ---------------------------------------------------------------------------------------------------
// Create

/** A new transaction: the record's own fields, the description and the linked entries optional. */
export type CreateInput = Pick<
  IntercompanyTransactionRecord,
  'organizationId' | 'fromCompanyId' | 'toCompanyId' | 'transactionType' | 'transactionDate' | 'amount'
> &
  Partial<Pick<IntercompanyTransactionRecord, 'description' | 'fromJournalEntryId' | 'toJournalEntryId'>>;

/** A linked entry: of the organization (404), of the side's company (400). */
async function checkEntry(
  db: Queryable,
  organizationId: string,
  entryId: string,
  companyId: string,
): Promise<void> {
  const entry = await repo.findEntry(db, organizationId, entryId);
  if (!entry) throw entryNotFound(entryId);
  if (entry.companyId !== companyId) throw entryMismatch(entryId, companyId, entry.companyId);
}

export async function createTransaction(
  db: Db,
  access: Access,
  input: CreateInput,
): Promise<IntercompanyTransactionRecord> {
  // SameCompanyIntercompanyError is checked with the syntax checks (routes.ts); repeated defensively.
  if (input.fromCompanyId === input.toCompanyId) throw sameCompany(input.toCompanyId);
  const orgId = input.organizationId;
  await access.authorize(orgId, 'intercompany:manage');
  const from = await findCompany(db, orgId, input.fromCompanyId);
  if (!from) throw companyNotFound(input.fromCompanyId);
  const to = await findCompany(db, orgId, input.toCompanyId);
  if (!to) throw companyNotFound(input.toCompanyId);
  if (!from.isActive) throw companyInactive(from.id);
  if (!to.isActive) throw companyInactive(to.id);
  const fromEntry = input.fromJournalEntryId ?? null;
  const toEntry = input.toJournalEntryId ?? null;
  const fromRef = fromEntry === null ? null : await repo.findEntry(db, orgId, fromEntry);
  if (fromEntry !== null && !fromRef) throw entryNotFound(fromEntry);
  const toRef = toEntry === null ? null : await repo.findEntry(db, orgId, toEntry);
  if (toEntry !== null && !toRef) throw entryNotFound(toEntry);
  if (fromRef && fromRef.companyId !== from.id) throw entryMismatch(fromRef.id, from.id, fromRef.companyId);
  if (toRef && toRef.companyId !== to.id) throw entryMismatch(toRef.id, to.id, toRef.companyId);

  return inTransaction(db, async (tx) => {
    const id = uuidv7();
    const now = new Date();
    const row = await repo.insertTransaction(tx, {
      id,
      organizationId: orgId,
      fromCompanyId: from.id,
      toCompanyId: to.id,
      transactionType: input.transactionType,
      transactionDate: input.transactionDate,
      amount: input.amount.value,
      currency: input.amount.currency,
      description: input.description ?? null,
      fromJournalEntryId: fromEntry,
      toJournalEntryId: toEntry,
      matchingStatus: 'Unmatched',
      createdAt: now,
      updatedAt: now,
    });
    await auditWrite(tx, access, 'IntercompanyTransaction', { organizationId: orgId, id }, 'Create');
    return toRecord(tx, row);
  });
}

// ---------------------------------------------------------------------------------------------------
// Update

export interface UpdateInput {
  organizationId?: string | undefined;
  fromCompanyId?: string | undefined;
  toCompanyId?: string | undefined;
  transactionType?: TransactionType | undefined;
  transactionDate?: IsoDate | undefined;
  amount?: Money | undefined;
  description?: string | null | undefined;
  varianceAmount?: Money | null | undefined;
  varianceExplanation?: string | null | undefined;
}

const sameMoney = (a: Money | null, b: Money | null) =>
  a === null || b === null ? a === b : a.currency === b.currency && dec(a.value).equals(dec(b.value));

/** Fields locked in the transaction's state; description is always editable. */
function lockedFields(row: IntercompanyRow): boolean {
  return row.isEliminated || requiresElimination(row.matchingStatus);
}

export async function updateTransaction(
  db: Db,
  access: Access,
  id: string,
  queryOrgId: string | undefined,
  input: UpdateInput,
): Promise<IntercompanyTransactionRecord> {
  const found = await addressed(db, access, id, queryOrgId, 'intercompany:manage');
  return inTransaction(db, async (tx) => {
    const row = await locked(tx, found);
    const before = baseRecord(row);

    // Immutable fields: only their current value may be sent.
    const issues: Issue[] = [];
    const immutable = [
      ['organizationId', input.organizationId, row.organizationId],
      ['fromCompanyId', input.fromCompanyId, row.fromCompanyId],
      ['toCompanyId', input.toCompanyId, row.toCompanyId],
    ] as const;
    for (const [field, sent, stored] of immutable) {
      if (sent !== undefined && sent !== stored)
        issues.push({ path: `/${field}`, message: 'Immutable field' });
    }
    if (issues.length > 0) throw new ValidationError(issues);

    // The resulting values of the economic fields.
    const after = {
      transactionType: input.transactionType ?? before.transactionType,
      transactionDate: input.transactionDate ?? before.transactionDate,
      amount: input.amount ?? before.amount,
      varianceAmount: input.varianceAmount === undefined ? before.varianceAmount : input.varianceAmount,
      varianceExplanation:
        input.varianceExplanation === undefined ? before.varianceExplanation : input.varianceExplanation,
      description: input.description === undefined ? before.description : input.description,
    };
    const changed: string[] = [];
    if (after.transactionType !== before.transactionType) changed.push('transactionType');
    if (after.transactionDate !== before.transactionDate) changed.push('transactionDate');
    if (!sameMoney(after.amount, before.amount)) changed.push('amount');
    if (!sameMoney(after.varianceAmount, before.varianceAmount)) changed.push('varianceAmount');
    if (after.varianceExplanation !== before.varianceExplanation) changed.push('varianceExplanation');
    if (changed.length > 0 && lockedFields(row)) throw notEditable(row, changed);

    if (after.varianceAmount !== null && after.varianceAmount.currency !== after.amount.currency) {
      const path =
        input.varianceAmount !== undefined && input.varianceAmount !== null ? '/varianceAmount' : '/amount';
      throw new ValidationError([
        {
          path,
          message:
            path === '/amount'
              ? 'Changing the currency of amount requires clearing or replacing varianceAmount'
              : 'varianceAmount must use the currency of amount',
        },
      ]);
    }
    if (changed.length === 0 && after.description === before.description) return toRecord(tx, row);

    const updated = await repo.updateTransaction(tx, row.organizationId, row.id, {
      transactionType: after.transactionType,
      transactionDate: after.transactionDate,
      amount: after.amount.value,
      currency: after.amount.currency,
      description: after.description,
      varianceAmount: after.varianceAmount?.value ?? null,
      varianceCurrency: after.varianceAmount?.currency ?? null,
      varianceExplanation: after.varianceExplanation,
      updatedAt: new Date(),
    });
    const afterRecord = baseRecord(updated);
    await auditWrite(
      tx,
      access,
      'IntercompanyTransaction',
      row,
      'Update',
      diffChanges(
        before as unknown as Record<string, unknown>,
        afterRecord as unknown as Record<string, unknown>,
      ),
    );
    return toRecord(tx, updated);
  });
}

// ---------------------------------------------------------------------------------------------------
// Delete

export async function deleteTransaction(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
): Promise<void> {
  const found = await addressed(db, access, id, organizationId, 'intercompany:manage');
  await inTransaction(db, async (tx) => {
    const row = await locked(tx, found);
    if (row.isEliminated || requiresElimination(row.matchingStatus)) {
      throw errors.IntercompanyTransactionCannotBeDeletedError(
        'Matched, VarianceApproved and eliminated transactions cannot be deleted',
        { transactionId: row.id, matchingStatus: row.matchingStatus, isEliminated: row.isEliminated },
      );
    }
    await repo.deleteTransaction(tx, row.organizationId, row.id);
    await auditWrite(tx, access, 'IntercompanyTransaction', row, 'Delete');
  });
}

// ---------------------------------------------------------------------------------------------------
// Matching status

export interface MatchingStatusInput {
  matchingStatus: MatchingStatus;
  varianceExplanation?: string | null | undefined;
  varianceAmount?: Money | null | undefined;
}

/** Statuses that carry a variance and need an explanation. */
export const VARIANCE_STATUSES: readonly MatchingStatus[] = ['PartiallyMatched', 'VarianceApproved'];

/** The cross-field rule of SetMatchingStatusRequest (a syntax check). */
export function matchingStatusIssues(input: MatchingStatusInput): Issue[] {
  if (!VARIANCE_STATUSES.includes(input.matchingStatus)) return [];
  const text = input.varianceExplanation;
  if (text === undefined || text === null || text === '') {
    return [
      {
        path: '/varianceExplanation',
        message: `A non-empty varianceExplanation is required for ${input.matchingStatus}`,
      },
    ];
  }
  return [];
}

export async function setMatchingStatus(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  input: MatchingStatusInput,
): Promise<IntercompanyTransactionRecord> {
  const issues = matchingStatusIssues(input);
  if (issues.length > 0) throw new ValidationError(issues);
  const found = await addressed(db, access, id, organizationId, 'intercompany:manage');
  return inTransaction(db, async (tx) => {
    const row = await locked(tx, found);
    if (row.isEliminated) throw notEditable(row, ['matchingStatus']);
    if (
      input.varianceAmount !== undefined &&
      input.varianceAmount !== null &&
      input.varianceAmount.currency !== row.currency
    ) {
      throw new ValidationError([
        { path: '/varianceAmount', message: 'varianceAmount must use the currency of the amount' },
      ]);
    }
    const before = baseRecord(row);
    const keepsVariance = VARIANCE_STATUSES.includes(input.matchingStatus);
    const varianceAmount = keepsVariance
      ? input.varianceAmount === undefined
        ? before.varianceAmount
        : input.varianceAmount
      : null;
    const varianceExplanation = keepsVariance ? (input.varianceExplanation ?? null) : null;
    const unchanged =
      before.matchingStatus === input.matchingStatus &&
      sameMoney(before.varianceAmount, varianceAmount) &&
      before.varianceExplanation === varianceExplanation;
    if (unchanged) return toRecord(tx, row);
    const updated = await repo.updateTransaction(tx, row.organizationId, row.id, {
      matchingStatus: input.matchingStatus,
      varianceAmount: varianceAmount?.value ?? null,
      varianceCurrency: varianceAmount?.currency ?? null,
      varianceExplanation,
      updatedAt: new Date(),
    });
    await auditWrite(
      tx,
      access,
      'IntercompanyTransaction',
      row,
      'SetMatchingStatus',
      diffChanges(
        before as unknown as Record<string, unknown>,
        baseRecord(updated) as unknown as Record<string, unknown>,
      ),
    );
    const record = await toRecord(tx, updated);
    await recordEvent(tx, {
      organizationId: row.organizationId,
      type: 'IntercompanyTransactionMatchingStatusChanged',
      actorId: access.userId,
      resourceType: 'IntercompanyTransaction',
      resourceId: row.id,
      data: { ...record, previousMatchingStatus: before.matchingStatus },
    });
    return record;
  });
}

// ---------------------------------------------------------------------------------------------------
// Links

export async function linkJournalEntry(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  side: 'from' | 'to',
  journalEntryId: string | null,
): Promise<IntercompanyTransactionRecord> {
  const field = side === 'from' ? 'fromJournalEntryId' : 'toJournalEntryId';
  const found = await addressed(db, access, id, organizationId, 'intercompany:manage');
  return inTransaction(db, async (tx) => {
    const row = await locked(tx, found);
    if (row.isEliminated) throw notEditable(row, [field]);
    if (journalEntryId !== null) {
      await checkEntry(
        tx,
        row.organizationId,
        journalEntryId,
        side === 'from' ? row.fromCompanyId : row.toCompanyId,
      );
    }
    if (row[field] === journalEntryId) return toRecord(tx, row);
    const updated = await repo.updateTransaction(tx, row.organizationId, row.id, {
      [field]: journalEntryId,
      updatedAt: new Date(),
    });
    await auditWrite(tx, access, 'IntercompanyTransaction', row, 'LinkJournalEntry', {
      [field]: { from: row[field], to: journalEntryId },
    });
    return toRecord(tx, updated);
  });
}
