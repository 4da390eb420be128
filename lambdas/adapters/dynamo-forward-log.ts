// The per-destination delivery histories, as one attribute per destination on the delivery's inbox
// record (`forward:<id>`, the state's JSON). A record TTL already deleted gets none: the history lives
// and goes with the delivery it describes.
import { type DynamoDBClient, GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { type ForwardState, forwardAttribute, parseForwardState } from '../core/destinations/forward-state';
import type { ForwardLog, HistoryWrite } from '../core/destinations/ports';
import { callDependency, conditionalWrite } from './dependency-call';
import { toAttributes } from './inbox-item';

export class DynamoForwardLog implements ForwardLog {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async get(pk: string, destinationId: string): Promise<ForwardState | undefined> {
    const attribute = forwardAttribute(destinationId);
    const { Item: item } = await callDependency('dynamodb', 'GetItem', () =>
      this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: toAttributes({ pk }),
          ConsistentRead: true,
          ProjectionExpression: '#forward',
          ExpressionAttributeNames: { '#forward': attribute },
        }),
      ),
    );
    const text = item?.[attribute]?.S;
    return text === undefined ? undefined : parseForwardState(text);
  }

  async put(pk: string, state: ForwardState): Promise<HistoryWrite> {
    // Conditioned on the record existing (an update alone would create a record with nothing but a
    // history), and, for anything but a delivery, on the history not saying delivered: two copies of one
    // delivery may be attempted at once, and the one that failed must not undo the one that got there.
    // The state is the JSON's first key, so the condition can read it.
    const { state: name, ...rest } = state;
    const guarded = name !== 'delivered';
    const written = await conditionalWrite('UpdateItem', () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: toAttributes({ pk }),
          UpdateExpression: 'SET #forward = :state',
          ConditionExpression: guarded
            ? 'attribute_exists(pk) AND (attribute_not_exists(#forward) OR NOT begins_with(#forward, :delivered))'
            : 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#forward': forwardAttribute(state.destination) },
          ExpressionAttributeValues: toAttributes({
            ':state': JSON.stringify({ state: name, ...rest }),
            ':delivered': guarded ? DELIVERED_PREFIX : undefined,
          }),
        }),
      ),
    );
    if (written) return 'written';
    return (await this.get(pk, state.destination))?.state === 'delivered' ? 'delivered' : 'no_record';
  }
}

const DELIVERED_PREFIX = '{"state":"delivered"';
