/** Consolidation groups and their members. */
import { and, asc, eq, inArray, ne } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type Db, inTransaction, pgConstraint, pgErrorCode, type Tx } from '../../db/client.ts';
import { anyRow, inOrg, sameRow, updateRow } from '../../db/rows.ts';
import {
  companies,
  consolidationGroups,
  consolidationMembers,
  consolidationRuns,
  eliminationRules,
} from '../../db/schema/index.ts';
import { minorUnits } from '../../domain/codes.ts';
import { isUnfinished, UNFINISHED_RUN_STATUSES } from '../../domain/consolidation/run-lifecycle.ts';
import { checkUnchanged, DomainError, type Issue, invalid, ValidationError } from '../../domain/errors.ts';
import { dec, formatPercentage } from '../../domain/money.ts';
import type { Access } from '../../access/access.ts';
import { type PageParams, paged } from '../../http/pagination.ts';
import { auditWrite, type Changes, diffChanges } from '../audit/service.ts';
import { companyNotFound, requireCompany } from '../companies/lookup.ts';
import { listedOrganizations, pagedRows } from '../shared/lists.ts';
import {
  type ConsolidationMethod,
  collateC,
  findGroup,
  type GroupRecord,
  type GroupRow,
  groupNameKey,
  groupNotFound,
  groupRecord,
  groupRecords,
  lockGroup,
} from './groups.repo.ts';
import { statusOf } from './runs.repo.ts';
import { acquisitionData, checkStructure, holderOf, type MemberInput, type MemberState } from './holdings.ts';
import { errors } from '../../domain/error-catalogue.ts';

/** `ownershipPercentage` input: 0–100 with at most two decimals, judged by its literal text. */
export const PERCENTAGE_INPUT_PATTERN = '^(100(\\.00?)?|[1-9]?[0-9](\\.[0-9]{1,2})?)$';
const PERCENTAGE_RE = new RegExp(PERCENTAGE_INPUT_PATTERN);

export interface CreateGroupInput {
  organizationId: string;
  name: string;
  reportingCurrency: string;
  consolidationMethod: ConsolidationMethod;
  parentCompanyId: string;
  members: MemberInput[];
}

export interface UpdateGroupInput {
  name?: string;
  reportingCurrency?: string;
  consolidationMethod?: ConsolidationMethod;
  parentCompanyId?: string;
  organizationId?: string;
}

export interface GroupListQuery {
  organizationId?: string | undefined;
  isActive?: boolean | undefined;
}

function nameTaken(name: string, organizationId: string): DomainError {
  return errors.ConsolidationGroupNameAlreadyExistsError(
    'A consolidation group with this name exists in the organization',
    { name, organizationId },
  );
}

/**
 * The canonical two-decimal text of an ownership percentage. The body parser keeps JSON numbers of
 * `ownershipPercentage` as their literal text, so both forms arrive as strings matching the schema
 * pattern; the check is repeated here for any other caller.
 */
export function parseOwnership(value: string | number, path: string): string {
  const text = typeof value === 'number' ? String(value) : value;
  if (!PERCENTAGE_RE.test(text)) {
    throw invalid(path, 'Must be a percentage between 0 and 100 with at most 2 decimals');
  }
  return formatPercentage(text);
}

/** Loads the group addressed by id and checks access (steps 7–9). */
export function authorizeGroup(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  action: 'consolidation:read' | 'consolidation:manage',
): Promise<GroupRow> {
  return access.addressed(
    organizationId,
    action,
    (orgId) => findGroup(db, id, orgId),
    () => groupNotFound(id),
  );
}

/**
 * A write to the group addressed by id: the caller's right to manage it is checked, then `write` runs
 * in a transaction on the group re-read and locked (it may have gone since the check).
 */
export async function writeGroup<T>(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  write: (tx: Tx, group: GroupRow) => Promise<T>,
): Promise<T> {
  const current = await authorizeGroup(db, access, id, organizationId, 'consolidation:manage');
  return inTransaction(db, async (tx) => write(tx, await lockGroup(tx, current)));
}

function mapUnique(err: unknown, name: string, organizationId: string): never {
  if (pgErrorCode(err) === '23505' && pgConstraint(err) === 'consolidation_groups_name_uq') {
    throw nameTaken(name, organizationId);
  }
  throw err;
}

async function nameInUse(db: Db | Tx, organizationId: string, name: string, exceptId?: string) {
  const conds = [
    eq(consolidationGroups.organizationId, organizationId),
    eq(consolidationGroups.nameKey, groupNameKey(name)),
  ];
  if (exceptId) conds.push(ne(consolidationGroups.id, exceptId));
  return anyRow(db, consolidationGroups, and(...conds));
}

// ---------------------------------------------------------------------------------------------------
// Groups

/**
 * Step 5 (syntax) rules of the create body: no member twice, none equal to the parent (400 at
 * `/members/<i>/companyId`), ownership text. Returns the canonical ownership percentages.
 */
export function checkCreateGroup(input: Pick<CreateGroupInput, 'parentCompanyId' | 'members'>): string[] {
  const issues: Issue[] = [];
  const seen = new Set<string>();
  const ownerships: string[] = [];
  input.members.forEach((m, i) => {
    if (m.companyId === input.parentCompanyId) {
      issues.push({ path: `/members/${i}/companyId`, message: 'The parent company cannot be a member' });
    } else if (seen.has(m.companyId)) {
      issues.push({ path: `/members/${i}/companyId`, message: 'The company is listed more than once' });
    }
    seen.add(m.companyId);
    try {
      ownerships.push(parseOwnership(m.ownershipPercentage, `/members/${i}/ownershipPercentage`));
    } catch (err) {
      if (err instanceof ValidationError) issues.push(...err.issues);
      else throw err;
    }
  });
  if (issues.length > 0) throw new ValidationError(issues);
  return ownerships;
}

export async function createGroup(db: Db, access: Access, input: CreateGroupInput): Promise<GroupRecord> {
  const ownerships = checkCreateGroup(input);
  const orgId = input.organizationId;
  await access.authorize(orgId, 'consolidation:manage');
  await requireCompany(db, orgId, input.parentCompanyId);
  if (input.members.length > 0) {
    const found = await db
      .select({ id: companies.id })
      .from(companies)
      .where(
        and(
          eq(companies.organizationId, orgId),
          inArray(
            companies.id,
            input.members.map((m) => m.companyId),
          ),
        ),
      );
    const ids = new Set(found.map((r) => r.id));
    const missing = input.members.find((m) => !ids.has(m.companyId));
    if (missing) throw companyNotFound(missing.companyId);
  }
  if (await nameInUse(db, orgId, input.name)) throw nameTaken(input.name, orgId);
  const indexOf = new Map(input.members.map((m, i) => [m.companyId, i]));
  const states = await checkStructure(
    db,
    orgId,
    input.parentCompanyId,
    input.members.map((m, i): MemberState => ({
      companyId: m.companyId,
      heldByCompanyId: holderOf(input, m.heldByCompanyId),
      ownershipPercentage: ownerships[i]!,
      consolidationMethod: m.consolidationMethod,
      acquisitionDate: m.acquisitionDate ?? null,
      acquisition: acquisitionData(m.acquisition),
    })),
    new Map(input.members.map((m, i) => [m.companyId, `/members/${i}`])),
    (issue) => `/members/${indexOf.get(issue.companyId)}/heldByCompanyId`,
  );

  try {
    const row = await inTransaction(db, async (tx) => {
      const id = uuidv7();
      const [group] = await tx
        .insert(consolidationGroups)
        .values({
          id,
          organizationId: orgId,
          name: input.name,
          nameKey: groupNameKey(input.name),
          reportingCurrency: input.reportingCurrency,
          consolidationMethod: input.consolidationMethod,
          parentCompanyId: input.parentCompanyId,
        })
        .returning();
      if (input.members.length > 0) {
        await tx
          .insert(consolidationMembers)
          .values(states.map((m) => ({ organizationId: orgId, groupId: id, ...m })));
      }
      await auditWrite(tx, access, 'ConsolidationGroup', { organizationId: orgId, id }, 'Create');
      return group!;
    });
    return await groupRecord(db, row);
  } catch (err) {
    mapUnique(err, input.name, orgId);
  }
}

export async function getGroup(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
): Promise<GroupRecord> {
  const row = await authorizeGroup(db, access, id, organizationId, 'consolidation:read');
  return groupRecord(db, row);
}

export async function listGroups(db: Db, access: Access, q: GroupListQuery, page: PageParams) {
  const orgIds = await listedOrganizations(access, q.organizationId, 'consolidation:read');
  if (orgIds.length === 0) return paged('groups', [] as GroupRecord[], 0, page);
  const conds = [inArray(consolidationGroups.organizationId, orgIds)];
  if (q.isActive !== undefined) conds.push(eq(consolidationGroups.isActive, q.isActive));
  const order = [collateC(consolidationGroups.nameKey), asc(consolidationGroups.id)];
  return pagedRows(db, consolidationGroups, and(...conds), order, page, 'groups', (rows) =>
    groupRecords(db, rows),
  );
}

function groupFields(row: GroupRow) {
  return {
    name: row.name,
    reportingCurrency: row.reportingCurrency,
    consolidationMethod: row.consolidationMethod,
  };
}

/** Fraction digits of a decimal value (trailing zeros do not count). */
function valueDigits(text: string): number {
  return dec(text).decimalPlaces();
}

export async function updateGroup(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  input: UpdateGroupInput,
): Promise<GroupRecord> {
  const current = await authorizeGroup(db, access, id, organizationId, 'consolidation:manage');
  checkUnchanged(
    {
      organizationId: { sent: input.organizationId, stored: current.organizationId },
      parentCompanyId: { sent: input.parentCompanyId, stored: current.parentCompanyId },
    },
    (field) => `${field} cannot be changed`,
  );
  const orgId = current.organizationId;
  const name = input.name ?? current.name;
  try {
    const row = await inTransaction(db, async (tx) => {
      const before = await lockGroup(tx, current);
      const next = {
        name: input.name ?? before.name,
        reportingCurrency: input.reportingCurrency ?? before.reportingCurrency,
        consolidationMethod: input.consolidationMethod ?? before.consolidationMethod,
      };
      const changes: Changes = diffChanges(groupFields(before), next);
      if (Object.keys(changes).length === 0) return before;
      if (groupNameKey(next.name) !== before.nameKey && (await nameInUse(tx, orgId, next.name, before.id))) {
        throw nameTaken(next.name, orgId);
      }
      if (next.reportingCurrency !== before.reportingCurrency) {
        const digits = minorUnits(next.reportingCurrency);
        const rules = await tx
          .select({ triggerConditions: eliminationRules.triggerConditions })
          .from(eliminationRules)
          .where(inOrg(eliminationRules, orgId, { groupId: before.id }));
        const tooPrecise = rules.some((r) =>
          ((r.triggerConditions ?? []) as Array<{ minimumAmount?: string | null }>).some(
            (c) => c.minimumAmount != null && valueDigits(c.minimumAmount) > digits,
          ),
        );
        if (tooPrecise) {
          throw invalid(
            '/reportingCurrency',
            `An elimination rule of the group has a minimumAmount with more than ${digits} decimal places`,
          );
        }
      }
      const updated = await updateRow(tx, consolidationGroups, sameRow(consolidationGroups, before), {
        ...next,
        nameKey: groupNameKey(next.name),
        updatedAt: new Date(),
      });
      await auditWrite(tx, access, 'ConsolidationGroup', before, 'Update', changes);
      return updated;
    });
    return await groupRecord(db, row);
  } catch (err) {
    mapUnique(err, name, orgId);
  }
}

export async function deleteGroup(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
): Promise<void> {
  await writeGroup(db, access, id, organizationId, async (tx, group) => {
    const orgId = group.organizationId;
    const runs = await tx
      .select({ id: consolidationRuns.id, status: consolidationRuns.status })
      .from(consolidationRuns)
      .where(
        and(
          inOrg(consolidationRuns, orgId, { groupId: group.id }),
          inArray(consolidationRuns.status, ['Completed', ...UNFINISHED_RUN_STATUSES]),
        ),
      )
      .orderBy(asc(consolidationRuns.initiatedAt), asc(consolidationRuns.id));
    const completedRunCount = runs.filter((r) => r.status === 'Completed').length;
    if (completedRunCount > 0) {
      throw errors.ConsolidationGroupHasCompletedRunsError('The group has completed consolidation runs', {
        groupId: group.id,
        completedRunCount,
      });
    }
    const running = runs.find((r) => isUnfinished(statusOf(r)));
    if (running) {
      throw errors.ConsolidationRunInProgressError(
        'A consolidation run of the group is pending or in progress',
        { groupId: group.id, existingRunId: running.id },
      );
    }
    // Members, rules and the remaining (Failed/Cancelled) runs go with the group (ON DELETE CASCADE).
    await tx.delete(consolidationGroups).where(sameRow(consolidationGroups, group));
    await auditWrite(tx, access, 'ConsolidationGroup', group, 'Delete');
  });
}

export async function setGroupActive(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  active: boolean,
): Promise<GroupRecord> {
  const row = await writeGroup(db, access, id, organizationId, async (tx, group) => {
    if (group.isActive === active) return group;
    const updated = await updateRow(tx, consolidationGroups, sameRow(consolidationGroups, group), {
      isActive: active,
      updatedAt: new Date(),
    });
    await auditWrite(tx, access, 'ConsolidationGroup', group, active ? 'Activate' : 'Deactivate', {
      isActive: { from: !active, to: active },
    });
    return updated;
  });
  return groupRecord(db, row);
}
