/**
 * What the consolidated cash-flow statement needs besides the two trial balances: for each line, the
 * part of its change over the year that is a translation difference (not a cash flow), and the part
 * that arrived with members acquired during the year.
 *
 * Translation differences. A company not in the reporting currency G reports its balance-sheet lines
 * at closing (monetary items) or historical rates (equity, non-monetary items); its movements of the
 * year are cash flows at the average rate of the group period they happened in. A line's translation
 * difference is its translated change minus its movements at those rates:
 *     TD = translated(closing) − translated(opening) − Σ over periods q of movement(q) × AR(q)
 * For a cash line this is the effect of rate changes on cash: opening cash × (closing rate − opening
 * closing rate) + each movement × (closing rate − its average rate). A company in G has none.
 * Goodwill and fair-value adjustments (carried at the closing rate) change by translation only; the
 * NCI line's translation difference is the change of the NCI's share of OCI.
 *
 * Acquired during the year. A member that the group obtained control of during the year is absent
 * from the opening view: its balances at the acquisition date (at the acquisition-date rate) and the
 * amounts of its acquisition elimination are the baseline of its lines, so that the statement shows
 * its later movements only and one investing line for the acquisition (consideration less the cash
 * acquired).
 */
import { type Decimal, roundTo, ZERO } from '../money.ts';
import { preparedView, type PreparedCompany } from './ledger.ts';
import { scaledToDecimal, scaledToString, type ScaledValue } from './scaled.ts';
import { CTA_KEY, groupPeriodIndexOf, NCI_KEY } from './setup.ts';
import type { StatementFacts } from './types.ts';
import type { LineAcc, ViewComputation } from './view.ts';

interface LineFacts {
  translationDifference: bigint;
  acquired: bigint;
}

const toDecimal = (r: ScaledValue) => scaledToDecimal(r.coef, r.scale);

/** Facts of the closing view (see the module comment), relative to the opening view. */
export function cashFlowFacts(closing: ViewComputation, opening: ViewComputation): StatementFacts {
  const facts = new Map<string, LineFacts>();
  const at = (id: string): LineFacts => {
    let f = facts.get(id);
    if (!f) {
      f = { translationDifference: 0n, acquired: 0n };
      facts.set(id, f);
    }
    return f;
  };
  for (const c of closing.setup.consolidated) companyFacts(closing, opening, c.companyId, at);
  acquisitionFacts(closing, opening, at);
  // The NCI line changes by the NCI's share of OCI without a cash flow.
  at(NCI_KEY).translationDifference += -(closing.nciShareOfOci - opening.nciShareOfOci);

  const minor = closing.setup.minor;
  let cash = 0n;
  const lines: Record<string, { translationDifference: string; acquired: string }> = {};
  for (const [id, f] of facts) {
    if (f.translationDifference === 0n && f.acquired === 0n) continue;
    const line = closing.lines.get(id) ?? opening.lines.get(id);
    if (line?.lineType === 'Account' && closing.sourceOf(line.key).isCashEquivalent)
      cash += f.translationDifference;
    lines[line ? statementKey(line) : id] = {
      translationDifference: scaledToString(f.translationDifference, minor),
      acquired: scaledToString(f.acquired, minor),
    };
  }
  return {
    nciShareOfOci: scaledToString(closing.nciShareOfOci, minor),
    lines,
    cashTranslationDifference: scaledToString(cash, minor),
  };
}

/** The key the statements pair lines by: the account number, with the company for per-company lines. */
function statementKey(l: LineAcc): string {
  return l.companyId === null ? l.key : `${l.key}|${l.companyId}`;
}

/** Translation differences (and the acquisition-date baseline) of one company's lines. */
function companyFacts(
  closing: ViewComputation,
  opening: ViewComputation,
  companyId: string,
  at: (id: string) => LineFacts,
): void {
  const { setup } = closing;
  const c = setup.companies.get(companyId)!;
  const tc = closing.translated.get(companyId)!;
  const inOpening = opening.setup.consolidatedIds.has(companyId);
  const acquiredInYear = !inOpening && tc.acquired !== undefined;
  const foreign = c.functionalCurrency !== setup.G;
  if (!foreign && !acquiredInYear) return;
  const w = setup.weight.get(companyId)!;
  const weighted = (x: Decimal) => closing.units(roundTo(x.times(w), setup.minor));
  const prepared = preparedView(setup, closing.data);
  const p = prepared.companies.get(companyId)!;
  const scale = prepared.scale;
  const closingContrib = closing.contributions.get(companyId) ?? new Map<string, bigint>();
  const openingContrib = inOpening
    ? (opening.contributions.get(companyId) ?? new Map<string, bigint>())
    : null;
  const accounts = setup.accounts.get(companyId)!;
  const isIncome = (key: string) => {
    const t = accounts.get(key)?.accountType;
    return t === 'Revenue' || t === 'Expense';
  };
  const T = tc.acquired?.T ?? null;
  const hr = tc.acquired?.acquisitionRate ?? null;
  const cutAtT = T ? tc.acquired!.cutUnits.get(T)! : null;
  const baselineOf = (functional: bigint) =>
    hr ? weighted(scaledToDecimal(functional, scale).times(toDecimal(hr))) : 0n;

  const keys = new Set<string>([...closingContrib.keys(), ...(openingContrib?.keys() ?? [])]);
  for (const key of keys) {
    if (key === CTA_KEY || isIncome(key)) continue;
    const now = closingContrib.get(key) ?? 0n;
    let before: bigint;
    if (openingContrib) {
      before = openingContrib.get(key) ?? 0n;
      if (key === setup.reKey) for (const [k, u] of openingContrib) if (isIncome(k)) before += u;
    } else {
      const functional =
        key === setup.reKey
          ? [...cutAtT!].reduce((s, [n, u]) => (isIncome(n) ? s + u : s), 0n) + (cutAtT!.get(key) ?? 0n)
          : (cutAtT!.get(key) ?? 0n);
      before = baselineOf(functional);
      at(key).acquired += before;
    }
    const flow = foreign
      ? weighted(
          movementsAtAverage(closing, c.functionalCurrency, p, key, scale, acquiredInYear ? T : null, cutAtT),
        )
      : now - before;
    at(key).translationDifference += now - before - flow;
  }
}

/**
 * Σ movement(q) × AR(q) of an account over the view's year (from `from` on, for a member acquired
 * during the year), exact.
 */
function movementsAtAverage(
  v: ViewComputation,
  currency: string,
  p: PreparedCompany,
  accountNumber: string,
  scale: number,
  from: string | null,
  cutAtFrom: Map<string, bigint> | null,
): Decimal {
  const { setup, data } = v;
  let total = ZERO;
  // The rates the translation used for the period (or its fallback), read without recording them
  // again: the statement facts add no rate usage and no issue to the run.
  const rate = (q: number) => {
    const period = setup.periods[q]!;
    const r =
      setup.book.average(currency, period.startDate, period.endDate) ??
      setup.book.closing(currency, period.endDate);
    return r ? r.effectiveRate : ZERO;
  };
  const monetary = p.monetaryYtd.get(accountNumber)?.normalize();
  if (monetary) {
    const fromQ = from ? groupPeriodIndexOf(setup, from) : -1;
    // Balance before the year: the account's total less its movements within it.
    let balance = p.monetary.get(accountNumber) ?? 0n;
    for (const a of monetary.amounts) balance -= a;
    for (let i = 0; i < monetary.keys.length; i++) {
      const q = monetary.keys[i]!;
      let amount = monetary.amounts[i]!;
      if (from !== null) {
        if (q < fromQ) {
          balance += amount;
          continue;
        }
        if (q === fromQ) {
          // Only the part after the acquisition: the movement less what came before the cut.
          amount -= (cutAtFrom?.get(accountNumber) ?? 0n) - balance;
        }
      }
      total = total.plus(scaledToDecimal(amount, scale).times(rate(q)));
    }
    return total;
  }
  const historical = p.historical.get(accountNumber)?.normalize();
  if (historical) {
    for (let i = 0; i < historical.keys.length; i++) {
      const d = historical.keys[i]!;
      if (d < data.yearStartDate || (from !== null && d < from) || d === '') continue;
      const q = groupPeriodIndexOf(setup, d);
      total = total.plus(scaledToDecimal(historical.amounts[i]!, scale).times(rate(q)));
    }
  }
  return total;
}

/** Acquisition eliminations: baselines of members acquired during the year, translation of goodwill. */
function acquisitionFacts(
  closing: ViewComputation,
  opening: ViewComputation,
  at: (id: string) => LineFacts,
): void {
  const openingUnits = new Map<string, bigint>();
  for (const a of opening.acquisitions) {
    for (const e of a.entries) {
      const key = `${a.member.companyId}|${e.kind}|${e.line.id}`;
      openingUnits.set(key, (openingUnits.get(key) ?? 0n) + e.units);
    }
  }
  for (const a of closing.acquisitions) {
    const inYear = !opening.setup.includedIds.has(a.member.companyId);
    for (const e of a.entries) {
      const f = at(e.line.id);
      const translated = e.kind === 'fairValue' || e.kind === 'goodwill' || e.kind === 'investment';
      if (inYear) {
        if (e.kind !== 'investment') f.acquired += e.atAcquisition;
        if (translated && e.kind !== 'investment') f.translationDifference += e.units - e.atAcquisition;
      } else if (translated) {
        f.translationDifference +=
          e.units - (openingUnits.get(`${a.member.companyId}|${e.kind}|${e.line.id}`) ?? 0n);
      }
    }
  }
}
