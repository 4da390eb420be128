// `webhook-inbox dev --forward-to <url>`: every verified event also goes to a local service, as with
// `stripe listen --forward-to` and `hookdeck listen`. Each URL becomes an http destination of the config,
// validated by the one schema and forwarded by the same code as any configured destination.
import { type Config, ConfigError, parseConfig, toConfigInput } from '../config';

/**
 * A faster schedule than the inbox's default (30 s to 12 h): a laptop's service restarts in seconds, and
 * a retry is worth watching. Five retries within about fifteen minutes, then the DLQ.
 */
export const FORWARD_TO_RETRY_SCHEDULE = ['2s', '10s', '30s', '2m', '10m'] as const;

export function forwardToId(index: number): string {
  return `forward-to-${index + 1}`;
}

/** The config with one http destination per URL, besides those it has. Throws ConfigError naming the URL. */
export function withForwardTo(config: Config, urls: readonly string[]): Config {
  if (urls.length === 0) return config;
  const input = toConfigInput(config);
  const destinations: Record<string, unknown> = { ...input.destinations };
  urls.forEach((url, index) => {
    const id = forwardToId(index);
    if (Object.hasOwn(destinations, id)) {
      throw new ConfigError(
        `--forward-to ${url}: cdk.json already has a destination named ${id}; rename it there`,
      );
    }
    destinations[id] = { type: 'http', url, retrySchedule: [...FORWARD_TO_RETRY_SCHEDULE] };
  });
  try {
    return parseConfig({ ...input, destinations });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const bad = urls.findIndex((_, index) => error.message.includes(`destinations.${forwardToId(index)}.`));
    throw new ConfigError(
      bad >= 0
        ? `--forward-to ${urls[bad]}: not an http(s) URL (e.g. http://localhost:4000/webhooks)`
        : `with --forward-to: ${error.message}`,
    );
  }
}
