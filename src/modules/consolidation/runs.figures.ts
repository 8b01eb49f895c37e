/**
 * The ledger figures a consolidation run reads: one statement per view that returns, per company, the
 * balances its accounts need (cumulative to the view's date, per period for translated income and
 * expense, per rate-change date for historical items), as text that `readFigures` turns into the
 * engine's ledger columns without building a row object per figure.
 */
import { type SQL, sql } from 'drizzle-orm';
import { pgTokens } from '../../db/bulk-params.ts';
import { type Queryable, queryRows } from '../../db/client.ts';
import { isUuid } from '../../http/schemas.ts';

import { type CompanyLedger, columnLedger, type LedgerColumns } from '../../domain/consolidation/index.ts';

import { addDays, daysInMonth, makeDate, parts } from '../../domain/dates.ts';
import { type FiscalYearEnd } from '../../domain/fiscal-calendar.ts';

/**
 * The accounts of the scope's companies with the class the figure statement reads them by (see
 * `FigureClass`; `loadChart` classifies the same way), as `a(id, keyed, flow, historical)`: `keyed`,
 * period and historical accounts (read row by row); `flow`, monetary accounts of companies not in
 * the reporting currency; `historical`, equity and non-monetary accounts of those companies. Joined
 * in the statement itself, so that the figures need not wait for another statement.
 */
function classedAccounts(scope: FigureScope): SQL {
  const foreign = sql`company_id = any(${anyOf(scope.foreignIds)})`;
  const income = sql`account_type in ('Revenue', 'Expense')`;
  const historical = sql`(account_type = 'Equity' or is_non_monetary)`;
  return sql`(select id, ${foreign} and (${income} or ${historical}) as keyed,
      ${foreign} and not (${income} or ${historical}) as flow,
      ${foreign} and ${historical} and not ${income} as historical
    from accounts where organization_id = ${scope.organizationId} and company_id = any(${anyOf(scope.ids)})) a`;
}

/**
 * Ids as ONE uuid[] parameter, for `column = any(…)`: a run's statements name hundreds of companies
 * several times, and one parameter per id made building, sending and parsing them cost more than
 * some of the statements themselves. With the values known when the statement is planned, PostgreSQL
 * treats it as it treats an `in (…)` list (a hashed lookup for long lists, index conditions).
 */
export function anyOf(ids: readonly string[]): SQL {
  for (const id of ids) if (!isUuid(id)) throw new Error(`Not a uuid: ${id}`);
  return sql`${pgTokens(ids)}::uuid[]`;
}

export interface FigureScope {
  organizationId: string;
  ids: readonly string[];
  /** the companies not in the reporting currency */
  foreignIds: readonly string[];
  groupFye: FiscalYearEnd;
  /** the view's asOfDate and yearStartDate */
  asOfDate: string;
  yearStartDate: string;
  /**
   * Sorted effective dates of the rates a historical rate may be resolved from: HR(d) is constant
   * between two consecutive ones.
   */
  rateChangeDates: readonly string[];
  /** First day of the earliest fiscal year of any member (how far back group-period cuts go). */
  earliestDate: string;
  /** read the movements of the year of monetary accounts not in the reporting currency per group period */
  flows: boolean;
  /**
   * A company statement's view, whose dates need not be period ends: figures stay on their side of
   * yearStartDate and are never dated after asOfDate. A run's views date figures by group period.
   */
  withinViewDates?: boolean;
}

/** Per exclusion group: the companies whose adjustment entries dated from `fromDate` are left out. */
export interface AdjustmentExclusion {
  fiscalYear: number;
  fromDate: string;
  companyIds: string[];
}

const EPOCH = '1970-01-01';

/**
 * How the figures of an account are keyed (see `queryFigures`):
 *   - `cumulative`: one figure, date null (monetary items; equity and non-monetary items of a company
 *     in the reporting currency);
 *   - `domestic`: Revenue/Expense of a company in the reporting currency: the view's yearStartDate − 1
 *     (prior years) or yearStartDate;
 *   - `period`: Revenue/Expense of a company not in the reporting currency: one figure per GROUP period;
 *   - `historical`: Equity and `isNonMonetary` accounts of a company not in the reporting currency: one
 *     figure per date on which the historical rate may differ.
 */
export type FigureClass = 'cumulative' | 'domestic' | 'period' | 'historical';

export interface FigureAccount {
  id: string;
  companyId: string;
  number: string;
  cls: FigureClass;
  /** a number no other account of the run has (the key of its merged figures) */
  ordinal: number;
}

/** The figure class of every account of the run, and the id lists the figure query needs. */
export interface FigureAccounts {
  byId: Map<string, FigureAccount>;
}

/**
 * The days on which the group-period key of a Revenue/Expense figure (see `queryFigures`) changes
 * inside a calendar month: with a group year end of day d in month m, d < that month's last day,
 * days 1..d of month m belong to period 12 and the later ones to period 1 of the next year.
 */
function groupPeriodCuts(fye: FiscalYearEnd, fromDate: string, toDate: string): string[] {
  const cuts: string[] = [];
  for (let y = parts(fromDate).year; y <= parts(toDate).year; y++) {
    if (fye.day < daysInMonth(y, fye.month)) cuts.push(makeDate(y, fye.month, fye.day + 1));
  }
  return cuts;
}

/**
 * The representative date of the GROUP period of `date`: the last day of its calendar month, except
 * for days 1..d of the year-end month m when d is not that month's last day: they belong to period 12,
 * which starts on the 1st of the previous month, so that month's last day.
 */
function groupPeriodDate(fye: FiscalYearEnd, date: string): string {
  const { year, month, day } = parts(date);
  const last = daysInMonth(year, month);
  if (month === fye.month && day <= fye.day && fye.day < last) return addDays(makeDate(year, month, 1), -1);
  return makeDate(year, month, last);
}

/** Daily rows of the ledger data: no closing rows, no excluded adjustment-period (13) rows. */
function dailyConditions(ab: SQL, exclusions: readonly AdjustmentExclusion[]): SQL {
  if (exclusions.length === 0) return sql`not ${ab}.is_closing`;
  const excluded = exclusions.map(
    (e) =>
      sql`(${ab}.fiscal_year = ${sql.raw(String(Math.trunc(e.fiscalYear)))} and ${ab}.company_id = any(${anyOf(e.companyIds)}))`,
  );
  return sql`not ${ab}.is_closing and not (${ab}.fiscal_period = 13 and (${sql.join(excluded, sql` or `)}))`;
}

/** The figure statement's answer: per part, its delimited string. */
export type FigureTexts = Map<number, string>;

export interface ViewFigures {
  ledgers: CompanyLedger[];
  /** the earliest representative date of a `period` figure (they need average rates), or null */
  earliestPeriodDate: string | null;
}

/** Amounts of the figure query: NUMERIC(28, 8) sums and differences, always written with 8 decimals. */
export const AMOUNT_SCALE = 8;

/**
 * One statement over the posted balances of all companies of the run, as of the view's `asOfDate`,
 * answering Σ (debit − credit) per account and key (see `FigureClass`):
 *   - `cumulative` and `domestic` accounts are summed in the database, per account and (for `domestic`
 *     only) per side of the view's yearStartDate;
 *   - the rows of the `period` and `historical` accounts come back as they are stored (a month of the
 *     roll-up, or a day), and are keyed here: by the representative date of the row's GROUP period
 *     (`groupPeriodDate`; rows of one period are merged into one figure) or by the row's own date.
 * Whole months come from the monthly roll-up `account_month_balances`, so the cost grows with
 * accounts × months, not with entries or active days. Daily rows of `account_balances` are read only
 * for the "split" months in which a key other than the historical one changes value (the month of
 * asOfDate when it is not a month end, of yearStartDate and of each adjustment exclusion when they
 * are not a 1st, of a group year end that is not a month end), and for the historical keys: a month
 * whose only rate change (if any) falls on its 1st has one historical rate, so its roll-up row keyed
 * by the month's first day stands for all its days; in a month with a rate change on day b > 1, the
 * daily rows from b on (the "tail") keep their own dates and are taken out of the roll-up row.
 * Adjustment-period rows are kept apart in the roll-up (`is_adjustment`), so the period-13 exclusion
 * needs no daily rows either.
 * The statement finds each account's class by joining the accounts (`classedAccounts`), and each part
 * of the answer is ONE delimited string (`account,key,amount;…`): an embedded database answers one
 * large value far faster than tens of thousands of rows.
 */
export async function queryFigures(
  q: Queryable,
  scope: FigureScope,
  exclusions: readonly AdjustmentExclusion[],
): Promise<FigureTexts> {
  if (scope.ids.length === 0) return new Map();
  const { rowsOf, tailRows } = figureRows(scope, exclusions);
  const day = sql`(s.day - date '${sql.raw(EPOCH)}')::text`;
  const branches = companyChunks(scope).map((chunk) => chunkBranch(chunk, rowsOf(chunk.ids), day));
  const parts = await queryRows<{ part: number; text: string | null }>(
    q,
    sql`${sql.join(branches, sql` union all `)}
        ${
          tailRows
            ? sql`union all
        select 2, string_agg(s.account_id::text || ',' || ${day} || ',' || ${units(sql`s.amount`)}, ';')
        from (${tailRows}) s(account_id, day, amount)`
            : sql``
        }`,
  );
  // A part answered by several chunks is their pieces together (the order of pieces is free).
  const texts: FigureTexts = new Map();
  for (const r of parts) {
    if (!r.text) continue;
    const part = Number(r.part);
    const before = texts.get(part);
    texts.set(part, before === undefined ? r.text : `${before};${r.text}`);
  }
  return texts;
}

/**
 * The companies of a large scope in two halves, each read by a branch of its own: PostgreSQL runs the
 * branches of one statement side by side in parallel workers (its text aggregates are not
 * parallel-aware within one branch), which took the 200-company group's figure statement from about
 * 215 to 136 ms on a two-core machine. An embedded database runs them one after the other, at the
 * same cost. Small scopes stay whole: a parallel worker's start would cost more than it saves.
 */
function companyChunks(scope: FigureScope): FigureScope[] {
  if (scope.ids.length < figureBranching.fromCompanies || scope.ids.length < 2) return [scope];
  const half = Math.ceil(scope.ids.length / 2);
  return [scope.ids.slice(0, half), scope.ids.slice(half)].map((ids) => {
    const inChunk = new Set(ids);
    return { ...scope, ids, foreignIds: scope.foreignIds.filter((id) => inChunk.has(id)) };
  });
}
/** From how many companies the figure statement reads them in two branches (tests lower it). */
export const figureBranching = { fromCompanies: 20 };

/**
 * One pass over the rows of a chunk's companies: each row falls in one bucket — 0 and 1, the side of
 * yearStartDate of an account summed here; 2, a keyed account's row; 3, a flow account's row of this
 * year — and each (account, bucket) group becomes one piece of its part's delimited string. Reading
 * the rows once (instead of once per part) matters: making the text of 150,000 figures is most of
 * the work.
 */
function chunkBranch(chunk: FigureScope, rows: SQL, day: SQL): SQL {
  // With every company in the reporting currency, every account is summed (buckets 0 and 1).
  const foreign = chunk.foreignIds.length > 0;
  // Monetary accounts of companies not in G: this year's movements per group period (closing view).
  const flows = chunk.flows && foreign;
  const year = sql`${chunk.yearStartDate}::date`;
  const bucket = foreign
    ? sql`case when a.keyed then 2${flows ? sql` when a.flow and s.day >= ${year} then 3` : sql``} else (s.day >= ${year})::int end`
    : sql`(s.day >= ${year})::int`;
  const classed = foreign ? sql` join ${classedAccounts(chunk)} on a.id = s.account_id` : sql``;
  return sql`(select case g.b when 2 then 1 when 3 then 3 else 0 end as part,
          string_agg(case when g.b < 2 then g.account_id::text || ',' || g.b::text || ',' || ${units(sql`g.amount`)}
            else g.account_id::text || ':' || g.cells end, ';') as text
        from (
          select s.account_id, x.b,
            sum(s.amount) filter (where x.b < 2) as amount,
            string_agg(${day} || '=' || ${units(sql`s.amount`)}, ',') filter (where x.b >= 2) as cells
          from ${rows}${classed} cross join lateral (select ${bucket} as b) x
          group by 1, 2
        ) g
        where g.b >= 2 or g.amount <> 0
        group by 1)`;
}

/**
 * The row sources of the figure statement (see `queryFigures`): `rowsOf(ids)`, the monthly roll-up
 * of those companies outside the split months plus their daily rows of those months, as
 * `s(account_id, day, amount)` (the split months are the scope's, whichever of its companies a branch
 * reads); `tailRows`, the daily tail rows of the historical accounts (null when there are none).
 */
function figureRows(
  scope: FigureScope,
  exclusions: readonly AdjustmentExclusion[],
): { rowsOf: (ids: readonly string[]) => SQL; tailRows: SQL | null } {
  const { organizationId, groupFye } = scope;
  const monthOf = (date: string) => `${date.slice(0, 8)}01`;
  const cuts = [
    addDays(scope.asOfDate, 1),
    scope.yearStartDate,
    ...exclusions.map((e) => e.fromDate),
    ...groupPeriodCuts(groupFye, scope.earliestDate, scope.asOfDate),
  ];
  const splitMonths = [...new Set(cuts.filter((c) => !c.endsWith('-01')).map(monthOf))]
    .filter((m) => m <= scope.asOfDate)
    .sort();
  const split = new Set(splitMonths);
  // Per month outside the split ones: the first day > 1 on which the historical rate may change.
  const tails = new Map<string, string>();
  if (scope.foreignIds.length > 0) {
    for (const d of scope.rateChangeDates) {
      if (d.endsWith('-01') || d > scope.asOfDate || split.has(monthOf(d))) continue;
      if (!tails.has(monthOf(d))) tails.set(monthOf(d), d);
    }
  }
  const dateList = (dates: readonly string[]) =>
    sql.join(
      dates.map((x) => sql`${x}::date`),
      sql`, `,
    );
  const ranges = (pairs: readonly (readonly [string, string])[]) =>
    sql.join(
      pairs.map(
        ([from, month]) =>
          sql`(ab.balance_date >= ${from}::date and ab.balance_date < (${month}::date + interval '1 month'))`,
      ),
      sql` or `,
    );
  const dailyCommon = (companyIds: readonly string[]) =>
    sql.join(
      [
        sql`ab.organization_id = ${organizationId}`,
        sql`ab.company_id = any(${anyOf(companyIds)})`,
        sql`ab.balance_date <= ${scope.asOfDate}::date`,
        dailyConditions(sql`ab`, exclusions),
      ],
      sql` and `,
    );

  // Monthly roll-up: every month outside the split ones, less the excluded adjustment rows.
  const monthRows = (ids: readonly string[]) => {
    const monthly = [
      sql`mb.organization_id = ${organizationId}`,
      sql`mb.company_id = any(${anyOf(ids)})`,
      sql`not mb.is_closing`,
      sql`mb.month_start <= ${scope.asOfDate}::date`,
    ];
    if (splitMonths.length > 0) monthly.push(sql`mb.month_start not in (${dateList(splitMonths)})`);
    if (exclusions.length > 0) {
      const excluded = exclusions.map(
        (e) => sql`(mb.company_id = any(${anyOf(e.companyIds)}) and mb.month_start >= ${e.fromDate}::date)`,
      );
      monthly.push(sql`not (mb.is_adjustment and (${sql.join(excluded, sql` or `)}))`);
    }
    return sql`select mb.account_id, mb.month_start as day, mb.debit_total - mb.credit_total as amount
      from account_month_balances mb where ${sql.join(monthly, sql` and `)}`;
  };
  const splitRows = (ids: readonly string[]) =>
    splitMonths.length > 0
      ? sql`select ab.account_id, ab.balance_date, ab.debit_total - ab.credit_total
          from account_balances ab
          where ${dailyCommon(ids)} and (${ranges(splitMonths.map((x) => [x, x] as const))})`
      : null;
  // Tail rows of the historical accounts (each is a figure of its own date, and is taken out of the
  // month's roll-up row, keyed by the month's first day).
  const tailRows =
    tails.size > 0
      ? sql`select ab.account_id, ab.balance_date, ab.debit_total - ab.credit_total as amount
          from account_balances ab
          where ${dailyCommon(scope.foreignIds)}
            and (${ranges([...tails].map(([month, from]) => [from, month] as const))})
            and ab.account_id in (select a.id from ${classedAccounts(scope)} where a.historical)`
      : null;
  const union = (parts: (SQL | null)[]) =>
    sql.join(
      parts.filter((x): x is SQL => x !== null),
      sql` union all `,
    );
  const rowsOf = (ids: readonly string[]) =>
    sql`(${union([monthRows(ids), splitRows(ids)])}) s(account_id, day, amount)`;
  return { rowsOf, tailRows };
}

/** The ledgers of a view from the answer of `queryFigures` (see there). */
export function readFigures(texts: FigureTexts, scope: FigureScope, accounts: FigureAccounts): ViewFigures {
  const text = (part: number) => texts.get(part) ?? '';
  const reader = new FigureReader(scope, accounts);
  reader.readSummed(text(0));
  reader.readKeyed(text(1), (ref) => ref.cls === 'historical');
  reader.readKeyed(text(3), () => false);
  reader.readTails(text(2));
  return {
    ledgers: [...reader.ledgers].map(([companyId, columns]) => columnLedger(companyId, columns)),
    earliestPeriodDate: reader.earliestPeriodDate,
  };
}

/** The ledger columns of a view's companies as the parts of the figure statement's answer are read. */
class FigureReader {
  readonly ledgers = new Map<string, LedgerColumns>();
  /** the earliest representative date of a `period` figure (they need average rates), or null */
  earliestPeriodDate: string | null = null;
  private readonly priorDay: string;
  /** day number (since 1970-01-01) → date */
  private readonly dates = new Map<number, string>();
  /** per day: its group period's representative date, and where the current account's figure of it is */
  private readonly periods = new Map<number, { date: string; account: FigureAccount | null; at: number }>();

  constructor(
    private readonly scope: FigureScope,
    private readonly accounts: FigureAccounts,
  ) {
    this.priorDay = addDays(scope.yearStartDate, -1);
  }

  private columnsOf(companyId: string): LedgerColumns {
    let c = this.ledgers.get(companyId);
    if (!c) {
      c = { scale: AMOUNT_SCALE, accountNumbers: [], dates: [], units: [] };
      this.ledgers.set(companyId, c);
    }
    return c;
  }

  private dateOf(d: number): string {
    let date = this.dates.get(d);
    if (date === undefined) {
      date = addDays(EPOCH, d);
      this.dates.set(d, date);
    }
    return date;
  }

  private periodOfDay(d: number) {
    let q = this.periods.get(d);
    if (q === undefined) {
      const { scope } = this;
      const day = this.dateOf(d);
      let date = groupPeriodDate(scope.groupFye, day);
      // A view whose dates are not period ends (a company statement's): the rows of a period on
      // either side of yearStartDate stay apart, and no figure is dated after asOfDate (each stays in
      // its period). A run's views keep the group period's date.
      if (scope.withinViewDates) {
        if (day < scope.yearStartDate && date >= scope.yearStartDate) date = addDays(scope.yearStartDate, -1);
        if (date > scope.asOfDate) date = scope.asOfDate;
      }
      const same = [...this.periods.values()].find((p) => p.date === date);
      q = same ?? { date, account: null, at: -1 };
      this.periods.set(d, q);
      if (this.earliestPeriodDate === null || date < this.earliestPeriodDate) this.earliestPeriodDate = date;
    }
    return q;
  }

  /**
   * Summed accounts: `account,p,amount` with p = 1 for the rows from the view's yearStartDate on: the
   * two sides are the prior and current-year figures of a `domestic` account, and are added up for a
   * `cumulative` one.
   */
  readSummed(summed: string): void {
    const cumulative = new Map<number, number>();
    for (let i = 0; i < summed.length;) {
      const c1 = summed.indexOf(',', i);
      const c2 = c1 + 2; // p is one digit
      let end = summed.indexOf(';', c2 + 1);
      if (end < 0) end = summed.length;
      const ref = this.accounts.byId.get(summed.slice(i, c1));
      if (ref) {
        const units = unitsAt(summed, c2 + 1, end);
        const cols = this.columnsOf(ref.companyId);
        if (ref.cls === 'domestic') {
          const date = summed.charCodeAt(c1 + 1) === 49 ? this.scope.yearStartDate : this.priorDay;
          push(cols, ref.number, date, units);
        } else {
          const at = cumulative.get(ref.ordinal);
          if (at !== undefined) cols.units[at]! += units;
          else {
            cumulative.set(ref.ordinal, cols.units.length);
            push(cols, ref.number, null, units);
          }
        }
      }
      i = end + 1;
    }
  }

  /**
   * Keyed rows (part 1, and the flow rows of part 3), per account: `account:day=amount,day=amount,…`
   * (day = days since 1970-01-01): a historical figure per row, otherwise a figure per GROUP period
   * (rows of one period merged).
   */
  readKeyed(keyed: string, perRow: (ref: FigureAccount) => boolean): void {
    for (let i = 0; i < keyed.length;) {
      const colon = keyed.indexOf(':', i);
      let end = keyed.indexOf(';', colon + 1);
      if (end < 0) end = keyed.length;
      const ref = this.accounts.byId.get(keyed.slice(i, colon));
      if (ref) {
        const cols = this.columnsOf(ref.companyId);
        for (let j = colon + 1; j < end;) {
          // day: a (possibly negative) integer, read digit by digit
          let eq = j;
          let d = 0;
          const negative = keyed.charCodeAt(eq) === 45;
          if (negative) eq++;
          for (let c = keyed.charCodeAt(eq); c !== 61; c = keyed.charCodeAt(++eq)) d = d * 10 + (c - 48);
          if (negative) d = -d;
          let next = keyed.indexOf(',', eq + 1);
          if (next < 0 || next > end) next = end;
          const units = unitsAt(keyed, eq + 1, next);
          if (perRow(ref)) push(cols, ref.number, this.dateOf(d), units);
          else {
            const q = this.periodOfDay(d);
            // Another row of the same group period (an adjustment row, another month) adds to its
            // figure (the rows of one account come together).
            if (q.account === ref) cols.units[q.at]! += units;
            else {
              q.account = ref;
              q.at = cols.units.length;
              push(cols, ref.number, q.date, units);
            }
          }
          j = next + 1;
        }
      }
      i = end + 1;
    }
  }

  /** Tails: `account,day,amount`, a figure of its own date taken out of the month's figure. */
  readTails(tailText: string): void {
    for (let i = 0; i < tailText.length;) {
      const c1 = tailText.indexOf(',', i);
      const c2 = tailText.indexOf(',', c1 + 1);
      let end = tailText.indexOf(';', c2 + 1);
      if (end < 0) end = tailText.length;
      const ref = this.accounts.byId.get(tailText.slice(i, c1));
      if (ref) {
        const date = this.dateOf(Number(tailText.slice(c1 + 1, c2)));
        const units = unitsAt(tailText, c2 + 1, end);
        const cols = this.columnsOf(ref.companyId);
        push(cols, ref.number, date, units);
        push(cols, ref.number, `${date.slice(0, 8)}01`, -units);
      }
      i = end + 1;
    }
  }
}

export function push(cols: LedgerColumns, accountNumber: string, date: string | null, units: bigint): void {
  cols.accountNumbers.push(accountNumber);
  cols.dates.push(date);
  cols.units.push(units);
}

/**
 * An amount of the figure statement as an integer of 10^-8 units: the text of a NUMERIC(28, 8) sum or
 * difference — always written with exactly 8 decimals — without its decimal point.
 */
export function units(amount: SQL): SQL {
  return sql`replace(${amount}::text, '.', '')`;
}

/** The integer written in `text` from `start` to `end` (see `units`). */
function unitsAt(text: string, start: number, end: number): bigint {
  return BigInt(text.slice(start, end));
}
