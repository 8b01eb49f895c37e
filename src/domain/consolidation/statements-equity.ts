/**
 * The consolidated statement of changes in equity: opening balances from the opening view, closing
 * balances from the closing view, the year's movements by type, with a non-controlling-interest column.
 */

import { type Decimal, dec, money, ZERO } from '../money.ts';

import type { ConsolidatedLine, TrialBalanceView } from './types.ts';
import {
  dp,
  periodHeader,
  type ConsolidatedEquityStatement,
  type EquityRow,
  type StatementContext,
} from './statements.ts';

type Column =
  'contributedCapital' | 'retainedEarnings' | 'treasuryStock' | 'accumulatedOCI' | 'nonControllingInterest';
const COLUMNS: Column[] = [
  'contributedCapital',
  'retainedEarnings',
  'treasuryStock',
  'accumulatedOCI',
  'nonControllingInterest',
];
type Amounts = Record<Column, Decimal>;

function zeroAmounts(): Amounts {
  return {
    contributedCapital: ZERO,
    retainedEarnings: ZERO,
    treasuryStock: ZERO,
    accumulatedOCI: ZERO,
    nonControllingInterest: ZERO,
  };
}

type EquityGroup = 'cc' | 'reLine' | 'reOther' | 'emReserve' | 'ts' | 'oci' | 'nci';

/** Which column (and which movement group) an equity line belongs to. */
function equityGroup(l: ConsolidatedLine, reKey: string): EquityGroup | null {
  if (l.accountType !== 'Equity') return null;
  if (l.lineType === 'NonControllingInterest') return 'nci';
  if (l.lineType === 'EquityMethodReserve') return 'emReserve';
  if (l.accountNumber === reKey && l.companyId === null) return 'reLine';
  switch (l.accountCategory) {
    case 'ContributedCapital':
      return 'cc';
    case 'TreasuryStock':
      return 'ts';
    case 'OtherComprehensiveIncome':
      return 'oci';
    case 'RetainedEarnings':
      return 'reOther';
    default:
      return null;
  }
}

const GROUP_COLUMN: Record<EquityGroup, Column> = {
  cc: 'contributedCapital',
  reLine: 'retainedEarnings',
  reOther: 'retainedEarnings',
  emReserve: 'retainedEarnings',
  ts: 'treasuryStock',
  oci: 'accumulatedOCI',
  nci: 'nonControllingInterest',
};

function groupTotals(tb: TrialBalanceView, reKey: string): Record<EquityGroup, Decimal> {
  const t: Record<EquityGroup, Decimal> = {
    cc: ZERO,
    reLine: ZERO,
    reOther: ZERO,
    emReserve: ZERO,
    ts: ZERO,
    oci: ZERO,
    nci: ZERO,
  };
  for (const l of tb.lineItems) {
    const g = equityGroup(l, reKey);
    if (g) t[g] = t[g].plus(dp(l).neg());
  }
  return t;
}

function row(type: EquityRow['movementType'], description: string, a: Amounts, currency: string): EquityRow {
  let total = ZERO;
  for (const c of COLUMNS) total = total.plus(a[c]);
  return {
    movementType: type,
    description,
    contributedCapital: money(a.contributedCapital, currency),
    retainedEarnings: money(a.retainedEarnings, currency),
    treasuryStock: money(a.treasuryStock, currency),
    accumulatedOCI: money(a.accumulatedOCI, currency),
    nonControllingInterest: money(a.nonControllingInterest, currency),
    total: money(total, currency),
  };
}

function balancesAt(tb: TrialBalanceView, reKey: string): Amounts {
  const g = groupTotals(tb, reKey);
  const a = zeroAmounts();
  for (const k of Object.keys(g) as EquityGroup[]) a[GROUP_COLUMN[k]] = a[GROUP_COLUMN[k]].plus(g[k]);
  // Unclosed earnings of the view (zero in the opening view, where they are folded into the RE line).
  a.retainedEarnings = a.retainedEarnings.plus(dec(tb.netIncomeAttributableToParent.value));
  a.nonControllingInterest = a.nonControllingInterest.plus(dec(tb.netIncomeAttributableToNCI.value));
  return a;
}

/** The NCI's share of accumulated OCI of a view (zero for runs completed before it was recorded). */
function nciShareOfOci(tb: TrialBalanceView): Decimal {
  return dec(tb.statementFacts?.nciShareOfOci ?? '0');
}

export function buildConsolidatedEquityStatement(
  ctx: StatementContext,
  opening: TrialBalanceView,
  closing: TrialBalanceView,
): ConsolidatedEquityStatement {
  const cur = ctx.currency;
  const reKey = ctx.retainedEarningsLine ?? 'RETAINED_EARNINGS';
  const open = balancesAt(opening, reKey);
  const close = balancesAt(closing, reKey);
  const go = groupTotals(opening, reKey);
  const gc = groupTotals(closing, reKey);
  const delta = (g: EquityGroup) => gc[g].minus(go[g]);
  const niParent = dec(closing.netIncomeAttributableToParent.value).minus(
    dec(opening.netIncomeAttributableToParent.value),
  );
  const niNci = dec(closing.netIncomeAttributableToNCI.value).minus(
    dec(opening.netIncomeAttributableToNCI.value),
  );
  const mk = (partial: Partial<Amounts>): Amounts => ({ ...zeroAmounts(), ...partial });
  // The NCI's share of OCI (translation differences) is other comprehensive income of the NCI column.
  const nciOci = nciShareOfOci(closing).minus(nciShareOfOci(opening));
  const movements = [
    row('NetIncome', 'Net Income', mk({ retainedEarnings: niParent, nonControllingInterest: niNci }), cur),
    row(
      'OtherComprehensiveIncome',
      'Other Comprehensive Income',
      mk({ accumulatedOCI: delta('oci'), nonControllingInterest: nciOci }),
      cur,
    ),
    row('DividendsDeclared', 'Dividends Declared', mk({ retainedEarnings: delta('reOther') }), cur),
    row('StockIssuance', 'Stock Issuance', mk({ contributedCapital: delta('cc') }), cur),
    row('StockRepurchase', 'Stock Repurchase', mk({ treasuryStock: delta('ts') }), cur),
    row(
      'Other',
      'Other Adjustments',
      mk({
        retainedEarnings: delta('reLine').plus(delta('emReserve')),
        nonControllingInterest: delta('nci').minus(nciOci),
      }),
      cur,
    ),
  ];
  return {
    ...periodHeader(ctx, cur),
    openingBalances: row('OpeningBalance', 'Opening Balance', open, cur),
    movements,
    closingBalances: row('ClosingBalance', 'Closing Balance', close, cur),
  };
}
