/**
 * Group chart of accounts: the accounts a consolidation group reports on, and the mappings of each
 * member's own accounts onto them.
 *
 * A company account maps to a group account
 *   1. by an explicit mapping (company account → group account), else
 *   2. by the first pattern mapping that matches its number: the company's own patterns before the
 *      patterns for every member, and among them the most specific first (an exact number, then a
 *      range — the narrower first —, then a trailing wildcard — the longer prefix first), then the
 *      order the patterns were created in.
 * A mapping applies only when both accounts have the same account type and the same monetary nature
 * (`isNonMonetary`): translation and the statements follow the group account, so accounts of
 * different kinds can never meet on one line. A pattern passes over accounts of another kind.
 *
 * `applyGroupChart` rewrites a run's input onto the group chart before the engine sees it: every
 * figure is filed under its group account number and each company's chart becomes the group accounts
 * it uses. Aggregation, eliminations, NCI and the statements then work on group accounts unchanged.
 * A rule's debit or credit account that is a company account is booked on the group account it maps
 * to; one that is already a group account is booked on it as it is, on the parent's line (the parent
 * carries the whole group chart), like the intercompany-difference account.
 */
import type { AccountType } from '../accounts.ts';
import { type AccountPattern, matchesPattern, parsePattern } from '../selectors.ts';
import { columnLedger } from './ledger.ts';
import { scaledToString, toScaled } from './scaled.ts';
import { cmpAccountNumber } from './setup.ts';
import type {
  AccountInfo,
  AccountRef,
  CompanyInput,
  CompanyLedger,
  ConsolidationInput,
  CutLedger,
  EliminationRuleInput,
  LedgerColumns,
  LedgerFigure,
  ValidationIssue,
  ViewData,
} from './types.ts';

/** A group account carries the facts of a company's account, and stands in for one in the run. */
export type GroupAccountInput = AccountInfo;

export interface ExplicitMappingInput {
  companyId: string;
  /** the company account's number */
  accountNumber: string;
  groupAccountNumber: string;
}

export interface PatternMappingInput {
  /** null: every member's accounts */
  companyId: string | null;
  /** a selector pattern (`4000`, `40*`, `4000-4999`) */
  pattern: string;
  groupAccountNumber: string;
}

export interface GroupChartInput {
  accounts: GroupAccountInput[];
  explicit: ExplicitMappingInput[];
  /** in creation order */
  patterns: PatternMappingInput[];
}

export interface MappingResolution {
  groupAccount: GroupAccountInput;
  mappedBy: 'Explicit' | 'Pattern';
  /** the pattern that matched (pattern mappings) */
  pattern: string | null;
  /** index in `explicit` or `patterns` of the mapping that applied */
  index: number;
}

interface RankedPattern {
  index: number;
  companySpecific: boolean;
  parsed: AccountPattern;
  groupAccount: GroupAccountInput;
}

/** Specificity order of patterns (see the module comment); lower sorts first. */
function specificity(p: AccountPattern): [number, number] {
  switch (p.kind) {
    case 'exact':
      return [0, 0];
    case 'range':
      return [1, Number(p.high) - Number(p.low)];
    case 'prefix':
      return [2, -p.prefix.length];
  }
}

export function compatible(
  a: { accountType: AccountType; isNonMonetary: boolean },
  g: GroupAccountInput,
): boolean {
  return a.accountType === g.accountType && a.isNonMonetary === g.isNonMonetary;
}

/** Resolves company accounts to group accounts (explicit mappings first, then patterns). */
export class MappingResolver {
  private readonly byNumber: Map<string, GroupAccountInput>;
  private readonly explicit = new Map<string, { index: number; groupAccount: GroupAccountInput }>();
  private readonly patterns: RankedPattern[] = [];
  private readonly perCompany = new Map<string, RankedPattern[]>();

  constructor(readonly chart: GroupChartInput) {
    this.byNumber = new Map(chart.accounts.map((a) => [a.accountNumber, a]));
    chart.explicit.forEach((m, index) => {
      const g = this.byNumber.get(m.groupAccountNumber);
      if (g) this.explicit.set(`${m.companyId}|${m.accountNumber}`, { index, groupAccount: g });
    });
    chart.patterns.forEach((m, index) => {
      const parsed = parsePattern(m.pattern);
      const g = this.byNumber.get(m.groupAccountNumber);
      if (!parsed || !g) return;
      this.patterns.push({ index, companySpecific: m.companyId !== null, parsed, groupAccount: g });
    });
    this.patterns.sort((a, b) => {
      if (a.companySpecific !== b.companySpecific) return a.companySpecific ? -1 : 1;
      const [ka, wa] = specificity(a.parsed);
      const [kb, wb] = specificity(b.parsed);
      return ka - kb || wa - wb || a.index - b.index;
    });
  }

  groupAccount(number: string): GroupAccountInput | undefined {
    return this.byNumber.get(number);
  }

  private patternsOf(companyId: string): RankedPattern[] {
    let list = this.perCompany.get(companyId);
    if (!list) {
      list = this.patterns.filter((p) => {
        const owner = this.chart.patterns[p.index]!.companyId;
        return owner === null || owner === companyId;
      });
      this.perCompany.set(companyId, list);
    }
    return list;
  }

  resolve(
    companyId: string,
    account: { accountNumber: string; accountType: AccountType; isNonMonetary: boolean },
  ): MappingResolution | null {
    const e = this.explicit.get(`${companyId}|${account.accountNumber}`);
    if (e && compatible(account, e.groupAccount)) {
      return { groupAccount: e.groupAccount, mappedBy: 'Explicit', pattern: null, index: e.index };
    }
    for (const p of this.patternsOf(companyId)) {
      if (!compatible(account, p.groupAccount)) continue;
      if (!matchesPattern(p.parsed, account.accountNumber)) continue;
      return { groupAccount: p.groupAccount, mappedBy: 'Pattern', pattern: p.parsed.text, index: p.index };
    }
    return null;
  }
}

function infoOf(g: GroupAccountInput): AccountInfo {
  return {
    accountNumber: g.accountNumber,
    name: g.name,
    accountType: g.accountType,
    accountCategory: g.accountCategory,
    isCashEquivalent: g.isCashEquivalent,
    cashFlowCategory: g.cashFlowCategory,
    isNonMonetary: g.isNonMonetary,
  };
}

/** A company's account numbers → group account numbers (mapped accounts only). */
type NumberMap = Map<string, string>;

/** Σ of an unmapped account's figures in one view, exact, as text (null when zero). */
function unmappedBalances(
  ledger: CompanyLedger | undefined,
  unmapped: ReadonlySet<string>,
  into: Map<string, bigint>,
  scale: number,
): void {
  if (!ledger || unmapped.size === 0) return;
  const cols = ledger.columns;
  if (cols) {
    const up = 10n ** BigInt(scale - cols.scale);
    for (let i = 0; i < cols.accountNumbers.length; i++) {
      const n = cols.accountNumbers[i]!;
      if (unmapped.has(n)) into.set(n, (into.get(n) ?? 0n) + cols.units[i]! * up);
    }
    return;
  }
  for (const f of ledger.figures) {
    if (!unmapped.has(f.accountNumber)) continue;
    into.set(f.accountNumber, (into.get(f.accountNumber) ?? 0n) + (toScaled(f.amount, scale) ?? 0n));
  }
}

function remapLedger(l: CompanyLedger, map: NumberMap): CompanyLedger {
  const cols = l.columns;
  if (cols) {
    const out: LedgerColumns = { scale: cols.scale, accountNumbers: [], dates: [], units: [] };
    for (let i = 0; i < cols.accountNumbers.length; i++) {
      const g = map.get(cols.accountNumbers[i]!);
      if (g === undefined) continue;
      out.accountNumbers.push(g);
      out.dates.push(cols.dates[i] ?? null);
      out.units.push(cols.units[i]!);
    }
    return columnLedger(l.companyId, out);
  }
  const figures: LedgerFigure[] = [];
  for (const f of l.figures) {
    const g = map.get(f.accountNumber);
    if (g !== undefined) figures.push({ ...f, accountNumber: g });
  }
  return { companyId: l.companyId, figures };
}

function remapView(data: ViewData, maps: Map<string, NumberMap>): ViewData {
  const cuts: CutLedger[] | undefined = data.cuts?.map((c) => {
    const map = maps.get(c.companyId);
    return {
      ...c,
      figures: c.figures.flatMap((f) => {
        const g = map?.get(f.accountNumber);
        return g === undefined ? [] : [{ ...f, accountNumber: g }];
      }),
    };
  });
  return {
    ...data,
    ledgers: data.ledgers.map((l) => (maps.has(l.companyId) ? remapLedger(l, maps.get(l.companyId)!) : l)),
    ...(cuts ? { cuts } : {}),
  };
}

export interface MappedInput {
  input: ConsolidationInput;
  /** UNMAPPED_ACCOUNT errors, by company (input order) and account number */
  issues: ValidationIssue[];
}

const CHECK_SCALE = 12;

/**
 * Company-specific accounts named by active rules, by company. An unmapped account a rule books to
 * must be reported even when it has no balance, or the rule's entry would vanish without a word.
 */
function ruleAccountsOf(rules: ConsolidationInput['rules']): Map<string, Set<string>> {
  const ruleAccounts = new Map<string, Set<string>>();
  for (const r of rules) {
    if (!r.isActive) continue;
    for (const ref of [r.debitAccount, r.creditAccount]) {
      if (ref.groupAccount) continue;
      const set = ruleAccounts.get(ref.companyId) ?? new Set<string>();
      set.add(ref.accountNumber);
      ruleAccounts.set(ref.companyId, set);
    }
  }
  return ruleAccounts;
}

/** How one company's accounts resolve: the number map, the group accounts reached, and the rest. */
interface CompanyMapping {
  map: NumberMap;
  used: Map<string, GroupAccountInput>;
  unmapped: Set<string>;
  /** names of the unmapped accounts, for the issue messages */
  names: Map<string, string>;
}

function mapCompanyAccounts(resolver: MappingResolver, c: CompanyInput): CompanyMapping {
  const map: NumberMap = new Map();
  const used = new Map<string, GroupAccountInput>();
  const unmapped = new Set<string>();
  const names = new Map<string, string>();
  for (const a of c.accounts) {
    const r = resolver.resolve(c.companyId, a);
    if (r) {
      map.set(a.accountNumber, r.groupAccount.accountNumber);
      used.set(r.groupAccount.accountNumber, r.groupAccount);
    } else {
      unmapped.add(a.accountNumber);
      names.set(a.accountNumber, a.name);
    }
  }
  return { map, used, unmapped, names };
}

const ledgerOf = (data: ViewData, id: string) => data.ledgers.find((l) => l.companyId === id);

/**
 * `UNMAPPED_ACCOUNT` errors of one company, by account number: an unmapped account matters only when
 * leaving it out would lose something (a balance in either view, or a rule's entry); an empty one is
 * harmless and is not reported.
 */
function unmappedAccountIssues(
  input: ConsolidationInput,
  c: CompanyInput,
  mapping: CompanyMapping,
  ruleAccounts: Map<string, Set<string>>,
): ValidationIssue[] {
  const { unmapped, names } = mapping;
  const balances = new Map<string, bigint>();
  unmappedBalances(ledgerOf(input.closing, c.companyId), unmapped, balances, CHECK_SCALE);
  const opening = new Map<string, bigint>();
  unmappedBalances(ledgerOf(input.opening, c.companyId), unmapped, opening, CHECK_SCALE);
  const flagged = [...unmapped].filter(
    (n) =>
      (balances.get(n) ?? 0n) !== 0n ||
      (opening.get(n) ?? 0n) !== 0n ||
      (ruleAccounts.get(c.companyId)?.has(n) ?? false),
  );
  return flagged.sort(cmpAccountNumber).map((n) => {
    const bal = balances.get(n) ?? 0n;
    return {
      severity: 'Error',
      code: 'UNMAPPED_ACCOUNT',
      message:
        `Account ${n} (${names.get(n)}) of ${c.companyName} is not mapped to a group account` +
        (bal !== 0n
          ? ` and has a balance of ${trimZeros(scaledToString(bal, CHECK_SCALE))} ${c.functionalCurrency}`
          : ''),
      entityReference: `${c.companyId}/${n}`,
    };
  });
}

/**
 * A company as the run sees it on the group chart. The investment account is left blank here: it
 * belongs to the holder and is mapped with the holder's numbers once every company's map is known.
 */
function remapCompany(c: CompanyInput, chart: GroupChartInput, mapping: CompanyMapping): CompanyInput {
  const { map, used } = mapping;
  // The parent carries the whole group chart: lines that no mapped account reaches (eliminations,
  // adjustments, the intercompany-difference account) still find their group account.
  const accounts =
    c.role === 'Parent'
      ? chart.accounts.map(infoOf)
      : [...used.values()].sort((a, b) => cmpAccountNumber(a.accountNumber, b.accountNumber)).map(infoOf);
  const re = c.retainedEarningsAccountNumber;
  const acq = c.acquisition;
  return {
    ...c,
    accounts,
    retainedEarningsAccountNumber: re === null ? null : (map.get(re) ?? null),
    ...(acq
      ? {
          acquisition: {
            ...acq,
            investmentAccount: {
              companyId: acq.investmentAccount.companyId,
              accountNumber: '',
            },
            fairValueAdjustments: acq.fairValueAdjustments.map((f) => ({
              ...f,
              accountNumber: map.get(f.accountNumber) ?? '',
            })),
          },
        }
      : {}),
  };
}

/** Investment accounts belong to the holder: map them with the holder's numbers. */
function mapInvestmentAccounts(
  input: ConsolidationInput,
  companies: CompanyInput[],
  maps: Map<string, NumberMap>,
): void {
  for (let i = 0; i < companies.length; i++) {
    const acq = input.companies[i]!.acquisition;
    if (!acq) continue;
    const ref = acq.investmentAccount;
    companies[i]!.acquisition!.investmentAccount = {
      companyId: ref.companyId,
      accountNumber: maps.get(ref.companyId)?.get(ref.accountNumber) ?? '',
    };
  }
}

/**
 * A rule's account on the group chart. Group accounts are booked on the parent, which carries the
 * whole chart; a company account keeps its number when unmapped (it was reported as an issue).
 */
function mapRuleAccount(ref: AccountRef, parentId: string, maps: Map<string, NumberMap>): AccountRef {
  return ref.groupAccount
    ? { companyId: parentId, accountNumber: ref.accountNumber, groupAccount: true }
    : {
        companyId: ref.companyId,
        accountNumber: maps.get(ref.companyId)?.get(ref.accountNumber) ?? ref.accountNumber,
      };
}

/**
 * The run's input rewritten onto the group chart. Accounts without a mapping are left out; each one
 * with a balance in either view (or named by a rule's debit or credit account) is reported as an
 * `UNMAPPED_ACCOUNT` error naming the company and the account number.
 */
export function applyGroupChart(input: ConsolidationInput, chart: GroupChartInput): MappedInput {
  const resolver = new MappingResolver(chart);
  const maps = new Map<string, NumberMap>();
  const issues: ValidationIssue[] = [];
  const ruleAccounts = ruleAccountsOf(input.rules);
  const companies: CompanyInput[] = input.companies.map((c) => {
    const mapping = mapCompanyAccounts(resolver, c);
    maps.set(c.companyId, mapping.map);
    issues.push(...unmappedAccountIssues(input, c, mapping, ruleAccounts));
    return remapCompany(c, chart, mapping);
  });
  mapInvestmentAccounts(input, companies, maps);
  const parentId = input.companies.find((c) => c.role === 'Parent')?.companyId ?? '';
  issues.push(...ruleGroupAccountIssues(input.rules, resolver));
  return {
    input: {
      ...input,
      companies,
      rules: input.rules.map((r) => ({
        ...r,
        debitAccount: mapRuleAccount(r.debitAccount, parentId, maps),
        creditAccount: mapRuleAccount(r.creditAccount, parentId, maps),
      })),
      closing: remapView(input.closing, maps),
      opening: remapView(input.opening, maps),
    },
    issues,
  };
}

/**
 * `RULE_ACCOUNT_NOT_IN_GROUP_CHART` errors: an active rule books to a group account the run's group
 * chart does not have (`chart` null: the group has no chart at all). Rules are written only on group
 * accounts of their group's chart and such an account cannot be deleted while a rule names it, so this
 * guards the run against data that changed under it rather than a case users meet.
 */
export function ruleGroupAccountIssues(
  rules: readonly EliminationRuleInput[],
  chart: MappingResolver | null,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const r of rules) {
    if (!r.isActive) continue;
    for (const [side, ref] of [
      ['debit', r.debitAccount],
      ['credit', r.creditAccount],
    ] as const) {
      if (!ref.groupAccount) continue;
      if (chart && ref.accountNumber !== '' && chart.groupAccount(ref.accountNumber)) continue;
      issues.push({
        severity: 'Error',
        code: 'RULE_ACCOUNT_NOT_IN_GROUP_CHART',
        message:
          `Rule '${r.name}' books its ${side} side to group account ${ref.accountNumber || '(deleted)'}, ` +
          (chart ? 'which is not in the group chart' : 'but the group has no group chart'),
        entityReference: r.id,
      });
    }
  }
  return issues;
}

function trimZeros(s: string): string {
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}
