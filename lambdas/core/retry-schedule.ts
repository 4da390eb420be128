// The one retry schedule: how long a failed delivery waits before each retry, how many receives that
// makes, and how long the whole thing can last. The processor, the queue settings (maxReceiveCount and
// retention), the config validation and the CLI all read it from here. Pure: no SDK, no clock.

/**
 * The default steps, in seconds: 30 s, 2 m, 10 m, 30 m, 1 h, 2 h, 4 h, 8 h, then three of 12 h. Each retry
 * waits between half its step and the whole step, so the last retry comes between 25.9 h and 51.7 h after
 * the first failure: longer than Svix's ~28 h and a good part of Stripe's 3 days. Mobazha's sender backs off
 * from 30 s to an hour; the later steps go further because a downstream outage of a night must not
 * dead-letter.
 */
export const DEFAULT_RETRY_STEPS: readonly string[] = [
  '30s',
  '2m',
  '10m',
  '30m',
  '1h',
  '2h',
  '4h',
  '8h',
  '12h',
  '12h',
  '12h',
];

/** SQS's largest visibility timeout, counted from the receive: the longest one step can hide a message. */
export const MAX_STEP_SECONDS = 43_200;

const UNIT_SECONDS = { s: 1, m: 60, h: 3600 } as const;
export const DURATION_PATTERN = /^([1-9]\d{0,5})(s|m|h)$/;

/** `30s`, `10m`, `2h`, or a whole number of seconds. Undefined for anything else. */
export function durationSeconds(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  const match = DURATION_PATTERN.exec(value);
  if (!match) return undefined;
  return Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS];
}

/** A duration as the schedule documents it: `90s` stays seconds, `600` becomes `10m`, `7200` is `2h`. */
export function formatDuration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

/** One receive for the first try, one per step. This is the queue's redrive `maxReceiveCount`. */
export function maxReceiveCount(steps: readonly number[]): number {
  return steps.length + 1;
}

/** Whether a failure on this receive is the last one allowed: after it, SQS moves the message. */
export function isLastReceive(steps: readonly number[], receiveCount: number): boolean {
  return receiveCount >= maxReceiveCount(steps);
}

export interface RetryHorizon {
  /** The soonest the last retry can come after the first failure: half of every step. */
  minSeconds: number;
  /** The latest: every step in full. */
  maxSeconds: number;
}

export function retryHorizon(steps: readonly number[]): RetryHorizon {
  const maxSeconds = steps.reduce((sum, step) => sum + step, 0);
  return { minSeconds: steps.reduce((sum, step) => sum + Math.ceil(step / 2), 0), maxSeconds };
}

/**
 * The wait after the failure on receive `receiveCount` (1 for the first delivery): a uniform draw between
 * half the step and the whole step. Jitter inside the step spreads a burst of failures from one outage
 * over half a step instead of retrying them in lockstep, and the floor keeps every retry from coming back
 * at once (full jitter from zero sends 1 in 10 first retries back within a tenth of the step). Receives
 * past the schedule (SQS's receive count is approximate) use its last step.
 */
export function retryDelaySeconds(
  steps: readonly number[],
  receiveCount: number,
  random: () => number = Math.random,
): number {
  const index = Math.min(Math.max(receiveCount, 1), steps.length) - 1;
  const step = steps[index] ?? 1;
  const low = Math.ceil(step / 2);
  return Math.max(1, Math.min(step, low + Math.floor(random() * (step - low + 1))));
}
