/**
 * The stored form of a consolidated line's contributions: every fact survives the round trip, the
 * run's members are named by index only when the contribution says the same of them, and lines stored
 * in the first version of the form are still read.
 */
import { describe, expect, it } from 'vitest';
import {
  CompanyDirectory,
  type PackedLine,
  packLine,
  unpackLine,
} from '../../src/domain/consolidation/contributions-codec.ts';
import type { LineContributions } from '../../src/domain/consolidation/contributions.ts';

const usd = (value: string) => ({ value, currency: 'USD' });
const P = '00000000-0000-7000-8000-000000000001';
const S = '00000000-0000-7000-8000-000000000002';

const members = new CompanyDirectory([
  {
    companyId: P,
    companyName: 'Parent Inc',
    consolidationMethod: 'FullConsolidation',
    functionalCurrency: 'USD',
  },
  {
    companyId: S,
    companyName: 'Sub GmbH',
    consolidationMethod: 'FullConsolidation',
    functionalCurrency: 'EUR',
  },
]);

function line(subName = 'Sub GmbH'): LineContributions {
  return {
    lineId: '1100',
    accountNumber: '1100',
    lineType: 'Account',
    companyId: null,
    aggregatedBalance: usd('1540.00'),
    eliminationAmount: usd('-40.00'),
    adjustmentAmount: usd('0.00'),
    nciAmount: usd('0.00'),
    consolidatedBalance: usd('1500.00'),
    companies: [
      {
        companyId: P,
        companyName: 'Parent Inc',
        consolidationMethod: 'FullConsolidation',
        functionalCurrency: 'USD',
        weight: '1',
        items: [
          {
            source: 'Account',
            accountNumber: '1100',
            basis: 'None',
            functionalBalance: usd('1000.00'),
            rates: [],
            ratesOmitted: 0,
            translatedAmount: usd('1000.00'),
          },
        ],
        amount: usd('1000.00'),
      },
      {
        companyId: S,
        companyName: subName,
        consolidationMethod: 'FullConsolidation',
        functionalCurrency: 'EUR',
        weight: '1',
        items: [
          {
            source: 'Account',
            accountNumber: '1105',
            basis: 'Closing',
            functionalBalance: { value: '500.00', currency: 'EUR' },
            rates: [{ rate: '1.08', appliedFor: '2025-12-31' }],
            ratesOmitted: 0,
            translatedAmount: usd('540.00'),
          },
        ],
        amount: usd('540.00'),
      },
    ],
    eliminations: [
      { source: 'Rule', eliminationRuleId: null, ruleName: 'IC', companyId: S, amount: usd('-40.00') },
    ],
    adjustments: [],
    nci: usd('0.00'),
    unattributed: { aggregated: usd('0.00'), elimination: usd('0.00'), adjustment: usd('0.00') },
  };
}

const roundTrip = (l: LineContributions, dir?: CompanyDirectory) =>
  unpackLine(JSON.parse(JSON.stringify(packLine(l, 'USD', dir))) as PackedLine, l, 'USD', dir);

describe('stored contributions', () => {
  it('keep every fact, with or without the run members', () => {
    expect(roundTrip(line(), members)).toEqual(line());
    expect(roundTrip(line())).toEqual(line());
  });

  it('name a member by its index only when the contribution says the same of it', () => {
    const packed = packLine(line('Sub GmbH (renamed)'), 'USD', members);
    const companies = packed[4];
    expect(companies[0]![0]).toBe(0);
    expect(companies[1]![0]).toEqual([S, 'Sub GmbH (renamed)', 0, 'EUR']);
    // an item on the line's own account leaves its number out; another account keeps it
    expect(companies[0]![3][0]![1]).toBeNull();
    expect(companies[1]![3][0]![1]).toBe('1105');
    expect(roundTrip(line('Sub GmbH (renamed)'), members)).toEqual(line('Sub GmbH (renamed)'));
  });

  it('read lines stored in the first version of the form', () => {
    const v1: PackedLine = [
      1,
      'Account',
      null,
      ['1540.00', '-40.00', '0.00', '0.00', '1500.00', '0.00', '0.00', '0.00', '0.00'],
      [
        [P, 'Parent Inc', 0, 'USD', '1', '1000.00', [[0, '1100', 3, '1000.00', [], 0, '1000.00']]],
        [S, 'Sub GmbH', 0, 'EUR', '1', '540.00', [[0, '1105', 0, '500.00', [0], 0, '540.00']]],
      ],
      [[0, null, 'IC', S, '-40.00']],
      [],
      [['1.08', '2025-12-31']],
    ];
    expect(unpackLine(v1, { lineId: '1100', accountNumber: '1100' }, 'USD', members)).toEqual(line());
  });

  it('refuse a member index the run does not have', () => {
    const packed = packLine(line(), 'USD', members);
    expect(() => unpackLine(packed, line(), 'USD', new CompanyDirectory([]))).toThrow(/member 0/);
  });
});
