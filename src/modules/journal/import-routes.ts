/** Trial-balance imports of a company: upload (CSV or JSON), and the list of past imports. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ACCOUNT_CATEGORIES } from '../../domain/accounts.ts';
import { IMPORT_MODES } from '../../domain/trial-balance-import.ts';
import { digestOf } from '../../http/csv-body.ts';
import { canonicalJson } from '../../http/idempotency.ts';
import { pageParams } from '../../http/pagination.ts';
import { IdParams, route } from '../../http/route.ts';
import {
  IsoDate,
  Money,
  Nullable,
  Page,
  PageQuery,
  StringEnum,
  Timestamp,
  Type,
  Uuid,
} from '../../http/schemas.ts';
import {
  importOptions,
  importRowsError,
  importTrialBalance,
  listImports,
  locateCompany,
} from './trial-balance-import.ts';

/** Body limit of an import (about 50,000 rows of CSV or JSON, with room). */
const IMPORT_BODY_LIMIT = 32 * 1_048_576;
const MAX_ROWS = 100_000;

const Cell = Type.Optional(Nullable(Type.String({ maxLength: 255 })));
const Row = Type.Object({
  accountNumber: Cell,
  accountName: Cell,
  debit: Cell,
  credit: Cell,
  currency: Cell,
  category: Cell,
});
const Mode = StringEnum(IMPORT_MODES, {
  description:
    'Opening: posts the balances as given; Periodic: posts the changes that bring the books to them',
});
const CategoryRule = Type.Object({
  from: Type.String({ maxLength: 10 }),
  to: Type.String({ maxLength: 10 }),
  category: StringEnum(ACCOUNT_CATEGORIES as readonly string[]),
});

/** The options an import takes in its JSON body or, for a CSV upload, in its query string. */
const ImportOptions = {
  organizationId: Type.Optional(Uuid),
  asOfDate: Type.Optional(IsoDate),
  mode: Type.Optional(Mode),
  dryRun: Type.Optional(Type.Boolean()),
  createMissingAccounts: Type.Optional(Type.Boolean()),
};

const ImportBody = Type.Object({
  ...ImportOptions,
  categoryRules: Type.Optional(Type.Array(CategoryRule, { maxItems: 200 })),
  rows: Type.Array(Row, { maxItems: MAX_ROWS }),
});

const ImportQuery = Type.Object({
  ...ImportOptions,
  categoryRules: Type.Optional(
    Type.String({
      maxLength: 4000,
      description: 'CSV uploads: rules `from-to:Category`, comma-separated, e.g. `1000-1999:CurrentAsset`',
    }),
  ),
});

const ImportRecord = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  companyId: Uuid,
  mode: Mode,
  asOfDate: Type.String({ description: 'Date YYYY-MM-DD' }),
  sourceFormat: StringEnum(['csv', 'json'] as const),
  fileDigest: Type.String({ description: 'SHA-256 (hex) of the CSV file, or of the canonical JSON rows' }),
  rowCount: Type.Integer(),
  createdAccountCount: Type.Integer(),
  totalDebits: Money,
  totalCredits: Money,
  journalEntryId: Nullable(Uuid),
  journalEntryIds: Type.Array(Uuid, {
    description:
      'Every entry posted, in number order: one, or several balanced entries of up to 10,000 lines each',
  }),
  createdBy: Uuid,
  createdAt: Timestamp,
});

const ImportResult = Type.Object({
  dryRun: Type.Boolean(),
  import: Nullable(ImportRecord),
  entry: Nullable(
    Type.Object({
      transactionDate: Type.String(),
      description: Type.String(),
      lines: Type.Array(
        Type.Object({
          accountId: Nullable(Uuid),
          accountNumber: Type.String(),
          debit: Nullable(Money),
          credit: Nullable(Money),
        }),
      ),
    }),
  ),
  differences: Type.Array(
    Type.Object({
      row: Nullable(Type.Integer()),
      accountId: Nullable(Uuid),
      accountNumber: Type.String(),
      currentBalance: Money,
      importedBalance: Money,
      difference: Money,
    }),
  ),
  accountsToCreate: Type.Array(
    Type.Object({
      row: Type.Integer(),
      accountNumber: Type.String(),
      accountName: Type.String(),
      category: Type.String(),
    }),
  ),
});

const CSV_COLUMNS: Record<string, string> = {
  accountnumber: 'accountNumber',
  accountname: 'accountName',
  debit: 'debit',
  credit: 'credit',
  currency: 'currency',
  category: 'category',
  accountcategory: 'category',
};

const idPath = {
  id: { tag: 'CompanyNotFoundError', field: 'companyId', message: 'Company not found' },
};
const tags = ['Trial-balance imports'];

export const importRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db } = app.deps;

  route(app, {
    method: 'POST',
    url: '/api/v1/companies/:id/trial-balance-imports',
    tags,
    summary: 'Import a trial balance',
    description:
      'Admin. A CSV file (`text/csv`: header row naming accountNumber, accountName, debit, credit and ' +
      'optionally currency and category, case-insensitive; `,` or `;` separated; UTF-8 byte-order mark ' +
      'accepted; options in the query string) or JSON (options and rows in the body). Balances are in ' +
      "the company's functional currency. `Opening` posts an entry of the balances as given; `Periodic` " +
      "posts the entry that moves the company's balances at `asOfDate` to the file's (accounts missing " +
      'from the file go to zero). `dryRun` answers the entry and the per-account differences and writes ' +
      'nothing (200). Unknown account numbers are errors unless `createMissingAccounts`, with a category ' +
      'per row or by `categoryRules`. Nothing is written when any row fails: ' +
      '400 TrialBalanceImportError {errors: [{row, column, message}], errorCount} (rows 1-based, header ' +
      'excluded; 0 is the header); 400 UnbalancedTrialBalanceError {totalDebits, totalCredits, ' +
      'difference}; 400 FiscalPeriodClosedError. The import is recorded (201) with the posted entry ' +
      '(null when the books already matched). With the same Idempotency-Key, the same upload creates one ' +
      'entry.',
    pathIds: idPath,
    csvBody: {
      columns: CSV_COLUMNS,
      required: ['accountNumber', 'debit', 'credit'],
      error: (errors) => importRowsError(errors),
      body: (rows) => ({ rows }),
    },
    access: 'journal_entry:post',
    errors: [
      'CompanyNotFoundError',
      'CompanyInactiveError',
      'ValidationError',
      'TrialBalanceImportError',
      'UnbalancedTrialBalanceError',
      'FiscalPeriodClosedError',
    ],
    bodyLimit: IMPORT_BODY_LIMIT,
    params: IdParams,
    querystring: ImportQuery,
    body: ImportBody,
    response: { 200: ImportResult, 201: ImportResult },
    handler: async (request, reply) => {
      const body = request.body;
      const options = importOptions(body, request.query);
      const csv = request.uploadDigest;
      const company = await locateCompany(
        db,
        request.access,
        request.params.id,
        body.organizationId ?? request.query.organizationId,
        'journal_entry:post',
      );
      const result = await importTrialBalance(db, request.access, company, {
        ...options,
        rows: body.rows,
        sourceFormat: csv !== null ? 'csv' : 'json',
        fileDigest: csv ?? digestOf(canonicalJson(body.rows)),
      });
      return reply.code(result.dryRun ? 200 : 201).send(result);
    },
  });

  route(app, {
    method: 'GET',
    url: '/api/v1/companies/:id/trial-balance-imports',
    tags,
    summary: 'List the trial-balance imports of a company',
    description: 'Viewer. Newest first.',
    pathIds: idPath,
    access: 'journal_entry:read',
    errors: ['CompanyNotFoundError'],
    params: IdParams,
    querystring: Type.Object({ organizationId: Type.Optional(Uuid), ...PageQuery }),
    response: { 200: Page('imports', ImportRecord) },
    handler: async (request) => {
      const company = await locateCompany(
        db,
        request.access,
        request.params.id,
        request.query.organizationId,
        'journal_entry:read',
      );
      return listImports(db, company, pageParams(request.query));
    },
  });
};
