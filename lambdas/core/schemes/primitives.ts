// Building blocks every scheme shares: strict header, timestamp, signature and secret parsing, and the
// constant-time comparison. Each returns a reason code instead of throwing.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { RejectReason } from '../reasons';
import type { HeaderMap, WebhookRequest } from './types';

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: RejectReason };

const fail = (reason: RejectReason): { ok: false; reason: RejectReason } => ({ ok: false, reason });

/**
 * The single value of a header. A header sent twice is refused: with two signature headers a proxy or an
 * attacker could make us check one copy while a downstream consumer trusts the other.
 */
export function singleHeader(headers: HeaderMap, name: string): Parsed<string> {
  const value = headers[name];
  if (value === undefined) return fail('missing_header');
  if (typeof value === 'string') return value === '' ? fail('missing_header') : { ok: true, value };
  if (value.length !== 1) return value.length === 0 ? fail('missing_header') : fail('repeated_header');
  const only = value[0] as string;
  return only === '' ? fail('missing_header') : { ok: true, value: only };
}

/** Like `singleHeader`, for metadata headers that may be absent. A repeated one is still refused. */
export function optionalHeader(headers: HeaderMap, name: string): Parsed<string | undefined> {
  if (headers[name] === undefined) return { ok: true, value: undefined };
  return singleHeader(headers, name);
}

const UNIX_SECONDS = /^\d{1,10}$/;

/**
 * Strict Unix seconds: digits only, at most 10 of them. `1.7e9`, `-5`, ` 17`, `1700000000abc` and
 * millisecond values are malformed, unlike `parseInt`, which would accept several of them.
 */
export function parseUnixSeconds(text: string): Parsed<number> {
  return UNIX_SECONDS.test(text) ? { ok: true, value: Number(text) } : fail('malformed_timestamp');
}

/** Rejects a timestamp outside the window, in either direction. */
export function checkFreshness(
  timestamp: number,
  nowSeconds: number,
  toleranceSeconds: number,
): RejectReason | undefined {
  if (nowSeconds - timestamp > toleranceSeconds) return 'stale_timestamp';
  if (timestamp - nowSeconds > toleranceSeconds) return 'future_timestamp';
  return undefined;
}

/** Parses and checks a strict Unix-seconds header in one step. */
export function freshTimestamp(
  headers: HeaderMap,
  name: string,
  nowSeconds: number,
  toleranceSeconds: number,
): Parsed<number> {
  const header = singleHeader(headers, name);
  if (!header.ok) return header;
  const parsed = parseUnixSeconds(header.value);
  if (!parsed.ok) return parsed;
  const stale = checkFreshness(parsed.value, nowSeconds, toleranceSeconds);
  return stale ? fail(stale) : parsed;
}

// Printable ASCII without space, '.' (which separates fields in the signed content) or ',' (a function URL
// joins a repeated header with commas, so two ids would otherwise pass as one).
const DELIVERY_ID = /^[\x21-\x2b\x2d\x2f-\x7e]{1,255}$/;

/** A delivery or message id used as a dedup key or inside signed content. */
export function parseDeliveryId(text: string): Parsed<string> {
  return DELIVERY_ID.test(text) ? { ok: true, value: text } : fail('malformed_id');
}

// What providers send as event types: `pull_request`, `orders/create`, `customer.subscription.updated`,
// `IssueLabel`, Slack's `/command` (in any script: `/天気`). Letters and digits of any script, combining
// marks, and `._:/@+=-`: no space, comma (a front door joins a repeated header with `, `), quote, control
// or format character (C0, C1, bidirectional overrides, zero-width), at most 256 characters. The first
// cannot be `=`, `+`, `-` or `@`, which a spreadsheet reading an export of the deliveries would take for a
// formula.
const EVENT_TYPE = /^[\p{L}\p{N}_/][\p{L}\p{M}\p{N}._:/@+=-]{0,255}$/u;

/**
 * An event type as the sender wrote it, whether a header (unsigned) or a body field says it. It goes to
 * logs, the terminal, the inbox record and the queue message, so anything else is refused.
 */
export function parseEventType(text: string): Parsed<string> {
  return EVENT_TYPE.test(text) ? { ok: true, value: text } : fail('bad_event_type');
}

/** The value at a path in parsed JSON, or undefined; arrays are not walked into. */
export function valueAt(value: unknown, path: readonly string[]): unknown {
  let node = value;
  for (const segment of path) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** The non-empty string at a path in parsed JSON, or undefined. */
export function stringAt(value: unknown, path: readonly string[]): string | undefined {
  const node = valueAt(value, path);
  return typeof node === 'string' && node.length > 0 ? node : undefined;
}

// JSON text must be UTF-8 (RFC 8259): a body with invalid sequences is not JSON, even where replacing them
// with U+FFFD would let it parse.
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

export function parseJson(body: Buffer): Parsed<unknown> {
  try {
    return { ok: true, value: JSON.parse(STRICT_UTF8.decode(body)) };
  } catch {
    return fail('not_json');
  }
}

/**
 * The event id a provider puts inside the signed body (Stripe's `id`, Paddle's `notification_id`), with
 * the parsed body so it is parsed once. Call it only after the signature matched: from there a bad body
 * is authentic but unusable (400), not a forgery.
 */
export function signedEventId(body: Buffer, path: readonly string[]): Parsed<{ id: string; json: unknown }> {
  const json = parseJson(body);
  if (!json.ok) return json;
  const id = stringAt(json.value, path);
  if (id === undefined || !DELIVERY_ID.test(id)) return fail('missing_event_id');
  return { ok: true, value: { id, json: json.value } };
}

const HEX = /^[0-9a-fA-F]+$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Decodes a hex or base64 signature strictly, or returns undefined. Node's decoders silently skip bad
 * characters and stop at odd lengths, so the text is checked first; the decoded length is checked by the
 * caller against the digest length.
 */
export function decodeSignature(
  text: string,
  encoding: 'hex' | 'base64',
  byteLength: number,
): Buffer | undefined {
  if (encoding === 'hex') {
    if (text.length !== byteLength * 2 || !HEX.test(text)) return undefined;
    return Buffer.from(text, 'hex');
  }
  if (text.length !== Math.ceil(byteLength / 3) * 4 || !BASE64.test(text)) return undefined;
  const decoded = Buffer.from(text, 'base64');
  return decoded.length === byteLength ? decoded : undefined;
}

// Short, so that a bare base64 signature ending in '=' is not mistaken for a version tag.
const VERSION_TAG = /^[A-Za-z0-9_-]{1,16}=/;

/**
 * The one signature in a header of the form `<prefix><signature>`. A value tagged with another version
 * (`v1=` where only `v0=` is known) is one we cannot check, not a garbled one: no_supported_signature.
 */
export function prefixedSignature(
  value: string,
  prefix: string,
  encoding: 'hex' | 'base64',
  byteLength: number,
): Parsed<Buffer> {
  if (!value.startsWith(prefix)) {
    return fail(prefix !== '' && VERSION_TAG.test(value) ? 'no_supported_signature' : 'malformed_signature');
  }
  const signature = decodeSignature(value.slice(prefix.length), encoding, byteLength);
  return signature ? { ok: true, value: signature } : fail('malformed_signature');
}

export interface KeyedSignatureFormat {
  /** Lowercase header name. */
  readonly header: string;
  /** Between items: `,` for Stripe, `;` for Paddle. */
  readonly separator: string;
  readonly timestampKey: string;
  /** The one signature version we check; other keys are skipped, as the providers' own libraries do. */
  readonly signatureKey: string;
  /** Between the timestamp and the body in the signed content: `{ts}.{body}` or `{ts}:{body}`. */
  readonly joiner: string;
}

/**
 * Verifies a `t=<ts>,v1=<hex>[,v1=<hex>...]` style header (Stripe, Paddle): HMAC-SHA256 over the
 * timestamp, the joiner and the body. Every well-formed signature is tried, since providers send several
 * while a secret rotates.
 */
export function checkKeyedSignatures(
  request: WebhookRequest,
  secrets: readonly string[],
  format: KeyedSignatureFormat,
  nowSeconds: number,
  toleranceSeconds: number,
): Parsed<{ timestamp: number; secretIndex: number }> {
  const noSecret = checkSecrets(secrets);
  if (noSecret) return fail(noSecret);
  const header = singleHeader(request.headers, format.header);
  if (!header.ok) return header;
  let timestampText: string | undefined;
  let versionSeen = false;
  const candidates: Buffer[] = [];
  for (const item of header.value.split(format.separator)) {
    const eq = item.indexOf('=');
    if (eq < 0) continue;
    const key = item.slice(0, eq);
    if (key === format.timestampKey) {
      // Two timestamps make it ambiguous which one was signed.
      if (timestampText !== undefined) return fail('malformed_timestamp');
      timestampText = item.slice(eq + 1);
    } else if (key === format.signatureKey) {
      versionSeen = true;
      const signature = decodeSignature(item.slice(eq + 1), 'hex', 32);
      if (signature) candidates.push(signature);
    }
  }
  if (timestampText === undefined) return fail('malformed_signature');
  const timestamp = parseUnixSeconds(timestampText);
  if (!timestamp.ok) return timestamp;
  if (candidates.length === 0) return fail(versionSeen ? 'malformed_signature' : 'no_supported_signature');
  const stale = checkFreshness(timestamp.value, nowSeconds, toleranceSeconds);
  if (stale) return fail(stale);

  const parts = [timestampText + format.joiner, request.body];
  const secretIndex = matchAnySecret('sha256', secrets, parts, candidates);
  if (secretIndex < 0) return fail('bad_signature');
  return { ok: true, value: { timestamp: timestamp.value, secretIndex } };
}

/** Constant-time equality; unequal lengths are unequal without calling timingSafeEqual (which throws). */
export function constantTimeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A secret must be non-empty and carry no surrounding whitespace: a trailing newline pasted into a
 * secret store would otherwise make every signature fail, or a blank secret make forgeries trivial.
 */
export function isUsableSecret(secret: unknown): secret is string {
  return typeof secret === 'string' && secret.length > 0 && secret.trim() === secret;
}

/** Fails closed on an empty list or any unusable entry. */
export function checkSecrets(secrets: readonly string[]): RejectReason | undefined {
  if (secrets.length === 0) return 'no_secret';
  for (const secret of secrets) if (!isUsableSecret(secret)) return 'no_secret';
  return undefined;
}

export type HmacAlgorithm = 'sha256' | 'sha512' | 'sha1';

export const DIGEST_BYTES: Record<HmacAlgorithm, number> = { sha256: 32, sha512: 64, sha1: 20 };

/** HMAC over the parts in order, without concatenating them into a new buffer first. */
export function hmac(
  algorithm: HmacAlgorithm,
  key: string | Buffer,
  parts: readonly (string | Buffer)[],
): Buffer {
  const mac = createHmac(algorithm, key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/**
 * True when any secret's MAC over `parts` equals any of the candidate signatures. Returns the index of
 * the matching secret (0 = newest), or -1.
 */
export function matchAnySecret(
  algorithm: HmacAlgorithm,
  keys: readonly (string | Buffer)[],
  parts: readonly (string | Buffer)[],
  candidates: readonly Buffer[],
): number {
  for (let i = 0; i < keys.length; i++) {
    const expected = hmac(algorithm, keys[i] as string | Buffer, parts);
    for (const candidate of candidates) if (constantTimeEqual(expected, candidate)) return i;
  }
  return -1;
}

export function sha256Hex(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex');
}
