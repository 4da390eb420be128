// The verify pipeline: request shape, signature and timestamp, claim, enqueue, mark. Pure orchestration
// over the ports; what each outcome answers is decided in answers.ts.
import { randomUUID } from 'node:crypto';
import type { Config, ResolvedProvider } from '../../config';
import { providerById } from '../../config/provider-lookup';
import { recordTtlSeconds } from '../../config/retention';
import { buildEnvelope, envelopeAttributes, payloadKey, serializeEnvelope } from './envelope';
import { DependencyError } from './errors';
import { type HandshakeAnswer, handshakeAnswer, unsignedHandshake } from './handshakes';
import { inboxKey } from './inbox';
import { occurredAtOf } from './occurred-at';
import type { Clock, DeliveryQueue, Inbox, PayloadWriter, SecretSource } from './ports';
import type { RejectReason } from './reasons';
import type { HeaderMap, VerifiedDelivery } from './schemes';
import { SCHEMES } from './schemes';
import { singleHeader } from './schemes/primitives';

export interface IncomingRequest {
  method: string;
  /** From the route `/webhooks/{provider}`; undefined when the path did not match. */
  providerId: string | undefined;
  body: Buffer;
  headers: HeaderMap;
  /** The URL as the front door saw it, for schemes that sign it. */
  url?: string;
}

export interface DeliveryFacts {
  provider?: string;
  dedupKey?: string;
  deliveryId?: string;
  eventType?: string;
  bytes: number;
  /** Which secret verified it: 0 newest, 1 previous. */
  secretIndex?: number;
}

export type DeliveryResult = DeliveryFacts &
  (
    | { outcome: 'accepted'; id: string; messageId: string; enqueueMs: number; markFailed: boolean }
    | { outcome: 'duplicate'; id: string }
    | { outcome: 'handshake'; answer: HandshakeAnswer }
    | { outcome: 'conflict' }
    | { outcome: 'in_flight'; retryAfterSeconds: number }
    | { outcome: 'rejected'; reason: RejectReason }
    | { outcome: 'dependency_error'; dependency: DependencyError['dependency']; operation: string }
  );

export interface AcceptDeliveryDeps {
  config: Config;
  inbox: Inbox;
  queue: DeliveryQueue;
  payloads: PayloadWriter;
  secrets: SecretSource;
  clock: Clock;
}

const SIGNATURE_REASONS: ReadonlySet<RejectReason> = new Set(['bad_signature']);

function mediaType(headers: HeaderMap): string | undefined {
  const header = singleHeader(headers, 'content-type');
  if (!header.ok) return undefined;
  return header.value.split(';', 1)[0]?.trim().toLowerCase();
}

async function verifySignature(
  deps: AcceptDeliveryDeps,
  provider: ResolvedProvider,
  request: IncomingRequest,
): Promise<
  { ok: true; delivery: VerifiedDelivery; secrets: readonly string[] } | { ok: false; reason: RejectReason }
> {
  const scheme = SCHEMES[provider.scheme];
  if (!scheme) return { ok: false, reason: 'no_secret' };
  const context = {
    nowSeconds: Math.floor(deps.clock.now() / 1000),
    toleranceSeconds: provider.toleranceSeconds,
    options: provider.options,
  };
  const webhook = { body: request.body, headers: request.headers, url: request.url };
  const secrets = await deps.secrets.get(provider.id);
  const outcome = scheme.verify(webhook, secrets, context);
  if (outcome.ok) return { ...outcome, secrets };
  if (!SIGNATURE_REASONS.has(outcome.reason)) return outcome;
  // A bad signature right after a rotation: look once more, bypassing the cache. The source rate-limits
  // refreshes, so a flood of forgeries cannot turn into a flood of Secrets Manager calls.
  const fresh = await deps.secrets.get(provider.id, { refresh: true });
  if (fresh.length === secrets.length && fresh.every((s, i) => s === secrets[i])) return outcome;
  const retried = scheme.verify(webhook, fresh, context);
  return retried.ok ? { ...retried, secrets: fresh } : retried;
}

/** Runs one delivery through the pipeline. Never throws: dependency failures become results. */
export async function acceptDelivery(
  deps: AcceptDeliveryDeps,
  request: IncomingRequest,
): Promise<DeliveryResult> {
  const facts: DeliveryFacts = { bytes: request.body.length };
  if (request.method !== 'POST') return { ...facts, outcome: 'rejected', reason: 'method_not_allowed' };
  const provider = providerById(deps.config, request.providerId);
  if (!provider) return { ...facts, outcome: 'rejected', reason: 'unknown_provider' };
  facts.provider = provider.id;
  if (request.body.length > provider.maxBodyBytes)
    return { ...facts, outcome: 'rejected', reason: 'body_too_large' };
  const type = mediaType(request.headers);
  if (type === undefined || !provider.contentTypes.includes(type)) {
    return { ...facts, outcome: 'rejected', reason: 'unsupported_media_type' };
  }
  const probe = unsignedHandshake(provider.scheme, type, request.body);
  if (probe) return { ...facts, outcome: 'handshake', answer: probe };

  try {
    const verified = await verifySignature(deps, provider, request);
    if (!verified.ok) return { ...facts, outcome: 'rejected', reason: verified.reason };
    const delivery = verified.delivery;
    Object.assign(facts, {
      dedupKey: delivery.dedupKey,
      deliveryId: delivery.deliveryId,
      secretIndex: delivery.secretIndex,
    });
    if (provider.requireJson && !delivery.json().ok)
      return { ...facts, outcome: 'rejected', reason: 'not_json' };
    const handshake = handshakeAnswer(provider.scheme, delivery, verified.secrets);
    if (handshake) return { ...facts, outcome: 'handshake', answer: handshake };
    facts.eventType = delivery.eventType;
    return await claimAndEnqueue(deps, provider, delivery, type, facts);
  } catch (error) {
    if (error instanceof DependencyError) {
      return {
        ...facts,
        outcome: 'dependency_error',
        dependency: error.dependency,
        operation: error.operation,
      };
    }
    throw error;
  }
}

async function claimAndEnqueue(
  deps: AcceptDeliveryDeps,
  provider: ResolvedProvider,
  delivery: VerifiedDelivery,
  contentType: string,
  facts: DeliveryFacts,
): Promise<DeliveryResult> {
  const { inbox, clock, config } = deps;
  const nowMs = clock.now();
  const id = `${provider.id}:${delivery.dedupKey}`;
  const pk = inboxKey(provider.id, delivery.dedupKey);
  const claimToken = randomUUID();
  const large = delivery.body.length > config.inlineLimitBytes;
  const claim = await inbox.claim({
    provider: provider.id,
    dedupKey: delivery.dedupKey,
    deliveryId: delivery.deliveryId,
    eventType: facts.eventType,
    payloadSha256: delivery.payloadSha256,
    payloadRef: large ? payloadKey(provider.id, delivery.payloadSha256) : undefined,
    nowMs,
    leaseSeconds: config.claimLeaseSeconds,
    ttlSeconds: recordTtlSeconds(config, provider),
    claimToken,
  });
  if (claim.kind === 'duplicate') return { ...facts, outcome: 'duplicate', id };
  if (claim.kind === 'conflict') return { ...facts, outcome: 'conflict' };
  if (claim.kind === 'in_flight')
    return { ...facts, outcome: 'in_flight', retryAfterSeconds: claim.retryAfterSeconds };

  const started = clock.now();
  let messageId: string;
  try {
    const dataref = large
      ? await deps.payloads.put(
          payloadKey(provider.id, delivery.payloadSha256),
          delivery.body,
          delivery.payloadSha256,
        )
      : undefined;
    const envelope = buildEnvelope({
      provider: provider.id,
      dedupKey: delivery.dedupKey,
      deliveryId: delivery.deliveryId,
      eventType: facts.eventType,
      contentType,
      payloadSha256: delivery.payloadSha256,
      body: delivery.body,
      dataref,
      receivedAtMs: nowMs,
      occurredAtMs: occurredAtOf(provider.scheme, delivery, nowMs),
    });
    ({ messageId } = await deps.queue.send({
      body: serializeEnvelope(envelope),
      attributes: envelopeAttributes(envelope),
    }));
  } catch (error) {
    // Not enqueued: give the claim back so the provider's retry is treated as new, not as a duplicate.
    // If the release fails too, the lease lapses and the retry claims it then.
    await inbox.release(pk, claimToken).catch(() => undefined);
    throw error;
  }
  const enqueueMs = clock.now() - started;
  // The message is durable now, so the answer is 202 whatever happens next. If the mark fails, the claim's
  // lease lapses, a retry may enqueue again, and the processor's inbox check absorbs the second copy.
  const marked = await inbox.markEnqueued(pk, claimToken, messageId, clock.now()).catch(() => false);
  return { ...facts, outcome: 'accepted', id, messageId, enqueueMs, markFailed: !marked };
}
