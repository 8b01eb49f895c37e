/** Elimination rules. */
import { and, eq, inArray, lt, type SQL, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type Db, inTransaction, queryRows, type Tx } from '../../db/client.ts';
import { lockRowsById, sameRow, updateRow } from '../../db/rows.ts';
import { consolidationGroups, eliminationRules } from '../../db/schema/index.ts';
import { MAX_TRIGGER_SELECTORS } from '../../domain/consolidation/rule-bounds.ts';
import { checkUnchanged, DomainError, type Issue, ValidationError } from '../../domain/errors.ts';
import { dec } from '../../domain/money.ts';
import { parsePattern } from '../../domain/selectors.ts';
import type { Access } from '../../access/access.ts';
import { type PageParams, paged } from '../../http/pagination.ts';
import { auditEntry, auditWrite, diffChanges, recordAudit } from '../audit/service.ts';
import { listedOrganizations } from '../shared/lists.ts';
import { type GroupRow, groupNotFound, requireGroup } from './groups.repo.ts';
import {
  type EliminationType,
  findRule,
  listRuleRecords,
  type RuleRecord,
  type RuleRow,
  ruleNotFound,
  ruleRecord,
  type StoredSelector,
  type StoredTrigger,
  storedTriggers,
} from './rules.repo.ts';
import { memberCompanyIds, semanticChecks } from './rules.checks.ts';
import { errors } from '../../domain/error-catalogue.ts';

const RESOURCE = 'EliminationRule';

export type RuleOperation = 'create' | 'bulkCreate' | 'update';

export interface SelectorInput {
  accountNumber: string;
  companyId?: string | null;
}
export interface TriggerInput {
  description: string;
  sourceAccounts: SelectorInput[];
  minimumAmount?: string | null;
}

export interface CreateRuleInput {
  organizationId: string;
  consolidationGroupId: string;
  name: string;
  description?: string | null;
  eliminationType: EliminationType;
  triggerConditions: TriggerInput[];
  sourceAccounts: SelectorInput[];
  targetAccounts: SelectorInput[];
  debitAccountId: string;
  creditAccountId: string;
  isAutomatic: boolean;
  priority: number;
  isActive?: boolean;
}

export interface UpdateRuleInput {
  organizationId?: string;
  consolidationGroupId?: string;
  name?: string;
  description?: string | null;
  eliminationType?: EliminationType;
  triggerConditions?: TriggerInput[];
  sourceAccounts?: SelectorInput[];
  targetAccounts?: SelectorInput[];
  debitAccountId?: string;
  creditAccountId?: string;
  isAutomatic?: boolean;
  priority?: number;
  isActive?: boolean | null;
}

export interface RuleListQuery {
  organizationId?: string | undefined;
  consolidationGroupId?: string | undefined;
  eliminationType?: EliminationType | undefined;
  isActive?: boolean | undefined;
  isAutomatic?: boolean | undefined;
  highPriorityOnly?: boolean | undefined;
}

/**
 * The complete rule as it will be stored; trigger `minimumAmount`s still carry their literal text.
 * Per side exactly one of the company account and the group account is set. An id given in a request
 * starts out as the company account; `semanticChecks` resolves what it names.
 */
export interface RuleDraft {
  name: string;
  description: string | null;
  eliminationType: EliminationType;
  triggerConditions: StoredTrigger[];
  sourceAccounts: StoredSelector[];
  targetAccounts: StoredSelector[];
  debitAccountId: string | null;
  creditAccountId: string | null;
  debitGroupAccountId: string | null;
  creditGroupAccountId: string | null;
  isAutomatic: boolean;
  priority: number;
  isActive: boolean;
}

export function operationFailed(operation: string, reason: string): DomainError {
  return errors.EliminationRuleOperationFailedError(`Elimination rule ${operation} failed`, {
    operation,
    reason,
  });
}

function ruleInUse(eliminationRuleId: string, completedRunCount: number): DomainError {
  return errors.EliminationRuleInUseError('A completed consolidation run applied the rule', {
    eliminationRuleId,
    completedRunCount,
  });
}

const toSelectors = (list: SelectorInput[]): StoredSelector[] =>
  list.map((s) => ({ accountNumber: s.accountNumber, companyId: s.companyId ?? null }));

const toTriggers = (list: TriggerInput[]): StoredTrigger[] =>
  list.map((c) => ({
    description: c.description,
    sourceAccounts: toSelectors(c.sourceAccounts),
    minimumAmount: c.minimumAmount ?? null,
  }));

/**
 * Step 5: the first invalid selector pattern among the fields present, in the field order of the
 * create table (triggerConditions, sourceAccounts, targetAccounts), as
 * `400 EliminationRuleOperationFailedError` whose reason names the field.
 */
type PatternFields = Pick<UpdateRuleInput, 'triggerConditions' | 'sourceAccounts' | 'targetAccounts'>;

export function patternFailure(
  input: PatternFields,
  operation: RuleOperation,
  reasonPrefix = '',
): DomainError | null {
  const check = (list: SelectorInput[] | undefined, path: string): DomainError | null => {
    for (const [i, s] of (list ?? []).entries()) {
      if (parsePattern(s.accountNumber) === null) {
        return operationFailed(
          operation,
          `${reasonPrefix}${path}/${i}/accountNumber: invalid pattern '${s.accountNumber}'`,
        );
      }
    }
    return null;
  };
  for (const [i, c] of (input.triggerConditions ?? []).entries()) {
    const failure = check(c.sourceAccounts, `triggerConditions/${i}/sourceAccounts`);
    if (failure) return failure;
  }
  return check(input.sourceAccounts, 'sourceAccounts') ?? check(input.targetAccounts, 'targetAccounts');
}

/** Stored form: canonical `minimumAmount` (`"100.50"` → `"100.5"`). */
function canonical(draft: RuleDraft): RuleDraft {
  return {
    ...draft,
    triggerConditions: draft.triggerConditions.map((c) => ({
      ...c,
      minimumAmount: c.minimumAmount === null ? null : dec(c.minimumAmount).toFixed(),
    })),
  };
}

function draftOf(row: RuleRow): RuleDraft {
  return {
    name: row.name,
    description: row.description ?? null,
    eliminationType: row.eliminationType as EliminationType,
    triggerConditions: storedTriggers(row),
    sourceAccounts: toSelectors(row.sourceAccounts as StoredSelector[]),
    targetAccounts: toSelectors(row.targetAccounts as StoredSelector[]),
    debitAccountId: row.debitAccountId,
    creditAccountId: row.creditAccountId,
    debitGroupAccountId: row.debitGroupAccountId,
    creditGroupAccountId: row.creditGroupAccountId,
    isAutomatic: row.isAutomatic,
    priority: row.priority,
    isActive: row.isActive,
  };
}

function draftFromCreate(input: CreateRuleInput): RuleDraft {
  return {
    name: input.name,
    description: input.description ?? null,
    eliminationType: input.eliminationType,
    triggerConditions: toTriggers(input.triggerConditions),
    sourceAccounts: toSelectors(input.sourceAccounts),
    targetAccounts: toSelectors(input.targetAccounts),
    debitAccountId: input.debitAccountId,
    creditAccountId: input.creditAccountId,
    debitGroupAccountId: null,
    creditGroupAccountId: null,
    isAutomatic: input.isAutomatic,
    priority: input.priority,
    isActive: input.isActive ?? true,
  };
}

function authorizeRule(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  action: 'consolidation:read' | 'consolidation:manage',
) {
  return access.addressed(
    organizationId,
    action,
    (orgId) => findRule(db, id, orgId),
    () => ruleNotFound(id),
    RESOURCE,
  );
}

/** The rule read again and locked inside a write transaction (it may have gone since the check). */
async function relockRule(tx: Tx, current: RuleRow): Promise<RuleRow & { currency: string }> {
  const rule = await findRule(tx, current.id, current.organizationId, true);
  if (!rule) throw ruleNotFound(current.id);
  return rule;
}

/** Locks the group, then the rule (the lock order of every rule write that needs both). */
async function lockRule(tx: Tx, current: RuleRow): Promise<{ group: GroupRow; rule: RuleRow }> {
  const group = await requireGroup(tx, current.organizationId, current.groupId, true).catch(() => {
    throw ruleNotFound(current.id);
  });
  return { group, rule: await relockRule(tx, current) };
}

// ---------------------------------------------------------------------------------------------------
// Create

export async function createRule(db: Db, access: Access, input: CreateRuleInput): Promise<RuleRecord> {
  checkPatterns(input, 'create');
  const orgId = input.organizationId;
  await access.authorize(orgId, 'consolidation:manage', RESOURCE);
  const { row, currency } = await inTransaction(db, async (tx) => {
    const group = await requireGroup(tx, orgId, input.consolidationGroupId, true);
    const draft = await semanticChecks(tx, group, draftFromCreate(input), 'create', '', '');
    const [row] = await tx
      .insert(eliminationRules)
      .values({ id: uuidv7(), organizationId: orgId, groupId: group.id, ...canonical(draft) })
      .returning();
    await auditWrite(tx, access, 'EliminationRule', row!, 'Create');
    return { row: row!, currency: group.reportingCurrency };
  });
  return ruleRecord(row, currency);
}

/**
 * Step 5 rules of a bulk body: one organization for every element (400 at `/rules/<i>/organizationId`),
 * then the selector patterns of each element in array order.
 */
export function checkBulkRules(rules: Array<Pick<CreateRuleInput, 'organizationId'> & PatternFields>): void {
  const orgId = rules[0]?.organizationId;
  const issues: Issue[] = [];
  rules.forEach((r, i) => {
    if (r.organizationId !== orgId) {
      issues.push({
        path: `/rules/${i}/organizationId`,
        message: 'Every rule of a bulk request must have the same organizationId',
      });
    }
  });
  if (issues.length > 0) throw new ValidationError(issues);
  const sizes = rules.flatMap((r, i) => triggerSizeIssue(r, `rules/${i}/`) ?? []);
  if (sizes.length > 0) throw new ValidationError(sizes);
  for (const [i, r] of rules.entries()) {
    const failure = patternFailure(r, 'bulkCreate', `rules/${i}/`);
    if (failure) throw failure;
  }
}

/**
 * The bound on a rule's trigger conditions taken together (rule-bounds.ts): at most
 * `MAX_TRIGGER_SELECTORS` selectors over all of them, as `400 ValidationError` at the field.
 */
function triggerSizeIssue(input: PatternFields, pathPrefix = ''): Issue | null {
  let total = 0;
  for (const c of input.triggerConditions ?? []) total += c.sourceAccounts.length;
  if (total <= MAX_TRIGGER_SELECTORS) return null;
  return {
    path: `/${pathPrefix}triggerConditions`,
    message: `The trigger conditions of a rule may have at most ${MAX_TRIGGER_SELECTORS} selectors in all (${total} given)`,
  };
}

/** Step 5 rule of create and update: the size of the trigger conditions, then selector patterns. */
export function checkPatterns(input: PatternFields, operation: RuleOperation): void {
  const size = triggerSizeIssue(input);
  if (size) throw new ValidationError([size]);
  const failure = patternFailure(input, operation);
  if (failure) throw failure;
}

export async function bulkCreateRules(
  db: Db,
  access: Access,
  rules: CreateRuleInput[],
): Promise<{ created: RuleRecord[]; count: number }> {
  checkBulkRules(rules);
  const orgId = rules[0]!.organizationId;
  await access.authorize(orgId, 'consolidation:manage', RESOURCE);
  const { rows, currencies } = await inTransaction(db, async (tx) => {
    const groupIds = [...new Set(rules.map((r) => r.consolidationGroupId))].sort();
    const locked = await lockRowsById(tx, consolidationGroups, orgId, groupIds, 'update');
    const groups = new Map(locked.map((g) => [g.id, g]));
    const companiesOf = new Map<string, Set<string>>();
    const drafts: RuleDraft[] = [];
    for (const [i, r] of rules.entries()) {
      const group = groups.get(r.consolidationGroupId);
      if (!group) throw groupNotFound(r.consolidationGroupId);
      let allowed = companiesOf.get(group.id);
      if (!allowed) {
        allowed = await memberCompanyIds(tx, group);
        companiesOf.set(group.id, allowed);
      }
      const draft = await semanticChecks(
        tx,
        group,
        draftFromCreate(r),
        'bulkCreate',
        `rules/${i}/`,
        `/rules/${i}`,
        allowed,
      );
      drafts.push(canonical(draft));
    }
    const values = drafts.map((d, i) => ({
      id: uuidv7(),
      organizationId: orgId,
      groupId: rules[i]!.consolidationGroupId,
      ...d,
    }));
    const inserted = await tx.insert(eliminationRules).values(values).returning();
    const byId = new Map(inserted.map((r) => [r.id, r]));
    const ordered = values.map((v) => byId.get(v.id)!);
    await recordAudit(
      tx,
      ordered.map((r) => auditEntry(access, 'EliminationRule', r, 'Create')),
    );
    return {
      rows: ordered,
      currencies: new Map([...groups.values()].map((g) => [g.id, g.reportingCurrency])),
    };
  });
  const created = rows.map((r) => ruleRecord(r, currencies.get(r.groupId)!));
  return { created, count: created.length };
}

// ---------------------------------------------------------------------------------------------------
// Read

export async function getRule(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
): Promise<RuleRecord> {
  const row = await authorizeRule(db, access, id, organizationId, 'consolidation:read');
  return ruleRecord(row, row.currency);
}

/** Organizations a rule list covers, and the group filter resolved within them (404 otherwise). */
async function listScope(
  db: Db,
  access: Access,
  organizationId: string | undefined,
  groupId: string | undefined,
): Promise<string[]> {
  const orgIds = await listedOrganizations(access, organizationId, 'consolidation:read', RESOURCE);
  if (groupId !== undefined) {
    const found =
      orgIds.length === 0
        ? []
        : await db
            .select({ id: consolidationGroups.id })
            .from(consolidationGroups)
            .where(
              and(inArray(consolidationGroups.organizationId, orgIds), eq(consolidationGroups.id, groupId)),
            );
    if (found.length === 0) throw groupNotFound(groupId);
  }
  return orgIds;
}

export async function listRules(db: Db, access: Access, q: RuleListQuery, page: PageParams) {
  const orgIds = await listScope(db, access, q.organizationId, q.consolidationGroupId);
  if (orgIds.length === 0) return paged('rules', [] as RuleRecord[], 0, page);
  const conds: SQL[] = [inArray(eliminationRules.organizationId, orgIds)];
  if (q.consolidationGroupId !== undefined) conds.push(eq(eliminationRules.groupId, q.consolidationGroupId));
  if (q.eliminationType !== undefined) conds.push(eq(eliminationRules.eliminationType, q.eliminationType));
  if (q.isActive !== undefined) conds.push(eq(eliminationRules.isActive, q.isActive));
  if (q.isAutomatic !== undefined) conds.push(eq(eliminationRules.isAutomatic, q.isAutomatic));
  if (q.highPriorityOnly === true) conds.push(lt(eliminationRules.priority, 10));
  const { items, total } = await listRuleRecords(db, and(...conds), page);
  return paged('rules', items, total, page);
}

export async function listRulesByType(
  db: Db,
  access: Access,
  q: { consolidationGroupId: string; eliminationType: EliminationType },
  page: PageParams,
) {
  return listRules(db, access, q, page);
}

// ---------------------------------------------------------------------------------------------------
// Update, delete and actions

export async function updateRule(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  input: UpdateRuleInput,
): Promise<RuleRecord> {
  checkPatterns(input, 'update');
  const current = await authorizeRule(db, access, id, organizationId, 'consolidation:manage');
  checkUnchanged(
    {
      organizationId: { sent: input.organizationId, stored: current.organizationId },
      consolidationGroupId: { sent: input.consolidationGroupId, stored: current.groupId },
    },
    (field) => `${field} cannot be changed`,
  );
  const { row, currency } = await inTransaction(db, async (tx) => {
    const { group, rule } = await lockRule(tx, current);
    const before = draftOf(rule);
    const draft: RuleDraft = {
      name: input.name ?? before.name,
      description: input.description === undefined ? before.description : input.description,
      eliminationType: input.eliminationType ?? before.eliminationType,
      triggerConditions:
        input.triggerConditions === undefined
          ? before.triggerConditions
          : toTriggers(input.triggerConditions),
      sourceAccounts:
        input.sourceAccounts === undefined ? before.sourceAccounts : toSelectors(input.sourceAccounts),
      targetAccounts:
        input.targetAccounts === undefined ? before.targetAccounts : toSelectors(input.targetAccounts),
      // An id given anew is resolved again (it may name either kind); otherwise the side stays.
      ...(input.debitAccountId === undefined
        ? { debitAccountId: before.debitAccountId, debitGroupAccountId: before.debitGroupAccountId }
        : { debitAccountId: input.debitAccountId, debitGroupAccountId: null }),
      ...(input.creditAccountId === undefined
        ? { creditAccountId: before.creditAccountId, creditGroupAccountId: before.creditGroupAccountId }
        : { creditAccountId: input.creditAccountId, creditGroupAccountId: null }),
      isAutomatic: input.isAutomatic ?? before.isAutomatic,
      priority: input.priority ?? before.priority,
      isActive: input.isActive === undefined ? before.isActive : (input.isActive ?? true),
    };
    const next = canonical(await semanticChecks(tx, group, draft, 'update', '', ''));
    const changes = diffChanges(
      before as unknown as Record<string, unknown>,
      next as unknown as Record<string, unknown>,
    );
    if (Object.keys(changes).length === 0) return { row: rule as RuleRow, currency: group.reportingCurrency };
    const updated = await updateRow(tx, eliminationRules, sameRow(eliminationRules, rule), {
      ...next,
      updatedAt: new Date(),
    });
    await auditWrite(tx, access, 'EliminationRule', rule, 'Update', changes);
    return { row: updated, currency: group.reportingCurrency };
  });
  return ruleRecord(row, currency);
}

export async function deleteRule(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
): Promise<void> {
  const current = await authorizeRule(db, access, id, organizationId, 'consolidation:manage');
  await inTransaction(db, async (tx) => {
    const { rule } = await lockRule(tx, current);
    const [usage] = await queryRows<{ n: number }>(
      tx,
      sql`select count(distinct a.run_id)::int as n
          from run_rule_applications a
          join consolidation_runs r on r.organization_id = a.organization_id and r.id = a.run_id
          where a.organization_id = ${rule.organizationId} and a.rule_id = ${rule.id}
            and r.status = 'Completed'`,
    );
    const completedRunCount = Number(usage?.n ?? 0);
    if (completedRunCount > 0) throw ruleInUse(rule.id, completedRunCount);
    await tx.delete(eliminationRules).where(sameRow(eliminationRules, rule));
    await auditWrite(tx, access, 'EliminationRule', rule, 'Delete');
  });
}

async function setRuleField(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  field: 'isActive' | 'priority',
  value: boolean | number,
  action: 'Activate' | 'Deactivate' | 'SetPriority',
): Promise<RuleRecord> {
  const current = await authorizeRule(db, access, id, organizationId, 'consolidation:manage');
  const row = await inTransaction(db, async (tx) => {
    const rule = await relockRule(tx, current);
    if (rule[field] === value) return rule;
    const updated = await updateRow(tx, eliminationRules, sameRow(eliminationRules, rule), {
      [field]: value,
      updatedAt: new Date(),
    });
    await auditWrite(tx, access, 'EliminationRule', rule, action, {
      [field]: { from: rule[field], to: value },
    });
    return { ...updated, currency: rule.currency };
  });
  return ruleRecord(row, row.currency);
}

export function setRuleActive(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  active: boolean,
): Promise<RuleRecord> {
  return setRuleField(db, access, id, organizationId, 'isActive', active, active ? 'Activate' : 'Deactivate');
}

export function setRulePriority(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  priority: number,
): Promise<RuleRecord> {
  return setRuleField(db, access, id, organizationId, 'priority', priority, 'SetPriority');
}
