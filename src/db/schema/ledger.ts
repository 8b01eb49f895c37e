/**
 * Companies, charts of accounts, fiscal calendars, journal entries and posted balances.
 *
 * Tenant tables carry `organization_id` in their primary key (distributable by organization on
 * Citus-style PostgreSQL) and have a plain index on `id` for by-id lookups. References between
 * tenant tables are composite foreign keys that include `organization_id`, so no row can point into
 * another organization.
 */
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import {
  amount,
  balanceKey,
  companyRow,
  createdAt,
  day,
  id,
  orgId,
  rate,
  sameOrgRef,
  tenantKey,
  tenantRow,
  timestamps,
  ts,
} from './columns.ts';
import { organizations } from './core.ts';

export const companies = pgTable(
  'companies',
  {
    id: id().notNull(),
    organizationId: orgId().references(() => organizations.id),
    name: text('name').notNull(),
    nameKey: text('name_key').notNull(),
    legalName: text('legal_name').notNull(),
    jurisdiction: text('jurisdiction').notNull(),
    taxId: text('tax_id'),
    incorporationDate: day('incorporation_date'),
    registrationNumber: text('registration_number'),
    registeredAddress: jsonb('registered_address'),
    industryCode: text('industry_code'),
    companyType: text('company_type'),
    incorporationJurisdiction: text('incorporation_jurisdiction'),
    functionalCurrency: text('functional_currency').notNull(),
    reportingCurrency: text('reporting_currency').notNull(),
    fiscalYearEndMonth: smallint('fiscal_year_end_month').notNull(),
    fiscalYearEndDay: smallint('fiscal_year_end_day').notNull(),
    retainedEarningsAccountId: uuid('retained_earnings_account_id'),
    /** Where period-end revaluation books unrealised exchange differences (null: not configured). */
    unrealizedFxGainLossAccountId: uuid('unrealized_fx_gain_loss_account_id'),
    /** Where revaluation books the residual of a foreign balance that was settled (realised). */
    realizedFxGainLossAccountId: uuid('realized_fx_gain_loss_account_id'),
    isActive: boolean('is_active').notNull().default(true),
    ...timestamps(),
  },
  (t) => [
    tenantKey(t),
    uniqueIndex('companies_name_uq').on(t.organizationId, t.nameKey),
    index('companies_id_idx').on(t.id),
  ],
);

export const accounts = pgTable(
  'accounts',
  {
    ...companyRow(),
    accountNumber: text('account_number').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    accountType: text('account_type').notNull(),
    accountCategory: text('account_category').notNull(),
    parentAccountId: uuid('parent_account_id'),
    hierarchyLevel: smallint('hierarchy_level').notNull().default(1),
    isPostable: boolean('is_postable').notNull().default(true),
    isActive: boolean('is_active').notNull().default(true),
    isIntercompany: boolean('is_intercompany').notNull().default(false),
    intercompanyPartnerId: uuid('intercompany_partner_id'),
    cashFlowCategory: text('cash_flow_category'),
    isCashEquivalent: boolean('is_cash_equivalent').notNull().default(false),
    isNonMonetary: boolean('is_non_monetary').notNull().default(false),
    ...timestamps(),
    deactivatedAt: ts('deactivated_at'),
  },
  (t) => [
    tenantKey(t),
    sameOrgRef(t.organizationId, t.companyId, companies),
    uniqueIndex('accounts_number_uq').on(t.organizationId, t.companyId, t.accountNumber),
    index('accounts_id_idx').on(t.id),
    index('accounts_parent_idx').on(t.organizationId, t.parentAccountId),
  ],
);

/**
 * Per company, the version of its chart of accounts: raised by triggers on `accounts` in every
 * transaction that inserts, changes or deletes one of its accounts (migration 0016), so that whoever
 * reads the version in a snapshot knows whether a chart read before, at that version, is still the
 * chart. No row: the chart has not changed since the triggers exist (version 0).
 */
export const accountChartVersions = pgTable(
  'account_chart_versions',
  {
    organizationId: orgId(),
    companyId: uuid('company_id').notNull(),
    version: bigint('version', { mode: 'bigint' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.companyId] }),
    sameOrgRef(t.organizationId, t.companyId, companies),
  ],
);

export const fiscalYears = pgTable(
  'fiscal_years',
  {
    ...companyRow(),
    year: integer('year').notNull(),
    name: text('name').notNull(),
    startDate: day('start_date').notNull(),
    endDate: day('end_date').notNull(),
    status: text('status').notNull().default('Open'),
    closedBy: uuid('closed_by'),
    closedAt: ts('closed_at'),
    ...timestamps(),
  },
  (t) => [
    tenantKey(t),
    sameOrgRef(t.organizationId, t.companyId, companies),
    uniqueIndex('fiscal_years_company_year_uq').on(t.organizationId, t.companyId, t.year),
    index('fiscal_years_id_idx').on(t.id),
  ],
);

export const fiscalPeriods = pgTable(
  'fiscal_periods',
  {
    ...companyRow(),
    fiscalYearId: uuid('fiscal_year_id').notNull(),
    fiscalYear: integer('fiscal_year').notNull(),
    periodNumber: smallint('period_number').notNull(),
    name: text('name').notNull(),
    periodType: text('period_type').notNull(),
    startDate: day('start_date').notNull(),
    endDate: day('end_date').notNull(),
    status: text('status').notNull().default('Open'),
    closedBy: uuid('closed_by'),
    closedAt: ts('closed_at'),
    ...timestamps(),
  },
  (t) => [
    tenantKey(t),
    sameOrgRef(t.organizationId, t.fiscalYearId, fiscalYears).onDelete('cascade'),
    uniqueIndex('fiscal_periods_year_number_uq').on(t.organizationId, t.fiscalYearId, t.periodNumber),
    index('fiscal_periods_company_idx').on(t.organizationId, t.companyId, t.fiscalYear, t.periodNumber),
    index('fiscal_periods_id_idx').on(t.id),
  ],
);

export const periodReopenHistory = pgTable(
  'period_reopen_history',
  {
    ...companyRow(),
    periodId: uuid('period_id').notNull(),
    reason: text('reason'),
    reopenedBy: uuid('reopened_by').notNull(),
    reopenedAt: ts('reopened_at').notNull().defaultNow(),
    previousStatus: text('previous_status').notNull().default('Closed'),
  },
  (t) => [
    tenantKey(t),
    index('period_reopen_history_period_idx').on(t.organizationId, t.periodId, t.reopenedAt.desc()),
  ],
);

/** Per-company journal-entry number counter, locked and incremented in the creating transaction. */
export const entryCounters = pgTable(
  'entry_counters',
  {
    organizationId: orgId(),
    companyId: uuid('company_id').notNull(),
    lastNumber: integer('last_number').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.companyId] })],
);

export const journalEntries = pgTable(
  'journal_entries',
  {
    ...companyRow(),
    /** Sequence number within the company; rendered as `JE-0001`. */
    entryNumber: integer('entry_number').notNull(),
    referenceNumber: text('reference_number'),
    description: text('description').notNull(),
    transactionDate: day('transaction_date').notNull(),
    documentDate: day('document_date'),
    postingDate: day('posting_date'),
    fiscalYear: integer('fiscal_year').notNull(),
    fiscalPeriod: smallint('fiscal_period').notNull(),
    entryType: text('entry_type').notNull().default('Standard'),
    sourceModule: text('source_module').notNull().default('GeneralLedger'),
    sourceDocumentRef: text('source_document_ref'),
    isMultiCurrency: boolean('is_multi_currency').notNull().default(false),
    status: text('status').notNull().default('Draft'),
    isReversing: boolean('is_reversing').notNull().default(false),
    reversedEntryId: uuid('reversed_entry_id'),
    reversingEntryId: uuid('reversing_entry_id'),
    totalDebits: amount('total_debits').notNull(),
    totalCredits: amount('total_credits').notNull(),
    createdBy: uuid('created_by').notNull(),
    submittedBy: uuid('submitted_by'),
    submittedAt: ts('submitted_at'),
    approvedBy: uuid('approved_by'),
    approvedAt: ts('approved_at'),
    rejectedBy: uuid('rejected_by'),
    rejectedAt: ts('rejected_at'),
    rejectionReason: text('rejection_reason'),
    postedBy: uuid('posted_by'),
    postedAt: ts('posted_at'),
    reversedBy: uuid('reversed_by'),
    reversedAt: ts('reversed_at'),
    ...timestamps(),
  },
  (t) => [
    tenantKey(t),
    sameOrgRef(t.organizationId, t.companyId, companies),
    uniqueIndex('journal_entries_number_uq').on(t.organizationId, t.companyId, t.entryNumber),
    index('journal_entries_id_idx').on(t.id),
    index('journal_entries_list_idx').on(
      t.organizationId,
      t.transactionDate.desc(),
      t.entryNumber.desc(),
      t.id,
    ),
    index('journal_entries_company_status_idx').on(
      t.organizationId,
      t.companyId,
      t.status,
      t.transactionDate,
    ),
    index('journal_entries_company_period_idx').on(
      t.organizationId,
      t.companyId,
      t.fiscalYear,
      t.fiscalPeriod,
    ),
  ],
);

export const journalLines = pgTable(
  'journal_lines',
  {
    ...tenantRow(),
    journalEntryId: uuid('journal_entry_id').notNull(),
    companyId: uuid('company_id').notNull(),
    lineNumber: smallint('line_number').notNull(),
    accountId: uuid('account_id').notNull(),
    /** Transaction currency of the line. */
    currency: text('currency').notNull(),
    debitAmount: amount('debit_amount'),
    creditAmount: amount('credit_amount'),
    functionalDebitAmount: amount('functional_debit_amount'),
    functionalCreditAmount: amount('functional_credit_amount'),
    exchangeRate: rate('exchange_rate').notNull(),
    exchangeRateId: uuid('exchange_rate_id'),
    exchangeRateLegIds: uuid('exchange_rate_leg_ids').array().notNull().default([]),
    memo: text('memo'),
    dimensions: jsonb('dimensions'),
    intercompanyPartnerId: uuid('intercompany_partner_id'),
  },
  (t) => [
    tenantKey(t),
    sameOrgRef(t.organizationId, t.journalEntryId, journalEntries).onDelete('cascade'),
    sameOrgRef(t.organizationId, t.accountId, accounts),
    uniqueIndex('journal_lines_entry_line_uq').on(t.organizationId, t.journalEntryId, t.lineNumber),
    index('journal_lines_account_idx').on(t.organizationId, t.accountId),
  ],
);

/**
 * Posted balances: functional debit and credit totals of the lines of `Posted` and
 * `Reversed` entries, per account and transaction date, split by fiscal period (period 13 entries
 * share dates with regular ones) and by whether the entry is closing-related (an entry of type
 * `Closing` or a reversal of one). Keyed by date so that every report and consolidation query —
 * balances at any date, activity in any range, with or without closing entries, per group period or
 * per historical-rate date — is one aggregation over this table, whose size grows with accounts × days
 * with activity, not with the number of entries.
 */
export const accountBalances = pgTable(
  'account_balances',
  {
    ...balanceKey(),
    balanceDate: day('balance_date').notNull(),
    fiscalYear: integer('fiscal_year').notNull(),
    fiscalPeriod: smallint('fiscal_period').notNull(),
    isClosing: boolean('is_closing').notNull(),
    debitTotal: amount('debit_total').notNull(),
    creditTotal: amount('credit_total').notNull(),
  },
  (t) => [
    primaryKey({
      columns: [
        t.organizationId,
        t.companyId,
        t.accountId,
        t.balanceDate,
        t.fiscalYear,
        t.fiscalPeriod,
        t.isClosing,
      ],
    }),
    index('account_balances_company_date_idx').on(t.organizationId, t.companyId, t.balanceDate),
  ],
);

/**
 * Monthly roll-up of `account_balances` (same totals, summed per calendar month of the transaction
 * date, apart for adjustment-period entries), written in the same statement sequence as the daily
 * rows. Reports and consolidation runs read whole months from here and only the months cut by one of
 * their dates from the daily rows, so a balance at a month end costs accounts × months, however many
 * entries and days the ledger holds. `is_adjustment` (fiscal period 13) lets a run leave out the
 * adjustment entries of the current year without reading daily rows. The (company, month)
 * index serves reads of the months before a date (a consolidation run's opening view) without
 * scanning every month of the companies' accounts.
 */
export const accountMonthBalances = pgTable(
  'account_month_balances',
  {
    ...balanceKey(),
    monthStart: day('month_start').notNull(),
    isClosing: boolean('is_closing').notNull(),
    isAdjustment: boolean('is_adjustment').notNull(),
    debitTotal: amount('debit_total').notNull(),
    creditTotal: amount('credit_total').notNull(),
  },
  (t) => [
    primaryKey({
      columns: [t.organizationId, t.companyId, t.accountId, t.monthStart, t.isClosing, t.isAdjustment],
    }),
    index('account_month_balances_company_month_idx').on(t.organizationId, t.companyId, t.monthStart),
  ],
);

/**
 * Posted balances per transaction currency, for the lines whose currency is not the company's
 * functional currency: per account, currency and transaction date, the net foreign amount
 * (debits − credits in that currency) and the net functional amount (the carrying amount those lines
 * and the revaluations of the currency add). Written by the same posting SQL as `account_balances`
 * (ledger/posting.ts), so a revaluation reads these rows, never the lines. Functional-currency lines
 * are left out: they never need revaluing, and the hot path of a domestic entry writes nothing here.
 */
export const accountCurrencyBalances = pgTable(
  'account_currency_balances',
  {
    ...balanceKey(),
    currency: text('currency').notNull(),
    balanceDate: day('balance_date').notNull(),
    foreignNet: amount('foreign_net').notNull(),
    functionalNet: amount('functional_net').notNull(),
  },
  (t) => [
    primaryKey({
      columns: [t.organizationId, t.companyId, t.accountId, t.currency, t.balanceDate],
    }),
    index('account_currency_balances_company_date_idx').on(t.organizationId, t.companyId, t.balanceDate),
  ],
);

/** Monthly roll-up of `account_currency_balances` (same nets summed per calendar month). */
export const accountCurrencyMonthBalances = pgTable(
  'account_currency_month_balances',
  {
    ...balanceKey(),
    currency: text('currency').notNull(),
    monthStart: day('month_start').notNull(),
    foreignNet: amount('foreign_net').notNull(),
    functionalNet: amount('functional_net').notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.companyId, t.monthStart, t.accountId, t.currency] })],
);

/**
 * Foreign-currency revaluation runs: the date, the rates used and the figures per account and
 * currency, with the journal entries they booked. Deleting the draft revaluation entry deletes the
 * run (the foreign key cascades).
 */
export const fxRevaluations = pgTable(
  'fx_revaluations',
  {
    ...companyRow(),
    asOfDate: day('as_of_date').notNull(),
    rateType: text('rate_type'),
    autoReverse: boolean('auto_reverse').notNull(),
    entryId: uuid('entry_id'),
    reversalEntryId: uuid('reversal_entry_id'),
    lines: jsonb('lines').notNull(),
    rates: jsonb('rates').notNull(),
    createdBy: uuid('created_by').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    tenantKey(t),
    sameOrgRef(t.organizationId, t.companyId, companies),
    sameOrgRef(t.organizationId, t.entryId, journalEntries).onDelete('cascade'),
    index('fx_revaluations_company_idx').on(t.organizationId, t.companyId, t.asOfDate.desc(), t.id),
    index('fx_revaluations_id_idx').on(t.id),
    index('fx_revaluations_entry_idx').on(t.organizationId, t.entryId),
    index('fx_revaluations_reversal_idx').on(t.organizationId, t.reversalEntryId),
  ],
);

/**
 * Trial-balance imports of a company: who loaded which file (its SHA-256 digest and row count), in
 * which mode and as of which date, and the posted entries it produced (none when the file matched the
 * books; several when it changes more accounts than one entry may have lines).
 */
export const trialBalanceImports = pgTable(
  'trial_balance_imports',
  {
    ...companyRow(),
    mode: text('mode').notNull(),
    asOfDate: day('as_of_date').notNull(),
    sourceFormat: text('source_format').notNull(),
    fileDigest: text('file_digest').notNull(),
    rowCount: integer('row_count').notNull(),
    createdAccountCount: integer('created_account_count').notNull().default(0),
    totalDebits: amount('total_debits').notNull(),
    totalCredits: amount('total_credits').notNull(),
    journalEntryId: uuid('journal_entry_id'),
    /** Every entry posted, in number order (`journalEntryId` is the first). */
    journalEntryIds: uuid('journal_entry_ids').array().notNull().default([]),
    createdBy: uuid('created_by').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    tenantKey(t),
    sameOrgRef(t.organizationId, t.companyId, companies),
    sameOrgRef(t.organizationId, t.journalEntryId, journalEntries),
    index('trial_balance_imports_company_idx').on(t.organizationId, t.companyId, t.createdAt),
    index('trial_balance_imports_id_idx').on(t.id),
  ],
);
