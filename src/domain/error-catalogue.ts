/**
 * The error catalogue: every `_tag` the API answers, with its HTTP status and the extra fields of its
 * body. Services refuse with the catalogue's constructors (`errors.CompanyNotFoundError(message,
 * fields)`), so a tag's status is declared here once; the OpenAPI document and its error tables read
 * the same data.
 */
import { DomainError, type ErrorFields } from './errors.ts';

export interface ErrorTagInfo {
  status: number;
  /** Extra fields of the body besides `_tag` and `message`: [name, type note]. */
  fields: Array<[string, string?]>;
}

const CATALOGUE = {
  ValidationError: { status: 400, fields: [['issues', 'array of {path, message}']] },
  UnauthorizedError: { status: 401, fields: [] },
  InvalidCredentialsError: { status: 401, fields: [] },
  ForbiddenError: {
    status: 403,
    fields: [
      ['resource', 'string, e.g. "JournalEntry"'],
      ['action', 'string, e.g. "journal_entry:approve"'],
      ['requiredRole'],
      ['currentRole', 'role | null'],
    ],
  },
  SegregationOfDutiesViolationError: { status: 403, fields: [['entryId'], ['userId']] },
  RouteNotFoundError: { status: 404, fields: [['method'], ['path']] },
  MethodNotAllowedError: { status: 405, fields: [['method'], ['allowedMethods', 'string[]']] },
  PayloadTooLargeError: { status: 413, fields: [['maxBytes', 'integer']] },
  RateLimitExceededError: { status: 429, fields: [['retryAfterSeconds', 'integer']] },
  InternalServerError: { status: 500, fields: [['requestId']] },
  ServiceUnavailableError: { status: 503, fields: [['requestId']] },
  AmountOutOfRangeError: { status: 409, fields: [] },
  IdempotencyKeyReusedError: { status: 409, fields: [['idempotencyKey']] },
  IdempotencyKeyInProgressError: { status: 409, fields: [['idempotencyKey']] },
  UserExistsError: { status: 409, fields: [['email']] },
  PasswordWeakError: { status: 400, fields: [['requirements', 'string[]']] },
  ChangePasswordError: { status: 400, fields: [] },
  OrganizationNotFoundError: { status: 404, fields: [['organizationId']] },
  OrganizationNameAlreadyExistsError: { status: 409, fields: [['name']] },
  OrganizationHasCompaniesError: { status: 409, fields: [['organizationId'], ['companyCount', 'integer']] },
  UserNotFoundByEmailError: { status: 404, fields: [['email']] },
  UserAlreadyMemberError: { status: 409, fields: [['userId'], ['organizationId']] },
  MembershipNotFoundError: { status: 404, fields: [['userId'], ['organizationId']] },
  OwnerCannotBeRemovedError: { status: 409, fields: [['organizationId']] },
  UserNotMemberOfOrganizationError: { status: 400, fields: [['userId'], ['organizationId']] },
  UserRoleInsufficientError: {
    status: 400,
    fields: [['userId'], ['organizationId'], ['requiredRole'], ['currentRole']],
  },
  CompanyNotFoundError: { status: 404, fields: [['companyId']] },
  CompanyNameAlreadyExistsError: { status: 409, fields: [['name'], ['organizationId']] },
  CompanyHasUnpostedEntriesError: { status: 409, fields: [['companyId'], ['unpostedEntryCount', 'integer']] },
  CompanyInactiveError: { status: 400, fields: [['companyId']] },
  FiscalYearEndChangeNotAllowedError: {
    status: 409,
    fields: [['companyId'], ['fiscalYearCount', 'integer']],
  },
  AccountNotFoundError: { status: 404, fields: [['accountId']] },
  TrialBalanceImportError: {
    status: 400,
    fields: [
      ['errors', 'array of {row (1-based, header excluded; 0: the header), column, message}'],
      ['errorCount', 'integer'],
    ],
  },
  UnbalancedTrialBalanceError: {
    status: 400,
    fields: [
      ['totalDebits', 'Money'],
      ['totalCredits', 'Money'],
      ['difference', 'Money'],
    ],
  },
  AccountNumberAlreadyExistsError: { status: 409, fields: [['accountNumber'], ['companyId']] },
  ParentAccountNotFoundError: { status: 404, fields: [['parentAccountId']] },
  ParentAccountDifferentCompanyError: {
    status: 400,
    fields: [['accountCompanyId'], ['parentAccountCompanyId']],
  },
  AccountTypeMismatchError: {
    status: 400,
    fields: [['accountType'], ['parentAccountId'], ['parentAccountType']],
  },
  CircularAccountReferenceError: { status: 400, fields: [['accountId'], ['parentAccountId']] },
  HasActiveChildAccountsError: { status: 409, fields: [['accountId'], ['childCount', 'integer']] },
  AccountInUseError: {
    status: 409,
    fields: [
      ['accountId'],
      ['reason', 'RetainedEarningsAccount, ChildAccounts, JournalEntryLines, EliminationRules'],
    ],
  },
  InvalidRetainedEarningsAccountError: {
    status: 400,
    fields: [['accountId', 'null when the account is being created'], ['accountType'], ['accountCategory']],
  },
  AccountTemplateNotFoundError: { status: 404, fields: [['templateType']] },
  AccountsAlreadyExistError: { status: 409, fields: [['companyId'], ['accountCount', 'integer']] },
  FiscalYearNotFoundError: { status: 404, fields: [['fiscalYearId']] },
  FiscalPeriodNotFoundError: { status: 404, fields: [['fiscalPeriodId']] },
  FiscalYearAlreadyExistsError: { status: 409, fields: [['companyId'], ['year', 'integer']] },
  YearAlreadyClosedError: { status: 409, fields: [['fiscalYearId'], ['year', 'integer']] },
  YearNotClosedError: { status: 400, fields: [['fiscalYearId'], ['year', 'integer'], ['currentStatus']] },
  InvalidPeriodStatusTransitionError: {
    status: 400,
    fields: [['fiscalPeriodId'], ['currentStatus'], ['targetStatus']],
  },
  UnpostedEntriesInPeriodError: {
    status: 409,
    fields: [
      ['companyId'],
      ['fiscalYear', 'integer'],
      ['periodNumber', 'integer | null; always null, because only year-end close raises this error'],
      ['unpostedEntryCount', 'integer'],
    ],
  },
  RetainedEarningsNotConfiguredError: { status: 400, fields: [['companyId']] },
  FiscalPeriodClosedError: {
    status: 400,
    fields: [
      ['companyId'],
      ['fiscalYear', 'integer'],
      ['periodNumber', 'integer'],
      ['periodStatus', 'always "Closed"'],
    ],
  },
  FiscalPeriodMismatchError: {
    status: 400,
    fields: [['transactionDate'], ['fiscalPeriod', 'PeriodRef'], ['expectedFiscalPeriod', 'PeriodRef']],
  },
  JournalEntryNotFoundError: { status: 404, fields: [['entryId']] },
  InvalidStatusTransitionError: {
    status: 400,
    fields: [['entryId'], ['operation'], ['currentStatus'], ['allowedStatuses', 'string[]']],
  },
  JournalEntryAlreadyReversedError: { status: 409, fields: [['entryId'], ['reversingEntryId']] },
  ClosingEntryReversalNotAllowedError: { status: 400, fields: [['entryId'], ['fiscalYearId']] },
  InvalidJournalLineAccountError: {
    status: 400,
    fields: [
      ['lineNumber', 'integer'],
      ['accountId'],
      ['reason', 'NotFound, DifferentCompany, Inactive, NotPostable'],
    ],
  },
  UnbalancedJournalEntryError: {
    status: 400,
    fields: [
      ['basis', 'transaction | functional'],
      ['totalDebits'],
      ['totalCredits'],
      ['difference', 'Money'],
    ],
  },
  ExchangeRateNotFoundError: {
    status: 400,
    fields: [['fromCurrency'], ['toCurrency'], ['date'], ['rateType']],
  },
  ExchangeRateIdNotFoundError: { status: 404, fields: [['exchangeRateId']] },
  WebhookEndpointNotFoundError: { status: 404, fields: [['endpointId']] },
  WebhookDeliveryNotFoundError: { status: 404, fields: [['deliveryId']] },
  SameCurrencyExchangeRateError: { status: 400, fields: [['currency']] },
  ExchangeRateAlreadyExistsError: {
    status: 409,
    fields: [['fromCurrency'], ['toCurrency'], ['effectiveDate'], ['rateType']],
  },
  ExchangeRateInUseError: {
    status: 409,
    fields: [['exchangeRateId'], ['journalEntryCount', 'integer'], ['consolidationRunCount', 'integer']],
  },
  IntercompanyTransactionNotFoundError: { status: 404, fields: [['transactionId']] },
  SameCompanyIntercompanyError: { status: 400, fields: [['companyId']] },
  IntercompanyTransactionCannotBeDeletedError: {
    status: 409,
    fields: [['transactionId'], ['matchingStatus'], ['isEliminated', 'boolean']],
  },
  IntercompanyTransactionNotEditableError: {
    status: 409,
    fields: [['transactionId'], ['matchingStatus'], ['isEliminated', 'boolean'], ['fields', 'string[]']],
  },
  IntercompanyJournalEntryMismatchError: {
    status: 400,
    fields: [['journalEntryId'], ['expectedCompanyId'], ['actualCompanyId']],
  },
  ConsolidationGroupNotFoundError: { status: 404, fields: [['consolidationGroupId']] },
  ConsolidationGroupNameAlreadyExistsError: { status: 409, fields: [['name'], ['organizationId']] },
  ConsolidationGroupHasCompletedRunsError: {
    status: 409,
    fields: [['groupId'], ['completedRunCount', 'integer']],
  },
  ConsolidationGroupInactiveError: { status: 400, fields: [['groupId']] },
  ConsolidationMemberAlreadyExistsError: { status: 409, fields: [['groupId'], ['companyId']] },
  ConsolidationMemberNotFoundError: { status: 404, fields: [['groupId'], ['companyId']] },
  ConsolidationMemberHoldsOthersError: {
    status: 409,
    fields: [['groupId'], ['companyId'], ['heldCompanyIds', 'uuid[]']],
  },
  ConsolidationRunNotFoundError: { status: 404, fields: [['runId']] },
  ConsolidationRunExistsForPeriodError: {
    status: 409,
    fields: [['groupId'], ['year', 'integer'], ['period', 'integer'], ['existingRunId']],
  },
  ConsolidationRunInProgressError: { status: 409, fields: [['groupId'], ['existingRunId']] },
  ConsolidationRunCannotBeCancelledError: { status: 400, fields: [['runId'], ['currentStatus']] },
  ConsolidationRunCannotBeDeletedError: { status: 409, fields: [['runId'], ['currentStatus']] },
  ConsolidationRunNotCompletedError: { status: 409, fields: [['runId'], ['currentStatus']] },
  ConsolidatedLineNotFoundError: { status: 404, fields: [['runId'], ['view'], ['accountNumber']] },
  ContributionsNotRecordedError: { status: 409, fields: [['runId']] },
  ConsolidationRunComparisonError: { status: 400, fields: [['runId'], ['otherRunId']] },
  GroupAccountNotFoundError: { status: 404, fields: [['groupAccountId']] },
  ConsolidationAdjustmentNotFoundError: { status: 404, fields: [['adjustmentId']] },
  ConsolidationAdjustmentUnbalancedError: { status: 400, fields: [['totalDebit'], ['totalCredit']] },
  GroupAccountNumberAlreadyExistsError: { status: 409, fields: [['accountNumber'], ['groupId']] },
  GroupAccountInUseError: {
    status: 409,
    fields: [['groupAccountId'], ['reason', 'Mappings, IntercompanyDifferenceAccount, EliminationRules']],
  },
  GroupAccountMappingNotFoundError: { status: 404, fields: [['mappingId']] },
  GroupAccountMappingExistsError: { status: 409, fields: [['accountId'], ['mappingId']] },
  EliminationRuleNotFoundError: { status: 404, fields: [['eliminationRuleId']] },
  EliminationRuleOperationFailedError: {
    status: 400,
    fields: [
      ['operation', 'string: create, bulkCreate, update, approveForRun'],
      ['reason', 'string'],
    ],
  },
  EliminationRuleInUseError: {
    status: 409,
    fields: [['eliminationRuleId'], ['completedRunCount', 'integer']],
  },
  InvalidReportPeriodError: { status: 400, fields: [['periodStart'], ['periodEnd', 'dates']] },
  ReportCurrencyNotSupportedError: {
    status: 400,
    fields: [['report'], ['currency'], ['functionalCurrency']],
  },
  InvalidFxGainLossAccountError: {
    status: 400,
    fields: [['accountId'], ['setting', 'the company setting'], ['accountType']],
  },
  FxGainLossAccountNotConfiguredError: {
    status: 400,
    fields: [['companyId'], ['setting', 'unrealizedFxGainLossAccountId | realizedFxGainLossAccountId']],
  },
  FxRevaluationPendingError: { status: 409, fields: [['companyId'], ['revaluationId'], ['entryId']] },
  FxRevaluationNotFoundError: { status: 404, fields: [['revaluationId']] },
  ExchangeRateChangedError: { status: 409, fields: [['companyId']] },
} satisfies Record<string, ErrorTagInfo>;

export type ErrorTag = keyof typeof CATALOGUE;

export const ERROR_CATALOGUE: Record<string, ErrorTagInfo> = CATALOGUE;

type ErrorConstructor = (
  message: string,
  fields?: ErrorFields,
  headers?: Record<string, string>,
) => DomainError;

/** One constructor per tag, carrying the tag's status. */
export const errors = Object.fromEntries(
  Object.entries(CATALOGUE).map(([tag, info]) => [
    tag,
    (message: string, fields: ErrorFields = {}, headers?: Record<string, string>) =>
      new DomainError(info.status, tag, message, fields, headers),
  ]),
) as Record<ErrorTag, ErrorConstructor>;
