/**
 * The stored form of a line's contributions. A run of a large group traces tens of thousands of
 * (company, account) pieces; written as the API shows them (named fields, a currency on every amount,
 * the company's name and method on every line, each company's rates again on every item) that is
 * about 100 MB of JSON for 200 companies. The stored form keeps exactly the same facts in positional
 * arrays: amounts as decimal text without their currency (every amount of a line is in the reporting
 * currency, a functional balance in its company's functional currency), codes for the vocabularies,
 * and the line's distinct rates once, referenced by index. `unpackLine(packLine(l))` equals `l`.
 *
 * Version 2 also leaves out what every line of a run repeats: a company is named by its index in the
 * run's members (the `CompanyDirectory`) when the member's name, method and functional currency are
 * those of the contribution, and an item's account number is left out when it is the line's own.
 * That makes the stored contributions of a 200-company run about a third of version 1's. Lines
 * stored in version 1 are still read.
 */
import type { Money } from '../money.ts';
import type {
  AdjustmentContribution,
  CompanyContribution,
  ContributionItem,
  EliminationContribution,
  LineContributions,
} from './contributions.ts';
import type { ConsolidationMethod, LineType } from './types.ts';

const SOURCES = ['Account', 'PriorYearResults', 'YearResults', 'TranslationDifference'] as const;
const BASES = ['Closing', 'Historical', 'Average', 'None'] as const;
const METHODS = ['FullConsolidation', 'ProportionateConsolidation', 'EquityMethod'] as const;
const ELIMINATION_SOURCES = ['Rule', 'Acquisition'] as const;

type PackedItem = [
  source: number,
  accountNumber: string,
  basis: number | null,
  functionalBalance: string | null,
  rates: number[],
  ratesOmitted: number,
  translatedAmount: string,
];
type PackedCompany = [
  companyId: string,
  companyName: string,
  method: number,
  functionalCurrency: string,
  weight: string,
  amount: string,
  items: PackedItem[],
];
export type PackedElimination = [
  source: number,
  ruleId: string | null,
  ruleName: string | null,
  companyId: string | null,
  amount: string,
];
export type PackedAdjustment = [adjustmentId: string, companyId: string | null, amount: string];

/** Version 2 of a company: its index in the run's members, or its facts when they differ from them. */
export type PackedCompanyRef =
  number | [companyId: string, companyName: string, method: number, functionalCurrency: string];
export type PackedCompany2 = [
  company: PackedCompanyRef,
  weight: string,
  amount: string,
  items: PackedItem2[],
];
/** Version 2 of an item: the account number is null when it is the line's own. */
export type PackedItem2 = [
  source: number,
  accountNumber: string | null,
  basis: number | null,
  functionalBalance: string | null,
  rates: number[],
  ratesOmitted: number,
  translatedAmount: string,
];

/** What a run knows of its member companies: stored once on the run instead of on every line. */
export interface DirectoryEntry {
  companyId: string;
  companyName: string;
  consolidationMethod: ConsolidationMethod;
  functionalCurrency: string;
}

/** A run's members in their stored order, by index and by company id. */
export class CompanyDirectory {
  private readonly index = new Map<string, number>();
  constructor(readonly entries: readonly DirectoryEntry[]) {
    entries.forEach((e, i) => this.index.set(e.companyId, i));
  }
  /** The member's index when `c` names it with the same facts; undefined otherwise. */
  refOf(c: DirectoryEntry): number | undefined {
    const i = this.index.get(c.companyId);
    if (i === undefined) return undefined;
    const e = this.entries[i]!;
    return e.companyName === c.companyName &&
      e.consolidationMethod === c.consolidationMethod &&
      e.functionalCurrency === c.functionalCurrency
      ? i
      : undefined;
  }
}

const NO_MEMBERS = new CompanyDirectory([]);

type PackedAmounts = [
  aggregated: string,
  elimination: string,
  adjustment: string,
  nciAmount: string,
  consolidated: string,
  nci: string,
  unattributedAggregated: string,
  unattributedElimination: string,
  unattributedAdjustment: string,
];

/** Version 1 of the stored form (read only). */
export type PackedLine1 = [
  version: 1,
  lineType: LineType,
  companyId: string | null,
  amounts: PackedAmounts,
  companies: PackedCompany[],
  eliminations: PackedElimination[],
  adjustments: PackedAdjustment[],
  rates: [rate: string, appliedFor: string][],
];

/** Version 2 of the stored form (written). */
export type PackedLine2 = [
  version: 2,
  lineType: LineType,
  companyId: string | null,
  amounts: PackedAmounts,
  companies: PackedCompany2[],
  eliminations: PackedElimination[],
  adjustments: PackedAdjustment[],
  rates: [rate: string, appliedFor: string][],
];

export type PackedLine = PackedLine1 | PackedLine2;

/** Codes of the stored form, for writers that pack without the API form (contributions-stored.ts). */
export const SOURCE_CODES = {
  Account: 0,
  PriorYearResults: 1,
  YearResults: 2,
  TranslationDifference: 3,
} as const satisfies Record<(typeof SOURCES)[number], number>;
export const basisCode = (basis: (typeof BASES)[number]): number => code(BASES, basis);
export const methodCode = (method: ConsolidationMethod): number => code(METHODS, method);
export const eliminationSourceCode = (source: (typeof ELIMINATION_SOURCES)[number]): number =>
  code(ELIMINATION_SOURCES, source);

function code<T extends string>(list: readonly T[], value: T): number {
  const i = list.indexOf(value);
  if (i < 0) throw new Error(`Cannot store the contribution value ${value}`);
  return i;
}

function valueIn(m: Money, currency: string): string {
  if (m.currency !== currency) throw new Error(`A contribution amount in ${m.currency}, not ${currency}`);
  return m.value;
}

/**
 * The stored form of a line whose amounts are in `currency` (the run's reporting currency);
 * `members`: the run's members, in the order the run stores them.
 */
export function packLine(
  l: LineContributions,
  currency: string,
  members: CompanyDirectory = NO_MEMBERS,
): PackedLine2 {
  const rates: [string, string][] = [];
  const rateIndex = new Map<string, number>();
  const rateRef = (r: { rate: string; appliedFor: string }) => {
    const key = `${r.rate}|${r.appliedFor}`;
    let i = rateIndex.get(key);
    if (i === undefined) {
      i = rates.length;
      rates.push([r.rate, r.appliedFor]);
      rateIndex.set(key, i);
    }
    return i;
  };
  const v = (m: Money) => valueIn(m, currency);
  return [
    2,
    l.lineType,
    l.companyId,
    [
      v(l.aggregatedBalance),
      v(l.eliminationAmount),
      v(l.adjustmentAmount),
      v(l.nciAmount),
      v(l.consolidatedBalance),
      v(l.nci),
      v(l.unattributed.aggregated),
      v(l.unattributed.elimination),
      v(l.unattributed.adjustment),
    ],
    l.companies.map((c): PackedCompany2 => [
      members.refOf(c) ?? [
        c.companyId,
        c.companyName,
        code(METHODS, c.consolidationMethod),
        c.functionalCurrency,
      ],
      c.weight,
      v(c.amount),
      c.items.map((i): PackedItem2 => [
        code(SOURCES, i.source),
        i.accountNumber === l.accountNumber ? null : i.accountNumber,
        i.basis === null ? null : code(BASES, i.basis),
        i.functionalBalance === null ? null : valueIn(i.functionalBalance, c.functionalCurrency),
        i.rates.map(rateRef),
        i.ratesOmitted,
        v(i.translatedAmount),
      ]),
    ]),
    l.eliminations.map((e): PackedElimination => [
      code(ELIMINATION_SOURCES, e.source),
      e.eliminationRuleId,
      e.ruleName,
      e.companyId,
      v(e.amount),
    ]),
    l.adjustments.map((a): PackedAdjustment => [a.adjustmentId, a.companyId, v(a.amount)]),
    rates,
  ];
}

/** Version 1 companies in the shape of version 2's. */
function companiesOf(p: PackedLine): PackedCompany2[] {
  if (p[0] === 2) return p[4];
  return p[4].map(([id, name, method, functionalCurrency, weight, amount, items]) => [
    [id, name, method, functionalCurrency],
    weight,
    amount,
    items,
  ]);
}

/** A stored line back in the form the API shows; `accountNumber` and `lineId` are stored beside it. */
export function unpackLine(
  p: PackedLine,
  ids: { lineId: string; accountNumber: string },
  currency: string,
  members: CompanyDirectory = NO_MEMBERS,
): LineContributions {
  const [, lineType, companyId, amounts, , eliminations, adjustments, rates] = p;
  const companies = companiesOf(p);
  const m = (value: string): Money => ({ value, currency });
  const [agg, elim, adj, nciAmount, consolidated, nci, uAgg, uElim, uAdj] = amounts;
  return {
    lineId: ids.lineId,
    accountNumber: ids.accountNumber,
    lineType,
    companyId,
    aggregatedBalance: m(agg),
    eliminationAmount: m(elim),
    adjustmentAmount: m(adj),
    nciAmount: m(nciAmount),
    consolidatedBalance: m(consolidated),
    companies: companies.map(([ref, weight, amount, items]): CompanyContribution => {
      const company = companyOf(ref, members);
      const functionalCurrency = company.functionalCurrency;
      return {
        ...company,
        weight,
        items: items.map(
          ([source, accountNumber, basis, functional, refs, ratesOmitted, translated]): ContributionItem => ({
            source: SOURCES[source]!,
            accountNumber: accountNumber ?? ids.accountNumber,
            basis: basis === null ? null : BASES[basis]!,
            functionalBalance:
              functional === null ? null : { value: functional, currency: functionalCurrency },
            rates: refs.map((r) => ({ rate: rates[r]![0], appliedFor: rates[r]![1] })),
            ratesOmitted,
            translatedAmount: m(translated),
          }),
        ),
        amount: m(amount),
      };
    }),
    eliminations: eliminations.map(
      ([source, ruleId, ruleName, company, amount]): EliminationContribution => ({
        source: ELIMINATION_SOURCES[source]!,
        eliminationRuleId: ruleId,
        ruleName,
        companyId: company,
        amount: m(amount),
      }),
    ),
    adjustments: adjustments.map(([adjustmentId, company, amount]): AdjustmentContribution => ({
      adjustmentId,
      companyId: company,
      amount: m(amount),
    })),
    nci: m(nci),
    unattributed: { aggregated: m(uAgg), elimination: m(uElim), adjustment: m(uAdj) },
  };
}

function companyOf(ref: PackedCompanyRef, members: CompanyDirectory): DirectoryEntry {
  if (typeof ref !== 'number') {
    const [companyId, companyName, method, functionalCurrency] = ref;
    return { companyId, companyName, consolidationMethod: METHODS[method]!, functionalCurrency };
  }
  const e = members.entries[ref];
  if (!e) throw new Error(`A stored contribution names member ${ref}, which the run does not have`);
  return {
    companyId: e.companyId,
    companyName: e.companyName,
    consolidationMethod: e.consolidationMethod,
    functionalCurrency: e.functionalCurrency,
  };
}
