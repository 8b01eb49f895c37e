/**
 * The statement combiner (src/db/combiner.ts): concurrent items of one key share a statement, in
 * arrival order, without waiting for a timer; every item keeps its own outcome.
 */
import { describe, expect, it } from 'vitest';
import { Combiner } from '../../src/db/combiner.ts';

/** A batch runner that records its batches and answers after the current microtasks. */
function recorder(fail?: (items: number[]) => boolean) {
  const batches: number[][] = [];
  const run = async (items: number[]) => {
    batches.push([...items]);
    await new Promise((r) => setTimeout(r, 5));
    if (fail?.(items)) throw new Error(`batch ${items.join(',')} failed`);
    return items.map((i) => i * 10);
  };
  return { batches, run };
}

describe('Combiner', () => {
  it('runs a lone item at once, on its own', async () => {
    const r = recorder();
    const c = new Combiner(r.run);
    expect(await c.run('a', 1)).toBe(10);
    expect(r.batches).toEqual([[1]]);
  });

  it('groups the items that arrive while a statement runs into the next one, in arrival order', async () => {
    const r = recorder();
    const c = new Combiner(r.run);
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => c.run('a', i)));
    expect(results).toEqual([10, 20, 30, 40, 50]);
    // The first item starts a statement at once; the others queue behind it and go together.
    expect(r.batches).toEqual([[1], [2, 3, 4, 5]]);
  });

  it('keeps keys apart and bounds the batch size', async () => {
    const r = recorder();
    const c = new Combiner(r.run, 2);
    await Promise.all([c.run('a', 1), c.run('b', 2), c.run('a', 3), c.run('a', 4), c.run('a', 5)]);
    expect(r.batches).toEqual([[1], [2], [3, 4], [5]]);
  });

  it('retries the items of a failed batch one by one, so one bad item fails alone', async () => {
    const r = recorder((items) => items.includes(3));
    const c = new Combiner(r.run);
    const outcomes = await Promise.allSettled([1, 2, 3, 4].map((i) => c.run('a', i)));
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : 'error'))).toEqual([
      10,
      20,
      'error',
      40,
    ]);
    expect(r.batches).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  });

  it('is ready for new items after a queue drained', async () => {
    const r = recorder();
    const c = new Combiner(r.run);
    await Promise.all([c.run('a', 1), c.run('a', 2)]);
    await c.run('a', 3);
    expect(r.batches).toEqual([[1], [2], [3]]);
  });
});
