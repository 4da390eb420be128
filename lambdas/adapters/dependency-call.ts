// The one place an SDK failure becomes a DependencyError, so every adapter reports failures alike and the
// handlers never see an SDK exception type.
import { DependencyError } from '../core/errors';

export async function callDependency<T>(
  dependency: DependencyError['dependency'],
  operation: string,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new DependencyError(dependency, operation, { cause: error });
  }
}

/** SDK exceptions are matched by name: `instanceof` breaks when two copies of a client are bundled. */
export function isAwsError(error: unknown, ...names: string[]): boolean {
  return error instanceof Error && names.includes(error.name);
}
