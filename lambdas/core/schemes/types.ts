import type { GenericHmacOptions, SchemeName, SquareOptions } from '../../../config/schema';
import type { RejectReason } from '../reasons';
import type { VerifiedDelivery } from './verified-delivery';

/**
 * Request headers with lowercase names. A header sent more than once is an array, so a scheme can refuse
 * a repeated signature header instead of silently using one copy.
 */
export type HeaderMap = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface WebhookRequest {
  /** The exact bytes the provider sent. Never a re-serialized object. */
  readonly body: Buffer;
  readonly headers: HeaderMap;
  /** The URL the request arrived at, for schemes that sign it (Square). */
  readonly url?: string;
}

export type SchemeOptions = GenericHmacOptions | SquareOptions | undefined;

export interface VerifyContext {
  /** Unix seconds from the injected clock. */
  readonly nowSeconds: number;
  /** Accepted skew in both directions. */
  readonly toleranceSeconds: number;
  readonly options?: SchemeOptions;
}

export type Rejected = { readonly ok: false; readonly reason: RejectReason };
export type VerifyOutcome = { readonly ok: true; readonly delivery: VerifiedDelivery } | Rejected;

export interface SignInput {
  readonly body: Buffer;
  readonly secret: string;
  /** Unix seconds; schemes without a signed timestamp ignore it. */
  readonly timestamp: number;
  /** Delivery or message id, for schemes that send one. */
  readonly id: string;
  readonly eventType?: string;
  readonly url?: string;
  readonly options?: SchemeOptions;
}

export interface Scheme {
  readonly name: SchemeName;
  /**
   * Checks signature and timestamp on the raw bytes against every secret (newest first). Never throws for
   * bad input: every rejection is a reason code.
   */
  verify(request: WebhookRequest, secrets: readonly string[], context: VerifyContext): VerifyOutcome;
  /** Signs as the provider would. Returns the headers to send with the body. */
  sign(input: SignInput): Record<string, string>;
  /** A new random secret in the format the provider issues (for local mode and tests). */
  generateSecret(): string;
  /**
   * What the same bytes under another event type than the record's are: a `conflict` (409, the default:
   * a replay through an unsigned type header), or a `duplicate` (200, nothing run) where the provider
   * itself sends one body under several types.
   */
  readonly sameBodyOtherType?: 'conflict' | 'duplicate';
}
