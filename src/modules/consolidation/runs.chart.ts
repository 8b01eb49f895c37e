/**
 * The chart of accounts of a run's companies, as the engine reads it and as the figure statement
 * classifies it (`FigureAccounts`), read in one statement — or, for a company whose chart has not
 * changed since a run of this process read it, taken from the charts this process keeps
 * (`ChartCache`).
 *
 * Why the cache is safe: triggers on `accounts` raise the company's version
 * (`account_chart_versions`) in the same transaction as any change of its accounts, and a run reads
 * the versions in the same snapshot as everything else. A chart kept with version v was read in a
 * snapshot where the version was v; every snapshot with version v sees that same chart, since a change
 * would have raised it. The kept charts are frozen: runs share them and must not change them.
 */
import { sql } from 'drizzle-orm';
import { perDatabase } from '../../db/combiner.ts';
import { type Queryable, queryRows } from '../../db/client.ts';
import type { AccountCategory, AccountType, CashFlowCategory } from '../../domain/accounts.ts';
import type { AccountInfo } from '../../domain/consolidation/index.ts';
import { type FigureAccount, type FigureAccounts, type FigureClass, anyOf } from './runs.figures.ts';

/** One company's chart as read: the engine's accounts and, per account, what classifies its figures. */
interface CompanyChart {
  accounts: readonly AccountInfo[];
  ids: readonly string[];
  /** its figure accounts for a run in which the company is domestic [0] or foreign [1], made once */
  figures: [readonly FigureAccount[] | null, readonly FigureAccount[] | null];
}

/**
 * Keys of figure accounts: unique among every figure account this process made, so that accounts of
 * charts kept from different runs never share one.
 */
let nextOrdinal = 0;

/**
 * How many accounts the kept charts may hold in all: about 350 bytes each with their figure accounts
 * and the text their ids were cut from (measured: 20.6 MB of heap for the 60,000 accounts of a group of
 * 200 companies of 300 accounts each), so at most about 35 MB.
 */
export const CHART_CACHE_MAX_ACCOUNTS = 100_000;

/**
 * The charts of one database's companies as runs of this process last read them, each with the
 * version it was read at; the least recently used give way beyond `maxAccounts` accounts.
 */
export class ChartCache {
  private readonly charts = new Map<string, { version: string; chart: CompanyChart }>();
  private accounts = 0;

  constructor(private readonly maxAccounts = CHART_CACHE_MAX_ACCOUNTS) {}

  /** The chart of `companyId` kept at `version`, if any. */
  get(companyId: string, version: string): CompanyChart | undefined {
    const kept = this.charts.get(companyId);
    if (kept === undefined || kept.version !== version) return undefined;
    this.charts.delete(companyId); // most recently used last
    this.charts.set(companyId, kept);
    return kept.chart;
  }

  set(companyId: string, version: string, chart: CompanyChart): void {
    this.forget(companyId);
    if (chart.accounts.length > this.maxAccounts) return;
    this.charts.set(companyId, { version, chart });
    this.accounts += chart.accounts.length;
    for (const id of this.charts.keys()) {
      if (this.accounts <= this.maxAccounts) break;
      this.forget(id);
    }
  }

  /** How many accounts are kept (for tests). */
  get size(): number {
    return this.accounts;
  }

  private forget(companyId: string): void {
    const kept = this.charts.get(companyId);
    if (kept === undefined) return;
    this.accounts -= kept.chart.accounts.length;
    this.charts.delete(companyId);
  }
}

/** The kept charts of a database (one cache per database handle: tests open several). */
export const chartCacheOf = perDatabase(() => new ChartCache());

/**
 * The chart of every company of the run. `versions`: each company's chart version as the run's
 * snapshot shows it (absent: 0); with a `cache`, the charts kept at those versions are used and the
 * others read — in ONE statement: per company one delimited string, one account per line
 * (`id,number,type,category,cash,cashFlowCategory,nonMonetary,"name"`: ids, numbers and enumerations
 * contain no comma, and the name comes last as a JSON string, which never contains a raw line break).
 * Tens of thousands of rows, or one JSON document of every field, cost several times more to produce
 * and to read. Each account is classified for the figure statement (`FigureClass`).
 */
export async function loadChart(
  tx: Queryable,
  organizationId: string,
  ids: readonly string[],
  foreignCompanyIds: ReadonlySet<string>,
  kept?: { cache: ChartCache; versions: ReadonlyMap<string, string> },
): Promise<{ byCompany: Map<string, AccountInfo[]>; figures: FigureAccounts }> {
  const charts = new Map<string, CompanyChart>();
  const versionOf = (id: string) => kept?.versions.get(id) ?? '0';
  const toRead: string[] = [];
  for (const id of ids) {
    const chart = kept?.cache.get(id, versionOf(id));
    if (chart) charts.set(id, chart);
    else toRead.push(id);
  }
  if (toRead.length > 0) {
    const rows = await queryRows<{ company_id: string; text: string }>(
      tx,
      sql`select company_id::text as company_id,
            string_agg(id::text || ',' || account_number || ',' || account_type || ',' || account_category
              || ',' || is_cash_equivalent::int || ',' || coalesce(cash_flow_category, '')
              || ',' || is_non_monetary::int || ',' || to_json(name)::text, E'\n') as text
          from accounts where organization_id = ${organizationId} and company_id = any(${anyOf(toRead)})
          group by company_id`,
    );
    const texts = new Map(rows.map((r) => [r.company_id, r.text]));
    const shared = new Map<string, string>();
    for (const id of toRead) {
      const chart = parseChart(texts.get(id) ?? '', shared);
      charts.set(id, chart);
      kept?.cache.set(id, versionOf(id), chart);
    }
  }
  const byCompany = new Map<string, AccountInfo[]>();
  const byId = new Map<string, FigureAccount>();
  for (const id of ids) {
    const chart = charts.get(id)!;
    // The engine takes the accounts as a list it reads only (frozen: a change would throw).
    byCompany.set(id, chart.accounts as AccountInfo[]);
    for (const f of figureAccountsOf(chart, id, foreignCompanyIds.has(id))) byId.set(f.id, f);
  }
  return { byCompany, figures: { byId } };
}

/**
 * The enumerations' texts, one string each: kept charts hold them for as long as they are kept, and a
 * piece cut from a company's text would keep the whole text alive.
 */
const enumerationTexts = new Map<string, string>();

/** The one string `texts` holds for `text`'s value (`text` itself the first time). */
function oneOf(texts: Map<string, string>, text: string): string {
  const kept = texts.get(text);
  if (kept !== undefined) return kept;
  texts.set(text, text);
  return text;
}

/**
 * One company's accounts from their delimited text (see `loadChart`), frozen. Numbers and names that
 * recur across the companies read together (`shared`: charts made from one template) are one string.
 */
function parseChart(text: string, shared: Map<string, string>): CompanyChart {
  const accounts: AccountInfo[] = [];
  const ids: string[] = [];
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
    const quoted = text.slice(c7 + 1, end);
    ids.push(text.slice(i, c1));
    accounts.push(
      Object.freeze({
        accountNumber: oneOf(shared, text.slice(c1 + 1, c2)),
        name: oneOf(shared, quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1)),
        accountType: oneOf(enumerationTexts, text.slice(c2 + 1, c3)) as AccountType,
        accountCategory: oneOf(enumerationTexts, text.slice(c3 + 1, c4)) as AccountCategory,
        isCashEquivalent: text.charCodeAt(c4 + 1) === 49,
        cashFlowCategory:
          c6 === c5 + 1 ? null : (oneOf(enumerationTexts, text.slice(c5 + 1, c6)) as CashFlowCategory),
        isNonMonetary: text.charCodeAt(c6 + 1) === 49,
      }),
    );
    i = end + 1;
  }
  return { accounts: Object.freeze(accounts), ids, figures: [null, null] };
}

/** The figure accounts of a company's chart for a run in which it is `foreign` or not (made once). */
function figureAccountsOf(
  chart: CompanyChart,
  companyId: string,
  foreign: boolean,
): readonly FigureAccount[] {
  const made = chart.figures[foreign ? 1 : 0];
  if (made) return made;
  const figures = chart.accounts.map((a, k): FigureAccount => {
    const incomeStatement = a.accountType === 'Revenue' || a.accountType === 'Expense';
    let cls: FigureClass;
    if (incomeStatement) cls = foreign ? 'period' : 'domestic';
    else if (foreign && (a.accountType === 'Equity' || a.isNonMonetary)) cls = 'historical';
    else cls = 'cumulative';
    return Object.freeze({
      id: chart.ids[k]!,
      companyId,
      number: a.accountNumber,
      cls,
      ordinal: nextOrdinal++,
    });
  });
  chart.figures[foreign ? 1 : 0] = figures;
  return figures;
}
