// The one configuration schema. cdk.json's `webhookInbox` context, local mode, the CLI and the Lambdas
// (through an environment variable) all parse their configuration here.
//
// zod/mini rather than full zod: the verify Lambda parses its config at cold start, and zod/mini keeps
// that bundle small (see `npm run bench`, cold-start section).
import * as z from 'zod/mini';
import { isKnownQueueArn } from '../lambdas/core/destinations/sqs-queue-url';
import { DEFAULT_RETRY_STEPS, DURATION_PATTERN } from '../lambdas/core/retry-schedule';
import { MAX_BODY_BYTES_CEILING } from './limits';

export const SCHEME_NAMES = [
  'github',
  'stripe',
  'standard-webhooks',
  'shopify',
  'slack',
  'mobazha',
  'generic-hmac',
  'zoom',
  'paddle',
  'linear',
  'square',
] as const;
export type SchemeName = (typeof SCHEME_NAMES)[number];

export const PROVIDER_ID_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/** Lambda's invoke payload limit, less base64 and the event around the body (config/limits.ts). */
export const MAX_BODY_BYTES_LIMIT = MAX_BODY_BYTES_CEILING;
/**
 * Largest raw body that may travel inline. base64 inflates by 4/3 and the envelope adds a few hundred
 * bytes plus message attributes, so 700 000 raw bytes stay well under the 1 MiB message limit.
 */
export const MAX_INLINE_LIMIT_BYTES = 700_000;

/** The largest body the archive keeps inside an inbox record (DynamoDB items hold 400 KB). */
export const MAX_ARCHIVE_INLINE_BYTES = 262_144;

const headerName = z.string().check(z.regex(HEADER_NAME));

export const genericHmacOptionsSchema = z.strictObject({
  /** Header that carries the signature, e.g. `X-Webhook-Signature`. */
  signatureHeader: headerName,
  /** Text before the signature value, e.g. `v1=` or `sha256=`. */
  signaturePrefix: z._default(z.string(), ''),
  encoding: z._default(z.enum(['hex', 'base64']), 'hex'),
  algorithm: z._default(z.enum(['sha256', 'sha512', 'sha1']), 'sha256'),
  /** Signed content. Placeholders: `{body}` (required), `{timestamp}`, `{id}`. */
  template: z._default(z.string().check(z.includes('{body}')), '{body}'),
  timestampHeader: z.optional(headerName),
  idHeader: z.optional(headerName),
  /** Where the event type is read: a header, or a top-level field of the JSON body. */
  eventTypeHeader: z.optional(headerName),
  eventTypeField: z.optional(z.string().check(z.minLength(1))),
});
export type GenericHmacOptions = z.output<typeof genericHmacOptionsSchema>;

export const squareOptionsSchema = z.strictObject({
  /**
   * The exact notification URL registered with Square; it is part of the signed content.
   * @default the URL the request arrived at, as the front door reports it
   */
  notificationUrl: z.optional(z.string().check(z.regex(/^https?:\/\/\S+$/))),
});
export type SquareOptions = z.output<typeof squareOptionsSchema>;

export const providerSchema = z.strictObject({
  scheme: z.enum(SCHEME_NAMES),
  /** Scheme options: required for `generic-hmac` and `square`, refused elsewhere. */
  options: z.optional(z.union([genericHmacOptionsSchema, squareOptionsSchema])),
  /** Accepted clock skew, both directions, for schemes with a signed timestamp. */
  toleranceSeconds: z._default(z.number().check(z.int(), z.gte(1), z.lte(86_400)), 300),
  /** Allowed media types (parameters such as charset are ignored). */
  contentTypes: z._default(z.array(z.string().check(z.regex(/^[a-z0-9.+-]+\/[a-z0-9.+*-]+$/))), [
    'application/json',
  ]),
  maxBodyBytes: z._default(z.number().check(z.int(), z.gte(1), z.lte(MAX_BODY_BYTES_LIMIT)), 1_048_576),
  dedupTtlSeconds: z._default(z.number().check(z.int(), z.gte(3600), z.lte(365 * 86_400)), 7 * 86_400),
  /** `ack`: acknowledge and count events with no registered handler. `dlq`: dead-letter them. */
  unknownEvents: z._default(z.enum(['ack', 'dlq']), 'ack'),
  /** Answer 400 to an authentic body that is not JSON. */
  requireJson: z._default(z.boolean(), true),
  /** Import an existing Secrets Manager secret instead of creating one. */
  secretArn: z.optional(
    z.string().check(z.regex(/^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:.+$/)),
  ),
});
export type ProviderConfig = z.output<typeof providerSchema>;

/** A retry step: `30s`, `10m`, `2h`, or whole seconds. Checked against SQS's limits in parseConfig. */
const retryStepSchema = z.union([
  z.number().check(z.int(), z.gte(1)),
  z.string().check(z.regex(DURATION_PATTERN)),
]);

export const queueSchema = z.strictObject({
  /**
   * How long each retry of a failed delivery waits, in order (see lambdas/core/retry-schedule.ts). Each
   * retry waits between half its step and the whole step. maxReceiveCount (steps + 1) and the queue's
   * retention follow from it.
   */
  retrySchedule: z._default(z.array(retryStepSchema).check(z.minLength(1), z.maxLength(999)), [
    ...DEFAULT_RETRY_STEPS,
  ]),
  batchSize: z._default(z.number().check(z.int(), z.gte(1), z.lte(10)), 10),
  maxBatchingWindowSeconds: z._default(z.number().check(z.int(), z.gte(0), z.lte(300)), 0),
});

/** Providers and event types a destination receives. Absent lists match everything. */
export const destinationFilterSchema = z.strictObject({
  /** Provider ids. */
  providers: z.optional(z.array(z.string().check(z.regex(PROVIDER_ID_PATTERN))).check(z.minLength(1))),
  /** Event types; `*` matches any run of characters (`customer.*`, `*.created`, `*`). */
  eventTypes: z.optional(
    z.array(z.string().check(z.minLength(1), z.maxLength(256))).check(z.minLength(1), z.maxLength(100)),
  ),
});

/** What every destination has besides its type's settings. */
const destinationCommon = {
  filter: z._default(destinationFilterSchema, {}),
  /**
   * How long each retry of a failed forward waits, as `queue.retrySchedule` (whose steps are the default):
   * each retry waits a uniform draw between 1 s and the step (full jitter).
   */
  retrySchedule: z.optional(z.array(retryStepSchema).check(z.minLength(1), z.maxLength(999))),
  /**
   * While the destination is disabled (it answered 410 Gone): `wait` keeps its deliveries on its queue
   * until `destinations enable` (at most the queue's 14 days); `dlq` dead-letters them.
   */
  whenDisabled: z._default(z.enum(['wait', 'dlq']), 'wait'),
  /** The most forwarder invocations this destination may take at once (the event source's maximum concurrency). */
  maxConcurrency: z._default(z.number().check(z.int(), z.gte(2), z.lte(1000)), 5),
};

export const httpDestinationSchema = z.strictObject({
  type: z.literal('http'),
  // The forwarder calls it with fetch: a URL the WHATWG parser refuses is a config error now, not a
  // failed delivery later.
  url: z.string().check(
    z.regex(/^https?:\/\/[^\s/?#]+[^\s]*$/),
    z.maxLength(2048),
    z.refine((url) => URL.canParse(url), {
      message: 'not a URL: check the host and the port (at most 65535)',
    }),
  ),
  /**
   * Allows loopback, private, link-local and metadata addresses (a service inside your VPC). Off, the
   * forwarder refuses them after DNS resolution and again at connect time (the SSRF guard).
   */
  internal: z._default(z.boolean(), false),
  connectTimeoutSeconds: z._default(z.number().check(z.int(), z.gte(1), z.lte(30)), 5),
  /** From the request sent to the last byte of the answer's status and headers. */
  responseTimeoutSeconds: z._default(z.number().check(z.int(), z.gte(1), z.lte(30)), 10),
  /** Import an existing Secrets Manager secret (a `whsec_` Standard Webhooks secret) instead of creating one. */
  secretArn: z.optional(
    z.string().check(z.regex(/^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:.+$/)),
  ),
  ...destinationCommon,
});

export const eventBridgeDestinationSchema = z.strictObject({
  type: z.literal('eventbridge'),
  /** An existing bus, by ARN (another account's too). Absent, the stack creates one for the inbox. */
  busArn: z.optional(
    z.string().check(z.regex(/^arn:aws[a-z-]*:events:[a-z0-9-]+:\d{12}:event-bus\/[\w.\-/]+$/)),
  ),
  ...destinationCommon,
});

export const sqsDestinationSchema = z.strictObject({
  type: z.literal('sqs'),
  /** An existing queue, by ARN, in this account or another (its policy must let the forwarder send). */
  queueArn: z.string().check(
    z.refine(isKnownQueueArn, {
      message:
        'an SQS queue ARN (arn:<partition>:sqs:<region>:<account>:<name>) in aws, aws-us-gov, aws-cn, aws-iso or aws-iso-b',
    }),
  ),
  ...destinationCommon,
});

/** The typed handlers in `lambdas/events/`, run by the processor itself. */
export const handlersDestinationSchema = z.strictObject({
  type: z.literal('handlers'),
  filter: destinationCommon.filter,
});

export const destinationSchema = z.discriminatedUnion('type', [
  httpDestinationSchema,
  eventBridgeDestinationSchema,
  sqsDestinationSchema,
  handlersDestinationSchema,
]);
export type DestinationConfig = z.output<typeof destinationSchema>;

/**
 * Each destination other than `handlers` has a queue, a DLQ and an event source of its own. Ten is also
 * what Lambda's 4 KB environment holds with room to spare: each http destination's secret ARN travels in
 * it (DESTINATION_RESOURCES), and ten of them at their longest leave the rest of the environment 2.6 KB.
 */
export const MAX_DESTINATIONS = 10;

/** The archive's defaults (docs/configuration.md). 3072: under the crossover in bench/lib/archive-cost.ts. */
export const ARCHIVE_DEFAULTS = { retentionDays: 30, inlineMaxBytes: 3072 } as const;

/**
 * The archive: the raw bytes of every accepted delivery, kept for replay (docs/archive-and-replay.md).
 * Bodies up to `inlineMaxBytes` live in the inbox record itself; larger ones in the payload bucket.
 */
export const archiveSchema = z.strictObject({
  /** Days the bytes (and the record that names them) are kept; 0 keeps none. */
  retentionDays: z._default(z.number().check(z.int(), z.gte(0), z.lte(365)), ARCHIVE_DEFAULTS.retentionDays),
  /**
   * Bodies up to this many bytes are kept in the record; larger ones as an S3 object. Every later write to
   * the record is charged on its size, so inline pays only for small bodies (bench/cost-model.ts). The
   * ceiling keeps a record well under DynamoDB's 400 KB item limit.
   */
  inlineMaxBytes: z._default(
    z.number().check(z.int(), z.gte(0), z.lte(MAX_ARCHIVE_INLINE_BYTES)),
    ARCHIVE_DEFAULTS.inlineMaxBytes,
  ),
});

export const configSchema = z.strictObject({
  providers: z.optional(z.record(z.string().check(z.regex(PROVIDER_ID_PATTERN)), providerSchema)),
  /**
   * Where verified events go. Absent, one `handlers` destination: the typed handlers, as before. Present,
   * only what is listed (list `{ "type": "handlers" }` to keep the handlers too).
   */
  destinations: z.optional(z.record(z.string().check(z.regex(PROVIDER_ID_PATTERN)), destinationSchema)),
  /** Bodies above this many bytes go to S3 and the envelope carries `dataref`. */
  inlineLimitBytes: z._default(
    z.number().check(z.int(), z.gte(1024), z.lte(MAX_INLINE_LIMIT_BYTES)),
    196_608,
  ),
  queue: z._default(queueSchema, {
    retrySchedule: [...DEFAULT_RETRY_STEPS],
    batchSize: 10,
    maxBatchingWindowSeconds: 0,
  }),
  /** How long a warm verify Lambda trusts its cached secrets. */
  secretCacheSeconds: z._default(z.number().check(z.int(), z.gte(0), z.lte(3600)), 300),
  /**
   * How long `ctx.acceptIfNewer` remembers a resource's newest version. Longer than an old event can
   * still arrive: the providers' retries, this inbox's retry schedule and the DLQ's 14 days.
   */
  resourceVersionTtlSeconds: z._default(
    z.number().check(z.int(), z.gte(86_400), z.lte(365 * 86_400)),
    30 * 86_400,
  ),
  /** The claim lease: how long a claimed-but-unmarked delivery blocks a retry. */
  claimLeaseSeconds: z._default(z.number().check(z.int(), z.gte(1), z.lte(900)), 30),
  archive: z._default(archiveSchema, { ...ARCHIVE_DEFAULTS }),
});
export type ConfigInput = z.input<typeof configSchema>;
