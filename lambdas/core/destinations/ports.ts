// What forwarding needs from the outside world. Adapters implement these over HTTP, EventBridge, SQS and
// DynamoDB; local mode and the tests pass the same adapters pointed at emulators and a local server.
import type { ForwardDestination } from '../../../config';
import type { Envelope } from '../envelope';
import type { QueueMessage } from '../ports';
import type { AttemptResult } from './attempt';
import type { ForwardState } from './forward-state';

/** One attempt to hand one delivery to one destination. */
export interface OutboundDelivery {
  destination: ForwardDestination;
  /** Stable across attempts and redrives (signing.ts, webhookId). */
  webhookId: string;
  envelope: Envelope;
  /** The exact bytes the provider sent. */
  body: Buffer;
  /** 1 for the first attempt. */
  attempt: number;
  /** The attempt's time, epoch ms: HTTP's `webhook-timestamp`. */
  nowMs: number;
}

export interface DestinationSender {
  /** Never throws for the destination's own failures: they are results. Throws only on a bug. */
  send(delivery: OutboundDelivery): Promise<AttemptResult>;
}

export type DestinationSenders = Partial<Record<ForwardDestination['type'], DestinationSender>>;

/**
 * `written`; `no_record` (TTL deleted the record: the history is not kept); `delivered` (the history says
 * delivered and the write is not a delivery); `changed` (another copy wrote the history since it was read).
 */
export type HistoryWrite = 'written' | 'no_record' | 'delivered' | 'changed';

/** The per-destination histories on the inbox records. */
export interface ForwardLog {
  /** Undefined if the record has no history for it (or no longer exists). Throws DependencyError. */
  get(pk: string, destinationId: string): Promise<ForwardState | undefined>;
  /**
   * Replaces the destination's history on an existing record, unless it says `delivered` already (another
   * copy of the delivery got there first: only another `delivered` replaces it). With `expect`, only if
   * the history is still `previous` as `get` returned it (undefined: none yet): two copies of a delivery
   * attempted at once each count their attempt, rather than the later write undoing the earlier one.
   * Throws DependencyError.
   */
  put(
    pk: string,
    state: ForwardState,
    expect?: { previous: ForwardState | undefined },
  ): Promise<HistoryWrite>;
}

export interface DestinationStatus {
  enabled: boolean;
  /** Why it was disabled (`http_410`), and when (ISO-8601). */
  reason?: string;
  changedAt?: string;
}

export interface DestinationCounts {
  delivered: number;
  failed: number;
}

/** Whether each destination is enabled, and its recent counts. */
export interface DestinationStates {
  /** Throws DependencyError. Implementations may cache for a few seconds, unless `fresh`. */
  status(destinationId: string, options?: { fresh?: boolean }): Promise<DestinationStatus>;
  disable(destinationId: string, reason: string, nowMs: number): Promise<void>;
  enable(destinationId: string, nowMs: number): Promise<void>;
  /**
   * Adds to the hour's counts (one write per batch, not per attempt), once per call: a write sent again
   * because its answer was lost does not count again. Throws DependencyError.
   */
  count(destinationId: string, counts: DestinationCounts, nowMs: number): Promise<void>;
  /** The counts of the last `hours` hours, this one included. */
  recent(destinationId: string, hours: number, nowMs: number): Promise<DestinationCounts>;
}

/**
 * Stops and starts the deliveries' flow to a destination: on AWS its event source mapping, so a
 * disabled destination's queue is not received from (nothing counts against its receives) until enabled.
 * Local mode's poller reads DestinationStates instead, so its intake does nothing.
 */
export interface DestinationIntake {
  pause(destinationId: string): Promise<void>;
  resume(destinationId: string): Promise<void>;
}

/** The processor's fan-out: one queue per destination. */
export interface ForwardQueues {
  /** SendMessage to the destination's queue. Throws DependencyError. */
  send(destinationId: string, message: QueueMessage): Promise<{ messageId: string }>;
}
