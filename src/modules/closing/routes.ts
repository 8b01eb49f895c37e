/** Year-end close, close preview and reopen endpoints. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { route } from '../../http/route.ts';
import { Money, Nullable, StringEnum, Text, Type, Uuid } from '../../http/schemas.ts';
import { COMPANY_PATH } from '../companies/routes.ts';
import { FiscalYear, inYear } from '../fiscal/routes.ts';
import * as yearEnd from './year-end.ts';

const YearEndClosePreview = Type.Object({
  fiscalYearId: Uuid,
  fiscalYearName: Type.String(),
  totalRevenue: Money,
  totalExpenses: Money,
  netIncome: Money,
  retainedEarningsAccount: Nullable(
    Type.Object({ id: Uuid, accountNumber: Type.String(), name: Type.String() }),
  ),
  unpostedEntryCount: Type.Integer(),
  canProceed: Type.Boolean(),
  blockers: Type.Array(
    StringEnum([
      'YEAR_ALREADY_CLOSED',
      'RETAINED_EARNINGS_NOT_CONFIGURED',
      'RETAINED_EARNINGS_ACCOUNT_INVALID',
      'UNPOSTED_ENTRIES',
    ] as const),
  ),
});

const YearEndCloseResult = Type.Object({
  fiscalYearId: Uuid,
  closingEntryIds: Type.Array(Uuid),
  netIncome: Money,
  periodsClosed: Type.Integer(),
  fiscalYear: FiscalYear,
});

const ReopenYearResult = Type.Object({
  fiscalYearId: Uuid,
  reversedEntryIds: Type.Array(Uuid),
  reversingEntryIds: Type.Array(Uuid),
  periodsReopened: Type.Integer(),
  fiscalYear: FiscalYear,
});

const tags = ['Fiscal years and periods'];

export const yearEndRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: `${COMPANY_PATH}/fiscal-years/:fiscalYearId/close/preview`,
    tags,
    summary: 'Preview a year-end close',
    description: 'Viewer. What a close would transfer now, and what blocks it.',
    ...inYear,
    access: 'fiscal_period:read',
    response: { 200: YearEndClosePreview },
    handler: async ({ access, params }) => yearEnd.closePreview(db, access, params),
  });

  route(app, {
    method: 'POST',
    url: `${COMPANY_PATH}/fiscal-years/:fiscalYearId/close`,
    tags,
    summary: 'Year-end close',
    description:
      'Admin. Posts one closing entry (revenue and expense to retained earnings, period 13) and closes the year and all its periods.',
    ...inYear,
    access: 'fiscal_period:manage',
    errors: [
      'YearAlreadyClosedError',
      'RetainedEarningsNotConfiguredError',
      'InvalidRetainedEarningsAccountError',
      'UnpostedEntriesInPeriodError',
    ],
    response: { 200: YearEndCloseResult },
    handler: async ({ access, params }) => yearEnd.closeYear(db, access, params),
  });

  route(app, {
    method: 'POST',
    url: `${COMPANY_PATH}/fiscal-years/:fiscalYearId/reopen`,
    tags,
    summary: 'Reopen a closed fiscal year',
    description: 'Admin. Reverses the closing entry in period 13 and reopens the year and all its periods.',
    ...inYear,
    access: 'fiscal_period:manage',
    errors: ['YearNotClosedError'],
    body: Type.Object({ reason: Type.Optional(Nullable(Text(2000))) }),
    response: { 200: ReopenYearResult },
    handler: async ({ access, params, body }) => yearEnd.reopenYear(db, access, params, body.reason ?? null),
  });
};
