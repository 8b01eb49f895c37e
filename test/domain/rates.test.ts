import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, daysBetween, maxDate, minDate } from '../../src/domain/dates.ts';
import { dec, formatRate } from '../../src/domain/money.ts';
import {
  ANY_RATE_TYPE_ORDER,
  CLOSING_RATE_TYPES,
  candidateFilter,
  candidatePairs,
  type DateCondition,
  invertRate,
  meetsCondition,
  RATE_TYPES,
  type RateType,
  type ResolveRateInput,
  resolveRate,
  type StoredRate,
} from '../../src/domain/rates.ts';

const ORG = '00000000-0000-4000-8000-000000000001';
const USER = '00000000-0000-4000-8000-000000000002';
let nextId = 1;

function stored(
  fromCurrency: string,
  toCurrency: string,
  rate: string,
  effectiveDate: string,
  rateType: RateType = 'Spot',
): StoredRate {
  const id = `10000000-0000-4000-8000-${String(nextId++).padStart(12, '0')}`;
  const at = new Date('2026-01-01T00:00:00.000Z');
  return {
    id,
    organizationId: ORG,
    fromCurrency,
    toCurrency,
    rate,
    effectiveDate,
    rateType,
    source: 'Manual',
    createdBy: USER,
    createdAt: at,
    updatedAt: at,
  };
}

function resolve(
  from: string,
  to: string,
  rates: StoredRate[],
  condition: DateCondition,
  types: RateType[] = ['Spot'],
  extra: Partial<ResolveRateInput> = {},
) {
  return resolveRate({ from, to, types, condition, reportingCurrency: null, rates, ...extra });
}

/** Compact view of a result for assertions. */
function view(r: ReturnType<typeof resolveRate>) {
  if (!r) return null;
  return {
    effectiveRate: formatRate(r.effectiveRate),
    derivation: r.derivation,
    rateId: r.rate?.id ?? null,
    legIds: r.legs.map((l) => l.id),
  };
}

describe('constants', () => {
  it('lists the rate types and the type orders of the contract', () => {
    expect(RATE_TYPES).toEqual(['Spot', 'Average', 'Historical', 'YearEnd']);
    expect(ANY_RATE_TYPE_ORDER).toEqual(['Spot', 'YearEnd', 'Average', 'Historical']);
    expect(CLOSING_RATE_TYPES).toEqual(['YearEnd', 'Spot']);
  });
});

describe('direct and inverse (steps 1–3)', () => {
  it('uses a direct rate as stored', () => {
    const r = stored('EUR', 'USD', '1.0845', '2026-01-15');
    expect(view(resolve('EUR', 'USD', [r], { kind: 'on', date: '2026-01-15' }))).toEqual({
      effectiveRate: '1.0845',
      derivation: 'Direct',
      rateId: r.id,
      legIds: [r.id],
    });
  });

  it('inverts the opposite pair and rounds to 10 decimals', () => {
    // 1 / 150 = 0.006666666666… → 0.0066666667
    const r = stored('USD', 'JPY', '150', '2026-01-15');
    expect(view(resolve('JPY', 'USD', [r], { kind: 'on', date: '2026-01-15' }))).toEqual({
      effectiveRate: '0.0066666667',
      derivation: 'Inverse',
      rateId: r.id,
      legIds: [r.id],
    });
  });

  it('rounds an inverse half away from zero', () => {
    // 1 / 2048 = 0.00048828125 exactly (11 decimals, last digit 5) → 0.0004882813 (half-even would give …12)
    expect(formatRate(invertRate('2048'))).toBe('0.0004882813');
    const r = stored('XXA', 'XXB', '2048', '2026-01-15');
    expect(resolve('XXB', 'XXA', [r], { kind: 'any' })?.effectiveRate.toFixed()).toBe('0.0004882813');
  });

  it('prefers the earlier type in the list on equal dates', () => {
    const spot = stored('EUR', 'USD', '1.08', '2026-01-31', 'Spot');
    const yearEnd = stored('EUR', 'USD', '1.09', '2026-01-31', 'YearEnd');
    const onDay: DateCondition = { kind: 'onOrBefore', date: '2026-01-31' };
    expect(resolve('EUR', 'USD', [spot, yearEnd], onDay, ['YearEnd', 'Spot'])?.rate?.id).toBe(yearEnd.id);
    expect(resolve('EUR', 'USD', [spot, yearEnd], onDay, ['Spot', 'YearEnd'])?.rate?.id).toBe(spot.id);
  });

  it('lets a later date win over a preferred type', () => {
    const yearEnd = stored('EUR', 'USD', '1.09', '2026-01-30', 'YearEnd');
    const spot = stored('EUR', 'USD', '1.08', '2026-01-31', 'Spot');
    const r = resolve('EUR', 'USD', [yearEnd, spot], { kind: 'onOrBefore', date: '2026-01-31' }, [
      'YearEnd',
      'Spot',
    ]);
    expect(r?.rate?.id).toBe(spot.id);
  });

  it('ignores types that are not acceptable', () => {
    const avg = stored('EUR', 'USD', '1.07', '2026-01-31', 'Average');
    expect(resolve('EUR', 'USD', [avg], { kind: 'any' }, ['Spot'])).toBeNull();
  });

  it('prefers direct over inverse on the same date and type', () => {
    const inverse = stored('USD', 'EUR', '0.92', '2026-01-31');
    const direct = stored('EUR', 'USD', '1.08', '2026-01-31');
    expect(view(resolve('EUR', 'USD', [inverse, direct], { kind: 'any' }))?.derivation).toBe('Direct');
  });

  it('prefers type order over direction on the same date', () => {
    // types [Spot]: a direct Average is not acceptable; with [YearEnd, Spot] the inverse YearEnd wins
    const directSpot = stored('EUR', 'USD', '1.08', '2026-01-31', 'Spot');
    const inverseYearEnd = stored('USD', 'EUR', '0.8', '2026-01-31', 'YearEnd');
    const r = resolve('EUR', 'USD', [directSpot, inverseYearEnd], { kind: 'any' }, ['YearEnd', 'Spot']);
    // 1 / 0.8 = 1.25
    expect(view(r)).toMatchObject({
      derivation: 'Inverse',
      effectiveRate: '1.25',
      rateId: inverseYearEnd.id,
    });
  });

  it('lets a later inverse win over an earlier direct', () => {
    const direct = stored('EUR', 'USD', '1.08', '2026-01-10');
    const inverse = stored('USD', 'EUR', '0.8', '2026-01-11');
    expect(view(resolve('EUR', 'USD', [direct, inverse], { kind: 'any' }))).toMatchObject({
      derivation: 'Inverse',
      effectiveRate: '1.25',
    });
  });
});

describe('date conditions', () => {
  const jan10 = stored('EUR', 'USD', '1.10', '2026-01-10');
  const jan20 = stored('EUR', 'USD', '1.20', '2026-01-20');
  const jan31 = stored('EUR', 'USD', '1.31', '2026-01-31');
  const all = [jan20, jan31, jan10];
  const id = (c: DateCondition) => resolve('EUR', 'USD', all, c)?.rate?.id ?? null;

  it('on: only the exact date', () => {
    expect(id({ kind: 'on', date: '2026-01-20' })).toBe(jan20.id);
    expect(id({ kind: 'on', date: '2026-01-21' })).toBeNull();
  });

  it('onOrBefore: the latest date not after the day, never a later one', () => {
    expect(id({ kind: 'onOrBefore', date: '2026-01-20' })).toBe(jan20.id);
    expect(id({ kind: 'onOrBefore', date: '2026-01-25' })).toBe(jan20.id);
    expect(id({ kind: 'onOrBefore', date: '2026-01-09' })).toBeNull();
  });

  it('nearest: earlier or later, the earlier date at equal distance', () => {
    expect(id({ kind: 'nearest', date: '2026-01-15' })).toBe(jan10.id); // 5 days either side → earlier
    expect(id({ kind: 'nearest', date: '2026-01-16' })).toBe(jan20.id); // 6 before, 4 after
    expect(id({ kind: 'nearest', date: '2026-01-01' })).toBe(jan10.id); // only later rates
    expect(id({ kind: 'nearest', date: '2026-06-30' })).toBe(jan31.id);
  });

  it('nearest: on one date the type order, then direct before inverse', () => {
    const spotInverse = stored('USD', 'EUR', '0.5', '2026-02-10', 'Spot');
    const yearEnd = stored('EUR', 'USD', '1.5', '2026-02-10', 'YearEnd');
    const spotDirect = stored('EUR', 'USD', '1.4', '2026-02-10', 'Spot');
    const rates = [yearEnd, spotInverse, spotDirect];
    const near: DateCondition = { kind: 'nearest', date: '2026-02-12' };
    expect(resolve('EUR', 'USD', rates, near, [...ANY_RATE_TYPE_ORDER])?.rate?.id).toBe(spotDirect.id);
    expect(resolve('EUR', 'USD', [yearEnd, spotInverse], near, [...ANY_RATE_TYPE_ORDER])?.rate?.id).toBe(
      spotInverse.id,
    );
  });

  it('within: the latest date inside the inclusive range', () => {
    expect(id({ kind: 'within', start: '2026-01-10', end: '2026-01-20' })).toBe(jan20.id);
    expect(id({ kind: 'within', start: '2026-01-01', end: '2026-01-10' })).toBe(jan10.id);
    expect(id({ kind: 'within', start: '2026-01-11', end: '2026-01-19' })).toBeNull();
  });

  it('any: the latest date of all', () => {
    expect(id({ kind: 'any' })).toBe(jan31.id);
  });

  it('meetsCondition agrees with the bounds', () => {
    expect(meetsCondition('2026-01-10', { kind: 'within', start: '2026-01-10', end: '2026-01-10' })).toBe(
      true,
    );
    expect(meetsCondition('2026-01-11', { kind: 'onOrBefore', date: '2026-01-10' })).toBe(false);
    expect(meetsCondition('1900-01-01', { kind: 'nearest', date: '2999-12-31' })).toBe(true);
  });
});

describe('triangulation (step 4)', () => {
  const day: DateCondition = { kind: 'onOrBefore', date: '2026-03-31' };

  it('multiplies from→R and R→to, rounds to 10 decimals and lists the legs from→R first', () => {
    const gbpUsd = stored('GBP', 'USD', '1.2712345678', '2026-03-01');
    const usdJpy = stored('USD', 'JPY', '151.2345678912', '2026-03-02');
    // 1.2712345678 × 151.2345678912 = 192.25461054958938942336 → 192.2546105496
    const r = resolve('GBP', 'JPY', [usdJpy, gbpUsd], day, ['Spot'], { reportingCurrency: 'USD' });
    expect(view(r)).toEqual({
      effectiveRate: '192.2546105496',
      derivation: 'Triangulated',
      rateId: null,
      legIds: [gbpUsd.id, usdJpy.id],
    });
  });

  it('resolves each leg direct or inverse, rounding the inverses before the product', () => {
    const usdGbp = stored('USD', 'GBP', '0.79', '2026-03-01');
    const jpyUsd = stored('JPY', 'USD', '0.0066', '2026-03-01');
    // leg 1: 1 / 0.79 = 1.2658227848; leg 2: 1 / 0.0066 = 151.5151515152
    // 1.2658227848 × 151.5151515152 = 191.79133103036440352896 → 191.7913310304
    const r = resolve('GBP', 'JPY', [jpyUsd, usdGbp], day, ['Spot'], { reportingCurrency: 'USD' });
    expect(view(r)).toEqual({
      effectiveRate: '191.7913310304',
      derivation: 'Triangulated',
      rateId: null,
      legIds: [usdGbp.id, jpyUsd.id],
    });
  });

  it('applies the date condition and type order to each leg independently', () => {
    const old = stored('GBP', 'USD', '1.20', '2026-01-01');
    const recent = stored('GBP', 'USD', '1.30', '2026-03-01');
    const future = stored('GBP', 'USD', '9.99', '2026-04-01');
    const usdJpy = stored('USD', 'JPY', '150', '2026-02-01');
    const r = resolve('GBP', 'JPY', [old, recent, future, usdJpy], day, ['Spot'], {
      reportingCurrency: 'USD',
    });
    // 1.30 × 150 = 195
    expect(view(r)).toMatchObject({ effectiveRate: '195', legIds: [recent.id, usdJpy.id] });
  });

  it('is not tried when a direct or inverse candidate exists, however old', () => {
    const oldDirect = stored('GBP', 'JPY', '180', '2020-01-01');
    const gbpUsd = stored('GBP', 'USD', '1.30', '2026-03-01');
    const usdJpy = stored('USD', 'JPY', '150', '2026-03-01');
    const r = resolve('GBP', 'JPY', [oldDirect, gbpUsd, usdJpy], day, ['Spot'], { reportingCurrency: 'USD' });
    expect(view(r)).toMatchObject({ derivation: 'Direct', effectiveRate: '180' });
  });

  it('needs both legs', () => {
    const gbpUsd = stored('GBP', 'USD', '1.30', '2026-03-01');
    expect(resolve('GBP', 'JPY', [gbpUsd], day, ['Spot'], { reportingCurrency: 'USD' })).toBeNull();
  });

  it('is not tried when the reporting currency equals from or to, or is absent', () => {
    const eurGbp = stored('EUR', 'GBP', '0.85', '2026-03-01');
    const gbpUsd = stored('GBP', 'USD', '1.30', '2026-03-01');
    const rates = [eurGbp, gbpUsd];
    expect(resolve('EUR', 'USD', rates, day, ['Spot'], { reportingCurrency: 'USD' })).toBeNull();
    expect(resolve('EUR', 'USD', rates, day, ['Spot'], { reportingCurrency: 'EUR' })).toBeNull();
    expect(resolve('EUR', 'USD', rates, day, ['Spot'], { reportingCurrency: null })).toBeNull();
    // 0.85 × 1.30 = 1.105 through GBP
    expect(view(resolve('EUR', 'USD', rates, day, ['Spot'], { reportingCurrency: 'GBP' }))).toMatchObject({
      derivation: 'Triangulated',
      effectiveRate: '1.105',
    });
  });

  it('candidatePairs lists exactly the pairs the procedure reads', () => {
    expect(candidatePairs('GBP', 'JPY', 'USD')).toEqual([
      { fromCurrency: 'GBP', toCurrency: 'JPY' },
      { fromCurrency: 'JPY', toCurrency: 'GBP' },
      { fromCurrency: 'GBP', toCurrency: 'USD' },
      { fromCurrency: 'USD', toCurrency: 'GBP' },
      { fromCurrency: 'USD', toCurrency: 'JPY' },
      { fromCurrency: 'JPY', toCurrency: 'USD' },
    ]);
    expect(candidatePairs('EUR', 'USD', 'USD')).toHaveLength(2);
    expect(candidatePairs('EUR', 'USD', null)).toHaveLength(2);
  });

  it('candidateFilter adds Spot for a computed average and gives the date bounds', () => {
    expect(
      candidateFilter({
        from: 'EUR',
        to: 'USD',
        types: ['Average'],
        condition: { kind: 'within', start: '2026-01-01', end: '2026-01-31' },
        reportingCurrency: 'USD',
        computeAverage: true,
      }),
    ).toEqual({
      pairs: [
        { fromCurrency: 'EUR', toCurrency: 'USD' },
        { fromCurrency: 'USD', toCurrency: 'EUR' },
      ],
      types: ['Average', 'Spot'],
      start: '2026-01-01',
      end: '2026-01-31',
    });
    expect(
      candidateFilter({
        from: 'EUR',
        to: 'USD',
        types: ['Spot'],
        condition: { kind: 'onOrBefore', date: '2026-01-31' },
        reportingCurrency: null,
      }),
    ).toMatchObject({ types: ['Spot'], start: null, end: '2026-01-31' });
  });
});

describe('computed average (step 5)', () => {
  const january: DateCondition = { kind: 'within', start: '2026-01-01', end: '2026-01-31' };
  const averageOf = (rates: StoredRate[], reportingCurrency: string | null = null) =>
    resolve('EUR', 'USD', rates, january, ['Average'], { computeAverage: true, reportingCurrency });

  it('averages the Spot rates in the range, inverse ones rounded first, legs in date order', () => {
    const s1 = stored('EUR', 'USD', '1.08', '2026-01-05');
    const s3 = stored('USD', 'EUR', '0.9', '2026-01-25');
    const s2 = stored('EUR', 'USD', '1.10', '2026-01-20');
    const outside = stored('EUR', 'USD', '5', '2026-02-01');
    // 1 / 0.9 = 1.1111111111; (1.08 + 1.10 + 1.1111111111) / 3 = 1.0970370370333… → 1.0970370370
    expect(view(averageOf([s3, outside, s1, s2]))).toEqual({
      effectiveRate: '1.097037037',
      derivation: 'ComputedAverage',
      rateId: null,
      legIds: [s1.id, s2.id, s3.id],
    });
  });

  it('rounds the mean to 10 decimals', () => {
    // (1 + 2 + 2) / 3 = 1.6666… → 1.6666666667
    const rates = [
      stored('EUR', 'USD', '1', '2026-01-02'),
      stored('EUR', 'USD', '2', '2026-01-03'),
      stored('EUR', 'USD', '2', '2026-01-04'),
    ];
    expect(averageOf(rates)?.effectiveRate.toFixed()).toBe('1.6666666667');
  });

  it('takes one value per date, the direct Spot rate when both directions exist', () => {
    const direct = stored('EUR', 'USD', '1.2', '2026-01-10');
    const inverse = stored('USD', 'EUR', '0.5', '2026-01-10');
    const other = stored('EUR', 'USD', '1.4', '2026-01-11');
    // (1.2 + 1.4) / 2 = 1.3; the inverse 2 of Jan 10 is not used
    expect(view(averageOf([inverse, other, direct]))).toMatchObject({
      effectiveRate: '1.3',
      legIds: [direct.id, other.id],
    });
  });

  it('is not used when a stored Average rate lies in the range', () => {
    const avg = stored('EUR', 'USD', '1.09', '2026-01-31', 'Average');
    const spot = stored('EUR', 'USD', '1.5', '2026-01-15');
    expect(view(averageOf([spot, avg]))).toMatchObject({ derivation: 'Direct', rateId: avg.id });
  });

  it('is not used when the Average rate can be triangulated', () => {
    const legs = [
      stored('EUR', 'GBP', '0.85', '2026-01-31', 'Average'),
      stored('GBP', 'USD', '1.3', '2026-01-31', 'Average'),
    ];
    const spot = stored('EUR', 'USD', '1.5', '2026-01-15');
    expect(averageOf([...legs, spot], 'GBP')?.derivation).toBe('Triangulated');
  });

  it('is not triangulated itself (Spot rates through R are not averaged)', () => {
    const legs = [stored('EUR', 'GBP', '0.85', '2026-01-15'), stored('GBP', 'USD', '1.3', '2026-01-15')];
    expect(averageOf(legs, 'GBP')).toBeNull();
  });

  it('is off unless requested, and needs a range condition', () => {
    const spot = stored('EUR', 'USD', '1.5', '2026-01-15');
    expect(resolve('EUR', 'USD', [spot], january, ['Average'])).toBeNull();
    expect(() =>
      resolve('EUR', 'USD', [spot], { kind: 'onOrBefore', date: '2026-01-31' }, ['Average'], {
        computeAverage: true,
      }),
    ).toThrow();
  });

  it('finds nothing without Spot rates in the range', () => {
    expect(averageOf([stored('EUR', 'USD', '1.5', '2025-12-31')])).toBeNull();
  });
});

describe('nothing found (step 6) and misuse', () => {
  it('returns null without candidates', () => {
    expect(resolve('EUR', 'USD', [], { kind: 'any' })).toBeNull();
    expect(resolve('EUR', 'USD', [stored('EUR', 'GBP', '0.8', '2026-01-01')], { kind: 'any' })).toBeNull();
  });

  it('throws for the same currency or no type', () => {
    expect(() => resolve('EUR', 'EUR', [], { kind: 'any' })).toThrow();
    expect(() => resolve('EUR', 'USD', [], { kind: 'any' }, [])).toThrow();
  });
});

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY'] as const;
const BASE_DAY = '2026-01-01';
const arbDay = fc.integer({ min: 0, max: 59 }).map((n) => addDays(BASE_DAY, n));
const arbRateText = fc
  .tuple(fc.integer({ min: 1, max: 999_999 }), fc.integer({ min: 0, max: 6 }))
  .map(([n, k]) => formatRate(dec(n).dividedBy(dec(10).pow(k))));
const arbType = fc.constantFrom<RateType>(...RATE_TYPES);
const arbPair = fc
  .tuple(fc.constantFrom(...CURRENCIES), fc.constantFrom(...CURRENCIES))
  .filter(([a, b]) => a !== b);
const arbStored = fc
  .record({ pair: arbPair, rate: arbRateText, day: arbDay, type: arbType })
  .map(({ pair, rate, day, type }) => stored(pair[0], pair[1], rate, day, type));
/** A set of rates honouring the uniqueness rule (org, from, to, date, type). */
const arbRates = fc.uniqueArray(arbStored, {
  maxLength: 25,
  selector: (r) => `${r.fromCurrency}|${r.toCurrency}|${r.effectiveDate}|${r.rateType}`,
});
const arbTypes = fc.uniqueArray(arbType, { minLength: 1, maxLength: 4 });
const arbCondition: fc.Arbitrary<DateCondition> = fc.oneof(
  arbDay.map((date) => ({ kind: 'on' as const, date })),
  arbDay.map((date) => ({ kind: 'onOrBefore' as const, date })),
  arbDay.map((date) => ({ kind: 'nearest' as const, date })),
  fc.tuple(arbDay, arbDay).map(([a, b]) => ({
    kind: 'within' as const,
    start: minDate(a, b),
    end: maxDate(a, b),
  })),
  fc.constant({ kind: 'any' as const }),
);
const arbQuery = fc.record({
  pair: arbPair,
  types: arbTypes,
  condition: arbCondition,
  reportingCurrency: fc.constantFrom<string | null>(null, ...CURRENCIES),
  rates: arbRates,
});

type Query = typeof arbQuery extends fc.Arbitrary<infer T> ? T : never;

function run(q: Query) {
  return resolveRate({
    from: q.pair[0],
    to: q.pair[1],
    types: q.types,
    condition: q.condition,
    reportingCurrency: q.reportingCurrency,
    rates: q.rates,
  });
}

describe('properties', () => {
  it('an onOrBefore result never uses a rate effective after the date', () => {
    fc.assert(
      fc.property(arbQuery, arbDay, (q, date) => {
        const r = run({ ...q, condition: { kind: 'onOrBefore', date } });
        for (const leg of r?.legs ?? []) expect(leg.effectiveDate <= date).toBe(true);
      }),
    );
  });

  it('every leg meets the date condition and is of an acceptable type', () => {
    fc.assert(
      fc.property(arbQuery, (q) => {
        const r = run(q);
        for (const leg of r?.legs ?? []) {
          expect(meetsCondition(leg.effectiveDate, q.condition)).toBe(true);
          expect(q.types).toContain(leg.rateType);
        }
      }),
    );
  });

  it('no other direct or inverse candidate beats the Direct/Inverse winner (date, then type, then direction)', () => {
    fc.assert(
      fc.property(arbQuery, (q) => {
        const r = run(q);
        if (!r || (r.derivation !== 'Direct' && r.derivation !== 'Inverse')) return;
        const [from, to] = q.pair;
        const rank = (s: StoredRate) => {
          const dist =
            q.condition.kind === 'nearest' ? Math.abs(daysBetween(q.condition.date, s.effectiveDate)) : 0;
          const datePart = q.condition.kind === 'nearest' ? 0 : -daysBetween(BASE_DAY, s.effectiveDate);
          const earlier = q.condition.kind === 'nearest' ? daysBetween(BASE_DAY, s.effectiveDate) : 0;
          return [dist, datePart, earlier, q.types.indexOf(s.rateType), s.fromCurrency === from ? 0 : 1];
        };
        const winner = rank(r.rate!);
        for (const s of q.rates) {
          const isPair =
            (s.fromCurrency === from && s.toCurrency === to) ||
            (s.fromCurrency === to && s.toCurrency === from);
          if (!isPair || !q.types.includes(s.rateType) || !meetsCondition(s.effectiveDate, q.condition))
            continue;
          const other = rank(s);
          const cmp = other.map((v, i) => v - (winner[i] ?? 0)).find((d) => d !== 0) ?? 0;
          expect(cmp).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });

  it('the result does not depend on the order of the stored rates', () => {
    fc.assert(
      fc.property(
        arbQuery.chain((q) =>
          fc.tuple(fc.constant(q), fc.shuffledSubarray(q.rates, { minLength: q.rates.length })),
        ),
        ([q, shuffled]) => {
          expect(view(run({ ...q, rates: shuffled }))).toEqual(view(run(q)));
        },
      ),
    );
  });

  it('rates of pairs outside candidatePairs never change the result', () => {
    fc.assert(
      fc.property(arbQuery, arbRates, (q, noise) => {
        const keys = new Set(
          candidatePairs(q.pair[0], q.pair[1], q.reportingCurrency).map(
            (p) => `${p.fromCurrency}|${p.toCurrency}`,
          ),
        );
        const relevant = q.rates.filter((r) => keys.has(`${r.fromCurrency}|${r.toCurrency}`));
        const irrelevant = noise.filter((r) => !keys.has(`${r.fromCurrency}|${r.toCurrency}`));
        expect(view(run({ ...q, rates: [...irrelevant, ...relevant] }))).toEqual(
          view(run({ ...q, rates: relevant })),
        );
      }),
    );
  });

  it('Triangulated only without direct/inverse candidates, with legs from→R then R→to', () => {
    fc.assert(
      fc.property(arbQuery, (q) => {
        const r = run(q);
        if (r?.derivation !== 'Triangulated') return;
        const [from, to] = q.pair;
        const R = q.reportingCurrency;
        expect(R !== null && R !== from && R !== to).toBe(true);
        const [leg1, leg2] = r.legs;
        expect(r.legs).toHaveLength(2);
        expect([leg1!.fromCurrency, leg1!.toCurrency].sort()).toEqual([from, R].sort());
        expect([leg2!.fromCurrency, leg2!.toCurrency].sort()).toEqual([R, to].sort());
        expect(run({ ...q, reportingCurrency: null })).toBeNull();
      }),
      { numRuns: 1000 }, // about 2% of random queries triangulate
    );
  });

  it('an inverse is 1/rate to within half a unit of the 10th decimal', () => {
    fc.assert(
      fc.property(arbRateText, (text) => {
        const exact = dec(1).dividedBy(dec(text));
        expect(invertRate(text).minus(exact).abs().lessThanOrEqualTo(dec('0.00000000005'))).toBe(true);
      }),
    );
  });

  it('the inverse of an inverse differs from the rate by at most its two roundings: 5e-11 × (1 + r²) (≈1e-10 relative near 1)', () => {
    // inv = 1/r + e with |e| ≤ 5e-11; |1/inv − r| = r²|e| / (1 + r·e) ≤ r²·5e-11·1.001 for r ≤ 10^4;
    // the second rounding adds at most 5e-11.
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000_000 }), (n) => {
        const r = dec(n).dividedBy(10_000); // 0.0001 … 10000
        const back = invertRate(invertRate(r));
        const bound = dec('5e-11').plus(r.pow(2).times('5e-11').times('1.001'));
        expect(back.minus(r).abs().lessThanOrEqualTo(bound)).toBe(true);
        if (r.greaterThanOrEqualTo('0.7') && r.lessThanOrEqualTo('1.4')) {
          expect(back.minus(r).abs().dividedBy(r).lessThanOrEqualTo(dec('1e-10'))).toBe(true);
        }
      }),
    );
  });

  it('a ComputedAverage lies between the smallest and largest averaged value', () => {
    fc.assert(
      fc.property(arbRates, fc.tuple(arbDay, arbDay), (rates, [a, b]) => {
        const condition: DateCondition = { kind: 'within', start: minDate(a, b), end: maxDate(a, b) };
        const spotOnly = rates.filter((r) => r.rateType === 'Spot');
        const r = resolveRate({
          from: 'EUR',
          to: 'USD',
          types: ['Average'],
          condition,
          reportingCurrency: null,
          rates: spotOnly,
          computeAverage: true,
        });
        if (!r) return;
        expect(r.derivation).toBe('ComputedAverage');
        const values = r.legs.map((l) => (l.fromCurrency === 'EUR' ? dec(l.rate) : invertRate(l.rate)));
        const min = values.reduce((x, y) => (y.lessThan(x) ? y : x));
        const max = values.reduce((x, y) => (y.greaterThan(x) ? y : x));
        expect(r.effectiveRate.greaterThanOrEqualTo(min) && r.effectiveRate.lessThanOrEqualTo(max)).toBe(
          true,
        );
        const dates = r.legs.map((l) => l.effectiveDate);
        expect(new Set(dates).size).toBe(dates.length);
        expect([...dates].sort()).toEqual(dates);
      }),
    );
  });
});
