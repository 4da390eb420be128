// Whether a failure is AWS refusing the caller's credentials this one call (an IAM denial), as opposed to a
// resource that is missing or a service that is down. A check that is denied cannot see what it was
// about, so it says "cannot check" with the missing permission rather than failing the inbox.

const DENIED_NAMES = new Set([
  'AccessDenied',
  'AccessDeniedException',
  'AuthorizationError',
  'AuthorizationErrorException',
  'UnauthorizedOperation',
  'UnauthorizedException',
]);

/** Walks the error and its causes (adapters wrap SDK errors in DependencyError, the CLI in CliError). */
export function isAccessDenied(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    if (DENIED_NAMES.has(current.name)) return true;
    if (/\bAccessDenied|is not authorized to perform\b/.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}
