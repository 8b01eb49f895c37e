/**
 * Account selector patterns of elimination rules.
 *
 * | Form              | Syntax                                   | Matches account number N when |
 * |-------------------|------------------------------------------|-------------------------------|
 * | exact             | `^[1-9][0-9]{3,9}$`                      | N equals it                   |
 * | trailing wildcard | `^[1-9][0-9]{0,9}\*$`                    | N starts with the digits      |
 * | range             | `<low>-<high>`, both exact, low ≤ high   | low ≤ N ≤ high as integers    |
 *
 * Anything else (`"*"`, `"13**"`, `"1399-1300"`, `"ab"`, `"13 00"`) is invalid.
 */

export type AccountPattern =
  | { kind: 'exact'; text: string; accountNumber: string }
  | { kind: 'prefix'; text: string; prefix: string }
  | { kind: 'range'; text: string; low: string; high: string };

const EXACT = /^[1-9][0-9]{3,9}$/;
const PREFIX = /^([1-9][0-9]{0,9})\*$/;
const RANGE = /^([1-9][0-9]{3,9})-([1-9][0-9]{3,9})$/;

/** Parses a selector pattern; `null` when the text is not one of the three documented forms. */
export function parsePattern(text: string): AccountPattern | null {
  if (typeof text !== 'string') return null;
  if (EXACT.test(text)) return { kind: 'exact', text, accountNumber: text };
  const prefix = PREFIX.exec(text);
  if (prefix) return { kind: 'prefix', text, prefix: prefix[1]! };
  const range = RANGE.exec(text);
  if (range) {
    const low = range[1]!;
    const high = range[2]!;
    // At most 10 digits: well within the exact integer range of a JS number.
    if (Number(low) > Number(high)) return null;
    return { kind: 'range', text, low, high };
  }
  return null;
}

export function isValidPattern(text: string): boolean {
  return parsePattern(text) !== null;
}

/** True when `accountNumber` is matched by the pattern (a non-numeric number never matches). */
export function matchesPattern(pattern: AccountPattern, accountNumber: string): boolean {
  if (!/^[0-9]+$/.test(accountNumber)) return false;
  switch (pattern.kind) {
    case 'exact':
      return accountNumber === pattern.accountNumber;
    case 'prefix':
      return accountNumber.startsWith(pattern.prefix);
    case 'range': {
      const n = Number(accountNumber);
      return n >= Number(pattern.low) && n <= Number(pattern.high);
    }
  }
}

/** Convenience: parse and match in one call; an invalid pattern matches nothing. */
export function matchesPatternText(patternText: string, accountNumber: string): boolean {
  const p = parsePattern(patternText);
  return p !== null && matchesPattern(p, accountNumber);
}
