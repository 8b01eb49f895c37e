/** Exchange-rate endpoints. */
import { type RouteApp, routesPlugin } from '../../http/route-app.ts';
import type { Access } from '../../access/access.ts';
import type { Db } from '../../db/client.ts';
import type { ErrorTag } from '../../domain/error-catalogue.ts';
import { type Issue, ValidationError } from '../../domain/errors.ts';
import { RATE_SOURCES, RATE_TYPES } from '../../domain/rates.ts';
import { pageParams } from '../../http/pagination.ts';
import { byId, created, forId, noContent, route } from '../../http/route.ts';
import {
  BulkCreated,
  CurrencyCode,
  IsoDate,
  Nullable,
  Page,
  PageQuery,
  Rate,
  RateInput,
  type Static,
  StringEnum,
  Timestamp,
  type TSchema,
  Type,
  Uuid,
} from '../../http/schemas.ts';
import { withBodyCheck } from '../../http/validation.ts';
import * as rates from './service.ts';

const RateTypeSchema = StringEnum(RATE_TYPES);
const RateSourceSchema = StringEnum(RATE_SOURCES);

const ExchangeRate = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  fromCurrency: Type.String(),
  toCurrency: Type.String(),
  rate: Rate,
  effectiveDate: Type.String({ description: 'Date YYYY-MM-DD' }),
  rateType: RateTypeSchema,
  source: RateSourceSchema,
  createdBy: Uuid,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const RateLookupResult = Type.Object({
  fromCurrency: Type.String(),
  toCurrency: Type.String(),
  rate: Nullable(ExchangeRate),
  effectiveRate: Nullable(Rate),
  derivation: Nullable(StringEnum(['Direct', 'Inverse', 'Triangulated', 'ComputedAverage'] as const)),
  legs: Type.Array(ExchangeRate),
});

const CreateRate = Type.Object({
  organizationId: Uuid,
  fromCurrency: CurrencyCode,
  toCurrency: CurrencyCode,
  rate: RateInput,
  effectiveDate: IsoDate,
  rateType: RateTypeSchema,
  source: RateSourceSchema,
});

const rateById = byId({
  tag: 'ExchangeRateIdNotFoundError',
  field: 'exchangeRateId',
  message: 'Exchange rate not found',
});
const tags = ['Exchange rates'];

const Pair = {
  organizationId: Uuid,
  fromCurrency: CurrencyCode,
  toCurrency: CurrencyCode,
};
const PeriodQuery = Type.Object({
  ...Pair,
  year: Type.Integer({ minimum: 1900, maximum: 2999 }),
  period: Type.Integer({ minimum: 1, maximum: 13 }),
  companyId: Type.Optional(Uuid),
});

/** 400 SameCurrencyExchangeRateError, checked with the syntax checks (before organization checks). */
function checkPair(q: { fromCurrency: string; toCurrency: string }): void {
  if (q.fromCurrency === q.toCurrency) throw rates.sameCurrencyError(q.fromCurrency);
}

/** Bulk syntax rules: one organization for every element, then SameCurrency of the first offender. */
function checkBulk(body: {
  rates: Array<{ organizationId: string; fromCurrency: string; toCurrency: string }>;
}) {
  const orgId = body.rates[0]!.organizationId;
  const issues: Issue[] = [];
  body.rates.forEach((r, i) => {
    if (r.organizationId !== orgId) {
      issues.push({
        path: `/rates/${i}/organizationId`,
        message: 'Every rate must carry the same organizationId',
      });
    }
  });
  if (issues.length > 0) throw new ValidationError(issues);
  for (const r of body.rates) checkPair(r);
}

/**
 * A rate look-up: a viewer's GET answering a `RateLookupResult`, its currency pair checked first (the
 * same currency on both sides answers 400 SameCurrencyExchangeRateError).
 */
function lookupRoute<Q extends TSchema>(
  app: RouteApp,
  lookup: {
    url: string;
    summary: string;
    description: string;
    errors?: readonly ErrorTag[];
    querystring: Q;
    find: (db: Db, access: Access, query: Static<Q>) => Promise<unknown>;
  },
): void {
  const { db } = app.deps;
  route(app, {
    method: 'GET',
    url: lookup.url,
    tags,
    summary: lookup.summary,
    description: lookup.description,
    access: 'exchange_rate:read',
    errors: lookup.errors ?? ['SameCurrencyExchangeRateError'],
    querystring: lookup.querystring,
    response: { 200: RateLookupResult },
    handler: async (request) => {
      const query = request.query as Static<Q>;
      checkPair(query as { fromCurrency: string; toCurrency: string });
      return lookup.find(db, request.access, query);
    },
  });
}

export const exchangeRateRoutes = routesPlugin(rateListRoutes, ratePeriodRoutes, rateWriteRoutes);

/** Rates: list, and the rate on a date, latest and closest. */
function rateListRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: '/api/v1/exchange-rates',
    tags,
    summary: 'List exchange rates',
    description:
      'Viewer. Without organizationId: every organization of the caller. Ordered by effectiveDate ' +
      'descending, fromCurrency, toCurrency, rate type (Spot, Average, Historical, YearEnd), id.',
    access: 'exchange_rate:read',
    errors: ['ValidationError'],
    querystring: Type.Object({
      organizationId: Type.Optional(Uuid),
      fromCurrency: Type.Optional(CurrencyCode),
      toCurrency: Type.Optional(CurrencyCode),
      rateType: Type.Optional(RateTypeSchema),
      source: Type.Optional(RateSourceSchema),
      startDate: Type.Optional(IsoDate),
      endDate: Type.Optional(IsoDate),
      ...PageQuery,
    }),
    response: { 200: Page('rates', ExchangeRate) },
    handler: async (request) => {
      const q = request.query;
      if (q.startDate !== undefined && q.endDate !== undefined && q.startDate > q.endDate) {
        throw new ValidationError([
          { path: '/query/startDate', message: 'startDate must not be after endDate' },
          { path: '/query/endDate', message: 'endDate must not be before startDate' },
        ]);
      }
      return rates.listRates(db, request.access, q, pageParams(q));
    },
  });

  lookupRoute(app, {
    url: '/api/v1/exchange-rates/rate',
    summary: 'Rate on a date',
    description: 'Viewer. The rate of that type effective exactly on effectiveDate.',
    querystring: Type.Object({ ...Pair, effectiveDate: IsoDate, rateType: RateTypeSchema }),
    find: rates.lookupOnDate,
  });

  lookupRoute(app, {
    url: '/api/v1/exchange-rates/latest',
    summary: 'Latest rate',
    description:
      'Viewer. The rate with the latest effectiveDate of that type; without rateType of any type ' +
      '(ties Spot, YearEnd, Average, Historical).',
    querystring: Type.Object({ ...Pair, rateType: Type.Optional(RateTypeSchema) }),
    find: rates.lookupLatest,
  });

  lookupRoute(app, {
    url: '/api/v1/exchange-rates/closest',
    summary: 'Closest rate',
    description:
      'Viewer. The rate nearest to date, earlier or later; at equal distance the earlier date; ' +
      'then the type order, then direct before inverse.',
    querystring: Type.Object({ ...Pair, date: IsoDate, rateType: Type.Optional(RateTypeSchema) }),
    find: rates.lookupClosest,
  });
}

/** Rates of a fiscal period (average, closing) and one rate by id. */
function ratePeriodRoutes(app: RouteApp): void {
  const { db } = app.deps;

  lookupRoute(app, {
    url: '/api/v1/exchange-rates/period-average',
    summary: 'Average rate of a fiscal period',
    description:
      'Viewer. The latest Average rate within the period (period 13: the whole year), else the ' +
      "mean of the period's Spot rates (ComputedAverage). Calendar: the company's when companyId " +
      "is given, else the organization's fiscalYearEnd.",
    errors: ['SameCurrencyExchangeRateError', 'CompanyNotFoundError'],
    querystring: PeriodQuery,
    find: rates.lookupPeriodAverage,
  });

  lookupRoute(app, {
    url: '/api/v1/exchange-rates/period-closing',
    summary: 'Closing rate of a fiscal period',
    description:
      "Viewer. The latest YearEnd or Spot rate (YearEnd preferred on the same date) on or before the period's end date.",
    errors: ['SameCurrencyExchangeRateError', 'CompanyNotFoundError'],
    querystring: PeriodQuery,
    find: rates.lookupPeriodClosing,
  });

  route(app, {
    method: 'GET',
    url: '/api/v1/exchange-rates/:id',
    tags,
    summary: 'Get an exchange rate',
    description: 'Viewer.',
    ...rateById,
    access: 'exchange_rate:read',
    errors: ['ExchangeRateIdNotFoundError'],
    response: { 200: ExchangeRate },
    handler: forId(db, rates.getRate),
  });
}

/** Rates: create, create in bulk, delete. */
function rateWriteRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'POST',
    url: '/api/v1/exchange-rates',
    tags,
    summary: 'Create an exchange rate',
    description: 'Member. One rate per organization, pair, effectiveDate and rateType.',
    access: 'exchange_rate:manage',
    errors: ['SameCurrencyExchangeRateError', 'ExchangeRateAlreadyExistsError'],
    validatorCompiler: withBodyCheck(checkPair),
    body: CreateRate,
    ...created(ExchangeRate),
    handler: async ({ access, body }) => rates.createRate(db, access, body),
  });

  route(app, {
    method: 'POST',
    url: '/api/v1/exchange-rates/bulk',
    tags,
    summary: 'Create exchange rates in bulk',
    description:
      'Member. 1–500 rates of one organization; all or nothing. Created rates are returned in request order.',
    access: 'exchange_rate:manage',
    errors: ['SameCurrencyExchangeRateError', 'ExchangeRateAlreadyExistsError'],
    validatorCompiler: withBodyCheck(checkBulk),
    body: Type.Object({ rates: Type.Array(CreateRate, { minItems: 1, maxItems: 500 }) }),
    ...created(BulkCreated(ExchangeRate)),
    handler: async ({ access, body }) => rates.bulkCreateRates(db, access, body.rates),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/v1/exchange-rates/:id',
    tags,
    summary: 'Delete an exchange rate',
    description:
      'Member. Refused (409) while a posted or reversed entry or a completed run uses the rate (any leg); ' +
      'lines of unposted entries that used it lose the reference.',
    ...rateById,
    access: 'exchange_rate:manage',
    errors: ['ExchangeRateIdNotFoundError', 'ExchangeRateInUseError'],
    ...noContent,
    handler: forId(db, rates.deleteRate),
  });
}
