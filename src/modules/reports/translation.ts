/**
 * Company statements in another currency: the company's balances translated by the consolidation
 * engine's Translate step (domain/consolidation/company-translation.ts), read with the run loader's
 * figures and rate book (`loadCompanyTranslationInputs`), then handed to the same statement builders
 * as the functional figures.
 */
import type { Db } from '../../db/client.ts';
import {
  type CompanyTranslation,
  type TranslatedBalance,
  translateCompany,
} from '../../domain/consolidation/company-translation.ts';
import type { RateUsage } from '../../domain/consolidation/types.ts';
import { DomainError } from '../../domain/errors.ts';
import { dec, ZERO } from '../../domain/money.ts';
import type { AccountFigures, ReportAccount } from '../../domain/reports/index.ts';
import type { CompanyRow } from '../companies/lookup.ts';
import { type CompanyTranslationView, loadCompanyTranslationInputs } from '../consolidation/runs.loader.ts';

/** What a statement in another currency adds to the functional one. */
export interface TranslationFacts {
  functionalCurrency: string;
  exchangeRates: RateUsage[];
}

/** `400 ExchangeRateNotFoundError {fromCurrency, toCurrency, date, rateType}` for a rate a view lacks. */
function missingRate(t: Extract<CompanyTranslation, { ok: false }>): DomainError {
  const m = t.missing;
  return new DomainError(400, 'ExchangeRateNotFoundError', m.message, {
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

/**
 * Translated balances as statement figures: account rows (by account id) and the computed amounts
 * of the balance sheet. The results of earlier years join the retained-earnings account when the
 * company has one (as a run's retained-earnings line), else they are the unclosed earnings of prior
 * years; the current year's revenue and expenses are its earnings; the translation adjustment is
 * credit-positive.
 */
export function translatedFigures(
  balances: readonly TranslatedBalance[],
  accounts: readonly ReportAccount[],
): {
  rows: AccountFigures[];
  currentYearEarnings: string;
  priorUnclosedEarnings: string;
  translationAdjustment: string;
} {
  const idOf = new Map(accounts.map((a) => [a.accountNumber, a.id]));
  const re = accounts.find((a) => a.isRetainedEarningsAccount) ?? null;
  const rows: AccountFigures[] = [];
  let earnings = ZERO;
  let prior = ZERO;
  let cta = ZERO;
  for (const b of balances) {
    if (b.kind === 'cta') cta = cta.minus(b.net);
    else if (b.kind === 'priorYear') {
      if (re) rows.push({ accountId: re.id, net: b.net });
      else prior = prior.minus(b.net);
    } else {
      const id = idOf.get(b.key);
      if (id === undefined) continue;
      rows.push({ accountId: id, net: b.net });
      if (b.accountType === 'Revenue' || b.accountType === 'Expense') earnings = earnings.minus(b.net);
    }
  }
  return {
    rows,
    currentYearEarnings: earnings.toFixed(),
    priorUnclosedEarnings: prior.toFixed(),
    translationAdjustment: dec(cta).toFixed(),
  };
}
