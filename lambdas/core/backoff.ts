/**
 * Exponential backoff with full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"): a uniform
 * delay in [0, min(cap, base * 2^(attempt-1))]. Full jitter spreads a burst of failures (a downstream
 * outage) instead of retrying them in lockstep. `attempt` counts from 1; any unit works.
 */
export function fullJitter(
  attempt: number,
  base: number,
  cap: number,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(attempt, 1) - 1, 30);
  return random() * Math.min(cap, base * 2 ** exponent);
}

/** The processor's retry delay. `receiveCount` is SQS's ApproximateReceiveCount, 1 on the first delivery. */
export function backoffSeconds(
  receiveCount: number,
  baseSeconds: number,
  capSeconds: number,
  random: () => number = Math.random,
): number {
  // SQS caps a visibility timeout at 12 hours.
  return Math.min(Math.round(fullJitter(receiveCount, baseSeconds, capSeconds, random)), 43_200);
}
