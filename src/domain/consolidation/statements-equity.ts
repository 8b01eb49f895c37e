/**
 * The consolidated statement of changes in equity: opening balances from the opening view, closing
 * balances from the closing view, the year's movements by type, with a non-controlling-interest column.
 */

import { type Decimal, dec, ZERO } from '../money.ts';
import { type EquityColumn, equityStatementRows } from '../reports/equity-statement.ts';

import type { ConsolidatedLine, TrialBalanceView } from './types.ts';
import { dp, periodHeader, type ConsolidatedEquityStatement, type StatementContext } from './statements.ts';

type EquityGroup = 'cc' | 'reLine' | 'reOther' | 'emReserve' | 'ts' | 'oci' | 'nci';

/** Which movement group (and so which column) an equity line belongs to. */
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

/** The balances of a view by column; the retained-earnings column gathers three groups. */
function balancesAt(tb: TrialBalanceView, reKey: string): Record<EquityColumn, Decimal> {
  const g = groupTotals(tb, reKey);
  return {
    contributedCapital: g.cc,
    // Unclosed earnings of the view (zero in the opening view, where they are folded into the RE line).
    retainedEarnings: g.reLine
      .plus(g.reOther)
      .plus(g.emReserve)
      .plus(dec(tb.netIncomeAttributableToParent.value)),
    treasuryStock: g.ts,
    accumulatedOCI: g.oci,
    nonControllingInterest: g.nci.plus(dec(tb.netIncomeAttributableToNCI.value)),
  };
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
  const go = groupTotals(opening, reKey);
  const gc = groupTotals(closing, reKey);
  const delta = (g: EquityGroup) => gc[g].minus(go[g]);
  const niParent = dec(closing.netIncomeAttributableToParent.value).minus(
    dec(opening.netIncomeAttributableToParent.value),
  );
  const niNci = dec(closing.netIncomeAttributableToNCI.value).minus(
    dec(opening.netIncomeAttributableToNCI.value),
  );
  // The NCI's share of OCI (translation differences) is other comprehensive income of the NCI column.
  const nciOci = nciShareOfOci(closing).minus(nciShareOfOci(opening));
  return {
    ...periodHeader(ctx, cur),
    ...equityStatementRows({
      currency: cur,
      opening: balancesAt(opening, reKey),
      movements: {
        NetIncome: { retainedEarnings: niParent, nonControllingInterest: niNci },
        OtherComprehensiveIncome: { accumulatedOCI: delta('oci'), nonControllingInterest: nciOci },
        DividendsDeclared: { retainedEarnings: delta('reOther') },
        StockIssuance: { contributedCapital: delta('cc') },
        StockRepurchase: { treasuryStock: delta('ts') },
        Other: {
          retainedEarnings: delta('reLine').plus(delta('emReserve')),
          nonControllingInterest: delta('nci').minus(nciOci),
        },
      },
      closing: balancesAt(closing, reKey),
    }),
  };
}
