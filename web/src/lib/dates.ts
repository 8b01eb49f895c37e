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
