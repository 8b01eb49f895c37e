/**
 * The non-controlling interest of a group with an ownership structure (holders, acquisition data).
 *
 * Every equity item of a fully consolidated member (its equity accounts, its prior results on the
 * retained-earnings line, its CTA) belongs partly to the group and partly to outside shareholders:
 *   - a member without acquisition data: (1 − effective ownership) of every item goes to NCI;
 *   - a member with acquisition data: its equity before its acquisition date was eliminated against
 *     the holder's investment and the NCI at acquisition (acquisition.ts). Of what it records later,
 *     the direct NCI takes (1 − d); each holder above it whose own outside shareholders exist takes
 *     (1 − its stake) × (the chain of stakes below it) of the part earned after that holder's
 *     sub-group owned the member — so the indirect NCI shares only in post-acquisition equity, while
 *     its share of the pre-acquisition equity is in the cost its holder paid; the part a holder's own
 *     acquisition eliminated is not shared again. Capital changes: only the direct share (the holder's
 *     went against its investment).
 * Net income: (1 − effective) of the member's (post-acquisition) income, less (1 − effective) of the
 * profit an applied IntercompanyProfit or IntercompanySales elimination removed when the member sold
 * (upstream: its rule's source selectors all name it); downstream profit stays with the parent.
 * Proportionately consolidated members and equity-method investees held below a member with outside
 * shareholders share their (weighted) equity and income with that member's NCI.
 *
 * Amounts are reported per fully consolidated member with NCI (the NciDetail), which also carries the
 * NCI's share of its proportionate and equity-method holdings.
 */
import { type Decimal, dec } from '../money.ts';
import { scaledValue } from './scaled.ts';
import { CTA_KEY, cmpCompany, NCI_KEY } from './setup.ts';
import type { CompanyInput } from './types.ts';
import type { ViewComputation } from './view.ts';
import type { NciCalc, TranslatedCompany, TranslatedItem } from './view-types.ts';

export function computeOwnershipNci(v: ViewComputation): void {
  const { setup } = v;
  const details = new Map<string, NciCalc>();
  const detailOf = (c: CompanyInput): NciCalc => {
    let d = details.get(c.companyId);
    if (!d) {
      const pct = dec(100).minus(setup.effective.get(c.companyId)!.times(100));
      d = { company: c, pct, netAssets: 0n, netIncome: 0n, shareOfEquity: 0n, shareOfNetIncome: 0n };
      details.set(c.companyId, d);
    }
    return d;
  };
  const move = (d: NciCalc, key: string, x: bigint) => {
    if (x === 0n) return;
    v.keyLine(key).nci -= x;
    v.keyLine(NCI_KEY).nci += x;
    d.shareOfEquity -= x;
    if (key === CTA_KEY) v.nciShareOfOci -= x;
  };

  for (const id of setup.tree.order) {
    const c = setup.companies.get(id)!;
    if (!setup.includedIds.has(id)) continue;
    if (c.consolidationMethod === 'FullConsolidation') {
      const effective = setup.effective.get(id)!;
      if (effective.greaterThanOrEqualTo(1)) continue;
      fullMember(v, detailOf(c), v.translated.get(id)!, move);
    } else {
      const owner = nearestFullAncestor(v, id);
      if (!owner) continue;
      const pi = dec(1).minus(setup.effective.get(owner.companyId)!);
      const d = detailOf(owner);
      if (c.consolidationMethod === 'ProportionateConsolidation') {
        const w = scaledValue(setup.weight.get(id)!);
        const m = scaledValue(pi);
        for (const item of v.translated.get(id)!.items) {
          const weighted = v.times(w, item.units);
          if (item.accountType === 'Equity') move(d, item.key, v.times(m, weighted));
          else if (item.accountType === 'Revenue' || item.accountType === 'Expense') {
            d.shareOfNetIncome += v.times(m, -weighted);
          }
        }
      } else investeeShare(v, id, pi, d);
    }
  }
  // Top-side adjustments attributed to a member: its outside shareholders take their share.
  for (const [id, items] of v.attributedAdjustments) {
    const c = setup.companies.get(id)!;
    if (c.consolidationMethod !== 'FullConsolidation') continue;
    const effective = setup.effective.get(id);
    if (!effective || effective.greaterThanOrEqualTo(1)) continue;
    const d = detailOf(c);
    const m = scaledValue(dec(1).minus(effective));
    for (const item of items) {
      if (item.accountType === 'Equity') move(d, item.key, v.times(m, item.units));
      else if (item.accountType === 'Revenue' || item.accountType === 'Expense') {
        d.netIncome -= item.units;
        d.shareOfNetIncome += v.times(m, -item.units);
      }
    }
  }
  for (const a of v.acquisitions) {
    const d = details.get(a.member.companyId);
    if (!d) continue;
    for (const e of a.entries) {
      if (e.kind === 'nci') d.shareOfEquity -= e.units;
      else if (e.kind === 'indirectHolding') holdersBear(v, a.holderId, e.units, details);
    }
    if (a.nciCtaShare !== 0n) move(d, CTA_KEY, a.nciCtaShare);
  }
  upstreamProfit(v, details);
  v.nci = [...details.values()].sort((a, b) => cmpCompany(a.company, b.company));
}

type Move = (d: NciCalc, key: string, x: bigint) => void;

/**
 * The indirect holding adjustment (acquisition.ts) is borne by the outside shareholders of the
 * holders: each holder k above the member by (1 − its stake) × the stakes between it and the member.
 */
function holdersBear(
  v: ViewComputation,
  holderId: string,
  units: bigint,
  details: Map<string, NciCalc>,
): void {
  const { setup } = v;
  const shares: { d: NciCalc; fraction: Decimal }[] = [];
  let chain = dec(1);
  let total = dec(0);
  for (let id: string | null = holderId; id !== null && id !== setup.parent.companyId;) {
    const node: { direct: Decimal; holderId: string } = setup.tree.nodes.get(id)!;
    const fraction = dec(1).minus(node.direct).times(chain);
    const d = details.get(id);
    if (d && fraction.greaterThan(0)) {
      shares.push({ d, fraction });
      total = total.plus(fraction);
    }
    chain = chain.times(node.direct);
    id = node.holderId;
  }
  let left = units;
  shares.forEach(({ d, fraction }, i) => {
    const x = i === shares.length - 1 ? left : v.times(scaledValue(fraction.div(total)), units);
    d.shareOfEquity -= x;
    left -= x;
  });
}

function fullMember(v: ViewComputation, d: NciCalc, tc: TranslatedCompany, move: Move): void {
  const { setup } = v;
  const id = tc.company.companyId;
  const node = setup.tree.nodes.get(id)!;
  const pi = dec(1).minus(setup.effective.get(id)!);
  let equity = 0n;
  let revenueExpense = 0n;
  for (const item of tc.items) {
    if (item.accountType === 'Revenue' || item.accountType === 'Expense') {
      revenueExpense += item.units;
      continue;
    }
    if (item.accountType !== 'Equity') continue;
    equity += item.units;
    if (!setup.acquired.has(id) || !item.phases) move(d, item.key, v.times(scaledValue(pi), item.units));
    else move(d, item.key, phasedShare(v, tc, item, node.direct));
  }
  const netIncome = -revenueExpense;
  d.netIncome += netIncome;
  d.netAssets += -equity + netIncome;
  d.shareOfNetIncome += v.times(scaledValue(pi), netIncome);
}

/** NCI share of a phased equity item of an acquired member (see the module comment). */
function phasedShare(
  v: ViewComputation,
  tc: TranslatedCompany,
  item: TranslatedItem,
  direct: Decimal,
): bigint {
  const { setup } = v;
  const acq = tc.acquired!;
  const id = tc.company.companyId;
  const t = tc.company.acquisitionDate!;
  const capital = isCapitalItem(v, id, item.key);
  const ancestors = setup.tree.nodes.get(id)!.ancestors;
  let total = 0n;
  for (let i = 0; i < item.phases!.length; i++) {
    const amount = item.phases![i]!;
    if (amount === 0n) continue;
    const lo = i === 0 ? '' : acq.cuts[i - 1]!;
    const hi = i < acq.cuts.length ? acq.cuts[i]! : null;
    if (lo < t) continue; // before the member's acquisition: eliminated
    let fraction = dec(1).minus(direct);
    if (!capital) {
      let chain = direct;
      let since = t;
      for (const a of ancestors) {
        const node = setup.tree.nodes.get(a)!;
        const acquiredAt = setup.acquired.get(a)?.acquisitionDate ?? null;
        const eliminatedByHolder = acquiredAt !== null && hi !== null && hi <= acquiredAt;
        if (lo >= since && !eliminatedByHolder)
          fraction = fraction.plus(dec(1).minus(node.direct).times(chain));
        chain = chain.times(node.direct);
        if (acquiredAt !== null && acquiredAt > since) since = acquiredAt;
      }
    }
    total += v.times(scaledValue(fraction), amount);
  }
  return total;
}

function isCapitalItem(v: ViewComputation, companyId: string, key: string): boolean {
  const a = v.setup.accounts.get(companyId)?.get(key);
  return (
    !!a &&
    a.accountType === 'Equity' &&
    (a.accountCategory === 'ContributedCapital' || a.accountCategory === 'TreasuryStock')
  );
}

/** The nearest fully consolidated holder above a member whose effective ownership is below 100 %. */
function nearestFullAncestor(v: ViewComputation, companyId: string): CompanyInput | null {
  const { setup } = v;
  for (const a of setup.tree.nodes.get(companyId)!.ancestors) {
    const c = setup.companies.get(a)!;
    if (c.consolidationMethod !== 'FullConsolidation') continue;
    return setup.effective.get(a)!.lessThan(1) ? c : null;
  }
  return null;
}

/** The NCI share of an equity-method investee's reserve and income held below a member with NCI. */
function investeeShare(v: ViewComputation, id: string, pi: Decimal, d: NciCalc): void {
  const m = scaledValue(pi);
  const reserve = v.emLine('EquityMethodReserve', id);
  const income = v.emLine('EquityMethodIncome', id);
  const reserveUnits = reserve.aggregated + reserve.elimination;
  const incomeUnits = income.aggregated + income.elimination;
  const x = v.times(m, reserveUnits);
  if (x !== 0n) {
    reserve.nci -= x;
    v.keyLine(NCI_KEY).nci += x;
    d.shareOfEquity -= x;
    v.nciOfInvestees.set(id, x);
  }
  d.shareOfNetIncome += v.times(m, -incomeUnits);
}

/** Upstream intercompany profit: the selling member's NCI bears its share of the profit eliminated. */
function upstreamProfit(v: ViewComputation, details: Map<string, NciCalc>): void {
  const { setup } = v;
  setup.rules.forEach((rule, i) => {
    const result = v.eliminations[i];
    if (!result || result.status !== 'Applied' || result.amount === null) return;
    if (rule.eliminationType !== 'IntercompanyProfit' && rule.eliminationType !== 'IntercompanySales') return;
    const sellers = new Set(rule.sourceAccounts.map((s) => s.companyId));
    if (sellers.size !== 1) return;
    const seller = [...sellers][0];
    const d = seller ? details.get(seller) : undefined;
    if (!d || d.company.consolidationMethod !== 'FullConsolidation') return;
    const incomeLine = (n: string) => {
      const t = v.sourceOf(n).accountType;
      return t === 'Revenue' || t === 'Expense' ? 1n : 0n;
    };
    const amount = v.units(dec(result.amount.value));
    const profit =
      amount * (incomeLine(rule.debitAccount.accountNumber) - incomeLine(rule.creditAccount.accountNumber));
    if (profit === 0n) return;
    d.shareOfNetIncome -= v.times(scaledValue(dec(1).minus(setup.effective.get(seller!)!)), profit);
  });
}
