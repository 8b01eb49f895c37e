/**
 * `npm run docs:examples`: records the examples of the OpenAPI document from the service itself and
 * writes them to src/http/openapi-examples.json (commit the result; re-run after adding or changing
 * routes). Nothing is written by hand: an in-memory instance is sent
 *
 * 1. the demo data set (scripts/demo-data.ts: four companies in three currencies, a year of entries,
 *    rates, intercompany sales, a group and a completed consolidation run);
 * 2. a tour of the reads over that data set with small pages (company and consolidated statements,
 *    rate lookups, lists) — these answers are preferred;
 * 3. the valid request of the route table (test/reliability/route-table.ts) of every operation not yet
 *    recorded, against the smaller tenant the reliability tests build;
 * 4. a few requests that fail on purpose, for one real body of the common error tags.
 *
 * The first successful request and answer of each operation is kept (for the tour, the tour's). Ids,
 * timestamps, session tokens and random name suffixes are then replaced by stable values in order of
 * appearance, and measured durations by the difference of the stable timestamps, so that the file only
 * changes when the API does — except that two events recorded in the same millisecond in one run and
 * not in another shift the stable timestamps after them by a second.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.ts';
import { openDatabase } from '../src/db/client.ts';
import { operationKey } from '../src/http/openapi.ts';
import type { RecordedExamples, RecordedOperation } from '../src/http/openapi-examples.ts';
import { type RequestOptions, type Res, TestContext } from '../test/helpers/app.ts';
import { sendReq } from '../test/reliability/matrix.ts';
import { loadOperations } from '../test/reliability/openapi.ts';
import { type Ctx, makeFresh, ROUTES } from '../test/reliability/route-table.ts';
import { createWorld } from '../test/reliability/world.ts';
import { type Api, buildDemo, type Json } from './demo-data.ts';

const target = fileURLToPath(new URL('../src/http/openapi-examples.json', import.meta.url));
/** The demo's fiscal year: fixed, so that the recording does not change with the calendar. */
const YEAR = 2025;

type Phase = 'demo' | 'tour' | 'table' | 'errors';

interface Seen {
  key: string;
  status: number;
  query: Record<string, string>;
  payload: string | null;
}

/** A test context that records every request with its route and answer. */
class RecordingContext extends TestContext {
  phase: Phase = 'demo';
  /** Whether an answer replaces the one already recorded for its operation. */
  override = false;
  last: Seen | null = null;
  readonly operations = new Map<string, RecordedOperation>();
  readonly errors = new Map<string, Record<string, unknown>>();

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the signature of TestContext.req
  override async req<T = any>(method: string, url: string, options: RequestOptions = {}): Promise<Res<T>> {
    this.last = null;
    const res = await super.req<T>(method, url, options);
    const seen = this.last as Seen | null;
    if (!seen) return res;
    const body = res.body as unknown;
    if (res.status >= 400) {
      const tag = (body as { _tag?: unknown } | null)?._tag;
      if (typeof tag === 'string' && !this.errors.has(tag))
        this.errors.set(tag, body as Record<string, unknown>);
      return res;
    }
    if (res.status >= 300 || (this.operations.has(seen.key) && !this.override)) return res;
    const recorded: RecordedOperation = { status: res.status };
    if (Object.keys(seen.query).length > 0) recorded.query = seen.query;
    if (options.body !== undefined) {
      recorded.request = typeof options.body === 'string' ? JSON.parse(options.body) : options.body;
    }
    // The document's own operation: the document is its example.
    const isDocument = seen.key === 'GET /api/openapi.json';
    if (seen.payload && typeof body === 'object' && body !== null && !isDocument) recorded.response = body;
    this.operations.set(seen.key, recorded);
    return res;
  }
}

async function main(): Promise<void> {
  const database = await openDatabase({ dataDir: 'memory://' });
  await database.migrate();
  const app = await buildApp({ database, logger: false, loginThrottle: false });
  const t = new RecordingContext(app, database, async () => {
    await app.close();
    await database.close();
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const url = request.routeOptions.url;
    if (url) {
      const query: Record<string, string> = {};
      for (const [k, v] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
        if (typeof v === 'string') query[k] = v;
      }
      t.last = {
        key: operationKey(request.method, url),
        status: reply.statusCode,
        query,
        payload: typeof payload === 'string' ? payload : null,
      };
    }
    return payload;
  });
  await app.ready();
  try {
    await record(t);
    const { operations } = await loadOperations(t);
    const missing = operations
      .map((o) => o.key.replace(/\{[^}]+\}/g, '{}'))
      .filter((k) => !t.operations.has(k));
    const output: RecordedExamples = {
      operations: Object.fromEntries([...t.operations].sort(([a], [b]) => a.localeCompare(b))),
      errors: Object.fromEntries([...t.errors].sort(([a], [b]) => a.localeCompare(b))),
    };
    const stable = coherentDurations(JSON.parse(stabilize(JSON.stringify(output, null, 2))));
    writeFileSync(target, `${JSON.stringify(stable, null, 2)}\n`);
    process.stdout.write(
      `wrote ${target}: ${t.operations.size} operations, ${t.errors.size} error tags` +
        (missing.length ? `; NOT recorded: ${missing.join(', ')}` : '') +
        '\n',
    );
    if (missing.length) process.exitCode = 1;
  } finally {
    await t.close();
  }
}

async function record(t: RecordingContext): Promise<void> {
  // 1. The demo data set.
  const api: Api = async <T = Json>(method: string, path: string, body?: unknown, token?: string | null) => {
    const [pathname, search] = path.split('?', 2) as [string, string?];
    const query = Object.fromEntries(new URLSearchParams(search ?? ''));
    const res = await t.req(method, pathname, {
      token: token ?? null,
      query,
      ...(body !== undefined ? { body } : {}),
    });
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as T;
  };
  const demo = await buildDemo(api, {
    year: YEAR,
    stamp: 'example',
    organizationName: 'Northwind Group',
    password: 'Demo-pass-2024',
    wait: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 50))),
  });

  // 2. The tour of the reads, with small pages.
  t.phase = 'tour';
  t.override = true;
  const token = demo.token;
  const orgId: string = demo.org.id;
  const parent = demo.companies.parent!;
  const eu = demo.companies.eu!;
  const runId: string = demo.run.id;
  const groupId: string = demo.group.id;
  const get = async (path: string, query: Record<string, string | number> = {}) => {
    const res = await t.get(path, { token, query });
    if (res.status !== 200) throw new Error(`GET ${path} → ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const yearEnd = `${YEAR}-12-31`;
  const fullYear = { periodStartDate: `${YEAR}-01-01`, periodEndDate: yearEnd };
  await get('/api/auth/me');
  await get('/api/v1/organizations');
  await get(`/api/v1/organizations/${orgId}`);
  await get(`/api/v1/organizations/${orgId}/members`);
  await get('/api/v1/companies', { organizationId: orgId, limit: 2 });
  await get(`/api/v1/organizations/${orgId}/companies/${eu.id}`);
  await get('/api/v1/accounts', { organizationId: orgId, companyId: parent.id, limit: 3 });
  await get(`/api/v1/accounts/organizations/${orgId}/accounts/${parent.accounts['1150']}`);
  const entries = await get('/api/v1/journal-entries', { organizationId: orgId, companyId: eu.id, limit: 2 });
  await get(`/api/v1/journal-entries/${entries.entries[0].id}`, { organizationId: orgId });
  const rates = await get('/api/v1/exchange-rates', { organizationId: orgId, fromCurrency: 'EUR', limit: 3 });
  await get(`/api/v1/exchange-rates/${rates.rates[0].id}`);
  const pair = { organizationId: orgId, fromCurrency: 'EUR', toCurrency: 'USD' };
  await get('/api/v1/exchange-rates/rate', { ...pair, effectiveDate: `${YEAR}-06-15`, rateType: 'Average' });
  await get('/api/v1/exchange-rates/latest', pair);
  await get('/api/v1/exchange-rates/closest', { ...pair, date: `${YEAR}-07-04` });
  await get('/api/v1/exchange-rates/period-average', { ...pair, year: YEAR, period: 6, companyId: eu.id });
  await get('/api/v1/exchange-rates/period-closing', { ...pair, year: YEAR, period: 12, companyId: eu.id });
  const company = { organizationId: orgId, companyId: eu.id };
  await get('/api/v1/reports/trial-balance', { ...company, asOfDate: yearEnd });
  await get('/api/v1/reports/balance-sheet', { ...company, asOfDate: yearEnd });
  await get('/api/v1/reports/income-statement', { ...company, ...fullYear });
  await get('/api/v1/reports/cash-flow', { ...company, ...fullYear });
  await get('/api/v1/reports/equity-statement', { ...company, ...fullYear });
  await get('/api/v1/intercompany-transactions', { organizationId: orgId, limit: 2 });
  await get(`/api/v1/intercompany-transactions/${demo.icIds[0]}`);
  await get('/api/v1/audit-log', { organizationId: orgId, entityType: 'ConsolidationRun', limit: 3 });
  await get('/api/v1/consolidation/groups', { organizationId: orgId });
  await get(`/api/v1/consolidation/groups/${groupId}`);
  await get(`/api/v1/consolidation/groups/${groupId}/structure`);
  await get('/api/v1/elimination-rules', { organizationId: orgId, limit: 2 });
  await get(`/api/v1/elimination-rules/${demo.rules.created[0].id}`);
  await get('/api/v1/consolidation/runs', { organizationId: orgId });
  await get(`/api/v1/consolidation/groups/${groupId}/latest-run`);
  await get(`/api/v1/consolidation/runs/${runId}`);
  await get(`/api/v1/consolidation/runs/${runId}/trial-balance`);
  for (const report of ['balance-sheet', 'income-statement', 'cash-flow', 'equity-statement']) {
    await get(`/api/v1/consolidation/runs/${runId}/reports/${report}`);
  }

  // Writes the demo does not make, on its data where they fit.
  const post = async (path: string, body: unknown, query: Record<string, string> = {}) => {
    const res = await t.post(path, { token, body, query });
    if (res.status >= 300) throw new Error(`POST ${path} → ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const nextYear = (m: number, d: number) =>
    `${YEAR + 1}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
  await post('/api/v1/exchange-rates/bulk', {
    rates: ['EUR', 'GBP'].map((fromCurrency, i) => ({
      organizationId: orgId,
      fromCurrency,
      toCurrency: 'USD',
      rate: ['1.1125', '1.2460'][i],
      effectiveDate: nextYear(1, 2),
      rateType: 'Spot',
      source: 'Manual',
    })),
  });
  t.override = false;
  const years = await get(`/api/v1/organizations/${orgId}/companies/${eu.id}/fiscal-years`);
  const fy = years.fiscalYears.find((y: Json) => y.year === YEAR);
  const fyPath = `/api/v1/organizations/${orgId}/companies/${eu.id}/fiscal-years/${fy.id}`;
  await post(`${fyPath}/close`, undefined);
  await post(`${fyPath}/reopen`, { reason: 'Late supplier invoice for December to be booked' });
  // A run started asynchronously and cancelled before it finishes (tried again if it wins the race).
  for (let attempt = 0; attempt < 5 && !t.operations.has('DELETE /api/v1/consolidation/runs/{}'); attempt++) {
    const forced = await t.post(`/api/v1/consolidation/groups/${groupId}/runs`, {
      token,
      headers: { prefer: 'respond-async' },
      body: { periodRef: { year: YEAR, period: 12 }, forceRegeneration: true },
    });
    const cancelled = await t.post(`/api/v1/consolidation/runs/${forced.body.id}/cancel`, { token });
    if (cancelled.status === 200) await t.del(`/api/v1/consolidation/runs/${forced.body.id}`, { token });
  }
  const sandbox = await post('/api/v1/organizations', {
    name: 'Northwind Sandbox',
    reportingCurrency: 'USD',
  });
  await t.del(`/api/v1/organizations/${sandbox.id}`, { token });
  const pat = { email: 'pat.reviewer@example.com', password: 'Review-pass-2024' };
  await t.post('/api/auth/register', { body: { ...pat, displayName: 'Pat Reviewer' } });
  const patSession = await t.post('/api/auth/login', { body: pat });
  await t.post('/api/auth/change-password', {
    token: patSession.body.token,
    body: { currentPassword: pat.password, newPassword: 'Review-pass-2025' },
  });

  // 3. Every other operation: its route-table request, sent by the owner of the reliability tenant.
  t.phase = 'table';
  const w = await createWorld(t);
  const ctx: Ctx = {
    t,
    w,
    users: { viewer: w.owner, member: w.owner, admin: w.owner, owner: w.owner },
    fresh: makeFresh(t, w),
  };
  const { operations } = await loadOperations(t);
  for (const op of operations) {
    const key = op.key.replace(/\{[^}]+\}/g, '{}');
    const spec = ROUTES[op.key];
    if (t.operations.has(key) || !spec) continue;
    let sessionToken = w.owner.token;
    if (spec.killsToken) {
      const login = await t.post('/api/auth/login', {
        body: { email: w.owner.email, password: w.owner.password },
      });
      sessionToken = login.body.token;
    }
    await sendReq(t, op.key, await spec.req(ctx), sessionToken);
  }

  // 4. Common errors, once each.
  t.phase = 'errors';
  await t.get('/api/v1/organizations');
  await t.get('/api/v1/journal-entries', { token, query: { organizationId: orgId, accountId: parent.id } });
  await t.get(`/api/v1/organizations/${orgId}/companies/${crypto.randomUUID()}`, { token });
  await t.get(`/api/v1/organizations/${w.orgId}`, { token });
  await t.post('/api/v1/organizations', {
    token,
    body: { name: 'Northwind Group', reportingCurrency: 'USD' },
  });
  await t.get('/api/v1/no-such-route', { token });
  await t.req('PATCH', '/api/v1/organizations', { token });
  const idem = { 'idempotency-key': 'create-northwind-eu-rate' };
  const rate = {
    organizationId: orgId,
    fromCurrency: 'EUR',
    toCurrency: 'USD',
    rate: '1.1050',
    effectiveDate: `${YEAR + 1}-01-03`,
    rateType: 'Spot',
    source: 'Manual',
  };
  await t.post('/api/v1/exchange-rates', { token, headers: idem, body: rate });
  await t.post('/api/v1/exchange-rates', { token, headers: idem, body: { ...rate, rate: '1.1060' } });
  await t.post('/api/auth/login', { body: { email: demo.email, password: 'wrong-password' } });
  await t.post('/api/auth/register', {
    body: { email: demo.email, password: 'Another-pass-1', displayName: 'Again' },
  });
  await t.post('/api/auth/register', {
    body: { email: 'sam@example.com', password: 'short', displayName: 'Sam' },
  });
  await t.del(`/api/v1/organizations/${orgId}`, { token });
  await t.get(`/api/v1/journal-entries/${crypto.randomUUID()}`, { token });
  const posted = await t.get('/api/v1/journal-entries', {
    token,
    query: { organizationId: orgId, companyId: parent.id, status: 'Posted', limit: 1 },
  });
  await t.post(`/api/v1/journal-entries/${posted.body.entries[0].id}/approve`, { token });
  await t.post('/api/v1/journal-entries', {
    token,
    body: {
      organizationId: orgId,
      companyId: parent.id,
      description: 'Unbalanced draft',
      transactionDate: `${YEAR}-12-15`,
      lines: [
        { accountId: parent.accounts['1010'], debitAmount: { value: '100.00', currency: 'USD' } },
        { accountId: parent.accounts['4000'], creditAmount: { value: '90.00', currency: 'USD' } },
      ],
    },
  });
  await t.get(`/api/v1/accounts/organizations/${orgId}/accounts/${crypto.randomUUID()}`, { token });
}

/** `durationMs` from the (stable) `startedAt` and `completedAt` beside it, instead of the measured one. */
function coherentDurations(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(coherentDurations);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = coherentDurations(v);
  if (typeof out.durationMs === 'number') {
    const { startedAt, completedAt } = out as { startedAt?: unknown; completedAt?: unknown };
    out.durationMs =
      typeof startedAt === 'string' && typeof completedAt === 'string'
        ? Date.parse(completedAt) - Date.parse(startedAt)
        : 0;
  }
  return out;
}

/** Stable ids, timestamps, tokens and name suffixes, in order of appearance. */
function stabilize(text: string): string {
  const uuids = new Map<string, string>();
  text = text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, (u) => {
    const lower = u.toLowerCase();
    let mapped = uuids.get(lower);
    if (!mapped) {
      const h = createHash('sha256').update(`groupbook example ${uuids.size}`).digest('hex');
      mapped = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16]!, 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
      uuids.set(lower, mapped);
    }
    return mapped;
  });
  // Timestamps keep their order; gaps longer than an hour (token expiry) keep their length in hours.
  const stamps = [...new Set(text.match(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g) ?? [])].sort();
  const mappedStamps = new Map<string, string>();
  let clock = Date.parse(`${YEAR + 1}-01-12T09:30:00.000Z`);
  stamps.forEach((s, i) => {
    const gap = i === 0 ? 0 : Date.parse(s) - Date.parse(stamps[i - 1]!);
    clock += gap > 3_600_000 ? Math.round(gap / 3_600_000) * 3_600_000 : i === 0 ? 0 : 1000;
    mappedStamps.set(s, new Date(clock).toISOString());
  });
  text = text.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, (s) => mappedStamps.get(s)!);
  let tokens = 0;
  const tokenMap = new Map<string, string>();
  text = text.replace(/"token": "([^"]+)"/g, (_, v: string) => {
    if (!tokenMap.has(v)) tokenMap.set(v, `session-token-${++tokens}-${'x'.repeat(24)}`);
    return `"token": "${tokenMap.get(v)}"`;
  });
  const suffixes = new Map<string, string>();
  text = text.replace(/-([0-9a-f]{10})\b/g, (_, hex: string) => {
    if (!suffixes.has(hex)) suffixes.set(hex, String(suffixes.size + 1));
    return `-${suffixes.get(hex)}`;
  });
  return text;
}

await main();
