/**
 * Exponential backoff with full jitter: a uniform delay in [0, min(cap, base * 2^(attempt-1))]. Full
 * jitter spreads a burst of failures (a downstream outage) instead of retrying them in lockstep.
 * `receiveCount` is SQS's ApproximateReceiveCount, 1 on the first delivery.
 */
export function backoffSeconds(
  receiveCount: number,
  baseSeconds: number,
  capSeconds: number,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(receiveCount, 1) - 1, 30);
  const ceiling = Math.min(capSeconds, baseSeconds * 2 ** exponent);
  // SQS caps a visibility timeout at 12 hours.
  return Math.min(Math.round(random() * ceiling), 43_200);
}
