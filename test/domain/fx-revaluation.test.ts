/** Period-end remeasurement (src/domain/fx-revaluation.ts), without a database. */
import { describe, expect, it } from 'vitest';
import { entryLineTotals, revaluationEntryLines, revalueBalances } from '../../src/domain/fx-revaluation.ts';
import { dec } from '../../src/domain/money.ts';

const rates: Record<string, string> = { EUR: '1.2', GBP: '1.45' };
const rateOf = (c: string) => (rates[c] ? { rate: dec(rates[c]!), rateIds: [`rate-${c}`] } : null);

describe('revalueBalances', () => {
  it('restates at the closing rate, rounded half away from zero to the functional minor unit', () => {
    const { lines, missing } = revalueBalances(
      [
        { accountId: 'ar', currency: 'GBP', foreignBalance: dec('2000'), carryingAmount: dec('2860') },
        { accountId: 'ap', currency: 'EUR', foreignBalance: dec('-10.005'), carryingAmount: dec('-11') },
      ],
      rateOf,
      'USD',
    );
    expect(missing).toEqual([]);
    expect(lines.map((l) => [l.revaluedAmount.toFixed(2), l.difference.toFixed(2), l.kind])).toEqual([
      ['2900.00', '40.00', 'Unrealized'],
      // −10.005 × 1.2 = −12.006 → −12.01
      ['-12.01', '-1.01', 'Unrealized'],
    ]);
  });

  it('a zero foreign balance with a carrying amount left is realised and needs no rate', () => {
    const { lines, missing } = revalueBalances(
      [{ accountId: 'ar', currency: 'CHF', foreignBalance: dec('0'), carryingAmount: dec('-140') }],
      rateOf,
      'USD',
    );
    expect(missing).toEqual([]);
    expect(lines[0]).toMatchObject({ kind: 'Realized', closingRate: null });
    expect(lines[0]!.difference.toFixed(2)).toBe('140.00');
  });

  it('lists the currencies without a rate once and leaves their balances out', () => {
    const { lines, missing } = revalueBalances(
      [
        { accountId: 'a', currency: 'JPY', foreignBalance: dec('5'), carryingAmount: dec('1') },
        { accountId: 'b', currency: 'JPY', foreignBalance: dec('6'), carryingAmount: dec('1') },
      ],
      rateOf,
      'USD',
    );
    expect(missing).toEqual(['JPY']);
    expect(lines).toEqual([]);
  });
});

describe('revaluationEntryLines', () => {
  it('books each difference on its account in its currency and the opposite net per kind', () => {
    const { lines } = revalueBalances(
      [
        { accountId: 'ar', currency: 'GBP', foreignBalance: dec('2000'), carryingAmount: dec('2860') },
        { accountId: 'ap', currency: 'EUR', foreignBalance: dec('-1000'), carryingAmount: dec('-1100') },
        { accountId: 'bank', currency: 'EUR', foreignBalance: dec('0'), carryingAmount: dec('3') },
        { accountId: 'same', currency: 'EUR', foreignBalance: dec('10'), carryingAmount: dec('12') },
      ],
      rateOf,
      'USD',
    );
    const byKind = revaluationEntryLines(lines, { unrealized: 'U', realized: 'R' });
    const show = (ls: typeof byKind.Unrealized) =>
      ls.map((l) => [l.accountId, l.side, l.amount.toFixed(2), l.currency]);
    // +40 on the receivable, −100 on the payable: a net loss of 60 debited to the unrealised account.
    expect(show(byKind.Unrealized)).toEqual([
      ['ar', 'debit', '40.00', 'GBP'],
      ['ap', 'credit', '100.00', 'EUR'],
      ['U', 'debit', '60.00', null],
    ]);
    expect(show(byKind.Realized)).toEqual([
      ['bank', 'credit', '3.00', 'EUR'],
      ['R', 'debit', '3.00', null],
    ]);
    for (const kind of ['Unrealized', 'Realized'] as const) {
      const { debits, credits } = entryLineTotals(byKind[kind]);
      expect(debits.equals(credits)).toBe(true);
    }
  });
});
