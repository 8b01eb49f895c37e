/**
 * HTTP test harness: one migrated database per test file (PGlite in memory by default; a fresh
 * database on the server when TEST_DATABASE_URL is set), the real app, and small helpers that create
 * users and organizations. Tests isolate themselves by creating their own users and organizations.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { type App, buildApp } from '../../src/app.ts';
import { type Database, openDatabase } from '../../src/db/client.ts';
import { inService, recordWhileOpening, routingMode } from './routing-mode.ts';

export interface Res<T = any> {
  status: number;
  body: T;
  headers: LightMyRequestResponse['headers'];
  raw: LightMyRequestResponse;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
}

export interface TestUser {
  id: string;
  email: string;
  password: string;
  token: string;
}

export const PASSWORD = 'Secret-pass1';

export function uniq(prefix = 'x'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

export class TestContext {
  constructor(
    readonly app: App,
    readonly database: Database,
    private readonly cleanup: () => Promise<void>,
  ) {}

  async req<T = any>(method: string, url: string, options: RequestOptions = {}): Promise<Res<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const query: Record<string, string> = {};
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) query[k] = String(v);
    const raw = await this.app.inject({
      method: method as 'GET',
      url,
      headers,
      ...(payload !== undefined ? { payload } : {}),
      query,
    });
    let body: unknown = raw.body;
    if (raw.body && String(raw.headers['content-type'] ?? '').includes('application/json'))
      body = JSON.parse(raw.body);
    return { status: raw.statusCode, body: body as T, headers: raw.headers, raw };
  }

  get = <T = any>(url: string, o: RequestOptions = {}) => this.req<T>('GET', url, o);
  post = <T = any>(url: string, o: RequestOptions = {}) => this.req<T>('POST', url, o);
  put = <T = any>(url: string, o: RequestOptions = {}) => this.req<T>('PUT', url, o);
  del = <T = any>(url: string, o: RequestOptions = {}) => this.req<T>('DELETE', url, o);

  /** Registers and logs in a new user. */
  async user(name = 'user'): Promise<TestUser> {
    const email = `${uniq(name)}@example.com`;
    const reg = await this.post('/api/auth/register', {
      body: { email, password: PASSWORD, displayName: name },
    });
    if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
    const login = await this.post('/api/auth/login', { body: { email, password: PASSWORD } });
    if (login.status !== 200) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
    return { id: reg.body.user.id, email, password: PASSWORD, token: login.body.token };
  }

  /** Creates an organization owned by `owner`. */
  async org(owner: TestUser, body: Record<string, unknown> = {}): Promise<any> {
    const res = await this.post('/api/v1/organizations', {
      token: owner.token,
      body: { name: uniq('Org'), reportingCurrency: 'USD', ...body },
    });
    if (res.status !== 201) throw new Error(`create org failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** Adds `user` to the organization with `role` (as `owner`). */
  async addMember(owner: TestUser, organizationId: string, user: TestUser, role: string): Promise<void> {
    const res = await this.post(`/api/v1/organizations/${organizationId}/members`, {
      token: owner.token,
      body: { email: user.email, role },
    });
    if (res.status !== 201) throw new Error(`add member failed: ${res.status} ${JSON.stringify(res.body)}`);
  }

  async close(): Promise<void> {
    await this.app.close();
    await this.cleanup();
  }
}

/** A fresh, migrated database for one test file. */
export async function openTestDatabase(): Promise<{ database: Database; cleanup: () => Promise<void> }> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const snapshotFile = process.env.GROUPBOOK_TEST_SNAPSHOT;
    const snapshot = snapshotFile ? new Blob([readFileSync(snapshotFile)]) : undefined;
    const database = await openDatabase({ dataDir: 'memory://', ...(snapshot ? { snapshot } : {}) });
    await database.migrate();
    return { database, cleanup: () => database.close() };
  }
  const name = `gb_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString(), poolSize: 20 });
  await database.migrate();
  return {
    database,
    cleanup: async () => {
      await database.close();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

export async function createTestContext(): Promise<TestContext> {
  if (routingMode) {
    // The distribution check over this file's statements (test/helpers/routing-mode.ts).
    const { value, recording } = await recordWhileOpening(openTestDatabase);
    const app = await buildApp({ database: value.database, logger: false });
    app.addHook('onRequest', (_request, _reply, done) => inService.run(true, done));
    await app.ready();
    return new TestContext(app, value.database, async () => {
      await value.cleanup();
      const problems = await recording.problems();
      if (problems.length > 0)
        throw new Error(`statements that cannot stay on one organization:\n  ${problems.join('\n  ')}`);
    });
  }
  const { database, cleanup } = await openTestDatabase();
  const app = await buildApp({ database, logger: false });
  await app.ready();
  return new TestContext(app, database, cleanup);
}
