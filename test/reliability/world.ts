/**
 * A tenant with one of every resource, created through the public API (so every row is what the API
 * itself writes): organization (approval off), two companies with the GeneralBusiness chart, an extra
 * account, fiscal year 2026 with its periods, a Draft and a Posted journal entry, an exchange rate, an
 * intercompany transaction, a consolidation group with a member, an elimination rule and — when the
 * runs routes are registered — a consolidation run. Shared by the fuzz, isolation and role tests.
 */
import { type TestContext, type TestUser, uniq } from '../helpers/app.ts';

export interface World {
  owner: TestUser;
  orgId: string;
  orgName: string;
  companyId: string;
  companyName: string;
  company2Id: string;
  company2Name: string;
  /** Accounts of company 1 by number (template) plus `extra`, an account created by POST. */
  accounts: Record<string, string>;
  extraAccountId: string;
  extraAccountName: string;
  company2Accounts: Record<string, string>;
  fiscalYearId: string;
  periodId: string;
  draftEntryId: string;
  postedEntryId: string;
  entryDescription: string;
  rateId: string;
  icId: string;
  icDescription: string;
  groupId: string;
  groupName: string;
  ruleId: string;
  ruleName: string;
  runId: string | null;
  /** Every id and distinctive name of this tenant (for leak checks). */
  secrets: string[];
}

async function ok<T = any>(
  res: Promise<{ status: number; body: T }>,
  what: string,
  expected = [200, 201],
): Promise<T> {
  const r = await res;
  if (!expected.includes(r.status)) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

async function accountsOf(t: TestContext, token: string, orgId: string, companyId: string) {
  const map: Record<string, string> = {};
  for (let offset = 0; ; offset += 100) {
    const list = await ok(
      t.get('/api/v1/accounts', { token, query: { organizationId: orgId, companyId, limit: 100, offset } }),
      'list accounts',
    );
    for (const a of list.accounts) map[a.accountNumber] = a.id;
    if (offset + 100 >= list.total) break;
  }
  return map;
}

export async function createWorld(t: TestContext, owner?: TestUser): Promise<World> {
  owner ??= await t.user('world-owner');
  const token = owner.token;
  const orgName = uniq('WorldOrg');
  const org = await ok(
    t.post('/api/v1/organizations', {
      token,
      body: { name: orgName, reportingCurrency: 'USD', settings: { requireApproval: false } },
    }),
    'org',
  );
  const orgId: string = org.id;

  const company = async () => {
    const name = uniq('WorldCo');
    const c = await ok(
      t.post('/api/v1/companies', {
        token,
        body: {
          organizationId: orgId,
          name,
          legalName: `${name} Inc.`,
          jurisdiction: 'US-DE',
          functionalCurrency: 'USD',
          reportingCurrency: 'USD',
          fiscalYearEnd: { month: 12, day: 31 },
          accountTemplate: 'GeneralBusiness',
        },
      }),
      'company',
    );
    return { id: c.id as string, name };
  };
  const c1 = await company();
  const c2 = await company();
  const accounts = await accountsOf(t, token, orgId, c1.id);
  const company2Accounts = await accountsOf(t, token, orgId, c2.id);

  const extraAccountName = uniq('WorldAccount');
  const extra = await ok(
    t.post('/api/v1/accounts', {
      token,
      body: {
        organizationId: orgId,
        companyId: c1.id,
        accountNumber: '1999',
        name: extraAccountName,
        accountType: 'Asset',
        accountCategory: 'CurrentAsset',
      },
    }),
    'account',
  );

  const base = `/api/v1/organizations/${orgId}/companies/${c1.id}`;
  const fy = await ok(t.post(`${base}/fiscal-years`, { token, body: { year: 2026 } }), 'fiscal year');
  const periods = await ok(t.get(`${base}/fiscal-years/${fy.id}/periods`, { token }), 'periods');
  const periodId: string = periods.periods[0].id;

  const entryDescription = uniq('WorldEntry');
  const entryBody = (description: string) => ({
    organizationId: orgId,
    companyId: c1.id,
    description,
    transactionDate: '2026-03-15',
    lines: [
      { accountId: accounts['1010'], debitAmount: { value: '100.00', currency: 'USD' } },
      { accountId: accounts['4000'], creditAmount: { value: '100.00', currency: 'USD' } },
    ],
  });
  const draft = await ok(
    t.post('/api/v1/journal-entries', { token, body: entryBody(entryDescription) }),
    'draft',
  );
  const toPost = await ok(
    t.post('/api/v1/journal-entries', { token, body: entryBody(entryDescription) }),
    'entry',
  );
  await ok(t.post(`/api/v1/journal-entries/${toPost.id}/post`, { token, body: {} }), 'post');

  const rate = await ok(
    t.post('/api/v1/exchange-rates', {
      token,
      body: {
        organizationId: orgId,
        fromCurrency: 'EUR',
        toCurrency: 'USD',
        rate: '1.1',
        effectiveDate: '2026-01-15',
        rateType: 'Spot',
        source: 'Manual',
      },
    }),
    'rate',
  );

  const icDescription = uniq('WorldIC');
  const ic = await ok(
    t.post('/api/v1/intercompany-transactions', {
      token,
      body: {
        organizationId: orgId,
        fromCompanyId: c1.id,
        toCompanyId: c2.id,
        transactionType: 'Sale',
        transactionDate: '2026-03-15',
        amount: { value: '1000.00', currency: 'USD' },
        description: icDescription,
      },
    }),
    'intercompany',
  );

  const groupName = uniq('WorldGroup');
  const group = await ok(
    t.post('/api/v1/consolidation/groups', {
      token,
      body: {
        organizationId: orgId,
        name: groupName,
        reportingCurrency: 'USD',
        consolidationMethod: 'FullConsolidation',
        parentCompanyId: c1.id,
        members: [{ companyId: c2.id, ownershipPercentage: 80, consolidationMethod: 'FullConsolidation' }],
      },
    }),
    'group',
  );

  const ruleName = uniq('WorldRule');
  const rule = await ok(
    t.post('/api/v1/elimination-rules', {
      token,
      body: {
        organizationId: orgId,
        consolidationGroupId: group.id,
        name: ruleName,
        eliminationType: 'IntercompanyReceivablesPayables',
        triggerConditions: [],
        sourceAccounts: [{ accountNumber: '1100', companyId: c1.id }],
        targetAccounts: [{ accountNumber: '2000', companyId: null }],
        debitAccountId: company2Accounts['2000'],
        creditAccountId: accounts['1100'],
        isAutomatic: true,
        priority: 10,
      },
    }),
    'rule',
  );

  // Consolidation runs: only once their routes are registered (developed in parallel).
  let runId: string | null = null;
  const doc = await t.get('/api/openapi.json');
  if (doc.body.paths?.['/api/v1/consolidation/groups/{groupId}/runs']?.post) {
    const run = await t.post(`/api/v1/consolidation/groups/${group.id}/runs`, {
      token,
      body: { periodRef: { year: 2026, period: 3 } },
    });
    if (run.status === 201) runId = run.body.id;
    else throw new Error(`run: ${run.status} ${JSON.stringify(run.body)}`);
  }

  const world: World = {
    owner,
    orgId,
    orgName,
    companyId: c1.id,
    companyName: c1.name,
    company2Id: c2.id,
    company2Name: c2.name,
    accounts,
    extraAccountId: extra.id,
    extraAccountName,
    company2Accounts,
    fiscalYearId: fy.id,
    periodId,
    draftEntryId: draft.id,
    postedEntryId: toPost.id,
    entryDescription,
    rateId: rate.id,
    icId: ic.id,
    icDescription,
    groupId: group.id,
    groupName,
    ruleId: rule.id,
    ruleName,
    runId,
    secrets: [],
  };
  world.secrets = [
    orgId,
    orgName,
    c1.id,
    c1.name,
    c2.id,
    c2.name,
    extra.id,
    extraAccountName,
    fy.id,
    periodId,
    draft.id,
    toPost.id,
    entryDescription,
    rate.id,
    ic.id,
    icDescription,
    group.id,
    groupName,
    rule.id,
    ruleName,
    ...(runId ? [runId] : []),
    owner.id,
    owner.email,
  ];
  return world;
}
