/**
 * Building blocks shared by the company reports and the consolidated statements
 * (which reuse the section structures).
 *
 * Everything here is pure: figures come in as decimals (Decimal or decimal strings), are summed
 * exactly, rounded to the currency's minor unit once per account/line, and go out as Money.
 *
 * Vocabulary used throughout:
 * - `net`: a signed, **debit-positive** figure (Σ debit − Σ credit) of one account or line.
 * - natural sign: Asset and Expense amounts are debit − credit; Liability, Equity and
 *   Revenue amounts are credit − debit.
 */
import {
  ACCOUNT_CATEGORIES,
  type AccountCategory,
  type AccountType,
  type CashFlowCategory,
  defaultCashFlowCategory,
  naturalSign,
} from '../accounts.ts';
import { Decimal, dec, formatPercentage, type Money, money, roundMoney, ZERO } from '../money.ts';

/** A decimal figure: a Decimal or a decimal string (`"1250.00"`). Never a JS number. */
export type Amount = Decimal | string;

/** Account categories a report line may carry; consolidated `NCI` lines use `NonControllingInterest`. */
export type LineCategory = AccountCategory | 'NonControllingInterest';

export type LineStyle = 'Normal' | 'Subtotal' | 'Total' | 'Header';

// ---------------------------------------------------------------------------------------------------
// Inputs of the company reports
// ---------------------------------------------------------------------------------------------------

/** The account data every company report needs (one row per account of the company). */
export interface ReportAccount {
  id: string;
  /** 4–10 digits, no leading zero; ordered numerically. */
  accountNumber: string;
  name: string;
  accountType: AccountType;
  accountCategory: AccountCategory;
  isPostable: boolean;
  isCashEquivalent: boolean;
  /** `null` = the default for the category (see `defaultCashFlowCategory`). */
  cashFlowCategory: CashFlowCategory | null;
  /** `true` exactly for the company's `retainedEarningsAccountId` (Account.isRetainedEarnings). */
  isRetainedEarningsAccount: boolean;
}

/**
 * Aggregated ledger figures of one account within a scope defined by the caller (dates, with or
 * without closing-related entries). Either the debit and credit totals or their difference:
 * `{accountId, debit, credit}` or `{accountId, net}` with `net = Σ debit − Σ credit`.
 *
 * An account may appear in several rows (for instance one per fiscal period or per
 * closing flag of a balance table); the rows are summed. The presence of a row means "the account
 * has ledger lines in scope" — that matters only for reports that show zero balances.
 * Every `accountId` must belong to the `accounts` given to the builder (else an Error is thrown).
 */
export type AccountFigures =
  { accountId: string; debit: Amount; credit: Amount } | { accountId: string; net: Amount };

/** Fields every company report carries. */
export interface CompanyReportHeader {
  companyId: string;
  /** The company's functional currency (ISO 4217 code). */
  currency: string;
  /** Timestamp `YYYY-MM-DDTHH:mm:ss.sssZ` (the caller's "now"). */
  generatedAt: string;
}

/** The header of a company report over a period (cash-flow statement, statement of changes in equity). */
export interface PeriodReportHeader {
  companyId: string;
  periodStartDate: string;
  periodEndDate: string;
  currency: string;
  generatedAt: string;
}

/** The period header of a report from its input, in the order the report shows it. */
export function periodReportHeader(input: PeriodReportHeader): PeriodReportHeader {
  return {
    companyId: input.companyId,
    periodStartDate: input.periodStartDate,
    periodEndDate: input.periodEndDate,
    currency: input.currency,
    generatedAt: input.generatedAt,
  };
}

// ---------------------------------------------------------------------------------------------------
// Outputs shared by several reports
// ---------------------------------------------------------------------------------------------------

/** ReportLine. */
export interface ReportLine {
  accountId: string | null;
  accountNumber: string | null;
  description: string;
  currentAmount: Money;
  comparativeAmount: Money | null;
  variance: Money | null;
  variancePercentage: string | null;
  style: LineStyle;
  indentLevel: number;
}

/** ReportSection (balance sheet and income statement). */
export interface ReportSection {
  title: string;
  lineItems: ReportLine[];
  subtotal: Money;
  comparativeSubtotal: Money | null;
}

// ---------------------------------------------------------------------------------------------------
// Account numbers and figures
// ---------------------------------------------------------------------------------------------------

const DIGITS = /^[0-9]+$/;

/**
 * Orders account numbers numerically (`"1000" < "1200" < "10000"`). Numbers that are not all
 * digits (consolidated synthetic lines such as `CTA`, `NCI`) and `null` sort after every numeric
 * number and compare equal among themselves, so a stable sort keeps their input order.
 */
export function compareAccountNumbers(a: string | null, b: string | null): number {
  const na = a !== null && DIGITS.test(a);
  const nb = b !== null && DIGITS.test(b);
  if (na && nb) {
    const x = a.replace(/^0+(?=.)/, '');
    const y = b.replace(/^0+(?=.)/, '');
    if (x.length !== y.length) return x.length - y.length;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (na) return -1;
  if (nb) return 1;
  return 0;
}

/** Stable sort by `accountNumber` (see `compareAccountNumbers`); returns a new array. */
export function sortByAccountNumber<T extends { accountNumber: string | null }>(items: readonly T[]): T[] {
  return [...items].sort((p, q) => compareAccountNumbers(p.accountNumber, q.accountNumber));
}

/** Debit-positive net of one figures row. */
export function figuresNet(row: AccountFigures): Decimal {
  return 'net' in row ? dec(row.net) : dec(row.debit).minus(dec(row.credit));
}

/** Indexes accounts by id; throws on a duplicate id. */
export function indexAccounts(accounts: readonly ReportAccount[]): Map<string, ReportAccount> {
  const map = new Map<string, ReportAccount>();
  for (const a of accounts) {
    if (map.has(a.id)) throw new Error(`Duplicate account ${a.id} in report input`);
    map.set(a.id, a);
  }
  return map;
}

/**
 * Sums figures rows per account into a debit-positive net rounded to the currency's minor unit.
 * Accounts with at least one row are keys of the result (even when their net is zero).
 * Throws when a row names an account that is not in `accountsById`.
 */
export function netByAccount(
  figures: readonly AccountFigures[],
  accountsById: ReadonlyMap<string, ReportAccount>,
  currency: string,
): Map<string, Decimal> {
  const raw = new Map<string, Decimal>();
  for (const row of figures) {
    if (!accountsById.has(row.accountId)) throw new Error(`Figures for unknown account ${row.accountId}`);
    raw.set(row.accountId, (raw.get(row.accountId) ?? ZERO).plus(figuresNet(row)));
  }
  const out = new Map<string, Decimal>();
  for (const [id, v] of raw) out.set(id, roundMoney(v, currency));
  return out;
}

/** Natural-sign amount of a debit-positive net for an account type. */
export function naturalAmount(accountType: AccountType, net: Amount): Decimal {
  return dec(net).times(naturalSign(accountType));
}

/** Credit − debit of a debit-positive net. */
export function creditPositive(net: Amount): Decimal {
  return dec(net).negated();
}

function isAccountCategory(value: string): value is AccountCategory {
  return (ACCOUNT_CATEGORIES as readonly string[]).includes(value);
}

// ---------------------------------------------------------------------------------------------------
// Generic line sources (company accounts and consolidated lines alike)
// ---------------------------------------------------------------------------------------------------

/**
 * One account or consolidated line feeding a statement section.
 *
 * `net` and `comparativeNet` are **debit-positive** (debit − credit): the section builders apply
 * the sign their section prescribes (natural sign, or credit − debit for "Other Income and
 * Expenses", or −net for cash-flow effects). Consolidated lines use `accountId: null`, their
 * `accountNumber` (which may be synthetic, e.g. `NCI`) and `consolidatedBalance` as `net`.
 */
export interface LineSource {
  accountId: string | null;
  accountNumber: string | null;
  /** The line's description: the account name. */
  name: string;
  accountType: AccountType;
  accountCategory: LineCategory;
  /** Explicit cash-flow category; `null` = default for `accountCategory`. */
  cashFlowCategory: CashFlowCategory | null;
  isCashEquivalent: boolean;
  /** Current figure, debit − credit. */
  net: Amount;
  /** Comparative figure, debit − credit; omitted/null when the report has no comparative (zero is assumed when it has one). */
  comparativeNet?: Amount | null;
  /** Show the line even when its amounts are zero (reports that include zero balances). */
  keepWhenZero?: boolean;
}

/** A LineSource for a company account. */
export function accountLineSource(
  account: ReportAccount,
  net: Amount,
  comparativeNet: Amount | null = null,
  keepWhenZero = false,
): LineSource {
  return {
    accountId: account.id,
    accountNumber: account.accountNumber,
    name: account.name,
    accountType: account.accountType,
    accountCategory: account.accountCategory,
    cashFlowCategory: account.cashFlowCategory,
    isCashEquivalent: account.isCashEquivalent,
    net,
    comparativeNet,
    keepWhenZero,
  };
}

/**
 * The cash-flow category that classifies a balance-sheet line: its own `cashFlowCategory`,
 * or the default for its category. Throws when neither exists (Revenue/Expense lines, or a
 * consolidated `NonControllingInterest` line without an explicit category).
 */
export function effectiveCashFlowCategory(source: {
  accountCategory: LineCategory;
  cashFlowCategory: CashFlowCategory | null;
}): CashFlowCategory {
  if (source.cashFlowCategory !== null) return source.cashFlowCategory;
  const d = isAccountCategory(source.accountCategory)
    ? defaultCashFlowCategory(source.accountCategory)
    : null;
  if (d === null) throw new Error(`No cash-flow category for account category ${source.accountCategory}`);
  return d;
}

// ---------------------------------------------------------------------------------------------------
// ReportLine / ReportSection construction
// ---------------------------------------------------------------------------------------------------

/**
 * A line before formatting. `current` and `comparative` are already in the section's sign.
 * `comparative: null` means "no comparative" (when the section has a comparative, `makeSection`
 * treats a null as zero).
 */
export interface LineDraft {
  accountId: string | null;
  accountNumber: string | null;
  description: string;
  current: Amount;
  comparative: Amount | null;
  /** Default `Normal`. */
  style?: LineStyle;
  /** Default 1. */
  indentLevel?: number;
}

/** variance ÷ |comparative| × 100, rounded to 2 decimals; null when comparative is null or zero. */
export function variancePercentage(variance: Amount, comparative: Amount | null): string | null {
  if (comparative === null) return null;
  const c = dec(comparative);
  if (c.isZero()) return null;
  return formatPercentage(dec(variance).dividedBy(c.abs()).times(100));
}

/** Formats one ReportLine (amounts rounded to the currency's minor unit; variance from the rounded amounts). */
export function reportLine(draft: LineDraft, currency: string): ReportLine {
  const current = roundMoney(draft.current, currency);
  const comparative = draft.comparative === null ? null : roundMoney(draft.comparative, currency);
  const variance = comparative === null ? null : current.minus(comparative);
  return {
    accountId: draft.accountId,
    accountNumber: draft.accountNumber,
    description: draft.description,
    currentAmount: money(current, currency),
    comparativeAmount: comparative === null ? null : money(comparative, currency),
    variance: variance === null ? null : money(variance, currency),
    variancePercentage: variance === null ? null : variancePercentage(variance, comparative),
    style: draft.style ?? 'Normal',
    indentLevel: draft.indentLevel ?? 1,
  };
}

/**
 * A ReportSection from line drafts, in the given order. `subtotal` = Σ current amounts of the
 * `Normal` lines; `comparativeSubtotal` = Σ comparative amounts when `hasComparative`, else null
 * (and every line's comparative fields are null).
 */
export function makeSection(
  title: string,
  drafts: readonly LineDraft[],
  currency: string,
  hasComparative: boolean,
): ReportSection {
  let subtotal = ZERO;
  let comparativeSubtotal = ZERO;
  const lineItems = drafts.map((d) => {
    const current = roundMoney(d.current, currency);
    const comparative = hasComparative ? roundMoney(d.comparative ?? ZERO, currency) : null;
    if ((d.style ?? 'Normal') === 'Normal') {
      subtotal = subtotal.plus(current);
      if (comparative !== null) comparativeSubtotal = comparativeSubtotal.plus(comparative);
    }
    return reportLine({ ...d, current, comparative }, currency);
  });
  return {
    title,
    lineItems,
    subtotal: money(subtotal, currency),
    comparativeSubtotal: hasComparative ? money(comparativeSubtotal, currency) : null,
  };
}

/** Sign applied to a source's debit-positive net inside a section: 1 or −1. */
export type SectionSign = (source: LineSource) => 1 | -1;

/** Natural sign of the line's account type. */
export const NATURAL_SIGN: SectionSign = (s) => naturalSign(s.accountType);
/** credit − debit whatever the type ("Other Income and Expenses"). */
export const CREDIT_POSITIVE: SectionSign = () => -1;

/**
 * A section from line sources: sources whose current and comparative amounts are both zero are
 * omitted unless `keepWhenZero`; the rest become `Normal` lines at indent 1 ordered by account
 * number, followed by `extraLines` (computed lines, in the order given; their amounts are already
 * in the section's sign).
 */
export function sectionFromSources(
  title: string,
  sources: readonly LineSource[],
  options: {
    currency: string;
    hasComparative: boolean;
    sign: SectionSign;
    extraLines?: readonly LineDraft[];
  },
): ReportSection {
  const { currency, hasComparative, sign } = options;
  const drafts: LineDraft[] = [];
  for (const s of sortByAccountNumber(sources)) {
    const k = sign(s);
    const current = roundMoney(dec(s.net).times(k), currency);
    const comparative = hasComparative ? roundMoney(dec(s.comparativeNet ?? ZERO).times(k), currency) : null;
    const zero = current.isZero() && (comparative === null || comparative.isZero());
    if (zero && !s.keepWhenZero) continue;
    drafts.push({
      accountId: s.accountId,
      accountNumber: s.accountNumber,
      description: s.name,
      current,
      comparative,
      style: 'Normal',
      indentLevel: 1,
    });
  }
  drafts.push(...(options.extraLines ?? []));
  return makeSection(title, drafts, currency, hasComparative);
}

/** The Decimal value of a Money. */
export function moneyValue(m: Money): Decimal {
  return new Decimal(m.value);
}
