/**
 * The web console's own logic, without a browser: the journal editor's live balance (the API's
 * balance rules with exact decimals), spreadsheet paste of exchange rates, which workflow buttons an
 * entry shows, the ownership tree, the two sides of an intercompany transaction, feature detection
 * from the OpenAPI document, the statement date helpers, and the consolidated balance sheet by company
 * (from the contributions of its lines).
 */
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import type {
  ConsolidatedTrialBalance,
  GroupMember,
  JournalEntry,
  LineContributions,
} from '../../web/src/api/types.ts';
import { balancingAmount, computeBalance } from '../../web/src/lib/balance.ts';
import { balanceSheetAccounts, composition } from '../../web/src/lib/composition.ts';
import { endOfPreviousMonth, fiscalYearStart, periodOf, yearEarlier } from '../../web/src/lib/dates.ts';
import { detectFeatures } from '../../web/src/lib/feature-detection.ts';
import { inMinorUnits } from '../../web/src/lib/format.ts';
import { difference, sideAmount } from '../../web/src/lib/intercompany.ts';
import { entryActions } from '../../web/src/lib/permissions.ts';
import { findHolders, ownershipTree } from '../../web/src/lib/structure.ts';
import { parseRates } from '../../web/src/lib/tsv.ts';

const digits = (c: string) => ({ JPY: 0, KWD: 3 })[c] ?? 2;
const line = (debit: string, credit: string, currency = 'USD', rate: string | null = null) => ({
  debit,
  credit,
  currency,
  rate,
});

describe('journal editor balance', () => {
  it('balances single-currency lines exactly and names the difference otherwise', () => {
    const off = computeBalance([line('500000', ''), line('', '400000')], 'USD', digits);
    expect(off).toMatchObject({ state: 'unbalanced', difference: '100000.00', currency: 'USD' });
    expect(off.totalDebits).toBe('500000.00');
    const ok = computeBalance([line('0.1', ''), line('0.2', ''), line('', '0.3')], 'USD', digits);
    expect(ok).toMatchObject({ state: 'balanced', difference: '0.00', totalCredits: '0.30' });
    expect(computeBalance([line('', ''), line('abc', '')], 'USD', digits).state).toBe('empty');
  });

  it('converts foreign lines at amount × rate, rounded half away from zero, in the functional currency', () => {
    const b = computeBalance(
      [line('10000', '', 'USD', '0.9259259259'), line('', '10000', 'USD', '0.9259259259')],
      'EUR',
      digits,
    );
    expect(b.lineFunctional).toEqual(['9259.26', '9259.26']);
    expect(b).toMatchObject({ state: 'balanced', currency: 'USD', functionalDebits: '9259.26' });
    expect(
      computeBalance([line('0.005', '', 'USD', '1'), line('', '0.01')], 'EUR', digits).lineFunctional[0],
    ).toBe('0.01');
  });

  it('accepts a functional difference of one minor unit per foreign line in mixed currencies, as the API does', () => {
    // 100 USD at 0.333 = 33.30 EUR against 33.31 EUR: 0.01 with one foreign line is absorbed.
    const absorbed = computeBalance(
      [line('100', '', 'USD', '0.333'), line('', '33.31', 'EUR')],
      'EUR',
      digits,
    );
    expect(absorbed).toMatchObject({ state: 'balanced', currency: 'EUR', difference: '0.00' });
    const off = computeBalance([line('100', '', 'USD', '0.333'), line('', '33.32', 'EUR')], 'EUR', digits);
    expect(off).toMatchObject({ state: 'unbalanced', difference: '0.02' });
    const pending = computeBalance([line('100', '', 'USD', null), line('', '33.32', 'EUR')], 'EUR', digits);
    expect(pending.state).toBe('pending');
  });

  it('proposes the amount that balances a new line', () => {
    expect(balancingAmount([line('120.5', ''), line('', '20')], digits)).toEqual({
      side: 'credit',
      amount: '100.50',
      currency: 'USD',
    });
    expect(balancingAmount([line('10', ''), line('', '10')], digits)).toBeNull();
    expect(balancingAmount([line('10', '', 'EUR'), line('', '10')], digits)).toBeNull();
  });
});

describe('exchange rates pasted from a spreadsheet', () => {
  it('reads tab-separated rows, skipping a header, with decimal commas and day.month.year dates', () => {
    const rows = parseRates(
      'From\tTo\tRate\tDate\n eur\tusd\t1,0850\t15.01.2026\tyear end\tcentral bank eu\n\nGBP\tUSD\t1.27\t2026-01-31\n',
    );
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      row: 2,
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      rate: '1.0850',
      effectiveDate: '2026-01-15',
      rateType: 'YearEnd',
      source: 'CentralBankEU',
      problems: [],
    });
    expect(rows[1]).toMatchObject({ rateType: 'Spot', source: 'Manual', problems: [] });
  });

  it('names what is wrong with each row', () => {
    const [row] = parseRates('EUR\tEUR\t0\t2026/13\tDaily');
    expect(row!.problems).toEqual([
      'same currency on both sides',
      'rate is not a positive number with at most 10 decimals',
      'date is not YYYY-MM-DD',
      'type must be one of Spot, Average, Historical, YearEnd',
    ]);
  });
});

describe('workflow buttons of an entry', () => {
  const settings = { requireApproval: true, enforceSegregationOfDuties: false };
  const entry = (status: JournalEntry['status'], createdBy = 'ann', ref: string | null = null) => ({
    status,
    createdBy,
    sourceDocumentRef: ref,
  });

  it('follow the status and the role', () => {
    expect(entryActions(entry('Draft'), 'member', settings, 'bob')).toEqual(['edit', 'submit', 'delete']);
    expect(entryActions(entry('Draft'), 'viewer', settings, 'bob')).toEqual([]);
    expect(entryActions(entry('PendingApproval'), 'member', settings, 'bob')).toEqual([]);
    expect(entryActions(entry('PendingApproval'), 'admin', settings, 'bob')).toEqual(['approve', 'reject']);
    expect(entryActions(entry('Approved'), 'admin', settings, 'bob')).toEqual(['post']);
    expect(entryActions(entry('Posted'), 'owner', settings, 'bob')).toEqual(['reverse']);
    expect(entryActions(entry('Posted'), 'member', settings, 'bob')).toEqual([]);
    expect(entryActions(entry('Reversed'), 'owner', settings, 'bob')).toEqual([]);
  });

  it('offer direct posting without approval, and respect segregation of duties', () => {
    const direct = { requireApproval: false, enforceSegregationOfDuties: false };
    expect(entryActions(entry('Draft'), 'admin', direct, 'bob')).toEqual([
      'edit',
      'submit',
      'delete',
      'post',
    ]);
    const sod = { requireApproval: false, enforceSegregationOfDuties: true };
    expect(entryActions(entry('Draft', 'bob'), 'admin', sod, 'bob')).toEqual(['edit', 'submit', 'delete']);
    expect(
      entryActions(
        entry('PendingApproval', 'bob'),
        'admin',
        { ...settings, enforceSegregationOfDuties: true },
        'bob',
      ),
    ).toEqual(['reject']);
  });

  it('never offer to reverse the year-end closing entry', () => {
    expect(entryActions(entry('Posted', 'ann', 'year-end-close:1234'), 'owner', settings, 'bob')).toEqual([]);
  });
});

describe('ownership tree', () => {
  const member = (companyId: string, heldByCompanyId?: string) =>
    ({
      companyId,
      ownershipPercentage: '80.00',
      consolidationMethod: 'FullConsolidation',
      acquisitionDate: null,
      nonControllingInterestPercentage: '20.00',
      createdAt: '',
      updatedAt: '',
      ...(heldByCompanyId ? { heldByCompanyId } : {}),
    }) as GroupMember & { heldByCompanyId?: string };
  const shape = (n: ReturnType<typeof ownershipTree>): unknown => ({ [n.companyId]: n.children.map(shape) });

  it('hangs every member under the parent when nothing says otherwise', () => {
    expect(shape(ownershipTree('P', [member('A'), member('B')]))).toEqual({ P: [{ A: [] }, { B: [] }] });
  });

  it('follows heldByCompanyId, and puts members of a cycle under the parent', () => {
    expect(shape(ownershipTree('P', [member('A'), member('B', 'A'), member('C', 'B')]))).toEqual({
      P: [{ A: [{ B: [{ C: [] }] }] }],
    });
    expect(shape(ownershipTree('P', [member('A', 'B'), member('B', 'A')]))).toEqual({
      P: [{ A: [{ B: [] }] }],
    });
    expect(shape(ownershipTree('P', [member('A', 'X')]))).toEqual({ P: [{ A: [] }] });
  });

  it('reads who holds whom from the structure answer', () => {
    const node = (companyId: string, heldByCompanyId: string | null) => ({ companyId, heldByCompanyId });
    const answer = { nodes: [node('P', null), node('A', 'P'), node('B', 'A')] };
    expect(findHolders(answer)).toEqual(
      new Map([
        ['A', 'P'],
        ['B', 'A'],
      ]),
    );
    expect(findHolders({ nodes: [node('P', null)] })).toBeNull();
    expect(findHolders(undefined)).toBeNull();
  });
});

describe('intercompany sides', () => {
  const money = (value: string, currency = 'USD') => ({ value, currency });
  const entryWith = (lines: Array<{ d?: string; c?: string; cur?: string; partner?: string }>) =>
    ({
      lines: lines.map((l) => ({
        debitAmount: l.d ? money(l.d, l.cur) : null,
        creditAmount: l.c ? money(l.c, l.cur) : null,
        intercompanyPartnerId: l.partner ?? null,
      })),
    }) as unknown as JournalEntry;

  it('takes the lines naming the counterparty, else the whole entry, in the transaction currency', () => {
    const seller = entryWith([{ d: '10000.00', partner: 'S' }, { c: '10000.00' }]);
    expect(sideAmount(seller, 'S', 'USD')).toEqual(money('10000.00'));
    const buyer = entryWith([{ d: '9990.00' }, { c: '9990.00' }]);
    expect(sideAmount(buyer, 'P', 'USD')).toEqual(money('9990.00'));
    expect(
      sideAmount(
        entryWith([
          { d: '10.00', cur: 'EUR' },
          { c: '10.00', cur: 'EUR' },
        ]),
        'P',
        'USD',
      ),
    ).toBeNull();
    expect(sideAmount(undefined, 'P', 'USD')).toBeNull();
    expect(difference(money('10000.00'), money('9990.00'))).toEqual(money('10.00'));
    expect(difference(money('1.00'), money('1.00', 'EUR'))).toBeNull();
  });
});

describe('features from the OpenAPI document', () => {
  it('finds the structure endpoint and the export formats of reports', () => {
    expect(detectFeatures({ paths: {} })).toEqual({ structure: false, exports: {} });
    const doc = {
      paths: {
        '/api/v1/consolidation/groups/{id}/structure': { get: {} },
        '/api/v1/reports/balance-sheet': {
          get: {
            parameters: [
              { in: 'query', name: 'format', schema: { type: 'string', enum: ['json', 'csv', 'xlsx'] } },
            ],
          },
        },
        '/api/v1/reports/trial-balance': {
          get: { parameters: [{ in: 'query', name: 'format', schema: { enum: ['json'] } }] },
        },
      },
    };
    expect(detectFeatures(doc)).toEqual({
      structure: true,
      exports: { '/api/v1/reports/balance-sheet': ['csv', 'xlsx'] },
    });
  });
});

describe('statement dates', () => {
  it('finds the start of the fiscal year and the same day a year earlier', () => {
    expect(fiscalYearStart({ month: 12, day: 31 }, '2026-11-24')).toBe('2026-01-01');
    expect(fiscalYearStart({ month: 6, day: 30 }, '2026-07-15')).toBe('2026-07-01');
    expect(fiscalYearStart({ month: 6, day: 30 }, '2026-06-30')).toBe('2025-07-01');
    expect(fiscalYearStart({ month: 2, day: 30 }, '2025-03-01')).toBe('2025-03-01');
    expect(yearEarlier('2024-02-29')).toBe('2023-02-28');
    expect(endOfPreviousMonth('2026-03-15')).toBe('2026-02-28');
    expect(endOfPreviousMonth('2026-01-10')).toBe('2025-12-31');
  });

  it('finds the fiscal period of a date in any calendar', () => {
    expect(periodOf({ month: 12, day: 31 }, '2026-01-31')).toEqual({ year: 2026, period: 1 });
    expect(periodOf({ month: 12, day: 31 }, '2026-12-31')).toEqual({ year: 2026, period: 12 });
    expect(periodOf({ month: 6, day: 30 }, '2025-07-15')).toEqual({ year: 2026, period: 1 });
    expect(periodOf({ month: 6, day: 30 }, '2026-06-30')).toEqual({ year: 2026, period: 12 });
    expect(periodOf({ month: 3, day: 15 }, '2026-03-15')).toEqual({ year: 2026, period: 12 });
    expect(periodOf({ month: 3, day: 15 }, '2025-03-20')).toEqual({ year: 2026, period: 1 });
  });
});

describe('balance sheet by company', () => {
  const usd = (value: string) => ({ value, currency: 'USD' });
  const company = (companyId: string, companyName: string, amount: string) =>
    ({ companyId, companyName, amount: usd(amount) }) as LineContributions['companies'][number];
  /** A line whose parts add up: companies + eliminations + adjustments + NCI + unattributed. */
  const line = (
    companies: LineContributions['companies'],
    parts: { elimination?: string; adjustment?: string; nci?: string; unattributed?: string } = {},
  ) => {
    const sum = [
      ...companies.map((c) => c.amount.value),
      parts.elimination ?? '0',
      parts.adjustment ?? '0',
      parts.nci ?? '0',
      parts.unattributed ?? '0',
    ].reduce((a, b) => a.plus(b), new Decimal(0));
    return {
      companies,
      eliminationAmount: usd(parts.elimination ?? '0.00'),
      adjustmentAmount: usd(parts.adjustment ?? '0.00'),
      nciAmount: usd(parts.nci ?? '0.00'),
      unattributed: {
        aggregated: usd(parts.unattributed ?? '0.00'),
        elimination: usd('0.00'),
        adjustment: usd('0.00'),
      },
      consolidatedBalance: usd(sum.toFixed(2)),
    } as LineContributions;
  };

  it('lists the asset and liability lines to trace, each account once', () => {
    const tb = {
      lineItems: [
        { accountNumber: '1010', accountType: 'Asset' },
        { accountNumber: '1500', accountType: 'Asset' },
        { accountNumber: '1500', accountType: 'Asset' },
        { accountNumber: '2000', accountType: 'Liability' },
        { accountNumber: '3000', accountType: 'Equity' },
        { accountNumber: '4000', accountType: 'Revenue' },
      ],
    } as unknown as ConsolidatedTrialBalance;
    expect(balanceSheetAccounts(tb)).toEqual(['1010', '1500', '2000']);
  });

  it('adds each company’s assets and liabilities (credit-positive), with the group parts, to the totals', () => {
    const result = composition(
      [
        // Cash and receivables of both; an intercompany receivable eliminated against the payable.
        {
          accountType: 'Asset',
          line: line([company('P', 'Parent', '500000.00'), company('S', 'Sub', '218000.00')]),
        },
        {
          accountType: 'Asset',
          line: line([company('S', 'Sub', '1090.00')], { elimination: '-1090.00' }),
        },
        {
          accountType: 'Liability',
          line: line([company('P', 'Parent', '-1090.00'), company('S', 'Sub', '-10092.59')], {
            elimination: '1090.00',
            adjustment: '-0.01',
          }),
        },
        { accountType: 'Equity', line: line([company('P', 'Parent', '-500000.00')]) },
      ],
      'USD',
      ['P', 'S'],
    );
    expect(result.companies).toEqual([
      { key: 'P', label: 'Parent', assets: '500000.00', liabilities: '1090.00', netAssets: '498910.00' },
      { key: 'S', label: 'Sub', assets: '219090.00', liabilities: '10092.59', netAssets: '208997.41' },
    ]);
    expect(result.group).toEqual([
      {
        key: 'eliminations',
        label: 'Eliminations',
        assets: '-1090.00',
        liabilities: '-1090.00',
        netAssets: '0.00',
      },
      {
        key: 'adjustments',
        label: 'Top-side adjustments',
        assets: '0.00',
        liabilities: '0.01',
        netAssets: '-0.01',
      },
    ]);
    // Every column adds up to the consolidated figures.
    expect(result.total).toEqual({
      key: 'total',
      label: 'Consolidated',
      assets: '718000.00',
      liabilities: '10092.60',
      netAssets: '707907.40',
    });
    for (const k of ['assets', 'liabilities', 'netAssets'] as const) {
      const sum = [...result.companies, ...result.group].reduce((a, r) => a.plus(r[k]), new Decimal(0));
      expect(sum.toFixed(2)).toBe(result.total[k]);
    }
  });

  it('writes functional balances with their currency’s digits, dropping only zeros', () => {
    expect(inMinorUnits({ value: '80000.00000000', currency: 'EUR' })).toEqual({
      value: '80000.00',
      currency: 'EUR',
    });
    expect(inMinorUnits({ value: '-9259.26000000', currency: 'EUR' }).value).toBe('-9259.26');
    expect(inMinorUnits({ value: '12.34567800', currency: 'EUR' }).value).toBe('12.345678');
    expect(inMinorUnits({ value: '1500.00000000', currency: 'JPY' }).value).toBe('1500');
  });
});
