/**
 * Journal entries, the ledger core (contract 3.7): create/update with rules R1–R6 (3.7.4), the
 * workflow (3.7.5), reversal (3.7.6) and the posted balances (3.7.7).
 *
 * Other modules:
 * - `entryRecord` / `getEntryRecord` build the wire record;
 * - `insertPostedSystemEntry` and `reverseEntryInTx` are the building blocks of year-end close and
 *   reopen (3.6.3): they draw the entry number, write the entry and its lines, and update
 *   `account_balances` in the caller's transaction;
 * - `account_balances` holds, per (organization, company, account, balance_date = transactionDate,
 *   fiscal_year, fiscal_period, is_closing), the functional debit and credit totals of the lines of
 *   `Posted` and `Reversed` entries; `is_closing` marks closing-related entries (type `Closing`, or the
 *   reversal of an entry of type `Closing`, 3.13.1).
 */
import { and, eq } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type Db, inTransaction, pgErrorCode, type Queryable, type Tx } from '../../db/client.ts';
import { Combiner, perDatabase } from '../../db/combiner.ts';
import { fiscalPeriods } from '../../db/schema/index.ts';
import { type IsoDate, todayIn } from '../../domain/dates.ts';
import { badRequest, DomainError, invalid, ValidationError } from '../../domain/errors.ts';
import {
  balanceFunctional,
  checkTransactionBalance,
  convertLine,
  entryTotals,
  isMultiCurrency,
  type LineSide,
  type UnbalancedEntry,
} from '../../domain/journal/amounts.ts';
import {
  closingEntryReversalRefusal,
  type CompanyRefusal,
  companyRefusal,
  entryPeriod,
  type FiscalPeriodClosedRefusal,
  type FiscalPeriodRefusal,
  isClosingRelated,
  type LineAccountRefusal,
  lineAccountsRefusal,
  linePartners,
  type PartnerRefusal,
  type PeriodRef,
  periodRefusal,
  type ClosingEntryReversalRefusal,
} from '../../domain/journal/rules.ts';
import {
  BOOKED_STATUS,
  type EntryType,
  INITIAL_STATUS,
  MOVES,
  moveOf,
  REVERSAL_ENTRY_TYPE,
  type SegregationRefusal,
  segregationRefusal,
  type SourceModule,
  type TransitionRefusal,
  transitionRefusal,
} from '../../domain/journal/workflow.ts';
import { type Decimal, dec, formatRate, type Money, money } from '../../domain/money.ts';
import {
  type Access,
  type Action,
  PERMISSIONS,
  ROLE_RANK,
  type Role,
  roleAtLeast,
} from '../../http/access.ts';
import { type PageParams, paged } from '../../http/pagination.ts';
import { type AuditInput, diffChanges, recordAudit } from '../audit/service.ts';
import { type CompanyRow, companyInactive, companyNotFound, fiscalYearEndOf } from '../companies/lookup.ts';
import { resolveRateFor } from '../exchange-rates/service.ts';
import { ensurePeriod } from '../fiscal/ensure.ts';
import { addEntryToBalances } from '../ledger/posting.ts';
import { organizationSettings } from '../organizations/service.ts';
import type { EntryRow, LineRow, NewEntryRow, NewLineRow } from './repo.ts';
import * as repo from './repo.ts';
import * as statements from './statements.ts';
import type { LineAccount } from './statements.ts';

// ---------------------------------------------------------------------------------------------------
// Records

export interface JournalLineRecord {
  id: string;
  journalEntryId: string;
  lineNumber: number;
  accountId: string;
  debitAmount: Money | null;
  creditAmount: Money | null;
  functionalCurrencyDebitAmount: Money | null;
  functionalCurrencyCreditAmount: Money | null;
  exchangeRate: string;
  exchangeRateId: string | null;
  exchangeRateLegIds: string[];
  memo: string | null;
  dimensions: Record<string, string> | null;
  intercompanyPartnerId: string | null;
}

export interface JournalEntryRecord {
  id: string;
  organizationId: string;
  companyId: string;
  entryNumber: string;
  referenceNumber: string | null;
  description: string;
  transactionDate: string;
  documentDate: string | null;
  postingDate: string | null;
  fiscalPeriod: PeriodRef;
  entryType: string;
  sourceModule: string;
  sourceDocumentRef: string | null;
  isMultiCurrency: boolean;
  status: string;
  isReversing: boolean;
  reversedEntryId: string | null;
  reversingEntryId: string | null;
  totalDebits: Money;
  totalCredits: Money;
  createdBy: string;
  submittedBy: string | null;
  submittedAt: string | null;
  approvedBy: string | null;
  approvedAt: string | null;
  rejectedBy: string | null;
  rejectedAt: string | null;
  rejectionReason: string | null;
  postedBy: string | null;
  postedAt: string | null;
  reversedBy: string | null;
  reversedAt: string | null;
  createdAt: string;
  updatedAt: string;
  lines: JournalLineRecord[];
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
const amountOrNull = (v: string | null, currency: string): Money | null =>
  v === null ? null : money(v, currency);

export function lineRecord(l: LineRow, functionalCurrency: string): JournalLineRecord {
  return {
    id: l.id,
    journalEntryId: l.journalEntryId,
    lineNumber: l.lineNumber,
    accountId: l.accountId,
    debitAmount: amountOrNull(l.debitAmount, l.currency),
    creditAmount: amountOrNull(l.creditAmount, l.currency),
    functionalCurrencyDebitAmount: amountOrNull(l.functionalDebitAmount, functionalCurrency),
    functionalCurrencyCreditAmount: amountOrNull(l.functionalCreditAmount, functionalCurrency),
    exchangeRate: formatRate(l.exchangeRate),
    exchangeRateId: l.exchangeRateId,
    exchangeRateLegIds: l.exchangeRateLegIds ?? [],
    memo: l.memo,
    dimensions: (l.dimensions as Record<string, string> | null) ?? null,
    intercompanyPartnerId: l.intercompanyPartnerId,
  };
}

/** The wire record of an entry (3.7.2); `lines` are this entry's lines (any order). */
export function entryRecord(row: EntryRow, lines: LineRow[], functionalCurrency: string): JournalEntryRecord {
  return {
    id: row.id,
    organizationId: row.organizationId,
    companyId: row.companyId,
    entryNumber: repo.formatEntryNumber(row.entryNumber),
    referenceNumber: row.referenceNumber,
    description: row.description,
    transactionDate: row.transactionDate,
    documentDate: row.documentDate,
    postingDate: row.postingDate,
    fiscalPeriod: { year: row.fiscalYear, period: row.fiscalPeriod },
    entryType: row.entryType,
    sourceModule: row.sourceModule,
    sourceDocumentRef: row.sourceDocumentRef,
    isMultiCurrency: row.isMultiCurrency,
    status: row.status,
    isReversing: row.isReversing,
    reversedEntryId: row.reversedEntryId,
    reversingEntryId: row.reversingEntryId,
    totalDebits: money(row.totalDebits, functionalCurrency),
    totalCredits: money(row.totalCredits, functionalCurrency),
    createdBy: row.createdBy,
    submittedBy: row.submittedBy,
    submittedAt: iso(row.submittedAt),
    approvedBy: row.approvedBy,
    approvedAt: iso(row.approvedAt),
    rejectedBy: row.rejectedBy,
    rejectedAt: iso(row.rejectedAt),
    rejectionReason: row.rejectionReason,
    postedBy: row.postedBy,
    postedAt: iso(row.postedAt),
    reversedBy: row.reversedBy,
    reversedAt: iso(row.reversedAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    lines: lines
      .filter((l) => l.journalEntryId === row.id)
      .sort((a, b) => a.lineNumber - b.lineNumber)
      .map((l) => lineRecord(l, functionalCurrency)),
  };
}

async function functionalCurrencyOf(db: Queryable, row: EntryRow): Promise<string> {
  const map = await repo.functionalCurrencies(db, [row.organizationId], [row.companyId]);
  return map.get(row.companyId)!;
}

/** Loads the record of an entry of the organization (lines included), or null. */
export async function getEntryRecord(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<JournalEntryRecord | null> {
  const row = await repo.findEntry(db, organizationId, id);
  if (!row) return null;
  return buildRecord(db, row);
}

async function buildRecord(db: Queryable, row: EntryRow): Promise<JournalEntryRecord> {
  const [lines, fc] = await Promise.all([
    repo.loadLines(db, row.organizationId, [row.id]),
    functionalCurrencyOf(db, row),
  ]);
  return entryRecord(row, lines, fc);
}

// ---------------------------------------------------------------------------------------------------
// Errors

export function entryNotFound(entryId: string): DomainError {
  return new DomainError(404, 'JournalEntryNotFoundError', 'Journal entry not found', { entryId });
}

/** Every refusal of the journal's rules and workflow (src/domain/journal). */
export type JournalRefusal =
  | TransitionRefusal
  | SegregationRefusal
  | CompanyRefusal
  | LineAccountRefusal
  | PartnerRefusal
  | Exclude<FiscalPeriodRefusal, { refusal: 'FiscalYearOutOfRange' }>
  | FiscalPeriodClosedRefusal
  | ClosingEntryReversalRefusal;

/** The error a refusal is reported with. */
export function refused(r: JournalRefusal): DomainError {
  const { refusal: _refusal, ...fields } = r;
  switch (r.refusal) {
    case 'InvalidStatusTransition':
      return badRequest(
        'InvalidStatusTransitionError',
        `Cannot ${r.operation} an entry in status ${r.currentStatus}`,
        fields,
      );
    case 'AlreadyReversed':
      return new DomainError(
        409,
        'JournalEntryAlreadyReversedError',
        'The entry is already reversed',
        fields,
      );
    case 'SegregationOfDuties':
      return new DomainError(
        403,
        'SegregationOfDutiesViolationError',
        'Segregation of duties forbids this',
        fields,
      );
    case 'CompanyNotFound':
      return companyNotFound(r.companyId);
    case 'CompanyInactive':
      return companyInactive(r.companyId);
    case 'InvalidLineAccount':
      return badRequest(
        'InvalidJournalLineAccountError',
        `Line ${r.lineNumber}: account is ${r.reason}`,
        fields,
      );
    case 'InvalidPartner':
      return invalid(`/lines/${r.lineNumber - 1}/intercompanyPartnerId`, PARTNER_MESSAGES[r.reason]);
    case 'FiscalPeriodMismatch':
      return badRequest(
        'FiscalPeriodMismatchError',
        'The fiscal period does not match the transaction date',
        fields,
      );
    case 'FiscalPeriodClosed':
      return badRequest('FiscalPeriodClosedError', 'The fiscal period is closed', {
        ...fields,
        periodStatus: 'Closed',
      });
    case 'ClosingEntryReversal':
      return badRequest(
        'ClosingEntryReversalNotAllowedError',
        'A year-end closing entry is undone by reopening the year',
        fields,
      );
  }
}

const PARTNER_MESSAGES: Record<PartnerRefusal['reason'], string> = {
  AccountPartnerDiffers: "Must equal the account's intercompany partner",
  NotACompany: 'Not a company of the organization',
  OwnCompany: "Must differ from the entry's company",
};

/** Throws the error of the refusal, if any. */
function refuseIf(r: JournalRefusal | null): void {
  if (r) throw refused(r);
}

function unbalancedError(e: UnbalancedEntry): DomainError {
  return new DomainError(
    400,
    'UnbalancedJournalEntryError',
    e.basis === 'transaction'
      ? 'Debits and credits differ in the transaction currency'
      : 'Debits and credits differ in the functional currency',
    { ...e },
  );
}

// ---------------------------------------------------------------------------------------------------
// Access

/**
 * Steps 7–9 for an entry addressed by id (1.14): with `organizationId`, that organization first and
 * the entry must belong to it (else 404); without, the entry's own organization. Returns the entry's
 * organization id.
 */
async function locateEntry(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  action: Action,
): Promise<string> {
  if (organizationId !== undefined) {
    await access.enterOrganization(organizationId, action);
    const row = await repo.findEntry(db, organizationId, id);
    if (!row) throw entryNotFound(id);
    await access.requireRole(organizationId, action);
    return organizationId;
  }
  const row = await repo.findEntryById(db, id);
  if (!row) throw entryNotFound(id);
  await access.authorizeResource(row.organizationId, action);
  return row.organizationId;
}

/** `postedBy` / `reversedBy` (decision 95): a member whose role reaches admin. */
async function checkActor(tx: Queryable, organizationId: string, userId: string): Promise<void> {
  const role = (await repo.memberRole(tx, organizationId, userId)) as Role | null;
  if (role === null) {
    throw new DomainError(
      400,
      'UserNotMemberOfOrganizationError',
      'The user is not a member of the organization',
      {
        userId,
        organizationId,
      },
    );
  }
  if (ROLE_RANK[role] < ROLE_RANK.admin) {
    throw new DomainError(400, 'UserRoleInsufficientError', 'The user may not perform this action', {
      userId,
      organizationId,
      requiredRole: 'admin',
      currentRole: role,
    });
  }
}

// ---------------------------------------------------------------------------------------------------
// Fiscal periods (R4)

/**
 * R4: the fiscal period `{Y, p}` of `transactionDate`, or the explicit one (`{Y, p}` or `{Y, 13}`).
 * `datePath` is the body field reported when Y is outside 1900–2999.
 */
export function resolveFiscalPeriod(
  company: Pick<CompanyRow, 'fiscalYearEndMonth' | 'fiscalYearEndDay'>,
  transactionDate: IsoDate,
  explicit: PeriodRef | null,
  datePath = '/transactionDate',
): PeriodRef {
  const ref = entryPeriod(fiscalYearEndOf(company), transactionDate, explicit);
  if (!('refusal' in ref)) return ref;
  if (ref.refusal === 'FiscalYearOutOfRange') {
    throw invalid(datePath, 'The fiscal year of this date is outside 1900–2999');
  }
  throw refused(ref);
}

/**
 * The period row (the year is created if missing, 3.6.1), share-locked until the transaction ends so
 * that a concurrent period or year close waits for this operation; `requireOpen` refuses a closed
 * period with `400 FiscalPeriodClosedError`.
 */
export async function lockPeriod(
  tx: Queryable,
  input: {
    organizationId: string;
    company: CompanyRow;
    ref: PeriodRef;
    userId: string;
    requireOpen: boolean;
  },
) {
  const columns = {
    id: fiscalPeriods.id,
    status: fiscalPeriods.status,
    fiscalYearId: fiscalPeriods.fiscalYearId,
  };
  // The common case, the year exists: one query finds and locks the period.
  let [locked] = await tx
    .select(columns)
    .from(fiscalPeriods)
    .where(
      and(
        eq(fiscalPeriods.organizationId, input.organizationId),
        eq(fiscalPeriods.companyId, input.company.id),
        eq(fiscalPeriods.fiscalYear, input.ref.year),
        eq(fiscalPeriods.periodNumber, input.ref.period),
      ),
    )
    .for('share');
  if (!locked) {
    const period = await ensurePeriod(tx, {
      organizationId: input.organizationId,
      companyId: input.company.id,
      fiscalYearEnd: fiscalYearEndOf(input.company),
      year: input.ref.year,
      period: input.ref.period,
      userId: input.userId,
    });
    [locked] = await tx
      .select(columns)
      .from(fiscalPeriods)
      .where(and(eq(fiscalPeriods.organizationId, input.organizationId), eq(fiscalPeriods.id, period.id)))
      .for('share');
  }
  if (input.requireOpen) refuseIf(periodRefusal(input.company.id, input.ref, locked!));
  return locked!;
}

// ---------------------------------------------------------------------------------------------------
// R1–R6

export interface MoneyIn {
  value: string;
  currency: string;
}

export interface LineInput {
  accountId: string;
  debitAmount?: MoneyIn | null | undefined;
  creditAmount?: MoneyIn | null | undefined;
  exchangeRate?: string | null | undefined;
  memo?: string | null | undefined;
  dimensions?: Record<string, string> | null | undefined;
  intercompanyPartnerId?: string | null | undefined;
}

/** A line before derivation: from the request, or a stored line re-validated by an update. */
interface DraftLine {
  lineNumber: number;
  accountId: string;
  side: LineSide;
  amount: string;
  currency: string;
  /** A rate given explicitly (request, or a stored line whose rate counts as given). */
  givenRate: string | null;
  /** Stored derivation, used when R5/R6 do not run again. */
  stored: {
    functionalAmount: string;
    exchangeRate: string;
    exchangeRateId: string | null;
    legIds: string[];
  } | null;
  memo: string | null;
  dimensions: Record<string, string> | null;
  partner: string | null;
}

interface DerivedLine extends DraftLine {
  functionalAmount: Decimal;
  exchangeRate: Decimal;
  exchangeRateId: string | null;
  legIds: string[];
  effectivePartner: string | null;
}

/** Contract 3.7.3 cross-field rules checked with the syntax checks (step 5). */
export function lineShapeIssues(
  lines: readonly LineInput[] | undefined,
): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  (lines ?? []).forEach((l, i) => {
    const d = l.debitAmount != null;
    const c = l.creditAmount != null;
    if (d === c) {
      issues.push({
        path: `/lines/${i}`,
        message: 'Exactly one of debitAmount and creditAmount must be given',
      });
    }
  });
  return issues;
}

function draftFromInput(l: LineInput, index: number): DraftLine {
  const m = (l.debitAmount ?? l.creditAmount)!;
  return {
    lineNumber: index + 1,
    accountId: l.accountId,
    side: l.debitAmount != null ? 'debit' : 'credit',
    amount: m.value,
    currency: m.currency,
    givenRate: l.exchangeRate ?? null,
    stored: null,
    memo: l.memo ?? null,
    dimensions: l.dimensions ?? null,
    partner: l.intercompanyPartnerId ?? null,
  };
}

function draftFromStored(l: LineRow, functionalCurrency: string): DraftLine {
  const debit = l.debitAmount !== null;
  const foreign = l.currency !== functionalCurrency;
  return {
    lineNumber: l.lineNumber,
    accountId: l.accountId,
    side: debit ? 'debit' : 'credit',
    amount: (debit ? l.debitAmount : l.creditAmount)!,
    currency: l.currency,
    // A foreign line without stored legs had its rate given (or its rate was deleted, 3.8.5).
    givenRate: foreign && (l.exchangeRateLegIds ?? []).length === 0 ? l.exchangeRate : null,
    stored: {
      functionalAmount: (debit ? l.functionalDebitAmount : l.functionalCreditAmount)!,
      exchangeRate: l.exchangeRate,
      exchangeRateId: l.exchangeRateId,
      legIds: l.exchangeRateLegIds ?? [],
    },
    memo: l.memo,
    dimensions: (l.dimensions as Record<string, string> | null) ?? null,
    partner: l.intercompanyPartnerId,
  };
}

/** R2 and R3 on the lines of an entry of `company`. */
async function checkLineAccounts(
  tx: Queryable,
  organizationId: string,
  company: CompanyRow,
  lines: DraftLine[],
): Promise<Map<number, string | null>> {
  const accountIds = lines.map((l) => l.accountId);
  const accounts = await repo.accountsByIds(tx, organizationId, accountIds);
  const known = await repo.existingCompanyIds(tx, organizationId, partnerIdsOf(lines));
  return checkLineAccountsWith(accounts, known, company.id, lines);
}

const partnerIdsOf = (lines: DraftLine[]) =>
  lines.map((l) => l.partner).filter((p): p is string => p !== null);

/**
 * R2 and R3 on read data: `accounts` are the organization's accounts among the line accounts,
 * `knownCompanies` the organization's companies among the lines' partner ids. Returns each line's
 * effective intercompany partner.
 */
function checkLineAccountsWith(
  accounts: ReadonlyMap<string, LineAccount>,
  knownCompanies: ReadonlySet<string>,
  companyId: string,
  lines: DraftLine[],
): Map<number, string | null> {
  refuseIf(lineAccountsRefusal(lines, accounts, companyId));
  const partners = linePartners(lines, accounts, knownCompanies, companyId);
  if ('refusal' in partners) throw refused(partners);
  return partners;
}

/** R5 and R6 (or the stored derivation when they do not run again). */
async function convertAndBalance(
  tx: Queryable,
  organizationId: string,
  functionalCurrency: string,
  transactionDate: IsoDate,
  lines: DraftLine[],
  partners: Map<number, string | null>,
  recompute: boolean,
): Promise<DerivedLine[]> {
  if (!recompute) {
    return lines.map((l) => ({
      ...l,
      functionalAmount: dec(l.stored!.functionalAmount),
      exchangeRate: dec(l.stored!.exchangeRate),
      exchangeRateId: l.stored!.exchangeRateId,
      legIds: l.stored!.legIds,
      effectivePartner: partners.get(l.lineNumber) ?? null,
    }));
  }
  const looked = new Map<string, { rate: Decimal; legIds: string[] }>();
  const derived: DerivedLine[] = [];
  for (const l of lines) {
    let rate: Decimal;
    let legIds: string[] = [];
    if (l.currency === functionalCurrency) {
      if (l.givenRate !== null && !dec(l.givenRate).equals(1)) {
        throw invalid(
          `/lines/${l.lineNumber - 1}/exchangeRate`,
          'Must be 1 when the line currency is the functional currency',
        );
      }
      rate = dec(1);
    } else if (l.givenRate !== null) {
      rate = dec(l.givenRate);
    } else {
      let found = looked.get(l.currency);
      if (!found) {
        const res = await resolveRateFor(tx, {
          organizationId,
          from: l.currency,
          to: functionalCurrency,
          types: ['Spot'],
          condition: { kind: 'onOrBefore', date: transactionDate },
        });
        if (!res?.effectiveRate.greaterThan(0)) {
          throw new DomainError(400, 'ExchangeRateNotFoundError', 'No exchange rate to convert the line', {
            fromCurrency: l.currency,
            toCurrency: functionalCurrency,
            date: transactionDate,
            rateType: 'Spot',
          });
        }
        found = { rate: res.effectiveRate, legIds: res.legs.map((r) => r.id) };
        looked.set(l.currency, found);
      }
      rate = found.rate;
      legIds = found.legIds;
    }
    derived.push({
      ...l,
      exchangeRate: rate,
      exchangeRateId: legIds[0] ?? null,
      legIds,
      functionalAmount: convertLine(l.amount, rate, functionalCurrency),
      effectivePartner: partners.get(l.lineNumber) ?? null,
    });
  }
  const r6a = checkTransactionBalance(derived);
  if (r6a) throw unbalancedError(r6a);
  const r6b = balanceFunctional(derived, functionalCurrency);
  if (!r6b.ok) throw unbalancedError(r6b.error);
  return r6b.lines;
}

function lineRows(
  organizationId: string,
  companyId: string,
  entryId: string,
  lines: DerivedLine[],
  fc: string,
): NewLineRow[] {
  return lines.map((l) => {
    const fa = l.functionalAmount.toFixed();
    return {
      id: uuidv7(),
      organizationId,
      journalEntryId: entryId,
      companyId,
      lineNumber: l.lineNumber,
      accountId: l.accountId,
      currency: l.currency,
      debitAmount: l.side === 'debit' ? dec(l.amount).toFixed() : null,
      creditAmount: l.side === 'credit' ? dec(l.amount).toFixed() : null,
      functionalDebitAmount: l.side === 'debit' ? fa : null,
      functionalCreditAmount: l.side === 'credit' ? fa : null,
      exchangeRate: l.currency === fc ? '1' : l.exchangeRate.toFixed(),
      exchangeRateId: l.exchangeRateId,
      exchangeRateLegIds: l.legIds,
      memo: l.memo,
      dimensions: l.dimensions,
      intercompanyPartnerId: l.effectivePartner,
    };
  });
}

function totalsOf(lines: DerivedLine[], fc: string) {
  const t = entryTotals(lines, fc);
  return {
    totalDebits: dec(t.totalDebits.value).toFixed(),
    totalCredits: dec(t.totalCredits.value).toFixed(),
  };
}

// ---------------------------------------------------------------------------------------------------
// Create, update, delete

export interface CreateEntryInput {
  organizationId: string;
  companyId: string;
  description: string;
  transactionDate: string;
  documentDate?: string | null;
  fiscalPeriod?: PeriodRef | null;
  entryType?: EntryType;
  sourceModule?: SourceModule;
  referenceNumber?: string | null;
  sourceDocumentRef?: string | null;
  lines: LineInput[];
}

export async function createEntry(
  db: Db,
  access: Access,
  input: CreateEntryInput,
): Promise<JournalEntryRecord> {
  await access.authorize(input.organizationId, 'journal_entry:edit');
  return (
    (await createEntryFast(db, access, input)) ??
    inTransaction(db, (tx) => createEntryInTransaction(tx, access, input))
  );
}

/** The header row of a new entry (everything but the number, drawn when it is written). */
function newEntryHeader(
  access: Access,
  input: CreateEntryInput,
  companyId: string,
  ref: PeriodRef,
  lines: DerivedLine[],
  fc: string,
) {
  const now = new Date();
  return {
    id: uuidv7(),
    organizationId: input.organizationId,
    companyId,
    referenceNumber: input.referenceNumber ?? null,
    description: input.description,
    transactionDate: input.transactionDate,
    documentDate: input.documentDate ?? null,
    postingDate: null,
    fiscalYear: ref.year,
    fiscalPeriod: ref.period,
    entryType: input.entryType ?? 'Standard',
    sourceModule: input.sourceModule ?? 'GeneralLedger',
    sourceDocumentRef: input.sourceDocumentRef ?? null,
    isMultiCurrency: isMultiCurrency(lines),
    status: INITIAL_STATUS,
    ...totalsOf(lines, fc),
    createdBy: access.userId,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * The common case of a create in two statements (journal/statements.ts): one read of everything
 * R1–R4 need, the checks in code, then one guarded write. Returns null — nothing written — when the
 * transactional path must run instead: the fiscal year of the entry does not exist yet (it is created
 * in the entry's transaction, 3.6.1), or the company or period changed between the read and the write
 * (the transactional path then reports the new state's error).
 */
async function createEntryFast(
  db: Db,
  access: Access,
  input: CreateEntryInput,
): Promise<JournalEntryRecord | null> {
  const organizationId = input.organizationId;
  const drafts = input.lines.map(draftFromInput);
  const ctx = await statements.createContext(db, {
    organizationId,
    companyId: input.companyId,
    accountIds: drafts.map((d) => d.accountId),
    partnerIds: partnerIdsOf(drafts),
    transactionDate: input.transactionDate,
  });
  // R1
  refuseIf(companyRefusal(input.companyId, ctx?.company));
  const company = ctx!.company;
  // R2, R3
  const partners = checkLineAccountsWith(ctx!.accounts, ctx!.partnerCompanies, company.id, drafts);
  // R4
  const ref = resolveFiscalPeriod(company, input.transactionDate, input.fiscalPeriod ?? null);
  const period = ctx!.periods.find((p) => p.year === ref.year && p.period === ref.period);
  if (!period) return null;
  refuseIf(periodRefusal(company.id, ref, period));
  // R5, R6
  const fc = company.functionalCurrency;
  const lines = await convertAndBalance(
    db,
    organizationId,
    fc,
    input.transactionDate,
    drafts,
    partners,
    true,
  );
  const header = newEntryHeader(access, input, company.id, ref, lines, fc);
  const stored = await entryWriter(db).run(`${organizationId}/${company.id}`, {
    entry: header,
    lines: lineRows(organizationId, company.id, header.id, lines, fc),
    auditId: uuidv7(),
  });
  return stored && entryRecord(stored.row, stored.lines, fc);
}

/**
 * The group-commit writer of new entries of a database (db/combiner.ts): concurrent creates in one
 * company share one statement, and so one commit and one hold of the company's counter row.
 */
const entryWriter = perDatabase(
  (db) => new Combiner((entries: statements.NewEntry[]) => statements.insertEntries(db, entries)),
);

/** A create in one transaction, with the row locks, creating the fiscal year when it is missing. */
async function createEntryInTransaction(
  tx: Tx,
  access: Access,
  input: CreateEntryInput,
): Promise<JournalEntryRecord> {
  const organizationId = input.organizationId;
  // R1
  const found = await repo.companyForShare(tx, organizationId, input.companyId);
  refuseIf(companyRefusal(input.companyId, found));
  const company = found!;
  const drafts = input.lines.map(draftFromInput);
  // R2, R3
  const partners = await checkLineAccounts(tx, organizationId, company, drafts);
  // R4
  const ref = resolveFiscalPeriod(company, input.transactionDate, input.fiscalPeriod ?? null);
  await lockPeriod(tx, { organizationId, company, ref, userId: access.userId, requireOpen: true });
  // R5, R6
  const fc = company.functionalCurrency;
  const lines = await convertAndBalance(
    tx,
    organizationId,
    fc,
    input.transactionDate,
    drafts,
    partners,
    true,
  );
  const header = newEntryHeader(access, input, company.id, ref, lines, fc);
  // The audit entry first: the entry number is drawn last, so the company's counter row stays
  // locked only for the header and line inserts and the commit.
  await recordAudit(tx, {
    organizationId,
    userId: access.userId,
    action: 'Create',
    entityType: 'JournalEntry',
    entityId: header.id,
  });
  const stored = await repo.insertNumberedEntry(
    tx,
    header,
    lineRows(organizationId, company.id, header.id, lines, fc),
  );
  return entryRecord(stored.row, stored.lines, fc);
}

export interface UpdateEntryInput {
  organizationId?: string;
  companyId?: string;
  description?: string;
  transactionDate?: string;
  documentDate?: string | null;
  referenceNumber?: string | null;
  sourceDocumentRef?: string | null;
  fiscalPeriod?: PeriodRef | null;
  entryType?: EntryType | null;
  sourceModule?: SourceModule | null;
  lines?: LineInput[];
}

/** Compares records ignoring timestamps and line ids (a PUT that changes nothing writes nothing). */
function comparable(r: JournalEntryRecord): Record<string, unknown> {
  const { updatedAt: _u, createdAt: _c, lines, ...rest } = r;
  return { ...rest, lines: lines.map(({ id: _id, ...l }) => l) };
}

export async function updateEntry(
  db: Db,
  access: Access,
  id: string,
  input: UpdateEntryInput,
): Promise<JournalEntryRecord> {
  const organizationId = await locateEntry(db, access, id, input.organizationId, 'journal_entry:edit');
  return inTransaction(db, async (tx) => {
    const row = await repo.findEntry(tx, organizationId, id, true);
    if (!row) throw entryNotFound(id);
    refuseIf(transitionRefusal('update', row));
    if (input.companyId !== undefined && input.companyId !== row.companyId) {
      throw invalid('/companyId', 'companyId is immutable');
    }
    const company = (await repo.companyForShare(tx, organizationId, row.companyId))!;
    const fc = company.functionalCurrency;
    const storedLines = await repo.loadLines(tx, organizationId, [id]);
    const before = entryRecord(row, storedLines, fc);

    // R1
    refuseIf(companyRefusal(company.id, company));
    const drafts = input.lines
      ? input.lines.map(draftFromInput)
      : storedLines.map((l) => draftFromStored(l, fc));
    // R2, R3
    const partners = await checkLineAccounts(tx, organizationId, company, drafts);
    // R4
    const transactionDate = input.transactionDate ?? row.transactionDate;
    const ref =
      input.transactionDate !== undefined || input.fiscalPeriod !== undefined
        ? resolveFiscalPeriod(company, transactionDate, input.fiscalPeriod ?? null)
        : { year: row.fiscalYear, period: row.fiscalPeriod };
    await lockPeriod(tx, { organizationId, company, ref, userId: access.userId, requireOpen: true });
    // R5, R6
    const recompute = input.lines !== undefined || input.transactionDate !== undefined;
    const lines = await convertAndBalance(
      tx,
      organizationId,
      fc,
      transactionDate,
      drafts,
      partners,
      recompute,
    );

    const set: Partial<NewEntryRow> = {
      description: input.description ?? row.description,
      transactionDate,
      documentDate: input.documentDate !== undefined ? input.documentDate : row.documentDate,
      referenceNumber: input.referenceNumber !== undefined ? input.referenceNumber : row.referenceNumber,
      sourceDocumentRef:
        input.sourceDocumentRef !== undefined ? input.sourceDocumentRef : row.sourceDocumentRef,
      fiscalYear: ref.year,
      fiscalPeriod: ref.period,
      entryType: input.entryType !== undefined ? (input.entryType ?? 'Standard') : row.entryType,
      sourceModule:
        input.sourceModule !== undefined ? (input.sourceModule ?? 'GeneralLedger') : row.sourceModule,
      isMultiCurrency: isMultiCurrency(lines),
      ...totalsOf(lines, fc),
    };
    const newLines = lineRows(organizationId, row.companyId, id, lines, fc);
    const candidate = entryRecord(
      { ...row, ...set } as EntryRow,
      newLines.map((l) => ({ ...l }) as LineRow),
      fc,
    );
    const changes = diffChanges(comparable(before), comparable(candidate), []);
    if (Object.keys(changes).length === 0) return before;

    const linesChanged = 'lines' in changes;
    const updated = await repo.updateEntry(tx, organizationId, id, { ...set, updatedAt: new Date() });
    if (linesChanged) await repo.replaceLines(tx, organizationId, id, newLines);
    await recordAudit(tx, {
      organizationId,
      userId: access.userId,
      action: 'Update',
      entityType: 'JournalEntry',
      entityId: id,
      changes,
    });
    return buildRecord(tx, updated);
  });
}

export async function deleteEntry(
  db: Db,
  access: Access,
  id: string,
  organizationIdParam: string | undefined,
): Promise<void> {
  const organizationId = await locateEntry(db, access, id, organizationIdParam, 'journal_entry:edit');
  await inTransaction(db, async (tx) => {
    const row = await repo.findEntry(tx, organizationId, id, true);
    if (!row) throw entryNotFound(id);
    refuseIf(transitionRefusal('delete', row));
    await repo.deleteDraft(tx, organizationId, id);
    await recordAudit(tx, {
      organizationId,
      userId: access.userId,
      action: 'Delete',
      entityType: 'JournalEntry',
      entityId: id,
    });
  });
}

// ---------------------------------------------------------------------------------------------------
// Reads

export async function getEntry(
  db: Db,
  access: Access,
  id: string,
  organizationIdParam: string | undefined,
): Promise<JournalEntryRecord> {
  const organizationId = await locateEntry(db, access, id, organizationIdParam, 'journal_entry:read');
  const record = await getEntryRecord(db, organizationId, id);
  if (!record) throw entryNotFound(id);
  return record;
}

export interface ListEntriesQuery {
  organizationId?: string | undefined;
  companyId?: string | undefined;
  status?: string | undefined;
  entryType?: string | undefined;
  sourceModule?: string | undefined;
  fiscalYear?: number | undefined;
  fiscalPeriod?: number | undefined;
  fromDate?: string | undefined;
  toDate?: string | undefined;
}

export async function listEntries(db: Db, access: Access, q: ListEntriesQuery, page: PageParams) {
  if (q.fromDate && q.toDate && q.fromDate > q.toDate) {
    throw new ValidationError([{ path: '/query/fromDate', message: 'fromDate must not be after toDate' }]);
  }
  let organizationIds: string[];
  if (q.organizationId !== undefined) {
    await access.authorize(q.organizationId, 'journal_entry:read');
    organizationIds = [q.organizationId];
  } else {
    organizationIds = await access.memberOrganizationIds();
  }
  if (q.companyId !== undefined) {
    const found = await repo.functionalCurrencies(db, organizationIds, [q.companyId]);
    if (!found.has(q.companyId)) throw companyNotFound(q.companyId);
  }
  const { rows, total } = await repo.listEntries(db, { ...q, organizationIds }, page);
  const [lines, currencies] = await Promise.all([
    repo.loadLinesOfEntries(db, rows),
    repo.functionalCurrencies(
      db,
      [...new Set(rows.map((r) => r.organizationId))],
      [...new Set(rows.map((r) => r.companyId))],
    ),
  ]);
  const byEntry = new Map<string, LineRow[]>();
  for (const l of lines) byEntry.set(l.journalEntryId, [...(byEntry.get(l.journalEntryId) ?? []), l]);
  return paged(
    'entries',
    rows.map((r) => entryRecord(r, byEntry.get(r.id) ?? [], currencies.get(r.companyId)!)),
    total,
    page,
  );
}

// ---------------------------------------------------------------------------------------------------
// Workflow

/**
 * The one-statement form of a workflow operation (journal/statements.ts), for a request that names
 * the entry's organization and whose caller has the role (so that steps 7–9 of 1.12.3 cannot fail
 * for any other reason than a missing entry, which the statement also detects). Null — nothing
 * written — when the request does not qualify, or the statement's guard refused: the transactional
 * path then runs and reports the error of the state it finds.
 */
async function fastPath<T>(
  db: Db,
  access: Access,
  id: string,
  organizationIdParam: string | undefined,
  action: Action,
  write: (organizationId: string) => Promise<T | null>,
): Promise<T | null> {
  let organizationId = organizationIdParam;
  if (organizationId === undefined) {
    // Addressed by id alone: the entry's own organization, and the caller's role there, in one query.
    const found = await statements.entryOrganization(db, id, access.userId);
    if (!found || found.role === null) return null;
    organizationId = found.organizationId;
    access.prime(organizationId, found);
    if (!roleAtLeast(found.role as Role, PERMISSIONS[action].minRole)) return null;
  } else if (!roleAtLeast(await access.roleIn(organizationId), PERMISSIONS[action].minRole)) {
    return null;
  }
  try {
    return await write(organizationId);
  } catch (err) {
    // A deadlock or serialization failure: the transactional path retries.
    const code = pgErrorCode(err);
    if (code === '40P01' || code === '40001') return null;
    throw err;
  }
}

async function simpleTransition(
  db: Db,
  access: Access,
  id: string,
  organizationIdParam: string | undefined,
  action: Action,
  operation: 'submit' | 'approve' | 'reject',
  apply: (row: EntryRow, settings: { enforceSegregationOfDuties: boolean }) => Partial<NewEntryRow>,
  extra?: (settings: { enforceSegregationOfDuties: boolean }) => unknown,
): Promise<JournalEntryRecord> {
  const fast = await fastPath(db, access, id, organizationIdParam, action, async (organizationId) => {
    const settings = await organizationSettings(db, organizationId, access);
    const stored = await statements.transitionEntry(db, operation, {
      organizationId,
      id,
      userId: access.userId,
      auditId: uuidv7(),
      extra: extra?.(settings),
    });
    return stored && entryRecord(stored.row, stored.lines, stored.functionalCurrency);
  });
  if (fast) return fast;
  const organizationId = await locateEntry(db, access, id, organizationIdParam, action);
  const settings = await organizationSettings(db, organizationId, access);
  return inTransaction(db, async (tx) => {
    const row = await repo.findEntry(tx, organizationId, id, true);
    if (!row) throw entryNotFound(id);
    refuseIf(transitionRefusal(operation, row));
    const set = apply(row, settings);
    const updated = await repo.updateEntry(tx, organizationId, id, { ...set, updatedAt: new Date() });
    await recordAudit(tx, {
      organizationId,
      userId: access.userId,
      action: operation === 'submit' ? 'Submit' : operation === 'approve' ? 'Approve' : 'Reject',
      entityType: 'JournalEntry',
      entityId: id,
      changes: { status: { from: row.status, to: updated.status } },
    });
    return buildRecord(tx, updated);
  });
}

export function submitEntry(db: Db, access: Access, id: string, organizationId: string | undefined) {
  return simpleTransition(db, access, id, organizationId, 'journal_entry:edit', 'submit', () => ({
    status: MOVES.submit.to,
    submittedBy: access.userId,
    submittedAt: new Date(),
  }));
}

export function approveEntry(db: Db, access: Access, id: string, organizationId: string | undefined) {
  return simpleTransition(
    db,
    access,
    id,
    organizationId,
    'journal_entry:approve',
    'approve',
    (row, s) => {
      refuseIf(segregationRefusal('approve', row, { caller: access.userId }, s));
      return { status: MOVES.approve.to, approvedBy: access.userId, approvedAt: new Date() };
    },
    (s) => s.enforceSegregationOfDuties,
  );
}

export function rejectEntry(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  reason: string | null | undefined,
) {
  return simpleTransition(
    db,
    access,
    id,
    organizationId,
    'journal_entry:approve',
    'reject',
    () => ({
      status: MOVES.reject.to,
      rejectedBy: access.userId,
      rejectedAt: new Date(),
      rejectionReason: reason ?? null,
    }),
    () => reason ?? null,
  );
}

export interface PostInput {
  organizationId?: string;
  postedBy?: string | null;
  postingDate?: string | null;
}

export async function postEntry(
  db: Db,
  access: Access,
  id: string,
  input: PostInput,
): Promise<JournalEntryRecord> {
  const fast = await fastPath(
    db,
    access,
    id,
    input.organizationId,
    'journal_entry:post',
    async (organizationId) => {
      // A posting user other than the caller is checked by the transactional path (decision 95).
      if (input.postedBy != null && input.postedBy !== access.userId) return null;
      const settings = await organizationSettings(db, organizationId, access);
      const stored = await statements.postEntry(db, {
        organizationId,
        id,
        userId: access.userId,
        auditId: uuidv7(),
        allowedStatuses: moveOf('post', settings).from,
        segregation: settings.enforceSegregationOfDuties,
        postingDate: input.postingDate ?? todayIn(settings.defaultTimezone),
        postedBy: access.userId,
      });
      return stored && entryRecord(stored.row, stored.lines, stored.functionalCurrency);
    },
  );
  if (fast) return fast;
  const organizationId = await locateEntry(db, access, id, input.organizationId, 'journal_entry:post');
  const settings = await organizationSettings(db, organizationId, access);
  return inTransaction(db, async (tx) => {
    const row = await repo.findEntry(tx, organizationId, id, true);
    if (!row) throw entryNotFound(id);
    refuseIf(transitionRefusal('post', row, settings));
    const postedBy = input.postedBy ?? access.userId;
    if (postedBy !== access.userId) await checkActor(tx, organizationId, postedBy);
    refuseIf(segregationRefusal('post', row, { caller: access.userId, postedBy }, settings));
    const company = (await repo.companyForShare(tx, organizationId, row.companyId))!;
    refuseIf(companyRefusal(company.id, company));
    const lines = await repo.loadLines(tx, organizationId, [id]);
    const accounts = await repo.accountsByIds(
      tx,
      organizationId,
      lines.map((l) => l.accountId),
    );
    refuseIf(lineAccountsRefusal(lines, accounts, company.id));
    await lockPeriod(tx, {
      organizationId,
      company,
      ref: { year: row.fiscalYear, period: row.fiscalPeriod },
      userId: access.userId,
      requireOpen: true,
    });
    const now = new Date();
    const updated = await repo.updateEntry(tx, organizationId, id, {
      status: MOVES.post.to,
      postingDate: input.postingDate ?? todayIn(settings.defaultTimezone),
      postedBy,
      postedAt: now,
      updatedAt: now,
    });
    await addEntryToBalances(tx, updated, isClosingRelated(updated.entryType));
    await recordAudit(tx, {
      organizationId,
      userId: access.userId,
      action: 'Post',
      entityType: 'JournalEntry',
      entityId: id,
      changes: { status: { from: row.status, to: MOVES.post.to } },
    });
    return entryRecord(updated, lines, company.functionalCurrency);
  });
}

// ---------------------------------------------------------------------------------------------------
// Reversal

export interface ReverseInput {
  organizationId?: string;
  reversalDate: string;
  reversalDescription?: string | null;
  reversedBy?: string | null;
}

export async function reverseEntry(
  db: Db,
  access: Access,
  id: string,
  input: ReverseInput,
): Promise<JournalEntryRecord> {
  const organizationId = await locateEntry(db, access, id, input.organizationId, 'journal_entry:reverse');
  return inTransaction(db, async (tx) => {
    const row = await repo.findEntry(tx, organizationId, id, true);
    if (!row) throw entryNotFound(id);
    refuseIf(transitionRefusal('reverse', row));
    refuseIf(closingEntryReversalRefusal(row));
    const reversedBy = input.reversedBy ?? access.userId;
    if (reversedBy !== access.userId) await checkActor(tx, organizationId, reversedBy);
    if (input.reversalDate < row.transactionDate) {
      throw invalid('/reversalDate', "Must not be earlier than the original entry's transactionDate");
    }
    const company = (await repo.companyForShare(tx, organizationId, row.companyId))!;
    refuseIf(companyRefusal(company.id, company));
    const ref = resolveFiscalPeriod(company, input.reversalDate, null, '/reversalDate');
    await lockPeriod(tx, { organizationId, company, ref, userId: access.userId, requireOpen: true });
    const { reversal, lines } = await reverseEntryInTx(tx, {
      original: row,
      company,
      date: input.reversalDate,
      period: ref,
      description: input.reversalDescription ?? null,
      reversedBy,
      userId: access.userId,
    });
    return entryRecord(reversal, lines, company.functionalCurrency);
  });
}

/**
 * Creates the `Posted` reversal of a `Posted` entry (3.7.6) and marks the original `Reversed`, in the
 * caller's transaction. The caller has locked the original, checked every rule and the period (year-end
 * reopen reverses into a closed period 13 on purpose). Balances are updated for the reversal entry in
 * its own period; `is_closing` follows the original's type. Audited as `Create` of the reversal and
 * `Reverse` of the original.
 */
export async function reverseEntryInTx(
  tx: Queryable,
  args: {
    original: EntryRow;
    company: CompanyRow;
    date: IsoDate;
    period: PeriodRef;
    description: string | null;
    reversedBy: string;
    userId: string;
  },
): Promise<{ reversal: EntryRow; lines: LineRow[] }> {
  const { original, company } = args;
  const organizationId = original.organizationId;
  const originalLines = await repo.loadLines(tx, organizationId, [original.id]);
  const id = uuidv7();
  const entryNumber = await repo.nextEntryNumber(tx, organizationId, company.id);
  const now = new Date();
  const newLines: NewLineRow[] = originalLines
    .sort((a, b) => a.lineNumber - b.lineNumber)
    .map((l, i) => ({
      id: uuidv7(),
      organizationId,
      journalEntryId: id,
      companyId: company.id,
      lineNumber: i + 1,
      accountId: l.accountId,
      currency: l.currency,
      debitAmount: l.creditAmount,
      creditAmount: l.debitAmount,
      functionalDebitAmount: l.functionalCreditAmount,
      functionalCreditAmount: l.functionalDebitAmount,
      exchangeRate: l.exchangeRate,
      exchangeRateId: l.exchangeRateId,
      exchangeRateLegIds: l.exchangeRateLegIds ?? [],
      memo: l.memo,
      dimensions: l.dimensions,
      intercompanyPartnerId: l.intercompanyPartnerId,
    }));
  const reversal = await repo.insertEntry(
    tx,
    {
      id,
      organizationId,
      companyId: company.id,
      entryNumber,
      referenceNumber: original.referenceNumber,
      description: args.description ?? `Reversal of ${repo.formatEntryNumber(original.entryNumber)}`,
      transactionDate: args.date,
      documentDate: null,
      postingDate: args.date,
      fiscalYear: args.period.year,
      fiscalPeriod: args.period.period,
      entryType: REVERSAL_ENTRY_TYPE,
      sourceModule: original.sourceModule,
      sourceDocumentRef: original.sourceDocumentRef,
      isMultiCurrency: original.isMultiCurrency,
      status: BOOKED_STATUS,
      isReversing: true,
      reversedEntryId: original.id,
      reversingEntryId: null,
      totalDebits: original.totalCredits,
      totalCredits: original.totalDebits,
      createdBy: args.userId,
      postedBy: args.reversedBy,
      postedAt: now,
      createdAt: now,
      updatedAt: now,
    },
    newLines,
  );
  await repo.updateEntry(tx, organizationId, original.id, {
    status: MOVES.reverse.to,
    reversingEntryId: id,
    reversedBy: args.reversedBy,
    reversedAt: now,
    updatedAt: now,
  });
  await addEntryToBalances(tx, reversal, isClosingRelated(original.entryType));
  const audits: AuditInput[] = [
    { organizationId, userId: args.userId, action: 'Create', entityType: 'JournalEntry', entityId: id },
    {
      organizationId,
      userId: args.userId,
      action: 'Reverse',
      entityType: 'JournalEntry',
      entityId: original.id,
      changes: {
        status: { from: original.status, to: MOVES.reverse.to },
        reversingEntryId: { from: null, to: id },
      },
    },
  ];
  await recordAudit(tx, audits);
  const lines = await repo.loadLines(tx, organizationId, [id]);
  return { reversal, lines };
}

// ---------------------------------------------------------------------------------------------------
// Entries generated by the service

export interface SystemLine {
  accountId: string;
  side: LineSide;
  /** Functional-currency amount (> 0), rate 1. */
  amount: Decimal;
}

/**
 * Creates an entry directly in status `Posted` (the year-end closing entry, 3.6.3): next entry number,
 * lines in the functional currency with rate 1, balances updated; no rule of 3.7.4 is applied (the
 * caller guarantees balance and accepts closed periods and inactive accounts). Audited as `Create` and
 * `Post` by `userId`.
 */
export async function insertPostedSystemEntry(
  tx: Queryable,
  args: {
    company: CompanyRow;
    description: string;
    transactionDate: IsoDate;
    postingDate: IsoDate;
    period: PeriodRef;
    entryType: EntryType;
    sourceDocumentRef: string | null;
    lines: SystemLine[];
    userId: string;
  },
): Promise<{ entry: EntryRow; lines: LineRow[] }> {
  const { company } = args;
  const organizationId = company.organizationId;
  const fc = company.functionalCurrency;
  const id = uuidv7();
  const entryNumber = await repo.nextEntryNumber(tx, organizationId, company.id);
  const now = new Date();
  const lineRowsNew: NewLineRow[] = args.lines.map((l, i) => {
    const v = l.amount.toFixed();
    return {
      id: uuidv7(),
      organizationId,
      journalEntryId: id,
      companyId: company.id,
      lineNumber: i + 1,
      accountId: l.accountId,
      currency: fc,
      debitAmount: l.side === 'debit' ? v : null,
      creditAmount: l.side === 'credit' ? v : null,
      functionalDebitAmount: l.side === 'debit' ? v : null,
      functionalCreditAmount: l.side === 'credit' ? v : null,
      exchangeRate: '1',
      exchangeRateId: null,
      exchangeRateLegIds: [],
      memo: null,
      dimensions: null,
      intercompanyPartnerId: null,
    };
  });
  const debits = args.lines.filter((l) => l.side === 'debit').reduce((s, l) => s.plus(l.amount), dec(0));
  const credits = args.lines.filter((l) => l.side === 'credit').reduce((s, l) => s.plus(l.amount), dec(0));
  const entry = await repo.insertEntry(
    tx,
    {
      id,
      organizationId,
      companyId: company.id,
      entryNumber,
      referenceNumber: null,
      description: args.description,
      transactionDate: args.transactionDate,
      documentDate: null,
      postingDate: args.postingDate,
      fiscalYear: args.period.year,
      fiscalPeriod: args.period.period,
      entryType: args.entryType,
      sourceModule: 'GeneralLedger',
      sourceDocumentRef: args.sourceDocumentRef,
      isMultiCurrency: false,
      status: BOOKED_STATUS,
      totalDebits: debits.toFixed(),
      totalCredits: credits.toFixed(),
      createdBy: args.userId,
      postedBy: args.userId,
      postedAt: now,
      createdAt: now,
      updatedAt: now,
    },
    lineRowsNew,
  );
  await addEntryToBalances(tx, entry, isClosingRelated(entry.entryType));
  await recordAudit(tx, [
    { organizationId, userId: args.userId, action: 'Create', entityType: 'JournalEntry', entityId: id },
    {
      organizationId,
      userId: args.userId,
      action: 'Post',
      entityType: 'JournalEntry',
      entityId: id,
      changes: { status: { from: null, to: BOOKED_STATUS } },
    },
  ]);
  return { entry, lines: await repo.loadLines(tx, organizationId, [id]) };
}

// ---------------------------------------------------------------------------------------------------
// Queries for other modules
