// Queue operations beyond the verify side's send: the processor's backoff and self-dead-lettering, and the
// CLI's DLQ tooling (list, show, redrive, purge). Every method names its queue, since both the main queue
// and the DLQ are worked on through one instance.
import {
  ChangeMessageVisibilityBatchCommand,
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
import { changeVisibility } from './sqs-visibility';

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

export interface PeekOptions {
  /** At most this many messages. */
  limit: number;
  /** How long the whole peek may take, in milliseconds. @default 15 000 */
  withinMs?: number;
  /** How long each message stays hidden once seen. @default the peek's time budget plus 30 s */
  holdSeconds?: number;
}

export interface Peeked {
  /** Each message once, however many copies SQS handed out. */
  messages: ReceivedMessage[];
  /** The queue's visible count before the peek (approximate), or the messages seen if more. */
  aboutVisible: number;
  /**
   * True when nothing visible was left unseen: an empty long poll after the last message. False when the
   * limit or the time budget ended the peek first, even past the visible count (which is approximate).
   */
  whole: boolean;
}

/** ReceiveMessage's and ChangeMessageVisibilityBatch's maximum. */
const SQS_BATCH_MAX = 10;
/** ReceiveMessage's longest WaitTimeSeconds. */
const LONG_POLL_MAX_SECONDS = 20;
/** A peek's long polls: each returns at once while messages are visible, so this only bounds the last one. */
const PEEK_POLL_SECONDS = 5;
const PEEK_WITHIN_MS = 15_000;

export class SqsQueueOps {
  constructor(
    private readonly client: SQSClient,
    /** Epoch milliseconds; only bounds how long a peek may take. */
    private readonly now: () => number = Date.now,
  ) {}

  /** The processor's backoff: the message reappears after `seconds` (0 to 43 200). */
  async changeVisibility(queueUrl: string, receiptHandle: string, seconds: number): Promise<void> {
    await changeVisibility(this.client, queueUrl, receiptHandle, seconds);
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

  /** Up to `limit` messages without consuming them: `peekQueue`'s messages. */
  async peek(queueUrl: string, options: PeekOptions): Promise<ReceivedMessage[]> {
    return (await this.peekQueue(queueUrl, options)).messages;
  }

  /**
   * Up to `limit` messages without consuming them, and whether the queue was seen whole. SQS has no real
   * peek: messages are received (hidden for the peek's duration, so later receives bring new ones) and
   * made visible again at the end. Each read counts as a receive, so peek at a DLQ (no redrive policy),
   * not at a live queue with maxReceiveCount.
   *
   * A short poll samples some of SQS's servers and may answer empty while messages wait, so this long-polls
   * and stops on whichever comes first: `limit` messages; an empty long poll (every server asked, nothing
   * visible: all there was is in hand); the time or call budget. The visible count read first is
   * approximate: it only sets how long a poll may wait; past the count, one-second polls go on until one
   * answers empty, which catches a count that lagged. Every message seen stays
   * in flight until the end, so `limit` must stay well under SQS's 120,000 in-flight messages per queue.
   */
  async peekQueue(queueUrl: string, options: PeekOptions): Promise<Peeked> {
    const startedMs = this.now();
    const withinMs = options.withinMs ?? PEEK_WITHIN_MS;
    const visibleBefore = (await this.counts(queueUrl)).visible;
    // Longer than the peek can last: a message seen early must not come back while it goes on.
    const holdSeconds = options.holdSeconds ?? Math.ceil(withinMs / 1000) + 30;
    const maxCalls = Math.ceil(options.limit / SQS_BATCH_MAX) * 4 + 10;
    const seen = new Map<string, ReceivedMessage>();
    const handles: string[] = [];
    let whole = false;
    try {
      for (let calls = 0; seen.size < options.limit && calls < maxCalls; calls++) {
        const leftMs = withinMs - (this.now() - startedMs);
        if (leftMs < 1000) break;
        // Once the count is reached (at once for a queue counted empty), a one-second long poll confirms
        // nothing is left: the count lags a message just dead-lettered, and a short poll may answer empty
        // while one waits, so neither can say the queue is empty. Before it, a long poll answers as soon
        // as a message is visible, so a longer wait costs nothing while there are some.
        const waitSeconds =
          seen.size >= visibleBefore
            ? 1
            : Math.min(LONG_POLL_MAX_SECONDS, PEEK_POLL_SECONDS, Math.floor(leftMs / 1000));
        const batch = await this.receive(queueUrl, {
          maxMessages: options.limit - seen.size,
          visibilitySeconds: holdSeconds,
          waitSeconds,
        });
        for (const message of batch) {
          handles.push(message.receiptHandle);
          // At least once: a second copy of a message comes with a handle of its own; it is one message.
          if (!seen.has(message.messageId)) seen.set(message.messageId, message);
        }
        // Empty: a long poll asked every server, so nothing visible was left.
        if (batch.length === 0) {
          whole = true;
          break;
        }
      }
    } finally {
      await this.release(queueUrl, handles);
    }
    const messages = [...seen.values()];
    return {
      messages,
      aboutVisible: Math.max(visibleBefore, messages.length),
      // Only an empty long poll says so: messages still coming once the count was reached say the count
      // was short, so reaching it says nothing about what the time or the limit left unseen.
      whole,
    };
  }

  /**
   * Makes received messages visible again. A handle SQS no longer honours (the message was deleted, or
   * handed out again since) fails alone in its batch, and a batch that fails altogether leaves its
   * messages to come back when their hold runs out: either way nothing is lost, so neither is an error.
   */
  private async release(queueUrl: string, handles: string[]): Promise<void> {
    for (let start = 0; start < handles.length; start += SQS_BATCH_MAX) {
      const entries = handles.slice(start, start + SQS_BATCH_MAX).map((handle, index) => ({
        Id: String(index),
        ReceiptHandle: handle,
        VisibilityTimeout: 0,
      }));
      await callDependency('sqs', 'ChangeMessageVisibilityBatch', () =>
        this.client.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries })),
      ).catch(() => undefined);
    }
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
