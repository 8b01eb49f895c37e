import { describe, expect, it } from 'vitest';
import { categoryBelongsToType, normalBalanceOf } from '../../src/domain/accounts.ts';
import {
  getTemplate,
  hierarchyLevels,
  isTemplateType,
  listTemplates,
  sortByHierarchy,
  TEMPLATE_TYPES,
  type TemplateAccount,
  type TemplateType,
} from '../../src/domain/templates/index.ts';

const COUNTS: Record<TemplateType, number> = {
  GeneralBusiness: 78,
  Manufacturing: 95,
  ServiceBusiness: 80,
  HoldingCompany: 66,
};

function account(type: TemplateType, accountNumber: string): TemplateAccount {
  const found = getTemplate(type).accounts.find((a) => a.accountNumber === accountNumber);
  if (!found) throw new Error(`${type} has no account ${accountNumber}`);
  return found;
}

describe('template catalogue', () => {
  it('lists the four templates in contract order with the Appendix C names and descriptions', () => {
    expect(listTemplates()).toEqual([
      {
        templateType: 'GeneralBusiness',
        name: 'General Business',
        description: 'A general-purpose chart of accounts for trading and service companies.',
        accountCount: 78,
      },
      {
        templateType: 'Manufacturing',
        name: 'Manufacturing',
        description:
          'The general business chart extended with inventory stages, manufacturing equipment and cost-of-goods-sold detail.',
        accountCount: 95,
      },
      {
        templateType: 'ServiceBusiness',
        name: 'Service Business',
        description:
          'A chart of accounts for professional-services firms, with unbilled and deferred revenue, retainers and project costs.',
        accountCount: 80,
      },
      {
        templateType: 'HoldingCompany',
        name: 'Holding Company',
        description:
          'A chart of accounts for holding companies, with investments in subsidiaries and associates, intercompany balances and dividend income.',
        accountCount: 66,
      },
    ]);
    expect(TEMPLATE_TYPES).toEqual(['GeneralBusiness', 'Manufacturing', 'ServiceBusiness', 'HoldingCompany']);
  });

  it('isTemplateType is exact and case-sensitive', () => {
    for (const t of TEMPLATE_TYPES) expect(isTemplateType(t)).toBe(true);
    expect(isTemplateType('generalBusiness')).toBe(false);
    expect(isTemplateType('GENERALBUSINESS')).toBe(false);
    expect(isTemplateType('Retail')).toBe(false);
    expect(isTemplateType('')).toBe(false);
  });

  it('getTemplate returns the summary fields plus the accounts; unknown types throw', () => {
    const t = getTemplate('Manufacturing');
    expect(t).toMatchObject({ templateType: 'Manufacturing', name: 'Manufacturing', accountCount: 95 });
    expect(() => getTemplate('Nope' as TemplateType)).toThrow(RangeError);
  });

  it('returns fresh objects, so callers cannot alter the built-in data', () => {
    const first = getTemplate('GeneralBusiness');
    first.accounts[0]!.name = 'changed';
    first.accounts.pop();
    const second = getTemplate('GeneralBusiness');
    expect(second.accounts[0]!.name).toBe('Cash and Cash Equivalents');
    expect(second.accounts).toHaveLength(78);
  });
});

describe.each(TEMPLATE_TYPES)('template %s', (type) => {
  const template = getTemplate(type);
  const accounts = template.accounts;
  const byNumber = new Map(accounts.map((a) => [a.accountNumber, a]));

  it(`has ${COUNTS[type]} accounts and accountCount says so`, () => {
    expect(accounts).toHaveLength(COUNTS[type]);
    expect(template.accountCount).toBe(COUNTS[type]);
  });

  it('account numbers are unique, match ^[1-9][0-9]{3,9}$ and are in numeric order', () => {
    expect(byNumber.size).toBe(accounts.length);
    for (const a of accounts) expect(a.accountNumber).toMatch(/^[1-9][0-9]{3,9}$/);
    const numbers = accounts.map((a) => Number(a.accountNumber));
    expect(numbers).toEqual([...numbers].sort((x, y) => x - y));
  });

  it('exactly one account is the retained-earnings account: 3300, postable Equity / RetainedEarnings', () => {
    const re = accounts.filter((a) => a.isRetainedEarnings);
    expect(re.map((a) => a.accountNumber)).toEqual(['3300']);
    expect(re[0]).toMatchObject({
      name: 'Retained Earnings',
      accountType: 'Equity',
      accountCategory: 'RetainedEarnings',
      isPostable: true,
    });
  });

  it('every category belongs to its type and the normal balance is derived from the type', () => {
    for (const a of accounts) {
      expect(categoryBelongsToType(a.accountType, a.accountCategory), a.accountNumber).toBe(true);
      expect(a.normalBalance).toBe(normalBalanceOf(a.accountType));
      expect(a.description).toBeNull();
      expect(a.name.length).toBeGreaterThan(0);
      expect(a.name.length).toBeLessThanOrEqual(255);
    }
  });

  it('every parent exists in the template and has the same account type', () => {
    for (const a of accounts) {
      if (a.parentAccountNumber === null) continue;
      const parent = byNumber.get(a.parentAccountNumber);
      expect(parent, `parent of ${a.accountNumber}`).toBeDefined();
      expect(parent?.accountType).toBe(a.accountType);
    }
  });

  it('sorted by hierarchy, every parent comes before its children; depth is at most 10', () => {
    const ordered = sortByHierarchy(accounts);
    expect(ordered).toHaveLength(accounts.length);
    const position = new Map(ordered.map((a, i) => [a.accountNumber, i]));
    for (const a of accounts) {
      if (a.parentAccountNumber !== null) {
        expect(position.get(a.parentAccountNumber)!).toBeLessThan(position.get(a.accountNumber)!);
      }
    }
    const levels = hierarchyLevels(accounts);
    expect(Math.max(...levels.values())).toBeLessThanOrEqual(10);
  });

  it('cash-equivalent accounts are Asset / CurrentAsset with a null cash-flow category', () => {
    const cash = accounts.filter((a) => a.isCashEquivalent);
    expect(cash.length).toBeGreaterThan(0);
    for (const a of cash) {
      expect(a).toMatchObject({
        accountType: 'Asset',
        accountCategory: 'CurrentAsset',
        cashFlowCategory: null,
      });
    }
  });

  it('Revenue and Expense accounts have a null cash-flow category', () => {
    for (const a of accounts) {
      if (a.accountType === 'Revenue' || a.accountType === 'Expense') expect(a.cashFlowCategory).toBeNull();
    }
  });

  it('no account carries more than one flag', () => {
    for (const a of accounts) {
      expect(
        [a.isCashEquivalent, a.isIntercompany, a.isRetainedEarnings].filter(Boolean).length,
      ).toBeLessThan(2);
    }
  });
});

describe('spot checks against Appendix C', () => {
  it('GeneralBusiness', () => {
    expect(account('GeneralBusiness', '1000')).toEqual({
      accountNumber: '1000',
      name: 'Cash and Cash Equivalents',
      description: null,
      accountType: 'Asset',
      accountCategory: 'CurrentAsset',
      normalBalance: 'Debit',
      parentAccountNumber: null,
      isPostable: false,
      cashFlowCategory: null,
      isCashEquivalent: true,
      isIntercompany: false,
      isRetainedEarnings: false,
    });
    expect(account('GeneralBusiness', '1630')).toMatchObject({
      name: 'Accumulated Depreciation - Equipment',
      accountCategory: 'FixedAsset',
      normalBalance: 'Debit',
      parentAccountNumber: '1600',
      cashFlowCategory: 'NonCash',
    });
    expect(account('GeneralBusiness', '2700')).toMatchObject({
      name: 'Deferred Tax Liabilities',
      accountCategory: 'NonCurrentLiability',
      normalBalance: 'Credit',
      cashFlowCategory: 'NonCash',
    });
    expect(account('GeneralBusiness', '3600')).toMatchObject({
      name: 'Dividends',
      accountCategory: 'RetainedEarnings',
      cashFlowCategory: 'Financing',
      isRetainedEarnings: false,
    });
    expect(account('GeneralBusiness', '8400')).toMatchObject({
      name: 'Foreign Exchange Gain/Loss',
      accountType: 'Revenue',
      accountCategory: 'OtherRevenue',
    });
    expect(getTemplate('GeneralBusiness').accounts.at(-1)?.accountNumber).toBe('8500');
  });

  it('Manufacturing', () => {
    expect(account('Manufacturing', '1220')).toMatchObject({
      name: 'Work-in-Process Inventory',
      parentAccountNumber: '1200',
      isPostable: true,
      cashFlowCategory: 'Operating',
    });
    expect(account('Manufacturing', '1650')).toMatchObject({
      name: 'Accumulated Depreciation - Manufacturing Equipment',
      parentAccountNumber: '1600',
      cashFlowCategory: 'NonCash',
    });
    expect(account('Manufacturing', '5030')).toMatchObject({
      name: 'Manufacturing Overhead',
      accountCategory: 'CostOfGoodsSold',
      parentAccountNumber: '5000',
      isPostable: false,
    });
    expect(account('Manufacturing', '5036')).toMatchObject({
      name: 'Indirect Labor',
      parentAccountNumber: '5030',
    });
    // 5036 → 5030 → 5000: the deepest chain of the four templates.
    expect(hierarchyLevels(getTemplate('Manufacturing').accounts).get('5036')).toBe(3);
  });

  it('ServiceBusiness', () => {
    expect(account('ServiceBusiness', '1120')).toMatchObject({
      name: 'Unbilled Revenue',
      parentAccountNumber: '1100',
    });
    expect(account('ServiceBusiness', '1660')).toMatchObject({
      name: 'Accumulated Amortization - Leasehold Improvements',
      cashFlowCategory: 'NonCash',
    });
    expect(account('ServiceBusiness', '2310')).toMatchObject({
      name: 'Retainers Received',
      accountType: 'Liability',
      parentAccountNumber: '2300',
    });
    expect(account('ServiceBusiness', '3400')).toMatchObject({
      name: 'Owner Draws',
      accountCategory: 'RetainedEarnings',
      cashFlowCategory: 'Financing',
    });
    expect(account('ServiceBusiness', '4000')).toMatchObject({ name: 'Service Revenue', isPostable: false });
    expect(account('ServiceBusiness', '5040').name).toBe('Reimbursable Expenses - Cost');
  });

  it('HoldingCompany', () => {
    expect(account('HoldingCompany', '1200')).toMatchObject({
      name: 'Intercompany Receivables',
      isPostable: false,
      cashFlowCategory: 'Operating',
      isIntercompany: true,
    });
    expect(account('HoldingCompany', '1900')).toMatchObject({
      name: 'Loans to Subsidiaries',
      accountCategory: 'NonCurrentAsset',
      cashFlowCategory: 'Investing',
      isIntercompany: true,
    });
    expect(account('HoldingCompany', '3520')).toMatchObject({
      name: 'Cumulative Translation Adjustment',
      accountCategory: 'OtherComprehensiveIncome',
      parentAccountNumber: '3500',
    });
    expect(account('HoldingCompany', '8110')).toMatchObject({
      name: 'Interest Expense - Intercompany',
      accountType: 'Expense',
      normalBalance: 'Debit',
      parentAccountNumber: '8100',
      isIntercompany: true,
    });
    const intercompany = getTemplate('HoldingCompany')
      .accounts.filter((a) => a.isIntercompany)
      .map((a) => a.accountNumber);
    expect(intercompany).toEqual([
      '1200',
      '1210',
      '1220',
      '1230',
      '1900',
      '2200',
      '2210',
      '2220',
      '2230',
      '2600',
      '4010',
      '4020',
      '4030',
      '4200',
      '8010',
      '8110',
    ]);
  });

  it('only HoldingCompany has intercompany accounts', () => {
    for (const t of ['GeneralBusiness', 'Manufacturing', 'ServiceBusiness'] as const) {
      expect(getTemplate(t).accounts.some((a) => a.isIntercompany)).toBe(false);
    }
  });
});

describe('hierarchy helpers', () => {
  it('hierarchyLevels rejects a missing parent and a cycle', () => {
    expect(() => hierarchyLevels([{ accountNumber: '1000', parentAccountNumber: '9999' }])).toThrow();
    expect(() =>
      hierarchyLevels([
        { accountNumber: '1000', parentAccountNumber: '2000' },
        { accountNumber: '2000', parentAccountNumber: '1000' },
      ]),
    ).toThrow(/Circular/);
  });

  it('sortByHierarchy orders by level, then account number', () => {
    const sorted = sortByHierarchy([
      { accountNumber: '1010', parentAccountNumber: '9000' },
      { accountNumber: '9000', parentAccountNumber: null },
      { accountNumber: '10000', parentAccountNumber: null },
      { accountNumber: '1000', parentAccountNumber: null },
    ]);
    expect(sorted.map((a) => a.accountNumber)).toEqual(['1000', '9000', '10000', '1010']);
  });
});
