// Which destinations a delivery goes to: each destination's filter names providers and event types, with
// `*` globs in the types. Pure; the processor's fan-out and `destinations list` read it.
import type { Config, ResolvedDestination } from '../../../config';

const compiled = new Map<string, RegExp>();

/** `*` matches any run of characters, nothing else is special: `customer.*`, `*.created`, `*`. */
function globPattern(glob: string): RegExp {
  let pattern = compiled.get(glob);
  if (!pattern) {
    const source = glob
      .split('*')
      // `-` is special only in a class (there is none), and `\-` is a syntax error under the `u` flag.
      .map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
      .join('.*');
    pattern = new RegExp(`^${source}$`, 'su');
    if (compiled.size > 256) compiled.clear();
    compiled.set(glob, pattern);
  }
  return pattern;
}

export function matchesEventType(globs: readonly string[] | undefined, eventType: string): boolean {
  return globs === undefined || globs.some((glob) => globPattern(glob).test(eventType));
}

export function matchesDestination(
  destination: Pick<ResolvedDestination, 'filter'>,
  provider: string,
  eventType: string,
): boolean {
  const { providers, eventTypes } = destination.filter;
  return (providers === undefined || providers.includes(provider)) && matchesEventType(eventTypes, eventType);
}

/** The destinations a delivery goes to, in the config's order. */
export function destinationsFor(
  config: Pick<Config, 'destinations'>,
  provider: string,
  eventType: string,
): ResolvedDestination[] {
  return Object.values(config.destinations).filter((d) => matchesDestination(d, provider, eventType));
}
