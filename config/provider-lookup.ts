// Finding a provider by an id that came from outside (a URL path, a queue message, a command line). Own
// keys only: `constructor` or `__proto__` must be an unknown provider, not one of Object's members. No
// schema import, so the Lambdas can use it.
import type { Config, ResolvedProvider } from './index';

export function providerById(
  config: Pick<Config, 'providers'>,
  id: string | undefined,
): ResolvedProvider | undefined {
  return id !== undefined && Object.hasOwn(config.providers, id) ? config.providers[id] : undefined;
}
