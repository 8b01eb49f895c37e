/**
 * Pagination. Offset paging: `limit` (default 50) and `offset` (default 0), applied by the query
 * schema. Cursor paging, on the long lists (journal entries, audit log, intercompany transactions):
 * `after` carries the `nextCursor` of the previous page — the sort key of its last item — and the next
 * page starts strictly after that key in the list's total order. Rows written meanwhile therefore never
 * shift a page: nothing is skipped or repeated, unlike offsets, which move when rows are inserted ahead.
 */
import { and, eq, gt, lt, or, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { type TSchema, Type } from 'typebox';
import type { Access } from '../access/access.ts';
import type { Db } from '../db/client.ts';
import { ValidationError } from '../domain/errors.ts';
import { isUuid, Page } from './schemas.ts';

export interface PageParams {
  limit: number;
  offset: number;
  /** The raw `after` cursor, when given. */
  after?: string | undefined;
}

export function pageParams(query: { limit?: number; offset?: number; after?: string }): PageParams {
  const page: PageParams = { limit: query.limit ?? 50, offset: query.offset ?? 0 };
  if (query.after !== undefined) {
    if (query.offset !== undefined && query.offset !== 0) {
      throw new ValidationError([{ path: '/query/offset', message: 'offset cannot be combined with after' }]);
    }
    page.after = query.after;
  }
  return page;
}

/**
 * A list's query string split into its filters (every other field, absent when not given) and its page
 * (`pageParams`): a list route hands both to its service unchanged.
 */
export function listQuery<Q extends { limit?: number; offset?: number; after?: string }>(
  query: Q,
): { filters: Omit<Q, 'limit' | 'offset'>; page: PageParams } {
  const { limit: _limit, offset: _offset, ...filters } = query;
  return { filters, page: pageParams(query) };
}

/**
 * The handler of a list route: its query split by `listQuery` into the filters and the page, both handed
 * with the caller's access to the service that lists.
 */
export function listed<F, R>(db: Db, list: (db: Db, access: Access, filters: F, page: PageParams) => R) {
  return async ({ access, query }: { access: Access; query: F & { limit?: number; offset?: number } }) => {
    const { filters, page } = listQuery(query);
    return list(db, access, filters as F, page);
  };
}

export function paged<K extends string, T>(
  key: K,
  items: T[],
  total: number,
  page: PageParams,
): { [P in K]: T[] } & { total: number; limit: number; offset: number } {
  return { [key]: items, total, limit: page.limit, offset: page.offset } as { [P in K]: T[] } & {
    total: number;
    limit: number;
    offset: number;
  };
}

/** `after`: the query parameter of the lists with cursor paging. */
export const CursorQuery = {
  after: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1024,
      description:
        'The `nextCursor` of the previous page: the page starts right after that item. Not combinable ' +
        'with a non-zero `offset`. Stable while items are being added: nothing is skipped or repeated.',
    }),
  ),
};

export const NextCursor = Type.Optional(
  Type.String({
    description:
      'Present when another page follows: pass it as `after` to read it. Absent on the last page. Opaque: do not parse it.',
  }),
);

/** Kinds of the values of a sort key. */
export type KeyKind = 'date' | 'integer' | 'uuid' | 'timestamp';
export type KeyValue = string | number | Date;

/** One column of a list's total order. */
export interface KeyColumn {
  column: PgColumn;
  kind: KeyKind;
  direction: 'asc' | 'desc';
}

export function encodeCursor(values: KeyValue[]): string {
  const plain = values.map((v) => (v instanceof Date ? v.toISOString() : v));
  return Buffer.from(JSON.stringify(plain), 'utf8').toString('base64url');
}

const badCursor = () =>
  new ValidationError([
    { path: '/query/after', message: 'Not a cursor of this list (use nextCursor as it is)' },
  ]);

/** The key values of an `after` cursor; a malformed or foreign one → 400 at `/query/after`. */
export function decodeCursor(raw: string, kinds: KeyKind[]): KeyValue[] {
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw badCursor();
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== kinds.length) throw badCursor();
  return kinds.map((kind, i) => {
    const v: unknown = parsed[i];
    switch (kind) {
      case 'integer':
        if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
        break;
      case 'uuid':
        if (typeof v === 'string' && isUuid(v)) return v.toLowerCase();
        break;
      case 'date':
        if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) return v;
        break;
      case 'timestamp':
        if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T[0-9:.]+Z$/.test(v) && !Number.isNaN(Date.parse(v)))
          return new Date(v);
        break;
    }
    throw badCursor();
  });
}

/** Rows strictly after `values` in the order of `columns`. */
export function afterKey(columns: KeyColumn[], values: KeyValue[]): SQL | undefined {
  const branches: (SQL | undefined)[] = columns.map((c, i) => {
    const equal = columns.slice(0, i).map((p, j) => eq(p.column, values[j]));
    const beyond = c.direction === 'asc' ? gt(c.column, values[i]) : lt(c.column, values[i]);
    return and(...equal, beyond);
  });
  return or(...branches);
}

/**
 * The keyset condition of a page (undefined without a cursor), and the page's answer from rows read
 * with `limit + 1` (the extra row only tells whether a next page exists).
 */
export function keyset<Row>(columns: KeyColumn[], page: PageParams, keyOf: (row: Row) => KeyValue[]) {
  const condition =
    page.after === undefined
      ? undefined
      : afterKey(
          columns,
          decodeCursor(
            page.after,
            columns.map((c) => c.kind),
          ),
        );
  return {
    condition,
    /** Rows to read: one more than the page. */
    limit: page.limit + 1,
    /** Offset of the read: none after a cursor. */
    offset: page.after === undefined ? page.offset : 0,
    finish(rows: Row[]): { rows: Row[]; nextCursor?: string } {
      const more = rows.length > page.limit;
      const kept = more ? rows.slice(0, page.limit) : rows;
      const last = kept[kept.length - 1];
      return more && last ? { rows: kept, nextCursor: encodeCursor(keyOf(last)) } : { rows: kept };
    },
  };
}

/** A paginated envelope with `nextCursor`: `{<key>: T[], total, limit, offset, nextCursor?}`. */
export function CursorPage<K extends string, T extends TSchema>(key: K, item: T) {
  return Type.Object({ ...Page(key, item).properties, nextCursor: NextCursor });
}
