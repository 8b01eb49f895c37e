/**
 * The checks of a journal request, in the order they run: who may touch the entry (its organization
 * and, for `postedBy` / `reversedBy`, the named user), then the posting rules R1–R6 — the company
 * (R1), the line accounts (R2) and partners (R3), the fiscal period (R4), the conversion of every line
 * (R5) and the balance (R6).
 *
 * The rules themselves are the pure predicates of src/domain/journal; this file reads what they need,
 * takes the locks the transactional paths hold, and turns their refusals into the service's errors
 * (`refused`: the one place where a journal refusal becomes an error).
 */
import { type Db, inTransaction, type Queryable, type Tx } from '../../db/client.ts';
import { inOrg, sameRow } from '../../db/rows.ts';
import { fiscalPeriods } from '../../db/schema/index.ts';
import type { IsoDate } from '../../domain/dates.ts';
import { DomainError, invalid, ValidationError } from '../../domain/errors.ts';
import {
  balanceFunctional,
  checkTransactionBalance,
  convertLine,
  functionalAmountIssue,
  STORED_RATE_LIMIT,
  type UnbalancedEntry,
} from '../../domain/journal/amounts.ts';
import {
  type ClosingEntryReversalRefusal,
  type CompanyFacts,
  type CompanyRefusal,
  companyRefusal,
  entryPeriod,
  type FiscalPeriodClosedRefusal,
  type FiscalPeriodRefusal,
  type LineAccountRefusal,
  lineAccountsRefusal,
  linePartners,
  type PartnerRefusal,
  type PeriodRef,
  periodRefusal,
} from '../../domain/journal/rules.ts';
import {
  type Operation,
  type SegregationRefusal,
  type TransitionRefusal,
  transitionRefusal,
  type WorkflowPolicy,
} from '../../domain/journal/workflow.ts';
import { type Decimal, dec } from '../../domain/money.ts';
import { type Access, type Action, ROLE_RANK, type Role } from '../../access/access.ts';
import { type CompanyRow, companyInactive, companyNotFound, fiscalYearEndOf } from '../companies/lookup.ts';
import { resolveRateFor } from '../exchange-rates/service.ts';
import { ensurePeriod } from '../fiscal/ensure.ts';
import { type DerivedLine, type DraftLine, partnerIdsOf } from './lines.ts';
import type { EntryRow } from './repo.ts';
import * as repo from './repo.ts';
import type { LineAccount } from './create-statements.ts';
import { errors } from '../../domain/error-catalogue.ts';

// ---------------------------------------------------------------------------------------------------
// Who

/**
 * The organization of an entry addressed by id: with `organizationId`, that organization is checked
 * first and the entry must belong to it (else 404); without, the entry's own organization is checked.
 * Returns the entry's organization id.
 */
export async function locateEntry(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  action: Action,
): Promise<string> {
  const row = await access.addressed(
    organizationId,
    action,
    (orgId) => (orgId === undefined ? repo.findEntryById(db, id) : repo.findEntry(db, orgId, id)),
    () => entryNotFound(id),
  );
  return row.organizationId;
}

/**
 * The entry of the organization, locked for update, when `operation` may start from its status
 * (`policy`: the organization's, for a post); else the entry's 404 or the move's refusal.
 */
export async function lockEntryFor(
  tx: Queryable,
  organizationId: string,
  id: string,
  operation: Operation,
  policy?: Pick<WorkflowPolicy, 'requireApproval'>,
): Promise<EntryRow> {
  const row = await repo.findEntry(tx, organizationId, id, true);
  if (!row) throw entryNotFound(id);
  refuseIf(transitionRefusal(operation, row, policy));
  return row;
}

/**
 * A write to the entry addressed by id: the caller's right to `action` is checked (`locateEntry`), then
 * `write` runs in a transaction on the entry locked for `operation` (`lockEntryFor`).
 */
export async function writeEntry<T>(
  db: Db,
  access: Access,
  id: string,
  organizationId: string | undefined,
  action: Action,
  operation: Operation,
  write: (tx: Tx, row: EntryRow) => Promise<T>,
): Promise<T> {
  const orgId = await locateEntry(db, access, id, organizationId, action);
  return inTransaction(db, async (tx) => write(tx, await lockEntryFor(tx, orgId, id, operation)));
}

/** `postedBy` / `reversedBy`: a member whose role reaches admin. */
export async function checkActor(tx: Queryable, organizationId: string, userId: string): Promise<void> {
  const role = (await repo.memberRole(tx, organizationId, userId)) as Role | null;
  if (role === null) {
    throw errors.UserNotMemberOfOrganizationError('The user is not a member of the organization', {
      userId,
      organizationId,
    });
  }
  if (ROLE_RANK[role] < ROLE_RANK.admin) {
    throw errors.UserRoleInsufficientError('The user may not perform this action', {
      userId,
      organizationId,
      requiredRole: 'admin',
      currentRole: role,
    });
  }
}

// ---------------------------------------------------------------------------------------------------
// R1 – R3: company, line accounts, partners

/** R1: the company of the organization (null when it is not one), active. */
export function checkCompany<C extends CompanyFacts>(companyId: string, company: C | null | undefined): C {
  refuseIf(companyRefusal(companyId, company));
  return company!;
}

/** R2 and R3 on the lines of an entry of `company`, reading the accounts and partners they name. */
export async function checkLineAccounts(
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

/**
 * R2 and R3 on read data: `accounts` are the organization's accounts among the line accounts,
 * `knownCompanies` the organization's companies among the lines' partner ids. Returns each line's
 * effective intercompany partner.
 */
export function checkLineAccountsWith(
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

// ---------------------------------------------------------------------------------------------------
// R4: the fiscal period

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
 * The period row (its year is created if missing), share-locked until the transaction ends so that a
 * concurrent period or year close waits for this operation; `requireOpen` refuses a closed period.
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
      inOrg(fiscalPeriods, input.organizationId, {
        companyId: input.company.id,
        fiscalYear: input.ref.year,
        periodNumber: input.ref.period,
      }),
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
      .where(sameRow(fiscalPeriods, period))
      .for('share');
  }
  if (input.requireOpen) refuseIf(periodRefusal(input.company.id, input.ref, locked!));
  return locked!;
}

// ---------------------------------------------------------------------------------------------------
// R5, R6: conversion and balance

/** Where the lines of an entry are converted: its organization, functional currency and date. */
export interface Conversion {
  organizationId: string;
  functionalCurrency: string;
  transactionDate: IsoDate;
}

/**
 * R5 and R6: every line's rate and functional amount, then the balance (a rounding difference absorbed
 * by one line). With `recompute` false the stored derivation of each line is kept instead.
 * `partners` are the effective partners R3 gave the lines. `known` holds the Spot rates of this
 * conversion already looked up (a bulk request shares them between its entries of the same date).
 */
export async function deriveLines(
  tx: Queryable,
  conversion: Conversion,
  lines: DraftLine[],
  partners: Map<number, string | null>,
  recompute: boolean,
  known: KnownRates = new Map(),
): Promise<DerivedLine[]> {
  if (!recompute) return lines.map((l) => storedDerivation(l, partners.get(l.lineNumber) ?? null));
  await lookUpRates(tx, conversion, lines, known);
  return deriveLinesWith(conversion, lines, partners, known);
}

/** The Spot rates of one conversion by currency, as looked up: null when there is none. */
export type KnownRates = Map<string, LineRate | null>;

/** The lines need a Spot rate that `known` does not hold yet. */
export function needsRateLookUp(
  conversion: Conversion,
  lines: readonly DraftLine[],
  known: KnownRates,
): boolean {
  return lines.some(
    (l) => l.currency !== conversion.functionalCurrency && l.givenRate === null && !known.has(l.currency),
  );
}

/**
 * Looks up the Spot rate on or before the date of every currency the lines need and `known` lacks,
 * once per currency. A missing rate is kept as null: the line that needs it is refused by R5 in line
 * order (deriveLinesWith), after the refusals of the lines before it.
 */
export async function lookUpRates(
  tx: Queryable,
  conversion: Conversion,
  lines: readonly DraftLine[],
  known: KnownRates,
): Promise<void> {
  for (const l of lines) {
    if (l.currency === conversion.functionalCurrency || l.givenRate !== null || known.has(l.currency))
      continue;
    const res = await resolveRateFor(tx, {
      organizationId: conversion.organizationId,
      from: l.currency,
      to: conversion.functionalCurrency,
      types: ['Spot'],
      condition: { kind: 'onOrBefore', date: conversion.transactionDate },
    });
    known.set(
      l.currency,
      res?.effectiveRate.greaterThan(0)
        ? { rate: res.effectiveRate, legIds: res.legs.map((r) => r.id) }
        : null,
    );
  }
}

/** R5 and R6 once the rates the lines need are in `known` (lookUpRates): no query, no await. */
export function deriveLinesWith(
  conversion: Conversion,
  lines: readonly DraftLine[],
  partners: Map<number, string | null>,
  known: KnownRates,
): DerivedLine[] {
  const derived: DerivedLine[] = [];
  for (const l of lines) {
    const { rate, legIds } = lineRate(conversion, l, known);
    derived.push({
      ...l,
      exchangeRate: rate,
      exchangeRateId: legIds[0] ?? null,
      legIds,
      functionalAmount: convertLine(l.amount, rate, conversion.functionalCurrency),
      effectivePartner: partners.get(l.lineNumber) ?? null,
    });
  }
  refuseOutOfRange(derived, conversion.functionalCurrency);
  const r6a = checkTransactionBalance(derived);
  if (r6a) throw unbalancedError(r6a);
  const r6b = balanceFunctional(derived, conversion.functionalCurrency);
  if (!r6b.ok) throw unbalancedError(r6b.error);
  return r6b.lines;
}

/**
 * Every derived figure must fit the ledger before anything is written: a functional amount below
 * 10^15 (FUNCTIONAL_AMOUNT_LIMIT) and a resolved rate below 10^16. Out of range → 400 naming the
 * line's amount (or rate).
 */
function refuseOutOfRange(lines: readonly DerivedLine[], functionalCurrency: string): void {
  const issues: { path: string; message: string }[] = [];
  for (const l of lines) {
    const at = `/lines/${l.lineNumber - 1}`;
    if (!l.exchangeRate.lessThan(STORED_RATE_LIMIT)) {
      issues.push({ path: `${at}/exchangeRate`, message: 'The effective exchange rate must be below 10^16' });
    }
    const message = functionalAmountIssue(l.functionalAmount, functionalCurrency);
    if (message)
      issues.push({ path: `${at}/${l.side === 'debit' ? 'debitAmount' : 'creditAmount'}`, message });
  }
  if (issues.length > 0) throw new ValidationError(issues);
}

function storedDerivation(l: DraftLine, effectivePartner: string | null): DerivedLine {
  return {
    ...l,
    functionalAmount: dec(l.stored!.functionalAmount),
    exchangeRate: dec(l.stored!.exchangeRate),
    exchangeRateId: l.stored!.exchangeRateId,
    legIds: l.stored!.legIds,
    effectivePartner,
  };
}

export interface LineRate {
  rate: Decimal;
  legIds: string[];
}

const ONE = dec(1);

/**
 * R5: the rate of a line — 1 in the functional currency (a given rate must be 1), the given rate, or
 * the Spot rate on or before the date (looked up beforehand into `known`).
 */
function lineRate(conversion: Conversion, l: DraftLine, known: KnownRates): LineRate {
  if (l.currency === conversion.functionalCurrency) {
    if (l.givenRate !== null && !dec(l.givenRate).equals(1)) {
      throw invalid(
        `/lines/${l.lineNumber - 1}/exchangeRate`,
        'Must be 1 when the line currency is the functional currency',
      );
    }
    return { rate: ONE, legIds: [] };
  }
  if (l.givenRate !== null) return { rate: dec(l.givenRate), legIds: [] };
  const found = known.get(l.currency);
  if (!found) throw exchangeRateNotFound(conversion, l.currency);
  return found;
}

// ---------------------------------------------------------------------------------------------------
// Errors

export function entryNotFound(entryId: string): DomainError {
  return errors.JournalEntryNotFoundError('Journal entry not found', { entryId });
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

/** Throws the error of the refusal, if any. */
export function refuseIf(r: JournalRefusal | null): void {
  if (r) throw refused(r);
}

/** The error a refusal is reported with: its fields are the refusal's. */
export function refused(r: JournalRefusal): DomainError {
  const { refusal: _refusal, ...fields } = r;
  switch (r.refusal) {
    case 'InvalidStatusTransition':
      return errors.InvalidStatusTransitionError(
        `Cannot ${r.operation} an entry in status ${r.currentStatus}`,
        fields,
      );
    case 'AlreadyReversed':
      return errors.JournalEntryAlreadyReversedError('The entry is already reversed', fields);
    case 'SegregationOfDuties':
      return errors.SegregationOfDutiesViolationError('Segregation of duties forbids this', fields);
    case 'CompanyNotFound':
      return companyNotFound(r.companyId);
    case 'CompanyInactive':
      return companyInactive(r.companyId);
    case 'InvalidLineAccount':
      return errors.InvalidJournalLineAccountError(`Line ${r.lineNumber}: account is ${r.reason}`, fields);
    case 'InvalidPartner':
      return invalid(`/lines/${r.lineNumber - 1}/intercompanyPartnerId`, PARTNER_MESSAGES[r.reason]);
    case 'FiscalPeriodMismatch':
      return errors.FiscalPeriodMismatchError(
        'The fiscal period does not match the transaction date',
        fields,
      );
    case 'FiscalPeriodClosed':
      return errors.FiscalPeriodClosedError('The fiscal period is closed', {
        ...fields,
        periodStatus: 'Closed',
      });
    case 'ClosingEntryReversal':
      return errors.ClosingEntryReversalNotAllowedError(
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

function unbalancedError(e: UnbalancedEntry): DomainError {
  return errors.UnbalancedJournalEntryError(
    e.basis === 'transaction'
      ? 'Debits and credits differ in the transaction currency'
      : 'Debits and credits differ in the functional currency',
    { ...e },
  );
}

function exchangeRateNotFound(conversion: Conversion, currency: string): DomainError {
  return errors.ExchangeRateNotFoundError('No exchange rate to convert the line', {
    fromCurrency: currency,
    toCurrency: conversion.functionalCurrency,
    date: conversion.transactionDate,
    rateType: 'Spot',
  });
}
