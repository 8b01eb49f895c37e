/**
 * The demo data set, built through the HTTP API only: used by `npm run demo` against a running service
 * (scripts/demo.ts) and by `npm run docs:examples`, which records the requests and answers of the same
 * flow as the examples of the OpenAPI document (scripts/openapi-examples.ts).
 *
 * What it creates: a demo user, one organization (reporting currency USD, no approval step), a USD
 * parent and three subsidiaries in USD (60 % owned), EUR (100 %) and GBP (80 %) with the
 * GeneralBusiness chart plus four intercompany accounts, a year of exchange rates (monthly Spot, monthly
 * Average, YearEnd), a year of posted entries per company (capital, monthly sales and costs, quarterly
 * intercompany sales from the parent with receivable/payable and `intercompanyPartnerId`),
 * intercompany transactions linked to both entries and matched, elimination rules for
 * receivables/payables and sales, a consolidation group and a completed consolidation run for period 12.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped JSON answers of the API
export type Json = Record<string, any>;

/** Sends one request; answers the parsed body of a 2xx response and throws on anything else. */
export type Api = <T = Json>(
  method: string,
  path: string,
  body?: unknown,
  token?: string | null,
) => Promise<T>;

export interface DemoOptions {
  year: number;
  /** Makes the e-mail and the organization name unique (organization names are unique service-wide). */
  stamp: string;
  /** Organization name; default `Northwind Group (demo <stamp>)`. */
  organizationName?: string;
  password: string;
  step?: (message: string) => void;
  /** Pause between polls of a running consolidation. */
  wait?: (ms: number) => Promise<void>;
}

export interface Company {
  key: string;
  id: string;
  name: string;
  currency: string;
  ownership: string;
  /** Scale of its monthly business, in cents of its currency. */
  scale: number;
  accounts: Record<string, string>;
}

export interface Demo {
  email: string;
  token: string;
  org: Json;
  companies: Record<string, Company>;
  group: Json;
  rules: Json;
  icIds: string[];
  run: Json;
  entryCount: number;
}

export async function buildDemo(call: Api, options: DemoOptions): Promise<Demo> {
  const YEAR = options.year;
  const { stamp } = options;
  const PASSWORD = options.password;
  const step = options.step ?? (() => {});
  const wait = options.wait ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let token: string | null = null;
  const api = <T = Json>(method: string, path: string, body?: unknown) => call<T>(method, path, body, token);
  const pad = (n: number) => String(n).padStart(2, '0');
  const lastDay = (month: number) => new Date(Date.UTC(YEAR, month, 0)).getUTCDate();
  const date = (month: number, day: number) => `${YEAR}-${pad(month)}-${pad(Math.min(day, lastDay(month)))}`;
  /** Decimal string with two places from an integer number of cents (no floating point money). */
  const cents = (c: number) => `${Math.trunc(c / 100)}.${pad(Math.abs(c) % 100)}`;
  const money = (c: number, currency: string) => ({ value: cents(c), currency });
  /** A rate with four decimals from an integer number of ten-thousandths. */
  const rate4 = (n: number) => `${Math.trunc(n / 10000)}.${String(n % 10000).padStart(4, '0')}`;

  const email = `demo-${stamp}@example.com`;
  step(`registering ${email}`);
  await api('POST', '/api/auth/register', { email, password: PASSWORD, displayName: 'Demo Controller' });
  const session = await api('POST', '/api/auth/login', { email, password: PASSWORD });
  token = session.token;

  step('creating the organization');
  const org = await api('POST', '/api/v1/organizations', {
    name: options.organizationName ?? `Northwind Group (demo ${stamp})`,
    reportingCurrency: 'USD',
    settings: { fiscalYearEnd: { month: 12, day: 31 }, requireApproval: false },
  });
  const orgId: string = org.id;

  const specs = [
    {
      key: 'parent',
      name: 'Northwind Holdings Inc.',
      jurisdiction: 'US-DE',
      currency: 'USD',
      ownership: '100',
      scale: 9_000_000,
    },
    {
      key: 'us',
      name: 'Northwind Retail LLC',
      jurisdiction: 'US-CA',
      currency: 'USD',
      ownership: '60',
      scale: 4_000_000,
    },
    {
      key: 'eu',
      name: 'Northwind Europe GmbH',
      jurisdiction: 'DE',
      currency: 'EUR',
      ownership: '100',
      scale: 5_000_000,
    },
    {
      key: 'uk',
      name: 'Northwind UK Ltd',
      jurisdiction: 'GB',
      currency: 'GBP',
      ownership: '80',
      scale: 3_000_000,
    },
  ] as const;
  const companies: Record<string, Company> = {};
  for (const s of specs) {
    step(`creating company ${s.name} (${s.currency}) with the GeneralBusiness chart`);
    const c = await api('POST', '/api/v1/companies', {
      organizationId: orgId,
      name: s.name,
      legalName: s.name,
      jurisdiction: s.jurisdiction,
      functionalCurrency: s.currency,
      reportingCurrency: 'USD',
      fiscalYearEnd: { month: 12, day: 31 },
      accountTemplate: 'GeneralBusiness',
    });
    companies[s.key] = { ...s, id: c.id, accounts: {} };
  }
  const parent = companies.parent!;
  const subs = [companies.us!, companies.eu!, companies.uk!];

  // Intercompany accounts in every company (the GeneralBusiness chart has none).
  const icAccounts = [
    {
      accountNumber: '1150',
      name: 'Due from group companies',
      accountType: 'Asset',
      accountCategory: 'CurrentAsset',
    },
    {
      accountNumber: '2050',
      name: 'Due to group companies',
      accountType: 'Liability',
      accountCategory: 'CurrentLiability',
    },
    {
      accountNumber: '4050',
      name: 'Intercompany sales',
      accountType: 'Revenue',
      accountCategory: 'OperatingRevenue',
    },
    {
      accountNumber: '5050',
      name: 'Intercompany purchases',
      accountType: 'Expense',
      accountCategory: 'CostOfGoodsSold',
    },
  ];
  for (const c of Object.values(companies)) {
    for (const a of icAccounts) {
      await api('POST', '/api/v1/accounts', {
        organizationId: orgId,
        companyId: c.id,
        isIntercompany: true,
        ...a,
      });
    }
    const list = await api(
      'GET',
      `/api/v1/accounts?organizationId=${orgId}&companyId=${c.id}&isPostable=true&limit=100`,
    );
    for (const a of list.accounts as Json[]) c.accounts[a.accountNumber] = a.id;
  }
  step('added intercompany accounts 1150, 2050, 4050, 5050 to every company');

  // Exchange rates: EUR→USD and GBP→USD, Spot on the 1st and the last day of each month, the monthly
  // Average on the 15th, YearEnd on 31 December. Rates drift a little each month.
  const rates: Json[] = [];
  const base = { EUR: 10800, GBP: 12650 } as const;
  for (const [currency, start] of Object.entries(base)) {
    for (let m = 1; m <= 12; m++) {
      const open = start + (m - 1) * (currency === 'EUR' ? 25 : -15);
      const close = open + (currency === 'EUR' ? 25 : -15);
      const common = { organizationId: orgId, fromCurrency: currency, toCurrency: 'USD', source: 'Manual' };
      rates.push({ ...common, rateType: 'Spot', effectiveDate: date(m, 1), rate: rate4(open) });
      rates.push({
        ...common,
        rateType: 'Average',
        effectiveDate: date(m, 15),
        rate: rate4(Math.round((open + close) / 2)),
      });
      rates.push({ ...common, rateType: 'Spot', effectiveDate: date(m, 31), rate: rate4(close) });
      if (m === 12)
        rates.push({ ...common, rateType: 'YearEnd', effectiveDate: date(12, 31), rate: rate4(close) });
    }
  }
  const created = await api('POST', '/api/v1/exchange-rates/bulk', { rates });
  step(`created ${created.count} exchange rates (EUR/USD and GBP/USD: monthly Spot and Average, YearEnd)`);

  let entryCount = 0;
  async function postEntry(c: Company, description: string, transactionDate: string, lines: Json[]) {
    const entry = await api('POST', '/api/v1/journal-entries', {
      organizationId: orgId,
      companyId: c.id,
      description,
      transactionDate,
      lines,
    });
    await api('POST', `/api/v1/journal-entries/${entry.id}/post`, { organizationId: orgId });
    entryCount++;
    return entry.id as string;
  }
  const dr = (c: Company, number: string, amount: number, currency = c.currency, extra: Json = {}) => ({
    accountId: c.accounts[number],
    debitAmount: money(amount, currency),
    ...extra,
  });
  const cr = (c: Company, number: string, amount: number, currency = c.currency, extra: Json = {}) => ({
    accountId: c.accounts[number],
    creditAmount: money(amount, currency),
    ...extra,
  });

  for (const c of Object.values(companies)) {
    step(`posting a year of entries for ${c.name}`);
    const capital = c.scale * 12;
    await postEntry(c, 'Share capital paid in', date(1, 2), [dr(c, '1010', capital), cr(c, '3000', capital)]);
    for (let m = 1; m <= 12; m++) {
      const sales = c.scale + m * Math.round(c.scale / 40); // growing sales
      const cogs = Math.round(sales * 0.55);
      const wages = Math.round(c.scale * 0.2);
      const rent = Math.round(c.scale * 0.05);
      await postEntry(c, `Sales and operating costs, ${date(m, 1).slice(0, 7)}`, date(m, 28), [
        dr(c, '1100', sales),
        cr(c, '4000', sales),
        dr(c, '5000', cogs),
        cr(c, '2000', cogs),
        dr(c, '6000', wages),
        dr(c, '6300', rent),
        cr(c, '1010', wages + rent),
      ]);
      const collected = Math.round(sales * 0.9);
      await postEntry(c, `Customer receipts, ${date(m, 1).slice(0, 7)}`, date(m, 30), [
        dr(c, '1010', collected),
        cr(c, '1100', collected),
      ]);
    }
  }

  // Quarterly intercompany sales from the parent to each subsidiary, invoiced in USD and unpaid at
  // year end. The subsidiary books them in USD; the service converts to its functional currency.
  step('recording quarterly intercompany sales, linking both entries and matching them');
  const icIds: string[] = [];
  for (const sub of subs) {
    for (let q = 1; q <= 4; q++) {
      const day = date(q * 3, 20);
      const amount = Math.round(sub.scale * 0.4) + q * 100_000;
      const fromEntry = await postEntry(parent, `Goods sold to ${sub.name}, Q${q}`, day, [
        dr(parent, '1150', amount, 'USD', { intercompanyPartnerId: sub.id }),
        cr(parent, '4050', amount, 'USD', { intercompanyPartnerId: sub.id }),
      ]);
      const toEntry = await postEntry(sub, `Goods bought from ${parent.name}, Q${q}`, day, [
        dr(sub, '5050', amount, 'USD', { intercompanyPartnerId: parent.id }),
        cr(sub, '2050', amount, 'USD', { intercompanyPartnerId: parent.id }),
      ]);
      const ic = await api('POST', '/api/v1/intercompany-transactions', {
        organizationId: orgId,
        fromCompanyId: parent.id,
        toCompanyId: sub.id,
        transactionType: 'Sale',
        transactionDate: day,
        amount: money(amount, 'USD'),
        description: `Goods sold to ${sub.name}, Q${q}`,
        fromJournalEntryId: fromEntry,
      });
      await api('POST', `/api/v1/intercompany-transactions/${ic.id}/link-to-journal-entry`, {
        journalEntryId: toEntry,
      });
      await api('POST', `/api/v1/intercompany-transactions/${ic.id}/matching-status`, {
        matchingStatus: 'Matched',
      });
      icIds.push(ic.id);
    }
  }

  step('creating the consolidation group');
  const group = await api('POST', '/api/v1/consolidation/groups', {
    organizationId: orgId,
    name: 'Northwind consolidated',
    reportingCurrency: 'USD',
    consolidationMethod: 'FullConsolidation',
    parentCompanyId: parent.id,
    members: subs.map((s) => ({
      companyId: s.id,
      ownershipPercentage: s.ownership,
      consolidationMethod: 'FullConsolidation',
      acquisitionDate: date(1, 1),
    })),
  });

  step('creating elimination rules (receivables/payables, intercompany sales)');
  const rules = await api('POST', '/api/v1/elimination-rules/bulk', {
    rules: [
      {
        organizationId: orgId,
        consolidationGroupId: group.id,
        name: 'Intercompany receivables and payables',
        description: 'Due from group companies (1150) against due to group companies (2050)',
        eliminationType: 'IntercompanyReceivablesPayables',
        triggerConditions: [],
        sourceAccounts: [{ accountNumber: '1150', companyId: null }],
        targetAccounts: [{ accountNumber: '2050', companyId: null }],
        debitAccountId: parent.accounts['2050'],
        creditAccountId: parent.accounts['1150'],
        isAutomatic: true,
        priority: 10,
      },
      {
        organizationId: orgId,
        consolidationGroupId: group.id,
        name: 'Intercompany sales and purchases',
        description: 'Matched intercompany sales (4050) against intercompany purchases (5050)',
        eliminationType: 'IntercompanySales',
        triggerConditions: [],
        sourceAccounts: [{ accountNumber: '4050', companyId: null }],
        targetAccounts: [{ accountNumber: '5050', companyId: null }],
        debitAccountId: parent.accounts['4050'],
        creditAccountId: parent.accounts['5050'],
        isAutomatic: true,
        priority: 20,
      },
    ],
  });

  step(`running the consolidation for ${YEAR} period 12`);
  let run = await api('POST', `/api/v1/consolidation/groups/${group.id}/runs`, {
    organizationId: orgId,
    periodRef: { year: YEAR, period: 12 },
  });
  for (let i = 0; i < 120 && (run.status === 'Pending' || run.status === 'InProgress'); i++) {
    await wait(500);
    run = await api('GET', `/api/v1/consolidation/runs/${run.id}`);
  }
  if (run.status !== 'Completed') {
    throw new Error(`the consolidation run ended ${run.status}: ${run.errorMessage ?? ''}`);
  }
  return { email, token: token!, org, companies, group, rules, icIds, run, entryCount };
}
