/**
 * The worked example of docs/consolidation.md, run through the API: every figure the guide states is
 * asserted here, so the guide cannot drift from what the service answers.
 *
 * The figures were worked out by hand in the guide (acquisition at the acquisition-date rate, the
 * subsidiary's later results at the average rate, net assets at the closing rate, translation
 * differences to CTA shared with the non-controlling interest), not read from the service.
 *
 * Group: P (USD, the parent) buys 80 % of S (EUR) on 1 July 2025 for $968, measuring the NCI at its
 * share of the net assets. S's land is worth €100 more than its carrying amount. EUR → USD: 1.10 on
 * 1 July, 1.15 on average in every month from July to December, 1.20 on 31 December.
 */
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext, type TestUser, uniq } from '../helpers/app.ts';
import {
  type CompanyFixture,
  createCompany,
  addEurUsdRate,
  type LineSpec,
  postEntry,
} from '../helpers/consolidation.ts';

let t: TestContext;
let owner: TestUser;
let org: { id: string };
let p: CompanyFixture;
let s: CompanyFixture;
let run: any;

const usd = (value: string) => ({ value, currency: 'USD' });
const eur = (value: string) => ({ value, currency: 'EUR' });

const post = (co: CompanyFixture, currency: string, transactionDate: string, lines: LineSpec[]) =>
  postEntry(t, owner, org.id, co, currency, transactionDate, lines);

const rate = (value: string, effectiveDate: string, rateType: string) =>
  addEurUsdRate(t, owner, org.id, value, effectiveDate, rateType);

async function report(name: string) {
  const res = await t.get(`/api/v1/consolidation/runs/${run.id}/${name}`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body;
}

const amount = (section: any, key: string) =>
  section.lineItems.find((l: any) => l.accountNumber === key || l.description === key)?.currentAmount;
const flow = (section: any, description: string) =>
  section.lineItems.find((l: any) => l.description === description)?.amount;

beforeAll(async () => {
  t = await createTestContext();
  owner = await t.user('owner');
  org = await t.org(owner, { settings: { requireApproval: false } });
  p = await createCompany(t, owner, org.id);
  s = await createCompany(t, owner, org.id, { functionalCurrency: 'EUR' });

  // P: share capital $2,000 paid in 2024; on 1 July 2025 it pays $968 for 80 % of S.
  await post(p, 'USD', '2024-06-01', [
    ['1010', 'D', '2000'],
    ['3000', 'C', '2000'],
  ]);
  await post(p, 'USD', '2025-07-01', [
    ['1800', 'D', '968'],
    ['1010', 'C', '968'],
  ]);
  // S: formed in January 2025 with €600, buys land for €300, earns €200 before the acquisition …
  await post(s, 'EUR', '2025-01-02', [
    ['1010', 'D', '600'],
    ['3000', 'C', '600'],
  ]);
  await post(s, 'EUR', '2025-01-15', [
    ['1510', 'D', '300'],
    ['1010', 'C', '300'],
  ]);
  await post(s, 'EUR', '2025-03-31', [
    ['1010', 'D', '500'],
    ['4000', 'C', '500'],
  ]);
  await post(s, 'EUR', '2025-05-31', [
    ['5000', 'D', '300'],
    ['1010', 'C', '300'],
  ]);
  // … and €100 after it (revenue €300 in September, costs €200 in November, in cash).
  await post(s, 'EUR', '2025-09-30', [
    ['1010', 'D', '300'],
    ['4000', 'C', '300'],
  ]);
  await post(s, 'EUR', '2025-11-30', [
    ['5000', 'D', '200'],
    ['1010', 'C', '200'],
  ]);

  await rate('1.10', '2025-07-01', 'Spot');
  for (let month = 7; month <= 12; month++) {
    await rate('1.15', `2025-${String(month).padStart(2, '0')}-28`, 'Average');
  }
  await rate('1.20', '2025-12-31', 'YearEnd');

  const group = await t.post('/api/v1/consolidation/groups', {
    token: owner.token,
    body: {
      organizationId: org.id,
      name: uniq('Guide group'),
      reportingCurrency: 'USD',
      consolidationMethod: 'FullConsolidation',
      parentCompanyId: p.id,
      members: [
        {
          companyId: s.id,
          ownershipPercentage: '80',
          consolidationMethod: 'FullConsolidation',
          acquisitionDate: '2025-07-01',
          acquisition: {
            consideration: usd('968.00'),
            investmentAccountId: p.accounts['1800'],
            nciMeasurement: 'Proportionate',
            fairValueAdjustments: [{ accountId: s.accounts['1510'], amount: '100.00' }],
            goodwillAccountNumber: '1710',
          },
        },
      ],
    },
  });
  expect(group.status, JSON.stringify(group.body)).toBe(201);
  const res = await t.post(`/api/v1/consolidation/groups/${group.body.id}/runs`, {
    token: owner.token,
    body: { periodRef: { year: 2025, period: 12 } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  run = res.body;
}, 120_000);

afterAll(async () => {
  await t.close();
});

describe('the worked example of the consolidation guide', () => {
  it('analyses the acquisition: goodwill €160 = $176 at the acquisition-date rate', () => {
    expect(run.status, run.errorMessage).toBe('Completed');
    expect(run.acquisitionAnalysis).toHaveLength(1);
    expect(run.acquisitionAnalysis[0]).toMatchObject({
      groupAcquisitionDate: '2025-07-01',
      acquisitionRate: '1.1',
      closingRate: '1.2',
      consideration: { functional: eur('880.00'), reporting: usd('968.00') },
      netAssetsAtAcquisition: { functional: eur('800.00'), reporting: usd('880.00') },
      fairValueAdjustments: { functional: eur('100.00'), reporting: usd('110.00') },
      nciAtAcquisition: { functional: eur('180.00'), reporting: usd('198.00') },
      goodwill: { functional: eur('160.00'), reporting: usd('176.00') },
      goodwillAtClosingRate: usd('192.00'),
      preAcquisitionResultsOfYear: { functional: eur('200.00'), reporting: usd('220.00') },
    });
  });

  it('publishes the balance sheet at 31 December', async () => {
    const bs = await report('reports/balance-sheet');
    // Cash 1,032 + €600 × 1.20; land (€300 + €100) × 1.20; goodwill €160 × 1.20.
    expect(amount(bs.currentAssets, '1010')).toEqual(usd('1752.00'));
    expect(amount(bs.nonCurrentAssets, '1510')).toEqual(usd('480.00'));
    expect(amount(bs.nonCurrentAssets, '1710')).toEqual(usd('192.00'));
    expect(bs.totalAssets).toEqual(usd('2424.00'));
    // The parent's capital alone; 80 % of the profit after the acquisition; CTA 111 less the NCI's 19.
    expect(amount(bs.equity, '3000')).toEqual(usd('2000.00'));
    expect(amount(bs.equity, 'Current Year Earnings')).toEqual(usd('92.00'));
    expect(amount(bs.equity, 'CTA')).toEqual(usd('92.00'));
    expect(bs.nonControllingInterest).toEqual(usd('240.00'));
    expect(bs.isBalanced).toBe(true);
  });

  it('publishes the income statement: only the results after the acquisition', async () => {
    const is = await report('reports/income-statement');
    expect(is.netIncome).toEqual(usd('115.00'));
    expect(is.netIncomeAttributableToNCI).toEqual(usd('23.00'));
    expect(is.netIncomeAttributableToParent).toEqual(usd('92.00'));
  });

  it('publishes the cash-flow statement with the acquisition net of the cash acquired', async () => {
    const cf = await report('reports/cash-flow');
    expect(cf.beginningCash).toEqual(usd('2000.00'));
    expect(cf.operatingActivities.netCashFlow).toEqual(usd('115.00'));
    expect(flow(cf.investingActivities, 'Acquisition of subsidiaries, net of cash acquired')).toEqual(
      usd('-418.00'),
    );
    expect(cf.investingActivities.netCashFlow).toEqual(usd('-418.00'));
    expect(cf.financingActivities.netCashFlow).toEqual(usd('0.00'));
    expect(cf.exchangeRateEffect).toEqual(usd('55.00'));
    expect(cf.endingCash).toEqual(usd('1752.00'));
    expect(cf.isReconciled).toBe(true);
  });

  it('publishes the equity statement: the NCI arrives with the acquisition and shares in OCI', async () => {
    const es = await report('reports/equity-statement');
    const byType = Object.fromEntries(es.movements.map((m: any) => [m.movementType, m]));
    expect(byType.NetIncome).toMatchObject({
      retainedEarnings: usd('92.00'),
      nonControllingInterest: usd('23.00'),
    });
    expect(byType.OtherComprehensiveIncome).toMatchObject({
      accumulatedOCI: usd('92.00'),
      nonControllingInterest: usd('19.00'),
    });
    // The NCI at acquisition (€180 × 1.10) is a change of the NCI column without income.
    expect(byType.Other.nonControllingInterest).toEqual(usd('198.00'));
    expect(es.openingBalances).toMatchObject({ contributedCapital: usd('2000.00'), total: usd('2000.00') });
    expect(es.closingBalances).toMatchObject({
      contributedCapital: usd('2000.00'),
      retainedEarnings: usd('92.00'),
      accumulatedOCI: usd('92.00'),
      nonControllingInterest: usd('240.00'),
      total: usd('2424.00'),
    });
  });
});

describe('exports of the consolidated statements', () => {
  /** Every amount of a JSON answer, in document order. */
  function amounts(v: unknown, out: string[] = []): string[] {
    if (Array.isArray(v)) v.forEach((x) => amounts(x, out));
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (typeof o.value === 'string' && typeof o.currency === 'string') out.push(o.value);
      else Object.values(o).forEach((x) => amounts(x, out));
    }
    return out;
  }

  for (const name of [
    'trial-balance',
    'reports/balance-sheet',
    'reports/income-statement',
    'reports/cash-flow',
    'reports/equity-statement',
  ]) {
    it(`${name}: CSV and XLSX hold the figures of the JSON answer`, async () => {
      const json = await report(name);
      const figures = new Set(amounts(json));
      const url = `/api/v1/consolidation/runs/${run.id}/${name}`;
      const csv = await t.get(url, { token: owner.token, query: { format: 'csv' } });
      expect(csv.status).toBe(200);
      const slug = name.replace('reports/', '');
      expect(csv.headers['content-disposition']).toContain(`_consolidated-${slug}_2025-12-31.csv`);
      const rows = parse(csv.raw.body) as string[][];
      const csvFigures = rows
        .slice(1)
        .flat()
        .filter((v) => /^-?\d+\.\d{2}$/.test(v));
      expect(csvFigures.length).toBeGreaterThan(0);
      for (const v of csvFigures) expect(figures.has(v), v).toBe(true);

      const xlsx = await t.req('GET', url, {
        token: owner.token,
        headers: { accept: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' },
      });
      expect(xlsx.status).toBe(200);
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(xlsx.raw.rawPayload as never);
      const numbers: number[] = [];
      book.worksheets[0]!.eachRow((row, i) => {
        if (i === 1) return;
        for (const cell of (row.values as unknown[]).slice(1))
          if (typeof cell === 'number') numbers.push(cell);
      });
      expect(numbers).toEqual(csvFigures.map(Number));
    });
  }
});
