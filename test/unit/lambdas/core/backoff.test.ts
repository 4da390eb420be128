import { describe, expect, it } from 'vitest';
import { fullJitter } from '../../../../lambdas/core/backoff';

const top = () => 0.999_999;

describe('fullJitter', () => {
  it('draws up to base, then 2x, 4x, ... per attempt, up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6].map((attempt) => Math.round(fullJitter(attempt, 100, 2_000, top)))).toEqual([
      100, 200, 400, 800, 1_600, 2_000,
    ]);
  });

  it('is uniform from zero: the draw scales the ceiling', () => {
    expect(fullJitter(3, 100, 10_000, () => 0)).toBe(0);
    expect(fullJitter(3, 100, 10_000, () => 0.5)).toBe(200);
  });

  it('treats attempt 0 or below as the first, and does not overflow on huge attempts', () => {
    expect(fullJitter(0, 100, 10_000, top)).toBeCloseTo(100, 2);
    expect(fullJitter(10_000, 100, 10_000, top)).toBeCloseTo(10_000, 0);
  });
});
