// Every reason a delivery is not accepted, and the one place each maps to an HTTP status.
// Rows follow the Answers table (docs/how-it-works.md).

export const REJECT_STATUS = {
  // 401: the request cannot be shown to be authentic and fresh.
  missing_header: 401,
  repeated_header: 401,
  malformed_signature: 401,
  no_supported_signature: 401,
  bad_signature: 401,
  malformed_timestamp: 401,
  stale_timestamp: 401,
  future_timestamp: 401,
  malformed_id: 401,
  // 400: authentic but unusable.
  missing_event_id: 400,
  not_json: 400,
  // An event type (header or body) that is not a short token: it would reach logs, terminals and the queue.
  bad_event_type: 400,
  // Request shape, decided before any signature work.
  method_not_allowed: 405,
  unknown_provider: 404,
  body_too_large: 413,
  unsupported_media_type: 415,
  // Fail closed: a missing or unusable secret is our configuration error, never "valid".
  no_secret: 500,
  // Square signs the notification URL: without one configured or reported, nothing can be checked.
  no_notification_url: 500,
  // Scheme options that config parsing refuses (e.g. a `{timestamp}` template without a timestamp header).
  bad_scheme_options: 500,
} as const;

export type RejectReason = keyof typeof REJECT_STATUS;

export function statusForReason(reason: RejectReason): number {
  return REJECT_STATUS[reason];
}

/**
 * The reason code of a failing dependency: the same in the verify answer, its log line and the processor's
 * `lastErrorCode` (`dynamodb_unavailable`, `sqs_unavailable`, `s3_unavailable`, `secrets_unavailable`).
 */
export function dependencyReason(dependency: string): string {
  return `${dependency}_unavailable`;
}
