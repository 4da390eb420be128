// A redrive of some dead letters, not all: the DLQ is received from, the messages that match go back to
// the main queue (as `dlq redrive` moves them, one by one: moveMessage), and the others are made visible
// again at once. SQS's move task takes a whole queue or nothing, so this is the way to redrive a group
// (one provider's `schema_mismatch`s) or the deliveries an operator picked in the console.
import type { ReceivedMessage } from '../../lambdas/adapters/sqs-queue-ops';
import { type DlqEntry, describeMessage } from './dlq-entry';
import { moveMessage, type Opened, sweepSecondCopies } from './redrive-dlq';

export interface SelectiveRedrive {
  /** Which DLQ messages to move, from what their attributes and envelope say. */
  matches(entry: DlqEntry): boolean;
  /** How many are expected (from the inbox records): the move stops once that many have moved. */
  expected?: number;
  onProgress?(moved: number, seen: number): void;
}

export interface SelectiveResult {
  moved: number;
  /** How many distinct deliveries (inbox keys) the moved messages were for. */
  deliveries: number;
  /** Messages looked at and left in the DLQ. */
  left: number;
}

/** Long enough to look through a DLQ of thousands without handing a looked-at message out twice. */
const HOLD_SECONDS = 300;
/**
 * Long polls, and two empty ones in a row, before the DLQ counts as looked through: a short poll samples
 * only some of SQS's servers and can come back empty while messages remain, which would report chosen dead
 * letters as gone.
 */
const WAIT_SECONDS = 2;
const EMPTY_POLLS = 2;

/** The key a DLQ message and an inbox record share: `provider#dedupKey`. */
export function entryKey(entry: DlqEntry): string | undefined {
  return entry.provider && entry.dedupKey ? `${entry.provider}#${entry.dedupKey}` : undefined;
}

export async function redriveSelected(opened: Opened, select: SelectiveRedrive): Promise<SelectiveResult> {
  const { target, ops } = opened;
  const startedMs = Date.now();
  /** Every copy looked at and left, each released at the end (the newest handle is the one SQS honours). */
  const held: ReceivedMessage[] = [];
  const deliveries = new Set<string>();
  // What the DLQ held when the move began: once that many have been looked at, there is nothing more to
  // find (messages that arrive later are not chased).
  const present = (await ops.counts(target.dlqUrl)).visible;
  let moved = 0;
  let empty = 0;
  const movedIds = new Set<string>();
  const heldIds = new Set<string>();
  try {
    while (
      (select.expected === undefined || deliveries.size < select.expected) &&
      moved + heldIds.size < Math.max(present, 1) &&
      empty < EMPTY_POLLS
    ) {
      const batch = await ops.receive(target.dlqUrl, {
        maxMessages: 10,
        visibilitySeconds: HOLD_SECONDS,
        waitSeconds: WAIT_SECONDS,
      });
      empty = batch.length === 0 ? empty + 1 : 0;
      for (const message of batch) {
        // SQS delivers at least once: a second copy of a message already looked at has a handle of its own.
        if (movedIds.has(message.messageId)) {
          // Already sent to the main queue; the first copy's delete may not have taken, this one's does.
          await ops.delete(target.dlqUrl, message.receiptHandle);
          continue;
        }
        if (heldIds.has(message.messageId)) {
          held.push(message);
          continue;
        }
        const entry = describeMessage(message);
        if (select.matches(entry)) {
          await moveMessage(opened, message, startedMs, moved);
          movedIds.add(message.messageId);
          moved++;
          const key = entryKey(entry);
          if (key !== undefined) deliveries.add(key);
        } else {
          held.push(message);
          heldIds.add(message.messageId);
        }
        select.onProgress?.(moved, moved + heldIds.size);
      }
    }
    // Second copies of what moved, handed out after the look-through, would read as dead letters still.
    if (moved > 0) await sweepSecondCopies(opened, movedIds);
  } finally {
    // Released even when a move failed: the others must not stay hidden for the whole hold.
    for (const message of held) {
      await ops.changeVisibility(target.dlqUrl, message.receiptHandle, 0).catch(() => undefined);
    }
  }
  return { moved, deliveries: deliveries.size, left: heldIds.size };
}
