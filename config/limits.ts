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
