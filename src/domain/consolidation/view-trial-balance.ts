/**
 * Step 7 for one view: its consolidated trial balance. Each line's consolidated balance is
 * aggregated + elimination + adjustment + NCI (units of G's minor unit, decimal text only here); lines
 * are ordered accounts by number, then retained earnings, CTA, NCI, the equity-method lines and the
 * acquisition lines of each member by company name.
 */
import type { Money } from '../money.ts';
import { formatDerivedPercentage } from './ownership.ts';
import { scaledToString } from './scaled.ts';
import { cmpAccountNumber, cmpStr, type Setup } from './setup.ts';
import type { AccountInfo, ConsolidatedLine, NciDetail, TrialBalanceView, ViewData } from './types.ts';
import { EM_TYPES, type LineAcc, type NciCalc } from './view-types.ts';

/** What the trial balance reads of its view's computation. */
export interface TrialBalanceSource {
  readonly setup: Setup;
  readonly view: 'closing' | 'opening';
  readonly data: ViewData;
  readonly lines: ReadonlyMap<string, LineAcc>;
  readonly nci: readonly NciCalc[];
  readonly hasAdjustments: boolean;
  readonly totalEliminations: bigint;
  readonly nciShareOfOci: bigint;
  money(units: bigint): Money;
  sourceOf(accountNumber: string): AccountInfo;
}

export function trialBalanceOf(v: TrialBalanceSource): TrialBalanceView {
  const { G } = v.setup;
  const money = (units: bigint) => v.money(units);
  const out: { line: ConsolidatedLine; rank: [number, string, string, number] }[] = [];
  let debits = 0n;
  let credits = 0n;
  let revExp = 0n;
  for (const l of v.lines.values()) {
    if (l.aggregated === 0n && l.elimination === 0n && l.adjustment === 0n && l.nci === 0n) continue;
    const consolidated = l.aggregated + l.elimination + l.adjustment + l.nci;
    const attrs = lineAttributes(v, l);
    if (attrs.accountType === 'Revenue' || attrs.accountType === 'Expense') revExp += consolidated;
    const debit = consolidated > 0n ? consolidated : 0n;
    const credit = consolidated < 0n ? -consolidated : 0n;
    debits += debit;
    credits += credit;
    out.push({
      line: {
        accountNumber: l.key,
        accountName: attrs.name,
        accountType: attrs.accountType,
        accountCategory: attrs.accountCategory,
        lineType: l.lineType,
        companyId: l.companyId,
        isCashEquivalent: attrs.isCashEquivalent,
        cashFlowCategory: attrs.cashFlowCategory,
        aggregatedBalance: money(l.aggregated),
        eliminationAmount: money(l.elimination),
        ...(v.hasAdjustments ? { adjustmentAmount: money(l.adjustment) } : {}),
        nciAmount: money(l.nci),
        consolidatedBalance: money(consolidated),
        debitBalance: money(debit),
        creditBalance: money(credit),
      },
      rank: rank(v.setup, l),
    });
  }
  out.sort((a, b) => compareRank(a.rank, b.rank));
  const netIncome = -revExp;
  let niNci = 0n;
  let shareOfEquity = 0n;
  for (const d of v.nci) {
    niNci += d.shareOfNetIncome;
    shareOfEquity += d.shareOfEquity;
  }
  return {
    view: v.view,
    periodRef: { ...v.setup.input.periodRef },
    asOfDate: v.data.asOfDate,
    yearStartDate: v.setup.input.yearStartDate,
    currency: G,
    lineItems: out.map((o) => o.line),
    totalDebits: money(debits),
    totalCredits: money(credits),
    isBalanced: debits === credits,
    totalEliminations: money(v.totalEliminations),
    totalNCI: money(shareOfEquity + niNci),
    netIncome: money(netIncome),
    netIncomeAttributableToParent: money(netIncome - niNci),
    netIncomeAttributableToNCI: money(niNci),
    statementFacts: { nciShareOfOci: scaledToString(v.nciShareOfOci, v.setup.minor) },
    nonControllingInterests: v.nci.map((d): NciDetail => ({
      companyId: d.company.companyId,
      companyName: d.company.companyName,
      nonControllingInterestPercentage: formatDerivedPercentage(d.pct),
      netAssets: money(d.netAssets),
      netIncome: money(d.netIncome),
      nciShareOfEquity: money(d.shareOfEquity),
      nciShareOfNetIncome: money(d.shareOfNetIncome),
    })),
  };
}

function rank(setup: Setup, l: LineAcc): [number, string, string, number] {
  switch (l.lineType) {
    case 'Account':
      return [0, l.key, '', 0];
    case 'RetainedEarnings':
      return [1, '', '', 0];
    case 'CurrencyTranslationAdjustment':
      return [2, '', '', 0];
    case 'NonControllingInterest':
      return [3, '', '', 0];
    case 'Goodwill':
    case 'BargainPurchaseGain': {
      const c = setup.companies.get(l.companyId!)!;
      return [5, c.companyName.toLowerCase(), c.companyId, l.lineType === 'Goodwill' ? 0 : 1];
    }
    default: {
      const c = setup.companies.get(l.companyId!)!;
      return [
        4,
        c.companyName.toLowerCase(),
        c.companyId,
        EM_TYPES.indexOf(l.lineType as (typeof EM_TYPES)[number]),
      ];
    }
  }
}

function lineAttributes(
  v: TrialBalanceSource,
  l: LineAcc,
): Pick<ConsolidatedLine, 'accountType' | 'accountCategory' | 'isCashEquivalent' | 'cashFlowCategory'> & {
  name: string;
} {
  const synthetic = { isCashEquivalent: false, cashFlowCategory: null };
  const companyName = l.companyId ? v.setup.companies.get(l.companyId)!.companyName : '';
  switch (l.lineType) {
    case 'Account': {
      const a = v.sourceOf(l.key);
      return {
        name: a.name,
        accountType: a.accountType,
        accountCategory: a.accountCategory,
        isCashEquivalent: a.isCashEquivalent,
        cashFlowCategory: a.cashFlowCategory,
      };
    }
    case 'RetainedEarnings':
      return {
        name: 'Retained earnings',
        accountType: 'Equity',
        accountCategory: 'RetainedEarnings',
        ...synthetic,
      };
    case 'CurrencyTranslationAdjustment':
      return {
        name: 'Cumulative translation adjustment',
        accountType: 'Equity',
        accountCategory: 'OtherComprehensiveIncome',
        ...synthetic,
      };
    case 'NonControllingInterest':
      return {
        name: 'Non-controlling interest',
        accountType: 'Equity',
        accountCategory: 'NonControllingInterest',
        ...synthetic,
      };
    case 'EquityMethodInvestment':
      return {
        name: `Investment in ${companyName} (equity method)`,
        accountType: 'Asset',
        accountCategory: 'NonCurrentAsset',
        ...synthetic,
      };
    case 'EquityMethodIncome':
      return {
        name: `Share of profit of ${companyName}`,
        accountType: 'Revenue',
        accountCategory: 'OtherRevenue',
        ...synthetic,
      };
    case 'EquityMethodReserve':
      return {
        name: `Equity-method reserve – ${companyName}`,
        accountType: 'Equity',
        accountCategory: 'RetainedEarnings',
        ...synthetic,
      };
    case 'Goodwill':
      return {
        name: `Goodwill – ${companyName}`,
        accountType: 'Asset',
        accountCategory: 'IntangibleAsset',
        ...synthetic,
      };
    case 'BargainPurchaseGain':
      return {
        name: `Gain on the bargain purchase of ${companyName}`,
        accountType: 'Revenue',
        accountCategory: 'OtherRevenue',
        ...synthetic,
      };
  }
}

function compareRank(a: [number, string, string, number], b: [number, string, string, number]): number {
  if (a[0] !== b[0]) return a[0] - b[0];
  if (a[0] === 0) return cmpAccountNumber(a[1], b[1]);
  return cmpStr(a[1], b[1]) || cmpStr(a[2], b[2]) || a[3] - b[3];
}
