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
import { pgArray, pgTokens, uuidv7Batch } from '../../db/bulk-params.ts';
import { type Db, inTransaction, type Tx } from '../../db/client.ts';
import { todayIn } from '../../domain/dates.ts';
import { DomainError, type Issue } from '../../domain/errors.ts';
import { minorUnits } from '../../domain/codes.ts';
import { isMultiCurrency } from '../../domain/journal/amounts.ts';
import { CLOSING_ENTRY_TYPE, type PeriodRef } from '../../domain/journal/rules.ts';
import {
  DEFAULT_ENTRY_TYPE,
  DEFAULT_SOURCE_MODULE,
  INITIAL_STATUS,
  MOVES,
  segregationRefusal,
  transitionRefusal,
} from '../../domain/journal/workflow.ts';
import type { Access } from '../../access/access.ts';
import { auditEntry, type AuditInput, recordAudit } from '../audit/service.ts';
import type { CompanyRow } from '../companies/lookup.ts';
import { recordJournalEvents } from '../events/record.ts';
import { insertedLinesPostingCtes } from '../ledger/posting.ts';
import { organizationSettings } from '../organizations/service.ts';
import {
  checkCompany,
  checkLineAccountsWith,
  deriveLinesWith,
  type KnownRates,
  lockPeriod,
  lookUpRates,
  needsRateLookUp,
  refuseIf,
  resolveFiscalPeriod,
} from './checks.ts';
import type { CreateEntryInput } from './entries.ts';
import {
  derivedLineRow,
  type DraftLine,
  draftFromInput,
  functionalLineRows,
  type LineRowsOf,
  partnerIdsOf,
  totalsOf,
} from './lines.ts';
import { bulkAnswerJson, entryRecord, type JournalEntryRecord } from './records.ts';
import { type EntryRow, type LineRow, NO_WORKFLOW_STEPS } from './repo.ts';
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
  input: CreateEntryInput;
  company: CompanyRow;
  /** The stored row of the entry (its number drawn once every entry has passed). */
  row: EntryRow;
  lines: LineRow[];
}

export async function createEntries(
  db: Db,
  access: Access,
  input: BulkCreateInput,
): Promise<{ entries: JournalEntryRecord[] }> {
  return createEntryRows(db, access, input, (stored) => ({
    entries: stored.map((p) => entryRecord(p.row, p.lines, p.company.functionalCurrency)),
  }));
}

/**
 * The bulk create with its answer as JSON text: the 201 body, the same bytes as the route's response
 * schema gives `createEntries`' answer (bulkAnswerJson), written straight from the stored rows.
 */
export async function createEntriesJson(db: Db, access: Access, input: BulkCreateInput): Promise<string> {
  return createEntryRows(db, access, input, bulkAnswerJson);
}

/**
 * Checks and writes the entries in one transaction; `answer` turns their rows into the answer. It runs
 * while the database writes them (the rows and numbers are final once drawn), so that the answer of a
 * large request costs no time of its own after the commit.
 */
async function createEntryRows<T>(
  db: Db,
  access: Access,
  input: BulkCreateInput,
  answer: (stored: Prepared[]) => T,
): Promise<T> {
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
    const written = writeEntries(tx, access, organizations, prepared, post);
    // Handled below: a failed write must not count as unhandled while the answer is built.
    written.catch(() => undefined);
    const built = await new Promise<T>((resolve, reject) =>
      // after the first statement has gone out (the microtasks that send it run first)
      setImmediate(() => {
        try {
          resolve(answer(prepared));
        } catch (err) {
          reject(err as Error);
        }
      }),
    );
    await written;
    return built;
  });
}

/** Headers, lines (and, posted, their balances), audit entries and events of the checked entries. */
async function writeEntries(
  tx: Tx,
  access: Access,
  organizations: string[],
  prepared: Prepared[],
  post: boolean,
): Promise<void> {
  for (const organizationId of organizations) {
    const ofOrg =
      organizations.length === 1 ? prepared : prepared.filter((p) => p.row.organizationId === organizationId);
    await insertRows(tx, ofOrg, post ? { closingEntryType: CLOSING_ENTRY_TYPE } : undefined);
  }
  const audit: AuditInput[] = prepared.flatMap(({ row }) => {
    const create = auditEntry(access, 'JournalEntry', row, 'Create');
    if (!post) return [create];
    return [
      create,
      auditEntry(access, 'JournalEntry', row, 'Post', {
        status: { from: INITIAL_STATUS, to: MOVES.post.to },
      }),
    ];
  });
  for (let i = 0; i < audit.length; i += 1000) await recordAudit(tx, audit.slice(i, i + 1000));
  const events = prepared.flatMap(({ row }) =>
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
}

/** An entry's stored lines and totals (`functionalLineRows`, or the general derivation). */
type DerivedRows = { lines: LineRow[]; totalDebits: string; totalCredits: string };

/** What the checks of a bulk create read, locked or derived once and share between its entries. */
interface Shared {
  tx: Tx;
  userId: string;
  /** Companies (share-locked) by organization and company. */
  companies: Map<string, CompanyRow | null>;
  /** Line accounts named by the request, by organization. */
  accounts: Map<string, Awaited<ReturnType<typeof repo.accountsByIds>>>;
  /** Which of the partners named by the request are companies, by organization. */
  partners: Map<string, Set<string>>;
  /** Fiscal periods by company, date and explicit period (R4 gives the same answer for the same three). */
  refs: Map<string, PeriodRef>;
  /** Fiscal periods locked, by company, year and period. */
  periods: Set<string>;
  /** Spot rates by organization, functional currency and date: one look-up per currency of each. */
  rates: Map<string, KnownRates>;
}

/**
 * R1–R6 on every entry, in request order, with shared reads and locks; each entry's stored rows are
 * built as soon as it passes (ids drawn in batches, numbers later by drawNumbers).
 */
async function checkEntries(
  tx: Tx,
  access: Access,
  entries: CreateEntryInput[],
  post: boolean,
  settings: Map<
    string,
    { requireApproval: boolean; enforceSegregationOfDuties: boolean; defaultTimezone?: string }
  >,
): Promise<Prepared[]> {
  const shared: Shared = {
    tx,
    userId: access.userId,
    companies: new Map(),
    ...(await lineReferences(tx, entries)),
    refs: new Map(),
    periods: new Set(),
    rates: new Map(),
  };
  const now = new Date();
  const entryIds = uuidv7Batch(entries.length);
  const lineIds = uuidv7Batch(entries.reduce((n, e) => n + e.lines.length, 0));
  let nextLine = 0;
  const prepared: Prepared[] = [];
  for (let index = 0; index < entries.length; index++) {
    const input = entries[index]!;
    try {
      const key = `${input.organizationId}/${input.companyId}`;
      const company = await checkedCompany(shared, key, input); // R1
      if (post) checkDirectPost(access.userId, settings.get(input.organizationId)!);
      const drafts = input.lines.map(draftFromInput);
      // R2, R3
      const effective = checkLineAccountsWith(
        shared.accounts.get(input.organizationId)!,
        shared.partners.get(input.organizationId)!,
        company.id,
        drafts,
      );
      const ref = await lockedPeriod(shared, key, company, input); // R4
      const entryId = entryIds[index]!;
      const of: LineRowsOf = {
        organizationId: input.organizationId,
        journalEntryId: entryId,
        companyId: company.id,
        ids: lineIds,
        firstId: nextLine,
      };
      const { derived, multiCurrency } = await derivedLines(shared, input, company, drafts, effective, of);
      nextLine += derived.lines.length;
      const row = entryRow(
        input,
        company,
        ref,
        entryId,
        derived,
        multiCurrency,
        post,
        access.userId,
        now,
        settings,
      );
      prepared.push({ index, input, company, row, lines: derived.lines });
    } catch (err) {
      throw ofEntry(err, index);
    }
  }
  return prepared;
}

/** The line accounts and partner companies named by the entries: one read of each per organization. */
async function lineReferences(
  tx: Tx,
  entries: CreateEntryInput[],
): Promise<Pick<Shared, 'accounts' | 'partners'>> {
  const accounts: Shared['accounts'] = new Map();
  const partners: Shared['partners'] = new Map();
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
  return { accounts, partners };
}

/** R1: the entry's company, share-locked on its first entry. */
async function checkedCompany(shared: Shared, key: string, input: CreateEntryInput): Promise<CompanyRow> {
  if (!shared.companies.has(key)) {
    shared.companies.set(key, await repo.companyForShare(shared.tx, input.organizationId, input.companyId));
  }
  return checkCompany(input.companyId, shared.companies.get(key));
}

/** The workflow's refusals of posting a new entry of the caller directly (`postImmediately`). */
function checkDirectPost(
  userId: string,
  policy: { requireApproval: boolean; enforceSegregationOfDuties: boolean },
): void {
  const draft = { id: '', status: INITIAL_STATUS, createdBy: userId, reversingEntryId: null };
  refuseIf(transitionRefusal('post', draft, policy));
  refuseIf(segregationRefusal('post', draft, { caller: userId, postedBy: userId }, policy));
}

/** R4: the entry's fiscal period, resolved once per company, date and period, locked once. */
async function lockedPeriod(
  shared: Shared,
  key: string,
  company: CompanyRow,
  input: CreateEntryInput,
): Promise<PeriodRef> {
  const explicit = input.fiscalPeriod ? `${input.fiscalPeriod.year}/${input.fiscalPeriod.period}` : '';
  const refKey = `${key}/${input.transactionDate}/${explicit}`;
  let ref = shared.refs.get(refKey);
  if (!ref) {
    ref = resolveFiscalPeriod(company, input.transactionDate, input.fiscalPeriod ?? null);
    shared.refs.set(refKey, ref);
  }
  const periodKey = `${key}/${ref.year}/${ref.period}`;
  if (!shared.periods.has(periodKey)) {
    await lockPeriod(shared.tx, {
      organizationId: input.organizationId,
      company,
      ref,
      userId: shared.userId,
      requireOpen: true,
    });
    shared.periods.add(periodKey);
  }
  return ref;
}

/**
 * R5, R6: the entry's stored lines and totals — without decimal arithmetic when every line is in the
 * functional currency, else the general derivation (a query only for a Spot rate not looked up yet).
 */
async function derivedLines(
  shared: Shared,
  input: CreateEntryInput,
  company: CompanyRow,
  drafts: DraftLine[],
  effective: Map<number, string | null>,
  of: LineRowsOf,
): Promise<{ derived: DerivedRows; multiCurrency: boolean }> {
  const fc = company.functionalCurrency;
  const derived = functionalLineRows(drafts, effective, fc, minorUnits(fc), of);
  if (derived) return { derived, multiCurrency: false };
  const conversion = {
    organizationId: input.organizationId,
    functionalCurrency: fc,
    transactionDate: input.transactionDate,
  };
  const rateKey = `${input.organizationId}/${fc}/${input.transactionDate}`;
  let known = shared.rates.get(rateKey);
  if (!known) shared.rates.set(rateKey, (known = new Map()));
  if (needsRateLookUp(conversion, drafts, known)) await lookUpRates(shared.tx, conversion, drafts, known);
  const lines = deriveLinesWith(conversion, drafts, effective, known);
  return {
    derived: { lines: lines.map((l, i) => derivedLineRow(l, fc, of, i)), ...totalsOf(lines, fc) },
    multiCurrency: isMultiCurrency(lines),
  };
}

/** One counter update per company: its entries take consecutive numbers in request order. */
async function drawNumbers(tx: Tx, prepared: Prepared[]): Promise<void> {
  const byCompany = new Map<string, Prepared[]>();
  for (const p of prepared) {
    const key = `${p.input.organizationId}/${p.company.id}`;
    const list = byCompany.get(key);
    if (list) list.push(p);
    else byCompany.set(key, [p]);
  }
  // Counter rows in a fixed order, so that concurrent bulk requests lock them in the same order.
  for (const key of [...byCompany.keys()].sort()) {
    const list = byCompany.get(key)!;
    const { organizationId, id } = { organizationId: list[0]!.input.organizationId, id: list[0]!.company.id };
    const result = (await tx.execute(
      sql`insert into entry_counters as ec (organization_id, company_id, last_number)
          values (${organizationId}, ${id}, ${list.length})
          on conflict (organization_id, company_id) do update set last_number = ec.last_number + ${list.length}
          returning last_number::int as n`,
    )) as unknown as { rows: { n: number }[] };
    const last = Number(result.rows[0]!.n);
    list.forEach((p, i) => {
      p.row.entryNumber = last - list.length + 1 + i;
    });
  }
}

/** The stored row of an entry that passed (as the insert writes it); its number is set later. */
function entryRow(
  e: CreateEntryInput,
  company: CompanyRow,
  ref: PeriodRef,
  entryId: string,
  totals: { totalDebits: string; totalCredits: string },
  multiCurrency: boolean,
  post: boolean,
  userId: string,
  now: Date,
  settings: Map<string, { defaultTimezone?: string }>,
): EntryRow {
  const tz = settings.get(e.organizationId)?.defaultTimezone;
  return {
    id: entryId,
    organizationId: e.organizationId,
    companyId: company.id,
    entryNumber: 0,
    referenceNumber: e.referenceNumber ?? null,
    description: e.description,
    transactionDate: e.transactionDate,
    documentDate: e.documentDate ?? null,
    postingDate: post ? todayIn(tz ?? 'UTC') : null,
    fiscalYear: ref.year,
    fiscalPeriod: ref.period,
    entryType: e.entryType ?? DEFAULT_ENTRY_TYPE,
    sourceModule: e.sourceModule ?? DEFAULT_SOURCE_MODULE,
    sourceDocumentRef: e.sourceDocumentRef ?? null,
    isMultiCurrency: multiCurrency,
    status: post ? MOVES.post.to : INITIAL_STATUS,
    ...NO_WORKFLOW_STEPS,
    totalDebits: totals.totalDebits,
    totalCredits: totals.totalCredits,
    createdBy: userId,
    postedBy: post ? userId : null,
    postedAt: post ? now : null,
    createdAt: now,
    updatedAt: now,
  };
}

/** Entries per statement (headers) and lines per statement. */
const HEADER_CHUNK = 1000;
const LINE_CHUNK = 10_000;

/**
 * Headers then lines of ONE organization's entries, in multi-row statements: each column is bound as
 * one array parameter and the rows are rebuilt by `unnest` (no per-row JSON keys to build, send and
 * parse), and what is the same on every row (the organization) is bound once.
 */
export async function insertRows(
  tx: Tx,
  stored: { row: EntryRow; lines: LineRow[] }[],
  /** Posted entries: their lines enter the balances in the statements that insert them. */
  post?: { closingEntryType: string },
): Promise<void> {
  if (stored.length === 0) return;
  const organizationId = stored[0]!.row.organizationId;
  for (let i = 0; i < stored.length; i += HEADER_CHUNK) {
    const rows = stored.slice(i, i + HEADER_CHUNK).map((s) => s.row);
    const col = (f: (r: EntryRow) => string | number | boolean | null) => pgTokens(rows.map(f));
    const text = (f: (r: EntryRow) => string | null) => pgArray(rows.map(f));
    await tx.execute(
      sql`insert into journal_entries (id, organization_id, company_id, entry_number, reference_number,
            description, transaction_date, document_date, posting_date, fiscal_year, fiscal_period,
            entry_type, source_module, source_document_ref, is_multi_currency, status, total_debits,
            total_credits, created_by, posted_by, posted_at, created_at, updated_at)
          select i.id, ${organizationId}, i.company_id, i.entry_number, i.reference_number, i.description,
            i.transaction_date, i.document_date, i.posting_date, i.fiscal_year, i.fiscal_period,
            i.entry_type, i.source_module, i.source_document_ref, i.is_multi_currency, i.status,
            i.total_debits, i.total_credits, i.created_by, i.posted_by, i.posted_at, i.created_at,
            i.created_at
          from unnest(${col((r) => r.id)}::uuid[], ${col((r) => r.companyId)}::uuid[],
            ${col((r) => r.entryNumber)}::int[], ${text((r) => r.referenceNumber)}::text[],
            ${text((r) => r.description)}::text[], ${col((r) => r.transactionDate)}::date[],
            ${col((r) => r.documentDate)}::date[], ${col((r) => r.postingDate)}::date[],
            ${col((r) => r.fiscalYear)}::int[], ${col((r) => r.fiscalPeriod)}::smallint[],
            ${col((r) => r.entryType)}::text[], ${col((r) => r.sourceModule)}::text[],
            ${text((r) => r.sourceDocumentRef)}::text[], ${col((r) => r.isMultiCurrency)}::boolean[],
            ${col((r) => r.status)}::text[], ${col((r) => r.totalDebits)}::numeric[],
            ${col((r) => r.totalCredits)}::numeric[], ${col((r) => r.createdBy)}::uuid[],
            ${col((r) => r.postedBy)}::uuid[], ${col((r) => r.postedAt?.toISOString() ?? null)}::timestamptz[],
            ${col((r) => r.createdAt.toISOString())}::timestamptz[])
          as i(id, company_id, entry_number, reference_number, description, transaction_date,
            document_date, posting_date, fiscal_year, fiscal_period, entry_type, source_module,
            source_document_ref, is_multi_currency, status, total_debits, total_credits, created_by,
            posted_by, posted_at, created_at)`,
    );
  }
  const lines = stored.length === 1 ? stored[0]!.lines : stored.flatMap((s) => s.lines);
  for (let i = 0; i < lines.length; i += LINE_CHUNK) {
    const rows = lines.slice(i, i + LINE_CHUNK);
    const col = (f: (l: LineRow) => string | number | null) => pgTokens(rows.map(f));
    const text = (f: (l: LineRow) => string | null) => pgArray(rows.map(f));
    const insert = sql`insert into journal_lines (id, organization_id, journal_entry_id, company_id, line_number,
            account_id, currency, debit_amount, credit_amount, functional_debit_amount,
            functional_credit_amount, exchange_rate, exchange_rate_id, exchange_rate_leg_ids, memo,
            dimensions, intercompany_partner_id)
          select l.id, ${organizationId}, l.journal_entry_id, l.company_id, l.line_number, l.account_id,
            l.currency, l.debit_amount, l.credit_amount, l.functional_debit_amount,
            l.functional_credit_amount, l.exchange_rate, l.exchange_rate_id,
            coalesce(l.exchange_rate_leg_ids::uuid[], '{}'), l.memo, l.dimensions::jsonb,
            l.intercompany_partner_id
          from unnest(${col((l) => l.id)}::uuid[], ${col((l) => l.journalEntryId)}::uuid[],
            ${col((l) => l.companyId)}::uuid[], ${col((l) => l.lineNumber)}::smallint[],
            ${col((l) => l.accountId)}::uuid[], ${text((l) => l.currency)}::text[],
            ${col((l) => l.debitAmount)}::numeric[], ${col((l) => l.creditAmount)}::numeric[],
            ${col((l) => l.functionalDebitAmount)}::numeric[],
            ${col((l) => l.functionalCreditAmount)}::numeric[], ${col((l) => l.exchangeRate)}::numeric[],
            ${col((l) => l.exchangeRateId)}::uuid[],
            ${text((l) => (l.exchangeRateLegIds?.length ? pgTokens(l.exchangeRateLegIds) : null))}::text[],
            ${text((l) => l.memo)}::text[],
            ${text((l) => (l.dimensions == null ? null : JSON.stringify(l.dimensions)))}::text[],
            ${col((l) => l.intercompanyPartnerId)}::uuid[])
          as l(id, journal_entry_id, company_id, line_number, account_id, currency, debit_amount,
            credit_amount, functional_debit_amount, functional_credit_amount, exchange_rate,
            exchange_rate_id, exchange_rate_leg_ids, memo, dimensions, intercompany_partner_id)`;
    await tx.execute(
      post
        ? sql`with lines as (${insert} returning journal_entry_id, account_id, currency, debit_amount,
                credit_amount, functional_debit_amount, functional_credit_amount),
              ${insertedLinesPostingCtes(organizationId, post.closingEntryType)}
              select 1`
        : insert,
    );
  }
}
