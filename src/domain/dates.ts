/**
 * Calendar dates as `YYYY-MM-DD` strings. Dates have no time zone; arithmetic is done
 * on UTC midnights so that it never depends on the process time zone. Lexicographic comparison of
 * two valid date strings equals chronological comparison.
 */

export type IsoDate = string;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** True for an exact `YYYY-MM-DD` string naming a real Gregorian date within [minYear, maxYear]. */
export function isValidDate(value: string, minYear = 1900, maxYear = 2999): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  return y >= minYear && y <= maxYear && mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo);
}

export function parts(date: IsoDate): { year: number; month: number; day: number } {
  return { year: Number(date.slice(0, 4)), month: Number(date.slice(5, 7)), day: Number(date.slice(8, 10)) };
}

export function makeDate(year: number, month: number, day: number): IsoDate {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

export function addDays(date: IsoDate, days: number): IsoDate {
  const { year, month, day } = parts(date);
  const t = new Date(Date.UTC(year, month - 1, day));
  t.setUTCDate(t.getUTCDate() + days);
  return makeDate(t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate());
}

/** Whole days from `a` to `b` (positive when b is later). */
export function daysBetween(a: IsoDate, b: IsoDate): number {
  const pa = parts(a);
  const pb = parts(b);
  return Math.round(
    (Date.UTC(pb.year, pb.month - 1, pb.day) - Date.UTC(pa.year, pa.month - 1, pa.day)) / 86_400_000,
  );
}

export function lastDayOfMonth(year: number, month: number): IsoDate {
  return makeDate(year, month, daysInMonth(year, month));
}

export function minDate(a: IsoDate, b: IsoDate): IsoDate {
  return a <= b ? a : b;
}

export function maxDate(a: IsoDate, b: IsoDate): IsoDate {
  return a >= b ? a : b;
}

/** Today's date in an IANA time zone ("today" is in the organization's time zone). */
export function todayIn(timeZone: string, now: Date = new Date()): IsoDate {
  let fmt = dayFormats.get(timeZone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dayFormats.set(timeZone, fmt);
  }
  return fmt.format(now);
}

/**
 * One formatter per time zone, made on first use: a DateTimeFormat is costly to build and holds
 * native (ICU) memory that the JavaScript heap does not see, so one per call made the resident size
 * of a posting process climb by megabytes a second until a full collection.
 */
const dayFormats = new Map<string, Intl.DateTimeFormat>();
