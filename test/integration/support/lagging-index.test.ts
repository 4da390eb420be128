// The lagging-index double (test/support/lagging-index.ts) against dynalite: index reads answer from a
// lagged view (missing, old partition, both, neither), the lag is bounded and reproducible from its seed,
// ConsistentRead on an index is refused as DynamoDB refuses it, and stale table reads are opt-in.
import {
  type AttributeValue,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { LIST_INDEX } from '../../../config/list-index';
import { createAwsClients } from '../../../lambdas/adapters/clients';
import { useEmulators } from '../../support/emulators';
import { type LaggingIndex, type LaggingIndexOptions, lagIndex } from '../../support/lagging-index';

const env = useEmulators();
let lagged: LaggingIndex | undefined;
let clientsToClose: { destroy(): void }[] = [];

afterEach(async () => {
  await lagged?.remove();
  lagged = undefined;
  for (const client of clientsToClose) client.destroy();
  clientsToClose = [];
});

/** A fresh table and its own client with the double on it (the file's shared client stays plain). */
async function laggedTable(options: Omit<LaggingIndexOptions, 'tableName'> = {}) {
  const { tableName } = await env.provision();
  const { dynamodb } = createAwsClients(env.emulators.clientOptions);
  clientsToClose.push(dynamodb);
  lagged = lagIndex(dynamodb, { tableName, ...options });
  const put = (pk: string, listKey: string, extra: Record<string, AttributeValue> = {}) =>
    dynamodb.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          pk: { S: pk },
          listKey: { S: listKey },
          listSort: { S: `2026-12-01T00:00:00.000Z#${pk}` },
          deliveryId: { S: `d-${pk}` },
          status: { S: 'received' },
          ...extra,
        },
      }),
    );
  const move = (pk: string, listKey: string) =>
    dynamodb.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: { pk: { S: pk } },
        UpdateExpression: 'SET listKey = :k',
        ExpressionAttributeValues: { ':k': { S: listKey } },
      }),
    );
  const inPartition = async (listKey: string): Promise<string[]> => {
    const { Items } = await dynamodb.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: LIST_INDEX.name,
        KeyConditionExpression: 'listKey = :k',
        ExpressionAttributeValues: { ':k': { S: listKey } },
      }),
    );
    return (Items ?? []).map((item) => item.pk?.S ?? '').sort();
  };
  return { tableName, dynamodb, put, move, inPartition, lag: lagged };
}

describe('the lagging index double', () => {
  it('refuses ConsistentRead on an index, Query and Scan alike, as DynamoDB does; the table still takes it', async () => {
    const { tableName, dynamodb } = await laggedTable();
    const onIndex = { TableName: tableName, IndexName: LIST_INDEX.name, ConsistentRead: true };
    await expect(
      dynamodb.send(
        new QueryCommand({
          ...onIndex,
          KeyConditionExpression: 'listKey = :k',
          ExpressionAttributeValues: { ':k': { S: 'github#0' } },
        }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(dynamodb.send(new ScanCommand(onIndex))).rejects.toMatchObject({
      name: 'ValidationException',
    });
    await expect(
      dynamodb.send(new ScanCommand({ TableName: tableName, ConsistentRead: true })),
    ).resolves.toBeDefined();
  });

  it('leaves a new item out of the index until it catches up; the table has it at once', async () => {
    const { tableName, dynamodb, put, inPartition, lag } = await laggedTable();
    await put('github#a', 'github#0');
    lag.freeze();
    await put('github#b', 'github#0');
    expect(await inPartition('github#0')).toEqual(['github#a']);
    const { Item } = await dynamodb.send(
      new GetItemCommand({ TableName: tableName, Key: { pk: { S: 'github#b' } }, ConsistentRead: true }),
    );
    expect(Item?.pk?.S).toBe('github#b');
    lag.catchUp();
    expect(await inPartition('github#0')).toEqual(['github#a', 'github#b']);
  });

  it('shows a moved item in its old partition, in both, or in neither, as the freeze says', async () => {
    const { put, move, inPartition, lag } = await laggedTable();
    await put('github#a', 'github#0');
    await put('github#b', 'github#0');
    await put('github#c', 'github#0');
    lag.freeze('old');
    await move('github#a', 'github#dead-lettered#0');
    lag.freeze('both');
    await move('github#b', 'github#dead-lettered#0');
    lag.freeze('neither');
    await move('github#c', 'github#dead-lettered#0');
    expect(await inPartition('github#0')).toEqual(['github#a', 'github#b']);
    expect(await inPartition('github#dead-lettered#0')).toEqual(['github#b']);
    lag.catchUp();
    expect(await inPartition('github#0')).toEqual([]);
    expect(await inPartition('github#dead-lettered#0')).toEqual(['github#a', 'github#b', 'github#c']);
  });

  it('keeps a deleted item in the index until the delete propagates', async () => {
    const { tableName, dynamodb, put, inPartition, lag } = await laggedTable();
    await put('github#a', 'github#0');
    lag.freeze();
    await dynamodb.send(new DeleteItemCommand({ TableName: tableName, Key: { pk: { S: 'github#a' } } }));
    expect(await inPartition('github#0')).toEqual(['github#a']);
    lag.catchUp();
    expect(await inPartition('github#0')).toEqual([]);
  });

  it("answers with the index's projection only, and pages by its own LastEvaluatedKey", async () => {
    const { tableName, dynamodb, put } = await laggedTable();
    for (const id of ['a', 'b', 'c']) await put(`github#${id}`, 'github#0');
    const seen: Record<string, AttributeValue>[] = [];
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const page = await dynamodb.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: LIST_INDEX.name,
          KeyConditionExpression: 'listKey = :k',
          ExpressionAttributeValues: { ':k': { S: 'github#0' } },
          ScanIndexForward: false,
          Limit: 2,
          ExclusiveStartKey: startKey,
        }),
      );
      seen.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    expect(seen.map((item) => item.pk?.S)).toEqual(['github#c', 'github#b', 'github#a']);
    expect(Object.keys(seen[0] ?? {}).sort()).toEqual(['deliveryId', 'listKey', 'listSort', 'pk']);
  });

  it('never lags more than maxLagWrites writes, and the same seed lags the same way', async () => {
    const run = async (seed: number) => {
      const { put, inPartition, lag } = await laggedTable({ maxLagWrites: 3, seed });
      const shown: string[][] = [];
      for (let i = 0; i < 12; i++) {
        await put(`github#${String(i).padStart(2, '0')}`, 'github#0');
        const visible = await inPartition('github#0');
        // Everything written 4 or more writes ago has propagated.
        for (let old = 0; old <= i - 4; old++)
          expect(visible).toContain(`github#${String(old).padStart(2, '0')}`);
        shown.push(visible);
      }
      await lag.remove();
      lagged = undefined;
      return shown;
    };
    const first = await run(7);
    expect(await run(7)).toEqual(first);
    // Some read missed a fresh write: the lag is there to be coded against.
    expect(first.some((visible, i) => visible.length < i + 1)).toBe(true);
  });

  it('lags by time on the injected clock', async () => {
    let nowMs = 1_000_000;
    const { put, inPartition } = await laggedTable({ maxLagMs: 2_000, now: () => nowMs, seed: 3 });
    const keys = ['github#a', 'github#b', 'github#c', 'github#d', 'github#e'];
    for (const pk of keys) await put(pk, 'github#0');
    expect((await inPartition('github#0')).length).toBeLessThan(keys.length);
    nowMs += 2_001;
    expect(await inPartition('github#0')).toEqual(keys);
  });

  it('answers eventually consistent table reads from the lagged version only when asked to', async () => {
    const { tableName, dynamodb, put, lag } = await laggedTable({ staleTableReads: true });
    await put('github#a', 'github#0', { status: { S: 'dead-lettered' } });
    lag.freeze();
    await put('github#a', 'github#0', { status: { S: 'processed' } });
    const get = (consistent: boolean) =>
      dynamodb.send(
        new GetItemCommand({
          TableName: tableName,
          Key: { pk: { S: 'github#a' } },
          ConsistentRead: consistent,
        }),
      );
    expect((await get(false)).Item?.status?.S).toBe('dead-lettered');
    expect((await get(true)).Item?.status?.S).toBe('processed');
  });
});
