/**
 * Top-side adjustments: consolidation-only journal entries of a group for one period of the group
 * calendar, on group accounts (or, without a group chart, account numbers of the group's companies),
 * each line optionally attributed to a member so that its non-controlling interest takes its share.
 *
 * Workflow as for company journal entries (the same tables of moves and segregation of duties, and
 * the organization's `requireApproval` / `enforceSegregationOfDuties`): Draft → PendingApproval →
 * Approved → Posted; reject returns to Draft; a posted adjustment is immutable and is undone by a
 * reversal — a new posted adjustment with the lines swapped, for the same period, marking the original
 * Reversed. A `recurring` adjustment counts in its period and every later period of the same year.
 * Every change is audited.
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type Db, inTransaction, type Queryable } from '../../db/client.ts';
import { inOrg, requireRow, sameRow, updateRow } from '../../db/rows.ts';
import { accounts, consolidationAdjustments, groupAccounts } from '../../db/schema/index.ts';
import { minorUnits } from '../../domain/codes.ts';
import type { AdjustmentInput } from '../../domain/consolidation/types.ts';
import { DomainError, invalid } from '../../domain/errors.ts';
import { type Operation, segregationRefusal, transitionRefusal } from '../../domain/journal/workflow.ts';
import { dec, fractionDigits, ZERO } from '../../domain/money.ts';
import type { Access } from '../../access/access.ts';
import { isUuid } from '../../http/schemas.ts';
import type { PageParams } from '../../http/pagination.ts';
import { pagedRows } from '../shared/lists.ts';
import { auditWrite, type Changes } from '../audit/service.ts';
import { refused } from '../journal/checks.ts';
import { organizationSettings } from '../organizations/service.ts';
import { type GroupRow, loadMembers } from './groups.repo.ts';
import { authorizeGroup } from './groups.service.ts';
import { errors } from '../../domain/error-catalogue.ts';

type Row = typeof consolidationAdjustments.$inferSelect;

export interface AdjustmentLine {
  accountNumber: string;
  companyId: string | null;
  debit: string;
  credit: string;
  description: string | null;
}

export interface AdjustmentLineInput {
  accountNumber: string;
  companyId?: string | null;
  debit?: string | null;
  credit?: string | null;
  description?: string | null;
}

export interface AdjustmentBody {
  periodRef: { year: number; period: number };
  description: string;
  recurring?: boolean;
  lines: AdjustmentLineInput[];
}

const money = (value: string, currency: string) => ({ value, currency });

function record(r: Row, currency: string) {
  const minor = minorUnits(currency);
  const lines = (r.lines as AdjustmentLine[]).map((l) => ({
    accountNumber: l.accountNumber,
    companyId: l.companyId,
    debit: money(dec(l.debit).toFixed(minor), currency),
    credit: money(dec(l.credit).toFixed(minor), currency),
    description: l.description,
  }));
  const total = (r.lines as AdjustmentLine[]).reduce((s, l) => s.plus(l.debit), ZERO);
  return {
    id: r.id,
    organizationId: r.organizationId,
    consolidationGroupId: r.groupId,
    periodRef: { year: r.year, period: r.period },
    description: r.description,
    status: r.status,
    recurring: r.recurring,
    lines,
    totalDebit: money(total.toFixed(minor), currency),
    totalCredit: money(total.toFixed(minor), currency),
    createdBy: r.createdBy,
    approvedBy: r.approvedBy ?? null,
    postedBy: r.postedBy ?? null,
    postedAt: r.postedAt?.toISOString() ?? null,
    reversalOfId: r.reversalOfId ?? null,
    reversedById: r.reversedById ?? null,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export type AdjustmentRecord = ReturnType<typeof record>;

export function adjustmentNotFound(adjustmentId: string): DomainError {
  return errors.ConsolidationAdjustmentNotFoundError('Adjustment not found', {
    adjustmentId,
  });
}

/** The group's adjustment (locked for update by writes), or 404 ConsolidationAdjustmentNotFoundError. */
async function requireAdjustment(q: Queryable, group: GroupRow, id: string, lock = false): Promise<Row> {
  if (!isUuid(id)) throw adjustmentNotFound(id);
  return requireRow(
    q,
    consolidationAdjustments,
    group.organizationId,
    { groupId: group.id, id: id.toLowerCase() },
    () => adjustmentNotFound(id),
    lock ? 'update' : undefined,
  );
}

/** Lines checked and normalized: balanced, one side each, accounts the group knows, members of the group. */
async function checkedLines(
  q: Queryable,
  group: GroupRow,
  input: AdjustmentLineInput[],
): Promise<AdjustmentLine[]> {
  const minor = minorUnits(group.reportingCurrency);
  const orgId = group.organizationId;
  const memberRows = (await loadMembers(q, orgId, [group.id])).get(group.id) ?? [];
  const companyIds = new Set([group.parentCompanyId, ...memberRows.map((m) => m.companyId)]);
  const chart = await q
    .select({ n: groupAccounts.accountNumber })
    .from(groupAccounts)
    .where(and(eq(groupAccounts.organizationId, orgId), eq(groupAccounts.groupId, group.id)));
  let known: Set<string>;
  if (chart.length > 0) known = new Set(chart.map((r) => r.n));
  else {
    const rows = await q
      .selectDistinct({ n: accounts.accountNumber })
      .from(accounts)
      .where(
        and(
          eq(accounts.organizationId, orgId),
          sql`${accounts.companyId} in (${sql.join(
            [...companyIds].map((id) => sql`${id}::uuid`),
            sql`, `,
          )})`,
        ),
      );
    known = new Set(rows.map((r) => r.n));
  }
  let debits = ZERO;
  let credits = ZERO;
  const out = input.map((l, i) => {
    const at = `/lines/${i}`;
    const d = l.debit ?? null;
    const c = l.credit ?? null;
    if ((d === null) === (c === null)) throw invalid(at, 'Give either debit or credit');
    const value = (d ?? c)!;
    if (fractionDigits(value) > minor) {
      throw invalid(at, `At most ${minor} decimals for ${group.reportingCurrency}`);
    }
    if (!dec(value).greaterThan(0)) throw invalid(at, 'The amount must be positive');
    if (!known.has(l.accountNumber)) {
      throw invalid(
        `${at}/accountNumber`,
        chart.length > 0
          ? `${l.accountNumber} is not an account of the group chart`
          : `${l.accountNumber} is not an account of a company of the group`,
      );
    }
    const companyId = l.companyId ? l.companyId.toLowerCase() : null;
    if (companyId !== null && !companyIds.has(companyId)) {
      throw invalid(`${at}/companyId`, 'The company is not in the group');
    }
    if (d !== null) debits = debits.plus(d);
    else credits = credits.plus(c!);
    return {
      accountNumber: l.accountNumber,
      companyId,
      debit: d === null ? '0' : dec(d).toFixed(),
      credit: c === null ? '0' : dec(c).toFixed(),
      description: l.description ?? null,
    };
  });
  if (!debits.equals(credits)) {
    throw errors.ConsolidationAdjustmentUnbalancedError('The adjustment does not balance', {
      totalDebit: debits.toFixed(minor),
      totalCredit: credits.toFixed(minor),
    });
  }
  return out;
}

/**
 * Writes a new adjustment, created by the caller at `now`, and audits its creation in the status it is
 * created in (with `changes`, what else it was created with).
 */
async function insertAdjustment(
  tx: Queryable,
  access: Access,
  now: Date,
  values: Omit<typeof consolidationAdjustments.$inferInsert, 'createdBy' | 'createdAt' | 'updatedAt'>,
  changes: Changes = {},
): Promise<Row> {
  const [row] = await tx
    .insert(consolidationAdjustments)
    .values({ ...values, createdBy: access.userId, createdAt: now, updatedAt: now })
    .returning();
  await auditWrite(tx, access, 'ConsolidationAdjustment', row!, 'Create', {
    status: { from: null, to: row!.status },
    ...changes,
  });
  return row!;
}

function checkPeriod(p: { year: number; period: number }): void {
  if (p.period < 1 || p.period > 13) throw invalid('/periodRef/period', 'period must be 1–13');
}

export async function createAdjustment(
  db: Db,
  access: Access,
  groupId: string,
  organizationId: string | undefined,
  body: AdjustmentBody,
): Promise<AdjustmentRecord> {
  const group = await authorizeGroup(db, access, groupId, organizationId, 'consolidation:manage');
  checkPeriod(body.periodRef);
  return inTransaction(db, async (tx) => {
    const lines = await checkedLines(tx, group, body.lines);
    const row = await insertAdjustment(tx, access, new Date(), {
      id: uuidv7(),
      organizationId: group.organizationId,
      groupId: group.id,
      year: body.periodRef.year,
      period: body.periodRef.period,
      description: body.description,
      status: 'Draft',
      recurring: body.recurring ?? false,
      lines,
    });
    return record(row, group.reportingCurrency);
  });
}

export async function getAdjustment(
  db: Db,
  access: Access,
  groupId: string,
  adjustmentId: string,
  organizationId: string | undefined,
): Promise<AdjustmentRecord> {
  const group = await authorizeGroup(db, access, groupId, organizationId, 'consolidation:read');
  const row = await requireAdjustment(db, group, adjustmentId);
  return record(row, group.reportingCurrency);
}

export async function listAdjustments(
  db: Db,
  access: Access,
  groupId: string,
  q: {
    organizationId?: string | undefined;
    year?: number | undefined;
    period?: number | undefined;
    status?: string | undefined;
  },
  page: PageParams,
) {
  const group = await authorizeGroup(db, access, groupId, q.organizationId, 'consolidation:read');
  const where = inOrg(consolidationAdjustments, group.organizationId, {
    groupId: group.id,
    year: q.year,
    period: q.period,
    status: q.status,
  });
  const order = [
    asc(consolidationAdjustments.year),
    asc(consolidationAdjustments.period),
    asc(consolidationAdjustments.id),
  ];
  return pagedRows(db, consolidationAdjustments, where, order, page, 'adjustments', (rows) =>
    rows.map((r) => record(r, group.reportingCurrency)),
  );
}

export async function updateAdjustment(
  db: Db,
  access: Access,
  groupId: string,
  adjustmentId: string,
  organizationId: string | undefined,
  body: Partial<AdjustmentBody>,
): Promise<AdjustmentRecord> {
  const group = await authorizeGroup(db, access, groupId, organizationId, 'consolidation:manage');
  if (body.periodRef) checkPeriod(body.periodRef);
  return inTransaction(db, async (tx) => {
    const row = await requireAdjustment(tx, group, adjustmentId, true);
    refuse('update', row);
    const lines = body.lines ? await checkedLines(tx, group, body.lines) : (row.lines as AdjustmentLine[]);
    const updated = await updateRow(tx, consolidationAdjustments, sameRow(consolidationAdjustments, row), {
      year: body.periodRef?.year ?? row.year,
      period: body.periodRef?.period ?? row.period,
      description: body.description ?? row.description,
      recurring: body.recurring ?? row.recurring,
      lines,
      updatedAt: new Date(),
    });
    await auditWrite(tx, access, 'ConsolidationAdjustment', row, 'Update');
    return record(updated, group.reportingCurrency);
  });
}

export async function deleteAdjustment(
  db: Db,
  access: Access,
  groupId: string,
  adjustmentId: string,
  organizationId: string | undefined,
): Promise<void> {
  const group = await authorizeGroup(db, access, groupId, organizationId, 'consolidation:manage');
  await inTransaction(db, async (tx) => {
    const row = await requireAdjustment(tx, group, adjustmentId, true);
    refuse('delete', row);
    await tx.delete(consolidationAdjustments).where(sameRow(consolidationAdjustments, row));
    await auditWrite(tx, access, 'ConsolidationAdjustment', row, 'Delete');
  });
}

function refuse(op: Operation, row: Row, policy?: { requireApproval: boolean }): void {
  const r = transitionRefusal(
    op,
    { id: row.id, status: row.status, reversingEntryId: row.reversedById ?? null },
    policy,
  );
  if (r) throw refused(r);
}

export type WorkflowAction = 'submit' | 'approve' | 'reject' | 'post' | 'reverse';

/** A workflow action on an adjustment (see the module comment). */
export async function actOnAdjustment(
  db: Db,
  access: Access,
  groupId: string,
  adjustmentId: string,
  organizationId: string | undefined,
  action: WorkflowAction,
): Promise<AdjustmentRecord> {
  const group = await authorizeGroup(db, access, groupId, organizationId, 'consolidation:manage');
  const settings = await organizationSettings(db, group.organizationId, access);
  const policy = {
    requireApproval: settings.requireApproval,
    enforceSegregationOfDuties: settings.enforceSegregationOfDuties,
  };
  return inTransaction(db, async (tx) => {
    const row = await requireAdjustment(tx, group, adjustmentId, true);
    refuse(action, row, policy);
    const entry = { id: row.id, status: row.status, createdBy: row.createdBy };
    if (action === 'approve') {
      const s = segregationRefusal('approve', entry, { caller: access.userId }, policy);
      if (s) throw refused(s);
    }
    if (action === 'post') {
      const s = segregationRefusal('post', entry, { caller: access.userId, postedBy: access.userId }, policy);
      if (s) throw refused(s);
    }
    const now = new Date();
    const to =
      action === 'submit'
        ? 'PendingApproval'
        : action === 'approve'
          ? 'Approved'
          : action === 'reject'
            ? 'Draft'
            : action === 'post'
              ? 'Posted'
              : 'Reversed';
    let reversalId: string | null = null;
    if (action === 'reverse') {
      reversalId = uuidv7();
      const swapped = (row.lines as AdjustmentLine[]).map((l) => ({
        ...l,
        debit: l.credit,
        credit: l.debit,
      }));
      await insertAdjustment(
        tx,
        access,
        now,
        {
          id: reversalId,
          organizationId: row.organizationId,
          groupId: row.groupId,
          year: row.year,
          period: row.period,
          description: `Reversal of ${row.description}`,
          status: 'Posted',
          recurring: row.recurring,
          lines: swapped,
          postedBy: access.userId,
          postedAt: now,
          reversalOfId: row.id,
        },
        { reversalOfId: { from: null, to: row.id } },
      );
    }
    const updated = await updateRow(tx, consolidationAdjustments, sameRow(consolidationAdjustments, row), {
      status: to,
      updatedAt: now,
      ...(action === 'approve' ? { approvedBy: access.userId } : {}),
      ...(action === 'reject' ? { approvedBy: null } : {}),
      ...(action === 'post' ? { postedBy: access.userId, postedAt: now } : {}),
      ...(reversalId ? { reversedById: reversalId } : {}),
    });
    const auditAction = {
      submit: 'Submit',
      approve: 'Approve',
      reject: 'Reject',
      post: 'Post',
      reverse: 'Reverse',
    } as const;
    await auditWrite(tx, access, 'ConsolidationAdjustment', row, auditAction[action], {
      status: { from: row.status, to },
    });
    return record(updated, group.reportingCurrency);
  });
}

/**
 * The posted adjustments a run of (year, period) includes: those of its period, and the recurring
 * ones of an earlier period of the same year (reversed ones too: their reversal, posted for the same
 * period, cancels them).
 */
export async function loadAdjustmentInputs(
  q: Queryable,
  organizationId: string,
  groupId: string,
  year: number,
  period: number,
): Promise<AdjustmentInput[]> {
  const rows = await q
    .select({ id: consolidationAdjustments.id, lines: consolidationAdjustments.lines })
    .from(consolidationAdjustments)
    .where(
      and(
        inOrg(consolidationAdjustments, organizationId, { groupId, year }),
        sql`${consolidationAdjustments.status} in ('Posted', 'Reversed')`,
        sql`(${consolidationAdjustments.period} = ${period} or (${consolidationAdjustments.recurring} and ${consolidationAdjustments.period} < ${period}))`,
      ),
    )
    .orderBy(asc(consolidationAdjustments.id));
  return rows.map((r) => ({
    id: r.id,
    lines: (r.lines as AdjustmentLine[]).map((l) => ({
      accountNumber: l.accountNumber,
      companyId: l.companyId,
      amount: dec(l.debit).minus(l.credit).toFixed(),
    })),
  }));
}
