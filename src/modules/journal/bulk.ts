/**
 * Bulk creation of journal entries: up to 1,000 entries (50,000 lines) in ONE transaction — all are
 * written or none. Every entry passes the checks of a single create (R1–R6, checks.ts) in request
 * order, with the reads shared: each company is share-locked and each organization's accounts and
 * partner companies read once, each fiscal period locked once. The first refusal is reported with the
 * index of its entry (`entryIndex`; validation paths start with `/entries/{index}`) and nothing is
 * written.
 *
 * The entries of a company then draw consecutive numbers in request order from ONE update of the
 * company's counter (so numbers stay gap-free: a failed request rolls the counter back), and headers,
 * lines and audit entries are written by multi-row statements. With `postImmediately` the entries are
 * written posted — for organizations that do not require approval, under the segregation rule of a
 * post — and their lines enter the balances through one batched posting statement
 * (ledger/posting.ts).
 */
import { sql } from 'drizzle-orm';
import { type Db, inTransaction, type Tx } from '../../db/client.ts';
import { todayIn } from '../../domain/dates.ts';
import { DomainError, type Issue } from '../../domain/errors.ts';
import { CLOSING_ENTRY_TYPE, type PeriodRef } from '../../domain/journal/rules.ts';
import {
  INITIAL_STATUS,
  MOVES,
  segregationRefusal,
  transitionRefusal,
} from '../../domain/journal/workflow.ts';
import type { Access } from '../../http/access.ts';
import { type AuditInput, recordAudit } from '../audit/service.ts';
import type { CompanyRow } from '../companies/lookup.ts';
import { recordJournalEvents } from '../events/record.ts';
import { addEntriesToBalances } from '../ledger/posting.ts';
import { organizationSettings } from '../organizations/service.ts';
import { checkCompany, checkLineAccountsWith, lockPeriod, refuseIf, resolveFiscalPeriod } from './checks.ts';
import { type CreateEntryInput, newEntry } from './entries.ts';
import { draftFromInput, partnerIdsOf } from './lines.ts';
import { entryRecord, type JournalEntryRecord } from './records.ts';
import type { EntryRow, LineRow, NewLineRow } from './repo.ts';
import * as repo from './repo.ts';

export const MAX_BULK_ENTRIES = 1000;
export const MAX_BULK_LINES = 50_000;

export interface BulkCreateInput {
  entries: CreateEntryInput[];
  postImmediately?: boolean | undefined;
}

/** The body rule JSON Schema cannot state: at most 50,000 lines in all. */
export function bulkBodyIssues(body: { entries?: { lines?: unknown[] }[] }): Issue[] {
  const lines = (body.entries ?? []).reduce((n, e) => n + (e.lines?.length ?? 0), 0);
  return lines > MAX_BULK_LINES
    ? [{ path: '/entries', message: `At most ${MAX_BULK_LINES} lines in all (found ${lines})` }]
    : [];
}

/** The error of entry `index`: its fields name the entry, its validation paths start at the entry. */
function ofEntry(err: unknown, index: number): unknown {
  if (!(err instanceof DomainError)) return err;
  const fields: Record<string, unknown> = { ...err.fields, entryIndex: index };
  if (Array.isArray(err.fields.issues)) {
    fields.issues = (err.fields.issues as Issue[]).map((i) => ({
      ...i,
      path: `/entries/${index}${i.path}`,
    }));
  }
  return new DomainError(err.status, err.tag, err.message, fields, err.headers);
}

async function forEntry<T>(index: number, fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw ofEntry(err, index);
  }
}

interface Prepared {
  index: number;
  company: CompanyRow;
  entry: Awaited<ReturnType<typeof newEntry>>['entry'];
  lines: NewLineRow[];
  entryNumber: number;
}

export async function createEntries(
  db: Db,
  access: Access,
  input: BulkCreateInput,
): Promise<{ entries: JournalEntryRecord[] }> {
  const post = input.postImmediately === true;
  const organizations = [...new Set(input.entries.map((e) => e.organizationId))];
  const settings = new Map<string, Awaited<ReturnType<typeof organizationSettings>>>();
  for (const organizationId of organizations) {
    const first = input.entries.findIndex((e) => e.organizationId === organizationId);
    await forEntry(first, async () => {
      await access.authorize(organizationId, post ? 'journal_entry:post' : 'journal_entry:edit');
      if (post) settings.set(organizationId, await organizationSettings(db, organizationId, access));
    });
  }
  return inTransaction(db, async (tx) => {
    const prepared = await checkEntries(tx, access, input.entries, post, settings);
    await drawNumbers(tx, prepared);
    const now = new Date();
    const stored = prepared.map((p) => storedRows(p, post, access.userId, now, settings));
    for (const organizationId of organizations) {
      const ofOrg = stored.filter((s) => s.row.organizationId === organizationId);
      await insertRows(tx, ofOrg);
      if (post) {
        await addEntriesToBalances(
          tx,
          organizationId,
          ofOrg.map((s) => s.row.id),
          CLOSING_ENTRY_TYPE,
        );
      }
    }
    const audit: AuditInput[] = stored.flatMap(({ row }) => {
      const base = {
        organizationId: row.organizationId,
        userId: access.userId,
        entityType: 'JournalEntry' as const,
      };
      const create: AuditInput = { ...base, action: 'Create', entityId: row.id };
      if (!post) return [create];
      return [
        create,
        {
          ...base,
          action: 'Post',
          entityId: row.id,
          changes: { status: { from: INITIAL_STATUS, to: MOVES.post.to } },
        },
      ];
    });
    for (let i = 0; i < audit.length; i += 1000) await recordAudit(tx, audit.slice(i, i + 1000));
    const events = stored.flatMap(({ row }) =>
      (post
        ? (['JournalEntryCreated', 'JournalEntryPosted'] as const)
        : (['JournalEntryCreated'] as const)
      ).map((type) => ({
        organizationId: row.organizationId,
        entryId: row.id,
        type,
        actorId: access.userId,
      })),
    );
    for (let i = 0; i < events.length; i += 1000) await recordJournalEvents(tx, events.slice(i, i + 1000));
    return {
      entries: stored.map((s, i) => entryRecord(s.row, s.lines, prepared[i]!.company.functionalCurrency)),
    };
  });
}

/** R1–R6 on every entry, in request order, with shared reads and locks. */
async function checkEntries(
  tx: Tx,
  access: Access,
  entries: CreateEntryInput[],
  post: boolean,
  settings: Map<string, { requireApproval: boolean; enforceSegregationOfDuties: boolean }>,
): Promise<Prepared[]> {
  const companies = new Map<string, CompanyRow | null>();
  const accounts = new Map<string, Awaited<ReturnType<typeof repo.accountsByIds>>>();
  const partners = new Map<string, Set<string>>();
  const periods = new Set<string>();
  for (const organizationId of new Set(entries.map((e) => e.organizationId))) {
    const ofOrg = entries.filter((e) => e.organizationId === organizationId);
    const drafts = ofOrg.flatMap((e) => e.lines.map(draftFromInput));
    accounts.set(
      organizationId,
      await repo.accountsByIds(
        tx,
        organizationId,
        drafts.map((d) => d.accountId),
      ),
    );
    partners.set(organizationId, await repo.existingCompanyIds(tx, organizationId, partnerIdsOf(drafts)));
  }
  const prepared: Prepared[] = [];
  for (const [index, input] of entries.entries()) {
    prepared.push(
      await forEntry(index, async () => {
        const key = `${input.organizationId}/${input.companyId}`;
        if (!companies.has(key)) {
          companies.set(key, await repo.companyForShare(tx, input.organizationId, input.companyId));
        }
        // R1
        const company = checkCompany(input.companyId, companies.get(key));
        if (post) {
          const policy = settings.get(input.organizationId)!;
          const draft = { id: '', status: INITIAL_STATUS, createdBy: access.userId, reversingEntryId: null };
          refuseIf(transitionRefusal('post', draft, policy));
          refuseIf(
            segregationRefusal('post', draft, { caller: access.userId, postedBy: access.userId }, policy),
          );
        }
        const drafts = input.lines.map(draftFromInput);
        // R2, R3
        const effective = checkLineAccountsWith(
          accounts.get(input.organizationId)!,
          partners.get(input.organizationId)!,
          company.id,
          drafts,
        );
        // R4
        const ref: PeriodRef = resolveFiscalPeriod(
          company,
          input.transactionDate,
          input.fiscalPeriod ?? null,
        );
        const periodKey = `${key}/${ref.year}/${ref.period}`;
        if (!periods.has(periodKey)) {
          await lockPeriod(tx, {
            organizationId: input.organizationId,
            company,
            ref,
            userId: access.userId,
            requireOpen: true,
          });
          periods.add(periodKey);
        }
        // R5, R6
        const { entry, lines } = await newEntry(tx, access, input, company, ref, drafts, effective);
        return { index, company, entry, lines, entryNumber: 0 };
      }),
    );
  }
  return prepared;
}

/** One counter update per company: its entries take consecutive numbers in request order. */
async function drawNumbers(tx: Tx, prepared: Prepared[]): Promise<void> {
  const byCompany = new Map<string, Prepared[]>();
  for (const p of prepared) {
    const key = `${p.entry.organizationId}/${p.company.id}`;
    const list = byCompany.get(key);
    if (list) list.push(p);
    else byCompany.set(key, [p]);
  }
  // Counter rows in a fixed order, so that concurrent bulk requests lock them in the same order.
  for (const key of [...byCompany.keys()].sort()) {
    const list = byCompany.get(key)!;
    const { organizationId, id } = { organizationId: list[0]!.entry.organizationId, id: list[0]!.company.id };
    const result = (await tx.execute(
      sql`insert into entry_counters as ec (organization_id, company_id, last_number)
          values (${organizationId}, ${id}, ${list.length})
          on conflict (organization_id, company_id) do update set last_number = ec.last_number + ${list.length}
          returning last_number::int as n`,
    )) as unknown as { rows: { n: number }[] };
    const last = Number(result.rows[0]!.n);
    list.forEach((p, i) => {
      p.entryNumber = last - list.length + 1 + i;
    });
  }
}

/** The stored row of a prepared entry (as the insert writes it) and its lines. */
function storedRows(
  p: Prepared,
  post: boolean,
  userId: string,
  now: Date,
  settings: Map<string, unknown>,
): { row: EntryRow; lines: LineRow[] } {
  const e = p.entry;
  const tz = (settings.get(e.organizationId) as { defaultTimezone?: string } | undefined)?.defaultTimezone;
  const row: EntryRow = {
    id: e.id,
    organizationId: e.organizationId,
    companyId: e.companyId,
    entryNumber: p.entryNumber,
    referenceNumber: e.referenceNumber ?? null,
    description: e.description,
    transactionDate: e.transactionDate,
    documentDate: e.documentDate ?? null,
    postingDate: post ? todayIn(tz ?? 'UTC') : null,
    fiscalYear: e.fiscalYear,
    fiscalPeriod: e.fiscalPeriod,
    entryType: e.entryType!,
    sourceModule: e.sourceModule!,
    sourceDocumentRef: e.sourceDocumentRef ?? null,
    isMultiCurrency: e.isMultiCurrency ?? false,
    status: post ? MOVES.post.to : e.status!,
    isReversing: false,
    reversedEntryId: null,
    reversingEntryId: null,
    totalDebits: e.totalDebits,
    totalCredits: e.totalCredits,
    createdBy: userId,
    submittedBy: null,
    submittedAt: null,
    approvedBy: null,
    approvedAt: null,
    rejectedBy: null,
    rejectedAt: null,
    rejectionReason: null,
    postedBy: post ? userId : null,
    postedAt: post ? now : null,
    reversedBy: null,
    reversedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  const lines = p.lines.map((l): LineRow => ({
    id: l.id!,
    organizationId: l.organizationId,
    journalEntryId: l.journalEntryId,
    companyId: l.companyId,
    lineNumber: l.lineNumber,
    accountId: l.accountId,
    currency: l.currency,
    debitAmount: l.debitAmount ?? null,
    creditAmount: l.creditAmount ?? null,
    functionalDebitAmount: l.functionalDebitAmount ?? null,
    functionalCreditAmount: l.functionalCreditAmount ?? null,
    exchangeRate: l.exchangeRate,
    exchangeRateId: l.exchangeRateId ?? null,
    exchangeRateLegIds: l.exchangeRateLegIds ?? [],
    memo: l.memo ?? null,
    dimensions: l.dimensions ?? null,
    intercompanyPartnerId: l.intercompanyPartnerId ?? null,
  }));
  return { row, lines };
}

/** Entries per statement (headers) and lines per statement: each a JSON array bound as one parameter. */
const HEADER_CHUNK = 1000;
const LINE_CHUNK = 10_000;

/** Headers then lines of one organization's entries, in multi-row statements. */
export async function insertRows(tx: Tx, stored: { row: EntryRow; lines: LineRow[] }[]): Promise<void> {
  for (let i = 0; i < stored.length; i += HEADER_CHUNK) {
    const rows = stored.slice(i, i + HEADER_CHUNK).map(({ row: r }) => ({
      id: r.id,
      organization_id: r.organizationId,
      company_id: r.companyId,
      entry_number: r.entryNumber,
      reference_number: r.referenceNumber,
      description: r.description,
      transaction_date: r.transactionDate,
      document_date: r.documentDate,
      posting_date: r.postingDate,
      fiscal_year: r.fiscalYear,
      fiscal_period: r.fiscalPeriod,
      entry_type: r.entryType,
      source_module: r.sourceModule,
      source_document_ref: r.sourceDocumentRef,
      is_multi_currency: r.isMultiCurrency,
      status: r.status,
      total_debits: r.totalDebits,
      total_credits: r.totalCredits,
      created_by: r.createdBy,
      posted_by: r.postedBy,
      posted_at: r.postedAt?.toISOString() ?? null,
      created_at: r.createdAt.toISOString(),
    }));
    await tx.execute(
      sql`insert into journal_entries (id, organization_id, company_id, entry_number, reference_number,
            description, transaction_date, document_date, posting_date, fiscal_year, fiscal_period,
            entry_type, source_module, source_document_ref, is_multi_currency, status, total_debits,
            total_credits, created_by, posted_by, posted_at, created_at, updated_at)
          select i.id, i.organization_id, i.company_id, i.entry_number, i.reference_number, i.description,
            i.transaction_date, i.document_date, i.posting_date, i.fiscal_year, i.fiscal_period,
            i.entry_type, i.source_module, i.source_document_ref, i.is_multi_currency, i.status,
            i.total_debits, i.total_credits, i.created_by, i.posted_by, i.posted_at, i.created_at,
            i.created_at
          from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as i(id uuid, organization_id uuid,
            company_id uuid, entry_number int, reference_number text, description text,
            transaction_date date, document_date date, posting_date date, fiscal_year int,
            fiscal_period smallint, entry_type text, source_module text, source_document_ref text,
            is_multi_currency boolean, status text, total_debits numeric, total_credits numeric,
            created_by uuid, posted_by uuid, posted_at timestamptz, created_at timestamptz)`,
    );
  }
  const lines = stored.flatMap((s) => s.lines);
  for (let i = 0; i < lines.length; i += LINE_CHUNK) {
    const rows = lines.slice(i, i + LINE_CHUNK).map((l) => ({
      id: l.id,
      organization_id: l.organizationId,
      journal_entry_id: l.journalEntryId,
      company_id: l.companyId,
      line_number: l.lineNumber,
      account_id: l.accountId,
      currency: l.currency,
      debit_amount: l.debitAmount,
      credit_amount: l.creditAmount,
      functional_debit_amount: l.functionalDebitAmount,
      functional_credit_amount: l.functionalCreditAmount,
      exchange_rate: l.exchangeRate,
      exchange_rate_id: l.exchangeRateId,
      exchange_rate_leg_ids: l.exchangeRateLegIds ?? [],
      memo: l.memo,
      dimensions: l.dimensions,
      intercompany_partner_id: l.intercompanyPartnerId,
    }));
    await tx.execute(
      sql`insert into journal_lines (id, organization_id, journal_entry_id, company_id, line_number,
            account_id, currency, debit_amount, credit_amount, functional_debit_amount,
            functional_credit_amount, exchange_rate, exchange_rate_id, exchange_rate_leg_ids, memo,
            dimensions, intercompany_partner_id)
          select l.id, l.organization_id, l.journal_entry_id, l.company_id, l.line_number, l.account_id,
            l.currency, l.debit_amount, l.credit_amount, l.functional_debit_amount,
            l.functional_credit_amount, l.exchange_rate, l.exchange_rate_id, l.exchange_rate_leg_ids,
            l.memo, l.dimensions, l.intercompany_partner_id
          from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as l(id uuid, organization_id uuid,
            journal_entry_id uuid, company_id uuid, line_number smallint, account_id uuid, currency text,
            debit_amount numeric, credit_amount numeric, functional_debit_amount numeric,
            functional_credit_amount numeric, exchange_rate numeric, exchange_rate_id uuid,
            exchange_rate_leg_ids uuid[], memo text, dimensions jsonb, intercompany_partner_id uuid)`,
    );
  }
}
