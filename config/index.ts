// Parses and resolves the configuration. Nothing else in the project reads cdk.json or process.env for
// configuration: the CDK app, local mode and the CLI call `loadProjectConfig`; the Lambdas call
// `runtimeFromEnv`.
import type * as z from 'zod/mini';
import {
  durationSeconds,
  formatDuration,
  MAX_STEP_SECONDS,
  retryHorizon,
} from '../lambdas/core/retry-schedule';
import { ambiguousBoundary, parseTemplate } from '../lambdas/core/schemes/template';
import { ConfigError } from './errors';
import { MIN_DLQ_DWELL_SECONDS, RETENTION_MARGIN_SECONDS, SQS_MAX_RETENTION_SECONDS } from './limits';
import {
  type ConfigInput,
  configSchema,
  type DestinationConfig,
  type GenericHmacOptions,
  genericHmacOptionsSchema,
  MAX_DESTINATIONS,
  type ProviderConfig,
  providerSchema,
  SCHEME_NAMES,
  type SchemeName,
  type SquareOptions,
  squareOptionsSchema,
} from './schema';

export { ConfigError } from './errors';
export * from './schema';

export const CONTEXT_KEY = 'webhookInbox';

export interface ResolvedProvider extends Omit<ProviderConfig, 'options'> {
  id: string;
  scheme: SchemeName;
  options?: GenericHmacOptions | SquareOptions;
}

export interface ResolvedQueue extends Omit<z.output<typeof configSchema>['queue'], 'retrySchedule'> {
  /** The retry steps in seconds (see lambdas/core/retry-schedule.ts). */
  retrySchedule: number[];
}

type Resolved<T> = T extends { type: 'handlers' }
  ? T & { id: string }
  : Omit<T, 'retrySchedule'> & {
      id: string;
      /** The retry steps in seconds: the destination's own, or the inbox's `queue.retrySchedule`. */
      retrySchedule: number[];
    };

/** A destination with its id and every default filled in. */
export type ResolvedDestination = Resolved<DestinationConfig>;
/** The destinations with a queue of their own: every type but `handlers`. */
export type ForwardDestination = Exclude<ResolvedDestination, { type: 'handlers' }>;

export interface Config extends Omit<z.output<typeof configSchema>, 'providers' | 'queue' | 'destinations'> {
  providers: Record<string, ResolvedProvider>;
  queue: ResolvedQueue;
  destinations: Record<string, ResolvedDestination>;
}

/** What an inbox without `destinations` has: the typed handlers, for every provider and event type. */
export const DEFAULT_DESTINATIONS: Readonly<Record<string, ResolvedDestination>> = {
  handlers: { id: 'handlers', type: 'handlers', filter: {} },
};

/**
 * The default generic-hmac format, a common hand-rolled partner one: `X-Webhook-Signature: v1=<hex>` over
 * `{timestamp}.{body}`. Its `X-Webhook-ID` is not signed, so the dedup key is the body hash.
 */
export const DEFAULT_GENERIC_HMAC_OPTIONS: z.input<typeof genericHmacOptionsSchema> = {
  signatureHeader: 'X-Webhook-Signature',
  signaturePrefix: 'v1=',
  encoding: 'hex',
  template: '{timestamp}.{body}',
  timestampHeader: 'X-Webhook-Timestamp',
  eventTypeField: 'type',
};

/**
 * Per-scheme defaults that differ from the generic ones, applied wherever the provider's settings leave
 * the key out. Replay windows follow each provider's own documentation or library (docs/configuration.md);
 * the generic 300 s is what Stripe, Slack, Standard Webhooks, Mobazha and
 * the default generic-hmac partner format use.
 */
function schemeDefaults(scheme: SchemeName): Partial<z.input<typeof providerSchema>> {
  switch (scheme) {
    case 'slack':
      // Slash commands and interactivity arrive form-encoded; the Events API sends JSON.
      return { contentTypes: ['application/json', 'application/x-www-form-urlencoded'], requireJson: false };
    case 'linear':
      // Linear documents a one-minute window for its signed `webhookTimestamp`, and its SDK enforces it.
      return { toleranceSeconds: 60 };
    case 'paddle':
      // Paddle's SDKs refuse a signature older than five seconds, and its docs ask the same of others.
      return { toleranceSeconds: 5 };
    default:
      return {};
  }
}

/**
 * The dedup window of a provider whose signature covers no timestamp. Such a delivery verifies for ever,
 * so only its inbox record stands between a captured copy and a second run: the window is the exposure.
 * 35 days (a month and a margin) against the generic 7: a record is about 560 bytes.
 */
export const UNTIMED_DEDUP_TTL_SECONDS = 35 * 86_400;

/** Whether the provider's signature covers a timestamp, so that an old capture is refused as stale. */
function signsTimestamp(provider: z.input<typeof providerSchema>): boolean {
  switch (provider.scheme) {
    case 'github':
    case 'shopify':
    case 'square':
      return false;
    case 'generic-hmac': {
      // An unsigned timestamp header proves nothing: only the template says what is signed. A template
      // that is not text is refused when the options are parsed.
      const template = (provider.options as { template?: unknown } | undefined)?.template ?? '{body}';
      return typeof template !== 'string' || template.includes('{timestamp}');
    }
    default:
      return true;
  }
}

/** Defaults that follow from what the provider signs rather than from its scheme alone. */
function signedContentDefaults(
  provider: z.input<typeof providerSchema>,
): Partial<z.input<typeof providerSchema>> {
  return signsTimestamp(provider) ? {} : { dedupTtlSeconds: UNTIMED_DEDUP_TTL_SECONDS };
}

/** The shipped default: one provider per built-in scheme, provider id = scheme name. */
export function defaultProviders(): Record<string, z.input<typeof providerSchema>> {
  return Object.fromEntries(
    SCHEME_NAMES.map((scheme) => [
      scheme,
      scheme === 'generic-hmac' ? { scheme, options: DEFAULT_GENERIC_HMAC_OPTIONS } : { scheme },
    ]),
  );
}

function formatIssue(issue: z.core.$ZodIssue, prefix: string): string {
  const key = [prefix, ...issue.path.map(String)].join('.');
  switch (issue.code) {
    case 'invalid_type':
      return `${key}: expected ${issue.expected}`;
    case 'too_small':
      return `${key}: must be ${issue.inclusive ? '>=' : '>'} ${String(issue.minimum)}`;
    case 'too_big':
      return `${key}: must be ${issue.inclusive ? '<=' : '<'} ${String(issue.maximum)}`;
    case 'invalid_value':
      return `${key}: must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'unrecognized_keys':
      return `${key}: unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`;
    case 'invalid_key':
      return `${key}: invalid name (lowercase letters, digits and dashes)`;
    case 'invalid_format':
      return `${key}: invalid format`;
    case 'invalid_union':
      // The config's two unions: a retry step, and a provider's scheme options.
      return issue.path.includes('retrySchedule')
        ? `${key}: must be a duration such as 30s, 10m or 2h, or whole seconds`
        : `${key}: does not match the options this scheme takes`;
    case 'custom':
      // A refinement's own words (the schema states what it wants).
      return `${key}: ${issue.message}`;
    default:
      return `${key}: invalid`;
  }
}

function parseOrThrow<T extends z.ZodMiniType>(schema: T, value: unknown, prefix: string): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => formatIssue(i, prefix)).join('; '));
  }
  return result.data;
}

function resolveOptions(id: string, provider: ProviderConfig, prefix: string): ResolvedProvider['options'] {
  const key = `${prefix}.providers.${id}.options`;
  if (provider.scheme === 'generic-hmac') {
    const options = parseOrThrow(genericHmacOptionsSchema, provider.options, key);
    const needs = (placeholder: string, header: string | undefined, name: string) => {
      if (options.template.includes(placeholder) && !header) {
        throw new ConfigError(`${key}.${name}: required because the template uses ${placeholder}`);
      }
    };
    needs('{timestamp}', options.timestampHeader, 'timestampHeader');
    needs('{id}', options.idHeader, 'idHeader');
    const ambiguous = ambiguousBoundary(parseTemplate(options.template));
    if (ambiguous) {
      const { left, right, between } = ambiguous;
      const apart =
        between === '' ? 'side by side' : `apart only by ${JSON.stringify(between)}, which both can contain`;
      throw new ConfigError(
        `${key}.template: ${JSON.stringify(options.template)} puts {${left}} and {${right}} ${apart}, so bytes ` +
          `can move from one to the other under the same signature (a replay would get a new dedup key); ` +
          `put a character between them that one of them cannot contain, such as "."`,
      );
    }
    return options;
  }
  if (provider.scheme === 'square') return parseOrThrow(squareOptionsSchema, provider.options ?? {}, key);
  if (provider.options !== undefined)
    throw new ConfigError(`${key}: the ${provider.scheme} scheme takes no options`);
  return undefined;
}

/** Keys of earlier versions that the retry schedule replaced: named, so an old cdk.json says what to do. */
const REPLACED_QUEUE_KEYS = ['maxReceiveCount', 'backoffBaseSeconds', 'backoffCapSeconds'];

function refuseReplacedKeys(raw: unknown, prefix: string): void {
  const queue = (raw as { queue?: unknown } | undefined)?.queue;
  if (typeof queue !== 'object' || queue === null) return;
  const found = REPLACED_QUEUE_KEYS.filter((key) => key in queue);
  if (found.length > 0) {
    throw new ConfigError(
      `${prefix}.queue.${found[0]}: replaced by queue.retrySchedule (a list of waits such as ["30s", "2m", "1h"]); ` +
        'maxReceiveCount is its length plus one',
    );
  }
}

/**
 * The schedule in seconds, checked against what SQS can do: a step hides the message with one
 * ChangeMessageVisibility (at most 12 h), and every retry must happen while the main queue still keeps
 * the message (its retention, at most 14 days, is the horizon plus a day).
 */
function resolveRetrySchedule(
  steps: readonly (string | number)[],
  prefix: string,
  key = `${prefix}.queue.retrySchedule`,
): number[] {
  const seconds = steps.map((step, index) => {
    const value = durationSeconds(step);
    if (value === undefined) throw new ConfigError(`${key}.${index}: invalid duration (use 30s, 10m, 2h)`);
    if (value > MAX_STEP_SECONDS) {
      throw new ConfigError(`${key}.${index}: ${formatDuration(value)} is over SQS's 12h visibility limit`);
    }
    return value;
  });
  const { maxSeconds } = retryHorizon(seconds);
  if (maxSeconds + RETENTION_MARGIN_SECONDS > SQS_MAX_RETENTION_SECONDS) {
    throw new ConfigError(
      `${key}: the steps add up to ${formatDuration(maxSeconds)}; with a day's margin that is over the queue's ` +
        'longest retention (14 days), so the last retries would find the message gone',
    );
  }
  if (maxSeconds + RETENTION_MARGIN_SECONDS + MIN_DLQ_DWELL_SECONDS > SQS_MAX_RETENTION_SECONDS) {
    throw new ConfigError(
      `${key}: the steps add up to ${formatDuration(maxSeconds)}, which leaves a given-up message less than ` +
        '3 days in the DLQ (its 14 days count from the first enqueue); keep the schedule under 10 days',
    );
  }
  return seconds;
}

/** Validates a `webhookInbox` context value and fills in every default. */
export function parseConfig(raw: unknown, prefix = CONTEXT_KEY): Config {
  refuseReplacedKeys(raw, prefix);
  const parsed = parseOrThrow(configSchema, raw ?? {}, prefix);
  // The provider settings as written, not as parsed: parsing fills in the generic defaults, which would
  // hide the scheme's own (Paddle's 5 s window, Slack's forms) behind values nobody set.
  const written = (raw as { providers?: Record<string, z.input<typeof providerSchema>> } | undefined)
    ?.providers;
  const rawProviders = parsed.providers && written ? written : defaultProviders();
  const providers: Record<string, ResolvedProvider> = {};
  for (const [id, value] of Object.entries(rawProviders)) {
    const withDefaults = { ...schemeDefaults(value.scheme), ...signedContentDefaults(value), ...value };
    const provider = parseOrThrow(providerSchema, withDefaults, `${prefix}.providers.${id}`);
    providers[id] = { ...provider, id, options: resolveOptions(id, provider, prefix) };
  }
  if (Object.keys(providers).length === 0)
    throw new ConfigError(`${prefix}.providers: at least one provider`);
  const queue = { ...parsed.queue, retrySchedule: resolveRetrySchedule(parsed.queue.retrySchedule, prefix) };
  const destinations = resolveDestinations(parsed.destinations, queue.retrySchedule, providers, prefix);
  return { ...parsed, providers, queue, destinations };
}

function resolveDestinations(
  parsed: Record<string, DestinationConfig> | undefined,
  inboxSchedule: number[],
  providers: Record<string, ResolvedProvider>,
  prefix: string,
): Record<string, ResolvedDestination> {
  if (parsed === undefined) return { ...DEFAULT_DESTINATIONS };
  const entries = Object.entries(parsed);
  const key = `${prefix}.destinations`;
  if (entries.length === 0) throw new ConfigError(`${key}: at least one destination (or leave it out)`);
  if (entries.filter(([, d]) => d.type !== 'handlers').length > MAX_DESTINATIONS) {
    throw new ConfigError(`${key}: at most ${MAX_DESTINATIONS} destinations besides the handlers`);
  }
  if (entries.filter(([, d]) => d.type === 'handlers').length > 1) {
    throw new ConfigError(`${key}: one handlers destination at most (the handlers would run twice)`);
  }
  const resolved: Record<string, ResolvedDestination> = {};
  for (const [id, destination] of entries) {
    for (const provider of destination.filter.providers ?? []) {
      if (!Object.hasOwn(providers, provider)) {
        throw new ConfigError(`${key}.${id}.filter.providers: ${provider} is not a configured provider`);
      }
    }
    if (destination.type === 'handlers') {
      resolved[id] = { ...destination, id };
      continue;
    }
    const retrySchedule = destination.retrySchedule
      ? resolveRetrySchedule(destination.retrySchedule, prefix, `${key}.${id}.retrySchedule`)
      : inboxSchedule;
    resolved[id] = { ...destination, id, retrySchedule } as ResolvedDestination;
  }
  return resolved;
}

/** The destinations that have a queue of their own (every type but `handlers`). */
export function forwardDestinations(config: Pick<Config, 'destinations'>): ForwardDestination[] {
  return Object.values(config.destinations).filter((d): d is ForwardDestination => d.type !== 'handlers');
}

export type { ConfigInput };

/** The input form of a resolved config (provider ids dropped), for passing to the Lambdas as JSON. */
export function toConfigInput(config: Config): ConfigInput {
  const providers = Object.fromEntries(
    Object.entries(config.providers).map(([id, { id: _id, ...provider }]) => [id, provider]),
  );
  const destinations = Object.fromEntries(
    Object.entries(config.destinations).map(([id, { id: _id, ...destination }]) => [id, destination]),
  );
  return { ...config, providers, destinations } as ConfigInput;
}
