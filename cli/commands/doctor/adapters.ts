// The doctor's ports on real clients: the lambdas/adapters classes, pointed at a stack (the command) or at
// the emulators (the integration tests). Loaded only when the command runs.
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { AwsClients } from '../../../lambdas/adapters/clients';
import { CloudWatchAlarms } from '../../../lambdas/adapters/cloudwatch-alarms';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { InboxListing } from '../../../lambdas/adapters/dynamo-inbox-listing';
import { LambdaAccount } from '../../../lambdas/adapters/lambda-account';
import { S3PayloadReader } from '../../../lambdas/adapters/s3-payloads';
import { SqsQueueOps } from '../../../lambdas/adapters/sqs-queue-ops';
import { readRedrivePolicies } from '../../../lambdas/adapters/sqs-redrive-policies';
import { PAYLOADS_PREFIX, payloadRef } from '../../../lambdas/core/envelope';
import { PayloadMissingError } from '../../../lambdas/core/errors';
import type { ProvisionedResources } from '../../../local/resources';
import type { AlarmOps, HttpOps, LambdaAccountOps, RedriveOps, ResourceProbes } from './ports';

/** A key no delivery has: reading it proves the read is allowed without touching a record. */
const PROBE_KEY = 'webhook-inbox-doctor#probe';

export function resourceProbes(clients: AwsClients, resources: ProvisionedResources): ResourceProbes {
  const queues = new SqsQueueOps(clients.sqs);
  const payloads = new S3PayloadReader(clients.s3, resources.bucketName);
  return {
    table: async () => {
      await new DynamoInbox(clients.dynamodb, resources.tableName).get(PROBE_KEY);
      // The listing's own read too: `list`, the console and replay page through the index, not by key.
      await new InboxListing(clients.dynamodb, resources.tableName).probe(PROBE_KEY);
    },
    queue: async () => {
      await queues.counts(resources.queueUrl);
    },
    dlq: async () => {
      await queues.counts(resources.dlqUrl);
    },
    bucket: async () => {
      try {
        // Under payloads/, where the CLI reads large bodies: an operator's grant covers that prefix, not
        // the whole bucket, and a key outside it would be refused (403) rather than reported missing.
        await payloads.get(payloadRef(resources.bucketName, `${PAYLOADS_PREFIX}webhook-inbox-doctor/probe`));
      } catch (error) {
        // S3 says NoSuchKey only to a caller that may list the bucket: the read is allowed.
        if (!(error instanceof PayloadMissingError)) throw error;
      }
    },
  };
}

export function inboxReader(clients: AwsClients, resources: ProvisionedResources): DynamoInbox {
  return new DynamoInbox(clients.dynamodb, resources.tableName);
}

export function redriveOps(clients: AwsClients, resources: ProvisionedResources): RedriveOps {
  const queues = new SqsQueueOps(clients.sqs);
  return {
    policies: () => readRedrivePolicies(clients.sqs, resources),
    latestMove: () => queues.latestMessageMove(resources.dlqArn),
  };
}

export function alarmOps(client: CloudWatchClient): AlarmOps {
  return new CloudWatchAlarms(client);
}

export function lambdaAccountOps(client: LambdaClient): LambdaAccountOps {
  return new LambdaAccount(client);
}

/** HTTP as the CLI's `send` does it: no redirects followed, a 30 s limit. */
export async function httpOps(): Promise<HttpOps> {
  const { post } = await import('../../operations/signed-delivery');
  return {
    post,
    request: async (method, url) => {
      const response = await fetch(url, {
        method,
        headers: { 'User-Agent': 'webhook-inbox-cli' },
        redirect: 'manual',
        signal: AbortSignal.timeout(30_000),
      });
      await response.body?.cancel();
      return response.status;
    },
  };
}
