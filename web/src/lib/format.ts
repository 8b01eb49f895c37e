/**
 * Display formats. Amounts arrive as exact decimal strings with the currency's minor-unit digits;
 * they are formatted from the string itself (Intl.NumberFormat formats decimal strings exactly, never
 * through binary floating point), in the organization's locale.
 */
import type { Money } from '../api/types.ts';

let locale = 'en-US';
const formats = new Map<string, Intl.NumberFormat>();

/** The organization's `settings.defaultLocale`; falls back to en-US when the browser does not know it. */
export function setLocale(tag: string | undefined): void {
  try {
    locale = tag ? (Intl.getCanonicalLocales(tag)[0] ?? 'en-US') : 'en-US';
  } catch {
    locale = 'en-US';
  }
}

function numberFormat(digits: number, signDisplay: 'auto' | 'exceptZero' = 'auto'): Intl.NumberFormat {
  const key = `${locale}|${digits}|${signDisplay}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
      signDisplay,
    });
    formats.set(key, format);
  }
  return format;
}

/** Fraction digits written in a decimal string ("12.50" → 2, "1500" → 0). */
export function fractionDigits(value: string): number {
  const dot = value.indexOf('.');
  return dot < 0 ? 0 : value.length - dot - 1;
}

/** Minor-unit digits of a currency as the browser knows them (JPY 0, KWD 3, most others 2). */
export function currencyDigits(currency: string): number {
  try {
    return (
      new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ??
      2
    );
  } catch {
    return 2;
  }
}

/**
 * An amount kept with more decimals than its currency writes ("80000.00000000 EUR") as the currency
 * writes it ("80000.00"): only zeros past the minor unit are dropped, so nothing is rounded away.
 */
export function inMinorUnits(m: Money): Money {
  const digits = currencyDigits(m.currency);
  const [whole, fraction = ''] = m.value.split('.');
  const kept = fraction.replace(/0+$/, '').padEnd(digits, '0');
  return { value: kept ? `${whole}.${kept}` : whole!, currency: m.currency };
}

/** "1234567.5" → "1,234,567.50" with the digits of the string (or of `digits`). */
export function formatAmount(value: string, digits = fractionDigits(value)): string {
  if (!/^-?\d+(\.\d+)?$/.test(value)) return value;
  return numberFormat(digits).format(value as unknown as number);
}

export function formatMoney(money: Money | null | undefined, withCurrency = false): string {
  if (!money) return '—';
  const text = formatAmount(money.value);
  return withCurrency ? `${text} ${money.currency}` : text;
}

export function isNegative(value: string): boolean {
  return value.startsWith('-') && /[1-9]/.test(value);
}

export function isZero(value: string): boolean {
  return !/[1-9]/.test(value);
}

/** "80.00" → "80 %", "33.33" → "33.33 %". */
export function formatPercent(value: string): string {
  const trimmed = value.includes('.') ? value.replace(/0+$/, '').replace(/\.$/, '') : value;
  return `${trimmed} %`;
}

export function formatTimestamp(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** Today's date as YYYY-MM-DD in the browser's time zone. */
export function today(): string {
  const d = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Splits "PendingApproval" into "Pending approval". */
export function humanize(value: string): string {
  const words = value.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
