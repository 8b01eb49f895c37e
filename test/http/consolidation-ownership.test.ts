/**
 * Ownership-driven consolidation through the API: holders (`heldByCompanyId`) with effective ownership
 * and NCI percentages, the structure read and its refusals; acquisition data and its checks; runs
 * that derive the investment elimination, goodwill and NCI from it.
 *
 * The run figures are published worked examples (their sources are cited where they are used; the
 * same examples are held to the engine in test/domain/consolidation-acquisitions.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext, type TestUser, uniq } from '../helpers/app.ts';
import { type CompanyFixture, createCompany } from '../helpers/consolidation.ts';

let t: TestContext;
let owner: TestUser;
let viewer: TestUser;
let org: { id: string };

const GROUPS = '/api/v1/consolidation/groups';

beforeAll(async () => {
  t = await createTestContext();
  owner = await t.user('owner');
  viewer = await t.user('viewer');
  org = await t.org(owner, { settings: { requireApproval: false } });
  await t.addMember(owner, org.id, viewer, 'viewer');
}, 60_000);

afterAll(async () => {
  await t.close();
});

type Line = [accountNumber: string, side: 'D' | 'C', value: string];

async function post(co: CompanyFixture, currency: string, transactionDate: string, lines: Line[]) {
  const created = await t.post('/api/v1/journal-entries', {
    token: owner.token,
    body: {
      organizationId: org.id,
      companyId: co.id,
      description: `Entry ${transactionDate}`,
      transactionDate,
      lines: lines.map(([num, side, value]) => ({
        accountId: co.accounts[num],
        [side === 'D' ? 'debitAmount' : 'creditAmount']: { value, currency },
      })),
    },
  });
  if (created.status !== 201)
    throw new Error(`create entry: ${created.status} ${JSON.stringify(created.body)}`);
  const posted = await t.post(`/api/v1/journal-entries/${created.body.id}/post`, {
    token: owner.token,
    body: { organizationId: org.id },
  });
  if (posted.status !== 200) throw new Error(`post entry: ${posted.status} ${JSON.stringify(posted.body)}`);
}

async function createGroup(parent: CompanyFixture, members: unknown[], reportingCurrency = 'USD') {
  return t.post(GROUPS, {
    token: owner.token,
    body: {
      organizationId: org.id,
      name: uniq('Group'),
      reportingCurrency,
      consolidationMethod: 'FullConsolidation',
      parentCompanyId: parent.id,
      members,
    },
  });
}

const full = (co: CompanyFixture, ownershipPercentage: string, extra: Record<string, unknown> = {}) => ({
  companyId: co.id,
  ownershipPercentage,
  consolidationMethod: 'FullConsolidation',
  ...extra,
});

async function run(groupId: string, periodRef: { year: number; period: number }) {
  const res = await t.post(`${GROUPS}/${groupId}/runs`, {
    token: owner.token,
    body: { periodRef, forceRegeneration: true },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function balanceSheet(runId: string) {
  const res = await t.get(`/api/v1/consolidation/runs/${runId}/reports/balance-sheet`, {
    token: viewer.token,
  });
  expect(res.status).toBe(200);
  return res.body;
}

async function trialBalance(runId: string) {
  const res = await t.get(`/api/v1/consolidation/runs/${runId}/trial-balance`, { token: viewer.token });
  expect(res.status).toBe(200);
  return res.body;
}

const line = (tb: any, accountNumber: string, companyId?: string) =>
  tb.lineItems.find(
    (l: any) => l.accountNumber === accountNumber && (!companyId || l.companyId === companyId),
  );
const amount = (section: any, key: string) =>
  section.lineItems.find((l: any) => l.accountNumber === key || l.description === key)?.currentAmount.value;

describe('holdings and the ownership structure', () => {
  let p: CompanyFixture;
  let a: CompanyFixture;
  let b: CompanyFixture;
  let c: CompanyFixture;
  let d: CompanyFixture;
  let e: CompanyFixture;
  let outsider: CompanyFixture;
  let g: any;

  beforeAll(async () => {
    // One after the other: ids are time-ordered, so members added together list in this order.
    const made: CompanyFixture[] = [];
    for (let i = 0; i < 7; i++) made.push(await createCompany(t, owner, org.id, { template: false }));
    [p, a, b, c, d, e, outsider] = made as [
      CompanyFixture,
      CompanyFixture,
      CompanyFixture,
      CompanyFixture,
      CompanyFixture,
      CompanyFixture,
      CompanyFixture,
    ];
    const res = await createGroup(p, [
      full(a, '80'),
      full(b, '60', { heldByCompanyId: a.id }),
      full(c, '33.33'),
      full(d, '33.33', { heldByCompanyId: c.id }),
      {
        companyId: e.id,
        ownershipPercentage: '40',
        consolidationMethod: 'EquityMethod',
        heldByCompanyId: a.id,
      },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    g = res.body;
  });

  it('derives effective ownership and NCI through the chain', () => {
    const byId = (co: CompanyFixture) => g.members.find((m: any) => m.companyId === co.id);
    expect(byId(a)).toMatchObject({
      heldByCompanyId: null,
      ownershipPercentage: '80.00',
      effectiveOwnershipPercentage: '80.0000',
      nonControllingInterestPercentage: '20.00',
      acquisition: null,
    });
    // 80 % of 60 % = 48 %; NCI 100 − 48 = 52
    expect(byId(b)).toMatchObject({
      heldByCompanyId: a.id,
      ownershipPercentage: '60.00',
      effectiveOwnershipPercentage: '48.0000',
      nonControllingInterestPercentage: '52.00',
    });
    // 33.33 % of 33.33 % = 11.108889 % → 11.1089; NCI 88.891111 → 88.8911
    expect(byId(d)).toMatchObject({
      effectiveOwnershipPercentage: '11.1089',
      nonControllingInterestPercentage: '88.8911',
    });
    expect(byId(e)).toMatchObject({
      effectiveOwnershipPercentage: '32.0000',
      nonControllingInterestPercentage: '0.00',
    });
  });

  it('reads the structure as a tree, the parent first and each member below its holder', async () => {
    const res = await t.get(`${GROUPS}/${g.id}/structure`, { token: viewer.token });
    expect(res.status).toBe(200);
    expect(res.body.groupId).toBe(g.id);
    expect(
      res.body.nodes.map((n: any) => [
        n.companyId,
        n.heldByCompanyId,
        n.depth,
        n.effectiveOwnershipPercentage,
      ]),
    ).toEqual([
      [p.id, null, 0, '100.0000'],
      [a.id, null, 1, '80.0000'],
      [b.id, a.id, 2, '48.0000'],
      [e.id, a.id, 2, '32.0000'],
      [c.id, null, 1, '33.3300'],
      [d.id, c.id, 2, '11.1089'],
    ]);
    expect(res.body.nodes[0]).toMatchObject({ role: 'Parent', consolidationMethod: 'FullConsolidation' });
    expect(res.body.nodes[2]).toMatchObject({ role: 'Member', nonControllingInterestPercentage: '52.00' });
  });

  it('refuses a holder outside the group, an equity-method holder and a fully consolidated member below a joint arrangement', async () => {
    const add = (body: unknown) => t.post(`${GROUPS}/${g.id}/members`, { token: owner.token, body });
    const outside = await add(full(outsider, '50', { heldByCompanyId: d.id === outsider.id ? a.id : p.id }));
    expect(outside.status).toBe(201); // held by the parent (given by its id): fine, stored as null
    expect(outside.body.members.find((m: any) => m.companyId === outsider.id).heldByCompanyId).toBeNull();
    const other = await createCompany(t, owner, org.id, { template: false });
    const notInGroup = await add(
      full(other, '50', { heldByCompanyId: (await createCompany(t, owner, org.id, { template: false })).id }),
    );
    expect(notInGroup.status).toBe(400);
    expect(notInGroup.body).toMatchObject({
      _tag: 'ValidationError',
      issues: [{ path: '/heldByCompanyId' }],
    });
    const byInvestee = await add(full(other, '50', { heldByCompanyId: e.id }));
    expect(byInvestee.status).toBe(400);
    expect(byInvestee.body.issues[0].path).toBe('/heldByCompanyId');
    const jv = await add({
      companyId: other.id,
      ownershipPercentage: '50',
      consolidationMethod: 'ProportionateConsolidation',
    });
    expect(jv.status).toBe(201);
    const third = await createCompany(t, owner, org.id, { template: false });
    const underJv = await add(full(third, '100', { heldByCompanyId: other.id }));
    expect(underJv.status).toBe(400);
    expect(underJv.body.issues[0].path).toBe('/heldByCompanyId');
  });

  it('refuses a cycle and a holder turned equity-method investee; answers 409 when removing a holder', async () => {
    const member = (co: CompanyFixture) => `${GROUPS}/${g.id}/members/${co.id}`;
    const cycle = await t.put(member(a), { token: owner.token, body: { heldByCompanyId: b.id } });
    expect(cycle.status).toBe(400);
    expect(cycle.body.issues).toEqual([
      { path: '/heldByCompanyId', message: expect.stringContaining('cycle') },
    ]);
    const investee = await t.put(member(a), {
      token: owner.token,
      body: { consolidationMethod: 'EquityMethod' },
    });
    expect(investee.status).toBe(400);
    // B and E (held by A) would be held by an equity-method investee: one refusal, at the method.
    expect(investee.body.issues).toEqual([
      { path: '/consolidationMethod', message: 'An equity-method investee cannot hold members of the group' },
    ]);
    const remove = await t.del(member(a), { token: owner.token });
    expect(remove.status).toBe(409);
    expect(remove.body).toEqual({
      _tag: 'ConsolidationMemberHoldsOthersError',
      message: expect.any(String),
      groupId: g.id,
      companyId: a.id,
      heldCompanyIds: [b.id, e.id],
    });
    // Moving B under the parent: A still holds E.
    const moved = await t.put(member(b), { token: owner.token, body: { heldByCompanyId: null } });
    expect(moved.status).toBe(200);
    expect(moved.body.members.find((m: any) => m.companyId === b.id)).toMatchObject({
      heldByCompanyId: null,
      effectiveOwnershipPercentage: '60.0000',
      nonControllingInterestPercentage: '40.00',
    });
    const still = await t.del(member(a), { token: owner.token });
    expect(still.body.heldCompanyIds).toEqual([e.id]);
  });
});

describe('acquisition data', () => {
  let p: CompanyFixture;
  let s: CompanyFixture;
  let eur: CompanyFixture;
  let g: any;
  const acquisition = (over: Record<string, unknown> = {}) => ({
    consideration: { value: '1540.00', currency: 'USD' },
    investmentAccountId: p.accounts['1800'],
    nciMeasurement: 'Proportionate',
    fairValueAdjustments: [{ accountId: s.accounts['1510'], amount: '100.00' }],
    ...over,
  });

  beforeAll(async () => {
    p = await createCompany(t, owner, org.id);
    s = await createCompany(t, owner, org.id);
    eur = await createCompany(t, owner, org.id, { functionalCurrency: 'EUR' });
    const res = await createGroup(p, []);
    expect(res.status).toBe(201);
    g = res.body;
  });

  const add = (body: unknown) => t.post(`${GROUPS}/${g.id}/members`, { token: owner.token, body });

  it('refuses data that does not fit the group, naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ acquisition: acquisition() }, '/acquisitionDate'],
      [
        {
          acquisitionDate: '2026-01-01',
          acquisition: acquisition({ consideration: { value: '1.00', currency: 'EUR' } }),
        },
        '/acquisition/consideration/currency',
      ],
      [
        {
          acquisitionDate: '2026-01-01',
          acquisition: acquisition({ investmentAccountId: s.accounts['1800'] }),
        },
        '/acquisition/investmentAccountId',
      ],
      [
        {
          acquisitionDate: '2026-01-01',
          acquisition: acquisition({ investmentAccountId: p.accounts['4000'] }),
        },
        '/acquisition/investmentAccountId',
      ],
      [
        {
          acquisitionDate: '2026-01-01',
          acquisition: acquisition({
            fairValueAdjustments: [{ accountId: p.accounts['1510'], amount: '1.00' }],
          }),
        },
        '/acquisition/fairValueAdjustments/0/accountId',
      ],
      [
        {
          acquisitionDate: '2026-01-01',
          acquisition: acquisition({
            fairValueAdjustments: [{ accountId: s.accounts['3000'], amount: '1.00' }],
          }),
        },
        '/acquisition/fairValueAdjustments/0/accountId',
      ],
      [
        { acquisitionDate: '2026-01-01', acquisition: acquisition({ nciMeasurement: 'FairValue' }) },
        '/acquisition/nciFairValue',
      ],
      [
        { acquisitionDate: '2026-01-01', acquisition: acquisition({ goodwillAccountNumber: '4000' }) },
        '/acquisition/goodwillAccountNumber',
      ],
      [
        {
          acquisitionDate: '2026-01-01',
          acquisition: acquisition({ consideration: { value: '-1.00', currency: 'USD' } }),
        },
        '/acquisition/consideration/value',
      ],
    ];
    for (const [extra, path] of cases) {
      const res = await add(full(s, '80', extra));
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body._tag).toBe('ValidationError');
      expect(res.body.issues.map((i: any) => i.path)).toContain(path);
    }
    const proportionate = await add({
      companyId: s.id,
      ownershipPercentage: '50',
      consolidationMethod: 'ProportionateConsolidation',
      acquisitionDate: '2026-01-01',
      acquisition: acquisition(),
    });
    expect(proportionate.status).toBe(400);
    expect(proportionate.body.issues[0].path).toBe('/acquisition');
    const wrongFairValueCurrency = await add(
      full(eur, '80', {
        acquisitionDate: '2026-01-01',
        acquisition: acquisition({
          fairValueAdjustments: [],
          nciMeasurement: 'FairValue',
          nciFairValue: { value: '10.00', currency: 'GBP' },
        }),
      }),
    );
    expect(wrongFairValueCurrency.status).toBe(400);
    expect(wrongFairValueCurrency.body.issues[0].path).toBe('/acquisition/nciFairValue/currency');
  });

  it('stores the data with its amounts written in the currencies, and clears it with null', async () => {
    const res = await add(
      full(s, '80', {
        acquisitionDate: '2026-01-01',
        acquisition: acquisition({
          consideration: { value: '1540', currency: 'USD' },
          fairValueAdjustments: [{ accountId: s.accounts['1510'], amount: '100' }],
        }),
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.members[0].acquisition).toEqual({
      consideration: { value: '1540.00', currency: 'USD' },
      investmentAccountId: p.accounts['1800'],
      nciMeasurement: 'Proportionate',
      nciFairValue: null,
      fairValueAdjustments: [{ accountId: s.accounts['1510'], amount: '100.00' }],
      goodwillAccountNumber: null,
    });
    const cleared = await t.put(`${GROUPS}/${g.id}/members/${s.id}`, {
      token: owner.token,
      body: { acquisition: null },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.members[0].acquisition).toBeNull();
    const noDate = await t.put(`${GROUPS}/${g.id}/members/${s.id}`, {
      token: owner.token,
      body: { acquisitionDate: null, acquisition: acquisition() },
    });
    expect(noDate.status).toBe(400);
    expect(noDate.body.issues[0].path).toBe('/acquisitionDate');
  });
});

/**
 * Source: Kaplan Publishing, F1 Integrated Workbook (CIMA, 2018), "Consolidated statement of financial
 * position", Example 3: P acquires 80 % of S (S's net assets 1,030 at acquisition, 1,110 a year later);
 * NCI at its share of net assets. Published: goodwill 716, NCI 222, retained earnings 3,064 (the
 * parent's 3,000 + 80 % × 80), total assets 6,286 ($000).
 */
describe('a run that derives the acquisition elimination (Kaplan F1, Example 3)', () => {
  let p: CompanyFixture;
  let s: CompanyFixture;
  let g: any;
  let r: any;

  beforeAll(async () => {
    p = await createCompany(t, owner, org.id);
    s = await createCompany(t, owner, org.id);
    // P: PPE 3,330, investment in S 1,540, current assets 1,030; share capital 2,500, retained earnings
    // 3,000, current liabilities 400 (its figures at the reporting date, booked as opening balances).
    await post(p, 'USD', '2019-12-31', [
      ['1520', 'D', '3330'],
      ['1800', 'D', '1540'],
      ['1010', 'D', '1030'],
      ['3000', 'C', '2500'],
      ['3300', 'C', '3000'],
      ['2000', 'C', '400'],
    ]);
    // S: net assets 1,030 at acquisition (share capital 1,000 and retained earnings 30 — the source
    // gives the total only), a profit of 80 during the year.
    await post(s, 'USD', '2019-12-31', [
      ['1520', 'D', '550'],
      ['1010', 'D', '580'],
      ['2000', 'C', '100'],
      ['3000', 'C', '1000'],
      ['3300', 'C', '30'],
    ]);
    await post(s, 'USD', '2020-06-30', [
      ['1010', 'D', '80'],
      ['4000', 'C', '80'],
    ]);
    const res = await createGroup(p, [
      full(s, '80', {
        acquisitionDate: '2020-01-01',
        acquisition: {
          consideration: { value: '1540.00', currency: 'USD' },
          investmentAccountId: p.accounts['1800'],
          nciMeasurement: 'Proportionate',
          goodwillAccountNumber: '1710',
        },
      }),
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    g = res.body;
    r = await run(g.id, { year: 2020, period: 12 });
  }, 60_000);

  it('completes with the acquisition analysis on the run', () => {
    expect(r.status, r.errorMessage).toBe('Completed');
    expect(r.members[1]).toMatchObject({ heldByCompanyId: null, effectiveOwnershipPercentage: '80.0000' });
    expect(r.acquisitionAnalysis).toHaveLength(1);
    expect(r.acquisitionAnalysis[0]).toMatchObject({
      companyId: s.id,
      acquisitionDate: '2020-01-01',
      groupAcquisitionDate: '2020-01-01',
      nciMeasurement: 'Proportionate',
      consideration: { functional: { value: '1540.00', currency: 'USD' } },
      netAssetsAtAcquisition: { functional: { value: '1030.00' } },
      nciAtAcquisition: { functional: { value: '206.00' } },
      goodwill: { functional: { value: '716.00' }, reporting: { value: '716.00' } },
    });
  });

  it('publishes goodwill 716, NCI 222, retained earnings 3,064 and total assets 6,286', async () => {
    const tb = await trialBalance(r.id);
    expect(line(tb, '1710')).toMatchObject({ lineType: 'Account', consolidatedBalance: { value: '716.00' } });
    expect(line(tb, '1800').consolidatedBalance.value).toBe('0.00');
    const bs = await balanceSheet(r.id);
    expect(bs.nonControllingInterest.value).toBe('222.00');
    expect(amount(bs.equity, '3300')).toBe('3000.00');
    expect(amount(bs.equity, 'Current Year Earnings')).toBe('64.00');
    expect(amount(bs.equity, '3000')).toBe('2500.00');
    expect(bs.totalAssets.value).toBe('6286.00');
    expect(bs.isBalanced).toBe(true);
  });

  it('leaves out a member acquired after the run date, with a warning', async () => {
    const late = await createCompany(t, owner, org.id);
    const added = await t.post(`${GROUPS}/${g.id}/members`, {
      token: owner.token,
      body: full(late, '100', {
        acquisitionDate: '2021-03-01',
        acquisition: {
          consideration: { value: '0.00', currency: 'USD' },
          investmentAccountId: p.accounts['1800'],
          nciMeasurement: 'Proportionate',
        },
      }),
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const again = await run(g.id, { year: 2020, period: 12 });
    expect(again.status).toBe('Completed');
    expect(again.members.find((m: any) => m.companyId === late.id).included).toBe(false);
    expect(again.validationResult.issues).toContainEqual(
      expect.objectContaining({
        code: 'MEMBER_NOT_YET_ACQUIRED',
        severity: 'Warning',
        entityReference: late.id,
      }),
    );
    const bs = await balanceSheet(again.id);
    expect(bs.totalAssets.value).toBe('6286.00');
  });
});
