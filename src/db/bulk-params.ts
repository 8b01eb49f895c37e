/**
 * Helpers of the set-based writes (bulk journal entries, trial-balance imports, large audit batches):
 * ids for many rows at once, and a column of values bound as ONE parameter in PostgreSQL's array
 * syntax, to be expanded by `unnest` (the same text works on PostgreSQL and PGlite, whatever the
 * driver does with JavaScript arrays).
 */
import { randomFillSync } from 'node:crypto';

/** The sequence of the last batch and its millisecond, so consecutive batches keep ascending. */
let lastMs = -1;
let lastSeq = 0;

/**
 * `n` UUIDv7 (RFC 9562) ids in ascending order: the current millisecond, a 32-bit sequence counted up
 * from a random start (carried into the millisecond when it overflows) and random bits, as the `uuid`
 * package lays out its v7 ids, but with the random bytes of the whole batch drawn by one call instead
 * of one call per id, and the text of all ids encoded at once.
 */
export function uuidv7Batch(n: number): string[] {
  const out = new Array<string>(n);
  if (n === 0) return out;
  const bytes = randomFillSync(Buffer.allocUnsafe(n * 16 + 4));
  const r = n * 16;
  let ms = Date.now();
  let seq: number;
  if (ms > lastMs) {
    seq = ((bytes[r]! & 0x7f) << 24) | (bytes[r + 1]! << 16) | (bytes[r + 2]! << 8) | bytes[r + 3]!;
  } else {
    ms = lastMs;
    seq = lastSeq;
  }
  for (let i = 0, o = 0; i < n; i++, o += 16) {
    seq = (seq + 1) | 0;
    if (seq === 0) ms++;
    bytes[o] = (ms / 0x10000000000) & 0xff;
    bytes[o + 1] = (ms / 0x100000000) & 0xff;
    bytes[o + 2] = (ms / 0x1000000) & 0xff;
    bytes[o + 3] = (ms / 0x10000) & 0xff;
    bytes[o + 4] = (ms / 0x100) & 0xff;
    bytes[o + 5] = ms & 0xff;
    bytes[o + 6] = 0x70 | ((seq >>> 28) & 0x0f);
    bytes[o + 7] = (seq >>> 20) & 0xff;
    bytes[o + 8] = 0x80 | ((seq >>> 14) & 0x3f);
    bytes[o + 9] = (seq >>> 6) & 0xff;
    bytes[o + 10] = ((seq << 2) & 0xfc) | (bytes[o + 10]! & 0x03);
  }
  const hex = bytes.toString('hex', 0, r);
  for (let i = 0, h = 0; i < n; i++, h += 32) {
    out[i] =
      `${hex.slice(h, h + 8)}-${hex.slice(h + 8, h + 12)}-${hex.slice(h + 12, h + 16)}-` +
      `${hex.slice(h + 16, h + 20)}-${hex.slice(h + 20, h + 32)}`;
  }
  lastMs = ms;
  lastSeq = seq;
  return out;
}

/**
 * A column of text values as the text of a PostgreSQL array (`{"a","b",NULL}`), to bind as one
 * parameter cast to the column's array type (`$3::text[]`). Every element is quoted, so any text
 * (commas, braces, quotes, backslashes, the word NULL) passes as it is; null is NULL.
 */
export function pgArray(values: readonly (string | null | undefined)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    const v = values[i];
    if (v === null || v === undefined) out += 'NULL';
    else if (NEEDS_ESCAPE.test(v)) out += `"${v.replace(ESCAPED, '\\$&')}"`;
    else out += `"${v}"`;
  }
  return `${out}}`;
}

/**
 * A column of plain tokens — ids, numbers, decimal strings, ISO dates and timestamps, booleans, codes
 * without spaces, commas, quotes or braces — as the text of a PostgreSQL array, unquoted (`{a,b,NULL}`).
 */
export function pgTokens(values: readonly (string | number | boolean | null | undefined)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    const v = values[i];
    out += v === null || v === undefined ? 'NULL' : v;
  }
  return `${out}}`;
}

const NEEDS_ESCAPE = /["\\]/;
const ESCAPED = /["\\]/g;
