/**
 * The one-statement journal paths (src/modules/journal/create-statements.ts and
 * workflow-statements.ts) and their guards: a write that finds the state changed since the service
 * validated it writes nothing, and the request then runs on the transactional path, which answers for
 * the state it finds.
 */
import { sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import * as createStatements from '../../src/modules/journal/create-statements.ts';
import * as workflowStatements from '../../src/modules/journal/workflow-statements.ts';
import { createTestContext, type TestContext, type TestUser } from '../helpers/app.ts';
import { balanceMismatches, type Company, createCompany, setPeriodStatus } from '../helpers/ledger.ts';

let t: TestContext;
let owner: TestUser;
let clerk: TestUser;
let org: { id: string };
let co: Company;

const JE = '/api/v1/journal-entries';

function body(c: Company, transactionDate: string, amount = '100.00') {
  return {
    organizationId: c.organizationId,
    companyId: c.id,
    description: 'Cash sale',
    transactionDate,
    lines: [
      { accountId: c.accounts.cash, debitAmount: { value: amount, currency: 'USD' } },
      { accountId: c.accounts.revenue, creditAmount: { value: amount, currency: 'USD' } },
    ],
  };
}

beforeAll(async () => {
  t = await createTestContext();
  owner = await t.user('stmt-owner');
  clerk = await t.user('stmt-clerk');
  org = await t.org(owner, { settings: { requireApproval: false } });
  await t.addMember(owner, org.id, clerk, 'member');
  co = await createCompany(t, org.id);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

/** A validated new entry of `co` in `period` of 2026, as the service hands it to `insertEntries`. */
function newEntry(period: number, amount: string): createStatements.NewEntry {
  const id = uuidv7();
  const now = new Date();
  const line = (n: number, accountId: string, side: 'debit' | 'credit') => ({
    id: uuidv7(),
    organizationId: org.id,
    journalEntryId: id,
    companyId: co.id,
    lineNumber: n,
    accountId,
    currency: 'USD',
    debitAmount: side === 'debit' ? amount : null,
    creditAmount: side === 'credit' ? amount : null,
    functionalDebitAmount: side === 'debit' ? amount : null,
    functionalCreditAmount: side === 'credit' ? amount : null,
    exchangeRate: '1',
  });
  return {
    entry: {
      id,
      organizationId: org.id,
      companyId: co.id,
      description: `Batch ${period}`,
      transactionDate: `2026-${String(period).padStart(2, '0')}-10`,
      fiscalYear: 2026,
      fiscalPeriod: period,
      status: 'Draft',
      totalDebits: amount,
      totalCredits: amount,
      createdBy: clerk.id,
      createdAt: now,
      updatedAt: now,
    },
    lines: [line(1, co.accounts.cash, 'debit'), line(2, co.accounts.revenue, 'credit')],
    auditId: uuidv7(),
  };
}

describe('group commit of new entries', () => {
  it('numbers the accepted entries of a batch consecutively and writes nothing for a refused one', async () => {
    // The first entry creates fiscal year 2026 (3.6.1) and takes JE-0001.
    const first = await t.post(JE, { token: clerk.token, body: body(co, '2026-01-05') });
    expect(first.status).toBe(201);
    expect(first.body.entryNumber).toBe('JE-0001');
    await setPeriodStatus(t, co, 2026, 4, 'Closed');

    const batch = [newEntry(3, '10.00'), newEntry(4, '20.00'), newEntry(5, '30.00')];
    const stored = await createStatements.insertEntries(t.database.db, batch);
    expect(stored.map((s) => s && s.row.entryNumber)).toEqual([2, null, 3]);
    expect(stored[0]!.lines.map((l) => [l.lineNumber, l.debitAmount, l.creditAmount])).toEqual([
      [1, '10.00000000', null],
      [2, null, '10.00000000'],
    ]);

    // Nothing of the refused entry: no header, no lines, no audit entry; the counter is at 3.
    const refused = batch[1]!.entry.id;
    const traces = await queryRows<{ headers: number; lines: number; audits: number; last: number }>(
      t.database.db,
      sql`select (select count(*)::int from journal_entries where organization_id = ${org.id} and id = ${refused}) as headers,
                 (select count(*)::int from journal_lines where organization_id = ${org.id} and journal_entry_id = ${refused}) as lines,
                 (select count(*)::int from audit_log where organization_id = ${org.id} and entity_id = ${refused}) as audits,
                 (select last_number from entry_counters where organization_id = ${org.id} and company_id = ${co.id}) as last`,
    );
    expect(traces[0]).toEqual({ headers: 0, lines: 0, audits: 0, last: 3 });
    // The accepted ones are audited as created by their own caller.
    const audits = await queryRows<{ user_id: string; action: string }>(
      t.database.db,
      sql`select user_id, action from audit_log where organization_id = ${org.id}
          and entity_id in (${batch[0]!.entry.id}, ${batch[2]!.entry.id})`,
    );
    expect(audits).toEqual([
      { user_id: clerk.id, action: 'Create' },
      { user_id: clerk.id, action: 'Create' },
    ]);

    // Through the API the same closed period answers FiscalPeriodClosedError and draws no number.
    const closed = await t.post(JE, { token: clerk.token, body: body(co, '2026-04-10') });
    expect(closed.status).toBe(400);
    expect(closed.body._tag).toBe('FiscalPeriodClosedError');
    const next = await t.post(JE, { token: clerk.token, body: body(co, '2026-05-10') });
    expect(next.body.entryNumber).toBe('JE-0004');
  });

  it('creates 40 entries of one company at once with the numbers 1–40 and one audit entry each', async () => {
    const c = await createCompany(t, org.id);
    await t.post(JE, { token: clerk.token, body: body(c, '2026-02-01') }); // creates the year: JE-0001
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        t.post(JE, { token: clerk.token, body: body(c, '2026-02-02', `${i + 1}.00`) }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(40).fill(201));
    const numbers = results.map((r) => Number(String(r.body.entryNumber).slice(3))).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 40 }, (_, i) => i + 2));
    // Each response carries its own lines.
    for (const [i, r] of results.entries()) {
      expect(r.body.lines.map((l: { debitAmount: unknown }) => l.debitAmount)).toEqual([
        { value: `${i + 1}.00`, currency: 'USD' },
        null,
      ]);
    }
    const audits = await queryRows<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from audit_log a join journal_entries e
            on e.organization_id = a.organization_id and e.id::text = a.entity_id
          where a.organization_id = ${org.id} and e.company_id = ${c.id} and a.action = 'Create'`,
    );
    expect(audits[0]!.n).toBe(41);
  });
});

describe('guarded workflow statements', () => {
  it('write nothing when the entry is not in the source status', async () => {
    const draft = await t.post(JE, { token: clerk.token, body: body(co, '2026-03-01') });
    const id = draft.body.id as string;
    const approve = await workflowStatements.transitionEntry(t.database.db, 'approve', {
      organizationId: org.id,
      id,
      userId: owner.id,
      auditId: uuidv7(),
      extra: false,
    });
    expect(approve).toBeNull();
    const post = await workflowStatements.postEntry(t.database.db, {
      organizationId: org.id,
      id,
      userId: owner.id,
      auditId: uuidv7(),
      allowedStatuses: ['Approved'],
      segregation: false,
      postingDate: '2026-03-02',
      postedBy: owner.id,
    });
    expect(post).toBeNull();
    const after = await t.get(`${JE}/${id}`, { token: clerk.token, query: { organizationId: org.id } });
    expect(after.body.status).toBe('Draft');
    // Through the API the documented errors come from the transactional path.
    const res = await t.post(`${JE}/${id}/approve`, {
      token: owner.token,
      query: { organizationId: org.id },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ _tag: 'InvalidStatusTransitionError', currentStatus: 'Draft' });
  });

  it('post: an account deactivated after the entry was written refuses the post with its error', async () => {
    const c = await createCompany(t, org.id);
    const draft = await t.post(JE, { token: clerk.token, body: body(c, '2026-03-01') });
    await t.database.db.execute(
      sql`update accounts set is_active = false where organization_id = ${org.id} and id = ${c.accounts.revenue}`,
    );
    const res = await t.post(`${JE}/${draft.body.id}/post`, {
      token: owner.token,
      body: { organizationId: org.id },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      _tag: 'InvalidJournalLineAccountError',
      reason: 'Inactive',
      lineNumber: 2,
    });
    expect(await balanceMismatches(t, org.id)).toEqual([]);
  });
});

// A change that commits while a one-statement write waits for the entry's row lock: the statement
// sees a new row version, writes nothing, and the transactional path answers with the new state.
// Only a server really runs the two at once (PGlite serialises them).
describe.runIf(process.env.TEST_DATABASE_URL)('a concurrent change while the statement waits', () => {
  async function whileLocked<T>(entryId: string, change: string[], request: () => Promise<T>): Promise<T> {
    let pending!: Promise<T>;
    await t.database.db.transaction(async (tx) => {
      for (const text of change) await tx.execute(sql.raw(text));
      await tx.execute(sql`select 1 from journal_entries where id = ${entryId} for update`);
      pending = request();
      await new Promise((r) => setTimeout(r, 300));
    });
    return pending;
  }

  it('submit answers with the entry as changed by the transaction it waited for', async () => {
    const draft = await t.post(JE, { token: clerk.token, body: body(co, '2026-03-03') });
    const id = draft.body.id as string;
    const res = await whileLocked(
      id,
      [
        `update journal_lines set memo = 'Changed line' where journal_entry_id = '${id}' and line_number = 1`,
        `update journal_entries set description = 'Changed', updated_at = now() where id = '${id}'`,
      ],
      () => t.post(`${JE}/${id}/submit`, { token: clerk.token, query: { organizationId: org.id } }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'PendingApproval', description: 'Changed' });
    expect(res.body.lines[0].memo).toBe('Changed line');
  });

  it('post books and returns the lines as changed by the transaction it waited for', async () => {
    const c = await createCompany(t, org.id);
    const draft = await t.post(JE, { token: clerk.token, body: body(c, '2026-03-04', '100.00') });
    const id = draft.body.id as string;
    const res = await whileLocked(
      id,
      [
        `update journal_lines set debit_amount = 250, functional_debit_amount = 250 where journal_entry_id = '${id}' and line_number = 1`,
        `update journal_lines set credit_amount = 250, functional_credit_amount = 250 where journal_entry_id = '${id}' and line_number = 2`,
        `update journal_entries set total_debits = 250, total_credits = 250, updated_at = now() where id = '${id}'`,
      ],
      () => t.post(`${JE}/${id}/post`, { token: owner.token, body: { organizationId: org.id } }),
    );
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('Posted');
    expect(res.body.lines[0].debitAmount).toEqual({ value: '250.00', currency: 'USD' });
    const balances = await queryRows<{ debit: string }>(
      t.database.db,
      sql`select sum(debit_total)::text as debit from account_balances
          where organization_id = ${org.id} and company_id = ${c.id} and account_id = ${c.accounts.cash}`,
    );
    expect(balances[0]!.debit).toBe('250.00000000');
    expect(await balanceMismatches(t, org.id)).toEqual([]);
  });
});

describe('the create context read with the session', () => {
  it('refuses a create once the membership is removed or lowered, on the very next request', async () => {
    const member = await t.user('stmt-revoked');
    await t.addMember(owner, org.id, member, 'member');
    const first = await t.post(JE, { token: member.token, body: body(co, '2026-03-05') });
    expect(first.status).toBe(201);
    const demote = await t.put(`/api/v1/organizations/${org.id}/members/${member.id}`, {
      token: owner.token,
      body: { role: 'viewer' },
    });
    expect(demote.status).toBe(200);
    const asViewer = await t.post(JE, { token: member.token, body: body(co, '2026-03-05') });
    expect(asViewer.status).toBe(403);
    expect(asViewer.body).toMatchObject({ _tag: 'ForbiddenError', currentRole: 'viewer' });
    const removed = await t.del(`/api/v1/organizations/${org.id}/members/${member.id}`, {
      token: owner.token,
    });
    expect(removed.status).toBe(204);
    const asStranger = await t.post(JE, { token: member.token, body: body(co, '2026-03-05') });
    expect(asStranger.status).toBe(403);
    expect(asStranger.body).toMatchObject({ _tag: 'ForbiddenError', currentRole: null });
  });

  it('answers the same errors as before for a foreign company, a bad token and malformed ids or dates', async () => {
    const other = await t.org(owner);
    const foreign = await createCompany(t, other.id);
    const res = await t.post(JE, {
      token: clerk.token,
      body: { ...body(foreign, '2026-03-05'), organizationId: org.id },
    });
    expect(res.status).toBe(404);
    expect(res.body._tag).toBe('CompanyNotFoundError');
    const badToken = await t.post(JE, { token: 'x'.repeat(43), body: body(co, '2026-03-05') });
    expect(badToken.status).toBe(401);
    const badDate = await t.post(JE, { token: clerk.token, body: body(co, '2026-02-30') });
    expect(badDate.status).toBe(400);
    const badAccount = body(co, '2026-03-05');
    badAccount.lines[0]!.accountId = 'not-a-uuid';
    const malformed = await t.post(JE, { token: clerk.token, body: badAccount });
    expect(malformed.status).toBe(400);
    const unknownAccount = body(co, '2026-03-05');
    unknownAccount.lines[0]!.accountId = '00000000-0000-4000-8000-000000000000';
    const missing = await t.post(JE, { token: clerk.token, body: unknownAccount });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toContain('NotFound');
  });
});
