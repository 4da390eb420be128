// ChangeMessageVisibility on its own, for the processor's and the forwarder's backoff: their bundles need
// this one call, not the operators' queue tooling (sqs-queue-ops.ts).
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { callDependency } from './dependency-call';

/** The message reappears after `seconds` (0 to 43 200). */
export async function changeVisibility(
  client: SQSClient,
  queueUrl: string,
  receiptHandle: string,
  seconds: number,
): Promise<void> {
  await callDependency('sqs', 'ChangeMessageVisibility', () =>
    client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: seconds,
      }),
    ),
  );
}
