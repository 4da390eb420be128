import { type Parsed, parseEventType, parseJson, sha256Hex, singleHeader, stringAt } from './primitives';
import type { VerifyOutcome, WebhookRequest } from './types';

export { stringAt } from './primitives';

/** Where a scheme finds the event type: a header (unsigned metadata) or a field path in the JSON body. */
export type EventTypeSource =
  | { readonly header: string }
  | { readonly jsonPath: readonly string[] }
  | { readonly fixed: string }
  /** The first source that yields a type: Linear names it in a header and in the body. */
  | { readonly firstOf: readonly EventTypeSource[] }
  /** A provider's own reading of the body, for bodies that are not always JSON (Slack's forms). */
  | { readonly read: (body: Buffer, json: () => JsonBody) => string | undefined };

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
  private checkedType?: Parsed<string | undefined>;

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
      const parsed = parseJson(this.body);
      this.parsed = parsed.ok ? parsed : { ok: false };
    }
    return this.parsed;
  }

  /**
   * The provider's event type, checked once. A repeated header (`X-GitHub-Event` twice) is refused as any
   * repeated header is, and text that is not a token (parseEventType) is refused rather than logged;
   * `ok` with undefined when the request does not say.
   */
  readEventType(): Parsed<string | undefined> {
    this.checkedType ??= this.resolve(this.eventTypeSource);
    return this.checkedType;
  }

  /** The event type if the request names a usable one. */
  get eventType(): string | undefined {
    const type = this.readEventType();
    return type.ok ? type.value : undefined;
  }

  private resolve(source: EventTypeSource): Parsed<string | undefined> {
    if ('fixed' in source) return { ok: true, value: source.fixed };
    if ('header' in source) {
      const header = singleHeader(this.headers, source.header);
      // An absent or empty header names no type; two copies are refused like two signatures.
      if (!header.ok) return header.reason === 'missing_header' ? UNTYPED : header;
      return parseEventType(header.value);
    }
    if ('firstOf' in source) {
      for (const each of source.firstOf) {
        const type = this.resolve(each);
        if (!type.ok || type.value !== undefined) return type;
      }
      return UNTYPED;
    }
    if ('read' in source) return checked(source.read(this.body, () => this.json()));
    const body = this.json();
    return body.ok ? checked(stringAt(body.value, source.jsonPath)) : UNTYPED;
  }
}

const UNTYPED: Parsed<undefined> = { ok: true, value: undefined };

const checked = (type: string | undefined): Parsed<string | undefined> =>
  type === undefined ? UNTYPED : parseEventType(type);

/**
 * The outcome for a delivery whose dedup key is an event id from its signed body (Stripe, Paddle,
 * Square). The body parsed while reading the id is kept, so it is not parsed again.
 */
export function acceptSignedEvent(
  request: WebhookRequest,
  event: { readonly id: string; readonly json: unknown },
  eventTypeSource: EventTypeSource,
  timestamp: number | undefined,
  secretIndex: number,
): VerifyOutcome {
  const preparsed = { ok: true as const, value: event.json };
  return {
    ok: true,
    delivery: new VerifiedDelivery(
      request.body,
      { id: event.id },
      eventTypeSource,
      request.headers,
      event.id,
      timestamp,
      secretIndex,
      preparsed,
    ),
  };
}
