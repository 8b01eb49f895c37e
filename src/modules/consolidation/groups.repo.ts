/**
 * Consolidation groups and members: row loaders and wire records. Also the entry
 * points other consolidation code (runs) uses to read a group: `findGroup`, `loadMembers`,
 * `groupRecord`.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { byId, firstRow, inOrg } from '../../db/rows.ts';
import { consolidationGroups, consolidationMembers, eliminationRules } from '../../db/schema/index.ts';
import type { ConsolidationMethod } from '../../domain/consolidation/types.ts';
import { DomainError } from '../../domain/errors.ts';
import { dec, formatPercentage } from '../../domain/money.ts';
import { type AcquisitionData, type MemberState, percentagesOf, treeOf } from './holdings.ts';
import { errors } from '../../domain/error-catalogue.ts';

export type { ConsolidationMethod };
export { CONSOLIDATION_METHODS } from '../../domain/consolidation/index.ts';

export type GroupRow = typeof consolidationGroups.$inferSelect;
export type MemberRow = typeof consolidationMembers.$inferSelect;

/** A group has at most this many members. */
export const MAX_MEMBERS = 500;

export interface MemberRecord {
  companyId: string;
  heldByCompanyId: string | null;
  ownershipPercentage: string;
  effectiveOwnershipPercentage: string;
  consolidationMethod: ConsolidationMethod;
  acquisitionDate: string | null;
  nonControllingInterestPercentage: string;
  acquisition: AcquisitionData | null;
  createdAt: string;
  updatedAt: string;
}

export interface GroupRecord {
  id: string;
  organizationId: string;
  name: string;
  reportingCurrency: string;
  consolidationMethod: ConsolidationMethod;
  parentCompanyId: string;
  members: MemberRecord[];
  eliminationRuleIds: string[];
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
}

export function groupNotFound(consolidationGroupId: string): DomainError {
  return errors.ConsolidationGroupNotFoundError('Consolidation group not found', {
    consolidationGroupId,
  });
}

export function memberNotFound(groupId: string, companyId: string): DomainError {
  return errors.ConsolidationMemberNotFoundError('The company is not a member of the group', {
    groupId,
    companyId,
  });
}

/** `100 − ownership` for full consolidation, `"0.00"` otherwise (a flat group). */
export function nciPercentage(method: string, ownershipPercentage: string): string {
  return method === 'FullConsolidation'
    ? formatPercentage(dec(100).minus(dec(ownershipPercentage)))
    : formatPercentage(0);
}

/** A member row as the ownership checks see it. */
export function memberState(row: MemberRow): MemberState {
  return {
    companyId: row.companyId,
    heldByCompanyId: row.heldByCompanyId ?? null,
    ownershipPercentage: formatPercentage(row.ownershipPercentage),
    consolidationMethod: row.consolidationMethod as ConsolidationMethod,
    acquisitionDate: row.acquisitionDate ?? null,
    acquisition: (row.acquisition ?? null) as AcquisitionData | null,
  };
}

/** Wire records of a group's members: effective ownership and NCI follow from the whole structure. */
export function memberRecords(parentCompanyId: string, rows: readonly MemberRow[]): MemberRecord[] {
  const states = rows.map(memberState);
  const tree = treeOf(parentCompanyId, states);
  return rows.map((row, i) => {
    const m = states[i]!;
    return {
      companyId: m.companyId,
      heldByCompanyId: m.heldByCompanyId,
      ownershipPercentage: m.ownershipPercentage,
      ...percentagesOf(tree, m),
      consolidationMethod: m.consolidationMethod,
      acquisitionDate: m.acquisitionDate,
      acquisition: m.acquisition,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  });
}

/**
 * The group with this id (within `organizationId` when given), or null. `lock` takes a row lock
 * (`FOR UPDATE`): writes that change the group, its members or its rules lock the group first.
 */
export async function findGroup(
  db: Queryable,
  groupId: string,
  organizationId?: string,
  lock = false,
): Promise<GroupRow | null> {
  const where = byId(consolidationGroups, groupId, organizationId);
  return firstRow(db, consolidationGroups, where, lock ? 'update' : undefined);
}

/** The group of the organization, or 404 ConsolidationGroupNotFoundError. */
export async function requireGroup(
  db: Queryable,
  organizationId: string,
  groupId: string,
  lock = false,
): Promise<GroupRow> {
  const row = await findGroup(db, groupId, organizationId, lock);
  if (!row) throw groupNotFound(groupId);
  return row;
}

/** Re-reads and locks the group inside a write transaction (it may have gone since the check). */
export function lockGroup(tx: Queryable, group: GroupRow): Promise<GroupRow> {
  return requireGroup(tx, group.organizationId, group.id, true);
}

/** Members of the groups, each list ordered by `createdAt`, then `companyId`. */
export async function loadMembers(
  db: Queryable,
  organizationId: string,
  groupIds: string[],
): Promise<Map<string, MemberRow[]>> {
  const map = new Map<string, MemberRow[]>(groupIds.map((id) => [id, []]));
  if (groupIds.length === 0) return map;
  const rows = await db
    .select()
    .from(consolidationMembers)
    .where(and(inOrg(consolidationMembers, organizationId), inArray(consolidationMembers.groupId, groupIds)))
    .orderBy(asc(consolidationMembers.createdAt), asc(consolidationMembers.companyId));
  for (const r of rows) map.get(r.groupId)?.push(r);
  return map;
}

/** The member row, or null. */
export async function findMember(
  db: Queryable,
  organizationId: string,
  groupId: string,
  companyId: string,
): Promise<MemberRow | null> {
  return firstRow(
    db,
    consolidationMembers,
    inOrg(consolidationMembers, organizationId, { groupId, companyId }),
  );
}

/** Rule ids of the groups, ordered as the rule list: priority, createdAt, id. */
async function loadRuleIds(
  db: Queryable,
  organizationId: string,
  groupIds: string[],
): Promise<Map<string, string[]>> {
  const map = new Map<string, string[]>(groupIds.map((id) => [id, []]));
  if (groupIds.length === 0) return map;
  const rows = await db
    .select({ id: eliminationRules.id, groupId: eliminationRules.groupId })
    .from(eliminationRules)
    .where(
      and(eq(eliminationRules.organizationId, organizationId), inArray(eliminationRules.groupId, groupIds)),
    )
    .orderBy(asc(eliminationRules.priority), asc(eliminationRules.createdAt), asc(eliminationRules.id));
  for (const r of rows) map.get(r.groupId)?.push(r.id);
  return map;
}

/** Wire records of the groups (any organizations), in the order given. */
export async function groupRecords(db: Queryable, rows: GroupRow[]): Promise<GroupRecord[]> {
  const byOrg = new Map<string, string[]>();
  for (const r of rows) byOrg.set(r.organizationId, [...(byOrg.get(r.organizationId) ?? []), r.id]);
  const members = new Map<string, MemberRow[]>();
  const rules = new Map<string, string[]>();
  for (const [orgId, ids] of byOrg) {
    const [m, ru] = await Promise.all([loadMembers(db, orgId, ids), loadRuleIds(db, orgId, ids)]);
    for (const [k, v] of m) members.set(k, v);
    for (const [k, v] of ru) rules.set(k, v);
  }
  return rows.map((row) => ({
    id: row.id,
    organizationId: row.organizationId,
    name: row.name,
    reportingCurrency: row.reportingCurrency,
    consolidationMethod: row.consolidationMethod as ConsolidationMethod,
    parentCompanyId: row.parentCompanyId,
    members: memberRecords(row.parentCompanyId, members.get(row.id) ?? []),
    eliminationRuleIds: rules.get(row.id) ?? [],
    isActive: row.isActive,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }));
}

export async function groupRecord(db: Queryable, row: GroupRow): Promise<GroupRecord> {
  const [record] = await groupRecords(db, [row]);
  return record!;
}

/** Case-insensitive, trimmed name key (the unique index `consolidation_groups_name_uq`). */
export const groupNameKey = (name: string) => name.toLowerCase();

/** Byte-wise (code point) ordering of a text column, identical on PGlite and PostgreSQL servers. */
export const collateC = (column: unknown) => sql`${column} collate "C"`;
