// Whether a failure is AWS not answering this one call (throttled, down, the network, credentials that
// expired during the run), as opposed to an answer about the resource (missing, refused). Such a failure
// says nothing about the stack, so a check that meets one says "cannot check" with the reason rather than
// failing the inbox with a fix that does not apply.

/** Error names the SDK gives throttling, server faults, timeouts and credentials it could not use. */
const UNAVAILABLE_NAMES = new Set([
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'ProvisionedThroughputExceededException',
  'SlowDown',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'InternalFailure',
  'InternalError',
  'InternalServerError',
  'InternalServiceError',
  'InternalServiceErrorException',
  'ExpiredToken',
  'ExpiredTokenException',
  'CredentialsProviderError',
  'TokenProviderError',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'AbortError',
]);

/** Node's codes for a connection that failed or dropped. */
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

/**
 * The same in words, for errors that keep only the SDK's message (the CLI's own one-line errors do):
 * throttling, an expired token, no credentials, a dropped connection.
 */
const UNAVAILABLE_TEXT =
  /\bRate exceeded\b|\bThrottl|\bToo many requests\b|security token included in the request is expired|Could not load credentials|\b(ECONNRESET|ECONNREFUSED|ETIMEDOUT|ENOTFOUND|EAI_AGAIN)\b|socket hang up/i;

/** Walks the error and its causes (adapters wrap SDK errors in DependencyError). */
export function isUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    if (UNAVAILABLE_NAMES.has(current.name)) return true;
    const { code, $metadata } = current as { code?: unknown; $metadata?: { httpStatusCode?: number } };
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    if (($metadata?.httpStatusCode ?? 0) >= 500) return true;
    if (UNAVAILABLE_TEXT.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}
