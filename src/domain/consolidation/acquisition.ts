/**
 * Acquisition accounting of a run: for every member with acquisition data, the elimination of its
 * holder's investment against the equity the holder acquired, derived from the ownership structure
 * (no elimination rule needed).
 *
 * A fully consolidated member m, acquired by its holder h on its acquisition date t (direct stake d):
 *
 *     goodwill = consideration + NCI at acquisition − (net assets at acquisition + fair-value adjustments)
 *
 * computed in m's functional currency (before the indirect holding adjustment below). Net assets at
 * acquisition are the equity, dated before t, of
 * m's sub-group attributable to m's owners: m's own equity (its equity accounts and its results
 * before t) plus, for each member below m that m's sub-group acquired earlier, the share of the
 * equity that member earned since (the chain of direct stakes times it). The NCI at acquisition is the
 * fair value given (full goodwill) or the direct NCI's share (1 − d) of the net assets and
 * fair-value adjustments (partial goodwill). A negative goodwill is a gain on a bargain purchase:
 * income of the year of the acquisition (retained earnings in later years) with a warning.
 *
 * Indirect holdings (h itself has outside shareholders: its effective ownership e_h < 1) with the NCI
 * measured at its proportionate share (partial goodwill): the goodwill attributable to h's outside
 * shareholders is not recognised either. Their NCI bears its share of the cost, (1 − e_h) ×
 * consideration (the indirect holding adjustment), and shares in m's net assets at acquisition,
 * (1 − e_h) × d × (net assets + fair-value adjustments), so that the goodwill recognised is e_h times
 * the goodwill above and the NCI at acquisition is the whole outside share, (1 − e_h × d) × (net
 * assets + fair-value adjustments). With the NCI at fair value (full goodwill) the goodwill is
 * recognised in full and h's outside shareholders keep their share of it through h's equity.
 *
 * The elimination (in the elimination column, in the reporting currency G):
 *   Dr each equity line of m by its pre-acquisition part (and the chain's share of the lower members'
 *      equity earned before t); pre-acquisition results are already folded into the retained-earnings
 *      line (acquired-translation.ts)
 *   Dr the fair-value adjustments on m's accounts, and goodwill (a GOODWILL line of m, or the account
 *      number the acquisition names) — both m's assets in its functional currency, at the closing rate
 *   Cr h's investment account by the consideration
 *   Cr the NCI line by the NCI at acquisition, Dr it by the indirect holding adjustment (both at the
 *      acquisition-date rate)
 *   the translation difference of goodwill and the fair-value adjustments to CTA: the NCI shares that
 *   of the fair-value adjustments by its stake, and that of goodwill as well when it was measured at
 *   fair value (in the NCI step).
 * Later changes of m's contributed capital (and treasury stock) are eliminated too: the holder's share
 * against its investment (the holder is expected to carry an injection there), the rest goes to NCI.
 *
 * An equity-method investee with acquisition data: the holder's investment account (at cost) is
 * replaced by the carrying amount — the investee's net assets × the share plus the basis difference
 * (cost − share of net assets at acquisition, at the closing rate) — and the pickup counts
 * post-acquisition results only; the rest is the equity-method reserve.
 */
import { minorUnits } from '../codes.ts';
import { type Decimal, dec, type Money, roundTo, ZERO } from '../money.ts';
import { scaledToDecimal, scaledValue } from './scaled.ts';
import { CTA_KEY, NCI_KEY, type Setup } from './setup.ts';
import type {
  AcquisitionAnalysis,
  AcquisitionEntryLine,
  AcquisitionInput,
  CompanyInput,
  DualAmount,
  LineType,
  ValidationIssue,
} from './types.ts';
import type { ViewComputation } from './view.ts';
import type { LineAcc, TranslatedCompany } from './view-types.ts';

export type EntryKind =
  | 'preEquity'
  | 'capital'
  | 'investment'
  | 'fairValue'
  | 'goodwill'
  | 'gain'
  | 'nci'
  | 'indirectHolding'
  | 'cta'
  | 'equityMethod';

/** One amount the acquisition booked on a line (elimination column), debit-positive, in G's minor units. */
export interface EntryAmount {
  line: LineAcc;
  companyId: string | null;
  kind: EntryKind;
  units: bigint;
  /** the amount at the rates of the group acquisition date (the cash-flow statement's baseline) */
  atAcquisition: bigint;
}

export interface AcquisitionComputation {
  member: CompanyInput;
  holderId: string;
  T: string;
  entries: EntryAmount[];
  /** NCI's share of the acquisition's translation difference, as an amount of the CTA item (debit-positive) */
  nciCtaShare: bigint;
  analysis: AcquisitionAnalysis;
}

const ZERO_UNITS = 0n;

/** Applies the acquisition eliminations of the view (see the module comment); updates working balances. */
export function applyAcquisitions(v: ViewComputation, working: Map<string, Map<string, bigint>>): void {
  const { setup } = v;
  for (const id of setup.tree.order) {
    const member = setup.acquired.get(id);
    if (!member || !setup.includedIds.has(id)) continue;
    const tc = v.translated.get(id);
    if (!tc?.acquired) continue;
    const c = new Acquisition(v, member, tc, working);
    v.acquisitions.push(
      member.consolidationMethod === 'EquityMethod' ? c.equityMethod() : c.fullConsolidation(),
    );
  }
}

class Acquisition {
  private readonly setup: Setup;
  private readonly acquisition: AcquisitionInput;
  private readonly holderId: string;
  private readonly direct: Decimal;
  private readonly t: string;
  private readonly T: string;
  private readonly F: string;
  private readonly fMinor: number;
  private readonly entries: EntryAmount[] = [];

  constructor(
    private readonly v: ViewComputation,
    private readonly member: CompanyInput,
    private readonly tc: TranslatedCompany,
    private readonly working: Map<string, Map<string, bigint>>,
  ) {
    this.setup = v.setup;
    this.acquisition = member.acquisition!;
    const node = this.setup.tree.nodes.get(member.companyId)!;
    this.holderId = node.holderId;
    this.direct = node.direct;
    this.t = member.acquisitionDate!;
    this.T = tc.acquired!.T;
    this.F = member.functionalCurrency;
    this.fMinor = minorUnits(this.F);
  }

  private roundF(x: Decimal): Decimal {
    return roundTo(x, this.fMinor);
  }

  /** An amount of the member's currency in G's minor units at a rate (0 when the rate is missing). */
  private toG(x: Decimal, rate: Decimal | null): bigint {
    return rate ? this.v.units(roundTo(x.times(rate), this.setup.minor)) : 0n;
  }

  private closingRate(): Decimal | null {
    return this.F === this.setup.G ? dec(1) : this.v.rates.closing(this.F, this.v.data.asOfDate);
  }

  private acquisitionRate(): Decimal | null {
    return this.F === this.setup.G ? dec(1) : this.v.rates.historical(this.F, this.T);
  }

  /** Converts an amount given in another currency into the member's, at the rate of its acquisition date. */
  private inMemberCurrency(amount: Money | { amount: unknown; currency: string }): Decimal {
    const value = dec('value' in amount ? amount.value : (amount.amount as string));
    const rate = this.v.rates.historicalBetween(amount.currency, this.F, this.t);
    return this.roundF(value.times(rate ?? ZERO));
  }

  private book(
    line: LineAcc,
    companyId: string | null,
    kind: EntryKind,
    units: bigint,
    atAcquisition = units,
  ) {
    if (units === 0n && atAcquisition === 0n) return;
    line.elimination += units;
    this.entries.push({ line, companyId, kind, units, atAcquisition });
    if (companyId !== null && line.lineType === 'Account') {
      const w = this.working.get(companyId);
      if (w) w.set(line.key, (w.get(line.key) ?? 0n) + units);
    }
  }

  /** The holder's investment line and the consideration as translated with the holder's balances. */
  private investment(): { line: LineAcc; units: bigint } {
    const ref = this.acquisition.investmentAccount;
    const holder = this.setup.companies.get(this.holderId)!;
    const info = this.setup.accounts.get(this.holderId)?.get(ref.accountNumber);
    const amount = dec(this.acquisition.consideration.amount);
    let units: bigint;
    if (holder.functionalCurrency === this.setup.G) units = this.v.units(roundTo(amount, this.setup.minor));
    else {
      const holderT = this.setup.groupAcquisitionDate.get(this.holderId);
      const rate = info?.isNonMonetary
        ? this.v.rates.historical(holder.functionalCurrency, holderT && holderT > this.t ? holderT : this.t)
        : this.v.rates.closing(holder.functionalCurrency, this.v.data.asOfDate);
      units = rate ? this.v.units(roundTo(amount.times(rate), this.setup.minor)) : 0n;
    }
    return { line: this.v.keyLine(ref.accountNumber), units };
  }

  /** Own net assets at a cut (functional): −Σ of the equity and income accounts dated before it. */
  private ownNetAssets(cut: string, tc = this.tc, excludeCapital = false): Decimal {
    const acq = tc.acquired!;
    const figures = acq.cutUnits.get(cut);
    if (!figures) return ZERO;
    const accounts = this.setup.accounts.get(tc.company.companyId)!;
    let sum = 0n;
    for (const [n, units] of figures) {
      const a = accounts.get(n);
      if (!a || a.accountType === 'Asset' || a.accountType === 'Liability') continue;
      if (excludeCapital && isCapital(a.accountCategory)) continue;
      sum += units;
    }
    return scaledToDecimal(-sum, acq.scale);
  }

  fullConsolidation(): AcquisitionComputation {
    const { v, setup, member } = this;
    const d = this.direct;
    const pre = this.preAcquisitionEquity();
    const fva = this.fairValueAdjustments();
    const C_F = this.inMemberCurrency(this.acquisition.consideration);
    const NA_F = this.roundF(pre.netAssets);
    // A member held in full has no NCI to measure, whatever fair value is given.
    const N_F = d.greaterThanOrEqualTo(1)
      ? ZERO
      : this.acquisition.nciMeasurement === 'FairValue' && this.acquisition.nciFairValue
        ? this.inMemberCurrency(this.acquisition.nciFairValue)
        : this.roundF(dec(1).minus(d).times(NA_F.plus(fva.total)));
    const GW_F = C_F.plus(N_F).minus(NA_F).minus(fva.total);
    // Held through a holder with outside shareholders, NCI at its proportionate share: the holders'
    // NCI bears its share of the cost (the indirect holding adjustment) and shares in the net assets
    // at acquisition, so only the group's effective share of the goodwill is recognised.
    const holderOutside = dec(1).minus(setup.effective.get(this.holderId)!);
    const partial =
      this.acquisition.nciMeasurement === 'Proportionate' &&
      GW_F.greaterThan(0) &&
      holderOutside.greaterThan(0);
    const indirectCost = partial ? this.roundF(holderOutside.times(C_F)) : ZERO;
    const indirectNci = partial ? this.roundF(holderOutside.times(d).times(NA_F.plus(fva.total))) : ZERO;
    const goodwillF = GW_F.minus(indirectCost).plus(indirectNci);
    const CR = this.closingRate();
    const HR = this.acquisitionRate();

    const inv = this.investment();
    this.book(inv.line, this.holderId, 'investment', -inv.units);
    for (const a of fva.adjustments) {
      this.book(
        v.keyLine(a.accountNumber),
        member.companyId,
        'fairValue',
        this.toG(a.amount, CR),
        this.toG(a.amount, HR),
      );
    }
    if (GW_F.greaterThan(0)) {
      this.book(
        this.goodwillLine(),
        member.companyId,
        'goodwill',
        this.toG(goodwillF, CR),
        this.toG(goodwillF, HR),
      );
    } else if (GW_F.lessThan(0)) {
      const gain = this.toG(GW_F.neg(), HR);
      const inYear = this.t >= v.data.yearStartDate && this.t <= v.data.asOfDate;
      const line = inYear
        ? v.line(
            `BargainPurchaseGain|${member.companyId}`,
            'BARGAIN_PURCHASE_GAIN',
            'BargainPurchaseGain',
            member.companyId,
          )
        : v.keyLine(setup.reKey);
      this.book(line, member.companyId, 'gain', -gain);
    }
    this.book(v.keyLine(NCI_KEY), null, 'nci', -this.toG(N_F.plus(indirectNci), HR));
    this.book(v.keyLine(NCI_KEY), null, 'indirectHolding', this.toG(indirectCost, HR));
    this.bookCapitalChanges(inv.line);
    this.balanceToCta();

    // The NCI shares the translation difference of the fair-value adjustments by its stake, and that
    // of goodwill too when it was measured at fair value (full goodwill); the holder's own outside
    // shareholders share what is left by theirs (goodwill excepted when only the group's share of it
    // is recognised).
    const pi = dec(1).minus(d);
    const goodwill = GW_F.greaterThan(0) ? GW_F : ZERO;
    const direct = pi.times(
      this.acquisition.nciMeasurement === 'FairValue' ? fva.total.plus(goodwill) : fva.total,
    );
    const shared = partial ? fva.total : fva.total.plus(goodwill);
    const claim = direct.plus(holderOutside.times(shared.minus(direct)));
    const nciCtaShare = -(this.toG(claim, CR) - this.toG(claim, HR));

    return this.result({
      consideration: C_F,
      netAssets: NA_F,
      fairValue: fva.total,
      nci: N_F.plus(indirectNci),
      indirectHoldingAdjustment: indirectCost,
      goodwill: GW_F.greaterThan(0) ? goodwillF : GW_F,
      preYear: this.tc.acquired!.preAcquisitionYearUnits,
      rates: { CR, HR },
      nciCtaShare,
    });
  }

  /**
   * The pre-acquisition equity of the member's sub-group: removes it from the lines and returns its
   * amount in the member's currency (net assets, credit balances positive).
   */
  private preAcquisitionEquity(): { netAssets: Decimal } {
    const { v, setup, member, t } = this;
    const acq = this.tc.acquired!;
    let netAssets = this.ownNetAssets(t);
    // Own equity items: the phases dated before t.
    const before = acq.cuts.filter((c) => c <= t).length;
    for (const item of this.tc.items) {
      if (!item.phases) continue;
      let x = 0n;
      for (let i = 0; i < before; i++) x += item.phases[i]!;
      if (x !== 0n) this.book(v.keyLine(item.key), member.companyId, 'preEquity', -x);
    }
    // Lower members acquired earlier by the sub-group: the chain's share of what they earned since.
    for (const id of setup.tree.order) {
      const node = setup.tree.nodes.get(id)!;
      const index = node.ancestors.indexOf(member.companyId);
      if (index < 0 || !setup.acquired.has(id) || !setup.includedIds.has(id)) continue;
      const lower = v.translated.get(id);
      if (!lower?.acquired || lower.company.consolidationMethod !== 'FullConsolidation') continue;
      const path = [id, ...node.ancestors.slice(0, index)];
      let chain = dec(1);
      let since = '';
      for (const x of path) {
        chain = chain.times(setup.tree.nodes.get(x)!.direct);
        const date = setup.acquired.get(x)?.acquisitionDate;
        if (date && date > since) since = date;
      }
      if (since >= t) continue;
      const cuts = lower.acquired.cuts;
      const m = scaledValue(chain);
      for (const item of lower.items) {
        if (!item.phases || this.isCapitalKey(lower, item.key)) continue;
        let x = 0n;
        for (let i = 0; i < cuts.length; i++) {
          const lo = i === 0 ? '' : cuts[i - 1]!;
          if (lo >= since && cuts[i]! <= t) x += item.phases[i]!;
        }
        const share = v.times(m, x);
        if (share !== 0n) this.book(v.keyLine(item.key), id, 'preEquity', -share);
      }
      const earned = this.ownNetAssets(t, lower, true).minus(this.ownNetAssets(since, lower, true));
      const rate = v.rates.historicalBetween(lower.company.functionalCurrency, this.F, t) ?? ZERO;
      netAssets = netAssets.plus(chain.times(earned).times(rate));
    }
    return { netAssets };
  }

  private isCapitalKey(tc: TranslatedCompany, key: string): boolean {
    const a = this.setup.accounts.get(tc.company.companyId)?.get(key);
    return !!a && a.accountType === 'Equity' && isCapital(a.accountCategory);
  }

  /** Later contributed-capital (and treasury-stock) changes: the holder's share against its investment. */
  private bookCapitalChanges(investmentLine: LineAcc): void {
    const { v, member } = this;
    const acq = this.tc.acquired!;
    const first = acq.cuts.filter((c) => c <= this.t).length;
    const m = scaledValue(this.direct);
    for (const item of this.tc.items) {
      if (!item.phases || !this.isCapitalKey(this.tc, item.key)) continue;
      let x = 0n;
      for (let i = first; i < item.phases.length; i++) x += item.phases[i]!;
      const share = v.times(m, x);
      if (share === 0n) continue;
      this.book(v.keyLine(item.key), member.companyId, 'capital', -share);
      this.book(investmentLine, this.holderId, 'capital', share);
    }
  }

  private fairValueAdjustments(): {
    total: Decimal;
    adjustments: { accountNumber: string; amount: Decimal }[];
  } {
    const adjustments = this.acquisition.fairValueAdjustments.map((a) => ({
      accountNumber: a.accountNumber,
      amount: this.roundF(dec(a.amount)),
    }));
    return { total: adjustments.reduce((s, a) => s.plus(a.amount), ZERO), adjustments };
  }

  private goodwillLine(): LineAcc {
    const number = this.acquisition.goodwillAccountNumber;
    if (number) return this.v.keyLine(number);
    return this.v.line(`Goodwill|${this.member.companyId}`, 'GOODWILL', 'Goodwill', this.member.companyId);
  }

  /** Books the entry's remaining difference (translation differences, rounding) to CTA. */
  private balanceToCta(): void {
    let sum = 0n;
    let atAcquisition = 0n;
    for (const e of this.entries) {
      sum += e.units;
      atAcquisition += e.atAcquisition;
    }
    this.book(this.v.keyLine(CTA_KEY), null, 'cta', -sum, -atAcquisition);
  }

  equityMethod(): AcquisitionComputation {
    const { v, setup, member } = this;
    const holderWeight = setup.weight.get(this.holderId) ?? dec(1);
    const share = v.investeeShare(member.companyId);
    const NA_F = this.roundF(this.ownNetAssets(this.t));
    const fva = this.fairValueAdjustments();
    const C_F = this.inMemberCurrency(this.acquisition.consideration);
    const basis = this.roundF(C_F.minus(this.direct.times(NA_F)));
    const CR = this.closingRate();
    const HR = this.acquisitionRate();
    let netAssets = 0n;
    let revenueExpense = 0n;
    for (const item of this.tc.items) {
      if (item.kind !== 'account') continue;
      if (item.accountType === 'Asset' || item.accountType === 'Liability') netAssets += item.units;
      if (item.accountType === 'Revenue' || item.accountType === 'Expense') revenueExpense += item.units;
    }
    const s = scaledValue(share);
    const w = scaledValue(holderWeight);
    const basisUnits = this.toG(basis.times(holderWeight), CR);
    const carrying = v.times(s, netAssets) + basisUnits;
    const income = v.times(s, -revenueExpense);
    const inv = this.investment();
    const cost = v.times(w, inv.units);
    const atAcquisition = v.times(s, this.toG(NA_F, HR)) + this.toG(basis.times(holderWeight), HR);
    this.book(inv.line, this.holderId, 'investment', -cost);
    this.book(
      v.emLine('EquityMethodInvestment', member.companyId),
      member.companyId,
      'equityMethod',
      carrying,
      atAcquisition,
    );
    this.book(
      v.emLine('EquityMethodIncome', member.companyId),
      member.companyId,
      'equityMethod',
      -income,
      0n,
    );
    this.book(
      v.emLine('EquityMethodReserve', member.companyId),
      member.companyId,
      'equityMethod',
      -(carrying - income - cost),
      -(atAcquisition - cost),
    );
    return this.result({
      consideration: C_F,
      netAssets: NA_F,
      fairValue: fva.total,
      nci: ZERO,
      indirectHoldingAdjustment: ZERO,
      goodwill: basis.minus(this.direct.times(fva.total)),
      preYear: this.tc.acquired!.preAcquisitionYearUnits,
      rates: { CR, HR },
      nciCtaShare: 0n,
    });
  }

  private result(x: {
    consideration: Decimal;
    netAssets: Decimal;
    fairValue: Decimal;
    nci: Decimal;
    indirectHoldingAdjustment: Decimal;
    goodwill: Decimal;
    preYear: bigint;
    rates: { CR: Decimal | null; HR: Decimal | null };
    nciCtaShare: bigint;
  }): AcquisitionComputation {
    const { v, setup, member } = this;
    const G = setup.G;
    const dual = (f: Decimal): DualAmount => ({
      functional: { value: this.roundF(f).toFixed(this.fMinor), currency: this.F },
      reporting: v.money(this.toG(f, x.rates.HR)),
    });
    const goodwill = x.goodwill.greaterThan(0) ? x.goodwill : ZERO;
    const gain = x.goodwill.lessThan(0) ? x.goodwill.neg() : ZERO;
    const preYear = scaledToDecimal(-x.preYear, this.tc.acquired!.scale);
    const node = setup.tree.nodes.get(member.companyId)!;
    const analysis: AcquisitionAnalysis = {
      companyId: member.companyId,
      companyName: member.companyName,
      heldByCompanyId: node.holderId === setup.parent.companyId ? null : node.holderId,
      acquisitionDate: this.t,
      groupAcquisitionDate: this.T,
      functionalCurrency: this.F,
      consolidationMethod: member.consolidationMethod,
      nciMeasurement: this.acquisition.nciMeasurement,
      ownershipPercentage: node.direct.times(100).toFixed(2),
      acquisitionRate: (x.rates.HR ?? ZERO).toFixed(),
      closingRate: (x.rates.CR ?? ZERO).toFixed(),
      consideration: dual(x.consideration),
      netAssetsAtAcquisition: dual(x.netAssets),
      fairValueAdjustments: dual(x.fairValue),
      nciAtAcquisition: dual(x.nci),
      indirectHoldingAdjustment: dual(x.indirectHoldingAdjustment),
      goodwill: dual(goodwill),
      bargainPurchaseGain: dual(gain),
      goodwillAtClosingRate: v.money(this.toG(goodwill, x.rates.CR)),
      preAcquisitionResultsOfYear: dual(preYear),
      entries: entryLines(this.entries, v, G),
    };
    return {
      member,
      holderId: this.holderId,
      T: this.T,
      entries: this.entries,
      nciCtaShare: x.nciCtaShare,
      analysis,
    };
  }
}

function isCapital(category: string): boolean {
  return category === 'ContributedCapital' || category === 'TreasuryStock';
}

/** The entry as balanced journal lines: one per line and company, debits and credits apart. */
function entryLines(entries: EntryAmount[], v: ViewComputation, G: string): AcquisitionEntryLine[] {
  const byLine = new Map<string, { accountNumber: string; companyId: string | null; units: bigint }>();
  for (const e of entries) {
    const key = `${e.line.id}|${e.companyId ?? ''}`;
    const row = byLine.get(key) ?? { accountNumber: e.line.key, companyId: e.companyId, units: 0n };
    row.units += e.units;
    byLine.set(key, row);
  }
  const zero: Money = { value: v.money(ZERO_UNITS).value, currency: G };
  return [...byLine.values()]
    .filter((r) => r.units !== 0n)
    .map((r) => ({
      accountNumber: r.accountNumber,
      companyId: r.companyId,
      debit: r.units > 0n ? v.money(r.units) : zero,
      credit: r.units < 0n ? v.money(-r.units) : zero,
    }));
}

/** Warnings of the view's acquisitions: bargain purchases recognised in the view's year. */
export function acquisitionIssues(v: ViewComputation): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const a of v.acquisitions) {
    const gain = a.analysis.bargainPurchaseGain.reporting;
    if (dec(gain.value).isZero()) continue;
    if (a.analysis.acquisitionDate < v.data.yearStartDate) continue;
    issues.push({
      severity: 'Warning',
      code: 'BARGAIN_PURCHASE',
      message:
        `The acquisition of ${a.member.companyName} on ${a.analysis.acquisitionDate} is a bargain purchase: ` +
        `a gain of ${gain.value} ${gain.currency} is recognised; check the consideration, the fair values and the NCI`,
      entityReference: a.member.companyId,
    });
  }
  return issues;
}

export type { LineType };
