import { describe, expect, it } from 'vitest';
import { retryWrite } from '../../../../lambdas/core/retry-write';

const clockAt = (ms: number) => ({ now: () => ms });
const noWait = async () => undefined;
const failing = (times: number, then: boolean) => {
  let calls = 0;
  return {
    write: async () => {
      calls++;
      if (calls <= times) throw new Error('ServiceUnavailable');
      return then;
    },
    calls: () => calls,
  };
};

describe('retryWrite', () => {
  it('retries a failing write until it applies', async () => {
    const target = failing(3, true);
    const result = await retryWrite(target.write, { clock: clockAt(0), deadlineMs: 60_000, sleep: noWait });
    expect(result).toEqual({ ok: true, applied: true, attempts: 4 });
  });

  it('takes a write whose condition failed as an answer and does not retry it', async () => {
    const target = failing(0, false);
    const result = await retryWrite(target.write, { clock: clockAt(0), deadlineMs: 60_000, sleep: noWait });
    expect(result).toEqual({ ok: true, applied: false, attempts: 1 });
  });

  it('gives up after maxAttempts with the last error', async () => {
    const target = failing(100, true);
    const result = await retryWrite(target.write, {
      clock: clockAt(0),
      deadlineMs: 60_000,
      sleep: noWait,
      maxAttempts: 4,
    });
    expect(result).toMatchObject({ ok: false, attempts: 4 });
    expect(target.calls()).toBe(4);
  });

  it('starts no attempt that would wait past the deadline', async () => {
    const target = failing(100, true);
    const result = await retryWrite(target.write, {
      clock: clockAt(1_000),
      deadlineMs: 1_050,
      sleep: noWait,
      random: () => 0.999,
    });
    expect(result).toMatchObject({ ok: false, attempts: 1 });
  });

  it('waits with growing full-jitter backoff between attempts', async () => {
    const waits: number[] = [];
    const target = failing(3, true);
    await retryWrite(target.write, {
      clock: clockAt(0),
      deadlineMs: 60_000,
      random: () => 0.5,
      sleep: async (ms) => void waits.push(ms),
    });
    expect(waits).toEqual([50, 100, 200]);
  });
});
