/**
 * One company's balances in another currency, translated exactly as a consolidation run translates
 * a member: the engine's Translate step (view.ts) on a group of one, the company as its parent and
 * the requested currency as the reporting currency. Monetary balances at the closing rate, equity
 * and non-monetary balances at the historical rates of their dates, revenue and expenses at each
 * period's average rate (the closing rate of the period when it has none), the results of earlier
 * years on the retained-earnings line, and the cumulative translation adjustment that balances them.
 *
 * The company statements in another currency are built from these translated balances.
 */
import type { AccountType } from '../accounts.ts';
import { dec, ZERO } from '../money.ts';
import type { CashFlowStatementReport } from '../reports/cash-flow.ts';
import type { AccountFigures, ReportAccount } from '../reports/common.ts';
import type { EquityStatementReport } from '../reports/equity-statement.ts';
import { runConsolidation } from './engine.ts';
import { scaledToString } from './scaled.ts';
import { buildSetup } from './setup.ts';
import { columnLedger } from './ledger.ts';
import { buildConsolidatedCashFlowStatement } from './statements.ts';
import { buildConsolidatedEquityStatement } from './statements-equity.ts';
import type {
  ConsolidationInput,
  LedgerColumns,
  RateUsage,
  TrialBalanceView,
  ValidationIssue,
  ViewData,
} from './types.ts';
import { ViewComputation } from './view.ts';

export interface TranslatedBalance {
  /** the account number, or the retained-earnings key for earlier years' results, or `CTA` */
  key: string;
  kind: 'account' | 'priorYear' | 'cta';
  accountType: AccountType;
  /** debit-positive, in the target currency, rounded to its minor unit */
  net: string;
}

export type CompanyTranslation =
  | {
      ok: true;
      currency: string;
      balances: TranslatedBalance[];
      /** the rates the translation used (deduplicated, ordered as a run orders them) */
      ratesUsed: RateUsage[];
      /** AVERAGE_RATE_FALLBACK warnings: periods translated at their closing rate */
      fallbacks: ValidationIssue[];
    }
  | {
      ok: false;
      /** the first missing rate */
      missing: MissingRate;
      issues: ValidationIssue[];
    };

export interface MissingRate {
  fromCurrency: string;
  toCurrency: string;
  /** the rate types looked for, in order (`YearEnd,Spot`, `Historical,Spot,YearEnd`) */
  rateType: string;
  date: string;
  message: string;
}

/** `EUR/USD YearEnd|Spot on or before 2025-12-31`: the reference a run gives a missing rate. */
const MISSING_REF = /^([A-Z]{3})\/([A-Z]{3}) (\S+) on or before (\d{4}-\d{2}-\d{2})$/;

/**
 * Translates the closing view of a one-company input (see `loadCompanyTranslationInputs`).
 * `activityOnly`: only the revenue and expenses dated from the view's yearStartDate on (an income
 * statement's period), so that no other rate is needed.
 */
export function translateCompany(
  input: ConsolidationInput,
  options: { activityOnly?: boolean } = {},
): CompanyTranslation {
  const setup = buildSetup(input);
  const data = options.activityOnly ? activityOf(input) : input.closing;
  const view = new ViewComputation(setup, 'closing', data);
  view.translate();
  if (view.rates.missing.size > 0) {
    const issues = [...view.rates.missing.values()];
    const first = issues[0]!;
    const m = MISSING_REF.exec(first.entityReference ?? '');
    return {
      ok: false,
      issues,
      missing: {
        fromCurrency: m?.[1] ?? setup.parent.functionalCurrency,
        toCurrency: m?.[2] ?? setup.G,
        rateType: (m?.[3] ?? '').replaceAll('|', ','),
        date: m?.[4] ?? input.asOfDate,
        message: first.message,
      },
    };
  }
  const tc = view.translated.get(setup.parent.companyId)!;
  return {
    ok: true,
    currency: setup.G,
    balances: tc.items.map((i) => ({
      key: i.key,
      kind: i.kind,
      accountType: i.accountType,
      net: scaledToString(i.units, setup.minor),
    })),
    ratesUsed: setup.book.usages(),
    fallbacks: [...view.rates.fallbacks.values()],
  };
}

/** The closing view with only the revenue and expense figures dated from its yearStartDate on. */
function activityOf(input: ConsolidationInput): ViewData {
  const { closing } = input;
  const income = new Set<string>();
  for (const c of input.companies) {
    for (const a of c.accounts) {
      if (a.accountType === 'Revenue' || a.accountType === 'Expense') income.add(a.accountNumber);
    }
  }
  const keep = (n: string, d: string | null) => income.has(n) && d !== null && d >= closing.yearStartDate;
  return {
    ...closing,
    ledgers: closing.ledgers.map((l) => {
      if (!l.columns) {
        return { companyId: l.companyId, figures: l.figures.filter((f) => keep(f.accountNumber, f.date)) };
      }
      const cols = l.columns;
      const out: LedgerColumns = { scale: cols.scale, accountNumbers: [], dates: [], units: [] };
      for (let i = 0; i < cols.units.length; i++) {
        const n = cols.accountNumbers[i]!;
        const d = cols.dates[i] ?? null;
        if (!keep(n, d)) continue;
        out.accountNumbers.push(n);
        out.dates.push(d);
        out.units.push(cols.units[i]!);
      }
      return columnLedger(l.companyId, out);
    }),
  };
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

/**
 * The company's translated trial balances at the start and the end of a period, as a consolidation
 * run builds its opening and closing views: the engine run on the group of one, its closing view at
 * the period's end (the period's start standing for the year start, so that the period's revenue and
 * expenses are its net income), its opening view the day before the period starts. The closing view
 * carries the run's statement facts (each line's translation difference), from which the
 * consolidated statements take the effect of rate changes on cash and the movements at average rates.
 */
export type CompanyStatementViews =
  | {
      ok: true;
      opening: TrialBalanceView;
      closing: TrialBalanceView;
      /** the retained-earnings line of the views (the company's account number or `RETAINED_EARNINGS`) */
      retainedEarningsLine: string;
      ratesUsed: RateUsage[];
    }
  | { ok: false; missing: MissingRate; issues: ValidationIssue[] };

/**
 * `closingInput` and `openingInput` are one-company inputs (`loadCompanyTranslationInputs`) of the
 * period's end (yearStartDate: the period's start) and of the day before the period (the same
 * yearStartDate, so that everything earlier is results of earlier periods on both sides).
 */
export function translateCompanyPeriod(
  closingInput: ConsolidationInput,
  openingInput: ConsolidationInput,
): CompanyStatementViews {
  // The first missing rate is reported as the single-view translations report it.
  for (const input of [closingInput, openingInput]) {
    const t = translateCompany(input);
    if (!t.ok) return { ok: false, missing: t.missing, issues: t.issues };
  }
  const result = runConsolidation({ ...closingInput, opening: openingInput.closing });
  if (result.status !== 'Completed' || !result.closingTrialBalance || !result.openingTrialBalance) {
    throw new Error(`The translation of the company's period failed: ${result.errorMessage ?? 'unknown'}`);
  }
  return {
    ok: true,
    opening: result.openingTrialBalance,
    closing: result.closingTrialBalance,
    retainedEarningsLine: result.retainedEarningsLine ?? 'RETAINED_EARNINGS',
    ratesUsed: result.exchangeRatesUsed,
  };
}

/** The header of a company statement of a period (the fields before the statement's body). */
export interface CompanyPeriodHeader {
  companyId: string;
  periodStartDate: string;
  periodEndDate: string;
  currency: string;
  generatedAt: string;
}

function statementContext(h: CompanyPeriodHeader, views: Extract<CompanyStatementViews, { ok: true }>) {
  return {
    runId: '',
    groupId: h.companyId,
    groupName: '',
    periodRef: views.closing.periodRef,
    asOfDate: h.periodEndDate,
    yearStartDate: h.periodStartDate,
    currency: h.currency,
    generatedAt: h.generatedAt,
    retainedEarningsLine: views.retainedEarningsLine,
  };
}

/**
 * The company cash-flow statement in another currency: the consolidated cash-flow statement of the
 * group of one (flows at the average rates of their periods, the effect of rate changes on cash as
 * its own line), in the company statement's shape (lines carry the company's account ids).
 */
export function translatedCashFlowStatement(
  h: CompanyPeriodHeader,
  views: Extract<CompanyStatementViews, { ok: true }>,
  accounts: readonly ReportAccount[],
): CashFlowStatementReport {
  const s = buildConsolidatedCashFlowStatement(statementContext(h, views), views.opening, views.closing);
  const idOf = new Map(accounts.map((a) => [a.accountNumber, a.id]));
  const section = <S extends { lineItems: { accountNumber: string | null }[] }>(x: S) => ({
    ...x,
    lineItems: x.lineItems.map((l) => ({
      ...l,
      accountId: l.accountNumber === null ? null : (idOf.get(l.accountNumber) ?? null),
    })),
  });
  return {
    companyId: h.companyId,
    periodStartDate: h.periodStartDate,
    periodEndDate: h.periodEndDate,
    currency: h.currency,
    generatedAt: h.generatedAt,
    method: s.method,
    beginningCash: s.beginningCash,
    operatingActivities: section(s.operatingActivities),
    investingActivities: section(s.investingActivities),
    financingActivities: section(s.financingActivities),
    exchangeRateEffect: s.exchangeRateEffect,
    netChangeInCash: s.netChangeInCash,
    endingCash: s.endingCash,
    isReconciled: s.isReconciled,
  };
}

/**
 * The company statement of changes in equity in another currency: the consolidated equity statement
 * of the group of one (the translation adjustment in accumulated OCI, its change of the period as
 * other comprehensive income), in the company statement's shape.
 */
export function translatedEquityStatement(
  h: CompanyPeriodHeader,
  views: Extract<CompanyStatementViews, { ok: true }>,
): EquityStatementReport {
  const s = buildConsolidatedEquityStatement(statementContext(h, views), views.opening, views.closing);
  return {
    companyId: h.companyId,
    periodStartDate: h.periodStartDate,
    periodEndDate: h.periodEndDate,
    currency: h.currency,
    generatedAt: h.generatedAt,
    openingBalances: s.openingBalances,
    movements: s.movements,
    closingBalances: s.closingBalances,
  };
}
