/** Routes of top-side adjustments of a consolidation group, with the journal's workflow as sub-paths. */
import { type RouteApp, routesPlugin } from '../../http/route-app.ts';
import type { ErrorTag } from '../../domain/error-catalogue.ts';
import { pageParams } from '../../http/pagination.ts';
import { byIds, created, noContent, route } from '../../http/route.ts';
import { groupById } from './groups.routes.ts';
import {
  Money,
  Nullable,
  Page,
  PageQuery,
  PeriodRef,
  StringEnum,
  Text,
  Timestamp,
  Type,
  Uuid,
} from '../../http/schemas.ts';
import { ACCOUNT_NUMBER_PATTERN } from '../../http/account-schemas.ts';
import * as adjustments from './adjustments.service.ts';

const STATUSES = ['Draft', 'PendingApproval', 'Approved', 'Posted', 'Reversed'] as const;
const Amount = Type.String({
  pattern: '^[0-9]{1,20}(\\.[0-9]{1,8})?$',
  description: 'Positive amount in the group reporting currency (at most its minor-unit digits)',
});

const LineInput = Type.Object({
  accountNumber: Type.String({
    pattern: ACCOUNT_NUMBER_PATTERN,
    description: 'A group account (with a group chart) or an account number of a company of the group',
  }),
  /** the member the line belongs to: its non-controlling interest takes its share */
  companyId: Type.Optional(Nullable(Uuid)),
  debit: Type.Optional(Nullable(Amount)),
  credit: Type.Optional(Nullable(Amount)),
  description: Type.Optional(Nullable(Text(500))),
});
const CreateBody = Type.Object({
  periodRef: PeriodRef,
  description: Text(500),
  recurring: Type.Optional(
    Type.Boolean({
      description: 'Once posted, the adjustment also counts in every later period of its year',
    }),
  ),
  lines: Type.Array(LineInput, { minItems: 2, maxItems: 500 }),
});
const UpdateBody = Type.Object({
  periodRef: Type.Optional(PeriodRef),
  description: Type.Optional(Text(500)),
  recurring: Type.Optional(Type.Boolean()),
  lines: Type.Optional(Type.Array(LineInput, { minItems: 2, maxItems: 500 })),
});
const Adjustment = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  consolidationGroupId: Uuid,
  periodRef: PeriodRef,
  description: Type.String(),
  status: StringEnum(STATUSES),
  recurring: Type.Boolean(),
  lines: Type.Array(
    Type.Object({
      accountNumber: Type.String(),
      companyId: Nullable(Uuid),
      debit: Money,
      credit: Money,
      description: Nullable(Type.String()),
    }),
  ),
  totalDebit: Money,
  totalCredit: Money,
  createdBy: Uuid,
  approvedBy: Nullable(Uuid),
  postedBy: Nullable(Uuid),
  postedAt: Nullable(Timestamp),
  reversalOfId: Nullable(Uuid),
  reversedById: Nullable(Uuid),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** An adjustment addressed by the group's `:id` and its `:adjustmentId`. */
const adjustment = byIds({
  ...groupById.pathIds,
  adjustmentId: {
    tag: 'ConsolidationAdjustmentNotFoundError',
    field: 'adjustmentId',
    message: 'Adjustment not found',
  },
});
const tags = ['Top-side adjustments'];

const WORKFLOW_ERRORS = [
  'ConsolidationGroupNotFoundError',
  'ConsolidationAdjustmentNotFoundError',
  'InvalidStatusTransitionError',
] as const satisfies readonly ErrorTag[];

const ACTIONS: {
  path: adjustments.WorkflowAction;
  summary: string;
  description: string;
  errors: readonly ErrorTag[];
}[] = [
  {
    path: 'submit',
    summary: 'Submit an adjustment for approval',
    description: 'Admin. Draft → PendingApproval.',
    errors: WORKFLOW_ERRORS,
  },
  {
    path: 'approve',
    summary: 'Approve an adjustment',
    description: 'Admin. PendingApproval → Approved; with segregation of duties, not by its creator.',
    errors: [...WORKFLOW_ERRORS, 'SegregationOfDutiesViolationError'],
  },
  {
    path: 'reject',
    summary: 'Reject an adjustment',
    description: 'Admin. PendingApproval → Draft.',
    errors: WORKFLOW_ERRORS,
  },
  {
    path: 'post',
    errors: [...WORKFLOW_ERRORS, 'SegregationOfDutiesViolationError'],
    summary: 'Post an adjustment',
    description:
      'Admin. Approved → Posted (from any unposted status when the organization does not require approval); runs of its period (and of later periods of its year when recurring) include it.',
  },
  {
    path: 'reverse',
    summary: 'Reverse an adjustment',
    errors: [...WORKFLOW_ERRORS, 'JournalEntryAlreadyReversedError'],
    description:
      'Admin. Posted → Reversed: a new posted adjustment with the lines swapped, for the same period (and as recurring as the original), cancels it.',
  },
];

const base = '/api/v1/consolidation/groups/:id/adjustments';

export const adjustmentRoutes = routesPlugin(
  adjustmentCreateRoutes,
  adjustmentRecordRoutes,
  adjustmentWorkflowRoutes,
);

/** Top-side adjustments: list, create. */
function adjustmentCreateRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: base,
    tags,
    summary: 'List top-side adjustments',
    description: 'Viewer. Ordered by period, then id.',
    ...groupById,
    access: 'consolidation:read',
    errors: ['ConsolidationGroupNotFoundError'],
    querystring: Type.Object({
      organizationId: Type.Optional(Uuid),
      year: Type.Optional(Type.Integer({ minimum: 1900, maximum: 2999 })),
      period: Type.Optional(Type.Integer({ minimum: 1, maximum: 13 })),
      status: Type.Optional(StringEnum(STATUSES)),
      ...PageQuery,
    }),
    response: { 200: Page('adjustments', Adjustment) },
    handler: async ({ access, params, query }) =>
      adjustments.listAdjustments(
        db,
        access,
        params.id,
        {
          organizationId: query.organizationId,
          year: query.year,
          period: query.period,
          status: query.status,
        },
        pageParams(query),
      ),
  });

  route(app, {
    method: 'POST',
    url: base,
    tags,
    summary: 'Create a top-side adjustment',
    description:
      'Admin. A consolidation-only entry of the group for one period, in its reporting currency: balanced lines, each a debit or a credit, on group accounts (or account numbers of the group’s companies when it has no group chart), optionally attributed to a member. Created as Draft.',
    ...groupById,
    access: 'consolidation:manage',
    errors: ['ConsolidationGroupNotFoundError', 'ValidationError', 'ConsolidationAdjustmentUnbalancedError'],
    body: CreateBody,
    ...created(Adjustment),
    handler: async ({ access, params, query, body }) =>
      adjustments.createAdjustment(db, access, params.id, query.organizationId, body),
  });
}

/** A top-side adjustment: get, update, delete. */
function adjustmentRecordRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: `${base}/:adjustmentId`,
    tags,
    summary: 'Get a top-side adjustment',
    description: 'Viewer.',
    ...adjustment,
    access: 'consolidation:read',
    errors: ['ConsolidationGroupNotFoundError', 'ConsolidationAdjustmentNotFoundError'],
    response: { 200: Adjustment },
    handler: async ({ access, params, query }) =>
      adjustments.getAdjustment(db, access, params.id, params.adjustmentId, query.organizationId),
  });

  route(app, {
    method: 'PUT',
    url: `${base}/:adjustmentId`,
    tags,
    summary: 'Update a draft adjustment',
    description: 'Admin. Drafts only; fields left out keep their value.',
    ...adjustment,
    access: 'consolidation:manage',
    errors: [
      'ConsolidationGroupNotFoundError',
      'ConsolidationAdjustmentNotFoundError',
      'ValidationError',
      'ConsolidationAdjustmentUnbalancedError',
      'InvalidStatusTransitionError',
    ],
    body: UpdateBody,
    response: { 200: Adjustment },
    handler: async ({ access, params, query, body }) =>
      adjustments.updateAdjustment(db, access, params.id, params.adjustmentId, query.organizationId, body),
  });

  route(app, {
    method: 'DELETE',
    url: `${base}/:adjustmentId`,
    tags,
    summary: 'Delete a draft adjustment',
    description: 'Admin. Drafts only.',
    ...adjustment,
    access: 'consolidation:manage',
    errors: [
      'ConsolidationGroupNotFoundError',
      'ConsolidationAdjustmentNotFoundError',
      'InvalidStatusTransitionError',
    ],
    ...noContent,
    handler: async ({ access, params, query }) =>
      adjustments.deleteAdjustment(db, access, params.id, params.adjustmentId, query.organizationId),
  });
}

/** The workflow moves of an adjustment. */
function adjustmentWorkflowRoutes(app: RouteApp): void {
  const { db } = app.deps;

  for (const a of ACTIONS) {
    route(app, {
      method: 'POST',
      url: `${base}/:adjustmentId/${a.path}`,
      tags,
      summary: a.summary,
      description: a.description,
      ...adjustment,
      access: 'consolidation:manage',
      errors: a.errors,
      response: { 200: Adjustment },
      handler: async ({ access, params, query }) =>
        adjustments.actOnAdjustment(db, access, params.id, params.adjustmentId, query.organizationId, a.path),
    });
  }
}
