// The EventBridge destination: PutEvents to a bus. The forwarder handles a batch's records in parallel,
// so the sends made in one turn of the event loop go out together, up to 10 entries and 256 KB a request,
// and each caller gets its own entry's result (PutEvents answers entry by entry, in request order).
import { PutEventsCommand, type PutEventsResultEntry } from '@aws-sdk/client-eventbridge';
import type { ForwardDestination } from '../../config';
import type { AttemptResult } from '../core/destinations/attempt';
import {
  type EventBridgeEntry,
  entrySize,
  eventBridgeEntry,
  fitsOneEntry,
  MAX_ENTRIES_PER_REQUEST,
  MAX_ENTRY_BYTES,
} from '../core/destinations/eventbridge-entry';
import type { DestinationSender, OutboundDelivery } from '../core/destinations/ports';
import { payloadKey } from '../core/envelope';
import { DependencyError } from '../core/errors';
import type { PayloadWriter } from '../core/ports';
import { type AttemptFailure, failureCode, serviceFailure } from './destination-failure';

export type EventBridgeDestination = Extract<ForwardDestination, { type: 'eventbridge' }>;

/** What the sender needs of an EventBridgeClient (or of local mode's recording bus). */
export interface PutEventsClient {
  send(command: PutEventsCommand): Promise<{ Entries?: PutEventsResultEntry[]; FailedEntryCount?: number }>;
}

export interface EventBridgeDestinationSenderOptions {
  client: PutEventsClient;
  /**
   * The client for a bus (ARN or name): one of the bus's own region, since PutEvents goes to the region the
   * bus is in. @default `client` for every bus
   */
  clientFor?(bus: string): PutEventsClient;
  /** The bus's ARN (or name) for a destination: the one it names, or the one the stack made for it. */
  busFor(destination: EventBridgeDestination): string;
  /** Where the body of an entry over 256 KB goes, under its content-addressed key (payloadKey). */
  payloads: PayloadWriter;
}

/**
 * Entry error codes after which the same entry can never be taken (API reference, PutEventsResultEntry):
 * the entry itself is invalid. EventBridge also calls AccessDeniedException, NotAuthorizedForSource and
 * NotAuthorizedForDetailType non-retryable: an immediate resend gets the same answer. They are retried
 * here all the same, because the retry schedule waits minutes to hours, and they are cured by the bus's
 * or the role's policy (a cross-account bus that does not let us in yet), after which every waiting event
 * goes through with nobody redriving anything. InternalFailure and ThrottlingException are retryable by
 * the documentation; an undocumented code is retried too, since the schedule ends in the DLQ anyway.
 */
const PERMANENT_ENTRY_CODES: ReadonlySet<string> = new Set([
  'InvalidArgument',
  'MalformedDetail',
  'InvalidAccountIdException',
  'RedactionFailure',
]);

/**
 * Whole-request refusals that say the request is malformed (too many entries, too large, a field out of
 * its constraints). Throttling, access, credentials and 5xx are retried (destination-failure.ts).
 */
const PERMANENT_REQUEST_ERRORS: ReadonlySet<string> = new Set([
  'ValidationException',
  'SerializationException',
]);

const UNAVAILABLE = 'eventbridge_unavailable';

interface Waiting {
  entry: EventBridgeEntry;
  size: number;
  resolve(result: AttemptResult): void;
  reject(error: unknown): void;
}

/** One caller's result from its entry in the answer. */
function entryResult(answer: PutEventsResultEntry | undefined): AttemptResult {
  if (answer?.ErrorCode !== undefined) {
    return {
      kind: 'failed',
      code: failureCode(answer.ErrorCode, UNAVAILABLE),
      retryable: !PERMANENT_ENTRY_CODES.has(answer.ErrorCode),
    };
  }
  if (answer?.EventId !== undefined) return { kind: 'accepted' };
  // The answer always has one entry per request entry; without it nothing says the event was taken.
  return { kind: 'failed', code: 'eventbridge_unanswered', retryable: true };
}

/**
 * The requests for a turn's entries: one bus per request, so a whole-request refusal (that bus's policy)
 * never fails another bus's events; at most 10 entries and MAX_ENTRY_BYTES in all, in arrival order.
 */
export function planRequests<T extends { entry: { EventBusName: string }; size: number }>(
  waiting: readonly T[],
): T[][] {
  const requests: T[][] = [];
  const open = new Map<string, { items: T[]; bytes: number }>();
  for (const item of waiting) {
    const bus = item.entry.EventBusName;
    let request = open.get(bus);
    if (
      request === undefined ||
      request.items.length >= MAX_ENTRIES_PER_REQUEST ||
      request.bytes + item.size > MAX_ENTRY_BYTES
    ) {
      request = { items: [], bytes: 0 };
      open.set(bus, request);
      requests.push(request.items);
    }
    request.items.push(item);
    request.bytes += item.size;
  }
  return requests;
}

export class EventBridgeDestinationSender implements DestinationSender {
  private waiting: Waiting[] = [];

  constructor(private readonly options: EventBridgeDestinationSenderOptions) {}

  async send(delivery: OutboundDelivery): Promise<AttemptResult> {
    const { destination } = delivery;
    if (destination.type !== 'eventbridge') {
      throw new Error(`EventBridgeDestinationSender: destination ${destination.id} is ${destination.type}`);
    }
    const bus = this.options.busFor(destination);
    let entry = eventBridgeEntry(delivery, bus);
    if (!fitsOneEntry(entry)) {
      const ref = await this.storeBody(delivery);
      if (typeof ref !== 'string') return ref;
      entry = eventBridgeEntry(delivery, bus, ref);
      // Only the delivery's facts are left, and they are short: this would take a dedup key of 256 KB.
      if (!fitsOneEntry(entry))
        return { kind: 'failed', code: 'eventbridge_entry_too_large', retryable: false };
    }
    return this.enqueue(entry);
  }

  /**
   * The body under its content-addressed key, written even when the envelope's `dataref` already names
   * that object: the write restarts the bucket's lifecycle count, so the consumer has the full lifetime
   * from now to fetch it, and writing the same bytes to the same key again changes nothing else.
   */
  private async storeBody(delivery: OutboundDelivery): Promise<string | AttemptFailure> {
    const { envelope } = delivery;
    try {
      return await this.options.payloads.put(
        payloadKey(envelope.provider, envelope.payloadsha256),
        delivery.body,
        envelope.payloadsha256,
      );
    } catch (error) {
      if (error instanceof DependencyError) {
        return { kind: 'failed', code: 'payload_store_unavailable', retryable: true };
      }
      throw error;
    }
  }

  private enqueue(entry: EventBridgeEntry): Promise<AttemptResult> {
    return new Promise((resolve, reject) => {
      // After every send already under way in this turn has queued its entry (microtasks run first).
      if (this.waiting.length === 0) setImmediate(() => this.flush());
      this.waiting.push({ entry, size: entrySize(entry), resolve, reject });
    });
  }

  private flush(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const request of planRequests(waiting)) void this.put(request);
  }

  private async put(request: readonly Waiting[]): Promise<void> {
    try {
      let answer: Awaited<ReturnType<PutEventsClient['send']>>;
      try {
        // One bus per request (planRequests), so one region.
        const bus = request[0]?.entry.EventBusName ?? '';
        const client = this.options.clientFor?.(bus) ?? this.options.client;
        answer = await client.send(
          new PutEventsCommand({ Entries: request.map((waiting) => waiting.entry) }),
        );
      } catch (error) {
        const failure = serviceFailure(error, {
          unavailable: UNAVAILABLE,
          permanent: PERMANENT_REQUEST_ERRORS,
        });
        // A request refused as invalid may be one entry's doing: each goes alone, so only its own fails.
        if (!failure.retryable && request.length > 1) {
          await Promise.all(request.map((waiting) => this.put([waiting])));
          return;
        }
        for (const waiting of request) waiting.resolve(failure);
        return;
      }
      for (const [index, waiting] of request.entries()) waiting.resolve(entryResult(answer.Entries?.[index]));
    } catch (error) {
      // A bug, not the service: every caller still waiting hears of it (settling twice does nothing).
      for (const waiting of request) waiting.reject(error);
    }
  }
}
