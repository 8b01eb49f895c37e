/**
 * Distribution by organization (docs/scaling.md, "Citus"): every route of the route table
 * (test/reliability/route-table.ts) is called with statement recording on (src/db/statement-log.ts),
 * and every SQL statement the service sent — for the route and for building the tenant it runs on —
 * must be routable to one organization, and no transaction may touch two organizations
 * (test/reliability/routing.ts says exactly what that means). Lists that span the caller's
 * organizations and look-ups by id are the two documented exceptions. A failure names the route, the
 * problem and the statement.
 *
 * Also: docs/scaling.md classifies every table of the schema as distributed or reference.
 */
import { getTableConfig, type PgTable } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import * as schema from '../../src/db/schema/index.ts';
import { type RecordedStatement, recordStatements } from '../../src/db/statement-log.ts';
import { buildApp } from '../../src/app.ts';
import { openTestDatabase, PASSWORD, TestContext } from '../helpers/app.ts';
import { sendReq } from './matrix.ts';
import { loadOperations, type Operation } from './openapi.ts';
import { type Ctx, makeFresh, type Req, ROUTES } from './route-table.ts';
import {
  checkStatement,
  checkTransaction,
  loadParser,
  type StatementVerdict,
  tableKindsOfRepository,
} from './routing.ts';
import { createWorld } from './world.ts';

interface Recorded extends RecordedStatement {
  route: string;
}

const kinds = tableKindsOfRepository();
const log: Recorded[] = [];
/** The route being called (statements of the test's own queries are labelled `harness`). */
let current = 'setup';

let t: TestContext;
let ctx: Ctx;
let operations: Operation[];
const answered = new Map<string, number[]>();

beforeAll(async () => {
  await loadParser();
  recordStatements((s) => log.push({ ...s, route: current }));
  const { database, cleanup } = await openTestDatabase().finally(() => recordStatements(null));
  log.length = 0; // migrations
  // The sweep for orphaned runs (a maintenance read across organizations) runs at start-up, before
  // the first labelled statement, and not again during the test.
  current = 'harness';
  const app = await buildApp({ database, logger: false, runLeaseMs: 24 * 3_600_000 });
  await app.ready();
  t = new TestContext(app, database, cleanup);
  current = 'setup: tenant A';
  const w = await createWorld(t);
  // The owner also belongs to a second organization, so that lists without organizationId span two.
  current = 'setup: second organization';
  await t.org(w.owner);
  ctx = {
    t,
    w,
    users: { viewer: w.owner, member: w.owner, admin: w.owner, owner: w.owner },
    fresh: makeFresh(t, w),
  };
  current = 'harness';
  ({ operations } = await loadOperations(t));
}, 120_000);

afterAll(async () => {
  await t?.close();
});

async function send(label: string, key: string, req: Req, killsToken?: boolean): Promise<void> {
  current = 'harness';
  const token =
    req.token ??
    (killsToken
      ? (await t.post('/api/auth/login', { body: { email: ctx.w.owner.email, password: PASSWORD } })).body
          .token
      : ctx.w.owner.token);
  current = label;
  const res = await sendReq(t, key, req, token);
  current = 'harness';
  answered.set(key, [...(answered.get(key) ?? []), res.status]);
}

describe('distribution by organization', () => {
  it('classifies every table of the schema in docs/scaling.md', () => {
    const tables = Object.values(schema)
      .filter((v) => v && typeof v === 'object' && Symbol.for('drizzle:IsDrizzleTable') in v)
      .map((v) => getTableConfig(v as PgTable).name);
    expect(tables.length).toBeGreaterThan(20);
    const unclassified = tables.filter((name) => !kinds.distributed.has(name) && !kinds.reference.has(name));
    expect(unclassified, 'tables missing from the table of docs/scaling.md').toEqual([]);
    const both = tables.filter((name) => kinds.distributed.has(name) && kinds.reference.has(name));
    expect(both).toEqual([]);
  });

  it('routes every statement of every route to one organization, one per transaction', async () => {
    for (const op of operations) {
      const spec = ROUTES[op.key];
      if (!spec) continue;
      current = 'harness';
      const req = await spec.req(ctx);
      await send(op.key, op.key, req, spec.killsToken);
      // Lists without organizationId (the caller's organizations) and by-id routes naming it.
      if (spec.listAll) {
        const { organizationId: _drop, ...rest } = req.query ?? {};
        await send(`${op.key} (all organizations)`, op.key, { ...req, query: rest });
      }
      if (spec.addOrg === 'query')
        await send(`${op.key} (organizationId)`, op.key, await withOrganization(spec.req, 'query'));
      if (spec.addOrg === 'body')
        await send(`${op.key} (organizationId)`, op.key, await withOrganization(spec.req, 'body'));
      // A route whose request above is refused after the role check: also a request it accepts.
      if (spec.success) {
        current = 'harness';
        await send(`${op.key} (accepted)`, op.key, await spec.success(ctx));
      }
    }
    // Background work (asynchronous consolidation runs) finishes before the statements are judged.
    await waitForRuns();

    current = 'harness';
    const callers = new Set(
      (
        await queryRows<{ organization_id: string }>(
          t.database.db,
          sql`select organization_id from memberships where user_id = ${ctx.w.owner.id}`,
        )
      ).map((r) => r.organization_id),
    );
    const problems: string[] = [];
    const transactions = new Map<number, Array<{ text: string; verdict: StatementVerdict; route: string }>>();
    const spanning = new Map<string, Set<string>>();
    let checked = 0;
    for (const s of log) {
      if (s.route === 'harness') continue;
      const verdict = checkStatement(s.text, s.params, kinds, { callerOrganizations: callers });
      checked++;
      for (const p of verdict.problems) problems.push(`${s.route}: ${p}\n      ${oneLine(s.text)}`);
      if (verdict.spanning)
        (
          spanning.get(verdict.spanning) ?? spanning.set(verdict.spanning, new Set()).get(verdict.spanning)!
        ).add(s.route);
      const tx = transactions.get(s.tx) ?? [];
      tx.push({ text: s.text, verdict, route: s.route });
      transactions.set(s.tx, tx);
    }
    for (const statements of transactions.values())
      for (const p of checkTransaction(statements))
        problems.push(
          `${statements[0]!.route}: ${p}\n      ${statements.map((s) => oneLine(s.text, 120)).join('\n      ')}`,
        );
    if (process.env.ROUTING_VERBOSE)
      for (const [kind, routes] of spanning) console.info(`${kind}: ${[...routes].join(', ')}`);
    console.info(
      `routing: ${checked} statements in ${transactions.size} transactions of ${answered.size} routes`,
    );

    expect(problems, 'statements or transactions that cannot stay on one organization').toEqual([]);
    // Every route of the route table was called and answered without a server error.
    const missing = operations.map((o) => o.key).filter((k) => !ROUTES[k] || !answered.has(k));
    expect(missing).toEqual([]);
    const failed = [...answered].filter(([, statuses]) => statuses.some((s) => s >= 500));
    expect(failed).toEqual([]);
    // …and every route succeeded at least once (2xx), so its writes were checked, not only a refusal.
    const neverSucceeded = [...answered]
      .filter(([, statuses]) => !statuses.some((s) => s >= 200 && s < 300))
      .map(([key, statuses]) => `${key}: ${statuses.join(', ')}`);
    expect(neverSucceeded, 'routes that answered no 2xx').toEqual([]);
    // The two documented exceptions were met (so the check of them ran).
    expect([...spanning.keys()].sort()).toEqual(['by-id', 'caller-organizations']);
  }, 180_000);
});

async function withOrganization(make: (c: Ctx) => Req | Promise<Req>, where: 'query' | 'body'): Promise<Req> {
  const req = await make(ctx);
  return where === 'query'
    ? { ...req, query: { ...(req.query ?? {}), organizationId: ctx.w.orgId } }
    : { ...req, body: { ...((req.body as object) ?? {}), organizationId: ctx.w.orgId } };
}

async function waitForRuns(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const running = await queryRows<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from consolidation_runs where status in ('Pending', 'InProgress')`,
    );
    if (running[0]!.n === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function oneLine(text: string, max = 600): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)} …` : flat;
}
