/**
 * Trial-balance imports of a company (the accounting rules are src/domain/trial-balance-import.ts):
 * the rows are checked, the accounts resolved by number (created when asked, with a category per row
 * or by range rules), the company's balances at the date read for a `Periodic` import, and — unless
 * it is a dry run — in ONE transaction the missing accounts created, the entry written posted with
 * its lines in the balances, and the import recorded. A dry run answers the entry and the
 * per-account differences and writes nothing. Every refusal of a row names the row and the column;
 * any refusal writes nothing.
 */
import type { Db, Queryable } from '../../db/client.ts';
import { inOrg } from '../../db/rows.ts';
import { inTransaction } from '../../db/client.ts';
import { accounts } from '../../db/schema/index.ts';
import type { DomainError } from '../../domain/errors.ts';
import { type Decimal, money } from '../../domain/money.ts';
import { figuresNet } from '../../domain/reports/index.ts';
import {
  categoryByRules,
  categoryRuleErrors,
  checkImportRows,
  compareAccountNumber,
  importDifferences,
  importTotals,
  type RowError,
} from '../../domain/trial-balance-import.ts';
import type { Access } from '../../access/access.ts';
import { uuidv7Batch } from '../../db/bulk-params.ts';
import type { CompanyRow } from '../companies/lookup.ts';
import { aggregateBalances, all, onOrBefore } from '../ledger/report-figures.ts';
import { organizationSettings } from '../organizations/service.ts';
import { checkCompany, resolveFiscalPeriod } from './checks.ts';
import { errors as fail } from '../../domain/error-catalogue.ts';
import type {
  ImportDifference,
  ImportDifferences,
  ImportInput,
  ImportResult,
} from './trial-balance-import.records.ts';
import { writeImport } from './trial-balance-import.write.ts';

export {
  type ImportDifference,
  type ImportInput,
  type ImportPreviewLine,
  type ImportRecord,
  type ImportResult,
  importOptions,
  listImports,
  locateCompany,
} from './trial-balance-import.records.ts';
export { MAX_LINES_PER_ENTRY } from './trial-balance-import.write.ts';

/** `400 TrialBalanceImportError {errors: [{row, column, message}]}`: every problem of the file. */
export function importRowsError(errors: RowError[]): DomainError {
  return fail.TrialBalanceImportError('The trial balance has errors', {
    errors: errors.slice(0, 1000),
    errorCount: errors.length,
  });
}

interface AccountRef {
  id: string;
  accountNumber: string;
  isActive: boolean;
  isPostable: boolean;
}

async function companyAccounts(q: Queryable, company: CompanyRow): Promise<Map<string, AccountRef>> {
  const rows = await q
    .select({
      id: accounts.id,
      accountNumber: accounts.accountNumber,
      isActive: accounts.isActive,
      isPostable: accounts.isPostable,
    })
    .from(accounts)
    .where(inOrg(accounts, company.organizationId, { companyId: company.id }));
  return new Map(rows.map((r) => [r.accountNumber, r]));
}

/** Debit-positive balances of every account of the company at the date (all booked entries). */
async function currentBalances(
  q: Queryable,
  company: CompanyRow,
  date: string,
): Promise<Map<string, Decimal>> {
  const { at } = await aggregateBalances(q, company.organizationId, company.id, onOrBefore(date), {
    at: all(),
  });
  return new Map(at.map((f) => [f.accountId, figuresNet(f)]));
}

type ToCreate = ImportResult['accountsToCreate'];
type CheckedRows = ReturnType<typeof checkImportRows>['rows'];

/**
 * The problems of the rows' accounts, each naming its row: every account must exist, be active and
 * postable, or be created (when asked, with a category from its row or the rules). Answers the
 * accounts to create.
 */
function checkAccounts(
  rows: CheckedRows,
  byNumber: Map<string, AccountRef>,
  input: ImportInput,
  errors: RowError[],
): ToCreate {
  const toCreate: ToCreate = [];
  for (const r of rows) {
    const a = byNumber.get(r.accountNumber);
    if (a) {
      if (!a.isActive)
        errors.push({
          row: r.row,
          column: 'accountNumber',
          message: `Account ${r.accountNumber} is inactive`,
        });
      else if (!a.isPostable) {
        errors.push({
          row: r.row,
          column: 'accountNumber',
          message: `Account ${r.accountNumber} is a summary account`,
        });
      }
      continue;
    }
    if (!input.createMissingAccounts) {
      errors.push({
        row: r.row,
        column: 'accountNumber',
        message: `No account ${r.accountNumber} in the company (set createMissingAccounts to create it)`,
      });
      continue;
    }
    const category = r.category ?? categoryByRules(r.accountNumber, input.categoryRules);
    if (category === null) {
      errors.push({
        row: r.row,
        column: 'category',
        message: `Account ${r.accountNumber} is created: give its category (column or rule)`,
      });
      continue;
    }
    toCreate.push({
      row: r.row,
      accountNumber: r.accountNumber,
      accountName: r.accountName ?? `Account ${r.accountNumber}`,
      category,
    });
  }
  return toCreate;
}

/** Debits must equal credits (400 UnbalancedTrialBalanceError otherwise); answers the totals. */
function checkBalanced(rows: CheckedRows, fc: string): ReturnType<typeof importTotals> {
  const totals = importTotals(rows);
  if (!totals.debit.equals(totals.credit)) {
    throw fail.UnbalancedTrialBalanceError('Total debits and total credits differ', {
      totalDebits: money(totals.debit, fc),
      totalCredits: money(totals.credit, fc),
      difference: money(totals.debit.minus(totals.credit), fc),
    });
  }
  return totals;
}

export async function importTrialBalance(
  db: Db,
  access: Access,
  company: CompanyRow,
  input: ImportInput,
): Promise<ImportResult> {
  const fc = company.functionalCurrency;
  const checked = checkImportRows(input.rows, fc);
  const errors = [...categoryRuleErrors(input.categoryRules), ...checked.errors];
  if (input.rows.length === 0)
    errors.push({ row: 0, column: 'accountNumber', message: 'The file has no rows' });
  const byNumber = await companyAccounts(db, company);
  const toCreate = checkAccounts(checked.rows, byNumber, input, errors);
  if (errors.length > 0) {
    errors.sort((a, b) => a.row - b.row);
    throw importRowsError(errors);
  }
  const totals = checkBalanced(checked.rows, fc);
  // R1 and R4 on the entry, as a create checks them.
  checkCompany(company.id, company);
  const ref = resolveFiscalPeriod(company, input.asOfDate, null, '/asOfDate');
  const description = `Trial balance import (${input.mode}) as of ${input.asOfDate}`;

  const createdIds = uuidv7Batch(toCreate.length);
  const created = new Map(toCreate.map((c, i) => [c.accountNumber, createdIds[i]!]));
  const idOf = (n: string) => byNumber.get(n)?.id ?? created.get(n)!;
  const rowOf = new Map(checked.rows.map((r) => [idOf(r.accountNumber), r]));
  const numberOf = new Map([...byNumber.values()].map((a) => [a.id, a.accountNumber]));
  for (const [n, id] of created) numberOf.set(id, n);

  const plan = async (q: Queryable) => {
    const current = input.mode === 'Periodic' ? await currentBalances(q, company, input.asOfDate) : new Map();
    const imported = new Map(checked.rows.map((r) => [idOf(r.accountNumber), r.net]));
    return importDifferences(input.mode, imported, current).filter((d) => numberOf.has(d.accountKey));
  };

  if (input.dryRun) {
    const differences = await plan(db);
    return {
      dryRun: true,
      import: null,
      entry: entryPreview(differences, numberOf, created, input.asOfDate, description, fc),
      differences: differenceRecords(differences, rowOf, numberOf, created, fc),
      accountsToCreate: toCreate,
    };
  }

  const settings = await organizationSettings(db, company.organizationId, access);
  const write = {
    access,
    company,
    input,
    ref,
    description,
    defaultTimezone: settings.defaultTimezone,
    toCreate,
    createdIds,
    numberOf,
    totals,
    plan,
  };
  return inTransaction(db, (tx) => writeImport(tx, write));
}

function entryPreview(
  differences: ImportDifferences,
  numberOf: Map<string, string>,
  created: Map<string, string>,
  date: string,
  description: string,
  fc: string,
): ImportResult['entry'] {
  const createdIds = new Set(created.values());
  const lines = differences
    .filter((d) => !d.difference.isZero())
    .sort((a, b) => compareAccountNumber(numberOf.get(a.accountKey)!, numberOf.get(b.accountKey)!))
    .map((d) => ({
      accountId: createdIds.has(d.accountKey) ? null : d.accountKey,
      accountNumber: numberOf.get(d.accountKey)!,
      debit: d.difference.greaterThan(0) ? money(d.difference, fc) : null,
      credit: d.difference.lessThan(0) ? money(d.difference.negated(), fc) : null,
    }));
  return { transactionDate: date, description, lines };
}

function differenceRecords(
  differences: ImportDifferences,
  rowOf: Map<string, { row: number }>,
  numberOf: Map<string, string>,
  created: Map<string, string>,
  fc: string,
): ImportDifference[] {
  const createdIds = new Set(created.values());
  return differences.map((d) => ({
    row: rowOf.get(d.accountKey)?.row ?? null,
    accountId: createdIds.has(d.accountKey) ? null : d.accountKey,
    accountNumber: numberOf.get(d.accountKey)!,
    currentBalance: money(d.current, fc),
    importedBalance: money(d.imported, fc),
    difference: money(d.difference, fc),
  }));
}
