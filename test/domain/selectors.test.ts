import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isValidPattern,
  matchesPattern,
  matchesPatternText,
  parsePattern,
} from '../../src/domain/selectors.ts';

describe('parsePattern (3.11.2)', () => {
  it('parses the three documented forms', () => {
    expect(parsePattern('1300')).toEqual({ kind: 'exact', text: '1300', accountNumber: '1300' });
    expect(parsePattern('13*')).toEqual({ kind: 'prefix', text: '13*', prefix: '13' });
    expect(parsePattern('1*')).toEqual({ kind: 'prefix', text: '1*', prefix: '1' });
    expect(parsePattern('1300-1399')).toEqual({
      kind: 'range',
      text: '1300-1399',
      low: '1300',
      high: '1399',
    });
    expect(parsePattern('1300-1300')?.kind).toBe('range');
    expect(parsePattern('9999-10000')?.kind).toBe('range'); // numeric, not textual, comparison
    expect(parsePattern('1234567890')?.kind).toBe('exact');
    expect(parsePattern('1234567890*')?.kind).toBe('prefix');
  });

  it.each([
    '*',
    '13**',
    '1399-1300',
    'ab',
    '13 00',
    '',
    '0130',
    '130',
    '12345678901',
    '01*',
    '*13',
    '1*3',
    '12345678901*',
    '1300-',
    '-1300',
    '1300-1399-1400',
    '130-1399',
    '1300 - 1399',
    ' 1300',
    '1300\n',
    '10000-9999',
  ])('rejects %j', (text) => {
    expect(parsePattern(text)).toBeNull();
    expect(isValidPattern(text)).toBe(false);
  });
});

describe('matchesPattern', () => {
  it('matches exact, prefix and range patterns', () => {
    const exact = parsePattern('1300')!;
    expect(matchesPattern(exact, '1300')).toBe(true);
    expect(matchesPattern(exact, '13000')).toBe(false);
    const prefix = parsePattern('13*')!;
    expect(matchesPattern(prefix, '1300')).toBe(true);
    expect(matchesPattern(prefix, '139999')).toBe(true);
    expect(matchesPattern(prefix, '1400')).toBe(false);
    expect(matchesPattern(prefix, '3130')).toBe(false);
    const range = parsePattern('1300-1399')!;
    expect(matchesPattern(range, '1300')).toBe(true);
    expect(matchesPattern(range, '1399')).toBe(true);
    expect(matchesPattern(range, '1350')).toBe(true);
    expect(matchesPattern(range, '1400')).toBe(false);
    expect(matchesPattern(range, '13000')).toBe(false); // 13000 > 1399 as integers
    const wide = parsePattern('9999-10000')!;
    expect(matchesPattern(wide, '10000')).toBe(true);
    expect(matchesPattern(wide, '9999')).toBe(true);
  });

  it('never matches synthetic line keys', () => {
    expect(matchesPatternText('1*', 'CTA')).toBe(false);
    expect(matchesPatternText('1000-9999', 'RETAINED_EARNINGS')).toBe(false);
    expect(matchesPatternText('bad', '1300')).toBe(false);
  });

  it('property: a range matches exactly the numbers between its bounds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1000, max: 9_999_999 }),
        fc.integer({ min: 1000, max: 9_999_999 }),
        fc.integer({ min: 1000, max: 9_999_999 }),
        (a, b, n) => {
          const [low, high] = a <= b ? [a, b] : [b, a];
          const p = parsePattern(`${low}-${high}`)!;
          expect(matchesPattern(p, String(n))).toBe(n >= low && n <= high);
        },
      ),
    );
  });

  it('property: a prefix pattern matches exactly the numbers starting with its digits', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 99_999 }),
        fc.integer({ min: 1000, max: 999_999_999 }),
        (prefix, n) => {
          const p = parsePattern(`${prefix}*`)!;
          expect(matchesPattern(p, String(n))).toBe(String(n).startsWith(String(prefix)));
        },
      ),
    );
  });
});
