// Parses the queue envelope on the processor side. A message that does not parse was not written by the
// verify Lambda (or was edited by hand): it is dead-lettered with `malformed_envelope`, never retried.
import { z } from 'zod';
import type { Envelope } from './envelope';

const SHA256_HEX = /^[0-9a-f]{64}$/;

export const envelopeSchema = z
  .object({
    specversion: z.literal('1.0'),
    id: z.string().min(1),
    source: z.string().startsWith('webhook-inbox/'),
    type: z.string().min(1),
    time: z.iso.datetime(),
    datacontenttype: z.string().min(1),
    data_base64: z.base64().optional(),
    dataref: z.string().startsWith('s3://').optional(),
    provider: z.string().min(1),
    dedupkey: z.string().min(1),
    deliveryid: z.string().optional(),
    occurredat: z.iso.datetime().optional(),
    payloadsha256: z.string().regex(SHA256_HEX),
    payloadbytes: z.number().int().nonnegative(),
  })
  .refine((e) => (e.data_base64 === undefined) !== (e.dataref === undefined), {
    message: 'exactly one of data_base64 and dataref',
  })
  .refine((e) => e.id === `${e.provider}:${e.dedupkey}`, { message: 'id must be {provider}:{dedupkey}' });

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
