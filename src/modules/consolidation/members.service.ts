/**
 * Members of a consolidation group: add, update, remove, and the ownership structure read. Every
 * change is checked against the group as it will be (holdings and acquisition data, holdings.ts),
 * inside the transaction that holds the group's lock.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { type Db, pgErrorCode, type Tx } from '../../db/client.ts';
import { inTransaction } from '../../db/client.ts';
import { countRows, inOrg, sameRow, updateRow } from '../../db/rows.ts';
import { companies, consolidationGroups, consolidationMembers } from '../../db/schema/index.ts';
import { DomainError, invalid } from '../../domain/errors.ts';
import { formatPercentage } from '../../domain/money.ts';
import type { Access } from '../../access/access.ts';
import { auditWrite, type Changes, diffChanges } from '../audit/service.ts';
import { requireCompany } from '../companies/lookup.ts';
import {
  type ConsolidationMethod,
  findMember,
  type GroupRecord,
  type GroupRow,
  groupRecord,
  loadMembers,
  lockGroup,
  MAX_MEMBERS,
  memberNotFound,
  memberState,
} from './groups.repo.ts';
import { authorizeGroup, parseOwnership, writeGroup } from './groups.service.ts';
import {
  acquisitionData,
  checkStructure,
  holderOf,
  type MemberInput,
  type MemberState,
  percentagesOf,
  treeOf,
  type UpdateMemberInput,
} from './holdings.ts';
import { errors } from '../../domain/error-catalogue.ts';

function memberExists(groupId: string, companyId: string): DomainError {
  return errors.ConsolidationMemberAlreadyExistsError('The company is already a member of the group', {
    groupId,
    companyId,
  });
}

function holdsOthers(groupId: string, companyId: string, heldCompanyIds: string[]): DomainError {
  return errors.ConsolidationMemberHoldsOthersError(
    'The member holds other members of the group: change their holder or remove them first',
    { groupId, companyId, heldCompanyIds },
  );
}

/** Membership changes touch the group's `updatedAt`: its record (with embedded members) changed. */
async function touchGroup(tx: Tx, group: GroupRow): Promise<GroupRow> {
  return updateRow(tx, consolidationGroups, sameRow(consolidationGroups, group), { updatedAt: new Date() });
}

async function currentStates(tx: Tx, group: GroupRow): Promise<MemberState[]> {
  return ((await loadMembers(tx, group.organizationId, [group.id])).get(group.id) ?? []).map(memberState);
}

function auditFields(m: MemberState) {
  return {
    ownershipPercentage: m.ownershipPercentage,
    consolidationMethod: m.consolidationMethod,
    acquisitionDate: m.acquisitionDate,
    heldByCompanyId: m.heldByCompanyId,
    acquisition: m.acquisition,
  };
}

export async function addMember(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  input: MemberInput,
): Promise<GroupRecord> {
  const ownership = parseOwnership(input.ownershipPercentage, '/ownershipPercentage');
  const current = await authorizeGroup(db, access, id, organizationId, 'consolidation:manage');
  const orgId = current.organizationId;
  if (input.companyId === current.parentCompanyId) {
    throw invalid('/companyId', 'The parent company cannot be a member of its group');
  }
  await requireCompany(db, orgId, input.companyId);
  try {
    const row = await inTransaction(db, async (tx) => {
      const group = await lockGroup(tx, current);
      if (await findMember(tx, orgId, group.id, input.companyId))
        throw memberExists(group.id, input.companyId);
      const memberCount = await countRows(
        tx,
        consolidationMembers,
        inOrg(consolidationMembers, orgId, { groupId: group.id }),
      );
      if (memberCount >= MAX_MEMBERS)
        throw invalid('', `A consolidation group has at most ${MAX_MEMBERS} members`);
      const added: MemberState = {
        companyId: input.companyId,
        heldByCompanyId: holderOf(group, input.heldByCompanyId),
        ownershipPercentage: ownership,
        consolidationMethod: input.consolidationMethod,
        acquisitionDate: input.acquisitionDate ?? null,
        acquisition: acquisitionData(input.acquisition),
      };
      const members = await checkStructure(
        tx,
        orgId,
        group.parentCompanyId,
        [...(await currentStates(tx, group)), added],
        new Map([[added.companyId, '']]),
        () => '/heldByCompanyId',
      );
      const member = members.at(-1)!;
      await tx.insert(consolidationMembers).values({
        organizationId: orgId,
        groupId: group.id,
        ...member,
      });
      const changes: Changes = { groupId: { from: null, to: group.id } };
      for (const [k, v] of Object.entries(auditFields(member))) changes[k] = { from: null, to: v };
      await auditWrite(
        tx,
        access,
        'ConsolidationMember',
        { organizationId: orgId, id: input.companyId },
        'AddMember',
        changes,
      );
      return touchGroup(tx, group);
    });
    return await groupRecord(db, row);
  } catch (err) {
    if (pgErrorCode(err) === '23505') throw memberExists(current.id, input.companyId);
    throw err;
  }
}

export async function updateMember(
  db: Db,
  access: Access,
  id: string,
  companyId: string,
  organizationId: string | undefined,
  input: UpdateMemberInput,
): Promise<GroupRecord> {
  const ownership =
    input.ownershipPercentage === undefined
      ? undefined
      : parseOwnership(input.ownershipPercentage, '/ownershipPercentage');
  const row = await writeGroup(db, access, id, organizationId, async (tx, group) => {
    const orgId = group.organizationId;
    const members = await currentStates(tx, group);
    const index = members.findIndex((m) => m.companyId === companyId);
    if (index < 0) throw memberNotFound(group.id, companyId);
    const before = members[index]!;
    members[index] = {
      companyId,
      ownershipPercentage: ownership ?? before.ownershipPercentage,
      consolidationMethod: input.consolidationMethod ?? before.consolidationMethod,
      acquisitionDate: input.acquisitionDate === undefined ? before.acquisitionDate : input.acquisitionDate,
      heldByCompanyId:
        input.heldByCompanyId === undefined ? before.heldByCompanyId : holderOf(group, input.heldByCompanyId),
      acquisition: input.acquisition === undefined ? before.acquisition : acquisitionData(input.acquisition),
    };
    // A change of method that makes the member an unfit holder of others is refused at the method;
    // everything else (its own holder, a cycle through it) at the holder.
    const checked = await checkStructure(
      tx,
      orgId,
      group.parentCompanyId,
      members,
      new Map([[companyId, '']]),
      (issue) =>
        issue.companyId !== companyId && issue.refusal !== 'Cycle'
          ? '/consolidationMethod'
          : '/heldByCompanyId',
    );
    const next = checked[index]!;
    const changes = diffChanges(auditFields(before), auditFields(next));
    if (Object.keys(changes).length === 0) return group;
    await tx
      .update(consolidationMembers)
      .set({ ...auditFields(next), updatedAt: new Date() })
      .where(inOrg(consolidationMembers, orgId, { groupId: group.id, companyId }));
    await auditWrite(
      tx,
      access,
      'ConsolidationMember',
      { organizationId: orgId, id: companyId },
      'UpdateMember',
      { groupId: { from: group.id, to: group.id }, ...changes },
    );
    return touchGroup(tx, group);
  });
  return groupRecord(db, row);
}

export async function removeMember(
  db: Db,
  access: Access,
  id: string,
  companyId: string,
  organizationId: string | undefined,
): Promise<void> {
  await writeGroup(db, access, id, organizationId, async (tx, group) => {
    const orgId = group.organizationId;
    const members = await currentStates(tx, group);
    const member = members.find((m) => m.companyId === companyId);
    if (!member) throw memberNotFound(group.id, companyId);
    const held = members.filter((m) => m.heldByCompanyId === companyId).map((m) => m.companyId);
    if (held.length > 0) throw holdsOthers(group.id, companyId, held);
    await tx
      .delete(consolidationMembers)
      .where(inOrg(consolidationMembers, orgId, { groupId: group.id, companyId }));
    const changes: Changes = { groupId: { from: group.id, to: null } };
    for (const [k, v] of Object.entries(auditFields(member))) changes[k] = { from: v, to: null };
    await auditWrite(
      tx,
      access,
      'ConsolidationMember',
      { organizationId: orgId, id: companyId },
      'RemoveMember',
      changes,
    );
    await touchGroup(tx, group);
  });
}

export interface StructureNode {
  companyId: string;
  companyName: string;
  role: 'Parent' | 'Member';
  heldByCompanyId: string | null;
  depth: number;
  consolidationMethod: ConsolidationMethod;
  ownershipPercentage: string;
  effectiveOwnershipPercentage: string;
  nonControllingInterestPercentage: string;
  functionalCurrency: string;
  acquisitionDate: string | null;
  hasAcquisitionData: boolean;
}

export interface GroupStructure {
  groupId: string;
  parentCompanyId: string;
  reportingCurrency: string;
  nodes: StructureNode[];
}

/** The ownership tree: the parent, then each member below its holder, depth first. */
export async function getStructure(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
): Promise<GroupStructure> {
  const group = await authorizeGroup(db, access, id, organizationId, 'consolidation:read');
  const rows = (await loadMembers(db, group.organizationId, [group.id])).get(group.id) ?? [];
  const states = rows.map(memberState);
  const names = await db
    .select({ id: companies.id, name: companies.name, functionalCurrency: companies.functionalCurrency })
    .from(companies)
    .where(
      and(
        eq(companies.organizationId, group.organizationId),
        inArray(companies.id, [group.parentCompanyId, ...states.map((m) => m.companyId)]),
      ),
    );
  const company = new Map(names.map((c) => [c.id, c]));
  const tree = treeOf(group.parentCompanyId, states);
  const byId = new Map(states.map((m) => [m.companyId, m]));
  const order = tree ? tree.order : states.map((m) => m.companyId);
  const parent = company.get(group.parentCompanyId);
  return {
    groupId: group.id,
    parentCompanyId: group.parentCompanyId,
    reportingCurrency: group.reportingCurrency,
    nodes: [
      {
        companyId: group.parentCompanyId,
        companyName: parent?.name ?? '',
        role: 'Parent',
        heldByCompanyId: null,
        depth: 0,
        consolidationMethod: 'FullConsolidation',
        ownershipPercentage: formatPercentage(100),
        effectiveOwnershipPercentage: '100.0000',
        nonControllingInterestPercentage: formatPercentage(0),
        functionalCurrency: parent?.functionalCurrency ?? '',
        acquisitionDate: null,
        hasAcquisitionData: false,
      },
      ...order.map((cid): StructureNode => {
        const m = byId.get(cid)!;
        const c = company.get(cid);
        return {
          companyId: cid,
          companyName: c?.name ?? '',
          role: 'Member',
          heldByCompanyId: m.heldByCompanyId,
          depth: tree?.nodes.get(cid)?.depth ?? 1,
          consolidationMethod: m.consolidationMethod,
          ownershipPercentage: m.ownershipPercentage,
          ...percentagesOf(tree, m),
          functionalCurrency: c?.functionalCurrency ?? '',
          acquisitionDate: m.acquisitionDate,
          hasAcquisitionData: m.acquisition !== null,
        };
      }),
    ],
  };
}
