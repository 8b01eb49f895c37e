/**
 * Access to a consolidation resource addressed by id, with an optional `organizationId` (request
 * pipeline steps 7–9), shared by groups and elimination rules (and usable by runs):
 *
 * - with `organizationId`: the organization exists and the caller is a member (404/403), the resource
 *   must belong to it (else the resource's 404), then the role;
 * - without: the resource must exist (404), then membership of its organization (403 with
 *   `currentRole: null`) and the role.
 */
import type { DomainError } from '../../domain/errors.ts';
import type { Access, Action } from '../../http/access.ts';

export async function authorizeById<Row extends { organizationId: string }>(
  access: Access,
  organizationId: string | undefined,
  action: Action,
  resource: string | undefined,
  load: (organizationId: string | undefined) => Promise<Row | null>,
  notFound: () => DomainError,
): Promise<Row> {
  if (organizationId !== undefined) {
    await access.enterOrganization(organizationId, action, resource);
    const row = await load(organizationId);
    if (!row) throw notFound();
    await access.requireRole(organizationId, action, resource);
    return row;
  }
  const row = await load(undefined);
  if (!row) throw notFound();
  await access.authorizeResource(row.organizationId, action, resource);
  return row;
}
