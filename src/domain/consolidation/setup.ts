/**
 * Run-wide facts derived once from the input: company roles, weights, the retained-earnings line,
 * the group calendar lookup, the processed rules and the source account of each number.
 */
import type { AccountType } from '../accounts.ts';
import { minorUnits } from '../codes.ts';
import { type Decimal, dec } from '../money.ts';
import {
  groupAcquisitionDate,
  isInGroupOn,
  type OwnershipTree,
  holdingOf,
  ownershipTree,
} from './ownership.ts';
import { RateBook } from './rate-book.ts';
import type {
  AccountInfo,
  CompanyInput,
  ConsolidationInput,
  EliminationRuleInput,
  GroupPeriod,
} from './types.ts';

export const RE_SYNTHETIC = 'RETAINED_EARNINGS';
export const CTA_KEY = 'CTA';
export const NCI_KEY = 'NCI';

export function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Company order used everywhere a "by company name" order is needed: name case-insensitive, then id. */
export function cmpCompany(a: { companyName: string; companyId: string }, b: typeof a): number {
  return cmpStr(a.companyName.toLowerCase(), b.companyName.toLowerCase()) || cmpStr(a.companyId, b.companyId);
}

/** Numeric order of account numbers (digits only, no leading zero: length first, then text). */
export function cmpAccountNumber(a: string, b: string): number {
  return a.length - b.length || cmpStr(a, b);
}

/** The companies a view includes (members acquired after the view's date are left out). */
export interface ViewScope {
  /** parent first, then the line-by-line members by name */
  consolidated: CompanyInput[];
  consolidatedIds: Set<string>;
  /** equity-method members (when included), by name */
  investees: CompanyInput[];
  /** consolidated companies and investees */
  included: CompanyInput[];
  includedIds: Set<string>;
  /** members left out because they (or a holder) are acquired after the view's date */
  notYetAcquired: CompanyInput[];
}

export interface Setup extends ViewScope {
  input: ConsolidationInput;
  G: string;
  minor: number;
  parent: CompanyInput;
  companies: Map<string, CompanyInput>;
  accounts: Map<string, Map<string, AccountInfo>>;
  /**
   * Weight w(c) of a line-by-line company: 1 for the parent and fully consolidated members; for a
   * proportionately consolidated member its stake times the weight of a proportionately consolidated
   * holder (a joint arrangement's own joint arrangements are included at the product of the stakes).
   */
  weight: Map<string, Decimal>;
  /** direct stake (percent, 0–100; the parent 100) */
  ownership: Map<string, Decimal>;
  /** effective ownership (fraction, exact; the parent 1) */
  effective: Map<string, Decimal>;
  tree: OwnershipTree;
  /**
   * True when some member carries a holder or acquisition data: ownership-driven consolidation
   * (acquisition eliminations, NCI through the chain, upstream profit). A group without either is
   * consolidated exactly as before they existed.
   */
  ownershipMode: boolean;
  /** members with acquisition data that a run applies (full consolidation and equity method), by id */
  acquired: Map<string, CompanyInput>;
  /** the group acquisition date of each company that has one (see ownership.ts) */
  groupAcquisitionDate: Map<string, string>;
  /** key of the retained-earnings line: the parent's RE account number or RETAINED_EARNINGS */
  reKey: string;
  periods: GroupPeriod[];
  /** rules processed by runs, in processing order */
  rules: EliminationRuleInput[];
  book: RateBook;
  /** memo of sourceAccountOf */
  sourceCache: Map<string, AccountInfo | null>;
}

export function buildSetup(input: ConsolidationInput): Setup {
  const parents = input.companies.filter((c) => c.role === 'Parent');
  if (parents.length !== 1) throw new Error('Consolidation input needs exactly one parent company');
  const parent = parents[0]!;
  const members = input.companies.filter((c) => c.role === 'Member');
  const tree = ownershipTree(parent.companyId, members.map(holdingOf));
  const ownershipMode = members.some((m) => (m.heldByCompanyId ?? null) !== null || !!m.acquisition);
  const weight = new Map<string, Decimal>([[parent.companyId, dec(1)]]);
  const ownership = new Map<string, Decimal>([[parent.companyId, dec(100)]]);
  const effective = new Map<string, Decimal>([[parent.companyId, dec(1)]]);
  const acquired = new Map<string, CompanyInput>();
  const groupAcquisition = new Map<string, string>();
  const byId = new Map(members.map((m) => [m.companyId, m]));
  for (const id of tree.order) {
    const c = byId.get(id)!;
    const node = tree.nodes.get(id)!;
    ownership.set(id, dec(c.ownershipPercentage));
    effective.set(id, node.effective);
    const holderWeight = node.holderId === parent.companyId ? dec(1) : weight.get(node.holderId)!;
    const holderProportionate = byId.get(node.holderId)?.consolidationMethod === 'ProportionateConsolidation';
    weight.set(
      id,
      c.consolidationMethod === 'FullConsolidation'
        ? dec(1)
        : node.direct.times(holderProportionate ? holderWeight : dec(1)),
    );
    if (node.hasAcquisition && c.acquisitionDate) acquired.set(id, c);
    const t = groupAcquisitionDate(tree, id);
    if (t !== null) groupAcquisition.set(id, t);
  }
  const accounts = new Map<string, Map<string, AccountInfo>>();
  for (const c of input.companies) {
    accounts.set(c.companyId, new Map(c.accounts.map((a) => [a.accountNumber, a])));
  }
  const scope = viewScope(input, parent, tree, input.asOfDate);
  const approved = new Set(input.options.approvedManualRuleIds);
  const rules = input.rules
    .filter((r) => r.isActive && (r.isAutomatic || approved.has(r.id)))
    .sort((a, b) => a.priority - b.priority || cmpStr(a.createdAt, b.createdAt) || cmpStr(a.id, b.id));
  const periods = input.groupPeriods
    .filter((p) => p.period >= 1 && p.period <= 12)
    .sort((a, b) => cmpStr(a.startDate, b.startDate));
  return {
    input,
    G: input.reportingCurrency,
    minor: minorUnits(input.reportingCurrency),
    parent,
    ...scope,
    companies: new Map(input.companies.map((c) => [c.companyId, c])),
    accounts,
    weight,
    ownership,
    effective,
    tree,
    ownershipMode,
    acquired,
    groupAcquisitionDate: groupAcquisition,
    reKey: parent.retainedEarningsAccountNumber ?? RE_SYNTHETIC,
    periods,
    rules,
    book: new RateBook(input.rates, input.reportingCurrency),
    sourceCache: new Map(),
  };
}

function viewScope(
  input: ConsolidationInput,
  parent: CompanyInput,
  tree: OwnershipTree,
  date: string,
): ViewScope {
  const members = input.companies.filter((c) => c.role === 'Member');
  const inGroup = (c: CompanyInput) => isInGroupOn(tree, c.companyId, date);
  const lineByLine = members
    .filter((c) => c.consolidationMethod !== 'EquityMethod' && inGroup(c))
    .sort(cmpCompany);
  const investees = input.options.includeEquityMethodInvestments
    ? members.filter((c) => c.consolidationMethod === 'EquityMethod' && inGroup(c)).sort(cmpCompany)
    : [];
  const consolidated = [parent, ...lineByLine];
  const included = [...consolidated, ...investees];
  return {
    consolidated,
    consolidatedIds: new Set(consolidated.map((c) => c.companyId)),
    investees,
    included,
    includedIds: new Set(included.map((c) => c.companyId)),
    notYetAcquired: members.filter((c) => !inGroup(c)).sort(cmpCompany),
  };
}

/**
 * The setup of a view as of `date`: the same setup when every member is in the group by then,
 * otherwise a copy whose companies leave out those acquired later (with its own source-account memo:
 * the source account of a number depends on the companies included).
 */
export function setupAsOf(setup: Setup, date: string): Setup {
  if (![...setup.groupAcquisitionDate.values()].some((t) => t > date)) return setup;
  return {
    ...setup,
    ...viewScope(setup.input, setup.parent, setup.tree, date),
    sourceCache: new Map(),
  };
}

/** The regular group period containing `date`; throws when the loader did not supply it. */
export function groupPeriodOf(setup: Setup, date: string): GroupPeriod {
  return setup.periods[groupPeriodIndexOf(setup, date)]!;
}

/** Index in `setup.periods` (ordered by start date) of the period containing `date`; throws when none. */
export function groupPeriodIndexOf(setup: Setup, date: string): number {
  const ps = setup.periods;
  let lo = 0;
  let hi = ps.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const p = ps[mid]!;
    if (date < p.startDate) hi = mid - 1;
    else if (date > p.endDate) lo = mid + 1;
    else return mid;
  }
  throw new Error(`No group period supplied for date ${date}`);
}

export interface SourceAccount {
  name: string;
  accountType: AccountType;
  accountCategory: AccountInfo['accountCategory'];
  isCashEquivalent: boolean;
  cashFlowCategory: AccountInfo['cashFlowCategory'];
}

/**
 * Source account of a number: the parent's account with that number, else the account of the
 * consolidated company or investee that comes first by company name (case-insensitive), then id.
 */
export function sourceAccountOf(setup: Setup, accountNumber: string): AccountInfo | null {
  const cached = setup.sourceCache.get(accountNumber);
  if (cached !== undefined) return cached;
  const found = findSourceAccount(setup, accountNumber);
  setup.sourceCache.set(accountNumber, found);
  return found;
}

function findSourceAccount(setup: Setup, accountNumber: string): AccountInfo | null {
  const own = setup.accounts.get(setup.parent.companyId)?.get(accountNumber);
  if (own) return own;
  const candidates = setup.included.filter((c) => c.companyId !== setup.parent.companyId).sort(cmpCompany);
  for (const c of candidates) {
    const a = setup.accounts.get(c.companyId)?.get(accountNumber);
    if (a) return a;
  }
  return null;
}
