/**
 * Request logs (issue 12): the real server (`src/main.ts`, in-memory PGlite, a free loopback port)
 * writes exactly one JSON line per request, with the request id, the user, the organization the
 * request names, the status and the duration — and no other per-request lines.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let server: ChildProcess;
let stdout = '';
let base = '';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text ? JSON.parse(text) : null,
    requestId: res.headers.get('x-request-id'),
  };
}

function logLines(): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: 'memory://', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.on('data', (d) => {
    stdout += String(d);
  });
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`server exited: ${stdout}`);
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`server not healthy: ${stdout}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, 120_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  }
});

describe('request log', () => {
  it('writes one JSON line per request with request id, user, organization, status and duration', async () => {
    const email = `log-${Date.now()}@example.com`;
    await call('POST', '/api/auth/register', { email, password: 'Secret-pass1', displayName: 'Log' });
    const login = await call('POST', '/api/auth/login', { email, password: 'Secret-pass1' });
    const auth = { authorization: `Bearer ${login.body.token}` };
    const org = await call(
      'POST',
      '/api/v1/organizations',
      { name: `Log ${Date.now()}`, reportingCurrency: 'USD' },
      auth,
    );
    await new Promise((r) => setTimeout(r, 300)); // earlier lines reach stdout
    const mark = logLines().length;

    const company = await call(
      'POST',
      '/api/v1/companies',
      {
        organizationId: org.body.id,
        name: 'Logged Inc.',
        legalName: 'Logged Inc.',
        jurisdiction: 'US',
        functionalCurrency: 'USD',
        reportingCurrency: 'USD',
        fiscalYearEnd: { month: 12, day: 31 },
      },
      { ...auth, 'x-request-id': 'client-chosen-id-1' },
    );
    expect(company.status).toBe(201);
    expect(company.requestId).toBe('client-chosen-id-1');
    const list = await call('GET', `/api/v1/companies?organizationId=${org.body.id}`, undefined, auth);
    const unauthorized = await call('GET', `/api/v1/organizations/${org.body.id}`);
    expect(unauthorized.status).toBe(401);
    await new Promise((r) => setTimeout(r, 300)); // let the last lines reach stdout

    const lines = logLines().slice(mark);
    expect(lines).toHaveLength(3); // exactly one line per request, nothing else
    const [create, get, denied] = lines as [
      Record<string, unknown>,
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    expect(create).toMatchObject({
      level: 30,
      reqId: 'client-chosen-id-1',
      method: 'POST',
      url: '/api/v1/companies',
      userId: login.body.user.id,
      organizationId: org.body.id,
      statusCode: 201,
      msg: 'request',
    });
    expect(typeof create.responseTimeMs).toBe('number');
    expect(get).toMatchObject({ reqId: list.requestId, organizationId: org.body.id, statusCode: 200 });
    expect(get.url).toBe('/api/v1/companies'); // no query string
    expect(denied).toMatchObject({ userId: null, organizationId: org.body.id, statusCode: 401 });
  });
});
