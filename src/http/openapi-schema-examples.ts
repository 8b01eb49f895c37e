/**
 * Example values generated from a JSON Schema, for operations the recorded examples do not cover:
 * plausible values by field name and format (identifiers, dates, currency codes, money), never
 * placeholders such as "string".
 */
import { UUID_PATTERN } from './schemas.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = Record<string, unknown>;

export const SAMPLE_UUIDS = [
  '3f1c2a9e-7b4d-4e2a-9c1f-5a6b7c8d9e01',
  '8a2b4c6d-1e3f-4a5b-8c7d-9e0f1a2b3c04',
  'c5d6e7f8-9a0b-4c1d-8e2f-3a4b5c6d7e08',
];

interface ExampleContext {
  request: boolean;
  key?: string;
  depth?: number;
}

/** An example value for a JSON Schema (as it appears in the OpenAPI document). */
export function exampleOf(schema: Schema, ctx: ExampleContext): Json {
  const depth = ctx.depth ?? 0;
  if (depth > 12) return null;
  const next = (s: Schema, key?: string) =>
    exampleOf(s, { ...ctx, depth: depth + 1, ...(key ? { key } : {}) });
  if (schema.example !== undefined) return schema.example as Json;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0] as Json;
  if (schema.const !== undefined) return schema.const as Json;
  if (Array.isArray(schema.enum)) return pickEnum(schema.enum as Json[], ctx.key);
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
    const options = (schema.anyOf ?? schema.oneOf) as Schema[];
    const nonNull = options.find((o) => o.type !== 'null') ?? options[0];
    return nonNull ? next(nonNull, ctx.key) : null;
  }
  if (Array.isArray(schema.allOf)) {
    const merged: Record<string, Json> = {};
    for (const part of schema.allOf as Schema[]) Object.assign(merged, next(part, ctx.key));
    return merged;
  }
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, Json> = {};
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      for (const [name, prop] of Object.entries(props)) out[name] = next(prop, name);
      return moneyFix(out);
    }
    case 'array': {
      const items = (schema.items ?? {}) as Schema;
      const count = Math.max(1, Number(schema.minItems ?? 1));
      return Array.from({ length: Math.min(count, 3) }, (_, i) => {
        const value = next(items, ctx.key);
        return typeof value === 'string' && isUuidPattern(items)
          ? SAMPLE_UUIDS[i % SAMPLE_UUIDS.length]!
          : value;
      });
    }
    case 'integer':
    case 'number':
      return numberExample(schema, ctx.key);
    case 'boolean':
      return ctx.key === 'isActive' || ctx.key === 'isPostable' || ctx.key === 'isBalanced';
    case 'null':
      return null;
    case 'string':
      return stringExample(schema, ctx.key);
    default:
      return schema.properties ? next({ ...schema, type: 'object' }, ctx.key) : null;
  }
}

function pickEnum(values: Json[], key: string | undefined): Json {
  const prefer: Record<string, string> = {
    currency: 'USD',
    reportingCurrency: 'USD',
    functionalCurrency: 'EUR',
    fromCurrency: 'EUR',
    toCurrency: 'USD',
    rateType: 'Spot',
    source: 'Manual',
    consolidationMethod: 'FullConsolidation',
    role: 'member',
  };
  const wanted = key ? prefer[key] : undefined;
  if (wanted !== undefined && values.includes(wanted)) return wanted;
  if (values.includes('USD')) return 'USD';
  return values[0] ?? null;
}

function isUuidPattern(schema: Schema): boolean {
  return schema.pattern === UUID_PATTERN || schema['x-uuid'] === true;
}

function numberExample(schema: Schema, key: string | undefined): number {
  const byKey: Record<string, number> = {
    year: 2026,
    fiscalYear: 2026,
    period: 1,
    periodNumber: 1,
    month: 12,
    day: 31,
    limit: 50,
    offset: 0,
    total: 1,
    priority: 10,
    ownershipPercentage: 80,
  };
  let value = key !== undefined && byKey[key] !== undefined ? byKey[key]! : 1;
  const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  if (min !== undefined && value < min) value = min;
  if (max !== undefined && value > max) value = max;
  return value;
}

function stringExample(schema: Schema, key: string | undefined): string {
  const k = key ?? '';
  const fmt = schema.format;
  if (fmt === 'date-time' || /At$/.test(k)) return '2026-01-31T12:00:00.000Z';
  if (fmt === 'date' || /Date$/.test(k)) return '2026-01-31';
  if (fmt === 'email' || k === 'email') return 'ann@example.com';
  if (isUuidPattern(schema) || (/Id$|^id$/.test(k) && k !== 'taxId')) return SAMPLE_UUIDS[0]!;
  if (schema['x-rate'] === true || k === 'rate' || k === 'effectiveRate' || k === 'exchangeRate') {
    return '1.0850000000';
  }
  if (schema['x-country'] === true || /country/i.test(k)) return 'US';
  if (schema['x-jurisdiction'] === true || /jurisdiction/i.test(k)) return 'US-DE';
  if (typeof schema.pattern === 'string' && /^\^-?\(0\|\[1-9\]/.test(schema.pattern)) return '1250.00';
  const byKey: Record<string, string> = {
    password: 'Secret-pass1',
    currentPassword: 'Secret-pass1',
    newPassword: 'Better-pass2',
    displayName: 'Ann Example',
    token: 'gbk_2b7f0c1e9a8d4c3b5e6f7a8b9c0d1e2f',
    name: 'Acme Group',
    legalName: 'Acme Group Inc.',
    description: 'Monthly office rent',
    accountNumber: '1010',
    value: '1250.00',
    currency: 'USD',
    version: '0.1.0',
    percentage: '80.00',
    ownershipPercentage: '80.00',
    nonControllingInterestPercentage: '20.00',
    taxId: '12-3456789',
    industryCode: '5411',
    entryNumber: 'JE-000001',
    referenceNumber: 'INV-1001',
    memo: 'Office rent, January',
    reason: 'Correction of a posting error',
    message: 'Done',
  };
  if (byKey[k] !== undefined) return byKey[k]!;
  if (/Currency$/.test(k)) return 'USD';
  if (/Percentage$/.test(k)) return '80.00';
  if (typeof schema.pattern === 'string') return patternExample(schema.pattern, schema);
  const min = Number(schema.minLength ?? 0);
  const text = k ? `${k} text` : 'text';
  return text.length >= min ? text : text.padEnd(min, 'x');
}

/** Best effort for a few simple patterns; otherwise a string of the right length. */
function patternExample(pattern: string, schema: Schema): string {
  if (pattern === '^[A-Za-z0-9-]+$') return 'en-US';
  if (pattern === '^[A-Za-z0-9_+/-]+$') return 'America/New_York';
  if (pattern.startsWith('^[1-9][0-9]{3,9}')) return '1010';
  if (pattern.startsWith('^[0-9]')) return '1234';
  if (pattern.startsWith('^[A-Z]')) return 'USD';
  const min = Number(schema.minLength ?? 1);
  return 'x'.repeat(Math.max(1, min));
}

/** Money objects: a Money value in the currency example's minor units. */
function moneyFix(out: Record<string, Json>): Record<string, Json> {
  if (typeof out.value === 'string' && typeof out.currency === 'string' && Object.keys(out).length === 2) {
    return { value: out.value, currency: out.currency };
  }
  return out;
}
