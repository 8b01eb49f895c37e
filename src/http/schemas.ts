/**
 * Shared TypeBox schemas: the single source for validation, serialisation and the OpenAPI document.
 *
 * Conventions:
 * - fixed-syntax values (ids, dates, codes, enumerations, Money values, rates) carry a `pattern`, a
 *   `format` or an `enum`, and are validated exactly as sent;
 * - free-text strings carry none of these: the body normaliser (http/body.ts) trims them and turns an
 *   empty optional text into null before validation; `x-raw` marks texts that are never trimmed
 *   (passwords).
 */
import { type Static, type TSchema, Type } from 'typebox';
import { CURRENCY_CODES } from '../domain/codes.ts';

export type { Static, TSchema };
export { Type };

export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const UUID_RE = new RegExp(UUID_PATTERN);
export const isUuid = (s: string) => UUID_RE.test(s);

/** A string enumeration, typed as the union of its values. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: Record<string, unknown> = {},
) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

export const Uuid = Type.String({ pattern: UUID_PATTERN, description: 'UUID', 'x-uuid': true });
/** `YYYY-MM-DD`, a real calendar date with a year in 1900–2999. */
export const IsoDate = Type.String({
  format: 'date',
  pattern: '^(19[0-9]{2}|2[0-9]{3})-[0-9]{2}-[0-9]{2}$',
  description: 'Date YYYY-MM-DD (years 1900–2999)',
  examples: ['2026-01-31'],
});
/** Dates that accept years 1000–2999 (incorporation dates). */
export const WideIsoDate = Type.String({
  format: 'date',
  pattern: '^[12][0-9]{3}-[0-9]{2}-[0-9]{2}$',
  description: 'Date YYYY-MM-DD (years 1000–2999)',
});
export const Timestamp = Type.String({ format: 'date-time', description: 'UTC timestamp' });
export const CurrencyCode = StringEnum(CURRENCY_CODES as readonly string[], {
  description: 'ISO 4217 currency code',
});
/** Country codes are validated in code (a 249-value enum would bloat every schema that uses it). */
export const CountryCode = Type.String({
  pattern: '^[A-Z]{2}$',
  'x-country': true,
  description: 'ISO 3166-1 alpha-2',
});
export const JurisdictionCode = Type.String({
  pattern: '^[A-Z]{2}(-[A-Z0-9]{1,3})?$',
  'x-jurisdiction': true,
  description: 'Country code, optionally followed by a subdivision (US-DE)',
});

/** A free-text field: trimmed, 1..max code points, no U+0000. */
export function Text(max: number, min = 1, options: Record<string, unknown> = {}) {
  return Type.String({ minLength: min, maxLength: max, ...options });
}

export const MONEY_VALUE = '^-?(0|[1-9][0-9]{0,14})(\\.[0-9]+)?$';
/** Money on input: the value's minor-unit digits are checked against the currency by the body normaliser. */
export const MoneyInput = Type.Object(
  {
    value: Type.String({ pattern: MONEY_VALUE, description: 'Decimal string' }),
    currency: CurrencyCode,
  },
  { 'x-money': true },
);
export const Money = Type.Object(
  { value: Type.String(), currency: Type.String() },
  { description: 'MonetaryAmount' },
);
export const RateInput = Type.String({
  pattern: '^(0|[1-9][0-9]{0,11})(\\.[0-9]{1,10})?$',
  'x-rate': true,
  description: 'Exchange rate: positive decimal string, at most 10 decimals',
});
export const Rate = Type.String({ description: 'Exchange rate decimal string' });
export const Percentage = Type.String({ description: 'Percentage with two decimals' });

export const FiscalYearEnd = Type.Object({
  month: Type.Integer({ minimum: 1, maximum: 12 }),
  day: Type.Integer({ minimum: 1, maximum: 31 }),
});
export const PeriodRef = Type.Object({
  year: Type.Integer({ minimum: 1900, maximum: 2999 }),
  period: Type.Integer({ minimum: 1, maximum: 13 }),
});

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export const RoleSchema = StringEnum(ROLES);

/** Error body of every 4xx/5xx. Extra fields depend on `_tag`. */
export const ErrorBody = Type.Object(
  { _tag: Type.String(), message: Type.String() },
  { additionalProperties: true, description: 'Error: `_tag` names the error' },
);

/**
 * The largest `offset` a list accepts: far beyond any list's length, and small enough to be read exactly
 * and to fit a 32-bit database integer. A larger offset is refused (400) rather than rounded.
 */
export const MAX_OFFSET = 2_147_483_647;

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  offset: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_OFFSET,
      default: 0,
      description: `Records to skip (at most ${MAX_OFFSET})`,
    }),
  ),
};
export const BoolQuery = Type.Boolean();

/** A paginated envelope `{<key>: T[], total, limit, offset}`. */
export function Page<K extends string, T extends TSchema>(key: K, item: T) {
  return Type.Object({
    ...({ [key]: Type.Array(item) } as { [P in K]: ReturnType<typeof Type.Array<T>> }),
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
  });
}

/** The answer of a bulk create: the created resources in request order, and their count. */
export function BulkCreated<T extends TSchema>(item: T) {
  return Type.Object({ created: Type.Array(item), count: Type.Integer() });
}
