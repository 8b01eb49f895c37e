/**
 * Acquisition cuts of a run: a member acquired during the periods a run reads has its ledger cut at
 * the acquisition date (pre-acquisition figures are eliminated against the investment); these read
 * the balances at each cut.
 */
import { sql } from 'drizzle-orm';
import { type Queryable, queryRows } from '../../db/client.ts';
import { holdingOf, ledgerCuts, ownershipTree } from '../../domain/consolidation/ownership.ts';
import type { CutLedger } from '../../domain/consolidation/types.ts';
import { type StoredRunMember } from './runs.repo.ts';

/** The (company, cut date) pairs of the run: every member's ledger cuts (ownership.ts). */
export function memberCuts(members: readonly StoredRunMember[]): { companyId: string; cutDate: string }[] {
  const parent = members.find((m) => m.role === 'Parent');
  const others = members.filter((m) => m.role === 'Member');
  if (!parent || !others.some((m) => m.acquisition)) return [];
  let tree;
  try {
    tree = ownershipTree(parent.companyId, others.map(holdingOf));
  } catch {
    return []; // an invalid structure fails the run in the engine
  }
  return others.flatMap((m) =>
    ledgerCuts(tree, m.companyId).map((cutDate) => ({ companyId: m.companyId, cutDate })),
  );
}

/**
 * Σ (debit − credit) per account of each company's ledger data dated before each of its cut dates,
 * ONE statement: whole months before the cut's month from the monthly roll-up, the days of the cut's
 * month from the daily balances (closing entries excluded, as for every figure).
 */
export async function queryCuts(
  q: Queryable,
  organizationId: string,
  cuts: readonly { companyId: string; cutDate: string }[],
): Promise<CutRow[]> {
  if (cuts.length === 0) return [];
  const pairs = sql.join(
    cuts.map((c) => sql`(${c.companyId}::uuid, ${c.cutDate}::date)`),
    sql`, `,
  );
  return queryRows<CutRow>(
    q,
    sql`select c.company_id::text as company_id, c.cut::text as cut,
          string_agg(x.account_id::text || ',' || x.amount::text, ';') as text
        from (values ${pairs}) c(company_id, cut)
        cross join lateral (
          select u.account_id, sum(u.amount) as amount
          from (
            select mb.account_id, mb.debit_total - mb.credit_total as amount
            from account_month_balances mb
            where mb.organization_id = ${organizationId} and mb.company_id = c.company_id
              and not mb.is_closing and mb.month_start < date_trunc('month', c.cut)::date
            union all
            select ab.account_id, ab.debit_total - ab.credit_total
            from account_balances ab
            where ab.organization_id = ${organizationId} and ab.company_id = c.company_id
              and not ab.is_closing and ab.balance_date >= date_trunc('month', c.cut)::date
              and ab.balance_date < c.cut
          ) u
          group by u.account_id
          having sum(u.amount) <> 0
        ) x
        group by 1, 2`,
  );
}

export type CutRow = { company_id: string; cut: string; text: string };

/** The cut ledgers from the answer of `queryCuts`: account ids become the accounts' numbers. */
export function readCuts(
  rows: readonly CutRow[],
  cuts: readonly { companyId: string; cutDate: string }[],
  accounts: ReadonlyMap<string, { number: string }>,
): CutLedger[] {
  const byKey = new Map(rows.map((r) => [`${r.company_id}|${r.cut}`, r.text]));
  return cuts.map(({ companyId, cutDate }) => {
    const text = byKey.get(`${companyId}|${cutDate}`) ?? '';
    // `account,amount;…`, read in place (a large run's cuts hold tens of thousands of figures).
    // Sums of NUMERIC(28, 8) amounts: PostgreSQL writes them with their 8 decimals, as exact
    // decimal texts the engine reads directly.
    const figures: CutLedger['figures'] = [];
    for (let i = 0; i < text.length;) {
      const comma = text.indexOf(',', i);
      let end = text.indexOf(';', comma + 1);
      if (end < 0) end = text.length;
      figures.push({
        accountNumber: accounts.get(text.slice(i, comma))?.number ?? '',
        amount: text.slice(comma + 1, end),
      });
      i = end + 1;
    }
    return { companyId, cutDate, figures };
  });
}
