/**
 * The heaviest elimination-rule set the rule bounds allow, as a pure ConsolidationInput: companies
 * with a small chart and balanced ledgers, and rules each with the most trigger conditions and
 * selectors a rule may have. Used to check that a run never holds the event loop for long.
 */
import type { ConsolidationInput, EliminationRuleInput } from '../../src/domain/consolidation/types.ts';
import {
  MAX_SELECTORS_PER_LIST,
  MAX_TRIGGER_CONDITIONS,
  MAX_TRIGGER_SELECTORS,
} from '../../src/domain/consolidation/rule-bounds.ts';
import { account, buildTestInput, entry, type TestCompany } from './consolidation-input.ts';

/** Expense accounts 6000–6053 of every company's chart, each with a balance (a chart of 60 accounts). */
const EXPENSES = Array.from({ length: 54 }, (_, i) => String(6000 + i));

/** `count` selector patterns over the chart, mixing exact numbers, prefixes and ranges. */
export function heavySelectors(
  count: number,
  companyIds: (string | null)[],
): { accountNumber: string; companyId: string | null }[] {
  const forms = ['1200', '12*', '1000-1999', '2010', '60*', '4000-6999', '9999', '6053'];
  return Array.from({ length: count }, (_, i) => ({
    accountNumber: forms[i % forms.length]!,
    companyId: companyIds[i % companyIds.length]!,
  }));
}

export function heavyCompanies(count: number): TestCompany[] {
  const chart = [
    account('1010', 'Cash', 'Asset', 'CurrentAsset'),
    account('1200', 'Receivables', 'Asset', 'CurrentAsset'),
    account('2010', 'Payables', 'Liability', 'CurrentLiability'),
    account('3000', 'Capital', 'Equity', 'ContributedCapital'),
    account('4000', 'Revenue', 'Revenue', 'OperatingRevenue'),
    account('5000', 'Expenses', 'Expense', 'OperatingExpense'),
    ...EXPENSES.map((n) => account(n, `Expense ${n}`, 'Expense', 'OperatingExpense')),
  ];
  return Array.from({ length: count }, (_, i) => ({
    companyId: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
    companyName: `Company ${i + 1}`,
    functionalCurrency: 'USD',
    accounts: chart,
    lines: [
      ...entry('2025-01-02', ['1010', '1000.00'], ['3000', '-1000.00']),
      ...entry('2026-03-01', ['1200', `${100 + i}.00`], ['4000', `-${100 + i}.00`]),
      ...entry('2026-04-01', ['5000', '40.00'], ['2010', '-40.00']),
      ...EXPENSES.flatMap((n) => entry('2026-05-01', [n, '1.00'], ['1010', '-1.00'])),
    ],
  }));
}

export function heavyRules(
  count: number,
  companyIds: string[],
  shape = { conditions: MAX_TRIGGER_CONDITIONS, selectors: MAX_TRIGGER_SELECTORS / MAX_TRIGGER_CONDITIONS },
): EliminationRuleInput[] {
  const scopes: (string | null)[] = [null, ...companyIds];
  return Array.from({ length: count }, (_, r) => ({
    id: `00000000-0000-4000-9000-${String(r + 1).padStart(12, '0')}`,
    name: `Heavy rule ${r + 1}`,
    eliminationType: 'IntercompanyReceivablesPayables',
    priority: r,
    createdAt: '2026-01-01T00:00:00.000Z',
    isActive: true,
    isAutomatic: true,
    // No condition holds before the last one (a minimum no balance reaches), so every one is evaluated.
    triggerConditions: Array.from({ length: shape.conditions }, (_, c) => ({
      description: `Condition ${c + 1}`,
      sourceAccounts: heavySelectors(shape.selectors, scopes),
      minimumAmount: c === shape.conditions - 1 ? '0.01' : '999999999',
    })),
    sourceAccounts: heavySelectors(MAX_SELECTORS_PER_LIST, scopes),
    targetAccounts: heavySelectors(MAX_SELECTORS_PER_LIST, scopes),
    debitAccount: { companyId: companyIds[0]!, accountNumber: '2010' },
    creditAccount: { companyId: companyIds[1]!, accountNumber: '1200' },
  }));
}

/** 10 companies × `rules` rules of the most conditions and selectors the bounds allow (rule-bounds.ts). */
export function heavyInput(rules = 40, companies = 10): ConsolidationInput {
  const cs = heavyCompanies(companies);
  return buildTestInput({
    reportingCurrency: 'USD',
    asOfDate: '2026-12-31',
    periodRef: { year: 2026, period: 12 },
    companies: cs,
    rules: heavyRules(
      rules,
      cs.map((c) => c.companyId),
    ),
  });
}
