/**
 * The line contributions in their stored form, written directly: the text a run stores per line is
 * exactly `JSON.stringify(packLine(…))` of the line's contributions (see `contributions-codec.ts`), made
 * without building the API form first. A large run stores about 120,000 items, so the text is written
 * as bytes into one reused buffer and becomes a string once per line.
 */
import {
  basisCode,
  type CompanyDirectory,
  eliminationSourceCode,
  methodCode,
  type PackedCompanyRef,
  SOURCE_CODES,
} from './contributions-codec.ts';
import { accumulate, byCompanyId, type LinePieces } from './contributions.ts';
import type { AdjustmentInput, CompanyInput } from './types.ts';
import type { ViewComputation } from './view.ts';
import type { LineAcc, TranslatedItem } from './view-types.ts';

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
