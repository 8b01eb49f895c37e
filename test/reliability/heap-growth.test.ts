/**
 * The start command caps the old generation's growth; very large consolidation runs relax the cap
 * while they execute. Overlapping runs must not put the cap back while one of them still runs, and
 * a release called twice must not release another run's hold.
 */
import { describe, expect, it } from 'vitest';
import { capHeapGrowth, heapGrowthRelaxed, relaxHeapGrowth } from '../../src/runtime/heap-growth.ts';

describe('heap growth cap', () => {
  it('changes nothing before a cap is set (tests and embedding keep V8’s own policy)', () => {
    const release = relaxHeapGrowth();
    expect(heapGrowthRelaxed()).toBe(false);
    release();
    expect(heapGrowthRelaxed()).toBe(false);
  });

  it('stays relaxed until the last of overlapping holds is released, once each', () => {
    capHeapGrowth(50);
    const first = relaxHeapGrowth();
    const second = relaxHeapGrowth();
    expect(heapGrowthRelaxed()).toBe(true);
    first();
    first(); // a second call of the same release is ignored
    expect(heapGrowthRelaxed()).toBe(true);
    second();
    expect(heapGrowthRelaxed()).toBe(false);
  });
});
