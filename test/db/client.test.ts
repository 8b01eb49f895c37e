/**
 * The database handle (src/db/client.ts) on the embedded PGlite: a queue of statements does not hold
 * the event loop from its first statement to its last (PGlite runs each statement synchronously, and
 * hands its one connection on through promise callbacks alone).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.ts';

describe('the PGlite handle', () => {
  let database: Database;

  beforeAll(async () => {
    database = await openDatabase({ dataDir: 'memory://' });
    await database.db.execute(
      sql`create table loop_probe as select g, md5(g::text) as m from generate_series(1, 20000) g`,
    );
  });
  afterAll(async () => database?.close());

  it('lets the event loop run between queued statements', async () => {
    const statements = 20;
    let completed = 0;
    let completedWhenTimerFired = -1;
    const timer = new Promise<void>((resolve) =>
      setTimeout(() => {
        completedWhenTimerFired = completed;
        resolve();
      }, 0),
    );
    await Promise.all(
      Array.from({ length: statements }, () =>
        database.db.execute(sql`select * from loop_probe where g % 7 = 1`).then(() => completed++),
      ),
    );
    await timer;
    // Before: the timer fired only once the whole queue had run (20 of 20).
    expect(completedWhenTimerFired).toBeLessThanOrEqual(2);
  });
});

describe('PGlite shared buffers', () => {
  const setting = async (database: Database) =>
    (
      (await database.db.execute(sql`select current_setting('shared_buffers') as v`)) as unknown as {
        rows: { v: string }[];
      }
    ).rows[0]!.v;

  it('start small by default and follow the configured size', async () => {
    const byDefault = await openDatabase({ dataDir: 'memory://' });
    const sized = await openDatabase({ dataDir: 'memory://', pgliteSharedBuffersMb: 8 });
    try {
      expect(await setting(byDefault)).toBe('16MB');
      expect(await setting(sized)).toBe('8MB');
    } finally {
      await byDefault.close();
      await sized.close();
    }
  });
});
