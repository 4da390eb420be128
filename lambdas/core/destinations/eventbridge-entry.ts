// The PutEvents entry for one delivery to an EventBridge bus: who sent it (Source), what it is
// (DetailType), and the event with the delivery's facts (Detail), within the limits EventBridge documents
// (API reference, PutEvents and PutEventsRequestEntry; user guide, "Calculating PutEvents event entry
// size"). Pure: the adapter writes the S3 object an oversize entry points at.
import type { Envelope } from '../envelope';
import { UNKNOWN_EVENT_TYPE } from '../envelope';
import type { OutboundDelivery } from './ports';

/** The largest entry PutEvents takes, measured by `entrySize`; also the most one request may carry. */
export const MAX_ENTRY_BYTES = 262_144;
/** Entries per PutEvents request. */
export const MAX_ENTRIES_PER_REQUEST = 10;
/** DetailType: 1 to 128 characters. */
export const MAX_DETAIL_TYPE_LENGTH = 128;
/** PutEvents processes nested JSON only this many levels deep; the Detail's own object is one of them. */
export const MAX_DETAIL_DEPTH = 1100;
/** The documented entry-size formula counts a Time of any value as this many bytes. */
const TIME_BYTES = 14;

export interface EventBridgeEntry {
  EventBusName: string;
  Source: string;
  DetailType: string;
  Detail: string;
  Time: Date;
}

/** What a rule matches the sender on: `webhook-inbox.<provider>` (a provider id is `[a-z0-9-]`, never `aws.`). */
export function eventBridgeSource(provider: string): string {
  return `webhook-inbox.${provider}`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is being replaced.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const TRUNCATED = '\u2026';

/**
 * The event type as EventBridge takes it: 1 to 128 characters (counted here in UTF-16 units, which is
 * never fewer than any other count of them), cut to 127 and marked with `…` when longer; text that cannot
 * be UTF-8 (a lone surrogate) or that a rule could not match on sight (control characters) becomes U+FFFD.
 * The verify side only accepts types of letters, digits and `._:/@+=-`, up to 256 long, so in practice
 * only the length ever applies. The exact type is always in `detail.delivery.eventType`.
 */
export function eventBridgeDetailType(eventType: string): string {
  const text = (eventType === '' ? UNKNOWN_EVENT_TYPE : eventType)
    .replace(LONE_SURROGATE, '\uFFFD')
    .replace(CONTROL, '\uFFFD');
  if (text.length <= MAX_DETAIL_TYPE_LENGTH) return text;
  let end = MAX_DETAIL_TYPE_LENGTH - TRUNCATED.length;
  // Never split a surrogate pair: half of one is a lone surrogate.
  if (/[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end -= 1;
  return `${text.slice(0, end)}${TRUNCATED}`;
}

/** The delivery's facts, as every consumer of the bus sees them whatever the body was. */
export interface DeliveryFacts {
  provider: string;
  eventType: string;
  dedupKey: string;
  deliveryId?: string;
  /** ISO-8601, the envelope's `time`. */
  receivedAt: string;
  occurredAt?: string;
  payloadSha256: string;
  payloadBytes: number;
  /** The same for every attempt and redrive of the delivery: what a consumer deduplicates on. */
  webhookId: string;
  /** The body's content type, for a consumer decoding `body_base64` or the object behind `eventRef`. */
  contentType: string;
}

export function deliveryFacts(envelope: Envelope, webhookId: string): DeliveryFacts {
  return {
    provider: envelope.provider,
    eventType: envelope.type,
    dedupKey: envelope.dedupkey,
    ...(envelope.deliveryid === undefined ? {} : { deliveryId: envelope.deliveryid }),
    receivedAt: envelope.time,
    ...(envelope.occurredat === undefined ? {} : { occurredAt: envelope.occurredat }),
    payloadSha256: envelope.payloadsha256,
    payloadBytes: envelope.payloadbytes,
    webhookId,
    contentType: envelope.datacontenttype,
  };
}

// JSON text must be UTF-8 (RFC 8259); a leading byte order mark is dropped, as parseJson does.
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
// Over text JSON.parse accepted: a string (skipped whole, so nothing inside it counts), a number (whole,
// so a fraction's or an exponent's digits are never read as an integer of their own), or a bracket.
const JSON_TOKENS = /"[^"\\]*(?:\\.[^"\\]*)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[[{]|[\]}]/g;
const INTEGER = /^-?\d+$/;

/**
 * Whether EventBridge takes this JSON text as it is: integers within int64 (PutEvents refuses others) and
 * nesting that stays within MAX_DETAIL_DEPTH once inside the Detail object.
 */
function withinPutEventsLimits(text: string): boolean {
  let depth = 0;
  for (const [token] of text.matchAll(JSON_TOKENS)) {
    const first = token.charAt(0);
    if (first === '{' || first === '[') {
      depth += 1;
      if (depth + 1 > MAX_DETAIL_DEPTH) return false;
    } else if (first === '}' || first === ']') {
      depth -= 1;
    } else if (INTEGER.test(token)) {
      const value = BigInt(token);
      if (value < INT64_MIN || value > INT64_MAX) return false;
    }
  }
  return true;
}

/**
 * The body as JSON text to put in the Detail verbatim, or undefined if it is not JSON EventBridge takes.
 * Verbatim, not parsed and serialized again: JSON.parse rounds integers beyond 2^53 (ids, amounts in
 * minor units), and the consumer must see the numbers the provider sent.
 */
function detailJson(body: Buffer): string | undefined {
  let text: string;
  try {
    text = STRICT_UTF8.decode(body);
    JSON.parse(text);
  } catch {
    return undefined;
  }
  return withinPutEventsLimits(text) ? text : undefined;
}

/**
 * The Detail: `{"event": <the body's JSON>, "delivery": {...}}`; a body that is not JSON EventBridge takes
 * (a Slack form, binary) as `body_base64`; with `eventRef`, the `s3://` reference of the body instead of
 * it (the entry would be over MAX_ENTRY_BYTES otherwise).
 */
export function eventBridgeDetail(delivery: OutboundDelivery, eventRef?: string): string {
  const facts = JSON.stringify(deliveryFacts(delivery.envelope, delivery.webhookId));
  if (eventRef !== undefined) return `{"eventRef":${JSON.stringify(eventRef)},"delivery":${facts}}`;
  const json = detailJson(delivery.body);
  if (json !== undefined) return `{"event":${json},"delivery":${facts}}`;
  return `{"body_base64":${JSON.stringify(delivery.body.toString('base64'))},"delivery":${facts}}`;
}

/**
 * The entry for one delivery. `bus` is the bus's name or ARN. `Time` is when the inbox received the
 * delivery, so every attempt and redrive of it carries the same time.
 */
export function eventBridgeEntry(
  delivery: OutboundDelivery,
  bus: string,
  eventRef?: string,
): EventBridgeEntry {
  const { envelope } = delivery;
  return {
    EventBusName: bus,
    Source: eventBridgeSource(envelope.provider),
    DetailType: eventBridgeDetailType(envelope.type),
    Detail: eventBridgeDetail(delivery, eventRef),
    Time: new Date(envelope.time),
  };
}

const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * The entry's size as EventBridge counts it: 14 bytes for a Time, the UTF-8 bytes of Source, DetailType,
 * Detail and each of Resources. The bus name is not counted.
 */
export function entrySize(entry: {
  Source: string;
  DetailType: string;
  Detail?: string;
  Time?: Date;
  Resources?: readonly string[];
}): number {
  return (
    (entry.Time === undefined ? 0 : TIME_BYTES) +
    utf8Bytes(entry.Source) +
    utf8Bytes(entry.DetailType) +
    (entry.Detail === undefined ? 0 : utf8Bytes(entry.Detail)) +
    (entry.Resources ?? []).reduce((sum, resource) => sum + utf8Bytes(resource), 0)
  );
}

export function fitsOneEntry(entry: EventBridgeEntry): boolean {
  return entrySize(entry) <= MAX_ENTRY_BYTES;
}
