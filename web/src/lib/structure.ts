/**
 * A consolidation group's holding chain as a tree for drawing: the parent at the root, each member
 * under the company that holds it. Where the API does not say who holds a member (before the
 * ownership-structure endpoint), every member is held directly by the parent.
 */
import type { GroupMember, GroupStructure } from '../api/types.ts';

export interface TreeNode {
  companyId: string;
  member: (GroupMember & { heldByCompanyId?: string | null }) | null;
  children: TreeNode[];
}

/** The holding chain: `heldByCompanyId` where the API gives it, otherwise every member under the parent. */
export function ownershipTree(
  parentCompanyId: string,
  members: Array<GroupMember & { heldByCompanyId?: string | null }>,
): TreeNode {
  const ids = new Set([parentCompanyId, ...members.map((m) => m.companyId)]);
  const holderOf = new Map<string, string>();
  for (const m of members) {
    const held = m.heldByCompanyId;
    holderOf.set(m.companyId, held && ids.has(held) && held !== m.companyId ? held : parentCompanyId);
  }
  // A member whose chain never reaches the parent (a cycle in the data) hangs under the parent.
  for (const m of members) {
    const seen = new Set<string>();
    let current = m.companyId;
    while (current !== parentCompanyId && !seen.has(current)) {
      seen.add(current);
      current = holderOf.get(current) ?? parentCompanyId;
    }
    if (current !== parentCompanyId) holderOf.set(m.companyId, parentCompanyId);
  }
  const build = (companyId: string): TreeNode => ({
    companyId,
    member: members.find((m) => m.companyId === companyId) ?? null,
    children: members.filter((m) => holderOf.get(m.companyId) === companyId).map((m) => build(m.companyId)),
  });
  return build(parentCompanyId);
}

/** companyId → heldByCompanyId from the group's structure answer (its members, not the parent). */
export function findHolders(
  structure:
    { nodes: Array<Pick<GroupStructure['nodes'][number], 'companyId' | 'heldByCompanyId'>> } | undefined,
): Map<string, string> | null {
  if (!structure) return null;
  const found = new Map<string, string>();
  for (const n of structure.nodes) if (n.heldByCompanyId) found.set(n.companyId, n.heldByCompanyId);
  return found.size > 0 ? found : null;
}
