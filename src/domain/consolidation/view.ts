/**
 * Steps 2–7 for one view (closing or opening): the computation's state and its steps. Translation of
 * a member without acquisition data is in view-translate.ts (with acquisition data,
 * acquired-translation.ts), eliminations in view-eliminate.ts, ownership-driven NCI in
 * ownership-nci.ts, the trial balance in view-trial-balance.ts, their shared shapes in view-types.ts.
 *
 * Every amount after translation is rounded to G's minor unit (where the rules say so), so the
 * working amounts are exact integers of that unit (BigInt "units", scaled.ts); they become decimal
 * text only in the results.
 */
import type { AccountType } from '../accounts.ts';
import { type Decimal, dec, type Money, roundTo, ZERO } from '../money.ts';
import { translateAcquired } from './acquired-translation.ts';
import type { AcquisitionComputation } from './acquisition.ts';
import { type PreparedCompany, preparedView } from './ledger.ts';
import { computeOwnershipNci } from './ownership-nci.ts';
import { ViewRates } from './rate-book.ts';
import {
  RATE_SCALE,
  roundScaled,
  type ScaledValue,
  scaledToDecimal,
  scaledToString,
  scaledValue,
  toScaled,
} from './scaled.ts';
import {
  CTA_KEY,
  cmpCompany,
  cmpStr,
  groupPeriodOf,
  NCI_KEY,
  RE_SYNTHETIC,
  type Setup,
  sourceAccountOf,
} from './setup.ts';
import type {
  EliminationEntry,
  EliminationResult,
  LineType,
  TrialBalanceView,
  ValidationIssue,
  ViewData,
} from './types.ts';
import { eliminateInSlices } from './view-eliminate.ts';
import { trialBalanceOf } from './view-trial-balance.ts';
import { translateCompany } from './view-translate.ts';
import {
  EM_NUMBERS,
  type EM_TYPES,
  IC_TYPE_MAP,
  type IcItem,
  type LineAcc,
  type NciCalc,
  type TranslatedCompany,
  type TranslatedItem,
} from './view-types.ts';

function add(map: Map<string, bigint>, key: string, v: bigint): void {
  map.set(key, (map.get(key) ?? 0n) + v);
}

export class ViewComputation {
  readonly rates: ViewRates;
  readonly translated = new Map<string, TranslatedCompany>();
  /** weighted contributions of step 3 per company and line key (units of G's minor unit) */
  readonly contributions = new Map<string, Map<string, bigint>>();
  /** the equity-method lines of step 3 by line id, with their investee */
  readonly equityMethodAmounts = new Map<string, { companyId: string; units: bigint }>();
  readonly lines = new Map<string, LineAcc>();
  icCollected = 0;
  icItems: IcItem[] = [];
  eliminations: EliminationResult[] = [];
  /** warnings of step 5 (IC_TRANSACTION_NOT_ELIMINATED, RULE_ACCOUNT_NOT_CONSOLIDATED) */
  eliminationIssues: ValidationIssue[] = [];
  eliminatedTransactionIds: string[] = [];
  /** Σ of applied elimination amounts (units of G's minor unit) */
  totalEliminations = 0n;
  appliedCount = 0;
  nci: NciCalc[] = [];
  /** the non-controlling interest's share of accumulated OCI (translation differences), credit-positive */
  nciShareOfOci = 0n;
  /** per equity-method investee held below a member with NCI: the NCI's share moved from its reserve */
  readonly nciOfInvestees = new Map<string, bigint>();
  /** acquisition eliminations and analyses of this view (acquisition.ts) */
  acquisitions: AcquisitionComputation[] = [];
  /** journal entries of the applied rules, in processing order */
  entries: EliminationEntry[] = [];
  /** the view includes top-side adjustments (its lines then carry `adjustmentAmount`) */
  hasAdjustments = false;
  /** adjustment lines attributed to a member, by member (their NCI share is taken with the member's) */
  readonly attributedAdjustments = new Map<string, TranslatedItem[]>();

  /** rates of this view already converted to scaled multipliers (per currency, date or period) */
  private readonly closingRates = new Map<string, ScaledValue | null>();
  private readonly historicalRates = new Map<string, Map<string, ScaledValue | null>>();
  private readonly averageRates = new Map<string, (ScaledValue | null | undefined)[]>();

  constructor(
    readonly setup: Setup,
    readonly view: 'closing' | 'opening',
    readonly data: ViewData,
  ) {
    this.rates = new ViewRates(setup.book, view === 'opening' ? ' (opening view)' : '');
  }

  private round(v: Decimal): Decimal {
    return roundTo(v, this.setup.minor);
  }

  /** Σ of a prepared company's functional figures as a Decimal. */
  functionalTotal(p: PreparedCompany, scale: number): Decimal {
    return scaledToDecimal(p.total, scale);
  }

  /** A Decimal already rounded to G's minor unit, in units. */
  units(v: Decimal): bigint {
    return toScaled(v, this.setup.minor)!;
  }

  /** round(m × units), half away from zero, for an exact multiplier (weight, share). */
  times(m: ScaledValue, units: bigint): bigint {
    return m.scale === 0
      ? m.coef * units
      : roundScaled(m.coef * units, this.setup.minor + m.scale, this.setup.minor);
  }

  /** Money of an amount in units of G's minor unit. */
  money(units: bigint): Money {
    return { value: scaledToString(units, this.setup.minor), currency: this.setup.G };
  }

  line(id: string, key: string, lineType: LineType, companyId: string | null = null): LineAcc {
    let l = this.lines.get(id);
    if (!l) {
      l = { id, key, lineType, companyId, aggregated: 0n, elimination: 0n, adjustment: 0n, nci: 0n };
      this.lines.set(id, l);
    }
    return l;
  }

  /** The line of a key (account number, RE line key, CTA, NCI). */
  keyLine(key: string): LineAcc {
    const type: LineType =
      key === CTA_KEY
        ? 'CurrencyTranslationAdjustment'
        : key === NCI_KEY
          ? 'NonControllingInterest'
          : key === RE_SYNTHETIC
            ? 'RetainedEarnings'
            : 'Account';
    return this.line(key, key, type);
  }

  // ------------------------------------------------------------------------------------------
  // Step 2 — Translate
  // ------------------------------------------------------------------------------------------

  translate(): { translatedCount: number } {
    const prepared = preparedView(this.setup, this.data);
    let translatedCount = 0;
    for (const c of this.setup.included) {
      if (c.functionalCurrency !== this.setup.G) translatedCount++;
      const p = prepared.companies.get(c.companyId)!;
      if (p.error) throw p.error;
      this.translated.set(
        c.companyId,
        this.setup.ownershipMode && this.setup.groupAcquisitionDate.has(c.companyId)
          ? translateAcquired(this, c, p, prepared.scale)
          : translateCompany(this, c, p, prepared.scale),
      );
    }
    return { translatedCount };
  }

  /** CR of the view for a currency, as a scaled multiplier (null when missing; the issue is recorded). */
  closingRate(cur: string): ScaledValue | null {
    let r = this.closingRates.get(cur);
    if (r === undefined) {
      const rate = this.rates.closing(cur, this.data.asOfDate);
      r = rate ? scaledValue(rate, RATE_SCALE) : null;
      this.closingRates.set(cur, r);
    }
    return r;
  }

  /** HR(d) for a currency, as a scaled multiplier. */
  historicalRate(cur: string, d: string): ScaledValue | null {
    let byDate = this.historicalRates.get(cur);
    if (!byDate) {
      byDate = new Map();
      this.historicalRates.set(cur, byDate);
    }
    let r = byDate.get(d);
    if (r === undefined) {
      const rate = this.rates.historical(cur, d);
      r = rate ? scaledValue(rate, RATE_SCALE) : null;
      byDate.set(d, r);
    }
    return r;
  }

  /** The AR(q) multipliers of a currency resolved so far, by group-period index. */
  averageRatesOf(cur: string): (ScaledValue | null | undefined)[] {
    let byPeriod = this.averageRates.get(cur);
    if (!byPeriod) {
      byPeriod = [];
      this.averageRates.set(cur, byPeriod);
    }
    return byPeriod;
  }

  /** AR(q) (with its fallback) for a currency and the group period of index q, as a scaled multiplier. */
  averageRate(cur: string, q: number): ScaledValue | null {
    const byPeriod = this.averageRatesOf(cur);
    let r = byPeriod[q];
    if (r === undefined) {
      const rate = this.rates.average(cur, this.setup.periods[q]!);
      r = rate ? scaledValue(rate, RATE_SCALE) : null;
      byPeriod[q] = r;
    }
    return r;
  }

  // ------------------------------------------------------------------------------------------
  // Step 3 — Aggregate
  // ------------------------------------------------------------------------------------------

  aggregate(): void {
    for (const c of this.setup.consolidated) {
      const w = scaledValue(this.setup.weight.get(c.companyId)!);
      const tc = this.translated.get(c.companyId)!;
      const contrib = new Map<string, bigint>();
      let sum = 0n;
      for (const item of tc.items) {
        if (item.kind === 'cta') continue;
        const v = this.times(w, item.units);
        add(contrib, item.key, v);
        sum += v;
      }
      // round(w × CTA(c)) plus the rounding residual = exactly what makes the weighted balances sum to zero.
      if (sum !== 0n) add(contrib, CTA_KEY, -sum);
      this.contributions.set(c.companyId, contrib);
      for (const [key, v] of contrib) this.keyLine(key).aggregated += v;
    }
    for (const e of this.setup.investees) {
      // An investee with acquisition data is carried at cost plus its post-acquisition share
      // (acquisition.ts); the others at their share of net assets (of their post-acquisition results
      // when they joined the group with an acquired holder).
      if (this.setup.ownershipMode && this.setup.acquired.has(e.companyId)) continue;
      const s = scaledValue(this.investeeShare(e.companyId));
      const tc = this.translated.get(e.companyId)!;
      let na = 0n;
      let rev = 0n;
      for (const i of tc.items) {
        if (i.kind !== 'account') continue;
        if (i.accountType === 'Asset' || i.accountType === 'Liability') na += i.units;
        if (i.accountType === 'Revenue' || i.accountType === 'Expense') rev += i.units;
      }
      const ni = -rev;
      const inv = this.times(s, na);
      const inc = this.times(s, ni);
      this.emLine('EquityMethodInvestment', e.companyId).aggregated = inv;
      this.emLine('EquityMethodIncome', e.companyId).aggregated = -inc;
      this.emLine('EquityMethodReserve', e.companyId).aggregated = -(inv - inc);
      const id = (t: string) => `${t}|${e.companyId}`;
      this.equityMethodAmounts.set(id('EquityMethodInvestment'), { companyId: e.companyId, units: inv });
      this.equityMethodAmounts.set(id('EquityMethodIncome'), { companyId: e.companyId, units: -inc });
      this.equityMethodAmounts.set(id('EquityMethodReserve'), {
        companyId: e.companyId,
        units: -(inv - inc),
      });
    }
  }

  /**
   * Share s of an equity-method investee included by the group: its direct stake, times the weight
   * of a proportionately consolidated holder.
   */
  investeeShare(companyId: string): Decimal {
    const node = this.setup.tree.nodes.get(companyId)!;
    return node.direct.times(this.setup.weight.get(node.holderId) ?? dec(1));
  }

  /** An equity-method line of an investee (investment, income, reserve). */
  emLine(t: (typeof EM_TYPES)[number], companyId: string): LineAcc {
    return this.line(`${t}|${companyId}`, EM_NUMBERS[t], t, companyId);
  }

  // ------------------------------------------------------------------------------------------
  // Step 4 — MatchIC
  // ------------------------------------------------------------------------------------------

  matchIntercompany(): void {
    const { G, consolidatedIds, weight } = this.setup;
    const txs = this.data.intercompanyTransactions
      .filter(
        (t) =>
          consolidatedIds.has(t.fromCompanyId) &&
          consolidatedIds.has(t.toCompanyId) &&
          t.fromCompanyId !== t.toCompanyId &&
          t.transactionDate >= this.data.yearStartDate &&
          t.transactionDate <= this.data.asOfDate &&
          (t.matchingStatus === 'Matched' || t.matchingStatus === 'VarianceApproved'),
      )
      .sort((a, b) => cmpStr(a.transactionDate, b.transactionDate) || cmpStr(a.id, b.id));
    this.icCollected = txs.length;
    for (const tx of txs) {
      const type = IC_TYPE_MAP[tx.transactionType];
      if (!type) continue;
      let amount = dec(tx.amount);
      if (tx.currency !== G) {
        const r = this.rates.average(tx.currency, groupPeriodOf(this.setup, tx.transactionDate));
        amount = r ? amount.times(r) : ZERO;
      }
      const wFrom = weight.get(tx.fromCompanyId)!;
      const wTo = weight.get(tx.toCompanyId)!;
      const w = wFrom.lessThan(wTo) ? wFrom : wTo;
      this.icItems.push({ tx, eliminationType: type, amount: this.units(this.round(amount.times(w))) });
    }
  }

  // ------------------------------------------------------------------------------------------
  // Step 5 — Eliminate
  // ------------------------------------------------------------------------------------------

  eliminate(): void {
    const slices = this.eliminateInSlices();
    while (!slices.next().done) continue;
  }

  /**
   * Step 5 in slices: yields after each sum of a selector list (a rule's source, its target, each of
   * its trigger conditions), so a caller can let other work run between them. Draining it is
   * `eliminate()`: the same computation, in the same order.
   */
  *eliminateInSlices(): Generator<void, void, void> {
    yield* eliminateInSlices(this);
  }

  /**
   * The group's intercompany-difference account and tolerance (units of G's minor unit), when set
   * and the account is one the run knows (a group account, or an account of the parent).
   */
  differenceSetting(): { accountNumber: string; tolerance: bigint } | null {
    const d = this.setup.input.intercompanyDifference;
    if (!d) return null;
    if (!this.setup.accounts.get(this.setup.parent.companyId)?.has(d.accountNumber)) return null;
    const tolerance = toScaled(roundTo(dec(d.tolerance), this.setup.minor), this.setup.minor);
    if (tolerance === null || tolerance < 0n) return null;
    if (!this.setup.consolidated.length) return null;
    return { accountNumber: d.accountNumber, tolerance };
  }

  // ------------------------------------------------------------------------------------------
  // Step 6 — NCI
  // ------------------------------------------------------------------------------------------

  /**
   * Books the top-side adjustments on their lines (closing view). A line attributed to a consolidated
   * member becomes one of the member's items for its NCI.
   */
  applyAdjustments(): void {
    const list = this.setup.input.adjustments ?? [];
    if (list.length === 0) return;
    this.hasAdjustments = true;
    for (const a of list) {
      for (const l of a.lines) {
        const units = toScaled(roundTo(dec(l.amount), this.setup.minor), this.setup.minor) ?? 0n;
        if (units === 0n) continue;
        this.keyLine(l.accountNumber).adjustment += units;
        if (l.companyId === null || !this.setup.consolidatedIds.has(l.companyId)) continue;
        const accountType = this.sourceOf(l.accountNumber).accountType;
        const items = this.attributedAdjustments.get(l.companyId) ?? [];
        items.push({ key: l.accountNumber, kind: 'account', accountType, units });
        this.attributedAdjustments.set(l.companyId, items);
      }
    }
  }

  computeNci(): void {
    if (this.setup.ownershipMode) {
      computeOwnershipNci(this);
      return;
    }
    const members = this.setup.consolidated
      .filter(
        (c) =>
          c.role === 'Member' &&
          c.consolidationMethod === 'FullConsolidation' &&
          this.setup.ownership.get(c.companyId)!.lessThan(100),
      )
      .sort(cmpCompany);
    for (const m of members) {
      const pct = dec(100).minus(this.setup.ownership.get(m.companyId)!);
      const pi = scaledValue(pct.div(100));
      const tc = this.translated.get(m.companyId)!;
      let moved = 0n;
      let equity = 0n;
      let rev = 0n;
      const adjusted = this.attributedAdjustments.get(m.companyId);
      for (const item of adjusted ? [...tc.items, ...adjusted] : tc.items) {
        if (item.accountType === 'Revenue' || item.accountType === 'Expense') {
          rev += item.units;
          continue;
        }
        if (item.accountType !== 'Equity') continue;
        equity += item.units;
        const x = this.times(pi, item.units);
        if (x === 0n) continue;
        this.keyLine(item.key).nci -= x;
        this.keyLine(NCI_KEY).nci += x;
        if (item.key === CTA_KEY) this.nciShareOfOci -= x;
        moved += x;
      }
      const netIncome = -rev;
      this.nci.push({
        company: m,
        pct,
        netIncome,
        netAssets: -equity + netIncome,
        shareOfEquity: -moved,
        shareOfNetIncome: this.times(pi, netIncome),
      });
    }
  }

  /** Opening view: fold Revenue/Expense lines into the RE line and move the NCI share of income to NCI. */
  foldIntoRetainedEarnings(): void {
    const re = this.keyLine(this.setup.reKey);
    for (const [id, l] of [...this.lines]) {
      if (l === re) continue;
      const type = this.lineAccountType(l);
      if (type !== 'Revenue' && type !== 'Expense') continue;
      re.aggregated += l.aggregated;
      re.elimination += l.elimination;
      re.adjustment += l.adjustment;
      re.nci += l.nci;
      this.lines.delete(id);
    }
    for (const d of this.nci) {
      if (d.shareOfNetIncome === 0n) continue;
      re.nci += d.shareOfNetIncome;
      this.keyLine(NCI_KEY).nci -= d.shareOfNetIncome;
      d.shareOfEquity += d.shareOfNetIncome;
      d.shareOfNetIncome = 0n;
      d.netIncome = 0n;
    }
  }

  lineAccountType(l: LineAcc): AccountType {
    switch (l.lineType) {
      case 'Account':
        return this.sourceOf(l.key).accountType;
      case 'EquityMethodInvestment':
      case 'Goodwill':
        return 'Asset';
      case 'EquityMethodIncome':
      case 'BargainPurchaseGain':
        return 'Revenue';
      default:
        return 'Equity';
    }
  }

  sourceOf(accountNumber: string) {
    const a = sourceAccountOf(this.setup, accountNumber);
    if (!a) throw new Error(`No source account for account number ${accountNumber}`);
    return a;
  }

  // ------------------------------------------------------------------------------------------
  // Step 7 — trial balance of this view
  // ------------------------------------------------------------------------------------------

  trialBalance(): TrialBalanceView {
    return trialBalanceOf(this);
  }
}
