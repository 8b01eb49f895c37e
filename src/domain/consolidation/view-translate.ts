/**
 * Step 2 of a view for a member without acquisition data (and the parent): its translated balances
 * (ASC 830 current-rate method). Per account, Σ amount × rate over its cells, exact in scaled
 * integers, rounded once to G's minor unit (scaled.ts). Accounts and keys are visited in the order
 * (monetary, equity and non-monetary, revenue/expense, prior-year results; by account number, then
 * date or period), so that rate look-ups — and the rate issues they record — happen in a fixed order.
 * Members with acquisition data are translated by acquired-translation.ts.
 */
import type { AccountType } from '../accounts.ts';
import type { Cells, PreparedCompany } from './ledger.ts';
import { ExactSum, roundScaled, type ScaledValue, scaledToDecimal, scaledToString } from './scaled.ts';
import { CTA_KEY, cmpAccountNumber, type Setup } from './setup.ts';
import type { CompanyInput, ViewData } from './types.ts';
import type { ItemKind, TranslatedCompany, TranslatedItem, TranslationDetail } from './view-types.ts';

/** What translating a company needs of its view: the setup, the view's data and its rate look-ups. */
export interface TranslationRates {
  readonly setup: Setup;
  readonly data: ViewData;
  /** CR of the view for a currency (null when missing; the issue is recorded) */
  closingRate(cur: string): ScaledValue | null;
  /** HR(d) for a currency */
  historicalRate(cur: string, d: string): ScaledValue | null;
  /** the AR(q) multipliers of a currency resolved so far, by group-period index */
  averageRatesOf(cur: string): (ScaledValue | null | undefined)[];
  /** AR(q) (with its fallback) for a currency and the group period of index q */
  averageRate(cur: string, q: number): ScaledValue | null;
}

/**
 * The text of each multiplier met so far. A view hands out one object per currency and date or
 * period, and every item translated at that rate lists it: the text (a decimal's shortest form) is
 * made once per object, not once per item.
 */
const rateTexts = new WeakMap<ScaledValue, string>();

function rateText(r: ScaledValue): string {
  let t = rateTexts.get(r);
  if (t === undefined) {
    t = scaledToDecimal(r.coef, r.scale).toString();
    rateTexts.set(r, t);
  }
  return t;
}

/** At most this many distinct rates are listed per item (the rest are counted). */
const RATES_LISTED = 12;

/** Collects the distinct rates applied to one item. */
class RateList {
  readonly rates: { rate: string; appliedFor: string }[] = [];
  omitted = 0;
  private readonly texts = new Set<string>();
  add(r: ScaledValue, appliedFor: string): void {
    const t = rateText(r);
    if (this.texts.has(t)) return;
    this.texts.add(t);
    if (this.rates.length < RATES_LISTED) this.rates.push({ rate: t, appliedFor });
    else this.omitted++;
  }
}

/** The items of one company as they are translated, with their running total (for its CTA). */
class CompanyItems {
  readonly items: TranslatedItem[] = [];
  total = 0n;
  readonly cur: string;
  readonly foreign: boolean;
  readonly minor: number;

  constructor(
    readonly rates: TranslationRates,
    readonly company: CompanyInput,
    readonly scale: number,
  ) {
    this.cur = company.functionalCurrency;
    this.foreign = this.cur !== rates.setup.G;
    this.minor = rates.setup.minor;
  }

  push(
    key: string,
    kind: ItemKind,
    accountType: AccountType,
    units: bigint,
    detail?: TranslationDetail,
  ): void {
    if (units === 0n) return;
    this.items.push(detail ? { key, kind, accountType, units, detail } : { key, kind, accountType, units });
    this.total += units;
  }

  detail(basis: TranslationDetail['basis'], functional: bigint, rates: RateList | null): TranslationDetail {
    return {
      basis: this.foreign ? basis : 'None',
      functional: scaledToString(functional, this.scale),
      rates: rates?.rates ?? [],
      ratesOmitted: rates?.omitted ?? 0,
    };
  }
}

const sorted = <V>(m: Map<string, V>) => [...m.keys()].sort(cmpAccountNumber);

/** Translated balances of one company (see the file's comment for the order of visits). */
export function translateCompany(
  rates: TranslationRates,
  c: CompanyInput,
  p: PreparedCompany,
  scale: number,
): TranslatedCompany {
  const out = new CompanyItems(rates, c, scale);
  translateMonetary(out, p);
  translateHistorical(out, p);
  translateIncome(out, p);
  const cta = -out.total;
  if (cta !== 0n) out.items.push({ key: CTA_KEY, kind: 'cta', accountType: 'Equity', units: cta });
  return { company: c, items: out.items, cta, functionalTotal: scaledToDecimal(p.total, scale) };
}

/** Monetary Asset/Liability balances × CR. */
function translateMonetary(out: CompanyItems, p: PreparedCompany): void {
  const { rates, company, scale, minor } = out;
  const accounts = rates.setup.accounts.get(company.companyId)!;
  for (const n of sorted(p.monetary)) {
    const bal = p.monetary.get(n)!;
    if (bal === 0n) continue;
    const type = accounts.get(n)!.accountType;
    if (!out.foreign) {
      out.push(n, 'account', type, roundScaled(bal, scale, minor), out.detail('None', bal, null));
      continue;
    }
    const r = rates.closingRate(out.cur);
    const list = new RateList();
    if (r) list.add(r, rates.data.asOfDate);
    const units = r ? roundScaled(bal * r.coef, scale + r.scale, minor) : 0n;
    out.push(n, 'account', type, units, out.detail('Closing', bal, list));
  }
}

/** Equity and non-monetary lines × HR(transaction date), summed exactly, rounded once. */
function translateHistorical(out: CompanyItems, p: PreparedCompany): void {
  const { rates, scale, minor, foreign, cur } = out;
  for (const n of sorted(p.historical)) {
    const { info, keys, amounts } = p.historical.get(n)!.normalize();
    const total = new ExactSum(scale);
    const list = new RateList();
    let functional = 0n;
    for (let i = 0; i < keys.length; i++) {
      const amt = amounts[i]!;
      if (amt === 0n) continue;
      functional += amt;
      if (!foreign) total.add(amt);
      else {
        const r = rates.historicalRate(cur, keys[i]!);
        if (r) {
          total.addProduct(amt, r);
          list.add(r, String(keys[i]));
        }
      }
    }
    out.push(
      n,
      'account',
      info.accountType,
      total.rounded(minor),
      out.detail('Historical', functional, list),
    );
  }
}

/** Revenue and expense: each group-period part × AR(q); earlier years' results into the RE line. */
function translateIncome(out: CompanyItems, p: PreparedCompany): void {
  const { rates, scale, minor } = out;
  const averages = out.foreign ? rates.averageRatesOf(out.cur) : [];
  for (const n of sorted(p.ytd)) {
    const cells = p.ytd.get(n)!;
    const total = new ExactSum(scale);
    const list = new RateList();
    const functional = translatePeriods(out, averages, cells, total, list);
    out.push(
      n,
      'account',
      cells.info.accountType,
      total.rounded(minor),
      out.detail('Average', functional, list),
    );
  }
  const prior = new ExactSum(scale);
  const priorRates = new RateList();
  let priorFunctional = 0n;
  for (const n of sorted(p.prior)) {
    priorFunctional += translatePeriods(out, averages, p.prior.get(n)!, prior, priorRates);
  }
  const detail = out.detail('Average', priorFunctional, priorRates);
  out.push(rates.setup.reKey, 'priorYear', 'Equity', prior.rounded(minor), detail);
}

/** Adds each group-period part of `cells` × AR(q) to `total`; returns Σ of the functional parts. */
function translatePeriods(
  out: CompanyItems,
  averages: (ScaledValue | null | undefined)[],
  cells: Cells<number>,
  total: ExactSum,
  list: RateList,
): bigint {
  const { rates, foreign, cur } = out;
  const { keys, amounts } = cells.normalize();
  let functional = 0n;
  for (let i = 0; i < keys.length; i++) {
    const amt = amounts[i]!;
    if (amt === 0n) continue;
    functional += amt;
    if (!foreign) total.add(amt);
    else {
      const q = keys[i]!;
      let r = averages[q];
      if (r === undefined) r = rates.averageRate(cur, q);
      if (r) {
        total.addProduct(amt, r);
        const gp = rates.setup.periods[q];
        list.add(r, gp ? `${gp.startDate}..${gp.endDate}` : String(q));
      }
    }
  }
  return functional;
}
