// Errors a handler throws to steer what happens to the message. Users import them from lambdas/events/errors.

/**
 * Retrying cannot help (the order does not exist, the payload is unsupported). The message goes to the
 * dead-letter queue at once with `code` as its error code, and the inbox says `dead-lettered`.
 * Anything else a handler throws is transient: retried with backoff until maxReceiveCount.
 */
export class PermanentError extends Error {
  constructor(
    readonly code: string,
    message?: string,
    options?: ErrorOptions,
  ) {
    super(message ?? code, options);
    this.name = 'PermanentError';
  }
}
