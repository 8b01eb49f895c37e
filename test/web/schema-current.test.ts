/**
 * The console's generated API types (web/src/api/schema.ts) match the OpenAPI document the service
 * serves now: a route or schema changed without `npm run web:client` fails here, before the console
 * is built against types that no longer describe the API.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { servedDocument } from '../../scripts/client-generate.ts';
import { WEB_SCHEMA, webSchemaSource } from '../../scripts/web-client.ts';

describe('console API types', () => {
  it('web/src/api/schema.ts is what npm run web:client generates from the served document', async () => {
    const doc = (await servedDocument()) as { paths: Record<string, unknown> };
    const committed = readFileSync(WEB_SCHEMA, 'utf8');
    // First the routes the committed types lack, by name (the likeliest staleness, easiest to read).
    const missing = Object.keys(doc.paths).filter((p) => !committed.includes(`    "${p}": {`));
    expect(missing, 'routes missing from web/src/api/schema.ts: run npm run web:client').toEqual([]);
    const expected = await webSchemaSource(doc);
    expect(committed === expected, 'web/src/api/schema.ts is stale: run npm run web:client').toBe(true);
  }, 120_000);
});
