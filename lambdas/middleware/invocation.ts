// What one invocation carries through the middy chain: its own abort signal, aborted by middy's early
// timeout, and the cold-start flag.
//
// Why not the signal middy passes to the handler: middy 6 shares one AbortController across every chain
// in the process (it is slow to make one per call). On Lambda a container runs one invocation at a time,
// but local mode runs both Lambdas, and several batches, in one process, and one invocation's early
// timeout would abort them all. AsyncLocalStorage gives each invocation its own, and middy's timer
// callback runs inside the invocation's async context, so `timeoutEarlyResponse` finds the right one.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface Invocation {
  readonly signal: AbortSignal;
  readonly coldStart: boolean;
}

interface InvocationState extends Invocation {
  readonly event: unknown;
  abort(): void;
  /** The early timeout's grace: cleared once the invocation has answered, so its fallback never runs late. */
  grace?: ReturnType<typeof setTimeout>;
}

const storage = new AsyncLocalStorage<InvocationState>();

/** A flag per chain: true for the first invocation the chain serves in this process. */
export function coldStartFlag(): () => boolean {
  let cold = true;
  return () => {
    const first = cold;
    cold = false;
    return first;
  };
}

/** Runs `run` as one invocation of `event`: its own signal, visible to `currentInvocation()` inside. */
export function asInvocation<T>(event: unknown, coldStart: boolean, run: () => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const state: InvocationState = {
    event,
    signal: controller.signal,
    coldStart,
    abort: () => controller.abort(),
  };
  return storage.run(state, run).finally(() => clearTimeout(state.grace));
}

/** The running invocation; outside one (a factory called directly), a signal that never aborts. */
export function currentInvocation(): Invocation {
  return storage.getStore() ?? { signal: new AbortController().signal, coldStart: false };
}

/**
 * middy's early-timeout response: aborts the invocation, so the handler hands its work back and answers,
 * and gives it `graceMs` to do so. If the handler has not answered by then (a call that ignores the
 * signal), the fallback does: the invocation must answer before Lambda cuts it off.
 */
export function abortThenAnswer<E, T>(
  graceMs: number,
  fallback: (event: E | undefined) => T,
): () => Promise<T> {
  return () => {
    const state = storage.getStore();
    state?.abort();
    return new Promise<T>((resolve) => {
      const timer = setTimeout(() => resolve(fallback(state?.event as E | undefined)), graceMs);
      if (state) state.grace = timer;
    });
  };
}
