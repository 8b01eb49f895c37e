/**
 * The journal's hot-path SQL as prepared statements (db/client.ts `statement`): creating an entry and
 * moving it through the workflow are one read and one write statement each, instead of a transaction
 * of many builder queries. Each write is ONE statement — one transaction — whose data-modifying CTEs
 * all depend on a guard that re-checks, under the same row locks the transactional path takes, the
 * state the service validated: when the guard finds the state changed, the statement writes nothing
 * and returns no row, and the service falls back to its transactional path, which reports the error
 * of the new state (concurrent requests are serialised and each sees the state left by
 * the previous one).
 *
 * Results come back as table rows (`entryRowOf`) and the lines as a JSON array whose amounts are text
 * (`LINES_JSON`, `lineRowOf`): NUMERIC never passes through a JS number. This file holds those row
 * shapes; the statements are in create-statements.ts (the create context, read with the session or
 * alone, and the create) and workflow-statements.ts (submit, approve, reject, post, and an entry's
 * organization read with the session).
 */
import type { EntryRow, LineRow } from './repo.ts';

/** `journal_entries` columns (snake_case, as a statement returns them) → the Drizzle row shape. */
export function entryRowOf(r: Record<string, unknown>): EntryRow {
  return {
    id: r.id as string,
    organizationId: r.organization_id as string,
    companyId: r.company_id as string,
    entryNumber: Number(r.entry_number),
    referenceNumber: r.reference_number as string | null,
    description: r.description as string,
    transactionDate: r.transaction_date as string,
    documentDate: r.document_date as string | null,
    postingDate: r.posting_date as string | null,
    fiscalYear: Number(r.fiscal_year),
    fiscalPeriod: Number(r.fiscal_period),
    entryType: r.entry_type as string,
    sourceModule: r.source_module as string,
    sourceDocumentRef: r.source_document_ref as string | null,
    isMultiCurrency: r.is_multi_currency as boolean,
    status: r.status as string,
    isReversing: r.is_reversing as boolean,
    reversedEntryId: r.reversed_entry_id as string | null,
    reversingEntryId: r.reversing_entry_id as string | null,
    totalDebits: r.total_debits as string,
    totalCredits: r.total_credits as string,
    createdBy: r.created_by as string,
    submittedBy: r.submitted_by as string | null,
    submittedAt: r.submitted_at as Date | null,
    approvedBy: r.approved_by as string | null,
    approvedAt: r.approved_at as Date | null,
    rejectedBy: r.rejected_by as string | null,
    rejectedAt: r.rejected_at as Date | null,
    rejectionReason: r.rejection_reason as string | null,
    postedBy: r.posted_by as string | null,
    postedAt: r.posted_at as Date | null,
    reversedBy: r.reversed_by as string | null,
    reversedAt: r.reversed_at as Date | null,
    createdAt: r.created_at as Date,
    updatedAt: r.updated_at as Date,
  };
}

/**
 * A JSON array of the lines of relation `l` (a `journal_lines` row source), amounts and rates as
 * text, ordered by line number; `[]` when there are none.
 */
export const LINES_JSON = (l: string) => `coalesce(json_agg(json_build_object(
    'id', ${l}.id, 'organizationId', ${l}.organization_id, 'journalEntryId', ${l}.journal_entry_id,
    'companyId', ${l}.company_id, 'lineNumber', ${l}.line_number, 'accountId', ${l}.account_id,
    'currency', ${l}.currency, 'debitAmount', ${l}.debit_amount::text,
    'creditAmount', ${l}.credit_amount::text, 'functionalDebitAmount', ${l}.functional_debit_amount::text,
    'functionalCreditAmount', ${l}.functional_credit_amount::text, 'exchangeRate', ${l}.exchange_rate::text,
    'exchangeRateId', ${l}.exchange_rate_id, 'exchangeRateLegIds', ${l}.exchange_rate_leg_ids,
    'memo', ${l}.memo, 'dimensions', ${l}.dimensions, 'intercompanyPartnerId', ${l}.intercompany_partner_id)
    order by ${l}.line_number), '[]'::json)`;

/** A line of `LINES_JSON` → the Drizzle row shape. */
export function lineRowOf(j: Record<string, unknown>): LineRow {
  return {
    id: j.id as string,
    organizationId: j.organizationId as string,
    journalEntryId: j.journalEntryId as string,
    companyId: j.companyId as string,
    lineNumber: Number(j.lineNumber),
    accountId: j.accountId as string,
    currency: j.currency as string,
    debitAmount: j.debitAmount as string | null,
    creditAmount: j.creditAmount as string | null,
    functionalDebitAmount: j.functionalDebitAmount as string | null,
    functionalCreditAmount: j.functionalCreditAmount as string | null,
    exchangeRate: j.exchangeRate as string,
    exchangeRateId: j.exchangeRateId as string | null,
    exchangeRateLegIds: (j.exchangeRateLegIds as string[] | null) ?? [],
    memo: j.memo as string | null,
    dimensions: j.dimensions ?? null,
    intercompanyPartnerId: j.intercompanyPartnerId as string | null,
  };
}

/** An entry and its lines as stored. */
export interface StoredRows {
  row: EntryRow;
  lines: LineRow[];
}

/** A returned `journal_entries` row with its `lines` JSON column → entry and lines. */
export function entryWithLines(r: Record<string, unknown>): StoredRows {
  const lines = (typeof r.lines === 'string' ? JSON.parse(r.lines) : r.lines) as Record<string, unknown>[];
  return { row: entryRowOf(r), lines: lines.map(lineRowOf) };
}
