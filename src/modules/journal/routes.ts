/** Journal-entry endpoints. */
import type { ErrorTag } from '../../domain/error-catalogue.ts';
import { type Issue, ValidationError } from '../../domain/errors.ts';
import { CursorPage, CursorQuery, pageParams } from '../../http/pagination.ts';
import { byId, created, forId, inPath, noContent, route } from '../../http/route.ts';
import { type RouteApp, routesPlugin } from '../../http/route-app.ts';
import {
  IsoDate,
  Money,
  MoneyInput,
  Nullable,
  PageQuery,
  PeriodRef,
  Rate,
  RateInput,
  StringEnum,
  Text,
  Timestamp,
  Type,
  Uuid,
} from '../../http/schemas.ts';
import { sendPageInSlices } from '../../http/sliced-json.ts';
import { withBodyCheck } from '../../http/validation.ts';
import { EXPORT_FORMATS, exportFormat, sendRowStream } from '../../http/export.ts';
import { JOURNAL_LINE_COLUMNS } from '../../domain/reports/tabular.ts';
import { YEAR_END_REF_PREFIX } from '../../domain/journal/rules.ts';
import { ENTRY_STATUSES, ENTRY_TYPES, SOURCE_MODULES } from '../../domain/journal/workflow.ts';
import { createEntriesJson, bulkBodyIssues, MAX_BULK_ENTRIES, MAX_BULK_LINES } from './bulk.ts';
import * as entries from './entries.ts';

/** Body limit of the bulk route (about 50,000 lines of JSON). */
const BULK_BODY_LIMIT = 64 * 1_048_576;
import { type LineInput, lineShapeIssues } from './lines.ts';
import { reverseEntry } from './reversal.ts';
import * as workflow from './workflow.ts';

const StatusSchema = StringEnum(ENTRY_STATUSES);
const EntryTypeSchema = StringEnum(ENTRY_TYPES);
const SourceModuleSchema = StringEnum(SOURCE_MODULES);

const JournalLine = Type.Object({
  id: Uuid,
  journalEntryId: Uuid,
  lineNumber: Type.Integer(),
  accountId: Uuid,
  debitAmount: Nullable(Money),
  creditAmount: Nullable(Money),
  functionalCurrencyDebitAmount: Nullable(Money),
  functionalCurrencyCreditAmount: Nullable(Money),
  exchangeRate: Rate,
  exchangeRateId: Nullable(Uuid),
  exchangeRateLegIds: Type.Array(Uuid),
  memo: Nullable(Type.String()),
  dimensions: Nullable(Type.Record(Type.String(), Type.String())),
  intercompanyPartnerId: Nullable(Uuid),
});

const DateOut = Type.String({ description: 'Date YYYY-MM-DD' });
export const JournalEntry = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  companyId: Uuid,
  entryNumber: Type.String(),
  referenceNumber: Nullable(Type.String()),
  description: Type.String(),
  transactionDate: DateOut,
  documentDate: Nullable(DateOut),
  postingDate: Nullable(DateOut),
  fiscalPeriod: Type.Object({ year: Type.Integer(), period: Type.Integer() }),
  entryType: EntryTypeSchema,
  sourceModule: SourceModuleSchema,
  sourceDocumentRef: Nullable(Type.String()),
  isMultiCurrency: Type.Boolean(),
  status: StatusSchema,
  isReversing: Type.Boolean(),
  reversedEntryId: Nullable(Uuid),
  reversingEntryId: Nullable(Uuid),
  totalDebits: Money,
  totalCredits: Money,
  createdBy: Uuid,
  submittedBy: Nullable(Uuid),
  submittedAt: Nullable(Timestamp),
  approvedBy: Nullable(Uuid),
  approvedAt: Nullable(Timestamp),
  rejectedBy: Nullable(Uuid),
  rejectedAt: Nullable(Timestamp),
  rejectionReason: Nullable(Type.String()),
  postedBy: Nullable(Uuid),
  postedAt: Nullable(Timestamp),
  reversedBy: Nullable(Uuid),
  reversedAt: Nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  lines: Type.Array(JournalLine),
});

const Dimensions = Type.Record(
  Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$' }),
  Type.String({ minLength: 1, maxLength: 255 }),
  { maxProperties: 20, additionalProperties: false },
);

const LineInput = Type.Object({
  accountId: Uuid,
  debitAmount: Type.Optional(Nullable(MoneyInput)),
  creditAmount: Type.Optional(Nullable(MoneyInput)),
  exchangeRate: Type.Optional(Nullable(RateInput)),
  memo: Type.Optional(Nullable(Text(1000))),
  dimensions: Type.Optional(Nullable(Dimensions)),
  intercompanyPartnerId: Type.Optional(Nullable(Uuid)),
});
const Lines = Type.Array(LineInput, { minItems: 2, maxItems: 500 });

const CreateBody = Type.Object({
  organizationId: Uuid,
  companyId: Uuid,
  description: Text(1000),
  transactionDate: IsoDate,
  documentDate: Type.Optional(Nullable(IsoDate)),
  fiscalPeriod: Type.Optional(Nullable(PeriodRef)),
  entryType: Type.Optional(EntryTypeSchema),
  sourceModule: Type.Optional(SourceModuleSchema),
  referenceNumber: Type.Optional(Nullable(Text(100))),
  sourceDocumentRef: Type.Optional(Nullable(Text(255))),
  lines: Lines,
});

const UpdateBody = Type.Object({
  organizationId: Type.Optional(Uuid),
  companyId: Type.Optional(Uuid),
  description: Type.Optional(Text(1000)),
  transactionDate: Type.Optional(IsoDate),
  documentDate: Type.Optional(Nullable(IsoDate)),
  fiscalPeriod: Type.Optional(Nullable(PeriodRef)),
  entryType: Type.Optional(Nullable(EntryTypeSchema)),
  sourceModule: Type.Optional(Nullable(SourceModuleSchema)),
  referenceNumber: Type.Optional(Nullable(Text(100))),
  sourceDocumentRef: Type.Optional(Nullable(Text(255))),
  lines: Type.Optional(Lines),
});

const PostBody = Type.Object({
  organizationId: Type.Optional(Uuid),
  postedBy: Type.Optional(Nullable(Uuid)),
  postingDate: Type.Optional(Nullable(IsoDate)),
});

const ReverseBody = Type.Object({
  organizationId: Type.Optional(Uuid),
  reversalDate: IsoDate,
  reversalDescription: Type.Optional(Nullable(Text(1000))),
  reversedBy: Type.Optional(Nullable(Uuid)),
});

const RejectBody = Type.Object({ reason: Type.Optional(Nullable(Text(2000))) });

const ListQuery = Type.Object({
  organizationId: Type.Optional(Uuid),
  companyId: Type.Optional(Uuid),
  status: Type.Optional(StatusSchema),
  entryType: Type.Optional(EntryTypeSchema),
  sourceModule: Type.Optional(SourceModuleSchema),
  fiscalYear: Type.Optional(Type.Integer({ minimum: 1900, maximum: 2999 })),
  fiscalPeriod: Type.Optional(Type.Integer({ minimum: 1, maximum: 13 })),
  fromDate: Type.Optional(IsoDate),
  toDate: Type.Optional(IsoDate),
  accountId: Type.Optional(Uuid),
  format: Type.Optional(
    StringEnum(EXPORT_FORMATS, {
      description:
        'Answer format: `json` (default, one page), `csv` or `xlsx` (one row per line of every matching entry, streamed; `limit` and `offset` do not apply). Without it the Accept header chooses.',
    }),
  ),
  ...PageQuery,
  ...CursorQuery,
});

/** Cross-field rules of the field tables, checked with the syntax checks. */
function bodyIssues(body: { lines?: LineInput[]; sourceDocumentRef?: string | null }): Issue[] {
  const issues = lineShapeIssues(body.lines);
  if (typeof body.sourceDocumentRef === 'string' && body.sourceDocumentRef.startsWith(YEAR_END_REF_PREFIX)) {
    issues.push({
      path: '/sourceDocumentRef',
      message: `The prefix ${YEAR_END_REF_PREFIX} is reserved to the service`,
    });
  }
  return issues;
}

const BulkBody = Type.Object({
  entries: Type.Array(CreateBody, { minItems: 1, maxItems: MAX_BULK_ENTRIES }),
  postImmediately: Type.Optional(
    Type.Boolean({
      description:
        'Post every entry in the same transaction (admin; organizations that do not require approval)',
    }),
  ),
});

/** The cross-field rules of a bulk body: those of each entry (paths under its index), the line total. */
const bulkBodyCompiler = withBodyCheck((body: { entries?: Parameters<typeof bodyIssues>[0][] }) => {
  const issues = (body.entries ?? []).flatMap((e, i) =>
    bodyIssues(e).map((issue) => ({ ...issue, path: `/entries/${i}${issue.path}` })),
  );
  issues.push(...bulkBodyIssues(body as { entries?: { lines?: unknown[] }[] }));
  return issues.length > 0 ? new ValidationError(issues) : null;
});

/** The cross-field rules of an entry body, checked with the syntax checks. */
const entryBodyCompiler = withBodyCheck((body: Parameters<typeof bodyIssues>[0]) => {
  const issues = bodyIssues(body);
  return issues.length > 0 ? new ValidationError(issues) : null;
});

/** An entry addressed by id (a malformed id answers 404 JournalEntryNotFoundError). */
const entry = byId({
  tag: 'JournalEntryNotFoundError',
  field: 'entryId',
  message: 'Journal entry not found',
});
/** The same entry addressed by the path alone (a route whose body may name the organization). */
const entryInPath = inPath(entry.pathIds);
/** A workflow move of an entry addressed by id: its organization is read with the session. */
const entryMove = { ...entry, lookAhead: workflow.entryLookAhead };
/** The refusals of an entry's content (rules R1–R6), for every route that writes one. */
const ENTRY_ERRORS = [
  'OrganizationNotFoundError',
  'CompanyNotFoundError',
  'CompanyInactiveError',
  'InvalidJournalLineAccountError',
  'ValidationError',
  'FiscalPeriodMismatchError',
  'FiscalPeriodClosedError',
  'ExchangeRateNotFoundError',
  'UnbalancedJournalEntryError',
] as const satisfies readonly ErrorTag[];
const DRAFT_ERRORS = ['JournalEntryNotFoundError', 'InvalidStatusTransitionError'] as const;
const tags = ['Journal entries'];

export const journalRoutes = routesPlugin(
  entryCollectionRoutes,
  entryRoutes,
  entryApprovalRoutes,
  entryPostingRoutes,
);

/** The collection: list (JSON pages or a CSV or XLSX file), bulk create. */
function entryCollectionRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: '/api/v1/journal-entries',
    tags,
    summary: 'List journal entries',
    description:
      'Viewer. Without organizationId: every organization of the caller. Ordered by transactionDate descending, then entry number descending, then id. Page with `limit` and `offset`, or with `after` (the `nextCursor` of the previous page), which stays stable while entries are created. Entries are returned with their lines; a page embeds at most 2,000 lines: when the entries of the requested page hold more, the page ends early (never before its first entry), `limit` echoes the number of entries it holds — the next page starts at offset + limit — and `nextCursor` continues after its last entry. ' +
      '`accountId`: only entries with a line on that account (404 AccountNotFoundError when it is not an account of the organizations listed). ' +
      'With `format=csv|xlsx` (or an Accept header naming `text/csv` or the XLSX type) the answer is a file with one row per line of every matching entry, streamed; `limit`, `offset` and `after` do not apply.',
    access: 'journal_entry:read',
    errors: ['ValidationError', 'CompanyNotFoundError', 'AccountNotFoundError'],
    querystring: ListQuery,
    response: { 200: CursorPage('entries', JournalEntry) },
    handler: async (request, reply) => {
      const { format: formatParam, limit: _l, offset: _o, ...filters } = request.query;
      const format = exportFormat(request, formatParam);
      if (format === 'json') {
        const { record, ...page } = await entries.listEntries(
          db,
          request.access,
          filters,
          pageParams(request.query),
        );
        return sendPageInSlices(reply, 'entries', page, JournalEntry, record);
      }
      const rows = await entries.journalLineRows(db, request.access, filters);
      return sendRowStream(reply, format, 'Journal entries', JOURNAL_LINE_COLUMNS, rows, [
        'journal-entries',
        new Date().toISOString().slice(0, 10),
      ]);
    },
  });

  route(app, {
    method: 'POST',
    url: '/api/v1/journal-entries/bulk',
    tags,
    summary: 'Create journal entries in bulk',
    description:
      `Member (admin with postImmediately). Up to ${MAX_BULK_ENTRIES} entries and ${MAX_BULK_LINES} lines in all ` +
      '(body up to 64 MiB), each checked as by a single create (rules R1–R6), written in ONE transaction: ' +
      'all or none. The first refusal is answered with its usual `_tag` and `entryIndex` (0-based); ' +
      'validation paths start with `/entries/{index}`. Entry numbers of a company are consecutive in ' +
      'request order. With `postImmediately: true` the entries are created and posted together (the ' +
      'organization must not require approval: else 400 InvalidStatusTransitionError). Answer: the entries in request order.',
    access: 'journal_entry:edit',
    errors: [...ENTRY_ERRORS, 'InvalidStatusTransitionError', 'SegregationOfDutiesViolationError'],
    validatorCompiler: bulkBodyCompiler,
    bodyLimit: BULK_BODY_LIMIT,
    body: BulkBody,
    response: { 201: Type.Object({ entries: Type.Array(JournalEntry) }) },
    // The answer (up to 50,000 lines) is written as JSON text from the stored rows: the bytes the
    // 201 schema's serializer would give, at a fraction of its cost.
    handler: async (request, reply) =>
      reply
        .code(201)
        .type('application/json; charset=utf-8')
        .send(await createEntriesJson(db, request.access, request.body)),
  });
}

/** One entry: get, create, update and delete a draft. */
function entryRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: '/api/v1/journal-entries/:id',
    tags,
    summary: 'Get a journal entry',
    description: 'Viewer.',
    access: 'journal_entry:read',
    errors: ['JournalEntryNotFoundError'],
    ...entry,
    response: { 200: JournalEntry },
    handler: forId(db, entries.getEntry),
  });

  route(app, {
    method: 'POST',
    url: '/api/v1/journal-entries',
    tags,
    summary: 'Create a journal entry',
    description: 'Member. Created as Draft with the next entry number of the company (rules R1–R6).',
    lookAhead: entries.createLookAhead,
    access: 'journal_entry:edit',
    errors: ENTRY_ERRORS,
    validatorCompiler: entryBodyCompiler,
    body: CreateBody,
    ...created(JournalEntry),
    handler: async ({ access, body, lookAhead }) => entries.createEntry(db, access, body, lookAhead),
  });

  route(app, {
    method: 'PUT',
    url: '/api/v1/journal-entries/:id',
    tags,
    summary: 'Update a draft journal entry',
    description: 'Member. Only Draft entries; lines are replaced as a whole.',
    access: 'journal_entry:edit',
    errors: [...DRAFT_ERRORS, ...ENTRY_ERRORS],
    validatorCompiler: entryBodyCompiler,
    ...entryInPath,
    body: UpdateBody,
    response: { 200: JournalEntry },
    handler: async ({ access, params, body }) => entries.updateEntry(db, access, params.id, body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/v1/journal-entries/:id',
    tags,
    summary: 'Delete a draft journal entry',
    description: 'Member. Only Draft entries; intercompany links to the entry become null.',
    access: 'journal_entry:edit',
    errors: DRAFT_ERRORS,
    ...entry,
    ...noContent,
    handler: forId(db, entries.deleteEntry),
  });
}

/** The approval workflow: submit, approve, reject. */
function entryApprovalRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'POST',
    url: '/api/v1/journal-entries/:id/submit',
    tags,
    summary: 'Submit a draft for approval',
    description: 'Member. Draft → PendingApproval.',
    access: 'journal_entry:edit',
    errors: DRAFT_ERRORS,
    ...entryMove,
    response: { 200: JournalEntry },
    handler: async ({ access, params, query, lookAhead }) =>
      workflow.submitEntry(db, access, params.id, query.organizationId, lookAhead),
  });

  route(app, {
    method: 'POST',
    url: '/api/v1/journal-entries/:id/approve',
    tags,
    summary: 'Approve an entry',
    description: 'Admin. PendingApproval → Approved; segregation of duties applies.',
    access: 'journal_entry:approve',
    errors: [...DRAFT_ERRORS, 'SegregationOfDutiesViolationError'],
    ...entryMove,
    response: { 200: JournalEntry },
    handler: async ({ access, params, query, lookAhead }) =>
      workflow.approveEntry(db, access, params.id, query.organizationId, lookAhead),
  });

  route(app, {
    method: 'POST',
    url: '/api/v1/journal-entries/:id/reject',
    tags,
    summary: 'Reject an entry',
    description: 'Admin. PendingApproval → Draft, with an optional reason.',
    access: 'journal_entry:approve',
    errors: DRAFT_ERRORS,
    ...entryMove,
    body: RejectBody,
    response: { 200: JournalEntry },
    handler: async ({ access, params, query, body, lookAhead }) =>
      workflow.rejectEntry(db, access, params.id, query.organizationId, body.reason, lookAhead),
  });
}

/** Posting: post, reverse. */
function entryPostingRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'POST',
    url: '/api/v1/journal-entries/:id/post',
    tags,
    summary: 'Post an entry',
    description:
      'Admin. Approved → Posted (also Draft/PendingApproval when requireApproval is false). Updates the posted balances.',
    lookAhead: workflow.entryLookAhead,
    access: 'journal_entry:post',
    errors: [
      ...DRAFT_ERRORS,
      'UserNotMemberOfOrganizationError',
      'UserRoleInsufficientError',
      'SegregationOfDutiesViolationError',
      'CompanyInactiveError',
      'InvalidJournalLineAccountError',
      'FiscalPeriodClosedError',
    ],
    ...entryInPath,
    body: PostBody,
    response: { 200: JournalEntry },
    handler: async ({ access, params, body, lookAhead }) =>
      workflow.postEntry(db, access, params.id, body, lookAhead),
  });

  route(app, {
    method: 'POST',
    url: '/api/v1/journal-entries/:id/reverse',
    tags,
    summary: 'Reverse a posted entry',
    description: 'Admin. Creates a Posted reversal entry with swapped lines; the original becomes Reversed.',
    access: 'journal_entry:reverse',
    errors: [
      'JournalEntryNotFoundError',
      'JournalEntryAlreadyReversedError',
      'InvalidStatusTransitionError',
      'ClosingEntryReversalNotAllowedError',
      'UserNotMemberOfOrganizationError',
      'UserRoleInsufficientError',
      'ValidationError',
      'CompanyInactiveError',
      'FiscalPeriodClosedError',
    ],
    ...entryInPath,
    body: ReverseBody,
    ...created(JournalEntry),
    handler: async ({ access, params, body }) => reverseEntry(db, access, params.id, body),
  });
}
