import { type RouteApp, routesPlugin } from '../../http/route-app.ts';
import { ValidationError } from '../../domain/errors.ts';
import { CursorPage, CursorQuery, pageParams } from '../../http/pagination.ts';
import { byId, created, forId, noContent, route } from '../../http/route.ts';
import {
  IsoDate,
  Money,
  MoneyInput,
  Nullable,
  PageQuery,
  StringEnum,
  Text,
  Timestamp,
  Type,
  Uuid,
} from '../../http/schemas.ts';
import { withBodyCheck } from '../../http/validation.ts';
import { MATCHING_STATUSES, TRANSACTION_TYPES } from './repo.ts';
import * as ic from './service.ts';

/** Signed Money (varianceAmount may be negative). */
const SignedMoneyInput = { ...MoneyInput, 'x-sign': 'signed' } as typeof MoneyInput;

const Reconciliation = Type.Object(
  { fromAmount: Nullable(Money), toAmount: Nullable(Money), difference: Nullable(Money) },
  {
    description:
      'Read-only addition (docs/decisions.md): partner-tagged amounts of the linked entries in the transaction currency; ' +
      'fromAmount/toAmount are positive in the normal case, difference = fromAmount − toAmount; null when a side is not linked or its Spot rate is missing.',
  },
);

const IntercompanyTransaction = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  fromCompanyId: Uuid,
  toCompanyId: Uuid,
  transactionType: StringEnum(TRANSACTION_TYPES),
  transactionDate: Type.String(),
  amount: Money,
  description: Nullable(Type.String()),
  fromJournalEntryId: Nullable(Type.String()),
  toJournalEntryId: Nullable(Type.String()),
  matchingStatus: StringEnum(MATCHING_STATUSES),
  varianceAmount: Nullable(Money),
  varianceExplanation: Nullable(Type.String()),
  requiresElimination: Type.Boolean(),
  isEliminated: Type.Boolean(),
  eliminatedByRunId: Nullable(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  reconciliation: Reconciliation,
});

const transactionById = byId({
  tag: 'IntercompanyTransactionNotFoundError',
  field: 'transactionId',
  message: 'Intercompany transaction not found',
});
const tags = ['Intercompany transactions'];

/**
 * Body validation plus a cross-field rule checked with the syntax checks (a 400, before any lookup)
 *: it runs after the schema and the Money checks and before idempotency and every
 * organization check.
 */

const CreateBody = Type.Object({
  organizationId: Uuid,
  fromCompanyId: Uuid,
  toCompanyId: Uuid,
  transactionType: StringEnum(TRANSACTION_TYPES),
  transactionDate: IsoDate,
  amount: MoneyInput,
  description: Type.Optional(Nullable(Text(2000))),
  fromJournalEntryId: Type.Optional(Nullable(Uuid)),
  toJournalEntryId: Type.Optional(Nullable(Uuid)),
});

const UpdateBody = Type.Object({
  organizationId: Type.Optional(Uuid),
  fromCompanyId: Type.Optional(Uuid),
  toCompanyId: Type.Optional(Uuid),
  transactionType: Type.Optional(StringEnum(TRANSACTION_TYPES)),
  transactionDate: Type.Optional(IsoDate),
  amount: Type.Optional(MoneyInput),
  description: Type.Optional(Nullable(Text(2000))),
  varianceAmount: Type.Optional(Nullable(SignedMoneyInput)),
  varianceExplanation: Type.Optional(Nullable(Text(2000))),
});

const MatchingStatusBody = Type.Object({
  matchingStatus: StringEnum(MATCHING_STATUSES),
  varianceExplanation: Type.Optional(Nullable(Text(2000))),
  varianceAmount: Type.Optional(Nullable(SignedMoneyInput)),
});

const LinkBody = Type.Object({ journalEntryId: Nullable(Uuid) });

const ListQuery = Type.Object({
  organizationId: Type.Optional(Uuid),
  fromCompanyId: Type.Optional(Uuid),
  toCompanyId: Type.Optional(Uuid),
  companyId: Type.Optional(Uuid),
  transactionType: Type.Optional(StringEnum(TRANSACTION_TYPES)),
  matchingStatus: Type.Optional(StringEnum(MATCHING_STATUSES)),
  startDate: Type.Optional(IsoDate),
  endDate: Type.Optional(IsoDate),
  requiresElimination: Type.Optional(Type.Boolean()),
  unmatched: Type.Optional(Type.Boolean()),
  isEliminated: Type.Optional(Type.Boolean()),
  ...PageQuery,
  ...CursorQuery,
});

export const intercompanyRoutes = routesPlugin(transactionRecordRoutes, transactionMatchingRoutes);

/** Intercompany transactions: list, get, create, update. */
function transactionRecordRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: '/api/v1/intercompany-transactions',
    tags,
    summary: 'List intercompany transactions',
    description:
      'Viewer. Without organizationId: every organization of the caller. Ordered by transactionDate desc, createdAt desc, id. Page with `limit` and `offset`, or with `after` (the `nextCursor` of the previous page), which stays stable while transactions are created.',
    access: 'intercompany:read',
    errors: ['ValidationError', 'CompanyNotFoundError'],
    querystring: ListQuery,
    response: { 200: CursorPage('transactions', IntercompanyTransaction) },
    handler: async ({ access, query }) => ic.listTransactions(db, access, query, pageParams(query)),
  });

  route(app, {
    method: 'GET',
    url: '/api/v1/intercompany-transactions/:id',
    tags,
    summary: 'Get an intercompany transaction',
    description: 'Viewer.',
    ...transactionById,
    access: 'intercompany:read',
    errors: ['IntercompanyTransactionNotFoundError'],
    response: { 200: IntercompanyTransaction },
    handler: forId(db, ic.getTransaction),
  });

  route(app, {
    method: 'POST',
    url: '/api/v1/intercompany-transactions',
    tags,
    summary: 'Create an intercompany transaction',
    description: 'Member. Both companies must be active companies of the organization; status Unmatched.',
    access: 'intercompany:manage',
    errors: [
      'SameCompanyIntercompanyError',
      'CompanyNotFoundError',
      'CompanyInactiveError',
      'JournalEntryNotFoundError',
      'IntercompanyJournalEntryMismatchError',
    ],
    validatorCompiler: withBodyCheck((body: { fromCompanyId: string; toCompanyId: string }) =>
      body.fromCompanyId === body.toCompanyId ? ic.sameCompany(body.toCompanyId) : null,
    ),
    body: CreateBody,
    ...created(IntercompanyTransaction),
    handler: async ({ access, body }) => ic.createTransaction(db, access, body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/v1/intercompany-transactions/:id',
    tags,
    summary: 'Update an intercompany transaction',
    description:
      'Member. Matched, VarianceApproved and eliminated transactions lock every field but description (409).',
    ...transactionById,
    access: 'intercompany:manage',
    errors: ['IntercompanyTransactionNotFoundError', 'IntercompanyTransactionNotEditableError'],
    body: UpdateBody,
    response: { 200: IntercompanyTransaction },
    handler: async ({ access, params, query, body }) =>
      ic.updateTransaction(db, access, params.id, query.organizationId, body),
  });
}

/** Intercompany transactions: delete, matching status, linked entries. */
function transactionMatchingRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'DELETE',
    url: '/api/v1/intercompany-transactions/:id',
    tags,
    summary: 'Delete an intercompany transaction',
    description: 'Member. Refused (409) for Matched, VarianceApproved and eliminated transactions.',
    ...transactionById,
    access: 'intercompany:manage',
    errors: ['IntercompanyTransactionNotFoundError', 'IntercompanyTransactionCannotBeDeletedError'],
    ...noContent,
    handler: forId(db, ic.deleteTransaction),
  });

  route(app, {
    method: 'POST',
    url: '/api/v1/intercompany-transactions/:id/matching-status',
    tags,
    summary: 'Set the matching status',
    description:
      'Member. Any move is allowed; PartiallyMatched and VarianceApproved need a varianceExplanation; Matched and Unmatched clear the variance. Refused (409) once eliminated.',
    ...transactionById,
    access: 'intercompany:manage',
    errors: [
      'IntercompanyTransactionNotFoundError',
      'IntercompanyTransactionNotEditableError',
      'ValidationError',
    ],
    validatorCompiler: withBodyCheck((body: ic.MatchingStatusInput) => {
      const issues = ic.matchingStatusIssues(body);
      return issues.length > 0 ? new ValidationError(issues) : null;
    }),
    body: MatchingStatusBody,
    response: { 200: IntercompanyTransaction },
    handler: async ({ access, params, query, body }) =>
      ic.setMatchingStatus(db, access, params.id, query.organizationId, body),
  });

  for (const side of ['from', 'to'] as const) {
    route(app, {
      method: 'POST',
      url: `/api/v1/intercompany-transactions/:id/link-${side}-journal-entry`,
      tags,
      summary: `Link the ${side} company's journal entry`,
      description: `Member. journalEntryId null removes the link; the entry must belong to the ${side} company. Refused (409) once eliminated.`,
      ...transactionById,
      access: 'intercompany:manage',
      errors: [
        'IntercompanyTransactionNotFoundError',
        'IntercompanyTransactionNotEditableError',
        'JournalEntryNotFoundError',
        'IntercompanyJournalEntryMismatchError',
      ],
      body: LinkBody,
      response: { 200: IntercompanyTransaction },
      handler: async ({ access, params, query, body }) =>
        ic.linkJournalEntry(db, access, params.id, query.organizationId, side, body.journalEntryId),
    });
  }
}
