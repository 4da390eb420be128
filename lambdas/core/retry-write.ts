// Retries one inbox write inside the invocation, with full-jitter backoff, until a deadline. Used for the
// writes that must not be left undone once the effect ran (the processed mark) or once the processor gave a
// delivery up (the dead-lettered mark): a second receive would run the handler again. A write that answers
// "not applied" (its condition failed) is an answer, not a failure, and is not retried.
import { fullJitter } from './backoff';
import type { Clock } from './ports';

export interface RetryWriteOptions {
  clock: Clock;
  /** Epoch milliseconds: no attempt starts after it (the invocation must still be alive to use the answer). */
  deadlineMs: number;
  /** @default 6 */
  maxAttempts?: number;
  random?: () => number;
  /** @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
}

export type WriteResult =
  | { ok: true; applied: boolean; attempts: number }
  | { ok: false; error: unknown; attempts: number };

const BASE_MS = 100;
const CAP_MS = 2_000;
const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function retryWrite(
  write: () => Promise<boolean>,
  options: RetryWriteOptions,
): Promise<WriteResult> {
  const maxAttempts = options.maxAttempts ?? 6;
  const sleep = options.sleep ?? realSleep;
  let lastError: unknown;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    try {
      return { ok: true, applied: await write(), attempts: attempt };
    } catch (error) {
      lastError = error;
    }
    if (attempt === maxAttempts) break;
    const waitMs = Math.round(fullJitter(attempt, BASE_MS, CAP_MS, options.random));
    if (options.clock.now() + waitMs >= options.deadlineMs)
      return { ok: false, error: lastError, attempts: attempt };
    await sleep(waitMs);
  }
  return { ok: false, error: lastError, attempts: maxAttempts };
}
