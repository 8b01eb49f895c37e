/**
 * The fiscal calendar of a company.
 *
 * A calendar is defined by its `fiscalYearEnd {month, day}`. `day` may be 1–31 whatever the month; when
 * the day does not exist in a given year the month's last day is used.
 *
 * - E(Y), the end of fiscal year Y, is `Y-month-min(day, last day of month in Y)`.
 * - S(Y), the start of fiscal year Y, is E(Y−1) + 1 day. A year is named by the calendar year it ends in.
 * - Period 1 runs from S(Y) to the end of S(Y)'s calendar month, periods 2–11 are the next ten whole
 *   calendar months, and period 12 runs from the first day of the following month to E(Y).
 * - Period 13 is the adjustment period, dated E(Y)…E(Y).
 *
 * Why periods 1–12 always cover [S(Y), E(Y)] exactly: S(Y) is either the 1st of the month after month m
 * (when E(Y−1) was a month end), so period 12 is month m of year Y, or a day inside month m of year Y−1
 * (when E(Y−1) was not a month end), so period 12 runs from the 1st of month m−1 to E(Y) in month m.
 * Either way E(Y) lies in or after the month in which period 12 starts. The property tests check this.
 *
 * The functions only compute: they accept any year (callers enforce the 1900–2999 range, and for a
 * non-December year end FY1900 starts in 1899).
 */
import { addDays, daysInMonth, type IsoDate, lastDayOfMonth, makeDate, parts } from './dates.ts';

export type FiscalYearEnd = { month: number; day: number };

export type PeriodType = 'Regular' | 'Adjustment';

export type FiscalPeriodDefinition = {
  /** 1–13 */
  periodNumber: number;
  name: string;
  periodType: PeriodType;
  startDate: IsoDate;
  endDate: IsoDate;
};

export type DateRange = { startDate: IsoDate; endDate: IsoDate };

export const REGULAR_PERIOD_COUNT = 12;
export const ADJUSTMENT_PERIOD = 13;

/** True for a well-formed year end: integer month 1–12 and integer day 1–31 (any month). */
export function isValidFiscalYearEnd(value: unknown): value is FiscalYearEnd {
  if (typeof value !== 'object' || value === null) return false;
  const { month, day } = value as Record<string, unknown>;
  return (
    Number.isInteger(month) &&
    Number.isInteger(day) &&
    (month as number) >= 1 &&
    (month as number) <= 12 &&
    (day as number) >= 1 &&
    (day as number) <= 31
  );
}

function assertFiscalYearEnd(fye: FiscalYearEnd): void {
  if (!isValidFiscalYearEnd(fye)) {
    throw new RangeError(`Invalid fiscal year end ${JSON.stringify(fye)}`);
  }
}

/** Date arithmetic (`dates.ts`) is exact for years 100–9999; the service itself uses 1900–2999. */
function assertYear(year: number): void {
  if (!Number.isInteger(year) || year < 100 || year > 9998) {
    throw new RangeError(`Invalid fiscal year ${year}`);
  }
}

/** E(Y): the last day of fiscal year `year`. */
export function fiscalYearEndDate(fye: FiscalYearEnd, year: number): IsoDate {
  assertFiscalYearEnd(fye);
  assertYear(year);
  return makeDate(year, fye.month, Math.min(fye.day, daysInMonth(year, fye.month)));
}

/** S(Y) = E(Y−1) + 1 day: the first day of fiscal year `year`. */
export function fiscalYearStartDate(fye: FiscalYearEnd, year: number): IsoDate {
  return addDays(fiscalYearEndDate(fye, year - 1), 1);
}

/** [S(Y), E(Y)]. */
export function fiscalYearRange(fye: FiscalYearEnd, year: number): DateRange {
  return { startDate: fiscalYearStartDate(fye, year), endDate: fiscalYearEndDate(fye, year) };
}

/** The fiscal year containing `date`: its calendar year if `date ≤ E(date.year)`, else the next one. */
export function fiscalYearOf(fye: FiscalYearEnd, date: IsoDate): number {
  const { year } = parts(date);
  return date <= fiscalYearEndDate(fye, year) ? year : year + 1;
}

/** `"FY 2026"`: the default name of an automatically created fiscal year. */
export function defaultFiscalYearName(year: number): string {
  return `FY ${year}`;
}

/** `"Period 1"` … `"Period 12"`, `"Period 13 (Adjustment)"`. */
export function periodName(periodNumber: number): string {
  return periodNumber === ADJUSTMENT_PERIOD ? 'Period 13 (Adjustment)' : `Period ${periodNumber}`;
}

/** Months since year 0 (January of year 0 = 0), for month arithmetic. */
function monthIndex(date: IsoDate): number {
  const { year, month } = parts(date);
  return year * 12 + (month - 1);
}

function firstOfMonthIndex(index: number): IsoDate {
  return makeDate(Math.floor(index / 12), (index % 12) + 1, 1);
}

function lastOfMonthIndex(index: number): IsoDate {
  return lastDayOfMonth(Math.floor(index / 12), (index % 12) + 1);
}

function assertPeriod(period: number): void {
  if (!Number.isInteger(period) || period < 1 || period > ADJUSTMENT_PERIOD) {
    throw new RangeError(`Invalid fiscal period ${period}`);
  }
}

/** The date range of period 1–13 of fiscal year `year`; period 13 is {E(Y), E(Y)}. */
export function periodRange(fye: FiscalYearEnd, year: number, period: number): DateRange {
  assertPeriod(period);
  const end = fiscalYearEndDate(fye, year);
  if (period === ADJUSTMENT_PERIOD) return { startDate: end, endDate: end };
  const start = fiscalYearStartDate(fye, year);
  const first = monthIndex(start);
  const startDate = period === 1 ? start : firstOfMonthIndex(first + period - 1);
  const endDate = period === REGULAR_PERIOD_COUNT ? end : lastOfMonthIndex(first + period - 1);
  return { startDate, endDate };
}

/**
 * The range used by period-based exchange-rate lookups: periods 1–12 as
 * `periodRange`, period 13 the whole fiscal year [S(Y), E(Y)].
 */
export function periodLookupRange(fye: FiscalYearEnd, year: number, period: number): DateRange {
  assertPeriod(period);
  return period === ADJUSTMENT_PERIOD ? fiscalYearRange(fye, year) : periodRange(fye, year, period);
}

/** The 13 periods of fiscal year `year`, in order: 12 regular periods, then the adjustment period. */
export function periodsOfYear(fye: FiscalYearEnd, year: number): FiscalPeriodDefinition[] {
  const periods: FiscalPeriodDefinition[] = [];
  for (let n = 1; n <= ADJUSTMENT_PERIOD; n++) {
    periods.push({
      periodNumber: n,
      name: periodName(n),
      periodType: n === ADJUSTMENT_PERIOD ? 'Adjustment' : 'Regular',
      ...periodRange(fye, year, n),
    });
  }
  return periods;
}

/** The fiscal year and regular period (1–12) containing `date`. Period 13 is never returned. */
export function periodOf(fye: FiscalYearEnd, date: IsoDate): { year: number; period: number } {
  const year = fiscalYearOf(fye, date);
  const monthsFromStart = monthIndex(date) - monthIndex(fiscalYearStartDate(fye, year));
  // Period 12 may span two calendar months (year end not at a month end), hence the cap.
  return { year, period: Math.min(monthsFromStart + 1, REGULAR_PERIOD_COUNT) };
}
