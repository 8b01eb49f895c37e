import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, daysBetween, isValidDate, lastDayOfMonth, parts } from '../../src/domain/dates.ts';
import {
  defaultFiscalYearName,
  type FiscalYearEnd,
  fiscalYearEndDate,
  fiscalYearOf,
  fiscalYearRange,
  fiscalYearStartDate,
  isValidFiscalYearEnd,
  periodLookupRange,
  periodOf,
  periodRange,
  periodsOfYear,
} from '../../src/domain/fiscal-calendar.ts';

const fye = (month: number, day: number): FiscalYearEnd => ({ month, day });

/** Regular periods 1–12 as [start, end] pairs. */
function regularRanges(f: FiscalYearEnd, year: number): Array<[string, string]> {
  return periodsOfYear(f, year)
    .slice(0, 12)
    .map((p) => [p.startDate, p.endDate]);
}

describe('contract 3.6.1 examples', () => {
  it('{12, 31}: FY2026 is the calendar year 2026, period 1 = January', () => {
    const f = fye(12, 31);
    expect(fiscalYearRange(f, 2026)).toEqual({ startDate: '2026-01-01', endDate: '2026-12-31' });
    expect(periodRange(f, 2026, 1)).toEqual({ startDate: '2026-01-01', endDate: '2026-01-31' });
    expect(periodRange(f, 2026, 12)).toEqual({ startDate: '2026-12-01', endDate: '2026-12-31' });
    expect(periodOf(f, '2026-12-31')).toEqual({ year: 2026, period: 12 });
    expect(periodOf(f, '2027-01-01')).toEqual({ year: 2027, period: 1 });
  });

  it('{6, 30}: FY2026 = 2025-07-01…2026-06-30, period 1 = July 2025, 2025-07-15 is FY2026 period 1', () => {
    const f = fye(6, 30);
    expect(fiscalYearStartDate(f, 2026)).toBe('2025-07-01');
    expect(fiscalYearEndDate(f, 2026)).toBe('2026-06-30');
    expect(periodRange(f, 2026, 1)).toEqual({ startDate: '2025-07-01', endDate: '2025-07-31' });
    expect(periodOf(f, '2025-07-15')).toEqual({ year: 2026, period: 1 });
    // 2025-06-30 ≤ E(2025) = 2025-06-30, so it is FY2025; June is the 12th month from July.
    expect(periodOf(f, '2025-06-30')).toEqual({ year: 2025, period: 12 });
    // January 2026 is the 7th month from July 2025.
    expect(periodRange(f, 2026, 7)).toEqual({ startDate: '2026-01-01', endDate: '2026-01-31' });
  });

  it('{3, 15}: FY2026 = 2025-03-16…2026-03-15, period 1 = 2025-03-16…31, period 12 = 2026-02-01…2026-03-15', () => {
    const f = fye(3, 15);
    expect(fiscalYearRange(f, 2026)).toEqual({ startDate: '2025-03-16', endDate: '2026-03-15' });
    expect(periodRange(f, 2026, 1)).toEqual({ startDate: '2025-03-16', endDate: '2025-03-31' });
    expect(periodRange(f, 2026, 2)).toEqual({ startDate: '2025-04-01', endDate: '2025-04-30' });
    // Periods 2–11 are April 2025 … January 2026.
    expect(periodRange(f, 2026, 11)).toEqual({ startDate: '2026-01-01', endDate: '2026-01-31' });
    expect(periodRange(f, 2026, 12)).toEqual({ startDate: '2026-02-01', endDate: '2026-03-15' });
    expect(periodOf(f, '2026-03-10')).toEqual({ year: 2026, period: 12 });
    expect(periodOf(f, '2026-02-01')).toEqual({ year: 2026, period: 12 });
    expect(periodOf(f, '2026-03-16')).toEqual({ year: 2027, period: 1 });
    expect(periodOf(f, '2025-03-15')).toEqual({ year: 2025, period: 12 });
  });
});

describe('periodsOfYear', () => {
  it('returns 13 periods with contract names, period 13 the adjustment period dated E(Y)…E(Y)', () => {
    const periods = periodsOfYear(fye(6, 30), 2026);
    expect(periods).toHaveLength(13);
    expect(periods.map((p) => p.periodNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(periods.map((p) => p.name)).toEqual([
      'Period 1',
      'Period 2',
      'Period 3',
      'Period 4',
      'Period 5',
      'Period 6',
      'Period 7',
      'Period 8',
      'Period 9',
      'Period 10',
      'Period 11',
      'Period 12',
      'Period 13 (Adjustment)',
    ]);
    expect(periods.slice(0, 12).every((p) => p.periodType === 'Regular')).toBe(true);
    expect(periods[12]).toEqual({
      periodNumber: 13,
      name: 'Period 13 (Adjustment)',
      periodType: 'Adjustment',
      startDate: '2026-06-30',
      endDate: '2026-06-30',
    });
  });

  it('{12, 31} FY2024 has the twelve calendar months of 2024', () => {
    const expected = Array.from({ length: 12 }, (_, i) => [
      `2024-${String(i + 1).padStart(2, '0')}-01`,
      lastDayOfMonth(2024, i + 1),
    ]);
    expect(regularRanges(fye(12, 31), 2024)).toEqual(expected);
  });
});

describe('day clamping and leap years', () => {
  it('{2, 29}: E is 29 Feb in leap years and 28 Feb otherwise; the year always starts on 1 March', () => {
    const f = fye(2, 29);
    expect(fiscalYearEndDate(f, 2024)).toBe('2024-02-29');
    expect(fiscalYearEndDate(f, 2025)).toBe('2025-02-28');
    expect(fiscalYearEndDate(f, 1900)).toBe('1900-02-28'); // 1900 is not a leap year
    expect(fiscalYearEndDate(f, 2000)).toBe('2000-02-29'); // 2000 is
    // FY2025 = E(2024) + 1 … E(2025) = 2024-03-01 … 2025-02-28
    expect(fiscalYearRange(f, 2025)).toEqual({ startDate: '2024-03-01', endDate: '2025-02-28' });
    expect(periodRange(f, 2024, 12)).toEqual({ startDate: '2024-02-01', endDate: '2024-02-29' });
    expect(periodRange(f, 2025, 1)).toEqual({ startDate: '2024-03-01', endDate: '2024-03-31' });
    expect(periodOf(f, '2024-02-29')).toEqual({ year: 2024, period: 12 });
    expect(fiscalYearOf(f, '2025-03-01')).toBe(2026);
  });

  it('{2, 30} behaves like {2, 29}', () => {
    for (const year of [1900, 2000, 2023, 2024, 2025, 2100]) {
      expect(periodsOfYear(fye(2, 30), year)).toEqual(periodsOfYear(fye(2, 29), year));
    }
  });

  it('{2, 28}: after a leap year the year starts on 29 Feb and period 1 is that single day', () => {
    const f = fye(2, 28);
    // E(2024) = 2024-02-28 (the day exists), so S(2025) = 2024-02-29.
    expect(fiscalYearRange(f, 2025)).toEqual({ startDate: '2024-02-29', endDate: '2025-02-28' });
    expect(periodRange(f, 2025, 1)).toEqual({ startDate: '2024-02-29', endDate: '2024-02-29' });
    expect(periodRange(f, 2025, 2)).toEqual({ startDate: '2024-03-01', endDate: '2024-03-31' });
    expect(periodRange(f, 2025, 11)).toEqual({ startDate: '2024-12-01', endDate: '2024-12-31' });
    expect(periodRange(f, 2025, 12)).toEqual({ startDate: '2025-01-01', endDate: '2025-02-28' });
    // 2024-02-29 > E(2024) = 2024-02-28, so it belongs to FY2025.
    expect(periodOf(f, '2024-02-29')).toEqual({ year: 2025, period: 1 });
    // E(2023) = 2023-02-28 is a month end, so FY2024 starts on 1 March and period 12 is February.
    expect(periodRange(f, 2024, 1)).toEqual({ startDate: '2023-03-01', endDate: '2023-03-31' });
    expect(periodRange(f, 2024, 12)).toEqual({ startDate: '2024-02-01', endDate: '2024-02-28' });
  });

  it('{4, 31} clamps to 30 April every year', () => {
    const f = fye(4, 31);
    expect(fiscalYearRange(f, 2026)).toEqual({ startDate: '2025-05-01', endDate: '2026-04-30' });
    expect(periodRange(f, 2026, 1)).toEqual({ startDate: '2025-05-01', endDate: '2025-05-31' });
    expect(periodRange(f, 2026, 12)).toEqual({ startDate: '2026-04-01', endDate: '2026-04-30' });
    expect(periodRange(f, 2026, 13)).toEqual({ startDate: '2026-04-30', endDate: '2026-04-30' });
  });

  it('{1, 31}: the year starts on 1 February, period 12 is January', () => {
    const f = fye(1, 31);
    expect(periodRange(f, 2026, 1)).toEqual({ startDate: '2025-02-01', endDate: '2025-02-28' });
    expect(periodRange(f, 2026, 12)).toEqual({ startDate: '2026-01-01', endDate: '2026-01-31' });
  });

  it('{1, 15}: period 12 crosses the calendar year end (2025-12-01…2026-01-15)', () => {
    const f = fye(1, 15);
    expect(periodRange(f, 2026, 1)).toEqual({ startDate: '2025-01-16', endDate: '2025-01-31' });
    expect(periodRange(f, 2026, 11)).toEqual({ startDate: '2025-11-01', endDate: '2025-11-30' });
    expect(periodRange(f, 2026, 12)).toEqual({ startDate: '2025-12-01', endDate: '2026-01-15' });
    expect(periodOf(f, '2025-12-31')).toEqual({ year: 2026, period: 12 });
  });

  it('{12, 15}: FY2026 = 2025-12-16…2026-12-15, period 12 = 2026-11-01…2026-12-15', () => {
    const f = fye(12, 15);
    expect(periodRange(f, 2026, 1)).toEqual({ startDate: '2025-12-16', endDate: '2025-12-31' });
    expect(periodRange(f, 2026, 2)).toEqual({ startDate: '2026-01-01', endDate: '2026-01-31' });
    expect(periodRange(f, 2026, 12)).toEqual({ startDate: '2026-11-01', endDate: '2026-12-15' });
    expect(fiscalYearOf(f, '2026-12-16')).toBe(2027);
  });

  it('{1, 1}: the year runs 2 January … 1 January; period 12 = December … 1 January', () => {
    const f = fye(1, 1);
    expect(periodRange(f, 2026, 1)).toEqual({ startDate: '2025-01-02', endDate: '2025-01-31' });
    expect(periodRange(f, 2026, 12)).toEqual({ startDate: '2025-12-01', endDate: '2026-01-01' });
  });

  it('FY1900 of a non-December year end starts in 1899', () => {
    expect(fiscalYearRange(fye(6, 30), 1900)).toEqual({ startDate: '1899-07-01', endDate: '1900-06-30' });
    expect(fiscalYearRange(fye(12, 31), 2999)).toEqual({ startDate: '2999-01-01', endDate: '2999-12-31' });
    expect(fiscalYearOf(fye(6, 30), '2999-12-31')).toBe(3000);
  });
});

describe('periodLookupRange', () => {
  it('period 13 is the whole fiscal year; periods 1–12 are their own ranges', () => {
    const f = fye(3, 15);
    expect(periodLookupRange(f, 2026, 13)).toEqual({ startDate: '2025-03-16', endDate: '2026-03-15' });
    for (let p = 1; p <= 12; p++) expect(periodLookupRange(f, 2026, p)).toEqual(periodRange(f, 2026, p));
  });
});

describe('names and validation', () => {
  it('defaultFiscalYearName', () => {
    expect(defaultFiscalYearName(2026)).toBe('FY 2026');
  });

  it('isValidFiscalYearEnd accepts day 1–31 in every month and nothing else', () => {
    expect(isValidFiscalYearEnd({ month: 2, day: 31 })).toBe(true);
    expect(isValidFiscalYearEnd({ month: 12, day: 31 })).toBe(true);
    expect(isValidFiscalYearEnd({ month: 0, day: 1 })).toBe(false);
    expect(isValidFiscalYearEnd({ month: 13, day: 1 })).toBe(false);
    expect(isValidFiscalYearEnd({ month: 1, day: 0 })).toBe(false);
    expect(isValidFiscalYearEnd({ month: 1, day: 32 })).toBe(false);
    expect(isValidFiscalYearEnd({ month: 1.5, day: 1 })).toBe(false);
    expect(isValidFiscalYearEnd({ month: '1', day: 1 })).toBe(false);
    expect(isValidFiscalYearEnd(null)).toBe(false);
  });

  it('rejects invalid periods and year ends with RangeError', () => {
    expect(() => periodRange(fye(12, 31), 2026, 0)).toThrow(RangeError);
    expect(() => periodRange(fye(12, 31), 2026, 14)).toThrow(RangeError);
    expect(() => periodLookupRange(fye(12, 31), 2026, 1.5)).toThrow(RangeError);
    expect(() => fiscalYearEndDate(fye(13, 1), 2026)).toThrow(RangeError);
    expect(() => fiscalYearEndDate(fye(2, 0), 2026)).toThrow(RangeError);
  });
});

describe('properties (any year end, years 1900–2999)', () => {
  const arbFye = fc.record({ month: fc.integer({ min: 1, max: 12 }), day: fc.integer({ min: 1, max: 31 }) });
  const arbYear = fc.integer({ min: 1900, max: 2999 });
  const FIRST = '1900-01-01';
  const arbDate = fc
    .integer({ min: 0, max: daysBetween(FIRST, '2999-12-31') })
    .map((offset) => addDays(FIRST, offset));

  it('E(Y) is a valid date in the year-end month of year Y, with the day clamped to the month', () => {
    fc.assert(
      fc.property(arbFye, arbYear, (f, y) => {
        const e = fiscalYearEndDate(f, y);
        const p = parts(e);
        expect(isValidDate(e)).toBe(true);
        expect(p.year).toBe(y);
        expect(p.month).toBe(f.month);
        expect(p.day).toBe(Math.min(f.day, Number(lastDayOfMonth(y, f.month).slice(8))));
      }),
    );
  });

  it('periods 1–12 are contiguous, non-empty and cover exactly [S(Y), E(Y)]', () => {
    fc.assert(
      fc.property(arbFye, arbYear, (f, y) => {
        const ranges = regularRanges(f, y);
        expect(ranges[0]?.[0]).toBe(fiscalYearStartDate(f, y));
        expect(ranges[11]?.[1]).toBe(fiscalYearEndDate(f, y));
        ranges.forEach(([start, end], i) => {
          expect(start <= end).toBe(true);
          const next = ranges[i + 1];
          if (next) expect(next[0]).toBe(addDays(end, 1));
        });
      }),
    );
  });

  it('period 1 ends at a month end, periods 2–11 are whole calendar months, period 12 starts on the 1st', () => {
    fc.assert(
      fc.property(arbFye, arbYear, (f, y) => {
        const ranges = regularRanges(f, y);
        ranges.forEach(([start, end], i) => {
          const s = parts(start);
          if (i > 0) expect(s.day).toBe(1);
          if (i < 11) expect(end).toBe(lastDayOfMonth(s.year, s.month));
        });
      }),
    );
  });

  it('period 13 is dated E(Y)…E(Y) and its lookup range is the whole year', () => {
    fc.assert(
      fc.property(arbFye, arbYear, (f, y) => {
        const e = fiscalYearEndDate(f, y);
        expect(periodsOfYear(f, y)[12]).toMatchObject({ periodType: 'Adjustment', startDate: e, endDate: e });
        expect(periodLookupRange(f, y, 13)).toEqual(fiscalYearRange(f, y));
      }),
    );
  });

  it('consecutive years neither overlap nor leave gaps, and every year has 365 or 366 days', () => {
    fc.assert(
      fc.property(arbFye, arbYear, (f, y) => {
        expect(fiscalYearStartDate(f, y + 1)).toBe(addDays(fiscalYearEndDate(f, y), 1));
        const days = daysBetween(fiscalYearStartDate(f, y), fiscalYearEndDate(f, y)) + 1;
        expect([365, 366]).toContain(days);
      }),
    );
  });

  it('every date of a fiscal year falls in exactly one of periods 1–12, the one periodOf returns', () => {
    fc.assert(
      fc.property(arbFye, arbYear, fc.integer({ min: 0, max: 365 }), (f, y, offset) => {
        const { startDate, endDate } = fiscalYearRange(f, y);
        const date = addDays(startDate, Math.min(offset, daysBetween(startDate, endDate)));
        const containing = regularRanges(f, y)
          .map(([s, e], i) => ({ period: i + 1, hit: s <= date && date <= e }))
          .filter((r) => r.hit);
        expect(containing).toHaveLength(1);
        expect(fiscalYearOf(f, date)).toBe(y);
        expect(periodOf(f, date)).toEqual({ year: y, period: containing[0]?.period });
      }),
    );
  });

  it('fiscalYearOf and periodOf of any date agree with the year and period ranges', () => {
    fc.assert(
      fc.property(arbFye, arbDate, (f, date) => {
        const y = fiscalYearOf(f, date);
        expect(y === parts(date).year || y === parts(date).year + 1).toBe(true);
        const year = fiscalYearRange(f, y);
        expect(year.startDate <= date && date <= year.endDate).toBe(true);
        const { year: py, period } = periodOf(f, date);
        expect(py).toBe(y);
        expect(period >= 1 && period <= 12).toBe(true);
        const range = periodRange(f, y, period);
        expect(range.startDate <= date && date <= range.endDate).toBe(true);
      }),
    );
  });
});
