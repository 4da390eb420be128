// Following the inbox after a command acted (a send, a redrive): read, and read again a moment later,
// until what is watched has settled or the wait runs out.

export interface PollTiming {
  timeoutMs: number;
  pollMs: number;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `step` until it says it is done, or `timeoutMs` has passed since the first run; `pollMs` apart. */
export async function pollUntil(step: () => Promise<boolean>, timing: PollTiming): Promise<void> {
  const started = Date.now();
  while (!(await step()) && Date.now() - started < timing.timeoutMs) await sleep(timing.pollMs);
}
