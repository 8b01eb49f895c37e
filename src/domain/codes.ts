/**
 * ISO code lists accepted by the API.
 *
 * The lists come from well-kept packages (`currency-codes` for ISO 4217, `i18n-iso-countries` for
 * ISO 3166-1) and are narrowed to what the API accepts: ISO 4217 entries that are not currencies
 * (precious metals, testing and fund units without minor units) are dropped, and the two codes the
 * package does not (yet) carry are added with their ISO 4217 exponents. `test/domain/codes.test.ts`
 * checks the result against the appendices code by code.
 */
import currencyCodes from 'currency-codes';
import countries from 'i18n-iso-countries';

/** ISO 4217 entries that name no currency (metals, bond-market units, SDR, testing, "no currency"). */
const NON_CURRENCY_CODES = new Set([
  'XAG',
  'XAU',
  'XBA',
  'XBB',
  'XBC',
  'XBD',
  'XDR',
  'XPD',
  'XPT',
  'XSU',
  'XTS',
  'XUA',
  'XXX',
]);

/** Codes published by ISO 4217 that the package does not carry yet: code → minor-unit exponent. */
const ADDITIONAL_CURRENCIES: Record<string, number> = {
  SLL: 2, // Sierra Leonean leone (old), still accepted
  XCG: 2, // Caribbean guilder (replaces ANG from 2025)
};

/** Country codes the package carries that are not officially assigned ISO 3166-1 codes. */
const NON_ISO_COUNTRY_CODES = new Set(['XK']);

function buildCurrencyExponents(): ReadonlyMap<string, number> {
  const map = new Map<string, number>();
  for (const code of currencyCodes.codes()) {
    if (NON_CURRENCY_CODES.has(code)) continue;
    const digits = currencyCodes.code(code)?.digits;
    if (typeof digits !== 'number') continue;
    map.set(code, digits);
  }
  for (const [code, digits] of Object.entries(ADDITIONAL_CURRENCIES)) map.set(code, digits);
  return new Map([...map.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

export const CURRENCY_EXPONENTS: ReadonlyMap<string, number> = buildCurrencyExponents();
export const CURRENCY_CODES: readonly string[] = [...CURRENCY_EXPONENTS.keys()];

export const COUNTRY_CODES: readonly string[] = Object.keys(countries.getAlpha2Codes())
  .filter((c) => !NON_ISO_COUNTRY_CODES.has(c))
  .sort();
const COUNTRY_SET = new Set(COUNTRY_CODES);

export function isCurrencyCode(value: string): boolean {
  return CURRENCY_EXPONENTS.has(value);
}

/** Minor-unit exponent of a currency (its ISO 4217 exponent). Throws for an unknown code: callers validate first. */
export function minorUnits(currency: string): number {
  const digits = CURRENCY_EXPONENTS.get(currency);
  if (digits === undefined) throw new Error(`Unknown currency ${currency}`);
  return digits;
}

export function isCountryCode(value: string): boolean {
  return COUNTRY_SET.has(value);
}

const JURISDICTION = /^([A-Z]{2})(?:-[A-Z0-9]{1,3})?$/;

/** A CountryCode optionally followed by `-` and a 1–3 character subdivision. */
export function isJurisdictionCode(value: string): boolean {
  const m = JURISDICTION.exec(value);
  return m !== null && COUNTRY_SET.has(m[1]!);
}
