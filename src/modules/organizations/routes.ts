import { type RouteApp, routesPlugin } from '../../http/route-app.ts';
import { CursorPage, CursorQuery, pageParams } from '../../http/pagination.ts';
import { created, inPath, noContent, ORGANIZATION_ID, route } from '../../http/route.ts';
import {
  CurrencyCode,
  FiscalYearEnd,
  IsoDate,
  Nullable,
  Page,
  PageQuery,
  RoleSchema,
  StringEnum,
  Text,
  Timestamp,
  Type,
  Uuid,
} from '../../http/schemas.ts';
import { AUDIT_ACTIONS, AUDIT_ENTITY_TYPES } from '../audit/service.ts';
import * as orgs from './service.ts';

const Settings = Type.Object({
  fiscalYearEnd: FiscalYearEnd,
  requireApproval: Type.Boolean(),
  enforceSegregationOfDuties: Type.Boolean(),
  defaultLocale: Type.String(),
  defaultTimezone: Type.String(),
});
const Organization = Type.Object({
  id: Uuid,
  name: Type.String(),
  reportingCurrency: Type.String(),
  settings: Settings,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
const LocaleText = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9-]+$' });
const ZoneText = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_+/-]+$' });
const CreateSettings = Type.Object({
  fiscalYearEnd: Type.Optional(FiscalYearEnd),
  requireApproval: Type.Optional(Type.Boolean()),
  enforceSegregationOfDuties: Type.Optional(Type.Boolean()),
  defaultLocale: Type.Optional(LocaleText),
  defaultTimezone: Type.Optional(ZoneText),
});
const UpdateSettings = Type.Object({
  fiscalYearEnd: Type.Optional(Nullable(FiscalYearEnd)),
  requireApproval: Type.Optional(Nullable(Type.Boolean())),
  enforceSegregationOfDuties: Type.Optional(Nullable(Type.Boolean())),
  defaultLocale: Type.Optional(Nullable(LocaleText)),
  defaultTimezone: Type.Optional(Nullable(ZoneText)),
});
const Membership = Type.Object({
  organizationId: Uuid,
  userId: Uuid,
  email: Type.String(),
  displayName: Type.String(),
  role: RoleSchema,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
const AuditEntry = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  userId: Uuid,
  action: Type.String(),
  entityType: Type.String(),
  entityId: Type.String(),
  changes: Nullable(Type.Object({}, { additionalProperties: true })),
  createdAt: Timestamp,
});

/** An organization addressed by `:id`, or by `:organizationId` under which its members are. */
const organization = inPath({ id: ORGANIZATION_ID });
const members = inPath({ organizationId: ORGANIZATION_ID });
const tags = ['Organizations'];

export const organizationRoutes = routesPlugin(
  organizationReadRoutes,
  organizationChangeRoutes,
  memberReadRoutes,
  memberChangeRoutes,
  auditLogRoutes,
);

/** Organizations: list, get, create. */
function organizationReadRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: '/api/v1/organizations',
    tags,
    summary: 'List organizations',
    description: 'Organizations of which the caller is a member, ordered by name.',
    access: 'signedIn',
    querystring: Type.Object(PageQuery),
    response: { 200: Page('organizations', Organization) },
    handler: async ({ user, query }) => orgs.listOrganizations(db, user!.id, pageParams(query)),
  });

  route(app, {
    method: 'GET',
    url: '/api/v1/organizations/:id',
    tags,
    summary: 'Get an organization',
    description: 'Viewer role.',
    ...organization,
    access: 'organization:read',
    errors: ['OrganizationNotFoundError', 'ForbiddenError'],
    response: { 200: Organization },
    handler: async ({ access, params }) => orgs.getOrganization(db, access, params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/v1/organizations',
    tags,
    summary: 'Create an organization',
    description: 'Any user; the caller becomes its owner. Names are unique service-wide (case-insensitive).',
    access: 'signedIn',
    errors: ['OrganizationNameAlreadyExistsError'],
    body: Type.Object({
      name: Text(255),
      reportingCurrency: CurrencyCode,
      settings: Type.Optional(Nullable(CreateSettings)),
    }),
    ...created(Organization),
    handler: async ({ user, body }) => orgs.createOrganization(db, user!.id, body),
  });
}

/** Organizations: update, delete. */
function organizationChangeRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'PUT',
    url: '/api/v1/organizations/:id',
    tags,
    summary: 'Update an organization',
    description:
      'Admin; owner to change requireApproval or enforceSegregationOfDuties. Settings merge key by key; null resets.',
    ...organization,
    access: 'organization:update',
    errors: ['OrganizationNotFoundError', 'OrganizationNameAlreadyExistsError'],
    body: Type.Object({
      name: Type.Optional(Text(255)),
      reportingCurrency: Type.Optional(CurrencyCode),
      settings: Type.Optional(Nullable(UpdateSettings)),
    }),
    response: { 200: Organization },
    handler: async ({ access, params, body }) => orgs.updateOrganization(db, access, params.id, body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/v1/organizations/:id',
    tags,
    summary: 'Delete an organization',
    description: 'Owner. Refused (409) while the organization has companies.',
    ...organization,
    access: 'organization:delete',
    errors: ['OrganizationNotFoundError', 'OrganizationHasCompaniesError'],
    ...noContent,
    handler: async ({ access, params }) => orgs.deleteOrganization(db, access, params.id),
  });
}

/** Members of an organization: list, add. */
function memberReadRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: '/api/v1/organizations/:organizationId/members',
    tags: ['Members'],
    summary: 'List members',
    description: 'Viewer. Ordered by role rank (owner first), then e-mail.',
    ...members,
    access: 'member:read',
    errors: ['OrganizationNotFoundError'],
    querystring: Type.Object({ role: Type.Optional(RoleSchema), ...PageQuery }),
    response: { 200: Page('members', Membership) },
    handler: async ({ access, params, query }) =>
      orgs.listMembers(db, access, params.organizationId, query.role, pageParams(query)),
  });

  route(app, {
    method: 'POST',
    url: '/api/v1/organizations/:organizationId/members',
    tags: ['Members'],
    summary: 'Add a member',
    description: 'Admin; owner to add an owner. The user must be registered.',
    ...members,
    access: 'member:manage',
    errors: [
      'OrganizationNotFoundError',
      'ForbiddenError',
      'UserNotFoundByEmailError',
      'UserAlreadyMemberError',
    ],
    body: Type.Object({ email: Text(254), role: RoleSchema }),
    ...created(Membership),
    handler: async ({ access, params, body }) => orgs.addMember(db, access, params.organizationId, body),
  });
}

/** A member addressed by organization and user, changed by an admin (or an owner for an owner). */
const member = {
  ...inPath({
    organizationId: ORGANIZATION_ID,
    userId: {
      tag: 'MembershipNotFoundError',
      field: 'userId',
      message: 'The user is not a member of the organization',
      extra: { organizationId: 'organizationId' },
    },
  }),
  access: 'member:manage',
  errors: [
    'OrganizationNotFoundError',
    'MembershipNotFoundError',
    'ForbiddenError',
    'OwnerCannotBeRemovedError',
  ],
} as const;

/** Members: change a role, remove. */
function memberChangeRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'PUT',
    url: '/api/v1/organizations/:organizationId/members/:userId',
    tags: ['Members'],
    summary: 'Change a member role',
    description: 'Admin; owner when the current or new role is owner. The last owner cannot be demoted.',
    ...member,
    body: Type.Object({ role: RoleSchema }),
    response: { 200: Membership },
    handler: async ({ access, params, body }) =>
      orgs.updateMember(db, access, params.organizationId, params.userId, body.role),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/v1/organizations/:organizationId/members/:userId',
    tags: ['Members'],
    summary: 'Remove a member',
    description: 'Admin; owner to remove an owner; anyone may leave. The last owner cannot be removed.',
    ...member,
    ...noContent,
    handler: async ({ access, params }) =>
      orgs.removeMember(db, access, params.organizationId, params.userId),
  });
}

/** The audit log of an organization. */
function auditLogRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: '/api/v1/audit-log',
    tags: ['Audit log'],
    summary: 'Read the audit log',
    description:
      'Admin. Newest first (createdAt descending, then id). Page with `limit` and `offset`, or with `after` (the `nextCursor` of the previous page), which stays stable while entries are written.',
    access: 'audit_log:read',
    errors: ['ValidationError'],
    querystring: Type.Object({
      organizationId: Uuid,
      entityType: Type.Optional(StringEnum(AUDIT_ENTITY_TYPES)),
      entityId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
      userId: Type.Optional(Uuid),
      action: Type.Optional(StringEnum(AUDIT_ACTIONS)),
      fromDate: Type.Optional(IsoDate),
      toDate: Type.Optional(IsoDate),
      ...PageQuery,
      ...CursorQuery,
    }),
    response: { 200: CursorPage('entries', AuditEntry) },
    handler: async (request) => {
      const q = request.query;
      return orgs.listAudit(
        db,
        request.access,
        { ...q, organizationId: q.organizationId.toLowerCase(), userId: q.userId?.toLowerCase() },
        pageParams(q),
      );
    },
  });
}
