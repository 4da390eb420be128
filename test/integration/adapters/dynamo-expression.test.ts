// The lifecycle's transitions decided twice, for random records: by DynamoDB (dynalite, through the real
// SDK client, from the rendered expressions) and by the in-memory evaluation the core and the
// interleaving checker use. Both must allow or refuse alike and leave the same item.
import { randomUUID } from 'node:crypto';
import {
  type AttributeValue,
  ConditionalCheckFailedException,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { renderTransition, renderWrite } from '../../../lambdas/adapters/dynamo-expression';
import { BINARY_ATTRIBUTES } from '../../../lambdas/adapters/inbox-item';
import { applyUpdate, holds, type StoredItem } from '../../../lambdas/core/lifecycle/evaluate';
import {
  all,
  any,
  type Condition,
  eq,
  missing,
  not,
  type StoredValue,
  type Update,
} from '../../../lambdas/core/lifecycle/expression';
import {
  OPERATOR_LEASE_MARGIN_MS,
  STATUSES,
  type Status,
  TRANSITIONS,
} from '../../../lambdas/core/lifecycle/transitions';
import { useEmulators } from '../../support/emulators';
import { Rng } from '../../support/rng';

const env = useEmulators();

const SEED = Number(process.env.LIFECYCLE_SEED ?? 20261202);
const CASES_PER_TRANSITION = 32;
const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const T0_SEC = Math.floor(T0 / 1000);
const iso = (ms: number) => new Date(ms).toISOString();
const DAY = 86_400_000;
const SHA = ['a'.repeat(64), 'b'.repeat(64)];
const TYPES = [undefined, 'unknown', 'push', 'issues'];
const TOKENS = [undefined, 'tok-1', 'tok-2'];
const MESSAGES = ['m-1', 'm-2', 'm-3'];
const FORWARD = 'forward:hooks';
const HISTORIES = [
  undefined,
  '{"state":"delivered","destination":"hooks","attempts":1}',
  '{"state":"retrying","destination":"hooks","attempts":2}',
];

/** A record as the transitions meet it: every attribute drawn from a small pool of telling values. */
function randomRecord(rng: Rng, pk: string): Record<string, StoredValue> {
  const pick = <T>(values: readonly T[]) => rng.pick(values);
  const fields: Record<string, StoredValue | undefined> = {
    pk,
    provider: 'github',
    dedupKey: pk.slice(pk.indexOf('#') + 1),
    status: pick(STATUSES),
    payloadSha256: pick(SHA),
    eventType: pick(TYPES),
    claimToken: pick(TOKENS),
    processingToken: pick(TOKENS),
    leaseUntil: pick([
      undefined,
      0,
      T0 - 1,
      T0 + 1,
      T0 - OPERATOR_LEASE_MARGIN_MS - 1,
      T0 - OPERATOR_LEASE_MARGIN_MS + 1,
    ]),
    expiresAt: pick([T0_SEC - 1, T0_SEC, T0_SEC + 1000]),
    dedupUntil: pick([undefined, T0_SEC - 1, T0_SEC + 1]),
    deadLetterMessageId: pick([undefined, ...MESSAGES]),
    givenUpMessageIds: pick([undefined, ['m-1'], ['m-1', 'm-2']]),
    deadLetteredAt: pick([undefined, iso(T0 - 2 * DAY), iso(T0)]),
    failedAt: pick([undefined, iso(T0 - 5 * DAY), iso(T0)]),
    enqueuedAt: pick([undefined, iso(T0 - 5 * DAY), iso(T0)]),
    redrivenAt: pick([undefined, iso(T0 - 5 * DAY), iso(T0)]),
    lastReplayedAt: pick([undefined, iso(T0 - 5 * DAY), iso(T0)]),
    receivedAt: pick([iso(T0 - 10 * DAY), iso(T0)]),
    attempts: rng.int(4),
    attemptLog: pick([undefined, [], ['a'], ['a', 'b', 'c']]),
    lastErrorDetail: pick([undefined, 'field: invalid_type']),
    forwardedAt: pick([undefined, iso(T0)]),
    replays: pick([undefined, 1]),
    replayToken: pick([undefined, 'replay-1']),
    archivedAt: pick([undefined, iso(T0)]),
    archiveBody: pick([undefined, Buffer.from('{"a":1}').toString('base64')]),
    listKey: pick([undefined, 'github#1', 'github#failed#1']),
    listSort: pick([undefined, `${iso(T0)}#${pk}`]),
    [FORWARD]: pick(HISTORIES),
  };
  return Object.fromEntries(Object.entries(fields).filter((entry) => entry[1] !== undefined)) as Record<
    string,
    StoredValue
  >;
}

/** A write for each transition, with parameters drawn from the same pools as the records. */
function randomWrite(rng: Rng, name: keyof typeof TRANSITIONS, record: Record<string, StoredValue>) {
  const pk = record.pk as string;
  const nowMs = rng.pick([T0, T0 + 1, T0 - 1]);
  const token = rng.pick(['tok-1', 'tok-2']);
  const messageId = rng.pick(MESSAGES);
  const seen: Record<string, StoredValue> & { pk: string; payloadSha256: string; status: Status } = {
    ...record,
    pk,
    payloadSha256: rng.pick(SHA),
    status: record.status as Status,
  };
  if (rng.chance(0.3)) seen[FORWARD] = rng.pick(HISTORIES.filter((h) => h !== undefined));
  const t = TRANSITIONS;
  switch (name) {
    case 'claim':
      return {
        put: true,
        condition: t.claim.condition({ nowMs, payloadSha256: rng.pick(SHA), eventType: rng.pick(TYPES) }),
      };
    case 'ownClaim':
    case 'release':
      return write(t[name], { claimToken: token });
    case 'lease':
      return write(t.lease, {
        pk,
        token,
        messageId,
        receiveCount: rng.range(1, 3),
        payloadSha256: rng.pick(SHA),
        eventType: rng.pick(['unknown', 'push']),
        nowMs,
        leaseMs: 60_000,
        seed: { provider: 'github', dedupKey: 'k', payloadSha256: rng.pick(SHA), expiresAt: T0_SEC + 99 },
        ...(rng.chance(0.5)
          ? {
              archive: {
                archivedAt: iso(nowMs),
                archiveContentType: 'application/json',
                archiveBody: 'e30=',
              },
            }
          : {}),
      });
    case 'trimAttempts':
      return write(t.trimAttempts, { token, length: rng.pick([0, 1, 3]), excess: rng.range(1, 2) });
    case 'markProcessed':
    case 'markForwarded':
      return write(t[name], { token, nowMs });
    case 'markArchived':
      return write(t.markArchived, {
        token,
        facts: { archivedAt: iso(nowMs), archiveContentType: 'application/json', archiveRef: 's3://b/k' },
      });
    case 'releaseLease':
      return write(t.releaseLease, { token });
    case 'markFailed':
      return write(t.markFailed, {
        pk,
        token,
        errorCode: 'http_503',
        nowMs,
        receiveCount: rng.pick([undefined, 2]),
        keepToken: rng.chance(0.5),
      });
    case 'markProcessedLate':
      return write(t.markProcessedLate, { pk, token, nowMs });
    case 'markDeadLettered':
      return write(t.markDeadLettered, {
        pk,
        token,
        errorCode: 'schema_mismatch',
        nowMs,
        messageId,
        ...(rng.chance(0.5) ? { errorDetail: 'age: invalid_type' } : {}),
      });
    case 'markRequeued':
      return write(t.markRequeued, { pk, nowMs, movedSinceMs: rng.pick([T0 - DAY, T0 + DAY]) });
    case 'noteRedriven':
      return write(t.noteRedriven, { nowMs });
    case 'markReplayed':
      return write(t.markReplayed, {
        seen,
        nowMs,
        token: 'replay-2',
        strandedBeforeMs: nowMs - 4 * DAY,
        ...(rng.chance(0.5) ? { by: 'arn:aws:iam::123456789012:user/ops' } : {}),
      });
    case 'ownReplay':
      return write(t.ownReplay, { token: rng.pick(['replay-1', 'replay-2']) });
    case 'unmarkReplayed':
      return write(t.unmarkReplayed, { seen, replayedAtMs: rng.pick([T0, T0 - 5 * DAY]) });
    case 'reindex':
      return write(t.reindex, { pk, status: rng.pick(STATUSES), receivedAt: iso(T0) });
    case 'recordForward': {
      const delivered = rng.chance(0.4);
      return write(t.recordForward, {
        attribute: FORWARD,
        state: delivered
          ? (HISTORIES[1] as string)
          : `{"state":"retrying","destination":"hooks","attempts":${rng.range(1, 4)}}`,
        delivered,
        ...(rng.chance(0.5) ? { expect: { previous: rng.pick(HISTORIES) } } : {}),
      });
    }
  }
}

function write<P>(transition: { condition(p: P): Condition; update(p: P): Update }, params: P) {
  return {
    put: false,
    condition: transition.condition(params),
    update: transition.update(params),
    params,
    transition,
  };
}

function fromItem(item: Record<string, AttributeValue> | undefined): StoredItem | undefined {
  if (!item) return undefined;
  const out: Record<string, StoredValue> = {};
  for (const [name, value] of Object.entries(item)) {
    if (value.S !== undefined) out[name] = value.S;
    else if (value.N !== undefined) out[name] = Number(value.N);
    else if (value.L !== undefined) out[name] = value.L.map((entry) => entry.S as string);
    else if (value.SS !== undefined) out[name] = [...value.SS].sort();
    else if (value.B !== undefined) out[name] = Buffer.from(value.B).toString('base64');
  }
  return out;
}

function toItem(record: Record<string, StoredValue>): Record<string, AttributeValue> {
  const item: Record<string, AttributeValue> = {};
  for (const [name, value] of Object.entries(record)) {
    if (typeof value === 'number') item[name] = { N: String(value) };
    else if (typeof value === 'string')
      item[name] = BINARY_ATTRIBUTES.has(name) ? { B: Buffer.from(value, 'base64') } : { S: value };
    else if (name === 'givenUpMessageIds') item[name] = { SS: [...value] };
    else item[name] = { L: value.map((entry) => ({ S: entry })) };
  }
  return item;
}

interface Outcome {
  applied: boolean;
  disagreement?: string;
}

/** One case: the record put, the write sent, both decisions compared. */
async function runCase(name: string, rng: Rng): Promise<Outcome> {
  const { dynamodb } = env.clients;
  const TableName = env.resources.tableName;
  const pk = `github#${randomUUID()}`;
  // One case in eight has no record at all.
  const record = rng.chance(0.125) ? undefined : randomRecord(rng, pk);
  const before = record ? (fromItem(toItem(record)) as StoredItem) : undefined;
  const chosen = randomWrite(rng, name as keyof typeof TRANSITIONS, record ?? { pk, status: 'claimed' });
  const newRecord = {
    pk,
    status: 'claimed',
    payloadSha256: SHA[0] as string,
    receivedAt: iso(T0),
    expiresAt: T0_SEC + 60,
  };
  const memoryAllows = holds(chosen.condition, before);
  const memoryAfter = !memoryAllows
    ? before
    : chosen.put
      ? newRecord
      : applyUpdate(before, { pk }, (chosen as { update: Update }).update);
  if (record) await dynamodb.send(new PutItemCommand({ TableName, Item: toItem(record) }));
  let dynamoAllows = true;
  try {
    if (chosen.put) {
      await dynamodb.send(
        new PutItemCommand({
          TableName,
          Item: toItem(newRecord),
          ...renderWrite({ condition: chosen.condition }),
        }),
      );
    } else {
      const w = chosen as ReturnType<typeof write>;
      await dynamodb.send(
        new UpdateItemCommand({
          TableName,
          Key: { pk: { S: pk } },
          ...renderTransition(w.transition, w.params),
        }),
      );
    }
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    dynamoAllows = false;
  }
  const { Item } = await dynamodb.send(
    new GetItemCommand({ TableName, Key: { pk: { S: pk } }, ConsistentRead: true }),
  );
  const dynamoAfter = fromItem(Item);
  if (dynamoAllows !== memoryAllows)
    return {
      applied: dynamoAllows,
      disagreement: `${name}: dynamo ${dynamoAllows}, memory ${memoryAllows} on ${JSON.stringify(before)}`,
    };
  if (JSON.stringify(sorted(dynamoAfter)) !== JSON.stringify(sorted(memoryAfter)))
    return {
      applied: dynamoAllows,
      disagreement: `${name}: items differ: dynamo ${JSON.stringify(sorted(dynamoAfter))} memory ${JSON.stringify(sorted(memoryAfter))}`,
    };
  return { applied: dynamoAllows };
}

function sorted(item: StoredItem | undefined) {
  return item && Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : 1)));
}

const tally = { cases: 0, applied: 0 };

describe('lifecycle: DynamoDB and the in-memory evaluation decide every transition alike', () => {
  const names = Object.keys(TRANSITIONS) as (keyof typeof TRANSITIONS)[];
  // One generator for the whole file, drawn in a fixed order, so the seed names every case.
  const rng = new Rng(SEED);

  afterAll(() => {
    console.log(`lifecycle property: ${tally.cases} cases, ${tally.applied} applied (seed ${SEED})`);
  });

  it.each(names)(
    `%s: ${CASES_PER_TRANSITION} random records, the same allow or refuse and the same item`,
    async (name) => {
      const outcomes = await Promise.all(
        Array.from({ length: CASES_PER_TRANSITION }, () => runCase(name, rng)),
      );
      tally.cases += outcomes.length;
      tally.applied += outcomes.filter((o) => o.applied).length;
      expect(outcomes.flatMap((o) => (o.disagreement ? [o.disagreement] : []))).toEqual([]);
    },
  );

  it('exercised both outcomes over every case, so the agreement is not a run of refusals', () => {
    expect(tally.cases).toBe(names.length * CASES_PER_TRANSITION);
    expect(tally.applied).toBeGreaterThan(tally.cases / 5);
    expect(tally.cases - tally.applied).toBeGreaterThan(tally.cases / 5);
  }, 120_000);
});

/**
 * A random tree of all/any/not over three small attributes. The renderer writes only the parentheses
 * DynamoDB's precedence needs (NOT, then AND, then OR), so any tree it could regroup shows up here.
 */
function randomTree(rng: Rng, depth: number): Condition {
  if (depth === 0 || rng.chance(0.25)) {
    const path = rng.pick(['a', 'b', 'c']);
    return rng.chance(0.2) ? missing(path) : eq(path, rng.int(2));
  }
  const kind = rng.int(3);
  if (kind === 2) return not(randomTree(rng, depth - 1));
  const members = Array.from({ length: 1 + rng.int(3) }, () => randomTree(rng, depth - 1));
  return kind === 0 ? all(...members) : any(...members);
}

describe('rendering: the fewest parentheses keep the grouping the kernel wrote', () => {
  const TREES = 64;
  it(`${TREES} random all/any/not trees: DynamoDB and the in-memory evaluation decide alike`, async () => {
    const rng = new Rng(SEED + 1);
    const { dynamodb } = env.clients;
    const TableName = env.resources.tableName;
    let allowed = 0;
    const disagreements: string[] = [];
    await Promise.all(
      Array.from({ length: TREES }, async () => {
        const pk = `tree#${randomUUID()}`;
        const record: Record<string, StoredValue> = { pk };
        for (const path of ['a', 'b', 'c']) if (rng.chance(0.8)) record[path] = rng.int(2);
        const tree = randomTree(rng, 4);
        const expected = holds(tree, record as StoredItem);
        await dynamodb.send(new PutItemCommand({ TableName, Item: toItem(record) }));
        const rendered = renderWrite({
          condition: tree,
          update: { set: [], remove: [], add: [{ path: 'n', value: 1 }] },
        });
        const decided = await dynamodb
          .send(new UpdateItemCommand({ TableName, Key: { pk: { S: pk } }, ...rendered }))
          .then(
            () => true,
            (error) => {
              if (error instanceof ConditionalCheckFailedException) return false;
              throw new Error(`${rendered.ConditionExpression}: ${error}`);
            },
          );
        if (decided) allowed++;
        if (decided !== expected)
          disagreements.push(
            `${rendered.ConditionExpression} on ${JSON.stringify(record)}: dynamo ${decided}`,
          );
      }),
    );
    expect(disagreements).toEqual([]);
    expect(allowed).toBeGreaterThan(TREES / 5);
    expect(TREES - allowed).toBeGreaterThan(TREES / 5);
  }, 120_000);
});
