/**
 * Benchmark data generator: one organization with N companies (charts of accounts built from the
 * GeneralBusiness template, padded to the requested size), fiscal years, exchange rates, a
 * consolidation group of every company, three users with sessions, and M posted journal lines.
 *
 * Small tables go through Drizzle and the service's own helpers (`ensureFiscalYear`, the template
 * rows). The ledger is written with set-based SQL (`insert … select … from generate_series`) in
 * batches: entries, lines, entry counters and `account_balances`, the last two derived from the
 * lines in SQL so the balance invariant (balances = Σ posted lines) holds by construction. The
 * same SQL runs on PostgreSQL and PGlite.
 *
 * CLI: `npx tsx bench/generate.ts --lines 1000000 [--companies 50] [--accounts 200] [--db postgres]`
 * (PostgreSQL uses DATABASE_URL; PGlite uses --data-dir, default ./data).
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type Database, type Db, openDatabase } from '../src/db/client.ts';
import {
  accounts,
  companies,
  consolidationGroups,
  consolidationMembers,
  exchangeRates,
  memberships,
  organizations,
  sessions,
  users,
} from '../src/db/schema/index.ts';
import { getTemplate, hierarchyLevels, sortByHierarchy } from '../src/domain/templates/index.ts';
import { hashPassword, newToken, TOKEN_TTL_MS } from '../src/http/auth.ts';
import { ensureFiscalYear } from '../src/modules/fiscal/ensure.ts';
import { rebuildMonthBalances } from '../src/modules/ledger/posting.ts';
import { DEFAULT_SETTINGS } from '../src/modules/organizations/service.ts';

export interface GenerateOptions {
  /** Unique label, used in names (organizations and e-mails are unique service-wide). */
  label: string;
  companies: number;
  accountsPerCompany: number;
  /** Posted journal lines in total (rounded down to whole entries). */
  lines: number;
  linesPerEntry?: number;
  /** Fiscal year of the posted entries (calendar years). */
  year?: number;
  currencies?: string[];
  /**
   * An ownership structure instead of a flat group: members in `tiers` levels below the parent (each
   * held by a member of the level above), every member with acquisition data.
   */
  ownership?: { tiers: number };
}

export interface Dataset {
  label: string;
  organizationId: string;
  companyIds: string[];
  /** Functional currency of every company, same order. */
  companyCurrencies: string[];
  groupId: string;
  year: number;
  lines: number;
  entries: number;
  /** Tokens: `owner` (owner), `clerk` (member: creates and submits), `controller` (admin: approves, posts). */
  tokens: { owner: string; clerk: string; controller: string };
  userIds: { owner: string; clerk: string; controller: string };
  /** Two postable accounts (an expense and a bank account) of every company, for new entries. */
  entryAccounts: { debit: string; credit: string }[];
  seconds: number;
}

const DEFAULT_CURRENCIES = ['USD', 'EUR', 'GBP'];
/** Rates to USD used for every month (EUR, GBP, JPY); the group reports in USD. */
const RATE_TO_USD: Record<string, string> = { EUR: '1.08', GBP: '1.27', JPY: '0.0067', USD: '1' };

/** Time-ordered UUIDs: a v7 prefix and a 12-hex-digit counter, so bulk inserts stay B-tree local. */
function prefix(): string {
  return uuidv7().slice(0, 24); // xxxxxxxx-xxxx-7xxx-yxxx-
}
const uuidAt = (p: string, n: number) => `${p}${n.toString(16).padStart(12, '0')}`;
/** The same id in SQL for a bigint expression `n`. */
const uuidSql = (p: string, n: string) => `('${p}' || lpad(to_hex(${n}), 12, '0'))::uuid`;

interface ChartAccount {
  index: number;
  accountNumber: string;
  name: string;
  accountType: string;
  accountCategory: string;
  parentNumber: string | null;
  level: number;
  isPostable: boolean;
  cashFlowCategory: string | null;
  isCashEquivalent: boolean;
  isIntercompany: boolean;
  isRetainedEarnings: boolean;
}

/** The GeneralBusiness chart, padded with postable top-level accounts copied from postable ones. */
function chartOf(size: number): ChartAccount[] {
  const template = getTemplate('GeneralBusiness').accounts;
  const levels = hierarchyLevels(template);
  const base = sortByHierarchy(template).map<Omit<ChartAccount, 'index'>>((a) => ({
    accountNumber: a.accountNumber,
    name: a.name,
    accountType: a.accountType,
    accountCategory: a.accountCategory,
    parentNumber: a.parentAccountNumber,
    level: levels.get(a.accountNumber)!,
    isPostable: a.isPostable,
    cashFlowCategory: a.cashFlowCategory,
    isCashEquivalent: a.isCashEquivalent,
    isIntercompany: a.isIntercompany,
    isRetainedEarnings: a.isRetainedEarnings,
  }));
  const models = base.filter((a) => a.isPostable && !a.isIntercompany && !a.isRetainedEarnings);
  const out = [...base];
  for (let i = 0; out.length < size; i++) {
    const m = models[i % models.length]!;
    out.push({
      ...m,
      accountNumber: String(Number(m.accountNumber) * 10_000 + 1 + Math.floor(i / models.length)),
      name: `${m.name} ${1 + Math.floor(i / models.length)}`,
      parentNumber: null,
      level: 1,
      isCashEquivalent: false,
    });
  }
  return out.slice(0, Math.max(size, base.length)).map((a, index) => ({ ...a, index }));
}

async function timed<T>(log: (m: string) => void, what: string, fn: () => Promise<T>): Promise<T> {
  const t = performance.now();
  const result = await fn();
  log(`  ${what}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
  return result;
}

/** Builds one organization with its ledger. `log` receives progress lines. */
export async function generateDataset(
  db: Db,
  opts: GenerateOptions,
  log: (message: string) => void = () => {},
): Promise<Dataset> {
  const started = performance.now();
  const year = opts.year ?? 2025;
  const currencies = opts.currencies ?? DEFAULT_CURRENCIES;
  const perEntry = opts.linesPerEntry ?? 4;
  if (perEntry % 2 !== 0 || perEntry < 2) throw new Error('linesPerEntry must be even');
  const entryCount = Math.floor(opts.lines / perEntry);
  const now = new Date();

  // Users, organization, memberships, sessions.
  const passwordHash = await hashPassword('bench-password-Aa1');
  const roles = { owner: 'owner', clerk: 'member', controller: 'admin' } as const;
  const userIds = { owner: uuidv7(), clerk: uuidv7(), controller: uuidv7() };
  const tokens = { owner: newToken(), clerk: newToken(), controller: newToken() };
  const organizationId = uuidv7();
  await db.insert(users).values(
    (Object.keys(roles) as (keyof typeof roles)[]).map((k) => ({
      id: userIds[k],
      email: `${k}.${opts.label}@bench.example`,
      displayName: `Bench ${k}`,
      passwordHash,
    })),
  );
  await db.insert(organizations).values({
    id: organizationId,
    name: `Bench ${opts.label}`,
    nameKey: `bench ${opts.label}`.toLowerCase(),
    reportingCurrency: 'USD',
    settings: DEFAULT_SETTINGS,
  });
  await db.insert(memberships).values(
    (Object.keys(roles) as (keyof typeof roles)[]).map((k) => ({
      organizationId,
      userId: userIds[k],
      role: roles[k],
    })),
  );
  await db.insert(sessions).values(
    (Object.keys(roles) as (keyof typeof roles)[]).map((k) => ({
      tokenHash: tokens[k].hash,
      userId: userIds[k],
      expiresAt: new Date(now.getTime() + TOKEN_TTL_MS),
    })),
  );

  // Companies and charts.
  const chart = chartOf(opts.accountsPerCompany);
  const perCompany = chart.length;
  const accountPrefix = prefix();
  const accountId = (c: number, i: number) => uuidAt(accountPrefix, c * 10_000 + i);
  const companyIds = Array.from({ length: opts.companies }, () => uuidv7());
  const companyCurrencies = companyIds.map((_, c) => currencies[c % currencies.length]!);
  const retained = chart.find((a) => a.isRetainedEarnings)!;
  await timed(log, `${opts.companies} companies × ${perCompany} accounts`, async () => {
    await db.insert(companies).values(
      companyIds.map((id, c) => ({
        id,
        organizationId,
        name: `Company ${String(c + 1).padStart(3, '0')}`,
        nameKey: `company ${String(c + 1).padStart(3, '0')}`,
        legalName: `Company ${c + 1} Ltd`,
        jurisdiction: companyCurrencies[c] === 'USD' ? 'US' : companyCurrencies[c] === 'GBP' ? 'GB' : 'DE',
        functionalCurrency: companyCurrencies[c]!,
        reportingCurrency: 'USD',
        fiscalYearEndMonth: 12,
        fiscalYearEndDay: 31,
        retainedEarningsAccountId: accountId(c, retained.index),
      })),
    );
    const byNumber = new Map(chart.map((a) => [a.accountNumber, a.index]));
    for (let c = 0; c < opts.companies; c++) {
      await db.insert(accounts).values(
        chart.map((a) => ({
          id: accountId(c, a.index),
          organizationId,
          companyId: companyIds[c]!,
          accountNumber: a.accountNumber,
          name: a.name,
          accountType: a.accountType,
          accountCategory: a.accountCategory,
          parentAccountId: a.parentNumber === null ? null : accountId(c, byNumber.get(a.parentNumber)!),
          hierarchyLevel: a.level,
          isPostable: a.isPostable,
          isIntercompany: a.isIntercompany,
          cashFlowCategory: a.cashFlowCategory,
          isCashEquivalent: a.isCashEquivalent,
        })),
      );
      for (const y of [year - 1, year, year + 1]) {
        await ensureFiscalYear(db, {
          organizationId,
          companyId: companyIds[c]!,
          fiscalYearEnd: { month: 12, day: 31 },
          year: y,
          userId: userIds.owner,
        });
      }
    }
  });

  // Exchange rates to USD: spot at every month end (and the prior year end), monthly averages.
  const rateRows: (typeof exchangeRates.$inferInsert)[] = [];
  for (const cur of currencies.filter((c) => c !== 'USD')) {
    const add = (date: string, rateType: string) =>
      rateRows.push({
        id: uuidv7(),
        organizationId,
        fromCurrency: cur,
        toCurrency: 'USD',
        rate: RATE_TO_USD[cur] ?? '1.1',
        effectiveDate: date,
        rateType,
        source: 'Manual',
        createdBy: userIds.owner,
      });
    add(`${year - 1}-01-01`, 'Historical');
    add(`${year - 1}-12-31`, 'Spot');
    for (let m = 1; m <= 12; m++) {
      const end = new Date(Date.UTC(year, m, 0)).toISOString().slice(0, 10);
      add(end, 'Spot');
      add(end, 'Average');
    }
  }
  if (rateRows.length > 0) await db.insert(exchangeRates).values(rateRows);

  // Consolidation group: company 1 is the parent, every other company a 100 % member.
  const groupId = uuidv7();
  await db.insert(consolidationGroups).values({
    id: groupId,
    organizationId,
    name: `Group ${opts.label}`,
    nameKey: `group ${opts.label}`.toLowerCase(),
    reportingCurrency: 'USD',
    consolidationMethod: 'FullConsolidation',
    parentCompanyId: companyIds[0]!,
  });
  if (companyIds.length > 1) {
    await db.insert(consolidationMembers).values(
      opts.ownership
        ? ownershipMembers(opts.ownership.tiers, {
            organizationId,
            groupId,
            year,
            companyIds,
            companyCurrencies,
            accountIdOf: (c, number) => accountId(c, chart.find((a) => a.accountNumber === number)!.index),
          })
        : companyIds.slice(1).map((companyId) => ({
            organizationId,
            groupId,
            companyId,
            ownershipPercentage: '100.00',
            consolidationMethod: 'FullConsolidation',
            acquisitionDate: `${year - 1}-01-01`,
          })),
    );
  }

  // The ledger. Entry g (1-based) belongs to company (g-1) % C with number (g-1) / C + 1; its date
  // is spread over the year; its lines alternate debit/credit pairs of equal amounts on postable
  // accounts picked by a multiplicative hash.
  const postable = chart.filter((a) => a.isPostable).map((a) => a.index);
  const postableSql = `'{${postable.join(',')}}'::int[]`;
  const companySql = `'{${companyIds.join(',')}}'::uuid[]`;
  const currencySql = `'{${companyCurrencies.join(',')}}'::text[]`;
  const C = opts.companies;
  const entryPrefix = prefix();
  const linePrefix = prefix();
  const pairs = perEntry / 2;
  const batch = Math.max(1, Math.floor(100_000 / perEntry));
  const t0 = new Date(Date.UTC(year, 0, 1)).toISOString().slice(0, 10);
  // Amount of pair p of entry g: 1.00 … 99,999.99.
  const amountSql = (g: string, p: string) =>
    `(((${g})::bigint * 7919 + (${p}) * 104729) % 9999900 + 100)::numeric / 100`;
  const dateSql = (g: string) =>
    `('${t0}'::date + (((${g})::bigint * 37) % (date '${year}-12-31' - date '${t0}' + 1))::int)`;
  await timed(log, `${entryCount} entries, ${entryCount * perEntry} lines`, async () => {
    for (let from = 1; from <= entryCount; from += batch) {
      const to = Math.min(entryCount, from + batch - 1);
      await db.execute(
        sql.raw(`
        insert into journal_entries (id, organization_id, company_id, entry_number, description,
          transaction_date, posting_date, fiscal_year, fiscal_period, entry_type, source_module,
          is_multi_currency, status, total_debits, total_credits, created_by, submitted_by,
          submitted_at, approved_by, approved_at, posted_by, posted_at, created_at, updated_at)
        select ${uuidSql(entryPrefix, 'g')}, '${organizationId}',
          (${companySql})[1 + (g - 1) % ${C}], ((g - 1) / ${C} + 1)::int, 'Generated entry ' || g,
          d, d, ${year}, extract(month from d)::int, 'Standard', 'GeneralLedger',
          false, 'Posted', t, t, '${userIds.clerk}', '${userIds.clerk}', now(),
          '${userIds.controller}', now(), '${userIds.controller}', now(), now(), now()
        from (select g, ${dateSql('g')} as d,
                (select sum(${amountSql('g', 'p')}) from generate_series(1, ${pairs}) p) as t
              from generate_series(${from}, ${to}) g) s`),
      );
      await db.execute(
        sql.raw(`
        insert into journal_lines (id, organization_id, journal_entry_id, company_id, line_number,
          account_id, currency, debit_amount, credit_amount, functional_debit_amount,
          functional_credit_amount, exchange_rate, exchange_rate_leg_ids, memo)
        select ${uuidSql(linePrefix, `g * ${perEntry} + k - 1`)}, '${organizationId}',
          ${uuidSql(entryPrefix, 'g')}, (${companySql})[1 + (g - 1) % ${C}], k::smallint,
          ${uuidSql(accountPrefix, `((g - 1) % ${C}) * 10000 + (${postableSql})[1 + ((g::bigint * 2654435761 + k * 40503) % ${postable.length})]`)},
          (${currencySql})[1 + (g - 1) % ${C}],
          case when k % 2 = 1 then a end, case when k % 2 = 0 then a end,
          case when k % 2 = 1 then a end, case when k % 2 = 0 then a end,
          1, '{}', null
        from (select g, k, ${amountSql('g', '(k + 1) / 2')} as a
              from generate_series(${from}, ${to}) g, generate_series(1, ${perEntry}) k) s`),
      );
    }
  });
  await timed(log, 'entry counters and account_balances', async () => {
    // Fresh statistics first: the planner must see the new rows to hash-join lines and entries.
    await db.execute(sql.raw('analyze journal_entries, journal_lines'));
    await db.execute(sql`
      insert into entry_counters (organization_id, company_id, last_number)
      select organization_id, company_id, max(entry_number) from journal_entries
      where organization_id = ${organizationId} group by organization_id, company_id`);
    await db.execute(sql`
      insert into account_balances (organization_id, company_id, account_id, balance_date, fiscal_year,
        fiscal_period, is_closing, debit_total, credit_total)
      select l.organization_id, l.company_id, l.account_id, e.transaction_date, e.fiscal_year,
        e.fiscal_period, e.entry_type = 'Closing',
        coalesce(sum(l.functional_debit_amount), 0), coalesce(sum(l.functional_credit_amount), 0)
      from journal_lines l
      join journal_entries e on e.organization_id = l.organization_id and e.id = l.journal_entry_id
      where l.organization_id = ${organizationId} and e.status in ('Posted', 'Reversed')
      group by l.organization_id, l.company_id, l.account_id, e.transaction_date, e.fiscal_year,
        e.fiscal_period, e.entry_type = 'Closing'`);
    await rebuildMonthBalances(db, organizationId);
    await db.execute(sql.raw('analyze account_balances, account_month_balances, accounts, entry_counters'));
  });

  const pick = (type: string, cash: boolean) =>
    chart.find((a) => a.isPostable && a.accountType === type && a.isCashEquivalent === cash)!.index;
  const expense = pick('Expense', false);
  const bank = pick('Asset', true);
  return {
    label: opts.label,
    organizationId,
    companyIds,
    companyCurrencies,
    groupId,
    year,
    lines: entryCount * perEntry,
    entries: entryCount,
    tokens: { owner: tokens.owner.token, clerk: tokens.clerk.token, controller: tokens.controller.token },
    userIds,
    entryAccounts: companyIds.map((_, c) => ({ debit: accountId(c, expense), credit: accountId(c, bank) })),
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * Members in tiers: the first tenth held by the parent, the next three tenths by those, the rest by
 * the second tier; stakes of 60–100 %; every member with acquisition data (consideration in its
 * holder's currency, the holder's account 1800 as investment, a land step-up), acquired on dates
 * spread over the previous year and the first half of the year, NCI measured both ways.
 */
function ownershipMembers(
  tiers: number,
  g: {
    organizationId: string;
    groupId: string;
    year: number;
    companyIds: string[];
    companyCurrencies: string[];
    accountIdOf: (company: number, accountNumber: string) => string;
  },
): (typeof consolidationMembers.$inferInsert)[] {
  const n = g.companyIds.length - 1;
  const bounds = tiers <= 1 ? [n] : [Math.ceil(n * 0.1), Math.ceil(n * 0.4), n];
  const holderOf = (i: number): number | null => {
    if (i < bounds[0]!) return null;
    const tier = bounds.findIndex((b) => i < b);
    const from = tier <= 1 ? 0 : bounds[tier - 2]!;
    const size = bounds[tier - 1]! - from;
    return from + ((i - bounds[tier - 1]!) % size);
  };
  return g.companyIds.slice(1).map((companyId, i) => {
    const holder = holderOf(i);
    const holderIndex = holder === null ? 0 : holder + 1;
    const currency = g.companyCurrencies[holderIndex]!;
    const month = 1 + (i % 18);
    const date =
      month <= 12
        ? `${g.year - 1}-${String(month).padStart(2, '0')}-01`
        : `${g.year}-${String(month - 12).padStart(2, '0')}-01`;
    return {
      organizationId: g.organizationId,
      groupId: g.groupId,
      companyId,
      ownershipPercentage: (60 + ((i * 7) % 41)).toFixed(2),
      consolidationMethod: 'FullConsolidation',
      acquisitionDate: date,
      heldByCompanyId: holder === null ? null : g.companyIds[holder + 1]!,
      acquisition: {
        consideration: { value: currency === 'JPY' ? '150000000' : '1000000.00', currency },
        investmentAccountId: g.accountIdOf(holderIndex, '1800'),
        nciMeasurement: i % 2 === 0 ? 'Proportionate' : 'FairValue',
        nciFairValue:
          i % 2 === 0
            ? null
            : {
                value: g.companyCurrencies[i + 1] === 'JPY' ? '60000000' : '400000.00',
                currency: g.companyCurrencies[i + 1]!,
              },
        fairValueAdjustments: [
          {
            accountId: g.accountIdOf(i + 1, '1510'),
            amount: g.companyCurrencies[i + 1] === 'JPY' ? '1500000' : '10000.00',
          },
        ],
        goodwillAccountNumber: null,
      },
    };
  });
}

/** Checks the balance invariant of a dataset: balances = Σ lines of posted entries, and TB nets to 0. */
export async function checkBalances(db: Db, organizationId: string): Promise<void> {
  const result = (await db.execute(sql`
    with l as (
      select l.company_id, l.account_id, sum(coalesce(l.functional_debit_amount, 0)) as d,
             sum(coalesce(l.functional_credit_amount, 0)) as c
      from journal_lines l join journal_entries e
        on e.organization_id = l.organization_id and e.id = l.journal_entry_id
      where l.organization_id = ${organizationId} and e.status in ('Posted', 'Reversed')
      group by 1, 2),
    b as (
      select company_id, account_id, sum(debit_total) as d, sum(credit_total) as c
      from account_balances where organization_id = ${organizationId} group by 1, 2)
    select
      (select count(*)::int from l full join b using (company_id, account_id)
        where l.d is distinct from b.d or l.c is distinct from b.c) as mismatched,
      (select count(*)::int from (select company_id from b group by 1 having sum(d) <> sum(c)) x)
        as unbalanced`)) as unknown as { rows: { mismatched: number; unbalanced: number }[] };
  const row = result.rows[0]!;
  if (Number(row.mismatched) !== 0 || Number(row.unbalanced) !== 0) {
    throw new Error(`balance invariant broken: ${JSON.stringify(row)}`);
  }
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const usePostgres = arg('db') === 'postgres';
  const database: Database = await openDatabase(
    usePostgres
      ? { url: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/groupbook' }
      : { dataDir: arg('data-dir') ?? './data' },
  );
  try {
    await database.migrate();
    const ds = await generateDataset(
      database.db,
      {
        label: arg('label') ?? `gen-${Date.now()}`,
        companies: Number(arg('companies') ?? 50),
        accountsPerCompany: Number(arg('accounts') ?? 200),
        lines: Number(arg('lines') ?? 10_000),
      },
      (m) => process.stdout.write(`${m}\n`),
    );
    await checkBalances(database.db, ds.organizationId);
    process.stdout.write(
      `${JSON.stringify({ ...ds, tokens: undefined, entryAccounts: undefined }, null, 2)}\n` +
        `owner token: ${ds.tokens.owner}\n`,
    );
  } finally {
    await database.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
