/**
 * Step 1 of a run: the issues of its input, as one ordered list of checks (account types that
 * conflict, ledgers that do not balance, periods not closed, unposted entries, unmatched intercompany
 * transactions, inactive or not yet acquired members, acquisition data that no longer fits). The order
 * of the checks, then the order of the companies, is the order of the issues.
 */
import { preparedView } from './ledger.ts';
import { scaledToDecimal } from './scaled.ts';
import { cmpAccountNumber, type Setup } from './setup.ts';
import type { ValidationIssue } from './types.ts';

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Step 1 issues, in the order of the checks, then company order. */
export function validationIssues(setup: Setup): ValidationIssue[] {
  return [
    ...accountTypeConflicts(setup),
    ...unbalancedLedgers(setup),
    ...companyStatusIssues(setup),
    ...unmatchedIntercompany(setup),
    ...inclusionIssues(setup),
    ...acquisitionDataIssues(setup),
  ];
}

/**
 * ACCOUNT_TYPE_CONFLICT: one pass finds the numbers with more than one type (usually none); only
 * those are gathered again with the companies that name each type.
 */
function accountTypeConflicts(setup: Setup): ValidationIssue[] {
  const firstType = new Map<string, string>();
  const conflicting = new Set<string>();
  for (const c of setup.included) {
    for (const a of setup.accounts.get(c.companyId)!.values()) {
      const t = firstType.get(a.accountNumber);
      if (t === undefined) firstType.set(a.accountNumber, a.accountType);
      else if (t !== a.accountType) conflicting.add(a.accountNumber);
    }
  }
  if (conflicting.size === 0) return [];
  const types = new Map<string, Map<string, string[]>>();
  for (const c of setup.included) {
    for (const a of setup.accounts.get(c.companyId)!.values()) {
      if (!conflicting.has(a.accountNumber)) continue;
      const byType = types.get(a.accountNumber) ?? new Map<string, string[]>();
      const names = byType.get(a.accountType) ?? [];
      names.push(c.companyName);
      byType.set(a.accountType, names);
      types.set(a.accountNumber, byType);
    }
  }
  const issues: ValidationIssue[] = [];
  for (const n of [...types.keys()].sort(cmpAccountNumber)) {
    const byType = types.get(n)!;
    if (byType.size < 2) continue;
    const detail = [...byType.entries()].map(([t, names]) => `${t} (${names.join(', ')})`).join(', ');
    issues.push({
      severity: 'Error',
      code: 'ACCOUNT_TYPE_CONFLICT',
      message: `Account number ${n} has different account types: ${detail}`,
      entityReference: n,
    });
  }
  return issues;
}

/** TRIAL_BALANCE_UNBALANCED: a company whose closing-view figures do not sum to zero. */
function unbalancedLedgers(setup: Setup): ValidationIssue[] {
  const closing = preparedView(setup, setup.input.closing);
  const issues: ValidationIssue[] = [];
  for (const c of setup.included) {
    const total = closing.companies.get(c.companyId)?.total ?? 0n;
    if (total === 0n) continue;
    const t = scaledToDecimal(total, closing.scale);
    issues.push({
      severity: 'Error',
      code: 'TRIAL_BALANCE_UNBALANCED',
      message: `The ledger of ${c.companyName} does not balance: debits − credits = ${t.toFixed()} ${c.functionalCurrency}`,
      entityReference: c.companyId,
    });
  }
  return issues;
}

/** PERIOD_NOT_CLOSED, then UNPOSTED_ENTRIES, of the consolidated companies. */
function companyStatusIssues(setup: Setup): ValidationIssue[] {
  const { input } = setup;
  const issues: ValidationIssue[] = [];
  for (const c of setup.consolidated) {
    if (c.fiscalPeriodStatus === 'Closed') continue;
    issues.push({
      severity: 'Warning',
      code: 'PERIOD_NOT_CLOSED',
      message:
        c.fiscalPeriodStatus === null
          ? `${c.companyName} has no fiscal period containing ${input.asOfDate}`
          : `The fiscal period of ${c.companyName} containing ${input.asOfDate} is not closed`,
      entityReference: c.companyId,
    });
  }
  for (const c of setup.consolidated) {
    if (c.unpostedEntryCount <= 0) continue;
    issues.push({
      severity: 'Warning',
      code: 'UNPOSTED_ENTRIES',
      message: `${c.companyName} has ${plural(c.unpostedEntryCount, 'unposted entry', 'unposted entries')} dated on or before ${input.asOfDate}`,
      entityReference: c.companyId,
    });
  }
  return issues;
}

/** UNMATCHED_INTERCOMPANY: transactions of the year between consolidated companies not matched, by date and id. */
function unmatchedIntercompany(setup: Setup): ValidationIssue[] {
  const { input } = setup;
  return input.closing.intercompanyTransactions
    .filter(
      (t) =>
        setup.consolidatedIds.has(t.fromCompanyId) &&
        setup.consolidatedIds.has(t.toCompanyId) &&
        t.transactionDate >= input.yearStartDate &&
        t.transactionDate <= input.asOfDate &&
        (t.matchingStatus === 'Unmatched' || t.matchingStatus === 'PartiallyMatched'),
    )
    .sort((a, b) =>
      a.transactionDate < b.transactionDate
        ? -1
        : a.transactionDate > b.transactionDate
          ? 1
          : a.id < b.id
            ? -1
            : 1,
    )
    .map((t) => ({
      severity: 'Warning',
      code: 'UNMATCHED_INTERCOMPANY',
      message: `Intercompany ${t.transactionType} of ${t.transactionDate} is ${t.matchingStatus}`,
      entityReference: t.id,
    }));
}

/** INACTIVE_COMPANY, then MEMBER_NOT_YET_ACQUIRED. */
function inclusionIssues(setup: Setup): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const c of setup.included) {
    if (c.isActive) continue;
    issues.push({
      severity: 'Warning',
      code: 'INACTIVE_COMPANY',
      message: `${c.companyName} is inactive`,
      entityReference: c.companyId,
    });
  }
  for (const c of setup.notYetAcquired) {
    issues.push({
      severity: 'Warning',
      code: 'MEMBER_NOT_YET_ACQUIRED',
      message: `${c.companyName} is acquired after ${setup.input.asOfDate} (on ${setup.groupAcquisitionDate.get(c.companyId)}) and is not consolidated`,
      entityReference: c.companyId,
    });
  }
  return issues;
}

/** Acquisition data that no longer fits the group: accounts gone, the holder's investment account moved. */
function acquisitionDataIssues(setup: Setup): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const [id, c] of setup.acquired) {
    if (!setup.includedIds.has(id)) continue;
    const a = c.acquisition!;
    const holderId = setup.tree.nodes.get(id)!.holderId;
    const problems: string[] = [];
    if (
      a.investmentAccount.companyId !== holderId ||
      !setup.accounts.get(holderId)?.has(a.investmentAccount.accountNumber)
    ) {
      problems.push('its investment account is not an account of its holder');
    }
    for (const f of a.fairValueAdjustments) {
      if (!setup.accounts.get(id)?.has(f.accountNumber))
        problems.push(`account ${f.accountNumber} is not its account`);
    }
    if (problems.length === 0) continue;
    issues.push({
      severity: 'Error',
      code: 'ACQUISITION_DATA_INVALID',
      message: `The acquisition data of ${c.companyName} no longer fits the group: ${problems.join('; ')}`,
      entityReference: id,
    });
  }
  return issues;
}
