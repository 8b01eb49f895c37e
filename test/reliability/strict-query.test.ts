/**
 * Strict query strings: every operation of the OpenAPI document, sent the valid request of its
 * route-table line (test/reliability/route-table.ts) plus one query parameter it does not declare,
 * answers `400 ValidationError` with an issue at `/query/<name>` — a typo in a filter never returns
 * unfiltered data. The declared parameters come from each route's own querystring schema, so a new
 * route is covered as soon as it has its route-table line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, PASSWORD, type TestContext } from '../helpers/app.ts';
import { sendReq } from './matrix.ts';
import { loadOperations, type Operation } from './openapi.ts';
import { type Ctx, makeFresh, ROUTES } from './route-table.ts';
import { createWorld } from './world.ts';

let t: TestContext;
let ctx: Ctx;
let operations: Operation[];

beforeAll(async () => {
  t = await createTestContext();
  const w = await createWorld(t);
  ctx = {
    t,
    w,
    users: { viewer: w.owner, member: w.owner, admin: w.owner, owner: w.owner },
    fresh: makeFresh(t, w),
  };
  ({ operations } = await loadOperations(t));
}, 120_000);
afterAll(async () => t?.close());

describe('strict query parameters', () => {
  it('an unknown query parameter answers 400 ValidationError naming it, on every operation', async () => {
    const problems: string[] = [];
    let checked = 0;
    for (const op of operations) {
      const spec = ROUTES[op.key];
      if (!spec) {
        problems.push(`${op.key}: no route-table line`);
        continue;
      }
      const declared = new Set(op.query.map((q) => q.name));
      const unknown = declared.has('sortBy') ? 'sortByTypo' : 'sortBy';
      const req = await spec.req(ctx);
      let token: string | null = ctx.w.owner.token;
      if (spec.killsToken) {
        const login = await t.post('/api/auth/login', {
          body: { email: ctx.w.owner.email, password: PASSWORD },
        });
        token = login.body.token;
      }
      const res = await sendReq(
        t,
        op.key,
        { ...req, query: { ...(req.query ?? {}), [unknown]: 'x' } },
        token,
      );
      checked++;
      const issue = (res.body?.issues ?? []).find((i: { path: string }) => i.path === `/query/${unknown}`);
      if (res.status !== 400 || res.body?._tag !== 'ValidationError' || !issue) {
        problems.push(`${op.key} → ${res.status} ${res.raw.body.slice(0, 200)}`);
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBe(operations.length);
  }, 180_000);

  it('a misspelt filter is refused instead of answering the unfiltered list', async () => {
    const { w } = ctx;
    const res = await t.get('/api/v1/journal-entries', {
      token: w.owner.token,
      query: { organizationId: w.orgId, acountId: w.accounts['1010']! },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      _tag: 'ValidationError',
      issues: [{ path: '/query/acountId', message: expect.stringContaining('acountId') }],
    });
    const bogus = await t.get('/api/health', { query: { bogus: '1' } });
    expect(bogus.status).toBe(400);
    expect(bogus.body.issues).toEqual([{ path: '/query/bogus', message: expect.any(String) }]);
    const declared = await t.get('/api/v1/journal-entries', {
      token: w.owner.token,
      query: { organizationId: w.orgId, companyId: w.companyId, limit: 5 },
    });
    expect(declared.status).toBe(200);
  });
});
