/**
 * The account hierarchy and the locks of account writes: parents, subtree height, descendants, the
 * intercompany partner check, and the company row every account write locks first.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Queryable, queryRows } from '../../db/client.ts';
import { countRows, inOrg, requireRow } from '../../db/rows.ts';
import { accounts, companies } from '../../db/schema/index.ts';
import { type AccountType } from '../../domain/accounts.ts';

import type { Access } from '../../access/access.ts';
import { auditWrite } from '../audit/service.ts';
import { accountNotFound } from '../charts/errors.ts';
import { companyNotFound, findCompany } from '../companies/lookup.ts';

import { type AccountRow, MAX_HIERARCHY_LEVEL, parentNotFound, tooDeep } from './records.ts';
import { errors } from '../../domain/error-catalogue.ts';

/**
 * `sub(id, depth)`: every descendant of the account with its depth below it (children 1), walked down
 * `parent_account_id` within the organization; the depth cap stops a corrupt cycle.
 */
function subtree(organizationId: string, accountId: string): SQL {
  return sql`with recursive sub(id, depth) as (
    select id, 1 from accounts where organization_id = ${organizationId} and parent_account_id = ${accountId}
    union all
    select a.id, sub.depth + 1 from accounts a join sub on a.parent_account_id = sub.id
    where a.organization_id = ${organizationId} and sub.depth < 64
  )`;
}

/** Ids of every descendant of the account (children, grandchildren, …). */
export async function descendantIds(
  tx: Queryable,
  organizationId: string,
  accountId: string,
): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(
    tx,
    sql`${subtree(organizationId, accountId)} select distinct id from sub`,
  );
  return rows.map((r) => r.id);
}

/** Deepest level below the account, relative to it (0 when it has no children). */
export async function subtreeHeight(
  tx: Queryable,
  organizationId: string,
  accountId: string,
): Promise<number> {
  const rows = await queryRows<{ h: number | null }>(
    tx,
    sql`${subtree(organizationId, accountId)} select max(depth)::int as h from sub`,
  );
  return Number(rows[0]?.h ?? 0);
}

/** Parent checks shared by create and update: exists in the organization, same company, same type. */
export async function checkParent(
  tx: Queryable,
  organizationId: string,
  companyId: string,
  accountType: AccountType,
  parentAccountId: string,
): Promise<AccountRow> {
  const parent = await requireRow(
    tx,
    accounts,
    organizationId,
    { id: parentAccountId },
    () => parentNotFound(parentAccountId),
    'share',
  );
  if (parent.companyId !== companyId) {
    throw errors.ParentAccountDifferentCompanyError('The parent account belongs to another company', {
      accountCompanyId: companyId,
      parentAccountCompanyId: parent.companyId,
    });
  }
  if (parent.accountType !== accountType) {
    throw errors.AccountTypeMismatchError('The parent account has another account type', {
      accountType,
      parentAccountId,
      parentAccountType: parent.accountType,
    });
  }
  return parent;
}

export async function checkPartner(tx: Queryable, organizationId: string, partnerId: string): Promise<void> {
  const partner = await findCompany(tx, organizationId, partnerId);
  if (!partner) throw companyNotFound(partnerId);
}

export async function lockCompany(
  tx: Queryable,
  organizationId: string,
  companyId: string,
  mode: 'update' | 'share',
) {
  return findCompany(tx, organizationId, companyId, mode);
}

/** Locks an account row that was read before (it cannot move to another company or organization). */
export async function lockAccount(
  tx: Queryable,
  organizationId: string,
  accountId: string,
): Promise<AccountRow> {
  return requireRow(
    tx,
    accounts,
    organizationId,
    { id: accountId },
    () => accountNotFound(accountId),
    'update',
  );
}

export async function setCompanyRetainedEarnings(
  tx: Queryable,
  access: Access,
  organizationId: string,
  companyId: string,
  from: string | null,
  to: string | null,
): Promise<void> {
  if (from === to) return;
  await tx
    .update(companies)
    .set({ retainedEarningsAccountId: to, updatedAt: new Date() })
    .where(inOrg(companies, organizationId, { id: companyId }));
  await auditWrite(tx, access, 'Company', { organizationId, id: companyId }, 'Update', {
    retainedEarningsAccountId: { from, to },
  });
}

/**
 * The level of an account moved under `parentAccountId` (null: a root). The parent must exist, be of
 * the same company and type, not be the account or one of its descendants, and the moved subtree
 * must stay within the depth limit.
 */
export async function newHierarchyLevel(
  tx: Queryable,
  organizationId: string,
  row: AccountRow,
  parentAccountId: string | null,
): Promise<number> {
  const accountId = row.id;
  let level = 1;
  if (parentAccountId !== null) {
    const parent = await checkParent(
      tx,
      organizationId,
      row.companyId,
      row.accountType as AccountType,
      parentAccountId,
    );
    if (parent.id === accountId || (await descendantIds(tx, organizationId, accountId)).includes(parent.id)) {
      throw errors.CircularAccountReferenceError(
        'The new parent is the account itself or one of its descendants',
        { accountId, parentAccountId: parent.id },
      );
    }
    level = parent.hierarchyLevel + 1;
  }
  if (level + (await subtreeHeight(tx, organizationId, accountId)) > MAX_HIERARCHY_LEVEL) throw tooDeep();
  return level;
}

/** An account with active children cannot be deactivated (400 HasActiveChildAccountsError). */
export async function checkNoActiveChildren(
  tx: Queryable,
  organizationId: string,
  accountId: string,
): Promise<void> {
  const childCount = await countRows(
    tx,
    accounts,
    inOrg(accounts, organizationId, { parentAccountId: accountId, isActive: true }),
  );
  if (childCount > 0) {
    throw errors.HasActiveChildAccountsError('The account has active child accounts', {
      accountId,
      childCount,
    });
  }
}

/** Moves the levels of an account's descendants by `delta` (the account itself moved). */
export async function shiftSubtreeLevels(
  tx: Queryable,
  organizationId: string,
  accountId: string,
  delta: number,
) {
  await tx.execute(sql`${subtree(organizationId, accountId)}
    update accounts set hierarchy_level = hierarchy_level + ${delta}, updated_at = now()
    where organization_id = ${organizationId} and id in (select id from sub)`);
}
