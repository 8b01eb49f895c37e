/**
 * What list endpoints share: one page of a tenant table's rows as the envelope every offset-paged list
 * answers, one page of a cursor-paged list, and which organizations a list across organizations reads.
 */
import { asc, desc, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Access, Action } from '../../access/access.ts';
import type { Queryable } from '../../db/client.ts';
import { pageOfRows } from '../../db/rows.ts';
import { type KeyColumn, keyset, type KeyValue, type PageParams, paged } from '../../http/pagination.ts';

/**
 * The page of the rows under `where` in `order`, made into their records by `records` (which may read
 * what the page's rows need, once for the page), as `{<key>: records, total, limit, offset}`.
 */
export async function pagedRows<T extends PgTable, K extends string, R>(
  db: Queryable,
  table: T,
  where: SQL | undefined,
  order: (PgColumn | SQL | SQL.Aliased)[],
  page: PageParams,
  key: K,
  records: (rows: T['$inferSelect'][]) => R[] | Promise<R[]>,
) {
  const { rows, total } = await pageOfRows(db, table, where, order, page);
  return paged(key, await records(rows), total, page);
}

/**
 * One page of a cursor-paged list: the rows under `where` in the total order `columns` (after the page's
 * cursor when it has one), the total of the whole list, and the cursor of the next page when one follows.
 * The SQL order is the keyset's own, so a cursor always continues the order the page was read in.
 */
export async function keysetRows<T extends PgTable>(
  db: Queryable,
  table: T,
  where: SQL | undefined,
  columns: KeyColumn[],
  page: PageParams,
  keyOf: (row: T['$inferSelect']) => KeyValue[],
): Promise<{ rows: T['$inferSelect'][]; total: number; nextCursor?: string }> {
  const ks = keyset(columns, page, keyOf);
  const order = columns.map((c) => (c.direction === 'asc' ? asc(c.column) : desc(c.column)));
  const { rows, total } = await pageOfRows(db, table, where, order, ks);
  return { ...ks.finish(rows), total };
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
