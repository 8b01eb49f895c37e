/** Routes: elimination rules. */
import { type RouteApp, routesPlugin } from '../../http/route-app.ts';
import { listed } from '../../http/pagination.ts';
import { activationRoutes, byId, created, forId, noContent, route } from '../../http/route.ts';
import {
  BulkCreated,
  MONEY_VALUE,
  Nullable,
  Page,
  PageQuery,
  StringEnum,
  Text,
  Timestamp,
  Type,
  Uuid,
  UUID_PATTERN,
} from '../../http/schemas.ts';
import { withBodyCheck } from '../../http/validation.ts';
import {
  MAX_SELECTORS_PER_LIST,
  MAX_TRIGGER_CONDITIONS,
  MAX_TRIGGER_SELECTORS,
} from '../../domain/consolidation/rule-bounds.ts';
import { ELIMINATION_TYPES } from './rules.repo.ts';
import * as rules from './rules.service.ts';

const EliminationTypeSchema = StringEnum(ELIMINATION_TYPES);

/** Patterns are fixed syntax (not trimmed); their grammar is checked by the service. */
const SelectorInput = Type.Object({
  accountNumber: Type.String({ 'x-raw': true, description: 'Pattern: `1300`, `13*` or `1300-1399`' }),
  companyId: Type.Optional(Nullable(Uuid)),
});
const TriggerInput = Type.Object({
  description: Text(1000),
  sourceAccounts: Type.Array(SelectorInput, { minItems: 1, maxItems: MAX_SELECTORS_PER_LIST }),
  minimumAmount: Type.Optional(
    Nullable(
      Type.String({
        pattern: MONEY_VALUE.replace('^-?', '^'),
        description: 'Non-negative decimal string with at most the group currency minor-unit digits',
      }),
    ),
  ),
});

const RULE_ACCOUNT_ID =
  'A company account of the parent or a member, or — when the group has a group chart — a group account of ' +
  "that chart (the server tells which). A group account is booked on directly, on the parent's line; " +
  'a company account is booked on the group account it maps to. Unknown ids, and group accounts of another ' +
  'group, answer 404 AccountNotFoundError.';
const RuleAccountId = Type.String({ pattern: UUID_PATTERN, description: RULE_ACCOUNT_ID, 'x-uuid': true });
const AccountKind = (side: string) =>
  Type.Optional(
    StringEnum(['CompanyAccount', 'GroupAccount'] as const, {
      description: `What ${side}AccountId names. Present, on both sides, only on rules that name a group account; absent: both are company accounts.`,
    }),
  );

const Selector = Type.Object({ accountNumber: Type.String(), companyId: Nullable(Uuid) });
const Trigger = Type.Object({
  description: Type.String(),
  sourceAccounts: Type.Array(Selector),
  minimumAmount: Nullable(Type.String()),
});
export const EliminationRule = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  consolidationGroupId: Uuid,
  name: Type.String(),
  description: Nullable(Type.String()),
  eliminationType: EliminationTypeSchema,
  triggerConditions: Type.Array(Trigger),
  sourceAccounts: Type.Array(Selector),
  targetAccounts: Type.Array(Selector),
  debitAccountId: RuleAccountId,
  creditAccountId: RuleAccountId,
  debitAccountKind: AccountKind('debit'),
  creditAccountKind: AccountKind('credit'),
  isAutomatic: Type.Boolean(),
  priority: Type.Integer(),
  isActive: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const Priority = Type.Integer({ minimum: 0, maximum: 999 });
const CreateRule = Type.Object({
  organizationId: Uuid,
  consolidationGroupId: Uuid,
  name: Text(255),
  description: Type.Optional(Nullable(Text(2000))),
  eliminationType: EliminationTypeSchema,
  triggerConditions: Type.Array(TriggerInput, {
    maxItems: MAX_TRIGGER_CONDITIONS,
    description: `At most ${MAX_TRIGGER_CONDITIONS} conditions, with at most ${MAX_TRIGGER_SELECTORS} selectors in all (400 ValidationError past it)`,
  }),
  sourceAccounts: Type.Array(SelectorInput, { minItems: 1, maxItems: MAX_SELECTORS_PER_LIST }),
  targetAccounts: Type.Array(SelectorInput, { maxItems: MAX_SELECTORS_PER_LIST }),
  debitAccountId: RuleAccountId,
  creditAccountId: RuleAccountId,
  isAutomatic: Type.Boolean(),
  priority: Priority,
  isActive: Type.Optional(Type.Boolean()),
});
const UpdateRule = Type.Object({
  organizationId: Type.Optional(Uuid),
  consolidationGroupId: Type.Optional(Uuid),
  name: Type.Optional(Text(255)),
  description: Type.Optional(Nullable(Text(2000))),
  eliminationType: Type.Optional(EliminationTypeSchema),
  triggerConditions: Type.Optional(
    Type.Array(TriggerInput, {
      maxItems: MAX_TRIGGER_CONDITIONS,
      description: `At most ${MAX_TRIGGER_CONDITIONS} conditions, with at most ${MAX_TRIGGER_SELECTORS} selectors in all (400 ValidationError past it)`,
    }),
  ),
  sourceAccounts: Type.Optional(Type.Array(SelectorInput, { minItems: 1, maxItems: MAX_SELECTORS_PER_LIST })),
  targetAccounts: Type.Optional(Type.Array(SelectorInput, { maxItems: MAX_SELECTORS_PER_LIST })),
  debitAccountId: Type.Optional(RuleAccountId),
  creditAccountId: Type.Optional(RuleAccountId),
  isAutomatic: Type.Optional(Type.Boolean()),
  priority: Type.Optional(Priority),
  isActive: Type.Optional(Nullable(Type.Boolean())),
});

const ruleById = byId({
  tag: 'EliminationRuleNotFoundError',
  field: 'eliminationRuleId',
  message: 'Elimination rule not found',
});
const tags = ['Elimination rules'];

export const eliminationRuleRoutes = routesPlugin(ruleReadRoutes, ruleWriteRoutes, ruleStateRoutes);

/** Elimination rules: list, by type, get. */
function ruleReadRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'GET',
    url: '/api/v1/elimination-rules',
    tags,
    summary: 'List elimination rules',
    description:
      'Viewer. Without organizationId: rules of every organization of the caller. Ordered by priority, createdAt, id. highPriorityOnly=true keeps priority < 10.',
    access: 'consolidation:read',
    errors: ['ConsolidationGroupNotFoundError'],
    querystring: Type.Object({
      organizationId: Type.Optional(Uuid),
      consolidationGroupId: Type.Optional(Uuid),
      eliminationType: Type.Optional(EliminationTypeSchema),
      isActive: Type.Optional(Type.Boolean()),
      isAutomatic: Type.Optional(Type.Boolean()),
      highPriorityOnly: Type.Optional(Type.Boolean()),
      ...PageQuery,
    }),
    response: { 200: Page('rules', EliminationRule) },
    handler: listed(db, rules.listRules),
  });

  route(app, {
    method: 'GET',
    url: '/api/v1/elimination-rules/by-type',
    tags,
    summary: 'Elimination rules of a group by type',
    description: 'Viewer. Same order as the list.',
    access: 'consolidation:read',
    errors: ['ConsolidationGroupNotFoundError'],
    querystring: Type.Object({
      consolidationGroupId: Uuid,
      eliminationType: EliminationTypeSchema,
      ...PageQuery,
    }),
    response: { 200: Page('rules', EliminationRule) },
    handler: listed(db, rules.listRulesByType),
  });

  route(app, {
    method: 'GET',
    url: '/api/v1/elimination-rules/:id',
    tags,
    summary: 'Get an elimination rule',
    description: 'Viewer.',
    ...ruleById,
    access: 'consolidation:read',
    errors: ['EliminationRuleNotFoundError'],
    response: { 200: EliminationRule },
    handler: forId(db, rules.getRule),
  });
}

/** Elimination rules: create, create in bulk, update. */
function ruleWriteRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'POST',
    url: '/api/v1/elimination-rules',
    tags,
    summary: 'Create an elimination rule',
    description:
      'Admin. Invalid selector patterns answer 400 EliminationRuleOperationFailedError; selector companies and the debit/credit accounts must belong to the group. With a group chart, debitAccountId and creditAccountId may each name a group account of the group instead of a company account (404 AccountNotFoundError for a group account of another group or without a chart); the rule then answers debitAccountKind and creditAccountKind.',
    access: 'consolidation:manage',
    errors: [
      'EliminationRuleOperationFailedError',
      'ConsolidationGroupNotFoundError',
      'AccountNotFoundError',
      'ValidationError',
    ],
    validatorCompiler: withBodyCheck<rules.CreateRuleInput>((body) => rules.checkPatterns(body, 'create')),
    body: CreateRule,
    ...created(EliminationRule),
    handler: async ({ access, body }) => rules.createRule(db, access, body),
  });

  route(app, {
    method: 'POST',
    url: '/api/v1/elimination-rules/bulk',
    tags,
    summary: 'Create elimination rules in bulk',
    description: 'Admin. 1–100 rules of one organization; all or nothing.',
    access: 'consolidation:manage',
    errors: [
      'ConsolidationGroupNotFoundError',
      'EliminationRuleOperationFailedError',
      'AccountNotFoundError',
      'ValidationError',
    ],
    validatorCompiler: withBodyCheck<{ rules: rules.CreateRuleInput[] }>((body) =>
      rules.checkBulkRules(body.rules),
    ),
    body: Type.Object({ rules: Type.Array(CreateRule, { minItems: 1, maxItems: 100 }) }),
    ...created(BulkCreated(EliminationRule)),
    handler: async ({ access, body }) => rules.bulkCreateRules(db, access, body.rules),
  });

  route(app, {
    method: 'PUT',
    url: '/api/v1/elimination-rules/:id',
    tags,
    summary: 'Update an elimination rule',
    description:
      'Admin. PUT semantics; organizationId and consolidationGroupId are immutable; the create constraints apply to the resulting rule. A debitAccountId or creditAccountId given is resolved again, so a side may switch between a company account and a group account.',
    ...ruleById,
    access: 'consolidation:manage',
    errors: [
      'EliminationRuleNotFoundError',
      'EliminationRuleOperationFailedError',
      'AccountNotFoundError',
      'ValidationError',
    ],
    validatorCompiler: withBodyCheck<rules.UpdateRuleInput>((body) => rules.checkPatterns(body, 'update')),
    body: UpdateRule,
    response: { 200: EliminationRule },
    handler: async ({ access, params, query, body }) =>
      rules.updateRule(db, access, params.id, query.organizationId, body),
  });
}

/** Elimination rules: delete, activate and deactivate, priority. */
function ruleStateRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'DELETE',
    url: '/api/v1/elimination-rules/:id',
    tags,
    summary: 'Delete an elimination rule',
    description: 'Admin. Refused (409) when a completed run applied the rule.',
    ...ruleById,
    access: 'consolidation:manage',
    errors: ['EliminationRuleNotFoundError', 'EliminationRuleInUseError'],
    ...noContent,
    handler: forId(db, rules.deleteRule),
  });

  activationRoutes(app, {
    url: '/api/v1/elimination-rules/:id',
    tags,
    resource: 'an elimination rule',
    description: () => 'Admin. Idempotent.',
    ...ruleById,
    access: 'consolidation:manage',
    errors: ['EliminationRuleNotFoundError'],
    response: { 200: EliminationRule },
    setActive: ({ access, params, query }, active) =>
      rules.setRuleActive(db, access, params.id, query.organizationId, active),
  });

  route(app, {
    method: 'POST',
    url: '/api/v1/elimination-rules/:id/priority',
    tags,
    summary: 'Set the priority of an elimination rule',
    description: 'Admin. Lower priorities run first.',
    ...ruleById,
    access: 'consolidation:manage',
    errors: ['EliminationRuleNotFoundError'],
    body: Type.Object({ priority: Priority }),
    response: { 200: EliminationRule },
    handler: async ({ access, params, query, body }) =>
      rules.setRulePriority(db, access, params.id, query.organizationId, body.priority),
  });
}
