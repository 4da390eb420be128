// Creates what the CDK stack creates, through the SDK and from the same settings (config/resources.ts), so
// local mode and the tests run against the table keys, queue attributes and redrive policy of a deployment.
// Plain SDK calls rather than the emulators' own setup APIs: the same code works against any endpoint.
import { CreateTableCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  type QueueAttributeName,
  SetQueueAttributesCommand,
} from '@aws-sdk/client-sqs';
import type { Config } from '../config';
import { INBOX_TABLE, queueSettings, redrivePolicyAttribute } from '../config/resources';
import type { AwsClients } from '../lambdas/adapters/clients';
import { isAwsError } from '../lambdas/adapters/dependency-call';

export interface ResourceNames {
  tableName: string;
  queueName: string;
  dlqName: string;
  bucketName: string;
}

export interface ProvisionedResources {
  tableName: string;
  queueUrl: string;
  queueArn: string;
  dlqUrl: string;
  dlqArn: string;
  bucketName: string;
}

export const DEFAULT_RESOURCE_NAMES: ResourceNames = {
  tableName: 'webhook-inbox-inbox',
  queueName: 'webhook-inbox-queue',
  dlqName: 'webhook-inbox-dlq',
  bucketName: 'webhook-inbox-payloads',
};

export type Clients = Pick<AwsClients, 'dynamodb' | 'sqs' | 's3'>;

async function ensureTable(clients: Clients, tableName: string): Promise<void> {
  try {
    await clients.dynamodb.send(
      new CreateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [{ AttributeName: INBOX_TABLE.partitionKey, AttributeType: 'S' }],
        KeySchema: [{ AttributeName: INBOX_TABLE.partitionKey, KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  } catch (error) {
    // Already there: a --data-dir restart.
    if (!isAwsError(error, 'ResourceInUseException')) throw error;
  }
  await waitUntilTableExists(
    { client: clients.dynamodb, maxWaitTime: 60, minDelay: 1, maxDelay: 2 },
    { TableName: tableName },
  );
  // No TTL here: dynalite has no UpdateTimeToLive and never expires items. Nothing depends on it, since the
  // claim condition checks `expiresAt` itself (TTL deletion lags by days on AWS too).
}

/** CreateQueue, or, for a queue that exists with other attributes, SetQueueAttributes. */
export async function ensureQueue(
  clients: Clients,
  queueName: string,
  attributes: Partial<Record<QueueAttributeName, string>>,
): Promise<{ url: string; arn: string }> {
  let url: string | undefined;
  try {
    ({ QueueUrl: url } = await clients.sqs.send(
      new CreateQueueCommand({ QueueName: queueName, Attributes: attributes }),
    ));
  } catch (error) {
    // fauxqs names its errors in the old query-protocol form.
    if (
      !isAwsError(error, 'QueueNameExists', 'QueueAlreadyExists', 'AWS.SimpleQueueService.QueueNameExists')
    ) {
      throw error;
    }
    ({ QueueUrl: url } = await clients.sqs.send(new GetQueueUrlCommand({ QueueName: queueName })));
    await clients.sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: attributes }));
  }
  const { Attributes: created } = await clients.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  if (!url || !created?.QueueArn) throw new Error(`queue ${queueName} has no URL or ARN`);
  return { url, arn: created.QueueArn };
}

async function ensureBucket(clients: Clients, bucketName: string): Promise<void> {
  try {
    await clients.s3.send(new CreateBucketCommand({ Bucket: bucketName }));
  } catch (error) {
    if (!isAwsError(error, 'BucketAlreadyOwnedByYou')) throw error;
  }
  // No lifecycle expiry here (fauxqs does not implement bucket configuration), for payloads/ nor the
  // archive's archive/ (config/resources.ts payloadBucketLifecycle): objects live as long as the emulator,
  // which keeps them in memory only.
}

/** Idempotent: creates what is missing and brings existing queues to the configured attributes. */
export async function provisionResources(
  clients: Clients,
  config: Config,
  names: Partial<ResourceNames> = {},
): Promise<ProvisionedResources> {
  const { tableName, queueName, dlqName, bucketName } = { ...DEFAULT_RESOURCE_NAMES, ...names };
  const settings = queueSettings(config);
  const dlq = await ensureQueue(clients, dlqName, {
    MessageRetentionPeriod: String(settings.dlqRetentionSeconds),
    MaximumMessageSize: String(settings.maximumMessageSize),
  });
  const [queue] = await Promise.all([
    ensureQueue(clients, queueName, {
      VisibilityTimeout: String(settings.visibilityTimeoutSeconds),
      MessageRetentionPeriod: String(settings.retentionSeconds),
      MaximumMessageSize: String(settings.maximumMessageSize),
      RedrivePolicy: redrivePolicyAttribute(dlq.arn, settings.maxReceiveCount),
    }),
    ensureTable(clients, tableName),
    ensureBucket(clients, bucketName),
  ]);
  return {
    tableName,
    queueUrl: queue.url,
    queueArn: queue.arn,
    dlqUrl: dlq.url,
    dlqArn: dlq.arn,
    bucketName,
  };
}
