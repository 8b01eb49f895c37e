/**
 * The engine in slices: driving each step's slices (with other work between them) gives the result
 * `runConsolidation` gives, and no slice is long; the input digest in slices is the digest.
 */
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createConsolidationExecution, runConsolidation } from '../../src/domain/consolidation/engine.ts';
import { scaledToString, toScaled } from '../../src/domain/consolidation/scaled.ts';
import { amountText, inputDigest, inputDigestInSlices } from '../../src/modules/consolidation/runs.digest.ts';
import { heavyInput } from '../helpers/heavy-rules.ts';

describe('consolidation in slices', () => {
  it('gives the same result and elimination entries as the run in one go', async () => {
    const input = heavyInput(6, 10);
    const whole = createConsolidationExecution(input);
    while (whole.nextStep !== null) whole.runNextStep();
    const sliced = createConsolidationExecution(input);
    let slices = 0;
    let longest = 0;
    while (sliced.nextStep !== null) {
      const gen = sliced.runNextStepInSlices();
      for (;;) {
        const t0 = performance.now();
        const next = gen.next();
        longest = Math.max(longest, performance.now() - t0);
        if (next.done) break;
        slices++;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    expect(JSON.stringify(sliced.result())).toBe(JSON.stringify(whole.result()));
    expect(JSON.stringify(sliced.eliminationEntries())).toBe(JSON.stringify(whole.eliminationEntries()));
    expect(JSON.stringify(sliced.result())).toBe(JSON.stringify(runConsolidation(input)));
    // Per rule and view: its source, its target and each of its 50 trigger conditions.
    expect(slices).toBe(6 * 52 * 2);
    expect(sliced.result().status).toBe('Completed');
    // Generous on a loaded machine: a slice is one selector list, a few milliseconds.
    expect(longest).toBeLessThan(250);
  });

  // The expected digests are those of the implementation before slicing (the same input).
  it('digests the input to the same hash in slices as in one go, and as before slicing', () => {
    for (const [rules, before] of [
      [0, 'eecff59c2daa084c8b8eef56f9193818453af1224dcc6a7f7c25130422101b94'],
      [3, 'bfe34b12f922b115791dc417d5abbdcbd29c31dfe52369cc89a4a8b6e01c0add'],
    ] as const) {
      const input = heavyInput(rules);
      const used = runConsolidation(input).exchangeRatesUsed;
      const slices = inputDigestInSlices(input, used);
      let next = slices.next();
      while (!next.done) next = slices.next();
      expect(next.value).toBe(inputDigest(input, used));
      expect(inputDigest(input, used)).toBe(before);
    }
  });
});

describe('input digest: amounts', () => {
  it('writes every decimal text with 12 fraction digits, the plain ones by appending zeros', () => {
    // The generic way: exact units at 12 decimals, written back.
    const generic = (v: string) => {
      const units = toScaled(v, 12);
      return units === null ? v : scaledToString(units, 12);
    };
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }),
        fc.integer({ min: 0, max: 14 }),
        fc.boolean(),
        (units, scale, padded) => {
          let text = scaledToString(units, scale);
          if (padded && !text.includes('.')) text += '.0';
          expect(amountText(text)).toBe(generic(text));
        },
      ),
    );
    for (const odd of ['-0.00000000', '-0.0', '00.5', '1e-3', '-.5', '7', '-0', '0.1234567890123'])
      expect(amountText(odd)).toBe(generic(odd));
  });
});
