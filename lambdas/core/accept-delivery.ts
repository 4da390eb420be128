// The verify pipeline: request shape, signature and timestamp, claim, enqueue, mark. Pure orchestration
// over the ports; what each outcome answers is decided in answers.ts.
import { randomUUID } from 'node:crypto';
import type { Config, ResolvedProvider } from '../../config';
import { providerById } from '../../config/provider-lookup';
import { recordLifetimes } from '../../config/retention';
import { DeadlineReached, untilAborted } from './deadline';
import { buildEnvelope, envelopeAttributes, payloadKey, serializeEnvelope } from './envelope';
import { DependencyError } from './errors';
import { type HandshakeAnswer, handshakeAnswer, unsignedHandshake } from './handshakes';
import { type ConflictKind, inboxKey } from './inbox';
import { occurredAtOf } from './occurred-at';
import type { ClaimStore, Clock, DeliveryQueue, PayloadWriter, SecretSource } from './ports';
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
    | { outcome: 'accepted'; id: string; messageId: string; enqueueMs: number }
    /** `typeConflict`: the same bytes under another event type, not run (Scheme.sameBodyOtherType). */
    | { outcome: 'duplicate'; id: string; typeConflict?: true }
    | { outcome: 'handshake'; answer: HandshakeAnswer }
    /** Same dedup key as a record of other bytes, or of the same bytes under another event type. */
    | { outcome: 'conflict'; conflict: ConflictKind }
    | { outcome: 'in_flight'; retryAfterSeconds: number }
    | { outcome: 'rejected'; reason: RejectReason }
    | { outcome: 'dependency_error'; dependency: DependencyError['dependency']; operation: string }
    /** The invocation was about to be cut off: any claim was given back, and the provider should retry. */
    | { outcome: 'timed_out'; stage: 'verify' | 'claim' | 'enqueue' }
  );

export interface AcceptDeliveryDeps {
  config: Config;
  inbox: ClaimStore;
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

/**
 * The Content-Type as the provider sent it, parameters (charset) included: the envelope's
 * `datacontenttype`, which destinations forward with the exact bytes.
 */
function contentTypeOf(headers: HeaderMap): string | undefined {
  const header = singleHeader(headers, 'content-type');
  if (!header.ok) return undefined;
  // The header is not signed: only visible ASCII goes on (what any HTTP header and SQS can carry), else
  // the bare media type the provider's settings accepted.
  const value = header.value.trim();
  return /^[\x21-\x7e][\x20-\x7e]{0,254}$/.test(value) ? value : undefined;
}

async function verifySignature(
  deps: AcceptDeliveryDeps,
  provider: ResolvedProvider,
  request: IncomingRequest,
  signal: AbortSignal,
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
  const secrets = await untilAborted(deps.secrets.get(provider.id), signal);
  const outcome = scheme.verify(webhook, secrets, context);
  if (outcome.ok) return { ...outcome, secrets };
  if (!SIGNATURE_REASONS.has(outcome.reason)) return outcome;
  // A bad signature right after a rotation: look once more, bypassing the cache. The source rate-limits
  // refreshes, so a flood of forgeries cannot turn into a flood of Secrets Manager calls.
  const fresh = await untilAborted(deps.secrets.get(provider.id, { refresh: true }), signal);
  if (fresh.length === secrets.length && fresh.every((s, i) => s === secrets[i])) return outcome;
  const retried = scheme.verify(webhook, fresh, context);
  return retried.ok ? { ...retried, secrets: fresh } : retried;
}

/** A signal that never aborts: the pipeline run without a deadline (local mode's gateway has none). */
const NO_DEADLINE = new AbortController().signal;

/**
 * Runs one delivery through the pipeline. Never throws: dependency failures become results. When `signal`
 * aborts (the invocation is about to be cut off), the delivery is handed back: its claim released, the
 * answer retryable.
 */
export async function acceptDelivery(
  deps: AcceptDeliveryDeps,
  request: IncomingRequest,
  signal: AbortSignal = NO_DEADLINE,
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
    const verified = await verifySignature(deps, provider, request, signal);
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
    const eventType = delivery.readEventType();
    if (!eventType.ok) return { ...facts, outcome: 'rejected', reason: eventType.reason };
    facts.eventType = eventType.value;
    return await claimAndEnqueue(
      deps,
      provider,
      delivery,
      contentTypeOf(request.headers) ?? type,
      facts,
      signal,
    );
  } catch (error) {
    if (error instanceof TimedOut) return { ...facts, outcome: 'timed_out', stage: error.stage };
    if (error instanceof DeadlineReached) return { ...facts, outcome: 'timed_out', stage: 'verify' };
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

/** The deadline, with where it struck. */
class TimedOut extends Error {
  override name = 'TimedOut';
  constructor(readonly stage: 'claim' | 'enqueue') {
    super(stage);
  }
}

async function claimAndEnqueue(
  deps: AcceptDeliveryDeps,
  provider: ResolvedProvider,
  delivery: VerifiedDelivery,
  contentType: string,
  facts: DeliveryFacts,
  signal: AbortSignal,
): Promise<DeliveryResult> {
  const { inbox, clock, config } = deps;
  const nowMs = clock.now();
  const id = `${provider.id}:${delivery.dedupKey}`;
  const pk = inboxKey(provider.id, delivery.dedupKey);
  const claimToken = randomUUID();
  const payloadRef =
    delivery.body.length > config.inlineLimitBytes
      ? payloadKey(provider.id, delivery.payloadSha256)
      : undefined;
  const claiming = inbox.claim({
    provider: provider.id,
    dedupKey: delivery.dedupKey,
    deliveryId: delivery.deliveryId,
    eventType: facts.eventType,
    payloadSha256: delivery.payloadSha256,
    payloadRef,
    nowMs,
    leaseSeconds: config.claimLeaseSeconds,
    ...recordLifetimes(config, provider),
    claimToken,
  });
  let claim: Awaited<typeof claiming>;
  try {
    claim = await untilAborted(claiming, signal);
  } catch (error) {
    // The put may still apply after we stop waiting: release under our token. If the release is overtaken
    // by a late put, the claim's lease lapses and the retry takes it then.
    if (error instanceof DeadlineReached) {
      await releaseLate(inbox, pk, claimToken, claiming);
      throw new TimedOut('claim');
    }
    throw error;
  }
  // The deadline striking during the send is a timeout at the enqueue stage.
  const send = () =>
    enqueue(
      deps,
      provider,
      delivery,
      { contentType, eventType: facts.eventType, payloadRef, nowMs },
      signal,
    ).catch((error) => {
      throw error instanceof DeadlineReached ? new TimedOut('enqueue') : error;
    });
  switch (claim.kind) {
    case 'duplicate':
      return { ...facts, outcome: 'duplicate', id };
    case 'conflict':
      if (claim.conflict === 'event_type' && SCHEMES[provider.scheme]?.sameBodyOtherType === 'duplicate')
        return { ...facts, outcome: 'duplicate', id, typeConflict: true };
      return { ...facts, outcome: 'conflict', conflict: claim.conflict };
    case 'in_flight':
      return { ...facts, outcome: 'in_flight', retryAfterSeconds: claim.retryAfterSeconds };
    case 'pending':
      // Another invocation holds the claim, and no mark says whether it has sent yet (verify writes none
      // after the send). Send a copy rather than answer "in flight": the delivery is then durable whatever
      // the other invocation does, and the processor's lease and processed mark run it once.
      await send();
      return { ...facts, outcome: 'duplicate', id };
    case 'claimed':
      break;
  }

  const started = clock.now();
  let messageId: string;
  try {
    messageId = await send();
  } catch (error) {
    // Not enqueued: give the claim back so the provider's retry is treated as new, not as a duplicate.
    // If the release fails too, the lease lapses and the retry claims it then. At the deadline the send
    // may still go through after the release: the retry then enqueues a second copy, which the
    // processor's lease and processed mark absorb.
    await inbox.release(pk, claimToken).catch(() => undefined);
    throw error;
  }
  // The message is durable now: 202. No mark follows (three writes a delivery: this claim, the processor's
  // lease, its processed mark). The record stays `claimed` until the processor's lease moves it on; a
  // provider's retry meanwhile sends a copy (`pending` above), or after the claim's lease retakes it.
  return { ...facts, outcome: 'accepted', id, messageId, enqueueMs: clock.now() - started };
}

/** The payload (when large) and the message: what makes a delivery durable. Returns the message id. */
async function enqueue(
  deps: AcceptDeliveryDeps,
  provider: ResolvedProvider,
  delivery: VerifiedDelivery,
  facts: {
    contentType: string;
    eventType: string | undefined;
    payloadRef: string | undefined;
    nowMs: number;
  },
  signal: AbortSignal,
): Promise<string> {
  const { contentType, eventType, payloadRef, nowMs: receivedAtMs } = facts;
  const dataref = payloadRef
    ? await untilAborted(deps.payloads.put(payloadRef, delivery.body, delivery.payloadSha256), signal)
    : undefined;
  const envelope = buildEnvelope({
    provider: provider.id,
    dedupKey: delivery.dedupKey,
    deliveryId: delivery.deliveryId,
    eventType,
    contentType,
    payloadSha256: delivery.payloadSha256,
    body: delivery.body,
    dataref,
    receivedAtMs,
    occurredAtMs: occurredAtOf(provider.scheme, delivery, receivedAtMs),
  });
  const { messageId } = await untilAborted(
    deps.queue.send({ body: serializeEnvelope(envelope), attributes: envelopeAttributes(envelope) }),
    signal,
  );
  return messageId;
}

/** Releases a claim whose put we stopped waiting for, once the put has answered (or at once if it hangs). */
async function releaseLate(
  inbox: ClaimStore,
  pk: string,
  claimToken: string,
  claiming: Promise<unknown>,
): Promise<void> {
  claiming.then(
    () => inbox.release(pk, claimToken).catch(() => undefined),
    () => undefined,
  );
  await inbox.release(pk, claimToken).catch(() => undefined);
}
