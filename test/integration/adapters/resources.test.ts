// provisionResources against the emulators: the same table key, queue attributes and redrive policy the
// CDK stack declares, created idempotently, and a redrive policy that really moves messages.
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { INBOX_TABLE, queueSettings } from '../../../config/resources';
import { DEFAULT_RESOURCE_NAMES, provisionResources } from '../../../local/resources';
import { uniqueNames, useEmulators } from '../../support/emulators';

// Two retry steps: maxReceiveCount 3, which keeps the redrive test short.
const config = parseConfig({ queue: { retrySchedule: ['1s', '1s'] } });
const env = useEmulators({ config });

async function queueAttributes(queueUrl: string): Promise<Record<string, string>> {
  const { Attributes: attributes = {} } = await env.clients.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }),
  );
  return attributes;
}

describe('provisionResources', () => {
  it('creates the inbox table keyed by pk', async () => {
    const { Table: table } = await env.clients.dynamodb.send(
      new DescribeTableCommand({ TableName: env.resources.tableName }),
    );
    expect(table?.TableStatus).toBe('ACTIVE');
    expect(table?.KeySchema).toEqual([{ AttributeName: INBOX_TABLE.partitionKey, KeyType: 'HASH' }]);
  });

  it('gives the queues the settings the stack uses, with the DLQ as redrive target', async () => {
    const settings = queueSettings(config);
    const main = await queueAttributes(env.resources.queueUrl);
    expect(main).toMatchObject({
      QueueArn: env.resources.queueArn,
      VisibilityTimeout: String(settings.visibilityTimeoutSeconds),
      MessageRetentionPeriod: String(settings.retentionSeconds),
      MaximumMessageSize: String(settings.maximumMessageSize),
    });
    expect(JSON.parse(main.RedrivePolicy ?? '{}')).toMatchObject({
      deadLetterTargetArn: env.resources.dlqArn,
      maxReceiveCount: 3,
    });
    const dlq = await queueAttributes(env.resources.dlqUrl);
    expect(dlq).toMatchObject({
      QueueArn: env.resources.dlqArn,
      MessageRetentionPeriod: String(settings.dlqRetentionSeconds),
    });
    expect(dlq.RedrivePolicy).toBeUndefined();
  });

  it('creates the payload bucket', async () => {
    await expect(
      env.clients.s3.send(new HeadBucketCommand({ Bucket: env.resources.bucketName })),
    ).resolves.toBeDefined();
  });

  it('is idempotent: a second run (a --data-dir restart) finds the same resources', async () => {
    const names = uniqueNames();
    const first = await provisionResources(env.clients, config, names);
    expect(await provisionResources(env.clients, config, names)).toEqual(first);
  });

  it('brings an existing queue to a changed config instead of failing', async () => {
    const names = uniqueNames();
    await provisionResources(env.clients, config, names);
    const changed = parseConfig({ queue: { retrySchedule: ['1s', '1s', '1s', '1s', '1s', '1s'] } });
    const resources = await provisionResources(env.clients, changed, names);
    const main = await queueAttributes(resources.queueUrl);
    expect(JSON.parse(main.RedrivePolicy ?? '{}')).toMatchObject({ maxReceiveCount: 7 });
  });

  it('uses the webhook-inbox-* names by default', async () => {
    const resources = await provisionResources(env.clients, config);
    expect(resources).toMatchObject({
      tableName: DEFAULT_RESOURCE_NAMES.tableName,
      bucketName: DEFAULT_RESOURCE_NAMES.bucketName,
    });
    expect(resources.queueUrl.endsWith(`/${DEFAULT_RESOURCE_NAMES.queueName}`)).toBe(true);
    expect(resources.dlqArn.endsWith(`:${DEFAULT_RESOURCE_NAMES.dlqName}`)).toBe(true);
  });

  it('moves a message to the DLQ after maxReceiveCount receives', async () => {
    const { queueUrl, dlqUrl } = await env.provision();
    const messageId = await env.queueOps.sendRaw(queueUrl, 'poison', { provider: 'github' });
    for (let receive = 1; receive <= 3; receive++) {
      const [message] = await env.queueOps.receive(queueUrl, { visibilitySeconds: 0 });
      expect(message).toMatchObject({ messageId, receiveCount: receive });
    }
    expect(await env.queueOps.receive(queueUrl)).toEqual([]);
    const [dead] = await env.receiveAll(dlqUrl);
    expect(dead).toMatchObject({ body: 'poison', attributes: { provider: 'github' } });
  });
});
