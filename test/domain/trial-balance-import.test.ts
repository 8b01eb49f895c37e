/** The accounting rules of trial-balance imports and the report tables of the exports, without a database. */
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/domain/money.ts';
import { labelOf, statementTable, trialBalanceTable } from '../../src/domain/reports/tabular.ts';
import {
  balancedChunks,
  categoryByRules,
  categoryRuleErrors,
  checkImportRows,
  importDifferences,
  importTotals,
} from '../../src/domain/trial-balance-import.ts';

describe('checkImportRows', () => {
  it('reads balances and names every problem by row and column', () => {
    const { rows, errors } = checkImportRows(
      [
        { accountNumber: '1000', debit: '100.50' },
        { accountNumber: '0100', debit: '1' },
        { accountNumber: '2000', credit: '1,5' },
        { accountNumber: '1000', credit: '3' },
        { accountNumber: '3000', debit: '1', credit: '2' },
        { accountNumber: '4000', debit: '1.001' },
        { accountNumber: '5000', debit: '1', currency: 'EUR' },
        { accountNumber: '6000', debit: '1', category: 'Cash' },
        { accountNumber: '', credit: '' },
      ],
      'USD',
    );
    expect(rows.map((r) => [r.row, r.accountNumber, r.net.toFixed()])).toEqual([[1, '1000', '100.5']]);
    expect(errors.map((e) => [e.row, e.column])).toEqual([
      [2, 'accountNumber'],
      [3, 'credit'],
      [4, 'accountNumber'],
      [5, 'credit'],
      [6, 'debit'],
      [7, 'currency'],
      [8, 'category'],
      [9, 'accountNumber'],
    ]);
  });

  it('takes the minor units of the currency: no decimals in JPY', () => {
    expect(checkImportRows([{ accountNumber: '1000', debit: '10.5' }], 'JPY').errors).toHaveLength(1);
    expect(checkImportRows([{ accountNumber: '1000', debit: '10' }], 'JPY').errors).toHaveLength(0);
  });

  it('totals the sides', () => {
    const { rows } = checkImportRows(
      [
        { accountNumber: '1000', debit: '10.25' },
        { accountNumber: '2000', credit: '10.25' },
      ],
      'USD',
    );
    const t = importTotals(rows);
    expect([t.debit.toFixed(2), t.credit.toFixed(2)]).toEqual(['10.25', '10.25']);
  });
});

describe('category rules', () => {
  const rules = [
    { from: '1000', to: '1999', category: 'CurrentAsset' },
    { from: '10000', to: '19999', category: 'FixedAsset' },
  ];
  it('match account numbers in numeric order', () => {
    expect(categoryByRules('1500', rules)).toBe('CurrentAsset');
    expect(categoryByRules('12000', rules)).toBe('FixedAsset');
    // "2" sorts after "19999" as text, not as a number.
    expect(categoryByRules('2000', rules)).toBeNull();
  });
  it('are checked', () => {
    expect(
      categoryRuleErrors([{ from: '2000', to: '1000', category: 'Nope' }]).map((e) => e.message),
    ).toEqual(['Rule 1: from is after to', 'Rule 1: unknown account category Nope']);
  });
});

describe('importDifferences', () => {
  const imported = new Map([
    ['a', dec('100')],
    ['b', dec('-100')],
  ]);
  const current = new Map([
    ['a', dec('60')],
    ['c', dec('-60')],
  ]);
  it('Opening posts the file as it is', () => {
    expect(
      importDifferences('Opening', imported, current).map((d) => [d.accountKey, d.difference.toFixed()]),
    ).toEqual([
      ['a', '100'],
      ['b', '-100'],
    ]);
  });
  it('Periodic posts file minus books, and brings accounts missing from the file to zero', () => {
    const d = importDifferences('Periodic', imported, current);
    expect(d.map((x) => [x.accountKey, x.difference.toFixed()])).toEqual([
      ['a', '40'],
      ['b', '-100'],
      ['c', '60'],
    ]);
    expect(d.reduce((s, x) => s.plus(x.difference), dec(0)).isZero()).toBe(true);
  });
});

describe('report tables', () => {
  it('a statement: section header, lines, subtotal, totals', () => {
    const usd = (value: string) => ({ value, currency: 'USD' });
    const table = statementTable('Balance sheet', {
      currency: 'USD',
      currentAssets: {
        title: 'Current Assets',
        lineItems: [
          {
            accountNumber: '1000',
            description: 'Cash',
            currentAmount: usd('10.00'),
            comparativeAmount: null,
            variance: null,
            style: 'Normal',
            indentLevel: 0,
          },
        ],
        subtotal: usd('10.00'),
        comparativeSubtotal: null,
      },
      totalAssets: usd('10.00'),
    });
    expect(table.columns.map((c) => c.header)).toEqual(['Account number', 'Description', 'Amount']);
    expect(table.rows.map((r) => [r.style, ...r.cells])).toEqual([
      ['Header', null, 'Current Assets', null],
      ['Normal', '1000', 'Cash', '10.00'],
      ['Subtotal', null, 'Total current assets', '10.00'],
      ['Total', null, 'Total assets', '10.00'],
    ]);
  });
  it('a trial balance: one row per account and the totals', () => {
    const usd = (value: string) => ({ value, currency: 'USD' });
    const table = trialBalanceTable('TB', {
      currency: 'USD',
      lineItems: [
        {
          accountNumber: '1000',
          accountName: 'Cash',
          accountType: 'Asset',
          accountCategory: 'CurrentAsset',
          debitBalance: usd('5.00'),
          creditBalance: usd('0.00'),
        },
      ],
      totalDebits: usd('5.00'),
      totalCredits: usd('0.00'),
    });
    expect(table.rows.at(-1)).toEqual({ style: 'Total', cells: [null, 'Total', null, null, '5.00', '0.00'] });
  });
  it('labels', () => {
    expect(labelOf('totalLiabilitiesAndEquity')).toBe('Total liabilities and equity');
    expect(labelOf('netIncomeAttributableToNCI')).toBe('Net income attributable to NCI');
  });
});

describe('balancedChunks', () => {
  it('keeps lines that fit in one entry as they are', () => {
    const lines = [
      { key: 'a', amount: dec('5') },
      { key: 'b', amount: dec('-5') },
    ];
    expect(balancedChunks(lines, 10)).toEqual([lines]);
  });
  it('splits a large set into balanced entries whose amounts add up per account', () => {
    const lines: { key: string; amount: ReturnType<typeof dec> }[] = [];
    for (let i = 0; i < 25; i++) lines.push({ key: `d${i}`, amount: dec(`${i + 1}.25`) });
    const total = lines.reduce((s, l) => s.plus(l.amount), dec(0));
    for (let i = 0; i < 24; i++) lines.push({ key: `c${i}`, amount: dec('-10.01') });
    lines.push({ key: 'c24', amount: total.minus('240.24').negated() });
    const chunks = balancedChunks(lines, 8);
    expect(chunks.length).toBeGreaterThan(5);
    const sums = new Map<string, ReturnType<typeof dec>>();
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(8);
      expect(new Set(chunk.map((l) => l.key)).size).toBe(chunk.length);
      expect(chunk.reduce((s, l) => s.plus(l.amount), dec(0)).isZero()).toBe(true);
      for (const l of chunk) sums.set(l.key, (sums.get(l.key) ?? dec(0)).plus(l.amount));
    }
    for (const l of lines) expect(sums.get(l.key)!.toFixed()).toBe(l.amount.toFixed());
  });
});
