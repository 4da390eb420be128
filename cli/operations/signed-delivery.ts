// Building, signing and posting one delivery as the provider would send it, and checking it locally with
// the same scheme module the verify Lambda runs (which is also how the dedup key is computed).
import { createHash, randomBytes } from 'node:crypto';
import type { ResolvedProvider } from '../../config';
import { SCHEMES } from '../../lambdas/core/schemes';
import { CLI } from '../shared/hint';
import { CliError, describeError, UsageError } from '../shared/output';
import { SAMPLES, sampleContext, stableIds } from './samples';

export interface Delivery {
  body: Buffer;
  /** The id sent in the provider's id header (signed for Standard Webhooks and Mobazha). */
  deliveryId: string;
  eventType?: string;
  /** Unsigned headers the provider sends too. */
  extraHeaders: Record<string, string>;
}

export interface SignedDelivery extends Delivery {
  /** Unix seconds the delivery was signed at. */
  timestamp: number;
  headers: Record<string, string>;
}

export type LocalCheck =
  | { ok: true; dedupKey: string; eventType?: string; payloadSha256: string }
  | { ok: false; reason: string };

/**
 * The URL a URL-signing scheme (Square) signs: what the verify Lambda reconstructs from API Gateway's
 * request context, `https://<domain name><path>`. Local mode reports its own host there (never the
 * request's Host header), without the port.
 */
export function signedUrl(url: string): string {
  const parsed = new URL(url);
  return `https://${parsed.hostname}${parsed.pathname}`;
}

export function sampleEvents(provider: ResolvedProvider): string[] {
  return Object.keys(SAMPLES[provider.scheme].events);
}

/** A fresh sample event: new ids, the given time. `token` fixes the delivery's ids (same token, same ids). */
export function sampleDelivery(
  provider: ResolvedProvider,
  input: { event?: string; nowMs: number; url: string; token?: string },
): Delivery {
  const samples = SAMPLES[provider.scheme];
  const event = input.event ?? samples.defaultEvent;
  const build = Object.hasOwn(samples.events, event) ? samples.events[event] : undefined;
  if (!build) {
    throw new UsageError(
      `no sample "${event}" for ${provider.id} (scheme ${provider.scheme}); samples: ${Object.keys(samples.events).join(', ')}; or send your own with --file`,
    );
  }
  const token = input.token ?? randomBytes(16).toString('hex');
  const deliveryId = samples.deliveryId(stableIds(token));
  const sample = build(sampleContext({ token, nowMs: input.nowMs, deliveryId, url: input.url }));
  return {
    body: Buffer.from(JSON.stringify(sample.body)),
    deliveryId,
    eventType: sample.eventType ?? event,
    extraHeaders: sample.headers ?? {},
  };
}

/** A new token for a delivery; exported for the selftest's "same id, different body" check. */
export function newToken(): string {
  return randomBytes(16).toString('hex');
}

function guessEventType(provider: ResolvedProvider, json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const body = json as Record<string, unknown>;
  if (provider.scheme === 'github') {
    if ('zen' in body && 'hook_id' in body) return 'ping';
    if ('pull_request' in body) return 'pull_request';
    if ('commits' in body && 'ref' in body) return 'push';
    if ('issue' in body) return 'issues';
    return undefined;
  }
  if (provider.scheme === 'shopify') {
    return 'line_items' in body && 'order_number' in body ? 'orders/create' : undefined;
  }
  for (const field of ['type', 'event_type', 'event']) {
    if (typeof body[field] === 'string' && body[field] !== '') return body[field] as string;
  }
  return undefined;
}

/**
 * A file's exact bytes. Its delivery id is derived from the bytes (or --id), so sending the same file again
 * is the same delivery, as a provider's retry would be.
 */
export function fileDelivery(
  provider: ResolvedProvider,
  input: { body: Buffer; event?: string; id?: string },
): Delivery {
  let json: unknown;
  try {
    json = JSON.parse(input.body.toString('utf8'));
  } catch {
    json = undefined;
  }
  const eventType = input.event ?? guessEventType(provider, json);
  if (eventType === undefined && (provider.scheme === 'github' || provider.scheme === 'shopify')) {
    throw new UsageError(
      `pass --event with --file for ${provider.id}: ${provider.scheme} sends the event type in a header`,
    );
  }
  const token = createHash('sha256').update(input.body).digest('hex');
  return {
    body: input.body,
    deliveryId: input.id ?? SAMPLES[provider.scheme].deliveryId(stableIds(token)),
    eventType,
    extraHeaders: {},
  };
}

export function signDelivery(
  provider: ResolvedProvider,
  delivery: Delivery,
  input: { secret: string; timestamp: number; url: string },
): SignedDelivery {
  let signed: Record<string, string>;
  try {
    signed = SCHEMES[provider.scheme].sign({
      body: delivery.body,
      secret: input.secret,
      timestamp: input.timestamp,
      id: delivery.deliveryId,
      eventType: delivery.eventType,
      url: signedUrl(input.url),
      options: provider.options,
    });
  } catch (error) {
    throw new CliError(
      `cannot sign for ${provider.id} with this secret: ${describeError(error)}`,
      `set a ${provider.scheme} secret with \`${CLI} secrets rotate ${provider.id}\``,
    );
  }
  return {
    ...delivery,
    timestamp: input.timestamp,
    headers: { ...delivery.extraHeaders, ...signed },
  };
}

/** Runs the provider's scheme over the request, as the verify Lambda would on arrival. */
export function checkLocally(
  provider: ResolvedProvider,
  request: { body: Buffer; headers: Record<string, string>; url: string },
  secrets: readonly string[],
  nowSeconds = Math.floor(Date.now() / 1000),
): LocalCheck {
  const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v]));
  const outcome = SCHEMES[provider.scheme].verify(
    { body: request.body, headers, url: signedUrl(request.url) },
    secrets,
    { nowSeconds, toleranceSeconds: provider.toleranceSeconds, options: provider.options },
  );
  if (!outcome.ok) return { ok: false, reason: outcome.reason };
  return {
    ok: true,
    dedupKey: outcome.delivery.dedupKey,
    eventType: outcome.delivery.eventType,
    payloadSha256: outcome.delivery.payloadSha256,
  };
}

export interface HttpResult {
  status: number;
  /** The answer's JSON, or its text when it is not JSON. */
  answer: unknown;
}

export async function post(url: string, body: Buffer, headers: Record<string, string>): Promise<HttpResult> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'User-Agent': 'webhook-inbox-cli', ...headers },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new CliError(
      `cannot reach ${url}: ${describeError(error)}`,
      'is the inbox running at that address?',
    );
  }
  const text = await response.text();
  let answer: unknown = text;
  try {
    answer = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's error page): keep the text.
  }
  return { status: response.status, answer };
}

/** `401 bad_signature`, `200 duplicate`, `202`: an answer in a few words. */
export function summarize(result: HttpResult): string {
  const answer = result.answer as Record<string, unknown> | string;
  if (typeof answer === 'object' && answer !== null) {
    if (answer.duplicate === true) return `${result.status} duplicate`;
    if (typeof answer.error === 'string') return `${result.status} ${answer.error}`;
    if (typeof answer.message === 'string') return `${result.status} ${answer.message}`;
  }
  return String(result.status);
}

/** A random secret in the provider's format: what a wrong or newly rotated secret looks like. */
export function randomSecret(provider: ResolvedProvider): string {
  return SCHEMES[provider.scheme].generateSecret();
}
