// What the two SQS-fed Lambdas (processor, forwarder) share about a batch answer.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

/**
 * Every record a failure: SQS keeps them all. What was done is skipped on the next receive (the
 * processor's processed mark, the forwarder's delivered history), so nothing runs twice because of it.
 */
export function allRecordsFailed(event: SQSEvent | undefined): SQSBatchResponse {
  return { batchItemFailures: (event?.Records ?? []).map((r) => ({ itemIdentifier: r.messageId })) };
}

/** Raised to Powertools batch so it reports the record as failed; the real code is already logged. */
export class RetryLater extends Error {
  override name = 'RetryLater';
}
