/** Calendar helpers for the statement date pickers (dates are YYYY-MM-DD strings, no time zone). */

const pad = (n: number) => String(n).padStart(2, '0');
const lastDay = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

/** First day of the company's fiscal year containing `date` (its calendar ends on fiscalYearEnd). */
export function fiscalYearStart(fye: { month: number; day: number }, date: string): string {
  const [y] = date.split('-').map(Number) as [number];
  const end = (year: number) =>
    `${year}-${pad(fye.month)}-${pad(Math.min(fye.day, lastDay(year, fye.month)))}`;
  const year = date <= end(y) ? y : y + 1;
  const prev = new Date(`${end(year - 1)}T00:00:00Z`);
  prev.setUTCDate(prev.getUTCDate() + 1);
  return prev.toISOString().slice(0, 10);
}

/** The same day a year earlier (29 February → 28 February). */
export function yearEarlier(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return `${y - 1}-${pad(m)}-${pad(Math.min(d, lastDay(y - 1, m)))}`;
}

/** The fiscal year (named by the year it ends in) and regular period (1–12) of a date. */
export function periodOf(
  fye: { month: number; day: number },
  date: string,
): { year: number; period: number } {
  const start = fiscalYearStart(fye, date);
  const [sy, sm] = start.split('-').map(Number) as [number, number];
  const [y, m] = date.split('-').map(Number) as [number, number];
  const period = Math.min(12, (y - sy) * 12 + (m - sm) + 1);
  const endYear = sm === 1 && start.endsWith('-01-01') ? sy : sy + 1;
  return { year: endYear, period };
}

/** The last day of the month before the one containing `date`. */
export function endOfPreviousMonth(date: string): string {
  const [y, m] = date.split('-').map(Number) as [number, number];
  const d = new Date(Date.UTC(y, m - 1, 0));
  return d.toISOString().slice(0, 10);
}
