/** Exchange rates, intercompany transactions, consolidation groups, elimination rules and runs. */
import {
  boolean,
  foreignKey,
  index,
  integer,
  json,
  jsonb,
  numeric,
  type PgColumn,
  pgTable,
  primaryKey,
  smallint,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import {
  amount,
  createdAt,
  day,
  groupRow,
  runRow,
  orgId,
  rate,
  sameOrgRef,
  tenantKey,
  tenantRow,
  timestamps,
  ts,
} from './columns.ts';
import { orgOwnedRow } from './core.ts';
import { accounts, companies } from './ledger.ts';

export const exchangeRates = pgTable(
  'exchange_rates',
  {
    ...orgOwnedRow(),
    fromCurrency: text('from_currency').notNull(),
    toCurrency: text('to_currency').notNull(),
    rate: rate('rate').notNull(),
    effectiveDate: day('effective_date').notNull(),
    rateType: text('rate_type').notNull(),
    source: text('source').notNull(),
    createdBy: uuid('created_by').notNull(),
    ...timestamps(),
  },
  (t) => [
    tenantKey(t),
    uniqueIndex('exchange_rates_uq').on(
      t.organizationId,
      t.fromCurrency,
      t.toCurrency,
      t.effectiveDate,
      t.rateType,
    ),
    index('exchange_rates_id_idx').on(t.id),
    index('exchange_rates_list_idx').on(t.organizationId, t.effectiveDate.desc()),
  ],
);

export const intercompanyTransactions = pgTable(
  'intercompany_transactions',
  {
    ...tenantRow(),
    fromCompanyId: uuid('from_company_id').notNull(),
    toCompanyId: uuid('to_company_id').notNull(),
    transactionType: text('transaction_type').notNull(),
    transactionDate: day('transaction_date').notNull(),
    amount: amount('amount').notNull(),
    currency: text('currency').notNull(),
    description: text('description'),
    fromJournalEntryId: uuid('from_journal_entry_id'),
    toJournalEntryId: uuid('to_journal_entry_id'),
    matchingStatus: text('matching_status').notNull().default('Unmatched'),
    varianceAmount: amount('variance_amount'),
    varianceCurrency: text('variance_currency'),
    varianceExplanation: text('variance_explanation'),
    isEliminated: boolean('is_eliminated').notNull().default(false),
    eliminatedByRunId: uuid('eliminated_by_run_id'),
    ...timestamps(),
  },
  (t) => [
    tenantKey(t),
    sameOrgRef(t.organizationId, t.fromCompanyId, companies),
    sameOrgRef(t.organizationId, t.toCompanyId, companies),
    index('intercompany_id_idx').on(t.id),
    index('intercompany_list_idx').on(t.organizationId, t.transactionDate.desc(), t.createdAt.desc(), t.id),
    index('intercompany_from_entry_idx').on(t.organizationId, t.fromJournalEntryId),
    index('intercompany_to_entry_idx').on(t.organizationId, t.toJournalEntryId),
  ],
);

export const consolidationGroups = pgTable(
  'consolidation_groups',
  {
    ...tenantRow(),
    name: text('name').notNull(),
    nameKey: text('name_key').notNull(),
    reportingCurrency: text('reporting_currency').notNull(),
    consolidationMethod: text('consolidation_method').notNull(),
    parentCompanyId: uuid('parent_company_id').notNull(),
    isActive: boolean('is_active').notNull().default(true),
    /** group account number (with a group chart) or parent account number for intercompany residuals */
    icDifferenceAccountNumber: text('ic_difference_account_number'),
    /** residuals up to this amount (reporting currency) are booked to that account */
    icDifferenceTolerance: amount('ic_difference_tolerance'),
    ...timestamps(),
  },
  (t) => [
    tenantKey(t),
    sameOrgRef(t.organizationId, t.parentCompanyId, companies),
    uniqueIndex('consolidation_groups_name_uq').on(t.organizationId, t.nameKey),
    index('consolidation_groups_id_idx').on(t.id),
  ],
);

/** A row of a group's, deleted with the group. */
const ofGroup = (t: { organizationId: PgColumn; groupId: PgColumn }) =>
  sameOrgRef(t.organizationId, t.groupId, consolidationGroups).onDelete('cascade');

export const consolidationMembers = pgTable(
  'consolidation_members',
  {
    organizationId: orgId(),
    groupId: uuid('group_id').notNull(),
    companyId: uuid('company_id').notNull(),
    ownershipPercentage: numeric('ownership_percentage', { precision: 5, scale: 2 }).notNull(),
    consolidationMethod: text('consolidation_method').notNull(),
    acquisitionDate: day('acquisition_date'),
    /** the member holding this one; null = the parent */
    heldByCompanyId: uuid('held_by_company_id'),
    /** acquisition data (consideration, investment account, NCI measurement, fair-value adjustments) */
    acquisition: jsonb('acquisition'),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.groupId, t.companyId] }),
    ofGroup(t),
    sameOrgRef(t.organizationId, t.companyId, companies),
    // A holder is a member of the same group: it cannot be removed while it holds others.
    foreignKey({
      name: 'consolidation_members_holder_fk',
      columns: [t.organizationId, t.groupId, t.heldByCompanyId],
      foreignColumns: [t.organizationId, t.groupId, t.companyId],
    }),
  ],
);

export const eliminationRules = pgTable(
  'elimination_rules',
  {
    ...groupRow(),
    name: text('name').notNull(),
    description: text('description'),
    eliminationType: text('elimination_type').notNull(),
    triggerConditions: jsonb('trigger_conditions').notNull(),
    sourceAccounts: jsonb('source_accounts').notNull(),
    targetAccounts: jsonb('target_accounts').notNull(),
    /** the company account debited, or null when the rule debits a group account */
    debitAccountId: uuid('debit_account_id'),
    /** the company account credited, or null when the rule credits a group account */
    creditAccountId: uuid('credit_account_id'),
    /** the group account (of the rule's own group chart) debited; exactly one of the two is set */
    debitGroupAccountId: uuid('debit_group_account_id'),
    /** the group account (of the rule's own group chart) credited; exactly one of the two is set */
    creditGroupAccountId: uuid('credit_group_account_id'),
    isAutomatic: boolean('is_automatic').notNull(),
    priority: integer('priority').notNull(),
    isActive: boolean('is_active').notNull().default(true),
    ...timestamps(),
  },
  (t) => [
    tenantKey(t),
    ofGroup(t),
    index('elimination_rules_id_idx').on(t.id),
    index('elimination_rules_group_idx').on(t.organizationId, t.groupId, t.priority, t.createdAt, t.id),
    index('elimination_rules_debit_idx').on(t.organizationId, t.debitAccountId),
    index('elimination_rules_credit_idx').on(t.organizationId, t.creditAccountId),
    // A group account a rule books to belongs to the rule's own group, and cannot be deleted while
    // the rule names it.
    foreignKey({
      name: 'elimination_rules_debit_group_account_fk',
      columns: [t.organizationId, t.groupId, t.debitGroupAccountId],
      foreignColumns: [groupAccounts.organizationId, groupAccounts.groupId, groupAccounts.id],
    }),
    foreignKey({
      name: 'elimination_rules_credit_group_account_fk',
      columns: [t.organizationId, t.groupId, t.creditGroupAccountId],
      foreignColumns: [groupAccounts.organizationId, groupAccounts.groupId, groupAccounts.id],
    }),
    index('elimination_rules_debit_group_idx').on(t.organizationId, t.debitGroupAccountId),
    index('elimination_rules_credit_group_idx').on(t.organizationId, t.creditGroupAccountId),
  ],
);

export const consolidationRuns = pgTable(
  'consolidation_runs',
  {
    ...groupRow(),
    year: integer('year').notNull(),
    period: smallint('period').notNull(),
    asOfDate: day('as_of_date').notNull(),
    yearStartDate: day('year_start_date').notNull(),
    reportingCurrency: text('reporting_currency').notNull(),
    status: text('status').notNull(),
    steps: jsonb('steps').notNull(),
    validationResult: jsonb('validation_result'),
    options: jsonb('options').notNull(),
    members: jsonb('members').notNull(),
    eliminations: jsonb('eliminations').notNull().default([]),
    exchangeRatesUsed: jsonb('exchange_rates_used').notNull().default([]),
    /** one analysis per member with acquisition data (completed runs) */
    acquisitionAnalysis: json('acquisition_analysis').notNull().default([]),
    totals: jsonb('totals'),
    initiatedBy: uuid('initiated_by').notNull(),
    /** The authenticated user who started the run (audit of background status changes). */
    requestedBy: uuid('requested_by').notNull(),
    initiatedAt: ts('initiated_at').notNull(),
    startedAt: ts('started_at'),
    completedAt: ts('completed_at'),
    totalDurationMs: integer('total_duration_ms'),
    errorMessage: text('error_message'),
    /** SHA-256 of the run's inputs (figures, rates used, structure, rules, group chart); completed runs */
    inputDigest: text('input_digest'),
    /** the closing view's eliminations as balanced journal entries (completed runs) */
    eliminationEntries: json('elimination_entries').notNull().default([]),
    /** ids of the top-side adjustments a completed run included */
    adjustmentIds: jsonb('adjustment_ids').notNull().default([]),
    /** The process that executes the run (Pending or InProgress): `host:pid:random`. */
    executorId: text('executor_id'),
    /**
     * The executor's lease: renewed while it executes; a Pending or InProgress run whose lease expired
     * was orphaned by a process that stopped, and is marked Failed (runs.lease.ts).
     */
    leaseExpiresAt: ts('lease_expires_at'),
    ...timestamps(),
  },
  (t) => [
    tenantKey(t),
    ofGroup(t),
    index('consolidation_runs_id_idx').on(t.id),
    index('consolidation_runs_lease_idx').on(t.leaseExpiresAt),
    index('consolidation_runs_group_idx').on(t.organizationId, t.groupId, t.year, t.period, t.status),
    index('consolidation_runs_list_idx').on(t.organizationId, t.initiatedAt.desc(), t.id),
  ],
);

/** A row of a run's, deleted with the run. */
const ofRun = (t: { organizationId: PgColumn; runId: PgColumn }) =>
  sameOrgRef(t.organizationId, t.runId, consolidationRuns).onDelete('cascade');

/** The two stored trial-balance views of a completed run (`closing`, `opening`). */
export const consolidationTrialBalances = pgTable(
  'consolidation_trial_balances',
  {
    ...runRow(),
    view: text('view').notNull(),
    data: jsonb('data').notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.runId, t.view] }), ofRun(t)],
);

/**
 * What each company, elimination, top-side adjustment and the NCI put on each line of a completed
 * run's two views (written with the trial balances; read one line at a time by account number).
 */
export const consolidationLineContributions = pgTable(
  'consolidation_line_contributions',
  {
    ...runRow(),
    view: text('view').notNull(),
    /** the line's id within the view (account number, or type|company for per-company lines) */
    lineId: text('line_id').notNull(),
    accountNumber: text('account_number').notNull(),
    /** the line's contributions in their stored form (domain/consolidation/contributions-codec.ts), as JSON text */
    data: text('data').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.runId, t.view, t.lineId] }),
    ofRun(t),
    index('consolidation_line_contributions_account_idx').on(
      t.organizationId,
      t.runId,
      t.view,
      t.accountNumber,
    ),
  ],
);

/** Rules applied by completed runs (the in-use check of rule deletion). */
export const runRuleApplications = pgTable(
  'run_rule_applications',
  {
    ...runRow(),
    ruleId: uuid('rule_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.runId, t.ruleId] }),
    ofRun(t),
    index('run_rule_applications_rule_idx').on(t.organizationId, t.ruleId),
  ],
);

/** Stored rates (every leg) used by completed runs (the in-use check of rate deletion). */
export const runRateUsages = pgTable(
  'run_rate_usages',
  {
    ...runRow(),
    exchangeRateId: uuid('exchange_rate_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.runId, t.exchangeRateId] }),
    ofRun(t),
    index('run_rate_usages_rate_idx').on(t.organizationId, t.exchangeRateId),
  ],
);

/** The group chart of accounts: accounts a group reports on, whatever its members' own numbering. */
export const groupAccounts = pgTable(
  'group_accounts',
  {
    ...groupRow(),
    accountNumber: text('account_number').notNull(),
    name: text('name').notNull(),
    accountType: text('account_type').notNull(),
    accountCategory: text('account_category').notNull(),
    cashFlowCategory: text('cash_flow_category'),
    isCashEquivalent: boolean('is_cash_equivalent').notNull().default(false),
    isNonMonetary: boolean('is_non_monetary').notNull().default(false),
    ...timestamps(),
  },
  (t) => [
    tenantKey(t),
    ofGroup(t),
    uniqueIndex('group_accounts_number_uq').on(t.organizationId, t.groupId, t.accountNumber),
    // the key elimination rules reference a group account by (it must be of the rule's group)
    uniqueIndex('group_accounts_group_id_uq').on(t.organizationId, t.groupId, t.id),
    index('group_accounts_id_idx').on(t.id),
  ],
);

/**
 * Mappings of members' accounts onto group accounts: explicit (`account_id`, one per company account
 * and group) or by a selector pattern (`pattern`, for one company or, company null, every member).
 */
export const groupAccountMappings = pgTable(
  'group_account_mappings',
  {
    ...groupRow(),
    groupAccountId: uuid('group_account_id').notNull(),
    companyId: uuid('company_id'),
    accountId: uuid('account_id'),
    pattern: text('pattern'),
    createdAt: createdAt(),
  },
  (t) => [
    tenantKey(t),
    ofGroup(t),
    sameOrgRef(t.organizationId, t.groupAccountId, groupAccounts),
    sameOrgRef(t.organizationId, t.accountId, accounts).onDelete('cascade'),
    uniqueIndex('group_account_mappings_account_uq').on(t.organizationId, t.groupId, t.accountId),
    index('group_account_mappings_group_idx').on(t.organizationId, t.groupId, t.createdAt, t.id),
    index('group_account_mappings_target_idx').on(t.organizationId, t.groupAccountId),
  ],
);

/**
 * Top-side adjustments: consolidation-only journal entries of a group for a period, on group accounts
 * (or account numbers without a group chart), lines optionally attributed to a member. Same workflow
 * as company journal entries; posted ones are immutable (a reversal is a new adjustment).
 */
export const consolidationAdjustments = pgTable(
  'consolidation_adjustments',
  {
    ...groupRow(),
    year: integer('year').notNull(),
    period: smallint('period').notNull(),
    description: text('description').notNull(),
    status: text('status').notNull(),
    recurring: boolean('recurring').notNull().default(false),
    /** [{accountNumber, companyId, debit, credit, description}] in the group's reporting currency */
    lines: jsonb('lines').notNull(),
    createdBy: uuid('created_by').notNull(),
    approvedBy: uuid('approved_by'),
    postedBy: uuid('posted_by'),
    postedAt: ts('posted_at'),
    reversalOfId: uuid('reversal_of_id'),
    reversedById: uuid('reversed_by_id'),
    ...timestamps(),
  },
  (t) => [
    tenantKey(t),
    ofGroup(t),
    index('consolidation_adjustments_id_idx').on(t.id),
    index('consolidation_adjustments_group_idx').on(t.organizationId, t.groupId, t.year, t.period),
  ],
);
