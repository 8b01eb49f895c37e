/**
 * The workflow moves of an entry: submit, approve, reject and post (the moves themselves, and who may
 * make them, are the data of src/domain/journal/workflow.ts).
 *
 * Each move first tries its one-statement form (workflow-statements.ts), whose guard re-checks under
 * locks the same rules; when the request does not qualify or the guard refuses, nothing is written and
 * the transactional path runs and reports the error of the state it finds.
 */
import { v7 as uuidv7 } from 'uuid';
import { type Db, inTransaction, pgErrorCode, type Queryable } from '../../db/client.ts';
import { todayIn } from '../../domain/dates.ts';
import { isClosingRelated, lineAccountsRefusal } from '../../domain/journal/rules.ts';
import { MOVES, moveOf, segregationRefusal, type WorkflowPolicy } from '../../domain/journal/workflow.ts';
import { type Access, type Action, PERMISSIONS, type Role, roleAtLeast } from '../../access/access.ts';
import type { LookAhead } from '../../http/auth.ts';
import { isUuid } from '../../http/schemas.ts';
import { type AuditAction, auditWrite } from '../audit/service.ts';
import { type EventType, recordJournalEvents } from '../events/record.ts';
import { addEntryToBalances } from '../ledger/posting.ts';
import { organizationSettings } from '../organizations/service.ts';
import { checkActor, checkCompany, locateEntry, lockEntryFor, lockPeriod, refuseIf } from './checks.ts';
import { entryRecord, type JournalEntryRecord, loadRecord } from './records.ts';
import type { EntryRow, NewEntryRow } from './repo.ts';
import * as repo from './repo.ts';
import * as statements from './workflow-statements.ts';

// ---------------------------------------------------------------------------------------------------
// Submit, approve, reject

/** What a move that needs no more than the caller does besides changing the status. */
interface SimpleMove {
  action: Action;
  audit: AuditAction;
  event: EventType;
  /** The columns it sets besides the status. */
  stamp(userId: string, now: Date, reason: string | null): Partial<NewEntryRow>;
  /** The value of its statement's own parameter, if it has one. */
  parameter?(policy: WorkflowPolicy, reason: string | null): unknown;
}

const SIMPLE_MOVES: Record<statements.SimpleOperation, SimpleMove> = {
  submit: {
    action: 'journal_entry:edit',
    audit: 'Submit',
    event: 'JournalEntrySubmitted',
    stamp: (userId, now) => ({ submittedBy: userId, submittedAt: now }),
  },
  approve: {
    action: 'journal_entry:approve',
    audit: 'Approve',
    event: 'JournalEntryApproved',
    stamp: (userId, now) => ({ approvedBy: userId, approvedAt: now }),
    parameter: (policy) => policy.enforceSegregationOfDuties,
  },
  reject: {
    action: 'journal_entry:approve',
    audit: 'Reject',
    event: 'JournalEntryRejected',
    stamp: (userId, now, reason) => ({ rejectedBy: userId, rejectedAt: now, rejectionReason: reason }),
    parameter: (_, reason) => reason,
  },
};

/**
 * `readAhead` (every move and the post): the entry's organization read with the request's session
 * (`entryLookAhead`), used when it was read for this entry.
 */
export function submitEntry(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  readAhead: unknown = null,
) {
  return simpleTransition(db, access, id, organizationId, 'submit', null, readAhead);
}

export function approveEntry(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  readAhead: unknown = null,
) {
  return simpleTransition(db, access, id, organizationId, 'approve', null, readAhead);
}

export function rejectEntry(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  reason: string | null | undefined,
  readAhead: unknown = null,
) {
  return simpleTransition(db, access, id, organizationId, 'reject', reason ?? null, readAhead);
}

async function simpleTransition(
  db: Db,
  access: Access,
  id: string,
  organizationIdParam: string | undefined,
  operation: statements.SimpleOperation,
  reason: string | null,
  readAhead: unknown,
): Promise<JournalEntryRecord> {
  const move = SIMPLE_MOVES[operation];
  const fast = await fastPath(
    db,
    access,
    id,
    organizationIdParam,
    move.action,
    readAhead,
    async (organizationId) => {
      const settings = await organizationSettings(db, organizationId, access);
      const stored = await statements.transitionEntry(db, operation, {
        organizationId,
        id,
        userId: access.userId,
        auditId: uuidv7(),
        eventId: uuidv7(),
        extra: move.parameter?.(settings, reason),
      });
      return stored && entryRecord(stored.row, stored.lines, stored.functionalCurrency);
    },
  );
  if (fast) return fast;
  const organizationId = await locateEntry(db, access, id, organizationIdParam, move.action);
  const settings = await organizationSettings(db, organizationId, access);
  return inTransaction(db, async (tx) => {
    const row = await lockEntryFor(tx, organizationId, id, operation);
    if (operation === 'approve') {
      refuseIf(segregationRefusal(operation, row, { caller: access.userId }, settings));
    }
    const now = new Date();
    const set = { status: MOVES[operation].to, ...move.stamp(access.userId, now, reason), updatedAt: now };
    const updated = await repo.updateEntry(tx, organizationId, id, set);
    await auditWrite(tx, access, 'JournalEntry', { organizationId, id }, move.audit, {
      status: { from: row.status, to: updated.status },
    });
    await recordJournalEvents(tx, [
      { organizationId, entryId: id, type: move.event, actorId: access.userId },
    ]);
    return loadRecord(tx, updated);
  });
}

// ---------------------------------------------------------------------------------------------------
// Post

export interface PostInput {
  organizationId?: string;
  postedBy?: string | null;
  postingDate?: string | null;
}

export async function postEntry(
  db: Db,
  access: Access,
  id: string,
  input: PostInput,
  readAhead: unknown = null,
): Promise<JournalEntryRecord> {
  const fast = await fastPath(
    db,
    access,
    id,
    input.organizationId,
    'journal_entry:post',
    readAhead,
    (organizationId) => postEntryFast(db, access, organizationId, id, input),
  );
  if (fast) return fast;
  const organizationId = await locateEntry(db, access, id, input.organizationId, 'journal_entry:post');
  const settings = await organizationSettings(db, organizationId, access);
  return inTransaction(db, async (tx) => {
    const row = await lockEntryFor(tx, organizationId, id, 'post', settings);
    const postedBy = input.postedBy ?? access.userId;
    const { company, lines } = await checkPost(tx, access, row, postedBy, settings);
    const now = new Date();
    const updated = await repo.updateEntry(tx, organizationId, id, {
      status: MOVES.post.to,
      postingDate: input.postingDate ?? todayIn(settings.defaultTimezone),
      postedBy,
      postedAt: now,
      updatedAt: now,
    });
    await addEntryToBalances(tx, updated, isClosingRelated(updated.entryType));
    await auditWrite(tx, access, 'JournalEntry', { organizationId, id }, 'Post', {
      status: { from: row.status, to: MOVES.post.to },
    });
    await recordJournalEvents(tx, [
      { organizationId, entryId: id, type: 'JournalEntryPosted', actorId: access.userId },
    ]);
    return entryRecord(updated, lines, company.functionalCurrency);
  });
}

/** The one-statement post, for a caller posting in their own name (another user is checked first). */
async function postEntryFast(
  db: Db,
  access: Access,
  organizationId: string,
  id: string,
  input: PostInput,
): Promise<JournalEntryRecord | null> {
  if (input.postedBy != null && input.postedBy !== access.userId) return null;
  const settings = await organizationSettings(db, organizationId, access);
  const stored = await statements.postEntry(db, {
    organizationId,
    id,
    userId: access.userId,
    auditId: uuidv7(),
    allowedStatuses: moveOf('post', settings).from,
    segregation: settings.enforceSegregationOfDuties,
    postingDate: input.postingDate ?? todayIn(settings.defaultTimezone),
    postedBy: access.userId,
    eventId: uuidv7(),
  });
  return stored && entryRecord(stored.row, stored.lines, stored.functionalCurrency);
}

/**
 * The checks of a post after the move (`lockEntryFor`), in order: the posting user, segregation of duties, then R1 and R2
 * again on the company and the line accounts as they are now, and the period (share-locked, open).
 * Returns the company and the entry's lines.
 */
async function checkPost(
  tx: Queryable,
  access: Access,
  row: EntryRow,
  postedBy: string,
  policy: WorkflowPolicy,
) {
  const { organizationId } = row;
  if (postedBy !== access.userId) await checkActor(tx, organizationId, postedBy);
  refuseIf(segregationRefusal('post', row, { caller: access.userId, postedBy }, policy));
  const company = checkCompany(row.companyId, await repo.companyForShare(tx, organizationId, row.companyId));
  const lines = await repo.loadLines(tx, organizationId, [row.id]);
  const accounts = await repo.accountsByIds(
    tx,
    organizationId,
    lines.map((l) => l.accountId),
  );
  refuseIf(lineAccountsRefusal(lines, accounts, company.id));
  await lockPeriod(tx, {
    organizationId,
    company,
    ref: { year: row.fiscalYear, period: row.fiscalPeriod },
    userId: access.userId,
    requireOpen: true,
  });
  return { company, lines };
}

// ---------------------------------------------------------------------------------------------------
// The one-statement form

/**
 * The one-statement form of a workflow operation, for a request that names the entry's organization
 * and whose caller has the role (so that the organization and role checks cannot fail for any other
 * reason than a missing entry, which the statement also detects). Null — nothing written — when the
 * request does not qualify, or the statement's guard refused: the transactional path then runs and
 * reports the error of the state it finds.
 */
async function fastPath<T>(
  db: Db,
  access: Access,
  id: string,
  organizationIdParam: string | undefined,
  action: Action,
  readAhead: unknown,
  write: (organizationId: string) => Promise<T | null>,
): Promise<T | null> {
  let organizationId = organizationIdParam;
  if (organizationId === undefined) {
    // Addressed by id alone: the entry's own organization, and the caller's role there, in one query
    // (read with the session when the route's look-ahead did).
    const ahead = readAhead as statements.EntryOrganizationReadAhead | null;
    const found =
      ahead && ahead.entryId === id ? ahead.found : await statements.entryOrganization(db, id, access.userId);
    if (!found || found.role === null) return null;
    organizationId = found.organizationId;
    access.prime(organizationId, found);
    if (!roleAtLeast(found.role as Role, PERMISSIONS[action].minRole)) return null;
  } else if (!roleAtLeast(await access.roleIn(organizationId), PERMISSIONS[action].minRole)) {
    return null;
  }
  try {
    return await write(organizationId);
  } catch (err) {
    // A deadlock or serialization failure: the transactional path retries.
    const code = pgErrorCode(err);
    if (code === '40P01' || code === '40001') return null;
    throw err;
  }
}

/**
 * The look-ahead of the workflow routes (http/auth.ts `LookAhead`): a request addressing an entry by
 * id alone reads the entry's organization, and the caller's role and settings there, with its session.
 */
export const entryLookAhead: LookAhead = {
  input: ({ params }, organizationId) => {
    if (organizationId !== null || params === null || typeof params !== 'object') return null;
    const id = (params as Record<string, unknown>).id;
    return typeof id === 'string' && isUuid(id) ? id : null;
  },
  lookUp: (db, tokenHash, _organizationId, entryId) =>
    statements.sessionWithEntryOrganization(db, tokenHash, entryId as string),
};
