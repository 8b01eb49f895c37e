/**
 * Step 5 of a view: the elimination rules, in priority order. Each rule sums the working balances
 * its selectors match (source, target, trigger conditions), takes the intercompany transactions of
 * its type in its scope, and books `min(|source|, |target|)` (or `|source|` without targets, or the
 * transactions' amounts) between its debit and credit accounts; a reciprocal rule's residual goes to
 * the group's intercompany-difference account when within tolerance and is reported otherwise. The
 * transactions no applied rule received are reported at the end.
 *
 * The computation yields after each sum of a selector list, so a caller can let other work run
 * between them; draining it gives the same result in the same order.
 */
import { dec } from '../money.ts';
import { applyAcquisitions } from './acquisition.ts';
import { type AccountPattern, matchesPattern, parsePattern } from '../selectors.ts';
import { scaledToDecimal } from './scaled.ts';
import { cmpCompany, cmpStr } from './setup.ts';
import type { AccountSelectorInput, EliminationResult, EliminationRuleInput } from './types.ts';
import type { ViewComputation } from './view.ts';
import type { IcItem } from './view-types.ts';

type Working = Map<string, Map<string, bigint>>;

const abs = (v: bigint) => (v < 0n ? -v : v);

function add(map: Map<string, bigint>, key: string, v: bigint): void {
  map.set(key, (map.get(key) ?? 0n) + v);
}

/** Sums of working balances matched by selector lists; `touched` collects the companies with a non-zero match. */
function selectorSums(working: Working) {
  const patternCache = new Map<string, AccountPattern | null>();
  const pattern = (text: string) => {
    if (!patternCache.has(text)) patternCache.set(text, parsePattern(text));
    return patternCache.get(text) ?? null;
  };
  return (selectors: AccountSelectorInput[], touched?: Set<string>): bigint => {
    const seen = new Set<string>();
    let total = 0n;
    for (const sel of selectors) {
      const p = pattern(sel.accountNumber);
      if (!p) continue;
      const companies = sel.companyId === null ? [...working.keys()] : [sel.companyId];
      for (const cid of companies) {
        const balances = working.get(cid);
        if (!balances) continue;
        for (const [key, v] of balances) {
          if (!matchesPattern(p, key)) continue;
          const id = `${cid}|${key}`;
          if (seen.has(id)) continue;
          seen.add(id);
          total += v;
          if (touched && v !== 0n) touched.add(cid);
        }
      }
    }
    return total;
  };
}

/** Companies in a rule's scope: those named by its selectors, all consolidated ones if any is null. */
function ruleScope(rule: EliminationRuleInput, consolidatedIds: Set<string>): (companyId: string) => boolean {
  const selectors = [...rule.sourceAccounts, ...rule.targetAccounts];
  if (selectors.some((s) => s.companyId === null)) return (id) => consolidatedIds.has(id);
  const named = new Set(selectors.map((s) => s.companyId!));
  return (id) => named.has(id) && consolidatedIds.has(id);
}

/** Whether the rule's trigger conditions let it apply: the first condition that holds decides. */
function* triggerHolds(
  v: ViewComputation,
  rule: EliminationRuleInput,
  sum: ReturnType<typeof selectorSums>,
): Generator<void, boolean, void> {
  for (const cond of rule.triggerConditions) {
    const total = abs(sum(cond.sourceAccounts));
    yield;
    const holds =
      cond.minimumAmount === null
        ? total !== 0n
        : scaledToDecimal(total, v.setup.minor).greaterThanOrEqualTo(dec(cond.minimumAmount));
    if (holds) return true;
  }
  return false;
}

/** The intercompany transactions of the rule's type in its scope that no earlier rule took. */
function claimTransactions(v: ViewComputation, rule: EliminationRuleInput, assigned: Set<string>): IcItem[] {
  const mine: IcItem[] = [];
  if (rule.eliminationType !== 'IntercompanySales' && rule.eliminationType !== 'IntercompanyDividends')
    return mine;
  const inScope = ruleScope(rule, v.setup.consolidatedIds);
  for (const item of v.icItems) {
    if (item.eliminationType !== rule.eliminationType || assigned.has(item.tx.id)) continue;
    if (!inScope(item.tx.fromCompanyId) || !inScope(item.tx.toCompanyId)) continue;
    assigned.add(item.tx.id);
    mine.push(item);
  }
  return mine;
}

interface Applied {
  rule: EliminationRuleInput;
  base: Omit<EliminationResult, 'status' | 'skipReason' | 'amount' | 'intercompanyTransactionIds'>;
  S: bigint;
  T: bigint;
  A: bigint;
  mine: IcItem[];
  ruleCompanies: Set<string>;
}

/** Books an applied rule's entry (and its residual, when the group's difference setting takes it). */
function bookRule(
  v: ViewComputation,
  working: Working,
  difference: { accountNumber: string; tolerance: bigint } | null,
  { rule, base, S, T, A, mine, ruleCompanies }: Applied,
): void {
  const dr = rule.debitAccount;
  const cr = rule.creditAccount;
  const ids = mine.map((m) => m.tx.id);
  add(working.get(dr.companyId)!, dr.accountNumber, A);
  add(working.get(cr.companyId)!, cr.accountNumber, -A);
  v.keyLine(dr.accountNumber).elimination += A;
  v.keyLine(cr.accountNumber).elimination -= A;
  v.totalEliminations += A;
  v.appliedCount++;
  const lines = [
    { accountNumber: dr.accountNumber, companyId: dr.companyId, units: A },
    { accountNumber: cr.accountNumber, companyId: cr.companyId, units: -A },
  ];
  const result: EliminationResult = {
    ...base,
    status: 'Applied',
    skipReason: null,
    amount: v.money(A),
    intercompanyTransactionIds: ids,
  };
  // A reciprocal rule eliminates min(|S|, |T|): the residual is booked to the group's
  // intercompany-difference account when within its tolerance, and reported otherwise.
  const residual = mine.length === 0 && rule.targetAccounts.length > 0 ? abs(abs(S) - abs(T)) : 0n;
  if (residual !== 0n) {
    const larger = abs(S) > abs(T) ? S : T;
    const smaller = larger === S ? T : S;
    const opposite = smaller !== 0n && larger > 0n !== smaller > 0n;
    if (difference && opposite && residual <= difference.tolerance) {
      // The larger side is cleared on the rule's own account; the residual goes to the difference account.
      const side = larger > 0n ? cr : dr;
      const units = larger > 0n ? -residual : residual;
      const parentId = v.setup.parent.companyId;
      add(working.get(side.companyId)!, side.accountNumber, units);
      add(working.get(parentId)!, difference.accountNumber, -units);
      v.keyLine(side.accountNumber).elimination += units;
      v.keyLine(difference.accountNumber).elimination -= units;
      lines.push(
        { accountNumber: side.accountNumber, companyId: side.companyId, units },
        { accountNumber: difference.accountNumber, companyId: parentId, units: -units },
      );
      result.intercompanyDifference = { amount: v.money(residual), accountNumber: difference.accountNumber };
    } else {
      const companies = [...ruleCompanies].map((id) => v.setup.companies.get(id)!).sort(cmpCompany);
      v.eliminationIssues.push({
        severity: 'Warning',
        code: 'IC_DIFFERENCE',
        message:
          `Rule '${rule.name}' eliminated ${v.money(A).value} ${v.setup.G} of balances that differ: ` +
          `source ${v.money(S).value}, target ${v.money(T).value}; a residual of ` +
          `${v.money(residual).value} ${v.setup.G} remains on the consolidated statements ` +
          `(companies: ${companies.map((c) => c.companyName).join(', ')})`,
        entityReference: rule.id,
      });
    }
  }
  v.entries.push({
    source: 'Rule',
    eliminationRuleId: rule.id,
    ruleName: rule.name,
    companyId: null,
    lines: lines.map((l) => ({
      accountNumber: l.accountNumber,
      companyId: l.companyId,
      debit: v.money(l.units > 0n ? l.units : 0n),
      credit: v.money(l.units < 0n ? -l.units : 0n),
    })),
  });
  v.eliminations.push(result);
}

/** Step 5 of `v` in slices (see the file's comment). */
export function* eliminateInSlices(v: ViewComputation): Generator<void, void, void> {
  const { consolidatedIds } = v.setup;
  const working: Working = new Map();
  if (v.setup.rules.length > 0) {
    for (const c of v.setup.consolidated) {
      working.set(c.companyId, new Map(v.contributions.get(c.companyId) ?? []));
    }
  }
  if (v.setup.ownershipMode) applyAcquisitions(v, working);
  const sum = selectorSums(working);
  const assigned = new Set<string>();
  const received: IcItem[] = [];
  const difference = v.differenceSetting();
  for (const rule of v.setup.rules) {
    const ruleCompanies = new Set<string>();
    const S = sum(rule.sourceAccounts, ruleCompanies);
    yield;
    const T = rule.targetAccounts.length > 0 ? sum(rule.targetAccounts, ruleCompanies) : 0n;
    if (rule.targetAccounts.length > 0) yield;
    const base = {
      eliminationRuleId: rule.id,
      ruleName: rule.name,
      eliminationType: rule.eliminationType,
      priority: rule.priority,
      sourceBalance: v.money(S),
      targetBalance: v.money(T),
      debitAccountNumber: rule.debitAccount.accountNumber,
      creditAccountNumber: rule.creditAccount.accountNumber,
    };
    const skipped = (skipReason: EliminationResult['skipReason'], ids: string[]) =>
      v.eliminations.push({
        ...base,
        status: 'Skipped',
        skipReason,
        amount: null,
        intercompanyTransactionIds: ids,
      });
    if (rule.triggerConditions.length > 0 && !(yield* triggerHolds(v, rule, sum))) {
      skipped('TRIGGER_NOT_MET', []);
      continue;
    }
    const mine = claimTransactions(v, rule, assigned);
    let A: bigint;
    if (mine.length > 0) {
      A = 0n;
      for (const m of mine) A += m.amount;
    } else if (rule.targetAccounts.length > 0) {
      A = abs(S) < abs(T) ? abs(S) : abs(T);
    } else {
      A = abs(S);
    }
    const ids = mine.map((m) => m.tx.id);
    if (A === 0n) {
      skipped('ZERO_AMOUNT', ids);
      continue;
    }
    const dr = rule.debitAccount;
    const cr = rule.creditAccount;
    if (!consolidatedIds.has(dr.companyId) || !consolidatedIds.has(cr.companyId)) {
      skipped('ACCOUNT_COMPANY_NOT_CONSOLIDATED', ids);
      const which = consolidatedIds.has(dr.companyId) ? cr : dr;
      v.eliminationIssues.push({
        severity: 'Warning',
        code: 'RULE_ACCOUNT_NOT_CONSOLIDATED',
        message:
          `Rule '${rule.name}' was skipped: account ${which.accountNumber} belongs to company ${which.companyId}, ` +
          'which is not consolidated line by line',
        entityReference: rule.id,
      });
      continue;
    }
    bookRule(v, working, difference, { rule, base, S, T, A, mine, ruleCompanies });
    received.push(...mine);
  }
  const receivedIds = new Set(received.map((r) => r.tx.id));
  for (const item of v.icItems) {
    if (receivedIds.has(item.tx.id)) continue;
    v.eliminationIssues.push({
      severity: 'Warning',
      code: 'IC_TRANSACTION_NOT_ELIMINATED',
      message:
        `Intercompany ${item.tx.transactionType} of ${item.tx.transactionDate} (${dec(item.tx.amount as string).toFixed()} ${item.tx.currency}) ` +
        'was not eliminated by any applied rule',
      entityReference: item.tx.id,
    });
  }
  v.eliminatedTransactionIds = [...receivedIds].sort(cmpStr);
}
