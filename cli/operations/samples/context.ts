// What a sample builder gets: the signing time, and two kinds of ids. `stable` ids are derived from the
// delivery's token, so the same token gives the same ids (the selftest builds "same id, different body"
// that way); `fresh` values are random on every call, so no two sample bodies are alike.
import { createHash, randomBytes } from 'node:crypto';

export const HEX = '0123456789abcdef';
export const DIGITS = '0123456789';
export const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const LOWER_ALNUM = '0123456789abcdefghijklmnopqrstuvwxyz';
export const UPPER_ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export interface SampleContext {
  /** The signing time; bodies that carry a time use it, so a stale sample is stale throughout. */
  readonly nowSeconds: number;
  readonly nowMs: number;
  /** The id the provider sends in a header with this delivery (signed or metadata). */
  readonly deliveryId: string;
  /** The URL the sample is sent to, for bodies that mention their endpoint. */
  readonly url: string;
  /** The same for the same token and label. */
  stable(label: string, length: number, alphabet?: string): string;
  /** Random on every call. */
  fresh(length: number, alphabet?: string): string;
  /** A UUID: stable when a label is given, else random. */
  uuid(label?: string): string;
  /** An ISO-8601 time, `offsetSeconds` from the signing time. */
  iso(offsetSeconds?: number): string;
  /** One of the items, at random. */
  pick<T>(items: readonly T[]): T;
}

export interface Sample {
  body: unknown;
  /** The event type a header-typed scheme sends (GitHub's X-GitHub-Event, Shopify's topic). */
  eventType?: string;
  /** Headers the provider sends besides the signed ones (shop domain, API version, ...). */
  headers?: Record<string, string>;
}

export interface SchemeSamples {
  defaultEvent: string;
  /** The id the provider puts in a header for this delivery, from the delivery's stable ids. */
  deliveryId(ids: Pick<SampleContext, 'stable' | 'uuid'>): string;
  events: Readonly<Record<string, (ctx: SampleContext) => Sample>>;
}

function fromBytes(bytes: Buffer, length: number, alphabet: string): string {
  let text = '';
  for (const byte of bytes) {
    if (text.length === length) break;
    text += alphabet[byte % alphabet.length];
  }
  return text;
}

function derived(token: string, label: string, length: number, alphabet: string): string {
  let bytes = Buffer.alloc(0);
  for (let round = 0; bytes.length < length; round++) {
    bytes = Buffer.concat([bytes, createHash('sha256').update(`${token}:${label}:${round}`).digest()]);
  }
  return fromBytes(bytes, length, alphabet);
}

function asUuid(hex: string): string {
  const variant = HEX[8 + (Number.parseInt(hex[16] as string, 16) % 4)];
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export function stableIds(token: string): Pick<SampleContext, 'stable' | 'uuid'> {
  const stable = (label: string, length: number, alphabet = ALNUM) => derived(token, label, length, alphabet);
  return {
    stable,
    uuid: (label?: string) =>
      asUuid(label === undefined ? randomBytes(16).toString('hex') : stable(label, 32, HEX)),
  };
}

export function sampleContext(input: {
  token: string;
  nowMs: number;
  deliveryId: string;
  url: string;
}): SampleContext {
  const ids = stableIds(input.token);
  return {
    ...ids,
    nowMs: input.nowMs,
    nowSeconds: Math.floor(input.nowMs / 1000),
    deliveryId: input.deliveryId,
    url: input.url,
    fresh: (length, alphabet = ALNUM) => fromBytes(randomBytes(length), length, alphabet),
    iso: (offsetSeconds = 0) => new Date(input.nowMs + offsetSeconds * 1000).toISOString(),
    pick: (items) => items[(randomBytes(1)[0] ?? 0) % items.length] as (typeof items)[number],
  };
}
