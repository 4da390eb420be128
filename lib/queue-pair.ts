// A queue and its dead-letter queue, as the inbox and every forward destination have them: SQS-managed
// encryption, TLS only, the redrive policy, and a redrive allow policy that lets only the queue use its DLQ.
import { Duration, Stack } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { DestinationQueueSettings } from '../config/resources';

export interface QueuePair {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
}

export interface QueuePairProps {
  /** Construct ids of the queue, the DLQ and the DLQ's imported view of its source queue. */
  readonly ids: { queue: string; deadLetterQueue: string; redriveSource: string };
  /** The queue's name: fixed, so the DLQ can name it (see below). */
  readonly queueName: string;
  /** @default - a name CloudFormation generates */
  readonly dlqName?: string;
  readonly settings: DestinationQueueSettings;
}

/**
 * The DLQ's redrive allow policy names the queue, and the queue's redrive policy names the DLQ. Referencing
 * both ARNs through CloudFormation would be a cycle, so the queue has a fixed name and the DLQ names it by
 * an ARN built from that name.
 */
export function createQueuePair(scope: Construct, props: QueuePairProps): QueuePair {
  const { ids, settings } = props;
  const queueArn = Stack.of(scope).formatArn({ service: 'sqs', resource: props.queueName });
  const deadLetterQueue = new sqs.Queue(scope, ids.deadLetterQueue, {
    queueName: props.dlqName,
    retentionPeriod: Duration.seconds(settings.dlqRetentionSeconds),
    maxMessageSizeBytes: settings.maximumMessageSize,
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    redriveAllowPolicy: {
      redrivePermission: sqs.RedrivePermission.BY_QUEUE,
      sourceQueues: [sqs.Queue.fromQueueArn(scope, ids.redriveSource, queueArn)],
    },
  });
  const queue = new sqs.Queue(scope, ids.queue, {
    queueName: props.queueName,
    visibilityTimeout: Duration.seconds(settings.visibilityTimeoutSeconds),
    retentionPeriod: Duration.seconds(settings.retentionSeconds),
    maxMessageSizeBytes: settings.maximumMessageSize,
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: settings.maxReceiveCount },
  });
  return { queue, deadLetterQueue };
}
