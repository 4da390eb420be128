// One processor invocation's time, split once: when the handlers are cut off, when the marks stop
// retrying, when the middy chain answers early, how long the hand-back may take, and how long the lease
// lasts. Each figure depends on the others; written in one place they cannot drift apart.
import { EARLY_TIMEOUT_MS } from '../../config/resources';

/** How long the hand-back waits for SQS (ChangeMessageVisibility of the records not started). */
export const HAND_BACK_MS = 400;
/** The chain's grace for the hand-back to answer first: the hand-back plus room for the answer itself. */
export const HAND_BACK_GRACE_MS = HAND_BACK_MS + 300;
/** The marks' and the visibility change's time after the handlers' cut-off (less on short invocations). */
export const AFTER_HANDLER_MS = 2_000;
/** Added to the lease, so a clock a little behind DynamoDB's cannot let another worker in early. */
export const LEASE_MARGIN_MS = 5_000;

export interface InvocationBudget {
  startedMs: number;
  /** The processing lease: as long as the invocation can run, and the clock margin past it. */
  leaseMs: number;
  /** The marks' retries stop here: the chain's early timeout (visibilityCeiling counts on it). */
  marksDeadlineMs: number;
  /** A handler still running here is cut off (`handler_timeout`), leaving the marks their time. */
  handlerDeadlineMs: number;
  /** How long before Lambda's timeout the chain answers, handing back the records not started. */
  earlyTimeoutMs: number;
  graceMs: number;
  handBackMs: number;
}

export function invocationBudget(options: {
  startedMs: number;
  /** Lambda's getRemainingTimeInMillis at the start (or the configured lease where there is none). */
  remainingMs: number;
  leaseMarginMs?: number;
}): InvocationBudget {
  const { startedMs, remainingMs } = options;
  const earlyTimeoutMs = EARLY_TIMEOUT_MS.processor;
  const marksDeadlineMs = startedMs + remainingMs - earlyTimeoutMs;
  return {
    startedMs,
    leaseMs: remainingMs + (options.leaseMarginMs ?? LEASE_MARGIN_MS),
    marksDeadlineMs,
    handlerDeadlineMs: handlerDeadline(startedMs, marksDeadlineMs),
    earlyTimeoutMs,
    graceMs: HAND_BACK_GRACE_MS,
    handBackMs: HAND_BACK_MS,
  };
}

/** The handlers' cut-off, from the invocation's start and the marks' deadline. */
export function handlerDeadline(startedMs: number, marksDeadlineMs: number): number {
  const span = marksDeadlineMs - startedMs;
  return marksDeadlineMs - Math.min(AFTER_HANDLER_MS, Math.max(0, span) / 2);
}
