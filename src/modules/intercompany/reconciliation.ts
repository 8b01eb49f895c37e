/**
 * The read-only `reconciliation` of an intercompany transaction (an addition to; see
 * docs/decisions.md "Intercompany reconciliation"): what each side's linked journal entry books against
 * the other company, in the transaction's currency, and their difference.
 *
 * Sign convention: amounts are oriented economic amounts, positive in the normal case.
 *   - Only lines that name the other company as `intercompanyPartnerId` count.
 *   - When such lines exist on Asset or Liability accounts, those carry the intercompany balance:
 *       from side (seller/lender):  fromAmount = debits − credits   (receivable booked as a debit)
 *       to side (buyer/borrower):   toAmount   = credits − debits   (payable booked as a credit)
 *   - Otherwise the Revenue/Expense/Equity lines are used with the opposite orientation:
 *       from side: credits − debits (revenue, dividend income);  to side: debits − credits (expense).
 *     In a balanced entry whose partner-tagged lines are the balance AND the result line, both rules
 *     give the same number, so tagging both lines never double-counts.
 *   - A linked entry without partner-tagged lines contributes 0.
 *   - difference = fromAmount − toAmount; a perfect match gives "0.00".
 * Each side is converted from its company's functional currency to the transaction's currency at the
 * Spot rate effective on or before the transaction date (the shared procedure) and rounded to
 * the currency's minor unit (resolved through `loadRateBook`, which gives the same result as
 * `resolveRateFor`). A side that is not linked, or whose rate is missing, is null, and so is
 * the difference.
 */
import type { Queryable } from '../../db/client.ts';
import { type Decimal, dec, type Money, money, roundMoney, ZERO } from '../../domain/money.ts';
import { loadRateBook, type RateBook } from '../exchange-rates/service.ts';
import { type IntercompanyRow, type PartnerLineSums, partnerLineSums, type SideRequest } from './repo.ts';

export interface Reconciliation {
  fromAmount: Money | null;
  toAmount: Money | null;
  difference: Money | null;
}

type Side = 'from' | 'to';

/** The oriented functional amount of one side from its partner-line sums (see the module comment). */
export function sideAmount(side: Side, sums: readonly PartnerLineSums[]): Decimal {
  const balance = sums.filter((s) => s.isBalance === true);
  const used = balance.length > 0 ? balance : sums.filter((s) => s.isBalance === false);
  let net = ZERO; // debits − credits
  for (const s of used) net = net.plus(dec(s.debits)).minus(dec(s.credits));
  const usesBalance = balance.length > 0;
  // from side: balance lines debit-positive, result lines credit-positive; to side: the opposite.
  const debitPositive = side === 'from' ? usesBalance : !usesBalance;
  return debitPositive ? net : net.negated();
}

const sideKey = (entryId: string, partnerId: string) => `${entryId}|${partnerId}`;

/**
 * Reconciliation of every row: one query for the partner lines of all linked entries; when a side's
 * functional currency differs from the transaction currency, one rate book per organization
 * (`loadRateBook`: the shared resolution procedure over rates loaded once), never a query per row.
 */
export async function reconcileAll(
  db: Queryable,
  rows: readonly IntercompanyRow[],
): Promise<Map<string, Reconciliation>> {
  const sides: SideRequest[] = [];
  for (const r of rows) {
    if (r.fromJournalEntryId) {
      sides.push({
        organizationId: r.organizationId,
        entryId: r.fromJournalEntryId,
        companyId: r.fromCompanyId,
        partnerId: r.toCompanyId,
      });
    }
    if (r.toJournalEntryId) {
      sides.push({
        organizationId: r.organizationId,
        entryId: r.toJournalEntryId,
        companyId: r.toCompanyId,
        partnerId: r.fromCompanyId,
      });
    }
  }
  const sums = await partnerLineSums(db, dedupe(sides));
  const bySide = new Map<string, PartnerLineSums[]>();
  for (const s of sums) {
    const key = sideKey(s.entryId, s.partnerId);
    const list = bySide.get(key) ?? [];
    list.push(s);
    bySide.set(key, list);
  }

  // Sides to convert: functional amount and currency, per transaction.
  const sideOf = (r: IntercompanyRow, side: Side) => {
    const entryId = side === 'from' ? r.fromJournalEntryId : r.toJournalEntryId;
    if (!entryId) return null;
    const partner = side === 'from' ? r.toCompanyId : r.fromCompanyId;
    const list = bySide.get(sideKey(entryId, partner));
    if (!list || list.length === 0) return null; // no company row: cannot happen (composite FK)
    return { functional: list[0]!.functionalCurrency, amount: sideAmount(side, list) };
  };

  // One rate book per organization that needs a conversion (the shared resolution procedure, in memory).
  const needs = new Map<string, { currencies: Set<string>; until: string }>();
  for (const r of rows) {
    for (const side of ['from', 'to'] as const) {
      const s = sideOf(r, side);
      if (!s || s.functional === r.currency) continue;
      const need = needs.get(r.organizationId) ?? { currencies: new Set<string>(), until: r.transactionDate };
      need.currencies.add(s.functional).add(r.currency);
      if (r.transactionDate > need.until) need.until = r.transactionDate;
      needs.set(r.organizationId, need);
    }
  }
  const books = new Map<string, RateBook>();
  for (const [organizationId, need] of needs) {
    books.set(organizationId, await loadRateBook(db, organizationId, [...need.currencies], need.until));
  }

  const convert = (r: IntercompanyRow, side: Side): Decimal | null => {
    const s = sideOf(r, side);
    if (!s) return null;
    if (s.functional === r.currency) return roundMoney(s.amount, r.currency);
    const resolution = books.get(r.organizationId)!.resolve({
      from: s.functional,
      to: r.currency,
      types: ['Spot'],
      condition: { kind: 'onOrBefore', date: r.transactionDate },
    });
    if (!resolution) return null;
    return roundMoney(s.amount.times(resolution.effectiveRate), r.currency);
  };

  const out = new Map<string, Reconciliation>();
  for (const r of rows) {
    const from = convert(r, 'from');
    const to = convert(r, 'to');
    out.set(r.id, {
      fromAmount: from === null ? null : money(from, r.currency),
      toAmount: to === null ? null : money(to, r.currency),
      difference: from === null || to === null ? null : money(from.minus(to), r.currency),
    });
  }
  return out;
}

function dedupe(sides: SideRequest[]): SideRequest[] {
  const seen = new Map<string, SideRequest>();
  for (const s of sides) seen.set(`${s.organizationId}|${sideKey(s.entryId, s.partnerId)}`, s);
  return [...seen.values()];
}
