/**
 * The route table of the reliability matrices (tenant isolation, roles): one line per operation of the
 * OpenAPI document — a request that is valid up to the role check, addressed at tenant A
 * (test/reliability/world.ts). The minimum role and ForbiddenError action come from the route's own
 * `config.access` (the document's `x-access`); rows add variants that depend on the body or target. A
 * new route without a line here makes both matrices fail.
 *
 * `swap` is the contract's answer when a member of organization B names its OWN organization while
 * addressing A's resources (1.14): the NotFound tag of the first of A's resources the request reaches,
 * or 'no-leak' when the request then addresses nothing of A (any status below 500, no data of A).
 */
import { v7 as uuidv7 } from 'uuid';
import { webhookDeliveries, webhookEndpoints } from '../../src/db/schema/index.ts';
import { addDays } from '../../src/domain/dates.ts';
import type { Action, Role } from '../../src/access/access.ts';
import { PASSWORD, type TestContext, type TestUser, uniq } from '../helpers/app.ts';
import { insertRun } from '../helpers/consolidation-db.ts';
import { setPeriodStatus } from '../helpers/ledger.ts';
import type { Operation } from './openapi.ts';
import type { World } from './world.ts';

export interface Req {
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent with this bearer token instead of the caller's (a request made for another user). */
  token?: string;
}

export interface Ctx {
  t: TestContext;
  w: World;
  /** Members of A by role (owner = the world's owner). */
  users: Record<Role, TestUser>;
  fresh: Fresh;
}

export interface RouteSpec {
  /**
   * Minimum role in the organization and its ForbiddenError action, for routes that do not declare
   * them in their own `config.access` (read from the document's `x-access`, see `accessOf`); null: any
   * authenticated user (or public), no organization.
   */
  min?: Role | null;
  action?: Action;
  /** A request valid up to the role check (may create disposable resources of A). */
  req: (c: Ctx) => Req | Promise<Req>;
  /** Isolation, B's organization instead of A's (or added as `organizationId`). */
  swap: string | 'no-leak';
  /**
   * Isolation, A's request sent as it is: 403 ForbiddenError unless A's resources appear only as
   * body/query references, which answer like missing ones (this NotFound tag).
   */
  asIs?: string;
  /** Where `organizationId` goes on by-id endpoints whose request names no organization. */
  addOrg?: 'query' | 'body';
  /** Lists whose `organizationId` is optional: without it, B sees only its own data. */
  listAll?: boolean;
  /** The request revokes the presented token (logout, refresh): send it with a throwaway session. */
  killsToken?: boolean;
  /**
   * A request the route accepts (2xx), for routes whose `req` is refused once the role check has
   * passed (a wrong password, a year that cannot close): the distribution check sends both, so that
   * the statements of the route's success are checked too.
   */
  success?: (c: Ctx) => Req | Promise<Req>;
  /** Further role rows of the same route (section 2.2 rows that depend on the body or target). */
  variants?: Array<{
    label: string;
    min: Role;
    action: Action;
    req: (c: Ctx) => Req | Promise<Req>;
    /** Restores what an allowed role changed. */
    after?: (c: Ctx) => Promise<void>;
  }>;
}

/**
 * The minimum role and action the matrices check a route against: what the route declares (the
 * document's `x-access`), else its row's `min`/`action`. A route declaring neither, or declaring other
 * values than its row, is a problem the caller reports.
 */
export function accessOf(
  spec: RouteSpec,
  op: Operation,
): { min: Role | null; action: Action | undefined; problem?: string } {
  const declared = op.access;
  if (declared) {
    const min = declared.minimumRole as Role | null;
    const action = (declared.action ?? undefined) as Action | undefined;
    if (spec.min !== undefined && (spec.min !== min || spec.action !== action)) {
      return {
        min,
        action,
        problem: `${op.key}: row says ${spec.min}/${spec.action}, route declares ${min}/${action}`,
      };
    }
    return { min, action };
  }
  if (op.isPublic) return { min: null, action: undefined };
  if (spec.min === undefined)
    return { min: null, action: undefined, problem: `${op.key}: no access declared` };
  return { min: spec.min, action: spec.action };
}

// ---------------------------------------------------------------------------------------------------
// Disposable resources of A, created as A's owner

export interface Fresh {
  company(): Promise<string>;
  account(): Promise<string>;
  draft(): Promise<string>;
  pending(): Promise<string>;
  approved(): Promise<string>;
  posted(): Promise<string>;
  rate(): Promise<string>;
  ic(): Promise<string>;
  group(): Promise<string>;
  rule(): Promise<string>;
  run(): Promise<string>;
  member(role: Role): Promise<{ id: string; email: string }>;
  registered(): Promise<{ id: string; email: string }>;
  rateDate(): string;
}

async function must<T = any>(p: Promise<{ status: number; body: any }>, what: string): Promise<T> {
  const r = await p;
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

let counter = 0;

export function makeFresh(t: TestContext, w: World): Fresh {
  const token = w.owner.token;
  const entry = () =>
    must(
      t.post('/api/v1/journal-entries', {
        token,
        body: {
          organizationId: w.orgId,
          companyId: w.companyId,
          description: uniq('Fresh'),
          transactionDate: '2026-03-20',
          lines: [
            { accountId: w.accounts['1010'], debitAmount: { value: '10.00', currency: 'USD' } },
            { accountId: w.accounts['4000'], creditAmount: { value: '10.00', currency: 'USD' } },
          ],
        },
      }),
      'entry',
    ).then((b) => b.id as string);
  const fresh: Fresh = {
    rateDate: () => addDays('2000-01-01', ++counter),
    company: async () =>
      (
        await must(
          t.post('/api/v1/companies', {
            token,
            body: {
              organizationId: w.orgId,
              name: uniq('FreshCo'),
              legalName: 'Fresh Inc.',
              jurisdiction: 'US',
              functionalCurrency: 'USD',
              reportingCurrency: 'USD',
              fiscalYearEnd: { month: 12, day: 31 },
            },
          }),
          'company',
        )
      ).id,
    account: async () =>
      (
        await must(
          t.post('/api/v1/accounts', {
            token,
            body: {
              organizationId: w.orgId,
              companyId: w.companyId,
              accountNumber: String(7000 + ++counter),
              name: uniq('FreshAccount'),
              accountType: 'Expense',
              accountCategory: 'OperatingExpense',
            },
          }),
          'account',
        )
      ).id,
    draft: entry,
    pending: async () => {
      const id = await entry();
      await must(t.post(`/api/v1/journal-entries/${id}/submit`, { token }), 'submit');
      return id;
    },
    approved: async () => {
      const id = await fresh.pending();
      await must(t.post(`/api/v1/journal-entries/${id}/approve`, { token }), 'approve');
      return id;
    },
    posted: async () => {
      const id = await entry();
      await must(t.post(`/api/v1/journal-entries/${id}/post`, { token, body: {} }), 'post');
      return id;
    },
    rate: async () =>
      (
        await must(
          t.post('/api/v1/exchange-rates', {
            token,
            body: {
              organizationId: w.orgId,
              fromCurrency: 'GBP',
              toCurrency: 'USD',
              rate: '1.25',
              effectiveDate: fresh.rateDate(),
              rateType: 'Spot',
              source: 'Manual',
            },
          }),
          'rate',
        )
      ).id,
    ic: async () =>
      (
        await must(
          t.post('/api/v1/intercompany-transactions', {
            token,
            body: {
              organizationId: w.orgId,
              fromCompanyId: w.companyId,
              toCompanyId: w.company2Id,
              transactionType: 'Loan',
              transactionDate: '2026-03-15',
              amount: { value: '50.00', currency: 'USD' },
            },
          }),
          'ic',
        )
      ).id,
    group: async () =>
      (
        await must(
          t.post('/api/v1/consolidation/groups', {
            token,
            body: {
              organizationId: w.orgId,
              name: uniq('FreshGroup'),
              reportingCurrency: 'USD',
              consolidationMethod: 'FullConsolidation',
              parentCompanyId: w.companyId,
              members: [
                {
                  companyId: w.company2Id,
                  ownershipPercentage: 60,
                  consolidationMethod: 'FullConsolidation',
                },
              ],
            },
          }),
          'group',
        )
      ).id,
    rule: async () =>
      (await must(t.post('/api/v1/elimination-rules', { token, body: ruleBody(w) }), 'rule')).id,
    run: async () =>
      (
        await must(
          t.post(`/api/v1/consolidation/groups/${w.groupId}/runs`, {
            token,
            body: { periodRef: { year: 2026, period: 3 }, forceRegeneration: true },
          }),
          'run',
        )
      ).id,
    registered: async () => {
      const email = `${uniq('fresh')}@example.com`;
      const reg = await must(
        t.post('/api/auth/register', { body: { email, password: PASSWORD, displayName: 'Fresh' } }),
        'register',
      );
      return { id: reg.user.id as string, email };
    },
    member: async (role: Role) => {
      const u = await fresh.registered();
      await must(
        t.post(`/api/v1/organizations/${w.orgId}/members`, { token, body: { email: u.email, role } }),
        'add member',
      );
      return u;
    },
  };
  return fresh;
}

/** A fresh group of A with one group account (and, with `mapped`, a pattern mapping onto it). */
async function freshGroupAccount(
  c: Ctx,
  mapped = false,
): Promise<{ group: string; account: string; mapping?: string }> {
  const group = await c.fresh.group();
  const token = c.w.owner.token;
  const account = (
    await must(
      c.t.post(`/api/v1/consolidation/groups/${group}/accounts`, {
        token,
        body: { accountNumber: '1000', name: 'Cash', accountType: 'Asset', accountCategory: 'CurrentAsset' },
      }),
      'group account',
    )
  ).id;
  if (!mapped) return { group, account };
  const mapping = (
    await must(
      c.t.post(`/api/v1/consolidation/groups/${group}/mappings`, {
        token,
        body: { groupAccountId: account, pattern: '10*' },
      }),
      'mapping',
    )
  ).id;
  return { group, account, mapping };
}

/** A fresh group of A with a draft top-side adjustment (moved on to `status`). */
async function freshAdjustment(c: Ctx, status: 'Draft' | 'PendingApproval' | 'Posted' = 'Draft') {
  const group = await c.fresh.group();
  const token = c.w.owner.token;
  const adjustment = (
    await must(
      c.t.post(`/api/v1/consolidation/groups/${group}/adjustments`, {
        token,
        body: adjustmentBody(),
      }),
      'adjustment',
    )
  ).id;
  const path = `/api/v1/consolidation/groups/${group}/adjustments/${adjustment}`;
  if (status !== 'Draft') await must(c.t.post(`${path}/submit`, { token }), 'submit');
  if (status === 'Posted') {
    await must(c.t.post(`${path}/approve`, { token }), 'approve');
    await must(c.t.post(`${path}/post`, { token }), 'post');
  }
  return { group, adjustment };
}

const adjustmentBody = () => ({
  periodRef: { year: 2026, period: 3 },
  description: 'Top-side',
  lines: [
    { accountNumber: '1100', debit: '10.00' },
    { accountNumber: '2000', credit: '10.00' },
  ],
});

const groupAccountBody = () => ({
  accountNumber: '1000',
  name: 'Cash',
  accountType: 'Asset',
  accountCategory: 'CurrentAsset',
});

export function ruleBody(w: World, organizationId = w.orgId, groupId = w.groupId) {
  return {
    organizationId,
    consolidationGroupId: groupId,
    name: uniq('Rule'),
    eliminationType: 'IntercompanyReceivablesPayables',
    triggerConditions: [],
    sourceAccounts: [{ accountNumber: '1100', companyId: w.companyId }],
    targetAccounts: [{ accountNumber: '2000', companyId: null }],
    debitAccountId: w.company2Accounts['2000'],
    creditAccountId: w.accounts['1100'],
    isAutomatic: true,
    priority: 10,
  };
}

function entryBody(w: World) {
  return {
    organizationId: w.orgId,
    companyId: w.companyId,
    description: uniq('Entry'),
    transactionDate: '2026-03-15',
    lines: [
      { accountId: w.accounts['1010'], debitAmount: { value: '5.00', currency: 'USD' } },
      { accountId: w.accounts['4000'], creditAmount: { value: '5.00', currency: 'USD' } },
    ],
  };
}

function rateBody(w: World, effectiveDate: string) {
  return {
    organizationId: w.orgId,
    fromCurrency: 'CHF',
    toCurrency: 'USD',
    rate: '1.12',
    effectiveDate,
    rateType: 'Spot',
    source: 'Manual',
  };
}

// ---------------------------------------------------------------------------------------------------
// The table

const FY = '/api/v1/organizations/{organizationId}/companies/{companyId}/fiscal-years';
const fyParams = (w: World) => ({
  organizationId: w.orgId,
  companyId: w.companyId,
  fiscalYearId: w.fiscalYearId,
});
const periodParams = (w: World) => ({ ...fyParams(w), periodId: w.periodId });
const coParams = (w: World) => ({ organizationId: w.orgId, companyId: w.companyId });
const fillFy = (c: Ctx, fiscalYearId: string) =>
  `/api/v1/organizations/${c.w.orgId}/companies/${c.w.companyId}/fiscal-years/${fiscalYearId}`;

/** A new fiscal year of A's company, without entries, whose year-end close may proceed. */
async function closableYear(c: Ctx): Promise<string> {
  const base = `/api/v1/organizations/${c.w.orgId}/companies/${c.w.companyId}/fiscal-years`;
  const year = await must(
    c.t.post(base, { token: c.w.owner.token, body: { year: 2030 + (++counter % 900) } }),
    'fiscal year',
  );
  await setPeriodStatus(
    c.t,
    { id: c.w.companyId, organizationId: c.w.orgId },
    year.year as number,
    13,
    'Closed',
  );
  return year.id as string;
}

/** A recorded revaluation run of tenant A's company (made once, by its owner). */
const revaluations = new WeakMap<World, Promise<string>>();
function revaluationOf(c: Ctx): Promise<string> {
  let id = revaluations.get(c.w);
  if (!id) {
    id = c.t
      .post(`/api/v1/organizations/${c.w.orgId}/companies/${c.w.companyId}/fx-revaluations`, {
        token: c.w.owner.token,
        body: { asOfDate: '2025-06-30', autoReverse: false },
      })
      .then((res) => {
        if (res.status !== 200) throw new Error(`revaluation failed: ${JSON.stringify(res.body)}`);
        return res.body.id as string;
      });
    revaluations.set(c.w, id);
  }
  return id;
}
const lookup = (w: World, extra: Record<string, string | number>) => ({
  query: { organizationId: w.orgId, fromCurrency: 'EUR', toCurrency: 'USD', ...extra },
});
const report = (w: World, extra: Record<string, string>) => ({
  query: { organizationId: w.orgId, companyId: w.companyId, ...extra },
});
const period = { periodStartDate: '2026-01-01', periodEndDate: '2026-12-31' };

export const ROUTES: Record<string, RouteSpec> = {
  // Health, authentication, account templates: no organization involved.
  'GET /api/health': { req: () => ({}), swap: 'no-leak' },
  'GET /api/openapi.json': { min: null, req: () => ({}), swap: 'no-leak' },
  'POST /api/auth/register': {
    req: () => ({ body: { email: `${uniq('reg')}@example.com`, password: PASSWORD, displayName: 'R' } }),
    swap: 'no-leak',
  },
  'POST /api/auth/login': {
    req: (c) => ({ body: { email: c.w.owner.email, password: 'Wrong-pass1' } }),
    swap: 'no-leak',
    success: (c) => ({ body: { email: c.w.owner.email, password: PASSWORD } }),
  },
  'POST /api/auth/logout': { req: () => ({}), swap: 'no-leak', killsToken: true },
  'GET /api/auth/me': { req: () => ({}), swap: 'no-leak' },
  'PUT /api/auth/me': { req: () => ({ body: {} }), swap: 'no-leak' },
  'POST /api/auth/refresh': { req: () => ({}), swap: 'no-leak', killsToken: true },
  'POST /api/auth/change-password': {
    req: () => ({ body: { currentPassword: 'Not-the-one1', newPassword: 'Another-pass9' } }),
    swap: 'no-leak',
    success: async (c) => {
      const { email } = await c.fresh.registered();
      const login = await c.t.post('/api/auth/login', { body: { email, password: PASSWORD } });
      return {
        body: { currentPassword: PASSWORD, newPassword: 'Another-pass9' },
        token: login.body.token as string,
      };
    },
  },
  'GET /api/v1/account-templates': { req: () => ({}), swap: 'no-leak' },
  'GET /api/v1/account-templates/{type}': {
    req: () => ({ params: { type: 'Manufacturing' } }),
    swap: 'no-leak',
  },

  // Organizations and members
  'GET /api/v1/organizations': { req: () => ({}), swap: 'no-leak' },
  'POST /api/v1/organizations': {
    req: () => ({ body: { name: uniq('NewOrg'), reportingCurrency: 'USD' } }),
    swap: 'no-leak',
  },
  'GET /api/v1/organizations/{id}': {
    req: (c) => ({ params: { id: c.w.orgId } }),
    swap: 'no-leak',
  },
  'PUT /api/v1/organizations/{id}': {
    req: (c) => ({ params: { id: c.w.orgId }, body: { settings: { defaultLocale: 'en-US' } } }),
    swap: 'no-leak',
    variants: [
      {
        label: 'switching approval controls',
        min: 'owner',
        action: 'organization:manage_controls',
        // The world runs with approval off: turning it on is a change; `after` turns it off again.
        req: (c) => ({ params: { id: c.w.orgId }, body: { settings: { requireApproval: true } } }),
        after: async (c) => {
          await c.t.put(`/api/v1/organizations/${c.w.orgId}`, {
            token: c.w.owner.token,
            body: { settings: { requireApproval: false } },
          });
        },
      },
    ],
  },
  'DELETE /api/v1/organizations/{id}': {
    req: (c) => ({ params: { id: c.w.orgId } }),
    swap: 'no-leak',
    success: async (c) => {
      const org = await c.t.post('/api/v1/organizations', {
        token: c.w.owner.token,
        body: { name: uniq('Disposable'), reportingCurrency: 'USD' },
      });
      return { params: { id: org.body.id as string } };
    },
  },
  'GET /api/v1/organizations/{organizationId}/members': {
    req: (c) => ({ params: { organizationId: c.w.orgId } }),
    swap: 'no-leak',
  },
  'POST /api/v1/organizations/{organizationId}/members': {
    req: async (c) => ({
      params: { organizationId: c.w.orgId },
      body: { email: (await c.fresh.registered()).email, role: 'viewer' },
    }),
    swap: 'no-leak',
    variants: [
      {
        label: 'adding an owner',
        min: 'owner',
        action: 'member:manage_owners',
        req: async (c) => ({
          params: { organizationId: c.w.orgId },
          body: { email: (await c.fresh.registered()).email, role: 'owner' },
        }),
      },
    ],
  },
  'PUT /api/v1/organizations/{organizationId}/members/{userId}': {
    req: async (c) => ({
      params: { organizationId: c.w.orgId, userId: (await c.fresh.member('viewer')).id },
      body: { role: 'member' },
    }),
    swap: 'MembershipNotFoundError',
    variants: [
      {
        label: 'promoting to owner',
        min: 'owner',
        action: 'member:manage_owners',
        req: async (c) => ({
          params: { organizationId: c.w.orgId, userId: (await c.fresh.member('viewer')).id },
          body: { role: 'owner' },
        }),
      },
    ],
  },
  'DELETE /api/v1/organizations/{organizationId}/members/{userId}': {
    req: async (c) => ({
      params: { organizationId: c.w.orgId, userId: (await c.fresh.member('viewer')).id },
    }),
    swap: 'MembershipNotFoundError',
    variants: [
      {
        label: 'removing an owner',
        min: 'owner',
        action: 'member:manage_owners',
        req: async (c) => ({
          params: { organizationId: c.w.orgId, userId: (await c.fresh.member('owner')).id },
        }),
      },
    ],
  },
  'GET /api/v1/audit-log': {
    req: (c) => ({ query: { organizationId: c.w.orgId } }),
    swap: 'no-leak',
  },

  // Companies
  'GET /api/v1/companies': {
    req: (c) => ({ query: { organizationId: c.w.orgId } }),
    swap: 'no-leak',
  },
  'POST /api/v1/companies': {
    req: (c) => ({
      body: {
        organizationId: c.w.orgId,
        name: uniq('Co'),
        legalName: 'Co Inc.',
        jurisdiction: 'US',
        functionalCurrency: 'USD',
        reportingCurrency: 'USD',
        fiscalYearEnd: { month: 12, day: 31 },
      },
    }),
    swap: 'no-leak',
  },
  'GET /api/v1/organizations/{organizationId}/companies/{companyId}': {
    req: (c) => ({ params: coParams(c.w) }),
    swap: 'CompanyNotFoundError',
  },
  'PUT /api/v1/organizations/{organizationId}/companies/{companyId}': {
    req: (c) => ({ params: coParams(c.w), body: { description: uniq('d') } }),
    swap: 'CompanyNotFoundError',
  },
  'DELETE /api/v1/organizations/{organizationId}/companies/{companyId}': {
    req: async (c) => ({ params: { organizationId: c.w.orgId, companyId: await c.fresh.company() } }),
    swap: 'CompanyNotFoundError',
  },

  // Foreign-currency revaluation
  'GET /api/v1/organizations/{organizationId}/companies/{companyId}/foreign-currency-balances': {
    req: (c) => ({ params: coParams(c.w), query: { asOfDate: '2025-06-30' } }),
    swap: 'CompanyNotFoundError',
  },
  'POST /api/v1/organizations/{organizationId}/companies/{companyId}/fx-revaluations': {
    req: (c) => ({ params: coParams(c.w), body: { asOfDate: '2025-06-30', dryRun: true } }),
    swap: 'CompanyNotFoundError',
  },
  'GET /api/v1/organizations/{organizationId}/companies/{companyId}/fx-revaluations': {
    req: (c) => ({ params: coParams(c.w) }),
    swap: 'CompanyNotFoundError',
  },
  'GET /api/v1/organizations/{organizationId}/companies/{companyId}/fx-revaluations/{revaluationId}': {
    req: async (c) => ({ params: { ...coParams(c.w), revaluationId: await revaluationOf(c) } }),
    swap: 'CompanyNotFoundError',
  },

  // Accounts and templates
  'GET /api/v1/accounts': {
    req: (c) => ({ query: { organizationId: c.w.orgId, companyId: c.w.companyId } }),
    swap: 'CompanyNotFoundError',
  },
  'POST /api/v1/accounts': {
    req: (c) => ({
      body: {
        organizationId: c.w.orgId,
        companyId: c.w.companyId,
        accountNumber: String(8000 + ++counter),
        name: uniq('Acc'),
        accountType: 'Asset',
        accountCategory: 'CurrentAsset',
      },
    }),
    swap: 'CompanyNotFoundError',
  },
  'GET /api/v1/accounts/organizations/{organizationId}/accounts/{id}': {
    req: (c) => ({ params: { organizationId: c.w.orgId, id: c.w.extraAccountId } }),
    swap: 'AccountNotFoundError',
  },
  'PUT /api/v1/accounts/organizations/{organizationId}/accounts/{id}': {
    req: (c) => ({
      params: { organizationId: c.w.orgId, id: c.w.extraAccountId },
      body: { description: uniq('d') },
    }),
    swap: 'AccountNotFoundError',
  },
  'DELETE /api/v1/accounts/organizations/{organizationId}/accounts/{id}': {
    req: async (c) => ({ params: { organizationId: c.w.orgId, id: await c.fresh.account() } }),
    swap: 'AccountNotFoundError',
  },
  'POST /api/v1/account-templates/{type}/apply': {
    req: async (c) => ({
      params: { type: 'ServiceBusiness' },
      body: { organizationId: c.w.orgId, companyId: await c.fresh.company() },
    }),
    swap: 'CompanyNotFoundError',
  },

  // Fiscal calendar and year-end
  [`GET ${FY}`]: {
    req: (c) => ({ params: coParams(c.w) }),
    swap: 'CompanyNotFoundError',
  },
  [`POST ${FY}`]: {
    req: (c) => ({ params: coParams(c.w), body: { year: 2030 + (++counter % 900) } }),
    swap: 'CompanyNotFoundError',
  },
  [`GET ${FY}/{fiscalYearId}`]: {
    req: (c) => ({ params: fyParams(c.w) }),
    swap: 'CompanyNotFoundError',
  },
  [`GET ${FY}/{fiscalYearId}/periods`]: {
    req: (c) => ({ params: fyParams(c.w) }),
    swap: 'CompanyNotFoundError',
  },
  [`GET ${FY}/{fiscalYearId}/periods/{periodId}`]: {
    req: (c) => ({ params: periodParams(c.w) }),
    swap: 'CompanyNotFoundError',
  },
  [`POST ${FY}/{fiscalYearId}/periods/{periodId}/close`]: {
    req: (c) => ({ params: periodParams(c.w) }),
    swap: 'CompanyNotFoundError',
  },
  [`POST ${FY}/{fiscalYearId}/periods/{periodId}/open`]: {
    req: (c) => ({ params: periodParams(c.w), body: {} }),
    swap: 'CompanyNotFoundError',
  },
  [`GET ${FY}/{fiscalYearId}/periods/{periodId}/reopen-history`]: {
    req: (c) => ({ params: periodParams(c.w) }),
    swap: 'CompanyNotFoundError',
  },
  'GET /api/v1/organizations/{organizationId}/companies/{companyId}/period-status': {
    req: (c) => ({ params: coParams(c.w), query: { date: '2026-03-15' } }),
    swap: 'CompanyNotFoundError',
  },
  'GET /api/v1/organizations/{organizationId}/companies/{companyId}/fiscal-periods/summary': {
    req: (c) => ({ params: coParams(c.w) }),
    swap: 'CompanyNotFoundError',
  },
  [`GET ${FY}/{fiscalYearId}/close/preview`]: {
    req: (c) => ({ params: fyParams(c.w) }),
    swap: 'CompanyNotFoundError',
  },
  [`POST ${FY}/{fiscalYearId}/close`]: {
    req: (c) => ({ params: fyParams(c.w) }),
    swap: 'CompanyNotFoundError',
    success: async (c) => ({ params: { ...coParams(c.w), fiscalYearId: await closableYear(c) } }),
  },
  [`POST ${FY}/{fiscalYearId}/reopen`]: {
    req: (c) => ({ params: fyParams(c.w), body: {} }),
    swap: 'CompanyNotFoundError',
    success: async (c) => {
      const fiscalYearId = await closableYear(c);
      const url = `${fillFy(c, fiscalYearId)}/close`;
      await must(c.t.post(url, { token: c.w.owner.token }), 'close');
      return { params: { ...coParams(c.w), fiscalYearId }, body: { reason: 'routing check' } };
    },
  },

  // Journal entries
  'GET /api/v1/journal-entries': {
    req: (c) => ({ query: { organizationId: c.w.orgId } }),
    swap: 'no-leak',
    listAll: true,
  },
  'POST /api/v1/journal-entries': {
    req: (c) => ({ body: entryBody(c.w) }),
    swap: 'CompanyNotFoundError',
  },
  'POST /api/v1/journal-entries/bulk': {
    req: (c) => ({ body: { entries: [entryBody(c.w), entryBody(c.w)] } }),
    swap: 'CompanyNotFoundError',
  },
  'POST /api/v1/companies/{id}/trial-balance-imports': {
    req: (c) => ({
      params: { id: c.w.companyId },
      body: {
        organizationId: c.w.orgId,
        asOfDate: '2026-03-31',
        mode: 'Periodic',
        dryRun: true,
        rows: [
          { accountNumber: '1010', debit: '5.00' },
          { accountNumber: '4000', credit: '5.00' },
        ],
      },
    }),
    swap: 'CompanyNotFoundError',
  },
  'GET /api/v1/companies/{id}/trial-balance-imports': {
    req: (c) => ({ params: { id: c.w.companyId } }),
    swap: 'CompanyNotFoundError',
    addOrg: 'query',
  },
  'GET /api/v1/journal-entries/{id}': {
    req: (c) => ({ params: { id: c.w.postedEntryId } }),
    swap: 'JournalEntryNotFoundError',
    addOrg: 'query',
  },
  'PUT /api/v1/journal-entries/{id}': {
    req: async (c) => ({ params: { id: await c.fresh.draft() }, body: { referenceNumber: 'R-1' } }),
    swap: 'JournalEntryNotFoundError',
    addOrg: 'body',
  },
  'DELETE /api/v1/journal-entries/{id}': {
    req: async (c) => ({ params: { id: await c.fresh.draft() } }),
    swap: 'JournalEntryNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/journal-entries/{id}/submit': {
    req: async (c) => ({ params: { id: await c.fresh.draft() } }),
    swap: 'JournalEntryNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/journal-entries/{id}/approve': {
    req: async (c) => ({ params: { id: await c.fresh.pending() } }),
    swap: 'JournalEntryNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/journal-entries/{id}/reject': {
    req: async (c) => ({ params: { id: await c.fresh.pending() }, body: {} }),
    swap: 'JournalEntryNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/journal-entries/{id}/post': {
    req: async (c) => ({ params: { id: await c.fresh.approved() }, body: {} }),
    swap: 'JournalEntryNotFoundError',
    addOrg: 'body',
  },
  'POST /api/v1/journal-entries/{id}/reverse': {
    req: async (c) => ({ params: { id: await c.fresh.posted() }, body: { reversalDate: '2026-03-25' } }),
    swap: 'JournalEntryNotFoundError',
    addOrg: 'body',
  },

  // Exchange rates
  'GET /api/v1/exchange-rates': {
    req: (c) => ({ query: { organizationId: c.w.orgId } }),
    swap: 'no-leak',
    listAll: true,
  },
  'POST /api/v1/exchange-rates': {
    req: (c) => ({ body: rateBody(c.w, c.fresh.rateDate()) }),
    swap: 'no-leak',
  },
  'POST /api/v1/exchange-rates/bulk': {
    req: (c) => ({ body: { rates: [rateBody(c.w, c.fresh.rateDate())] } }),
    swap: 'no-leak',
  },
  'GET /api/v1/exchange-rates/{id}': {
    req: (c) => ({ params: { id: c.w.rateId } }),
    swap: 'ExchangeRateIdNotFoundError',
    addOrg: 'query',
  },
  'DELETE /api/v1/exchange-rates/{id}': {
    req: async (c) => ({ params: { id: await c.fresh.rate() } }),
    swap: 'ExchangeRateIdNotFoundError',
    addOrg: 'query',
  },
  'GET /api/v1/exchange-rates/rate': {
    req: (c) => lookup(c.w, { effectiveDate: '2026-01-15', rateType: 'Spot' }),
    swap: 'no-leak',
  },
  'GET /api/v1/exchange-rates/latest': {
    req: (c) => lookup(c.w, {}),
    swap: 'no-leak',
  },
  'GET /api/v1/exchange-rates/closest': {
    req: (c) => lookup(c.w, { date: '2026-02-01' }),
    swap: 'no-leak',
  },
  'GET /api/v1/exchange-rates/period-average': {
    req: (c) => lookup(c.w, { year: 2026, period: 1, companyId: c.w.companyId }),
    swap: 'CompanyNotFoundError',
  },
  'GET /api/v1/exchange-rates/period-closing': {
    req: (c) => lookup(c.w, { year: 2026, period: 1, companyId: c.w.companyId }),
    swap: 'CompanyNotFoundError',
  },

  // Company reports
  'GET /api/v1/reports/trial-balance': {
    req: (c) => report(c.w, { asOfDate: '2026-12-31' }),
    swap: 'CompanyNotFoundError',
  },
  'GET /api/v1/reports/general-ledger': {
    req: (c) => report(c.w, { startDate: '2026-01-01', endDate: '2026-12-31' }),
    swap: 'CompanyNotFoundError',
  },
  'GET /api/v1/reports/balance-sheet': {
    req: (c) => report(c.w, { asOfDate: '2026-12-31' }),
    swap: 'CompanyNotFoundError',
  },
  'GET /api/v1/reports/income-statement': {
    req: (c) => report(c.w, period),
    swap: 'CompanyNotFoundError',
  },
  'GET /api/v1/reports/cash-flow': {
    req: (c) => report(c.w, period),
    swap: 'CompanyNotFoundError',
  },
  'GET /api/v1/reports/equity-statement': {
    req: (c) => report(c.w, period),
    swap: 'CompanyNotFoundError',
  },

  // Intercompany
  'GET /api/v1/intercompany-transactions': {
    req: (c) => ({ query: { organizationId: c.w.orgId } }),
    swap: 'no-leak',
    listAll: true,
  },
  'POST /api/v1/intercompany-transactions': {
    req: (c) => ({
      body: {
        organizationId: c.w.orgId,
        fromCompanyId: c.w.companyId,
        toCompanyId: c.w.company2Id,
        transactionType: 'Sale',
        transactionDate: '2026-03-15',
        amount: { value: '10.00', currency: 'USD' },
      },
    }),
    swap: 'CompanyNotFoundError',
  },
  'GET /api/v1/intercompany-transactions/{id}': {
    req: (c) => ({ params: { id: c.w.icId } }),
    swap: 'IntercompanyTransactionNotFoundError',
    addOrg: 'query',
  },
  'PUT /api/v1/intercompany-transactions/{id}': {
    req: async (c) => ({ params: { id: await c.fresh.ic() }, body: { description: 'changed' } }),
    swap: 'IntercompanyTransactionNotFoundError',
    addOrg: 'query',
  },
  'DELETE /api/v1/intercompany-transactions/{id}': {
    req: async (c) => ({ params: { id: await c.fresh.ic() } }),
    swap: 'IntercompanyTransactionNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/intercompany-transactions/{id}/matching-status': {
    req: async (c) => ({ params: { id: await c.fresh.ic() }, body: { matchingStatus: 'Matched' } }),
    swap: 'IntercompanyTransactionNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/intercompany-transactions/{id}/link-from-journal-entry': {
    req: async (c) => ({ params: { id: await c.fresh.ic() }, body: { journalEntryId: null } }),
    swap: 'IntercompanyTransactionNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/intercompany-transactions/{id}/link-to-journal-entry': {
    req: async (c) => ({ params: { id: await c.fresh.ic() }, body: { journalEntryId: null } }),
    swap: 'IntercompanyTransactionNotFoundError',
    addOrg: 'query',
  },

  // Consolidation groups
  'GET /api/v1/consolidation/groups': {
    req: (c) => ({ query: { organizationId: c.w.orgId } }),
    swap: 'no-leak',
    listAll: true,
  },
  'POST /api/v1/consolidation/groups': {
    req: (c) => ({
      body: {
        organizationId: c.w.orgId,
        name: uniq('Group'),
        reportingCurrency: 'USD',
        consolidationMethod: 'FullConsolidation',
        parentCompanyId: c.w.companyId,
        members: [],
      },
    }),
    swap: 'CompanyNotFoundError',
  },
  'GET /api/v1/consolidation/groups/{id}': {
    req: (c) => ({ params: { id: c.w.groupId } }),
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'PUT /api/v1/consolidation/groups/{id}': {
    req: async (c) => ({ params: { id: await c.fresh.group() }, body: { description: 'changed' } }),
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'DELETE /api/v1/consolidation/groups/{id}': {
    req: async (c) => ({ params: { id: await c.fresh.group() } }),
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/consolidation/groups/{id}/activate': {
    req: async (c) => ({ params: { id: await c.fresh.group() } }),
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/consolidation/groups/{id}/deactivate': {
    req: async (c) => ({ params: { id: await c.fresh.group() } }),
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'GET /api/v1/consolidation/groups/{id}/structure': {
    req: (c) => ({ params: { id: c.w.groupId } }),
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/consolidation/groups/{id}/members': {
    req: async (c) => ({
      params: { id: await c.fresh.group() },
      body: {
        companyId: await c.fresh.company(),
        ownershipPercentage: 100,
        consolidationMethod: 'FullConsolidation',
      },
    }),
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'PUT /api/v1/consolidation/groups/{id}/members/{companyId}': {
    req: async (c) => ({
      params: { id: await c.fresh.group(), companyId: c.w.company2Id },
      body: { ownershipPercentage: '75.50' },
    }),
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'DELETE /api/v1/consolidation/groups/{id}/members/{companyId}': {
    req: async (c) => ({ params: { id: await c.fresh.group(), companyId: c.w.company2Id } }),
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },

  // Group chart of accounts
  'GET /api/v1/consolidation/groups/{id}/accounts': {
    req: (c) => ({ params: { id: c.w.groupId } }),
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/consolidation/groups/{id}/accounts': {
    req: async (c) => ({ params: { id: await c.fresh.group() }, body: groupAccountBody() }),
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/consolidation/groups/{id}/accounts/bulk': {
    req: async (c) => ({ params: { id: await c.fresh.group() }, body: { accounts: [groupAccountBody()] } }),
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'GET /api/v1/consolidation/groups/{id}/accounts/{accountId}': {
    req: async (c) => {
      const f = await freshGroupAccount(c);
      return { params: { id: f.group, accountId: f.account } };
    },
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'PUT /api/v1/consolidation/groups/{id}/accounts/{accountId}': {
    req: async (c) => {
      const f = await freshGroupAccount(c);
      return { params: { id: f.group, accountId: f.account }, body: { name: 'Cash and banks' } };
    },
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'DELETE /api/v1/consolidation/groups/{id}/accounts/{accountId}': {
    req: async (c) => {
      const f = await freshGroupAccount(c);
      return { params: { id: f.group, accountId: f.account } };
    },
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'GET /api/v1/consolidation/groups/{id}/mappings': {
    req: (c) => ({ params: { id: c.w.groupId } }),
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/consolidation/groups/{id}/mappings': {
    req: async (c) => {
      const f = await freshGroupAccount(c);
      return { params: { id: f.group }, body: { groupAccountId: f.account, pattern: '11*' } };
    },
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'GET /api/v1/consolidation/groups/{id}/mappings/{mappingId}': {
    req: async (c) => {
      const f = await freshGroupAccount(c, true);
      return { params: { id: f.group, mappingId: f.mapping! } };
    },
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'DELETE /api/v1/consolidation/groups/{id}/mappings/{mappingId}': {
    req: async (c) => {
      const f = await freshGroupAccount(c, true);
      return { params: { id: f.group, mappingId: f.mapping! } };
    },
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'GET /api/v1/consolidation/groups/{id}/mappings/preview': {
    req: (c) => ({ params: { id: c.w.groupId } }),
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'GET /api/v1/consolidation/groups/{id}/intercompany-difference': {
    req: (c) => ({ params: { id: c.w.groupId } }),
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'PUT /api/v1/consolidation/groups/{id}/intercompany-difference': {
    req: async (c) => ({ params: { id: await c.fresh.group() }, body: { accountNumber: null } }),
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },

  // Top-side adjustments
  'GET /api/v1/consolidation/groups/{id}/adjustments': {
    req: (c) => ({ params: { id: c.w.groupId } }),
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/consolidation/groups/{id}/adjustments': {
    req: async (c) => ({ params: { id: await c.fresh.group() }, body: adjustmentBody() }),
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'GET /api/v1/consolidation/groups/{id}/adjustments/{adjustmentId}': {
    req: async (c) => {
      const f = await freshAdjustment(c);
      return { params: { id: f.group, adjustmentId: f.adjustment } };
    },
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'PUT /api/v1/consolidation/groups/{id}/adjustments/{adjustmentId}': {
    req: async (c) => {
      const f = await freshAdjustment(c);
      return { params: { id: f.group, adjustmentId: f.adjustment }, body: { description: 'changed' } };
    },
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'DELETE /api/v1/consolidation/groups/{id}/adjustments/{adjustmentId}': {
    req: async (c) => {
      const f = await freshAdjustment(c);
      return { params: { id: f.group, adjustmentId: f.adjustment } };
    },
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/consolidation/groups/{id}/adjustments/{adjustmentId}/submit': {
    req: async (c) => {
      const f = await freshAdjustment(c, 'Draft');
      return { params: { id: f.group, adjustmentId: f.adjustment } };
    },
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/consolidation/groups/{id}/adjustments/{adjustmentId}/approve': {
    req: async (c) => {
      const f = await freshAdjustment(c, 'PendingApproval');
      return { params: { id: f.group, adjustmentId: f.adjustment } };
    },
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/consolidation/groups/{id}/adjustments/{adjustmentId}/reject': {
    req: async (c) => {
      const f = await freshAdjustment(c, 'PendingApproval');
      return { params: { id: f.group, adjustmentId: f.adjustment } };
    },
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/consolidation/groups/{id}/adjustments/{adjustmentId}/post': {
    req: async (c) => {
      const f = await freshAdjustment(c, 'Draft');
      return { params: { id: f.group, adjustmentId: f.adjustment } };
    },
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/consolidation/groups/{id}/adjustments/{adjustmentId}/reverse': {
    req: async (c) => {
      const f = await freshAdjustment(c, 'Posted');
      return { params: { id: f.group, adjustmentId: f.adjustment } };
    },
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },

  // Elimination rules
  'GET /api/v1/elimination-rules': {
    req: (c) => ({ query: { organizationId: c.w.orgId } }),
    swap: 'no-leak',
    listAll: true,
  },
  'GET /api/v1/elimination-rules/by-type': {
    req: (c) => ({
      query: { consolidationGroupId: c.w.groupId, eliminationType: 'IntercompanyReceivablesPayables' },
    }),
    swap: 'ConsolidationGroupNotFoundError',
    // The group is a query reference, not an addressed resource: another tenant's is "not found" (1.14).
    asIs: 'ConsolidationGroupNotFoundError',
  },
  'POST /api/v1/elimination-rules': {
    req: (c) => ({ body: ruleBody(c.w) }),
    swap: 'ConsolidationGroupNotFoundError',
  },
  'POST /api/v1/elimination-rules/bulk': {
    req: (c) => ({ body: { rules: [ruleBody(c.w)] } }),
    swap: 'ConsolidationGroupNotFoundError',
  },
  'GET /api/v1/elimination-rules/{id}': {
    req: (c) => ({ params: { id: c.w.ruleId } }),
    swap: 'EliminationRuleNotFoundError',
    addOrg: 'query',
  },
  'PUT /api/v1/elimination-rules/{id}': {
    req: async (c) => ({ params: { id: await c.fresh.rule() }, body: { description: 'changed' } }),
    swap: 'EliminationRuleNotFoundError',
    addOrg: 'query',
  },
  'DELETE /api/v1/elimination-rules/{id}': {
    req: async (c) => ({ params: { id: await c.fresh.rule() } }),
    swap: 'EliminationRuleNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/elimination-rules/{id}/activate': {
    req: async (c) => ({ params: { id: await c.fresh.rule() } }),
    swap: 'EliminationRuleNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/elimination-rules/{id}/deactivate': {
    req: async (c) => ({ params: { id: await c.fresh.rule() } }),
    swap: 'EliminationRuleNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/elimination-rules/{id}/priority': {
    req: async (c) => ({ params: { id: await c.fresh.rule() }, body: { priority: 5 } }),
    swap: 'EliminationRuleNotFoundError',
    addOrg: 'query',
  },

  // Consolidation runs
  'GET /api/v1/consolidation/runs': {
    req: (c) => ({ query: { organizationId: c.w.orgId } }),
    swap: 'no-leak',
    listAll: true,
  },
  'POST /api/v1/consolidation/groups/{groupId}/runs': {
    req: (c) => ({
      params: { groupId: c.w.groupId },
      body: { periodRef: { year: 2026, period: 3 }, forceRegeneration: true },
    }),
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'GET /api/v1/consolidation/groups/{groupId}/latest-run': {
    req: (c) => ({ params: { groupId: c.w.groupId } }),
    swap: 'ConsolidationGroupNotFoundError',
    addOrg: 'query',
  },
  'GET /api/v1/consolidation/runs/{id}': {
    req: (c) => ({ params: { id: c.w.runId! } }),
    swap: 'ConsolidationRunNotFoundError',
    addOrg: 'query',
  },
  'POST /api/v1/consolidation/runs/{id}/cancel': {
    req: async (c) => ({ params: { id: await c.fresh.run() } }),
    swap: 'ConsolidationRunNotFoundError',
    addOrg: 'query',
    success: async (c) => ({
      params: { id: await insertRun(c.t, c.w.orgId, c.w.groupId, 'Pending', c.w.owner.id) },
    }),
  },
  'DELETE /api/v1/consolidation/runs/{id}': {
    req: async (c) => ({ params: { id: await c.fresh.run() } }),
    swap: 'ConsolidationRunNotFoundError',
    addOrg: 'query',
    success: async (c) => ({
      params: { id: await insertRun(c.t, c.w.orgId, c.w.groupId, 'Pending', c.w.owner.id) },
    }),
  },
  'GET /api/v1/consolidation/runs/{id}/trial-balance': {
    req: (c) => ({ params: { id: c.w.runId! } }),
    swap: 'ConsolidationRunNotFoundError',
    addOrg: 'query',
  },
  'GET /api/v1/consolidation/runs/{id}/trial-balance/lines/{accountNumber}/contributions': {
    req: (c) => ({ params: { id: c.w.runId!, accountNumber: '1010' } }),
    swap: 'ConsolidationRunNotFoundError',
    addOrg: 'query',
  },
  'GET /api/v1/consolidation/runs/{id}/elimination-entries': {
    req: (c) => ({ params: { id: c.w.runId! } }),
    swap: 'ConsolidationRunNotFoundError',
    addOrg: 'query',
  },
  'GET /api/v1/consolidation/runs/{id}/compare': {
    req: (c) => ({ params: { id: c.w.runId! }, query: { otherRunId: c.w.runId! } }),
    swap: 'ConsolidationRunNotFoundError',
    addOrg: 'query',
  },
  'GET /api/v1/consolidation/runs/{id}/reports/balance-sheet': {
    req: (c) => ({ params: { id: c.w.runId! } }),
    swap: 'ConsolidationRunNotFoundError',
    addOrg: 'query',
  },
  'GET /api/v1/consolidation/runs/{id}/reports/income-statement': {
    req: (c) => ({ params: { id: c.w.runId! } }),
    swap: 'ConsolidationRunNotFoundError',
    addOrg: 'query',
  },
  'GET /api/v1/consolidation/runs/{id}/reports/cash-flow': {
    req: (c) => ({ params: { id: c.w.runId! } }),
    swap: 'ConsolidationRunNotFoundError',
    addOrg: 'query',
  },
  'GET /api/v1/consolidation/runs/{id}/reports/equity-statement': {
    req: (c) => ({ params: { id: c.w.runId! } }),
    swap: 'ConsolidationRunNotFoundError',
    addOrg: 'query',
  },

  // Events and webhooks
  'GET /api/v1/events': {
    req: (c) => ({ query: { organizationId: c.w.orgId } }),
    swap: 'no-leak',
  },
  'GET /api/v1/webhook-endpoints': {
    req: (c) => ({ query: { organizationId: c.w.orgId } }),
    swap: 'no-leak',
  },
  'POST /api/v1/webhook-endpoints': {
    req: (c) => ({ body: { organizationId: c.w.orgId, url: 'https://example.com/hooks' } }),
    swap: 'no-leak',
  },
  'GET /api/v1/webhook-endpoints/{endpointId}': {
    req: async (c) => ({
      params: { endpointId: await webhookEndpoint(c) },
      query: { organizationId: c.w.orgId },
    }),
    swap: 'WebhookEndpointNotFoundError',
  },
  'PUT /api/v1/webhook-endpoints/{endpointId}': {
    req: async (c) => ({
      params: { endpointId: await webhookEndpoint(c) },
      query: { organizationId: c.w.orgId },
      body: { description: uniq('d') },
    }),
    swap: 'WebhookEndpointNotFoundError',
  },
  'DELETE /api/v1/webhook-endpoints/{endpointId}': {
    req: async (c) => ({
      params: { endpointId: await webhookEndpoint(c) },
      query: { organizationId: c.w.orgId },
    }),
    swap: 'WebhookEndpointNotFoundError',
  },
  'GET /api/v1/webhook-endpoints/{endpointId}/deliveries': {
    req: async (c) => ({
      params: { endpointId: await webhookEndpoint(c) },
      query: { organizationId: c.w.orgId },
    }),
    swap: 'WebhookEndpointNotFoundError',
  },
  'POST /api/v1/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry': {
    req: async (c) => {
      const endpointId = await webhookEndpoint(c);
      return {
        params: { endpointId, deliveryId: await webhookDelivery(c, endpointId) },
        query: { organizationId: c.w.orgId },
      };
    },
    swap: 'WebhookEndpointNotFoundError',
  },
  'POST /api/v1/webhook-endpoints/{endpointId}/test': {
    req: async (c) => ({
      params: { endpointId: await webhookEndpoint(c) },
      query: { organizationId: c.w.orgId },
    }),
    swap: 'WebhookEndpointNotFoundError',
  },
};

/**
 * A webhook endpoint of A, written directly: its address is a loopback one that a delivery refuses at
 * once, so a test ping answers without any network traffic.
 */
async function webhookEndpoint(c: Ctx): Promise<string> {
  const id = uuidv7();
  await c.t.database.db.insert(webhookEndpoints).values({
    id,
    organizationId: c.w.orgId,
    url: 'https://127.0.0.1:9/hooks',
    secret: `whsec_${Buffer.from(uniq('s').padEnd(32, 'x')).toString('base64')}`,
    createdBy: c.w.owner.id,
  });
  return id;
}

async function webhookDelivery(c: Ctx, endpointId: string): Promise<string> {
  const id = uuidv7();
  await c.t.database.db.insert(webhookDeliveries).values({
    id,
    organizationId: c.w.orgId,
    endpointId,
    eventTx: 0n,
    eventType: 'WebhookTest',
    payload: { type: 'WebhookTest' },
    status: 'Failed',
  });
  return id;
}
