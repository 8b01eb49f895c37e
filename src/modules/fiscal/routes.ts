/**
 * Fiscal year and period endpoints. Year-end close, reopen and the close preview
 * (`…/fiscal-years/{fiscalYearId}/close`, `/reopen`, `/close/preview`) are registered separately,
 * next to this plugin, reusing `FiscalYear`, `FiscalPeriod` and `fiscalPathIds` exported here.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteApp } from '../../http/route-app.ts';
import { pageParams } from '../../http/pagination.ts';
import { responses } from '../../http/responses.ts';
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

/** Malformed path identifiers of the fiscal endpoints → 404 with the segment's tag. */
export const fiscalPathIds = {
  organizationId: {
    tag: 'OrganizationNotFoundError',
    field: 'organizationId',
    message: 'Organization not found',
  },
  companyId: { tag: 'CompanyNotFoundError', field: 'companyId', message: 'Company not found' },
  fiscalYearId: { tag: 'FiscalYearNotFoundError', field: 'fiscalYearId', message: 'Fiscal year not found' },
  periodId: { tag: 'FiscalPeriodNotFoundError', field: 'fiscalPeriodId', message: 'Fiscal period not found' },
};

export const FISCAL_BASE = '/api/v1/organizations/:organizationId/companies/:companyId';
const CompanyParams = Type.Object({ organizationId: Type.String(), companyId: Type.String() });
export const YearParams = Type.Object({
  organizationId: Type.String(),
  companyId: Type.String(),
  fiscalYearId: Type.String(),
});
const PeriodParams = Type.Object({
  organizationId: Type.String(),
  companyId: Type.String(),
  fiscalYearId: Type.String(),
  periodId: Type.String(),
});
const StatusQuery = Type.Object({ status: Type.Optional(Status), ...PageQuery });
const tags = ['Fiscal years and periods'];
const config = { pathIds: fiscalPathIds };

export const fiscalRoutes: FastifyPluginAsyncTypebox = async (app) => {
  fiscalYearRoutes(app);
  fiscalPeriodRoutes(app);
  periodStatusRoutes(app);
};

/** Fiscal years: list, get, create, and the periods of one. */
function fiscalYearRoutes(app: RouteApp): void {
  const { db } = app.deps;

  app.get(
    `${FISCAL_BASE}/fiscal-years`,
    {
      config: { ...config, access: 'fiscal_period:read' },
      schema: {
        tags,
        summary: 'List fiscal years',
        description: 'Viewer. Ordered by year descending; each with its 13 periods.',
        params: CompanyParams,
        querystring: StatusQuery,
        response: responses({ 200: Page('fiscalYears', FiscalYear) }),
      },
    },
    async (request) =>
      service.listFiscalYears(
        db,
        request.access,
        request.params,
        request.query.status,
        pageParams(request.query),
      ),
  );

  app.get(
    `${FISCAL_BASE}/fiscal-years/:fiscalYearId`,
    {
      config: { ...config, access: 'fiscal_period:read' },
      schema: {
        tags,
        summary: 'Get a fiscal year',
        description: 'Viewer.',
        params: YearParams,
        response: responses({ 200: FiscalYear }),
      },
    },
    async (request) => service.getFiscalYear(db, request.access, request.params),
  );

  app.post(
    `${FISCAL_BASE}/fiscal-years`,
    {
      config: { ...config, access: 'fiscal_period:manage', errors: ['FiscalYearAlreadyExistsError'] },
      schema: {
        tags,
        summary: 'Create a fiscal year',
        description:
          'Admin. Dates derive from the company fiscal year end; `startDate`/`endDate`, when sent, must equal them.',
        params: CompanyParams,
        body: Type.Object({
          year: Type.Integer({ minimum: 1900, maximum: 2999 }),
          name: Type.Optional(Nullable(Text(100))),
          startDate: Type.Optional(IsoDate),
          endDate: Type.Optional(IsoDate),
        }),
        response: responses({ 201: FiscalYear }),
      },
    },
    async (request, reply) =>
      reply.code(201).send(await service.createFiscalYear(db, request.access, request.params, request.body)),
  );

  app.get(
    `${FISCAL_BASE}/fiscal-years/:fiscalYearId/periods`,
    {
      config: { ...config, access: 'fiscal_period:read' },
      schema: {
        tags,
        summary: 'List the periods of a fiscal year',
        description: 'Viewer. Ordered by period number.',
        params: YearParams,
        querystring: StatusQuery,
        response: responses({ 200: Page('periods', FiscalPeriod) }),
      },
    },
    async (request) =>
      service.listFiscalPeriods(
        db,
        request.access,
        request.params,
        request.query.status,
        pageParams(request.query),
      ),
  );
}

/** A fiscal period: get, close, open. */
function fiscalPeriodRoutes(app: RouteApp): void {
  const { db } = app.deps;

  app.get(
    `${FISCAL_BASE}/fiscal-years/:fiscalYearId/periods/:periodId`,
    {
      config: { ...config, access: 'fiscal_period:read' },
      schema: {
        tags,
        summary: 'Get a fiscal period',
        description: 'Viewer.',
        params: PeriodParams,
        response: responses({ 200: FiscalPeriod }),
      },
    },
    async (request) => service.getFiscalPeriod(db, request.access, request.params),
  );

  app.post(
    `${FISCAL_BASE}/fiscal-years/:fiscalYearId/periods/:periodId/close`,
    {
      config: {
        ...config,
        access: 'fiscal_period:manage',
        errors: ['InvalidPeriodStatusTransitionError', 'FiscalPeriodClosedError'],
      },
      schema: {
        tags,
        summary: 'Close a fiscal period',
        description: 'Admin. Unposted entries of the period do not block the close.',
        params: PeriodParams,
        response: responses({ 200: FiscalPeriod }),
      },
    },
    async (request) => service.closeFiscalPeriod(db, request.access, request.params),
  );

  app.post(
    `${FISCAL_BASE}/fiscal-years/:fiscalYearId/periods/:periodId/open`,
    {
      config: {
        ...config,
        access: 'fiscal_period:manage',
        errors: ['InvalidPeriodStatusTransitionError', 'YearAlreadyClosedError'],
      },
      schema: {
        tags,
        summary: 'Open (reopen) a fiscal period',
        description: 'Admin. Writes a reopen-history entry; refused while the year is closed.',
        params: PeriodParams,
        body: Type.Object({ reason: Type.Optional(Nullable(Text(2000))) }),
        response: responses({ 200: FiscalPeriod }),
      },
    },
    async (request) =>
      service.openFiscalPeriod(db, request.access, request.params, request.body?.reason ?? null),
  );
}

/** Period reopen history, the status at a date, the summary of a company. */
function periodStatusRoutes(app: RouteApp): void {
  const { db } = app.deps;

  app.get(
    `${FISCAL_BASE}/fiscal-years/:fiscalYearId/periods/:periodId/reopen-history`,
    {
      config: { ...config, access: 'fiscal_period:read' },
      schema: {
        tags,
        summary: 'Reopen history of a period',
        description: 'Viewer. Newest first.',
        params: PeriodParams,
        querystring: Type.Object(PageQuery),
        response: responses({ 200: Page('history', PeriodReopenEntry) }),
      },
    },
    async (request) =>
      service.listReopenHistory(db, request.access, request.params, pageParams(request.query)),
  );

  app.get(
    `${FISCAL_BASE}/period-status`,
    {
      config: { ...config, access: 'fiscal_period:read' },
      schema: {
        tags,
        summary: 'Status of the period containing a date',
        description: 'Viewer. `status` is null when the fiscal year has not been created yet.',
        params: CompanyParams,
        querystring: Type.Object({ date: IsoDate }),
        response: responses({ 200: PeriodStatus }),
      },
    },
    async (request) => service.periodStatus(db, request.access, request.params, request.query.date),
  );

  app.get(
    `${FISCAL_BASE}/fiscal-periods/summary`,
    {
      config: { ...config, access: 'fiscal_period:read' },
      schema: {
        tags,
        summary: 'Summary of all periods of a company',
        description:
          'Viewer. Periods by year descending, then period number; merged open and closed date ranges.',
        params: CompanyParams,
        response: responses({ 200: PeriodSummary }),
      },
    },
    async (request) => service.periodSummary(db, request.access, request.params),
  );
}
