/**
 * The prepared statements of the embedded database (src/db/pglite-statements.ts) build their rows
 * themselves: every value must come out exactly as `PGlite.query` with the same extra parsers gives it
 * (the instance's parsers, array types, NULLs, a repeated column name, no rows).
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteStatements } from '../../src/db/pglite-statements.ts';

describe('PGlite prepared statements', () => {
  let client: PGlite;
  const parsers = { 1082: (value: string) => value };

  beforeAll(async () => {
    client = new PGlite();
    await client.waitReady;
    await client.exec(`create table probe (id uuid, label text, flag boolean, settings jsonb,
      amount numeric(28, 8), day date, at timestamptz, ids uuid[], amounts numeric[], n int4, big int8,
      small int2)`);
    await client.exec(`insert into probe values
      ('0190a5f0-0000-7000-8000-000000000001', 'one', true, '{"a": [1, "x"]}', 12.5, '2026-01-31',
       '2026-01-31T10:00:00Z', array['0190a5f0-0000-7000-8000-000000000002']::uuid[],
       array[1.25, 2]::numeric[], 3, 4, 5),
      (null, null, null, null, null, null, null, null, null, null, null, null)`);
  });
  afterAll(async () => client?.close());

  it.each([
    ['every column type, NULLs', `select * from probe order by id nulls last`, []],
    ['a repeated column name', `select label as x, n as x, $1::text as p from probe order by id`, ['v']],
    ['no rows', `select * from probe where false`, []],
  ])('gives the rows PGlite.query gives: %s', async (_case, text, params) => {
    const run = pgliteStatements(client, parsers);
    const name = `probe_${_case.replace(/\W+/g, '_')}`;
    const expected = (await client.query(text, params, { parsers })).rows;
    // twice: once preparing the statement, once prepared
    for (let i = 0; i < 2; i++) expect(await run(name, text, params)).toEqual(expected);
  });
});
