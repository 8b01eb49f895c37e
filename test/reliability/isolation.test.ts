/**
 * Tenant-isolation matrix (contract 1.14, decision 86). Organization A has one of every resource
 * (test/reliability/world.ts); B is the owner of another organization with a company of its own. For
 * EVERY operation of the OpenAPI document (route table: test/reliability/route-table.ts), B:
 *
 *   (a) sends A's request as it is (A's organization and ids)  → 403 ForbiddenError, currentRole null,
 *       with the endpoint's action and minimum role (routes of no organization: no data of A);
 *   (b) names its own organization instead (path, query or body), or adds `organizationId` = B on
 *       by-id endpoints                                         → 404 with the NotFound tag of A's
 *       resource (or, when nothing of A is addressed any more, any answer without data of A);
 *   (c) adds `organizationId` = A on by-id endpoints            → 403 ForbiddenError;
 *   (d) lists without `organizationId`                          → 200 without any of A's rows.
 *
 * Never a 2xx on A's data, and no answer contains any id or distinctive name of A — except the id
 * fields that the expected NotFound tag defines (section 4), echoing exactly what B sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, PASSWORD, type TestContext, type TestUser, uniq } from '../helpers/app.ts';
import { mentions, replaceDeep, sendReq, sentStrings } from './matrix.ts';
import { loadOperations, type Operation } from './openapi.ts';
import { accessOf, type Ctx, makeFresh, type Req, ROUTES } from './route-table.ts';
import { createWorld, type World } from './world.ts';

/** Id fields of the NotFound tags the matrix expects (contract section 4). */
const ECHO_FIELDS: Record<string, string[]> = {
  CompanyNotFoundError: ['companyId'],
  AccountNotFoundError: ['accountId'],
  JournalEntryNotFoundError: ['entryId'],
  ExchangeRateIdNotFoundError: ['exchangeRateId'],
  IntercompanyTransactionNotFoundError: ['transactionId'],
  ConsolidationGroupNotFoundError: ['consolidationGroupId'],
  EliminationRuleNotFoundError: ['eliminationRuleId'],
  ConsolidationRunNotFoundError: ['runId'],
  MembershipNotFoundError: ['userId', 'organizationId'],
  FiscalYearNotFoundError: ['fiscalYearId'],
  FiscalPeriodNotFoundError: ['fiscalPeriodId'],
};

let t: TestContext;
let w: World;
let ctx: Ctx;
let operations: Operation[];
let b: TestUser;
let orgB: string;
let attempts = 0;
const leaks: string[] = [];
const wrong: string[] = [];

beforeAll(async () => {
  t = await createTestContext();
  w = await createWorld(t);
  b = await t.user('tenant-b');
  orgB = (await t.org(b)).id;
  const co = await t.post('/api/v1/companies', {
    token: b.token,
    body: {
      organizationId: orgB,
      name: uniq('BCo'),
      legalName: 'B Inc.',
      jurisdiction: 'US',
      functionalCurrency: 'USD',
      reportingCurrency: 'USD',
      fiscalYearEnd: { month: 12, day: 31 },
    },
  });
  expect(co.status).toBe(201);
  ctx = {
    t,
    w,
    users: { owner: w.owner, admin: w.owner, member: w.owner, viewer: w.owner },
    fresh: makeFresh(t, w),
  };
  ({ operations } = await loadOperations(t));
}, 120_000);

afterAll(async () => {
  console.info(`isolation: ${attempts} attempts by a member of another organization, ${leaks.length} leaks`);
  await t?.close();
});

async function tokenFor(killsToken: boolean | undefined): Promise<string> {
  if (!killsToken) return b.token;
  const login = await t.post('/api/auth/login', { body: { email: b.email, password: PASSWORD } });
  return login.body.token;
}

/** Checks one answer; records (rather than throws) so that one run reports every problem. */
function judge(
  label: string,
  req: Req,
  res: { status: number; body: any; raw: { body: string } },
  expected: { status: number; tag: string; action?: string; requiredRole?: string } | 'no-leak',
): void {
  attempts++;
  const where = `${label} → ${res.status} ${res.raw.body.slice(0, 240)}`;
  if (res.status >= 500) wrong.push(`${where} (server error)`);
  if (expected !== 'no-leak') {
    const ok =
      res.status === expected.status &&
      res.body?._tag === expected.tag &&
      (expected.tag !== 'ForbiddenError' ||
        (res.body.currentRole === null &&
          res.body.action === expected.action &&
          res.body.requiredRole === expected.requiredRole));
    if (!ok) wrong.push(`${where} (expected ${expected.status} ${expected.tag} ${expected.action ?? ''})`);
  }
  // Leak check: drop the echo fields the expected tag defines when they repeat what B sent.
  let body: unknown = res.body;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
    const sent = sentStrings(req);
    for (const field of ECHO_FIELDS[copy._tag as string] ?? []) {
      if (typeof copy[field] === 'string' && sent.has((copy[field] as string).toLowerCase()))
        delete copy[field];
    }
    body = copy;
  }
  const text = typeof body === 'string' ? body : JSON.stringify(body ?? '');
  const leaked = w.secrets.filter((s) => text.toLowerCase().includes(s.toLowerCase()));
  if (leaked.length > 0) leaks.push(`${label} leaked ${leaked.join(', ')}: ${text.slice(0, 240)}`);
  if (expected !== 'no-leak' && res.status < 300) leaks.push(`${label} answered ${res.status} on A's data`);
}

describe('tenant isolation', () => {
  it('has a matrix row for every operation of the OpenAPI document', () => {
    const missing = operations.map((o) => o.key).filter((k) => !ROUTES[k]);
    expect(missing, 'routes without an isolation/role row in test/reliability/route-table.ts').toEqual([]);
  });

  it('refuses every operation on organization A to a member of organization B, without leaking A', async () => {
    for (const op of operations) {
      const spec = ROUTES[op.key];
      if (!spec) continue;
      const base = await spec.req(ctx);
      const { min, action } = accessOf(spec, op);
      const forbidden = { status: 403, tag: 'ForbiddenError', action, requiredRole: min ?? '' };

      // (a) A's request as it is.
      const a = await sendReq(t, op.key, base, await tokenFor(spec.killsToken));
      judge(
        `${op.key} (a) as A`,
        base,
        a,
        min === null ? 'no-leak' : spec.asIs ? { status: 404, tag: spec.asIs } : forbidden,
      );

      // (b) B's organization instead of A's, or added on by-id endpoints.
      let swapped: Req | null = null;
      if (mentions(base, w.orgId)) swapped = replaceDeep(base, w.orgId, orgB);
      else if (spec.addOrg === 'query')
        swapped = { ...base, query: { ...(base.query ?? {}), organizationId: orgB } };
      else if (spec.addOrg === 'body')
        swapped = { ...base, body: { ...((base.body as object) ?? {}), organizationId: orgB } };
      if (swapped) {
        const res = await sendReq(t, op.key, swapped, await tokenFor(spec.killsToken));
        judge(
          `${op.key} (b) in B`,
          swapped,
          res,
          spec.swap === 'no-leak' ? 'no-leak' : { status: 404, tag: spec.swap },
        );
      }

      // (c) by-id endpoints naming A's organization explicitly.
      if (spec.addOrg) {
        const named: Req =
          spec.addOrg === 'query'
            ? { ...base, query: { ...(base.query ?? {}), organizationId: w.orgId } }
            : { ...base, body: { ...((base.body as object) ?? {}), organizationId: w.orgId } };
        const res = await sendReq(t, op.key, named, b.token);
        judge(`${op.key} (c) naming A`, named, res, forbidden);
      }

      // (d) lists spanning the caller's organizations.
      if (spec.listAll) {
        const { organizationId: _drop, ...rest } = base.query ?? {};
        const all: Req = { ...base, query: rest };
        const res = await sendReq(t, op.key, all, b.token);
        judge(`${op.key} (d) all of B's`, all, res, 'no-leak');
        if (res.status !== 200) wrong.push(`${op.key} (d) → ${res.status}`);
      }
    }
    expect(wrong, 'answers that are not the contract refusal').toEqual([]);
    expect(leaks, "answers that contain organization A's data").toEqual([]);
    expect(attempts).toBeGreaterThan(200);
  }, 120_000);
});
