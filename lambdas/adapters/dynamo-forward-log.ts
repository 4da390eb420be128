// The per-destination delivery histories, as one attribute per destination on the delivery's inbox
// record (`forward:<id>`, the state's JSON). A record TTL already deleted gets none: the history lives
// and goes with the delivery it describes. The write is the lifecycle's `recordForward` transition.
import { type DynamoDBClient, GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import {
  type ForwardState,
  forwardAttribute,
  parseForwardState,
  serializeForwardState,
} from '../core/destinations/forward-state';
import type { ForwardLog, HistoryWrite } from '../core/destinations/ports';
import { TRANSITIONS } from '../core/lifecycle/transitions';
import { callDependency, conditionalWrite } from './dependency-call';
import { renderTransition } from './dynamo-expression';
import { toAttributes } from './inbox-item';

export class DynamoForwardLog implements ForwardLog {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async get(pk: string, destinationId: string): Promise<ForwardState | undefined> {
    return (await this.read(pk, destinationId)).state;
  }

  async put(
    pk: string,
    state: ForwardState,
    expect?: { previous: ForwardState | undefined },
  ): Promise<HistoryWrite> {
    const delivered = state.state === 'delivered';
    const write = renderTransition(TRANSITIONS.recordForward, {
      attribute: forwardAttribute(state.destination),
      state: serializeForwardState(state),
      delivered,
      // The history as read, as it was stored: a history read and serialized again is the same text.
      ...(expect ? { expect: { previous: expect.previous && serializeForwardState(expect.previous) } } : {}),
    });
    const written = await conditionalWrite('UpdateItem', () =>
      this.client.send(
        new UpdateItemCommand({ TableName: this.tableName, Key: toAttributes({ pk }), ...write }),
      ),
    );
    if (written) return 'written';
    // Which clause refused it: the record gone, a delivery another copy made, or any other write since.
    const now = await this.read(pk, state.destination);
    if (!now.exists) return 'no_record';
    if (now.state?.state === 'delivered' && !delivered) return 'delivered';
    return 'changed';
  }

  private async read(
    pk: string,
    destinationId: string,
  ): Promise<{ exists: boolean; state: ForwardState | undefined }> {
    const attribute = forwardAttribute(destinationId);
    const { Item: item } = await callDependency('dynamodb', 'GetItem', () =>
      this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: toAttributes({ pk }),
          ConsistentRead: true,
          ProjectionExpression: '#pk, #forward',
          ExpressionAttributeNames: { '#pk': 'pk', '#forward': attribute },
        }),
      ),
    );
    const text = item?.[attribute]?.S;
    return { exists: item !== undefined, state: text === undefined ? undefined : parseForwardState(text) };
  }
}
