/**
 * The one authorization path. Every route that touches organization
 * data asks an `Access` object, created per request for the authenticated caller:
 *
 *   step 7  `enterOrganization(orgId, action)`   the named organization exists (404) and the caller is a
 *                                                member (403 ForbiddenError with currentRole null)
 *   step 8  the service loads the addressed resource (404 with its NotFound tag)
 *   step 9  `requireRole(orgId, action)`          the caller's role reaches the action's minimum role
 *
 * `authorize(orgId, action)` does 7 and 9 at once, for requests that address no resource by path.
 * `authorizeResource(orgId, action)` does 8's membership part and 9 for a resource addressed by id
 * without an organization in the request (the resource's own organization is used).
 */
import { sql } from 'drizzle-orm';
import { type Queryable, queryRows } from '../db/client.ts';
import { DomainError } from '../domain/errors.ts';
import { errors } from '../domain/error-catalogue.ts';

export type Role = 'viewer' | 'member' | 'admin' | 'owner';
export const ROLE_RANK: Record<Role, number> = { viewer: 1, member: 2, admin: 3, owner: 4 };

/** Permission matrix: action → resource named in ForbiddenError and minimum role. */
export const PERMISSIONS = {
  'organization:read': { resource: 'Organization', minRole: 'viewer' },
  'organization:update': { resource: 'Organization', minRole: 'admin' },
  'organization:manage_controls': { resource: 'Organization', minRole: 'owner' },
  'organization:delete': { resource: 'Organization', minRole: 'owner' },
  'member:read': { resource: 'Membership', minRole: 'viewer' },
  'member:manage': { resource: 'Membership', minRole: 'admin' },
  'member:manage_owners': { resource: 'Membership', minRole: 'owner' },
  'member:leave': { resource: 'Membership', minRole: 'viewer' },
  'audit_log:read': { resource: 'AuditEntry', minRole: 'admin' },
  'company:read': { resource: 'Company', minRole: 'viewer' },
  'company:manage': { resource: 'Company', minRole: 'admin' },
  'account:read': { resource: 'Account', minRole: 'viewer' },
  'account:manage': { resource: 'Account', minRole: 'admin' },
  'fiscal_period:read': { resource: 'FiscalPeriod', minRole: 'viewer' },
  'fiscal_period:manage': { resource: 'FiscalPeriod', minRole: 'admin' },
  'journal_entry:read': { resource: 'JournalEntry', minRole: 'viewer' },
  'journal_entry:edit': { resource: 'JournalEntry', minRole: 'member' },
  'journal_entry:approve': { resource: 'JournalEntry', minRole: 'admin' },
  'journal_entry:post': { resource: 'JournalEntry', minRole: 'admin' },
  'journal_entry:reverse': { resource: 'JournalEntry', minRole: 'admin' },
  'exchange_rate:read': { resource: 'ExchangeRate', minRole: 'viewer' },
  'exchange_rate:manage': { resource: 'ExchangeRate', minRole: 'member' },
  'intercompany:read': { resource: 'IntercompanyTransaction', minRole: 'viewer' },
  'intercompany:manage': { resource: 'IntercompanyTransaction', minRole: 'member' },
  'consolidation:read': { resource: 'ConsolidationGroup', minRole: 'viewer' },
  'consolidation:manage': { resource: 'ConsolidationGroup', minRole: 'admin' },
  'consolidation:run': { resource: 'ConsolidationRun', minRole: 'admin' },
  'report:read': { resource: 'Report', minRole: 'viewer' },
  'fx_revaluation:read': { resource: 'FxRevaluation', minRole: 'viewer' },
  'fx_revaluation:run': { resource: 'FxRevaluation', minRole: 'admin' },
  'event:read': { resource: 'Event', minRole: 'viewer' },
  'webhook:manage': { resource: 'WebhookEndpoint', minRole: 'admin' },
} as const satisfies Record<string, { resource: string; minRole: Role }>;

export type Action = keyof typeof PERMISSIONS;

/**
 * Who may call a route, declared in the route's own `config.access`: the action whose minimum role the
 * caller needs in the organization the request addresses, or `signedIn` for a route any authenticated
 * user may call without naming an organization. (Public routes declare `public: true` instead.) The
 * OpenAPI document publishes it as `x-access` and the role matrix checks the service against it.
 */
export type RouteAccess = Action | 'signedIn';

/** The minimum role a route's access declaration asks for (null: none, any signed-in user). */
export function requiredRoleOf(access: RouteAccess): Role | null {
  return access === 'signedIn' ? null : PERMISSIONS[access].minRole;
}

export function roleAtLeast(role: Role | null | undefined, min: Role): boolean {
  return role != null && ROLE_RANK[role] >= ROLE_RANK[min];
}

/** `ForbiddenError`. `resource` defaults to the action's resource. */
export function forbidden(action: Action, currentRole: Role | null, resource?: string): DomainError {
  const p = PERMISSIONS[action];
  const requiredRole = p.minRole;
  return errors.ForbiddenError(
    currentRole === null
      ? 'You are not a member of this organization'
      : `This operation requires the ${requiredRole} role`,
    { resource: resource ?? p.resource, action, requiredRole, currentRole },
  );
}

export function organizationNotFound(organizationId: string): DomainError {
  return errors.OrganizationNotFoundError('Organization not found', { organizationId });
}

interface OrgLookup {
  exists: boolean;
  role: Role | null;
  /** The organization's stored settings when known (the caller is a member); undefined: not read. */
  settings?: unknown;
}

export class Access {
  private readonly cache = new Map<string, OrgLookup>();

  constructor(
    private readonly db: Queryable,
    readonly userId: string,
  ) {}

  /**
   * Records what authentication already read of an organization (auth.ts `authenticate`), so that the
   * checks of this request need no query of their own.
   */
  prime(organizationId: string, found: { exists: boolean; role: string | null; settings: unknown }): void {
    this.cache.set(organizationId.toLowerCase(), {
      exists: found.exists,
      role: (found.role as Role | null) ?? null,
      ...(found.role !== null ? { settings: found.settings } : {}),
    });
  }

  /**
   * The stored settings of an organization the caller belongs to, when this request already read them
   * (undefined otherwise: the caller reads them itself).
   */
  knownSettings(organizationId: string): unknown {
    return this.cache.get(organizationId.toLowerCase())?.settings;
  }

  /** Existence of the organization and the caller's role in it, one query, cached per request. */
  async lookup(organizationId: string): Promise<OrgLookup> {
    const key = organizationId.toLowerCase();
    const cached = this.cache.get(key);
    if (cached) return cached;
    const rows = await queryRows<{ role: Role | null }>(
      this.db,
      sql`
      select m.role from organizations o
      left join memberships m on m.organization_id = o.id and m.user_id = ${this.userId}
      where o.id = ${key}`,
    );
    const row = rows[0];
    const found: OrgLookup = row ? { exists: true, role: row.role ?? null } : { exists: false, role: null };
    this.cache.set(key, found);
    return found;
  }

  /** The caller's role, or null when not a member (no error). */
  async roleIn(organizationId: string): Promise<Role | null> {
    return (await this.lookup(organizationId)).role;
  }

  /** Step 7: the organization named by the request exists and the caller is a member. */
  async enterOrganization(organizationId: string, action: Action, resource?: string): Promise<Role> {
    const found = await this.lookup(organizationId);
    if (!found.exists) throw organizationNotFound(organizationId.toLowerCase());
    if (found.role === null) throw forbidden(action, null, resource);
    return found.role;
  }

  /**
   * Steps 7 and 9: the organization exists, the caller is a member, and the caller's role reaches the
   * action's minimum role. The one role check of every route.
   */
  async authorize(organizationId: string, action: Action, resource?: string): Promise<Role> {
    const role = await this.enterOrganization(organizationId, action, resource);
    if (!roleAtLeast(role, PERMISSIONS[action].minRole)) throw forbidden(action, role, resource);
    return role;
  }

  /**
   * A resource addressed by id, the request naming its organization or not — the one path of every
   * by-id route:
   *
   * - with `organizationId`: the organization exists and the caller is a member (404/403), the
   *   resource must belong to it (else the resource's own 404: another organization's resource is
   *   never shown), then the role;
   * - without: the resource must exist (its 404), then the caller must be a member of the resource's
   *   organization (403 with `currentRole: null`) and have the role.
   *
   * `load` receives the organization to look in (undefined: any) and answers the row or nothing.
   */
  async addressed<Row extends { organizationId: string }>(
    organizationId: string | undefined,
    action: Action,
    load: (organizationId: string | undefined) => Promise<Row | null | undefined>,
    notFound: () => DomainError,
    resource?: string,
  ): Promise<Row> {
    if (organizationId !== undefined) await this.enterOrganization(organizationId, action, resource);
    const row = await load(organizationId);
    if (!row || (organizationId !== undefined && row.organizationId !== organizationId.toLowerCase()))
      throw notFound();
    await this.authorize(row.organizationId, action, resource);
    return row;
  }

  /** Organizations the caller belongs to (for lists without `organizationId`). */
  async memberOrganizationIds(): Promise<string[]> {
    const rows = await queryRows<{ organization_id: string }>(
      this.db,
      sql`select organization_id from memberships where user_id = ${this.userId}`,
    );
    return rows.map((r) => r.organization_id);
  }
}
