/**
 * Direct database fixtures for consolidation tests: runs in a given status (the runs module is not
 * needed to test group deletion and rule in-use checks) and row counts.
 */
import { and, count, eq } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import {
  consolidationMembers,
  consolidationRuns,
  eliminationRules,
  runRuleApplications,
} from '../../src/db/schema/index.ts';
import type { TestContext } from './app.ts';

export async function insertRun(
  t: TestContext,
  organizationId: string,
  groupId: string,
  status: 'Pending' | 'InProgress' | 'Completed' | 'Failed' | 'Cancelled',
  userId: string,
  appliedRuleIds: string[] = [],
): Promise<string> {
  const id = uuidv7();
  await t.database.db.insert(consolidationRuns).values({
    id,
    organizationId,
    groupId,
    year: 2026,
    period: 1,
    asOfDate: '2026-01-31',
    yearStartDate: '2026-01-01',
    reportingCurrency: 'USD',
    status,
    steps: [],
    options: {},
    members: [],
    initiatedBy: userId,
    requestedBy: userId,
    initiatedAt: new Date(),
  });
  if (appliedRuleIds.length > 0) {
    await t.database.db
      .insert(runRuleApplications)
      .values(appliedRuleIds.map((ruleId) => ({ organizationId, runId: id, ruleId })));
  }
  return id;
}

export async function groupRowCounts(t: TestContext, organizationId: string, groupId: string) {
  const db = t.database.db;
  const [m] = await db
    .select({ n: count() })
    .from(consolidationMembers)
    .where(
      and(eq(consolidationMembers.organizationId, organizationId), eq(consolidationMembers.groupId, groupId)),
    );
  const [r] = await db
    .select({ n: count() })
    .from(eliminationRules)
    .where(and(eq(eliminationRules.organizationId, organizationId), eq(eliminationRules.groupId, groupId)));
  const [u] = await db
    .select({ n: count() })
    .from(consolidationRuns)
    .where(and(eq(consolidationRuns.organizationId, organizationId), eq(consolidationRuns.groupId, groupId)));
  return { members: Number(m?.n ?? 0), rules: Number(r?.n ?? 0), runs: Number(u?.n ?? 0) };
}
