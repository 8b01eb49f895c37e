/**
 * Fixtures for the consolidation HTTP tests: companies with the GeneralBusiness chart (through the
 * companies API) and a map of their accounts by number.
 */
import { type TestContext, type TestUser, uniq } from './app.ts';

export interface CompanyFixture {
  id: string;
  name: string;
  /** account number → account id */
  accounts: Record<string, string>;
}

export async function createCompany(
  t: TestContext,
  owner: TestUser,
  organizationId: string,
  options: { functionalCurrency?: string; template?: boolean } = {},
): Promise<CompanyFixture> {
  const name = uniq('Co');
  const res = await t.post('/api/v1/companies', {
    token: owner.token,
    body: {
      organizationId,
      name,
      legalName: `${name} Inc.`,
      jurisdiction: 'US-DE',
      functionalCurrency: options.functionalCurrency ?? 'USD',
      reportingCurrency: 'USD',
      fiscalYearEnd: { month: 12, day: 31 },
      ...(options.template === false ? {} : { accountTemplate: 'GeneralBusiness' }),
    },
  });
  if (res.status !== 201) throw new Error(`create company failed: ${res.status} ${JSON.stringify(res.body)}`);
  const accounts: Record<string, string> = {};
  if (options.template !== false) {
    for (let offset = 0; ; offset += 100) {
      const list = await t.get('/api/v1/accounts', {
        token: owner.token,
        query: { organizationId, companyId: res.body.id, limit: 100, offset },
      });
      if (list.status !== 200)
        throw new Error(`list accounts failed: ${list.status} ${JSON.stringify(list.body)}`);
      for (const a of list.body.accounts) accounts[a.accountNumber] = a.id;
      if (offset + 100 >= list.body.total) break;
    }
  }
  return { id: res.body.id, name, accounts };
}
