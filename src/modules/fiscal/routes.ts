/**
 * Fiscal year and period endpoints. Year-end close, reopen and the close preview
 * (`…/fiscal-years/{fiscalYearId}/close`, `/reopen`, `/close/preview`) are registered separately,
 * next to this plugin, reusing `FiscalYear` and the addressing of a year (`inYear`) exported here.
 */
import { type RouteApp, routesPlugin } from '../../http/route-app.ts';
import { pageParams } from '../../http/pagination.ts';
import { created, route } from '../../http/route.ts';
import {
  IsoDate,
  Nullable,
  Page,
  PageQuery,
  StringEnum,
  Text,
  Timestamp,
  Type,
  Uuid,
} from '../../http/schemas.ts';
import { COMPANY_PATH, companyInPath } from '../companies/routes.ts';
import * as service from './service.ts';

const Status = StringEnum(['Open', 'Closed'] as const);

export const FiscalPeriod = Type.Object({
  id: Uuid,
  fiscalYearId: Uuid,
  companyId: Uuid,
  fiscalYear: Type.Integer(),
  periodNumber: Type.Integer(),
  name: Type.String(),
  periodType: StringEnum(['Regular', 'Adjustment'] as const),
  startDate: Type.String(),
  endDate: Type.String(),
  status: Status,
  closedBy: Nullable(Uuid),
  closedAt: Nullable(Timestamp),
  unpostedEntryCount: Type.Integer(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const FiscalYear = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  companyId: Uuid,
  name: Type.String(),
  year: Type.Integer(),
  startDate: Type.String(),
  endDate: Type.String(),
  status: Status,
  includesAdjustmentPeriod: Type.Boolean(),
  closedBy: Nullable(Uuid),
  closedAt: Nullable(Timestamp),
  periods: Type.Array(FiscalPeriod),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const PeriodReopenEntry = Type.Object({
  id: Uuid,
  periodId: Uuid,
  reason: Nullable(Type.String()),
  reopenedBy: Uuid,
  reopenedAt: Timestamp,
  previousStatus: Type.String(),
});

const PeriodStatus = Type.Object({
  date: Type.String(),
  fiscalYear: Type.Integer(),
  periodNumber: Type.Integer(),
  fiscalYearId: Nullable(Uuid),
  periodId: Nullable(Uuid),
  status: Nullable(Status),
  allowsJournalEntries: Type.Boolean(),
  allowsModifications: Type.Boolean(),
});

const DateRange = Type.Object({ startDate: Type.String(), endDate: Type.String() });
const PeriodSummary = Type.Object({
  periods: Type.Array(
    Type.Object({
      fiscalYearId: Uuid,
      fiscalYear: Type.Integer(),
      periodId: Uuid,
      periodNumber: Type.Integer(),
      periodName: Type.String(),
      periodType: Type.String(),
      startDate: Type.String(),
      endDate: Type.String(),
      status: Status,
    }),
  ),
  openDateRanges: Type.Array(DateRange),
  closedDateRanges: Type.Array(DateRange),
});

/**
 * Malformed path identifiers of the fiscal endpoints → 404 with the segment's tag. Every fiscal route
 * declares all four rules, whichever of the segments its path has.
 */
const fiscalPathIds = {
  ...companyInPath.pathIds,
  fiscalYearId: { tag: 'FiscalYearNotFoundError', field: 'fiscalYearId', message: 'Fiscal year not found' },
  periodId: { tag: 'FiscalPeriodNotFoundError', field: 'fiscalPeriodId', message: 'Fiscal period not found' },
};
const YearParams = Type.Object({ ...companyInPath.params.properties, fiscalYearId: Type.String() });
const PeriodParams = Type.Object({ ...YearParams.properties, periodId: Type.String() });
/** A company's fiscal calendar, one of its fiscal years, one of their periods, addressed by the path. */
const inCompany = { pathIds: fiscalPathIds, params: companyInPath.params };
export const inYear = { pathIds: fiscalPathIds, params: YearParams };
const inPeriod = { pathIds: fiscalPathIds, params: PeriodParams };
const StatusQuery = Type.Object({ status: Type.Optional(Status), ...PageQuery });
const tags = ['Fiscal years and periods'];

export const fiscalRoutes = routesPlugin(fiscalYearRoutes, fiscalPeriodRoutes, periodStatusRoutes);

/** Fiscal years: list, get, create, and the periods of one. */
function fiscalYearRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: `${COMPANY_PATH}/fiscal-years`,
    tags,
    summary: 'List fiscal years',
    description: 'Viewer. Ordered by year descending; each with its 13 periods.',
    ...inCompany,
    access: 'fiscal_period:read',
    querystring: StatusQuery,
    response: { 200: Page('fiscalYears', FiscalYear) },
    handler: async ({ access, params, query }) =>
      service.listFiscalYears(db, access, params, query.status, pageParams(query)),
  });

  route(app, {
    method: 'GET',
    url: `${COMPANY_PATH}/fiscal-years/:fiscalYearId`,
    tags,
    summary: 'Get a fiscal year',
    description: 'Viewer.',
    ...inYear,
    access: 'fiscal_period:read',
    response: { 200: FiscalYear },
    handler: async ({ access, params }) => service.getFiscalYear(db, access, params),
  });

  route(app, {
    method: 'POST',
    url: `${COMPANY_PATH}/fiscal-years`,
    tags,
    summary: 'Create a fiscal year',
    description:
      'Admin. Dates derive from the company fiscal year end; `startDate`/`endDate`, when sent, must equal them.',
    ...inCompany,
    access: 'fiscal_period:manage',
    errors: ['FiscalYearAlreadyExistsError'],
    body: Type.Object({
      year: Type.Integer({ minimum: 1900, maximum: 2999 }),
      name: Type.Optional(Nullable(Text(100))),
      startDate: Type.Optional(IsoDate),
      endDate: Type.Optional(IsoDate),
    }),
    ...created(FiscalYear),
    handler: async ({ access, params, body }) => service.createFiscalYear(db, access, params, body),
  });

  route(app, {
    method: 'GET',
    url: `${COMPANY_PATH}/fiscal-years/:fiscalYearId/periods`,
    tags,
    summary: 'List the periods of a fiscal year',
    description: 'Viewer. Ordered by period number.',
    ...inYear,
    access: 'fiscal_period:read',
    querystring: StatusQuery,
    response: { 200: Page('periods', FiscalPeriod) },
    handler: async ({ access, params, query }) =>
      service.listFiscalPeriods(db, access, params, query.status, pageParams(query)),
  });
}

/** A fiscal period: get, close, open. */
function fiscalPeriodRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: `${COMPANY_PATH}/fiscal-years/:fiscalYearId/periods/:periodId`,
    tags,
    summary: 'Get a fiscal period',
    description: 'Viewer.',
    ...inPeriod,
    access: 'fiscal_period:read',
    response: { 200: FiscalPeriod },
    handler: async ({ access, params }) => service.getFiscalPeriod(db, access, params),
  });

  route(app, {
    method: 'POST',
    url: `${COMPANY_PATH}/fiscal-years/:fiscalYearId/periods/:periodId/close`,
    tags,
    summary: 'Close a fiscal period',
    description: 'Admin. Unposted entries of the period do not block the close.',
    ...inPeriod,
    access: 'fiscal_period:manage',
    errors: ['InvalidPeriodStatusTransitionError', 'FiscalPeriodClosedError'],
    response: { 200: FiscalPeriod },
    handler: async ({ access, params }) => service.closeFiscalPeriod(db, access, params),
  });

  route(app, {
    method: 'POST',
    url: `${COMPANY_PATH}/fiscal-years/:fiscalYearId/periods/:periodId/open`,
    tags,
    summary: 'Open (reopen) a fiscal period',
    description: 'Admin. Writes a reopen-history entry; refused while the year is closed.',
    ...inPeriod,
    access: 'fiscal_period:manage',
    errors: ['InvalidPeriodStatusTransitionError', 'YearAlreadyClosedError'],
    body: Type.Object({ reason: Type.Optional(Nullable(Text(2000))) }),
    response: { 200: FiscalPeriod },
    handler: async ({ access, params, body }) =>
      service.openFiscalPeriod(db, access, params, body?.reason ?? null),
  });
}

/** Period reopen history, the status at a date, the summary of a company. */
function periodStatusRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: `${COMPANY_PATH}/fiscal-years/:fiscalYearId/periods/:periodId/reopen-history`,
    tags,
    summary: 'Reopen history of a period',
    description: 'Viewer. Newest first.',
    ...inPeriod,
    access: 'fiscal_period:read',
    querystring: Type.Object(PageQuery),
    response: { 200: Page('history', PeriodReopenEntry) },
    handler: async ({ access, params, query }) =>
      service.listReopenHistory(db, access, params, pageParams(query)),
  });

  route(app, {
    method: 'GET',
    url: `${COMPANY_PATH}/period-status`,
    tags,
    summary: 'Status of the period containing a date',
    description: 'Viewer. `status` is null when the fiscal year has not been created yet.',
    ...inCompany,
    access: 'fiscal_period:read',
    querystring: Type.Object({ date: IsoDate }),
    response: { 200: PeriodStatus },
    handler: async ({ access, params, query }) => service.periodStatus(db, access, params, query.date),
  });

  route(app, {
    method: 'GET',
    url: `${COMPANY_PATH}/fiscal-periods/summary`,
    tags,
    summary: 'Summary of all periods of a company',
    description:
      'Viewer. Periods by year descending, then period number; merged open and closed date ranges.',
    ...inCompany,
    access: 'fiscal_period:read',
    response: { 200: PeriodSummary },
    handler: async ({ access, params }) => service.periodSummary(db, access, params),
  });
}
