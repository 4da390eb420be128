// In-memory stand-ins for the processor's other ports (core/ports.ts, core/destinations/ports.ts): a clock
// a test moves by hand, the payload bucket, the message's visibility, the destinations' queues, the
// resource versions and the log. Each records what it was asked, and each can be made to fail its next
// calls as its adapter does when the service is down (DependencyError).

import type { ForwardQueues } from '../../lambdas/core/destinations/ports';
import { DependencyError, PayloadMissingError } from '../../lambdas/core/errors';
import type { EventContext } from '../../lambdas/core/events/define-event';
import type {
  Clock,
  MessageControl,
  PayloadReader,
  PayloadWriter,
  QueueMessage,
  ResourceVersions,
  StoredPayload,
  VersionCheck,
} from '../../lambdas/core/ports';

/** Counts down the failures a test asked for, one per call. */
class Failures<Op extends string> {
  private readonly left = new Map<Op, number>();

  add(op: Op, times: number): void {
    this.left.set(op, (this.left.get(op) ?? 0) + times);
  }

  /** Throws DependencyError if `op` still has a failure to spend. */
  spend(op: Op, dependency: DependencyError['dependency'], operation: string): void {
    const left = this.left.get(op) ?? 0;
    if (left <= 0) return;
    this.left.set(op, left - 1);
    throw new DependencyError(dependency, operation);
  }
}

/** A clock that moves only when told: no test depends on the wall clock. */
export class ManualClock implements Clock {
  constructor(private nowMs: number) {}

  now(): number {
    return this.nowMs;
  }

  advance(ms: number): void {
    this.nowMs += ms;
  }
}

type PayloadOp = 'get' | 'put' | 'rewrite';

/** The payload bucket: objects by `s3://` reference. */
export class MemoryPayloads implements PayloadReader, PayloadWriter {
  readonly objects = new Map<string, StoredPayload>();
  /** The keys written by `put`, in order. */
  readonly puts: string[] = [];
  private readonly failures = new Failures<PayloadOp>();

  constructor(
    private readonly clock: Clock,
    readonly bucket = 'payloads',
  ) {}

  failNext(op: PayloadOp, times = 1): this {
    this.failures.add(op, times);
    return this;
  }

  async put(key: string, body: Buffer, _sha256Hex: string): Promise<string> {
    this.failures.spend('put', 's3', 'PutObject');
    const ref = `s3://${this.bucket}/${key}`;
    this.puts.push(key);
    this.objects.set(ref, { body: Buffer.from(body), lastModifiedMs: this.clock.now() });
    return ref;
  }

  async get(ref: string): Promise<StoredPayload> {
    this.failures.spend('get', 's3', 'GetObject');
    const stored = this.objects.get(ref);
    if (!stored) throw new PayloadMissingError(ref);
    return stored;
  }

  async rewrite(ref: string, body: Buffer, _sha256Hex: string): Promise<void> {
    this.failures.spend('rewrite', 's3', 'PutObject');
    this.objects.set(ref, { body: Buffer.from(body), lastModifiedMs: this.clock.now() });
  }
}

/** The message's visibility: every ChangeMessageVisibility asked for, in order. */
export class MemoryMessages implements MessageControl {
  readonly delays: { receiptHandle: string; seconds: number }[] = [];
  private readonly failures = new Failures<'delay'>();

  failNext(times = 1): this {
    this.failures.add('delay', times);
    return this;
  }

  async delay(receiptHandle: string, seconds: number): Promise<void> {
    this.failures.spend('delay', 'sqs', 'ChangeMessageVisibility');
    this.delays.push({ receiptHandle, seconds });
  }

  /** The seconds asked for, in order. */
  seconds(): number[] {
    return this.delays.map((entry) => entry.seconds);
  }
}

/** The destinations' queues: every copy sent, by destination. */
export class MemoryForwardQueues implements ForwardQueues {
  readonly sent: { destinationId: string; message: QueueMessage }[] = [];
  private readonly failures = new Failures<'send'>();

  failNext(times = 1): this {
    this.failures.add('send', times);
    return this;
  }

  async send(destinationId: string, message: QueueMessage): Promise<{ messageId: string }> {
    this.failures.spend('send', 'sqs', 'SendMessage');
    this.sent.push({ destinationId, message });
    return { messageId: `copy-${this.sent.length}` };
  }
}

/**
 * The newest version per resource, with the adapter's rule (dynamo-resource-versions.ts): newer than what
 * is stored, nothing stored or expired, or the same version set by the same delivery.
 */
export class MemoryResourceVersions implements ResourceVersions {
  readonly stored = new Map<string, { version: number; setBy: string; expiresAtSec: number }>();
  private readonly failures = new Failures<'accept'>();

  failNext(times = 1): this {
    this.failures.add('accept', times);
    return this;
  }

  async acceptIfNewer(check: VersionCheck): Promise<boolean> {
    this.failures.spend('accept', 'dynamodb', 'UpdateItem');
    const key = `${check.provider}#${check.resourceKey}`;
    const nowSec = Math.floor(check.nowMs / 1000);
    const seen = this.stored.get(key);
    const newer =
      seen === undefined ||
      seen.expiresAtSec < nowSec ||
      seen.version < check.version ||
      (seen.version === check.version && seen.setBy === check.deliveryKey);
    if (!newer) return false;
    this.stored.set(key, {
      version: check.version,
      setBy: check.deliveryKey,
      expiresAtSec: nowSec + check.ttlSeconds,
    });
    return true;
  }
}

/** The log lines a processor wrote, with their attributes. */
export class LogSink {
  readonly lines: { message: string; attributes?: Record<string, unknown> }[] = [];
  readonly log: EventContext['log'] = (message, attributes) => {
    this.lines.push({ message, ...(attributes === undefined ? {} : { attributes }) });
  };

  messages(): string[] {
    return this.lines.map((line) => line.message);
  }
}
