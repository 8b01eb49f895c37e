/**
 * Companies: list, get, create (optionally with an account template), update with PUT
 * semantics, and deactivation (DELETE = soft delete).
 */
import { nameKey } from '../../domain/text.ts';
import { and, asc, eq, ne } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type Db, inTransaction, pgConstraint, pgErrorCode, type Tx } from '../../db/client.ts';
import { anyRow, countRows, inOrg, requireRow, updateRow } from '../../db/rows.ts';
import { accounts, companies, fiscalYears } from '../../db/schema/index.ts';
import { isUsableRetainedEarningsAccount } from '../../domain/accounts.ts';
import { isJurisdictionCode } from '../../domain/codes.ts';
import { checkUnchanged, DomainError, invalid } from '../../domain/errors.ts';
import type { FiscalYearEnd } from '../../domain/fiscal-calendar.ts';
import type { TemplateType } from '../../domain/templates/index.ts';
import type { Access } from '../../access/access.ts';
import type { PageParams } from '../../http/pagination.ts';
import { pagedRows } from '../shared/lists.ts';
import { accountNotFound, invalidRetainedEarningsAccount } from '../charts/errors.ts';
import { insertTemplateAccounts, templateAuditChanges } from '../charts/templates.ts';
import { type AuditAction, auditWrite, diffChanges } from '../audit/service.ts';
import { type EventInput, recordEvent } from '../events/record.ts';
import {
  type CompanyRow,
  companyNotFound,
  findCompany,
  fiscalYearEndOf,
  unpostedEntryCount,
} from './lookup.ts';
import { errors } from '../../domain/error-catalogue.ts';

export { COMPANY_TYPES, type CompanyType } from '../../domain/companies.ts';
import type { CompanyType } from '../../domain/companies.ts';

export interface Address {
  line1: string;
  line2: string | null;
  city: string;
  region: string | null;
  postalCode: string;
  country: string;
}

export interface CompanyRecord {
  id: string;
  organizationId: string;
  name: string;
  legalName: string;
  jurisdiction: string;
  taxId: string | null;
  incorporationDate: string | null;
  registrationNumber: string | null;
  registeredAddress: Address | null;
  industryCode: string | null;
  companyType: string | null;
  incorporationJurisdiction: string | null;
  functionalCurrency: string;
  reportingCurrency: string;
  fiscalYearEnd: FiscalYearEnd;
  retainedEarningsAccountId: string | null;
  unrealizedFxGainLossAccountId: string | null;
  realizedFxGainLossAccountId: string | null;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
}

function addressOf(value: unknown): Address | null {
  if (value === null || value === undefined || typeof value !== 'object') return null;
  const a = value as Partial<Address>;
  return {
    line1: a.line1 ?? '',
    line2: a.line2 ?? null,
    city: a.city ?? '',
    region: a.region ?? null,
    postalCode: a.postalCode ?? '',
    country: a.country ?? '',
  };
}

/** The wire record of a company. */
export function companyRecord(row: CompanyRow): CompanyRecord {
  return {
    id: row.id,
    organizationId: row.organizationId,
    name: row.name,
    legalName: row.legalName,
    jurisdiction: row.jurisdiction,
    taxId: row.taxId,
    incorporationDate: row.incorporationDate,
    registrationNumber: row.registrationNumber,
    registeredAddress: addressOf(row.registeredAddress),
    industryCode: row.industryCode,
    companyType: row.companyType,
    incorporationJurisdiction: row.incorporationJurisdiction,
    functionalCurrency: row.functionalCurrency,
    reportingCurrency: row.reportingCurrency,
    fiscalYearEnd: fiscalYearEndOf(row),
    retainedEarningsAccountId: row.retainedEarningsAccountId,
    unrealizedFxGainLossAccountId: row.unrealizedFxGainLossAccountId,
    realizedFxGainLossAccountId: row.realizedFxGainLossAccountId,
    isActive: row.isActive,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function companyEvent(
  type: 'CompanyCreated' | 'CompanyDeactivated',
  actorId: string,
  record: CompanyRecord,
): EventInput {
  return {
    organizationId: record.organizationId,
    type,
    actorId,
    resourceType: 'Company',
    resourceId: record.id,
    data: record,
  };
}

/** The uniqueness key of a company name: trimmed, Unicode lower-cased (constraint `companies_name_uq`). */
export const companyNameKey = (name: string) => nameKey(name);

function nameTaken(name: string, organizationId: string): DomainError {
  return errors.CompanyNameAlreadyExistsError('A company with this name exists', {
    name,
    organizationId,
  });
}

function isNameConflict(err: unknown): boolean {
  return pgErrorCode(err) === '23505' && (pgConstraint(err) ?? 'companies_name_uq') === 'companies_name_uq';
}

function normalizeAddress(a: AddressInput | null | undefined): Address | null {
  if (!a) return null;
  return {
    line1: a.line1,
    line2: a.line2 ?? null,
    city: a.city,
    region: a.region ?? null,
    postalCode: a.postalCode,
    country: a.country,
  };
}

export interface AddressInput {
  line1: string;
  line2?: string | null;
  city: string;
  region?: string | null;
  postalCode: string;
  country: string;
}

export interface CreateCompanyInput {
  organizationId: string;
  name: string;
  legalName: string;
  jurisdiction: string;
  taxId?: string | null;
  incorporationDate?: string | null;
  registrationNumber?: string | null;
  registeredAddress?: AddressInput | null;
  industryCode?: string | null;
  companyType?: CompanyType | null;
  incorporationJurisdiction?: string | null;
  functionalCurrency: string;
  reportingCurrency: string;
  fiscalYearEnd: FiscalYearEnd;
  accountTemplate?: TemplateType | null;
}

/** A PUT: any field of a new company (but the template), and the account settings and status. */
export interface UpdateCompanyInput extends Partial<Omit<CreateCompanyInput, 'accountTemplate'>> {
  retainedEarningsAccountId?: string | null;
  unrealizedFxGainLossAccountId?: string | null;
  realizedFxGainLossAccountId?: string | null;
  isActive?: boolean | null;
}

export interface CompanyListQuery {
  organizationId: string;
  isActive?: boolean;
  jurisdiction?: string;
}

// ---------------------------------------------------------------------------------------------------
// Reads

export async function listCompanies(db: Db, access: Access, q: CompanyListQuery, page: PageParams) {
  if (q.jurisdiction !== undefined && !isJurisdictionCode(q.jurisdiction)) {
    throw invalid('/query/jurisdiction', 'Unknown jurisdiction country code');
  }
  await access.authorize(q.organizationId, 'company:read');
  const where = inOrg(companies, q.organizationId, { isActive: q.isActive, jurisdiction: q.jurisdiction });
  const order = [asc(companies.nameKey), asc(companies.id)];
  return pagedRows(db, companies, where, order, page, 'companies', (rows) => rows.map(companyRecord));
}

export async function getCompany(
  db: Db,
  access: Access,
  organizationId: string,
  companyId: string,
): Promise<CompanyRecord> {
  const row = await access.addressed(
    organizationId,
    'company:read',
    () => findCompany(db, organizationId, companyId),
    () => companyNotFound(companyId),
  );
  return companyRecord(row);
}

// ---------------------------------------------------------------------------------------------------
// Create

export async function createCompany(
  db: Db,
  access: Access,
  input: CreateCompanyInput,
): Promise<CompanyRecord> {
  const organizationId = input.organizationId;
  await access.authorize(organizationId, 'company:manage');
  try {
    return await inTransaction(db, async (tx) => {
      const id = uuidv7();
      const now = new Date();
      const [row] = await tx
        .insert(companies)
        .values({
          id,
          organizationId,
          name: input.name,
          nameKey: companyNameKey(input.name),
          legalName: input.legalName,
          jurisdiction: input.jurisdiction,
          taxId: input.taxId ?? null,
          incorporationDate: input.incorporationDate ?? null,
          registrationNumber: input.registrationNumber ?? null,
          registeredAddress: normalizeAddress(input.registeredAddress),
          industryCode: input.industryCode ?? null,
          companyType: input.companyType ?? null,
          incorporationJurisdiction: input.incorporationJurisdiction ?? null,
          functionalCurrency: input.functionalCurrency,
          reportingCurrency: input.reportingCurrency,
          fiscalYearEndMonth: input.fiscalYearEnd.month,
          fiscalYearEndDay: input.fiscalYearEnd.day,
          retainedEarningsAccountId: null,
          unrealizedFxGainLossAccountId: null,
          realizedFxGainLossAccountId: null,
          isActive: true,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      await auditWrite(tx, access, 'Company', { organizationId, id }, 'Create');
      if (!input.accountTemplate) {
        const record = companyRecord(row!);
        await recordEvent(tx, companyEvent('CompanyCreated', access.userId, record));
        return record;
      }
      const applied = await insertTemplateAccounts(tx, {
        organizationId,
        companyId: id,
        templateType: input.accountTemplate,
        now,
      });
      await auditWrite(
        tx,
        access,
        'Company',
        { organizationId, id },
        'ApplyTemplate',
        templateAuditChanges(applied.templateType, applied.createdCount, null, applied),
      );
      const record = companyRecord({
        ...row!,
        retainedEarningsAccountId: applied.retainedEarningsAccountId,
        unrealizedFxGainLossAccountId: applied.fxGainLossAccountId,
        realizedFxGainLossAccountId: applied.fxGainLossAccountId,
      });
      await recordEvent(tx, companyEvent('CompanyCreated', access.userId, record));
      return record;
    });
  } catch (err) {
    if (isNameConflict(err)) throw nameTaken(input.name, organizationId);
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------------
// Update and deactivate

/** Exchange differences go to the income statement: an active, postable revenue or expense account. */
function isUsableFxGainLossAccount(a: { accountType: string; isActive: boolean; isPostable: boolean }) {
  return (a.accountType === 'Revenue' || a.accountType === 'Expense') && a.isActive && a.isPostable;
}

function unpostedError(companyId: string, unpostedEntryCount: number): DomainError {
  return errors.CompanyHasUnpostedEntriesError('The company has journal entries that are not posted', {
    companyId,
    unpostedEntryCount,
  });
}

/** organizationId and functionalCurrency cannot change: sent with another value, a validation issue. */
function checkImmutableCompany(input: UpdateCompanyInput, row: CompanyRow): void {
  checkUnchanged(
    {
      organizationId: { sent: input.organizationId, stored: row.organizationId },
      functionalCurrency: { sent: input.functionalCurrency, stored: row.functionalCurrency },
    },
    (field) => `${field} is immutable`,
  );
}

/** The record after the update: each field sent replaces the current one. */
function updatedCompany(before: CompanyRecord, input: UpdateCompanyInput): CompanyRecord {
  const after: CompanyRecord = { ...before };
  if (input.name !== undefined) after.name = input.name;
  if (input.legalName !== undefined) after.legalName = input.legalName;
  if (input.jurisdiction !== undefined) after.jurisdiction = input.jurisdiction;
  if (input.taxId !== undefined) after.taxId = input.taxId;
  if (input.incorporationDate !== undefined) after.incorporationDate = input.incorporationDate;
  if (input.registrationNumber !== undefined) after.registrationNumber = input.registrationNumber;
  if (input.registeredAddress !== undefined)
    after.registeredAddress = normalizeAddress(input.registeredAddress);
  if (input.industryCode !== undefined) after.industryCode = input.industryCode;
  if (input.companyType !== undefined) after.companyType = input.companyType;
  if (input.incorporationJurisdiction !== undefined)
    after.incorporationJurisdiction = input.incorporationJurisdiction;
  if (input.reportingCurrency !== undefined) after.reportingCurrency = input.reportingCurrency;
  if (input.fiscalYearEnd !== undefined) after.fiscalYearEnd = { ...input.fiscalYearEnd };
  if (input.retainedEarningsAccountId !== undefined)
    after.retainedEarningsAccountId = input.retainedEarningsAccountId;
  if (input.unrealizedFxGainLossAccountId !== undefined)
    after.unrealizedFxGainLossAccountId = input.unrealizedFxGainLossAccountId;
  if (input.realizedFxGainLossAccountId !== undefined)
    after.realizedFxGainLossAccountId = input.realizedFxGainLossAccountId;
  if (input.isActive !== undefined) after.isActive = input.isActive ?? true;
  return after;
}

/** An account of the company named by a setting, locked (404 AccountNotFoundError when missing). */
async function settingAccount(
  tx: Tx,
  company: { organizationId: string; companyId: string },
  accountId: string,
  lock: 'update' | 'share',
) {
  return requireRow(
    tx,
    accounts,
    company.organizationId,
    { companyId: company.companyId, id: accountId },
    () => accountNotFound(accountId),
    lock,
  );
}

/** The update's business rules, in the order of the endpoint's Errors column. */
async function checkCompanyUpdate(
  tx: Tx,
  row: CompanyRow,
  before: CompanyRecord,
  after: CompanyRecord,
): Promise<void> {
  const organizationId = row.organizationId;
  const companyId = row.id;
  if (companyNameKey(after.name) !== row.nameKey) {
    const taken = await anyRow(
      tx,
      companies,
      and(
        eq(companies.organizationId, organizationId),
        eq(companies.nameKey, companyNameKey(after.name)),
        ne(companies.id, companyId),
      ),
    );
    if (taken) throw nameTaken(after.name, organizationId);
  }
  if (
    after.fiscalYearEnd.month !== before.fiscalYearEnd.month ||
    after.fiscalYearEnd.day !== before.fiscalYearEnd.day
  ) {
    await checkNoFiscalYears(tx, organizationId, companyId);
  }
  if (
    after.retainedEarningsAccountId !== null &&
    after.retainedEarningsAccountId !== before.retainedEarningsAccountId
  ) {
    const accountId = after.retainedEarningsAccountId;
    const account = await settingAccount(tx, { organizationId, companyId }, accountId, 'update');
    if (!isUsableRetainedEarningsAccount(account)) {
      throw invalidRetainedEarningsAccount(accountId, account.accountType, account.accountCategory);
    }
  }
  for (const setting of ['unrealizedFxGainLossAccountId', 'realizedFxGainLossAccountId'] as const) {
    const accountId = after[setting];
    if (accountId === null || accountId === before[setting]) continue;
    const account = await settingAccount(tx, { organizationId, companyId }, accountId, 'share');
    if (!isUsableFxGainLossAccount(account)) {
      throw errors.InvalidFxGainLossAccountError(
        'An exchange gain/loss account must be an active, postable revenue or expense account',
        { accountId, setting, accountType: account.accountType },
      );
    }
  }
  if (before.isActive && !after.isActive) {
    const count = await unpostedEntryCount(tx, organizationId, companyId);
    if (count > 0) throw unpostedError(companyId, count);
  }
}

/** The fiscal year end cannot change while the company has fiscal years. */
async function checkNoFiscalYears(tx: Tx, organizationId: string, companyId: string): Promise<void> {
  const fiscalYearCount = await countRows(tx, fiscalYears, inOrg(fiscalYears, organizationId, { companyId }));
  if (fiscalYearCount > 0) {
    throw errors.FiscalYearEndChangeNotAllowedError(
      'The fiscal year end cannot change while fiscal years exist',
      { companyId, fiscalYearCount },
    );
  }
}

/** Writes the updated record. */
async function storeCompany(tx: Tx, organizationId: string, companyId: string, after: CompanyRecord) {
  return updateRow(tx, companies, inOrg(companies, organizationId, { id: companyId }), {
    name: after.name,
    nameKey: companyNameKey(after.name),
    legalName: after.legalName,
    jurisdiction: after.jurisdiction,
    taxId: after.taxId,
    incorporationDate: after.incorporationDate,
    registrationNumber: after.registrationNumber,
    registeredAddress: after.registeredAddress,
    industryCode: after.industryCode,
    companyType: after.companyType,
    incorporationJurisdiction: after.incorporationJurisdiction,
    reportingCurrency: after.reportingCurrency,
    fiscalYearEndMonth: after.fiscalYearEnd.month,
    fiscalYearEndDay: after.fiscalYearEnd.day,
    retainedEarningsAccountId: after.retainedEarningsAccountId,
    unrealizedFxGainLossAccountId: after.unrealizedFxGainLossAccountId,
    realizedFxGainLossAccountId: after.realizedFxGainLossAccountId,
    isActive: after.isActive,
    updatedAt: new Date(),
  });
}

export async function updateCompany(
  db: Db,
  access: Access,
  organizationId: string,
  companyId: string,
  input: UpdateCompanyInput,
): Promise<CompanyRecord> {
  try {
    return await inTransaction(db, async (tx) => {
      const row = await access.addressed(
        organizationId,
        'company:manage',
        () => findCompany(tx, organizationId, companyId, 'update'),
        () => companyNotFound(companyId),
      );
      const before = companyRecord(row);
      checkImmutableCompany(input, row);
      const after = updatedCompany(before, input);
      await checkCompanyUpdate(tx, row, before, after);

      const changes = diffChanges(
        before as unknown as Record<string, unknown>,
        after as unknown as Record<string, unknown>,
      );
      if (Object.keys(changes).length === 0) return before;
      const updated = await storeCompany(tx, organizationId, companyId, after);
      await auditWrite(tx, access, 'Company', { organizationId, id: companyId }, 'Update', changes);
      const record = companyRecord(updated);
      if (before.isActive && !record.isActive) {
        await recordEvent(tx, companyEvent('CompanyDeactivated', access.userId, record));
      }
      return record;
    });
  } catch (err) {
    if (isNameConflict(err) && input.name !== undefined) throw nameTaken(input.name, organizationId);
    throw err;
  }
}

/** DELETE: soft delete (isActive false), idempotent; refused while unposted entries exist. */
export async function deactivateCompany(
  db: Db,
  access: Access,
  organizationId: string,
  companyId: string,
): Promise<void> {
  await inTransaction(db, async (tx) => {
    const row = await access.addressed(
      organizationId,
      'company:manage',
      () => findCompany(tx, organizationId, companyId, 'update'),
      () => companyNotFound(companyId),
    );
    if (!row.isActive) return;
    const count = await unpostedEntryCount(tx, organizationId, companyId);
    if (count > 0) throw unpostedError(companyId, count);
    const updated = await updateRow(tx, companies, inOrg(companies, organizationId, { id: companyId }), {
      isActive: false,
      updatedAt: new Date(),
    });
    await recordEvent(tx, companyEvent('CompanyDeactivated', access.userId, companyRecord(updated)));
    const action: AuditAction = 'Deactivate';
    await auditWrite(tx, access, 'Company', { organizationId, id: companyId }, action, {
      isActive: { from: true, to: false },
    });
  });
}
