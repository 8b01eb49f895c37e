/**
 * The chart of accounts of a run's companies, as the engine reads it and as the figure statement
 * classifies it (`FigureAccounts`), read in one statement.
 */
import { sql } from 'drizzle-orm';
import { type Queryable, queryRows } from '../../db/client.ts';
import type { AccountCategory, AccountType, CashFlowCategory } from '../../domain/accounts.ts';
import type { AccountInfo } from '../../domain/consolidation/index.ts';
import { type FigureAccount, type FigureAccounts, type FigureClass, idList } from './runs.figures.ts';

/**
 * The chart of every company of the run, read in ONE statement: per company one delimited string,
 * one account per line (`id,number,type,category,cash,cashFlowCategory,nonMonetary,"name"`: ids,
 * numbers and enumerations contain no comma, and the name comes last as a JSON string, which never
 * contains a raw line break). Tens of thousands of rows, or one JSON document of every field, cost
 * several times more to produce and to read. Each account is classified for the figure statement in
 * the same pass (`FigureClass`).
 */
export async function loadChart(
  tx: Queryable,
  organizationId: string,
  ids: readonly string[],
  foreignCompanyIds: ReadonlySet<string>,
): Promise<{ byCompany: Map<string, AccountInfo[]>; figures: FigureAccounts }> {
  const rows = await queryRows<{ company_id: string; text: string }>(
    tx,
    sql`select company_id::text as company_id,
          string_agg(id::text || ',' || account_number || ',' || account_type || ',' || account_category
            || ',' || is_cash_equivalent::int || ',' || coalesce(cash_flow_category, '')
            || ',' || is_non_monetary::int || ',' || to_json(name)::text, E'\n') as text
        from accounts where organization_id = ${organizationId} and company_id in (${idList(ids)})
        group by company_id`,
  );
  const byCompany = new Map<string, AccountInfo[]>(ids.map((id) => [id, []]));
  const byId = new Map<string, FigureAccount>();
  for (const row of rows) {
    const companyId = row.company_id;
    const foreign = foreignCompanyIds.has(companyId);
    const infos = byCompany.get(companyId) ?? [];
    const text = row.text;
    for (let i = 0; i < text.length;) {
      let end = text.indexOf('\n', i);
      if (end < 0) end = text.length;
      const c1 = text.indexOf(',', i);
      const c2 = text.indexOf(',', c1 + 1);
      const c3 = text.indexOf(',', c2 + 1);
      const c4 = text.indexOf(',', c3 + 1);
      const c5 = text.indexOf(',', c4 + 1);
      const c6 = text.indexOf(',', c5 + 1);
      const c7 = text.indexOf(',', c6 + 1);
      const id = text.slice(i, c1);
      const number = text.slice(c1 + 1, c2);
      const accountType = text.slice(c2 + 1, c3) as AccountType;
      const quoted = text.slice(c7 + 1, end);
      const nonMonetary = text.charCodeAt(c6 + 1) === 49;
      infos.push({
        accountNumber: number,
        name: quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1),
        accountType,
        accountCategory: text.slice(c3 + 1, c4) as AccountCategory,
        isCashEquivalent: text.charCodeAt(c4 + 1) === 49,
        cashFlowCategory: c6 === c5 + 1 ? null : (text.slice(c5 + 1, c6) as CashFlowCategory),
        isNonMonetary: nonMonetary,
      });
      const incomeStatement = accountType === 'Revenue' || accountType === 'Expense';
      let cls: FigureClass;
      if (incomeStatement) cls = foreign ? 'period' : 'domestic';
      else if (foreign && (accountType === 'Equity' || nonMonetary)) cls = 'historical';
      else cls = 'cumulative';
      byId.set(id, { id, companyId, number, cls, ordinal: byId.size });
      i = end + 1;
    }
  }
  return {
    byCompany,
    figures: {
      byId,
    },
  };
}
