/**
 * The stall watch (src/db/client.ts): a PostgreSQL server that stops answering without closing its
 * connections — here a proxy in front of the test server that stops passing bytes on, as a primary
 * gone with its network does — makes a waiting statement fail as a lost connection does, within the
 * timeout, a second and the probe; a slow statement of a server that still answers is left to finish.
 * PostgreSQL only (TEST_DATABASE_URL).
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase, queryRows } from '../../src/db/client.ts';
import { isUnavailableError } from '../../src/db/failover.ts';

const url = process.env.TEST_DATABASE_URL;

describe.skipIf(!url)('stall watch', () => {
  let proxy: Server;
  let port = 0;
  let stalled = false;
  const sockets: Socket[] = [];
  let database: Database;

  beforeAll(async () => {
    const target = new URL(url!);
    proxy = createServer((client) => {
      const server = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
      sockets.push(client, server);
      for (const [from, to] of [
        [client, server],
        [server, client],
      ] as const) {
        from.on('data', (chunk) => {
          if (!stalled) to.write(chunk); // a stalled server swallows everything, closes nothing
        });
        from.on('error', () => to.destroy());
        from.on('close', () => to.destroy());
      }
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    port = (proxy.address() as { port: number }).port;
    const proxied = new URL(url!);
    proxied.host = `127.0.0.1:${port}`;
    database = await openDatabase({ url: proxied.toString(), poolSize: 2, stallTimeoutMs: 500 });
  });

  afterAll(async () => {
    stalled = false;
    for (const s of sockets) s.destroy();
    await database?.close().catch(() => {});
    await new Promise((resolve) => proxy?.close(resolve));
  });

  it('leaves a slow statement of a server that answers the probe alone', async () => {
    const rows = await queryRows(database.db, sql`select pg_sleep(2.5), 1 as one`);
    expect(rows[0]).toMatchObject({ one: 1 });
  }, 15_000);

  it('fails a statement on a stalled server as a lost connection, within the bound', async () => {
    await database.db.execute(sql`select 1`);
    stalled = true;
    const started = Date.now();
    const error = await database.db.execute(sql`select 2`).catch((err: unknown) => err);
    const waited = Date.now() - started;
    expect(isUnavailableError(error)).toBe(true);
    // timeout 500 ms + one look (≤ 500 ms) + the probe (≤ 2 s), with room for a loaded machine
    expect(waited).toBeLessThan(6000);
    // Back: the pool connects again and answers.
    stalled = false;
    const rows = await queryRows(database.db, sql`select 3 as three`);
    expect(rows[0]).toMatchObject({ three: 3 });
  }, 20_000);
});
