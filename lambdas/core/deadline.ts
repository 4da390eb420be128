// The invocation's deadline as the pipeline sees it: an AbortSignal that the middy layer aborts shortly
// before Lambda would cut the invocation off. Waiting on a dependency stops there, so the pipeline can hand
// its work back (release a claim, hand a message back) while there is still time to answer.

/** The invocation is about to be cut off: what was being waited for is abandoned. */
export class DeadlineReached extends Error {
  override name = 'DeadlineReached';
}

/**
 * Settles as `promise` does, unless `signal` aborts first: then rejects with DeadlineReached. The call
 * itself goes on (an SDK call cannot be taken back), so whatever it may still do must be safe to leave.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(new DeadlineReached());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new DeadlineReached());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
