/**
 * The answer of a list endpoint over one tenant table: one page of its rows, each as its record, in the
 * envelope every offset-paged list shares.
 */
import type { SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
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
