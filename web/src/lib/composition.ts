/**
 * The consolidated balance sheet by company, from the contributions the run recorded for each of its
 * asset and liability lines: what each company brings (its translated, weighted balances), what the
 * eliminations, top-side adjustments and the non-controlling interest change on those lines, and the
 * consolidated totals they add up to. A company's net assets are its assets less its liabilities, which
 * is also its share of the group's equity before the non-controlling interest is split off. Exact
 * decimal arithmetic; the API's balances are debit-positive, liabilities are shown credit-positive.
 */
import { Decimal } from 'decimal.js';
import type { ConsolidatedTrialBalance, LineContributions } from '../api/types.ts';
import { fractionDigits } from './format.ts';

export interface CompositionRow {
  /** a company id, or one of the group-level parts */
  key: string;
  label: string;
  assets: string;
  liabilities: string;
  netAssets: string;
}

export interface Composition {
  currency: string;
  companies: CompositionRow[];
  /** eliminations, adjustments, non-controlling interest and unattributed parts, those that are not zero */
  group: CompositionRow[];
  total: CompositionRow;
}

type Side = 'Asset' | 'Liability';

/** The account numbers of the closing trial balance's asset and liability lines (each once). */
export function balanceSheetAccounts(tb: Pick<ConsolidatedTrialBalance, 'lineItems'>): string[] {
  const seen = new Set<string>();
  for (const l of tb.lineItems) {
    if (l.accountType === 'Asset' || l.accountType === 'Liability') seen.add(l.accountNumber);
  }
  return [...seen];
}

interface Sums {
  label: string;
  Asset: Decimal;
  Liability: Decimal;
}

/**
 * Adds up the contributions of the asset and liability lines (`lines`: every line the contributions
 * answers returned, each with its account type from the trial balance). `order` lists company ids in
 * the order to show them (the run's members: parent first); companies it does not name follow.
 */
export function composition(
  lines: Array<{ accountType: string; line: LineContributions }>,
  currency: string,
  order: string[] = [],
): Composition {
  const companies = new Map<string, Sums>();
  const zero = () => ({ Asset: new Decimal(0), Liability: new Decimal(0) });
  const group: Record<'eliminations' | 'adjustments' | 'nci' | 'unattributed', Sums> = {
    eliminations: { label: 'Eliminations', ...zero() },
    adjustments: { label: 'Top-side adjustments', ...zero() },
    nci: { label: 'Non-controlling interest', ...zero() },
    unattributed: { label: 'Unattributed', ...zero() },
  };
  const total: Sums = { label: 'Consolidated', ...zero() };
  let digits = 2;
  for (const { accountType, line } of lines) {
    if (accountType !== 'Asset' && accountType !== 'Liability') continue;
    const side: Side = accountType;
    digits = fractionDigits(line.consolidatedBalance.value);
    for (const c of line.companies) {
      const sums = companies.get(c.companyId) ?? { label: c.companyName, ...zero() };
      sums[side] = sums[side].plus(c.amount.value);
      companies.set(c.companyId, sums);
    }
    group.eliminations[side] = group.eliminations[side].plus(line.eliminationAmount.value);
    group.adjustments[side] = group.adjustments[side].plus(line.adjustmentAmount.value);
    group.nci[side] = group.nci[side].plus(line.nciAmount.value);
    const u = line.unattributed;
    group.unattributed[side] = group.unattributed[side]
      .plus(u.aggregated.value)
      .plus(u.elimination.value)
      .plus(u.adjustment.value);
    total[side] = total[side].plus(line.consolidatedBalance.value);
  }
  const row = (key: string, s: Sums): CompositionRow => {
    // Assets are debit balances; liabilities credit balances, shown as positive amounts.
    const assets = s.Asset;
    const liabilities = s.Liability.negated();
    const fixed = (d: Decimal) => (d.isZero() ? new Decimal(0) : d).toFixed(digits);
    return {
      key,
      label: s.label,
      assets: fixed(assets),
      liabilities: fixed(liabilities),
      netAssets: fixed(assets.minus(liabilities)),
    };
  };
  const rank = (id: string) => {
    const i = order.indexOf(id);
    return i < 0 ? order.length : i;
  };
  return {
    currency,
    companies: [...companies.entries()].sort(([a], [b]) => rank(a) - rank(b)).map(([id, s]) => row(id, s)),
    group: Object.entries(group)
      .filter(([, s]) => !s.Asset.isZero() || !s.Liability.isZero())
      .map(([key, s]) => row(key, s)),
    total: row('total', total),
  };
}
