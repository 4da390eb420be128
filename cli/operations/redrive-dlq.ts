// Moving dead-lettered messages back to the main queue (`dlq redrive`, the console). On AWS with SQS's own
// message move task (the same move the AWS console's "Start DLQ redrive" makes); locally, where the
// emulator has none, by receive, send and delete. Either way only what moved is marked, and only after it
// moved.
import type { DynamoInbox } from '../../lambdas/adapters/dynamo-inbox';
import type { MoveTaskStatus, ReceivedMessage, SqsQueueOps } from '../../lambdas/adapters/sqs-queue-ops';
import { CLI } from '../shared/hint';
import type { JsonOption } from '../shared/options';
import { CliError, describeError } from '../shared/output';
import { progressBar } from '../shared/progress-bar';
import type { Target } from '../shared/target-types';
import { type DlqEntry, describeMessage } from './dlq-entry';

/** A target opened for the DLQ tools: its queues and its inbox, through the adapters. */
export interface Opened {
  target: Target;
  ops: SqsQueueOps;
  inbox: DynamoInbox;
  /**
   * The forward destination whose queue and DLQ these are (`--destination`). Its redriven messages are
   * taken up by the forwarder, which reads the delivery's history itself: no inbox record is marked.
   */
  destination?: string;
  /** The redrive policy's maxReceiveCount for this queue, as the project's config sets it. */
  maxReceives?: number;
}

/** Moves the whole DLQ back to the main queue: SQS's move task on AWS, receive-send-delete locally. */
export async function redriveDlq(
  opened: Opened,
  options: JsonOption & { maxPerSecond?: number },
): Promise<{
  moved: number;
  method: string;
  taskHandle?: string;
  notMarked?: string;
  /** The messages known to have moved (on AWS, those seen gone from the DLQ after the task). */
  movedEntries: DlqEntry[];
}> {
  return opened.target.kind === 'aws' ? redriveOnAws(opened, options) : redriveLocally(opened, options);
}

/**
 * Marks the inbox record of a message that moved `enqueued` again, if it is still as the give-up left it
 * before `sinceMs` (see DynamoInbox.markRequeued): whatever the processor has done since with the moved
 * copy wins. A failed mark is not an error: the processor brings the record along when it takes the copy.
 */
async function markRequeued(
  { inbox, destination }: Opened,
  entry: DlqEntry,
  sinceMs: number,
): Promise<boolean> {
  if (destination !== undefined) return false;
  if (!entry.provider || !entry.dedupKey) return false;
  const pk = `${entry.provider}#${entry.dedupKey}`;
  await inbox.noteRedriven(pk, Date.now()).catch(() => false);
  return inbox.markRequeued(pk, Date.now(), sinceMs).catch(() => false);
}

/**
 * Moves one received DLQ message to the main queue: sent with the same body and attributes (minus
 * errorCode), deleted from the DLQ only once the send succeeded, then its inbox record marked. Shared by
 * the whole-queue move here and the selective one (redrive-selected.ts). `movedBefore` is for the message.
 */
export async function moveMessage(
  opened: Opened,
  message: ReceivedMessage,
  startedMs: number,
  movedBefore: number,
): Promise<DlqEntry> {
  const { target, ops } = opened;
  const entry = describeMessage(message);
  const { errorCode: _errorCode, ...attributes } = message.attributes;
  try {
    await ops.sendRaw(target.queueUrl, message.body, attributes);
  } catch (error) {
    throw new CliError(
      `redrive stopped after ${movedBefore} message(s): cannot send to the main queue: ${describeError(error)}`,
      'the message that failed is still in the DLQ; run the redrive again',
    );
  }
  // Only after the send succeeded: a failure here leaves a copy in the DLQ, never a lost message.
  await ops.delete(target.dlqUrl, message.receiptHandle);
  // Only what moved is marked, and only after it moved: a record the processor has already taken
  // (leased, processed, given up again) is left as it is.
  await markRequeued(opened, entry, startedMs);
  return entry;
}

async function redriveLocally(
  opened: Opened,
  options: JsonOption & { maxPerSecond?: number },
): Promise<{ moved: number; method: string; movedEntries: DlqEntry[] }> {
  const { target, ops } = opened;
  const startedMs = Date.now();
  // A snapshot of the count: a message that fails again during the run is not chased round in circles.
  const total = (await ops.counts(target.dlqUrl)).visible;
  const bar = await progressBar('redrive', 'messages', !options.json);
  bar?.progress(0, total);
  const spacingMs = options.maxPerSecond ? 1000 / options.maxPerSecond : 0;
  let nextAt = Date.now();
  let moved = 0;
  const movedIds = new Set<string>();
  const movedEntries: DlqEntry[] = [];
  try {
    // Long polls: a short poll samples some of SQS's servers and may answer empty while messages wait, so
    // only an empty long poll (every server asked) means nothing is left.
    while (moved < total) {
      const batch = await ops.receive(target.dlqUrl, {
        maxMessages: Math.min(10, total - moved),
        visibilitySeconds: 120,
        waitSeconds: REDRIVE_POLL_SECONDS,
      });
      if (batch.length === 0) break;
      for (const message of batch) {
        if (movedIds.has(message.messageId)) {
          // A second copy of a message already sent to the main queue (SQS delivers at least once): the
          // delete by the first copy's handle may not have taken, so this copy's handle deletes it.
          await ops.delete(target.dlqUrl, message.receiptHandle);
          continue;
        }
        const wait = nextAt - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        nextAt = Math.max(nextAt, Date.now()) + spacingMs;
        movedEntries.push(await moveMessage(opened, message, startedMs, moved));
        movedIds.add(message.messageId);
        moved++;
        bar?.progress(moved, total);
      }
    }
    if (moved > 0) await sweepSecondCopies(opened, movedIds);
  } finally {
    bar?.stop();
  }
  return { moved, method: 'receive-send-delete', movedEntries };
}

/**
 * Deletes the second copies SQS may hand out of messages already moved (it delivers at least once), so
 * they are neither left in the DLQ as if they had failed again nor moved twice by the next redrive. Stops
 * at the first empty long poll, or at a message not moved by this run (arrived since, or failed again),
 * which is made visible again and left for the next redrive.
 */
export async function sweepSecondCopies({ target, ops }: Opened, movedIds: Set<string>): Promise<void> {
  for (let polls = 0; polls < SWEEP_POLLS; polls++) {
    const batch = await ops.receive(target.dlqUrl, { visibilitySeconds: 30, waitSeconds: 1 });
    const others = batch.filter((message) => !movedIds.has(message.messageId));
    for (const message of batch) {
      if (movedIds.has(message.messageId)) await ops.delete(target.dlqUrl, message.receiptHandle);
      else await ops.changeVisibility(target.dlqUrl, message.receiptHandle, 0).catch(() => undefined);
    }
    if (batch.length === 0 || others.length > 0) return;
  }
}

/** A bound on the sweep, for a DLQ whose copies keep coming. */
const SWEEP_POLLS = 20;

/** The local redrive's long polls: answered at once while messages are visible, so this bounds only the last. */
const REDRIVE_POLL_SECONDS = 2;

/** Clocks differ: a task SQS says started this long before we asked for it may still be ours. */
const CLOCK_SKEW_MS = 60_000;

/**
 * Whether the DLQ's latest task is the one we started. SQS names a task's handle only while it is RUNNING,
 * so a finished one is recognised by its start time instead.
 */
function isOurTask(task: MoveTaskStatus, taskHandle: string | undefined, startedMs: number): boolean {
  if (task.taskHandle !== undefined) return taskHandle === undefined || task.taskHandle === taskHandle;
  return task.startedAtMs === undefined || task.startedAtMs >= startedMs - CLOCK_SKEW_MS;
}

/** How often the move task's progress is read. */
const MOVE_POLL_MS = 2_000;
/**
 * How long a started task may stay missing from ListMessageMoveTasks before the command stops waiting. A
 * listing can lag the start by a moment; one that never shows the task (another tool's task replaced it, or
 * the listing is refused) would otherwise keep the command polling for ever.
 */
const UNLISTED_TASK_WAIT_MS = 60_000;

export async function redriveOnAws(
  opened: Opened,
  options: JsonOption & { maxPerSecond?: number; pollMs?: number; unlistedWaitMs?: number },
): Promise<{
  moved: number;
  method: string;
  taskHandle?: string;
  /** Records marked `enqueued`: those whose messages were seen gone from the DLQ. */
  marked: number;
  /** The messages seen before the move and still in the DLQ after it: `provider/dedupKey`, or the id. */
  stillInDlq: string[];
  /** Why some records were not marked, for the operator. */
  notMarked?: string;
  movedEntries: DlqEntry[];
}> {
  const { target, ops } = opened;
  // What is there before the move: once the task has ended, the records of those no longer in the DLQ are
  // marked, not before (a task SQS refuses, say because one is already running, must leave them saying
  // dead-lettered), and not the others (a task that ended early left them where they were).
  const startedMs = Date.now();
  // A peek that could not see the whole DLQ in time leaves some records unmarked: the processor brings each
  // along when it takes the moved copy, so that is slower to show, not wrong.
  const counts = await ops.counts(target.dlqUrl);
  const entries = (await ops.peek(target.dlqUrl, { limit: Math.min(counts.visible + 100, 10_000) })).map(
    (m) => describeMessage(m),
  );
  let taskHandle: string | undefined;
  try {
    taskHandle = await ops.startMessageMove({
      sourceArn: target.dlqArn,
      destinationArn: target.queueArn,
      maxPerSecond: options.maxPerSecond,
    });
  } catch (error) {
    throw new CliError(
      `cannot start the redrive (StartMessageMoveTask): ${describeError(error)}`,
      'nothing was moved or marked; if a move task is already running, wait for it (or cancel it) and run this again',
    );
  }
  const bar = await progressBar('redrive', 'messages', !options.json);
  let total = Math.max(counts.visible, entries.length);
  try {
    const pollMs = options.pollMs ?? MOVE_POLL_MS;
    // Counted in polls, not read from a clock: each poll waits pollMs first.
    const unlistedPolls = Math.ceil((options.unlistedWaitMs ?? UNLISTED_TASK_WAIT_MS) / pollMs);
    for (let missing = 0; ; ) {
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      const task = await ops.latestMessageMove(target.dlqArn);
      if (!task || !isOurTask(task, taskHandle, startedMs)) {
        missing += 1;
        if (missing >= unlistedPolls) {
          throw new CliError(
            `the redrive task${taskHandle ? ` ${taskHandle}` : ''} was started, but ListMessageMoveTasks has not listed it for ${Math.round((missing * pollMs) / 1000)} s; records were not marked`,
            `see its progress with \`aws sqs list-message-move-tasks --source-arn <DLQ ARN>\`, then run \`${CLI} dlq list\``,
          );
        }
        continue;
      }
      missing = 0;
      if (task.toMove !== undefined) total = task.toMove;
      bar?.progress(task.moved, total);
      // A task being cancelled may still move what it has taken: it has ended once CANCELLED.
      if (task.status === 'RUNNING' || task.status === 'CANCELLING') continue;
      // The task's count is approximate and says nothing of which messages moved (it may end early, and
      // messages come and go meanwhile): a record is marked only once its message is seen gone from the
      // DLQ. A long-polled peek of the whole DLQ tells; a peek that could not see it whole tells nothing.
      const afterMove = await ops.peekQueue(target.dlqUrl, {
        limit: Math.min(Math.max((await ops.counts(target.dlqUrl)).visible, entries.length) + 100, 10_000),
      });
      const stillThere = new Set(afterMove.messages.map((m) => m.messageId));
      const stayed = afterMove.whole ? entries.filter((e) => stillThere.has(e.messageId)) : [];
      const gone = afterMove.whole ? entries.filter((e) => !stillThere.has(e.messageId)) : [];
      let marked = 0;
      for (const entry of gone) if (await markRequeued(opened, entry, startedMs)) marked++;
      const named = stayed.map((e) =>
        e.provider && e.dedupKey ? `${e.provider}/${e.dedupKey}` : e.messageId,
      );
      const notMarked = !afterMove.whole
        ? 'the DLQ could not be read whole after the move, so no record was marked (the processor marks each as it takes its moved copy)'
        : stayed.length > 0
          ? `${stayed.length} message(s) are still in the DLQ, their records left as they were: ${named.slice(0, 20).join(', ')}${named.length > 20 ? ` and ${named.length - 20} more` : ''}`
          : undefined;
      if (task.status === 'COMPLETED') {
        return {
          moved: task.moved,
          method: 'StartMessageMoveTask',
          taskHandle,
          marked,
          stillInDlq: named,
          movedEntries: gone,
          ...(notMarked === undefined ? {} : { notMarked }),
        };
      }
      throw new CliError(
        `the redrive task ended ${task.status} after moving ${task.moved}${task.toMove === undefined ? '' : ` of ${task.toMove}`} message(s)` +
          `${task.failureReason ? `: ${task.failureReason}` : ''}; ${marked} record(s) marked enqueued` +
          `${notMarked === undefined ? '' : `; ${notMarked}`}`,
        `run \`${CLI} dlq redrive\` again once the cause is fixed`,
      );
    }
  } finally {
    bar?.stop();
  }
}
