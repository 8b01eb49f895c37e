/**
 * How far V8 lets the old generation grow between full collections.
 *
 * `npm start` caps the growth at a fixed share of the live heap (`capHeapGrowth`, from `main.ts`): a
 * process serving requests then stays far below the resident memory V8's own, faster-growing policy
 * reaches. A very large consolidation run pays for the cap, though: its working set grows for the whole
 * run, and every full collection marks all of it again (about a fifth of a 200-company run's time on a
 * two-core machine). Such a run relaxes the cap while it executes (`relaxHeapGrowth`), and the cap is
 * back once no such run is executing. The flag is process-wide: requests served meanwhile run under
 * the relaxed policy too, which costs memory, not time.
 */
import v8 from 'node:v8';

let cap: number | null = null;
let relaxedBy = 0;

const setGrowth = (percent: number) => v8.setFlagsFromString(`--heap-growing-percent=${percent}`);

/** Caps the growth at `percent` over the live size after each full collection. */
export function capHeapGrowth(percent: number): void {
  cap = percent;
  if (relaxedBy === 0) setGrowth(percent);
}

/**
 * Lets V8 choose the growth (its default, `0`) until the returned function is called; calls nest,
 * and the cap returns with the last release. Without a cap (tests, embedding) it changes nothing.
 */
export function relaxHeapGrowth(): () => void {
  if (cap === null) return () => {};
  if (relaxedBy++ === 0) setGrowth(0);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    relaxedBy -= 1;
    if (relaxedBy === 0 && cap !== null) setGrowth(cap);
  };
}

/** Whether the cap is relaxed now (for tests). */
export function heapGrowthRelaxed(): boolean {
  return relaxedBy > 0;
}
