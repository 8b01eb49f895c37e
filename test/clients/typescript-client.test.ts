/**
 * The typed TypeScript client (clients/typescript): its example program performs the getting-started
 * flow end to end against a live in-process server — twice, as two different users, since every name
 * it creates is unique — and the committed generated types match the document the service serves.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGroupbookClient, GroupbookError, unwrap } from '../../clients/typescript/index.ts';
import { gettingStarted } from '../../clients/typescript/examples/getting-started.ts';
import { CLIENT_SCHEMA, clientSchemaSource } from '../../scripts/client-generate.ts';
import { createTestContext, type TestContext } from '../helpers/app.ts';

let t: TestContext;
let baseUrl: string;

beforeAll(async () => {
  t = await createTestContext();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => t?.close());

describe('TypeScript client', () => {
  it('the getting-started example runs end to end, twice in a row', async () => {
    for (let i = 0; i < 2; i++) {
      const lines: string[] = [];
      const result = await gettingStarted(baseUrl, (line) => lines.push(line));
      // The figures docs/getting-started.md shows for the same data.
      expect(result).toMatchObject({
        totalAssets: '925200.00',
        totalLiabilitiesAndEquity: '925200.00',
        nonControllingInterest: '61040.00',
        isBalanced: true,
      });
      expect(lines.at(-1)).toBe('total assets 925200.00 USD; balanced: true');
    }
  }, 120_000);

  it('error answers become GroupbookError with the tag, status and issues', async () => {
    const gb = createGroupbookClient({ baseUrl });
    await expect(unwrap(gb.GET('/api/v1/organizations'))).rejects.toMatchObject({
      name: 'GroupbookError',
      status: 401,
      tag: 'UnauthorizedError',
    });
    const user = await t.user('client');
    gb.setToken(user.token);
    const err = await unwrap(gb.GET('/api/v1/journal-entries', { params: { query: { limit: 0 } } })).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GroupbookError);
    expect((err as GroupbookError).issues[0]?.path).toBe('/query/limit');
    expect(await unwrap(gb.GET('/api/v1/organizations'))).toMatchObject({ organizations: [], total: 0 });
  });

  it('sends an Idempotency-Key as a typed header parameter; the retry answers the same organization', async () => {
    const gb = createGroupbookClient({ baseUrl, token: (await t.user('client-idem')).token });
    const key = `client-${Date.now()}`;
    const create = () =>
      unwrap(
        gb.POST('/api/v1/organizations', {
          params: { header: { 'Idempotency-Key': key } },
          body: { name: `Client idempotency ${key}`, reportingCurrency: 'EUR' },
        }),
      );
    const first = await create();
    const again = await create();
    expect(again.id).toBe(first.id);
  });

  it('the committed client types are current (npm run client:generate)', async () => {
    const doc = await t.get('/api/openapi.json');
    const expected = await clientSchemaSource(doc.body);
    const committed = readFileSync(CLIENT_SCHEMA, 'utf8');
    expect(committed === expected, 'clients/typescript/schema.ts is stale: run npm run client:generate').toBe(
      true,
    );
  });
});
