import { sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { todayIn } from '../../src/domain/dates.ts';
import { createTestContext, type TestContext, type TestUser } from '../helpers/app.ts';
import {
  balanceMismatches,
  type Company,
  createCompany,
  fiscalYearId,
  setPeriodStatus,
  trialBalanceNets,
} from '../helpers/ledger.ts';

let t: TestContext;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let viewer: TestUser;
let outsider: TestUser;
let org: { id: string };
let otherOrg: { id: string };

const JE = '/api/v1/journal-entries';
const usd = (value: string) => ({ value, currency: 'USD' });

beforeAll(async () => {
  t = await createTestContext();
  [owner, admin, member, viewer, outsider] = await Promise.all([
    t.user('owner'),
    t.user('admin'),
    t.user('member'),
    t.user('viewer'),
    t.user('outsider'),
  ]);
  org = await t.org(owner, { settings: { requireApproval: false } });
  await t.addMember(owner, org.id, admin, 'admin');
  await t.addMember(owner, org.id, member, 'member');
  await t.addMember(owner, org.id, viewer, 'viewer');
  otherOrg = await t.org(outsider);
}, 60_000);

afterAll(async () => {
  await t.close();
});

const base = (c: Company, yearId: string) =>
  `/api/v1/organizations/${c.organizationId}/companies/${c.id}/fiscal-years/${yearId}`;

/** Creates (and by default posts) a two-line entry: debit `debit`, credit `credit`. */
async function entry(
  c: Company,
  date: string,
  debit: string,
  credit: string,
  amount: string,
  post = true,
  extra: Record<string, unknown> = {},
) {
  const res = await t.post(JE, {
    token: member.token,
    body: {
      organizationId: c.organizationId,
      companyId: c.id,
      description: 'test',
      transactionDate: date,
      lines: [
        { accountId: debit, debitAmount: usd(amount) },
        { accountId: credit, creditAmount: usd(amount) },
      ],
      ...extra,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  if (!post) return res.body;
  const posted = await t.post(`${JE}/${res.body.id}/post`, { token: admin.token });
  expect(posted.status).toBe(200);
  return posted.body;
}

describe('year-end close and reopen (3.6.3)', () => {
  it('previews, refuses with unposted entries, closes, blocks the year, reopens and closes again', async () => {
    const c = await createCompany(t, org.id);
    const a = c.accounts;
    // Revenue 1000 (cash), expenses 300 + 50 (other expense, account 10000), one revenue refund 100.
    await entry(c, '2026-02-01', a.cash, a.revenue, '1000.00');
    await entry(c, '2026-03-01', a.expense, a.cash, '300.00');
    await entry(c, '2026-12-31', a.otherExpense, a.payable, '50.00', true, {
      fiscalPeriod: { year: 2026, period: 13 },
    });
    await entry(c, '2026-06-01', a.revenue, a.cash, '100.00');
    // Entries of other years do not count.
    await entry(c, '2027-01-05', a.cash, a.revenue, '77.00');
    const draft = await entry(c, '2026-07-01', a.cash, a.revenue, '5.00', false);
    const yearId = (await fiscalYearId(t, c, 2026))!;

    const preview = await t.get(`${base(c, yearId)}/close/preview`, { token: viewer.token });
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({
      fiscalYearId: yearId,
      fiscalYearName: 'FY 2026',
      totalRevenue: usd('900.00'),
      totalExpenses: usd('350.00'),
      netIncome: usd('550.00'),
      retainedEarningsAccount: {
        id: a.retainedEarnings,
        accountNumber: '3300',
        name: 'retainedEarnings 3300',
      },
      unpostedEntryCount: 1,
      canProceed: false,
      blockers: ['UNPOSTED_ENTRIES'],
    });

    const refused = await t.post(`${base(c, yearId)}/close`, { token: admin.token });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      _tag: 'UnpostedEntriesInPeriodError',
      message: expect.any(String),
      companyId: c.id,
      fiscalYear: 2026,
      periodNumber: null,
      unpostedEntryCount: 1,
    });
    expect((await t.del(`${JE}/${draft.id}`, { token: member.token })).status).toBe(204);
    expect((await t.get(`${base(c, yearId)}/close/preview`, { token: viewer.token })).body.canProceed).toBe(
      true,
    );

    const memberClose = await t.post(`${base(c, yearId)}/close`, { token: member.token });
    expect(memberClose.status).toBe(403);
    expect(memberClose.body).toMatchObject({ action: 'fiscal_period:manage', requiredRole: 'admin' });

    await setPeriodStatus(t, c, 2026, 13, 'Closed');
    const closed = await t.post(`${base(c, yearId)}/close`, { token: admin.token });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({
      fiscalYearId: yearId,
      netIncome: usd('550.00'),
      periodsClosed: 12,
      fiscalYear: { id: yearId, status: 'Closed', closedBy: admin.id, year: 2026 },
    });
    expect(closed.body.fiscalYear.periods.every((p: any) => p.status === 'Closed')).toBe(true);
    expect(closed.body.closingEntryIds).toHaveLength(1);
    const closingId = closed.body.closingEntryIds[0];
    const closing = (await t.get(`${JE}/${closingId}`, { token: viewer.token })).body;
    expect(closing).toMatchObject({
      entryNumber: 'JE-0007',
      entryType: 'Closing',
      sourceModule: 'GeneralLedger',
      description: 'Year-end close FY 2026',
      transactionDate: '2026-12-31',
      fiscalPeriod: { year: 2026, period: 13 },
      sourceDocumentRef: `year-end-close:${yearId}`,
      status: 'Posted',
      postingDate: todayIn('UTC'),
      createdBy: admin.id,
      postedBy: admin.id,
      totalDebits: usd('900.00'),
    });
    // Account-number order: 4000 (net −900 → debit), 5000 (net 300 → credit), 10000 (net 50 →
    // credit); T = −550 → credit retained earnings 550.
    expect(
      closing.lines.map((l: any) => [
        l.accountId,
        l.debitAmount?.value ?? null,
        l.creditAmount?.value ?? null,
        l.exchangeRate,
      ]),
    ).toEqual([
      [a.revenue, '900.00', null, '1'],
      [a.expense, null, '300.00', '1'],
      [a.otherExpense, null, '50.00', '1'],
      [a.retainedEarnings, null, '550.00', '1'],
    ]);
    const flags = await queryRows<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from account_balances where company_id = ${c.id} and is_closing
          and fiscal_period = 13 and balance_date = '2026-12-31'`,
    );
    expect(flags[0]!.n).toBe(4);
    expect(await balanceMismatches(t, org.id)).toEqual([]);

    const after = await t.get(`${base(c, yearId)}/close/preview`, { token: viewer.token });
    expect(after.body).toMatchObject({
      totalRevenue: usd('0.00'),
      totalExpenses: usd('0.00'),
      netIncome: usd('0.00'),
      blockers: ['YEAR_ALREADY_CLOSED'],
      canProceed: false,
    });
    const again = await t.post(`${base(c, yearId)}/close`, { token: admin.token });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ _tag: 'YearAlreadyClosedError', fiscalYearId: yearId, year: 2026 });

    // The closed year takes no new entries, and the closing entry cannot be reversed directly.
    const blocked = await t.post(JE, {
      token: member.token,
      body: {
        organizationId: org.id,
        companyId: c.id,
        description: 'late',
        transactionDate: '2026-05-05',
        lines: [
          { accountId: a.cash, debitAmount: usd('1') },
          { accountId: a.revenue, creditAmount: usd('1') },
        ],
      },
    });
    expect(blocked.body).toMatchObject({
      _tag: 'FiscalPeriodClosedError',
      fiscalYear: 2026,
      periodNumber: 5,
    });
    const reverse = await t.post(`${JE}/${closingId}/reverse`, {
      token: admin.token,
      body: { reversalDate: '2027-01-10' },
    });
    expect(reverse.status).toBe(400);
    expect(reverse.body).toEqual({
      _tag: 'ClosingEntryReversalNotAllowedError',
      message: expect.any(String),
      entryId: closingId,
      fiscalYearId: yearId,
    });

    const reopenMember = await t.post(`${base(c, yearId)}/reopen`, { token: member.token });
    expect(reopenMember.status).toBe(403);
    const reopened = await t.post(`${base(c, yearId)}/reopen`, {
      token: admin.token,
      body: { reason: ' audit fix ' },
    });
    expect(reopened.status).toBe(200);
    expect(reopened.body).toMatchObject({
      fiscalYearId: yearId,
      reversedEntryIds: [closingId],
      periodsReopened: 13,
      fiscalYear: { status: 'Open', closedBy: null, closedAt: null },
    });
    expect(
      reopened.body.fiscalYear.periods.every((p: any) => p.status === 'Open' && p.closedBy === null),
    ).toBe(true);
    const reversalId = reopened.body.reversingEntryIds[0];
    const reversal = (await t.get(`${JE}/${reversalId}`, { token: viewer.token })).body;
    expect(reversal).toMatchObject({
      entryNumber: 'JE-0008',
      entryType: 'Reversing',
      isReversing: true,
      reversedEntryId: closingId,
      transactionDate: '2026-12-31',
      fiscalPeriod: { year: 2026, period: 13 },
      sourceDocumentRef: `year-end-close:${yearId}`,
      status: 'Posted',
    });
    expect((await t.get(`${JE}/${closingId}`, { token: viewer.token })).body).toMatchObject({
      status: 'Reversed',
      reversingEntryId: reversalId,
    });
    const history = await queryRows<{ reason: string; n: number }>(
      t.database.db,
      sql`select reason, count(*)::int as n from period_reopen_history where company_id = ${c.id} group by reason`,
    );
    expect(history).toEqual([{ reason: 'audit fix', n: 13 }]);
    const reverseReversal = await t.post(`${JE}/${reversalId}/reverse`, {
      token: admin.token,
      body: { reversalDate: '2027-01-10' },
    });
    expect(reverseReversal.body._tag).toBe('ClosingEntryReversalNotAllowedError');

    const notClosed = await t.post(`${base(c, yearId)}/reopen`, { token: admin.token });
    expect(notClosed.status).toBe(400);
    expect(notClosed.body).toEqual({
      _tag: 'YearNotClosedError',
      message: expect.any(String),
      fiscalYearId: yearId,
      year: 2026,
      currentStatus: 'Open',
    });

    // The preview shows the year's result again; a second close posts a new closing entry.
    const reopenedPreview = await t.get(`${base(c, yearId)}/close/preview`, { token: viewer.token });
    expect(reopenedPreview.body).toMatchObject({ netIncome: usd('550.00'), canProceed: true, blockers: [] });
    await entry(c, '2026-11-30', a.expense, a.cash, '25.00');
    const second = await t.post(`${base(c, yearId)}/close`, { token: admin.token });
    expect(second.status).toBe(200);
    expect(second.body.netIncome).toEqual(usd('525.00'));
    expect(second.body.periodsClosed).toBe(13);
    expect(second.body.closingEntryIds[0]).not.toBe(closingId);
    expect(await balanceMismatches(t, org.id)).toEqual([]);
    for (const row of await trialBalanceNets(t, org.id)) expect(Number(row.net)).toBe(0);

    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: org.id, entityType: 'FiscalYear', entityId: yearId },
    });
    expect(audit.body.entries.map((e: any) => e.action)).toEqual([
      'YearEndClose',
      'Reopen',
      'YearEndClose',
      'Create',
    ]);
  });

  it('debits retained earnings for a loss and posts nothing when every net is zero', async () => {
    const c = await createCompany(t, org.id);
    await entry(c, '2026-04-01', c.accounts.expense, c.accounts.cash, '80.00');
    await entry(c, '2026-04-02', c.accounts.cash, c.accounts.revenue, '30.00');
    const yearId = (await fiscalYearId(t, c, 2026))!;
    const res = await t.post(`${base(c, yearId)}/close`, { token: owner.token });
    expect(res.body.netIncome).toEqual(usd('-50.00'));
    const closing = (await t.get(`${JE}/${res.body.closingEntryIds[0]}`, { token: viewer.token })).body;
    expect(closing.lines.at(-1)).toMatchObject({
      accountId: c.accounts.retainedEarnings,
      debitAmount: usd('50.00'),
    });

    const empty = await createCompany(t, org.id);
    await entry(empty, '2026-04-01', empty.accounts.cash, empty.accounts.payable, '10.00');
    const emptyYear = (await fiscalYearId(t, empty, 2026))!;
    const none = await t.post(`${base(empty, emptyYear)}/close`, { token: admin.token });
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ closingEntryIds: [], netIncome: usd('0.00'), periodsClosed: 13 });
  });

  it('requires a retained-earnings account', async () => {
    const c = await createCompany(t, org.id, { retainedEarnings: false });
    await entry(c, '2026-04-01', c.accounts.cash, c.accounts.revenue, '10.00');
    const yearId = (await fiscalYearId(t, c, 2026))!;
    const preview = await t.get(`${base(c, yearId)}/close/preview`, { token: viewer.token });
    expect(preview.body).toMatchObject({
      retainedEarningsAccount: null,
      blockers: ['RETAINED_EARNINGS_NOT_CONFIGURED'],
      canProceed: false,
    });
    const res = await t.post(`${base(c, yearId)}/close`, { token: admin.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      _tag: 'RetainedEarningsNotConfiguredError',
      message: expect.any(String),
      companyId: c.id,
    });
  });

  it('answers 404 and 403 by the path rules', async () => {
    const c = await createCompany(t, org.id);
    await entry(c, '2026-04-01', c.accounts.cash, c.accounts.revenue, '10.00');
    const yearId = (await fiscalYearId(t, c, 2026))!;
    const other = await createCompany(t, org.id);
    const unknown = uuidv7();
    const r1 = await t.get(`${base(c, unknown)}/close/preview`, { token: viewer.token });
    expect(r1.body).toMatchObject({ _tag: 'FiscalYearNotFoundError', fiscalYearId: unknown });
    const r2 = await t.post(`${base(other, yearId)}/close`, { token: admin.token });
    expect(r2.body).toMatchObject({ _tag: 'FiscalYearNotFoundError', fiscalYearId: yearId });
    const r3 = await t.post(`${base(c, 'nope')}/reopen`, { token: admin.token });
    expect(r3.status).toBe(404);
    expect(r3.body).toMatchObject({ _tag: 'FiscalYearNotFoundError', fiscalYearId: 'nope' });
    const foreign = await t.get(`${base(c, yearId)}/close/preview`, { token: outsider.token });
    expect(foreign.status).toBe(403);
    expect(foreign.body.currentRole).toBeNull();
    const wrongOrg = await t.get(
      `/api/v1/organizations/${otherOrg.id}/companies/${c.id}/fiscal-years/${yearId}/close/preview`,
      { token: outsider.token },
    );
    expect(wrongOrg.body).toMatchObject({ _tag: 'CompanyNotFoundError', companyId: c.id });
    const viewerClose = await t.post(`${base(c, yearId)}/close`, { token: viewer.token });
    expect(viewerClose.status).toBe(403);
  });
});
