/**
 * Mappings from company accounts to a group's chart: explicit (account → group account) and by pattern
 * per company, explicit winning over patterns; their preview lists every company account of the
 * consolidated members with the group account it maps to, and the unmapped ones.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type Db, type Queryable } from '../../db/client.ts';
import { anyRow, inOrg, requireRow } from '../../db/rows.ts';
import { accounts, companies, groupAccountMappings } from '../../db/schema/index.ts';
import type { AccountType } from '../../domain/accounts.ts';
import { compatible, MappingResolver } from '../../domain/consolidation/group-chart.ts';
import { invalid } from '../../domain/errors.ts';
import { parsePattern } from '../../domain/selectors.ts';
import type { Access } from '../../access/access.ts';
import { isUuid } from '../../http/schemas.ts';
import { type PageParams, paged } from '../../http/pagination.ts';
import { auditWrite } from '../audit/service.ts';
import { type GroupRow, loadMembers } from './groups.repo.ts';
import { authorizeGroup, writeGroup } from './groups.service.ts';
import {
  alreadyMapped,
  groupAccountInput,
  loadGroupAccounts,
  loadGroupChartInput,
  loadMappings,
  mappingNotFound,
  mappingRecord,
  type MappingRecord,
  requireGroupAccount,
} from './chart.service.ts';
import { accountNotFound } from '../charts/errors.ts';
import { errors } from '../../domain/error-catalogue.ts';

export interface CreateMappingInput {
  groupAccountId: string;
  /** explicit: the company account */
  accountId?: string | null;
  /** pattern: the selector pattern and its company (null or absent: every member) */
  pattern?: string | null;
  companyId?: string | null;
}

export function checkMapping(body: CreateMappingInput): void {
  const hasAccount = body.accountId !== undefined && body.accountId !== null;
  const hasPattern = body.pattern !== undefined && body.pattern !== null;
  if (hasAccount === hasPattern) {
    throw invalid('/accountId', 'Give either accountId (an explicit mapping) or pattern, not both');
  }
  if (hasPattern && !parsePattern(body.pattern!)) {
    throw invalid('/pattern', `Invalid pattern ${body.pattern}: use 4000, 40* or 4000-4999`);
  }
  if (hasAccount && body.companyId !== undefined && body.companyId !== null) {
    throw invalid('/companyId', 'An explicit mapping takes its company from the account');
  }
}

/** Ids of the parent and the members of a group. */
async function groupCompanyIds(q: Queryable, group: GroupRow): Promise<string[]> {
  const members = (await loadMembers(q, group.organizationId, [group.id])).get(group.id) ?? [];
  return [group.parentCompanyId, ...members.map((m) => m.companyId)];
}

export async function createMapping(
  db: Db,
  access: Access,
  groupId: string,
  organizationId: string | undefined,
  body: CreateMappingInput,
): Promise<MappingRecord> {
  checkMapping(body);
  return writeGroup(db, access, groupId, organizationId, async (tx, locked) => {
    const orgId = locked.organizationId;
    const target = await requireGroupAccount(tx, locked, body.groupAccountId);
    const members = new Set(await groupCompanyIds(tx, locked));
    let companyId: string | null = null;
    let accountId: string | null = null;
    if (body.accountId) {
      const mappedId = body.accountId.toLowerCase();
      accountId = mappedId;
      const acc = await requireRow(tx, accounts, orgId, { id: mappedId }, () => accountNotFound(mappedId));
      if (!members.has(acc.companyId)) {
        throw invalid('/accountId', 'The account belongs to a company that is not in the group');
      }
      if (
        !compatible(
          { accountType: acc.accountType as AccountType, isNonMonetary: acc.isNonMonetary },
          groupAccountInput(target),
        )
      ) {
        throw invalid(
          '/groupAccountId',
          `Account ${acc.accountNumber} (${acc.accountType}${acc.isNonMonetary ? ', non-monetary' : ''}) cannot map to group account ${target.accountNumber} (${target.accountType}${target.isNonMonetary ? ', non-monetary' : ''}): type and monetary nature must agree`,
        );
      }
      companyId = acc.companyId;
      const [dup] = await tx
        .select({ id: groupAccountMappings.id })
        .from(groupAccountMappings)
        .where(inOrg(groupAccountMappings, orgId, { groupId: locked.id, accountId }));
      if (dup) throw alreadyMapped(accountId, dup.id);
    } else if (body.companyId) {
      companyId = body.companyId.toLowerCase();
      if (!members.has(companyId)) {
        if (!(await anyRow(tx, companies, inOrg(companies, orgId, { id: companyId }))))
          throw errors.CompanyNotFoundError('Company not found', { companyId });
        throw invalid('/companyId', 'The company is not in the group');
      }
    }
    const id = uuidv7();
    await tx.insert(groupAccountMappings).values({
      id,
      organizationId: orgId,
      groupId: locked.id,
      groupAccountId: target.id,
      companyId: accountId ? null : companyId,
      accountId,
      pattern: accountId ? null : body.pattern!,
      createdAt: new Date(),
    });
    await auditWrite(tx, access, 'GroupAccountMapping', { organizationId: orgId, id }, 'Create', {
      groupAccountId: { from: null, to: target.id },
      ...(accountId
        ? { accountId: { from: null, to: accountId } }
        : { pattern: { from: null, to: body.pattern } }),
    });
    const all = await loadMappings(tx, orgId, locked.id);
    return mappingRecord(all.find((m) => m.id === id)!);
  });
}

export async function listMappings(
  db: Db,
  access: Access,
  groupId: string,
  organizationId: string | undefined,
  page: PageParams,
) {
  const group = await authorizeGroup(db, access, groupId, organizationId, 'consolidation:read');
  const all = (await loadMappings(db, group.organizationId, group.id)).map(mappingRecord);
  return paged('mappings', all.slice(page.offset, page.offset + page.limit), all.length, page);
}

/** One mapping of the group (404 GroupAccountMappingNotFoundError when it is not one of the group's). */
export async function getMapping(
  db: Db,
  access: Access,
  groupId: string,
  mappingId: string,
  organizationId: string | undefined,
): Promise<MappingRecord> {
  const group = await authorizeGroup(db, access, groupId, organizationId, 'consolidation:read');
  const [found] = await loadMappings(db, group.organizationId, group.id, mappingId.toLowerCase());
  if (!found) throw mappingNotFound(mappingId);
  return mappingRecord(found);
}

export async function deleteMapping(
  db: Db,
  access: Access,
  groupId: string,
  mappingId: string,
  organizationId: string | undefined,
): Promise<void> {
  await writeGroup(db, access, groupId, organizationId, async (tx, locked) => {
    if (!isUuid(mappingId)) throw mappingNotFound(mappingId);
    const deleted = await tx
      .delete(groupAccountMappings)
      .where(
        inOrg(groupAccountMappings, locked.organizationId, {
          groupId: locked.id,
          id: mappingId.toLowerCase(),
        }),
      )
      .returning({ id: groupAccountMappings.id });
    if (deleted.length === 0) throw mappingNotFound(mappingId);
    await auditWrite(
      tx,
      access,
      'GroupAccountMapping',
      { organizationId: locked.organizationId, id: deleted[0]!.id },
      'Delete',
    );
  });
}

export interface PreviewLine {
  companyId: string;
  companyName: string;
  accountId: string;
  accountNumber: string;
  accountName: string;
  accountType: AccountType;
  groupAccountId: string | null;
  groupAccountNumber: string | null;
  mappedBy: 'Explicit' | 'Pattern' | null;
  pattern: string | null;
}

/**
 * Every account of the parent and every member with the group account it maps to (as a run would
 * map it), and the unmapped ones.
 */
export async function previewMappings(
  db: Db,
  access: Access,
  groupId: string,
  organizationId: string | undefined,
) {
  const group = await authorizeGroup(db, access, groupId, organizationId, 'consolidation:read');
  const orgId = group.organizationId;
  const ids = await groupCompanyIds(db, group);
  const [chartRows, chart, companyRows, accountRows] = await Promise.all([
    loadGroupAccounts(db, orgId, group.id),
    loadGroupChartInput(db, orgId, group.id),
    db
      .select({ id: companies.id, name: companies.name })
      .from(companies)
      .where(and(eq(companies.organizationId, orgId), inArray(companies.id, ids))),
    db
      .select({
        id: accounts.id,
        companyId: accounts.companyId,
        accountNumber: accounts.accountNumber,
        name: accounts.name,
        accountType: accounts.accountType,
        isNonMonetary: accounts.isNonMonetary,
      })
      .from(accounts)
      .where(and(eq(accounts.organizationId, orgId), inArray(accounts.companyId, ids))),
  ]);
  const names = new Map(companyRows.map((c) => [c.id, c.name]));
  const byNumber = new Map(chartRows.map((a) => [a.accountNumber, a.id]));
  const resolver = chart ? new MappingResolver(chart) : null;
  const order = new Map(ids.map((id, i) => [id, i]));
  const lines: PreviewLine[] = accountRows
    .sort(
      (a, b) =>
        order.get(a.companyId)! - order.get(b.companyId)! ||
        a.accountNumber.length - b.accountNumber.length ||
        (a.accountNumber < b.accountNumber ? -1 : a.accountNumber > b.accountNumber ? 1 : 0),
    )
    .map((a) => {
      const r = resolver?.resolve(a.companyId, {
        accountNumber: a.accountNumber,
        accountType: a.accountType as AccountType,
        isNonMonetary: a.isNonMonetary,
      });
      return {
        companyId: a.companyId,
        companyName: names.get(a.companyId) ?? '',
        accountId: a.id,
        accountNumber: a.accountNumber,
        accountName: a.name,
        accountType: a.accountType as AccountType,
        groupAccountId: r ? (byNumber.get(r.groupAccount.accountNumber) ?? null) : null,
        groupAccountNumber: r?.groupAccount.accountNumber ?? null,
        mappedBy: r?.mappedBy ?? null,
        pattern: r?.pattern ?? null,
      };
    });
  return {
    consolidationGroupId: group.id,
    hasGroupChart: chartRows.length > 0,
    accounts: lines,
    unmapped: lines.filter((l) => l.groupAccountNumber === null),
  };
}

// ---------------------------------------------------------------------------------------------------
// Intercompany-difference setting
