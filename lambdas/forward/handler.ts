// The forwarder Lambda's entry: the composition root. Filled in with the forwarding pipeline
// (lambdas/core/destinations/forward-record.ts); until then it fails every record, so nothing is lost.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => ({
  batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })),
});
