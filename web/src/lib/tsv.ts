/**
 * Exchange rates pasted from a spreadsheet: one rate per row, cells separated by tabs (what a copy of
 * spreadsheet cells gives), in the order from, to, rate, date, type, source — type and source may be
 * left out (Spot, Manual). A header row is recognised and skipped. Decimal commas ("1,0850") and
 * day.month.year dates ("31.01.2026") are accepted as spreadsheets in many locales write them.
 */
export interface PastedRate {
  row: number;
  fromCurrency: string;
  toCurrency: string;
  rate: string;
  effectiveDate: string;
  rateType: string;
  source: string;
  problems: string[];
}

const RATE_TYPES = ['Spot', 'Average', 'Historical', 'YearEnd'];
const SOURCES = ['Manual', 'CentralBankEU', 'CentralBankUS', 'System'];

function normalizeRate(cell: string): string {
  const v = cell.replace(/\s/g, '');
  if (v.includes(',') && !v.includes('.')) return v.replace(',', '.');
  return v.replace(/,/g, '');
}

function normalizeDate(cell: string): string {
  const v = cell.trim();
  const dotted = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(v);
  if (dotted) return `${dotted[3]}-${dotted[2]!.padStart(2, '0')}-${dotted[1]!.padStart(2, '0')}`;
  const slashed = /^(\d{4})\/(\d{1,2})\/(\d{1,2})$/.exec(v);
  if (slashed) return `${slashed[1]}-${slashed[2]!.padStart(2, '0')}-${slashed[3]!.padStart(2, '0')}`;
  return v;
}

function matchEnum(cell: string, values: string[], fallback: string): string {
  const v = cell.trim();
  if (!v) return fallback;
  return values.find((x) => x.toLowerCase() === v.toLowerCase().replace(/[\s_-]/g, '')) ?? v;
}

export function parseRates(text: string): PastedRate[] {
  const rows: PastedRate[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((line, index) => {
    if (!line.trim()) return;
    const cells = line.split('\t').map((c) => c.trim());
    // A header row: its first cell is not a currency code.
    if (rows.length === 0 && !/^[A-Za-z]{3}$/.test(cells[0] ?? '')) return;
    const [from = '', to = '', rate = '', date = '', type = '', source = ''] = cells;
    const parsed: PastedRate = {
      row: index + 1,
      fromCurrency: from.toUpperCase(),
      toCurrency: to.toUpperCase(),
      rate: normalizeRate(rate),
      effectiveDate: normalizeDate(date),
      rateType: matchEnum(type, RATE_TYPES, 'Spot'),
      source: matchEnum(source, SOURCES, 'Manual'),
      problems: [],
    };
    if (!/^[A-Z]{3}$/.test(parsed.fromCurrency)) parsed.problems.push('from currency is not a code');
    if (!/^[A-Z]{3}$/.test(parsed.toCurrency)) parsed.problems.push('to currency is not a code');
    if (parsed.fromCurrency === parsed.toCurrency) parsed.problems.push('same currency on both sides');
    if (!/^\d{1,12}(\.\d{1,10})?$/.test(parsed.rate) || /^0+(\.0+)?$/.test(parsed.rate))
      parsed.problems.push('rate is not a positive number with at most 10 decimals');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(parsed.effectiveDate)) parsed.problems.push('date is not YYYY-MM-DD');
    if (!RATE_TYPES.includes(parsed.rateType))
      parsed.problems.push(`type must be one of ${RATE_TYPES.join(', ')}`);
    if (!SOURCES.includes(parsed.source)) parsed.problems.push(`source must be one of ${SOURCES.join(', ')}`);
    rows.push(parsed);
  });
  return rows;
}
