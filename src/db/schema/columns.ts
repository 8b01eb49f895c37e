/** Column helpers shared by every table: one spelling for ids, money, rates, dates and timestamps. */
import { date, numeric, timestamp, uuid } from 'drizzle-orm/pg-core';

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
