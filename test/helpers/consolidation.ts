/**
 * Fixtures for the consolidation HTTP tests: companies with the GeneralBusiness chart (through the
 * companies API) and a map of their accounts by number.
 */
import { expect } from 'vitest';
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

/** A member of a group to create: its company, the stake held, its method (default full). */
export interface MemberSpec {
  co: CompanyFixture;
  ownership: number;
  method?: string;
}

/** Creates a USD group of `parent` with `members` (throws unless it answers 201); returns the group. */
export async function createGroup(
  t: TestContext,
  user: TestUser,
  organizationId: string,
  parent: CompanyFixture,
  members: MemberSpec[],
): Promise<any> {
  const res = await t.post('/api/v1/consolidation/groups', {
    token: user.token,
    body: {
      organizationId,
      name: uniq('Group'),
      reportingCurrency: 'USD',
      consolidationMethod: 'FullConsolidation',
      parentCompanyId: parent.id,
      members: members.map((m) => ({
        companyId: m.co.id,
        ownershipPercentage: m.ownership,
        consolidationMethod: m.method ?? 'FullConsolidation',
      })),
    },
  });
  if (res.status !== 201) throw new Error(`create group: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Creates a fully consolidated group of `parent` whose members are held 100 %; returns its id. */
export async function createWholeGroup(
  t: TestContext,
  owner: TestUser,
  organizationId: string,
  parent: CompanyFixture,
  members: CompanyFixture[],
): Promise<string> {
  const group = await createGroup(
    t,
    owner,
    organizationId,
    parent,
    members.map((co) => ({ co, ownership: 100 })),
  );
  return group.id as string;
}

/** A journal line by the fixture's account number: debit or credit, amount. */
export type LineSpec = [accountNumber: string, side: 'D' | 'C', value: string];

/** Creates an entry of `co` dated `transactionDate` with amounts in `currency`, and posts it. */
export async function postEntry(
  t: TestContext,
  owner: TestUser,
  organizationId: string,
  co: CompanyFixture,
  currency: string,
  transactionDate: string,
  lines: LineSpec[],
): Promise<void> {
  const created = await t.post('/api/v1/journal-entries', {
    token: owner.token,
    body: {
      organizationId,
      companyId: co.id,
      description: `Entry ${transactionDate}`,
      transactionDate,
      lines: lines.map(([num, side, value]) => ({
        accountId: co.accounts[num],
        [side === 'D' ? 'debitAmount' : 'creditAmount']: { value, currency },
      })),
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const posted = await t.post(`/api/v1/journal-entries/${created.body.id}/post`, {
    token: owner.token,
    body: { organizationId },
  });
  expect(posted.status, JSON.stringify(posted.body)).toBe(200);
}

/** Stores a manual EUR → USD rate of the given type. */
export async function addEurUsdRate(
  t: TestContext,
  owner: TestUser,
  organizationId: string,
  value: string,
  effectiveDate: string,
  rateType: string,
): Promise<void> {
  const res = await t.post('/api/v1/exchange-rates', {
    token: owner.token,
    body: {
      organizationId,
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      rate: value,
      effectiveDate,
      rateType,
      source: 'Manual',
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}
