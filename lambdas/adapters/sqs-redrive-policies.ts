// A queue pair's redrive settings as SQS holds them (GetQueueAttributes), for `webhook-inbox doctor`: the
// main queue's RedrivePolicy (where its failures go) and the DLQ's RedriveAllowPolicy (who may use it).
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { callDependency } from './dependency-call';

export interface RedrivePolicies {
  /** The main queue's RedrivePolicy JSON, undefined when it has none. */
  redrivePolicy?: string;
  /** The DLQ's RedriveAllowPolicy JSON, undefined when it has none (SQS then allows every queue). */
  redriveAllowPolicy?: string;
}

async function attribute(
  client: SQSClient,
  queueUrl: string,
  name: 'RedrivePolicy' | 'RedriveAllowPolicy',
): Promise<string | undefined> {
  const { Attributes: attributes = {} } = await callDependency('sqs', 'GetQueueAttributes', () =>
    client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: [name] })),
  );
  return attributes[name] || undefined;
}

export async function readRedrivePolicies(
  client: SQSClient,
  queues: { queueUrl: string; dlqUrl: string },
): Promise<RedrivePolicies> {
  const [redrivePolicy, redriveAllowPolicy] = await Promise.all([
    attribute(client, queues.queueUrl, 'RedrivePolicy'),
    attribute(client, queues.dlqUrl, 'RedriveAllowPolicy'),
  ]);
  return {
    ...(redrivePolicy === undefined ? {} : { redrivePolicy }),
    ...(redriveAllowPolicy === undefined ? {} : { redriveAllowPolicy }),
  };
}
