// Parses the queue envelope on the processor side. A message that does not parse was not written by the
// verify Lambda (or was edited by hand): it is dead-lettered with `malformed_envelope`, never retried.
//
// zod/mini, like the config schema, so the project's own parsing never pulls classic zod in: what classic
// zod costs the processor's cold start is what the event handlers' schemas use, and nothing more.
import * as z from 'zod/mini';
import type { Envelope } from './envelope';
import { parseDeliveryId, parseEventType } from './schemes/primitives';

const SHA256_HEX = /^[0-9a-f]{64}$/;
const nonEmpty = () => z.string().check(z.minLength(1));

export const envelopeSchema = z
  .object({
    specversion: z.literal('1.0'),
    id: nonEmpty(),
    source: z.string().check(z.startsWith('webhook-inbox/')),
    type: nonEmpty(),
    time: z.iso.datetime(),
    datacontenttype: nonEmpty(),
    data_base64: z.optional(z.base64()),
    dataref: z.optional(z.string().check(z.startsWith('s3://'))),
    provider: nonEmpty(),
    dedupkey: nonEmpty(),
    deliveryid: z.optional(z.string()),
    occurredat: z.optional(z.iso.datetime()),
    payloadsha256: z.string().check(z.regex(SHA256_HEX)),
    payloadbytes: z.int().check(z.nonnegative()),
  })
  .check(
    z.refine((e) => (e.data_base64 === undefined) !== (e.dataref === undefined), {
      message: 'exactly one of data_base64 and dataref',
    }),
    z.refine((e) => e.id === `${e.provider}:${e.dedupkey}`, { message: 'id must be {provider}:{dedupkey}' }),
  );

export function parseEnvelope(body: string): Envelope | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  const parsed = envelopeSchema.safeParse(json);
  return parsed.success ? (parsed.data as Envelope) : undefined;
}

/**
 * The receive side's rules for what the envelope carries to handlers, logs and terminals, checked again:
 * a message on the queue that verify did not write (anyone with SendMessage on it can put one there) may
 * name any type or delivery id. The reason code is the one verify answers with.
 */
export function brokenReceiveRule(envelope: Envelope): 'bad_event_type' | 'malformed_id' | undefined {
  if (!parseEventType(envelope.type).ok) return 'bad_event_type';
  if (envelope.deliveryid !== undefined && !parseDeliveryId(envelope.deliveryid).ok) return 'malformed_id';
  return undefined;
}
