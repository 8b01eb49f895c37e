/**
 * `/api/health`: the database is reported up from the process's own recent statements when there are
 * some (a busy process does not queue a `select 1` behind its work), pinged otherwise, and reported
 * unavailable once it stops answering.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.ts';
import type { Database } from '../../src/db/client.ts';
import { RECENT_ANSWER_MS } from '../../src/modules/health/routes.ts';
import { openTestDatabase } from '../helpers/app.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('health', () => {
  let app: App;
  let database: Database;
  let cleanup: () => Promise<void>;
  let pings = 0;

  beforeAll(async () => {
    ({ database, cleanup } = await openTestDatabase());
    const ping = database.ping.bind(database);
    database.ping = (timeoutMs) => {
      pings++;
      return ping(timeoutMs);
    };
    app = await buildApp({ database, logger: false });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await cleanup?.();
  });

  const health = () => app.inject({ method: 'GET', url: '/api/health' });

  it('answers from a statement the database answered just before, without a query of its own', async () => {
    await database.db.execute(sql`select 1`);
    expect(database.answeredWithin(RECENT_ANSWER_MS)).toBe(true);
    const before = pings;
    const res = await health();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ok', database: 'ok' });
    expect(pings).toBe(before);
  });

  it('pings when no statement was answered within the window', async () => {
    await pause(RECENT_ANSWER_MS + 100);
    expect(database.answeredWithin(RECENT_ANSWER_MS)).toBe(false);
    const before = pings;
    const res = await health();
    expect(res.statusCode).toBe(200);
    expect(pings).toBe(before + 1);
    // the ping was answered: the next probe needs none
    expect(database.answeredWithin(RECENT_ANSWER_MS)).toBe(true);
  });

  it('reports a database that stopped answering as unavailable (503)', async () => {
    await database.close();
    database.close = async () => {}; // closed already: the clean-up only drops what it created
    await pause(RECENT_ANSWER_MS + 100);
    const res = await health();
    expect(res.statusCode).toBe(503);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toMatchObject({ status: 'degraded', database: 'unavailable' });
  });
});
