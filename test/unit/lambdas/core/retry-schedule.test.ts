import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../../config';
import {
  durationSeconds,
  formatDuration,
  isLastReceive,
  maxReceiveCount,
  retryDelaySeconds,
  retryHorizon,
} from '../../../../lambdas/core/retry-schedule';

const DEFAULT = parseConfig({}).queue.retrySchedule;
const low = () => 0;
const high = () => 0.999_999;

describe('the default retry schedule', () => {
  it('spans at least 24 hours before the last retry, even when every wait draws its shortest', () => {
    const horizon = retryHorizon(DEFAULT);
    expect(horizon.minSeconds).toBeGreaterThanOrEqual(24 * 3600);
    // 25.9 h at the soonest, 51.7 h at the latest.
    expect(horizon).toEqual({ minSeconds: 93_075, maxSeconds: 186_150 });
  });

  it('gives 12 receives: the first delivery and one per step', () => {
    expect(maxReceiveCount(DEFAULT)).toBe(12);
    expect(isLastReceive(DEFAULT, 11)).toBe(false);
    expect(isLastReceive(DEFAULT, 12)).toBe(true);
  });
});

describe('retryDelaySeconds', () => {
  it('waits between half the step and the whole step, never zero', () => {
    expect(retryDelaySeconds(DEFAULT, 1, low)).toBe(15);
    expect(retryDelaySeconds(DEFAULT, 1, high)).toBe(30);
    expect(retryDelaySeconds(DEFAULT, 9, low)).toBe(21_600);
    expect(retryDelaySeconds(DEFAULT, 9, high)).toBe(43_200);
    expect(retryDelaySeconds([1], 1, low)).toBe(1);
  });

  it('draws every second of the window with a uniform random, the last one included', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) seen.add(retryDelaySeconds([10], 1, () => i / 1000));
    expect([...seen].sort((a, b) => a - b)).toEqual([5, 6, 7, 8, 9, 10]);
  });

  it('grows step by step with the receive count, and uses the last step past the end', () => {
    const delays = [1, 2, 3, 4, 12, 50].map((receive) => retryDelaySeconds(DEFAULT, receive, high));
    expect(delays).toEqual([30, 120, 600, 1800, 43_200, 43_200]);
  });

  it('treats a receive count of 0 or less as the first', () => {
    expect(retryDelaySeconds(DEFAULT, 0, high)).toBe(30);
  });
});

describe('formatDuration', () => {
  it('writes whole hours and minutes in their unit, anything else in seconds', () => {
    expect([43_200, 600, 90, 3660].map(formatDuration)).toEqual(['12h', '10m', '90s', '61m']);
  });
});

describe('durationSeconds', () => {
  it.each([
    ['30s', 30],
    ['2m', 120],
    ['12h', 43_200],
    [90, 90],
  ])('reads %j as %i seconds', (value, seconds) => {
    expect(durationSeconds(value)).toBe(seconds);
  });

  it.each(['0s', '1.5h', '10 m', '1d', '', '-5s', '05s'])('refuses %j', (value) => {
    expect(durationSeconds(value)).toBeUndefined();
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses the number %d', (value) => {
    expect(durationSeconds(value)).toBeUndefined();
  });
});
