/**
 * The getting-started flow with the typed client: register and log in, create an organization with a
 * US parent and a German subsidiary owned 80 %, enter EUR/USD rates, post four entries, run a
 * consolidation for January 2026 and read the consolidated balance sheet.
 *
 *   npx tsx clients/typescript/examples/getting-started.ts [http://127.0.0.1:3000]
 *
 * Names carry a unique suffix, so the program can run any number of times against the same service.
 * The first request that does not answer 2xx stops it with the status and the error body.
 */
import { createGroupbookClient, unwrap } from '../index.ts';

export interface GettingStartedResult {
  organizationId: string;
  runId: string;
  totalAssets: string;
  totalLiabilitiesAndEquity: string;
  nonControllingInterest: string | null;
  isBalanced: boolean;
}

export async function gettingStarted(
  baseUrl: string,
  log: (line: string) => void = () => {},
): Promise<GettingStartedResult> {
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const gb = createGroupbookClient({ baseUrl });
  const email = `ann-${suffix}@example.com`;
  const password = 'Secret-pass1';

  await unwrap(gb.POST('/api/auth/register', { body: { email, password, displayName: 'Ann' } }));
  const session = await unwrap(gb.POST('/api/auth/login', { body: { email, password } }));
  gb.setToken(session.token);
  log(`logged in as ${email}`);

  const org = await unwrap(
    gb.POST('/api/v1/organizations', {
      body: {
        name: `Acme Group ${suffix}`,
        reportingCurrency: 'USD',
        settings: { fiscalYearEnd: { month: 12, day: 31 }, requireApproval: false },
      },
    }),
  );
  const organizationId = org.id;
  log(`organization ${org.name}`);

  const company = (name: string, legalName: string, jurisdiction: string, currency: 'USD' | 'EUR') =>
    unwrap(
      gb.POST('/api/v1/companies', {
        body: {
          organizationId,
          name,
          legalName,
          jurisdiction,
          functionalCurrency: currency,
          reportingCurrency: 'USD',
          fiscalYearEnd: { month: 12, day: 31 },
          accountTemplate: 'GeneralBusiness',
        },
      }),
    );
  const parent = await company('Acme Inc.', 'Acme Inc.', 'US-DE', 'USD');
  const sub = await company('Acme Europe', 'Acme Europe GmbH', 'DE', 'EUR');

  const accountsOf = async (companyId: string) => {
    const list = await unwrap(
      gb.GET('/api/v1/accounts', { params: { query: { organizationId, companyId, limit: 100 } } }),
    );
    return Object.fromEntries(list.accounts.map((a) => [a.accountNumber, a.id]));
  };
  const pa = await accountsOf(parent.id);
  const sa = await accountsOf(sub.id);

  const rate = (rate: string, effectiveDate: string, rateType: 'Spot' | 'Average' | 'YearEnd') => ({
    organizationId,
    fromCurrency: 'EUR' as const,
    toCurrency: 'USD' as const,
    rate,
    effectiveDate,
    rateType,
    source: 'Manual' as const,
  });
  await unwrap(
    gb.POST('/api/v1/exchange-rates/bulk', {
      body: {
        rates: [
          rate('1.0800', '2026-01-01', 'Spot'),
          rate('1.0850', '2026-01-15', 'Average'),
          rate('1.0900', '2026-01-31', 'YearEnd'),
        ],
      },
    }),
  );

  const entry = async (
    companyId: string,
    transactionDate: string,
    description: string,
    debit: string,
    credit: string,
    value: string,
    currency: 'USD' | 'EUR',
  ) => {
    const created = await unwrap(
      gb.POST('/api/v1/journal-entries', {
        body: {
          organizationId,
          companyId,
          transactionDate,
          description,
          lines: [
            { accountId: debit, debitAmount: { value, currency } },
            { accountId: credit, creditAmount: { value, currency } },
          ],
        },
      }),
    );
    await unwrap(
      gb.POST('/api/v1/journal-entries/{id}/post', { params: { path: { id: created.id } }, body: {} }),
    );
  };
  await entry(parent.id, '2026-01-02', 'Share capital', pa['1010']!, pa['3000']!, '500000.00', 'USD');
  await entry(parent.id, '2026-01-20', 'January sales', pa['1100']!, pa['4000']!, '120000.00', 'USD');
  await entry(sub.id, '2026-01-02', 'Share capital', sa['1010']!, sa['3000']!, '200000.00', 'EUR');
  await entry(sub.id, '2026-01-25', 'January sales', sa['1100']!, sa['4000']!, '80000.00', 'EUR');
  log('posted 4 entries');

  const group = await unwrap(
    gb.POST('/api/v1/consolidation/groups', {
      body: {
        organizationId,
        name: 'Acme consolidated',
        reportingCurrency: 'USD',
        consolidationMethod: 'FullConsolidation',
        parentCompanyId: parent.id,
        members: [
          {
            companyId: sub.id,
            ownershipPercentage: '80',
            consolidationMethod: 'FullConsolidation',
            acquisitionDate: '2026-01-01',
          },
        ],
      },
    }),
  );
  const run = await unwrap(
    gb.POST('/api/v1/consolidation/groups/{groupId}/runs', {
      params: { path: { groupId: group.id } },
      body: { periodRef: { year: 2026, period: 1 } },
    }),
  );
  log(`consolidation run ${run.status}`);
  const sheet = await unwrap(
    gb.GET('/api/v1/consolidation/runs/{id}/reports/balance-sheet', { params: { path: { id: run.id } } }),
  );
  log(`total assets ${sheet.totalAssets.value} ${sheet.totalAssets.currency}; balanced: ${sheet.isBalanced}`);
  return {
    organizationId,
    runId: run.id,
    totalAssets: sheet.totalAssets.value,
    totalLiabilitiesAndEquity: sheet.totalLiabilitiesAndEquity.value,
    nonControllingInterest: sheet.nonControllingInterest?.value ?? null,
    isBalanced: sheet.isBalanced,
  };
}

if (process.argv[1]?.endsWith('getting-started.ts')) {
  gettingStarted(process.argv[2] ?? 'http://127.0.0.1:3000', (line) =>
    process.stdout.write(`${line}\n`),
  ).catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
