/**
 * API errors shown where they belong. A ValidationError names its fields with JSON Pointers
 * (`/lines/0/accountId`); other errors name them through their extra fields (an account number that
 * already exists → `/accountNumber`). `formErrors` turns either into `{fields, general}`: the form
 * shows each field's message beside the field and the rest above the form.
 */
import { ApiError } from '../api/client.ts';

export interface FormErrors {
  fields: Record<string, string>;
  general: string | null;
}

export const NO_ERRORS: FormErrors = { fields: {}, general: null };

/** Pointer of the field an error (other than a ValidationError) is about, by tag. */
const FIELD_OF_TAG: Record<string, string | ((body: Record<string, unknown>) => string | null)> = {
  UserExistsError: '/email',
  UserNotFoundByEmailError: '/email',
  UserAlreadyMemberError: '/email',
  OrganizationNameAlreadyExistsError: '/name',
  CompanyNameAlreadyExistsError: '/name',
  ConsolidationGroupNameAlreadyExistsError: '/name',
  AccountNumberAlreadyExistsError: '/accountNumber',
  ParentAccountNotFoundError: '/parentAccountId',
  ParentAccountDifferentCompanyError: '/parentAccountId',
  AccountTypeMismatchError: '/parentAccountId',
  CircularAccountReferenceError: '/parentAccountId',
  InvalidRetainedEarningsAccountError: '/retainedEarningsAccountId',
  FiscalYearEndChangeNotAllowedError: '/fiscalYearEnd',
  SameCurrencyExchangeRateError: '/toCurrency',
  ExchangeRateAlreadyExistsError: '/effectiveDate',
  SameCompanyIntercompanyError: '/toCompanyId',
  IntercompanyJournalEntryMismatchError: '/journalEntryId',
  FiscalPeriodClosedError: '/transactionDate',
  FiscalPeriodMismatchError: '/fiscalPeriod',
  UnbalancedJournalEntryError: '/lines',
  InvalidJournalLineAccountError: (b) =>
    typeof b.lineNumber === 'number' ? `/lines/${b.lineNumber - 1}/accountId` : '/lines',
  ConsolidationRunExistsForPeriodError: '/periodRef',
  ConsolidationRunInProgressError: '/periodRef',
  EliminationRuleOperationFailedError: (b) => {
    const reason = typeof b.reason === 'string' ? b.reason : '';
    const match = /^([A-Za-z]+(?:\/[A-Za-z0-9]+)*):/.exec(reason);
    return match ? `/${match[1]}` : null;
  },
};

export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.tag === 'PasswordWeakError' && Array.isArray(error.body.requirements))
      return (error.body.requirements as string[]).join(' ');
    if (error.tag === 'ExchangeRateNotFoundError') {
      const b = error.body;
      return `No ${b.fromCurrency}→${b.toCurrency} ${b.rateType} rate on or before ${b.date}: add one under Exchange rates, or type the rate.`;
    }
    if (error.tag === 'EliminationRuleOperationFailedError' && typeof error.body.reason === 'string')
      return error.body.reason;
    if (error.tag === 'ValidationError' && error.issues.length > 0)
      return error.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Splits an error into field messages and a general message. `known` lists the pointers the form
 * shows; an issue at a pointer inside a known field (`/registeredAddress/city` under
 * `/registeredAddress`) goes to the nearest known field, anything else to `general`.
 */
export function formErrors(error: unknown, known: readonly string[], extra?: FieldOf): FormErrors {
  if (!error) return NO_ERRORS;
  if (!(error instanceof ApiError)) return { fields: {}, general: errorMessage(error) };
  const fields: Record<string, string> = {};
  const rest: string[] = [];
  const place = (pointer: string | null, message: string) => {
    const target = pointer === null ? null : nearest(pointer, known);
    if (target === null) rest.push(pointer ? `${pointer}: ${message}` : message);
    else fields[target] = fields[target] ? `${fields[target]} ${message}` : message;
  };
  if (error.tag === 'ValidationError' && error.issues.length > 0) {
    for (const issue of error.issues) place(issue.path, issue.message);
  } else {
    const rule = extra?.(error) ?? FIELD_OF_TAG[error.tag];
    const pointer = typeof rule === 'function' ? rule(error.body) : (rule ?? null);
    place(pointer, errorMessage(error));
  }
  return { fields, general: rest.length > 0 ? rest.join(' ') : null };
}

export type FieldOf = (error: ApiError) => string | null | undefined;

function nearest(pointer: string, known: readonly string[]): string | null {
  let p = pointer;
  for (;;) {
    if (known.includes(p)) return p;
    const cut = p.lastIndexOf('/');
    if (cut <= 0) return known.includes('') ? '' : null;
    p = p.slice(0, cut);
  }
}
