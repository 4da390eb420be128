// The SQS double's own tests: each receive semantics it claims, against fauxqs through real SDK clients,
// with the probabilities at 0 or 1 so each test proves one behaviour whatever the seed.
import { ReceiveMessageCommand, SetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { createAwsClients } from '../../../lambdas/adapters/clients';
import { SqsQueueOps } from '../../../lambdas/adapters/sqs-queue-ops';
import { useEmulators } from '../../support/emulators';
import { installStrictSqs, type StrictSqsOptions, strictSqsSeed } from '../../support/strict-sqs';

const ctx = useEmulators();
const NONE = { shortPollEmpty: 0, fewer: 0, withhold: 0, duplicate: 0 };
const opened: SQSClient[] = [];

afterEach(() => {
  for (const client of opened.splice(0)) client.destroy();
});

/** A client with the double, the un-wrapped one the double uses, and a fresh queue holding `count` messages. */
async function setUp(options: Omit<StrictSqsOptions, 'seed'> & { seed?: number }, count: number) {
  const { sqs: client } = createAwsClients(ctx.emulators.clientOptions);
  const { sqs: raw } = createAwsClients(ctx.emulators.clientOptions);
  opened.push(client, raw);
  const double = installStrictSqs(client, raw, { ...NONE, seed: 1, ...options });
  const { queueUrl } = await ctx.provision();
  const plain = new SqsQueueOps(raw);
  for (let i = 0; i < count; i++) await plain.sendRaw(queueUrl, `m${i}`, {});
  return { ops: new SqsQueueOps(client), plain, raw, queueUrl, double };
}

describe('strict SQS double', () => {
  it('answers a short poll empty while messages are visible, and leaves them visible', async () => {
    const { ops, queueUrl, double } = await setUp({ shortPollEmpty: 1 }, 5);
    expect(await ops.receive(queueUrl, { maxMessages: 10, waitSeconds: 0 })).toEqual([]);
    expect(await ctx.countMessages(queueUrl)).toMatchObject({ visible: 5, inFlight: 0 });
    expect(double.stats.emptied).toBe(1);
  });

  it('treats a receive without WaitTimeSeconds on a queue with its own long-poll wait as a long poll', async () => {
    const { raw, queueUrl } = await setUp({ shortPollEmpty: 1 }, 2);
    await raw.send(
      new SetQueueAttributesCommand({
        QueueUrl: queueUrl,
        Attributes: { ReceiveMessageWaitTimeSeconds: '1' },
      }),
    );
    const { sqs: client } = createAwsClients(ctx.emulators.clientOptions);
    opened.push(client);
    // Installed after the attribute was set: the double reads a queue's wait once.
    installStrictSqs(client, raw, { ...NONE, shortPollEmpty: 1, seed: 2 });
    const { Messages: messages = [] } = await client.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }),
    );
    expect(messages.length).toBeGreaterThan(0);
  });

  it('answers a long poll with at least one message, however much it withholds, and keeps the rest visible', async () => {
    const { ops, queueUrl } = await setUp({ fewer: 1, withhold: 1 }, 6);
    const batch = await ops.receive(queueUrl, { maxMessages: 10, waitSeconds: 1, visibilitySeconds: 60 });
    expect(batch).toHaveLength(1);
    expect(await ctx.countMessages(queueUrl)).toMatchObject({ visible: 5, inFlight: 1 });
  });

  it('answers fewer messages than asked for and than are visible', async () => {
    const { ops, queueUrl, double } = await setUp({ fewer: 1 }, 10);
    const batch = await ops.receive(queueUrl, { maxMessages: 10, waitSeconds: 1, visibilitySeconds: 60 });
    expect(batch.length).toBeGreaterThan(0);
    expect(batch.length).toBeLessThan(10);
    expect(double.stats.cut).toBe(1);
  });

  it('counts a withheld receive in ApproximateReceiveCount: the consumer sees a count above its own receives', async () => {
    const { ops, plain, queueUrl } = await setUp({ withhold: 1 }, 1);
    expect(await ops.receive(queueUrl, { waitSeconds: 0 })).toEqual([]);
    const [message] = await plain.receive(queueUrl, { waitSeconds: 1 });
    expect(message?.receiveCount).toBe(2);
  });

  it('hands a message out twice, each copy with its own receipt handle', async () => {
    const { ops, queueUrl, double } = await setUp({ duplicate: 1 }, 1);
    const [first] = await ops.receive(queueUrl, { waitSeconds: 1, visibilitySeconds: 60 });
    const [second] = await ops.receive(queueUrl, { waitSeconds: 1, visibilitySeconds: 60 });
    expect(second?.messageId).toBe(first?.messageId);
    expect(second?.receiptHandle).not.toBe(first?.receiptHandle);
    expect(double.stats.duplicated).toBe(2);
  });

  it('answers out of send order, the same way for the same seed', async () => {
    const order = async (seed: number) => {
      const { ops, queueUrl } = await setUp({ seed }, 10);
      const batch = await ops.receive(queueUrl, { maxMessages: 10, waitSeconds: 1 });
      return batch.map((m) => m.body);
    };
    const sent = Array.from({ length: 10 }, (_, i) => `m${i}`);
    const first = await order(7);
    expect([...first].sort()).toEqual([...sent].sort());
    expect(first).not.toEqual(sent);
    expect(await order(7)).toEqual(first);
  });

  it('reads its seed from STRICT_SQS_SEED, and refuses one that is not a number', () => {
    expect(strictSqsSeed({ STRICT_SQS_SEED: '42' })).toBe(42);
    expect(() => strictSqsSeed({ STRICT_SQS_SEED: 'x' })).toThrow('STRICT_SQS_SEED');
  });
});
