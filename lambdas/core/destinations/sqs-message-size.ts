// A target queue's size limit, and the envelope that fits under it. SQS refuses a message above the queue's
// MaximumMessageSize (1 KiB to 1 MiB, the owner's choice); an inline envelope carries its body as base64,
// a third larger than the body, so a queue smaller than the inbox's own can refuse an envelope whose body
// is under inlineLimitBytes. That envelope then goes in its claim-check form, `dataref`, as the inbox's
// own queue carries bodies over inlineLimitBytes. Pure.
import type { Envelope } from '../envelope';

/** SQS's own bounds on MaximumMessageSize. */
export const SQS_MIN_MESSAGE_BYTES = 1_024;
export const SQS_MAX_MESSAGE_BYTES = 1_048_576;

/**
 * A message's size as SQS counts it against MaximumMessageSize: the body's bytes, and each message
 * attribute's name, data type (`String`) and value.
 */
export function sqsMessageBytes(body: string, attributes: Readonly<Record<string, string>>): number {
  let total = Buffer.byteLength(body);
  for (const [name, value] of Object.entries(attributes)) {
    total += Buffer.byteLength(name) + Buffer.byteLength('String') + Buffer.byteLength(value);
  }
  return total;
}

/**
 * The queue's MaximumMessageSize from a GetQueueAttributes answer; undefined when it is not there or not a
 * whole number within SQS's bounds.
 */
export function maximumMessageSizeOf(
  attributes: Readonly<Record<string, string | undefined>> | undefined,
): number | undefined {
  const raw = attributes?.MaximumMessageSize;
  if (raw === undefined || !/^\d+$/.test(raw)) return undefined;
  const bytes = Number(raw);
  return bytes >= SQS_MIN_MESSAGE_BYTES && bytes <= SQS_MAX_MESSAGE_BYTES ? bytes : undefined;
}

/**
 * The envelope with its body in the payload bucket: `dataref` in place of `data_base64`, where it stood,
 * and nothing else changed.
 */
export function withDataref(envelope: Envelope, dataref: string): Envelope {
  const entries = Object.entries(envelope).map(([key, value]) =>
    key === 'data_base64' ? ['dataref', dataref] : [key, value],
  );
  return { ...Object.fromEntries(entries), dataref } as Envelope;
}

/**
 * The largest body whose inline envelope still fits a queue of `maxMessageBytes`, given the message's size
 * with an empty body (`emptyMessageBytes`: the envelope's other fields and the attributes). The body
 * travels as base64, 4 bytes for each 3; its length in `payloadbytes` takes up to 6 more digits.
 */
export function largestInlineBodyBytes(maxMessageBytes: number, emptyMessageBytes: number): number {
  return Math.max(0, Math.floor((maxMessageBytes - emptyMessageBytes - 6) / 4) * 3);
}
