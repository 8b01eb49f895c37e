/** The types of event the service announces (the event log and webhooks). */

export const EVENT_TYPES = [
  'JournalEntryCreated',
  'JournalEntrySubmitted',
  'JournalEntryApproved',
  'JournalEntryRejected',
  'JournalEntryPosted',
  'JournalEntryReversed',
  'FiscalPeriodClosed',
  'FiscalPeriodReopened',
  'FiscalYearClosed',
  'ExchangeRateCreated',
  'IntercompanyTransactionMatchingStatusChanged',
  'ConsolidationRunCompleted',
  'ConsolidationRunFailed',
  'CompanyCreated',
  'CompanyDeactivated',
  'WebhookEndpointDisabled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
