/**
 * Exponential backoff with full jitter, for retries inside one invocation (the S3 writer, the inbox marks,
 * the test senders); a delivery's retries across receives follow the retry schedule (retry-schedule.ts).
 * Full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"): a uniform
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
