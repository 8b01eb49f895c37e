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

/** The key columns of a tenant row: its id and its organization (the primary key is `tenantKey`). */
export const tenantRow = () => ({ id: id().notNull(), organizationId: orgId() });
/** A company's tenant row: id, organization, company. */
export const companyRow = () => ({ ...tenantRow(), companyId: uuid('company_id').notNull() });
/** A consolidation group's tenant row: id, organization, group. */
export const groupRow = () => ({ ...tenantRow(), groupId: uuid('group_id').notNull() });
/** A row stored with a consolidation run: organization, run. */
export const runRow = () => ({ organizationId: orgId(), runId: uuid('run_id').notNull() });
/** The leading key columns of a balance row: organization, company, account. */
export const balanceKey = () => ({
  organizationId: orgId(),
  companyId: uuid('company_id').notNull(),
  accountId: uuid('account_id').notNull(),
});
/** When the row was created and last changed. */
export const timestamps = () => ({ createdAt: createdAt(), updatedAt: updatedAt() });

/** The primary key of a tenant table: (organization_id, id). */
export const tenantKey = (t: { organizationId: PgColumn; id: PgColumn }) =>
  primaryKey({ columns: [t.organizationId, t.id] });

/**
 * A reference that cannot leave its organization: (organization_id, column) → the target table's
 * (organization_id, id); `name` when the constraint's name is not the generated one.
 */
export const sameOrgRef = (
  organizationId: PgColumn,
  column: PgColumn,
  target: { organizationId: PgColumn; id: PgColumn },
  name?: string,
) =>
  foreignKey({
    ...(name === undefined ? {} : { name }),
    columns: [organizationId, column],
    foreignColumns: [target.organizationId, target.id],
  });
