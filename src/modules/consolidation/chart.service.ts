/**
 * Group chart of accounts of a consolidation group: its accounts and what the mappings
 * (`chart.mappings.ts`) and the runs read of them. How a run applies them:
 * domain/consolidation/group-chart.ts.
 */
import { and, asc, eq, or, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type Db, inTransaction, pgConstraint, type Queryable, type Tx } from '../../db/client.ts';
import { anyRow, countRows, firstRow, inOrg, sameRow, updateRow } from '../../db/rows.ts';
import { accounts, eliminationRules, groupAccountMappings, groupAccounts } from '../../db/schema/index.ts';
import {
  type AccountCategory,
  type AccountType,
  type CashFlowCategory,
  reportingFlagDefaults,
} from '../../domain/accounts.ts';
import { type GroupAccountInput, type GroupChartInput } from '../../domain/consolidation/group-chart.ts';
import { DomainError, invalid, ValidationError } from '../../domain/errors.ts';
import type { Access } from '../../access/access.ts';
import { isUuid } from '../../http/schemas.ts';
import type { PageParams } from '../../http/pagination.ts';
import { pagedRows } from '../shared/lists.ts';
import { auditEntry, auditWrite, recordAudit } from '../audit/service.ts';
import { accountFlagIssues } from '../accounts/service.ts';
import { type GroupRow, lockGroup } from './groups.repo.ts';
import { authorizeGroup, writeGroup } from './groups.service.ts';
import { errors } from '../../domain/error-catalogue.ts';

export type GroupAccountRow = typeof groupAccounts.$inferSelect;
export type MappingRow = typeof groupAccountMappings.$inferSelect;

// ---------------------------------------------------------------------------------------------------
// Records and errors

export interface GroupAccountRecord {
  id: string;
  organizationId: string;
  consolidationGroupId: string;
  accountNumber: string;
  name: string;
  accountType: AccountType;
  accountCategory: AccountCategory;
  cashFlowCategory: CashFlowCategory | null;
  isCashEquivalent: boolean;
  isNonMonetary: boolean;
  createdAt: string;
  updatedAt: string;
}

export function groupAccountRecord(r: GroupAccountRow): GroupAccountRecord {
  return {
    id: r.id,
    organizationId: r.organizationId,
    consolidationGroupId: r.groupId,
    ...groupAccountInput(r),
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export interface MappingRecord {
  id: string;
  organizationId: string;
  consolidationGroupId: string;
  groupAccountId: string;
  groupAccountNumber: string;
  kind: 'Explicit' | 'Pattern';
  companyId: string | null;
  accountId: string | null;
  accountNumber: string | null;
  pattern: string | null;
  createdAt: string;
}

export function groupAccountNotFound(groupAccountId: string): DomainError {
  return errors.GroupAccountNotFoundError('Group account not found', { groupAccountId });
}

export function mappingNotFound(mappingId: string): DomainError {
  return errors.GroupAccountMappingNotFoundError('Account mapping not found', { mappingId });
}

function numberTaken(accountNumber: string, groupId: string): DomainError {
  return errors.GroupAccountNumberAlreadyExistsError('The group already has an account with this number', {
    accountNumber,
    groupId,
  });
}

function inUse(
  groupAccountId: string,
  reason: 'Mappings' | 'IntercompanyDifferenceAccount' | 'EliminationRules',
): DomainError {
  return errors.GroupAccountInUseError('The group account is in use', {
    groupAccountId,
    reason,
  });
}

export function alreadyMapped(accountId: string, mappingId: string): DomainError {
  return errors.GroupAccountMappingExistsError('The account already has an explicit mapping in this group', {
    accountId,
    mappingId,
  });
}

// ---------------------------------------------------------------------------------------------------
// Loading

export async function findGroupAccount(
  q: Queryable,
  orgId: string,
  groupId: string,
  id: string,
): Promise<GroupAccountRow | null> {
  if (!isUuid(id)) return null;
  return firstRow(q, groupAccounts, inOrg(groupAccounts, orgId, { groupId, id: id.toLowerCase() }));
}

/** The group's account, or 404 GroupAccountNotFoundError. */
export async function requireGroupAccount(
  q: Queryable,
  group: GroupRow,
  id: string,
): Promise<GroupAccountRow> {
  const row = await findGroupAccount(q, group.organizationId, group.id, id);
  if (!row) throw groupAccountNotFound(id);
  return row;
}

export async function loadGroupAccounts(
  q: Queryable,
  orgId: string,
  groupId: string,
): Promise<GroupAccountRow[]> {
  return q
    .select()
    .from(groupAccounts)
    .where(inOrg(groupAccounts, orgId, { groupId }));
}

interface MappingWithNumbers extends MappingRow {
  groupAccountNumber: string;
  accountNumber: string | null;
  accountCompanyId: string | null;
}

/** The mappings of a group in creation order, or only the one of id `mappingId` (lower case). */
export async function loadMappings(
  q: Queryable,
  orgId: string,
  groupId: string,
  mappingId?: string,
): Promise<MappingWithNumbers[]> {
  const rows = await q
    .select({
      m: groupAccountMappings,
      groupAccountNumber: groupAccounts.accountNumber,
      accountNumber: accounts.accountNumber,
      accountCompanyId: accounts.companyId,
    })
    .from(groupAccountMappings)
    .innerJoin(
      groupAccounts,
      and(eq(groupAccounts.organizationId, orgId), eq(groupAccounts.id, groupAccountMappings.groupAccountId)),
    )
    .leftJoin(
      accounts,
      and(eq(accounts.organizationId, orgId), eq(accounts.id, groupAccountMappings.accountId)),
    )
    .where(inOrg(groupAccountMappings, orgId, { groupId, id: mappingId }))
    .orderBy(asc(groupAccountMappings.createdAt), asc(groupAccountMappings.id));
  return rows.map((r) => ({
    ...r.m,
    groupAccountNumber: r.groupAccountNumber,
    accountNumber: r.accountNumber ?? null,
    accountCompanyId: r.accountCompanyId ?? null,
  }));
}

export function mappingRecord(m: MappingWithNumbers): MappingRecord {
  return {
    id: m.id,
    organizationId: m.organizationId,
    consolidationGroupId: m.groupId,
    groupAccountId: m.groupAccountId,
    groupAccountNumber: m.groupAccountNumber,
    kind: m.accountId !== null ? 'Explicit' : 'Pattern',
    companyId: m.accountId !== null ? m.accountCompanyId : (m.companyId ?? null),
    accountId: m.accountId ?? null,
    accountNumber: m.accountNumber,
    pattern: m.pattern ?? null,
    createdAt: m.createdAt.toISOString(),
  };
}

export function groupAccountInput(r: GroupAccountRow): GroupAccountInput {
  return {
    accountNumber: r.accountNumber,
    name: r.name,
    accountType: r.accountType as AccountType,
    accountCategory: r.accountCategory as AccountCategory,
    cashFlowCategory: (r.cashFlowCategory ?? null) as CashFlowCategory | null,
    isCashEquivalent: r.isCashEquivalent,
    isNonMonetary: r.isNonMonetary,
  };
}

/**
 * The engine input of a group's chart (null when the group has no group account), read with `q`
 * (the run loader's snapshot). Explicit mappings name company accounts by number.
 */
export async function loadGroupChartInput(
  q: Queryable,
  orgId: string,
  groupId: string,
): Promise<GroupChartInput | null> {
  const rows = await loadGroupAccounts(q, orgId, groupId);
  if (rows.length === 0) return null;
  const mappings = await loadMappings(q, orgId, groupId);
  return {
    accounts: rows.map(groupAccountInput),
    explicit: mappings
      .filter((m) => m.accountId !== null && m.accountNumber !== null && m.accountCompanyId !== null)
      .map((m) => ({
        companyId: m.accountCompanyId!,
        accountNumber: m.accountNumber!,
        groupAccountNumber: m.groupAccountNumber,
      })),
    patterns: mappings
      .filter((m) => m.pattern !== null)
      .map((m) => ({
        companyId: m.companyId ?? null,
        pattern: m.pattern!,
        groupAccountNumber: m.groupAccountNumber,
      })),
  };
}

// ---------------------------------------------------------------------------------------------------
// Group accounts

export interface GroupAccountInputBody {
  accountNumber: string;
  name: string;
  accountType: AccountType;
  accountCategory: AccountCategory;
  cashFlowCategory?: CashFlowCategory | null;
  isCashEquivalent?: boolean;
  isNonMonetary?: boolean;
}

function flagIssues(groupId: string, a: Required<GroupAccountInputBody>, prefix = ''): void {
  const issues = accountFlagIssues({
    companyId: groupId,
    accountType: a.accountType,
    accountCategory: a.accountCategory,
    isIntercompany: false,
    intercompanyPartnerId: null,
    cashFlowCategory: a.cashFlowCategory,
    isCashEquivalent: a.isCashEquivalent,
    isNonMonetary: a.isNonMonetary,
  });
  if (issues.length > 0) throw new ValidationError(issues.map((i) => ({ ...i, path: prefix + i.path })));
}

function normalized(b: GroupAccountInputBody): Required<GroupAccountInputBody> {
  return {
    accountNumber: b.accountNumber,
    name: b.name,
    accountType: b.accountType,
    accountCategory: b.accountCategory,
    ...reportingFlagDefaults(b),
  };
}

async function insertAccounts(
  tx: Tx,
  access: Access,
  group: GroupRow,
  bodies: Required<GroupAccountInputBody>[],
): Promise<GroupAccountRecord[]> {
  const existing = new Set(
    (await loadGroupAccounts(tx, group.organizationId, group.id)).map((a) => a.accountNumber),
  );
  const now = new Date();
  const rows = bodies.map((b) => {
    if (existing.has(b.accountNumber)) throw numberTaken(b.accountNumber, group.id);
    existing.add(b.accountNumber);
    return {
      id: uuidv7(),
      organizationId: group.organizationId,
      groupId: group.id,
      ...b,
      createdAt: now,
      updatedAt: now,
    };
  });
  let inserted: GroupAccountRow[];
  try {
    inserted = await tx.insert(groupAccounts).values(rows).returning();
  } catch (err) {
    if (pgConstraint(err) === 'group_accounts_number_uq')
      throw numberTaken(bodies[0]!.accountNumber, group.id);
    throw err;
  }
  await recordAudit(
    tx,
    inserted.map((r) =>
      auditEntry(access, 'GroupAccount', r, 'Create', {
        accountNumber: { from: null, to: r.accountNumber },
        groupId: { from: null, to: group.id },
      }),
    ),
  );
  const order = new Map(rows.map((r, i) => [r.id, i]));
  return inserted.sort((a, b) => order.get(a.id)! - order.get(b.id)!).map(groupAccountRecord);
}

export async function createGroupAccount(
  db: Db,
  access: Access,
  groupId: string,
  organizationId: string | undefined,
  body: GroupAccountInputBody,
): Promise<GroupAccountRecord> {
  const group = await authorizeGroup(db, access, groupId, organizationId, 'consolidation:manage');
  const b = normalized(body);
  flagIssues(group.id, b);
  return inTransaction(
    db,
    async (tx) => (await insertAccounts(tx, access, await lockGroup(tx, group), [b]))[0]!,
  );
}

export async function bulkCreateGroupAccounts(
  db: Db,
  access: Access,
  groupId: string,
  organizationId: string | undefined,
  bodies: GroupAccountInputBody[],
): Promise<{ created: GroupAccountRecord[]; count: number }> {
  const group = await authorizeGroup(db, access, groupId, organizationId, 'consolidation:manage');
  const list = bodies.map(normalized);
  list.forEach((b, i) => flagIssues(group.id, b, `/accounts/${i}`));
  const seen = new Map<string, number>();
  list.forEach((b, i) => {
    if (seen.has(b.accountNumber)) {
      throw invalid(`/accounts/${i}/accountNumber`, `Account number ${b.accountNumber} appears twice`);
    }
    seen.set(b.accountNumber, i);
  });
  const created = await inTransaction(db, async (tx) =>
    insertAccounts(tx, access, await lockGroup(tx, group), list),
  );
  return { created, count: created.length };
}

export async function listGroupAccounts(
  db: Db,
  access: Access,
  groupId: string,
  organizationId: string | undefined,
  page: PageParams,
) {
  const group = await authorizeGroup(db, access, groupId, organizationId, 'consolidation:read');
  const where = inOrg(groupAccounts, group.organizationId, { groupId: group.id });
  const order = [sql`length(${groupAccounts.accountNumber})`, asc(groupAccounts.accountNumber)];
  return pagedRows(db, groupAccounts, where, order, page, 'accounts', (rows) => rows.map(groupAccountRecord));
}

export async function getGroupAccount(
  db: Db,
  access: Access,
  groupId: string,
  accountId: string,
  organizationId: string | undefined,
): Promise<GroupAccountRecord> {
  const group = await authorizeGroup(db, access, groupId, organizationId, 'consolidation:read');
  return groupAccountRecord(await requireGroupAccount(db, group, accountId));
}

export type GroupAccountUpdate = Partial<GroupAccountInputBody>;

export async function updateGroupAccount(
  db: Db,
  access: Access,
  groupId: string,
  accountId: string,
  organizationId: string | undefined,
  body: GroupAccountUpdate,
): Promise<GroupAccountRecord> {
  return writeGroup(db, access, groupId, organizationId, async (tx, locked) => {
    const row = await requireGroupAccount(tx, locked, accountId);
    const next = normalized({
      accountNumber: body.accountNumber ?? row.accountNumber,
      name: body.name ?? row.name,
      accountType: body.accountType ?? (row.accountType as AccountType),
      accountCategory: body.accountCategory ?? (row.accountCategory as AccountCategory),
      cashFlowCategory:
        body.cashFlowCategory !== undefined
          ? body.cashFlowCategory
          : (row.cashFlowCategory as CashFlowCategory | null),
      isCashEquivalent: body.isCashEquivalent ?? row.isCashEquivalent,
      isNonMonetary: body.isNonMonetary ?? row.isNonMonetary,
    });
    flagIssues(locked.id, next);
    const kindChanged = next.accountType !== row.accountType || next.isNonMonetary !== row.isNonMonetary;
    if (kindChanged && (await mappingCount(tx, locked.organizationId, row.id)) > 0)
      throw inUse(row.id, 'Mappings');
    if (next.accountNumber !== row.accountNumber) {
      if (locked.icDifferenceAccountNumber === row.accountNumber)
        throw inUse(row.id, 'IntercompanyDifferenceAccount');
      const taken = (await loadGroupAccounts(tx, locked.organizationId, locked.id)).some(
        (a) => a.accountNumber === next.accountNumber,
      );
      if (taken) throw numberTaken(next.accountNumber, locked.id);
    }
    const updated = await updateRow(tx, groupAccounts, sameRow(groupAccounts, row), {
      ...next,
      updatedAt: new Date(),
    });
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const k of Object.keys(next) as (keyof typeof next)[]) {
      const before = (row as Record<string, unknown>)[k] ?? null;
      if (before !== next[k]) changes[k] = { from: before, to: next[k] };
    }
    await auditWrite(tx, access, 'GroupAccount', row, 'Update', changes);
    return groupAccountRecord(updated);
  });
}

async function mappingCount(q: Queryable, orgId: string, groupAccountId: string): Promise<number> {
  return countRows(q, groupAccountMappings, inOrg(groupAccountMappings, orgId, { groupAccountId }));
}

/** Whether an elimination rule books to the group account (its debit or credit side). */
function namedByRule(q: Queryable, orgId: string, groupAccountId: string): Promise<boolean> {
  return anyRow(
    q,
    eliminationRules,
    and(
      eq(eliminationRules.organizationId, orgId),
      or(
        eq(eliminationRules.debitGroupAccountId, groupAccountId),
        eq(eliminationRules.creditGroupAccountId, groupAccountId),
      ),
    ),
  );
}

export async function deleteGroupAccount(
  db: Db,
  access: Access,
  groupId: string,
  accountId: string,
  organizationId: string | undefined,
): Promise<void> {
  await writeGroup(db, access, groupId, organizationId, async (tx, locked) => {
    const row = await requireGroupAccount(tx, locked, accountId);
    if ((await mappingCount(tx, locked.organizationId, row.id)) > 0) throw inUse(row.id, 'Mappings');
    if (locked.icDifferenceAccountNumber === row.accountNumber)
      throw inUse(row.id, 'IntercompanyDifferenceAccount');
    if (await namedByRule(tx, locked.organizationId, row.id)) throw inUse(row.id, 'EliminationRules');
    await tx.delete(groupAccounts).where(sameRow(groupAccounts, row));
    await auditWrite(tx, access, 'GroupAccount', row, 'Delete');
  });
}

// ---------------------------------------------------------------------------------------------------
// Mappings
