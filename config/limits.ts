// SQS limits the configuration is checked against, and the margins kept inside them. Shared by the
// schema checks (config/index.ts) and the resource settings (config/resources.ts). Plain constants: the
// processor Lambda imports the resource settings, and importing the schema would build it at cold start.

/** SQS MaximumMessageSize, set explicitly on the queue. */
export const QUEUE_MAX_MESSAGE_BYTES = 1_048_576;

/** The longest SQS keeps a message (MessageRetentionPeriod's maximum). */
export const SQS_MAX_RETENTION_SECONDS = 14 * 86_400;

/** Kept between the retry horizon and the main queue's retention, for processing time and late receives. */
export const RETENTION_MARGIN_SECONDS = 86_400;

/**
 * A given-up message stays in the DLQ at least this long: the DLQ counts its 14 days from the original
 * enqueue, so a long schedule eats into the time an operator has to redrive it.
 */
export const MIN_DLQ_DWELL_SECONDS = 3 * 86_400;

/** The main queue keeps messages at least this long, even with a short retry schedule. */
export const MIN_QUEUE_RETENTION_SECONDS = 4 * 86_400;

/**
 * Lambda's synchronous invoke payload limit, the "6 MB" of its quotas: Lambda refuses a request that is not
 * smaller than 6 291 456 bytes. The front door's whole event must fit, not only the body.
 */
export const LAMBDA_INVOKE_PAYLOAD_MAX_BYTES = 6_291_455;

/**
 * Room kept in the invoke payload for the event around the body, per front door (lib/front-door.ts):
 * - `rest`, `http`: payload format 1.0. API Gateway caps the request line and headers at 10 240 bytes; the
 *   event repeats them (headers and multiValueHeaders, path, resource and requestContext.path, query string
 *   twice), and JSON escaping can double each byte: 4 copies × 2 × 10 240 = 80 KiB, plus 48 KiB for the
 *   request context and the event's own keys.
 * - `function-url`: payload format 2.0 lists headers once, but function URLs document no header-size quota
 *   of their own: a quarter of a MiB for headers, cookies and the request context.
 */
export const FRONT_DOOR_EVENT_MARGIN_BYTES = {
  rest: 128 * 1024,
  http: 128 * 1024,
  'function-url': 256 * 1024,
} as const;

/** The largest body whose base64 (4 bytes per 3, padded) plus `marginBytes` fits Lambda's invoke payload. */
export function largestBase64Body(marginBytes: number): number {
  return Math.floor((LAMBDA_INVOKE_PAYLOAD_MAX_BYTES - marginBytes) / 4) * 3;
}

/**
 * maxBodyBytes' ceiling: the largest body every front door still hands the verify Lambda base64-encoded, so
 * that a body up to it is answered by us (202, or 413 `body_too_large` above the provider's max) and never
 * by Lambda's own payload error. 4 521 981 bytes, set by the function URL's margin.
 */
export const MAX_BODY_BYTES_CEILING = Math.min(
  ...Object.values(FRONT_DOOR_EVENT_MARGIN_BYTES).map(largestBase64Body),
);
