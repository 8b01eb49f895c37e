/**
 * The reads every module writes against its tenant tables: a row picked by its organization and key
 * columns (optionally locked), rows locked by their ids, whether any row matches, and one page of a
 * filtered list with the count of the whole list. Each condition starts with `organization_id`, so no
 * read can leave its organization.
 */
import { and, asc, count, eq, getTableColumns, inArray, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable, PgUpdateSetSource } from 'drizzle-orm/pg-core';
import type { Queryable } from './client.ts';

/** A table whose rows belong to one organization. */
export type TenantTable = PgTable & { organizationId: PgColumn };
type Row<T extends PgTable> = T['$inferSelect'];
/** Values of some of a table's columns, by their property names. */
export type ColumnValues<T extends PgTable> = { [K in keyof Row<T>]?: Row<T>[K] | undefined };
/** A row lock: `for update`, `for share`, `for no key update`. */
export type RowLock = 'update' | 'share' | 'no key update';

/**
 * The rows of `organizationId` whose columns equal `match` (e.g. `{ id }`, `{ companyId, id }`). A value
 * left undefined is no condition: a list's optional filters go in as they come.
 */
export function inOrg<T extends TenantTable>(
  table: T,
  organizationId: string,
  match: ColumnValues<T> = {},
): SQL {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const conditions = Object.entries(match).flatMap(([key, value]) =>
    value === undefined ? [] : [eq(columns[key]!, value)],
  );
  return and(eq(table.organizationId, organizationId), ...conditions)!;
}

/**
 * The row with this id, within `organizationId` when given: by-id endpoints called without an
 * organization find the row first and check access to its organization after.
 */
export function byId<T extends TenantTable & { id: PgColumn }>(
  table: T,
  id: string,
  organizationId?: string,
): SQL {
  return organizationId === undefined
    ? eq(table.id, id)
    : inOrg(table, organizationId, { id } as ColumnValues<T>);
}

/**
 * The join condition of a reference that stays in its organization: the row whose organization is
 * `organizationId` and whose id is `column`'s value, in `target`.
 */
export function sameOrgJoin(
  organizationId: PgColumn,
  column: PgColumn,
  target: { organizationId: PgColumn; id: PgColumn },
): SQL {
  return and(eq(target.organizationId, organizationId), eq(target.id, column))!;
}

/** The condition that picks this row again (a row read before: its organization and id). */
export function sameRow<T extends TenantTable & { id: PgColumn }>(
  table: T,
  row: { organizationId: string; id: string },
): SQL {
  return byId(table, row.id, row.organizationId);
}

/** The first row under `where`, or null; with `lock`, locked for the rest of the transaction. */
export async function firstRow<T extends PgTable>(
  db: Queryable,
  table: T,
  where: SQL | undefined,
  lock?: RowLock,
): Promise<Row<T> | null> {
  const q = db
    .select()
    .from(table as PgTable)
    .where(where);
  const [row] = lock ? await q.for(lock) : await q;
  return (row as Row<T> | undefined) ?? null;
}

/**
 * The rows of `organizationId` with these ids (each asked for once), locked with `lock` in id order:
 * transactions that lock overlapping sets take their locks in the same order, so they never deadlock.
 */
export async function lockRowsById<T extends TenantTable & { id: PgColumn }>(
  db: Queryable,
  table: T,
  organizationId: string,
  ids: readonly string[],
  lock: RowLock,
): Promise<Row<T>[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select()
    .from(table as PgTable)
    .where(and(eq(table.organizationId, organizationId), inArray(table.id, [...new Set(ids)])))
    .orderBy(asc(table.id))
    .for(lock);
  return rows as Row<T>[];
}

/** The row of `organizationId` matching `match`, or the error `notFound` makes (a 404). */
export async function requireRow<T extends TenantTable>(
  db: Queryable,
  table: T,
  organizationId: string,
  match: ColumnValues<T>,
  notFound: () => Error,
  lock?: RowLock,
): Promise<Row<T>> {
  const row = await firstRow(db, table, inOrg(table, organizationId, match), lock);
  if (!row) throw notFound();
  return row;
}

/** Whether any row lies under `where` (one id read at the most). */
export async function anyRow(
  db: Queryable,
  table: PgTable & { id: PgColumn },
  where: SQL | undefined,
): Promise<boolean> {
  const [row] = await db.select({ id: table.id }).from(table).where(where).limit(1);
  return row !== undefined;
}

/** The number of rows under `where`. */
export async function countRows(db: Queryable, table: PgTable, where: SQL | undefined): Promise<number> {
  const [total] = await db.select({ n: count() }).from(table).where(where);
  return Number(total?.n ?? 0);
}

/** Which rows of a list to read: `limit` rows from `offset`, and after a cursor its keyset condition. */
export interface RowWindow {
  limit: number;
  offset: number;
  condition?: SQL | undefined;
}

/**
 * One page of the rows under `where` in `order` (the window's keyset condition narrows the page, not the
 * total), and how many rows the whole list holds.
 */
export async function pageOfRows<T extends PgTable>(
  db: Queryable,
  table: T,
  where: SQL | undefined,
  order: (PgColumn | SQL | SQL.Aliased)[],
  window: RowWindow,
): Promise<{ rows: Row<T>[]; total: number }> {
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(table as PgTable)
      .where(window.condition ? and(where, window.condition) : where)
      .orderBy(...order)
      .limit(window.limit)
      .offset(window.offset),
    countRows(db, table, where),
  ]);
  return { rows: rows as Row<T>[], total };
}

/** Writes `values` into the rows under `where` and returns the first as written (the caller knows it exists). */
export async function updateRow<T extends PgTable>(
  db: Queryable,
  table: T,
  where: SQL,
  values: Partial<T['$inferInsert']>,
): Promise<Row<T>> {
  const [row] = await db
    .update(table as PgTable)
    .set(values as PgUpdateSetSource<PgTable>)
    .where(where)
    .returning();
  return row as Row<T>;
}
