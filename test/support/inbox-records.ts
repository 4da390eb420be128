// Inbox records written straight to a table, as the claim and the processor's transitions leave them,
// index keys included: for listing tests and the bench's list-cost table, which need thousands of records
// in given states and times without sending thousands of deliveries.
import { BatchWriteItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { listAttributes } from '../../config/list-index';
import { toAttributes, toInboxItem } from '../../lambdas/adapters/inbox-item';
import type { InboxRecord, InboxStatus } from '../../lambdas/core/inbox';

const BATCH = 25;
/** 2100-01-01. */
const FAR_FUTURE_SECONDS = 4_102_444_800;

export function inboxRecord(r: {
  provider: string;
  dedupKey: string;
  receivedMs: number;
  status: InboxStatus;
  deliveryId?: string;
}): InboxRecord {
  return {
    pk: `${r.provider}#${r.dedupKey}`,
    provider: r.provider,
    dedupKey: r.dedupKey,
    ...(r.deliveryId === undefined ? {} : { deliveryId: r.deliveryId }),
    eventType: 'test.event',
    payloadSha256: 'a'.repeat(64),
    status: r.status,
    receivedAt: new Date(r.receivedMs).toISOString(),
    attempts: r.status === 'failed' || r.status === 'dead-lettered' ? 1 : 0,
    // Live whatever the clock says: operator reads leave an expired record out (core/inbox.ts isExpired).
    expiresAt: FAR_FUTURE_SECONDS,
  };
}

/** BatchWriteItem, `concurrency` batches of 25 at a time, retrying what DynamoDB leaves unprocessed. */
export async function writeRecords(
  client: DynamoDBClient,
  tableName: string,
  records: readonly InboxRecord[],
  options: { index?: boolean; concurrency?: number } = {},
): Promise<void> {
  const batches: InboxRecord[][] = [];
  for (let i = 0; i < records.length; i += BATCH) batches.push(records.slice(i, i + BATCH));
  const worker = async () => {
    for (let batch = batches.pop(); batch; batch = batches.pop()) {
      let requests = batch.map((record) => ({
        PutRequest: {
          Item: {
            ...toInboxItem(record),
            ...(options.index === false ? {} : toAttributes(listAttributes(record))),
          },
        },
      }));
      while (requests.length > 0) {
        const answer = await client.send(
          new BatchWriteItemCommand({ RequestItems: { [tableName]: requests } }),
        );
        requests = (answer.UnprocessedItems?.[tableName] ?? []) as typeof requests;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
}
