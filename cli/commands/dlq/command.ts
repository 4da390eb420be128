// `webhook-inbox dlq list|show|redrive|purge`: the dead-letter queue. Listing and showing never consume a
// message (they peek); payloads are printed only with --payload, since they may carry personal data.
import { type Command, Option } from 'commander';
import pc from 'picocolors';
import type { ReceivedMessage } from '../../../lambdas/adapters/sqs-queue-ops';
import {
  describeMessage,
  entriesTable,
  envelopeOf,
  receivesNote,
  receivesText,
  str,
  withInboxFacts,
} from '../../operations/dlq-entry';
import type { Opened } from '../../operations/redrive-dlq';
import { addHelpAfter } from '../../shared/help-text';
import { CLI } from '../../shared/hint';
import {
  addJsonOption,
  addTargetOptions,
  duration,
  integer,
  type JsonOption,
  type TargetOptions,
} from '../../shared/options';
import {
  CliError,
  describeError,
  details,
  formatAge,
  parseDuration,
  print,
  printJson,
  terminalSafe,
  UsageError,
} from '../../shared/output';
import type { Target } from '../../shared/target-types';
import { DEFAULT_WAIT, type RedriveOptions, runRedrive } from './redrive';

interface DestinationOption {
  /** A destination's own queue and DLQ instead of the inbox's. */
  destination?: string;
}

/**
 * The target as the DLQ tools see it: with --destination, its queue and DLQ stand in for the inbox's,
 * so list, show, redrive and purge act on that destination's dead letters alone.
 */
function queuesOf(target: Target, destination: string | undefined): Target {
  if (destination === undefined) return target;
  const made = Object.hasOwn(target.destinations, destination) ? target.destinations[destination] : undefined;
  if (!made) {
    const known = Object.keys(target.destinations);
    throw new UsageError(
      `no queues for destination "${destination}" on ${target.description}` +
        (known.length > 0 ? `; destinations with queues: ${known.join(', ')}` : ' (none is configured)'),
    );
  }
  return {
    ...target,
    description: `${target.description}, destination ${destination}`,
    queueUrl: made.queueUrl,
    queueArn: made.queueArn,
    dlqUrl: made.dlqUrl,
    dlqArn: made.dlqArn,
  };
}

async function open(options: TargetOptions & DestinationOption): Promise<Opened> {
  const { loadProject } = await import('../../shared/project');
  const { config, cwd } = await loadProject();
  const { resolveTarget } = await import('../../shared/target');
  const resolved = await resolveTarget(options, config, cwd);
  let target: Target;
  try {
    target = queuesOf(resolved, options.destination);
  } catch (error) {
    resolved.close();
    throw error;
  }
  const clients = await target.clients();
  const { SqsQueueOps } = await import('../../../lambdas/adapters/sqs-queue-ops');
  const { DynamoInbox } = await import('../../../lambdas/adapters/dynamo-inbox');
  const { maxReceiveCount } = await import('../../../lambdas/core/retry-schedule');
  const made = options.destination === undefined ? undefined : config.destinations[options.destination];
  const steps =
    made === undefined
      ? config.queue.retrySchedule
      : 'retrySchedule' in made
        ? made.retrySchedule
        : undefined;
  return {
    target,
    ops: new SqsQueueOps(clients.sqs),
    inbox: new DynamoInbox(clients.dynamodb, target.tableName),
    ...(options.destination === undefined ? {} : { destination: options.destination }),
    ...(steps === undefined ? {} : { maxReceives: maxReceiveCount(steps) }),
  };
}

async function withQueue<T extends TargetOptions & DestinationOption>(
  options: T,
  run: (opened: Opened) => Promise<number>,
) {
  const opened = await open(options);
  try {
    process.exitCode = await run(opened);
  } finally {
    opened.target.close();
  }
}

/** The flag again, for hints that name a command to run next. */
function destinationFlag(destination: string | undefined): string {
  return destination === undefined ? '' : ` --destination ${destination}`;
}

function addDestinationOption(command: Command): Command {
  return command.option('--destination <id>', "a forward destination's DLQ instead of the inbox's");
}

export function registerDlq(program: Command): void {
  const dlq = program.command('dlq').description('inspect, redrive or purge the dead-letter queue');

  const list = dlq
    .command('list')
    .description('the messages in the DLQ, without consuming them')
    .option('--limit <n>', 'at most this many', integer(1, 10_000), 50);
  addTargetOptions(list);
  addDestinationOption(list);
  addJsonOption(list);
  list.action((options: TargetOptions & JsonOption & { limit: number }) =>
    withQueue(options, (opened) => runList(opened, options)),
  );

  const show = dlq
    .command('show')
    .description('one DLQ message: envelope facts, and the payload with --payload')
    .argument('<messageId>', 'as `dlq list` prints it, or a unique prefix of it (6 characters or more)')
    .option('--payload', 'print the payload too (it may hold personal data)')
    .option('--scan <n>', 'look at up to this many messages to find it', integer(1, 100_000), 1000);
  addTargetOptions(show);
  addDestinationOption(show);
  addJsonOption(show);
  show.action(
    (messageId: string, options: TargetOptions & JsonOption & { payload?: boolean; scan: number }) =>
      withQueue(options, (opened) => runShow(opened, messageId, options)),
  );

  const redrive = dlq
    .command('redrive')
    .description('move every DLQ message back to the main queue to be processed again')
    .option('--max-per-second <n>', 'rate limit (default: as fast as SQS allows)', integer(1, 500))
    .option('--dry-run', 'show what would be moved, change nothing')
    .option('--no-wait', 'print what moved and stop, without following the records')
    // The default as written (60s), not as parsed (60000): commander prints whichever it is given.
    .addOption(
      new Option('--wait-timeout <duration>', "how long to follow the moved deliveries' records")
        .argParser(duration)
        .default(parseDuration(DEFAULT_WAIT), DEFAULT_WAIT),
    );
  addTargetOptions(redrive);
  addDestinationOption(redrive);
  addJsonOption(redrive);
  addHelpAfter(redrive, [
    `On AWS this starts an SQS message move task (StartMessageMoveTask) and follows its progress. Locally (the emulator has no move tasks) each message is received, sent to the main queue with the same body and attributes (minus errorCode) and deleted from the DLQ only once the send succeeded. The inbox records of what moved go back to \`enqueued\` (unless the processor has taken them already), then the processor takes them as new messages. The command then reads each moved delivery's record until the processor is done with it, and prints what happened: processed, dead-lettered again (with its error code), or still pending when --wait-timeout runs out. The SQS console's "Start DLQ redrive" does the same move; every DLQ message got there through the queue's redrive policy, so it knows its source queue. Fix the cause first: a message that fails again is dead-lettered again.`,
  ]);
  redrive.action((options: TargetOptions & RedriveOptions) =>
    withQueue(options, (opened) => runRedrive(opened, options)),
  );

  const purge = dlq
    .command('purge')
    .description('delete every DLQ message for good (asks for --yes)')
    .option('--yes', 'really delete them');
  addTargetOptions(purge);
  addDestinationOption(purge);
  addJsonOption(purge);
  purge.action(async (options: TargetOptions & JsonOption & DestinationOption & { yes?: boolean }) => {
    if (!options.yes) {
      throw new UsageError(
        `dlq purge deletes every dead-lettered message for good; inspect them with \`${CLI} dlq list${destinationFlag(options.destination)}\`, then re-run with --yes`,
      );
    }
    await withQueue(options, (opened) => runPurge(opened, options));
  });
}

async function runList(
  { target, ops, inbox, destination, maxReceives }: Opened,
  options: JsonOption & { limit: number },
): Promise<number> {
  const counts = await ops.counts(target.dlqUrl);
  const peeked = await ops.peekQueue(target.dlqUrl, { limit: options.limit });
  const entries = await withInboxFacts(
    inbox,
    peeked.messages.map((m) => describeMessage(m)),
    destination,
  );
  if (options.json) {
    // stdout stays the array it always was; a listing that is not the whole DLQ says so on stderr.
    if (!peeked.whole && entries.length < options.limit)
      warn(partialNote(entries.length, peeked.aboutVisible));
    printJson(entries);
    return 0;
  }
  if (entries.length === 0) {
    const hidden = counts.inFlight > 0 ? ` (${counts.inFlight} in flight, invisible for now)` : '';
    print(
      peeked.whole
        ? pc.dim(`the dead-letter queue is empty${hidden} (${target.description})`)
        : pc.yellow(`${partialNote(0, peeked.aboutVisible)}${hidden} (${target.description})`),
    );
    return 0;
  }
  print(entriesTable(entries, maxReceives));
  const note = receivesNote(entries, maxReceives);
  if (note !== undefined) print(pc.dim(note));
  const total = Math.max(peeked.aboutVisible, counts.visible, entries.length);
  const summary =
    !peeked.whole && entries.length < options.limit
      ? pc.yellow(partialNote(entries.length, total))
      : pc.dim(`${entries.length} of ~${total} message${total === 1 ? '' : 's'}`);
  print(
    `${summary}${pc.dim(` (${target.description}); nothing was consumed. Details: ${CLI} dlq show <message id> [--payload]`)}`,
  );
  return 0;
}

/**
 * A peek that ran out of time before the DLQ was seen whole. SQS hands out a DLQ's messages a few at a
 * time and its counts are approximate, so this is said rather than passed off as the whole queue.
 */
export function partialNote(seen: number, aboutVisible: number): string {
  return `showing ${seen} of about ${aboutVisible}: the DLQ could not be read whole in time; run it again to see the rest`;
}

function warn(text: string): void {
  process.stderr.write(`webhook-inbox: ${text}\n`);
}

async function runShow(
  { target, ops, inbox, destination, maxReceives }: Opened,
  messageId: string,
  options: JsonOption & { payload?: boolean; scan: number },
): Promise<number> {
  const { byIdPrefix, requirePrefixLength } = await import('../../operations/id-prefix');
  requirePrefixLength(messageId, 'message id');
  const peeked = await ops.peekQueue(target.dlqUrl, { limit: options.scan });
  const message = byIdPrefix(peeked.messages, (m) => m.messageId, messageId, 'message id');
  if (!message) {
    const looked = `looked at ${peeked.messages.length}`;
    throw new CliError(
      peeked.whole
        ? `no message ${messageId} in the dead-letter queue (${looked})`
        : `message ${messageId} not found in the part of the dead-letter queue read in time (${looked} of about ${peeked.aboutVisible})`,
      peeked.whole ? `list them with \`${CLI} dlq list${destinationFlag(destination)}\`` : 'run it again',
    );
  }
  // The record's facts, or with --destination the delivery's history at that destination.
  const [entry] = await withInboxFacts(inbox, [describeMessage(message)], destination);
  if (!entry) throw new CliError(`cannot describe message ${message.messageId}`);
  let payload: Buffer | undefined;
  if (options.payload) payload = await loadPayload(target, message);
  const { sha256Hex } = await import('../../../lambdas/core/schemes/primitives');
  const payloadCheck =
    payload === undefined ? undefined : sha256Hex(payload) === entry.payloadSha256 ? 'ok' : 'MISMATCH';
  const text = payload?.toString('utf8');
  const isText = payload !== undefined && Buffer.from(text ?? '', 'utf8').equals(payload);

  if (options.json) {
    printJson({
      ...entry,
      attributes: message.attributes,
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
      ['error detail', entry.errorDetail],
      ['receives', receivesText(entry, maxReceives)],
      [
        'sent',
        entry.sentAt ? `${entry.sentAt} (${formatAge((entry.ageSeconds ?? 0) * 1000)} ago)` : undefined,
      ],
      [destination === undefined ? 'inbox status' : `status at ${destination}`, entry.inboxStatus],
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
    print(isText ? terminalSafe(text ?? '') : payload.toString('base64'));
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
  const { S3PayloadReader } = await import('../../../lambdas/adapters/s3-payloads');
  try {
    return (await new S3PayloadReader((await target.clients()).s3, target.bucketName).get(ref)).body;
  } catch (error) {
    throw new CliError(`cannot fetch the payload ${ref}: ${describeError(error)}`);
  }
}

async function runPurge({ target, ops }: Opened, options: JsonOption): Promise<number> {
  const counts = await ops.counts(target.dlqUrl);
  const total = counts.visible + counts.inFlight + counts.delayed;
  await ops.purge(target.dlqUrl);
  if (options.json) {
    // `from`, as `dlq redrive --json` names the DLQ it moved messages from.
    printJson({ purged: total, from: target.dlqUrl });
  } else {
    print(
      `purged ~${total} message${total === 1 ? '' : 's'} from ${target.dlqUrl} ` +
        pc.dim('(their inbox records stay `dead-lettered` until the dedup window ends)'),
    );
  }
  return 0;
}
