/**
 * Schema-driven fuzzing (issue 11). For EVERY operation of the served OpenAPI document, fast-check
 * generates requests from the operation's own schemas — mostly well-formed, with malformed parts mixed
 * in: wrong types, missing and extra fields, boundary numbers, bad dates, oversized strings, unicode
 * oddities (lone surrogates, U+0000, RTL marks, BOM), malformed JSON, non-object bodies, wrong content
 * types, malformed and foreign ids in path, query and body, odd headers. The caller is the owner of a
 * tenant with one of every resource (test/reliability/world.ts), so valid ids reach the services.
 *
 * Invariant: every answer is below 500, and every error answer is a JSON object with string `_tag` and
 * `message` and no stack trace.
 *
 * Seeded and bounded: FUZZ_RUNS runs per operation (default 20), FUZZ_SEED (default fixed).
 * `npm run fuzz` runs a longer campaign. FUZZ_COLLECT=1 logs every failure instead of stopping at
 * the first (used while fixing).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, PASSWORD, type TestContext, type TestUser, uniq } from '../helpers/app.ts';
import { fillPath, type JsonSchema, loadOperations, type Operation } from './openapi.ts';
import { createWorld, type World } from './world.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20_260_415);
const RUNS = Number(process.env.FUZZ_RUNS ?? 20);
const COLLECT = process.env.FUZZ_COLLECT === '1';

let t: TestContext;
let world: World;
let operations: Operation[];
let member: TestUser;
let authUser: TestUser;
let requests = 0;
const failures: string[] = [];
const statusCounts = new Map<number, number>();

beforeAll(async () => {
  t = await createTestContext();
  world = await createWorld(t);
  member = await t.user('fuzz-member');
  await t.addMember(world.owner, world.orgId, member, 'member');
  authUser = await t.user('fuzz-auth');
  ({ operations } = await loadOperations(t));
}, 120_000);

afterAll(async () => {
  const summary = [...statusCounts.entries()].sort((a, b) => a[0] - b[0]);
  console.info(`fuzz: ${requests} requests, statuses ${JSON.stringify(Object.fromEntries(summary))}`);
  if (failures.length > 0) console.info(`fuzz failures:\n${failures.join('\n')}`);
  await t?.close();
});

// ---------------------------------------------------------------------------------------------------
// Value pools

const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDFFFy',
  '\uDBFF\uDFFF',
  '\u202Eevil\u202C',
  '\u200F\u200E',
  '\uFEFFUSD',
  '\u00A0USD\u3000',
  // Control characters and white space outside String.prototype.trim's set (issue 19).
  '\u0085Name\u0085',
  '\u0001\u001f\u007f',
  '\u2028\u2029',
  'x\u0000',
  'ｕｓｄ',
  'İ',
  '𝕏𝕐',
  '١٢٣',
  '\n\t\r',
  'null',
  'undefined',
  'true',
  '0',
  '-0',
  '-1',
  '1e3',
  '1.5',
  '0x10',
  'NaN',
  'Infinity',
  '9'.repeat(400),
  'x'.repeat(10_000),
  'é'.repeat(3000),
  "' or 1=1 --",
  '"; drop table users; --',
  '%00',
  '%',
  '../../etc/passwd',
  `$${'{'}jndi:x}`,
  '{{7*7}}',
  '<script>alert(1)</script>',
  '2026-02-30',
  '2026-13-01',
  '2025-02-29',
  '0000-01-01',
  '1899-12-31',
  '3000-01-01',
  '2026-1-1',
  '20260101',
  '2026-01-01T00:00:00Z',
  ' 2026-01-01',
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  '3f2c0000-0000-4000-8000-00000000000',
  '3f2c0000-0000-4000-8000-0000000000000',
  '{3f2c0000-0000-4000-8000-000000000000}',
  'USD',
  'usd',
  'XXX',
  'US',
  'US-',
  '100.001',
  '100.',
  '.5',
  '+1',
  '1,000.00',
  '999999999999999.99',
  '1000000000000000',
  '0.00000000001',
];

const ODD_JSON: unknown[] = [
  null,
  true,
  false,
  0,
  -0,
  -1,
  1.5,
  1e308,
  -1e308,
  5e-324,
  2 ** 53,
  2 ** 31,
  -(2 ** 31) - 1,
  1899,
  3000,
  999,
  1000,
  14,
  13,
  101,
  100.001,
  [],
  [null],
  {},
  { value: '1.00' },
  { value: 1, currency: 'USD' },
  { year: 2026, period: 3 },
  [{}],
  Array.from({ length: 600 }, () => ({})),
];

const RAW_BODIES = [
  '{',
  '{"a":',
  '[1,2',
  'nul',
  '{"a":1}}',
  "{'a':1}",
  '\uFEFF{}',
  '{"a":NaN}',
  '{"a":1e999999}',
  '{"a":-0.0e-0}',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
  `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`,
  '[]',
  '1',
  '"x"',
  'null',
  'true',
  '  ',
  '\u0000',
  '{"a":1,"a":2}',
  `{"n":${'9'.repeat(5000)}}`,
];

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/jsonx',
  'application/vnd.api+json',
  '',
];

const RAW_PATH_SEGMENTS = ['%', '%zz', '%E0%A4%A', '%C0%AF', '%00', '%2F', '..', '.', '%FF%FE', 'a%20b'];

// ---------------------------------------------------------------------------------------------------
// Identifiers by name: real ids of the world so that valid requests reach deep code

function idPool(name: string, path: string): string[] {
  const w = world;
  const entries = [w.draftEntryId, w.postedEntryId];
  const companies = [w.companyId, w.company2Id];
  const accounts = [w.extraAccountId, w.accounts['1010']!, w.accounts['4000']!, w.accounts['1100']!];
  switch (name) {
    case 'organizationId':
      return [w.orgId];
    case 'companyId':
    case 'fromCompanyId':
    case 'toCompanyId':
    case 'parentCompanyId':
    case 'intercompanyPartnerId':
      return companies;
    case 'accountId':
    case 'debitAccountId':
    case 'creditAccountId':
    case 'parentAccountId':
    case 'retainedEarningsAccountId':
      return accounts;
    case 'fiscalYearId':
      return [w.fiscalYearId];
    case 'periodId':
      return [w.periodId];
    case 'userId':
    case 'postedBy':
    case 'reversedBy':
    case 'initiatedBy':
      return [w.owner.id, member.id];
    case 'groupId':
    case 'consolidationGroupId':
      return [w.groupId];
    case 'journalEntryId':
    case 'fromJournalEntryId':
    case 'toJournalEntryId':
    case 'entryId':
      return entries;
    case 'exchangeRateId':
      return [w.rateId];
    case 'approvedManualRuleIds':
      return [w.ruleId];
    case 'id':
      if (path.startsWith('/api/v1/organizations/')) return [w.orgId];
      if (path.includes('/accounts/')) return accounts;
      if (path.startsWith('/api/v1/exchange-rates/')) return [w.rateId];
      if (path.startsWith('/api/v1/intercompany-transactions/')) return [w.icId];
      if (path.startsWith('/api/v1/consolidation/groups/')) return [w.groupId];
      if (path.startsWith('/api/v1/consolidation/runs/')) return w.runId ? [w.runId] : [];
      if (path.startsWith('/api/v1/elimination-rules/')) return [w.ruleId];
      if (path.startsWith('/api/v1/journal-entries/')) return entries;
      return [];
    default:
      return [];
  }
}

const KNOWN_PATTERNS: Record<string, string[]> = {
  '^[A-Za-z0-9-]+$': ['en-US', 'de'],
  '^[A-Za-z0-9_+/-]+$': ['UTC', 'Europe/Berlin', 'Nowhere/Nope'],
  '^[A-Z]{2}(-[A-Z0-9]{1,3})?$': ['US', 'US-DE', 'GB-SCT', 'XK', 'ZZ-99'],
  '^[12][0-9]{3}-[0-9]{2}-[0-9]{2}$': ['1999-05-01', '1000-01-01', '2999-12-31'],
  '^[A-Z]{2}$': ['US', 'DE', 'EU', 'ZZ'],
  '^[0-9]{2,6}$': ['54', '541511'],
  '^[1-9][0-9]{3,9}$': ['1234', '8888', '1000000000'],
  '^(0|[1-9][0-9]{0,11})(\\.[0-9]{1,10})?$': [
    '1.1',
    '0.0000000001',
    '999999999999.9999999999',
    '0',
    '99999999',
    '999999999999',
  ],
  '^-?(0|[1-9][0-9]{0,14})(\\.[0-9]+)?$': [
    '100.00',
    '0.01',
    '-5.00',
    '999999999999999.99',
    '0',
    '1.5',
    '500000000000000.00',
    '99999999999999.99',
    '-999999999999999.99',
  ],
  '^(100(\\.00?)?|[1-9]?[0-9](\\.[0-9]{1,2})?)$': ['80', '100', '0', '33.33'],
  '^(0|[1-9][0-9]{0,14})(\\.[0-9]+)?$': ['100.00', '0', '999999999999999'],
};
const DATES = [
  '2026-03-15',
  '2026-01-01',
  '2026-12-31',
  '2025-06-30',
  '2027-01-31',
  '1900-01-01',
  '2999-12-31',
];

// ---------------------------------------------------------------------------------------------------
// Arbitraries from JSON schemas

const oddString = fc.oneof(
  fc.constantFrom(...ODD_STRINGS),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
const wild: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: oddString },
  { weight: 3, arbitrary: fc.constantFrom(...ODD_JSON) },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

function branches(schema: JsonSchema): JsonSchema[] | null {
  return (schema.anyOf ?? schema.oneOf ?? null) as JsonSchema[] | null;
}

/** Values that satisfy the schema (as far as a sampler can tell), with real ids for id fields. */
function validArb(schema: JsonSchema, name: string, path: string, depth = 0): fc.Arbitrary<unknown> {
  const alts = branches(schema);
  if (alts) return fc.oneof(...alts.map((b) => validArb(b, name, path, depth)));
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  if (schema.const !== undefined) return fc.constant(schema.const);
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -1000;
      const max = typeof schema.maximum === 'number' ? schema.maximum : Math.max(min + 1000, 1000);
      return fc.oneof(fc.constantFrom(min, max), fc.integer({ min: Math.ceil(min), max: Math.floor(max) }));
    }
    case 'string': {
      if (schema['x-uuid'] || name.endsWith('Id') || name === 'id') {
        const pool = idPool(name, path);
        return pool.length > 0
          ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...pool) }, fc.uuid())
          : fc.uuid();
      }
      if (schema.format === 'date') return fc.constantFrom(...DATES);
      if (schema.pattern && KNOWN_PATTERNS[schema.pattern])
        return fc.constantFrom(...KNOWN_PATTERNS[schema.pattern]!);
      if (name === 'email') return fc.constantFrom(world.owner.email, member.email, 'nobody@example.com');
      if (name === 'password' || name === 'newPassword') return fc.constantFrom('Another-pass9', 'weak');
      if (name === 'accountNumber') return fc.constantFrom('1100', '11*', '1100-1199', '*', '2000');
      const min = Math.max(schema.minLength ?? 1, 1);
      const max = Math.min(schema.maxLength ?? 30, 30);
      return fc
        .string({ minLength: min, maxLength: Math.max(min, max) })
        .map((s) => (s.trim() === '' ? `v${s}x` : s));
    }
    case 'array': {
      const items = (schema.items ?? {}) as JsonSchema;
      if (name === 'approvedManualRuleIds' || name.endsWith('Ids')) {
        return fc.array(validArb(items, name, path, depth + 1), { maxLength: 2 });
      }
      const minLength = Math.max(schema.minItems ?? 0, 0);
      return fc.array(validArb(items, name, path, depth + 1), {
        minLength,
        maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 3, 3)),
      });
    }
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) model[k] = validArb(v, k, path, depth + 1);
      return fc.record(model, { requiredKeys: (schema.required ?? []) as string[] });
    }
    default:
      return fc.constant('x');
  }
}

const EXTRA_KEYS = [
  '__proto__',
  'constructor',
  'unknownKey',
  'id',
  'createdAt',
  'status',
  'organizationId',
  '',
];

/** Mostly valid values with malformed parts: each node may be replaced, dropped or padded. */
function fuzzArb(schema: JsonSchema, name: string, path: string, depth = 0): fc.Arbitrary<unknown> {
  const valid = validArb(schema, name, path, depth);
  const alts = branches(schema);
  let structured: fc.Arbitrary<unknown> = valid;
  if (!alts && schema.type === 'object') {
    const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [k, v] of Object.entries(props)) model[k] = fuzzArb(v, k, path, depth + 1);
    const required = (schema.required ?? []) as string[];
    structured = fc
      .tuple(
        fc.record(model, { requiredKeys: required }),
        fc.option(fc.constantFrom(...required, '-'), { freq: 4 }),
        fc.option(fc.dictionary(fc.constantFrom(...EXTRA_KEYS), wild, { maxKeys: 2 }), { freq: 4 }),
      )
      .map(([obj, drop, extra]) => {
        const out: Record<string, unknown> = { ...(obj as Record<string, unknown>) };
        if (drop) delete out[drop];
        if (extra)
          for (const [k, v] of Object.entries(extra))
            Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
        return out;
      });
  } else if (!alts && schema.type === 'array') {
    const items = (schema.items ?? {}) as JsonSchema;
    structured = fc.oneof(
      fc.array(fuzzArb(items, name, path, depth + 1), { maxLength: 3 }),
      fc.constant(Array.from({ length: (schema.maxItems ?? 100) + 1 }, () => ({}))),
    );
  }
  return fc.oneof({ weight: 6, arbitrary: structured }, { weight: 1, arbitrary: wild });
}

// ---------------------------------------------------------------------------------------------------
// Requests

interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  note: string;
}

function encodeComponent(s: string): string {
  return [...Buffer.from(s, 'utf8')]
    .map((b) =>
      (b >= 0x30 && b <= 0x39) ||
      (b >= 0x41 && b <= 0x5a) ||
      (b >= 0x61 && b <= 0x7a) ||
      b === 0x2d ||
      b === 0x2e ||
      b === 0x5f
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

const asQueryString = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));

function pathArb(op: Operation): fc.Arbitrary<{ url: string; note: string }> {
  if (op.pathParams.length === 0) return fc.constant({ url: op.path, note: '' });
  const per = op.pathParams.map((name) => {
    const pool = name === 'type' ? ['GeneralBusiness', 'HoldingCompany'] : idPool(name, op.path);
    const real = pool.length > 0 ? fc.constantFrom(...pool) : fc.uuid();
    return fc.oneof(
      { weight: 8, arbitrary: real },
      { weight: 1, arbitrary: real.map((v) => v.toUpperCase()) },
      { weight: 1, arbitrary: fc.uuid() },
      { weight: 2, arbitrary: oddString.map((s) => (s === '' ? '%20' : encodeComponent(s))) },
      { weight: 1, arbitrary: fc.constantFrom(...RAW_PATH_SEGMENTS) },
    );
  });
  return fc.tuple(...per).map((values) => {
    const params: Record<string, string> = {};
    op.pathParams.forEach((p, i) => {
      params[p] = values[i]!;
    });
    return { url: fillPath(op.path, params), note: JSON.stringify(params) };
  });
}

function queryArb(op: Operation): fc.Arbitrary<string> {
  const parts = op.query.map((q) => {
    const valid = validArb(q.schema, q.name, op.path).map(asQueryString);
    const hostile = fc.oneof(
      oddString,
      fc.constantFrom('', '-1', '0', '101', '1.5', '1e3', 'abc', 'True', '2026-02-30', '%FF', '%E0%A4%A'),
      // Integers past every bound, and past what a double holds exactly (issue 19).
      fc.constantFrom(
        '9223372036854775807',
        '9007199254740993',
        '2147483648',
        '1'.repeat(23),
        '9'.repeat(401),
        '-9223372036854775809',
        'a%00b',
      ),
    );
    const value = fc.oneof(
      { weight: q.required ? 0 : 3, arbitrary: fc.constant<string[] | null>(null) },
      { weight: 6, arbitrary: valid.map((v) => [v]) },
      { weight: 2, arbitrary: hostile.map((v) => [v]) },
      { weight: 1, arbitrary: fc.tuple(valid, valid).map(([a, b]) => [a, b]) },
    );
    return value.map((vals) =>
      vals === null
        ? ''
        : vals
            .map((v) => `${q.name}=${v.startsWith('%') && /^%[0-9A-F]{2}/i.test(v) ? v : encodeComponent(v)}`)
            .join('&'),
    );
  });
  const unknown = fc.option(
    fc.constantFrom('unknown=1', 'limit=', 'offset=-1', 'a[b]=1', '__proto__[x]=1', '=1', '&&', 'x'),
    { freq: 5 },
  );
  return fc
    .tuple(fc.tuple(...parts), unknown)
    .map(([ps, u]) => [...ps, u ?? ''].filter((s) => s !== '').join('&'));
}

function bodyArb(op: Operation): fc.Arbitrary<{ payload?: string; contentType?: string; note: string }> {
  const json = (v: unknown) => JSON.stringify(v) ?? 'null';
  const ct = fc.oneof(
    { weight: 10, arbitrary: fc.constant('application/json') },
    fc.constantFrom(...CONTENT_TYPES),
  );
  const raw = fc
    .tuple(fc.constantFrom(...RAW_BODIES), ct)
    .map(([payload, contentType]) => ({ payload, contentType, note: `raw ${payload.slice(0, 40)}` }));
  const none = fc.constant({ note: 'no body' });
  const huge = fc.constant({
    payload: json({ name: 'x'.repeat(1_100_000) }),
    contentType: 'application/json',
    note: 'huge',
  });
  if (!op.body) {
    return fc.oneof(
      { weight: 6, arbitrary: none },
      { weight: 2, arbitrary: raw },
      {
        weight: 1,
        arbitrary: fc
          .jsonValue({ maxDepth: 2 })
          .map((v) => ({ payload: json(v), contentType: 'application/json', note: 'json' })),
      },
    );
  }
  const valid = fc.tuple(validArb(op.body, 'body', op.path), ct).map(([v, contentType]) => ({
    payload: json(v),
    contentType,
    note: 'valid',
  }));
  const fuzzed = fc.tuple(fuzzArb(op.body, 'body', op.path), ct).map(([v, contentType]) => ({
    payload: json(v),
    contentType,
    note: 'fuzzed',
  }));
  return fc.oneof(
    { weight: 5, arbitrary: fuzzed },
    { weight: 3, arbitrary: valid },
    { weight: 2, arbitrary: raw },
    { weight: 1, arbitrary: none },
    { weight: 1, arbitrary: fc.oneof({ weight: 1, arbitrary: huge }, { weight: 9, arbitrary: none }) },
  );
}

type AuthVariant = 'valid' | 'none' | 'odd';
const ODD_AUTH = [
  'Bearer',
  'Bearer ',
  'Basic dXNlcjpwYXNz',
  `Bearer ${'A'.repeat(43)}`,
  `Bearer ${'A'.repeat(42)}!`,
  'Bearer a.b.c',
  'bearer     x',
  'Token abc',
  `Bearer ${'x'.repeat(5000)}`,
];

function headerArb(
  op: Operation,
): fc.Arbitrary<{ auth: AuthVariant; oddAuth: string; extra: Record<string, string> }> {
  const idem =
    op.method === 'POST' && op.path.startsWith('/api/v1/')
      ? fc.option(
          fc.oneof(
            fc.constantFrom('fuzz-key-1', 'fuzz-key-2', ' ', 'x'.repeat(256), 'ключ', 'a b'),
            fc.string({ minLength: 1, maxLength: 20 }),
          ),
          { freq: 4 },
        )
      : fc.constant(null);
  return fc
    .record({
      auth: fc.oneof(
        { weight: 12, arbitrary: fc.constant<AuthVariant>('valid') },
        { weight: 1, arbitrary: fc.constantFrom<AuthVariant>('none', 'odd') },
      ),
      oddAuth: fc.constantFrom(...ODD_AUTH),
      idem,
      requestId: fc.option(
        fc.oneof(fc.string({ maxLength: 200 }), fc.constantFrom('abc', ' ', 'x'.repeat(129))),
        {
          freq: 8,
        },
      ),
    })
    .map(({ auth, oddAuth, idem: key, requestId }) => {
      const extra: Record<string, string> = {};
      if (key !== null) extra['idempotency-key'] = key;
      if (requestId !== null) extra['x-request-id'] = requestId;
      return { auth, oddAuth, extra };
    });
}

const TOKEN_KILLERS = new Set([
  'POST /api/auth/logout',
  'POST /api/auth/refresh',
  'POST /api/auth/change-password',
]);

async function send(op: Operation, req: FuzzRequest, tokenUser: TestUser): Promise<void> {
  let res: Awaited<ReturnType<TestContext['app']['inject']>>;
  try {
    res = await t.app.inject({
      method: req.method as 'GET',
      url: req.url,
      headers: req.headers,
      ...(req.payload !== undefined ? { payload: req.payload } : {}),
    });
  } catch (err) {
    // The HTTP client refused to build the request (e.g. a header with characters no server would
    // receive); nothing reached the service.
    if (err instanceof TypeError || (err as { code?: string }).code?.startsWith('ERR_')) return;
    throw err;
  }
  requests++;
  statusCounts.set(res.statusCode, (statusCounts.get(res.statusCode) ?? 0) + 1);
  // HEAD answers carry no body by HTTP semantics: only the status is judged.
  const problem =
    req.method === 'HEAD'
      ? res.statusCode >= 500
        ? 'server error'
        : null
      : judge(res.statusCode, res.headers['content-type'], res.body);
  if (TOKEN_KILLERS.has(op.key) && res.statusCode < 300) {
    const login = await t.post('/api/auth/login', { body: { email: tokenUser.email, password: PASSWORD } });
    tokenUser.token = login.body.token;
  }
  if (problem) {
    const line = `${op.key} → ${res.statusCode} ${problem}\n  ${req.method} ${req.url.slice(0, 300)} [${req.note}] ${JSON.stringify(req.headers).slice(0, 300)}\n  body: ${(req.payload ?? '').slice(0, 300)}\n  answer: ${res.body.slice(0, 300)}`;
    if (COLLECT) failures.push(line);
    else throw new Error(line);
  }
}

/** null when the answer satisfies the invariant, else what is wrong. */
function judge(status: number, contentType: unknown, body: string): string | null {
  if (status >= 500) return 'server error';
  if (/\n\s+at .+\(.*:\d+:\d+\)|node_modules|\/src\/.*\.ts/.test(body))
    return 'stack trace or source path in body';
  if (status < 400) return null;
  if (!String(contentType ?? '').startsWith('application/json'))
    return `error without JSON content type (${contentType})`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'error body is not JSON';
  }
  const o = parsed as { _tag?: unknown; message?: unknown };
  if (!o || typeof o !== 'object' || typeof o._tag !== 'string' || typeof o.message !== 'string')
    return 'error body without string _tag and message';
  return null;
}

function requestArb(op: Operation) {
  return fc.record({ path: pathArb(op), query: queryArb(op), body: bodyArb(op), headers: headerArb(op) });
}

const METHOD_ORDER = { GET: 0, PUT: 1, POST: 2, DELETE: 3 } as const;

describe('schema-driven fuzzing', () => {
  it('covers every operation of the OpenAPI document', () => {
    expect(operations.length).toBeGreaterThan(90);
  });

  it(
    'answers every malformed request below 500 with a {_tag, message} error body',
    async () => {
      const ordered = [...operations].sort(
        (a, b) => METHOD_ORDER[a.method] - METHOD_ORDER[b.method] || a.path.localeCompare(b.path),
      );
      for (const [index, op] of ordered.entries()) {
        const user = TOKEN_KILLERS.has(op.key) || op.path === '/api/auth/me' ? authUser : world.owner;
        await fc.assert(
          fc.asyncProperty(requestArb(op), async ({ path, query, body, headers }) => {
            const h: Record<string, string> = { ...headers.extra };
            if (headers.auth === 'valid') h.authorization = `Bearer ${user.token}`;
            else if (headers.auth === 'odd') h.authorization = headers.oddAuth;
            if (body.contentType !== undefined && body.contentType !== '')
              h['content-type'] = body.contentType;
            const url = query ? `${path.url}?${query}` : path.url;
            await send(
              op,
              {
                method: op.method,
                url,
                headers: h,
                note: `${path.note} ${body.note}`,
                ...(body.payload !== undefined ? { payload: body.payload } : {}),
              },
              user,
            );
          }),
          { seed: SEED + index, numRuns: RUNS, endOnFailure: true },
        );
      }
      expect(failures).toEqual([]);
    },
    Math.max(600_000, RUNS * 40_000),
  );

  it('answers unknown paths, odd methods and raw URLs below 500 with an error body', async () => {
    const segment = fc.oneof(
      fc.constantFrom('api', 'v1', 'organizations', 'journal-entries', 'consolidation', 'runs', uniq('x')),
      fc.constantFrom(...RAW_PATH_SEGMENTS),
      oddString.map(encodeComponent),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
        fc.array(segment, { minLength: 1, maxLength: 6 }),
        fc.constantFrom('', '/', '?a=1', '?%', '#x', '//'),
        async (method, segments, tail) => {
          const op: Operation = {
            method: 'GET',
            path: '*',
            key: `${method} *`,
            pathParams: [],
            query: [],
            body: null,
            bodyRequired: false,
            isPublic: false,
            access: null,
          };
          await send(
            op,
            {
              method,
              url: `/api/${segments.join('/')}${tail}`,
              headers: { authorization: `Bearer ${world.owner.token}` },
              note: 'route',
            },
            world.owner,
          );
        },
      ),
      { seed: SEED, numRuns: RUNS * 8, endOnFailure: true },
    );
    expect(failures).toEqual([]);
  }, 120_000);
});
