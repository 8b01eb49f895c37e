/**
 * Group chart of accounts of a consolidation group: its accounts, the mappings of the members'
 * accounts onto them (explicit or by selector pattern), the mapping preview, and the group's
 * intercompany-difference setting. How a run applies them: domain/consolidation/group-chart.ts.
 */
import { and, asc, count, eq, inArray, or, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type Db, inTransaction, pgConstraint, type Queryable, type Tx } from '../../db/client.ts';
import {
  accounts,
  companies,
  consolidationGroups,
  eliminationRules,
  groupAccountMappings,
  groupAccounts,
} from '../../db/schema/index.ts';
import type { AccountCategory, AccountType, CashFlowCategory } from '../../domain/accounts.ts';
import {
  compatible,
  type GroupAccountInput,
  type GroupChartInput,
  MappingResolver,
} from '../../domain/consolidation/group-chart.ts';
import { DomainError, invalid, ValidationError } from '../../domain/errors.ts';
import { minorUnits } from '../../domain/codes.ts';
import { dec, formatAmount, fractionDigits } from '../../domain/money.ts';
import { parsePattern } from '../../domain/selectors.ts';
import type { Access } from '../../http/access.ts';
import { type PageParams, paged } from '../../http/pagination.ts';
import { recordAudit } from '../audit/service.ts';
import { accountFlagIssues } from '../accounts/service.ts';
import { type GroupRow, groupNotFound, loadMembers } from './groups.repo.ts';
import { authorizeGroup } from './groups.service.ts';

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
    accountNumber: r.accountNumber,
    name: r.name,
    accountType: r.accountType as AccountType,
    accountCategory: r.accountCategory as AccountCategory,
    cashFlowCategory: (r.cashFlowCategory ?? null) as CashFlowCategory | null,
    isCashEquivalent: r.isCashEquivalent,
    isNonMonetary: r.isNonMonetary,
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
  return new DomainError(404, 'GroupAccountNotFoundError', 'Group account not found', { groupAccountId });
}

export function mappingNotFound(mappingId: string): DomainError {
  return new DomainError(404, 'GroupAccountMappingNotFoundError', 'Account mapping not found', { mappingId });
}

function numberTaken(accountNumber: string, groupId: string): DomainError {
  return new DomainError(
    409,
    'GroupAccountNumberAlreadyExistsError',
    'The group already has an account with this number',
    { accountNumber, groupId },
  );
}

function inUse(
  groupAccountId: string,
  reason: 'Mappings' | 'IntercompanyDifferenceAccount' | 'EliminationRules',
): DomainError {
  return new DomainError(409, 'GroupAccountInUseError', 'The group account is in use', {
    groupAccountId,
    reason,
  });
}

function alreadyMapped(accountId: string, mappingId: string): DomainError {
  return new DomainError(
    409,
    'GroupAccountMappingExistsError',
    'The account already has an explicit mapping in this group',
    { accountId, mappingId },
  );
}

// ---------------------------------------------------------------------------------------------------
// Loading

async function findGroupAccount(
  q: Queryable,
  orgId: string,
  groupId: string,
  id: string,
): Promise<GroupAccountRow | null> {
  if (!isUuidLike(id)) return null;
  const [row] = await q
    .select()
    .from(groupAccounts)
    .where(
      and(
        eq(groupAccounts.organizationId, orgId),
        eq(groupAccounts.groupId, groupId),
        eq(groupAccounts.id, id.toLowerCase()),
      ),
    );
  return row ?? null;
}

function isUuidLike(s: string): boolean {
  return /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(s);
}

export async function loadGroupAccounts(
  q: Queryable,
  orgId: string,
  groupId: string,
): Promise<GroupAccountRow[]> {
  return q
    .select()
    .from(groupAccounts)
    .where(and(eq(groupAccounts.organizationId, orgId), eq(groupAccounts.groupId, groupId)));
}

interface MappingWithNumbers extends MappingRow {
  groupAccountNumber: string;
  accountNumber: string | null;
  accountCompanyId: string | null;
}

async function loadMappings(q: Queryable, orgId: string, groupId: string): Promise<MappingWithNumbers[]> {
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
    .where(and(eq(groupAccountMappings.organizationId, orgId), eq(groupAccountMappings.groupId, groupId)))
    .orderBy(asc(groupAccountMappings.createdAt), asc(groupAccountMappings.id));
  return rows.map((r) => ({
    ...r.m,
    groupAccountNumber: r.groupAccountNumber,
    accountNumber: r.accountNumber ?? null,
    accountCompanyId: r.accountCompanyId ?? null,
  }));
}

function mappingRecord(m: MappingWithNumbers): MappingRecord {
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

function groupAccountInput(r: GroupAccountRow): GroupAccountInput {
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
    cashFlowCategory: b.cashFlowCategory ?? null,
    isCashEquivalent: b.isCashEquivalent ?? false,
    isNonMonetary: b.isNonMonetary ?? false,
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
    inserted.map((r) => ({
      organizationId: group.organizationId,
      userId: access.userId,
      action: 'Create' as const,
      entityType: 'GroupAccount' as const,
      entityId: r.id,
      changes: { accountNumber: { from: null, to: r.accountNumber }, groupId: { from: null, to: group.id } },
    })),
  );
  const order = new Map(rows.map((r, i) => [r.id, i]));
  return inserted.sort((a, b) => order.get(a.id)! - order.get(b.id)!).map(groupAccountRecord);
}

async function lockedGroup(tx: Tx, group: GroupRow): Promise<GroupRow> {
  const [row] = await tx
    .select()
    .from(consolidationGroups)
    .where(
      and(eq(consolidationGroups.organizationId, group.organizationId), eq(consolidationGroups.id, group.id)),
    )
    .for('update');
  if (!row) throw groupNotFound(group.id);
  return row;
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
    async (tx) => (await insertAccounts(tx, access, await lockedGroup(tx, group), [b]))[0]!,
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
    insertAccounts(tx, access, await lockedGroup(tx, group), list),
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
  const where = and(
    eq(groupAccounts.organizationId, group.organizationId),
    eq(groupAccounts.groupId, group.id),
  );
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(groupAccounts)
      .where(where)
      .orderBy(sql`length(${groupAccounts.accountNumber})`, asc(groupAccounts.accountNumber))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(groupAccounts).where(where),
  ]);
  return paged('accounts', rows.map(groupAccountRecord), Number(total?.n ?? 0), page);
}

export async function getGroupAccount(
  db: Db,
  access: Access,
  groupId: string,
  accountId: string,
  organizationId: string | undefined,
): Promise<GroupAccountRecord> {
  const group = await authorizeGroup(db, access, groupId, organizationId, 'consolidation:read');
  const row = await findGroupAccount(db, group.organizationId, group.id, accountId);
  if (!row) throw groupAccountNotFound(accountId);
  return groupAccountRecord(row);
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
  const group = await authorizeGroup(db, access, groupId, organizationId, 'consolidation:manage');
  return inTransaction(db, async (tx) => {
    const locked = await lockedGroup(tx, group);
    const row = await findGroupAccount(tx, locked.organizationId, locked.id, accountId);
    if (!row) throw groupAccountNotFound(accountId);
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
    const [updated] = await tx
      .update(groupAccounts)
      .set({ ...next, updatedAt: new Date() })
      .where(and(eq(groupAccounts.organizationId, row.organizationId), eq(groupAccounts.id, row.id)))
      .returning();
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const k of Object.keys(next) as (keyof typeof next)[]) {
      const before = (row as Record<string, unknown>)[k] ?? null;
      if (before !== next[k]) changes[k] = { from: before, to: next[k] };
    }
    await recordAudit(tx, {
      organizationId: row.organizationId,
      userId: access.userId,
      action: 'Update',
      entityType: 'GroupAccount',
      entityId: row.id,
      changes,
    });
    return groupAccountRecord(updated!);
  });
}

async function mappingCount(q: Queryable, orgId: string, groupAccountId: string): Promise<number> {
  const [row] = await q
    .select({ n: count() })
    .from(groupAccountMappings)
    .where(
      and(
        eq(groupAccountMappings.organizationId, orgId),
        eq(groupAccountMappings.groupAccountId, groupAccountId),
      ),
    );
  return Number(row?.n ?? 0);
}

/** Whether an elimination rule books to the group account (its debit or credit side). */
async function namedByRule(q: Queryable, orgId: string, groupAccountId: string): Promise<boolean> {
  const [rule] = await q
    .select({ id: eliminationRules.id })
    .from(eliminationRules)
    .where(
      and(
        eq(eliminationRules.organizationId, orgId),
        or(
          eq(eliminationRules.debitGroupAccountId, groupAccountId),
          eq(eliminationRules.creditGroupAccountId, groupAccountId),
        ),
      ),
    )
    .limit(1);
  return rule !== undefined;
}

export async function deleteGroupAccount(
  db: Db,
  access: Access,
  groupId: string,
  accountId: string,
  organizationId: string | undefined,
): Promise<void> {
  const group = await authorizeGroup(db, access, groupId, organizationId, 'consolidation:manage');
  await inTransaction(db, async (tx) => {
    const locked = await lockedGroup(tx, group);
    const row = await findGroupAccount(tx, locked.organizationId, locked.id, accountId);
    if (!row) throw groupAccountNotFound(accountId);
    if ((await mappingCount(tx, locked.organizationId, row.id)) > 0) throw inUse(row.id, 'Mappings');
    if (locked.icDifferenceAccountNumber === row.accountNumber)
      throw inUse(row.id, 'IntercompanyDifferenceAccount');
    if (await namedByRule(tx, locked.organizationId, row.id)) throw inUse(row.id, 'EliminationRules');
    await tx
      .delete(groupAccounts)
      .where(and(eq(groupAccounts.organizationId, row.organizationId), eq(groupAccounts.id, row.id)));
    await recordAudit(tx, {
      organizationId: row.organizationId,
      userId: access.userId,
      action: 'Delete',
      entityType: 'GroupAccount',
      entityId: row.id,
    });
  });
}

// ---------------------------------------------------------------------------------------------------
// Mappings

export interface CreateMappingInput {
  groupAccountId: string;
  /** explicit: the company account */
  accountId?: string | null;
  /** pattern: the selector pattern and its company (null or absent: every member) */
  pattern?: string | null;
  companyId?: string | null;
}

export function checkMapping(body: CreateMappingInput): void {
  const hasAccount = body.accountId !== undefined && body.accountId !== null;
  const hasPattern = body.pattern !== undefined && body.pattern !== null;
  if (hasAccount === hasPattern) {
    throw invalid('/accountId', 'Give either accountId (an explicit mapping) or pattern, not both');
  }
  if (hasPattern && !parsePattern(body.pattern!)) {
    throw invalid('/pattern', `Invalid pattern ${body.pattern}: use 4000, 40* or 4000-4999`);
  }
  if (hasAccount && body.companyId !== undefined && body.companyId !== null) {
    throw invalid('/companyId', 'An explicit mapping takes its company from the account');
  }
}

/** Ids of the parent and the members of a group. */
async function groupCompanyIds(q: Queryable, group: GroupRow): Promise<string[]> {
  const members = (await loadMembers(q, group.organizationId, [group.id])).get(group.id) ?? [];
  return [group.parentCompanyId, ...members.map((m) => m.companyId)];
}

export async function createMapping(
  db: Db,
  access: Access,
  groupId: string,
  organizationId: string | undefined,
  body: CreateMappingInput,
): Promise<MappingRecord> {
  checkMapping(body);
  const group = await authorizeGroup(db, access, groupId, organizationId, 'consolidation:manage');
  return inTransaction(db, async (tx) => {
    const locked = await lockedGroup(tx, group);
    const orgId = locked.organizationId;
    const target = await findGroupAccount(tx, orgId, locked.id, body.groupAccountId);
    if (!target) throw groupAccountNotFound(body.groupAccountId);
    const members = new Set(await groupCompanyIds(tx, locked));
    let companyId: string | null = null;
    let accountId: string | null = null;
    if (body.accountId) {
      accountId = body.accountId.toLowerCase();
      const [acc] = await tx
        .select()
        .from(accounts)
        .where(and(eq(accounts.organizationId, orgId), eq(accounts.id, accountId)));
      if (!acc) {
        throw new DomainError(404, 'AccountNotFoundError', 'Account not found', { accountId });
      }
      if (!members.has(acc.companyId)) {
        throw invalid('/accountId', 'The account belongs to a company that is not in the group');
      }
      if (
        !compatible(
          { accountType: acc.accountType as AccountType, isNonMonetary: acc.isNonMonetary },
          groupAccountInput(target),
        )
      ) {
        throw invalid(
          '/groupAccountId',
          `Account ${acc.accountNumber} (${acc.accountType}${acc.isNonMonetary ? ', non-monetary' : ''}) cannot map to group account ${target.accountNumber} (${target.accountType}${target.isNonMonetary ? ', non-monetary' : ''}): type and monetary nature must agree`,
        );
      }
      companyId = acc.companyId;
      const [dup] = await tx
        .select({ id: groupAccountMappings.id })
        .from(groupAccountMappings)
        .where(
          and(
            eq(groupAccountMappings.organizationId, orgId),
            eq(groupAccountMappings.groupId, locked.id),
            eq(groupAccountMappings.accountId, accountId),
          ),
        );
      if (dup) throw alreadyMapped(accountId, dup.id);
    } else if (body.companyId) {
      companyId = body.companyId.toLowerCase();
      if (!members.has(companyId)) {
        const [c] = await tx
          .select({ id: companies.id })
          .from(companies)
          .where(and(eq(companies.organizationId, orgId), eq(companies.id, companyId)));
        if (!c) throw new DomainError(404, 'CompanyNotFoundError', 'Company not found', { companyId });
        throw invalid('/companyId', 'The company is not in the group');
      }
    }
    const id = uuidv7();
    await tx.insert(groupAccountMappings).values({
      id,
      organizationId: orgId,
      groupId: locked.id,
      groupAccountId: target.id,
      companyId: accountId ? null : companyId,
      accountId,
      pattern: accountId ? null : body.pattern!,
      createdAt: new Date(),
    });
    await recordAudit(tx, {
      organizationId: orgId,
      userId: access.userId,
      action: 'Create',
      entityType: 'GroupAccountMapping',
      entityId: id,
      changes: {
        groupAccountId: { from: null, to: target.id },
        ...(accountId
          ? { accountId: { from: null, to: accountId } }
          : { pattern: { from: null, to: body.pattern } }),
      },
    });
    const all = await loadMappings(tx, orgId, locked.id);
    return mappingRecord(all.find((m) => m.id === id)!);
  });
}

export async function listMappings(
  db: Db,
  access: Access,
  groupId: string,
  organizationId: string | undefined,
  page: PageParams,
) {
  const group = await authorizeGroup(db, access, groupId, organizationId, 'consolidation:read');
  const all = (await loadMappings(db, group.organizationId, group.id)).map(mappingRecord);
  return paged('mappings', all.slice(page.offset, page.offset + page.limit), all.length, page);
}

export async function deleteMapping(
  db: Db,
  access: Access,
  groupId: string,
  mappingId: string,
  organizationId: string | undefined,
): Promise<void> {
  const group = await authorizeGroup(db, access, groupId, organizationId, 'consolidation:manage');
  await inTransaction(db, async (tx) => {
    const locked = await lockedGroup(tx, group);
    if (!isUuidLike(mappingId)) throw mappingNotFound(mappingId);
    const deleted = await tx
      .delete(groupAccountMappings)
      .where(
        and(
          eq(groupAccountMappings.organizationId, locked.organizationId),
          eq(groupAccountMappings.groupId, locked.id),
          eq(groupAccountMappings.id, mappingId.toLowerCase()),
        ),
      )
      .returning({ id: groupAccountMappings.id });
    if (deleted.length === 0) throw mappingNotFound(mappingId);
    await recordAudit(tx, {
      organizationId: locked.organizationId,
      userId: access.userId,
      action: 'Delete',
      entityType: 'GroupAccountMapping',
      entityId: deleted[0]!.id,
    });
  });
}

export interface PreviewLine {
  companyId: string;
  companyName: string;
  accountId: string;
  accountNumber: string;
  accountName: string;
  accountType: AccountType;
  groupAccountId: string | null;
  groupAccountNumber: string | null;
  mappedBy: 'Explicit' | 'Pattern' | null;
  pattern: string | null;
}

/**
 * Every account of the parent and every member with the group account it maps to (as a run would
 * map it), and the unmapped ones.
 */
export async function previewMappings(
  db: Db,
  access: Access,
  groupId: string,
  organizationId: string | undefined,
) {
  const group = await authorizeGroup(db, access, groupId, organizationId, 'consolidation:read');
  const orgId = group.organizationId;
  const ids = await groupCompanyIds(db, group);
  const [chartRows, chart, companyRows, accountRows] = await Promise.all([
    loadGroupAccounts(db, orgId, group.id),
    loadGroupChartInput(db, orgId, group.id),
    db
      .select({ id: companies.id, name: companies.name })
      .from(companies)
      .where(and(eq(companies.organizationId, orgId), inArray(companies.id, ids))),
    db
      .select({
        id: accounts.id,
        companyId: accounts.companyId,
        accountNumber: accounts.accountNumber,
        name: accounts.name,
        accountType: accounts.accountType,
        isNonMonetary: accounts.isNonMonetary,
      })
      .from(accounts)
      .where(and(eq(accounts.organizationId, orgId), inArray(accounts.companyId, ids))),
  ]);
  const names = new Map(companyRows.map((c) => [c.id, c.name]));
  const byNumber = new Map(chartRows.map((a) => [a.accountNumber, a.id]));
  const resolver = chart ? new MappingResolver(chart) : null;
  const order = new Map(ids.map((id, i) => [id, i]));
  const lines: PreviewLine[] = accountRows
    .sort(
      (a, b) =>
        order.get(a.companyId)! - order.get(b.companyId)! ||
        a.accountNumber.length - b.accountNumber.length ||
        (a.accountNumber < b.accountNumber ? -1 : a.accountNumber > b.accountNumber ? 1 : 0),
    )
    .map((a) => {
      const r = resolver?.resolve(a.companyId, {
        accountNumber: a.accountNumber,
        accountType: a.accountType as AccountType,
        isNonMonetary: a.isNonMonetary,
      });
      return {
        companyId: a.companyId,
        companyName: names.get(a.companyId) ?? '',
        accountId: a.id,
        accountNumber: a.accountNumber,
        accountName: a.name,
        accountType: a.accountType as AccountType,
        groupAccountId: r ? (byNumber.get(r.groupAccount.accountNumber) ?? null) : null,
        groupAccountNumber: r?.groupAccount.accountNumber ?? null,
        mappedBy: r?.mappedBy ?? null,
        pattern: r?.pattern ?? null,
      };
    });
  return {
    consolidationGroupId: group.id,
    hasGroupChart: chartRows.length > 0,
    accounts: lines,
    unmapped: lines.filter((l) => l.groupAccountNumber === null),
  };
}

// ---------------------------------------------------------------------------------------------------
// Intercompany-difference setting

export interface IcDifferenceSetting {
  consolidationGroupId: string;
  accountNumber: string | null;
  tolerance: string | null;
}

function settingOf(g: GroupRow): IcDifferenceSetting {
  return {
    consolidationGroupId: g.id,
    accountNumber: g.icDifferenceAccountNumber ?? null,
    tolerance:
      g.icDifferenceTolerance === null ? null : formatAmount(g.icDifferenceTolerance, g.reportingCurrency),
  };
}

export async function getIcDifferenceSetting(
  db: Db,
  access: Access,
  groupId: string,
  organizationId: string | undefined,
): Promise<IcDifferenceSetting> {
  return settingOf(await authorizeGroup(db, access, groupId, organizationId, 'consolidation:read'));
}

export async function setIcDifferenceSetting(
  db: Db,
  access: Access,
  groupId: string,
  organizationId: string | undefined,
  body: { accountNumber: string | null; tolerance?: string | null },
): Promise<IcDifferenceSetting> {
  const group = await authorizeGroup(db, access, groupId, organizationId, 'consolidation:manage');
  return inTransaction(db, async (tx) => {
    const locked = await lockedGroup(tx, group);
    const orgId = locked.organizationId;
    const number = body.accountNumber;
    let tolerance: string | null = null;
    if (number !== null) {
      if (body.tolerance === undefined || body.tolerance === null) {
        throw invalid('/tolerance', 'A tolerance is required with an account');
      }
      if (fractionDigits(body.tolerance) > minorUnits(locked.reportingCurrency)) {
        throw invalid(
          '/tolerance',
          `At most ${minorUnits(locked.reportingCurrency)} decimals for ${locked.reportingCurrency}`,
        );
      }
      tolerance = dec(body.tolerance).toFixed();
      const chart = await loadGroupAccounts(tx, orgId, locked.id);
      const known =
        chart.length > 0
          ? chart.some((a) => a.accountNumber === number)
          : (
              await tx
                .select({ id: accounts.id })
                .from(accounts)
                .where(
                  and(
                    eq(accounts.organizationId, orgId),
                    eq(accounts.companyId, locked.parentCompanyId),
                    eq(accounts.accountNumber, number),
                  ),
                )
            ).length > 0;
      if (!known) {
        throw invalid(
          '/accountNumber',
          chart.length > 0
            ? `${number} is not an account of the group chart`
            : `${number} is not an account of the parent company`,
        );
      }
    }
    const [updated] = await tx
      .update(consolidationGroups)
      .set({ icDifferenceAccountNumber: number, icDifferenceTolerance: tolerance, updatedAt: new Date() })
      .where(and(eq(consolidationGroups.organizationId, orgId), eq(consolidationGroups.id, locked.id)))
      .returning();
    await recordAudit(tx, {
      organizationId: orgId,
      userId: access.userId,
      action: 'Update',
      entityType: 'ConsolidationGroup',
      entityId: locked.id,
      changes: {
        icDifferenceAccountNumber: { from: locked.icDifferenceAccountNumber ?? null, to: number },
        icDifferenceTolerance: { from: locked.icDifferenceTolerance ?? null, to: tolerance },
      },
    });
    return settingOf(updated!);
  });
}
