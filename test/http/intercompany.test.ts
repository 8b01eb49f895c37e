/**
 * Intercompany transactions (contract 3.9): every endpoint, the editable-field rules, the matching
 * workflow (3.9.4, decision 92), links, the role matrix, tenant isolation and the read-only
 * `reconciliation` addition (docs/decisions.md).
 *
 * Companies (GeneralBusiness template) and journal entries come from the companies and journal APIs;
 * account ids are read from the database; "eliminated" is set with the run helper
 * `markTransactionsEliminated`, as a completed consolidation run does.
 */
import { and, eq } from 'drizzle-orm';
import { v4 as uuidv4 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts, companies } from '../../src/db/schema/index.ts';
import {
  loadTransactionsForRun,
  markTransactionsEliminated,
} from '../../src/modules/intercompany/service.ts';
import { createTestContext, type TestContext, type TestUser, uniq } from '../helpers/app.ts';

let t: TestContext;
const BASE = '/api/v1/intercompany-transactions';
const MISSING = '00000000-0000-4000-8000-000000000000';

// ---------------------------------------------------------------------------------------------------
// Fixtures: companies, accounts and journal entries

interface Co {
  id: string;
  currency: string;
}

/** GeneralBusiness accounts by role: receivable (Asset), payable (Liability), revenue, cash (Asset). */
const ACCOUNT_NUMBERS = { receivable: '1100', payable: '2000', revenue: '4000', cash: '1010' } as const;

async function company(owner: TestUser, organizationId: string, currency = 'USD'): Promise<Co> {
  const res = await t.post('/api/v1/companies', {
    token: owner.token,
    body: {
      organizationId,
      name: uniq('Co'),
      legalName: 'Co Ltd',
      jurisdiction: 'US',
      functionalCurrency: currency,
      reportingCurrency: currency,
      fiscalYearEnd: { month: 12, day: 31 },
      accountTemplate: 'GeneralBusiness',
    },
  });
  if (res.status !== 201) throw new Error(`company: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id, currency };
}

async function accountId(co: Co, role: keyof typeof ACCOUNT_NUMBERS | 'expense'): Promise<string> {
  const db = t.database.db;
  if (role === 'expense') {
    const rows = await db
      .select({ id: accounts.id, n: accounts.accountNumber })
      .from(accounts)
      .where(
        and(
          eq(accounts.companyId, co.id),
          eq(accounts.accountType, 'Expense'),
          eq(accounts.isPostable, true),
        ),
      );
    rows.sort((a, b) => a.n.localeCompare(b.n));
    return rows[0]!.id;
  }
  const [row] = await db
    .select({ id: accounts.id })
    .from(accounts)
    .where(and(eq(accounts.companyId, co.id), eq(accounts.accountNumber, ACCOUNT_NUMBERS[role])));
  return row!.id;
}

async function deactivate(co: Co): Promise<void> {
  await t.database.db.update(companies).set({ isActive: false }).where(eq(companies.id, co.id));
}

interface LineSpec {
  account: keyof typeof ACCOUNT_NUMBERS | 'expense';
  debit?: string;
  credit?: string;
  partner?: string | null;
}

/** A Draft journal entry of `co` in its functional currency, with the given lines. */
async function entry(
  owner: TestUser,
  organizationId: string,
  co: Co,
  lines: LineSpec[],
  date = '2026-03-15',
): Promise<string> {
  const res = await t.post('/api/v1/journal-entries', {
    token: owner.token,
    body: {
      organizationId,
      companyId: co.id,
      description: 'IC entry',
      transactionDate: date,
      lines: await Promise.all(
        lines.map(async (l) => ({
          accountId: await accountId(co, l.account),
          debitAmount: l.debit ? { value: l.debit, currency: co.currency } : null,
          creditAmount: l.credit ? { value: l.credit, currency: co.currency } : null,
          intercompanyPartnerId: l.partner ?? null,
        })),
      ),
    },
  });
  if (res.status !== 201) throw new Error(`entry: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** Seller: Dr receivable / Cr revenue; buyer: Dr expense / Cr payable (partner on the balance line). */
const sellerEntry = (owner: TestUser, org: string, seller: Co, buyer: Co, amount: string, tagBoth = false) =>
  entry(owner, org, seller, [
    { account: 'receivable', debit: amount, partner: buyer.id },
    { account: 'revenue', credit: amount, partner: tagBoth ? buyer.id : null },
  ]);
const buyerEntry = (owner: TestUser, org: string, buyer: Co, seller: Co, amount: string, tagBoth = false) =>
  entry(owner, org, buyer, [
    { account: 'expense', debit: amount, partner: tagBoth ? seller.id : null },
    { account: 'payable', credit: amount, partner: seller.id },
  ]);

// ---------------------------------------------------------------------------------------------------
// Tenants

let owner: TestUser; // owner of org A (and of org A2)
let admin: TestUser;
let member: TestUser;
let viewer: TestUser;
let outsider: TestUser; // owner of org B only
let orgA: string;
let orgA2: string;
let orgB: string;
let p: Co; // org A, USD
let s: Co; // org A, USD
let e: Co; // org A, EUR
let a2: Co; // org A2
let b1: Co; // org B
let b2: Co; // org B

async function create(body: Record<string, unknown> = {}, token = owner.token) {
  return t.post(BASE, {
    token,
    body: {
      organizationId: orgA,
      fromCompanyId: p.id,
      toCompanyId: s.id,
      transactionType: 'Sale',
      transactionDate: '2026-03-15',
      amount: { value: '1000.00', currency: 'USD' },
      ...body,
    },
  });
}

async function created(body: Record<string, unknown> = {}) {
  const res = await create(body);
  if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const setStatus = (id: string, body: Record<string, unknown>, token = owner.token) =>
  t.post(`${BASE}/${id}/matching-status`, { token, body });

async function eliminate(id: string, organizationId = orgA): Promise<void> {
  await markTransactionsEliminated(t.database.db, organizationId, [id], uuidv4());
}

beforeAll(async () => {
  t = await createTestContext();
  [owner, admin, member, viewer, outsider] = await Promise.all([
    t.user('owner'),
    t.user('admin'),
    t.user('member'),
    t.user('viewer'),
    t.user('outsider'),
  ]);
  orgA = (await t.org(owner, { settings: { requireApproval: false } })).id;
  orgA2 = (await t.org(owner)).id;
  orgB = (await t.org(outsider)).id;
  await t.addMember(owner, orgA, admin, 'admin');
  await t.addMember(owner, orgA, member, 'member');
  await t.addMember(owner, orgA, viewer, 'viewer');
  p = await company(owner, orgA);
  s = await company(owner, orgA);
  e = await company(owner, orgA, 'EUR');
  a2 = await company(owner, orgA2);
  b1 = await company(outsider, orgB);
  b2 = await company(outsider, orgB);
}, 120_000);

afterAll(async () => {
  await t?.close();
});

// ---------------------------------------------------------------------------------------------------

describe('POST /intercompany-transactions', () => {
  it('creates an Unmatched transaction with every documented field', async () => {
    const res = await create({ description: '  Goods  ', transactionType: 'Service' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      organizationId: orgA,
      fromCompanyId: p.id,
      toCompanyId: s.id,
      transactionType: 'Service',
      transactionDate: '2026-03-15',
      amount: { value: '1000.00', currency: 'USD' },
      description: 'Goods',
      fromJournalEntryId: null,
      toJournalEntryId: null,
      matchingStatus: 'Unmatched',
      varianceAmount: null,
      varianceExplanation: null,
      requiresElimination: false,
      isEliminated: false,
      eliminatedByRunId: null,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: res.body.createdAt,
      reconciliation: { fromAmount: null, toAmount: null, difference: null },
    });
    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: orgA, entityType: 'IntercompanyTransaction', entityId: res.body.id },
    });
    expect(audit.body.entries).toEqual([
      expect.objectContaining({ action: 'Create', userId: owner.id, changes: null }),
    ]);
  });

  it('formats amounts to the currency minor unit and accepts upper-case ids', async () => {
    const res = await create({
      fromCompanyId: p.id.toUpperCase(),
      amount: { value: '1500', currency: 'JPY' },
      description: '   ',
    });
    expect(res.status).toBe(201);
    expect(res.body.fromCompanyId).toBe(p.id);
    expect(res.body.amount).toEqual({ value: '1500', currency: 'JPY' });
    expect(res.body.description).toBeNull();
  });

  it('refuses the same company on both sides with the syntax checks (before organization checks)', async () => {
    const same = await create({ toCompanyId: p.id });
    expect(same.status).toBe(400);
    expect(same.body).toEqual({
      _tag: 'SameCompanyIntercompanyError',
      message: expect.any(String),
      companyId: p.id,
    });
    // even for a missing organization or a caller who is not a member
    const missingOrg = await create({ organizationId: MISSING, toCompanyId: p.id });
    expect(missingOrg.body._tag).toBe('SameCompanyIntercompanyError');
    const foreign = await create({ organizationId: orgB, fromCompanyId: b1.id, toCompanyId: b1.id });
    expect(foreign.status).toBe(400);
    expect(foreign.body._tag).toBe('SameCompanyIntercompanyError');
    // ...but after schema validation
    const bad = await create({ toCompanyId: p.id, amount: { value: '1.001', currency: 'USD' } });
    expect(bad.status).toBe(400);
    expect(bad.body._tag).toBe('ValidationError');
    expect(bad.body.issues).toEqual([{ path: '/amount/value', message: expect.any(String) }]);
    // ...and after authentication
    expect((await create({ toCompanyId: p.id }, 'not-a-token')).status).toBe(401);
  });

  it.each([
    ['missing amount', { amount: undefined }, '/amount'],
    ['zero amount', { amount: { value: '0', currency: 'USD' } }, '/amount/value'],
    ['negative amount', { amount: { value: '-5.00', currency: 'USD' } }, '/amount/value'],
    ['numeric amount', { amount: { value: 100, currency: 'USD' } }, '/amount/value'],
    ['lower-case currency', { amount: { value: '1.00', currency: 'usd' } }, '/amount/currency'],
    ['unknown type', { transactionType: 'Gift' }, '/transactionType'],
    ['invalid date', { transactionDate: '2026-02-30' }, '/transactionDate'],
    ['malformed company id', { fromCompanyId: 'abc' }, '/fromCompanyId'],
    ['malformed entry id', { toJournalEntryId: 'abc' }, '/toJournalEntryId'],
    ['long description', { description: 'x'.repeat(2001) }, '/description'],
    ['missing organization', { organizationId: undefined }, '/organizationId'],
  ])('400 ValidationError: %s', async (_name, patch, path) => {
    const res = await create(patch);
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe('ValidationError');
    expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
  });

  it('checks the organization, the role, then companies (from, then to), activity and entries', async () => {
    expect((await create({ organizationId: MISSING })).body).toMatchObject({
      _tag: 'OrganizationNotFoundError',
      organizationId: MISSING,
    });
    const notMember = await create({}, outsider.token);
    expect(notMember.status).toBe(403);
    expect(notMember.body).toMatchObject({
      _tag: 'ForbiddenError',
      resource: 'IntercompanyTransaction',
      action: 'intercompany:manage',
      requiredRole: 'member',
      currentRole: null,
    });
    const asViewer = await create({}, viewer.token);
    expect(asViewer.status).toBe(403);
    expect(asViewer.body).toMatchObject({ currentRole: 'viewer', requiredRole: 'member' });

    const bothMissing = await create({ fromCompanyId: MISSING, toCompanyId: uuidv4() });
    expect(bothMissing.status).toBe(404);
    expect(bothMissing.body).toMatchObject({ _tag: 'CompanyNotFoundError', companyId: MISSING });
    const toMissing = await create({ toCompanyId: MISSING });
    expect(toMissing.body).toMatchObject({ _tag: 'CompanyNotFoundError', companyId: MISSING });
    // a company of another organization (even one of the caller's) is "not found"
    expect((await create({ toCompanyId: b1.id })).body).toMatchObject({
      _tag: 'CompanyNotFoundError',
      companyId: b1.id,
    });
    expect((await create({ fromCompanyId: a2.id })).body).toMatchObject({
      _tag: 'CompanyNotFoundError',
      companyId: a2.id,
    });
  });

  it('refuses inactive companies (400 CompanyInactiveError), after both existence checks', async () => {
    const inactive = await company(owner, orgA);
    await deactivate(inactive);
    const res = await create({ toCompanyId: inactive.id });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      _tag: 'CompanyInactiveError',
      message: expect.any(String),
      companyId: inactive.id,
    });
    const fromInactive = await create({ fromCompanyId: inactive.id, toCompanyId: MISSING });
    expect(fromInactive.body._tag).toBe('CompanyNotFoundError');
    expect((await create({ fromCompanyId: inactive.id })).body.companyId).toBe(inactive.id);
  });

  it('validates linked entries: of the organization (404), of the right company (400)', async () => {
    const fromEntry = await sellerEntry(owner, orgA, p, s, '100.00');
    const toEntry = await buyerEntry(owner, orgA, s, p, '100.00');
    const foreignEntry = await sellerEntry(outsider, orgB, b1, b2, '10.00');

    const foreign = await create({ fromJournalEntryId: foreignEntry });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({
      _tag: 'JournalEntryNotFoundError',
      message: expect.any(String),
      entryId: foreignEntry,
    });
    const missing = await create({ toJournalEntryId: MISSING });
    expect(missing.body).toMatchObject({ _tag: 'JournalEntryNotFoundError', entryId: MISSING });

    const swapped = await create({ fromJournalEntryId: toEntry });
    expect(swapped.status).toBe(400);
    expect(swapped.body).toEqual({
      _tag: 'IntercompanyJournalEntryMismatchError',
      message: expect.any(String),
      journalEntryId: toEntry,
      expectedCompanyId: p.id,
      actualCompanyId: s.id,
    });
    const wrongTo = await create({ toJournalEntryId: fromEntry });
    expect(wrongTo.body).toMatchObject({ expectedCompanyId: s.id, actualCompanyId: p.id });

    const ok = await create({ fromJournalEntryId: fromEntry, toJournalEntryId: toEntry.toUpperCase() });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ fromJournalEntryId: fromEntry, toJournalEntryId: toEntry });
  });

  it('replays an idempotent create', async () => {
    const key = uniq('idem');
    const body = {
      organizationId: orgA,
      fromCompanyId: p.id,
      toCompanyId: s.id,
      transactionType: 'Loan',
      transactionDate: '2026-01-02',
      amount: { value: '5.00', currency: 'USD' },
    };
    const first = await t.post(BASE, { token: member.token, body, headers: { 'idempotency-key': key } });
    const second = await t.post(BASE, { token: member.token, body, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body.id).toBe(first.body.id);
  });
});

describe('GET /intercompany-transactions/{id}', () => {
  let tx: any;
  beforeAll(async () => {
    tx = await created();
  });

  it('returns the transaction to every role of the organization', async () => {
    for (const u of [viewer, member, admin, owner]) {
      const res = await t.get(`${BASE}/${tx.id}`, { token: u.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(tx);
    }
    const withOrg = await t.get(`${BASE}/${tx.id.toUpperCase()}`, {
      token: viewer.token,
      query: { organizationId: orgA },
    });
    expect(withOrg.body).toEqual(tx);
  });

  it('answers 404 for malformed and missing ids, and for another organization of the caller', async () => {
    const malformed = await t.get(`${BASE}/abc`, { token: owner.token });
    expect(malformed.status).toBe(404);
    expect(malformed.body).toEqual({
      _tag: 'IntercompanyTransactionNotFoundError',
      message: expect.any(String),
      transactionId: 'abc',
    });
    const missing = await t.get(`${BASE}/${MISSING}`, { token: owner.token });
    expect(missing.body).toMatchObject({
      _tag: 'IntercompanyTransactionNotFoundError',
      transactionId: MISSING,
    });
    const otherOrg = await t.get(`${BASE}/${tx.id}`, {
      token: owner.token,
      query: { organizationId: orgA2 },
    });
    expect(otherOrg.status).toBe(404);
    expect(otherOrg.body._tag).toBe('IntercompanyTransactionNotFoundError');
    const noOrg = await t.get(`${BASE}/${tx.id}`, { token: owner.token, query: { organizationId: MISSING } });
    expect(noOrg.body._tag).toBe('OrganizationNotFoundError');
    expect(
      (await t.get(`${BASE}/${tx.id}`, { query: { organizationId: 'x' }, token: owner.token })).status,
    ).toBe(400);
  });
});

describe('tenant isolation', () => {
  let tx: any;
  beforeAll(async () => {
    tx = await created({ description: 'secret' });
  });

  it('refuses every by-id endpoint of a foreign transaction with 403 and no data', async () => {
    const calls = [
      () => t.get(`${BASE}/${tx.id}`, { token: outsider.token }),
      () => t.put(`${BASE}/${tx.id}`, { token: outsider.token, body: { description: 'x' } }),
      () => t.del(`${BASE}/${tx.id}`, { token: outsider.token }),
      () => setStatus(tx.id, { matchingStatus: 'Matched' }, outsider.token),
      () =>
        t.post(`${BASE}/${tx.id}/link-from-journal-entry`, {
          token: outsider.token,
          body: { journalEntryId: null },
        }),
      () =>
        t.post(`${BASE}/${tx.id}/link-to-journal-entry`, {
          token: outsider.token,
          body: { journalEntryId: null },
        }),
    ];
    for (const call of calls) {
      const res = await call();
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        _tag: 'ForbiddenError',
        currentRole: null,
        resource: 'IntercompanyTransaction',
      });
      expect(JSON.stringify(res.body)).not.toContain('secret');
    }
    const still = await t.get(`${BASE}/${tx.id}`, { token: owner.token });
    expect(still.body).toEqual(tx);
  });

  it('answers 404 when the foreign transaction is addressed with the caller own organization', async () => {
    const calls = [
      () => t.get(`${BASE}/${tx.id}`, { token: outsider.token, query: { organizationId: orgB } }),
      () => t.put(`${BASE}/${tx.id}`, { token: outsider.token, query: { organizationId: orgB }, body: {} }),
      () => t.del(`${BASE}/${tx.id}`, { token: outsider.token, query: { organizationId: orgB } }),
      () =>
        t.post(`${BASE}/${tx.id}/matching-status`, {
          token: outsider.token,
          query: { organizationId: orgB },
          body: { matchingStatus: 'Matched' },
        }),
      () =>
        t.post(`${BASE}/${tx.id}/link-to-journal-entry`, {
          token: outsider.token,
          query: { organizationId: orgB },
          body: { journalEntryId: null },
        }),
    ];
    for (const call of calls) {
      const res = await call();
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        _tag: 'IntercompanyTransactionNotFoundError',
        message: expect.any(String),
        transactionId: tx.id,
      });
    }
    // naming org A without membership → 403
    const named = await t.get(`${BASE}/${tx.id}`, { token: outsider.token, query: { organizationId: orgA } });
    expect(named.status).toBe(403);
  });

  it('never lists foreign rows and treats foreign ids in bodies and filters as missing', async () => {
    await t.post(BASE, {
      token: outsider.token,
      body: {
        organizationId: orgB,
        fromCompanyId: b1.id,
        toCompanyId: b2.id,
        transactionType: 'Sale',
        transactionDate: '2026-03-01',
        amount: { value: '1.00', currency: 'USD' },
      },
    });
    const mine = await t.get(BASE, { token: outsider.token, query: { limit: 100 } });
    expect(mine.status).toBe(200);
    expect(mine.body.total).toBe(1);
    expect(mine.body.transactions.every((x: any) => x.organizationId === orgB)).toBe(true);
    const ownerList = await t.get(BASE, { token: owner.token, query: { limit: 100 } });
    expect(ownerList.body.transactions.some((x: any) => x.organizationId === orgB)).toBe(false);

    for (const filter of ['fromCompanyId', 'toCompanyId', 'companyId']) {
      const res = await t.get(BASE, { token: outsider.token, query: { [filter]: p.id } });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ _tag: 'CompanyNotFoundError', companyId: p.id });
    }
    const foreignOrg = await t.get(BASE, { token: outsider.token, query: { organizationId: orgA } });
    expect(foreignOrg.status).toBe(403);
    // create in own org with A's company or entry
    const withCompany = await t.post(BASE, {
      token: outsider.token,
      body: {
        organizationId: orgB,
        fromCompanyId: b1.id,
        toCompanyId: p.id,
        transactionType: 'Sale',
        transactionDate: '2026-03-01',
        amount: { value: '1.00', currency: 'USD' },
      },
    });
    expect(withCompany.body).toMatchObject({ _tag: 'CompanyNotFoundError', companyId: p.id });
    const aEntry = await sellerEntry(owner, orgA, p, s, '1.00');
    const withEntry = await t.post(BASE, {
      token: outsider.token,
      body: {
        organizationId: orgB,
        fromCompanyId: b1.id,
        toCompanyId: b2.id,
        transactionType: 'Sale',
        transactionDate: '2026-03-01',
        amount: { value: '1.00', currency: 'USD' },
        fromJournalEntryId: aEntry,
      },
    });
    expect(withEntry.status).toBe(404);
    expect(withEntry.body).toMatchObject({ _tag: 'JournalEntryNotFoundError', entryId: aEntry });
    const bTx = mine.body.transactions[0];
    const link = await t.post(`${BASE}/${bTx.id}/link-from-journal-entry`, {
      token: outsider.token,
      body: { journalEntryId: aEntry },
    });
    expect(link.status).toBe(404);
    expect(link.body).toMatchObject({ _tag: 'JournalEntryNotFoundError', entryId: aEntry });
  });

  it('a user without memberships lists nothing', async () => {
    const loner = await t.user('loner');
    const res = await t.get(BASE, { token: loner.token });
    expect(res.body).toEqual({ transactions: [], total: 0, limit: 50, offset: 0 });
  });
});

describe('GET /intercompany-transactions (list)', () => {
  let org: string;
  let c1: Co;
  let c2: Co;
  let c3: Co;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    org = (await t.org(owner)).id;
    await t.addMember(owner, org, viewer, 'viewer');
    c1 = await company(owner, org);
    c2 = await company(owner, org);
    c3 = await company(owner, org);
    const mk = async (name: string, body: Record<string, unknown>) => {
      const res = await t.post(BASE, {
        token: owner.token,
        body: {
          organizationId: org,
          fromCompanyId: c1.id,
          toCompanyId: c2.id,
          transactionType: 'Sale',
          transactionDate: '2026-01-10',
          amount: { value: '10.00', currency: 'USD' },
          ...body,
        },
      });
      expect(res.status).toBe(201);
      ids[name] = res.body.id;
    };
    await mk('a', { transactionDate: '2026-01-10' });
    await mk('b', { transactionDate: '2026-02-10', transactionType: 'Loan' });
    await mk('c', { transactionDate: '2026-02-10', fromCompanyId: c2.id, toCompanyId: c3.id });
    await mk('d', { transactionDate: '2026-03-10', fromCompanyId: c3.id, toCompanyId: c1.id });
    await mk('e', { transactionDate: '2025-12-31' });
    expect((await setStatus(ids.b!, { matchingStatus: 'Matched' })).status).toBe(200);
    expect(
      (await setStatus(ids.c!, { matchingStatus: 'PartiallyMatched', varianceExplanation: 'fx' })).status,
    ).toBe(200);
    expect(
      (await setStatus(ids.d!, { matchingStatus: 'VarianceApproved', varianceExplanation: 'ok' })).status,
    ).toBe(200);
    await eliminate(ids.d!, org);
  });

  const list = async (query: Record<string, string | number | boolean>, token = viewer.token) => {
    const res = await t.get(BASE, { token, query: { organizationId: org, ...query } });
    expect(res.status).toBe(200);
    return res.body;
  };
  const names = (body: any) =>
    body.transactions.map((x: any) => Object.entries(ids).find(([, v]) => v === x.id)?.[0]);

  it('orders by transactionDate desc, then createdAt desc, then id; paginates', async () => {
    const all = await list({});
    expect(names(all)).toEqual(['d', 'c', 'b', 'a', 'e']);
    expect(all).toMatchObject({ total: 5, limit: 50, offset: 0 });
    const page = await list({ limit: 2, offset: 1 });
    expect(names(page)).toEqual(['c', 'b']);
    expect(page).toMatchObject({ total: 5, limit: 2, offset: 1 });
    expect((await list({ offset: 10 })).transactions).toEqual([]);
  });

  it('applies every filter', async () => {
    expect(names(await list({ fromCompanyId: c1.id }))).toEqual(['b', 'a', 'e']);
    expect(names(await list({ toCompanyId: c1.id }))).toEqual(['d']);
    expect(names(await list({ companyId: c3.id }))).toEqual(['d', 'c']);
    expect(names(await list({ companyId: c1.id, toCompanyId: c2.id }))).toEqual(['b', 'a', 'e']);
    expect(names(await list({ transactionType: 'Loan' }))).toEqual(['b']);
    expect(names(await list({ matchingStatus: 'PartiallyMatched' }))).toEqual(['c']);
    expect(names(await list({ startDate: '2026-01-10', endDate: '2026-02-10' }))).toEqual(['c', 'b', 'a']);
    expect(names(await list({ startDate: '2026-02-11' }))).toEqual(['d']);
    expect(names(await list({ endDate: '2025-12-31' }))).toEqual(['e']);
    expect(names(await list({ requiresElimination: true }))).toEqual(['d', 'b']);
    expect(names(await list({ requiresElimination: false }))).toEqual(['c', 'a', 'e']);
    expect(names(await list({ unmatched: true }))).toEqual(['a', 'e']);
    expect(names(await list({ unmatched: false }))).toHaveLength(5);
    expect(names(await list({ isEliminated: true }))).toEqual(['d']);
    expect(names(await list({ isEliminated: false }))).toEqual(['c', 'b', 'a', 'e']);
    expect(names(await list({ unmatched: true, matchingStatus: 'Matched' }))).toEqual([]);
    const d = (await list({ isEliminated: true })).transactions[0];
    expect(d).toMatchObject({
      requiresElimination: true,
      isEliminated: true,
      eliminatedByRunId: expect.any(String),
    });
  });

  it('spans the caller organizations when organizationId is omitted', async () => {
    const res = await t.get(BASE, { token: owner.token, query: { limit: 100 } });
    const orgs = new Set(res.body.transactions.map((x: any) => x.organizationId));
    expect(orgs.has(org)).toBe(true);
    expect(orgs.has(orgA)).toBe(true);
    expect(orgs.has(orgB)).toBe(false);
    const viaCompany = await t.get(BASE, { token: owner.token, query: { companyId: c3.id } });
    expect(viaCompany.body.total).toBe(2);
  });

  it('refuses bad queries', async () => {
    const range = await t.get(BASE, {
      token: viewer.token,
      query: { organizationId: org, startDate: '2026-02-01', endDate: '2026-01-01' },
    });
    expect(range.status).toBe(400);
    expect(range.body._tag).toBe('ValidationError');
    for (const query of [
      { unmatched: 'yes' },
      { isEliminated: '1' },
      { matchingStatus: 'matched' },
      { limit: 0 },
      { limit: 101 },
      { offset: -1 },
      { companyId: 'abc' },
      { startDate: '2026-13-01' },
      { transactionType: '' },
    ]) {
      const res = await t.get(BASE, { token: viewer.token, query: { organizationId: org, ...query } });
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body._tag).toBe('ValidationError');
    }
    const missingCompany = await t.get(BASE, {
      token: viewer.token,
      query: { organizationId: org, fromCompanyId: MISSING },
    });
    expect(missingCompany.body).toMatchObject({ _tag: 'CompanyNotFoundError', companyId: MISSING });
    // a company of another organization of the caller, when organizationId names this one
    const otherOrgCompany = await t.get(BASE, {
      token: owner.token,
      query: { organizationId: org, companyId: p.id },
    });
    expect(otherOrgCompany.body).toMatchObject({ _tag: 'CompanyNotFoundError', companyId: p.id });
    const missingOrg = await t.get(BASE, { token: owner.token, query: { organizationId: MISSING } });
    expect(missingOrg.body._tag).toBe('OrganizationNotFoundError');
  });
});

describe('PUT /intercompany-transactions/{id}', () => {
  it('updates the editable fields; a no-op changes nothing', async () => {
    const tx = await created();
    const res = await t.put(`${BASE}/${tx.id}`, {
      token: member.token,
      body: {
        transactionType: 'Royalty',
        transactionDate: '2026-04-01',
        amount: { value: '1200.5', currency: 'USD' },
        description: 'Updated',
        varianceAmount: { value: '-12.50', currency: 'USD' },
        varianceExplanation: 'rounding',
        matchingStatus: 'Matched', // read-only here: ignored
        fromJournalEntryId: MISSING, // links change only through the link endpoints: ignored
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      transactionType: 'Royalty',
      transactionDate: '2026-04-01',
      amount: { value: '1200.50', currency: 'USD' },
      description: 'Updated',
      varianceAmount: { value: '-12.50', currency: 'USD' },
      varianceExplanation: 'rounding',
      matchingStatus: 'Unmatched',
      fromJournalEntryId: null,
    });
    expect(res.body.updatedAt >= tx.updatedAt).toBe(true);

    const same = await t.put(`${BASE}/${tx.id}`, {
      token: member.token,
      body: {
        amount: { value: '1200.50', currency: 'USD' },
        organizationId: orgA,
        fromCompanyId: p.id,
        toCompanyId: s.id.toUpperCase(),
        description: 'Updated',
      },
    });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(res.body);
    expect((await t.put(`${BASE}/${tx.id}`, { token: member.token, body: {} })).body).toEqual(res.body);

    const cleared = await t.put(`${BASE}/${tx.id}`, {
      token: member.token,
      body: { description: null, varianceAmount: null, varianceExplanation: '' },
    });
    expect(cleared.body).toMatchObject({
      description: null,
      varianceAmount: null,
      varianceExplanation: null,
    });

    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: orgA, entityId: tx.id, action: 'Update' },
    });
    expect(audit.body.total).toBe(2);
    const first = audit.body.entries.find((x: any) => x.changes.transactionType);
    expect(first.changes.transactionType).toEqual({ from: 'Sale', to: 'Royalty' });
    expect(first.changes.amount).toEqual({
      from: { value: '1000.00', currency: 'USD' },
      to: { value: '1200.50', currency: 'USD' },
    });
  });

  it('refuses null for required fields and different immutable values', async () => {
    const tx = await created();
    for (const field of ['amount', 'transactionType', 'transactionDate']) {
      const res = await t.put(`${BASE}/${tx.id}`, { token: member.token, body: { [field]: null } });
      expect(res.status).toBe(400);
      expect(res.body.issues[0].path).toBe(`/${field}`);
    }
    const immutable: Array<[string, string]> = [
      ['fromCompanyId', s.id],
      ['toCompanyId', e.id],
      ['organizationId', orgA2],
    ];
    for (const [field, value] of immutable) {
      const res = await t.put(`${BASE}/${tx.id}`, { token: member.token, body: { [field]: value } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ _tag: 'ValidationError', issues: [{ path: `/${field}` }] });
    }
  });

  it('locks economic fields once Matched or VarianceApproved, but not description', async () => {
    for (const status of ['Matched', 'VarianceApproved']) {
      const tx = await created({ amount: { value: '50.00', currency: 'USD' } });
      await setStatus(tx.id, { matchingStatus: status, varianceExplanation: 'why' });
      const res = await t.put(`${BASE}/${tx.id}`, {
        token: member.token,
        body: {
          transactionType: 'Sale', // unchanged: not reported
          amount: { value: '50', currency: 'USD' }, // same value: not changed
          transactionDate: '2026-05-01',
          varianceExplanation: 'other',
          description: 'fine',
        },
      });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        _tag: 'IntercompanyTransactionNotEditableError',
        message: expect.any(String),
        transactionId: tx.id,
        matchingStatus: status,
        isEliminated: false,
        fields: ['transactionDate', 'varianceExplanation'],
      });
      const desc = await t.put(`${BASE}/${tx.id}`, {
        token: member.token,
        body: { description: 'fine', amount: { value: '50.00', currency: 'USD' } },
      });
      expect(desc.status).toBe(200);
      expect(desc.body.description).toBe('fine');
    }
  });

  it('PartiallyMatched stays editable; eliminated locks whatever the status', async () => {
    const tx = await created();
    await setStatus(tx.id, { matchingStatus: 'PartiallyMatched', varianceExplanation: 'short' });
    const ok = await t.put(`${BASE}/${tx.id}`, {
      token: member.token,
      body: { amount: { value: '999.00', currency: 'USD' } },
    });
    expect(ok.status).toBe(200);
    await eliminate(tx.id);
    const locked = await t.put(`${BASE}/${tx.id}`, {
      token: member.token,
      body: {
        amount: { value: '1.00', currency: 'USD' },
        varianceAmount: { value: '1.00', currency: 'USD' },
      },
    });
    expect(locked.status).toBe(409);
    expect(locked.body).toMatchObject({
      matchingStatus: 'PartiallyMatched',
      isEliminated: true,
      fields: ['amount', 'varianceAmount'],
    });
    const desc = await t.put(`${BASE}/${tx.id}`, { token: member.token, body: { description: 'note' } });
    expect(desc.status).toBe(200);
  });

  it('requires varianceAmount in the currency of amount', async () => {
    const tx = await created();
    const wrong = await t.put(`${BASE}/${tx.id}`, {
      token: member.token,
      body: { varianceAmount: { value: '1.00', currency: 'EUR' } },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ _tag: 'ValidationError', issues: [{ path: '/varianceAmount' }] });
    await t.put(`${BASE}/${tx.id}`, {
      token: member.token,
      body: { varianceAmount: { value: '-3.00', currency: 'USD' } },
    });
    const currencyOnly = await t.put(`${BASE}/${tx.id}`, {
      token: member.token,
      body: { amount: { value: '900.00', currency: 'EUR' } },
    });
    expect(currencyOnly.status).toBe(400);
    expect(currencyOnly.body).toMatchObject({ _tag: 'ValidationError', issues: [{ path: '/amount' }] });
    const both = await t.put(`${BASE}/${tx.id}`, {
      token: member.token,
      body: {
        amount: { value: '900.00', currency: 'EUR' },
        varianceAmount: { value: '-3.00', currency: 'EUR' },
      },
    });
    expect(both.status).toBe(200);
    expect(both.body).toMatchObject({
      amount: { value: '900.00', currency: 'EUR' },
      varianceAmount: { value: '-3.00', currency: 'EUR' },
    });
    const clearing = await t.put(`${BASE}/${tx.id}`, {
      token: member.token,
      body: { amount: { value: '900', currency: 'JPY' }, varianceAmount: null },
    });
    expect(clearing.status).toBe(200);
    expect(clearing.body.varianceAmount).toBeNull();
  });

  it('checks role and existence', async () => {
    const tx = await created();
    const asViewer = await t.put(`${BASE}/${tx.id}`, { token: viewer.token, body: { description: 'x' } });
    expect(asViewer.status).toBe(403);
    expect(asViewer.body).toMatchObject({ action: 'intercompany:manage', currentRole: 'viewer' });
    const missing = await t.put(`${BASE}/${MISSING}`, { token: viewer.token, body: {} });
    expect(missing.status).toBe(404);
    for (const u of [member, admin, owner]) {
      expect(
        (await t.put(`${BASE}/${tx.id}`, { token: u.token, body: { description: u.email } })).status,
      ).toBe(200);
    }
  });
});

describe('DELETE /intercompany-transactions/{id}', () => {
  it('deletes Unmatched and PartiallyMatched transactions (204) with an audit entry', async () => {
    const tx = await created();
    expect((await t.del(`${BASE}/${tx.id}`, { token: viewer.token })).status).toBe(403);
    const res = await t.del(`${BASE}/${tx.id}`, { token: member.token, query: { organizationId: orgA } });
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect((await t.get(`${BASE}/${tx.id}`, { token: owner.token })).status).toBe(404);
    expect((await t.del(`${BASE}/${tx.id}`, { token: member.token })).status).toBe(404);
    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: orgA, entityId: tx.id, action: 'Delete' },
    });
    expect(audit.body.entries).toEqual([expect.objectContaining({ userId: member.id, changes: null })]);

    const partial = await created();
    await setStatus(partial.id, { matchingStatus: 'PartiallyMatched', varianceExplanation: 'x' });
    expect((await t.del(`${BASE}/${partial.id}`, { token: admin.token })).status).toBe(204);
  });

  it('refuses Matched, VarianceApproved and eliminated transactions (409)', async () => {
    for (const status of ['Matched', 'VarianceApproved']) {
      const tx = await created();
      await setStatus(tx.id, { matchingStatus: status, varianceExplanation: 'x' });
      const res = await t.del(`${BASE}/${tx.id}`, { token: member.token });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        _tag: 'IntercompanyTransactionCannotBeDeletedError',
        message: expect.any(String),
        transactionId: tx.id,
        matchingStatus: status,
        isEliminated: false,
      });
    }
    const tx = await created();
    await eliminate(tx.id);
    const res = await t.del(`${BASE}/${tx.id}`, { token: owner.token });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ matchingStatus: 'Unmatched', isEliminated: true });
  });
});

describe('POST /intercompany-transactions/{id}/matching-status', () => {
  it('allows every move, stores and clears the variance fields', async () => {
    const tx = await created();
    const approved = await setStatus(
      tx.id,
      {
        matchingStatus: 'VarianceApproved',
        varianceExplanation: ' timing ',
        varianceAmount: { value: '-5.00', currency: 'USD' },
      },
      member.token,
    );
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      matchingStatus: 'VarianceApproved',
      varianceExplanation: 'timing',
      varianceAmount: { value: '-5.00', currency: 'USD' },
      requiresElimination: true,
    });
    // same status again: updates the sent variance fields, keeps varianceAmount when omitted
    const again = await setStatus(tx.id, {
      matchingStatus: 'VarianceApproved',
      varianceExplanation: 'approved by CFO',
    });
    expect(again.body).toMatchObject({
      varianceExplanation: 'approved by CFO',
      varianceAmount: { value: '-5.00', currency: 'USD' },
    });
    const partial = await setStatus(tx.id, {
      matchingStatus: 'PartiallyMatched',
      varianceExplanation: 'x',
      varianceAmount: null,
    });
    expect(partial.body).toMatchObject({
      matchingStatus: 'PartiallyMatched',
      varianceAmount: null,
      requiresElimination: false,
    });
    const matched = await setStatus(tx.id, {
      matchingStatus: 'Matched',
      varianceExplanation: 'ignored',
      varianceAmount: { value: '1.00', currency: 'USD' },
    });
    expect(matched.body).toMatchObject({
      matchingStatus: 'Matched',
      varianceAmount: null,
      varianceExplanation: null,
      requiresElimination: true,
    });
    const back = await setStatus(tx.id, { matchingStatus: 'Unmatched' });
    expect(back.body).toMatchObject({ matchingStatus: 'Unmatched', requiresElimination: false });
    const toPartial = await setStatus(tx.id, {
      matchingStatus: 'PartiallyMatched',
      varianceExplanation: 'y',
    });
    expect(toPartial.body.matchingStatus).toBe('PartiallyMatched');
    const toUnmatched = await setStatus(tx.id, { matchingStatus: 'Unmatched' });
    expect(toUnmatched.body).toMatchObject({ varianceExplanation: null });

    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: orgA, entityId: tx.id, action: 'SetMatchingStatus', limit: 100 },
    });
    expect(audit.body.total).toBe(7); // every call above changed something
    const last = audit.body.entries.find(
      (x: any) =>
        x.changes.matchingStatus?.to === 'VarianceApproved' && x.changes.matchingStatus?.from === 'Unmatched',
    );
    expect(last.userId).toBe(member.id);
    expect(last.changes.requiresElimination).toEqual({ from: false, to: true });
  });

  it('requires a non-empty explanation for PartiallyMatched and VarianceApproved (syntax check)', async () => {
    const tx = await created();
    for (const body of [
      { matchingStatus: 'PartiallyMatched' },
      { matchingStatus: 'VarianceApproved', varianceExplanation: null },
      { matchingStatus: 'VarianceApproved', varianceExplanation: '   ' },
    ]) {
      const res = await setStatus(tx.id, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ _tag: 'ValidationError', issues: [{ path: '/varianceExplanation' }] });
    }
    // before the resource and organization checks
    const missing = await setStatus(MISSING, { matchingStatus: 'PartiallyMatched' }, outsider.token);
    expect(missing.status).toBe(400);
    const bad = await setStatus(tx.id, { matchingStatus: 'Done' });
    expect(bad.body.issues[0].path).toBe('/matchingStatus');
    const long = await setStatus(tx.id, {
      matchingStatus: 'PartiallyMatched',
      varianceExplanation: 'x'.repeat(2001),
    });
    expect(long.body.issues[0].path).toBe('/varianceExplanation');
  });

  it('refuses a variance in another currency (400) and eliminated transactions (409)', async () => {
    const tx = await created();
    const wrong = await setStatus(tx.id, {
      matchingStatus: 'PartiallyMatched',
      varianceExplanation: 'x',
      varianceAmount: { value: '1.00', currency: 'EUR' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ _tag: 'ValidationError', issues: [{ path: '/varianceAmount' }] });
    await setStatus(tx.id, { matchingStatus: 'Matched' });
    await eliminate(tx.id);
    for (const matchingStatus of ['Unmatched', 'Matched']) {
      const res = await setStatus(tx.id, { matchingStatus });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        _tag: 'IntercompanyTransactionNotEditableError',
        message: expect.any(String),
        transactionId: tx.id,
        matchingStatus: 'Matched',
        isEliminated: true,
        fields: ['matchingStatus'],
      });
    }
  });

  it('checks existence and role', async () => {
    const tx = await created();
    expect((await setStatus(MISSING, { matchingStatus: 'Matched' })).status).toBe(404);
    expect((await setStatus('abc', { matchingStatus: 'Matched' })).body).toMatchObject({
      _tag: 'IntercompanyTransactionNotFoundError',
      transactionId: 'abc',
    });
    const asViewer = await setStatus(tx.id, { matchingStatus: 'Matched' }, viewer.token);
    expect(asViewer.status).toBe(403);
    expect((await setStatus(tx.id, { matchingStatus: 'Matched' }, admin.token)).status).toBe(200);
  });
});

describe('link endpoints', () => {
  it('links, replaces and removes each side, with audit entries', async () => {
    const tx = await created();
    const fromEntry = await sellerEntry(owner, orgA, p, s, '10.00');
    const toEntry = await buyerEntry(owner, orgA, s, p, '10.00');
    const from = await t.post(`${BASE}/${tx.id}/link-from-journal-entry`, {
      token: member.token,
      body: { journalEntryId: fromEntry },
    });
    expect(from.status).toBe(200);
    expect(from.body).toMatchObject({ fromJournalEntryId: fromEntry, toJournalEntryId: null });
    const to = await t.post(`${BASE}/${tx.id}/link-to-journal-entry`, {
      token: member.token,
      query: { organizationId: orgA },
      body: { journalEntryId: toEntry },
    });
    expect(to.body).toMatchObject({ fromJournalEntryId: fromEntry, toJournalEntryId: toEntry });
    const removed = await t.post(`${BASE}/${tx.id}/link-from-journal-entry`, {
      token: member.token,
      body: { journalEntryId: null },
    });
    expect(removed.body).toMatchObject({ fromJournalEntryId: null, toJournalEntryId: toEntry });
    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: orgA, entityId: tx.id, action: 'LinkJournalEntry' },
    });
    expect(audit.body.entries.map((x: any) => x.changes)).toEqual(
      expect.arrayContaining([
        { fromJournalEntryId: { from: null, to: fromEntry } },
        { toJournalEntryId: { from: null, to: toEntry } },
        { fromJournalEntryId: { from: fromEntry, to: null } },
      ]),
    );
    // links are allowed in any status, also Matched
    await setStatus(tx.id, { matchingStatus: 'Matched' });
    const relink = await t.post(`${BASE}/${tx.id}/link-from-journal-entry`, {
      token: member.token,
      body: { journalEntryId: fromEntry },
    });
    expect(relink.status).toBe(200);
  });

  it('refuses entries of another company (400), missing or foreign entries (404), eliminated (409)', async () => {
    const tx = await created();
    const fromEntry = await sellerEntry(owner, orgA, p, s, '10.00');
    const mismatch = await t.post(`${BASE}/${tx.id}/link-to-journal-entry`, {
      token: member.token,
      body: { journalEntryId: fromEntry },
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body).toEqual({
      _tag: 'IntercompanyJournalEntryMismatchError',
      message: expect.any(String),
      journalEntryId: fromEntry,
      expectedCompanyId: s.id,
      actualCompanyId: p.id,
    });
    const missing = await t.post(`${BASE}/${tx.id}/link-from-journal-entry`, {
      token: member.token,
      body: { journalEntryId: MISSING },
    });
    expect(missing.body).toMatchObject({ _tag: 'JournalEntryNotFoundError', entryId: MISSING });
    const otherOrgEntry = await entry(owner, orgA2, a2, [
      { account: 'receivable', debit: '1.00' },
      { account: 'revenue', credit: '1.00' },
    ]);
    const otherOrg = await t.post(`${BASE}/${tx.id}/link-from-journal-entry`, {
      token: member.token,
      body: { journalEntryId: otherOrgEntry },
    });
    expect(otherOrg.status).toBe(404);
    const invalid = await t.post(`${BASE}/${tx.id}/link-from-journal-entry`, {
      token: member.token,
      body: {},
    });
    expect(invalid.body).toMatchObject({ _tag: 'ValidationError', issues: [{ path: '/journalEntryId' }] });
    const asViewer = await t.post(`${BASE}/${tx.id}/link-from-journal-entry`, {
      token: viewer.token,
      body: { journalEntryId: fromEntry },
    });
    expect(asViewer.status).toBe(403);

    await eliminate(tx.id);
    for (const side of ['from', 'to']) {
      const res = await t.post(`${BASE}/${tx.id}/link-${side}-journal-entry`, {
        token: member.token,
        body: { journalEntryId: null },
      });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({
        _tag: 'IntercompanyTransactionNotEditableError',
        isEliminated: true,
        fields: [`${side}JournalEntryId`],
      });
    }
    const gone = await t.post(`${BASE}/${MISSING}/link-from-journal-entry`, {
      token: member.token,
      body: { journalEntryId: null },
    });
    expect(gone.body._tag).toBe('IntercompanyTransactionNotFoundError');
  });

  it('deleting a linked draft entry nulls the link (journal module)', async () => {
    const fromEntry = await sellerEntry(owner, orgA, p, s, '10.00');
    const tx = await created({ fromJournalEntryId: fromEntry });
    const del = await t.del(`/api/v1/journal-entries/${fromEntry}`, { token: owner.token });
    expect(del.status).toBe(204);
    const res = await t.get(`${BASE}/${tx.id}`, { token: owner.token });
    expect(res.body.fromJournalEntryId).toBeNull();
  });
});

describe('reconciliation (read-only addition)', () => {
  it('is null per side until linked; a perfect match gives difference 0.00', async () => {
    const fromEntry = await sellerEntry(owner, orgA, p, s, '250.00');
    const toEntry = await buyerEntry(owner, orgA, s, p, '250.00');
    const one = await created({
      amount: { value: '250.00', currency: 'USD' },
      fromJournalEntryId: fromEntry,
    });
    expect(one.reconciliation).toEqual({
      fromAmount: { value: '250.00', currency: 'USD' },
      toAmount: null,
      difference: null,
    });
    const both = await t.post(`${BASE}/${one.id}/link-to-journal-entry`, {
      token: member.token,
      body: { journalEntryId: toEntry },
    });
    expect(both.body.reconciliation).toEqual({
      fromAmount: { value: '250.00', currency: 'USD' },
      toAmount: { value: '250.00', currency: 'USD' },
      difference: { value: '0.00', currency: 'USD' },
    });
  });

  it('reports the difference (fromAmount − toAmount) and counts only lines naming the other company', async () => {
    const third = await company(owner, orgA);
    const fromEntry = await entry(owner, orgA, p, [
      { account: 'receivable', debit: '300.00', partner: s.id },
      { account: 'receivable', debit: '40.00', partner: third.id }, // another partner: ignored
      { account: 'cash', debit: '60.00' },
      { account: 'revenue', credit: '400.00' },
    ]);
    const toEntry = await buyerEntry(owner, orgA, s, p, '280.00');
    const tx = await created({
      amount: { value: '300.00', currency: 'USD' },
      fromJournalEntryId: fromEntry,
      toJournalEntryId: toEntry,
    });
    // from: receivable Dr 300 → 300; to: payable Cr 280 → 280; difference 300 − 280 = 20
    expect(tx.reconciliation).toEqual({
      fromAmount: { value: '300.00', currency: 'USD' },
      toAmount: { value: '280.00', currency: 'USD' },
      difference: { value: '20.00', currency: 'USD' },
    });
  });

  it('does not double count when both the balance and the result line name the partner', async () => {
    const fromEntry = await sellerEntry(owner, orgA, p, s, '75.00', true);
    const toEntry = await buyerEntry(owner, orgA, s, p, '80.00', true);
    const tx = await created({ fromJournalEntryId: fromEntry, toJournalEntryId: toEntry });
    // balance lines win: from Dr receivable 75 → 75; to Cr payable 80 → 80; 75 − 80 = −5
    expect(tx.reconciliation).toEqual({
      fromAmount: { value: '75.00', currency: 'USD' },
      toAmount: { value: '80.00', currency: 'USD' },
      difference: { value: '-5.00', currency: 'USD' },
    });
    // only result lines tagged: seller revenue Cr 75 → 75, buyer expense Dr 75 → 75
    const plFrom = await entry(owner, orgA, p, [
      { account: 'receivable', debit: '75.00' },
      { account: 'revenue', credit: '75.00', partner: s.id },
    ]);
    const plTo = await entry(owner, orgA, s, [
      { account: 'expense', debit: '75.00', partner: p.id },
      { account: 'payable', credit: '75.00' },
    ]);
    const pl = await created({ fromJournalEntryId: plFrom, toJournalEntryId: plTo });
    expect(pl.reconciliation.difference).toEqual({ value: '0.00', currency: 'USD' });
    expect(pl.reconciliation.fromAmount).toEqual({ value: '75.00', currency: 'USD' });
    // a linked entry with no partner-tagged line contributes 0
    const untagged = await entry(owner, orgA, s, [
      { account: 'expense', debit: '5.00' },
      { account: 'payable', credit: '5.00' },
    ]);
    const zero = await created({ fromJournalEntryId: plFrom, toJournalEntryId: untagged });
    expect(zero.reconciliation).toEqual({
      fromAmount: { value: '75.00', currency: 'USD' },
      toAmount: { value: '0.00', currency: 'USD' },
      difference: { value: '75.00', currency: 'USD' },
    });
  });

  it('converts a functional currency at the Spot rate on or before the transaction date; null when missing', async () => {
    const fromEntry = await sellerEntry(owner, orgA, e, s, '100.00'); // EUR company
    const toEntry = await buyerEntry(owner, orgA, s, e, '110.00'); // USD company
    const tx = await created({
      fromCompanyId: e.id,
      transactionDate: '2026-03-15',
      amount: { value: '110.00', currency: 'USD' },
      fromJournalEntryId: fromEntry,
      toJournalEntryId: toEntry,
    });
    expect(tx.reconciliation).toEqual({
      fromAmount: null,
      toAmount: { value: '110.00', currency: 'USD' },
      difference: null,
    });
    const rate = (effectiveDate: string, value: string, rateType = 'Spot') =>
      t.post('/api/v1/exchange-rates', {
        token: member.token,
        body: {
          organizationId: orgA,
          fromCurrency: 'EUR',
          toCurrency: 'USD',
          rate: value,
          effectiveDate,
          rateType,
          source: 'Manual',
        },
      });
    expect((await rate('2026-03-01', '1.1')).status).toBe(201);
    expect((await rate('2026-03-16', '2')).status).toBe(201); // after the date: not used
    expect((await rate('2026-03-10', '3', 'Average')).status).toBe(201); // not Spot: not used
    const res = await t.get(`${BASE}/${tx.id}`, { token: viewer.token });
    // 100.00 EUR × 1.1 = 110.00 USD; 110.00 − 110.00 = 0.00
    expect(res.body.reconciliation).toEqual({
      fromAmount: { value: '110.00', currency: 'USD' },
      toAmount: { value: '110.00', currency: 'USD' },
      difference: { value: '0.00', currency: 'USD' },
    });
    // in the EUR currency of a transaction, the USD side is converted by the inverse rate 1/1.1
    const eur = await created({
      fromCompanyId: e.id,
      amount: { value: '100.00', currency: 'EUR' },
      fromJournalEntryId: fromEntry,
      toJournalEntryId: toEntry,
    });
    // 110.00 USD × 0.9090909091 = 100.000000001 → 100.00 EUR
    expect(eur.reconciliation).toEqual({
      fromAmount: { value: '100.00', currency: 'EUR' },
      toAmount: { value: '100.00', currency: 'EUR' },
      difference: { value: '0.00', currency: 'EUR' },
    });
    // lists carry the same reconciliation as get
    const list = await t.get(BASE, {
      token: viewer.token,
      query: { organizationId: orgA, companyId: e.id, limit: 100 },
    });
    const listed = list.body.transactions.find((x: any) => x.id === tx.id);
    expect(listed.reconciliation).toEqual(res.body.reconciliation);
  });
});

describe('consolidation-run helpers', () => {
  it('loads Matched/VarianceApproved transactions between given companies in a window and marks them eliminated', async () => {
    const org = (await t.org(owner)).id;
    const c1 = await company(owner, org);
    const c2 = await company(owner, org);
    const c3 = await company(owner, org);
    const mk = async (from: Co, to: Co, date: string, status: string) => {
      const res = await t.post(BASE, {
        token: owner.token,
        body: {
          organizationId: org,
          fromCompanyId: from.id,
          toCompanyId: to.id,
          transactionType: 'Sale',
          transactionDate: date,
          amount: { value: '1.00', currency: 'USD' },
        },
      });
      if (status !== 'Unmatched')
        await setStatus(res.body.id, { matchingStatus: status, varianceExplanation: 'v' });
      return res.body.id as string;
    };
    const inWindow = await mk(c1, c2, '2026-02-01', 'Matched');
    const approved = await mk(c2, c1, '2026-02-28', 'VarianceApproved');
    await mk(c1, c2, '2026-02-02', 'Unmatched');
    await mk(c1, c3, '2026-02-03', 'Matched'); // c3 not consolidated
    await mk(c1, c2, '2026-03-01', 'Matched'); // outside the window
    const rows = await loadTransactionsForRun(t.database.db, {
      organizationId: org,
      companyIds: [c1.id, c2.id],
      startDate: '2026-02-01',
      endDate: '2026-02-28',
    });
    expect(rows.map((r) => r.id)).toEqual([inWindow, approved]);
    const unmatched = await loadTransactionsForRun(t.database.db, {
      organizationId: org,
      companyIds: [c1.id, c2.id],
      startDate: '2026-02-01',
      endDate: '2026-02-28',
      statuses: ['Unmatched', 'PartiallyMatched'],
    });
    expect(unmatched).toHaveLength(1);
    const runId = uuidv4();
    expect(await markTransactionsEliminated(t.database.db, orgA, [inWindow], runId)).toBe(0); // other org
    expect(await markTransactionsEliminated(t.database.db, org, [inWindow, approved], runId)).toBe(2);
    const res = await t.get(`${BASE}/${inWindow}`, { token: owner.token });
    expect(res.body).toMatchObject({
      isEliminated: true,
      eliminatedByRunId: runId,
      requiresElimination: true,
    });
  });
});
