// One forwarding attempt's result, and what it means: done, retry (when), permanent, or the destination
// gone. The rules are the retry table in docs/destinations.md. Pure.

/** What a sender reports; it never throws for the destination's own failures. */
export type AttemptResult =
  /** An HTTP destination answered. `retryAfter` is the raw header, if any. */
  | { kind: 'answered'; status: number; retryAfter?: string }
  /** A destination without status codes (EventBridge, SQS) took the event. */
  | { kind: 'accepted' }
  /**
   * No answer, or an error the service named: `code` is a short identifier for logs and the record
   * (`connect_timeout`, `response_timeout`, `connection_refused`, `blocked_address`, `ThrottlingException`).
   */
  | { kind: 'failed'; code: string; retryable: boolean };

export type AttemptVerdict =
  | { kind: 'delivered' }
  | {
      kind: 'retry';
      code: string /** Seconds the destination asked for (Retry-After), uncapped. */;
      retryAfterSeconds?: number;
    }
  | { kind: 'permanent'; code: string }
  /** 410 Gone: the destination says it will never take anything again. */
  | { kind: 'gone'; code: string };

/**
 * 408 Request Timeout, 425 Too Early and 429 Too Many Requests are the 4xx that mean "later"; any other 4xx
 * is a refusal that a retry would only repeat. Every 5xx is retried. 1xx and 3xx (no redirect is followed:
 * a destination that moved must be re-registered, not chased to wherever it points) are permanent.
 */
const RETRIED_4XX: ReadonlySet<number> = new Set([408, 425, 429]);

export function judgeAttempt(result: AttemptResult, nowMs: number): AttemptVerdict {
  if (result.kind === 'accepted') return { kind: 'delivered' };
  if (result.kind === 'failed') {
    return result.retryable ? { kind: 'retry', code: result.code } : { kind: 'permanent', code: result.code };
  }
  const { status } = result;
  const code = `http_${status}`;
  if (status >= 200 && status < 300) return { kind: 'delivered' };
  if (status === 410) return { kind: 'gone', code };
  if (status >= 500 || RETRIED_4XX.has(status)) {
    const retryAfterSeconds = parseRetryAfter(result.retryAfter, nowMs);
    return retryAfterSeconds === undefined
      ? { kind: 'retry', code }
      : { kind: 'retry', code, retryAfterSeconds };
  }
  return { kind: 'permanent', code };
}

const DELAY_SECONDS = /^\d{1,10}$/;

/**
 * RFC 9110 §10.2.3: a whole number of seconds, or an HTTP date. Undefined when absent or unreadable; a
 * date in the past is 0.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (DELAY_SECONDS.test(text)) return Number(text);
  // Only the date forms HTTP allows start with a day name; Date.parse accepts much else besides.
  if (!/^[A-Z][a-z]{2,8},? /.test(text)) return undefined;
  const at = Date.parse(text);
  if (!Number.isFinite(at)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/**
 * The wait before the next attempt after failed attempt number `attempt` (1 for the first): full jitter,
 * a uniform draw between 1 s and the schedule's step, or what the destination's Retry-After asked for,
 * capped by the schedule's largest step. Attempts past the schedule use its last step.
 */
export function forwardDelaySeconds(
  steps: readonly number[],
  attempt: number,
  retryAfterSeconds: number | undefined,
  random: () => number = Math.random,
): number {
  const largest = Math.max(...steps);
  if (retryAfterSeconds !== undefined) return Math.max(1, Math.min(retryAfterSeconds, largest));
  const step = steps[Math.min(Math.max(attempt, 1), steps.length) - 1] ?? 1;
  return Math.max(1, Math.min(step, Math.ceil(random() * step)));
}
