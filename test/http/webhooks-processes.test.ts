/**
 * Two service processes on one PostgreSQL database share the webhook work: every event of a burst of
 * creates and posts (sent to both processes) reaches the receiver once. Runs only against a server
 * (TEST_DATABASE_URL); PGlite is a single process.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  entryBody,
  kill,
  ROOT,
  type Server,
  seededRandom,
  setupTenant,
  startServer,
} from '../../scripts/harness.ts';

const serverUrl = process.env.TEST_DATABASE_URL;
const name = `gb_test_hooks_${process.pid}_${randomBytes(4).toString('hex')}`;
const random = seededRandom(23);
let admin: pg.Client;
let servers: Server[] = [];
let receiver: HttpServer;
let receiverUrl = '';
const received: { id: string; type: string; body: string; headers: Record<string, string> }[] = [];

describe.skipIf(!serverUrl)('webhooks with two service processes', () => {
  beforeAll(async () => {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'ignore' });
    admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const url = new URL(serverUrl!);
    url.pathname = `/${name}`;
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({
          id: String(req.headers['webhook-id']),
          type: JSON.parse(body).type,
          body,
          headers: req.headers as Record<string, string>,
        });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const env = {
      DATABASE_URL: url.toString(),
      DB_POOL_SIZE: '5',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_POLL_MS: '20',
    };
    // The first migrates; the second starts on the migrated database.
    servers.push(await startServer(env));
    servers.push(await startServer(env));
  }, 120_000);

  afterAll(async () => {
    for (const s of servers) await kill(s);
    servers = [];
    await new Promise<void>((resolve) => receiver?.close(() => resolve()));
    await admin?.query(`drop database if exists ${name} with (force)`);
    await admin?.end();
  });

  it('delivers each event once while both processes dispatch', async () => {
    const [a, b] = servers as [Server, Server];
    const tenant = await setupTenant(a.port, 'Hooks', random);
    const endpoint = await api(a.port, 'POST', '/api/v1/webhook-endpoints', {
      token: tenant.token,
      body: {
        organizationId: tenant.orgId,
        url: receiverUrl,
        eventTypes: ['JournalEntryCreated', 'JournalEntryPosted'],
      },
    });
    expect(endpoint.status).toBe(201);
    const n = 120;
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        for (let i = w; i < n; i += 8) {
          const port = i % 2 === 0 ? a.port : b.port;
          const created = await api(port, 'POST', '/api/v1/journal-entries', {
            token: tenant.token,
            body: entryBody(tenant, `burst ${i}`, random),
          });
          expect(created.status).toBe(201);
          const other = port === a.port ? b.port : a.port;
          const posted = await api(other, 'POST', `/api/v1/journal-entries/${created.body.id}/post`, {
            token: tenant.token,
            body: {},
          });
          expect(posted.status).toBe(200);
          ids.push(created.body.id);
        }
      }),
    );
    const expected = 2 * n;
    const deadline = Date.now() + 30_000;
    while (received.length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    // a moment more: a second copy would arrive now
    await new Promise((r) => setTimeout(r, 500));
    expect(received).toHaveLength(expected);
    expect(new Set(received.map((r) => r.id)).size).toBe(expected);
    const verifier = new Webhook(endpoint.body.secret);
    for (const r of received) verifier.verify(r.body, r.headers);
    const posted = new Set(
      received.filter((r) => r.type === 'JournalEntryPosted').map((r) => JSON.parse(r.body).resourceId),
    );
    expect(posted).toEqual(new Set(ids));
  }, 120_000);
});
