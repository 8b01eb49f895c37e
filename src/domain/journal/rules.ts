/**
 * The rules an entry's company, lines and period must meet before it is written or posted, as
 * predicates over data already read, each returning null or a typed refusal (a closed vocabulary the
 * journal module turns into its errors). The checks are ordered: the first refusal is the one
 * reported. Amount conversion and balancing are in `amounts.ts`.
 *
 * Pure. The one-statement SQL paths re-check the line-account rule under locks with a guard built
 * from `LINE_ACCOUNT_REASONS`, so the list here is the only one.
 */
import type { IsoDate } from '../dates.ts';
import { ADJUSTMENT_PERIOD, type FiscalYearEnd, periodOf } from '../fiscal-calendar.ts';
import type { EntryType } from './workflow.ts';

export interface PeriodRef {
  year: number;
  period: number;
}

// ---------------------------------------------------------------------------------------------------
// The company

export interface CompanyFacts {
  isActive: boolean;
}

export interface CompanyRefusal {
  refusal: 'CompanyNotFound' | 'CompanyInactive';
  companyId: string;
}

/** The entry's company must exist in the organization (`company` null otherwise) and be active. */
export function companyRefusal(
  companyId: string,
  company: CompanyFacts | null | undefined,
): CompanyRefusal | null {
  if (!company) return { refusal: 'CompanyNotFound', companyId };
  if (!company.isActive) return { refusal: 'CompanyInactive', companyId };
  return null;
}

// ---------------------------------------------------------------------------------------------------
// Line accounts

/** Why a line's account refuses the line, in the order the checks run. */
export const LINE_ACCOUNT_REASONS = ['NotFound', 'DifferentCompany', 'Inactive', 'NotPostable'] as const;
export type LineAccountReason = (typeof LINE_ACCOUNT_REASONS)[number];

export interface LineAccountFacts {
  companyId: string;
  isActive: boolean;
  isPostable: boolean;
}

/** The account of a line must exist, belong to the entry's company, be active and postable. */
export function lineAccountReason(
  account: LineAccountFacts | undefined,
  companyId: string,
): LineAccountReason | null {
  if (!account) return 'NotFound';
  if (account.companyId !== companyId) return 'DifferentCompany';
  if (!account.isActive) return 'Inactive';
  if (!account.isPostable) return 'NotPostable';
  return null;
}

export interface LineAccountRefusal {
  refusal: 'InvalidLineAccount';
  lineNumber: number;
  accountId: string;
  reason: LineAccountReason;
}

/** The account rule on every line, in line order: the first line refused, or null. */
export function lineAccountsRefusal(
  lines: readonly { lineNumber: number; accountId: string }[],
  accounts: ReadonlyMap<string, LineAccountFacts>,
  companyId: string,
): LineAccountRefusal | null {
  for (const line of lines) {
    const reason = lineAccountReason(accounts.get(line.accountId), companyId);
    if (reason)
      return {
        refusal: 'InvalidLineAccount',
        lineNumber: line.lineNumber,
        accountId: line.accountId,
        reason,
      };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------
// Intercompany partners

/** Why a line's intercompany partner is refused, in the order the checks run. */
export type PartnerReason = 'AccountPartnerDiffers' | 'NotACompany' | 'OwnCompany';

export interface PartnerRefusal {
  refusal: 'InvalidPartner';
  lineNumber: number;
  reason: PartnerReason;
}

export interface PartnerAccountFacts {
  isIntercompany: boolean;
  intercompanyPartnerId: string | null;
}

/**
 * The partner of each line: the one given must equal the intercompany account's partner (when the
 * account has one), be a company of the organization (`knownCompanies`) and not the entry's own; a
 * line without one takes its account's. Returns each line's effective partner, or the first refusal.
 * Runs after the account rule, so every line's account is in `accounts`.
 */
export function linePartners(
  lines: readonly { lineNumber: number; accountId: string; partner: string | null }[],
  accounts: ReadonlyMap<string, PartnerAccountFacts>,
  knownCompanies: ReadonlySet<string>,
  companyId: string,
): Map<number, string | null> | PartnerRefusal {
  const partners = new Map<number, string | null>();
  for (const line of lines) {
    const account = accounts.get(line.accountId)!;
    const accountPartner = account.isIntercompany ? account.intercompanyPartnerId : null;
    const reason = partnerReason(line.partner, accountPartner, knownCompanies, companyId);
    if (reason) return { refusal: 'InvalidPartner', lineNumber: line.lineNumber, reason };
    partners.set(line.lineNumber, line.partner ?? accountPartner);
  }
  return partners;
}

function partnerReason(
  given: string | null,
  accountPartner: string | null,
  knownCompanies: ReadonlySet<string>,
  companyId: string,
): PartnerReason | null {
  if (given === null) return null;
  if (accountPartner !== null && accountPartner !== given) return 'AccountPartnerDiffers';
  if (!knownCompanies.has(given)) return 'NotACompany';
  if (given === companyId) return 'OwnCompany';
  return null;
}

// ---------------------------------------------------------------------------------------------------
// The fiscal period

export const FIRST_FISCAL_YEAR = 1900;
export const LAST_FISCAL_YEAR = 2999;

export type FiscalPeriodRefusal =
  | {
      refusal: 'FiscalPeriodMismatch';
      transactionDate: IsoDate;
      fiscalPeriod: PeriodRef;
      expectedFiscalPeriod: PeriodRef;
    }
  | { refusal: 'FiscalYearOutOfRange' };

/**
 * The fiscal period of an entry: the period of its date under the company's fiscal year end, or the
 * one given, which must be that period or the adjustment period (13) of the same year. The year must lie
 * within the years the service keeps.
 */
export function entryPeriod(
  fiscalYearEnd: FiscalYearEnd,
  transactionDate: IsoDate,
  given: PeriodRef | null,
): PeriodRef | FiscalPeriodRefusal {
  const expected = periodOf(fiscalYearEnd, transactionDate);
  if (given !== null && !isPeriodOfDate(given, expected)) {
    return {
      refusal: 'FiscalPeriodMismatch',
      transactionDate,
      fiscalPeriod: { year: given.year, period: given.period },
      expectedFiscalPeriod: expected,
    };
  }
  if (expected.year < FIRST_FISCAL_YEAR || expected.year > LAST_FISCAL_YEAR) {
    return { refusal: 'FiscalYearOutOfRange' };
  }
  return given ?? expected;
}

function isPeriodOfDate(given: PeriodRef, expected: PeriodRef): boolean {
  return (
    given.year === expected.year && (given.period === expected.period || given.period === ADJUSTMENT_PERIOD)
  );
}

/** The status of a fiscal period that accepts entries. */
export const OPEN_PERIOD_STATUS = 'Open';

export interface FiscalPeriodClosedRefusal {
  refusal: 'FiscalPeriodClosed';
  companyId: string;
  fiscalYear: number;
  periodNumber: number;
}

/** An entry is written, posted or reversed only into an open period (`ref` of the company). */
export function periodRefusal(
  companyId: string,
  ref: PeriodRef,
  period: { status: string },
): FiscalPeriodClosedRefusal | null {
  if (period.status === OPEN_PERIOD_STATUS) return null;
  return { refusal: 'FiscalPeriodClosed', companyId, fiscalYear: ref.year, periodNumber: ref.period };
}

// ---------------------------------------------------------------------------------------------------
// Closing entries

/** The type of a year-end closing entry. */
export const CLOSING_ENTRY_TYPE = 'Closing' satisfies EntryType;

/** `sourceDocumentRef` prefix of the service's year-end closing entries and their reopen reversals. */
export const YEAR_END_REF_PREFIX = 'year-end-close:';

/** `"year-end-close:<fiscalYearId>"`: the origin mark of a year's closing entry. */
export const yearEndRef = (fiscalYearId: string) => `${YEAR_END_REF_PREFIX}${fiscalYearId}`;

/**
 * Whether an entry's lines count as closing-related in the balances: those of an entry of type
 * `Closing` and those of the reversal of one, which passes the type of the entry it reverses (a
 * reversal of such a reversal is an ordinary entry).
 */
export function isClosingRelated(entryType: string): boolean {
  return entryType === CLOSING_ENTRY_TYPE;
}

export interface ClosingEntryReversalRefusal {
  refusal: 'ClosingEntryReversal';
  entryId: string;
  fiscalYearId: string;
}

/** A year-end closing entry (or its reopen reversal) is undone by reopening the year, not reversed. */
export function closingEntryReversalRefusal(entry: {
  id: string;
  sourceDocumentRef: string | null;
}): ClosingEntryReversalRefusal | null {
  const ref = entry.sourceDocumentRef;
  if (!ref?.startsWith(YEAR_END_REF_PREFIX)) return null;
  return {
    refusal: 'ClosingEntryReversal',
    entryId: entry.id,
    fiscalYearId: ref.slice(YEAR_END_REF_PREFIX.length),
  };
}
