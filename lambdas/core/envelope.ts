// The queue message: a CloudEvents 1.0 structured-mode JSON envelope around the exact raw bytes.
// Built here without zod (the verify hot path); parsed with zod on the processor side (envelope-schema.ts).
import { InvalidPayloadRefError } from './errors';

export interface Envelope {
  specversion: '1.0';
  /** `{provider}:{dedupKey}` */
  id: string;
  /** `webhook-inbox/{provider}` */
  source: string;
  type: string;
  time: string;
  datacontenttype: string;
  /** The exact bytes the provider sent, so they can be re-verified. Absent when `dataref` is set. */
  data_base64?: string;
  /** `s3://bucket/key` when the body was over the inline limit. */
  dataref?: string;
  provider: string;
  dedupkey: string;
  deliveryid?: string;
  /**
   * When the provider says the event happened (see occurred-at.ts), when it says so in signed material.
   * `time` stays the receive time: it is the same for every scheme, which makes it the one to sort by.
   */
  occurredat?: string;
  payloadsha256: string;
  payloadbytes: number;
}

/** Used when the provider does not say; CloudEvents requires a non-empty type. */
export const UNKNOWN_EVENT_TYPE = 'unknown';

export const MESSAGE_ATTRIBUTES = {
  provider: 'provider',
  eventType: 'eventType',
  dedupKey: 'dedupKey',
  /** Set on messages the processor dead-letters itself. */
  errorCode: 'errorCode',
  /** On a destination queue's messages: the destination they are for. */
  destination: 'destination',
} as const;

export interface EnvelopeInput {
  provider: string;
  dedupKey: string;
  deliveryId?: string;
  eventType?: string;
  contentType?: string;
  payloadSha256: string;
  body: Buffer;
  /** Set when the body went to S3. */
  dataref?: string;
  receivedAtMs: number;
  occurredAtMs?: number;
}

export function buildEnvelope(input: EnvelopeInput): Envelope {
  return {
    specversion: '1.0',
    id: `${input.provider}:${input.dedupKey}`,
    source: `webhook-inbox/${input.provider}`,
    type: input.eventType ?? UNKNOWN_EVENT_TYPE,
    time: new Date(input.receivedAtMs).toISOString(),
    datacontenttype: input.contentType ?? 'application/octet-stream',
    ...(input.dataref === undefined
      ? { data_base64: input.body.toString('base64') }
      : { dataref: input.dataref }),
    provider: input.provider,
    dedupkey: input.dedupKey,
    ...(input.deliveryId === undefined ? {} : { deliveryid: input.deliveryId }),
    ...(input.occurredAtMs === undefined ? {} : { occurredat: new Date(input.occurredAtMs).toISOString() }),
    payloadsha256: input.payloadSha256,
    payloadbytes: input.body.length,
  };
}

// SQS accepts only these characters in message text (its documented XML character set). An event type
// is sender-chosen text (a JSON field, or GitHub's unsigned X-GitHub-Event header), so anything outside
// it would make SendMessage fail on every retry: a 503 the provider can never get past.
const SQS_DISALLOWED = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const NON_ASCII = /[\u0080-\uFFFF]/g;

/**
 * The message body: the envelope's JSON with every non-ASCII character written as a \u escape. JSON.parse
 * gives back exactly the same strings, and the body is plain ASCII whatever the sender put in it.
 */
export function serializeEnvelope(envelope: Envelope): string {
  return JSON.stringify(envelope).replace(
    NON_ASCII,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * SQS message attributes for filtering and DLQ tooling. Values must be non-empty strings. Characters SQS
 * refuses become U+FFFD here only: the envelope in the body keeps the exact text.
 */
export function envelopeAttributes(envelope: Envelope): Record<string, string> {
  const text = (value: string) => value.replace(SQS_DISALLOWED, '\uFFFD');
  return {
    [MESSAGE_ATTRIBUTES.provider]: envelope.provider,
    [MESSAGE_ATTRIBUTES.eventType]: text(envelope.type),
    [MESSAGE_ATTRIBUTES.dedupKey]: text(envelope.dedupkey),
  };
}

/** Where large bodies live in the payload bucket (the archive has `archive/`, core/archive.ts). */
export const PAYLOADS_PREFIX = 'payloads/';

/** Content-addressed S3 key for a large body. */
export function payloadKey(provider: string, payloadSha256: string): string {
  return `${PAYLOADS_PREFIX}${provider}/${payloadSha256}`;
}

const PAYLOAD_REF_SCHEME = 's3://';

/** The envelope's `dataref` for an object in the payload bucket. */
export function payloadRef(bucket: string, key: string): string {
  return `${PAYLOAD_REF_SCHEME}${bucket}/${key}`;
}

/**
 * The key a `dataref` names, only in our own bucket: a message naming another one is forged or misrouted,
 * and is never fetched. Throws InvalidPayloadRefError.
 */
export function payloadKeyOfRef(bucket: string, ref: string): string {
  const prefix = payloadRef(bucket, '');
  if (!ref.startsWith(prefix) || ref.length === prefix.length) throw new InvalidPayloadRefError(ref);
  return ref.slice(prefix.length);
}
