// `webhook-inbox dlq list|show|redrive|purge`: the dead-letter queue. Listing and showing never consume a
// message (they peek); payloads are printed only with --payload, since they may carry personal data.
import type { Command } from 'commander';
import pc from 'picocolors';
import type { DynamoInbox } from '../lambdas/adapters/dynamo-inbox';
import type { ReceivedMessage, SqsQueueOps } from '../lambdas/adapters/sqs-queue-ops';
import { addJsonOption, addTargetOptions, integer, type JsonOption, type TargetOptions } from './options';
import {
  CliError,
  dash,
  describeError,
  details,
  formatAge,
  print,
  printJson,
  table,
  truncate,
  UsageError,
} from './output';
import type { Target } from './target';

/** What the DLQ tools show of a message: its attributes and envelope facts, never the payload. */
export interface DlqEntry {
  messageId: string;
  provider?: string;
  eventType?: string;
  dedupKey?: string;
  deliveryId?: string;
  /**
   * Why the processor gave it up: the inbox record's last error code (a permanent error such as
   * `schema_mismatch`, or the transient one that failed the last receive). Older messages may carry it as
   * a message attribute instead.
   */
  errorCode?: string;
  /** The inbox record's status, when it was looked up. */
  inboxStatus?: string;
  receiveCount: number;
  sentAt?: string;
  ageSeconds?: number;
  payloadBytes?: number;
  payloadSha256?: string;
  /** `inline` or the S3 reference of a large body. */
  payloadLocation: string;
}

const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

function envelopeOf(message: ReceivedMessage): Record<string, unknown> {
  try {
    const parsed = JSON.parse(message.body);
    return typeof parsed === 'object' && parsed !== null ? parsed : {};
  } catch {
    return {};
  }
}

export function describeMessage(message: ReceivedMessage, nowMs = Date.now()): DlqEntry {
  const envelope = envelopeOf(message);
  const attributes = message.attributes;
  return {
    messageId: message.messageId,
    provider: attributes.provider ?? str(envelope.provider),
    eventType: attributes.eventType ?? str(envelope.type),
    dedupKey: attributes.dedupKey ?? str(envelope.dedupkey),
    deliveryId: str(envelope.deliveryid),
    errorCode: attributes.errorCode,
    receiveCount: message.receiveCount,
    sentAt: message.sentAtMs ? new Date(message.sentAtMs).toISOString() : undefined,
    ageSeconds: message.sentAtMs ? Math.max(0, Math.round((nowMs - message.sentAtMs) / 1000)) : undefined,
    payloadBytes: typeof envelope.payloadbytes === 'number' ? envelope.payloadbytes : undefined,
    payloadSha256: str(envelope.payloadsha256),
    payloadLocation: str(envelope.dataref) ?? (str(envelope.data_base64) !== undefined ? 'inline' : 'none'),
  };
}

const errorLabel = (entry: DlqEntry) => entry.errorCode ?? pc.dim('unknown');

/** Adds the inbox record's error code and status to each entry, a few lookups at a time. */
async function withInboxFacts(inbox: DynamoInbox, entries: DlqEntry[]): Promise<DlqEntry[]> {
  const out: DlqEntry[] = [];
  for (let start = 0; start < entries.length; start += 10) {
    const slice = entries.slice(start, start + 10);
    out.push(
      ...(await Promise.all(
        slice.map(async (entry) => {
          if (!entry.provider || !entry.dedupKey) return entry;
          const record = await inbox.get(`${entry.provider}#${entry.dedupKey}`);
          return {
            ...entry,
            errorCode: entry.errorCode ?? record?.lastErrorCode,
            inboxStatus: record?.status,
          };
        }),
      )),
    );
  }
  return out;
}

function entriesTable(entries: DlqEntry[]): string {
  return table(
    ['message id', 'provider', 'event', 'dedup key', 'error', 'receives', 'age'],
    entries.map((e) => [
      e.messageId,
      dash(e.provider),
      dash(e.eventType),
      e.dedupKey ? truncate(e.dedupKey, 36) : pc.dim('-'),
      errorLabel(e),
      String(e.receiveCount),
      e.ageSeconds === undefined ? pc.dim('-') : formatAge(e.ageSeconds * 1000),
    ]),
  );
}

interface Opened {
  target: Target;
  ops: SqsQueueOps;
  inbox: DynamoInbox;
}

async function open(options: TargetOptions): Promise<Opened> {
  const { loadProject } = await import('./context');
  const { config, cwd } = await loadProject();
  const { resolveTarget } = await import('./target');
  const target = await resolveTarget(options, config, cwd);
  const clients = await target.clients();
  const { SqsQueueOps } = await import('../lambdas/adapters/sqs-queue-ops');
  const { DynamoInbox } = await import('../lambdas/adapters/dynamo-inbox');
  return {
    target,
    ops: new SqsQueueOps(clients.sqs),
    inbox: new DynamoInbox(clients.dynamodb, target.tableName),
  };
}

async function withQueue<T extends TargetOptions>(options: T, run: (opened: Opened) => Promise<number>) {
  const opened = await open(options);
  try {
    process.exitCode = await run(opened);
  } finally {
    opened.target.close();
  }
}

export function registerDlq(program: Command): void {
  const dlq = program.command('dlq').description('inspect, redrive or purge the dead-letter queue');

  const list = dlq
    .command('list')
    .description('the messages in the DLQ, without consuming them')
    .option('--limit <n>', 'at most this many', integer(1, 10_000), 50);
  addTargetOptions(list);
  addJsonOption(list);
  list.action((options: TargetOptions & JsonOption & { limit: number }) =>
    withQueue(options, (opened) => runList(opened, options)),
  );

  const show = dlq
    .command('show')
    .description('one DLQ message: envelope facts, and the payload with --payload')
    .argument('<messageId>', 'as `dlq list` prints it')
    .option('--payload', 'print the payload too (it may hold personal data)')
    .option('--scan <n>', 'look at up to this many messages to find it', integer(1, 100_000), 1000);
  addTargetOptions(show);
  addJsonOption(show);
  show.action(
    (messageId: string, options: TargetOptions & JsonOption & { payload?: boolean; scan: number }) =>
      withQueue(options, (opened) => runShow(opened, messageId, options)),
  );

  const redrive = dlq
    .command('redrive')
    .description('move every DLQ message back to the main queue to be processed again')
    .option('--max-per-second <n>', 'rate limit (default: as fast as SQS allows)', integer(1, 500))
    .option('--dry-run', 'show what would be moved, change nothing');
  addTargetOptions(redrive);
  addJsonOption(redrive);
  redrive.addHelpText(
    'after',
    `
On AWS this starts an SQS message move task (StartMessageMoveTask) and follows its progress. Locally
(the emulator has no move tasks) each message is received, sent to the main queue with the same body
and attributes (minus errorCode) and deleted from the DLQ only once the send succeeded. The inbox
records of what moved go back to \`enqueued\` (unless the processor has taken them already), then the
processor takes them as new messages. The SQS console's "Start DLQ redrive" does the same move; every
DLQ message got there through the queue's redrive policy, so it knows its source queue. Fix the cause
first: a message that fails again is dead-lettered again.`,
  );
  redrive.action((options: TargetOptions & JsonOption & { maxPerSecond?: number; dryRun?: boolean }) =>
    withQueue(options, (opened) => runRedrive(opened, options)),
  );

  const purge = dlq
    .command('purge')
    .description('delete every DLQ message for good (asks for --yes)')
    .option('--yes', 'really delete them');
  addTargetOptions(purge);
  addJsonOption(purge);
  purge.action(async (options: TargetOptions & JsonOption & { yes?: boolean }) => {
    if (!options.yes) {
      throw new UsageError(
        'dlq purge deletes every dead-lettered message for good; inspect them with `webhook-inbox dlq list`, then re-run with --yes',
      );
    }
    await withQueue(options, (opened) => runPurge(opened, options));
  });
}

async function runList(
  { target, ops, inbox }: Opened,
  options: JsonOption & { limit: number },
): Promise<number> {
  const counts = await ops.counts(target.dlqUrl);
  const entries = await withInboxFacts(
    inbox,
    (await ops.peek(target.dlqUrl, { limit: options.limit })).map((m) => describeMessage(m)),
  );
  if (options.json) {
    printJson(entries);
    return 0;
  }
  if (entries.length === 0) {
    const hidden = counts.inFlight > 0 ? ` (${counts.inFlight} in flight, invisible for now)` : '';
    print(pc.dim(`the dead-letter queue is empty${hidden} (${target.description})`));
    return 0;
  }
  print(entriesTable(entries));
  const total = Math.max(counts.visible, entries.length);
  print(
    pc.dim(
      `${entries.length} of ~${total} message${total === 1 ? '' : 's'} (${target.description}); nothing was consumed. ` +
        'Details: webhook-inbox dlq show <message id> [--payload]',
    ),
  );
  return 0;
}

async function runShow(
  { target, ops, inbox }: Opened,
  messageId: string,
  options: JsonOption & { payload?: boolean; scan: number },
): Promise<number> {
  const peeked = await ops.peek(target.dlqUrl, { limit: options.scan });
  const message = peeked.find((m) => m.messageId === messageId);
  if (!message) {
    throw new CliError(
      `no message ${messageId} in the dead-letter queue (looked at ${peeked.length})`,
      'list them with `webhook-inbox dlq list`',
    );
  }
  const described = describeMessage(message);
  const record =
    described.provider && described.dedupKey
      ? await inbox.get(`${described.provider}#${described.dedupKey}`)
      : undefined;
  const entry = { ...described, errorCode: described.errorCode ?? record?.lastErrorCode };
  let payload: Buffer | undefined;
  if (options.payload) payload = await loadPayload(target, message);
  const { sha256Hex } = await import('../lambdas/core/schemes/primitives');
  const payloadCheck =
    payload === undefined ? undefined : sha256Hex(payload) === entry.payloadSha256 ? 'ok' : 'MISMATCH';
  const text = payload?.toString('utf8');
  const isText = payload !== undefined && Buffer.from(text ?? '', 'utf8').equals(payload);

  if (options.json) {
    printJson({
      ...entry,
      attributes: message.attributes,
      inboxStatus: record?.status,
      ...(payload === undefined
        ? {}
        : {
            payloadSha256Check: payloadCheck,
            ...(isText ? { payload: text } : { payloadBase64: payload.toString('base64') }),
          }),
    });
    return 0;
  }
  print(
    details([
      ['message id', entry.messageId],
      ['provider', entry.provider],
      ['event type', entry.eventType],
      ['dedup key', entry.dedupKey],
      ['delivery id', entry.deliveryId],
      ['error code', entry.errorCode ?? 'unknown (no inbox record)'],
      ['receives', entry.receiveCount],
      [
        'sent',
        entry.sentAt ? `${entry.sentAt} (${formatAge((entry.ageSeconds ?? 0) * 1000)} ago)` : undefined,
      ],
      ['inbox status', record?.status],
      [
        'payload',
        `${entry.payloadLocation}${entry.payloadBytes === undefined ? '' : `, ${entry.payloadBytes} bytes`}`,
      ],
      ['payload sha256', entry.payloadSha256],
      [
        'attributes',
        Object.entries(message.attributes)
          .map(([k, v]) => `${k}=${v}`)
          .join(' '),
      ],
    ]),
  );
  if (payload === undefined) {
    print(pc.dim('payload not shown (it may hold personal data); add --payload to print it'));
  } else {
    print(pc.bold(`payload (${payload.length} bytes, sha256 ${payloadCheck}):`));
    print(isText ? text : payload.toString('base64'));
  }
  return 0;
}

async function loadPayload(target: Target, message: ReceivedMessage): Promise<Buffer> {
  const envelope = envelopeOf(message);
  const inline = str(envelope.data_base64);
  if (inline !== undefined) return Buffer.from(inline, 'base64');
  const ref = str(envelope.dataref);
  if (ref === undefined)
    throw new CliError(`message ${message.messageId} carries no payload (not an inbox envelope)`);
  const { S3PayloadReader } = await import('../lambdas/adapters/s3-payloads');
  try {
    return (await new S3PayloadReader((await target.clients()).s3, target.bucketName).get(ref)).body;
  } catch (error) {
    throw new CliError(`cannot fetch the payload ${ref}: ${describeError(error)}`);
  }
}

async function progressBar(enabled: boolean, total: number) {
  if (!enabled || !process.stderr.isTTY) return undefined;
  const { SingleBar, Presets } = await import('cli-progress');
  const bar = new SingleBar(
    { format: 'redrive [{bar}] {value}/{total} messages', hideCursor: true, stream: process.stderr },
    Presets.shades_classic,
  );
  bar.start(Math.max(total, 1), 0);
  return bar;
}

async function runRedrive(
  opened: Opened,
  options: JsonOption & { maxPerSecond?: number; dryRun?: boolean },
): Promise<number> {
  const { target, ops } = opened;
  if (options.dryRun) {
    const counts = await ops.counts(target.dlqUrl);
    const entries = (await ops.peek(target.dlqUrl, { limit: Math.max(counts.visible, 1) + 100 })).map((m) =>
      describeMessage(m),
    );
    if (options.json) {
      printJson({
        dryRun: true,
        wouldMove: entries.length,
        from: target.dlqUrl,
        to: target.queueUrl,
        messages: entries,
      });
    } else {
      if (entries.length > 0) print(entriesTable(entries));
      print(
        `dry run: would move ${entries.length} message${entries.length === 1 ? '' : 's'} to ${target.queueUrl}`,
      );
    }
    return 0;
  }
  const result =
    target.kind === 'aws' ? await redriveOnAws(opened, options) : await redriveLocally(opened, options);
  const after = await ops.counts(target.dlqUrl);
  if (options.json) {
    printJson({
      ...result,
      from: target.dlqUrl,
      to: target.queueUrl,
      dlqRemaining: after.visible + after.inFlight,
    });
  } else {
    print(
      `${pc.green(`moved ${result.moved} message${result.moved === 1 ? '' : 's'}`)} from the DLQ to ${target.queueUrl}; ` +
        'the processor takes them up as new messages and their inbox records go `processing`, then `processed`. ' +
        'Follow them with `webhook-inbox deliveries list`.',
    );
    if (after.visible + after.inFlight > 0) {
      print(
        pc.dim(
          `${after.visible + after.inFlight} message(s) in the DLQ now (arrived during the redrive, or failed again)`,
        ),
      );
    }
  }
  return 0;
}

/**
 * Marks the inbox record of a message that moved `enqueued` again, if it is still as the give-up left it
 * before `sinceMs` (see DynamoInbox.markRequeued): whatever the processor has done since with the moved
 * copy wins. A failed mark is not an error: the processor brings the record along when it takes the copy.
 */
async function markRequeued(inbox: DynamoInbox, entry: DlqEntry, sinceMs: number): Promise<boolean> {
  if (!entry.provider || !entry.dedupKey) return false;
  return inbox.markRequeued(`${entry.provider}#${entry.dedupKey}`, Date.now(), sinceMs).catch(() => false);
}

async function redriveLocally(
  { target, ops, inbox }: Opened,
  options: JsonOption & { maxPerSecond?: number },
): Promise<{ moved: number; method: string }> {
  const startedMs = Date.now();
  // A snapshot of the count: a message that fails again during the run is not chased round in circles.
  const total = (await ops.counts(target.dlqUrl)).visible;
  const bar = await progressBar(!options.json, total);
  const spacingMs = options.maxPerSecond ? 1000 / options.maxPerSecond : 0;
  let nextAt = Date.now();
  let moved = 0;
  try {
    while (moved < total) {
      const batch = await ops.receive(target.dlqUrl, {
        maxMessages: Math.min(10, total - moved),
        visibilitySeconds: 120,
      });
      if (batch.length === 0) break;
      for (const message of batch) {
        const wait = nextAt - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        nextAt = Math.max(nextAt, Date.now()) + spacingMs;
        const entry = describeMessage(message);
        const { errorCode: _errorCode, ...attributes } = message.attributes;
        try {
          await ops.sendRaw(target.queueUrl, message.body, attributes);
        } catch (error) {
          throw new CliError(
            `redrive stopped after ${moved} message(s): cannot send to the main queue: ${describeError(error)}`,
            'the message that failed is still in the DLQ; run the redrive again',
          );
        }
        // Only after the send succeeded: a failure here leaves a copy in the DLQ, never a lost message.
        await ops.delete(target.dlqUrl, message.receiptHandle);
        // Only what moved is marked, and only after it moved: a record the processor has already taken
        // (leased, processed, given up again) is left as it is.
        await markRequeued(inbox, entry, startedMs);
        moved++;
        bar?.update(moved);
      }
    }
  } finally {
    bar?.stop();
  }
  return { moved, method: 'receive-send-delete' };
}

async function redriveOnAws(
  { target, ops, inbox }: Opened,
  options: JsonOption & { maxPerSecond?: number },
): Promise<{ moved: number; method: string; taskHandle?: string }> {
  const { latestMessageMove, startMessageMove } = await import('./aws');
  const sqs = (await target.clients()).sqs;
  // What is there before the move: their records are marked once the task has completed, not before (a
  // task SQS refuses, say because one is already running, must leave them saying dead-lettered).
  const startedMs = Date.now();
  const counts = await ops.counts(target.dlqUrl);
  const entries = (await ops.peek(target.dlqUrl, { limit: Math.min(counts.visible + 100, 10_000) })).map(
    (m) => describeMessage(m),
  );
  const taskHandle = await startMessageMove(sqs, {
    dlqArn: target.dlqArn,
    queueArn: target.queueArn,
    maxPerSecond: options.maxPerSecond,
  });
  const bar = await progressBar(!options.json, Math.max(counts.visible, entries.length));
  try {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const task = await latestMessageMove(sqs, target.dlqArn);
      if (!task || (taskHandle !== undefined && task.taskHandle !== taskHandle)) continue;
      if (task.toMove !== undefined) bar?.setTotal(Math.max(task.toMove, 1));
      bar?.update(task.moved);
      if (task.status === 'RUNNING') continue;
      if (task.status === 'COMPLETED') {
        for (const entry of entries) await markRequeued(inbox, entry, startedMs);
        return { moved: task.moved, method: 'StartMessageMoveTask', taskHandle };
      }
      throw new CliError(
        `the redrive task ended ${task.status} after ${task.moved} message(s)${task.failureReason ? `: ${task.failureReason}` : ''}`,
        'run `webhook-inbox dlq redrive` again once the cause is fixed',
      );
    }
  } finally {
    bar?.stop();
  }
}

async function runPurge({ target, ops }: Opened, options: JsonOption): Promise<number> {
  const counts = await ops.counts(target.dlqUrl);
  const total = counts.visible + counts.inFlight + counts.delayed;
  await ops.purge(target.dlqUrl);
  if (options.json) {
    printJson({ purged: total, dlq: target.dlqUrl });
  } else {
    print(
      `purged ~${total} message${total === 1 ? '' : 's'} from ${target.dlqUrl} ` +
        pc.dim('(their inbox records stay `dead-lettered` until the dedup window ends)'),
    );
  }
  return 0;
}
