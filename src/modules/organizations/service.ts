/** Organizations, members and the audit-log read. */
import { and, asc, eq, gte, lt, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import {
  type Db,
  inTransaction,
  pgErrorCode,
  type Queryable,
  queryRows,
  run,
  statement,
} from '../../db/client.ts';
import { countRows, firstRow, inOrg, type RowLock } from '../../db/rows.ts';
import { auditLog, companies, memberships, organizations, users } from '../../db/schema/index.ts';
import { addDays } from '../../domain/dates.ts';
import { DomainError, type Issue, ValidationError } from '../../domain/errors.ts';
import type { FiscalYearEnd } from '../../domain/fiscal-calendar.ts';
import { type Access, organizationNotFound, type Role } from '../../access/access.ts';
import { type KeyColumn, type PageParams, paged } from '../../http/pagination.ts';
import { keysetRows } from '../shared/lists.ts';
import { auditEntry, auditWrite, diffChanges, recordAudit } from '../audit/service.ts';
import { errors } from '../../domain/error-catalogue.ts';

export interface OrganizationSettings {
  fiscalYearEnd: FiscalYearEnd;
  requireApproval: boolean;
  enforceSegregationOfDuties: boolean;
  defaultLocale: string;
  defaultTimezone: string;
}

export const DEFAULT_SETTINGS: OrganizationSettings = {
  fiscalYearEnd: { month: 12, day: 31 },
  requireApproval: true,
  enforceSegregationOfDuties: false,
  defaultLocale: 'en-US',
  defaultTimezone: 'UTC',
};

export interface OrganizationRecord {
  id: string;
  name: string;
  reportingCurrency: string;
  settings: OrganizationSettings;
  createdAt: string;
  updatedAt: string;
}

type OrgRow = typeof organizations.$inferSelect;

export function organizationRecord(row: Omit<OrgRow, 'nameKey'>): OrganizationRecord {
  return {
    id: row.id,
    name: row.name,
    reportingCurrency: row.reportingCurrency,
    settings: { ...DEFAULT_SETTINGS, ...(row.settings as Partial<OrganizationSettings>) },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * The effective settings of an organization (defaults filled in), for the services of other modules
 * (approval, segregation of duties, "today"). With `access`, settings that the request's
 * authentication already read are used instead of a query.
 */
export async function organizationSettings(
  db: Db,
  organizationId: string,
  access?: Access,
): Promise<OrganizationSettings> {
  const known = access?.knownSettings(organizationId);
  if (known != null) {
    return { ...DEFAULT_SETTINGS, ...(known as Partial<OrganizationSettings>) };
  }
  const [row] = await db
    .select({ settings: organizations.settings })
    .from(organizations)
    .where(eq(organizations.id, organizationId));
  return { ...DEFAULT_SETTINGS, ...((row?.settings ?? {}) as Partial<OrganizationSettings>) };
}

type SettingsInput =
  { [K in keyof OrganizationSettings]?: OrganizationSettings[K] | null } | null | undefined;

function settingsIssues(settings: SettingsInput): Issue[] {
  const issues: Issue[] = [];
  if (!settings) return issues;
  if (settings.defaultLocale != null) {
    try {
      Intl.getCanonicalLocales(settings.defaultLocale);
    } catch {
      issues.push({ path: '/settings/defaultLocale', message: 'Must be a well-formed BCP 47 language tag' });
    }
  }
  if (settings.defaultTimezone != null && !isTimeZone(settings.defaultTimezone)) {
    issues.push({ path: '/settings/defaultTimezone', message: 'Must be an IANA time-zone name' });
  }
  return issues;
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return /^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$|^UTC$/.test(name);
  } catch {
    return false;
  }
}

const nameKey = (name: string) => name.toLowerCase();

function nameTaken(name: string): DomainError {
  return errors.OrganizationNameAlreadyExistsError('An organization with this name exists', {
    name,
  });
}

export async function createOrganization(
  db: Db,
  userId: string,
  input: { name: string; reportingCurrency: string; settings?: SettingsInput },
): Promise<OrganizationRecord> {
  const issues = settingsIssues(input.settings);
  if (issues.length > 0) throw new ValidationError(issues);
  const settings = { ...DEFAULT_SETTINGS, ...stripNulls(input.settings ?? {}) };
  try {
    return await inTransaction(db, async (tx) => {
      const id = uuidv7();
      const [row] = await tx
        .insert(organizations)
        .values({
          id,
          name: input.name,
          nameKey: nameKey(input.name),
          reportingCurrency: input.reportingCurrency,
          settings,
        })
        .returning();
      await tx.insert(memberships).values({ organizationId: id, userId, role: 'owner' });
      await recordAudit(tx, [
        auditEntry({ userId }, 'Organization', { organizationId: id, id }, 'Create'),
        auditEntry({ userId }, 'Membership', { organizationId: id, id: userId }, 'AddMember'),
      ]);
      return organizationRecord(row!);
    });
  } catch (err) {
    if (pgErrorCode(err) === '23505') throw nameTaken(input.name);
    throw err;
  }
}

function stripNulls<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as Partial<T>;
}

const LIST_ORGANIZATIONS = statement(
  'organizations_list',
  `select o.id, o.name, o.reporting_currency, o.settings, o.created_at, o.updated_at,
          count(*) over ()::int as total
   from organizations o
   where o.id in (select organization_id from memberships where user_id = $1)
   order by o.name_key, o.id
   limit $2 offset $3`,
);

const COUNT_ORGANIZATIONS = statement(
  'organizations_count',
  'select count(*)::int as total from memberships where user_id = $1',
);

/** The caller's organizations: one statement for the page and the total (a second only past the end). */
export async function listOrganizations(db: Db, userId: string, page: PageParams) {
  const rows = await run<{
    id: string;
    name: string;
    reporting_currency: string;
    settings: unknown;
    created_at: Date;
    updated_at: Date;
    total: number;
  }>(db, LIST_ORGANIZATIONS, [userId, page.limit, page.offset]);
  const total =
    rows[0]?.total ??
    (page.offset > 0
      ? ((await run<{ total: number }>(db, COUNT_ORGANIZATIONS, [userId]))[0]?.total ?? 0)
      : 0);
  return paged(
    'organizations',
    rows.map((r) =>
      organizationRecord({
        id: r.id,
        name: r.name,
        reportingCurrency: r.reporting_currency,
        settings: r.settings,
        createdAt: r.created_at,
        updatedAt: r.updated_at,
      }),
    ),
    Number(total),
    page,
  );
}

/** The organization, or 404 OrganizationNotFoundError; with `lock`, locked for the rest of the transaction. */
async function requireOrganization(q: Queryable, id: string, lock?: RowLock) {
  const row = await firstRow(q, organizations, eq(organizations.id, id), lock);
  if (!row) throw organizationNotFound(id);
  return row;
}

export async function getOrganization(db: Db, access: Access, id: string): Promise<OrganizationRecord> {
  await access.authorize(id, 'organization:read');
  return organizationRecord(await requireOrganization(db, id));
}

export async function updateOrganization(
  db: Db,
  access: Access,
  id: string,
  input: { name?: string; reportingCurrency?: string; settings?: SettingsInput },
): Promise<OrganizationRecord> {
  await access.enterOrganization(id, 'organization:update');
  const issues = settingsIssues(input.settings);
  if (issues.length > 0) throw new ValidationError(issues);
  try {
    return await inTransaction(db, async (tx) => {
      const before = organizationRecord(await requireOrganization(tx, id, 'update'));
      let settings = before.settings;
      if (input.settings === null) settings = { ...DEFAULT_SETTINGS };
      else if (input.settings) {
        settings = { ...settings };
        for (const [k, v] of Object.entries(input.settings) as [keyof OrganizationSettings, unknown][]) {
          (settings as unknown as Record<string, unknown>)[k] = v === null ? DEFAULT_SETTINGS[k] : v;
        }
      }
      const controlsChanged =
        settings.requireApproval !== before.settings.requireApproval ||
        settings.enforceSegregationOfDuties !== before.settings.enforceSegregationOfDuties;
      await access.authorize(id, controlsChanged ? 'organization:manage_controls' : 'organization:update');
      const after = {
        ...before,
        name: input.name ?? before.name,
        reportingCurrency: input.reportingCurrency ?? before.reportingCurrency,
        settings,
      };
      const changes = diffChanges(
        before as unknown as Record<string, unknown>,
        after as unknown as Record<string, unknown>,
      );
      if (Object.keys(changes).length === 0) return before;
      const [updated] = await tx
        .update(organizations)
        .set({
          name: after.name,
          nameKey: nameKey(after.name),
          reportingCurrency: after.reportingCurrency,
          settings: after.settings,
          updatedAt: new Date(),
        })
        .where(eq(organizations.id, id))
        .returning();
      await auditWrite(tx, access, 'Organization', { organizationId: id, id }, 'Update', changes);
      return organizationRecord(updated!);
    });
  } catch (err) {
    if (pgErrorCode(err) === '23505' && input.name !== undefined) throw nameTaken(input.name);
    throw err;
  }
}

export async function deleteOrganization(db: Db, access: Access, id: string): Promise<void> {
  await access.authorize(id, 'organization:delete');
  await inTransaction(db, async (tx) => {
    await requireOrganization(tx, id, 'update');
    const companyCount = await countRows(tx, companies, inOrg(companies, id));
    if (companyCount > 0) {
      throw errors.OrganizationHasCompaniesError('The organization still has companies', {
        organizationId: id,
        companyCount,
      });
    }
    await tx.delete(organizations).where(eq(organizations.id, id));
  });
}

// ---------------------------------------------------------------------------------------------------
// Members

export interface MembershipRecord {
  organizationId: string;
  userId: string;
  email: string;
  displayName: string;
  role: Role;
  createdAt: string;
  updatedAt: string;
}

const ROLE_ORDER = sql`case ${memberships.role} when 'owner' then 1 when 'admin' then 2 when 'member' then 3 else 4 end`;

async function loadMemberships(db: Db, organizationId: string, where = sql`true`, page?: PageParams) {
  const q = db
    .select({
      organizationId: memberships.organizationId,
      userId: memberships.userId,
      email: users.email,
      displayName: users.displayName,
      role: memberships.role,
      createdAt: memberships.createdAt,
      updatedAt: memberships.updatedAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(inOrg(memberships, organizationId), where))
    .orderBy(ROLE_ORDER, asc(users.email), asc(memberships.userId));
  const rows = page ? await q.limit(page.limit).offset(page.offset) : await q;
  return rows.map((r): MembershipRecord => ({
    ...r,
    role: r.role as Role,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  }));
}

function membershipNotFound(userId: string, organizationId: string): DomainError {
  return errors.MembershipNotFoundError('The user is not a member of the organization', {
    userId,
    organizationId,
  });
}

function lastOwner(organizationId: string): DomainError {
  return errors.OwnerCannotBeRemovedError('The organization must keep at least one owner', {
    organizationId,
  });
}

export async function listMembers(
  db: Db,
  access: Access,
  organizationId: string,
  role: Role | undefined,
  page: PageParams,
) {
  await access.authorize(organizationId, 'member:read');
  const where = role ? eq(memberships.role, role) : sql`true`;
  const [items, total] = await Promise.all([
    loadMemberships(db, organizationId, where, page),
    countRows(db, memberships, and(inOrg(memberships, organizationId), where)),
  ]);
  return paged('members', items, total, page);
}

export async function addMember(
  db: Db,
  access: Access,
  organizationId: string,
  input: { email: string; role: Role },
) {
  await access.authorize(organizationId, input.role === 'owner' ? 'member:manage_owners' : 'member:manage');
  const email = input.email.toLowerCase();
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
  if (!user) throw errors.UserNotFoundByEmailError('No registered user has this e-mail', { email });
  try {
    await inTransaction(db, async (tx) => {
      await tx.insert(memberships).values({ organizationId, userId: user.id, role: input.role });
      await auditWrite(tx, access, 'Membership', { organizationId, id: user.id }, 'AddMember', {
        role: { from: null, to: input.role },
      });
    });
  } catch (err) {
    if (pgErrorCode(err) === '23505') {
      throw errors.UserAlreadyMemberError('The user is already a member', {
        userId: user.id,
        organizationId,
      });
    }
    throw err;
  }
  const [record] = await loadMemberships(db, organizationId, eq(memberships.userId, user.id));
  return record!;
}

async function lockedMembership(tx: Db, organizationId: string, userId: string) {
  // Lock every owner row too, so concurrent demotions cannot both pass the last-owner check.
  const rows = await queryRows<{ user_id: string; role: Role }>(
    tx,
    sql`select user_id, role from memberships where organization_id = ${organizationId}
        and (user_id = ${userId} or role = 'owner') order by user_id for update`,
  );
  const target = rows.find((r) => r.user_id === userId);
  const owners = rows.filter((r) => r.role === 'owner').length;
  return { target, owners };
}

export async function updateMember(
  db: Db,
  access: Access,
  organizationId: string,
  userId: string,
  role: Role,
) {
  await access.enterOrganization(organizationId, 'member:manage');
  await inTransaction(db, async (tx) => {
    const { target, owners } = await lockedMembership(tx as unknown as Db, organizationId, userId);
    if (!target) throw membershipNotFound(userId, organizationId);
    const touchesOwner = target.role === 'owner' || role === 'owner';
    await access.authorize(organizationId, touchesOwner ? 'member:manage_owners' : 'member:manage');
    if (target.role === role) return;
    if (target.role === 'owner' && owners <= 1) throw lastOwner(organizationId);
    await tx
      .update(memberships)
      .set({ role, updatedAt: new Date() })
      .where(inOrg(memberships, organizationId, { userId }));
    await auditWrite(tx, access, 'Membership', { organizationId, id: userId }, 'UpdateMember', {
      role: { from: target.role, to: role },
    });
  });
  const [record] = await loadMemberships(db, organizationId, eq(memberships.userId, userId));
  return record!;
}

export async function removeMember(db: Db, access: Access, organizationId: string, userId: string) {
  const self = userId === access.userId;
  await access.enterOrganization(organizationId, self ? 'member:leave' : 'member:manage');
  await inTransaction(db, async (tx) => {
    const { target, owners } = await lockedMembership(tx as unknown as Db, organizationId, userId);
    if (!target) throw membershipNotFound(userId, organizationId);
    if (!self) {
      await access.authorize(
        organizationId,
        target.role === 'owner' ? 'member:manage_owners' : 'member:manage',
      );
    }
    if (target.role === 'owner' && owners <= 1) throw lastOwner(organizationId);
    await tx.delete(memberships).where(inOrg(memberships, organizationId, { userId }));
    await auditWrite(tx, access, 'Membership', { organizationId, id: userId }, 'RemoveMember', {
      role: { from: target.role, to: null },
    });
  });
}

// ---------------------------------------------------------------------------------------------------
// Audit log

export interface AuditQuery {
  organizationId: string;
  entityType?: string;
  entityId?: string;
  userId?: string;
  action?: string;
  fromDate?: string;
  toDate?: string;
}

/** The audit log's total order, as a keyset for cursor paging. */
const AUDIT_ORDER: KeyColumn[] = [
  { column: auditLog.createdAt, kind: 'timestamp', direction: 'desc' },
  { column: auditLog.id, kind: 'uuid', direction: 'asc' },
];

export async function listAudit(db: Db, access: Access, q: AuditQuery, page: PageParams) {
  if (q.fromDate && q.toDate && q.fromDate > q.toDate) {
    throw new ValidationError([{ path: '/query/fromDate', message: 'fromDate must not be after toDate' }]);
  }
  await access.authorize(q.organizationId, 'audit_log:read');
  const conds = [eq(auditLog.organizationId, q.organizationId)];
  if (q.entityType) conds.push(eq(auditLog.entityType, q.entityType));
  if (q.entityId) conds.push(eq(auditLog.entityId, q.entityId));
  if (q.userId) conds.push(eq(auditLog.userId, q.userId));
  if (q.action) conds.push(eq(auditLog.action, q.action));
  if (q.fromDate) conds.push(gte(auditLog.createdAt, new Date(`${q.fromDate}T00:00:00.000Z`)));
  if (q.toDate) conds.push(lt(auditLog.createdAt, new Date(`${addDays(q.toDate, 1)}T00:00:00.000Z`)));
  const { rows, total, nextCursor } = await keysetRows(
    db,
    auditLog,
    and(...conds),
    AUDIT_ORDER,
    page,
    (r) => [r.createdAt, r.id],
  );
  const answer = paged(
    'entries',
    rows.map((r) => ({
      id: r.id,
      organizationId: r.organizationId,
      userId: r.userId,
      action: r.action,
      entityType: r.entityType,
      entityId: r.entityId,
      changes: (r.changes as Record<string, unknown> | null) ?? null,
      createdAt: r.createdAt.toISOString(),
    })),
    total,
    page,
  );
  return { ...answer, ...(nextCursor === undefined ? {} : { nextCursor }) };
}
