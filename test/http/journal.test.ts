import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { companies, intercompanyTransactions } from '../../src/db/schema/index.ts';
import { todayIn } from '../../src/domain/dates.ts';
import { createTestContext, type TestContext, type TestUser } from '../helpers/app.ts';
import {
  balanceMismatches,
  type Company,
  createAccount,
  createCompany,
  insertRate,
  setPeriodStatus,
  trialBalanceNets,
} from '../helpers/ledger.ts';

let t: TestContext;
let owner: TestUser;
let admin: TestUser;
let admin2: TestUser;
let member: TestUser;
let viewer: TestUser;
let outsider: TestUser;
let org: { id: string };
let otherOrg: { id: string };
let co: Company;
let foreignCo: Company;

const JE = '/api/v1/journal-entries';
const usd = (value: string) => ({ value, currency: 'USD' });
const eur = (value: string) => ({ value, currency: 'EUR' });

beforeAll(async () => {
  t = await createTestContext();
  [owner, admin, admin2, member, viewer, outsider] = await Promise.all([
    t.user('owner'),
    t.user('admin'),
    t.user('admin2'),
    t.user('member'),
    t.user('viewer'),
    t.user('outsider'),
  ]);
  org = await t.org(owner);
  await t.addMember(owner, org.id, admin, 'admin');
  await t.addMember(owner, org.id, admin2, 'admin');
  await t.addMember(owner, org.id, member, 'member');
  await t.addMember(owner, org.id, viewer, 'viewer');
  otherOrg = await t.org(outsider);
  co = await createCompany(t, org.id);
  foreignCo = await createCompany(t, otherOrg.id);
}, 60_000);

afterAll(async () => {
  await t.close();
});

function simpleBody(c: Company, overrides: Record<string, unknown> = {}, amount = '100.00') {
  return {
    organizationId: c.organizationId,
    companyId: c.id,
    description: 'Cash sale',
    transactionDate: '2026-03-15',
    lines: [
      { accountId: c.accounts.cash, debitAmount: { value: amount, currency: c.functionalCurrency } },
      { accountId: c.accounts.revenue, creditAmount: { value: amount, currency: c.functionalCurrency } },
    ],
    ...overrides,
  };
}

async function create(user: TestUser, body: unknown) {
  return t.post(JE, { token: user.token, body });
}

async function createOk(c: Company = co, overrides: Record<string, unknown> = {}, amount = '100.00') {
  const res = await create(member, simpleBody(c, overrides, amount));
  if (res.status !== 201) throw new Error(`create failed ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function approveAndPost(id: string, poster: TestUser = admin) {
  expect((await t.post(`${JE}/${id}/submit`, { token: member.token })).status).toBe(200);
  expect((await t.post(`${JE}/${id}/approve`, { token: admin2.token })).status).toBe(200);
  const res = await t.post(`${JE}/${id}/post`, { token: poster.token, body: {} });
  expect(res.status).toBe(200);
  return res.body;
}

async function setSettings(settings: Record<string, unknown>, orgId = org.id, user = owner) {
  const res = await t.put(`/api/v1/organizations/${orgId}`, { token: user.token, body: { settings } });
  expect(res.status).toBe(200);
}

describe('create (3.7.3, 3.7.4)', () => {
  it('creates a Draft with the next entry number, computed period and full record', async () => {
    const c = await createCompany(t, org.id);
    const res = await create(member, {
      ...simpleBody(c),
      description: '  Cash sale  ',
      referenceNumber: '   ',
      documentDate: '2026-03-10',
      lines: [
        {
          accountId: c.accounts.cash,
          debitAmount: usd('100.5'),
          memo: 'memo',
          dimensions: { dept: 'sales', 'region.1': 'EU' },
        },
        { accountId: c.accounts.revenue, creditAmount: usd('100.50'), exchangeRate: '1.0' },
      ],
    });
    expect(res.status).toBe(201);
    const e = res.body;
    expect(e).toMatchObject({
      organizationId: org.id,
      companyId: c.id,
      entryNumber: 'JE-0001',
      referenceNumber: null,
      description: 'Cash sale',
      transactionDate: '2026-03-15',
      documentDate: '2026-03-10',
      postingDate: null,
      fiscalPeriod: { year: 2026, period: 3 },
      entryType: 'Standard',
      sourceModule: 'GeneralLedger',
      sourceDocumentRef: null,
      isMultiCurrency: false,
      status: 'Draft',
      isReversing: false,
      reversedEntryId: null,
      reversingEntryId: null,
      totalDebits: usd('100.50'),
      totalCredits: usd('100.50'),
      createdBy: member.id,
      submittedBy: null,
      approvedBy: null,
      rejectedBy: null,
      rejectionReason: null,
      postedBy: null,
      postedAt: null,
      reversedBy: null,
      reversedAt: null,
    });
    expect(e.lines).toHaveLength(2);
    expect(e.lines[0]).toMatchObject({
      journalEntryId: e.id,
      lineNumber: 1,
      accountId: c.accounts.cash,
      debitAmount: usd('100.50'),
      creditAmount: null,
      functionalCurrencyDebitAmount: usd('100.50'),
      functionalCurrencyCreditAmount: null,
      exchangeRate: '1',
      exchangeRateId: null,
      exchangeRateLegIds: [],
      memo: 'memo',
      dimensions: { dept: 'sales', 'region.1': 'EU' },
      intercompanyPartnerId: null,
    });
    expect(e.lines[1]).toMatchObject({
      lineNumber: 2,
      creditAmount: usd('100.50'),
      memo: null,
      dimensions: null,
    });

    const second = await createOk(c);
    expect(second.entryNumber).toBe('JE-0002');
    const got = await t.get(`${JE}/${e.id}`, { token: viewer.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(e);
    // The fiscal year was created automatically with 13 periods.
    const years = await queryRows<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from fiscal_periods where company_id = ${c.id} and fiscal_year = 2026`,
    );
    expect(years[0]!.n).toBe(13);
  });

  it('refuses malformed lines with the syntax checks', async () => {
    const base = simpleBody(co);
    const cases: [unknown, string][] = [
      [
        [{ accountId: co.accounts.cash, debitAmount: usd('1'), creditAmount: usd('1') }, base.lines[1]],
        '/lines/0',
      ],
      [[{ accountId: co.accounts.cash }, base.lines[1]], '/lines/0'],
      [[{ accountId: co.accounts.cash, debitAmount: usd('0') }, base.lines[1]], '/lines/0/debitAmount/value'],
      [
        [{ accountId: co.accounts.cash, debitAmount: usd('-5') }, base.lines[1]],
        '/lines/0/debitAmount/value',
      ],
      [
        [{ accountId: co.accounts.cash, debitAmount: usd('1.001') }, base.lines[1]],
        '/lines/0/debitAmount/value',
      ],
      [
        [{ accountId: co.accounts.cash, debitAmount: { value: 1, currency: 'USD' } }, base.lines[1]],
        '/lines/0/debitAmount/value',
      ],
      [[base.lines[0]], '/lines'],
      [[{ accountId: 'nope', debitAmount: usd('1') }, base.lines[1]], '/lines/0/accountId'],
      [
        [{ accountId: co.accounts.cash, debitAmount: usd('1'), exchangeRate: '0' }, base.lines[1]],
        '/lines/0/exchangeRate',
      ],
      [
        [
          { accountId: co.accounts.cash, debitAmount: usd('1'), dimensions: { 'bad key': 'x' } },
          base.lines[1],
        ],
        '/lines/0/dimensions',
      ],
    ];
    for (const [lines, path] of cases) {
      const res = await create(member, { ...base, lines });
      expect(res.status, JSON.stringify(lines)).toBe(400);
      expect(res.body._tag).toBe('ValidationError');
      expect(res.body.issues.map((i: { path: string }) => i.path).join(' ')).toContain(path);
    }
    const reserved = await create(member, { ...base, sourceDocumentRef: 'year-end-close:abc' });
    expect(reserved.status).toBe(400);
    expect(reserved.body.issues[0].path).toBe('/sourceDocumentRef');
    const noDesc = await create(member, { ...base, description: '  ' });
    expect(noDesc.body.issues[0].path).toBe('/description');
    const badType = await create(member, { ...base, entryType: 'Other' });
    expect(badType.body.issues[0].path).toBe('/entryType');
    // A syntax error beats organization checks (step 5 before step 7).
    const missingOrg = await create(outsider, { ...base, lines: [base.lines[0]] });
    expect(missingOrg.status).toBe(400);
  });

  it('accepts every entry type and source module', async () => {
    const e = await createOk(co, {
      entryType: 'Closing',
      sourceModule: 'Payroll',
      sourceDocumentRef: 'doc-1',
    });
    expect(e).toMatchObject({ entryType: 'Closing', sourceModule: 'Payroll', sourceDocumentRef: 'doc-1' });
  });

  it('R1: company of the organization and active', async () => {
    const other = await create(member, { ...simpleBody(co), companyId: foreignCo.id });
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ _tag: 'CompanyNotFoundError', companyId: foreignCo.id });
    const inactive = await createCompany(t, org.id, { isActive: false });
    const res = await create(member, simpleBody(inactive));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ _tag: 'CompanyInactiveError', companyId: inactive.id });
  });

  it('R2: each line account is an active, postable account of the company, in line order', async () => {
    const other = await createCompany(t, org.id);
    const missing = uuidv7();
    const cases: [string, string][] = [
      [missing, 'NotFound'],
      [foreignCo.accounts.cash, 'NotFound'],
      [other.accounts.cash, 'DifferentCompany'],
      [co.accounts.inactive, 'Inactive'],
      [co.accounts.summary, 'NotPostable'],
    ];
    for (const [accountId, reason] of cases) {
      const body = simpleBody(co);
      body.lines[1] = { accountId, creditAmount: usd('100.00') };
      const res = await create(member, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        _tag: 'InvalidJournalLineAccountError',
        lineNumber: 2,
        accountId,
        reason,
      });
    }
    const both = simpleBody(co);
    both.lines = [
      { accountId: co.accounts.summary, debitAmount: usd('1') },
      { accountId: missing, creditAmount: usd('1') },
    ] as never;
    expect((await create(member, both)).body).toMatchObject({ lineNumber: 1, reason: 'NotPostable' });
  });

  it('R3: intercompany partners', async () => {
    const partner = await createCompany(t, org.id);
    const third = await createCompany(t, org.id);
    const icAccount = await createAccount(t, co, {
      accountNumber: '1500',
      isIntercompany: true,
      intercompanyPartnerId: partner.id,
    });
    const body = (partnerId: string | null | undefined, accountId = icAccount) => ({
      ...simpleBody(co),
      lines: [
        {
          accountId,
          debitAmount: usd('10'),
          ...(partnerId !== undefined ? { intercompanyPartnerId: partnerId } : {}),
        },
        { accountId: co.accounts.revenue, creditAmount: usd('10') },
      ],
    });
    const defaulted = await create(member, body(undefined));
    expect(defaulted.status).toBe(201);
    expect(defaulted.body.lines[0].intercompanyPartnerId).toBe(partner.id);
    expect((await create(member, body(partner.id))).status).toBe(201);
    for (const bad of [third.id, co.id, foreignCo.id, uuidv7()]) {
      const res = await create(member, body(bad));
      expect(res.status).toBe(400);
      expect(res.body.issues[0].path).toBe('/lines/0/intercompanyPartnerId');
    }
    // A plain account takes any other company of the organization as partner, never its own.
    const plain = await create(member, body(third.id, co.accounts.cash));
    expect(plain.body.lines[0].intercompanyPartnerId).toBe(third.id);
    expect((await create(member, body(co.id, co.accounts.cash))).status).toBe(400);
  });

  it('R4: fiscal period derivation, explicit period 13, mismatch, range and closed periods', async () => {
    const june = await createCompany(t, org.id, { fiscalYearEnd: { month: 6, day: 30 } });
    const e = await createOk(june, { transactionDate: '2025-07-15' });
    expect(e.fiscalPeriod).toEqual({ year: 2026, period: 1 });
    const adj = await createOk(june, {
      transactionDate: '2025-07-15',
      fiscalPeriod: { year: 2026, period: 13 },
    });
    expect(adj.fiscalPeriod).toEqual({ year: 2026, period: 13 });
    const mismatch = await create(member, {
      ...simpleBody(june),
      transactionDate: '2025-07-15',
      fiscalPeriod: { year: 2026, period: 2 },
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body).toMatchObject({
      _tag: 'FiscalPeriodMismatchError',
      transactionDate: '2025-07-15',
      fiscalPeriod: { year: 2026, period: 2 },
      expectedFiscalPeriod: { year: 2026, period: 1 },
    });
    const outOfRange = await create(member, { ...simpleBody(june), transactionDate: '2999-07-01' });
    expect(outOfRange.status).toBe(400);
    expect(outOfRange.body.issues[0].path).toBe('/transactionDate');

    await setPeriodStatus(t, june, 2026, 2, 'Closed');
    const closed = await create(member, { ...simpleBody(june), transactionDate: '2025-08-03' });
    expect(closed.status).toBe(400);
    expect(closed.body).toMatchObject({
      _tag: 'FiscalPeriodClosedError',
      companyId: june.id,
      fiscalYear: 2026,
      periodNumber: 2,
      periodStatus: 'Closed',
    });
  });

  it('R5: conversion with given, direct, inverse and triangulated rates on or before the date', async () => {
    const o = await t.org(owner, { reportingCurrency: 'USD' });
    await t.addMember(owner, o.id, member, 'member');
    const c = await createCompany(t, o.id, { functionalCurrency: 'GBP' });
    const body = (currency: string, rate?: string) => ({
      organizationId: o.id,
      companyId: c.id,
      description: 'fx',
      transactionDate: '2026-02-10',
      lines: [
        {
          accountId: c.accounts.cash,
          debitAmount: { value: '100.00', currency },
          ...(rate ? { exchangeRate: rate } : {}),
        },
        { accountId: c.accounts.revenue, creditAmount: { value: '100.00', currency } },
      ],
    });
    const sameCurrencyRate = await create(member, body('GBP', '2'));
    expect(sameCurrencyRate.status).toBe(400);
    expect(sameCurrencyRate.body.issues[0].path).toBe('/lines/0/exchangeRate');

    const missing = await create(member, body('EUR'));
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      _tag: 'ExchangeRateNotFoundError',
      fromCurrency: 'EUR',
      toCurrency: 'GBP',
      date: '2026-02-10',
      rateType: 'Spot',
    });

    // Direct EUR→GBP 0.85 (on or before the date; a later one and a non-Spot one are ignored).
    const direct = await insertRate(t, o.id, owner.id, {
      from: 'EUR',
      to: 'GBP',
      rate: '0.85',
      date: '2026-02-01',
    });
    await insertRate(t, o.id, owner.id, { from: 'EUR', to: 'GBP', rate: '0.99', date: '2026-02-11' });
    await insertRate(t, o.id, owner.id, {
      from: 'EUR',
      to: 'GBP',
      rate: '0.70',
      date: '2026-02-05',
      type: 'Average',
    });
    const d = await create(member, body('EUR'));
    expect(d.status).toBe(201);
    expect(d.body.isMultiCurrency).toBe(false);
    expect(d.body.lines[0]).toMatchObject({
      debitAmount: eur('100.00'),
      functionalCurrencyDebitAmount: { value: '85.00', currency: 'GBP' },
      exchangeRate: '0.85',
      exchangeRateId: direct,
      exchangeRateLegIds: [direct],
    });
    expect(d.body.totalDebits).toEqual({ value: '85.00', currency: 'GBP' });

    // Inverse: GBP→JPY 200 stored, JPY line → 1/200 = 0.005.
    const inv = await insertRate(t, o.id, owner.id, {
      from: 'GBP',
      to: 'JPY',
      rate: '200',
      date: '2026-01-01',
    });
    const jpy = { value: '1000', currency: 'JPY' };
    const j = await create(member, {
      ...body('JPY'),
      lines: [
        { accountId: c.accounts.cash, debitAmount: jpy },
        { accountId: c.accounts.revenue, creditAmount: jpy },
      ],
    });
    expect(j.status).toBe(201);
    expect(j.body.lines[0]).toMatchObject({
      debitAmount: { value: '1000', currency: 'JPY' },
      functionalCurrencyDebitAmount: { value: '5.00', currency: 'GBP' },
      exchangeRate: '0.005',
      exchangeRateId: inv,
      exchangeRateLegIds: [inv],
    });

    // Triangulated through USD: CHF→USD 1.1 and USD→GBP 0.8 → 0.88.
    const leg1 = await insertRate(t, o.id, owner.id, {
      from: 'CHF',
      to: 'USD',
      rate: '1.1',
      date: '2026-01-15',
    });
    const leg2 = await insertRate(t, o.id, owner.id, {
      from: 'USD',
      to: 'GBP',
      rate: '0.8',
      date: '2026-01-20',
    });
    const tri = await create(member, body('CHF'));
    expect(tri.status).toBe(201);
    expect(tri.body.lines[1]).toMatchObject({
      functionalCurrencyCreditAmount: { value: '88.00', currency: 'GBP' },
      exchangeRate: '0.88',
      exchangeRateId: leg1,
      exchangeRateLegIds: [leg1, leg2],
    });

    // A given rate wins and records no stored rate.
    const given = await create(member, body('EUR', '0.9'));
    expect(given.status).toBe(400); // line 2 is looked up (0.85): 90.00 vs 85.00 does not balance
    expect(given.body).toMatchObject({ _tag: 'UnbalancedJournalEntryError', basis: 'functional' });
    const both = await create(member, {
      ...body('EUR', '0.9'),
      lines: body('EUR', '0.9').lines.map((l) => ({ ...l, exchangeRate: '0.9' })),
    });
    expect(both.status).toBe(201);
    expect(both.body.lines[0]).toMatchObject({
      exchangeRate: '0.9',
      exchangeRateId: null,
      exchangeRateLegIds: [],
    });
  });

  it('R6a: single-currency entries must balance exactly', async () => {
    const body = simpleBody(co);
    body.lines[1] = { accountId: co.accounts.revenue, creditAmount: usd('99.99') };
    const res = await create(member, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      _tag: 'UnbalancedJournalEntryError',
      message: expect.any(String),
      basis: 'transaction',
      totalDebits: usd('100.00'),
      totalCredits: usd('99.99'),
      difference: usd('0.01'),
    });
  });

  it('R6b: rounding differences up to one minor unit per foreign line are absorbed', async () => {
    // EUR 10.00 × 1.0833 = 10.833 → 10.83 (twice) = 21.66 against USD 21.67: diff −0.01, two
    // foreign lines (tolerance 0.02); the largest foreign line (tie: line 1, a debit) is reduced by
    // diff: 10.83 − (−0.01) = 10.84.
    const body = {
      ...simpleBody(co),
      lines: [
        { accountId: co.accounts.cash, debitAmount: eur('10.00'), exchangeRate: '1.0833' },
        { accountId: co.accounts.receivable, debitAmount: eur('10.00'), exchangeRate: '1.0833' },
        { accountId: co.accounts.revenue, creditAmount: usd('21.67') },
      ],
    };
    const res = await create(member, body);
    expect(res.status).toBe(201);
    expect(res.body.isMultiCurrency).toBe(true);
    expect(res.body.lines.map((l: any) => l.functionalCurrencyDebitAmount?.value ?? null)).toEqual([
      '10.84',
      '10.83',
      null,
    ]);
    expect(res.body.lines[0].exchangeRate).toBe('1.0833');
    expect(res.body.totalDebits).toEqual(usd('21.67'));
    expect(res.body.totalCredits).toEqual(usd('21.67'));

    // 0.03 apart is beyond the tolerance of two lines.
    body.lines[2] = { accountId: co.accounts.revenue, creditAmount: usd('21.69') };
    const bad = await create(member, body);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      basis: 'functional',
      totalDebits: usd('21.66'),
      totalCredits: usd('21.69'),
      difference: usd('-0.03'),
    });
  });
});

describe('update and delete (drafts only)', () => {
  it('updates fields with PUT semantics and replaces lines', async () => {
    const e = await createOk(co, { referenceNumber: 'R-1', entryType: 'Adjusting', sourceModule: 'Payroll' });
    const same = await t.put(`${JE}/${e.id}`, {
      token: member.token,
      body: { description: e.description, companyId: co.id, organizationId: org.id },
    });
    expect(same.status).toBe(200);
    expect(same.body.updatedAt).toBe(e.updatedAt);
    expect(same.body.lines.map((l: any) => l.id)).toEqual(e.lines.map((l: any) => l.id));

    const res = await t.put(`${JE}/${e.id}`, {
      token: member.token,
      body: {
        description: 'Changed',
        referenceNumber: null,
        entryType: null,
        sourceModule: null,
        transactionDate: '2026-05-02',
        lines: [
          { accountId: co.accounts.expense, debitAmount: usd('40') },
          { accountId: co.accounts.cash, creditAmount: usd('40') },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: e.id,
      entryNumber: e.entryNumber,
      description: 'Changed',
      referenceNumber: null,
      entryType: 'Standard',
      sourceModule: 'GeneralLedger',
      transactionDate: '2026-05-02',
      fiscalPeriod: { year: 2026, period: 5 },
      totalDebits: usd('40.00'),
    });
    expect(res.body.updatedAt).not.toBe(e.updatedAt);
    expect(res.body.lines[0]).toMatchObject({ lineNumber: 1, accountId: co.accounts.expense });

    // Explicit period 13, then a date change alone recomputes the regular period.
    const p13 = await t.put(`${JE}/${e.id}`, {
      token: member.token,
      body: { fiscalPeriod: { year: 2026, period: 13 } },
    });
    expect(p13.body.fiscalPeriod).toEqual({ year: 2026, period: 13 });
    const moved = await t.put(`${JE}/${e.id}`, {
      token: member.token,
      body: { transactionDate: '2026-06-30' },
    });
    expect(moved.body.fiscalPeriod).toEqual({ year: 2026, period: 6 });

    const nullDate = await t.put(`${JE}/${e.id}`, { token: member.token, body: { transactionDate: null } });
    expect(nullDate.status).toBe(400);
    const nullLines = await t.put(`${JE}/${e.id}`, { token: member.token, body: { lines: null } });
    expect(nullLines.status).toBe(400);
    const company = await t.put(`${JE}/${e.id}`, { token: member.token, body: { companyId: uuidv7() } });
    expect(company.status).toBe(400);
    expect(company.body.issues[0].path).toBe('/companyId');
    const unbalanced = await t.put(`${JE}/${e.id}`, {
      token: member.token,
      body: {
        lines: [
          { accountId: co.accounts.expense, debitAmount: usd('40') },
          { accountId: co.accounts.cash, creditAmount: usd('41') },
        ],
      },
    });
    expect(unbalanced.body._tag).toBe('UnbalancedJournalEntryError');
    const wrongOrg = await t.put(`${JE}/${e.id}`, {
      token: member.token,
      body: { organizationId: otherOrg.id },
    });
    expect(wrongOrg.status).toBe(403);
  });

  it('re-derives rates on a date change, keeping explicit ones', async () => {
    const o = await t.org(owner, { reportingCurrency: 'USD' });
    await t.addMember(owner, o.id, member, 'member');
    const c = await createCompany(t, o.id);
    await insertRate(t, o.id, owner.id, { from: 'EUR', to: 'USD', rate: '1.1', date: '2026-01-01' });
    const r2 = await insertRate(t, o.id, owner.id, {
      from: 'EUR',
      to: 'USD',
      rate: '1.2',
      date: '2026-03-01',
    });
    const res = await create(member, {
      organizationId: o.id,
      companyId: c.id,
      description: 'fx',
      transactionDate: '2026-02-01',
      lines: [
        { accountId: c.accounts.cash, debitAmount: eur('100') },
        { accountId: c.accounts.receivable, debitAmount: eur('100'), exchangeRate: '1.15' },
        { accountId: c.accounts.revenue, creditAmount: usd('225') },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.lines[0].exchangeRate).toBe('1.1');
    const moved = await t.put(`${JE}/${res.body.id}`, {
      token: member.token,
      body: { transactionDate: '2026-03-05', lines: undefined },
    });
    // 100 × 1.2 + 100 × 1.15 = 235 ≠ 225.
    expect(moved.body).toMatchObject({ _tag: 'UnbalancedJournalEntryError', basis: 'functional' });
    const fixed = await t.put(`${JE}/${res.body.id}`, {
      token: member.token,
      body: {
        transactionDate: '2026-03-05',
        lines: [
          { accountId: c.accounts.cash, debitAmount: eur('100') },
          { accountId: c.accounts.receivable, debitAmount: eur('100'), exchangeRate: '1.15' },
          { accountId: c.accounts.revenue, creditAmount: usd('235') },
        ],
      },
    });
    expect(fixed.status).toBe(200);
    expect(fixed.body.lines[0]).toMatchObject({ exchangeRate: '1.2', exchangeRateId: r2 });
    expect(fixed.body.lines[1]).toMatchObject({ exchangeRate: '1.15', exchangeRateId: null });
    // Only the date changes: the looked-up rate follows the date, the explicit one stays.
    const back = await t.put(`${JE}/${res.body.id}`, {
      token: member.token,
      body: { transactionDate: '2026-02-01', description: 'back' },
    });
    expect(back.body._tag).toBe('UnbalancedJournalEntryError'); // 110 + 115 ≠ 235
  });

  it('refuses updates into a closed period and on inactive companies', async () => {
    const c = await createCompany(t, org.id);
    const e = await createOk(c);
    await setPeriodStatus(t, c, 2026, 4, 'Closed');
    const res = await t.put(`${JE}/${e.id}`, {
      token: member.token,
      body: { transactionDate: '2026-04-01' },
    });
    expect(res.body).toMatchObject({ _tag: 'FiscalPeriodClosedError', periodNumber: 4 });
    await setPeriodStatus(t, c, 2026, 3, 'Closed');
    const stays = await t.put(`${JE}/${e.id}`, { token: member.token, body: { description: 'x' } });
    expect(stays.body).toMatchObject({ _tag: 'FiscalPeriodClosedError', periodNumber: 3 });
    // A draft in a closed period can still be moved out of it, or deleted.
    const out = await t.put(`${JE}/${e.id}`, {
      token: member.token,
      body: { transactionDate: '2026-05-01' },
    });
    expect(out.status).toBe(200);
    await t.database.db.execute(sql`update companies set is_active = false where id = ${c.id}`);
    const inactive = await t.put(`${JE}/${e.id}`, { token: member.token, body: { description: 'y' } });
    expect(inactive.body).toMatchObject({ _tag: 'CompanyInactiveError', companyId: c.id });
  });

  it('deletes drafts (intercompany links become null) and refuses other statuses', async () => {
    const partner = await createCompany(t, org.id);
    const e = await createOk();
    const icId = uuidv7();
    await t.database.db.insert(intercompanyTransactions).values({
      id: icId,
      organizationId: org.id,
      fromCompanyId: co.id,
      toCompanyId: partner.id,
      transactionType: 'Sale',
      transactionDate: '2026-03-15',
      amount: '100',
      currency: 'USD',
      fromJournalEntryId: e.id,
      toJournalEntryId: e.id,
    });
    const del = await t.del(`${JE}/${e.id}`, { token: member.token });
    expect(del.status).toBe(204);
    expect(del.body).toBe('');
    expect((await t.get(`${JE}/${e.id}`, { token: member.token })).status).toBe(404);
    const links = await queryRows<{ f: string | null; t: string | null }>(
      t.database.db,
      sql`select from_journal_entry_id as f, to_journal_entry_id as t from intercompany_transactions where id = ${icId}`,
    );
    expect(links[0]).toEqual({ f: null, t: null });
    expect((await t.del(`${JE}/${e.id}`, { token: member.token })).status).toBe(404);

    const pending = await createOk();
    await t.post(`${JE}/${pending.id}/submit`, { token: member.token });
    const refused = await t.del(`${JE}/${pending.id}`, {
      token: member.token,
      query: { organizationId: org.id },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      _tag: 'InvalidStatusTransitionError',
      entryId: pending.id,
      operation: 'delete',
      currentStatus: 'PendingApproval',
      allowedStatuses: ['Draft'],
    });
    const upd = await t.put(`${JE}/${pending.id}`, { token: member.token, body: { description: 'x' } });
    expect(upd.body).toMatchObject({ operation: 'update', allowedStatuses: ['Draft'] });
  });
});

describe('workflow (3.7.5)', () => {
  it('submit → reject → submit → approve → post, with invalid transitions refused', async () => {
    const e = await createOk();
    const approveDraft = await t.post(`${JE}/${e.id}/approve`, { token: admin.token });
    expect(approveDraft.status).toBe(400);
    expect(approveDraft.body).toMatchObject({
      _tag: 'InvalidStatusTransitionError',
      operation: 'approve',
      currentStatus: 'Draft',
      allowedStatuses: ['PendingApproval'],
    });
    const postDraft = await t.post(`${JE}/${e.id}/post`, { token: admin.token, body: {} });
    expect(postDraft.body).toMatchObject({ operation: 'post', allowedStatuses: ['Approved'] });
    const rejectDraft = await t.post(`${JE}/${e.id}/reject`, { token: admin.token });
    expect(rejectDraft.body).toMatchObject({ operation: 'reject', allowedStatuses: ['PendingApproval'] });

    const sub = await t.post(`${JE}/${e.id}/submit`, { token: member.token, body: 'ignored {' });
    expect(sub.status).toBe(200);
    expect(sub.body).toMatchObject({ status: 'PendingApproval', submittedBy: member.id });
    expect(sub.body.submittedAt).toMatch(/Z$/);
    const again = await t.post(`${JE}/${e.id}/submit`, { token: member.token });
    expect(again.body).toMatchObject({ operation: 'submit', allowedStatuses: ['Draft'] });

    const rej = await t.post(`${JE}/${e.id}/reject`, {
      token: admin.token,
      body: { reason: ' wrong account ' },
    });
    expect(rej.body).toMatchObject({
      status: 'Draft',
      rejectedBy: admin.id,
      rejectionReason: 'wrong account',
    });
    await t.post(`${JE}/${e.id}/submit`, { token: member.token });
    const appr = await t.post(`${JE}/${e.id}/approve`, {
      token: admin.token,
      query: { organizationId: org.id },
    });
    expect(appr.body).toMatchObject({
      status: 'Approved',
      approvedBy: admin.id,
      rejectionReason: 'wrong account',
    });

    const posted = await t.post(`${JE}/${e.id}/post`, {
      token: admin2.token,
      body: { organizationId: org.id },
    });
    expect(posted.status).toBe(200);
    expect(posted.body).toMatchObject({
      status: 'Posted',
      postedBy: admin2.id,
      approvedBy: admin.id,
      postingDate: todayIn('UTC'),
    });
    const repost = await t.post(`${JE}/${e.id}/post`, { token: admin.token, body: {} });
    expect(repost.body).toMatchObject({ operation: 'post', currentStatus: 'Posted' });
    // Posted entries never change.
    expect((await t.put(`${JE}/${e.id}`, { token: member.token, body: { description: 'x' } })).status).toBe(
      400,
    );
    expect((await t.del(`${JE}/${e.id}`, { token: member.token })).status).toBe(400);
    await expect(
      t.database.db.execute(sql`update journal_entries set description = 'hack' where id = ${e.id}`),
    ).rejects.toThrow();
    await expect(
      t.database.db.execute(sql`update journal_lines set memo = 'hack' where journal_entry_id = ${e.id}`),
    ).rejects.toThrow();
  });

  it('posts directly from Draft or PendingApproval when requireApproval is false', async () => {
    const o = await t.org(owner, {
      settings: { requireApproval: false, defaultTimezone: 'Pacific/Kiritimati' },
    });
    await t.addMember(owner, o.id, member, 'member');
    await t.addMember(owner, o.id, admin, 'admin');
    const c = await createCompany(t, o.id);
    const a = (await create(member, simpleBody(c))).body;
    const pa = await t.post(`${JE}/${a.id}/post`, { token: admin.token });
    expect(pa.status).toBe(200);
    expect(pa.body).toMatchObject({
      status: 'Posted',
      approvedBy: null,
      postingDate: todayIn('Pacific/Kiritimati'),
    });
    const b = (await create(member, simpleBody(c))).body;
    await t.post(`${JE}/${b.id}/submit`, { token: member.token });
    const pb = await t.post(`${JE}/${b.id}/post`, {
      token: admin.token,
      body: { postingDate: '2026-03-20', postedBy: null },
    });
    expect(pb.body).toMatchObject({ status: 'Posted', postingDate: '2026-03-20', postedBy: admin.id });
    const again = await t.post(`${JE}/${b.id}/post`, { token: admin.token });
    expect(again.body.allowedStatuses).toEqual(['Draft', 'PendingApproval', 'Approved']);
    // Switching approval back on (owner only) takes effect on the next post.
    await setSettings({ requireApproval: true }, o.id);
    const d = (await create(member, simpleBody(c))).body;
    const refused = await t.post(`${JE}/${d.id}/post`, { token: admin.token });
    expect(refused.body).toMatchObject({
      _tag: 'InvalidStatusTransitionError',
      allowedStatuses: ['Approved'],
    });
  });

  it('enforces segregation of duties', async () => {
    const o = await t.org(owner, { settings: { enforceSegregationOfDuties: true, requireApproval: false } });
    await t.addMember(owner, o.id, admin, 'admin');
    await t.addMember(owner, o.id, admin2, 'admin');
    const c = await createCompany(t, o.id);
    const byAdmin = (await create(admin, simpleBody(c))).body;
    await t.post(`${JE}/${byAdmin.id}/submit`, { token: admin.token });
    const own = await t.post(`${JE}/${byAdmin.id}/approve`, { token: admin.token });
    expect(own.status).toBe(403);
    expect(own.body).toEqual({
      _tag: 'SegregationOfDutiesViolationError',
      message: expect.any(String),
      entryId: byAdmin.id,
      userId: admin.id,
    });
    const direct = await t.post(`${JE}/${byAdmin.id}/post`, { token: admin.token });
    expect(direct.body).toMatchObject({ _tag: 'SegregationOfDutiesViolationError', userId: admin.id });
    const inName = await t.post(`${JE}/${byAdmin.id}/post`, {
      token: admin2.token,
      body: { postedBy: admin.id },
    });
    expect(inName.status).toBe(403);
    expect(inName.body).toMatchObject({ _tag: 'SegregationOfDutiesViolationError', userId: admin.id });
    expect((await t.post(`${JE}/${byAdmin.id}/approve`, { token: admin2.token })).status).toBe(200);
    // Posting an Approved entry is not restricted, even by its creator.
    const post = await t.post(`${JE}/${byAdmin.id}/post`, { token: admin.token });
    expect(post.status).toBe(200);
    // Reversal is not restricted either.
    expect(
      (
        await t.post(`${JE}/${byAdmin.id}/reverse`, {
          token: admin.token,
          body: { reversalDate: '2026-03-20' },
        })
      ).status,
    ).toBe(201);
  });

  it('checks postedBy: member of the organization with admin role', async () => {
    const e = await createOk();
    await t.post(`${JE}/${e.id}/submit`, { token: member.token });
    await t.post(`${JE}/${e.id}/approve`, { token: admin.token });
    const stranger = await t.post(`${JE}/${e.id}/post`, {
      token: admin.token,
      body: { postedBy: outsider.id },
    });
    expect(stranger.status).toBe(400);
    expect(stranger.body).toMatchObject({
      _tag: 'UserNotMemberOfOrganizationError',
      userId: outsider.id,
      organizationId: org.id,
    });
    const low = await t.post(`${JE}/${e.id}/post`, { token: admin.token, body: { postedBy: member.id } });
    expect(low.body).toEqual({
      _tag: 'UserRoleInsufficientError',
      message: expect.any(String),
      userId: member.id,
      organizationId: org.id,
      requiredRole: 'admin',
      currentRole: 'member',
    });
    const ok = await t.post(`${JE}/${e.id}/post`, {
      token: admin.token,
      body: { postedBy: owner.id.toUpperCase() },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.postedBy).toBe(owner.id);
  });

  it('post re-checks company, accounts and period', async () => {
    const c = await createCompany(t, org.id);
    const prep = async () => {
      const e = await createOk(c);
      await t.post(`${JE}/${e.id}/submit`, { token: member.token });
      await t.post(`${JE}/${e.id}/approve`, { token: admin.token });
      return e;
    };
    const e1 = await prep();
    await t.database.db.execute(sql`update accounts set is_active = false where id = ${c.accounts.revenue}`);
    const inactive = await t.post(`${JE}/${e1.id}/post`, { token: admin.token, body: {} });
    expect(inactive.body).toMatchObject({
      _tag: 'InvalidJournalLineAccountError',
      lineNumber: 2,
      accountId: c.accounts.revenue,
      reason: 'Inactive',
    });
    await t.database.db.execute(sql`update accounts set is_active = true where id = ${c.accounts.revenue}`);
    await setPeriodStatus(t, c, 2026, 3, 'Closed');
    const closed = await t.post(`${JE}/${e1.id}/post`, { token: admin.token, body: {} });
    expect(closed.body).toMatchObject({ _tag: 'FiscalPeriodClosedError', fiscalYear: 2026, periodNumber: 3 });
    await setPeriodStatus(t, c, 2026, 3, 'Open');
    await t.database.db.execute(sql`update companies set is_active = false where id = ${c.id}`);
    const company = await t.post(`${JE}/${e1.id}/post`, { token: admin.token, body: {} });
    expect(company.body).toMatchObject({ _tag: 'CompanyInactiveError', companyId: c.id });
    await t.database.db.execute(sql`update companies set is_active = true where id = ${c.id}`);
    expect((await t.post(`${JE}/${e1.id}/post`, { token: admin.token, body: {} })).status).toBe(200);
  });
});

describe('reversal (3.7.6)', () => {
  it('creates a posted reversal with swapped lines and marks the original', async () => {
    const c = await createCompany(t, org.id);
    const original = await create(member, {
      ...simpleBody(c),
      referenceNumber: 'INV-9',
      sourceDocumentRef: 'doc-9',
      sourceModule: 'AccountsReceivable',
      lines: [
        {
          accountId: c.accounts.receivable,
          debitAmount: eur('50.00'),
          exchangeRate: '1.2',
          memo: 'm',
          dimensions: { a: 'b' },
        },
        { accountId: c.accounts.revenue, creditAmount: usd('60.00') },
      ],
    });
    expect(original.status).toBe(201);
    const posted = await approveAndPost(original.body.id);
    const draftReverse = await t.post(`${JE}/${(await createOk(c)).id}/reverse`, {
      token: admin.token,
      body: { reversalDate: '2026-04-01' },
    });
    expect(draftReverse.body).toMatchObject({
      _tag: 'InvalidStatusTransitionError',
      operation: 'reverse',
      currentStatus: 'Draft',
      allowedStatuses: ['Posted'],
    });
    const early = await t.post(`${JE}/${posted.id}/reverse`, {
      token: admin.token,
      body: { reversalDate: '2026-03-14' },
    });
    expect(early.status).toBe(400);
    expect(early.body.issues[0].path).toBe('/reversalDate');
    const missingDate = await t.post(`${JE}/${posted.id}/reverse`, { token: admin.token, body: {} });
    expect(missingDate.body.issues[0].path).toBe('/reversalDate');
    await setPeriodStatus(t, c, 2026, 4, 'Closed');
    const closed = await t.post(`${JE}/${posted.id}/reverse`, {
      token: admin.token,
      body: { reversalDate: '2026-04-02' },
    });
    expect(closed.body).toMatchObject({ _tag: 'FiscalPeriodClosedError', periodNumber: 4 });
    const notMember = await t.post(`${JE}/${posted.id}/reverse`, {
      token: admin.token,
      body: { reversalDate: '2026-05-02', reversedBy: outsider.id },
    });
    expect(notMember.body._tag).toBe('UserNotMemberOfOrganizationError');
    const low = await t.post(`${JE}/${posted.id}/reverse`, {
      token: admin.token,
      body: { reversalDate: '2026-05-02', reversedBy: viewer.id },
    });
    expect(low.body).toMatchObject({ _tag: 'UserRoleInsufficientError', currentRole: 'viewer' });

    const rev = await t.post(`${JE}/${posted.id}/reverse`, {
      token: admin.token,
      body: { reversalDate: '2027-01-02', reversedBy: admin2.id, organizationId: org.id },
    });
    expect(rev.status).toBe(201);
    const r = rev.body;
    expect(r).toMatchObject({
      companyId: c.id,
      entryNumber: 'JE-0003',
      description: `Reversal of ${posted.entryNumber}`,
      transactionDate: '2027-01-02',
      postingDate: '2027-01-02',
      documentDate: null,
      fiscalPeriod: { year: 2027, period: 1 },
      entryType: 'Reversing',
      sourceModule: 'AccountsReceivable',
      referenceNumber: 'INV-9',
      sourceDocumentRef: 'doc-9',
      status: 'Posted',
      isReversing: true,
      isMultiCurrency: true,
      reversedEntryId: posted.id,
      reversingEntryId: null,
      createdBy: admin.id,
      postedBy: admin2.id,
      approvedBy: null,
      totalDebits: usd('60.00'),
    });
    expect(r.lines[0]).toMatchObject({
      lineNumber: 1,
      accountId: c.accounts.receivable,
      debitAmount: null,
      creditAmount: eur('50.00'),
      functionalCurrencyCreditAmount: usd('60.00'),
      functionalCurrencyDebitAmount: null,
      exchangeRate: '1.2',
      memo: 'm',
      dimensions: { a: 'b' },
    });
    expect(r.lines[1]).toMatchObject({
      debitAmount: usd('60.00'),
      functionalCurrencyDebitAmount: usd('60.00'),
    });
    const orig = (await t.get(`${JE}/${posted.id}`, { token: viewer.token })).body;
    expect(orig).toMatchObject({ status: 'Reversed', reversingEntryId: r.id, reversedBy: admin2.id });
    expect(orig.reversedAt).toMatch(/Z$/);

    const twice = await t.post(`${JE}/${posted.id}/reverse`, {
      token: admin.token,
      body: { reversalDate: '2027-01-03' },
    });
    expect(twice.status).toBe(409);
    expect(twice.body).toEqual({
      _tag: 'JournalEntryAlreadyReversedError',
      message: expect.any(String),
      entryId: posted.id,
      reversingEntryId: r.id,
    });
    // Already-reversed is checked before everything else of the rule list (even a bad date).
    expect(
      (
        await t.post(`${JE}/${posted.id}/reverse`, {
          token: admin.token,
          body: { reversalDate: '2026-01-01' },
        })
      ).status,
    ).toBe(409);
    // The reversal can itself be reversed, with a custom description.
    const rr = await t.post(`${JE}/${r.id}/reverse`, {
      token: admin.token,
      body: { reversalDate: '2027-01-02', reversalDescription: 'Undo the undo' },
    });
    expect(rr.status).toBe(201);
    expect(rr.body).toMatchObject({
      description: 'Undo the undo',
      reversedEntryId: r.id,
      entryNumber: 'JE-0004',
    });
    expect(await balanceMismatches(t, org.id)).toEqual([]);
  });
});

describe('list (3.7.8)', () => {
  it('filters in SQL, orders by date desc, number desc, id and pages', async () => {
    const o = await t.org(owner);
    await t.addMember(owner, o.id, viewer, 'viewer');
    await t.addMember(owner, o.id, member, 'member');
    await t.addMember(owner, o.id, admin, 'admin');
    await t.addMember(owner, o.id, admin2, 'admin');
    const c1 = await createCompany(t, o.id);
    const c2 = await createCompany(t, o.id);
    const mk = async (c: Company, date: string, extra: Record<string, unknown> = {}) =>
      (await create(member, { ...simpleBody(c), transactionDate: date, ...extra })).body;
    const a = await mk(c1, '2026-01-10');
    const b = await mk(c1, '2026-02-10', { entryType: 'Adjusting' });
    const c = await mk(c1, '2026-02-10', { sourceModule: 'Payroll' });
    const d = await mk(c2, '2026-03-10');
    const e = await mk(c2, '2025-12-31');
    await approveAndPost(b.id);

    const list = async (query: Record<string, string | number>) => {
      const res = await t.get(JE, { token: viewer.token, query: { organizationId: o.id, ...query } });
      expect(res.status).toBe(200);
      return res.body;
    };
    const all = await list({});
    expect(all.total).toBe(5);
    expect(all.entries.map((x: any) => x.id)).toEqual([d.id, c.id, b.id, a.id, e.id]);
    expect(all.entries[0].lines).toHaveLength(2);
    expect(all).toMatchObject({ limit: 50, offset: 0 });
    const page = await list({ limit: 2, offset: 1 });
    expect(page.entries.map((x: any) => x.id)).toEqual([c.id, b.id]);
    expect(page.total).toBe(5);
    expect((await list({ offset: 10 })).entries).toEqual([]);
    expect((await list({ companyId: c2.id })).entries.map((x: any) => x.id)).toEqual([d.id, e.id]);
    expect((await list({ status: 'Posted' })).entries.map((x: any) => x.id)).toEqual([b.id]);
    expect((await list({ entryType: 'Adjusting' })).total).toBe(1);
    expect((await list({ sourceModule: 'Payroll' })).entries[0].id).toBe(c.id);
    expect((await list({ fiscalYear: 2025 })).entries.map((x: any) => x.id)).toEqual([e.id]);
    expect((await list({ fiscalPeriod: 2, fiscalYear: 2026 })).total).toBe(2);
    expect((await list({ fromDate: '2026-02-10', toDate: '2026-02-10' })).total).toBe(2);
    expect((await list({ fromDate: '2026-02-11' })).entries.map((x: any) => x.id)).toEqual([d.id]);

    const badRange = await t.get(JE, {
      token: viewer.token,
      query: { fromDate: '2026-02-02', toDate: '2026-02-01' },
    });
    expect(badRange.status).toBe(400);
    const badQuery = await t.get(JE, { token: viewer.token, query: { status: 'Nope' } });
    expect(badQuery.status).toBe(400);
    expect((await t.get(JE, { token: viewer.token, query: { fiscalPeriod: 14 } })).status).toBe(400);
    expect((await t.get(JE, { token: viewer.token, query: { limit: 101 } })).status).toBe(400);
    const foreignCompany = await t.get(JE, { token: viewer.token, query: { companyId: foreignCo.id } });
    expect(foreignCompany.status).toBe(404);
    expect(foreignCompany.body).toMatchObject({ _tag: 'CompanyNotFoundError', companyId: foreignCo.id });
    const foreignCompany2 = await t.get(JE, {
      token: viewer.token,
      query: { organizationId: o.id, companyId: co.id },
    });
    expect(foreignCompany2.status).toBe(404);

    // Without organizationId: every organization of the caller, never others'.
    const mine = await t.get(JE, { token: viewer.token, query: { limit: 100 } });
    const orgs = new Set(mine.body.entries.map((x: any) => x.organizationId));
    expect([...orgs].every((id) => id === o.id || id === org.id)).toBe(true);
    const outsiders = await t.get(JE, { token: outsider.token });
    expect(outsiders.body.entries.every((x: any) => x.organizationId === otherOrg.id)).toBe(true);
    expect((await t.get(JE, { token: outsider.token, query: { organizationId: o.id } })).status).toBe(403);
    expect((await t.get(JE, { token: outsider.token, query: { organizationId: uuidv7() } })).status).toBe(
      404,
    );
  });
});

describe('roles and tenant isolation', () => {
  it('viewer reads, member edits and submits, admin approves, posts and reverses', async () => {
    const e = await createOk();
    const viewerCreate = await create(viewer, simpleBody(co));
    expect(viewerCreate.status).toBe(403);
    expect(viewerCreate.body).toEqual({
      _tag: 'ForbiddenError',
      message: expect.any(String),
      resource: 'JournalEntry',
      action: 'journal_entry:edit',
      requiredRole: 'member',
      currentRole: 'viewer',
    });
    expect((await t.put(`${JE}/${e.id}`, { token: viewer.token, body: {} })).status).toBe(403);
    expect((await t.del(`${JE}/${e.id}`, { token: viewer.token })).status).toBe(403);
    expect((await t.post(`${JE}/${e.id}/submit`, { token: viewer.token })).status).toBe(403);
    expect((await t.get(`${JE}/${e.id}`, { token: viewer.token })).status).toBe(200);
    expect((await t.post(`${JE}/${e.id}/submit`, { token: member.token })).status).toBe(200);
    const memberApprove = await t.post(`${JE}/${e.id}/approve`, { token: member.token });
    expect(memberApprove.body).toMatchObject({ action: 'journal_entry:approve', requiredRole: 'admin' });
    expect((await t.post(`${JE}/${e.id}/reject`, { token: member.token })).status).toBe(403);
    expect((await t.post(`${JE}/${e.id}/approve`, { token: owner.token })).status).toBe(200);
    const memberPost = await t.post(`${JE}/${e.id}/post`, { token: member.token, body: {} });
    expect(memberPost.body).toMatchObject({ action: 'journal_entry:post', currentRole: 'member' });
    expect((await t.post(`${JE}/${e.id}/post`, { token: admin.token, body: {} })).status).toBe(200);
    const memberReverse = await t.post(`${JE}/${e.id}/reverse`, {
      token: member.token,
      body: { reversalDate: '2026-03-16' },
    });
    expect(memberReverse.body).toMatchObject({ action: 'journal_entry:reverse', requiredRole: 'admin' });
    expect(
      (await t.post(`${JE}/${e.id}/reverse`, { token: owner.token, body: { reversalDate: '2026-03-16' } }))
        .status,
    ).toBe(201);
  });

  it("never exposes another organization's entries", async () => {
    const e = await createOk();
    const byId = await t.get(`${JE}/${e.id}`, { token: outsider.token });
    expect(byId.status).toBe(403);
    expect(byId.body).toMatchObject({
      _tag: 'ForbiddenError',
      currentRole: null,
      action: 'journal_entry:read',
    });
    expect(JSON.stringify(byId.body)).not.toContain(e.description);
    const ownOrg = await t.get(`${JE}/${e.id}`, {
      token: outsider.token,
      query: { organizationId: otherOrg.id },
    });
    expect(ownOrg.status).toBe(404);
    expect(ownOrg.body).toEqual({
      _tag: 'JournalEntryNotFoundError',
      message: expect.any(String),
      entryId: e.id,
    });
    const named = await t.get(`${JE}/${e.id}`, { token: outsider.token, query: { organizationId: org.id } });
    expect(named.status).toBe(403);
    for (const [method, path, body] of [
      ['PUT', `${JE}/${e.id}`, { description: 'x' }],
      ['DELETE', `${JE}/${e.id}`, undefined],
      ['POST', `${JE}/${e.id}/submit`, undefined],
      ['POST', `${JE}/${e.id}/approve`, undefined],
      ['POST', `${JE}/${e.id}/reject`, {}],
      ['POST', `${JE}/${e.id}/post`, {}],
      ['POST', `${JE}/${e.id}/reverse`, { reversalDate: '2026-03-20' }],
    ] as const) {
      const res = await t.req(method, path, { token: outsider.token, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.currentRole).toBeNull();
    }
    const withOwnOrg = await t.post(`${JE}/${e.id}/post`, {
      token: outsider.token,
      body: { organizationId: otherOrg.id },
    });
    expect(withOwnOrg.status).toBe(404);
    const createInOther = await create(outsider, simpleBody(co));
    expect(createInOther.status).toBe(403);
    const crossCompany = await create(outsider, { ...simpleBody(foreignCo), companyId: co.id });
    expect(crossCompany.body._tag).toBe('CompanyNotFoundError');
    const crossAccount = await create(outsider, {
      ...simpleBody(foreignCo),
      lines: [
        { accountId: co.accounts.cash, debitAmount: usd('1') },
        { accountId: foreignCo.accounts.revenue, creditAmount: usd('1') },
      ],
    });
    expect(crossAccount.body).toMatchObject({ _tag: 'InvalidJournalLineAccountError', reason: 'NotFound' });
  });

  it('answers malformed and unknown ids with JournalEntryNotFoundError', async () => {
    const bad = await t.get(`${JE}/abc`, { token: viewer.token });
    expect(bad.status).toBe(404);
    expect(bad.body).toMatchObject({ _tag: 'JournalEntryNotFoundError', entryId: 'abc' });
    const unknown = uuidv7();
    const res = await t.post(`${JE}/${unknown.toUpperCase()}/submit`, { token: member.token });
    expect(res.status).toBe(404);
    expect(res.body.entryId).toBe(unknown);
    expect((await t.req('PATCH', `${JE}/${unknown}`, { token: member.token })).status).toBe(405);
    expect(
      (await t.get(`${JE}/${unknown}`, { token: member.token, query: { organizationId: uuidv7() } })).body
        ._tag,
    ).toBe('OrganizationNotFoundError');
  });
});

describe('audit and idempotency', () => {
  it('audits writes with the caller and replays idempotent creates without a new number', async () => {
    const c = await createCompany(t, org.id);
    const headers = { 'idempotency-key': `je-${uuidv7()}` };
    const first = await t.post(JE, { token: member.token, body: simpleBody(c), headers });
    const replay = await t.post(JE, { token: member.token, body: simpleBody(c), headers });
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
    expect((await createOk(c)).entryNumber).toBe('JE-0002');
    await approveAndPost(first.body.id, owner);
    const log = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: org.id, entityType: 'JournalEntry', entityId: first.body.id },
    });
    expect(log.body.entries.map((x: any) => x.action).sort()).toEqual([
      'Approve',
      'Create',
      'Post',
      'Submit',
    ]);
    const post = log.body.entries.find((x: any) => x.action === 'Post');
    expect(post.userId).toBe(owner.id);
    const changes = Object.fromEntries(log.body.entries.map((x: any) => [x.action, x.changes]));
    expect(changes).toEqual({
      Create: null,
      Submit: { status: { from: 'Draft', to: 'PendingApproval' } },
      Approve: { status: { from: 'PendingApproval', to: 'Approved' } },
      Post: { status: { from: 'Approved', to: 'Posted' } },
    });
  });

  it('a refused request writes nothing and consumes no number', async () => {
    const c = await createCompany(t, org.id);
    const body = simpleBody(c);
    body.lines[1] = { accountId: c.accounts.revenue, creditAmount: usd('1') };
    expect((await create(member, body)).status).toBe(400);
    const years = await queryRows<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from fiscal_years where company_id = ${c.id}`,
    );
    expect(years[0]!.n).toBe(0);
    expect((await createOk(c)).entryNumber).toBe('JE-0001');
  });
});

describe('concurrency', () => {
  it('50 parallel creates in one company all succeed with distinct numbers', async () => {
    const c = await createCompany(t, org.id);
    const results = await Promise.all(Array.from({ length: 50 }, () => create(member, simpleBody(c))));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    const numbers = results.map((r) => r.body.entryNumber).sort();
    expect(new Set(numbers).size).toBe(50);
    expect(numbers[0]).toBe('JE-0001');
    expect(numbers[49]).toBe('JE-0050');
    const years = await queryRows<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from fiscal_years where company_id = ${c.id}`,
    );
    expect(years[0]!.n).toBe(1);
  }, 60_000);

  it('parallel posts to the same accounts keep balances equal to the posted lines', async () => {
    const o = await t.org(owner, { settings: { requireApproval: false } });
    await t.addMember(owner, o.id, member, 'member');
    await t.addMember(owner, o.id, admin, 'admin');
    const c = await createCompany(t, o.id);
    const entries = [];
    for (let i = 0; i < 20; i++) {
      const amount = `${i + 1}.${String(i).padStart(2, '0')}`;
      const res = await create(member, {
        ...simpleBody(c, {}, amount),
        transactionDate: i % 2 ? '2026-03-15' : '2026-03-16',
        lines: [
          { accountId: c.accounts.cash, debitAmount: usd(amount) },
          { accountId: c.accounts.receivable, debitAmount: usd(amount) },
          { accountId: c.accounts.revenue, creditAmount: usd(amount) },
          { accountId: c.accounts.revenue, creditAmount: usd(amount) },
        ],
      });
      entries.push(res.body);
    }
    const posts = await Promise.all(entries.map((e) => t.post(`${JE}/${e.id}/post`, { token: admin.token })));
    expect(posts.map((p) => p.status)).toEqual(Array(20).fill(200));
    const reversals = await Promise.all(
      entries
        .slice(0, 5)
        .map((e) =>
          t.post(`${JE}/${e.id}/reverse`, { token: admin.token, body: { reversalDate: '2026-03-16' } }),
        ),
    );
    expect(reversals.map((p) => p.status)).toEqual(Array(5).fill(201));
    expect(await balanceMismatches(t, o.id)).toEqual([]);
    const totals = await queryRows<{ debit: string; credit: string }>(
      t.database.db,
      sql`select sum(debit_total)::text as debit, sum(credit_total)::text as credit from account_balances
          where organization_id = ${o.id} and account_id = ${c.accounts.revenue}`,
    );
    // Credits: Σ (i + 1).ii for i = 0…19 = 210 + 1.90 = 211.90, twice per entry = 423.80.
    // Debits: the five reversals, 2 × (1.00 + 2.01 + 3.02 + 4.03 + 5.04) = 30.20.
    expect(totals[0]).toEqual({ credit: '423.80000000', debit: '30.20000000' });
    for (const row of await trialBalanceNets(t, o.id)) expect(Number(row.net)).toBe(0);
  }, 60_000);
});

describe('property: posted balances', () => {
  it('account_balances always equals the aggregate of posted and reversed lines, and every trial balance nets to zero', async () => {
    const o = await t.org(owner, { settings: { requireApproval: false } });
    await t.addMember(owner, o.id, member, 'member');
    await t.addMember(owner, o.id, admin, 'admin');
    const c1 = await createCompany(t, o.id);
    const c2 = await createCompany(t, o.id, {
      functionalCurrency: 'EUR',
      fiscalYearEnd: { month: 3, day: 31 },
    });
    const postable = (c: Company) => [
      c.accounts.cash,
      c.accounts.receivable,
      c.accounts.payable,
      c.accounts.revenue,
      c.accounts.expense,
    ];
    const cents = fc.integer({ min: 1, max: 10_000_000 });
    const lineArb = fc.record({ account: fc.nat(4), amount: cents, debit: fc.boolean() });
    const entryArb = fc.record({
      company: fc.nat(1),
      day: fc.integer({ min: 0, max: 700 }),
      lines: fc.array(lineArb, { minLength: 1, maxLength: 5 }),
      closing: fc.boolean(),
      action: fc.constantFrom('post', 'post', 'reverse', 'draft'),
      rate: fc.constantFrom(null, '1.0833', '0.9'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(entryArb, { minLength: 1, maxLength: 4 }), async (specs) => {
        for (const spec of specs) {
          const c = spec.company === 0 ? c1 : c2;
          const accounts = postable(c);
          const date = new Date(Date.UTC(2025, 0, 1 + spec.day)).toISOString().slice(0, 10);
          const cur = c.functionalCurrency;
          const lines: any[] = spec.lines.map((l) => ({
            accountId: accounts[l.account],
            [l.debit ? 'debitAmount' : 'creditAmount']: { value: (l.amount / 100).toFixed(2), currency: cur },
          }));
          // Balancing line: debits − credits offset on the cash account.
          const diff = spec.lines.reduce((s, l) => s + (l.debit ? l.amount : -l.amount), 0);
          if (diff === 0)
            lines.push(
              { accountId: accounts[0], debitAmount: { value: '1.00', currency: cur } },
              { accountId: accounts[1], creditAmount: { value: '1.00', currency: cur } },
            );
          else
            lines.push({
              accountId: accounts[0],
              [diff > 0 ? 'creditAmount' : 'debitAmount']: {
                value: (Math.abs(diff) / 100).toFixed(2),
                currency: cur,
              },
            });
          if (spec.rate) {
            // A foreign pair converted at a given rate, balanced in its own currency.
            const foreign = cur === 'USD' ? 'GBP' : 'CHF';
            lines.push(
              {
                accountId: accounts[2],
                debitAmount: { value: '33.33', currency: foreign },
                exchangeRate: spec.rate,
              },
              {
                accountId: accounts[3],
                creditAmount: { value: '33.33', currency: foreign },
                exchangeRate: spec.rate,
              },
            );
          }
          const res = await create(member, {
            organizationId: o.id,
            companyId: c.id,
            description: 'prop',
            transactionDate: date,
            entryType: spec.closing ? 'Closing' : 'Standard',
            lines,
          });
          expect(res.status, JSON.stringify(res.body)).toBe(201);
          if (spec.action === 'draft') continue;
          const post = await t.post(`${JE}/${res.body.id}/post`, { token: admin.token });
          expect(post.status).toBe(200);
          if (spec.action === 'reverse') {
            const rev = await t.post(`${JE}/${res.body.id}/reverse`, {
              token: admin.token,
              body: { reversalDate: date < '2026-06-01' ? '2026-06-01' : date },
            });
            expect(rev.status).toBe(201);
          }
        }
        expect(await balanceMismatches(t, o.id)).toEqual([]);
        for (const row of await trialBalanceNets(t, o.id)) expect(Number(row.net)).toBe(0);
        const closingRows = await queryRows<{ n: number }>(
          t.database.db,
          sql`select count(*)::int as n from account_balances b where organization_id = ${o.id} and is_closing
              and not exists (select 1 from journal_entries e where e.organization_id = b.organization_id
                and e.company_id = b.company_id and e.transaction_date = b.balance_date
                and (e.entry_type = 'Closing' or e.is_reversing))`,
        );
        expect(closingRows[0]!.n).toBe(0);
      }),
      { numRuns: 15 },
    );
  }, 180_000);
});

describe('schema', () => {
  it('documents the journal endpoints in OpenAPI', async () => {
    const doc = await t.get('/api/openapi.json');
    expect(doc.body.paths['/api/v1/journal-entries'].post).toBeDefined();
    expect(doc.body.paths['/api/v1/journal-entries/{id}/reverse'].post).toBeDefined();
  });

  it('keeps the company row unchanged by journal operations', async () => {
    const [row] = await t.database.db
      .select()
      .from(companies)
      .where(sql`${companies.id} = ${co.id}`);
    expect(row!.isActive).toBe(true);
  });
});
