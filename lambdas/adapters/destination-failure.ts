// How an AWS destination's refusal becomes a forwarding attempt's result, the same way for EventBridge and
// SQS: a short code for the record and the logs, and whether a later attempt can succeed.
import type { AttemptResult } from '../core/destinations/attempt';

export type AttemptFailure = Extract<AttemptResult, { kind: 'failed' }>;

/**
 * A code from the service (an error name, an entry's ErrorCode) as the record and the logs take it:
 * `[\w.-]{1,64}`. The service's text is never trusted to be short or plain.
 */
export function failureCode(text: string | undefined, fallback: string): string {
  const code = (text ?? '').replace(/[^\w.-]/g, '_').slice(0, 64);
  return code === '' ? fallback : code;
}

export interface FailureRules {
  /** The code of a failure with no usable name: a network error, a timeout, a 5xx. */
  unavailable: string;
  /** Error names that say the request itself is wrong: no later attempt of it can succeed. */
  permanent: ReadonlySet<string>;
}

/**
 * A failed SDK call. The names in `rules.permanent` are permanent; any other client fault (4xx) is retried
 * under its own name: throttling, and everything a change to a policy, a key or a queue fixes, after
 * which the next attempt succeeds with nobody redriving anything. Everything else (5xx, no answer) is
 * `rules.unavailable`, retried.
 */
export function serviceFailure(error: unknown, rules: FailureRules): AttemptFailure {
  const { name, $fault: fault } = (error ?? {}) as { name?: unknown; $fault?: unknown };
  // An error the SDK has no class for keeps the service's namespaced code as its name
  // (`AWS.SimpleQueueService.InvalidParameterValue`): the last part is the error's own name.
  const code = typeof name === 'string' && name !== '' ? name.slice(name.lastIndexOf('.') + 1) : undefined;
  if (code !== undefined && rules.permanent.has(code)) {
    return { kind: 'failed', code: failureCode(code, rules.unavailable), retryable: false };
  }
  if (fault === 'client' && code !== undefined) {
    return { kind: 'failed', code: failureCode(code, rules.unavailable), retryable: true };
  }
  return { kind: 'failed', code: rules.unavailable, retryable: true };
}
