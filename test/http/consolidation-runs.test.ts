/**
 * Consolidation runs and consolidated reports (contract 3.12) through the real API: companies created
 * with the GeneralBusiness template, journal entries posted directly (organization setting
 * requireApproval false), exchange rates, matched intercompany transactions, groups and rules.
 *
 * The worked example (parent USD + 80 % EUR subsidiary) states its arithmetic in comments; every
 * figure below was computed by hand from the contract's rules (3.12.4), not read from the service.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext, type TestUser, uniq } from '../helpers/app.ts';
import {
  type CompanyFixture,
  createCompany,
  createGroup,
  type MemberSpec,
} from '../helpers/consolidation.ts';
import { insertRun } from '../helpers/consolidation-db.ts';

let t: TestContext;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let viewer: TestUser;
let outsider: TestUser;
let org: { id: string };
let otherOrg: { id: string };

const RUNS = '/api/v1/consolidation/runs';
const groupRuns = (groupId: string) => `/api/v1/consolidation/groups/${groupId}/runs`;

beforeAll(async () => {
  t = await createTestContext();
  owner = await t.user('owner');
  admin = await t.user('admin');
  member = await t.user('member');
  viewer = await t.user('viewer');
  outsider = await t.user('outsider');
  org = await t.org(owner, { settings: { requireApproval: false } });
  await t.addMember(owner, org.id, admin, 'admin');
  await t.addMember(owner, org.id, member, 'member');
  await t.addMember(owner, org.id, viewer, 'viewer');
  otherOrg = await t.org(outsider, { settings: { requireApproval: false } });
}, 60_000);

afterAll(async () => {
  await t.close();
});

// ---------------------------------------------------------------------------------------------------
// API helpers
// ---------------------------------------------------------------------------------------------------

type Line = [accountNumber: string, side: 'D' | 'C', value: string];

/** Creates and directly posts an entry in the company's functional currency. */
async function post(
  co: CompanyFixture,
  currency: string,
  transactionDate: string,
  lines: Line[],
  user: TestUser = owner,
  organizationId = org.id,
  extra: Record<string, unknown> = {},
): Promise<any> {
  const created = await t.post('/api/v1/journal-entries', {
    token: user.token,
    body: {
      organizationId,
      companyId: co.id,
      description: `Entry ${transactionDate}`,
      transactionDate,
      lines: lines.map(([num, side, value]) => {
        const accountId = co.accounts[num];
        if (!accountId) throw new Error(`no account ${num}`);
        return { accountId, [side === 'D' ? 'debitAmount' : 'creditAmount']: { value, currency } };
      }),
      ...extra,
    },
  });
  if (created.status !== 201)
    throw new Error(`create entry: ${created.status} ${JSON.stringify(created.body)}`);
  const posted = await t.post(`/api/v1/journal-entries/${created.body.id}/post`, {
    token: user.token,
    body: { organizationId },
  });
  if (posted.status !== 200) throw new Error(`post entry: ${posted.status} ${JSON.stringify(posted.body)}`);
  return posted.body;
}

async function rate(
  fromCurrency: string,
  toCurrency: string,
  value: string,
  effectiveDate: string,
  rateType: string,
  organizationId = org.id,
  user: TestUser = owner,
): Promise<string> {
  const res = await t.post('/api/v1/exchange-rates', {
    token: user.token,
    body: {
      organizationId,
      fromCurrency,
      toCurrency,
      rate: value,
      effectiveDate,
      rateType,
      source: 'Manual',
    },
  });
  if (res.status !== 201) throw new Error(`create rate: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

async function matchedIc(
  from: CompanyFixture,
  to: CompanyFixture,
  transactionType: string,
  transactionDate: string,
  amount: { value: string; currency: string },
): Promise<string> {
  const res = await t.post('/api/v1/intercompany-transactions', {
    token: owner.token,
    body: {
      organizationId: org.id,
      fromCompanyId: from.id,
      toCompanyId: to.id,
      transactionType,
      transactionDate,
      amount,
    },
  });
  if (res.status !== 201) throw new Error(`create ic: ${res.status} ${JSON.stringify(res.body)}`);
  const matched = await t.post(`/api/v1/intercompany-transactions/${res.body.id}/matching-status`, {
    token: owner.token,
    body: { matchingStatus: 'Matched' },
  });
  if (matched.status !== 200) throw new Error(`match ic: ${matched.status} ${JSON.stringify(matched.body)}`);
  return res.body.id;
}

function group(
  parent: CompanyFixture,
  members: MemberSpec[],
  organizationId = org.id,
  user: TestUser = owner,
): Promise<any> {
  return createGroup(t, user, organizationId, parent, members);
}

interface RuleSpec {
  name: string;
  type: string;
  source: [CompanyFixture, string];
  target?: [CompanyFixture, string];
  debit: [CompanyFixture, string];
  credit: [CompanyFixture, string];
  priority: number;
  isAutomatic?: boolean;
  isActive?: boolean;
}

async function rule(groupId: string, r: RuleSpec): Promise<string> {
  const res = await t.post('/api/v1/elimination-rules', {
    token: owner.token,
    body: {
      organizationId: org.id,
      consolidationGroupId: groupId,
      name: r.name,
      eliminationType: r.type,
      triggerConditions: [],
      sourceAccounts: [{ accountNumber: r.source[1], companyId: r.source[0].id }],
      targetAccounts: r.target ? [{ accountNumber: r.target[1], companyId: r.target[0].id }] : [],
      debitAccountId: r.debit[0].accounts[r.debit[1]],
      creditAccountId: r.credit[0].accounts[r.credit[1]],
      isAutomatic: r.isAutomatic ?? true,
      priority: r.priority,
      ...(r.isActive === undefined ? {} : { isActive: r.isActive }),
    },
  });
  if (res.status !== 201) throw new Error(`create rule: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

async function start(groupId: string, body: Record<string, unknown>, user: TestUser = owner, headers = {}) {
  return t.post(groupRuns(groupId), { token: user.token, body, headers });
}

/** Polls the run until it reaches a final status. */
async function waitFinal(runId: string, user: TestUser = owner): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const res = await t.get(`${RUNS}/${runId}`, { token: user.token });
    if (res.status !== 200) throw new Error(`get run: ${res.status} ${JSON.stringify(res.body)}`);
    if (['Completed', 'Failed', 'Cancelled'].includes(res.body.status)) return res.body;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('run did not finish');
}

const usd = (value: string) => ({ value, currency: 'USD' });
const line = (tb: any, accountNumber: string) =>
  tb.lineItems.find((l: any) => l.accountNumber === accountNumber);
const sectionAmount = (section: any, accountNumber: string) =>
  section.lineItems.find((l: any) => l.accountNumber === accountNumber)?.currentAmount.value;

// ---------------------------------------------------------------------------------------------------
// Worked example
// ---------------------------------------------------------------------------------------------------

describe('worked example: parent USD + 80 % EUR subsidiary, run for March 2026', () => {
  let parent: CompanyFixture;
  let sub: CompanyFixture;
  let g: any;
  let run: any;
  let icId: string;
  let avgFebRateId: string;
  const rules: Record<string, string> = {};

  beforeAll(async () => {
    parent = await createCompany(t, owner, org.id, { functionalCurrency: 'USD' });
    sub = await createCompany(t, owner, org.id, { functionalCurrency: 'EUR' });

    // EUR → USD rates. Historical (equity of 2026-01-01): Spot 1.10. Average February 1.15, March 1.20.
    // Closing (YearEnd|Spot on or before 2026-03-31): Spot 2026-03-31 1.20.
    await rate('EUR', 'USD', '1.10', '2026-01-01', 'Spot');
    avgFebRateId = await rate('EUR', 'USD', '1.15', '2026-02-28', 'Average');
    await rate('EUR', 'USD', '1.20', '2026-03-31', 'Average');
    await rate('EUR', 'USD', '1.20', '2026-03-31', 'Spot');

    // Parent (USD):
    //   2025-06-30  cash 5,000 / sales 5,000            (prior year: carried to retained earnings 3300)
    //   2026-01-01  cash 50,000 / common stock 50,000
    //   2026-01-01  investment 1800 8,800 / cash 8,800  (80 % of the subsidiary's 11,000 USD equity)
    //   2026-03-15  IC receivable 1400 1,200 / service revenue 4100 1,200 (management fee charged to sub)
    //   2026-03-20  salaries 6000 2,000 / cash 2,000
    await post(parent, 'USD', '2025-06-30', [
      ['1010', 'D', '5000'],
      ['4000', 'C', '5000'],
    ]);
    await post(parent, 'USD', '2026-01-01', [
      ['1010', 'D', '50000'],
      ['3000', 'C', '50000'],
    ]);
    await post(parent, 'USD', '2026-01-01', [
      ['1800', 'D', '8800'],
      ['1010', 'C', '8800'],
    ]);
    await post(parent, 'USD', '2026-03-15', [
      ['1400', 'D', '1200'],
      ['4100', 'C', '1200'],
    ]);
    await post(parent, 'USD', '2026-03-20', [
      ['6000', 'D', '2000'],
      ['1010', 'C', '2000'],
    ]);
    // Subsidiary (EUR):
    //   2026-01-01  cash 10,000 / common stock 10,000
    //   2026-02-15  receivable 1100 5,000 / sales 4000 5,000
    //   2026-02-20  COGS 5000 2,000 / cash 2,000
    //   2026-03-15  professional fees 6600 1,000 / IC payable 2400 1,000 (the parent's fee)
    await post(sub, 'EUR', '2026-01-01', [
      ['1010', 'D', '10000'],
      ['3000', 'C', '10000'],
    ]);
    await post(sub, 'EUR', '2026-02-15', [
      ['1100', 'D', '5000'],
      ['4000', 'C', '5000'],
    ]);
    await post(sub, 'EUR', '2026-02-20', [
      ['5000', 'D', '2000'],
      ['1010', 'C', '2000'],
    ]);
    await post(sub, 'EUR', '2026-03-15', [
      ['6600', 'D', '1000'],
      ['2400', 'C', '1000'],
    ]);
    icId = await matchedIc(parent, sub, 'ManagementFee', '2026-03-15', { value: '1000.00', currency: 'EUR' });

    g = await group(parent, [{ co: sub, ownership: 80 }]);
    rules.receivables = await rule(g.id, {
      name: 'IC receivable / payable',
      type: 'IntercompanyReceivablesPayables',
      source: [parent, '1400'],
      target: [sub, '2400'],
      debit: [sub, '2400'],
      credit: [parent, '1400'],
      priority: 10,
    });
    rules.fees = await rule(g.id, {
      name: 'IC management fees',
      type: 'IntercompanySales',
      source: [parent, '4100'],
      target: [sub, '6600'],
      debit: [parent, '4100'],
      credit: [sub, '6600'],
      priority: 20,
    });
    rules.investment = await rule(g.id, {
      name: 'Investment in subsidiary',
      type: 'IntercompanyInvestment',
      source: [parent, '1800'],
      target: [sub, '3000'],
      debit: [sub, '3000'],
      credit: [parent, '1800'],
      priority: 30,
    });
    const res = await start(g.id, { periodRef: { year: 2026, period: 3 } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    run = res.body;
  }, 60_000);

  it('completes synchronously with the run record of 3.12.2', () => {
    expect(run.status).toBe('Completed');
    expect(run.organizationId).toBe(org.id);
    expect(run.groupId).toBe(g.id);
    expect(run.periodRef).toEqual({ year: 2026, period: 3 });
    expect(run.asOfDate).toBe('2026-03-31'); // default: end of period 3 of the parent's calendar
    expect(run.yearStartDate).toBe('2026-01-01');
    expect(run.reportingCurrency).toBe('USD');
    expect(run.steps.map((s: any) => s.stepType)).toEqual([
      'Validate',
      'Translate',
      'Aggregate',
      'MatchIC',
      'Eliminate',
      'NCI',
      'GenerateTB',
    ]);
    for (const s of run.steps) {
      expect(s.status).toBe('Completed');
      expect(typeof s.startedAt).toBe('string');
      expect(typeof s.completedAt).toBe('string');
      expect(s.durationMs).toBeGreaterThanOrEqual(0);
      expect(s.errorMessage).toBeNull();
      expect(typeof s.details).toBe('string');
    }
    expect(run.options).toEqual({
      skipValidation: false,
      continueOnWarnings: true,
      includeEquityMethodInvestments: true,
      forceRegeneration: false,
      approvedManualRuleIds: [],
    });
    expect(run.members).toEqual([
      {
        companyId: parent.id,
        companyName: parent.name,
        role: 'Parent',
        consolidationMethod: 'FullConsolidation',
        ownershipPercentage: '100.00',
        nonControllingInterestPercentage: '0.00',
        functionalCurrency: 'USD',
        included: true,
        // added with ownership structures (a flat group: held by the parent, effective = direct)
        heldByCompanyId: null,
        effectiveOwnershipPercentage: '100.0000',
      },
      {
        companyId: sub.id,
        companyName: sub.name,
        role: 'Member',
        consolidationMethod: 'FullConsolidation',
        ownershipPercentage: '80.00',
        nonControllingInterestPercentage: '20.00',
        functionalCurrency: 'EUR',
        included: true,
        heldByCompanyId: null,
        effectiveOwnershipPercentage: '80.0000',
      },
    ]);
    expect(run.initiatedBy).toBe(owner.id);
    expect(run.startedAt).not.toBeNull();
    expect(run.completedAt).not.toBeNull();
    expect(run.totalDurationMs).toBeGreaterThanOrEqual(0);
    expect(run.errorMessage).toBeNull();
    // No trial balances on the run record.
    expect(run.closingTrialBalance).toBeUndefined();
    expect(run.lineItems).toBeUndefined();
    // Open periods are warnings only (continueOnWarnings defaults to true).
    expect(run.validationResult.isValid).toBe(true);
    expect(run.validationResult.issues.every((i: any) => i.severity === 'Warning')).toBe(true);
    expect(run.validationResult.issues.map((i: any) => i.code)).toContain('PERIOD_NOT_CLOSED');
  });

  it('translates with closing, average and historical rates and records every rate used', () => {
    const used = run.exchangeRatesUsed.map(
      (u: any) => `${u.purpose} ${u.rateType} ${u.effectiveDate} ${u.effectiveRate}`,
    );
    expect(used).toEqual(
      expect.arrayContaining([
        'Closing Spot 2026-03-31 1.2',
        'Historical Spot 2026-01-01 1.1',
        'Average Average 2026-02-28 1.15',
        'Average Average 2026-03-31 1.2',
      ]),
    );
    for (const u of run.exchangeRatesUsed) {
      expect(u.fromCurrency).toBe('EUR');
      expect(u.toCurrency).toBe('USD');
      expect(u.derivation).toBe('Direct');
      expect(u.legIds).toEqual([u.exchangeRateId]);
    }
  });

  it('applies the three eliminations in priority order', () => {
    // Receivables: S = parent 1400 = +1,200; T = sub 2400 = −1,000 EUR × 1.20 = −1,200 → A = min = 1,200.
    // Fees: the matched ManagementFee of 1,000 EUR × AR(March) 1.20 × min(w) 1 = 1,200.
    // Investment: S = parent 1800 = +8,800; T = sub 3000 = −10,000 EUR × HR 1.10 = −11,000 → A = 8,800.
    expect(
      run.eliminations.map((e: any) => [
        e.ruleName,
        e.status,
        e.skipReason,
        e.amount?.value,
        e.sourceBalance.value,
        e.targetBalance.value,
      ]),
    ).toEqual([
      ['IC receivable / payable', 'Applied', null, '1200.00', '1200.00', '-1200.00'],
      ['IC management fees', 'Applied', null, '1200.00', '-1200.00', '1200.00'],
      ['Investment in subsidiary', 'Applied', null, '8800.00', '8800.00', '-11000.00'],
    ]);
    expect(run.eliminations[1].intercompanyTransactionIds).toEqual([icId]);
    expect(run.eliminations[0].intercompanyTransactionIds).toEqual([]);
    expect(run.eliminations.map((e: any) => [e.debitAccountNumber, e.creditAccountNumber])).toEqual([
      ['2400', '1400'],
      ['4100', '6600'],
      ['3000', '1800'],
    ]);
  });

  it('has the hand-computed totals', () => {
    // Consolidated net income = sales 5,750 (5,000 EUR × 1.15) − COGS 2,300 (2,000 × 1.15) − salaries 2,000
    //   (the 1,200 fee and its 1,200 cost are eliminated) = 1,450.
    // Subsidiary net income = 5,750 − 2,300 − 1,200 = 2,250; NCI share 20 % = 450; parent 1,450 − 450 = 1,000.
    // NCI in equity: 20 % of common stock 11,000 = 2,200 and of CTA 1,150 = 230 → 2,430; + 450 = 2,880
    //   (= 20 % of the subsidiary's net assets 12,000 EUR × 1.20 = 14,400).
    // Debits: cash 53,800 + receivable 6,000 + COGS 2,300 + salaries 2,000 = 64,100.
    expect(run.totals).toEqual({
      totalDebits: usd('64100.00'),
      totalCredits: usd('64100.00'),
      totalEliminations: usd('11200.00'), // 1,200 + 1,200 + 8,800
      totalNCI: usd('2880.00'),
      netIncome: usd('1450.00'),
      netIncomeAttributableToParent: usd('1000.00'),
      netIncomeAttributableToNCI: usd('450.00'),
    });
  });

  it('stores the closing trial balance with CTA, NCI and eliminations to the cent', async () => {
    const res = await t.get(`${RUNS}/${run.id}/trial-balance`, { token: viewer.token });
    expect(res.status).toBe(200);
    const tb = res.body;
    expect(tb.consolidationRunId).toBe(run.id);
    expect(tb.groupId).toBe(g.id);
    expect(tb.view).toBe('closing');
    expect(tb.asOfDate).toBe('2026-03-31');
    expect(tb.yearStartDate).toBe('2026-01-01');
    expect(tb.currency).toBe('USD');
    expect(tb.isBalanced).toBe(true);
    expect(tb.retainedEarningsLine).toBeUndefined();
    const amounts = (n: string) => {
      const l = line(tb, n);
      return (
        l && [
          l.aggregatedBalance.value,
          l.eliminationAmount.value,
          l.nciAmount.value,
          l.consolidatedBalance.value,
        ]
      );
    };
    // Cash: parent 5,000 + 50,000 − 8,800 − 2,000 = 44,200; sub 8,000 EUR × CR 1.20 = 9,600 → 53,800.
    expect(amounts('1010')).toEqual(['53800.00', '0.00', '0.00', '53800.00']);
    // Receivable 5,000 EUR × 1.20.
    expect(amounts('1100')).toEqual(['6000.00', '0.00', '0.00', '6000.00']);
    expect(amounts('1400')).toEqual(['1200.00', '-1200.00', '0.00', '0.00']);
    expect(amounts('1800')).toEqual(['8800.00', '-8800.00', '0.00', '0.00']);
    expect(amounts('2400')).toEqual(['-1200.00', '1200.00', '0.00', '0.00']);
    // Common stock: parent −50,000 + sub −11,000; investment elimination +8,800; NCI takes 20 % of −11,000.
    expect(amounts('3000')).toEqual(['-61000.00', '8800.00', '2200.00', '-50000.00']);
    // Retained earnings: the parent's prior-year sales of 2025.
    expect(amounts('3300')).toEqual(['-5000.00', '0.00', '0.00', '-5000.00']);
    expect(amounts('4000')).toEqual(['-5750.00', '0.00', '0.00', '-5750.00']);
    expect(amounts('4100')).toEqual(['-1200.00', '1200.00', '0.00', '0.00']);
    expect(amounts('5000')).toEqual(['2300.00', '0.00', '0.00', '2300.00']);
    expect(amounts('6000')).toEqual(['2000.00', '0.00', '0.00', '2000.00']);
    expect(amounts('6600')).toEqual(['1200.00', '-1200.00', '0.00', '0.00']);
    // CTA of the sub: translated balances 9,600 + 6,000 − 1,200 − 11,000 − 5,750 + 2,300 + 1,200 = 1,150
    //   → CTA = −1,150 (credit); NCI takes 20 % = −230.
    expect(amounts('CTA')).toEqual(['-1150.00', '0.00', '230.00', '-920.00']);
    expect(amounts('NCI')).toEqual(['0.00', '0.00', '-2430.00', '-2430.00']);
    expect(line(tb, 'CTA')).toMatchObject({
      lineType: 'CurrencyTranslationAdjustment',
      accountType: 'Equity',
      accountCategory: 'OtherComprehensiveIncome',
      companyId: null,
    });
    expect(line(tb, 'NCI')).toMatchObject({
      lineType: 'NonControllingInterest',
      accountCategory: 'NonControllingInterest',
    });
    expect(line(tb, '1010')).toMatchObject({
      accountName: 'Cash - Operating Account',
      debitBalance: usd('53800.00'),
      creditBalance: usd('0.00'),
      isCashEquivalent: true,
    });
    expect(tb.totalDebits).toEqual(usd('64100.00'));
    expect(tb.totalCredits).toEqual(usd('64100.00'));
    expect(tb.nonControllingInterests).toEqual([
      {
        companyId: sub.id,
        companyName: sub.name,
        nonControllingInterestPercentage: '20.00',
        netAssets: usd('14400.00'), // 12,000 EUR × 1.20
        netIncome: usd('2250.00'),
        nciShareOfEquity: usd('2430.00'),
        nciShareOfNetIncome: usd('450.00'),
      },
    ]);
    // Account lines by number, then the synthetic lines.
    const numbers = tb.lineItems.map((l: any) => l.accountNumber);
    expect(numbers.slice(-2)).toEqual(['CTA', 'NCI']);
  });

  it('stores the opening view (as of 2025-12-31) with prior-year results folded into retained earnings', async () => {
    const res = await t.get(`${RUNS}/${run.id}/trial-balance`, {
      token: viewer.token,
      query: { view: 'opening' },
    });
    expect(res.status).toBe(200);
    const tb = res.body;
    expect(tb.view).toBe('opening');
    expect(tb.asOfDate).toBe('2025-12-31');
    // `asOfDate` is the date of the view; `yearStartDate` stays the run's (3.12.2).
    expect(tb.yearStartDate).toBe('2026-01-01');
    // Only the parent's 2025 sale: cash 5,000 and retained earnings −5,000.
    expect(line(tb, '1010').consolidatedBalance).toEqual(usd('5000.00'));
    expect(line(tb, '3300').consolidatedBalance).toEqual(usd('-5000.00'));
    expect(tb.netIncome).toEqual(usd('0.00'));
    expect(tb.totalDebits).toEqual(usd('5000.00'));
    expect(tb.isBalanced).toBe(true);
  });

  it('builds a consolidated balance sheet that balances', async () => {
    const res = await t.get(`${RUNS}/${run.id}/reports/balance-sheet`, { token: viewer.token });
    expect(res.status).toBe(200);
    const bs = res.body;
    expect(bs).toMatchObject({
      runId: run.id,
      groupId: g.id,
      groupName: g.name,
      asOfDate: '2026-03-31',
      currency: 'USD',
    });
    // Assets: cash 53,800 + receivable 6,000 = 59,800 (IC receivable and investment eliminated).
    expect(bs.currentAssets.subtotal).toEqual(usd('59800.00'));
    expect(bs.totalAssets).toEqual(usd('59800.00'));
    expect(bs.totalLiabilities).toEqual(usd('0.00'));
    // Equity: stock 50,000 + retained earnings 5,000 + CTA 920 + current-year earnings 1,000 = 56,920.
    expect(sectionAmount(bs.equity, '3000')).toBe('50000.00');
    expect(sectionAmount(bs.equity, '3300')).toBe('5000.00');
    expect(sectionAmount(bs.equity, 'CTA')).toBe('920.00');
    expect(
      bs.equity.lineItems.find((l: any) => l.description === 'Current Year Earnings').currentAmount,
    ).toEqual(usd('1000.00'));
    expect(bs.equity.subtotal).toEqual(usd('56920.00'));
    expect(bs.nonControllingInterest).toEqual(usd('2880.00'));
    expect(bs.totalEquity).toEqual(usd('59800.00'));
    expect(bs.totalLiabilitiesAndEquity).toEqual(usd('59800.00'));
    expect(bs.isBalanced).toBe(true);
  });

  it('builds the consolidated income statement', async () => {
    const res = await t.get(`${RUNS}/${run.id}/reports/income-statement`, { token: viewer.token });
    expect(res.status).toBe(200);
    const is = res.body;
    expect(is).toMatchObject({
      runId: run.id,
      groupName: g.name,
      periodRef: { year: 2026, period: 3 },
      periodStartDate: '2026-01-01',
      periodEndDate: '2026-03-31',
    });
    expect(is.revenue.subtotal).toEqual(usd('5750.00'));
    expect(is.costOfSales.subtotal).toEqual(usd('2300.00'));
    expect(is.grossProfit).toEqual(usd('3450.00'));
    expect(is.operatingExpenses.subtotal).toEqual(usd('2000.00'));
    expect(is.netIncome).toEqual(usd('1450.00'));
    expect(is.netIncomeAttributableToParent).toEqual(usd('1000.00'));
    expect(is.netIncomeAttributableToNCI).toEqual(usd('450.00'));
  });

  it('builds the consolidated cash-flow statement, which reconciles', async () => {
    const res = await t.get(`${RUNS}/${run.id}/reports/cash-flow`, { token: viewer.token });
    expect(res.status).toBe(200);
    const cf = res.body;
    expect(cf.method).toBe('indirect');
    // Cash 5,000 at 2025-12-31 → 53,800. The subsidiary's movements are cash flows at the average rate
    // of their month: capital €10,000 in January × 1.10 = 11,000, COGS −€2,000 in February × 1.15 =
    // −2,300; its receivable €5,000 of February is 5,750 at 1.15 (6,000 at the closing rate: a
    // translation difference of 250). Effect of rates on cash: €10,000 × (1.20 − 1.10) − €2,000 ×
    // (1.20 − 1.15) = 900.
    expect(cf.beginningCash).toEqual(usd('5000.00'));
    expect(cf.endingCash).toEqual(usd('53800.00'));
    expect(cf.netChangeInCash).toEqual(usd('48800.00'));
    expect(cf.exchangeRateEffect).toEqual(usd('900.00'));
    // Financing: stock issued 50,000 + the NCI's contribution €2,000 × 1.10 = 2,200 (its share of the
    // CTA, 230, is other comprehensive income); operating: 1,450 − receivable 5,750 = −4,300 (the
    // parent's salaries 2,000 and the subsidiary's COGS 2,300, paid).
    expect(cf.financingActivities.netCashFlow).toEqual(usd('52200.00'));
    expect(cf.operatingActivities.netCashFlow).toEqual(usd('-4300.00'));
    expect(cf.investingActivities.netCashFlow).toEqual(usd('0.00'));
    expect(cf.isReconciled).toBe(true);
  });

  it('builds the consolidated statement of changes in equity', async () => {
    const res = await t.get(`${RUNS}/${run.id}/reports/equity-statement`, { token: viewer.token });
    expect(res.status).toBe(200);
    const es = res.body;
    expect(es.openingBalances).toMatchObject({ retainedEarnings: usd('5000.00'), total: usd('5000.00') });
    // Closing: stock 50,000; retained earnings 5,000 + 1,000; AOCI (CTA) 920; NCI 2,430 + 450 = 2,880.
    expect(es.closingBalances).toMatchObject({
      contributedCapital: usd('50000.00'),
      retainedEarnings: usd('6000.00'),
      accumulatedOCI: usd('920.00'),
      nonControllingInterest: usd('2880.00'),
      total: usd('59800.00'),
    });
    const byType = Object.fromEntries(es.movements.map((m: any) => [m.movementType, m]));
    expect(byType.NetIncome).toMatchObject({
      retainedEarnings: usd('1000.00'),
      nonControllingInterest: usd('450.00'),
    });
    // The NCI's share of the CTA (20 % × 1,150 = 230) is its other comprehensive income; the rest of
    // the NCI line's change is its contribution (€2,000 × 1.10).
    expect(byType.OtherComprehensiveIncome.accumulatedOCI).toEqual(usd('920.00'));
    expect(byType.OtherComprehensiveIncome.nonControllingInterest).toEqual(usd('230.00'));
    expect(byType.StockIssuance.contributedCapital).toEqual(usd('50000.00'));
    expect(byType.Other.nonControllingInterest).toEqual(usd('2200.00'));
  });

  it('flags the intercompany transaction eliminated by the run', async () => {
    const res = await t.get(`/api/v1/intercompany-transactions/${icId}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.isEliminated).toBe(true);
    expect(res.body.eliminatedByRunId).toBe(run.id);
  });

  it('records StartRun and CompleteRun in the audit log', async () => {
    const res = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: org.id, entityType: 'ConsolidationRun', entityId: run.id },
    });
    expect(res.status).toBe(200);
    const actions = res.body.entries.map((e: any) => [e.action, e.userId]);
    expect(actions).toEqual(
      expect.arrayContaining([
        ['StartRun', owner.id],
        ['CompleteRun', owner.id],
      ]),
    );
  });

  it('latest-run returns the completed run', async () => {
    const res = await t.get(`/api/v1/consolidation/groups/${g.id}/latest-run`, { token: viewer.token });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(run.id);
    expect(res.body.status).toBe('Completed');
  });

  it('protects what a completed run used: rates (409), rules (409), the group (409), the run itself', async () => {
    const r1 = await t.del(`/api/v1/exchange-rates/${avgFebRateId}`, { token: owner.token });
    expect(r1.status).toBe(409);
    expect(r1.body).toMatchObject({
      _tag: 'ExchangeRateInUseError',
      exchangeRateId: avgFebRateId,
      consolidationRunCount: 1,
    });
    const r2 = await t.del(`/api/v1/elimination-rules/${rules.fees}`, { token: owner.token });
    expect(r2.status).toBe(409);
    expect(r2.body).toMatchObject({
      _tag: 'EliminationRuleInUseError',
      eliminationRuleId: rules.fees,
      completedRunCount: 1,
    });
    const r3 = await t.del(`/api/v1/consolidation/groups/${g.id}`, { token: owner.token });
    expect(r3.status).toBe(409);
    expect(r3.body).toMatchObject({
      _tag: 'ConsolidationGroupHasCompletedRunsError',
      groupId: g.id,
      completedRunCount: 1,
    });
    const r4 = await t.del(`${RUNS}/${run.id}`, { token: owner.token });
    expect(r4.status).toBe(409);
    expect(r4.body).toEqual({
      _tag: 'ConsolidationRunCannotBeDeletedError',
      message: expect.any(String),
      runId: run.id,
      currentStatus: 'Completed',
    });
    const r5 = await t.post(`${RUNS}/${run.id}/cancel`, { token: owner.token });
    expect(r5.status).toBe(400);
    expect(r5.body).toMatchObject({
      _tag: 'ConsolidationRunCannotBeCancelledError',
      runId: run.id,
      currentStatus: 'Completed',
    });
  });

  it('refuses a second run for the period unless forceRegeneration; a regenerated run becomes the latest', async () => {
    const again = await start(g.id, { periodRef: { year: 2026, period: 3 } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      _tag: 'ConsolidationRunExistsForPeriodError',
      message: expect.any(String),
      groupId: g.id,
      year: 2026,
      period: 3,
      existingRunId: run.id,
    });
    const forced = await start(g.id, {
      periodRef: { year: 2026, period: 3 },
      options: { forceRegeneration: true },
    });
    expect(forced.status).toBe(201);
    expect(forced.body.status).toBe('Completed');
    expect(forced.body.options.forceRegeneration).toBe(true);
    expect(forced.body.totals).toEqual(run.totals);
    const latest = await t.get(`/api/v1/consolidation/groups/${g.id}/latest-run`, { token: owner.token });
    expect(latest.body.id).toBe(forced.body.id);
    // The earlier run stays as history.
    const old = await t.get(`${RUNS}/${run.id}`, { token: owner.token });
    expect(old.body.status).toBe('Completed');
    // The intercompany transaction now names the newer run.
    const ic = await t.get(`/api/v1/intercompany-transactions/${icId}`, { token: owner.token });
    expect(ic.body.eliminatedByRunId).toBe(forced.body.id);
  });

  it('runs asynchronously with Prefer: respond-async and can be polled to completion', async () => {
    const res = await start(g.id, { periodRef: { year: 2026, period: 3 }, forceRegeneration: true }, admin, {
      prefer: 'respond-async',
    });
    expect(res.status).toBe(201);
    expect(res.headers['preference-applied']).toBe('respond-async');
    expect(res.body.status).toBe('Pending');
    expect(res.body.steps.map((s: any) => s.status)).toEqual(Array(7).fill('Pending'));
    expect(res.body.startedAt).toBeNull();
    expect(res.body.totals).toBeNull();
    const final = await waitFinal(res.body.id);
    expect(final.status).toBe('Completed');
    expect(final.totals).toEqual(run.totals);
    // Background status changes are audited with the user who made the start request.
    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: org.id, entityId: res.body.id, action: 'CompleteRun' },
    });
    expect(audit.body.entries.map((e: any) => e.userId)).toEqual([admin.id]);
  });

  it('lists runs with filters, newest first', async () => {
    const all = await t.get(RUNS, { token: viewer.token, query: { organizationId: org.id, groupId: g.id } });
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(3);
    expect(all.body.runs.map((r: any) => r.id).at(-1)).toBe(run.id);
    const initiated = all.body.runs.map((r: any) => r.initiatedAt);
    expect([...initiated].sort().reverse()).toEqual(initiated);
    const filtered = await t.get(RUNS, {
      token: viewer.token,
      query: { groupId: g.id, status: 'Completed', year: 2026, period: 3, limit: 1, offset: 0 },
    });
    expect(filtered.body).toMatchObject({ total: 3, limit: 1, offset: 0 });
    expect(filtered.body.runs).toHaveLength(1);
    const none = await t.get(RUNS, { token: viewer.token, query: { groupId: g.id, period: 2 } });
    expect(none.body.total).toBe(0);
    const failed = await t.get(RUNS, { token: viewer.token, query: { groupId: g.id, status: 'Failed' } });
    expect(failed.body.total).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------------
// Starting runs: the checks of 3.12.3 in order
// ---------------------------------------------------------------------------------------------------

describe('starting runs', () => {
  let parent: CompanyFixture;
  let g: any;
  let manualRule: string;
  let inactiveManualRule: string;
  let automaticRule: string;
  let foreignGroupRule: string;

  beforeAll(async () => {
    parent = await createCompany(t, owner, org.id, { functionalCurrency: 'USD' });
    await post(parent, 'USD', '2026-01-10', [
      ['1010', 'D', '700'],
      ['3000', 'C', '700'],
    ]);
    await post(parent, 'USD', '2026-01-20', [
      ['1100', 'D', '300'],
      ['4000', 'C', '300'],
    ]);
    g = await group(parent, []);
    const spec = (name: string, priority: number, extra: Partial<RuleSpec> = {}): RuleSpec => ({
      name,
      type: 'Custom',
      source: [parent, '1100'],
      debit: [parent, '4000'],
      credit: [parent, '1100'],
      priority,
      ...extra,
    });
    manualRule = await rule(g.id, spec('manual', 5, { isAutomatic: false }));
    inactiveManualRule = await rule(
      g.id,
      spec('inactive manual', 6, { isAutomatic: false, isActive: false }),
    );
    automaticRule = await rule(g.id, spec('automatic', 7, { isActive: false }));
    const other = await group(parent, []);
    foreignGroupRule = await rule(other.id, spec('other group', 1, { isAutomatic: false }));
  }, 60_000);

  it('404 for an unknown or malformed group', async () => {
    const id = randomUUID();
    const res = await start(id, { periodRef: { year: 2026, period: 1 } });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ _tag: 'ConsolidationGroupNotFoundError', consolidationGroupId: id });
    const bad = await start('not-a-uuid', { periodRef: { year: 2026, period: 1 } });
    expect(bad.status).toBe(404);
    expect(bad.body._tag).toBe('ConsolidationGroupNotFoundError');
    const wrongOrg = await t.post(groupRuns(g.id), {
      token: outsider.token,
      query: { organizationId: otherOrg.id },
      body: { periodRef: { year: 2026, period: 1 } },
    });
    expect(wrongOrg.status).toBe(404);
    expect(wrongOrg.body._tag).toBe('ConsolidationGroupNotFoundError');
  });

  it('403 for non-members and for roles below admin', async () => {
    const res = await start(g.id, { periodRef: { year: 2026, period: 1 } }, outsider);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      _tag: 'ForbiddenError',
      action: 'consolidation:run',
      currentRole: null,
    });
    for (const [user, role] of [
      [viewer, 'viewer'],
      [member, 'member'],
    ] as const) {
      const r = await start(g.id, { periodRef: { year: 2026, period: 1 } }, user);
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({
        _tag: 'ForbiddenError',
        action: 'consolidation:run',
        requiredRole: 'admin',
        currentRole: role,
      });
    }
  });

  it('400 ValidationError for a malformed body', async () => {
    for (const body of [
      {},
      { periodRef: { year: 2026, period: 14 } },
      { periodRef: { year: 1899, period: 1 } },
      { periodRef: { year: 2026, period: 1 }, asOfDate: '2026-02-30' },
      { periodRef: { year: 2026, period: 1 }, skipValidation: 'yes' },
      { periodRef: { year: 2026, period: 1 }, approvedManualRuleIds: ['nope'] },
    ]) {
      const res = await start(g.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body._tag).toBe('ValidationError');
    }
  });

  it('400 ConsolidationGroupInactiveError before the date check', async () => {
    await t.post(`/api/v1/consolidation/groups/${g.id}/deactivate`, { token: owner.token });
    const res = await start(g.id, { periodRef: { year: 2026, period: 1 }, asOfDate: '2026-05-01' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      _tag: 'ConsolidationGroupInactiveError',
      message: expect.any(String),
      groupId: g.id,
    });
    await t.post(`/api/v1/consolidation/groups/${g.id}/activate`, { token: owner.token });
  });

  it('400 at /asOfDate outside the period of the group calendar', async () => {
    for (const [periodRef, asOfDate] of [
      [{ year: 2026, period: 2 }, '2026-03-01'],
      [{ year: 2026, period: 2 }, '2026-01-31'],
      [{ year: 2026, period: 13 }, '2026-12-30'],
    ] as const) {
      const res = await start(g.id, { periodRef, asOfDate });
      expect(res.status).toBe(400);
      expect(res.body._tag).toBe('ValidationError');
      expect(res.body.issues[0].path).toBe('/asOfDate');
    }
  });

  it('accepts an asOfDate inside the period; period 13 defaults to the fiscal year end', async () => {
    const mid = await start(g.id, { periodRef: { year: 2026, period: 2 }, asOfDate: '2026-02-14' });
    expect(mid.status).toBe(201);
    expect(mid.body).toMatchObject({
      status: 'Completed',
      asOfDate: '2026-02-14',
      yearStartDate: '2026-01-01',
    });
    const p13 = await start(g.id, { periodRef: { year: 2026, period: 13 }, asOfDate: null });
    expect(p13.status).toBe(201);
    expect(p13.body).toMatchObject({
      status: 'Completed',
      asOfDate: '2026-12-31',
      periodRef: { year: 2026, period: 13 },
    });
  });

  it('checks initiatedBy: a member with role admin or owner', async () => {
    const stranger = await start(g.id, { periodRef: { year: 2026, period: 4 }, initiatedBy: outsider.id });
    expect(stranger.status).toBe(400);
    expect(stranger.body).toEqual({
      _tag: 'UserNotMemberOfOrganizationError',
      message: expect.any(String),
      userId: outsider.id,
      organizationId: org.id,
    });
    const low = await start(g.id, { periodRef: { year: 2026, period: 4 }, initiatedBy: viewer.id });
    expect(low.status).toBe(400);
    expect(low.body).toEqual({
      _tag: 'UserRoleInsufficientError',
      message: expect.any(String),
      userId: viewer.id,
      organizationId: org.id,
      requiredRole: 'admin',
      currentRole: 'viewer',
    });
    const ok = await start(g.id, { periodRef: { year: 2026, period: 4 }, initiatedBy: admin.id });
    expect(ok.status).toBe(201);
    expect(ok.body.initiatedBy).toBe(admin.id);
    // The audit names the caller, not initiatedBy.
    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: org.id, entityId: ok.body.id, action: 'StartRun' },
    });
    expect(audit.body.entries.map((e: any) => e.userId)).toEqual([owner.id]);
  });

  it('checks approvedManualRuleIds: each an active manual rule of the group', async () => {
    const cases: Array<[string, RegExp]> = [
      [randomUUID(), /not an elimination rule of the group/],
      [foreignGroupRule, /not an elimination rule of the group/],
      [automaticRule, /automatic/],
      [inactiveManualRule, /inactive/],
    ];
    for (const [id, reason] of cases) {
      const res = await start(g.id, {
        periodRef: { year: 2026, period: 5 },
        approvedManualRuleIds: [manualRule, id],
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        _tag: 'EliminationRuleOperationFailedError',
        operation: 'approveForRun',
      });
      expect(res.body.reason).toMatch(/^approvedManualRuleIds\/1: /);
      expect(res.body.reason).toMatch(reason);
    }
    const ok = await start(g.id, {
      periodRef: { year: 2026, period: 5 },
      options: { approvedManualRuleIds: [manualRule.toUpperCase()] },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.options.approvedManualRuleIds).toEqual([manualRule]);
    // The approved manual rule is processed: receivable 300 eliminated against sales.
    expect(ok.body.eliminations.map((e: any) => [e.eliminationRuleId, e.status, e.amount?.value])).toEqual([
      [manualRule, 'Applied', '300.00'],
    ]);
    // Without approval the manual rule is not processed at all.
    const plain = await start(g.id, { periodRef: { year: 2026, period: 6 } });
    expect(plain.body.eliminations).toEqual([]);
  });

  it('409 ConsolidationRunInProgressError while a run of the period is Pending or InProgress', async () => {
    for (const status of ['Pending', 'InProgress'] as const) {
      const existing = await insertRun(t, org.id, g.id, status, owner.id);
      // A bad approvedManualRuleIds is reported first (contract order).
      const bad = await start(g.id, {
        periodRef: { year: 2026, period: 1 },
        approvedManualRuleIds: [automaticRule],
      });
      expect(bad.status).toBe(400);
      const res = await start(g.id, { periodRef: { year: 2026, period: 1 }, forceRegeneration: true });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        _tag: 'ConsolidationRunInProgressError',
        message: expect.any(String),
        groupId: g.id,
        existingRunId: existing,
      });
      expect((await t.post(`${RUNS}/${existing}/cancel`, { token: owner.token })).status).toBe(200);
    }
    // Cancelled runs never block.
    const res = await start(g.id, { periodRef: { year: 2026, period: 1 } });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('Completed');
  });

  it('accepts options flat or nested; a top-level field wins', async () => {
    const res = await start(g.id, {
      periodRef: { year: 2026, period: 7 },
      continueOnWarnings: true,
      options: { continueOnWarnings: false, skipValidation: true, includeEquityMethodInvestments: false },
    });
    expect(res.status).toBe(201);
    expect(res.body.options).toEqual({
      skipValidation: true,
      continueOnWarnings: true,
      includeEquityMethodInvestments: false,
      forceRegeneration: false,
      approvedManualRuleIds: [],
    });
    expect(res.body.status).toBe('Completed');
    expect(res.body.steps[0]).toMatchObject({ stepType: 'Validate', status: 'Skipped', startedAt: null });
    expect(res.body.validationResult).toBeNull();
  });

  it('a run failing validation is created (201 Failed) with later steps Skipped and no results', async () => {
    // The parent's period is open: PERIOD_NOT_CLOSED is a warning, and continueOnWarnings is false.
    const res = await start(g.id, { periodRef: { year: 2026, period: 8 }, continueOnWarnings: false });
    expect(res.status).toBe(201);
    const run = res.body;
    expect(run.status).toBe('Failed');
    expect(run.errorMessage).toMatch(/^Validation failed with 0 error\(s\) and \d+ warning\(s\)$/);
    expect(run.steps[0]).toMatchObject({ stepType: 'Validate', status: 'Failed' });
    expect(run.steps.slice(1).map((s: any) => s.status)).toEqual(Array(6).fill('Skipped'));
    expect(run.validationResult.issues.map((i: any) => i.code)).toContain('PERIOD_NOT_CLOSED');
    expect(run).toMatchObject({ totals: null, eliminations: [], exchangeRatesUsed: [] });
    expect(run.completedAt).not.toBeNull();
    for (const path of [
      'trial-balance',
      'reports/balance-sheet',
      'reports/income-statement',
      'reports/cash-flow',
      'reports/equity-statement',
    ]) {
      const r = await t.get(`${RUNS}/${run.id}/${path}`, { token: viewer.token });
      expect(r.status).toBe(409);
      expect(r.body).toEqual({
        _tag: 'ConsolidationRunNotCompletedError',
        message: expect.any(String),
        runId: run.id,
        currentStatus: 'Failed',
      });
    }
    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: org.id, entityId: run.id, action: 'FailRun' },
    });
    expect(audit.body.entries).toHaveLength(1);
    // Failed runs never block and may be deleted.
    expect((await t.del(`${RUNS}/${run.id}`, { token: owner.token })).status).toBe(204);
    expect((await t.get(`${RUNS}/${run.id}`, { token: owner.token })).status).toBe(404);
  });

  it('a missing exchange rate fails the Translate step with MISSING_EXCHANGE_RATE', async () => {
    const gbp = await createCompany(t, owner, org.id, { functionalCurrency: 'GBP' });
    await post(gbp, 'GBP', '2026-01-05', [
      ['1010', 'D', '100'],
      ['3000', 'C', '100'],
    ]);
    const g2 = await group(parent, [{ co: gbp, ownership: 100 }]);
    const res = await start(g2.id, { periodRef: { year: 2026, period: 1 } });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('Failed');
    expect(res.body.steps.map((s: any) => s.status)).toEqual([
      'Completed',
      'Failed',
      'Skipped',
      'Skipped',
      'Skipped',
      'Skipped',
      'Skipped',
    ]);
    expect(res.body.steps[1].errorMessage).toMatch(/GBP\/USD/);
    expect(res.body.errorMessage).toBe(res.body.steps[1].errorMessage);
    const issue = res.body.validationResult.issues.find((i: any) => i.code === 'MISSING_EXCHANGE_RATE');
    expect(issue).toMatchObject({ severity: 'Error' });
    expect(res.body.validationResult.isValid).toBe(false);
  });

  it("excludes the year's period-13 entries from runs for periods 1–12, includes them for period 13", async () => {
    // An adjustment of 40 assigned to period 13 of 2026 but dated 2026-06-15.
    await post(
      parent,
      'USD',
      '2026-06-15',
      [
        ['1100', 'D', '40'],
        ['4000', 'C', '40'],
      ],
      owner,
      org.id,
      {
        fiscalPeriod: { year: 2026, period: 13 },
      },
    );
    const p10 = await start(g.id, { periodRef: { year: 2026, period: 10 } });
    expect(p10.body.status).toBe('Completed');
    expect(p10.body.totals.netIncome).toEqual(usd('300.00')); // the January sale only
    const p13 = await start(g.id, { periodRef: { year: 2026, period: 13 }, forceRegeneration: true });
    expect(p13.body.status).toBe('Completed');
    expect(p13.body.totals.netIncome).toEqual(usd('340.00')); // 300 + the adjustment 40
  });

  it('replays a start request with the same Idempotency-Key instead of starting a second run', async () => {
    const key = uniq('run-key');
    const body = { periodRef: { year: 2026, period: 11 } };
    const first = await start(g.id, body, owner, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    const replay = await start(g.id, body, owner, { 'idempotency-key': key });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
    const list = await t.get(RUNS, { token: owner.token, query: { groupId: g.id, period: 11 } });
    expect(list.body.total).toBe(1);
  });

  it('latest-run answers null for a group without a completed run, 404 for an unknown group', async () => {
    const empty = await group(parent, []);
    const res = await t.get(`/api/v1/consolidation/groups/${empty.id}/latest-run`, { token: viewer.token });
    expect(res.status).toBe(200);
    expect(res.body).toBeNull();
    expect(res.raw.body).toBe('null');
    expect(res.headers['content-type']).toMatch(/application\/json/);
    const missing = await t.get(`/api/v1/consolidation/groups/${randomUUID()}/latest-run`, {
      token: viewer.token,
    });
    expect(missing.status).toBe(404);
    expect(missing.body._tag).toBe('ConsolidationGroupNotFoundError');
  });
});

// ---------------------------------------------------------------------------------------------------
// Cancel and delete
// ---------------------------------------------------------------------------------------------------

describe('cancelling and deleting runs', () => {
  let g: any;

  beforeAll(async () => {
    const parent = await createCompany(t, owner, org.id, { functionalCurrency: 'USD' });
    g = await group(parent, []);
  }, 60_000);

  it('cancels Pending and InProgress runs; cancelling again is 400', async () => {
    for (const status of ['Pending', 'InProgress'] as const) {
      const id = await insertRun(t, org.id, g.id, status, owner.id);
      const res = await t.post(`${RUNS}/${id}/cancel`, { token: admin.token });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('Cancelled');
      expect(res.body.completedAt).not.toBeNull();
      expect(res.body.steps.map((s: any) => s.status)).toEqual(Array(7).fill('Skipped'));
      const again = await t.post(`${RUNS}/${id}/cancel`, { token: admin.token });
      expect(again.status).toBe(400);
      expect(again.body).toEqual({
        _tag: 'ConsolidationRunCannotBeCancelledError',
        message: expect.any(String),
        runId: id,
        currentStatus: 'Cancelled',
      });
      const tb = await t.get(`${RUNS}/${id}/trial-balance`, { token: viewer.token });
      expect(tb.status).toBe(409);
      expect(tb.body.currentStatus).toBe('Cancelled');
      // Cancelled runs may be deleted.
      expect((await t.del(`${RUNS}/${id}`, { token: admin.token })).status).toBe(204);
    }
  });

  it('deletes a Pending run (cancelled and removed); refuses an InProgress one', async () => {
    const pending = await insertRun(t, org.id, g.id, 'Pending', owner.id);
    const del = await t.del(`${RUNS}/${pending}`, { token: owner.token, query: { organizationId: org.id } });
    expect(del.status).toBe(204);
    expect((await t.get(`${RUNS}/${pending}`, { token: owner.token })).status).toBe(404);
    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: org.id, entityId: pending },
    });
    expect(audit.body.entries.map((e: any) => e.action).sort()).toEqual(['CancelRun', 'Delete']);
    const running = await insertRun(t, org.id, g.id, 'InProgress', owner.id);
    const refused = await t.del(`${RUNS}/${running}`, { token: owner.token });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      _tag: 'ConsolidationRunCannotBeDeletedError',
      runId: running,
      currentStatus: 'InProgress',
    });
    await t.post(`${RUNS}/${running}/cancel`, { token: owner.token });
  });

  it('404 for unknown and malformed run ids', async () => {
    const id = randomUUID();
    for (const [method, path] of [
      ['GET', `${RUNS}/${id}`],
      ['POST', `${RUNS}/${id}/cancel`],
      ['DELETE', `${RUNS}/${id}`],
      ['GET', `${RUNS}/${id}/trial-balance`],
      ['GET', `${RUNS}/${id}/reports/cash-flow`],
    ]) {
      const res = await t.req(method!, path!, { token: owner.token });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ _tag: 'ConsolidationRunNotFoundError', runId: id });
    }
    const bad = await t.get(`${RUNS}/xyz`, { token: owner.token });
    expect(bad.status).toBe(404);
    expect(bad.body).toMatchObject({ _tag: 'ConsolidationRunNotFoundError', runId: 'xyz' });
  });

  it('an asynchronous run cancelled before it finishes writes no results', async () => {
    await post(await createCompany(t, owner, org.id, { functionalCurrency: 'USD' }), 'USD', '2026-01-03', [
      ['1010', 'D', '10'],
      ['3000', 'C', '10'],
    ]);
    const res = await start(g.id, { periodRef: { year: 2026, period: 9 } }, owner, {
      prefer: 'respond-async',
    });
    expect(res.status).toBe(201);
    const cancel = await t.post(`${RUNS}/${res.body.id}/cancel`, { token: owner.token });
    const final = await waitFinal(res.body.id);
    if (cancel.status === 200) {
      // Cancelled first: execution stopped at a step boundary and wrote nothing.
      expect(final.status).toBe('Cancelled');
      expect(final.totals).toBeNull();
      const tb = await t.get(`${RUNS}/${res.body.id}/trial-balance`, { token: owner.token });
      expect(tb.status).toBe(409);
    } else {
      // The run finished before the cancel request arrived.
      expect(cancel.status).toBe(400);
      expect(final.status).toBe('Completed');
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Roles and tenant isolation
// ---------------------------------------------------------------------------------------------------

describe('role matrix and tenant isolation', () => {
  let g: any;
  let run: any;
  let foreignGroup: any;

  beforeAll(async () => {
    const parent = await createCompany(t, owner, org.id, { functionalCurrency: 'USD' });
    await post(parent, 'USD', '2026-01-10', [
      ['1010', 'D', '50'],
      ['3000', 'C', '50'],
    ]);
    g = await group(parent, []);
    const res = await start(g.id, { periodRef: { year: 2026, period: 1 } }, admin);
    expect(res.status).toBe(201);
    run = res.body;
    const foreignParent = await createCompany(t, outsider, otherOrg.id, { functionalCurrency: 'USD' });
    foreignGroup = await group(foreignParent, [], otherOrg.id, outsider);
  }, 60_000);

  it('viewers read runs, trial balances and reports; members and viewers cannot start, cancel or delete', async () => {
    for (const path of [
      `${RUNS}/${run.id}`,
      `${RUNS}/${run.id}/trial-balance`,
      `${RUNS}/${run.id}/reports/balance-sheet`,
      `${RUNS}/${run.id}/reports/income-statement`,
      `${RUNS}/${run.id}/reports/cash-flow`,
      `${RUNS}/${run.id}/reports/equity-statement`,
      `/api/v1/consolidation/groups/${g.id}/latest-run`,
    ]) {
      for (const user of [viewer, member, admin, owner]) {
        const res = await t.get(path, { token: user.token, query: { organizationId: org.id } });
        expect(res.status, path).toBe(200);
      }
    }
    for (const user of [viewer, member]) {
      const list = await t.get(RUNS, { token: user.token, query: { groupId: g.id } });
      expect(list.body.runs.map((r: any) => r.id)).toEqual([run.id]);
      const cancel = await t.post(`${RUNS}/${run.id}/cancel`, { token: user.token });
      expect(cancel.status).toBe(403);
      expect(cancel.body).toMatchObject({
        _tag: 'ForbiddenError',
        action: 'consolidation:run',
        requiredRole: 'admin',
      });
      const del = await t.del(`${RUNS}/${run.id}`, { token: user.token });
      expect(del.status).toBe(403);
    }
  });

  it("a foreign run is 403 by id, 404 with the caller's own organizationId, and never listed", async () => {
    for (const [method, path] of [
      ['GET', `${RUNS}/${run.id}`],
      ['GET', `${RUNS}/${run.id}/trial-balance`],
      ['GET', `${RUNS}/${run.id}/reports/balance-sheet`],
      ['GET', `${RUNS}/${run.id}/reports/equity-statement`],
      ['POST', `${RUNS}/${run.id}/cancel`],
      ['DELETE', `${RUNS}/${run.id}`],
    ]) {
      const res = await t.req(method!, path!, { token: outsider.token });
      expect(res.status, path).toBe(403);
      expect(res.body).toMatchObject({ _tag: 'ForbiddenError', currentRole: null });
      expect(JSON.stringify(res.body)).not.toContain(g.id);
      const own = await t.req(method!, path!, {
        token: outsider.token,
        query: { organizationId: otherOrg.id },
      });
      expect(own.status, path).toBe(404);
      expect(own.body).toMatchObject({ _tag: 'ConsolidationRunNotFoundError', runId: run.id });
    }
    const latest = await t.get(`/api/v1/consolidation/groups/${g.id}/latest-run`, { token: outsider.token });
    expect(latest.status).toBe(403);
    const list = await t.get(RUNS, { token: outsider.token });
    expect(list.status).toBe(200);
    expect(list.body.runs.every((r: any) => r.organizationId === otherOrg.id)).toBe(true);
    const named = await t.get(RUNS, { token: outsider.token, query: { organizationId: org.id } });
    expect(named.status).toBe(403);
    const byGroup = await t.get(RUNS, { token: outsider.token, query: { groupId: g.id } });
    expect(byGroup.status).toBe(404);
    expect(byGroup.body).toMatchObject({
      _tag: 'ConsolidationGroupNotFoundError',
      consolidationGroupId: g.id,
    });
    // The owner of org A cannot see B's group through the filter either.
    const other = await t.get(RUNS, {
      token: owner.token,
      query: { organizationId: org.id, groupId: foreignGroup.id },
    });
    expect(other.status).toBe(404);
    const unknown = await t.get(RUNS, { token: owner.token, query: { groupId: randomUUID() } });
    expect(unknown.status).toBe(404);
  });

  it('the run is unchanged after the refused requests', async () => {
    const res = await t.get(`${RUNS}/${run.id}`, { token: owner.token });
    expect(res.body.status).toBe('Completed');
  });
});

// ---------------------------------------------------------------------------------------------------
// Consolidation methods and a larger group
// ---------------------------------------------------------------------------------------------------

describe('proportionate and equity-method members', () => {
  let parent: CompanyFixture;
  let prop: CompanyFixture;
  let equity: CompanyFixture;
  let g: any;

  beforeAll(async () => {
    parent = await createCompany(t, owner, org.id, { functionalCurrency: 'USD' });
    prop = await createCompany(t, owner, org.id, { functionalCurrency: 'USD' });
    equity = await createCompany(t, owner, org.id, { functionalCurrency: 'USD' });
    await post(parent, 'USD', '2026-01-02', [
      ['1010', 'D', '10000'],
      ['3000', 'C', '10000'],
    ]);
    await post(prop, 'USD', '2026-01-03', [
      ['1010', 'D', '2000'],
      ['3000', 'C', '2000'],
    ]);
    await post(equity, 'USD', '2026-01-05', [
      ['1010', 'D', '1000'],
      ['3000', 'C', '1000'],
    ]);
    await post(equity, 'USD', '2026-02-10', [
      ['1010', 'D', '500'],
      ['4000', 'C', '500'],
    ]);
    g = await group(parent, [
      { co: prop, ownership: 50, method: 'ProportionateConsolidation' },
      { co: equity, ownership: 30, method: 'EquityMethod' },
    ]);
  }, 60_000);

  it('weights proportionate members and adds the three equity-method lines', async () => {
    const res = await start(g.id, { periodRef: { year: 2026, period: 2 } });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('Completed');
    expect(
      res.body.members.map((m: any) => [
        m.role,
        m.consolidationMethod,
        m.nonControllingInterestPercentage,
        m.included,
      ]),
    ).toEqual([
      ['Parent', 'FullConsolidation', '0.00', true],
      ['Member', 'ProportionateConsolidation', '0.00', true],
      ['Member', 'EquityMethod', '0.00', true],
    ]);
    const tb = (await t.get(`${RUNS}/${res.body.id}/trial-balance`, { token: owner.token })).body;
    // Cash: parent 10,000 + 50 % × 2,000 = 11,000; stock likewise −11,000.
    expect(line(tb, '1010').consolidatedBalance).toEqual(usd('11000.00'));
    expect(line(tb, '3000').consolidatedBalance).toEqual(usd('-11000.00'));
    // Investee: net assets 1,500, net income 500, s = 0.30:
    //   investment round(0.3 × 1,500) = 450; income −round(0.3 × 500) = −150; reserve −(450 − 150) = −300.
    const em = tb.lineItems.filter((l: any) => l.companyId === equity.id);
    expect(em.map((l: any) => [l.lineType, l.consolidatedBalance.value])).toEqual([
      ['EquityMethodInvestment', '450.00'],
      ['EquityMethodIncome', '-150.00'],
      ['EquityMethodReserve', '-300.00'],
    ]);
    expect(em[0].accountName).toBe(`Investment in ${equity.name} (equity method)`);
    // Debits 11,000 + 450 = 11,450 = credits 11,000 + 150 + 300; net income = the pickup 150; no NCI.
    expect(res.body.totals).toMatchObject({
      totalDebits: usd('11450.00'),
      totalCredits: usd('11450.00'),
      netIncome: usd('150.00'),
      totalNCI: usd('0.00'),
    });
    const bs = (await t.get(`${RUNS}/${res.body.id}/reports/balance-sheet`, { token: owner.token })).body;
    expect(bs.isBalanced).toBe(true);
    expect(bs.totalAssets).toEqual(usd('11450.00'));
    const is = (await t.get(`${RUNS}/${res.body.id}/reports/income-statement`, { token: owner.token })).body;
    expect(is.otherIncomeExpense.subtotal).toEqual(usd('150.00'));
  });

  it('ignores equity-method members when includeEquityMethodInvestments is false', async () => {
    const res = await start(g.id, {
      periodRef: { year: 2026, period: 2 },
      includeEquityMethodInvestments: false,
      forceRegeneration: true,
    });
    expect(res.body.status).toBe('Completed');
    expect(res.body.members[2].included).toBe(false);
    expect(res.body.totals.totalDebits).toEqual(usd('11000.00'));
    expect(res.body.totals.netIncome).toEqual(usd('0.00'));
  });
});

describe('a larger group (10 companies in three currencies)', () => {
  it('completes, balances and reports its duration', async () => {
    // Rates for the 2025-11-15 capital (historical), the closing date and the averages.
    await rate('EUR', 'USD', '1.05', '2025-11-01', 'Historical');
    await rate('GBP', 'USD', '1.22', '2025-11-01', 'Historical');
    await rate('GBP', 'USD', '1.25', '2025-12-31', 'Spot');
    await rate('EUR', 'USD', '1.08', '2025-12-31', 'YearEnd');
    await rate('GBP', 'USD', '1.27', '2026-06-30', 'YearEnd');
    const currencies = ['USD', 'EUR', 'GBP'];
    const companies: Array<{ co: CompanyFixture; currency: string }> = [];
    for (let i = 0; i < 10; i++) {
      const currency = currencies[i % 3]!;
      companies.push({
        co: await createCompany(t, owner, org.id, { functionalCurrency: currency }),
        currency,
      });
    }
    for (const [i, { co, currency }] of companies.entries()) {
      const n = 1000 + i * 100;
      await post(co, currency, '2025-11-15', [
        ['1010', 'D', `${n}`],
        ['3000', 'C', `${n}`],
      ]);
      await post(co, currency, '2026-01-15', [
        ['1100', 'D', `${n / 2}`],
        ['4000', 'C', `${n / 2}`],
      ]);
      await post(co, currency, '2026-02-15', [
        ['6300', 'D', `${n / 4}`],
        ['1010', 'C', `${n / 4}`],
      ]);
      await post(co, currency, '2026-03-15', [
        ['1510', 'D', `${n / 5}`],
        ['2500', 'C', `${n / 5}`],
      ]);
      await post(co, currency, '2026-05-20', [
        ['5000', 'D', `${n / 10}`],
        ['1200', 'C', `${n / 10}`],
      ]);
    }
    const [head, ...rest] = companies;
    const g = await group(
      head!.co,
      rest.map((c, i) => ({
        co: c.co,
        ownership: 60 + i * 5,
        method: i === 8 ? 'EquityMethod' : i === 7 ? 'ProportionateConsolidation' : 'FullConsolidation',
      })),
    );
    // The EUR rates of the worked example end in March; June needs a closing rate and falls back to
    // closing rates for the averages of April–June (warnings, not errors).
    await rate('EUR', 'USD', '1.18', '2026-06-30', 'YearEnd');
    const res = await start(g.id, { periodRef: { year: 2026, period: 6 } });
    expect(res.status).toBe(201);
    expect(res.body.status, JSON.stringify(res.body.steps)).toBe('Completed');
    expect(res.body.totals.totalDebits).toEqual(res.body.totals.totalCredits);
    expect(res.body.validationResult.issues.map((i: any) => i.code)).toContain('AVERAGE_RATE_FALLBACK');
    const bs = (await t.get(`${RUNS}/${res.body.id}/reports/balance-sheet`, { token: owner.token })).body;
    expect(bs.isBalanced).toBe(true);
    const cf = (await t.get(`${RUNS}/${res.body.id}/reports/cash-flow`, { token: owner.token })).body;
    expect(cf.isReconciled).toBe(true);
    const es = (await t.get(`${RUNS}/${res.body.id}/reports/equity-statement`, { token: owner.token })).body;
    expect(es.closingBalances.total).toEqual(bs.totalEquity);
    expect(res.body.totalDurationMs).toBeLessThan(5000);
    console.info(`[consolidation-runs] 10-company run: totalDurationMs=${res.body.totalDurationMs}`);
  }, 120_000);
});
