/** Pagination (contract 1.10): defaults are applied by the query schema (limit 50, offset 0). */
export interface PageParams {
  limit: number;
  offset: number;
}

export function pageParams(query: { limit?: number; offset?: number }): PageParams {
  return { limit: query.limit ?? 50, offset: query.offset ?? 0 };
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
