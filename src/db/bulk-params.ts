/**
 * Helpers of the set-based writes (bulk journal entries, trial-balance imports, large audit batches):
 * ids for many rows at once, and a column of values bound as ONE parameter in PostgreSQL's array
 * syntax, to be expanded by `unnest` (the same text works on PostgreSQL and PGlite, whatever the
 * driver does with JavaScript arrays).
 */
import { randomFillSync } from 'node:crypto';

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** The sequence of the last batch and its millisecond, so consecutive batches keep ascending. */
let lastMs = -1;
let lastSeq = 0;

/**
 * `n` UUIDv7 (RFC 9562) ids in ascending order: the current millisecond, a 32-bit sequence counted up
 * from a random start (carried into the millisecond when it overflows) and random bits, as the `uuid`
 * package lays out its v7 ids, but with the random bytes of the whole batch drawn by one call instead
 * of one call per id.
 */
export function uuidv7Batch(n: number): string[] {
  const out = new Array<string>(n);
  if (n === 0) return out;
  const random = randomFillSync(Buffer.allocUnsafe(n * 6 + 4));
  let ms = Date.now();
  let seq: number;
  if (ms > lastMs) {
    seq =
      ((random[n * 6]! & 0x7f) << 24) |
      (random[n * 6 + 1]! << 16) |
      (random[n * 6 + 2]! << 8) |
      random[n * 6 + 3]!;
  } else {
    ms = lastMs;
    seq = lastSeq;
  }
  for (let i = 0; i < n; i++) {
    seq = (seq + 1) | 0;
    if (seq === 0) ms++;
    const r = i * 6;
    const msHex = ms.toString(16).padStart(12, '0');
    out[i] =
      `${msHex.slice(0, 8)}-${msHex.slice(8)}-7${((seq >>> 28) & 0x0f).toString(16)}${HEX[(seq >>> 20) & 0xff]}` +
      `-${HEX[0x80 | ((seq >>> 14) & 0x3f)]}${HEX[(seq >>> 6) & 0xff]}` +
      `-${HEX[((seq << 2) & 0xfc) | (random[r]! & 0x03)]}${HEX[random[r + 1]!]}${HEX[random[r + 2]!]}` +
      `${HEX[random[r + 3]!]}${HEX[random[r + 4]!]}${HEX[random[r + 5]!]}`;
  }
  lastMs = ms;
  lastSeq = seq;
  return out;
}

/**
 * A column of values as the text of a PostgreSQL array (`{"a","b",NULL}`), to bind as one parameter
 * cast to the column's array type (`$1::uuid[]`, `$2::numeric[]`, `$3::text[]`). Every element is
 * quoted, so any text (commas, braces, quotes, backslashes) passes as it is; null is NULL.
 */
export function pgArray(values: readonly (string | number | boolean | null | undefined)[]): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) parts[i] = 'NULL';
    else if (typeof v !== 'string') parts[i] = String(v);
    else parts[i] = NEEDS_ESCAPE.test(v) ? `"${v.replace(ESCAPED, '\\$&')}"` : `"${v}"`;
  }
  return `{${parts.join(',')}}`;
}

const NEEDS_ESCAPE = /["\\]/;
const ESCAPED = /["\\]/g;
