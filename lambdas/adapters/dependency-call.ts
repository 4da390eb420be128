// The one place an SDK failure becomes a DependencyError, so every adapter reports failures alike and the
// handlers never see an SDK exception type.
import { DependencyError } from '../core/errors';

/**
 * Runs one SDK call. A failure becomes DependencyError(dependency, operation), unless `known` turns it into
 * the adapter's own meaning first (an object that is gone, a stack that does not exist): errors that say
 * something about the request, not about the service being down.
 */
export async function callDependency<T>(
  dependency: DependencyError['dependency'],
  operation: string,
  call: () => Promise<T>,
  known?: (error: unknown) => Error | undefined,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw known?.(error) ?? new DependencyError(dependency, operation, { cause: error });
  }
}

/**
 * Runs a DynamoDB conditional write: true if it applied, false if its condition failed (an answer, not a
 * failure), DependencyError(dynamodb, operation) for anything else.
 */
export async function conditionalWrite(operation: string, write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (isAwsError(error, 'ConditionalCheckFailedException')) return false;
    throw new DependencyError('dynamodb', operation, { cause: error });
  }
}

/** SDK exceptions are matched by name: `instanceof` breaks when two copies of a client are bundled. */
export function isAwsError(error: unknown, ...names: string[]): boolean {
  return error instanceof Error && names.includes(error.name);
}
