/**
 * The ownership structure of a group as the API shows and checks it: who holds each member
 * (`heldByCompanyId`), the effective ownership and NCI percentages that follow (records, the
 * structure read), and the checks of holdings and acquisition data on every change (create a group,
 * add or update a member). The rules themselves are the domain's (domain/consolidation/ownership.ts).
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Db, Queryable, Tx } from '../../db/client.ts';
import { accounts, companies } from '../../db/schema/index.ts';
import { minorUnits } from '../../domain/codes.ts';
import {
  formatDerivedPercentage,
  formatEffectivePercentage,
  type HoldingInput,
  type HoldingIssue,
  holdingIssues,
  nonControllingPercentage,
  type OwnershipTree,
  ownershipTree,
} from '../../domain/consolidation/ownership.ts';
import type { ConsolidationMethod } from '../../domain/consolidation/types.ts';
import { type Issue, ValidationError } from '../../domain/errors.ts';
import { dec, formatAmount, formatPercentage, fractionDigits } from '../../domain/money.ts';
import { parsePattern } from '../../domain/selectors.ts';

/** Acquisition data of a member as stored and returned. */
export interface AcquisitionData {
  consideration: { value: string; currency: string };
  investmentAccountId: string;
  nciMeasurement: 'Proportionate' | 'FairValue';
  nciFairValue: { value: string; currency: string } | null;
  fairValueAdjustments: { accountId: string; amount: string }[];
  goodwillAccountNumber: string | null;
}

/** Acquisition data as a request sends it (optional fields absent = their defaults). */
export interface AcquisitionInput {
  consideration: { value: string; currency: string };
  investmentAccountId: string;
  nciMeasurement: 'Proportionate' | 'FairValue';
  nciFairValue?: { value: string; currency: string } | null;
  fairValueAdjustments?: { accountId: string; amount: string }[];
  goodwillAccountNumber?: string | null;
}

export interface MemberInput {
  companyId: string;
  ownershipPercentage: string | number;
  consolidationMethod: ConsolidationMethod;
  acquisitionDate?: string | null;
  heldByCompanyId?: string | null;
  acquisition?: AcquisitionInput | null;
}

export interface UpdateMemberInput {
  ownershipPercentage?: string | number;
  consolidationMethod?: ConsolidationMethod;
  acquisitionDate?: string | null;
  heldByCompanyId?: string | null;
  acquisition?: AcquisitionInput | null;
}

/** A member as the checks see it: its company, holder, stake, method, dates and acquisition data. */
export interface MemberState {
  companyId: string;
  heldByCompanyId: string | null;
  ownershipPercentage: string;
  consolidationMethod: ConsolidationMethod;
  acquisitionDate: string | null;
  acquisition: AcquisitionData | null;
}

/** At most this many fair-value adjustments per acquisition. */
export const MAX_FAIR_VALUE_ADJUSTMENTS = 100;

const holdingOf = (m: MemberState): HoldingInput => ({
  companyId: m.companyId,
  heldByCompanyId: m.heldByCompanyId,
  ownershipPercentage: m.ownershipPercentage,
  consolidationMethod: m.consolidationMethod,
  acquisitionDate: m.acquisitionDate,
  hasAcquisition: m.acquisition !== null && m.consolidationMethod !== 'ProportionateConsolidation',
});

/** The tree of a stored structure; null when it is not a valid one (records then fall back to flat). */
export function treeOf(parentId: string, members: readonly MemberState[]): OwnershipTree | null {
  return holdingIssues(parentId, members.map(holdingOf)).length > 0
    ? null
    : ownershipTree(parentId, members.map(holdingOf));
}

/** Effective ownership and NCI percentages of a member (4-decimal effective, "20.00"-style NCI). */
export function percentagesOf(
  tree: OwnershipTree | null,
  m: Pick<MemberState, 'companyId' | 'ownershipPercentage' | 'consolidationMethod'>,
): { effectiveOwnershipPercentage: string; nonControllingInterestPercentage: string } {
  const node = tree?.nodes.get(m.companyId);
  if (!node) {
    const own = dec(m.ownershipPercentage);
    return {
      effectiveOwnershipPercentage: formatEffectivePercentage(own.div(100)),
      nonControllingInterestPercentage:
        m.consolidationMethod === 'FullConsolidation'
          ? formatPercentage(dec(100).minus(own))
          : formatPercentage(0),
    };
  }
  return {
    effectiveOwnershipPercentage: formatEffectivePercentage(node.effective),
    nonControllingInterestPercentage: formatDerivedPercentage(nonControllingPercentage(node)),
  };
}

/**
 * Refusals of the holdings of a member list, as one ValidationError; `pathOf` names the request field
 * each refusal is about. Refusals that name the same field with the same reason are reported once.
 */
export function checkHoldings(
  parentId: string,
  members: readonly MemberState[],
  pathOf: (issue: HoldingIssue) => string,
): void {
  const issues = holdingIssues(parentId, members.map(holdingOf));
  if (issues.length === 0) return;
  const seen = new Set<string>();
  const out: Issue[] = [];
  for (const i of issues) {
    const issue = { path: pathOf(i), message: i.message };
    const key = `${issue.path}|${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(issue);
  }
  throw new ValidationError(out, 'The ownership structure is not valid');
}

export interface CompanyFacts {
  functionalCurrency: string;
  /** account id → number and type */
  accounts: Map<string, { accountNumber: string; accountType: string }>;
  accountNumbers: Map<string, string>;
}

/** Functional currency and accounts of the companies (one query each), for the acquisition checks. */
export async function companyFacts(
  db: Queryable,
  organizationId: string,
  companyIds: readonly string[],
): Promise<Map<string, CompanyFacts>> {
  const ids = [...new Set(companyIds)];
  const out = new Map<string, CompanyFacts>();
  if (ids.length === 0) return out;
  const rows = await db
    .select({ id: companies.id, functionalCurrency: companies.functionalCurrency })
    .from(companies)
    .where(and(eq(companies.organizationId, organizationId), inArray(companies.id, ids)));
  for (const r of rows) {
    out.set(r.id, {
      functionalCurrency: r.functionalCurrency,
      accounts: new Map(),
      accountNumbers: new Map(),
    });
  }
  const accountRows = await db
    .select({
      id: accounts.id,
      companyId: accounts.companyId,
      accountNumber: accounts.accountNumber,
      accountType: accounts.accountType,
    })
    .from(accounts)
    .where(and(eq(accounts.organizationId, organizationId), inArray(accounts.companyId, ids)));
  for (const a of accountRows) {
    const facts = out.get(a.companyId);
    facts?.accounts.set(a.id, { accountNumber: a.accountNumber, accountType: a.accountType });
    facts?.accountNumbers.set(a.accountNumber, a.accountType);
  }
  return out;
}

/** Companies an acquisition check needs: the parent, each member with acquisition data and its holder. */
export function companiesToCheck(parentId: string, members: readonly MemberState[]): string[] {
  const ids = new Set<string>([parentId]);
  for (const m of members) {
    if (!m.acquisition) continue;
    ids.add(m.companyId);
    ids.add(m.heldByCompanyId ?? parentId);
  }
  return [...ids];
}

/**
 * The checks of a member's acquisition data against the group as it will be (paths under `prefix`):
 * a date, a method that accounts for acquisitions, the holder's currency and investment account, the
 * NCI fair value, the member's accounts for fair-value adjustments, the goodwill account.
 */
export function acquisitionIssues(
  parentId: string,
  m: MemberState,
  facts: Map<string, CompanyFacts>,
  prefix: string,
): Issue[] {
  const a = m.acquisition;
  if (!a) return [];
  const issues: Issue[] = [];
  const at = (path: string, message: string) => issues.push({ path: `${prefix}${path}`, message });
  if (m.acquisitionDate === null) at('/acquisitionDate', 'Required when the member carries acquisition data');
  if (m.consolidationMethod === 'ProportionateConsolidation') {
    at('/acquisition', 'Acquisition data applies to fully consolidated and equity-method members');
    return issues;
  }
  const holderId = m.heldByCompanyId ?? parentId;
  const holder = facts.get(holderId);
  const member = facts.get(m.companyId);
  if (!holder || !member) return issues;
  if (a.consideration.currency !== holder.functionalCurrency) {
    at(
      '/acquisition/consideration/currency',
      `Must be the holder's functional currency ${holder.functionalCurrency}`,
    );
  }
  if (dec(a.consideration.value).isNegative()) at('/acquisition/consideration/value', 'Must not be negative');
  const investment = holder.accounts.get(a.investmentAccountId);
  if (!investment) at('/acquisition/investmentAccountId', 'Must be an account of the holding company');
  else if (investment.accountType !== 'Asset')
    at('/acquisition/investmentAccountId', 'Must be an Asset account');
  checkNci(m, a, holder, member, at);
  checkAdjustments(a, member, at);
  if (a.goodwillAccountNumber !== null) {
    const parent = facts.get(parentId);
    const type =
      holder.accountNumbers.get(a.goodwillAccountNumber) ??
      parent?.accountNumbers.get(a.goodwillAccountNumber);
    if (
      !parsePattern(a.goodwillAccountNumber) ||
      a.goodwillAccountNumber.includes('*') ||
      a.goodwillAccountNumber.includes('-')
    ) {
      at('/acquisition/goodwillAccountNumber', 'Must be an account number');
    } else if (type !== 'Asset') {
      at(
        '/acquisition/goodwillAccountNumber',
        'Must be the number of an Asset account of the parent or the holder',
      );
    }
  }
  return issues;
}

function checkNci(
  m: MemberState,
  a: AcquisitionData,
  holder: CompanyFacts,
  member: CompanyFacts,
  at: (path: string, message: string) => void,
): void {
  if (a.nciMeasurement === 'FairValue') {
    if (a.nciFairValue === null) {
      at('/acquisition/nciFairValue', 'Required when nciMeasurement is FairValue');
      return;
    }
    if (![member.functionalCurrency, holder.functionalCurrency].includes(a.nciFairValue.currency)) {
      at('/acquisition/nciFairValue/currency', "Must be the member's or the holder's functional currency");
    }
    const value = dec(a.nciFairValue.value);
    if (value.isNegative()) at('/acquisition/nciFairValue/value', 'Must not be negative');
    if (dec(m.ownershipPercentage).equals(100) && !value.isZero()) {
      at('/acquisition/nciFairValue', 'A member held in full has no non-controlling interest');
    }
  } else if (a.nciFairValue !== null) {
    at('/acquisition/nciFairValue', 'Only with nciMeasurement FairValue');
  }
}

function checkAdjustments(
  a: AcquisitionData,
  member: CompanyFacts,
  at: (path: string, message: string) => void,
) {
  const seen = new Set<string>();
  const digits = minorUnits(member.functionalCurrency);
  a.fairValueAdjustments.forEach((f, i) => {
    const account = member.accounts.get(f.accountId);
    if (!account) at(`/acquisition/fairValueAdjustments/${i}/accountId`, 'Must be an account of the member');
    else if (account.accountType !== 'Asset' && account.accountType !== 'Liability') {
      at(`/acquisition/fairValueAdjustments/${i}/accountId`, 'Must be an Asset or Liability account');
    } else if (seen.has(f.accountId)) {
      at(`/acquisition/fairValueAdjustments/${i}/accountId`, 'The account is adjusted more than once');
    }
    seen.add(f.accountId);
    if (fractionDigits(f.amount) > digits) {
      at(
        `/acquisition/fairValueAdjustments/${i}/amount`,
        `At most ${digits} decimals in ${member.functionalCurrency}`,
      );
    }
  });
}

/** Stored form of acquisition data (defaults applied; money in the currency's minor-unit digits). */
export function acquisitionData(input: AcquisitionInput | null | undefined): AcquisitionData | null {
  if (!input) return null;
  const money = (m: { value: string; currency: string }) => ({
    value: formatAmount(m.value, m.currency),
    currency: m.currency,
  });
  return {
    consideration: money(input.consideration),
    investmentAccountId: input.investmentAccountId,
    nciMeasurement: input.nciMeasurement,
    nciFairValue: input.nciFairValue ? money(input.nciFairValue) : null,
    fairValueAdjustments: (input.fairValueAdjustments ?? []).map((f) => ({
      accountId: f.accountId,
      amount: f.amount,
    })),
    goodwillAccountNumber: input.goodwillAccountNumber ?? null,
  };
}

/** A holder given as the parent's id means the parent (stored as null). */
export function holderOf(group: { parentCompanyId: string }, heldByCompanyId: string | null | undefined) {
  return heldByCompanyId === undefined || heldByCompanyId === group.parentCompanyId ? null : heldByCompanyId;
}

/**
 * Checks a group's members as they will be: the holdings, then each changed member's acquisition data
 * (`changed`: company id → path prefix of its fields in the request). Returns the members with their
 * fair-value adjustments written in their currency's digits.
 */
export async function checkStructure(
  tx: Tx | Db,
  organizationId: string,
  parentCompanyId: string,
  members: MemberState[],
  changed: Map<string, string>,
  holdingPath: (issue: HoldingIssue) => string,
): Promise<MemberState[]> {
  checkHoldings(parentCompanyId, members, holdingPath);
  const touched = members.filter((m) => changed.has(m.companyId) && m.acquisition);
  if (touched.length === 0) return members;
  const facts = await companyFacts(tx, organizationId, companiesToCheck(parentCompanyId, touched));
  const issues: Issue[] = touched.flatMap((m) =>
    acquisitionIssues(parentCompanyId, m, facts, changed.get(m.companyId)!),
  );
  if (issues.length > 0) throw new ValidationError(issues, 'The acquisition data is not valid');
  return members.map((m) => {
    if (!changed.has(m.companyId) || !m.acquisition) return m;
    const currency = facts.get(m.companyId)!.functionalCurrency;
    const fairValueAdjustments = m.acquisition.fairValueAdjustments.map((f) => ({
      accountId: f.accountId,
      amount: formatAmount(f.amount, currency),
    }));
    return { ...m, acquisition: { ...m.acquisition, fairValueAdjustments } };
  });
}
