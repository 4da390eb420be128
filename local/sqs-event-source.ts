// Emulates Lambda's SQS event source mapping: long-poll a batch (batch size, batching window), build the
// SQS event exactly as Lambda does, call the processor, delete what it did not report as failed, and leave
// the rest to their visibility timeout. A thrown error fails the whole batch, as on AWS.
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { ReceivedMessage, SqsQueueOps } from '../lambdas/adapters/sqs-queue-ops';

export interface EventSourceOptions {
  queueUrl: string;
  queueArn: string;
  region?: string;
  batchSize: number;
  maxBatchingWindowSeconds: number;
  /** How long the emulated function may run; the lease the processor takes is based on it. */
  functionTimeoutMs: number;
  handler: (event: SQSEvent, context: { getRemainingTimeInMillis(): number }) => Promise<SQSBatchResponse>;
  /**
   * Asked before each poll: true stops receiving for a second, as a disabled event source mapping does
   * (a destination disabled by a 410 Gone). @default never paused
   */
  paused?: () => Promise<boolean>;
  /** Called after each batch, for local mode's output and for tests. */
  onBatch?: (batch: { records: number; failed: number; error?: unknown }) => void;
}

export function sqsRecordFrom(message: ReceivedMessage, queueArn: string, region = 'us-east-1'): SQSRecord {
  const now = Date.now();
  return {
    messageId: message.messageId,
    receiptHandle: message.receiptHandle,
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentAtMs),
      SenderId: 'webhook-inbox-local',
      ApproximateFirstReceiveTimestamp: String(now),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.attributes).map(([name, value]) => [
        name,
        { stringValue: value, dataType: 'String', stringListValues: [], binaryListValues: [] },
      ]),
    ),
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}

export class SqsEventSource {
  private running = false;
  private loop?: Promise<void>;
  private inFlight = 0;

  constructor(
    private readonly ops: SqsQueueOps,
    private readonly options: EventSourceOptions,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.poll();
  }

  /** Stops polling and waits for the batch being processed, so nothing is cut off halfway. */
  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  get busy(): boolean {
    return this.inFlight > 0;
  }

  /**
   * One receive-invoke-delete cycle; returns how many records it handed the processor. It long-polls, as
   * Lambda's poller does: a short poll (`waitSeconds` 0) samples some of SQS's servers and may answer 0
   * while messages wait, so "0" ends a drain only after a long poll.
   */
  async runOnce(waitSeconds = 1): Promise<number> {
    const messages = await this.collectBatch(waitSeconds);
    if (messages.length === 0) return 0;
    this.inFlight += 1;
    try {
      await this.invoke(messages);
    } finally {
      this.inFlight -= 1;
    }
    return messages.length;
  }

  private async poll(): Promise<void> {
    while (this.running) {
      try {
        if (await this.options.paused?.()) {
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          continue;
        }
        // A short long-poll keeps Ctrl-C responsive; Lambda's poller waits up to 20 s.
        await this.runOnce(1);
      } catch {
        // The queue is unreachable (the emulator is stopping): back off and try again.
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  /** Like Lambda: gather up to batchSize messages, waiting at most the batching window for more. */
  private async collectBatch(waitSeconds: number): Promise<ReceivedMessage[]> {
    const { batchSize, maxBatchingWindowSeconds, queueUrl } = this.options;
    // No VisibilityTimeout override: Lambda's poller uses the queue's own.
    const first = await this.ops.receive(queueUrl, { maxMessages: batchSize, waitSeconds });
    if (first.length === 0 || maxBatchingWindowSeconds === 0) return first;
    // By message id: SQS delivers at least once, so a later receive of the window may bring a second copy
    // of a message already in the batch. One record per message, with the newest copy's receipt handle,
    // the one a delete must name.
    const batch = new Map(first.map((message) => [message.messageId, message]));
    const deadline = Date.now() + maxBatchingWindowSeconds * 1000;
    while (batch.size < batchSize && Date.now() < deadline && this.running) {
      const more = await this.ops.receive(queueUrl, {
        maxMessages: batchSize - batch.size,
        waitSeconds: 1,
      });
      for (const message of more) batch.set(message.messageId, message);
    }
    return [...batch.values()];
  }

  private async invoke(messages: ReceivedMessage[]): Promise<void> {
    const { queueUrl, queueArn, region, functionTimeoutMs, handler, onBatch } = this.options;
    const started = Date.now();
    const event: SQSEvent = { Records: messages.map((m) => sqsRecordFrom(m, queueArn, region)) };
    let response: SQSBatchResponse;
    try {
      response = await handler(event, {
        getRemainingTimeInMillis: () => functionTimeoutMs - (Date.now() - started),
      });
    } catch (error) {
      // As on AWS: the whole batch stays on the queue and comes back after its visibility timeout.
      onBatch?.({ records: messages.length, failed: messages.length, error });
      return;
    }
    const failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    await Promise.all(
      messages.filter((m) => !failed.has(m.messageId)).map((m) => this.ops.delete(queueUrl, m.receiptHandle)),
    );
    onBatch?.({ records: messages.length, failed: failed.size });
  }
}
