// The queue message: a CloudEvents 1.0 structured-mode JSON envelope around the exact raw bytes.
// Built here without zod (the verify hot path); parsed with zod on the processor side (envelope-schema.ts).

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
    payloadsha256: input.payloadSha256,
    payloadbytes: input.body.length,
  };
}

/** SQS message attributes for filtering and DLQ tooling. Values must be non-empty strings. */
export function envelopeAttributes(envelope: Envelope): Record<string, string> {
  return {
    [MESSAGE_ATTRIBUTES.provider]: envelope.provider,
    [MESSAGE_ATTRIBUTES.eventType]: envelope.type,
    [MESSAGE_ATTRIBUTES.dedupKey]: envelope.dedupkey,
  };
}

/** Content-addressed S3 key for a large body. */
export function payloadKey(provider: string, payloadSha256: string): string {
  return `payloads/${provider}/${payloadSha256}`;
}
