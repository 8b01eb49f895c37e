/*
 * FROZEN ORACLE — a copy of src/domain/consolidation/setup.ts as of commit 4cf6b1c (the decimal.js engine
 * before the scaled-integer kernel), used only by test/domain/consolidation-kernel.test.ts to check that
 * the engine gives the same results. Do not edit it, and never use it outside that test.
 */
/**
 * Run-wide facts derived once from the input: company roles, weights, the retained-earnings line,
 * the group calendar lookup, the processed rules and the source account of each number (3.12.4).
 */
import type { AccountType } from '../../../src/domain/accounts.ts';
import { minorUnits } from '../../../src/domain/codes.ts';
import { type Decimal, dec } from '../../../src/domain/money.ts';
import { RateBook } from '../../../src/domain/consolidation/rate-book.ts';
import type {
  AccountInfo,
  CompanyInput,
  ConsolidationInput,
  EliminationRuleInput,
  GroupPeriod,
  LedgerFigure,
} from '../../../src/domain/consolidation/types.ts';

/** Parsed figure amounts: Validate and Translate read every figure, decimal parsing is their main cost. */
const parsedAmounts = new WeakMap<LedgerFigure, Decimal>();

/** The figure's amount as a Decimal, parsed once per figure. */
export function figureAmount(f: LedgerFigure): Decimal {
  let v = parsedAmounts.get(f);
  if (v === undefined) {
    v = dec(f.amount);
    parsedAmounts.set(f, v);
  }
  return v;
}

export const RE_SYNTHETIC = 'RETAINED_EARNINGS';
export const CTA_KEY = 'CTA';
export const NCI_KEY = 'NCI';

export function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Company order used everywhere a "by company name" order is needed: name case-insensitive, then id. */
export function cmpCompany(a: { companyName: string; companyId: string }, b: typeof a): number {
  return cmpStr(a.companyName.toLowerCase(), b.companyName.toLowerCase()) || cmpStr(a.companyId, b.companyId);
}

/** Numeric order of account numbers (digits only, no leading zero: length first, then text). */
export function cmpAccountNumber(a: string, b: string): number {
  return a.length - b.length || cmpStr(a, b);
}

export interface Setup {
  input: ConsolidationInput;
  G: string;
  minor: number;
  parent: CompanyInput;
  /** parent first, then the line-by-line members by name */
  consolidated: CompanyInput[];
  consolidatedIds: Set<string>;
  /** equity-method members (when included), by name */
  investees: CompanyInput[];
  /** consolidated companies and investees */
  included: CompanyInput[];
  companies: Map<string, CompanyInput>;
  accounts: Map<string, Map<string, AccountInfo>>;
  weight: Map<string, Decimal>;
  ownership: Map<string, Decimal>;
  /** key of the retained-earnings line: the parent's RE account number or RETAINED_EARNINGS */
  reKey: string;
  periods: GroupPeriod[];
  /** rules processed by runs, in processing order */
  rules: EliminationRuleInput[];
  book: RateBook;
  /** memo of sourceAccountOf */
  sourceCache: Map<string, AccountInfo | null>;
}

export function buildSetup(input: ConsolidationInput): Setup {
  const parents = input.companies.filter((c) => c.role === 'Parent');
  if (parents.length !== 1) throw new Error('Consolidation input needs exactly one parent company');
  const parent = parents[0]!;
  const members = input.companies.filter((c) => c.role === 'Member');
  const lineByLine = members.filter((c) => c.consolidationMethod !== 'EquityMethod').sort(cmpCompany);
  const investees = input.options.includeEquityMethodInvestments
    ? members.filter((c) => c.consolidationMethod === 'EquityMethod').sort(cmpCompany)
    : [];
  const consolidated = [parent, ...lineByLine];
  const weight = new Map<string, Decimal>();
  const ownership = new Map<string, Decimal>();
  for (const c of input.companies) {
    const own = c.role === 'Parent' ? dec(100) : dec(c.ownershipPercentage);
    ownership.set(c.companyId, own);
    weight.set(
      c.companyId,
      c.role === 'Member' && c.consolidationMethod === 'ProportionateConsolidation' ? own.div(100) : dec(1),
    );
  }
  const accounts = new Map<string, Map<string, AccountInfo>>();
  for (const c of input.companies) {
    accounts.set(c.companyId, new Map(c.accounts.map((a) => [a.accountNumber, a])));
  }
  const approved = new Set(input.options.approvedManualRuleIds);
  const rules = input.rules
    .filter((r) => r.isActive && (r.isAutomatic || approved.has(r.id)))
    .sort((a, b) => a.priority - b.priority || cmpStr(a.createdAt, b.createdAt) || cmpStr(a.id, b.id));
  const periods = input.groupPeriods
    .filter((p) => p.period >= 1 && p.period <= 12)
    .sort((a, b) => cmpStr(a.startDate, b.startDate));
  return {
    input,
    G: input.reportingCurrency,
    minor: minorUnits(input.reportingCurrency),
    parent,
    consolidated,
    consolidatedIds: new Set(consolidated.map((c) => c.companyId)),
    investees,
    included: [...consolidated, ...investees],
    companies: new Map(input.companies.map((c) => [c.companyId, c])),
    accounts,
    weight,
    ownership,
    reKey: parent.retainedEarningsAccountNumber ?? RE_SYNTHETIC,
    periods,
    rules,
    book: new RateBook(input.rates, input.reportingCurrency),
    sourceCache: new Map(),
  };
}

/** The regular group period containing `date`; throws when the loader did not supply it. */
export function groupPeriodOf(setup: Setup, date: string): GroupPeriod {
  const ps = setup.periods;
  let lo = 0;
  let hi = ps.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const p = ps[mid]!;
    if (date < p.startDate) hi = mid - 1;
    else if (date > p.endDate) lo = mid + 1;
    else return p;
  }
  throw new Error(`No group period supplied for date ${date}`);
}

export interface SourceAccount {
  name: string;
  accountType: AccountType;
  accountCategory: AccountInfo['accountCategory'];
  isCashEquivalent: boolean;
  cashFlowCategory: AccountInfo['cashFlowCategory'];
}

/**
 * Source account of a number: the parent's account with that number, else the account of the
 * consolidated company or investee that comes first by company name (case-insensitive), then id.
 */
export function sourceAccountOf(setup: Setup, accountNumber: string): AccountInfo | null {
  const cached = setup.sourceCache.get(accountNumber);
  if (cached !== undefined) return cached;
  const found = findSourceAccount(setup, accountNumber);
  setup.sourceCache.set(accountNumber, found);
  return found;
}

function findSourceAccount(setup: Setup, accountNumber: string): AccountInfo | null {
  const own = setup.accounts.get(setup.parent.companyId)?.get(accountNumber);
  if (own) return own;
  const candidates = setup.included.filter((c) => c.companyId !== setup.parent.companyId).sort(cmpCompany);
  for (const c of candidates) {
    const a = setup.accounts.get(c.companyId)?.get(accountNumber);
    if (a) return a;
  }
  return null;
}
