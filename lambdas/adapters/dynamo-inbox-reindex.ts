// Gives the records written before the listing index their index keys, so `deliveries list` finds them
// without `--scan`: one Scan of the table and one conditional UpdateItem per record that has none. Run
// once after upgrading a deployed stack (`webhook-inbox deliveries reindex`); new records get their keys
// from the claim.
import { type DynamoDBClient, ScanCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { LIST_INDEX } from '../../config/list-index';
import type { InboxStatus } from '../core/inbox';
import { TRANSITIONS } from '../core/lifecycle/transitions';
import { callDependency, conditionalWrite } from './dependency-call';
import { renderTransition, STATUS_NAME } from './dynamo-expression';
import { type Item, toAttributes } from './inbox-item';

export interface ReindexSummary {
  /** Items the Scan read. */
  scanned: number;
  /** Records given their index keys. */
  indexed: number;
  /** Records that changed status while this ran: the next run picks them up. */
  skipped: number;
}

export async function reindexInbox(
  client: DynamoDBClient,
  tableName: string,
  onProgress?: (summary: ReindexSummary) => void,
): Promise<ReindexSummary> {
  const summary: ReindexSummary = { scanned: 0, indexed: 0, skipped: 0 };
  let startKey: Item | undefined;
  do {
    const page = await callDependency('dynamodb', 'Scan', () =>
      client.send(
        new ScanCommand({
          TableName: tableName,
          ExclusiveStartKey: startKey,
          // Deliveries only (resource-version items have no status), and only those without the keys.
          FilterExpression: `attribute_exists(#status) AND attribute_not_exists(${LIST_INDEX.sortKey})`,
          ProjectionExpression: 'pk, receivedAt, #status',
          ExpressionAttributeNames: STATUS_NAME,
        }),
      ),
    );
    summary.scanned += page.ScannedCount ?? 0;
    for (const item of page.Items ?? []) {
      const pk = item.pk?.S;
      const receivedAt = item.receivedAt?.S;
      const status = item.status?.S as InboxStatus | undefined;
      if (!pk || !receivedAt || !status) continue;
      // Conditioned on the status read: a record that moved since would get the wrong partition.
      const applied = await conditionalWrite('UpdateItem', () =>
        client.send(
          new UpdateItemCommand({
            TableName: tableName,
            Key: toAttributes({ pk }),
            ...renderTransition(TRANSITIONS.reindex, { pk, status, receivedAt }),
          }),
        ),
      );
      if (applied) summary.indexed += 1;
      else summary.skipped += 1;
    }
    onProgress?.(summary);
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return summary;
}
