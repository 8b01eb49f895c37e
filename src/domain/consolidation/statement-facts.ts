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
import { preparedView, type PreparedCompany } from './ledger.ts';
import { ExactSum, RATE_SCALE, scaledToString, type ScaledValue, scaledValue, toScaled } from './scaled.ts';
import { CTA_KEY, groupPeriodIndexOf, NCI_KEY } from './setup.ts';
import type { StatementFacts } from './types.ts';
import type { ViewComputation } from './view.ts';
import type { LineAcc } from './view-types.ts';

interface LineFacts {
  translationDifference: bigint;
  acquired: bigint;
}

/**
 * AR(q) of a currency (or its fallback, the closing rate at the period's end) as scaled multipliers,
 * read without recording them again: the statement facts add no rate usage and no issue to the run.
 * The rates are the ones the translation used for the periods it translated.
 */
type AverageRates = (currency: string, q: number) => ScaledValue | null;

function quietAverages(v: ViewComputation): AverageRates {
  const { setup } = v;
  const byCurrency = new Map<string, (ScaledValue | null | undefined)[]>();
  return (currency, q) => {
    let rates = byCurrency.get(currency);
    if (!rates) {
      rates = [];
      byCurrency.set(currency, rates);
    }
    let r = rates[q];
    if (r === undefined) {
      const period = setup.periods[q]!;
      const rate =
        setup.book.average(currency, period.startDate, period.endDate) ??
        setup.book.closing(currency, period.endDate);
      r = rate ? scaledValue(rate.effectiveRate, RATE_SCALE) : null;
      rates[q] = r;
    }
    return r;
  };
}

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
  const averages = quietAverages(closing);
  for (const c of closing.setup.consolidated) companyFacts(closing, opening, c.companyId, averages, at);
  acquisitionFacts(closing, opening, at);
  investeeNciFacts(closing, opening, at);
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
  averages: AverageRates,
  at: (id: string) => LineFacts,
): void {
  const { setup } = closing;
  const c = setup.companies.get(companyId)!;
  const tc = closing.translated.get(companyId)!;
  const inOpening = opening.setup.consolidatedIds.has(companyId);
  const acquiredInYear = !inOpening;
  const foreign = c.functionalCurrency !== setup.G;
  if (!foreign && !acquiredInYear) return;
  const w = scaledValue(setup.weight.get(companyId)!);
  /** round(x × weight) in units of G's minor unit */
  const weighted = (x: ExactSum) => x.timesRounded(w, setup.minor);
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
  // A company that joined during the year (acquired, or held by a member acquired): its balances at
  // the group acquisition date T, at the rate of T.
  const T = acquiredInYear ? setup.groupAcquisitionDate.get(companyId)! : null;
  const hr = tc.acquired?.acquisitionRate ?? (T ? quietHistorical(closing, c.functionalCurrency, T) : null);
  const cutAtT = T ? (tc.acquired?.cutUnits.get(T) ?? cutOf(closing, companyId, T, scale)) : null;
  const baselineOf = (functional: bigint) => {
    if (!hr) return 0n;
    const x = new ExactSum(scale);
    x.addProduct(functional, hr);
    return weighted(x);
  };

  // Every line the company has in either view, and every account that moved this year (a balance
  // that translates to zero may still have had flows).
  const keys = new Set<string>([
    ...closingContrib.keys(),
    ...(openingContrib?.keys() ?? []),
    ...p.monetaryYtd.keys(),
    ...p.historical.keys(),
  ]);
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
          movementsAtAverage(
            closing,
            averages,
            c.functionalCurrency,
            p,
            key,
            scale,
            acquiredInYear ? T : null,
            cutAtT,
          ),
        )
      : now - before;
    at(key).translationDifference += now - before - flow;
  }
}

/** HR(T) of a currency, read without recording it (1 in G). */
function quietHistorical(v: ViewComputation, currency: string, date: string): ScaledValue | null {
  if (currency === v.setup.G) return { coef: 1n, scale: 0 };
  const r = v.setup.book.historical(currency, date);
  return r ? scaledValue(r.effectiveRate, RATE_SCALE) : null;
}

/** The cut ledger of a company at a date, per account (functional, at `scale`). */
function cutOf(v: ViewComputation, companyId: string, cutDate: string, scale: number): Map<string, bigint> {
  const cut = (v.data.cuts ?? []).find((x) => x.companyId === companyId && x.cutDate === cutDate);
  if (!cut) throw new Error(`The balances of company ${companyId} before ${cutDate} were not supplied`);
  const figures = new Map<string, bigint>();
  for (const f of cut.figures) {
    const units = toScaled(f.amount, scale);
    if (units === null) throw new Error(`Figure ${String(f.amount)} has too many decimals`);
    figures.set(f.accountNumber, (figures.get(f.accountNumber) ?? 0n) + units);
  }
  return figures;
}

/**
 * Σ movement(q) × AR(q) of an account over the view's year (from `from` on, for a member acquired
 * during the year), exact.
 */
function movementsAtAverage(
  v: ViewComputation,
  averages: AverageRates,
  currency: string,
  p: PreparedCompany,
  accountNumber: string,
  scale: number,
  from: string | null,
  cutAtFrom: Map<string, bigint> | null,
): ExactSum {
  const { setup, data } = v;
  const total = new ExactSum(scale);
  const add = (amount: bigint, q: number) => {
    const r = averages(currency, q);
    if (r) total.addProduct(amount, r);
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
      add(amount, q);
    }
    return total;
  }
  const historical = p.historical.get(accountNumber)?.normalize();
  if (historical) {
    for (let i = 0; i < historical.keys.length; i++) {
      const d = historical.keys[i]!;
      if (d < data.yearStartDate || (from !== null && d < from) || d === '') continue;
      const q = groupPeriodIndexOf(setup, d);
      add(historical.amounts[i]!, q);
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
  const TRANSLATED = new Set(['fairValue', 'goodwill', 'investment']);
  const byKey = (v: ViewComputation) => {
    const units = new Map<string, { lineId: string; units: bigint }>();
    for (const a of v.acquisitions) {
      for (const e of a.entries) {
        if (!TRANSLATED.has(e.kind)) continue;
        const key = `${a.member.companyId}|${e.kind}|${e.line.id}`;
        const row = units.get(key) ?? { lineId: e.line.id, units: 0n };
        row.units += e.units;
        units.set(key, row);
      }
    }
    return units;
  };
  const before = byKey(opening);
  for (const a of closing.acquisitions) {
    if (!opening.setup.includedIds.has(a.member.companyId)) {
      // Acquired this year: its acquisition amounts are the baseline of its lines. The consideration a
      // holder already in the group pays this year is a cash flow of the year (the acquisition line);
      // a holder acquired this year too brought its investment with it.
      const holderInOpening = opening.setup.includedIds.has(a.holderId);
      for (const e of a.entries) {
        if (e.kind === 'investment' && holderInOpening) continue;
        const f = at(e.line.id);
        f.acquired += e.atAcquisition;
        if (TRANSLATED.has(e.kind)) f.translationDifference += e.units - e.atAcquisition;
      }
    }
  }
  const after = byKey(closing);
  for (const key of new Set([...after.keys(), ...before.keys()])) {
    const [companyId, kind] = key.split('|') as [string, string];
    if (!opening.setup.includedIds.has(companyId) || !closing.setup.includedIds.has(companyId)) continue;
    const now = after.get(key);
    const was = before.get(key);
    const difference = (now?.units ?? 0n) - (was?.units ?? 0n);
    at((now ?? was)!.lineId).translationDifference += difference;
    // An investee's equity-method reserve carries the consideration the investment line gave up:
    // the same difference the other way, shared with the NCI of its holder as the reserve is.
    if (
      kind === 'investment' &&
      closing.setup.companies.get(companyId)?.consolidationMethod === 'EquityMethod'
    ) {
      investeeCounterpart(closing, opening, companyId, difference, at);
    }
  }
}
function investeeCounterpart(
  closing: ViewComputation,
  opening: ViewComputation,
  companyId: string,
  difference: bigint,
  at: (id: string) => LineFacts,
): void {
  const present = (id: string) =>
    [closing.lines.get(id), opening.lines.get(id)].some((l) => l && (l.aggregated || l.elimination || l.nci));
  const investment = `EquityMethodInvestment|${companyId}`;
  at(present(investment) ? investment : `EquityMethodReserve|${companyId}`).translationDifference -=
    difference;
}

/**
 * The NCI's share of an equity-method reserve (below a member with NCI) changes with the reserve, a
 * non-cash line: it is presented with the reserve, not as a contribution of the NCI.
 */
function investeeNciFacts(
  closing: ViewComputation,
  opening: ViewComputation,
  at: (id: string) => LineFacts,
): void {
  const ids = new Set([...closing.nciOfInvestees.keys(), ...opening.nciOfInvestees.keys()]);
  for (const id of ids) {
    const change = (closing.nciOfInvestees.get(id) ?? 0n) - (opening.nciOfInvestees.get(id) ?? 0n);
    if (change === 0n) continue;
    at(NCI_KEY).translationDifference += change;
    at(`EquityMethodReserve|${id}`).translationDifference -= change;
  }
}
