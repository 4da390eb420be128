// A DynamoDB double for the one thing dynalite gets wrong on purpose: it updates a global secondary index
// at once, where DynamoDB propagates a write to its GSIs asynchronously, so every read of an index is
// eventually consistent (ConsistentRead on an index is a ValidationException). An SDK middleware on a real
// DynamoDBClient records each item's versions as writes through the client land (a consistent GetItem
// after each write), and answers Query and Scan on the table's indexes from a LAGGED view of them: an
// entry may be missing ("not there yet"), show an old version (still in its old partition), or sit in both
// its old and new partitions, or in neither. The view lives in a shadow table on the same emulator with the
// same indexes, so dynalite still evaluates the expressions, pages and limits.
//
// A write's propagation has two halves, as DynamoDB's has when an index key changes: the new entry's put
// and the old entry's delete. Each half is due after a seeded random number of later writes (up to
// `maxLagWrites`) or time on the injected clock (up to `maxLagMs`), whichever comes first; freeze() holds
// the later writes' halves until catchUp(). Optionally (`staleTableReads`) eventually consistent GetItem
// and BatchGetItem on the table answer from the newest version the view holds, as a lagging replica would.
// Only writes made through this client after lagIndex() are seen: attach it before writing.
import {
  type AttributeDefinition,
  type AttributeValue,
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  GetItemCommand,
  type GlobalSecondaryIndexDescription,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import type { MiddlewareClient } from './faults';

type Item = Record<string, AttributeValue>;

export interface LaggingIndexOptions {
  tableName: string;
  /** An index read may miss up to this many of the latest writes. @default no lag by count */
  maxLagWrites?: number;
  /** An index read may miss writes up to this old on `now`. @default no lag by time */
  maxLagMs?: number;
  /** @default Date.now */
  now?: () => number;
  /** Every lag drawn derives from it. @default 1 */
  seed?: number;
  /** Eventually consistent GetItem and BatchGetItem on the table lag too. @default false */
  staleTableReads?: boolean;
}

/** Which halves of a held write's propagation still reach the index while frozen. */
export type Frozen =
  /** Neither: the index shows each item as it was when frozen (in its old partition). */
  | 'old'
  /** The new entries land, the old ones stay: an item whose index key changed is in both partitions. */
  | 'both'
  /** The old entries go, the new ones wait: an item whose index key changed is in neither. */
  | 'neither';

export interface LaggingIndex {
  /** Holds the propagation of every later write (as `frozen` says) until catchUp(). */
  freeze(frozen?: Frozen): void;
  /** Propagates everything written so far and ends a freeze: the index shows the table as it is. */
  catchUp(): void;
  /** Item versions recorded (writes that changed something). */
  readonly writes: number;
  /** Index reads answered from the lagged view. */
  readonly indexReads: number;
  /** Takes the middleware off the client and deletes the shadow table. */
  remove(): Promise<void>;
}

/** Shaped like DynamoDB's own answer to ConsistentRead on a global secondary index. */
export function consistentReadOnIndex(): Error {
  return Object.assign(new Error('Consistent reads are not supported on global secondary indexes'), {
    name: 'ValidationException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });
}

/** mulberry32: each lag drawn is reproducible from the seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** When one half of a write's propagation reaches the index. */
interface Due {
  atWrite: number;
  atMs: number;
  held: boolean;
}

interface Version {
  /** undefined: the item does not exist in this version. */
  item?: Item;
  /** This version's entry put into the index. */
  insert: Due;
  /** The previous version's entry deleted from the index. */
  removePrevious: Due;
}

const ALWAYS: Due = { atWrite: Number.NEGATIVE_INFINITY, atMs: Number.NEGATIVE_INFINITY, held: false };
const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand']);
const BATCH_WRITES = new Set(['BatchWriteItemCommand', 'TransactWriteItemsCommand']);
const VERSION_ATTRIBUTE = 'laggedViewVersion';
const BATCH = 25;

type Next = (args: { input: Record<string, unknown> }) => Promise<{ output: Record<string, unknown> }>;

export function lagIndex(client: DynamoDBClient, options: LaggingIndexOptions): LaggingIndex {
  const { tableName } = options;
  const now = options.now ?? Date.now;
  const random = seeded(options.seed ?? 1);
  const history = new Map<string, Version[]>();
  let writes = 0;
  let indexReads = 0;
  let frozen: Frozen | undefined;
  /** What the shadow table holds: `<pk>\u0000<version>`. */
  const shadowed = new Set<string>();
  const shadowName = `${tableName}-lagged-view`;
  let schema: Promise<Schema> | undefined;
  /** Snapshots and shadow syncs run one at a time, so a later snapshot never records an older state. */
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  const describe = () => {
    schema ??= describeAndShadow(client, tableName, shadowName);
    return schema;
  };

  const draw = (bound: number | undefined) => (bound === undefined ? undefined : random() * (bound + 1));
  function due(hold: boolean): Due {
    const byWrites = draw(options.maxLagWrites);
    const byMs = draw(options.maxLagMs);
    const lagless = byWrites === undefined && byMs === undefined;
    return {
      atWrite: lagless
        ? writes
        : byWrites === undefined
          ? Number.POSITIVE_INFINITY
          : writes + Math.floor(byWrites),
      atMs: byMs === undefined ? Number.POSITIVE_INFINITY : now() + byMs,
      held: hold,
    };
  }
  const applied = (d: Due) => !d.held && (writes >= d.atWrite || now() >= d.atMs);

  /** Records the item as a consistent read finds it now; unchanged states are not a new version. */
  async function snapshot(pkName: string, pk: string, first: boolean): Promise<void> {
    const answer = await client.send(
      new GetItemCommand({ TableName: tableName, Key: { [pkName]: { S: pk } }, ConsistentRead: true }),
    );
    const versions = history.get(pk);
    if (!versions) {
      // Before the first write seen: as the index already has it.
      history.set(pk, [{ item: answer.Item, insert: ALWAYS, removePrevious: ALWAYS }]);
      if (first) return;
    }
    const list = history.get(pk) as Version[];
    const last = list.at(-1);
    if (JSON.stringify(last?.item) === JSON.stringify(answer.Item)) return;
    writes += 1;
    list.push({
      item: answer.Item,
      insert: due(frozen === 'old' || frozen === 'neither'),
      removePrevious: due(frozen === 'old' || frozen === 'both'),
    });
  }

  /**
   * A snapshot that cannot be taken (an injected fault, an emulator down) leaves the history as it was:
   * the double never changes what the write itself answers.
   */
  const record = (pkName: string, pk: string, first: boolean) =>
    serially(() => snapshot(pkName, pk, first)).catch(() => undefined);

  /** The entries the lagged index holds for one item: each visible version, newest first, one per key. */
  function entriesOf(versions: Version[], keyNames: readonly string[]): { version: number; item: Item }[] {
    const inserted: boolean[] = [];
    const removed: boolean[] = [];
    // Per item, propagation is in order: a later half applied means the earlier ones were too.
    let insertSeen = false;
    let removeSeen = false;
    for (let i = versions.length - 1; i >= 0; i--) {
      const v = versions[i] as Version;
      insertSeen ||= applied(v.insert);
      removeSeen ||= applied(v.removePrevious);
      inserted[i] = insertSeen;
      removed[i] = removeSeen;
    }
    const entries: { version: number; item: Item }[] = [];
    const positions = new Set<string>();
    for (let i = versions.length - 1; i >= 0; i--) {
      const item = versions[i]?.item;
      // Version i's entry is deleted by version i + 1's removal half.
      if (!item || !inserted[i] || (i + 1 < versions.length && removed[i + 1])) continue;
      if (keyNames.some((name) => item[name] === undefined)) continue;
      const position = JSON.stringify(keyNames.map((name) => item[name]));
      if (positions.has(position)) continue;
      positions.add(position);
      entries.push({ version: i, item });
    }
    return entries;
  }

  /** Brings the shadow table to the lagged view, as of now. */
  async function syncShadow(s: Schema): Promise<void> {
    const wanted = new Map<string, Item>();
    for (const [pk, versions] of history) {
      for (const { version, item } of entriesOf(versions, s.indexKeyNames)) {
        wanted.set(`${pk}\u0000${version}`, { ...item, [VERSION_ATTRIBUTE]: { N: String(version) } });
      }
    }
    const requests: Record<string, unknown>[] = [];
    for (const [id, item] of wanted) if (!shadowed.has(id)) requests.push({ PutRequest: { Item: item } });
    for (const id of shadowed) {
      if (wanted.has(id)) continue;
      const [pk, version] = id.split('\u0000') as [string, string];
      requests.push({
        DeleteRequest: { Key: { [s.pkName]: { S: pk }, [VERSION_ATTRIBUTE]: { N: version } } },
      });
    }
    for (let i = 0; i < requests.length; i += BATCH) {
      let batch = requests.slice(i, i + BATCH);
      while (batch.length > 0) {
        const answer = await client.send(
          new BatchWriteItemCommand({ RequestItems: { [shadowName]: batch } } as never),
        );
        batch = (answer.UnprocessedItems?.[shadowName] ?? []) as typeof batch;
      }
    }
    shadowed.clear();
    for (const id of wanted.keys()) shadowed.add(id);
  }

  /** The newest version a lagging replica of the table holds: the newest whose put has propagated. */
  function staleItem(pk: string): { known: boolean; item?: Item } {
    const versions = history.get(pk);
    if (!versions) return { known: false };
    for (let i = versions.length - 1; i >= 0; i--) {
      const v = versions[i] as Version;
      if (applied(v.insert)) return { known: true, item: v.item };
    }
    return { known: true, item: versions[0]?.item };
  }

  const name = `lagging-index-${tableName}`;
  (client as unknown as MiddlewareClient).middlewareStack.add(
    (next: Next, context: { commandName?: string }) => async (args: { input: Record<string, unknown> }) => {
      const command = context.commandName ?? '';
      const input = args.input;
      if ((command === 'QueryCommand' || command === 'ScanCommand') && input.TableName === tableName) {
        if (input.IndexName !== undefined) {
          if (input.ConsistentRead === true) throw consistentReadOnIndex();
          const s = await describe();
          await serially(() => syncShadow(s));
          indexReads += 1;
          const answer = await next({ ...args, input: { ...input, TableName: shadowName } });
          return { ...answer, output: asIndexAnswer(answer.output, s, String(input.IndexName), tableName) };
        }
        return next(args);
      }
      if (options.staleTableReads && input.ConsistentRead !== true) {
        if (
          command === 'GetItemCommand' &&
          input.TableName === tableName &&
          input.ProjectionExpression === undefined
        ) {
          const s = await describe();
          const pk = (input.Key as Item)[s.pkName]?.S ?? '';
          const stale = staleItem(pk);
          if (stale.known) return { output: { $metadata: {}, ...(stale.item ? { Item: stale.item } : {}) } };
          return next(args);
        }
        if (command === 'BatchGetItemCommand')
          return staleBatchGet(next, args, describe, staleItem, tableName);
      }
      if (WRITES.has(command) && input.TableName === tableName) {
        const s = await describe();
        const pk = keyOf(command, input, s.pkName);
        if (pk === undefined) return next(args);
        if (!history.has(pk)) await record(s.pkName, pk, true);
        try {
          return await next(args);
        } finally {
          await record(s.pkName, pk, false);
        }
      }
      if (BATCH_WRITES.has(command)) {
        const s = await describe();
        const pks = batchKeysOf(command, input, tableName, s.pkName);
        if (pks.length === 0) return next(args);
        for (const pk of pks) if (!history.has(pk)) await record(s.pkName, pk, true);
        try {
          return await next(args);
        } finally {
          for (const pk of pks) await record(s.pkName, pk, false);
        }
      }
      return next(args);
    },
    { step: 'initialize', name, priority: 'high' },
  );

  return {
    freeze(how: Frozen = 'old') {
      frozen = how;
    },
    catchUp() {
      frozen = undefined;
      for (const versions of history.values()) {
        for (const v of versions) {
          v.insert = ALWAYS;
          v.removePrevious = ALWAYS;
        }
      }
    },
    get writes() {
      return writes;
    },
    get indexReads() {
      return indexReads;
    },
    async remove() {
      client.middlewareStack.remove(name);
      if (schema) {
        await schema;
        await client.send(new DeleteTableCommand({ TableName: shadowName })).catch(() => undefined);
      }
    },
  };
}

interface Schema {
  pkName: string;
  /** Per index: the attributes its entries carry (keys and projection); undefined for ALL. */
  projections: Map<string, Set<string> | undefined>;
  /** Every index's key attributes: an entry exists in an index only where its item has them. */
  indexKeyNames: string[];
}

/** The table's key and indexes, and a shadow table with the same indexes, keyed by item and version. */
async function describeAndShadow(
  client: DynamoDBClient,
  tableName: string,
  shadowName: string,
): Promise<Schema> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  const keySchema = Table?.KeySchema ?? [];
  if (keySchema.length !== 1) throw new Error('lagIndex: only tables keyed by a partition key alone');
  const pkName = keySchema[0]?.AttributeName as string;
  const indexes: GlobalSecondaryIndexDescription[] = Table?.GlobalSecondaryIndexes ?? [];
  const projections = new Map<string, Set<string> | undefined>();
  const indexKeyNames = new Set<string>();
  for (const index of indexes) {
    const keys = (index.KeySchema ?? []).map((k) => k.AttributeName as string);
    for (const key of keys) indexKeyNames.add(key);
    const projection = index.Projection?.ProjectionType;
    projections.set(
      index.IndexName as string,
      projection === 'ALL'
        ? undefined
        : new Set([
            pkName,
            ...keys,
            ...(projection === 'INCLUDE' ? (index.Projection?.NonKeyAttributes ?? []) : []),
          ]),
    );
  }
  const definitions: AttributeDefinition[] = [
    ...(Table?.AttributeDefinitions ?? []),
    { AttributeName: VERSION_ATTRIBUTE, AttributeType: 'N' },
  ];
  await client.send(
    new CreateTableCommand({
      TableName: shadowName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: definitions,
      KeySchema: [
        { AttributeName: pkName, KeyType: 'HASH' },
        { AttributeName: VERSION_ATTRIBUTE, KeyType: 'RANGE' },
      ],
      ...(indexes.length === 0
        ? {}
        : {
            GlobalSecondaryIndexes: indexes.map((index) => ({
              IndexName: index.IndexName,
              KeySchema: index.KeySchema,
              Projection: { ProjectionType: 'ALL' },
            })),
          }),
    }),
  );
  await waitUntilTableExists(
    { client, maxWaitTime: 30, minDelay: 1, maxDelay: 1 },
    { TableName: shadowName },
  );
  return { pkName, projections, indexKeyNames: [...indexKeyNames] };
}

/** The shadow table's answer as the real index would give it: its projection, the real table's name. */
function asIndexAnswer(
  output: Record<string, unknown>,
  s: Schema,
  indexName: string,
  tableName: string,
): Record<string, unknown> {
  const projected = s.projections.get(indexName);
  const items = output.Items as Item[] | undefined;
  const consumed = output.ConsumedCapacity as { TableName?: string } | undefined;
  return {
    ...output,
    ...(items === undefined
      ? {}
      : {
          Items: items.map((item) =>
            Object.fromEntries(
              Object.entries(item).filter(
                ([attribute]) =>
                  attribute !== VERSION_ATTRIBUTE && (projected === undefined || projected.has(attribute)),
              ),
            ),
          ),
        }),
    ...(consumed === undefined ? {} : { ConsumedCapacity: { ...consumed, TableName: tableName } }),
  };
}

function keyOf(command: string, input: Record<string, unknown>, pkName: string): string | undefined {
  const source = command === 'PutItemCommand' ? (input.Item as Item) : (input.Key as Item);
  return source?.[pkName]?.S;
}

function batchKeysOf(
  command: string,
  input: Record<string, unknown>,
  tableName: string,
  pkName: string,
): string[] {
  const pks: (string | undefined)[] = [];
  if (command === 'BatchWriteItemCommand') {
    const requests = (input.RequestItems as Record<string, Record<string, { Item?: Item; Key?: Item }>[]>)?.[
      tableName
    ];
    for (const request of requests ?? []) {
      pks.push(request.PutRequest?.Item?.[pkName]?.S ?? request.DeleteRequest?.Key?.[pkName]?.S);
    }
  } else {
    type Op = { TableName?: string; Item?: Item; Key?: Item };
    for (const op of (input.TransactItems as Record<string, Op | undefined>[]) ?? []) {
      const write = op.Put ?? op.Update ?? op.Delete;
      if (write?.TableName === tableName) pks.push((write.Item ?? write.Key)?.[pkName]?.S);
    }
  }
  return [...new Set(pks.filter((pk): pk is string => pk !== undefined))];
}

/** BatchGetItem with the lagged table's keys answered from the stale replica; other tables go through. */
async function staleBatchGet(
  next: Next,
  args: { input: Record<string, unknown> },
  describe: () => Promise<Schema>,
  staleItem: (pk: string) => { known: boolean; item?: Item },
  tableName: string,
) {
  const requestItems = args.input.RequestItems as Record<
    string,
    { Keys?: Item[]; ConsistentRead?: boolean; ProjectionExpression?: string }
  >;
  const ours = requestItems?.[tableName];
  if (!ours || ours.ConsistentRead === true || ours.ProjectionExpression !== undefined) return next(args);
  const s = await describe();
  const answered: Item[] = [];
  const unknown: Item[] = [];
  for (const key of ours.Keys ?? []) {
    const stale = staleItem(key[s.pkName]?.S ?? '');
    if (!stale.known) unknown.push(key);
    else if (stale.item) answered.push(stale.item);
  }
  const rest = { ...requestItems };
  if (unknown.length > 0) rest[tableName] = { ...ours, Keys: unknown };
  else delete rest[tableName];
  const real =
    Object.keys(rest).length === 0
      ? { output: { $metadata: {}, Responses: {} as Record<string, Item[]> } }
      : await next({ ...args, input: { ...args.input, RequestItems: rest } });
  const responses = { ...((real.output.Responses as Record<string, Item[]>) ?? {}) };
  responses[tableName] = [...(responses[tableName] ?? []), ...answered];
  return { ...real, output: { ...real.output, Responses: responses } };
}
