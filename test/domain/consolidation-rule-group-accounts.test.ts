/**
 * Elimination rules booking to group accounts, in the pure engine: a rule whose debit and credit
 * accounts are group accounts eliminates exactly what the same rule on the members' own accounts
 * (mapped to those group accounts) eliminates, booked on the parent's line; a rule on a group account
 * that the run's chart lacks — or in a run without a chart — fails validation with a clear error
 * instead of crashing, also when validation is skipped.
 */
import { describe, expect, it } from 'vitest';
import {
  createConsolidationExecution,
  type EliminationRuleInput,
  type GroupChartInput,
  runConsolidation,
} from '../../src/domain/consolidation/index.ts';
import { account, buildTestInput } from '../helpers/consolidation-input.ts';

const MEMBER_CHART = [
  account('1000', 'Bank', 'Asset', 'CurrentAsset', { isCashEquivalent: true }),
  account('1300', 'Receivable from group', 'Asset', 'CurrentAsset'),
  account('2300', 'Payable to group', 'Liability', 'CurrentLiability'),
  account('3000', 'Capital', 'Equity', 'ContributedCapital'),
];
const GROUP_CHART: GroupChartInput = {
  accounts: [
    ['10000', 'Cash', 'Asset', 'CurrentAsset', true],
    ['13000', 'Intercompany receivables', 'Asset', 'CurrentAsset', false],
    ['23000', 'Intercompany payables', 'Liability', 'CurrentLiability', false],
    ['30000', 'Share capital', 'Equity', 'ContributedCapital', false],
  ].map(([accountNumber, name, accountType, accountCategory, isCashEquivalent]) => ({
    accountNumber: accountNumber as string,
    name: name as string,
    accountType: accountType as 'Asset',
    accountCategory: accountCategory as 'CurrentAsset',
    cashFlowCategory: null,
    isCashEquivalent: isCashEquivalent as boolean,
    isNonMonetary: false,
  })),
  explicit: [],
  patterns: [
    { companyId: null, pattern: '1000', groupAccountNumber: '10000' },
    { companyId: null, pattern: '1300', groupAccountNumber: '13000' },
    { companyId: null, pattern: '2300', groupAccountNumber: '23000' },
    { companyId: null, pattern: '3000', groupAccountNumber: '30000' },
  ],
};

function rule(
  debitAccount: EliminationRuleInput['debitAccount'],
  creditAccount: EliminationRuleInput['creditAccount'],
): EliminationRuleInput {
  return {
    id: 'rule-ic',
    name: 'Intercompany balances',
    eliminationType: 'IntercompanyReceivablesPayables',
    priority: 1,
    createdAt: '2026-01-01T00:00:00.000Z',
    isActive: true,
    isAutomatic: true,
    triggerConditions: [],
    sourceAccounts: [{ accountNumber: '13000', companyId: 'sub-a' }],
    targetAccounts: [{ accountNumber: '23000', companyId: 'sub-b' }],
    debitAccount,
    creditAccount,
  };
}

function input(rules: EliminationRuleInput[], chart: GroupChartInput | null, skipValidation = false) {
  const company = (companyId: string, role: 'Parent' | 'Member', lines: Array<[string, string]>) => ({
    companyId,
    companyName: companyId,
    functionalCurrency: 'USD',
    role,
    accounts: MEMBER_CHART,
    lines: lines.map(([accountNumber, amount]) => ({ date: '2026-03-31', accountNumber, amount })),
  });
  const built = buildTestInput({
    reportingCurrency: 'USD',
    asOfDate: '2026-12-31',
    periodRef: { year: 2026, period: 12 },
    companies: [
      company('parent', 'Parent', [
        ['1000', '1000'],
        ['3000', '-1000'],
      ]),
      // A lent 250 to B.
      company('sub-a', 'Member', [
        ['1000', '250'],
        ['1300', '250'],
        ['3000', '-500'],
      ]),
      company('sub-b', 'Member', [
        ['1000', '250'],
        ['2300', '-250'],
      ]),
    ],
    rules,
    options: { skipValidation },
  });
  return chart ? { ...built, groupChart: chart } : built;
}

const line = (r: ReturnType<typeof runConsolidation>, n: string) =>
  r.closingTrialBalance!.lineItems.find((l) => l.accountNumber === n)!;

describe('elimination rules on group accounts', () => {
  it('eliminate as the same rule on mapped member accounts, booked on the parent line', () => {
    const onGroup = input(
      [
        rule(
          { companyId: '', accountNumber: '23000', groupAccount: true },
          { companyId: '', accountNumber: '13000', groupAccount: true },
        ),
      ],
      GROUP_CHART,
    );
    const onMembers = input(
      [rule({ companyId: 'sub-b', accountNumber: '2300' }, { companyId: 'sub-a', accountNumber: '1300' })],
      GROUP_CHART,
    );
    const [g, m] = [runConsolidation(onGroup), runConsolidation(onMembers)];
    for (const r of [g, m]) {
      expect(r.status, JSON.stringify(r.validationResult?.issues)).toBe('Completed');
      expect(r.eliminations[0]).toMatchObject({
        status: 'Applied',
        amount: { value: '250.00', currency: 'USD' },
        debitAccountNumber: '23000',
        creditAccountNumber: '13000',
      });
      expect(line(r, '13000').eliminationAmount.value).toBe('-250.00');
      expect(line(r, '23000').eliminationAmount.value).toBe('250.00');
      expect(line(r, '13000').consolidatedBalance.value).toBe('0.00');
      expect(line(r, '23000').consolidatedBalance.value).toBe('0.00');
    }
    expect(g.closingTrialBalance!.lineItems).toEqual(m.closingTrialBalance!.lineItems);
    expect(g.totals).toEqual(m.totals);

    const entryLines = (i: typeof onGroup) => {
      const ex = createConsolidationExecution(i);
      while (ex.nextStep !== null) ex.runNextStep();
      return ex.eliminationEntries()[0]!.lines.map((l) => [l.accountNumber, l.companyId]);
    };
    expect(entryLines(onGroup)).toEqual([
      ['23000', 'parent'],
      ['13000', 'parent'],
    ]);
    expect(entryLines(onMembers)).toEqual([
      ['23000', 'sub-b'],
      ['13000', 'sub-a'],
    ]);
  });

  it('mixes a member account on one side with a group account on the other', () => {
    const r = runConsolidation(
      input(
        [
          rule(
            { companyId: 'sub-b', accountNumber: '2300' },
            { companyId: '', accountNumber: '13000', groupAccount: true },
          ),
        ],
        GROUP_CHART,
      ),
    );
    expect(r.status, r.errorMessage ?? '').toBe('Completed');
    expect(line(r, '13000').consolidatedBalance.value).toBe('0.00');
    expect(line(r, '23000').consolidatedBalance.value).toBe('0.00');
  });

  it('fails validation clearly when the run has no group chart', () => {
    const rules = [
      rule(
        { companyId: '', accountNumber: '23000', groupAccount: true },
        { companyId: 'sub-a', accountNumber: '1300' },
      ),
    ];
    const r = runConsolidation(input(rules, null));
    expect(r.status).toBe('Failed');
    expect(r.validationResult!.issues).toContainEqual({
      severity: 'Error',
      code: 'RULE_ACCOUNT_NOT_IN_GROUP_CHART',
      message:
        "Rule 'Intercompany balances' books its debit side to group account 23000, but the group has no group chart",
      entityReference: 'rule-ic',
    });
    const skipped = runConsolidation(input(rules, null, true));
    expect(skipped.status).toBe('Failed');
    expect(skipped.errorMessage).toContain('books its debit side to group account 23000');
    expect(skipped.steps.find((s) => s.status === 'Failed')?.stepType).toBe('Translate');
  });

  it('fails validation clearly when the group account is not in the chart', () => {
    const r = runConsolidation(
      input(
        [
          rule(
            { companyId: 'sub-b', accountNumber: '2300' },
            { companyId: '', accountNumber: '', groupAccount: true },
          ),
        ],
        GROUP_CHART,
      ),
    );
    expect(r.status).toBe('Failed');
    const issue = r.validationResult!.issues.find((i) => i.code === 'RULE_ACCOUNT_NOT_IN_GROUP_CHART');
    expect(issue?.message).toBe(
      "Rule 'Intercompany balances' books its credit side to group account (deleted), which is not in the group chart",
    );
  });
});
