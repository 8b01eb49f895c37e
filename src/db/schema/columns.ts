/** Column helpers shared by every table: one spelling for ids, money, rates, dates and timestamps. */
import { date, foreignKey, numeric, type PgColumn, primaryKey, timestamp, uuid } from 'drizzle-orm/pg-core';

export const id = (name = 'id') => uuid(name);
export const orgId = () => uuid('organization_id').notNull();
/** Amounts: NUMERIC(28, 8), read and written as decimal strings. */
export const amount = (name: string) => numeric(name, { precision: 28, scale: 8 });
/** Exchange rates: NUMERIC(28, 12). */
export const rate = (name: string) => numeric(name, { precision: 28, scale: 12 });
export const day = (name: string) => date(name, { mode: 'string' });
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date', precision: 3 });
export const createdAt = () => ts('created_at').notNull().defaultNow();
export const updatedAt = () => ts('updated_at').notNull().defaultNow();

/** The primary key of a tenant table: (organization_id, id). */
export const tenantKey = (t: { organizationId: PgColumn; id: PgColumn }) =>
  primaryKey({ columns: [t.organizationId, t.id] });

/**
 * A reference that cannot leave its organization: (organization_id, column) → the target table's
 * (organization_id, id).
 */
export const sameOrgRef = (
  organizationId: PgColumn,
  column: PgColumn,
  target: { organizationId: PgColumn; id: PgColumn },
) => foreignKey({ columns: [organizationId, column], foreignColumns: [target.organizationId, target.id] });
