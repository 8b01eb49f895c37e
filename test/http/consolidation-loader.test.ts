/**
 * The run's data-loading step reads whole months from the monthly roll-up and daily rows only where a
 * figure's key changes inside a month. This test holds it to an oracle that reads nothing but the
 * daily rows (`account_balances`), on a random ledger built to hit every cut: a group year end that is
 * not a month end (15 June), a member year end that is not one either (20 March), adjustment-period
 * rows dated anywhere in their year, closing rows, equity and non-monetary accounts of foreign
 * members with historical-rate changes on 1sts, mid-month days and month ends, and views as of month
 * ends, mid-month dates and period 13.
 *
 * Equity and non-monetary figures of foreign members are translated at HR(date); the loader may
 * stand one date for several with the same rate, so those are compared per rate segment (the days
 * between two consecutive rate changes). Monetary figures of foreign members come, in the closing
 * view, as one figure before the view's year and one per group period of the year (their movements:
 * the cash-flow statement's translation differences).
 */
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { accounts, fiscalYears } from '../../src/db/schema/index.ts';
import type { CompanyLedger } from '../../src/domain/consolidation/index.ts';
import { addDays, daysBetween } from '../../src/domain/dates.ts';
import {
  type FiscalYearEnd,
  fiscalYearOf,
  fiscalYearRange,
  fiscalYearStartDate,
  periodOf,
  periodRange,
} from '../../src/domain/fiscal-calendar.ts';
import { figureBranching } from '../../src/modules/consolidation/runs.figures.ts';
import { loadRunInput } from '../../src/modules/consolidation/runs.loader.ts';
import type { RunRow } from '../../src/modules/consolidation/runs.repo.ts';
import { rebuildMonthBalances } from '../../src/modules/ledger/posting.ts';
import { createTestContext, type TestContext } from '../helpers/app.ts';
import { type Company, createAccount, createCompany, insertRate } from '../helpers/ledger.ts';

let t: TestContext;
let orgId: string;
let userId: string;
const members: { company: Company; fye: FiscalYearEnd; accountIds: string[] }[] = [];
const GROUP_FYE: FiscalYearEnd = { month: 6, day: 15 };

beforeAll(async () => {
  t = await createTestContext();
  const owner = await t.user('loader');
  userId = owner.id;
  orgId = (await t.org(owner)).id;
  const specs: { currency: string; fye: FiscalYearEnd }[] = [
    { currency: 'USD', fye: GROUP_FYE },
    { currency: 'EUR', fye: { month: 3, day: 20 } },
    { currency: 'GBP', fye: { month: 12, day: 31 } },
    { currency: 'USD', fye: { month: 12, day: 31 } },
  ];
  for (const spec of specs) {
    const company = await createCompany(t, orgId, {
      functionalCurrency: spec.currency,
      fiscalYearEnd: spec.fye,
    });
    const equity = await createAccount(t, company, {
      accountNumber: '3100',
      accountType: 'Equity',
      accountCategory: 'CommonStock',
    });
    const inventory = await createAccount(t, company, { accountNumber: '1400' });
    await t.database.db
      .update(accounts)
      .set({ isNonMonetary: true })
      .where(sql`${accounts.organizationId} = ${orgId} and ${accounts.id} = ${inventory}`);
    const c = company.accounts;
    const accountIds = [
      c.cash,
      c.receivable,
      c.payable,
      c.retainedEarnings,
      c.revenue,
      c.expense,
      equity,
      inventory,
    ];
    for (let year = 2024; year <= 2027; year++) {
      const range = fiscalYearRange(spec.fye, year);
      await t.database.db.insert(fiscalYears).values({
        id: uuidv7(),
        organizationId: orgId,
        companyId: company.id,
        year,
        name: `FY${year}`,
        startDate: range.startDate,
        endDate: range.endDate,
      });
    }
    members.push({ company, fye: spec.fye, accountIds });
  }
});

afterAll(async () => {
  await t?.close();
});

interface BalanceRow {
  member: number;
  account: number;
  offset: number;
  adjustment: boolean;
  closing: boolean;
  cents: number;
}

const FIRST_DAY = fiscalYearStartDate(GROUP_FYE, 2024);

/** Replaces the organization's rates by Spot / Historical EUR→USD and GBP→USD rates on `offsets`. */
async function writeRates(rates: { offset: number; historical: boolean; gbp: boolean }[]): Promise<string[]> {
  await t.database.db.execute(sql`delete from exchange_rates where organization_id = ${orgId}`);
  const dates = new Set<string>();
  for (const [i, r] of rates.entries()) {
    const date = addDays(FIRST_DAY, r.offset);
    dates.add(date);
    await insertRate(t, orgId, userId, {
      from: r.gbp ? 'GBP' : 'EUR',
      to: 'USD',
      rate: `1.${String(100 + i)}`,
      date,
      type: r.historical ? 'Historical' : 'Spot',
    }).catch(() => undefined); // the same pair, type and date twice: keep the first
  }
  return [...dates].sort();
}

/** Replaces the organization's balances by `rows` (daily table) and rebuilds their monthly roll-up. */
async function writeLedger(rows: BalanceRow[]): Promise<void> {
  const db = t.database.db;
  await db.execute(sql`delete from account_balances where organization_id = ${orgId}`);
  for (const r of rows) {
    const m = members[r.member]!;
    const date = addDays(FIRST_DAY, r.offset);
    const year = fiscalYearOf(m.fye, date);
    const period = r.adjustment ? 13 : periodOf(m.fye, date).period;
    const debit = r.cents > 0 ? (r.cents / 100).toFixed(2) : '0';
    const credit = r.cents < 0 ? (-r.cents / 100).toFixed(2) : '0';
    await db.execute(sql`
      insert into account_balances (organization_id, company_id, account_id, balance_date, fiscal_year,
        fiscal_period, is_closing, debit_total, credit_total)
      values (${orgId}, ${m.company.id}, ${m.accountIds[r.account]!}, ${date}::date, ${year}, ${period},
        ${r.closing}, ${debit}::numeric, ${credit}::numeric)
      on conflict (organization_id, company_id, account_id, balance_date, fiscal_year, fiscal_period, is_closing)
      do update set debit_total = account_balances.debit_total + excluded.debit_total,
        credit_total = account_balances.credit_total + excluded.credit_total`);
  }
  await rebuildMonthBalances(db, orgId);
}

/** The run as the runs module stores it before execution (only what the loader reads matters). */
/** Acquisition data whose dates matter here (its amounts and accounts do not). */
function acquisitionOf(holder: number) {
  return {
    consideration: { value: '1.00', currency: members[holder]!.company.functionalCurrency },
    investmentAccountId: members[holder]!.accountIds[0]!,
    nciMeasurement: 'Proportionate',
    nciFairValue: null,
    fairValueAdjustments: [],
    goodwillAccountNumber: null,
  };
}

function runRow(
  year: number,
  period: number,
  asOfDate: string,
  acquisitions?: { first: string; second: string },
): RunRow {
  return {
    id: uuidv7(),
    organizationId: orgId,
    groupId: uuidv7(),
    year,
    period,
    asOfDate,
    yearStartDate: fiscalYearStartDate(GROUP_FYE, year),
    reportingCurrency: 'USD',
    status: 'InProgress',
    steps: [],
    options: {},
    members: members.map((m, i) => ({
      companyId: m.company.id,
      companyName: `Member ${i}`,
      role: i === 0 ? 'Parent' : 'Member',
      consolidationMethod: 'FullConsolidation',
      ownershipPercentage: '100',
      nonControllingInterestPercentage: '0',
      functionalCurrency: m.company.functionalCurrency,
      included: true,
      // with acquisitions: member 1 acquired by the parent, member 2 by member 1 (on their own dates)
      ...(acquisitions && i === 1
        ? { acquisitionDate: acquisitions.first, acquisition: acquisitionOf(0) }
        : {}),
      ...(acquisitions && i === 2
        ? {
            heldByCompanyId: members[1]!.company.id,
            acquisitionDate: acquisitions.second,
            acquisition: acquisitionOf(1),
          }
        : {}),
    })),
    initiatedBy: userId,
    requestedBy: userId,
    initiatedAt: new Date(),
  } as RunRow;
}

/**
 * The oracle: the same figures from the daily rows alone, keyed per the loader's contract
 * (runs.loader.ts, `loadFigures`), computed row by row in TypeScript.
 */
async function oracle(
  view: { asOfDate: string; yearStartDate: string; flows: boolean },
  excludeAdjustmentsOf: Map<string, number>,
  segment: (date: string) => string,
): Promise<Map<string, string>> {
  const rows = await queryRows<{
    company_id: string;
    account_id: string;
    day: string;
    fiscal_year: number;
    fiscal_period: number;
    amount: string;
  }>(
    t.database.db,
    sql`select company_id::text as company_id, account_id::text as account_id, balance_date::text as day,
          fiscal_year, fiscal_period::int as fiscal_period, (debit_total - credit_total)::text as amount
        from account_balances
        where organization_id = ${orgId} and not is_closing and balance_date <= ${view.asOfDate}::date`,
  );
  const info = new Map<string, { type: string; nonMonetary: boolean; number: string }>();
  for (const a of await t.database.db
    .select()
    .from(accounts)
    .where(sql`${accounts.organizationId} = ${orgId}`)) {
    info.set(a.id, { type: a.accountType, nonMonetary: a.isNonMonetary, number: a.accountNumber });
  }
  const out = new Map<string, bigint>();
  for (const r of rows) {
    if (r.fiscal_period === 13 && excludeAdjustmentsOf.get(r.company_id) === r.fiscal_year) continue;
    const member = members.find((m) => m.company.id === r.company_id)!;
    const foreign = member.company.functionalCurrency !== 'USD';
    const a = info.get(r.account_id)!;
    let key: string | null = null;
    if (a.type === 'Revenue' || a.type === 'Expense') {
      if (foreign) {
        const p = periodOf(GROUP_FYE, r.day);
        key = periodRange(GROUP_FYE, p.year, p.period).endDate;
      } else {
        key = r.day < view.yearStartDate ? addDays(view.yearStartDate, -1) : view.yearStartDate;
      }
    } else if (foreign && (a.type === 'Equity' || a.nonMonetary)) {
      key = segment(r.day);
    } else if (foreign && view.flows && r.day >= view.yearStartDate) {
      const p = periodOf(GROUP_FYE, r.day);
      key = periodRange(GROUP_FYE, p.year, p.period).endDate;
    }
    const k = `${r.company_id}|${a.number}|${key ?? '-'}`;
    out.set(k, (out.get(k) ?? 0n) + BigInt(Math.round(Number(r.amount) * 100)));
  }
  return new Map([...out].filter(([, v]) => v !== 0n).map(([k, v]) => [k, String(v)]));
}

/** The loader's figures in the oracle's shape (amounts in cents, historical dates as segments). */
function flatten(ledgers: CompanyLedger[], segment: (date: string) => string): Map<string, string> {
  const out = new Map<string, bigint>();
  for (const l of ledgers) {
    const member = members.find((m) => m.company.id === l.companyId)!;
    const foreign = member.company.functionalCurrency !== 'USD';
    for (const f of l.figures) {
      const historical = foreign && (f.accountNumber.startsWith('3') || f.accountNumber === '1400');
      const key = historical && f.date !== null ? segment(f.date) : (f.date ?? '-');
      const k = `${l.companyId}|${f.accountNumber}|${key}`;
      if (!historical) expect(out.has(k), `duplicate figure ${k}`).toBe(false);
      out.set(k, (out.get(k) ?? 0n) + BigInt(Math.round(Number(f.amount) * 100)));
    }
  }
  return new Map([...out].filter(([, v]) => v !== 0n).map(([k, v]) => [k, String(v)]));
}

/**
 * The representative date of a group period is its end date, except that the loader dates period 12
 * of a group year ending mid-month by the last day of the month before the year-end month. Both are
 * inside the period, so both identify it; map the oracle's end date to the loader's choice.
 */
function loaderPeriodDate(endDate: string): string {
  const [, m, d] = endDate.split('-').map(Number) as [number, number, number];
  if (m === GROUP_FYE.month && d === GROUP_FYE.day) return addDays(`${endDate.slice(0, 8)}01`, -1);
  return endDate;
}

function normalizeOracle(o: Map<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of o) {
    const [company, account, key] = k.split('|') as [string, string, string];
    const member = members.find((m) => m.company.id === company)!;
    const isPeriodKey =
      member.company.functionalCurrency !== 'USD' &&
      (account === '4000' ||
        account === '5000' ||
        (['1000', '1100', '2000'].includes(account) && key !== '-'));
    out.set(`${company}|${account}|${isPeriodKey ? loaderPeriodDate(key) : key}`, v);
  }
  return out;
}

const ledgerArb = fc.array(
  fc.record({
    member: fc.integer({ min: 0, max: 3 }),
    // equity (6) and non-monetary (7) accounts more often: their keys depend on the rates
    account: fc.oneof(fc.integer({ min: 0, max: 7 }), fc.constantFrom(6, 7)),
    offset: fc.integer({ min: 0, max: 3 * 365 }),
    adjustment: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
    closing: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
    cents: fc.integer({ min: -500_000, max: 500_000 }).filter((n) => n !== 0),
  }),
  { minLength: 20, maxLength: 120 },
);

const ratesArb = fc.array(
  fc.record({
    offset: fc.oneof(
      fc.integer({ min: 0, max: 3 * 365 }),
      // 1sts and last days of months
      fc.integer({ min: 0, max: 36 }).chain((i) =>
        fc.constantFrom(0, -1).map((shift) => {
          const first = addDays(FIRST_DAY, 0).slice(0, 8) + '01';
          const [y, mo] = first.split('-').map(Number) as [number, number];
          const month = new Date(Date.UTC(y, mo - 1 + i, 1)).toISOString().slice(0, 10);
          return Math.max(0, daysBetween(FIRST_DAY, month) + shift);
        }),
      ),
    ),
    historical: fc.boolean(),
    gbp: fc.boolean(),
  }),
  { minLength: 1, maxLength: 12 },
);

const viewArb = fc.oneof(
  // a period end (1–12) of fiscal year 2025 or 2026
  fc
    .record({ year: fc.integer({ min: 2025, max: 2026 }), period: fc.integer({ min: 1, max: 12 }) })
    .map((p) => ({
      ...p,
      asOfDate: periodRange(GROUP_FYE, p.year, p.period).endDate,
    })),
  // a date inside a period
  fc.integer({ min: 380, max: 3 * 365 }).map((offset) => {
    const asOfDate = addDays(FIRST_DAY, offset);
    return { ...periodOf(GROUP_FYE, asOfDate), asOfDate };
  }),
  // period 13
  fc.integer({ min: 2025, max: 2026 }).map((year) => ({
    year,
    period: 13,
    asOfDate: fiscalYearRange(GROUP_FYE, year).endDate,
  })),
);

describe('run loader: monthly roll-up vs daily rows', () => {
  // Large groups' companies are read in two branches of the figure statement (run side by side by
  // PostgreSQL); the second case reads these four members that way.
  it.each([
    ['in one branch', 20],
    ['in two branches', 2],
  ])('gives the same figures as the daily rows alone, for both views (companies %s)', async (_, from) => {
    figureBranching.fromCompanies = from;
    onTestFinished(() => {
      figureBranching.fromCompanies = 20;
    });
    await fc.assert(
      fc.asyncProperty(ledgerArb, ratesArb, viewArb, async (rows, rates, view) => {
        await writeLedger(rows);
        const changes = await writeRates(rates);
        const segment = (date: string) => `seg${changes.filter((c) => c <= date).length}`;
        const run = runRow(view.year, view.period, view.asOfDate);
        const input = await loadRunInput(t.database.db, run);

        const exclusion = new Map<string, number>();
        if (view.period <= 12) {
          for (const m of members) exclusion.set(m.company.id, fiscalYearOf(m.fye, view.asOfDate));
        }
        const closing = normalizeOracle(
          await oracle(
            { asOfDate: view.asOfDate, yearStartDate: run.yearStartDate, flows: true },
            exclusion,
            segment,
          ),
        );
        expect(flatten(input.closing.ledgers, segment)).toEqual(closing);
        const openingAsOf = addDays(run.yearStartDate, -1);
        const opening = normalizeOracle(
          await oracle(
            {
              asOfDate: openingAsOf,
              yearStartDate: fiscalYearStartDate(GROUP_FYE, view.year - 1),
              flows: false,
            },
            new Map(),
            segment,
          ),
        );
        expect(flatten(input.opening.ledgers, segment)).toEqual(opening);
      }),
      { numRuns: 40 },
    );
  });
});

/** Σ (debit − credit) in cents per account number of a company's rows dated before `cut` (no closing rows). */
async function cutOracle(companyId: string, cut: string): Promise<Map<string, string>> {
  const rows = await queryRows<{ number: string; cents: string }>(
    t.database.db,
    sql`select a.account_number as number, (sum(ab.debit_total - ab.credit_total) * 100)::bigint::text as cents
        from account_balances ab join accounts a on a.organization_id = ab.organization_id and a.id = ab.account_id
        where ab.organization_id = ${orgId} and ab.company_id = ${companyId}::uuid and not ab.is_closing
          and ab.balance_date < ${cut}::date
        group by 1 having sum(ab.debit_total - ab.credit_total) <> 0`,
  );
  return new Map(rows.map((r) => [r.number, r.cents]));
}

describe('run loader: pre-acquisition cut ledgers', () => {
  it('gives, per member and cut date, the sums of the rows dated before it', async () => {
    await fc.assert(
      fc.asyncProperty(
        ledgerArb,
        viewArb,
        fc.integer({ min: 0, max: 3 * 365 }),
        fc.integer({ min: 0, max: 3 * 365 }),
        async (rows, view, a, b) => {
          await writeLedger(rows);
          const first = addDays(FIRST_DAY, a);
          const second = addDays(FIRST_DAY, b);
          const input = await loadRunInput(
            t.database.db,
            runRow(view.year, view.period, view.asOfDate, { first, second }),
          );
          // Member 1 is cut at its own date; member 2 at its own and its holder's (the later is its group date).
          const expected = [
            { companyId: members[1]!.company.id, cutDate: first },
            ...[...new Set([first, second])]
              .sort()
              .map((cutDate) => ({ companyId: members[2]!.company.id, cutDate })),
          ].filter((c) => c.cutDate <= view.asOfDate);
          const cuts = input.closing.cuts ?? [];
          expect(cuts.map((c) => [c.companyId, c.cutDate])).toEqual(
            expected.map((c) => [c.companyId, c.cutDate]),
          );
          for (const c of cuts) {
            const got = new Map(
              c.figures.map((f) => [f.accountNumber, String(BigInt(Math.round(Number(f.amount) * 100)))]),
            );
            expect(got).toEqual(await cutOracle(c.companyId, c.cutDate));
          }
        },
      ),
      { numRuns: 15 },
    );
  });
});
