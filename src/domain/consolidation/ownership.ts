/**
 * The ownership structure of a consolidation group: who holds whom, with which direct stake, and what
 * follows from it — effective ownership, the non-controlling share of every member, the weight with
 * which a proportionately consolidated member's lines are included, and the acquisition dates that
 * cut a member's ledger into pre- and post-acquisition parts.
 *
 * The parent is the root. Every member is held by the parent or by another member of the group (its
 * holder); `ownershipPercentage` is always the direct stake of the holder. A member's effective
 * ownership is the product of the direct stakes on the path from the parent down to it
 * (80 % of 60 % = 48 %).
 *
 * Who may hold whom:
 *   - the parent and fully consolidated members may hold any member;
 *   - a proportionately consolidated member (a joint arrangement) may hold proportionately
 *     consolidated and equity-method members only: a subsidiary controlled through a joint
 *     arrangement is not controlled by the group;
 *   - an equity-method investee holds nobody in the group (the group does not control it).
 *
 * Pure: used by the group API (validation, records, the structure read) and by the run engine.
 */
import { type Decimal, dec, type DecimalInput, toFixedString } from '../money.ts';
import type { ConsolidationMethod } from './types.ts';

export interface HoldingInput {
  companyId: string;
  /** null (or the parent's id) = held by the parent */
  heldByCompanyId: string | null;
  /** direct stake of the holder, 0–100 */
  ownershipPercentage: DecimalInput;
  consolidationMethod: ConsolidationMethod;
  acquisitionDate?: string | null;
  /** the member carries acquisition data (its acquisition date then counts) */
  hasAcquisition?: boolean;
}

/**
 * A member as the ownership tree reads it: its holding, and whether its acquisition date counts (it
 * carries acquisition data and is not proportionately consolidated).
 */
export function holdingOf(m: {
  companyId: string;
  heldByCompanyId?: string | null;
  ownershipPercentage: DecimalInput;
  consolidationMethod: ConsolidationMethod;
  acquisitionDate?: string | null;
  acquisition?: unknown;
}): HoldingInput {
  return {
    companyId: m.companyId,
    heldByCompanyId: m.heldByCompanyId ?? null,
    ownershipPercentage: m.ownershipPercentage,
    consolidationMethod: m.consolidationMethod,
    acquisitionDate: m.acquisitionDate ?? null,
    hasAcquisition: !!m.acquisition && m.consolidationMethod !== 'ProportionateConsolidation',
  };
}

export type HoldingRefusal =
  'HolderIsItself' | 'HolderNotInGroup' | 'HolderIsEquityMethod' | 'SubsidiaryOfJointArrangement' | 'Cycle';

export interface HoldingIssue {
  /** index of the member in the list given */
  index: number;
  companyId: string;
  refusal: HoldingRefusal;
  message: string;
}

export interface OwnershipNode {
  companyId: string;
  /** the holding company: the parent's id or a member's */
  holderId: string;
  consolidationMethod: ConsolidationMethod;
  /** direct stake as a fraction (0–1) */
  direct: Decimal;
  /** product of the direct stakes from the parent down to this member, as a fraction (exact) */
  effective: Decimal;
  /** member ancestors, nearest first (the parent is not listed) */
  ancestors: string[];
  /** 1 for a member held by the parent */
  depth: number;
  acquisitionDate: string | null;
  hasAcquisition: boolean;
}

export interface OwnershipTree {
  parentId: string;
  nodes: Map<string, OwnershipNode>;
  /** member ids depth first from the parent, children in the order the members were given */
  order: string[];
  children: Map<string, string[]>;
}

const HUNDRED = dec(100);

function holderOf(parentId: string, m: HoldingInput): string {
  return m.heldByCompanyId === null || m.heldByCompanyId === parentId ? parentId : m.heldByCompanyId;
}

/**
 * Every refusal of the holdings, in member order: a member held by itself, by a company that is
 * neither the parent nor a member of the group, by an equity-method investee, a fully consolidated
 * member held by a proportionately consolidated one, and members whose chain of holders never
 * reaches the parent (a cycle; each member of the cycle is reported).
 */
export function holdingIssues(parentId: string, members: readonly HoldingInput[]): HoldingIssue[] {
  const byId = new Map(members.map((m) => [m.companyId, m]));
  const issues: HoldingIssue[] = [];
  const refuse = (index: number, m: HoldingInput, refusal: HoldingRefusal, message: string) =>
    issues.push({ index, companyId: m.companyId, refusal, message });
  members.forEach((m, index) => {
    const holderId = holderOf(parentId, m);
    if (holderId === parentId) return;
    const holder = byId.get(holderId);
    if (holderId === m.companyId) refuse(index, m, 'HolderIsItself', 'A member cannot hold itself');
    else if (!holder) {
      refuse(index, m, 'HolderNotInGroup', 'The holder must be the parent or a member of the same group');
    } else if (holder.consolidationMethod === 'EquityMethod') {
      refuse(index, m, 'HolderIsEquityMethod', 'An equity-method investee cannot hold members of the group');
    } else if (
      holder.consolidationMethod === 'ProportionateConsolidation' &&
      m.consolidationMethod === 'FullConsolidation'
    ) {
      refuse(
        index,
        m,
        'SubsidiaryOfJointArrangement',
        'A fully consolidated member must be held by the parent or by a fully consolidated member',
      );
    }
  });
  if (issues.length > 0) return issues;
  members.forEach((m, index) => {
    const seen = new Set<string>([m.companyId]);
    for (let at = holderOf(parentId, m); at !== parentId; at = holderOf(parentId, byId.get(at)!)) {
      if (seen.has(at)) {
        refuse(index, m, 'Cycle', 'The chain of holders forms a cycle and never reaches the parent');
        return;
      }
      seen.add(at);
    }
  });
  return issues;
}

/** The tree of a valid structure (see `holdingIssues`); throws on an invalid one. */
export function ownershipTree(parentId: string, members: readonly HoldingInput[]): OwnershipTree {
  const issues = holdingIssues(parentId, members);
  if (issues.length > 0) {
    throw new Error(
      `Invalid ownership structure: ${issues.map((i) => `${i.companyId}: ${i.message}`).join('; ')}`,
    );
  }
  const children = new Map<string, string[]>([[parentId, []]]);
  for (const m of members) children.set(m.companyId, []);
  for (const m of members) children.get(holderOf(parentId, m))!.push(m.companyId);
  const byId = new Map(members.map((m) => [m.companyId, m]));
  const nodes = new Map<string, OwnershipNode>();
  const order: string[] = [];
  const visit = (holderId: string, effective: Decimal, ancestors: string[]) => {
    for (const id of children.get(holderId)!) {
      const m = byId.get(id)!;
      const direct = dec(m.ownershipPercentage).div(HUNDRED);
      const node: OwnershipNode = {
        companyId: id,
        holderId,
        consolidationMethod: m.consolidationMethod,
        direct,
        effective: effective.times(direct),
        ancestors,
        depth: ancestors.length + 1,
        acquisitionDate: m.acquisitionDate ?? null,
        hasAcquisition: m.hasAcquisition ?? false,
      };
      nodes.set(id, node);
      order.push(id);
      visit(id, node.effective, [id, ...ancestors]);
    }
  };
  visit(parentId, dec(1), []);
  return { parentId, nodes, order, children };
}

/** Effective ownership as a percentage with 4 decimals (`"48.0000"`). */
export function formatEffectivePercentage(effective: Decimal): string {
  return toFixedString(effective.times(HUNDRED), 4);
}

/**
 * A percentage derived from effective ownership (such as 100 − effective): two decimals when that
 * is exact (`"52.00"`, as in a flat group), four otherwise (`"11.1089"`).
 */
export function formatDerivedPercentage(percent: Decimal): string {
  const four = toFixedString(percent, 4);
  return four.endsWith('00') ? four.slice(0, -2) : four;
}

/** Non-controlling percentage of a member: 100 − effective for full consolidation, else 0. */
export function nonControllingPercentage(
  node: Pick<OwnershipNode, 'consolidationMethod' | 'effective'>,
): Decimal {
  return node.consolidationMethod === 'FullConsolidation'
    ? HUNDRED.minus(node.effective.times(HUNDRED))
    : dec(0);
}

/**
 * The date from which the group controls a member with acquisition data: the latest acquisition date
 * on its chain of holders (a company bought by a subsidiary before the group bought that subsidiary
 * joins the group with it). Null when neither the member nor an ancestor has acquisition data.
 */
export function groupAcquisitionDate(tree: OwnershipTree, companyId: string): string | null {
  const node = tree.nodes.get(companyId);
  if (!node) return null;
  let latest: string | null = null;
  for (const id of [companyId, ...node.ancestors]) {
    const n = tree.nodes.get(id)!;
    if (n.hasAcquisition && n.acquisitionDate !== null && (latest === null || n.acquisitionDate > latest)) {
      latest = n.acquisitionDate;
    }
  }
  return latest;
}

/** True when a member is part of the group as of `date`: neither it nor an ancestor is acquired later. */
export function isInGroupOn(tree: OwnershipTree, companyId: string, date: string): boolean {
  const t = groupAcquisitionDate(tree, companyId);
  return t === null || t <= date;
}

/**
 * The dates that cut a member's ledger for acquisition accounting: its own acquisition date (when it
 * has acquisition data) and those of its ancestors with acquisition data, ascending; the last is its
 * group acquisition date. Empty for a member that neither has acquisition data nor sits below one
 * that has (it is consolidated without cuts). A member without acquisition data below one with it
 * joined the group with its holder: its results before that date are not consolidated income either.
 */
export function ledgerCuts(tree: OwnershipTree, companyId: string): string[] {
  const node = tree.nodes.get(companyId);
  if (!node) return [];
  const dates = new Set<string>();
  for (const id of [companyId, ...node.ancestors]) {
    const n = tree.nodes.get(id)!;
    if (n.hasAcquisition && n.acquisitionDate !== null) dates.add(n.acquisitionDate);
  }
  return [...dates].sort();
}
