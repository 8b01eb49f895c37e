/**
 * Role matrix (contract section 2.2): every operation of the OpenAPI document × every role (viewer,
 * member, admin, owner of organization A). A role at or above the route's minimum never gets 403; a
 * lower role gets `403 ForbiddenError {resource, action, requiredRole, currentRole}` with the row's
 * action and minimum role. Rows that depend on the body or the target (approval controls, owners)
 * are extra variants. Routes of no organization (authentication, templates, creating and listing
 * organizations) are checked to refuse nobody. Requests come from test/reliability/route-table.ts and
 * are re-created for every role, so a successful request by one role cannot change what the next sees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_RANK, type Role } from '../../src/access/access.ts';
import { createTestContext, PASSWORD, type TestContext } from '../helpers/app.ts';
import { sendReq } from './matrix.ts';
import { loadOperations, type Operation } from './openapi.ts';
import { accessOf, type Ctx, makeFresh, type Req, ROUTES } from './route-table.ts';
import { createWorld } from './world.ts';

const ROLES: Role[] = ['viewer', 'member', 'admin', 'owner'];

let t: TestContext;
let ctx: Ctx;
let operations: Operation[];
let checked = 0;
const problems: string[] = [];

beforeAll(async () => {
  t = await createTestContext();
  const w = await createWorld(t);
  const [viewer, member, admin] = await Promise.all([t.user('viewer'), t.user('member'), t.user('admin')]);
  await t.addMember(w.owner, w.orgId, viewer, 'viewer');
  await t.addMember(w.owner, w.orgId, member, 'member');
  await t.addMember(w.owner, w.orgId, admin, 'admin');
  ctx = { t, w, users: { viewer, member, admin, owner: w.owner }, fresh: makeFresh(t, w) };
  ({ operations } = await loadOperations(t));
}, 120_000);

afterAll(async () => {
  console.info(`roles: ${checked} route × role checks`);
  await t?.close();
});

async function tokenOf(role: Role, killsToken: boolean | undefined): Promise<string> {
  const user = ctx.users[role];
  if (!killsToken) return user.token;
  const login = await t.post('/api/auth/login', { body: { email: user.email, password: PASSWORD } });
  return login.body.token;
}

async function check(
  key: string,
  label: string,
  min: Role | null,
  action: string | undefined,
  make: (c: Ctx) => Req | Promise<Req>,
  killsToken?: boolean,
  after?: (c: Ctx) => Promise<void>,
): Promise<void> {
  // Refused requests change nothing, so the lower roles and the first allowed role share one request;
  // every further allowed role gets a fresh one (the previous success may have consumed it).
  let shared: Req | null = await make(ctx);
  for (const role of ROLES) {
    const req = shared ?? (await make(ctx));
    const allowedRole = min === null || ROLE_RANK[role] >= ROLE_RANK[min];
    if (allowedRole) shared = null;
    const res = await sendReq(t, key, req, await tokenOf(role, killsToken));
    await after?.(ctx);
    checked++;
    const where = `${key}${label} as ${role} → ${res.status} ${res.raw.body.slice(0, 200)}`;
    if (res.status >= 500) {
      problems.push(`${where} (server error)`);
      continue;
    }
    const allowed = min === null || ROLE_RANK[role] >= ROLE_RANK[min];
    if (allowed) {
      if (res.status === 403) problems.push(`${where} (allowed role refused)`);
    } else if (
      res.status !== 403 ||
      res.body?._tag !== 'ForbiddenError' ||
      res.body.action !== action ||
      res.body.requiredRole !== min ||
      res.body.currentRole !== role ||
      typeof res.body.resource !== 'string'
    ) {
      problems.push(`${where} (expected 403 ForbiddenError ${action} requiredRole ${min})`);
    }
  }
}

describe('role matrix', () => {
  it('has a row for every operation of the OpenAPI document', () => {
    const missing = operations.map((o) => o.key).filter((k) => !ROUTES[k]);
    expect(missing, 'routes without a role row in test/reliability/route-table.ts').toEqual([]);
  });

  it('allows every role at or above the minimum and refuses the others with the right action', async () => {
    for (const op of operations) {
      const spec = ROUTES[op.key];
      if (!spec) continue;
      const started = Date.now();
      const { min, action, problem } = accessOf(spec, op);
      if (problem) problems.push(problem);
      await check(op.key, '', min, action, spec.req, spec.killsToken);
      for (const v of spec.variants ?? [])
        await check(op.key, ` [${v.label}]`, v.min, v.action, v.req, false, v.after);
      if (process.env.RELIABILITY_TIMING) console.info(`${Date.now() - started} ms ${op.key}`);
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(operations.length * ROLES.length);
  }, 180_000);
});
