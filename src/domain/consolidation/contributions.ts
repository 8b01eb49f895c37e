/**
 * Traceability of a consolidated line: what each company, each elimination, each top-side adjustment
 * and the non-controlling interest put on it.
 *
 * `lineContributions` records them while the run still holds its working figures (a run stores them
 * with its trial balances); `contributionsAddUp` checks that the pieces of a stored line add up to its
 * consolidated balance. Every amount is an exact integer of the reporting currency's minor unit while
 * it is assembled, so the pieces add up exactly: whatever the run booked on the line that no
 * company, entry or adjustment accounts for is shown as an explicit `unattributed` amount (zero in
 * every run whose members carry no acquisition data).
 */
import { dec, type Money, roundTo } from '../money.ts';
import {
  basisCode,
  type CompanyDirectory,
  eliminationSourceCode,
  methodCode,
  type PackedCompanyRef,
  SOURCE_CODES,
} from './contributions-codec.ts';
import { toScaled } from './scaled.ts';
import type { AdjustmentInput, CompanyInput, ConsolidationMethod, LineType } from './types.ts';
import type { ViewComputation } from './view.ts';
import type { LineAcc, TranslatedItem, TranslationDetail } from './view-types.ts';

/** One translated item of a company that lands on the line. */
export interface ContributionItem {
  /** Account: a balance of the line's account; PriorYearResults: results of earlier years (retained
   * earnings); YearResults: revenue/expense of the year folded into retained earnings (opening view);
   * TranslationDifference: the company's currency translation difference */
  source: 'Account' | 'PriorYearResults' | 'YearResults' | 'TranslationDifference';
  /** the account (line key) the item was booked on before it reached this line */
  accountNumber: string;
  /** Closing, Historical, Average, None (same currency), or null when the run did not record it */
  basis: TranslationDetail['basis'] | null;
  /** in the company's functional currency, debit positive; null for the translation difference */
  functionalBalance: Money | null;
  rates: { rate: string; appliedFor: string }[];
  /** further distinct rates applied that `rates` does not list (it lists at most 12) */
  ratesOmitted: number;
  /** in the reporting currency, before weighting */
  translatedAmount: Money;
}

export interface CompanyContribution {
  companyId: string;
  companyName: string;
  consolidationMethod: ConsolidationMethod;
  functionalCurrency: string;
  /** the weight applied to its translated balances (1 fully consolidated, the stake proportionate or equity method) */
  weight: string;
  items: ContributionItem[];
  /** its part of the aggregated balance (weighted, rounded, the translation-difference line taking the rounding) */
  amount: Money;
}

export interface EliminationContribution {
  source: 'Rule' | 'Acquisition';
  eliminationRuleId: string | null;
  ruleName: string | null;
  /** the company whose balance the entry adjusts (null for group lines) */
  companyId: string | null;
  amount: Money;
}

export interface AdjustmentContribution {
  adjustmentId: string;
  companyId: string | null;
  amount: Money;
}

/** The contributions to one consolidated line of one view (all amounts debit positive). */
export interface LineContributions {
  /** the line's id within the view (account number, or type|company for per-company lines) */
  lineId: string;
  accountNumber: string;
  lineType: LineType;
  companyId: string | null;
  aggregatedBalance: Money;
  eliminationAmount: Money;
  adjustmentAmount: Money;
  nciAmount: Money;
  consolidatedBalance: Money;
  companies: CompanyContribution[];
  eliminations: EliminationContribution[];
  adjustments: AdjustmentContribution[];
  /** the non-controlling interest moved to or from the line */
  nci: Money;
  /** what no company, entry or adjustment accounts for (zero unless acquisition accounting booked it) */
  unattributed: { aggregated: Money; elimination: Money; adjustment: Money };
}

/** What the contributions of the lines of a view are built from (one pass over the view). */
interface Accumulated {
  lines: LineAcc[];
  acc: Map<string, LinePieces>;
}
interface CompanyAcc {
  items: TranslatedItem[];
  amount: bigint;
  weight: string;
}
interface LinePieces {
  companies: Map<string, CompanyAcc>;
  eliminations: { e: Omit<EliminationContribution, 'amount'>; units: bigint }[];
  adjustments: { adjustmentId: string; companyId: string | null; units: bigint }[];
}

function accumulate(v: ViewComputation, adjustments: readonly AdjustmentInput[]): Accumulated {
  const pieces = new LinePiecesOf(v);
  pieces.addCompanies();
  pieces.addEquityMethod();
  pieces.addEliminations();
  if (v.hasAdjustments) pieces.addAdjustments(adjustments);
  return { lines: pieces.lines, acc: pieces.acc };
}

/** The pieces of each live line of a view, gathered in one pass over what the view booked. */
class LinePiecesOf {
  readonly lines: LineAcc[];
  readonly acc = new Map<string, LinePieces>();
  private readonly live: Set<string>;
  private readonly byKey = new Map<string, LineAcc[]>();
  private readonly reKey: string;

  constructor(private readonly v: ViewComputation) {
    this.lines = [...v.lines.values()].filter(
      (l) => l.aggregated !== 0n || l.elimination !== 0n || l.adjustment !== 0n || l.nci !== 0n,
    );
    this.live = new Set(this.lines.map((l) => l.id));
    for (const l of this.lines) {
      const list = this.byKey.get(l.key);
      if (list) list.push(l);
      else this.byKey.set(l.key, [l]);
    }
    this.reKey = v.setup.reKey;
  }

  /**
   * The line an amount booked on `key` (for `companyId`) ended on: the key's own line, the company's
   * per-company line, or, in the opening view, the retained-earnings line revenue and expense fold into.
   */
  private resolve(key: string, companyId: string | null): string | null {
    if (this.live.has(key)) return key;
    const candidates = this.byKey.get(key);
    if (candidates?.length === 1) return candidates[0]!.id;
    const own = candidates?.find((l) => l.companyId === companyId);
    if (own) return own.id;
    if (this.v.view === 'opening' && this.live.has(this.reKey)) return this.reKey;
    return null;
  }

  private accOf(id: string): LinePieces {
    let a = this.acc.get(id);
    if (!a) {
      a = { companies: new Map(), eliminations: [], adjustments: [] };
      this.acc.set(id, a);
    }
    return a;
  }

  private companyOf(id: string, companyId: string, weight: string): CompanyAcc {
    const a = this.accOf(id);
    let c = a.companies.get(companyId);
    if (!c) {
      c = { items: [], amount: 0n, weight };
      a.companies.set(companyId, c);
    }
    return c;
  }

  /** Companies: the translated items and their weighted contributions (step 3). */
  addCompanies(): void {
    const { v } = this;
    for (const c of v.setup.consolidated) {
      const contrib = v.contributions.get(c.companyId);
      const tc = v.translated.get(c.companyId);
      if (!contrib || !tc) continue;
      const weight = String(v.setup.weight.get(c.companyId) ?? '1');
      for (const [key, units] of contrib) {
        const id = this.resolve(key, c.companyId);
        if (id === null) continue;
        this.companyOf(id, c.companyId, weight).amount += units;
      }
      for (const item of tc.items) {
        const id = this.resolve(item.key, c.companyId);
        if (id === null) continue;
        this.companyOf(id, c.companyId, weight).items.push(item);
      }
    }
  }

  /**
   * Equity-method investees: their share of net assets and results on their own lines (the income
   * line folds into retained earnings in the opening view).
   */
  addEquityMethod(): void {
    const { v, live, reKey } = this;
    for (const [lineId, em] of v.equityMethodAmounts) {
      if (em.units === 0n) continue;
      const id = live.has(lineId) ? lineId : v.view === 'opening' && live.has(reKey) ? reKey : null;
      if (id === null) continue;
      this.companyOf(id, em.companyId, v.investeeShare(em.companyId).toString()).amount += em.units;
    }
  }

  /** Eliminations: the view's journal (rules, then acquisitions). */
  addEliminations(): void {
    const { v } = this;
    const minor = v.setup.minor;
    const entries = [
      ...v.entries,
      ...v.acquisitions.map((a) => ({
        source: 'Acquisition' as const,
        eliminationRuleId: null,
        ruleName: null,
        companyId: a.analysis.companyId,
        lines: a.analysis.entries,
      })),
    ];
    for (const e of entries) {
      for (const jl of e.lines) {
        const units = (toScaled(jl.debit.value, minor) ?? 0n) - (toScaled(jl.credit.value, minor) ?? 0n);
        if (units === 0n) continue;
        const id = this.resolve(jl.accountNumber, jl.companyId);
        if (id === null) continue;
        const a = this.accOf(id);
        const prev = a.eliminations.find(
          (x) =>
            x.e.source === e.source &&
            x.e.eliminationRuleId === e.eliminationRuleId &&
            x.e.companyId === jl.companyId &&
            (e.source === 'Rule' || x.e.ruleName === e.ruleName),
        );
        if (prev) prev.units += units;
        else {
          const { source, eliminationRuleId, ruleName } = e;
          a.eliminations.push({ e: { source, eliminationRuleId, ruleName, companyId: jl.companyId }, units });
        }
      }
    }
  }

  /** Top-side adjustments (rounded as the run books them). */
  addAdjustments(adjustments: readonly AdjustmentInput[]): void {
    const minor = this.v.setup.minor;
    for (const adj of adjustments) {
      for (const al of adj.lines) {
        const units = toScaled(roundTo(dec(al.amount), minor), minor) ?? 0n;
        if (units === 0n) continue;
        const id = this.resolve(al.accountNumber, al.companyId);
        if (id === null) continue;
        const a = this.accOf(id);
        const prev = a.adjustments.find((x) => x.adjustmentId === adj.id && x.companyId === al.companyId);
        if (prev) prev.units += units;
        else a.adjustments.push({ adjustmentId: adj.id, companyId: al.companyId, units });
      }
    }
  }
}

const byCompanyId = ([x]: [string, CompanyAcc], [y]: [string, CompanyAcc]) => (x < y ? -1 : x > y ? 1 : 0);

/**
 * The contributions to every line of a view, after its trial balance was generated (the lines are
 * final then). `adjustments`: the top-side adjustments the view included (closing view).
 */
export function lineContributions(
  v: ViewComputation,
  adjustments: readonly AdjustmentInput[] = [],
): LineContributions[] {
  const money = (units: bigint) => v.money(units);
  const { lines, acc } = accumulate(v, adjustments);
  const companyById = new Map(v.setup.input.companies.map((c) => [c.companyId, c]));
  return lines.map((l): LineContributions => {
    const a: LinePieces = acc.get(l.id) ?? { companies: new Map(), eliminations: [], adjustments: [] };
    let companySum = 0n;
    const companies = [...a.companies.entries()]
      .sort(byCompanyId)
      .map(([companyId, c]): CompanyContribution => {
        companySum += c.amount;
        const info = companyById.get(companyId);
        const functionalCurrency = info?.functionalCurrency ?? v.setup.G;
        return {
          companyId,
          companyName: info?.companyName ?? '',
          consolidationMethod: info?.consolidationMethod ?? 'FullConsolidation',
          functionalCurrency,
          weight: c.weight,
          items: c.items.map((item) => itemOf(item, l.id, money, functionalCurrency)),
          amount: money(c.amount),
        };
      });
    let eliminationSum = 0n;
    const eliminations = a.eliminations
      .filter((x) => x.units !== 0n)
      .map((x) => {
        eliminationSum += x.units;
        return { ...x.e, amount: money(x.units) };
      });
    let adjustmentSum = 0n;
    const adjustmentsOut = a.adjustments
      .filter((x) => x.units !== 0n)
      .map((x) => {
        adjustmentSum += x.units;
        return { adjustmentId: x.adjustmentId, companyId: x.companyId, amount: money(x.units) };
      });
    return {
      lineId: l.id,
      accountNumber: l.key,
      lineType: l.lineType,
      companyId: l.companyId,
      aggregatedBalance: money(l.aggregated),
      eliminationAmount: money(l.elimination),
      adjustmentAmount: money(l.adjustment),
      nciAmount: money(l.nci),
      consolidatedBalance: money(l.aggregated + l.elimination + l.adjustment + l.nci),
      companies,
      eliminations,
      adjustments: adjustmentsOut,
      nci: money(l.nci),
      unattributed: {
        aggregated: money(l.aggregated - companySum),
        elimination: money(l.elimination - eliminationSum),
        adjustment: money(l.adjustment - adjustmentSum),
      },
    };
  });
}

/** A line's contributions in their stored form (`packLine`'s JSON text), with the line's ids. */
export interface StoredLineContributions {
  lineId: string;
  accountNumber: string;
  data: string;
}

/**
 * The contributions to every line of a view directly in their stored form: the same text as
 * `JSON.stringify(packLine(l, G, members))` for each line `l` of `lineContributions(v, adjustments)`,
 * without building the API form first. `members`: the run's members, in the order the run stores them.
 * In slices: it yields after gathering the pieces and after each line it writes, so that a caller can
 * let other work run in between (a large run writes a few hundred lines of several kilobytes each).
 */
export function* storedLineContributionsInSlices(
  v: ViewComputation,
  adjustments: readonly AdjustmentInput[],
  members: CompanyDirectory,
): Generator<void, StoredLineContributions[], void> {
  const { lines, acc } = accumulate(v, adjustments);
  yield;
  const writer = new StoredTextWriter(v, members);
  const out: StoredLineContributions[] = new Array(lines.length);
  for (let n = 0; n < lines.length; n++) {
    const l = lines[n]!;
    out[n] = { lineId: l.id, accountNumber: l.key, data: writer.line(l, acc.get(l.id)) };
    yield;
  }
  return out;
}

/**
 * Writes the stored text of lines exactly as JSON.stringify writes the packed arrays (no spaces;
 * decimal texts, being digits, '-' and '.', need no escaping; other texts go through JSON.stringify,
 * memoised). The text is assembled as bytes in one reused buffer and becomes a string once per line:
 * a large run writes about 120,000 items, and building their text from small strings allocated
 * about ten times the text's size.
 */
class StoredTextWriter {
  private readonly minor: number;
  private readonly companyById: Map<string, CompanyInput>;
  private readonly quoted = new Map<string, string>();
  private readonly refTexts = new Map<string, string>();
  private readonly out = new TextBytes();
  /** the distinct rates of the line being written (texts of their pairs), indexed by rate and date */
  private rates: string[] = [];
  private rateIndex = new Map<string, Map<string, number>>();

  constructor(
    private readonly v: ViewComputation,
    private readonly members: CompanyDirectory,
  ) {
    this.minor = v.setup.minor;
    this.companyById = new Map(v.setup.input.companies.map((c) => [c.companyId, c]));
  }

  private q(t: string): string {
    let out = this.quoted.get(t);
    if (out === undefined) {
      out = JSON.stringify(t);
      this.quoted.set(t, out);
    }
    return out;
  }

  private qn(t: string | null): string {
    return t === null ? 'null' : this.q(t);
  }

  /** Per company: its reference in the stored form (the member's index, or its facts), as text. */
  private refText(companyId: string): string {
    let t = this.refTexts.get(companyId);
    if (t === undefined) {
      const info = this.companyById.get(companyId);
      const entry = {
        companyId,
        companyName: info?.companyName ?? '',
        consolidationMethod: info?.consolidationMethod ?? 'FullConsolidation',
        functionalCurrency: info?.functionalCurrency ?? this.v.setup.G,
      };
      const ref: PackedCompanyRef = this.members.refOf(entry) ?? [
        companyId,
        entry.companyName,
        methodCode(entry.consolidationMethod),
        entry.functionalCurrency,
      ];
      t = typeof ref === 'number' ? String(ref) : JSON.stringify(ref);
      this.refTexts.set(companyId, t);
    }
    return t;
  }

  private rateRef(r: { rate: string; appliedFor: string }): number {
    let byDate = this.rateIndex.get(r.rate);
    if (byDate === undefined) {
      byDate = new Map();
      this.rateIndex.set(r.rate, byDate);
    }
    let i = byDate.get(r.appliedFor);
    if (i === undefined) {
      i = this.rates.length;
      this.rates.push(`[${this.q(r.rate)},${this.q(r.appliedFor)}]`);
      byDate.set(r.appliedFor, i);
    }
    return i;
  }

  line(l: LineAcc, a: LinePieces | undefined): string {
    this.rates = [];
    this.rateIndex = new Map();
    const { out, minor } = this;
    // The unattributed amounts come before the pieces they are the rest of.
    let companySum = 0n;
    for (const c of a?.companies.values() ?? []) companySum += c.amount;
    let eliminationSum = 0n;
    for (const x of a?.eliminations ?? []) eliminationSum += x.units;
    let adjustmentSum = 0n;
    for (const x of a?.adjustments ?? []) adjustmentSum += x.units;

    out.text('[2,');
    out.text(this.q(l.lineType));
    out.comma();
    out.text(this.qn(l.companyId));
    out.text(',[');
    const amounts = [
      l.aggregated,
      l.elimination,
      l.adjustment,
      l.nci,
      l.aggregated + l.elimination + l.adjustment + l.nci,
      l.nci,
      l.aggregated - companySum,
      l.elimination - eliminationSum,
      l.adjustment - adjustmentSum,
    ];
    for (let k = 0; k < amounts.length; k++) {
      if (k > 0) out.comma();
      out.amount(amounts[k]!, minor);
    }
    out.text('],[');
    if (a) {
      let first = true;
      for (const [companyId, c] of [...a.companies.entries()].sort(byCompanyId)) {
        if (!first) out.comma();
        first = false;
        out.byte(OPEN);
        out.text(this.refText(companyId));
        out.comma();
        out.text(this.q(c.weight));
        out.comma();
        out.amount(c.amount, minor);
        out.text(',[');
        this.items(l, c.items);
        out.text(']]');
      }
    }
    out.text('],[');
    let first = true;
    for (const x of a?.eliminations ?? []) {
      if (x.units === 0n) continue;
      if (!first) out.comma();
      first = false;
      out.byte(OPEN);
      out.text(String(eliminationSourceCode(x.e.source)));
      out.comma();
      out.text(this.qn(x.e.eliminationRuleId));
      out.comma();
      out.text(x.e.ruleName === null ? 'null' : JSON.stringify(x.e.ruleName));
      out.comma();
      out.text(this.qn(x.e.companyId));
      out.comma();
      out.amount(x.units, minor);
      out.byte(CLOSE);
    }
    out.text('],[');
    first = true;
    for (const x of a?.adjustments ?? []) {
      if (x.units === 0n) continue;
      if (!first) out.comma();
      first = false;
      out.byte(OPEN);
      out.text(this.q(x.adjustmentId));
      out.comma();
      out.text(this.qn(x.companyId));
      out.comma();
      out.amount(x.units, minor);
      out.byte(CLOSE);
    }
    out.text('],[');
    for (let k = 0; k < this.rates.length; k++) {
      if (k > 0) out.comma();
      out.text(this.rates[k]!);
    }
    out.text(']]');
    return out.take();
  }

  /** The items of one company on the line. */
  private items(l: LineAcc, list: readonly TranslatedItem[]): void {
    const { out } = this;
    for (let k = 0; k < list.length; k++) {
      const item = list[k]!;
      const d = item.detail;
      if (k > 0) out.comma();
      out.byte(OPEN);
      out.text(String(sourceCode(item, l.id)));
      out.comma();
      out.text(item.key === l.key ? 'null' : this.q(item.key));
      out.comma();
      out.text(item.kind === 'cta' || !d ? 'null' : String(basisCode(d.basis)));
      out.comma();
      if (d) out.quoted(d.functional);
      else out.text('null');
      out.text(',[');
      if (d) {
        for (let r = 0; r < d.rates.length; r++) {
          if (r > 0) out.comma();
          out.text(String(this.rateRef(d.rates[r]!)));
        }
      }
      out.text('],');
      out.text(String(d?.ratesOmitted ?? 0));
      out.comma();
      out.amount(item.units, this.minor);
      out.byte(CLOSE);
    }
  }
}

const OPEN = 0x5b; // [
const CLOSE = 0x5d; // ]
const COMMA = 0x2c;
const QUOTE = 0x22;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;

/** Text assembled as UTF-8 bytes in a reused buffer, taken as a string when complete. */
class TextBytes {
  private buf = Buffer.allocUnsafe(1 << 16);
  private pos = 0;
  private ascii = true;

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  byte(c: number): void {
    this.room(1);
    this.buf[this.pos++] = c;
  }

  comma(): void {
    this.byte(COMMA);
  }

  text(s: string): void {
    const n = s.length;
    this.room(n * 3); // at most three bytes per UTF-16 unit
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        this.ascii = false;
        this.pos = p + b.write(s.slice(i), p, 'utf8');
        return;
      }
      b[p++] = c;
    }
    this.pos = p;
  }

  /** A decimal text (digits, '-', '.'), quoted: it needs no escaping. */
  quoted(s: string): void {
    this.byte(QUOTE);
    this.text(s);
    this.byte(QUOTE);
  }

  /** `units` of the minor unit as a quoted decimal text with `minor` fraction digits (as `scaledToString`). */
  amount(units: bigint, minor: number): void {
    const negative = units < 0n;
    const digits = (negative ? -units : units).toString();
    const pad = digits.length <= minor ? minor - digits.length + 1 : 0;
    this.room(digits.length + pad + 4);
    const b = this.buf;
    let p = this.pos;
    b[p++] = QUOTE;
    if (negative) b[p++] = MINUS;
    const whole = digits.length + pad - minor; // digits before the point, padding included
    let k = 0;
    for (let i = 0; i < digits.length + pad; i++) {
      if (i === whole && minor > 0) b[p++] = DOT;
      b[p++] = i < pad ? ZERO : digits.charCodeAt(k++);
    }
    b[p++] = QUOTE;
    this.pos = p;
  }

  take(): string {
    const s = this.buf.toString(this.ascii ? 'latin1' : 'utf8', 0, this.pos);
    this.pos = 0;
    this.ascii = true;
    return s;
  }
}

function sourceCode(item: TranslatedItem, lineId: string): number {
  return item.kind === 'cta'
    ? SOURCE_CODES.TranslationDifference
    : item.kind === 'priorYear'
      ? SOURCE_CODES.PriorYearResults
      : item.key !== lineId && (item.accountType === 'Revenue' || item.accountType === 'Expense')
        ? SOURCE_CODES.YearResults
        : SOURCE_CODES.Account;
}

function itemOf(
  item: TranslatedItem,
  lineId: string,
  money: (units: bigint) => Money,
  functionalCurrency: string,
): ContributionItem {
  const source: ContributionItem['source'] =
    item.kind === 'cta'
      ? 'TranslationDifference'
      : item.kind === 'priorYear'
        ? 'PriorYearResults'
        : item.key !== lineId && (item.accountType === 'Revenue' || item.accountType === 'Expense')
          ? 'YearResults'
          : 'Account';
  const d = item.detail;
  return {
    source,
    accountNumber: item.key,
    basis: item.kind === 'cta' ? null : (d?.basis ?? null),
    functionalBalance: d ? { value: d.functional, currency: functionalCurrency } : null,
    rates: d?.rates ?? [],
    ratesOmitted: d?.ratesOmitted ?? 0,
    translatedAmount: money(item.units),
  };
}

/** Units of a Money text in the minor unit (exact: the stored amounts are). */
function units(m: Money, minor: number): bigint {
  return toScaled(m.value, minor) ?? 0n;
}

/**
 * Checks that the pieces of a line add up to its consolidated balance: Σ companies + unattributed
 * aggregated = aggregatedBalance, Σ eliminations + unattributed = eliminationAmount, Σ adjustments +
 * unattributed = adjustmentAmount, nci = nciAmount, and their sum = consolidatedBalance.
 */
export function contributionsAddUp(l: LineContributions, minor: number): boolean {
  const sum = (xs: { amount: Money }[]) => xs.reduce((s, x) => s + units(x.amount, minor), 0n);
  const agg = sum(l.companies) + units(l.unattributed.aggregated, minor);
  const elim = sum(l.eliminations) + units(l.unattributed.elimination, minor);
  const adj = sum(l.adjustments) + units(l.unattributed.adjustment, minor);
  const nci = units(l.nci, minor);
  return (
    agg === units(l.aggregatedBalance, minor) &&
    elim === units(l.eliminationAmount, minor) &&
    adj === units(l.adjustmentAmount, minor) &&
    nci === units(l.nciAmount, minor) &&
    agg + elim + adj + nci === units(l.consolidatedBalance, minor)
  );
}
