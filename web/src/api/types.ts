/**
 * Names for the records the console shows, all derived from the generated OpenAPI types (never written
 * by hand): `Ok<path, method>` is the JSON body of the operation's success answer.
 */
import type { paths } from './schema.ts';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Success<R> = R extends { 200: infer A } ? A : R extends { 201: infer B } ? B : never;

export type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: infer R;
}
  ? Json<Success<R>>
  : never;

export type RequestBody<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

export type Me = Ok<'/api/auth/me', 'get'>;
export type Role = Me['memberships'][number]['role'];
export type Organization = Ok<'/api/v1/organizations/{id}', 'get'>;
export type Member = Ok<'/api/v1/organizations/{organizationId}/members', 'get'>['members'][number];
export type Company = Ok<'/api/v1/organizations/{organizationId}/companies/{companyId}', 'get'>;
export type Account = Ok<'/api/v1/accounts/organizations/{organizationId}/accounts/{id}', 'get'>;
export type TemplateSummary = Ok<'/api/v1/account-templates', 'get'>['templates'][number];
export type JournalEntry = Ok<'/api/v1/journal-entries/{id}', 'get'>;
export type JournalLine = JournalEntry['lines'][number];
export type EntryStatus = JournalEntry['status'];
export type Money = JournalEntry['totalDebits'];
/** The currency codes the API accepts (responses type them as plain strings). */
export type CurrencyCode = RequestBody<'/api/v1/organizations', 'post'>['reportingCurrency'];
export type FiscalYear = Ok<
  '/api/v1/organizations/{organizationId}/companies/{companyId}/fiscal-years/{fiscalYearId}',
  'get'
>;
export type FiscalPeriod = FiscalYear['periods'][number];
export type YearEndPreview = Ok<
  '/api/v1/organizations/{organizationId}/companies/{companyId}/fiscal-years/{fiscalYearId}/close/preview',
  'get'
>;
export type ExchangeRate = Ok<'/api/v1/exchange-rates/{id}', 'get'>;
export type RateType = ExchangeRate['rateType'];
export type RateSource = ExchangeRate['source'];
export type RateLookup = Ok<'/api/v1/exchange-rates/latest', 'get'>;
export type IntercompanyTransaction = Ok<'/api/v1/intercompany-transactions/{id}', 'get'>;
export type MatchingStatus = IntercompanyTransaction['matchingStatus'];
export type ConsolidationGroup = Ok<'/api/v1/consolidation/groups/{id}', 'get'>;
export type GroupMember = ConsolidationGroup['members'][number];
export type GroupStructure = Ok<'/api/v1/consolidation/groups/{id}/structure', 'get'>;
export type ConsolidationMethod = ConsolidationGroup['consolidationMethod'];
export type EliminationRule = Ok<'/api/v1/elimination-rules/{id}', 'get'>;
export type EliminationType = EliminationRule['eliminationType'];
export type AccountSelector = EliminationRule['sourceAccounts'][number];
export type ConsolidationRun = Ok<'/api/v1/consolidation/runs/{id}', 'get'>;
export type RunStep = ConsolidationRun['steps'][number];
export type ConsolidatedTrialBalance = Ok<'/api/v1/consolidation/runs/{id}/trial-balance', 'get'>;
export type ConsolidatedBalanceSheet = Ok<'/api/v1/consolidation/runs/{id}/reports/balance-sheet', 'get'>;
export type ConsolidatedIncomeStatement = Ok<
  '/api/v1/consolidation/runs/{id}/reports/income-statement',
  'get'
>;
export type ConsolidatedCashFlow = Ok<'/api/v1/consolidation/runs/{id}/reports/cash-flow', 'get'>;
export type ConsolidatedEquity = Ok<'/api/v1/consolidation/runs/{id}/reports/equity-statement', 'get'>;
export type TrialBalanceReport = Ok<'/api/v1/reports/trial-balance', 'get'>;
export type BalanceSheetReport = Ok<'/api/v1/reports/balance-sheet', 'get'>;
export type IncomeStatementReport = Ok<'/api/v1/reports/income-statement', 'get'>;
export type CashFlowReport = Ok<'/api/v1/reports/cash-flow', 'get'>;
export type EquityStatementReport = Ok<'/api/v1/reports/equity-statement', 'get'>;
export type ReportSection = BalanceSheetReport['currentAssets'];
export type ReportLine = ReportSection['lineItems'][number];
export type CashFlowSection = CashFlowReport['operatingActivities'];
export type EquityRow = EquityStatementReport['openingBalances'];
export type LineContributionsReport = Ok<
  '/api/v1/consolidation/runs/{id}/trial-balance/lines/{accountNumber}/contributions',
  'get'
>;
export type LineContributions = LineContributionsReport['lines'][number];
export type CompanyContribution = LineContributions['companies'][number];
