/**
 * What an elimination rule must satisfy beyond its schema: its debit and credit accounts resolve to
 * accounts the rule may book on (a member's account, or an account of the group's chart), and its
 * selectors and trigger conditions name companies of the group.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { type Db, type Tx } from '../../db/client.ts';
import { inOrg } from '../../db/rows.ts';
import { accounts, consolidationMembers, groupAccounts } from '../../db/schema/index.ts';
import { minorUnits } from '../../domain/codes.ts';
import { type Issue, ValidationError } from '../../domain/errors.ts';
import { fractionDigits } from '../../domain/money.ts';
import { type GroupRow } from './groups.repo.ts';
import { type StoredSelector } from './rules.repo.ts';
import { operationFailed, type RuleDraft, type RuleOperation } from './rules.service.ts';
import { errors } from '../../domain/error-catalogue.ts';

export async function memberCompanyIds(tx: Db | Tx, group: GroupRow): Promise<Set<string>> {
  const rows = await tx
    .select({ companyId: consolidationMembers.companyId })
    .from(consolidationMembers)
    .where(inOrg(consolidationMembers, group.organizationId, { groupId: group.id }));
  return new Set([group.parentCompanyId, ...rows.map((r) => r.companyId)]);
}

/** The id a draft's side names, whichever kind it is. */
export const sideId = (draft: RuleDraft, side: 'debit' | 'credit'): string =>
  side === 'debit'
    ? (draft.debitAccountId ?? draft.debitGroupAccountId)!
    : (draft.creditAccountId ?? draft.creditGroupAccountId)!;

export type ResolvedAccount =
  | { kind: 'CompanyAccount'; id: string; companyId: string; accountNumber: string }
  | { kind: 'GroupAccount'; id: string; accountNumber: string };

/**
 * What the debit and credit ids name: a company account of the organization (as before group charts),
 * else a group account of the rule's own group. A group account of another group or organization —
 * and any group account when the group has no chart — is unknown, like a missing account.
 */
export async function resolveAccounts(
  tx: Db | Tx,
  group: GroupRow,
  ids: string[],
): Promise<Map<string, ResolvedAccount>> {
  const rows = await tx
    .select({ id: accounts.id, companyId: accounts.companyId, accountNumber: accounts.accountNumber })
    .from(accounts)
    .where(and(eq(accounts.organizationId, group.organizationId), inArray(accounts.id, ids)));
  const byId = new Map<string, ResolvedAccount>(rows.map((r) => [r.id, { kind: 'CompanyAccount', ...r }]));
  const rest = ids.filter((id) => !byId.has(id));
  if (rest.length === 0) return byId;
  const groupRows = await tx
    .select({ id: groupAccounts.id, accountNumber: groupAccounts.accountNumber })
    .from(groupAccounts)
    .where(
      and(inOrg(groupAccounts, group.organizationId, { groupId: group.id }), inArray(groupAccounts.id, rest)),
    );
  for (const g of groupRows) byId.set(g.id, { kind: 'GroupAccount', ...g });
  return byId;
}

/**
 * The semantic checks, in order, on the complete (resulting) rule: selector companies,
 * debit/credit accounts exist (404; a company account, or a group account of the group's chart),
 * company accounts belong to the group, two accounts of one kind differ in number, `minimumAmount`
 * digits. Returns the draft with each side filed under the kind of account its id names.
 */
export async function semanticChecks(
  tx: Db | Tx,
  group: GroupRow,
  draft: RuleDraft,
  operation: RuleOperation,
  reasonPrefix: string,
  pathPrefix: string,
  groupCompanies?: Set<string>,
): Promise<RuleDraft> {
  const allowed = groupCompanies ?? (await memberCompanyIds(tx, group));
  const lists: Array<[string, StoredSelector[]]> = [
    ...draft.triggerConditions.map(
      (c, i) => [`triggerConditions/${i}/sourceAccounts`, c.sourceAccounts] as [string, StoredSelector[]],
    ),
    ['sourceAccounts', draft.sourceAccounts],
    ['targetAccounts', draft.targetAccounts],
  ];
  for (const [path, list] of lists) {
    for (const [i, s] of list.entries()) {
      if (s.companyId !== null && !allowed.has(s.companyId)) {
        throw operationFailed(
          operation,
          `${reasonPrefix}${path}/${i}/companyId: company ${s.companyId} is neither the parent nor a member of the group`,
        );
      }
    }
  }
  const debitId = sideId(draft, 'debit');
  const creditId = sideId(draft, 'credit');
  const byId = await resolveAccounts(tx, group, [debitId, creditId]);
  const debit = byId.get(debitId);
  if (!debit) {
    throw errors.AccountNotFoundError('Account not found', { accountId: debitId });
  }
  const credit = byId.get(creditId);
  if (!credit) {
    throw errors.AccountNotFoundError('Account not found', { accountId: creditId });
  }
  for (const [field, account] of [
    ['debitAccountId', debit],
    ['creditAccountId', credit],
  ] as const) {
    if (account.kind === 'CompanyAccount' && !allowed.has(account.companyId)) {
      throw operationFailed(
        operation,
        `${reasonPrefix}${field}: account ${account.id} belongs to company ${account.companyId}, which is neither the parent nor a member of the group`,
      );
    }
  }
  // A company account and a group account number different charts: only one kind can collide.
  if (debit.kind === credit.kind && debit.accountNumber === credit.accountNumber) {
    throw operationFailed(
      operation,
      `${reasonPrefix}creditAccountId: the debit and credit accounts have the same account number ${debit.accountNumber}`,
    );
  }
  const digits = minorUnits(group.reportingCurrency);
  const issues: Issue[] = [];
  draft.triggerConditions.forEach((c, i) => {
    if (c.minimumAmount !== null && fractionDigits(c.minimumAmount) > digits) {
      issues.push({
        path: `${pathPrefix}/triggerConditions/${i}/minimumAmount`,
        message: `At most ${digits} decimal places for ${group.reportingCurrency}`,
      });
    }
  });
  if (issues.length > 0) throw new ValidationError(issues);
  return {
    ...draft,
    debitAccountId: debit.kind === 'CompanyAccount' ? debit.id : null,
    debitGroupAccountId: debit.kind === 'GroupAccount' ? debit.id : null,
    creditAccountId: credit.kind === 'CompanyAccount' ? credit.id : null,
    creditGroupAccountId: credit.kind === 'GroupAccount' ? credit.id : null,
  };
}
