/**
 * What list endpoints share: which organizations a list reads, and the answer of a list over one tenant
 * table (one page of its rows, each as its record, in the envelope every offset-paged list shares).
 */
import type { SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Access, Action } from '../../access/access.ts';
import type { Queryable } from '../../db/client.ts';
import { pageOfRows } from '../../db/rows.ts';
import { type PageParams, paged } from '../../http/pagination.ts';

/**
 * The page of the rows under `where` in `order`, each made into its record by `record`, as
 * `{<key>: records, total, limit, offset}`.
 */
export async function pagedRows<T extends PgTable, K extends string, R>(
  db: Queryable,
  table: T,
  where: SQL | undefined,
  order: (PgColumn | SQL | SQL.Aliased)[],
  page: PageParams,
  key: K,
  record: (row: T['$inferSelect']) => R,
) {
  const { rows, total } = await pageOfRows(db, table, where, order, page);
  return paged(key, rows.map(record), total, page);
}

/**
 * The organizations a list across organizations reads: the one its query names, once the caller may
 * do `action` there, else every organization the caller belongs to.
 */
export async function listedOrganizations(
  access: Access,
  organizationId: string | undefined,
  action: Action,
  resource?: string,
): Promise<string[]> {
  if (organizationId === undefined) return access.memberOrganizationIds();
  await access.authorize(organizationId, action, resource);
  return [organizationId];
}
