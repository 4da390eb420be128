// What a receive that did not finish does next, for the processor and the forwarder alike: retry on the
// schedule, give up on the last receive, drain a message already given up, and never ask SQS to hide a
// message longer than it will. One policy, so the two consumers cannot drift apart.
import { queueVisibilitySeconds } from '../../config/resources';
import type { MessageControl } from './ports';
import { isLastReceive as isLastScheduledReceive, MAX_STEP_SECONDS } from './retry-schedule';

/** Whether a failure on this receive is the last one the redrive policy allows: after it, SQS moves it. */
export function isLastReceive(steps: readonly number[], receiveCount: number): boolean {
  return isLastScheduledReceive(steps, receiveCount);
}

/** Retry, or give up: a permanent failure, or the last receive the redrive policy allows. */
export function afterFailure(options: {
  steps: readonly number[];
  receiveCount: number;
  permanent?: boolean;
}): 'retry' | 'give_up' {
  return options.permanent || isLastReceive(options.steps, options.receiveCount) ? 'give_up' : 'retry';
}

/** Lambda's limit on a function's Init phase, which a cold start runs after the invoke. */
const INIT_LIMIT_SECONDS = 10;

/**
 * How long before the handler's clock starts a record may have been received: the event source may hold it
 * for the batching window, then, while Lambda retries a throttled invoke, up to the queue's visibility
 * timeout (six times the function's timeout; past that SQS would have handed it out again), and on a cold
 * start the Init phase runs before the handler.
 */
export function waitedBeforeInvocationSeconds(options: {
  maxBatchingWindowSeconds: number;
  functionTimeoutSeconds: number;
}): number {
  return (
    options.maxBatchingWindowSeconds +
    queueVisibilitySeconds(options.functionTimeoutSeconds) +
    INIT_LIMIT_SECONDS
  );
}

/**
 * The longest a ChangeMessageVisibility may ask for now: SQS counts its 12 hours from the receive, which
 * came before the invocation started.
 */
export function visibilityCeilingSeconds(options: {
  nowMs: number;
  invocationStartedMs: number;
  waitedBeforeSeconds: number;
}): number {
  const elapsed = Math.ceil((options.nowMs - options.invocationStartedMs) / 1000);
  return Math.max(0, MAX_STEP_SECONDS - elapsed - options.waitedBeforeSeconds);
}

/** Hands the message back at once: the next receive comes soon, and the redrive policy can move it. */
export async function drain(messages: MessageControl, receiptHandle: string): Promise<void> {
  // If this fails the message comes back after the queue's visibility timeout instead: later, not lost.
  await messages.delay(receiptHandle, 0).catch(() => undefined);
}
