/**
 * Elimination rules: row loaders and wire records, plus the loader consolidation
 * runs use to read a group's rules in the engine's input shape (`loadRuleInputs`).
 */
import { and, asc, eq, inArray, type SQL } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { byId, countRows, firstRow, inOrg, sameOrgJoin } from '../../db/rows.ts';
import { accounts, consolidationGroups, eliminationRules, groupAccounts } from '../../db/schema/index.ts';
import type { EliminationRuleInput, EliminationType } from '../../domain/consolidation/types.ts';
import { DomainError } from '../../domain/errors.ts';
import { formatAmount } from '../../domain/money.ts';
import { errors } from '../../domain/error-catalogue.ts';

export type { EliminationType };
export { ELIMINATION_TYPES } from '../../domain/consolidation/index.ts';

export type RuleRow = typeof eliminationRules.$inferSelect;

/** Stored shapes (jsonb). `minimumAmount` is kept as a canonical decimal string (no trailing zeros). */
export interface StoredSelector {
  accountNumber: string;
  companyId: string | null;
}
export interface StoredTrigger {
  description: string;
  sourceAccounts: StoredSelector[];
  minimumAmount: string | null;
}

export interface TriggerRecord {
  description: string;
  sourceAccounts: StoredSelector[];
  /** Rendered with exactly the group currency's minor-unit digits. */
  minimumAmount: string | null;
}

/** What a rule's debit or credit account id names: a company account or a group account of its group. */
export type RuleAccountKind = 'CompanyAccount' | 'GroupAccount';

export interface RuleRecord {
  id: string;
  organizationId: string;
  consolidationGroupId: string;
  name: string;
  description: string | null;
  eliminationType: EliminationType;
  triggerConditions: TriggerRecord[];
  sourceAccounts: StoredSelector[];
  targetAccounts: StoredSelector[];
  debitAccountId: string;
  creditAccountId: string;
  /** present (both) only on rules that name a group account */
  debitAccountKind?: RuleAccountKind;
  creditAccountKind?: RuleAccountKind;
  isAutomatic: boolean;
  priority: number;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
}

export function ruleNotFound(eliminationRuleId: string): DomainError {
  return errors.EliminationRuleNotFoundError('Elimination rule not found', {
    eliminationRuleId,
  });
}

/** Rule order everywhere: priority, then createdAt, then id. */
export const RULE_ORDER = [
  asc(eliminationRules.priority),
  asc(eliminationRules.createdAt),
  asc(eliminationRules.id),
];

const selectors = (v: unknown): StoredSelector[] =>
  ((v ?? []) as StoredSelector[]).map((s) => ({
    accountNumber: s.accountNumber,
    companyId: s.companyId ?? null,
  }));

export function storedTriggers(row: Pick<RuleRow, 'triggerConditions'>): StoredTrigger[] {
  return ((row.triggerConditions ?? []) as StoredTrigger[]).map((c) => ({
    description: c.description,
    sourceAccounts: selectors(c.sourceAccounts),
    minimumAmount: c.minimumAmount ?? null,
  }));
}

/**
 * The id a rule's side names (its company account or its group account) and which of the two it is.
 * The database holds exactly one of the two per side.
 */
export function ruleSide(row: RuleRow, side: 'debit' | 'credit'): { id: string; kind: RuleAccountKind } {
  const account = side === 'debit' ? row.debitAccountId : row.creditAccountId;
  const group = side === 'debit' ? row.debitGroupAccountId : row.creditGroupAccountId;
  return account !== null ? { id: account, kind: 'CompanyAccount' } : { id: group!, kind: 'GroupAccount' };
}

/** Wire record of a rule; `currency` is its group's reporting currency (for `minimumAmount`). */
export function ruleRecord(row: RuleRow, currency: string): RuleRecord {
  const debit = ruleSide(row, 'debit');
  const credit = ruleSide(row, 'credit');
  // Rules on company accounts alone answer exactly as before group accounts existed.
  const kinds =
    debit.kind === 'GroupAccount' || credit.kind === 'GroupAccount'
      ? { debitAccountKind: debit.kind, creditAccountKind: credit.kind }
      : {};
  return {
    id: row.id,
    organizationId: row.organizationId,
    consolidationGroupId: row.groupId,
    name: row.name,
    description: row.description ?? null,
    eliminationType: row.eliminationType as EliminationType,
    triggerConditions: storedTriggers(row).map((c) => ({
      ...c,
      minimumAmount: c.minimumAmount === null ? null : formatAmount(c.minimumAmount, currency),
    })),
    sourceAccounts: selectors(row.sourceAccounts),
    targetAccounts: selectors(row.targetAccounts),
    debitAccountId: debit.id,
    creditAccountId: credit.id,
    ...kinds,
    isAutomatic: row.isAutomatic,
    priority: row.priority,
    isActive: row.isActive,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The rule with this id (within `organizationId` when given), with its group's currency. */
export async function findRule(
  db: Queryable,
  ruleId: string,
  organizationId?: string,
  lock = false,
): Promise<(RuleRow & { currency: string }) | null> {
  const where = byId(eliminationRules, ruleId, organizationId);
  const row = await firstRow(db, eliminationRules, where, lock ? 'update' : undefined);
  if (!row) return null;
  const [g] = await db
    .select({ currency: consolidationGroups.reportingCurrency })
    .from(consolidationGroups)
    .where(inOrg(consolidationGroups, row.organizationId, { id: row.groupId }));
  return { ...row, currency: g?.currency ?? 'USD' };
}

/** A page of rule records matching `where`, in rule order, with the total count. */
export async function listRuleRecords(
  db: Queryable,
  where: SQL | undefined,
  page: { limit: number; offset: number },
): Promise<{ items: RuleRecord[]; total: number }> {
  const [rows, total] = await Promise.all([
    db
      .select({ rule: eliminationRules, currency: consolidationGroups.reportingCurrency })
      .from(eliminationRules)
      .innerJoin(
        consolidationGroups,
        sameOrgJoin(eliminationRules.organizationId, eliminationRules.groupId, consolidationGroups),
      )
      .where(where)
      .orderBy(...RULE_ORDER)
      .limit(page.limit)
      .offset(page.offset),
    countRows(db, eliminationRules, where),
  ]);
  return { items: rows.map((r) => ruleRecord(r.rule, r.currency)), total };
}

/** Every rule of the group (active or not), in rule order. */
export async function loadGroupRules(db: Queryable, organizationId: string, groupId: string) {
  return db
    .select()
    .from(eliminationRules)
    .where(inOrg(eliminationRules, organizationId, { groupId }))
    .orderBy(...RULE_ORDER);
}

/**
 * The group's rules in the engine's input shape (domain/consolidation/types.ts), in rule order:
 * every rule, active or not, with the company and number of its debit and credit accounts. Runs
 * choose the ones they process (active automatic rules plus approved manual ones). A side on a group
 * account is the group account's number, marked `groupAccount` (the group chart books it on the
 * parent's line, without a mapping).
 */
export async function loadRuleInputs(
  db: Queryable,
  organizationId: string,
  groupId: string,
): Promise<Array<EliminationRuleInput & { organizationId: string; consolidationGroupId: string }>> {
  const rules = await loadGroupRules(db, organizationId, groupId);
  const ids = [
    ...new Set(rules.flatMap((r) => [r.debitAccountId, r.creditAccountId].filter((v) => v !== null))),
  ];
  const groupIds = [
    ...new Set(
      rules.flatMap((r) => [r.debitGroupAccountId, r.creditGroupAccountId].filter((v) => v !== null)),
    ),
  ];
  const groupRows =
    groupIds.length === 0
      ? []
      : await db
          .select({ id: groupAccounts.id, accountNumber: groupAccounts.accountNumber })
          .from(groupAccounts)
          .where(and(inOrg(groupAccounts, organizationId, { groupId }), inArray(groupAccounts.id, groupIds)));
  const groupNumbers = new Map(groupRows.map((g) => [g.id, g.accountNumber]));
  const accountRows =
    ids.length === 0
      ? []
      : await db
          .select({ id: accounts.id, companyId: accounts.companyId, accountNumber: accounts.accountNumber })
          .from(accounts)
          .where(and(eq(accounts.organizationId, organizationId), inArray(accounts.id, ids)));
  const byId = new Map(accountRows.map((a) => [a.id, a]));
  const ref = (r: RuleRow, side: 'debit' | 'credit') => {
    const { id, kind } = ruleSide(r, side);
    if (kind === 'GroupAccount') {
      return { companyId: '', accountNumber: groupNumbers.get(id) ?? '', groupAccount: true as const };
    }
    const a = byId.get(id);
    return { companyId: a?.companyId ?? '', accountNumber: a?.accountNumber ?? '' };
  };
  return rules.map((r) => ({
    id: r.id,
    organizationId: r.organizationId,
    consolidationGroupId: r.groupId,
    name: r.name,
    eliminationType: r.eliminationType as EliminationType,
    priority: r.priority,
    createdAt: r.createdAt.toISOString(),
    isActive: r.isActive,
    isAutomatic: r.isAutomatic,
    triggerConditions: storedTriggers(r),
    sourceAccounts: selectors(r.sourceAccounts),
    targetAccounts: selectors(r.targetAccounts),
    debitAccount: ref(r, 'debit'),
    creditAccount: ref(r, 'credit'),
  }));
}
