/**
 * A page serialised in slices (src/http/sliced-json.ts) is byte for byte the answer Fastify's own
 * serialiser gives for the same schema — status, content type, length, body — and lets the event
 * loop run while a large page is serialised.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorPage } from '../../src/http/pagination.ts';
import { sendPageInSlices } from '../../src/http/sliced-json.ts';
import { lazySerializerFactory } from '../../src/http/validation.ts';

const Line = Type.Object({
  lineNumber: Type.Integer(),
  memo: Type.Union([Type.String(), Type.Null()]),
  debitAmount: Type.Union([Type.Object({ value: Type.String(), currency: Type.String() }), Type.Null()]),
});
const Item = Type.Object({
  id: Type.String(),
  description: Type.String(),
  total: Type.Optional(Type.String()),
  lines: Type.Array(Line),
});
const Page = CursorPage('entries', Item);

function page(items: number, lines: number, nextCursor?: string) {
  const entries = Array.from({ length: items }, (_, i) => ({
    id: `e-${i}`,
    description: `Entry "${i}" \\ é ✓ \u0001 \u2028`,
    ...(i % 2 === 0 ? { total: `${i}.00` } : {}),
    notInSchema: 'dropped',
    lines: Array.from({ length: lines }, (_, l) => ({
      lineNumber: l + 1,
      memo: l % 3 === 0 ? null : `memo ${l} "quoted"`,
      debitAmount: l % 2 === 0 ? { value: `${l}.50`, currency: 'EUR' } : null,
    })),
  }));
  return { entries, total: items * 3, limit: items, offset: 7, ...(nextCursor ? { nextCursor } : {}) };
}

describe('a page serialised in slices', () => {
  let app: FastifyInstance;
  let current: ReturnType<typeof page>;

  beforeAll(async () => {
    // the serialiser set-up of buildApp
    app = Fastify({
      logger: false,
      schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory() } },
    });
    const schema = { response: { 200: Page } };
    app.get('/whole', { schema }, async () => current);
    app.get('/sliced', { schema }, async (_request, reply) =>
      sendPageInSlices(reply, 'entries', current, Item),
    );
    await app.ready();
  });
  afterAll(async () => app?.close());

  it.each([
    ['an empty page', page(0, 0)],
    ['a small page with a cursor', page(3, 2, 'cursor-1')],
    ['a large page without a cursor', page(40, 500)],
  ])('answers %s exactly as the route serialiser does', async (_name, p) => {
    current = p;
    const whole = await app.inject({ method: 'GET', url: '/whole' });
    const sliced = await app.inject({ method: 'GET', url: '/sliced' });
    expect(sliced.statusCode).toBe(whole.statusCode);
    expect(sliced.headers['content-type']).toBe(whole.headers['content-type']);
    expect(sliced.headers['content-length']).toBe(whole.headers['content-length']);
    expect(sliced.body).toBe(whole.body);
  });

  it('lets timers run while it serialises a large page', async () => {
    current = page(200, 500);
    /** Timer ticks (every millisecond) that ran while the request was answered. */
    const ticksDuring = async (url: string) => {
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 1);
      await app.inject({ method: 'GET', url });
      clearInterval(ticker);
      return ticks;
    };
    await ticksDuring('/whole'); // compiles both serialisers
    await ticksDuring('/sliced');
    // The whole page is serialised in one synchronous call: no timer runs during it. Sliced, the
    // serialiser yields every few milliseconds, and timers run in between.
    const whole = await ticksDuring('/whole');
    const sliced = await ticksDuring('/sliced');
    expect(sliced).toBeGreaterThanOrEqual(whole + 3);
  });
});
