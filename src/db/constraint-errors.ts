/**
 * Reading the database's refusals: a foreign-key violation (SQLSTATE 23503) raised when a row is
 * written that references a row another transaction deleted in the meantime (a create racing a
 * delete). The checks before the write saw the referenced row; the key check at commit time did not.
 * The HTTP layer turns such a violation into the referenced resource's NotFound answer.
 */

/** The error of the driver (pg or PGlite), possibly wrapped by drizzle as `cause`. */
interface DriverError {
  code?: unknown;
  table?: unknown;
  constraint?: unknown;
  detail?: unknown;
  cause?: unknown;
}

function driverError(err: unknown, code: string): DriverError | null {
  let e = err as DriverError | undefined;
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    if (e.code === code) return e;
    e = e.cause as DriverError | undefined;
  }
  return null;
}

/** A numeric value the column cannot hold (SQLSTATE 22003). */
export function isNumericOverflow(err: unknown): boolean {
  return driverError(err, '22003') !== null;
}

export interface MissingReference {
  /** The table written to. */
  table: string;
  /** The referenced table whose row is missing. */
  referencedTable: string;
  /** The referencing columns and their values, e.g. `{organization_id: …, account_id: …}`. */
  key: Record<string, string>;
}

// Key (organization_id, account_id)=(…, …) is not present in table "accounts".
const DETAIL = /^Key \(([^)]*)\)=\(([^)]*)\) is not present in table "([^"]+)"/;

/**
 * The reference a write was refused for (the row was deleted concurrently), or null when `err` is not
 * such a violation (a delete refused because the row is still referenced reads differently).
 */
export function missingReference(err: unknown): MissingReference | null {
  const e = driverError(err, '23503');
  if (!e || typeof e.detail !== 'string') return null;
  const m = DETAIL.exec(e.detail);
  if (!m) return null;
  const columns = m[1]!.split(',').map((c) => c.trim().replace(/^"|"$/g, ''));
  const values = m[2]!.split(',').map((v) => v.trim());
  const key: Record<string, string> = {};
  columns.forEach((c, i) => (key[c] = values[i] ?? ''));
  return { table: typeof e.table === 'string' ? e.table : '', referencedTable: m[3]!, key };
}
