/**
 * Request bodies and query strings, before and after schema validation.
 *
 * - Bodies are read as text by a catch-all parser and parsed here, only for routes that take a body:
 *   GET, DELETE and "no body" actions ignore whatever was sent, even invalid JSON.
 * - JSON numbers under `ownershipPercentage` keep their literal text (`80.000` has three decimals,
 *   `8e1` is refused) via lossless-json; every other body uses the fast native parser.
 * - Free-text strings are trimmed, U+0000 is refused, and an empty optional text becomes null.
 * - Semantic checks that JSON Schema cannot express (minor-unit digits of Money, positive amounts,
 *   country lists) run after schema validation, reporting the same ValidationError shape.
 */
import { isLosslessNumber, parse as parseLossless } from 'lossless-json';
import type { TSchema } from 'typebox';
import { isCountryCode, isJurisdictionCode, minorUnits } from '../domain/codes.ts';
import { type Issue, ValidationError } from '../domain/errors.ts';
import { dec, fractionDigits } from '../domain/money.ts';
import { trimWhiteSpace } from '../domain/text.ts';

type Schema = TSchema & Record<string, unknown>;

const LITERAL_NUMBER_KEYS = new Set(['ownershipPercentage']);

/** Deepest nesting of arrays and objects a body may have (the deepest documented body has 6 levels). */
export const MAX_JSON_DEPTH = 64;

/** Nesting depth of the JSON text, counting brackets outside strings (stops past `limit`). */
function jsonDepth(raw: string, limit: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) max = depth;
      if (max > limit) return max;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

export function parseJsonBody(raw: string): unknown {
  // Every later step (normalisation, validation, idempotency fingerprints) walks the value
  // recursively: a pathologically nested body is refused here instead of overflowing the stack.
  if (jsonDepth(raw, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    throw new ValidationError([{ path: '', message: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` }]);
  }
  try {
    if (raw.includes('"ownershipPercentage"')) {
      return parseLossless(raw, (key, value) => {
        if (isLosslessNumber(value)) return LITERAL_NUMBER_KEYS.has(key) ? value.value : Number(value.value);
        return value;
      });
    }
    return JSON.parse(raw);
  } catch {
    throw new ValidationError([{ path: '', message: 'Malformed JSON' }], 'Malformed JSON');
  }
}

export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const type = header.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json';
}

function isFixedSyntax(s: Schema): boolean {
  return 'pattern' in s || 'format' in s || 'enum' in s || 'const' in s || s['x-raw'] === true;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function branchAccepts(s: Schema, t: string): boolean {
  const type = s.type;
  if (type === undefined) return true;
  const types = Array.isArray(type) ? type : [type];
  return types.includes(t) || (t === 'integer' && types.includes('number'));
}

/**
 * Trims free-text strings, lower-cases identifiers and turns empty optional texts into null, in
 * place, following the route's body schema. Returns the (possibly replaced) value.
 */
export function normalizeStrings(schema: Schema | undefined, value: unknown, nullable = false): unknown {
  if (!schema) return value;
  const anyOf = schema.anyOf as Schema[] | undefined;
  if (anyOf) {
    const allowsNull = anyOf.some((b) => b.type === 'null');
    const t = typeOf(value);
    const branch = anyOf.find((b) => b.type !== 'null' && branchAccepts(b, t));
    return branch ? normalizeStrings(branch, value, allowsNull) : value;
  }
  if (typeof value === 'string' && schema.type === 'string') {
    if (schema['x-uuid'] === true) return value.toLowerCase();
    if (isFixedSyntax(schema)) return value;
    const trimmed = trimWhiteSpace(value);
    return trimmed === '' && nullable ? null : trimmed;
  }
  if (Array.isArray(value) && schema.items) {
    for (let i = 0; i < value.length; i++) value[i] = normalizeStrings(schema.items as Schema, value[i]);
    return value;
  }
  if (value !== null && typeof value === 'object' && schema.properties) {
    const obj = value as Record<string, unknown>;
    const props = schema.properties as Record<string, Schema>;
    for (const key of Object.keys(props)) {
      if (key in obj) obj[key] = normalizeStrings(props[key], obj[key]);
    }
  }
  return value;
}

/** Checks that need more than JSON Schema, run on a body that passed schema validation. */
export function semanticIssues(
  schema: Schema | undefined,
  value: unknown,
  path = '',
  issues: Issue[] = [],
): Issue[] {
  if (!schema || value === undefined) return issues;
  const anyOf = schema.anyOf as Schema[] | undefined;
  if (anyOf) {
    const t = typeOf(value);
    const branch = anyOf.find((b) => b.type !== 'null' && branchAccepts(b, t));
    return branch ? semanticIssues(branch, value, path, issues) : issues;
  }
  if (typeof value === 'string') {
    if (value.includes('\u0000')) issues.push({ path, message: 'Must not contain U+0000' });
    if (schema['x-country'] === true && !isCountryCode(value)) {
      issues.push({ path, message: 'Unknown ISO 3166-1 alpha-2 country code' });
    }
    if (schema['x-jurisdiction'] === true && !isJurisdictionCode(value)) {
      issues.push({ path, message: 'Unknown jurisdiction country code' });
    }
    if (schema['x-rate'] === true && dec(value).lessThanOrEqualTo(0)) {
      issues.push({ path, message: 'Rate must be greater than zero' });
    }
    return issues;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      semanticIssues(schema.items as Schema, item, `${path}/${i}`, issues);
    });
    return issues;
  }
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    if (schema['x-money'] === true) {
      moneyIssues(schema, obj, path, issues);
      return issues;
    }
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    for (const key of Object.keys(props)) semanticIssues(props[key], obj[key], `${path}/${key}`, issues);
  }
  return issues;
}

function moneyIssues(schema: Schema, obj: Record<string, unknown>, path: string, issues: Issue[]): void {
  const value = obj.value as string;
  const currency = obj.currency as string;
  const digits = minorUnits(currency);
  if (fractionDigits(value) > digits || (digits === 0 && value.includes('.'))) {
    issues.push({ path: `${path}/value`, message: `At most ${digits} decimal places for ${currency}` });
    return;
  }
  const d = dec(value);
  const sign = schema['x-sign'] as 'signed' | 'nonNegative' | undefined;
  if (sign === 'signed') return;
  if (sign === 'nonNegative' ? d.isNegative() && !d.isZero() : d.lessThanOrEqualTo(0)) {
    issues.push({
      path: `${path}/value`,
      message: sign === 'nonNegative' ? 'Amount must not be negative' : 'Amount must be greater than zero',
    });
  }
}

/**
 * Query-string rules JSON Schema cannot see: unknown parameters (a typo in a filter must never return
 * unfiltered data), repeated parameters, empty values, U+0000 in a value (a database text cannot hold
 * it), and integers written as anything but base-10 digits (`1e3`, `1.5`, ` 1`) or too large to be read
 * exactly (beyond 2^53 − 1; the schema's own bounds are far lower). The known parameters are the
 * properties of the route's own querystring schema; a route without one accepts none.
 */
export function queryIssues(schema: Schema | undefined, query: Record<string, unknown>): Issue[] {
  const issues: Issue[] = [];
  const props = (schema?.properties ?? {}) as Record<string, Schema>;
  for (const [name, raw] of Object.entries(query)) {
    const s = props[name];
    const path = `/query/${name}`;
    if (!s) {
      issues.push({ path, message: `Unknown query parameter ${JSON.stringify(name)}` });
      continue;
    }
    if (Array.isArray(raw)) {
      issues.push({ path, message: 'Parameter given more than once' });
    } else if (raw === '') {
      issues.push({ path, message: 'Parameter must not be empty' });
    } else if (typeof raw === 'string' && raw.includes('\u0000')) {
      issues.push({ path, message: 'Must not contain U+0000' });
    } else if (s.type === 'integer' && typeof raw === 'string' && !/^-?[0-9]+$/.test(raw)) {
      issues.push({ path, message: 'Must be an integer' });
    } else if (s.type === 'integer' && typeof raw === 'string' && !Number.isSafeInteger(Number(raw))) {
      issues.push({ path, message: integerBoundMessage(s) });
    } else if (s.type === 'boolean' && raw !== 'true' && raw !== 'false') {
      issues.push({ path, message: 'Must be true or false' });
    }
  }
  return issues;
}

/** Lower-cases identifier query parameters (identifiers are case-insensitive on input). */
export function normalizeQuery(schema: Schema | undefined, query: Record<string, unknown>): void {
  const props = (schema?.properties ?? {}) as Record<string, Schema>;
  for (const [name, value] of Object.entries(query)) {
    if (typeof value === 'string' && props[name]?.['x-uuid'] === true) query[name] = value.toLowerCase();
  }
}

function integerBoundMessage(s: Schema): string {
  const min = s.minimum as number | undefined;
  const max = s.maximum as number | undefined;
  if (min !== undefined && max !== undefined) return `Must be an integer from ${min} to ${max}`;
  if (max !== undefined) return `Must be an integer at most ${max}`;
  if (min !== undefined) return `Must be an integer at least ${min}`;
  return 'Integer out of range';
}
