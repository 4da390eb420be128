import { sha256Hex } from './primitives';

/** Where a scheme finds the event type: a header (unsigned metadata) or a field path in the JSON body. */
export type EventTypeSource =
  | { readonly header: string }
  | { readonly jsonPath: readonly string[] }
  | { readonly fixed: string };

export type JsonBody = { ok: true; value: unknown } | { ok: false };

/**
 * What a scheme proved about a delivery. The dedup key comes from signed material only.
 *
 * The payload hash and the parsed JSON body are computed on first use, not during verification: checking
 * a 256 KiB signature should cost one HMAC pass, and the pipeline asks for the hash once, when it claims.
 */
export class VerifiedDelivery {
  private sha?: string;
  private parsed?: JsonBody;

  constructor(
    readonly body: Buffer,
    /** How the dedup key is derived: a signed id, or the body hash. */
    private readonly key: { readonly id: string } | 'body-sha256',
    private readonly eventTypeSource: EventTypeSource,
    private readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>,
    /** Provider's delivery id; metadata, possibly unsigned (GitHub's X-GitHub-Delivery). */
    readonly deliveryId: string | undefined,
    /** The signed timestamp, Unix seconds, when the scheme has one. */
    readonly timestamp: number | undefined,
    /** Which secret matched: 0 is the newest. A non-zero index means the sender still uses an old one. */
    readonly secretIndex: number,
    preparsed?: JsonBody,
  ) {
    this.parsed = preparsed;
  }

  get dedupKey(): string {
    return typeof this.key === 'string' ? this.payloadSha256 : this.key.id;
  }

  get payloadSha256(): string {
    this.sha ??= sha256Hex(this.body);
    return this.sha;
  }

  /** The body parsed as JSON, once. */
  json(): JsonBody {
    if (!this.parsed) {
      try {
        this.parsed = { ok: true, value: JSON.parse(this.body.toString('utf8')) };
      } catch {
        this.parsed = { ok: false };
      }
    }
    return this.parsed;
  }

  /** The provider's event type, or undefined when the request does not say. */
  get eventType(): string | undefined {
    const source = this.eventTypeSource;
    if ('fixed' in source) return source.fixed;
    if ('header' in source) {
      const value = this.headers[source.header];
      return typeof value === 'string' ? value : value?.[0];
    }
    const body = this.json();
    if (!body.ok) return undefined;
    return stringAt(body.value, source.jsonPath);
  }
}

/** The string at a path in a parsed JSON value, or undefined. */
export function stringAt(value: unknown, path: readonly string[]): string | undefined {
  let node = value;
  for (const segment of path) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return typeof node === 'string' && node.length > 0 ? node : undefined;
}
