import { describe, expect, it } from 'vitest';
import {
  type AttemptResult,
  forwardDelaySeconds,
  judgeAttempt,
  parseRetryAfter,
} from '../../../../../lambdas/core/destinations/attempt';

const NOW = Date.UTC(2030, 5, 1, 12, 0, 0);
const answered = (status: number, retryAfter?: string): AttemptResult =>
  retryAfter === undefined ? { kind: 'answered', status } : { kind: 'answered', status, retryAfter };

describe('judgeAttempt', () => {
  it.each([200, 201, 202, 204, 299])('counts %i as delivered', (status) => {
    expect(judgeAttempt(answered(status), NOW)).toEqual({ kind: 'delivered' });
  });

  it('counts an accepted event (EventBridge, SQS) as delivered', () => {
    expect(judgeAttempt({ kind: 'accepted' }, NOW)).toEqual({ kind: 'delivered' });
  });

  it.each([408, 425, 429, 500, 502, 503, 504, 599])(
    'retries %i, the 4xx that mean later and every 5xx',
    (status) => {
      expect(judgeAttempt(answered(status), NOW)).toEqual({ kind: 'retry', code: `http_${status}` });
    },
  );

  it.each([400, 401, 403, 404, 405, 409, 413, 415, 422, 451, 499])('gives %i up as permanent', (status) => {
    expect(judgeAttempt(answered(status), NOW)).toEqual({ kind: 'permanent', code: `http_${status}` });
  });

  it('takes 410 to mean the destination is gone', () => {
    expect(judgeAttempt(answered(410), NOW)).toEqual({ kind: 'gone', code: 'http_410' });
  });

  it.each([100, 101, 301, 302, 303, 304, 307, 308])(
    'gives %i up as permanent: no redirect is chased',
    (status) => {
      expect(judgeAttempt(answered(status), NOW)).toEqual({ kind: 'permanent', code: `http_${status}` });
    },
  );

  it('carries Retry-After on a retried answer, and ignores it on a refusal', () => {
    expect(judgeAttempt(answered(429, '7'), NOW)).toEqual({
      kind: 'retry',
      code: 'http_429',
      retryAfterSeconds: 7,
    });
    const inAMinute = new Date(NOW + 60_000).toUTCString();
    expect(judgeAttempt(answered(503, inAMinute), NOW)).toEqual({
      kind: 'retry',
      code: 'http_503',
      retryAfterSeconds: 60,
    });
    expect(judgeAttempt(answered(503, 'soon'), NOW)).toEqual({ kind: 'retry', code: 'http_503' });
    expect(judgeAttempt(answered(400, '7'), NOW)).toEqual({ kind: 'permanent', code: 'http_400' });
  });

  it("keeps a failure's code, retried or not as the sender says", () => {
    expect(judgeAttempt({ kind: 'failed', code: 'connect_timeout', retryable: true }, NOW)).toEqual({
      kind: 'retry',
      code: 'connect_timeout',
    });
    expect(judgeAttempt({ kind: 'failed', code: 'blocked_address', retryable: false }, NOW)).toEqual({
      kind: 'permanent',
      code: 'blocked_address',
    });
  });
});

describe('parseRetryAfter', () => {
  it('reads whole seconds, surrounding whitespace allowed', () => {
    expect(parseRetryAfter('2', NOW)).toBe(2);
    expect(parseRetryAfter(' 120 ', NOW)).toBe(120);
    expect(parseRetryAfter('0', NOW)).toBe(0);
  });

  it('reads an HTTP date as the seconds until it, rounded up', () => {
    expect(parseRetryAfter(new Date(NOW + 90_000).toUTCString(), NOW)).toBe(90);
    expect(parseRetryAfter('Sat, 01 Jun 2030 12:00:01 GMT', NOW - 500)).toBe(2);
  });

  it('reads the obsolete RFC 850 and asctime date forms too', () => {
    expect(parseRetryAfter('Saturday, 01-Jun-30 12:01:00 GMT', NOW)).toBe(60);
    expect(parseRetryAfter('Sun Nov  6 08:49:37 1994', NOW)).toBe(0);
  });

  it('makes a date in the past 0', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toBe(0);
    expect(parseRetryAfter(new Date(NOW - 1).toUTCString(), NOW)).toBe(0);
  });

  it.each([
    undefined,
    '',
    'soon',
    '-1',
    '1.5',
    '2e3',
    '0x10',
    '12345678901',
    '2030-06-01T12:01:00Z',
    '1 day',
    'Tomorrow, at noon',
  ])('makes %j undefined', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});

describe('forwardDelaySeconds', () => {
  const steps = [10, 60, 300];
  const draws = [0, 0.000_001, 0.1, 0.5, 0.9, 0.999_999];

  it('draws uniformly between 1 s and the attempt step (full jitter)', () => {
    expect(draws.map((r) => forwardDelaySeconds(steps, 1, undefined, () => r))).toEqual([1, 1, 1, 5, 9, 10]);
    expect(draws.map((r) => forwardDelaySeconds(steps, 2, undefined, () => r))).toEqual([
      1, 1, 6, 30, 54, 60,
    ]);
    for (let i = 0; i < 1000; i++) {
      const delay = forwardDelaySeconds(steps, 3, undefined);
      expect(delay).toBeGreaterThanOrEqual(1);
      expect(delay).toBeLessThanOrEqual(300);
      expect(Number.isInteger(delay)).toBe(true);
    }
  });

  it('uses the last step for attempts past the schedule, and the first below it', () => {
    const top = () => 0.999_999;
    expect([4, 5, 1000].map((attempt) => forwardDelaySeconds(steps, attempt, undefined, top))).toEqual([
      300, 300, 300,
    ]);
    expect([0, -3].map((attempt) => forwardDelaySeconds(steps, attempt, undefined, top))).toEqual([10, 10]);
  });

  it("waits what Retry-After asked, without jitter, capped by the schedule's largest step and at least 1 s", () => {
    const never = () => {
      throw new Error('no draw when the destination said when');
    };
    expect(forwardDelaySeconds(steps, 1, 45, never)).toBe(45);
    expect(forwardDelaySeconds(steps, 1, 86_400, never)).toBe(300);
    expect(forwardDelaySeconds([60, 10], 2, 86_400, never)).toBe(60);
    expect(forwardDelaySeconds(steps, 1, 0, never)).toBe(1);
  });
});
