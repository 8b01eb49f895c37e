/** Foreign-currency revaluation: open balances per currency and revaluation runs of a company. */
import { type RouteApp, routesPlugin } from '../../http/route-app.ts';
import { RATE_TYPES } from '../../domain/rates.ts';
import { pageParams } from '../../http/pagination.ts';
import { route } from '../../http/route.ts';
import {
  IsoDate,
  Money,
  Nullable,
  Page,
  PageQuery,
  Rate,
  StringEnum,
  Timestamp,
  Type,
  Uuid,
} from '../../http/schemas.ts';
import { COMPANY_PATH, companyInPath } from '../companies/routes.ts';
import * as service from './service.ts';

/** Every revaluation route declares the three rules, whichever of the segments its path has. */
const pathIds = {
  ...companyInPath.pathIds,
  revaluationId: {
    tag: 'FxRevaluationNotFoundError',
    field: 'revaluationId',
    message: 'Revaluation not found',
  },
};
const tags = ['Foreign-currency revaluation'];
/** A company, or one of its revaluation runs, addressed by the path. */
const inCompany = { pathIds, params: companyInPath.params };
const inRun = {
  pathIds,
  params: Type.Object({ ...companyInPath.params.properties, revaluationId: Type.String() }),
};
const RateTypeSchema = StringEnum(RATE_TYPES);
const DifferenceKind = StringEnum(['Unrealized', 'Realized'] as const);

const BalanceLine = Type.Object({
  accountId: Uuid,
  accountNumber: Type.String(),
  accountName: Type.String(),
  accountType: Type.String(),
  currency: Type.String({ description: 'The transaction (foreign) currency of the balance' }),
  foreignAmount: Money,
  carryingAmount: Money,
  closingRate: Nullable(Rate),
  exchangeRateIds: Type.Array(Uuid),
  revaluedAmount: Nullable(Money),
  difference: Nullable(Money),
  differenceKind: Nullable(DifferenceKind),
});

const RateUsed = Type.Object({
  currency: Type.String(),
  rate: Rate,
  derivation: Type.String(),
  exchangeRateIds: Type.Array(Uuid),
});

const ForeignCurrencyBalances = Type.Object({
  companyId: Uuid,
  asOfDate: IsoDate,
  functionalCurrency: Type.String(),
  rateTypes: Type.Array(RateTypeSchema),
  balances: Type.Array(BalanceLine),
  rates: Type.Array(RateUsed),
  missingRates: Type.Array(Type.String()),
});

const FxRevaluation = Type.Object({
  id: Nullable(Uuid),
  organizationId: Uuid,
  companyId: Uuid,
  asOfDate: IsoDate,
  rateType: Nullable(RateTypeSchema),
  rateTypes: Type.Array(RateTypeSchema),
  autoReverse: Type.Boolean(),
  dryRun: Type.Boolean(),
  entryId: Nullable(Uuid),
  entryStatus: Nullable(Type.String()),
  reversalEntryId: Nullable(Uuid),
  reversalDate: Nullable(IsoDate),
  functionalCurrency: Type.String(),
  lines: Type.Array(BalanceLine),
  rates: Type.Array(RateUsed),
  totalUnrealized: Money,
  totalRealized: Money,
  createdBy: Uuid,
  createdAt: Nullable(Timestamp),
});

const RunBody = Type.Object({
  asOfDate: IsoDate,
  rateType: Type.Optional(RateTypeSchema),
  dryRun: Type.Optional(Type.Boolean({ default: false })),
  autoReverse: Type.Optional(Type.Boolean({ default: true })),
});

export const fxRevaluationRoutes = routesPlugin(revaluationRunRoutes, revaluationRecordRoutes);

/** Open foreign-currency balances and running a revaluation. */
function revaluationRunRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: `${COMPANY_PATH}/foreign-currency-balances`,
    tags,
    summary: 'Open foreign-currency balances',
    description:
      'Viewer. For every monetary account (asset or liability not marked non-monetary) and foreign ' +
      'transaction currency with an open balance on `asOfDate`: the foreign amount, its carrying ' +
      'amount in the functional currency (posted lines and earlier revaluations), the closing rate ' +
      '(by default the latest YearEnd, else Spot rate on or before the date; `rateType` to choose ' +
      'one type), the revalued amount and the difference a revaluation would book. A balance whose ' +
      'foreign amount is zero but whose carrying amount is not was settled: its difference is ' +
      '`Realized`. Currencies without a rate are listed in `missingRates` and their lines carry null ' +
      'figures.',
    ...inCompany,
    access: 'fx_revaluation:read',
    errors: ['OrganizationNotFoundError', 'CompanyNotFoundError'],
    querystring: Type.Object({ asOfDate: IsoDate, rateType: Type.Optional(RateTypeSchema) }),
    response: { 200: ForeignCurrencyBalances },
    handler: async ({ access, params, query }) =>
      service.foreignCurrencyBalances(db, access, params, {
        asOfDate: query.asOfDate,
        rateType: query.rateType,
      }),
  });

  route(app, {
    method: 'POST',
    url: `${COMPANY_PATH}/fx-revaluations`,
    tags,
    summary: 'Run a foreign-currency revaluation',
    description:
      'Admin. Restates every open foreign-currency balance of the monetary accounts at the closing ' +
      'rate of `asOfDate` and books the differences in ONE `Adjusting` entry (source ' +
      '`GeneralLedger`) dated `asOfDate`: one line per (account, currency) with a zero foreign ' +
      'amount and the difference in functional currency, against the unrealised gain/loss account ' +
      '(settled balances: the realised one). Posted directly when the organization does not require ' +
      'approval, otherwise a `Draft` that follows the journal workflow; with `autoReverse` (default) ' +
      'the unrealised lines are reversed by a second entry dated the next day. `dryRun` answers the ' +
      'same figures without writing anything. 400 ExchangeRateNotFoundError names a currency without ' +
      'rate; 400 FiscalPeriodClosedError when the period of the date (or of the reversal) is closed; ' +
      '400 FxGainLossAccountNotConfiguredError when the company lacks the account a difference needs; ' +
      '409 FxRevaluationPendingError while an earlier run of the company is not posted. Deleting the ' +
      'draft entry (DELETE /journal-entries/{id}) deletes the run and its draft reversal.',
    ...inCompany,
    access: 'fx_revaluation:run',
    errors: [
      'OrganizationNotFoundError',
      'CompanyNotFoundError',
      'CompanyInactiveError',
      'FiscalPeriodClosedError',
      'ExchangeRateNotFoundError',
      'FxGainLossAccountNotConfiguredError',
      'FxRevaluationPendingError',
      'ExchangeRateChangedError',
    ],
    body: RunBody,
    response: { 200: FxRevaluation },
    handler: async ({ access, params, body }) => service.runRevaluation(db, access, params, body),
  });
}

/** Revaluation runs: list, get. */
function revaluationRecordRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: `${COMPANY_PATH}/fx-revaluations`,
    tags,
    summary: 'List revaluation runs',
    description: 'Viewer. Newest `asOfDate` first.',
    ...inCompany,
    access: 'fx_revaluation:read',
    errors: ['OrganizationNotFoundError', 'CompanyNotFoundError'],
    querystring: Type.Object({ ...PageQuery }),
    response: { 200: Page('revaluations', FxRevaluation) },
    handler: async ({ access, params, query }) =>
      service.listRevaluations(db, access, params, pageParams(query)),
  });

  route(app, {
    method: 'GET',
    url: `${COMPANY_PATH}/fx-revaluations/:revaluationId`,
    tags,
    summary: 'Get a revaluation run',
    description: 'Viewer. The rates used (with their ids) and the figures per account and currency.',
    ...inRun,
    access: 'fx_revaluation:read',
    errors: ['OrganizationNotFoundError', 'CompanyNotFoundError', 'FxRevaluationNotFoundError'],
    response: { 200: FxRevaluation },
    handler: async ({ access, params }) => service.getRevaluation(db, access, params),
  });
}
