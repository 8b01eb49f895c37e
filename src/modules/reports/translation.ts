/**
 * Company statements in another currency: the company's balances translated by the consolidation
 * engine's Translate step (domain/consolidation/company-translation.ts), read with the run loader's
 * figures and rate book (`loadCompanyTranslationInputs`), then handed to the same statement builders
 * as the functional figures.
 */
import type { Db } from '../../db/client.ts';
import { addDays } from '../../domain/dates.ts';
import {
  type CompanyStatementViews,
  type CompanyTranslation,
  type TranslatedBalance,
  translateCompany,
  translateCompanyPeriod,
} from '../../domain/consolidation/company-translation.ts';
export { translatedFigures } from '../../domain/consolidation/company-translation.ts';
import type { RateUsage } from '../../domain/consolidation/types.ts';
import { DomainError } from '../../domain/errors.ts';
import type { CompanyRow } from '../companies/lookup.ts';
import {
  type CompanyTranslationView,
  loadCompanyTranslationInputs,
} from '../consolidation/company-translation.loader.ts';
import { errors } from '../../domain/error-catalogue.ts';

/** What a statement in another currency adds to the functional one. */
export interface TranslationFacts {
  functionalCurrency: string;
  exchangeRates: RateUsage[];
}

/** `400 ExchangeRateNotFoundError {fromCurrency, toCurrency, date, rateType}` for a rate a view lacks. */
function missingRate(t: { missing: Extract<CompanyTranslation, { ok: false }>['missing'] }): DomainError {
  const m = t.missing;
  return errors.ExchangeRateNotFoundError(m.message, {
    fromCurrency: m.fromCurrency,
    toCurrency: m.toCurrency,
    date: m.date,
    rateType: m.rateType,
  });
}

/** The translated balances of each view, in order; throws the first missing rate. */
export async function translateViews(
  db: Db,
  company: CompanyRow,
  currency: string,
  views: readonly CompanyTranslationView[],
  options: { activityOnly?: boolean } = {},
): Promise<{ views: TranslatedBalance[][]; facts: TranslationFacts }> {
  const inputs = await loadCompanyTranslationInputs(db, {
    organizationId: company.organizationId,
    company,
    currency,
    views,
  });
  const out: TranslatedBalance[][] = [];
  const used = new Map<string, RateUsage>();
  for (const input of inputs) {
    const t = translateCompany(input, options);
    if (!t.ok) throw missingRate(t);
    out.push(t.balances);
    for (const u of t.ratesUsed) {
      const key = JSON.stringify(u);
      if (!used.has(key)) used.set(key, u);
    }
  }
  return {
    views: out,
    facts: { functionalCurrency: company.functionalCurrency, exchangeRates: orderUsages([...used.values()]) },
  };
}

/**
 * The translated trial balances at the start and the end of a period (opening view the day before
 * `periodStartDate`, closing view at `periodEndDate`, both with the period's start as their year
 * start), as the cash-flow and equity statements in another currency need them; throws the first
 * missing rate.
 */
export async function translatePeriod(
  db: Db,
  company: CompanyRow,
  currency: string,
  periodStartDate: string,
  periodEndDate: string,
): Promise<{ views: Extract<CompanyStatementViews, { ok: true }>; facts: TranslationFacts }> {
  const [closing, opening] = await loadCompanyTranslationInputs(db, {
    organizationId: company.organizationId,
    company,
    currency,
    views: [
      { asOfDate: periodEndDate, yearStartDate: periodStartDate, flows: true },
      { asOfDate: addDays(periodStartDate, -1), yearStartDate: periodStartDate },
    ],
  });
  const views = translateCompanyPeriod(closing!, opening!);
  if (!views.ok) throw missingRate(views);
  return {
    views,
    facts: {
      functionalCurrency: company.functionalCurrency,
      exchangeRates: orderUsages([...new Map(views.ratesUsed.map((u) => [JSON.stringify(u), u])).values()]),
    },
  };
}

const TYPE_ORDER: Record<string, number> = { Spot: 0, Average: 1, Historical: 2, YearEnd: 3 };
const PURPOSE_ORDER: Record<string, number> = { Closing: 0, Average: 1, Historical: 2 };

/** Rates ordered as a run lists them: type, effective date, purpose. */
function orderUsages(list: RateUsage[]): RateUsage[] {
  return list.sort(
    (a, b) =>
      TYPE_ORDER[a.rateType]! - TYPE_ORDER[b.rateType]! ||
      (a.effectiveDate < b.effectiveDate ? -1 : a.effectiveDate > b.effectiveDate ? 1 : 0) ||
      PURPOSE_ORDER[a.purpose]! - PURPOSE_ORDER[b.purpose]!,
  );
}
