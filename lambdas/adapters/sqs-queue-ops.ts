// Queue operations beyond the verify side's send: the processor's backoff and self-dead-lettering, and the
// CLI's DLQ tooling (list, show, redrive, purge). Every method names its queue, since both the main queue
// and the DLQ are worked on through one instance.
import {
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ListMessageMoveTasksCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  type SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { callDependency } from './dependency-call';
import { fromMessageAttributes } from './sqs-message-attributes';
import { sendMessage } from './sqs-queue';

export interface ReceivedMessage {
  messageId: string;
  receiptHandle: string;
  body: string;
  attributes: Record<string, string>;
  /** How many times SQS has handed this message out, this receive included. */
  receiveCount: number;
  sentAtMs: number;
}

export interface MoveTaskStatus {
  status: string;
  moved: number;
  toMove?: number;
  failureReason?: string;
  /** SQS gives a task's handle only while it is RUNNING. */
  taskHandle?: string;
  /** When the task started, epoch milliseconds. */
  startedAtMs?: number;
}

export interface QueueCounts {
  visible: number;
  inFlight: number;
  delayed: number;
}

/** ReceiveMessage's and ChangeMessageVisibilityBatch's maximum. */
const SQS_BATCH_MAX = 10;

export class SqsQueueOps {
  constructor(private readonly client: SQSClient) {}

  /** The processor's backoff: the message reappears after `seconds` (0 to 43 200). */
  async changeVisibility(queueUrl: string, receiptHandle: string, seconds: number): Promise<void> {
    await callDependency('sqs', 'ChangeMessageVisibility', () =>
      this.client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: receiptHandle,
          VisibilityTimeout: seconds,
        }),
      ),
    );
  }

  /** Sends a body as it is: the processor dead-letters with it, the CLI redrives with it. */
  async sendRaw(queueUrl: string, body: string, attributes: Record<string, string>): Promise<string> {
    return sendMessage(this.client, queueUrl, { body, attributes });
  }

  async receive(
    queueUrl: string,
    options: { maxMessages?: number; waitSeconds?: number; visibilitySeconds?: number } = {},
  ): Promise<ReceivedMessage[]> {
    const { Messages: messages = [] } = await callDependency('sqs', 'ReceiveMessage', () =>
      this.client.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: Math.min(options.maxMessages ?? SQS_BATCH_MAX, SQS_BATCH_MAX),
          WaitTimeSeconds: options.waitSeconds ?? 0,
          ...(options.visibilitySeconds === undefined
            ? {}
            : { VisibilityTimeout: options.visibilitySeconds }),
          MessageAttributeNames: ['All'],
          MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp'],
        }),
      ),
    );
    return messages.map((message) => ({
      messageId: message.MessageId ?? '',
      receiptHandle: message.ReceiptHandle ?? '',
      body: message.Body ?? '',
      attributes: fromMessageAttributes(message.MessageAttributes),
      receiveCount: Number(message.Attributes?.ApproximateReceiveCount ?? 1),
      sentAtMs: Number(message.Attributes?.SentTimestamp ?? 0),
    }));
  }

  /**
   * Up to `limit` messages without consuming them. SQS has no real peek: messages are received (hidden for
   * `holdSeconds`, so later batches bring new ones) and made visible again at the end. Each read counts as
   * a receive, so peek at the DLQ (no redrive policy), not at a live queue with maxReceiveCount.
   */
  async peek(queueUrl: string, options: { limit: number; holdSeconds?: number }): Promise<ReceivedMessage[]> {
    const seen = new Map<string, ReceivedMessage>();
    while (seen.size < options.limit) {
      const batch = await this.receive(queueUrl, {
        maxMessages: options.limit - seen.size,
        visibilitySeconds: options.holdSeconds ?? 30,
      });
      const fresh = batch.filter((message) => !seen.has(message.messageId));
      if (fresh.length === 0) break;
      for (const message of fresh) seen.set(message.messageId, message);
    }
    const peeked = [...seen.values()];
    for (let start = 0; start < peeked.length; start += SQS_BATCH_MAX) {
      const entries = peeked.slice(start, start + SQS_BATCH_MAX).map((message, index) => ({
        Id: String(index),
        ReceiptHandle: message.receiptHandle,
        VisibilityTimeout: 0,
      }));
      await callDependency('sqs', 'ChangeMessageVisibilityBatch', () =>
        this.client.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries })),
      );
    }
    return peeked;
  }

  async delete(queueUrl: string, receiptHandle: string): Promise<void> {
    await callDependency('sqs', 'DeleteMessage', () =>
      this.client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle })),
    );
  }

  /** SQS allows one purge per queue per 60 s and may take that long to finish. */
  async purge(queueUrl: string): Promise<void> {
    await callDependency('sqs', 'PurgeQueue', () =>
      this.client.send(new PurgeQueueCommand({ QueueUrl: queueUrl })),
    );
  }

  /** Approximate, as SQS says: good for a dashboard line, not for deciding whether a queue is empty. */
  async counts(queueUrl: string): Promise<QueueCounts> {
    const { Attributes: attributes = {} } = await callDependency('sqs', 'GetQueueAttributes', () =>
      this.client.send(
        new GetQueueAttributesCommand({
          QueueUrl: queueUrl,
          AttributeNames: [
            'ApproximateNumberOfMessages',
            'ApproximateNumberOfMessagesNotVisible',
            'ApproximateNumberOfMessagesDelayed',
          ],
        }),
      ),
    );
    return {
      visible: Number(attributes.ApproximateNumberOfMessages ?? 0),
      inFlight: Number(attributes.ApproximateNumberOfMessagesNotVisible ?? 0),
      delayed: Number(attributes.ApproximateNumberOfMessagesDelayed ?? 0),
    };
  }

  /**
   * SQS's own DLQ redrive (what the console's "Start DLQ redrive" starts): moves every message of the DLQ
   * to `destinationArn`. SQS refuses it while another task runs on the same DLQ. The emulator has none.
   */
  async startMessageMove(input: {
    sourceArn: string;
    destinationArn: string;
    maxPerSecond?: number;
  }): Promise<string | undefined> {
    const { TaskHandle: taskHandle } = await callDependency('sqs', 'StartMessageMoveTask', () =>
      this.client.send(
        new StartMessageMoveTaskCommand({
          SourceArn: input.sourceArn,
          DestinationArn: input.destinationArn,
          ...(input.maxPerSecond === undefined ? {} : { MaxNumberOfMessagesPerSecond: input.maxPerSecond }),
        }),
      ),
    );
    return taskHandle;
  }

  /** The most recent move task of a DLQ, if any. */
  async latestMessageMove(sourceArn: string): Promise<MoveTaskStatus | undefined> {
    const { Results: results = [] } = await callDependency('sqs', 'ListMessageMoveTasks', () =>
      this.client.send(new ListMessageMoveTasksCommand({ SourceArn: sourceArn, MaxResults: 1 })),
    );
    const task = results[0];
    if (!task) return undefined;
    return {
      status: task.Status ?? 'UNKNOWN',
      moved: task.ApproximateNumberOfMessagesMoved ?? 0,
      toMove: task.ApproximateNumberOfMessagesToMove,
      failureReason: task.FailureReason,
      taskHandle: task.TaskHandle,
      startedAtMs: task.StartedTimestamp,
    };
  }
}
