// The visibility ceiling's count of the time before the handler's clock starts: the event source may
// invoke at the very end of the queue's visibility timeout (it retries a throttled invoke until then), and
// on a cold environment Lambda's Init phase (up to 10 s) runs after that invoke and before the handler.
import { describe, expect, it } from 'vitest';
import {
  visibilityCeilingSeconds,
  waitedBeforeInvocationSeconds,
} from '../../../../lambdas/core/receive-policy';
import { MAX_STEP_SECONDS } from '../../../../lambdas/core/retry-schedule';

/** Lambda's limit on a function's Init phase. */
const INIT_LIMIT_SECONDS = 10;

describe('visibilityCeilingSeconds on a cold start', () => {
  it.each([
    ['the forwarder (no batching window, a 30 s timeout)', 0, 30],
    ['the processor (a 5 s window, a 30 s timeout)', 5, 30],
  ])(
    '%s: a 12-hour step stays within 12 h of the receive when the invoke came as the visibility timeout ran out and the Init phase took its 10 s',
    (_, windowSeconds, timeoutSeconds) => {
      const visibilitySeconds = 6 * timeoutSeconds;
      // Seconds from the receive to the handler's first clock reading, at worst.
      const beforeHandler = windowSeconds + visibilitySeconds + INIT_LIMIT_SECONDS;
      const ceiling = visibilityCeilingSeconds({
        nowMs: 2_000,
        invocationStartedMs: 0,
        waitedBeforeSeconds: waitedBeforeInvocationSeconds({
          maxBatchingWindowSeconds: windowSeconds,
          functionTimeoutSeconds: timeoutSeconds,
        }),
      });
      expect(beforeHandler + 2 + ceiling).toBeLessThanOrEqual(MAX_STEP_SECONDS);
    },
  );
});
