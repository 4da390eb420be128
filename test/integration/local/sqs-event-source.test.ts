// Local mode's stand-in for Lambda's SQS event source, against SQS's receive semantics (the SQS double):
// a drain must not stop at an answer that only looked empty, and a batch gathered over its batching window
// holds each message once, with the receipt handle SQS honours.
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { createAwsClients } from '../../../lambdas/adapters/clients';
import { SqsQueueOps } from '../../../lambdas/adapters/sqs-queue-ops';
import { SqsEventSource } from '../../../local/sqs-event-source';
import { useEmulators } from '../../support/emulators';
import { installStrictSqs, type StrictSqsOptions } from '../../support/strict-sqs';

const ctx = useEmulators();
const opened: SQSClient[] = [];
afterEach(() => {
  for (const client of opened.splice(0)) client.destroy();
});

async function queueWith(count: number, options: Omit<StrictSqsOptions, 'seed'>) {
  const { sqs: client } = createAwsClients(ctx.emulators.clientOptions);
  const { sqs: raw } = createAwsClients(ctx.emulators.clientOptions);
  opened.push(client, raw);
  // A fixed seed: these tests need the double to do what they are about at least once.
  installStrictSqs(client, raw, { seed: 5, ...options });
  const resources = await ctx.provision();
  for (let i = 0; i < count; i++) await ctx.queueOps.sendRaw(resources.queueUrl, `m${i}`, {});
  return { ops: new SqsQueueOps(client), resources };
}

function sourceFor(
  ops: SqsQueueOps,
  resources: typeof ctx.resources,
  batches: SQSEvent[],
  maxBatchingWindowSeconds: number,
) {
  return new SqsEventSource(ops, {
    queueUrl: resources.queueUrl,
    queueArn: resources.queueArn,
    batchSize: 10,
    maxBatchingWindowSeconds,
    functionTimeoutMs: 30_000,
    handler: async (event) => {
      batches.push(event);
      return { batchItemFailures: [] };
    },
  });
}

describe('local SQS event source on SQS semantics', () => {
  it('drains a queue whose receives answer short or empty: `runOnce` until 0 takes every message', async () => {
    const { ops, resources } = await queueWith(12, {
      shortPollEmpty: 1,
      fewer: 0.5,
      withhold: 0.2,
      duplicate: 0,
    });
    const batches: SQSEvent[] = [];
    const source = sourceFor(ops, resources, batches, 0);
    while ((await source.runOnce()) > 0);
    expect(batches.flatMap((b) => b.Records.map((r) => r.body)).sort()).toEqual(
      Array.from({ length: 12 }, (_, i) => `m${i}`).sort(),
    );
  });

  it('holds each message once in a batch gathered over the batching window, though SQS hands it out twice', async () => {
    const { ops, resources } = await queueWith(6, { duplicate: 0.5, fewer: 1, shortPollEmpty: 0 });
    const batches: SQSEvent[] = [];
    const source = sourceFor(ops, resources, batches, 2);
    source.start();
    await expect.poll(() => batches.length, { timeout: 15_000 }).toBeGreaterThan(0);
    await source.stop();
    for (const batch of batches) {
      const ids = batch.Records.map((r) => r.messageId);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });
});
