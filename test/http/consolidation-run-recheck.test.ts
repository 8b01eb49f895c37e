/**
 * A run's final write re-checks the intercompany transactions it eliminates: one that was set back to
 * Unmatched (or deleted) after the run read its input is not marked eliminated — the run fails with a
 * clear message and the transaction stays editable. The change is made deterministically between the
 * run's read and its final write (the loader is wrapped to make it right after reading).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestContext, type TestContext, type TestUser, uniq } from '../helpers/app.ts';
import { type CompanyFixture, createCompany } from '../helpers/consolidation.ts';

const afterLoad: { action: (() => Promise<void>) | null } = vi.hoisted(() => ({ action: null }));

vi.mock('../../src/modules/consolidation/runs.loader.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/modules/consolidation/runs.loader.ts')>();
  return {
    ...original,
    loadRunInput: async (...args: Parameters<typeof original.loadRunInput>) => {
      const input = await original.loadRunInput(...args);
      const action = afterLoad.action;
      afterLoad.action = null;
      if (action) await action();
      return input;
    },
  };
});

let t: TestContext;
let owner: TestUser;
let orgId: string;
let parent: CompanyFixture;
let sub: CompanyFixture;
let groupId: string;

async function postEntry(co: CompanyFixture, lines: Array<[string, 'D' | 'C', string]>) {
  const created = await t.post('/api/v1/journal-entries', {
    token: owner.token,
    body: {
      organizationId: orgId,
      companyId: co.id,
      description: uniq('E'),
      transactionDate: '2026-03-15',
      lines: lines.map(([n, side, value]) => ({
        accountId: co.accounts[n],
        [side === 'D' ? 'debitAmount' : 'creditAmount']: { value, currency: 'USD' },
      })),
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const posted = await t.post(`/api/v1/journal-entries/${created.body.id}/post`, {
    token: owner.token,
    body: { organizationId: orgId },
  });
  expect(posted.status).toBe(200);
}

async function matchedTransaction(): Promise<string> {
  const res = await t.post('/api/v1/intercompany-transactions', {
    token: owner.token,
    body: {
      organizationId: orgId,
      fromCompanyId: parent.id,
      toCompanyId: sub.id,
      transactionType: 'ManagementFee',
      transactionDate: '2026-03-15',
      amount: { value: '1000.00', currency: 'USD' },
    },
  });
  expect(res.status).toBe(201);
  const matched = await t.post(`/api/v1/intercompany-transactions/${res.body.id}/matching-status`, {
    token: owner.token,
    body: { matchingStatus: 'Matched' },
  });
  expect(matched.status).toBe(200);
  return res.body.id;
}

const runPeriod = (period: number) =>
  t.post(`/api/v1/consolidation/groups/${groupId}/runs`, {
    token: owner.token,
    body: { periodRef: { year: 2026, period }, forceRegeneration: true },
  });

beforeAll(async () => {
  t = await createTestContext();
  owner = await t.user('recheck');
  orgId = (await t.org(owner, { settings: { requireApproval: false } })).id;
  parent = await createCompany(t, owner, orgId);
  sub = await createCompany(t, owner, orgId);
  await postEntry(parent, [
    ['1400', 'D', '1000'],
    ['4100', 'C', '1000'],
  ]);
  await postEntry(sub, [
    ['6600', 'D', '1000'],
    ['2400', 'C', '1000'],
  ]);
  const group = await t.post('/api/v1/consolidation/groups', {
    token: owner.token,
    body: {
      organizationId: orgId,
      name: uniq('G'),
      reportingCurrency: 'USD',
      consolidationMethod: 'FullConsolidation',
      parentCompanyId: parent.id,
      members: [{ companyId: sub.id, ownershipPercentage: 100, consolidationMethod: 'FullConsolidation' }],
    },
  });
  expect(group.status).toBe(201);
  groupId = group.body.id;
  const rule = await t.post('/api/v1/elimination-rules', {
    token: owner.token,
    body: {
      organizationId: orgId,
      consolidationGroupId: groupId,
      name: 'IC fees',
      eliminationType: 'IntercompanySales',
      triggerConditions: [],
      sourceAccounts: [{ accountNumber: '4100', companyId: parent.id }],
      targetAccounts: [{ accountNumber: '6600', companyId: sub.id }],
      debitAccountId: parent.accounts['4100'],
      creditAccountId: sub.accounts['6600'],
      isAutomatic: true,
      priority: 10,
    },
  });
  expect(rule.status, JSON.stringify(rule.body)).toBe(201);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

describe('intercompany transactions changed during a run', () => {
  it('eliminates and marks an unchanged transaction (control)', async () => {
    const id = await matchedTransaction();
    const run = await runPeriod(3);
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    expect(run.body.status).toBe('Completed');
    const tx = await t.get(`/api/v1/intercompany-transactions/${id}`, { token: owner.token });
    expect(tx.body).toMatchObject({ isEliminated: true, eliminatedByRunId: run.body.id });
    // Clean up for the next cases: a later run of the period replaces this one.
    const del = await t.del(`/api/v1/consolidation/runs/${run.body.id}`, { token: owner.token });
    expect([204, 409]).toContain(del.status);
  });

  it('fails the run and leaves the transaction unmarked when it was set Unmatched meanwhile', async () => {
    const id = await matchedTransaction();
    afterLoad.action = async () => {
      const res = await t.post(`/api/v1/intercompany-transactions/${id}/matching-status`, {
        token: owner.token,
        body: { matchingStatus: 'Unmatched' },
      });
      expect(res.status).toBe(200);
    };
    const run = await runPeriod(3);
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    expect(run.body.status).toBe('Failed');
    expect(run.body.errorMessage).toMatch(/intercompany transaction .*changed or deleted during execution/i);
    const tx = await t.get(`/api/v1/intercompany-transactions/${id}`, { token: owner.token });
    expect(tx.body).toMatchObject({
      matchingStatus: 'Unmatched',
      isEliminated: false,
      eliminatedByRunId: null,
    });
    const edit = await t.put(`/api/v1/intercompany-transactions/${id}`, {
      token: owner.token,
      body: { description: 'still editable' },
    });
    expect(edit.status).toBe(200);
  });

  it('fails the run when an eliminated transaction was deleted meanwhile', async () => {
    const id = await matchedTransaction();
    afterLoad.action = async () => {
      // A Matched transaction cannot be deleted: it is set back to Unmatched first.
      await t.post(`/api/v1/intercompany-transactions/${id}/matching-status`, {
        token: owner.token,
        body: { matchingStatus: 'Unmatched' },
      });
      const res = await t.del(`/api/v1/intercompany-transactions/${id}`, { token: owner.token });
      expect(res.status).toBe(204);
    };
    const run = await runPeriod(3);
    expect(run.body.status).toBe('Failed');
    expect(run.body.errorMessage).toMatch(/changed or deleted/);
  });
});
