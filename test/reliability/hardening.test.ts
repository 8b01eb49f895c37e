/**
 * Hardening (docs/security.md): security headers on every response, login throttling, the optional
 * rate limit (contract 1.18), body limit, and no stack traces or internals in error bodies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { constantTimeEqual } from '../../src/http/auth.ts';
import { LoginThrottle } from '../../src/http/security.ts';
import { createTestContext, openTestDatabase, PASSWORD, type TestContext, uniq } from '../helpers/app.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => {
  await t?.close();
});

function expectSecurityHeaders(headers: Record<string, unknown>, docs = false): void {
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['referrer-policy']).toBe('no-referrer');
  const csp = String(headers['content-security-policy']);
  expect(csp).toContain("frame-ancestors 'none'");
  if (docs) {
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/https?:/);
  } else {
    expect(csp).toContain("default-src 'none'");
  }
}

describe('security headers', () => {
  it('are on successes, errors, unknown routes, malformed URLs and the reference page', async () => {
    const user = await t.user('headers');
    const responses = await Promise.all([
      t.get('/api/health'),
      t.get('/api/openapi.json'),
      t.get('/api/v1/organizations', { token: user.token }),
      t.get('/api/v1/organizations'),
      t.get('/api/v1/nothing'),
      t.req('PATCH', '/api/v1/organizations'),
      t.get('/api/v1/journal-entries/%zz', { token: user.token }),
      t.post('/api/v1/organizations', { token: user.token, body: '{' }),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 401, 404, 405, 404, 400]);
    for (const r of responses) expectSecurityHeaders(r.headers);
    const docs = await t.get('/api/docs/');
    expect(docs.status).toBe(200);
    expectSecurityHeaders(docs.headers, true);
  });

  it('answers undecodable and over-long path ids with the contract 404, echoing the raw segment', async () => {
    const user = await t.user('paths');
    const bad = await t.get('/api/v1/journal-entries/%E0%A4%A', { token: user.token });
    expect(bad.status).toBe(404);
    expect(bad.body).toEqual({
      _tag: 'JournalEntryNotFoundError',
      message: expect.any(String),
      entryId: '%E0%A4%A',
    });
    const long = 'x'.repeat(500);
    const tooLong = await t.get(`/api/v1/consolidation/groups/${long}`, { token: user.token });
    expect(tooLong.status).toBe(404);
    expect(tooLong.body).toMatchObject({
      _tag: 'ConsolidationGroupNotFoundError',
      consolidationGroupId: long,
    });
    const unknown = await t.get('/api/v1/%zz', { token: user.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ _tag: 'RouteNotFoundError', method: 'GET', path: '/api/v1/%zz' });
  });
});

describe('error bodies', () => {
  it('refuses pathologically nested and oversized bodies with 400 / 413', async () => {
    const user = await t.user('nesting');
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const res = await t.post('/api/v1/organizations', {
      token: user.token,
      body: deep,
      headers: { 'idempotency-key': uniq('k') },
    });
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe('ValidationError');
    const big = await t.post('/api/v1/organizations', {
      token: user.token,
      body: JSON.stringify({ name: 'x'.repeat(1_100_000) }),
    });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ _tag: 'PayloadTooLargeError', maxBytes: 1_048_576 });
  });
});

describe('login throttling', () => {
  it('answers 429 with Retry-After after too many failures for one e-mail, even with the right password', async () => {
    const user = await t.user('throttled');
    for (let i = 0; i < 10; i++) {
      const res = await t.post('/api/auth/login', {
        body: { email: user.email, password: `Wrong-pass${i}` },
      });
      expect(res.status).toBe(401);
    }
    const blocked = await t.post('/api/auth/login', { body: { email: user.email, password: PASSWORD } });
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({
      _tag: 'RateLimitExceededError',
      message: expect.any(String),
      retryAfterSeconds: expect.any(Number),
    });
    expect(Number(blocked.headers['retry-after'])).toBe(blocked.body.retryAfterSeconds);
    expect(blocked.body.retryAfterSeconds).toBeGreaterThan(0);
    expect(blocked.body.retryAfterSeconds).toBeLessThanOrEqual(15 * 60);
    // Another e-mail from the same address is not affected (the per-address limit is higher).
    const other = await t.user('not-throttled');
    expect(other.token).toBeTruthy();
  });

  it('counts per e-mail and per address within a window, and forgets after it', () => {
    let now = 1_000_000;
    const throttle = new LoginThrottle(
      { maxFailuresPerEmail: 3, maxFailuresPerIp: 5, windowSeconds: 60 },
      () => now,
    );
    for (let i = 0; i < 3; i++) throttle.recordFailure('A@x.io', '1.1.1.1');
    expect(() => throttle.check('a@x.io', '2.2.2.2')).toThrow(/Too many/);
    throttle.check('b@x.io', '1.1.1.1');
    throttle.recordFailure('b@x.io', '1.1.1.1');
    throttle.recordFailure('c@x.io', '1.1.1.1');
    expect(() => throttle.check('d@x.io', '1.1.1.1')).toThrow(/Too many/);
    now += 60_000;
    throttle.check('a@x.io', '1.1.1.1');
    throttle.recordFailure('e@x.io', '3.3.3.3');
    throttle.recordSuccess('e@x.io');
    throttle.check('e@x.io', '3.3.3.3');
  });

  it('compares secrets in constant time', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
  });
});

describe('rate limit (RATE_LIMIT_PER_MINUTE) and unexpected failures', () => {
  it('answers 429 RateLimitExceededError with Retry-After past the limit, never on /api/health; 500s carry no internals', async () => {
    const database = await openTestDatabase();
    const app = await buildApp({ database: database.database, logger: false, rateLimitPerMinute: 5 });
    app.get('/api/test-boom', { config: { public: true } }, async () => {
      const err = new Error('secret internals at /work/main/src/x.ts:1:1');
      (err as Error & { code: string }).code = '42P01';
      throw err;
    });
    await app.ready();
    try {
      // An unexpected failure: 500 with the request id only (from another client address).
      const boom = await app.inject({ method: 'GET', url: '/api/test-boom', remoteAddress: '10.0.0.9' });
      expect(boom.statusCode).toBe(500);
      expect(JSON.parse(boom.body)).toEqual({
        _tag: 'InternalServerError',
        message: 'Internal server error',
        requestId: expect.any(String),
      });
      expect(boom.body).not.toMatch(/secret|\.ts|at /);
      expectSecurityHeaders(boom.headers);

      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        statuses.push((await app.inject({ method: 'GET', url: '/api/v1/account-templates' })).statusCode);
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
      const limited = await app.inject({ method: 'GET', url: '/api/v1/organizations' });
      expect(limited.statusCode).toBe(429);
      const body = JSON.parse(limited.body);
      expect(body).toEqual({
        _tag: 'RateLimitExceededError',
        message: expect.any(String),
        retryAfterSeconds: expect.any(Number),
      });
      expect(Number(limited.headers['retry-after'])).toBe(body.retryAfterSeconds);
      expect(limited.headers['x-request-id']).toBeTruthy();
      expectSecurityHeaders(limited.headers);
      for (let i = 0; i < 10; i++) {
        expect((await app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
      }
      // Another client is counted separately.
      const other = await app.inject({ method: 'GET', url: '/api/health', remoteAddress: '10.0.0.2' });
      expect(other.statusCode).toBe(200);
      const otherApi = await app.inject({
        method: 'GET',
        url: '/api/v1/organizations',
        remoteAddress: '10.0.0.2',
      });
      expect(otherApi.statusCode).toBe(401);
    } finally {
      await app.close();
      await database.cleanup();
    }
  });

  it('is off by default', async () => {
    const results = await Promise.all(Array.from({ length: 30 }, () => t.get('/api/v1/organizations')));
    expect(results.every((r) => r.status === 401)).toBe(true);
  });
});

describe('idempotency keys and login do not reveal other users', () => {
  it('scopes keys to the caller', async () => {
    const [u1, u2] = await Promise.all([t.user('idem1'), t.user('idem2')]);
    const key = uniq('shared');
    const a = await t.post('/api/v1/organizations', {
      token: u1.token,
      body: { name: uniq('IdemOrg'), reportingCurrency: 'USD' },
      headers: { 'idempotency-key': key },
    });
    expect(a.status).toBe(201);
    const b = await t.post('/api/v1/organizations', {
      token: u2.token,
      body: { name: uniq('IdemOrg'), reportingCurrency: 'USD' },
      headers: { 'idempotency-key': key },
    });
    expect(b.status).toBe(201);
    expect(b.body.id).not.toBe(a.body.id);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
  });
});
