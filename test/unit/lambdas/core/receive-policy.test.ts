// The receive policy the processor and the forwarder share: when to give up, and how long SQS may be
// asked to hide a message.
import { describe, expect, it } from 'vitest';
import {
  afterFailure,
  visibilityCeilingSeconds,
  waitedBeforeInvocationSeconds,
} from '../../../../lambdas/core/receive-policy';
import { MAX_STEP_SECONDS } from '../../../../lambdas/core/retry-schedule';

describe('afterFailure', () => {
  it('retries until the last receive the redrive policy allows, then gives up', () => {
    const steps = [10, 60];
    expect(afterFailure({ steps, receiveCount: 1 })).toBe('retry');
    expect(afterFailure({ steps, receiveCount: 2 })).toBe('retry');
    expect(afterFailure({ steps, receiveCount: 3 })).toBe('give_up');
  });

  it('gives a permanent failure up on its first receive', () => {
    expect(afterFailure({ steps: [10, 60], receiveCount: 1, permanent: true })).toBe('give_up');
  });
});

describe('visibilityCeilingSeconds', () => {
  it('counts the 12 hours from the receive: the time waited before the invocation and the time since', () => {
    const waited = waitedBeforeInvocationSeconds({ maxBatchingWindowSeconds: 5, functionTimeoutSeconds: 30 });
    expect(waited).toBe(5 + 180 + 10); // the window, six function timeouts, Lambda's Init limit
    expect(
      visibilityCeilingSeconds({ nowMs: 10_500, invocationStartedMs: 0, waitedBeforeSeconds: waited }),
    ).toBe(MAX_STEP_SECONDS - 11 - waited);
  });

  it('never asks for less than nothing', () => {
    expect(
      visibilityCeilingSeconds({
        nowMs: MAX_STEP_SECONDS * 1000,
        invocationStartedMs: 0,
        waitedBeforeSeconds: 900,
      }),
    ).toBe(0);
  });
});
