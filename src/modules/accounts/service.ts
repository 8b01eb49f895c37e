/**
 * Charts of accounts: list, get, create, update and delete accounts. Rows and records are in
 * records.ts, the hierarchy and locks in hierarchy.ts, templates in templates.ts.
 *
 * `isRetainedEarnings` is not stored on the account: it is derived from the company's
 * `retainedEarningsAccountId` (one source of truth), so every read joins the company.
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type Db, inTransaction, pgConstraint, pgErrorCode, type Tx } from '../../db/client.ts';
import { anyRow, inOrg, updateRow } from '../../db/rows.ts';
import { accounts, eliminationRules, journalLines } from '../../db/schema/index.ts';
import {
  type AccountCategory,
  type AccountType,
  type CashFlowCategory,
  categoryBelongsToType,
  isUsableRetainedEarningsAccount,
  reportingFlagDefaults,
} from '../../domain/accounts.ts';
import { type Issue, ValidationError } from '../../domain/errors.ts';
import type { Access } from '../../access/access.ts';
import type { PageParams } from '../../http/pagination.ts';
import { pagedRows } from '../shared/lists.ts';
import { auditWrite, type Changes, diffChanges } from '../audit/service.ts';
import { accountNotFound, invalidRetainedEarningsAccount } from '../charts/errors.ts';
import { companyNotFound, requireCompany } from '../companies/lookup.ts';

import {
  accountInUse,
  accountRecord,
  type AccountRecord,
  numberTaken,
  tooDeep,
  findAccount,
  loadAccountRecord,
  MAX_HIERARCHY_LEVEL,
  type AccountRow,
} from './records.ts';
import {
  checkNoActiveChildren,
  checkParent,
  checkPartner,
  lockAccount,
  lockCompany,
  newHierarchyLevel,
  setCompanyRetainedEarnings,
  shiftSubtreeLevels,
} from './hierarchy.ts';

export {
  accountRecord,
  type AccountRecord,
  type AccountRow,
  findAccount,
  loadAccountRecord,
  MAX_HIERARCHY_LEVEL,
} from './records.ts';
export { descendantIds } from './hierarchy.ts';
export {
  applyAccountTemplate,
  getAccountTemplate,
  listAccountTemplates,
  templateNotFound,
} from './templates.ts';

// ---------------------------------------------------------------------------------------------------
// Cross-field rules of CreateAccountRequest, applied to the resulting record

interface FlagState {
  companyId: string;
  accountType: AccountType;
  accountCategory: string;
  isIntercompany: boolean;
  intercompanyPartnerId: string | null;
  cashFlowCategory: string | null;
  isCashEquivalent: boolean;
  isNonMonetary: boolean;
}

export function accountFlagIssues(s: FlagState): Issue[] {
  const issues: Issue[] = [];
  if (!categoryBelongsToType(s.accountType, s.accountCategory)) {
    issues.push({
      path: '/accountCategory',
      message: `Category ${s.accountCategory} does not belong to account type ${s.accountType}`,
    });
  }
  if (s.intercompanyPartnerId !== null) {
    if (!s.isIntercompany) {
      issues.push({
        path: '/intercompanyPartnerId',
        message: 'intercompanyPartnerId is allowed only when isIntercompany is true',
      });
    } else if (s.intercompanyPartnerId === s.companyId) {
      issues.push({ path: '/intercompanyPartnerId', message: 'The partner must differ from the company' });
    }
  }
  if (s.cashFlowCategory !== null) {
    if (s.accountType === 'Revenue' || s.accountType === 'Expense') {
      issues.push({
        path: '/cashFlowCategory',
        message: 'cashFlowCategory must be null for Revenue and Expense accounts',
      });
    } else if (s.isCashEquivalent) {
      issues.push({
        path: '/cashFlowCategory',
        message: 'cashFlowCategory must be null when isCashEquivalent is true',
      });
    }
  }
  if (s.isCashEquivalent && !(s.accountType === 'Asset' && s.accountCategory === 'CurrentAsset')) {
    issues.push({
      path: '/isCashEquivalent',
      message: 'Only Asset / CurrentAsset accounts can be cash equivalents',
    });
  }
  if (s.isNonMonetary) {
    if (s.accountType !== 'Asset' && s.accountType !== 'Liability') {
      issues.push({
        path: '/isNonMonetary',
        message: 'Only Asset and Liability accounts can be non-monetary',
      });
    } else if (s.isCashEquivalent) {
      issues.push({ path: '/isNonMonetary', message: 'A cash-equivalent account cannot be non-monetary' });
    }
  }
  return issues;
}

// ---------------------------------------------------------------------------------------------------
// List and get

export interface AccountListQuery {
  organizationId: string;
  companyId: string;
  accountType?: AccountType | undefined;
  accountCategory?: AccountCategory | undefined;
  isActive?: boolean | undefined;
  isPostable?: boolean | undefined;
  isIntercompany?: boolean | undefined;
  parentAccountId?: string | undefined;
}

export async function listAccounts(db: Db, access: Access, q: AccountListQuery, page: PageParams) {
  await access.authorize(q.organizationId, 'account:read');
  const company = await requireCompany(db, q.organizationId, q.companyId);
  const where = inOrg(accounts, q.organizationId, {
    companyId: q.companyId,
    accountType: q.accountType,
    accountCategory: q.accountCategory,
    isActive: q.isActive,
    isPostable: q.isPostable,
    isIntercompany: q.isIntercompany,
    parentAccountId: q.parentAccountId,
  });
  const order = [sql`length(${accounts.accountNumber})`, asc(accounts.accountNumber), asc(accounts.id)];
  return pagedRows(db, accounts, where, order, page, 'accounts', (rows) =>
    rows.map((r) => accountRecord(r, company.retainedEarningsAccountId)),
  );
}

export async function getAccount(
  db: Db,
  access: Access,
  organizationId: string,
  accountId: string,
): Promise<AccountRecord> {
  return access.addressed(
    organizationId,
    'account:read',
    () => loadAccountRecord(db, organizationId, accountId),
    () => accountNotFound(accountId),
  );
}

// ---------------------------------------------------------------------------------------------------
// Create

export interface CreateAccountInput {
  organizationId: string;
  companyId: string;
  accountNumber: string;
  name: string;
  description?: string | null | undefined;
  accountType: AccountType;
  accountCategory: AccountCategory;
  parentAccountId?: string | null | undefined;
  isPostable?: boolean | undefined;
  isIntercompany?: boolean | undefined;
  intercompanyPartnerId?: string | null | undefined;
  cashFlowCategory?: CashFlowCategory | null | undefined;
  isCashEquivalent?: boolean | undefined;
  isRetainedEarnings?: boolean | undefined;
  isNonMonetary?: boolean | undefined;
}

/** The flags of a new account, with their defaults. */
function newAccountFlags(input: CreateAccountInput) {
  return {
    companyId: input.companyId,
    accountType: input.accountType,
    accountCategory: input.accountCategory,
    isPostable: input.isPostable ?? true,
    isIntercompany: input.isIntercompany ?? false,
    intercompanyPartnerId: input.intercompanyPartnerId ?? null,
    ...reportingFlagDefaults(input),
  };
}

export async function createAccount(
  db: Db,
  access: Access,
  input: CreateAccountInput,
): Promise<AccountRecord> {
  const { organizationId, companyId } = input;
  const state = newAccountFlags(input);
  const issues = accountFlagIssues(state);
  if (issues.length > 0) throw new ValidationError(issues);
  await access.authorize(organizationId, 'account:manage');
  const makeRetainedEarnings = input.isRetainedEarnings === true;
  try {
    return await inTransaction(db, async (tx) => {
      const company = await lockCompany(
        tx,
        organizationId,
        companyId,
        makeRetainedEarnings ? 'update' : 'share',
      );
      if (!company) throw companyNotFound(companyId);
      const parentAccountId = input.parentAccountId ?? null;
      let level = 1;
      if (parentAccountId !== null) {
        const parent = await checkParent(tx, organizationId, companyId, input.accountType, parentAccountId);
        level = parent.hierarchyLevel + 1;
      }
      if (makeRetainedEarnings && !isUsableRetainedEarningsAccount({ ...state, isActive: true })) {
        throw invalidRetainedEarningsAccount(null, input.accountType, input.accountCategory);
      }
      if (level > MAX_HIERARCHY_LEVEL) throw tooDeep();
      if (state.intercompanyPartnerId !== null)
        await checkPartner(tx, organizationId, state.intercompanyPartnerId);

      const id = uuidv7();
      const now = new Date();
      const [row] = await tx
        .insert(accounts)
        .values({
          id,
          organizationId,
          companyId,
          accountNumber: input.accountNumber,
          name: input.name,
          description: input.description ?? null,
          accountType: input.accountType,
          accountCategory: input.accountCategory,
          parentAccountId,
          hierarchyLevel: level,
          isPostable: state.isPostable,
          isActive: true,
          isIntercompany: state.isIntercompany,
          intercompanyPartnerId: state.intercompanyPartnerId,
          cashFlowCategory: state.cashFlowCategory,
          isCashEquivalent: state.isCashEquivalent,
          isNonMonetary: state.isNonMonetary,
          createdAt: now,
          updatedAt: now,
          deactivatedAt: null,
        })
        .returning();
      await auditWrite(tx, access, 'Account', { organizationId, id }, 'Create');
      let retainedEarningsAccountId = company.retainedEarningsAccountId;
      if (makeRetainedEarnings) {
        await setCompanyRetainedEarnings(
          tx,
          access,
          organizationId,
          companyId,
          retainedEarningsAccountId,
          id,
        );
        retainedEarningsAccountId = id;
      }
      return accountRecord(row!, retainedEarningsAccountId);
    });
  } catch (err) {
    if (
      pgErrorCode(err) === '23505' &&
      (pgConstraint(err) ?? 'accounts_number_uq') === 'accounts_number_uq'
    ) {
      throw numberTaken(input.accountNumber, companyId);
    }
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------------
// Update

export interface UpdateAccountInput {
  organizationId?: string | undefined;
  companyId?: string | undefined;
  accountNumber?: string | undefined;
  accountType?: AccountType | undefined;
  accountCategory?: AccountCategory | undefined;
  name?: string | undefined;
  description?: string | null | undefined;
  parentAccountId?: string | null | undefined;
  isPostable?: boolean | null | undefined;
  isActive?: boolean | null | undefined;
  isIntercompany?: boolean | null | undefined;
  intercompanyPartnerId?: string | null | undefined;
  cashFlowCategory?: CashFlowCategory | null | undefined;
  isCashEquivalent?: boolean | null | undefined;
  isRetainedEarnings?: boolean | null | undefined;
  isNonMonetary?: boolean | null | undefined;
}

const IMMUTABLE = ['organizationId', 'companyId', 'accountNumber', 'accountType', 'accountCategory'] as const;

/** The fields a PUT may not change: sent with another value, each answers a validation issue. */
function checkImmutable(input: UpdateAccountInput, row: AccountRow): void {
  const immutableIssues: Issue[] = [];
  for (const field of IMMUTABLE) {
    const sent = input[field];
    if (sent !== undefined && sent !== row[field]) {
      immutableIssues.push({ path: `/${field}`, message: `${field} is immutable` });
    }
  }
  if (immutableIssues.length > 0) throw new ValidationError(immutableIssues);
}

/** The account's fields after the update (PUT semantics: null restores the default or clears). */
function nextAccountFields(input: UpdateAccountInput, row: AccountRow) {
  const isIntercompany =
    input.isIntercompany === undefined ? row.isIntercompany : (input.isIntercompany ?? false);
  let intercompanyPartnerId =
    input.intercompanyPartnerId === undefined ? row.intercompanyPartnerId : input.intercompanyPartnerId;
  if (!isIntercompany && input.intercompanyPartnerId === undefined) intercompanyPartnerId = null;
  return {
    name: input.name ?? row.name,
    description: input.description === undefined ? row.description : input.description,
    parentAccountId: input.parentAccountId === undefined ? row.parentAccountId : input.parentAccountId,
    isPostable: input.isPostable === undefined ? row.isPostable : (input.isPostable ?? true),
    isActive: input.isActive === undefined ? row.isActive : (input.isActive ?? true),
    isIntercompany,
    intercompanyPartnerId,
    cashFlowCategory: input.cashFlowCategory === undefined ? row.cashFlowCategory : input.cashFlowCategory,
    isCashEquivalent:
      input.isCashEquivalent === undefined ? row.isCashEquivalent : (input.isCashEquivalent ?? false),
    isNonMonetary: input.isNonMonetary === undefined ? row.isNonMonetary : (input.isNonMonetary ?? false),
  };
}

/** Writes an account's updated fields. */
async function storeAccountUpdate(
  tx: Tx,
  organizationId: string,
  accountId: string,
  fields: ReturnType<typeof nextAccountFields> & { hierarchyLevel: number; deactivatedAt: Date | null },
): Promise<AccountRow> {
  return updateRow(tx, accounts, inOrg(accounts, organizationId, { id: accountId }), {
    name: fields.name,
    description: fields.description,
    parentAccountId: fields.parentAccountId,
    hierarchyLevel: fields.hierarchyLevel,
    isPostable: fields.isPostable,
    isActive: fields.isActive,
    isIntercompany: fields.isIntercompany,
    intercompanyPartnerId: fields.intercompanyPartnerId,
    cashFlowCategory: fields.cashFlowCategory,
    isCashEquivalent: fields.isCashEquivalent,
    isNonMonetary: fields.isNonMonetary,
    deactivatedAt: fields.deactivatedAt,
    updatedAt: new Date(),
  });
}

/**
 * The account addressed by id, for a write in the caller's transaction: the caller's right to manage
 * it is checked, then its company (`companyLock`) and the account are locked. Lock order everywhere:
 * company, then account (company updates lock the account they point to).
 */
async function lockForWrite(
  tx: Tx,
  access: Access,
  organizationId: string,
  accountId: string,
  companyLock: 'update' | 'share',
) {
  const found = await access.addressed(
    organizationId,
    'account:manage',
    () => findAccount(tx, organizationId, accountId),
    () => accountNotFound(accountId),
  );
  const company = await lockCompany(tx, organizationId, found.companyId, companyLock);
  const row = await lockAccount(tx, organizationId, accountId);
  return { company, row };
}

export async function updateAccount(
  db: Db,
  access: Access,
  organizationId: string,
  accountId: string,
  input: UpdateAccountInput,
): Promise<AccountRecord> {
  return inTransaction(db, async (tx) => {
    const { company, row } = await lockForWrite(tx, access, organizationId, accountId, 'update');

    checkImmutable(input, row);

    const currentRe = company?.retainedEarningsAccountId ?? null;
    const before = accountRecord(row, currentRe);

    const next = nextAccountFields(input, row);
    const wasRe = currentRe === accountId;
    const willBeRe = input.isRetainedEarnings === undefined ? wasRe : (input.isRetainedEarnings ?? false);

    const issues = accountFlagIssues({
      companyId: row.companyId,
      accountType: row.accountType as AccountType,
      accountCategory: row.accountCategory,
      ...next,
    });
    if (issues.length > 0) throw new ValidationError(issues);

    const parentChanged = next.parentAccountId !== row.parentAccountId;
    const level = parentChanged
      ? await newHierarchyLevel(tx, organizationId, row, next.parentAccountId)
      : row.hierarchyLevel;
    if (next.intercompanyPartnerId !== null && next.intercompanyPartnerId !== row.intercompanyPartnerId) {
      await checkPartner(tx, organizationId, next.intercompanyPartnerId);
    }
    if (willBeRe && !wasRe && !isUsableRetainedEarningsAccount({ ...row, ...next })) {
      throw invalidRetainedEarningsAccount(accountId, row.accountType, row.accountCategory);
    }
    if (row.isActive && !next.isActive) await checkNoActiveChildren(tx, organizationId, accountId);
    if (wasRe && willBeRe && (!next.isActive || !next.isPostable)) {
      throw accountInUse(accountId, 'RetainedEarningsAccount');
    }

    const deactivatedAt =
      row.isActive && !next.isActive ? new Date() : !next.isActive ? row.deactivatedAt : null;
    const candidate: AccountRecord = {
      ...before,
      ...next,
      cashFlowCategory: next.cashFlowCategory as CashFlowCategory | null,
      hierarchyLevel: level,
      isRetainedEarnings: willBeRe,
      deactivatedAt: deactivatedAt ? deactivatedAt.toISOString() : null,
    };
    const changes: Changes = diffChanges(
      before as unknown as Record<string, unknown>,
      candidate as unknown as Record<string, unknown>,
      ['updatedAt', 'createdAt', 'deactivatedAt'],
    );
    if (Object.keys(changes).length === 0) return before;

    const updated = await storeAccountUpdate(tx, organizationId, accountId, {
      ...next,
      hierarchyLevel: level,
      deactivatedAt,
    });
    const delta = level - row.hierarchyLevel;
    if (parentChanged && delta !== 0) await shiftSubtreeLevels(tx, organizationId, accountId, delta);
    await auditWrite(tx, access, 'Account', { organizationId, id: accountId }, 'Update', changes);
    let retainedEarningsAccountId = currentRe;
    if (willBeRe !== wasRe) {
      retainedEarningsAccountId = willBeRe ? accountId : null;
      await setCompanyRetainedEarnings(
        tx,
        access,
        organizationId,
        row.companyId,
        currentRe,
        retainedEarningsAccountId,
      );
    }
    return accountRecord(updated, retainedEarningsAccountId);
  });
}

// ---------------------------------------------------------------------------------------------------
// Delete

export async function deleteAccount(
  db: Db,
  access: Access,
  organizationId: string,
  accountId: string,
): Promise<void> {
  await inTransaction(db, async (tx) => {
    const { company } = await lockForWrite(tx, access, organizationId, accountId, 'share');
    if (company?.retainedEarningsAccountId === accountId)
      throw accountInUse(accountId, 'RetainedEarningsAccount');
    if (await anyRow(tx, accounts, inOrg(accounts, organizationId, { parentAccountId: accountId })))
      throw accountInUse(accountId, 'ChildAccounts');
    if (await anyRow(tx, journalLines, inOrg(journalLines, organizationId, { accountId })))
      throw accountInUse(accountId, 'JournalEntryLines');
    const bookedByRule = and(
      eq(eliminationRules.organizationId, organizationId),
      sql`(${eliminationRules.debitAccountId} = ${accountId} or ${eliminationRules.creditAccountId} = ${accountId})`,
    );
    if (await anyRow(tx, eliminationRules, bookedByRule)) throw accountInUse(accountId, 'EliminationRules');
    await tx.delete(accounts).where(inOrg(accounts, organizationId, { id: accountId }));
    await auditWrite(tx, access, 'Account', { organizationId, id: accountId }, 'Delete');
  });
}
