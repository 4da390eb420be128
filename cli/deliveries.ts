// `webhook-inbox deliveries list|show`: what the inbox table says about deliveries: status, attempts,
// last error, times, queue message id.
import { type Command, InvalidArgumentError } from 'commander';
import pc from 'picocolors';
import { FORWARD_ATTRIBUTE_PREFIX, forwardStatesOf } from '../lambdas/core/destinations/forward-state';
import type { InboxRecord } from '../lambdas/core/inbox';
import { INBOX_STATUSES } from '../lambdas/core/inbox';
import { addJsonOption, addTargetOptions, integer, type JsonOption, type TargetOptions } from './options';
import {
  CliError,
  dash,
  details,
  formatTime,
  inboxStatus,
  parseDuration,
  print,
  printJson,
  table,
  truncate,
  UsageError,
} from './output';
import { registerReplay } from './replay-command';
import type { Target } from './target-types';

const STATUSES: readonly string[] = INBOX_STATUSES;

interface ListOptions extends TargetOptions, JsonOption {
  provider?: string;
  status?: string;
  since?: number;
  limit: number;
}

function status(value: string): string {
  if (!STATUSES.includes(value)) throw new InvalidArgumentError(`must be one of ${STATUSES.join(', ')}`);
  return value;
}

function duration(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined) throw new InvalidArgumentError('a duration such as 30s, 15m, 2h or 7d');
  return ms;
}

/**
 * The record without the lease tokens, which mean nothing outside the pipeline, and with each
 * destination's history (its `forward:<id>` attributes) as one `destinations` list.
 */
function publicRecord(record: InboxRecord) {
  // The archived body may carry personal data: shown only on --reveal (seed 002), never in a listing.
  const { claimToken: _claim, processingToken: _processing, archiveBody: _body, ...rest } = record;
  const kept = Object.fromEntries(
    Object.entries(rest).filter(([name]) => !name.startsWith(FORWARD_ATTRIBUTE_PREFIX)),
  ) as typeof rest;
  const destinations = forwardStatesOf(record);
  return destinations.length === 0 ? kept : { ...kept, destinations };
}

/** One line per destination: where the delivery stands there. */
function historyRows(record: InboxRecord): string[][] {
  return forwardStatesOf(record).map((s) => [
    s.destination,
    s.state,
    String(s.attempts),
    s.lastStatus === undefined
      ? dash(s.lastErrorCode)
      : `${s.lastStatus}${s.lastErrorCode ? ` (${s.lastErrorCode})` : ''}`,
    s.lastAttemptAt ? formatTime(s.lastAttemptAt) : '-',
    s.state === 'retrying' && s.nextAttemptAt ? formatTime(s.nextAttemptAt) : '-',
  ]);
}

function utc(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

function archiveLine(record: InboxRecord): string | undefined {
  if (record.archiveBody !== undefined)
    return `archived (${Buffer.from(record.archiveBody, 'base64').length} bytes, in the record), --reveal to print`;
  if (record.archiveRef !== undefined) return `archived (${record.archiveRef}), --reveal to print`;
  return undefined;
}

/** The archived bytes, or a CliError saying why there are none. */
async function reveal(target: Target, record: InboxRecord): Promise<Buffer> {
  const { archivedPayload } = await import('./replay');
  const body = await archivedPayload(target, record);
  if (body === undefined) {
    throw new CliError(
      record.archiveRef === undefined && record.archiveBody === undefined
        ? `${record.provider} ${record.dedupKey} has no archived payload`
        : `the archived payload of ${record.provider} ${record.dedupKey} is gone (${record.archiveRef})`,
      'the archive keeps bytes for archive.retentionDays (README, Archive and replay)',
    );
  }
  return body;
}

/** Pretty JSON if the bytes are JSON, else the text as it is (UTF-8). */
function payloadText(body: Buffer): string {
  const text = body.toString('utf8');
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function registerDeliveries(program: Command): void {
  const deliveries = program
    .command('deliveries')
    .description('look up deliveries in the inbox table (status, attempts, last error)');

  const list = deliveries
    .command('list')
    .description('the newest deliveries, optionally filtered')
    .option('--provider <id>', 'only this provider')
    .option('--status <status>', `only this status: ${STATUSES.join(', ')}`, status)
    .option('--since <duration>', 'only received within this long, e.g. 15m, 2h, 7d', duration)
    .option('--limit <n>', 'at most this many', integer(1, 10_000), 50);
  addTargetOptions(list);
  addJsonOption(list);
  list.addHelpText(
    'after',
    `
Examples:
  $ webhook-inbox deliveries list --status dead-lettered --since 2h
  $ webhook-inbox deliveries list --provider stripe --json`,
  );
  list.action(async (options: ListOptions) => {
    process.exitCode = await runList(options);
  });

  const show = deliveries
    .command('show')
    .description('one delivery, by provider and dedup key (or a unique prefix of it)')
    .argument('<provider>', 'provider id')
    .argument('<dedupKey>', 'the dedup key `send` and `deliveries list` print');
  show
    .option('--reveal', 'print the archived payload (it may carry personal data)')
    .option('--hex', 'with --reveal: print the bytes as hex');
  addTargetOptions(show);
  addJsonOption(show);
  show.action(async (provider: string, key: string, options: ShowOptions) => {
    process.exitCode = await runShow(provider, key, options);
  });

  registerReplay(deliveries);
}

async function openInbox(options: TargetOptions, provider?: string) {
  const { loadProject, providerOf } = await import('./context');
  const project = await loadProject();
  if (provider !== undefined) providerOf(project.config, provider);
  const { resolveTarget } = await import('./target');
  const target = await resolveTarget(options, project.config, project.cwd);
  const { DynamoInbox } = await import('../lambdas/adapters/dynamo-inbox');
  const inbox = new DynamoInbox((await target.clients()).dynamodb, target.tableName);
  return { ...project, target, inbox };
}

async function runList(options: ListOptions): Promise<number> {
  const { target, inbox } = await openInbox(options, options.provider);
  try {
    const records = await inbox.list({
      provider: options.provider,
      status: options.status as InboxRecord['status'] | undefined,
      sinceMs: options.since === undefined ? undefined : Date.now() - options.since,
      limit: options.limit,
    });
    if (options.json) {
      printJson(records.map(publicRecord));
      return 0;
    }
    if (records.length === 0) {
      print(pc.dim(`no deliveries match (${target.description}, table ${target.tableName})`));
      return 0;
    }
    print(
      table(
        ['received (UTC)', 'provider', 'event', 'status', 'attempts', 'last error', 'dedup key'],
        records.map((r) => [
          formatTime(r.receivedAt),
          r.provider,
          dash(r.eventType),
          inboxStatus(r.status),
          String(r.attempts ?? 0),
          dash(r.lastErrorCode),
          truncate(r.dedupKey, 36),
        ]),
      ),
    );
    print(
      pc.dim(
        `${records.length} deliver${records.length === 1 ? 'y' : 'ies'}, newest first (${target.description}). ` +
          'Details: webhook-inbox deliveries show <provider> <dedup key or prefix>',
      ),
    );
    return 0;
  } finally {
    target.close();
  }
}

interface ShowOptions extends TargetOptions, JsonOption {
  reveal?: boolean;
  hex?: boolean;
}

async function runShow(providerId: string, key: string, options: ShowOptions): Promise<number> {
  if (options.hex && !options.reveal) throw new UsageError('--hex goes with --reveal');
  const { target, inbox } = await openInbox(options, providerId);
  try {
    let record = await inbox.get(`${providerId}#${key}`);
    if (!record) {
      // A prefix, as `deliveries list` shortens long keys.
      const prefix = key.replace(/…$/, '');
      const matches =
        prefix.length >= 6
          ? (await inbox.list({ provider: providerId, limit: 100_000 })).filter((r) =>
              r.dedupKey.startsWith(prefix),
            )
          : [];
      if (matches.length > 1) {
        throw new UsageError(
          `"${prefix}" matches ${matches.length} ${providerId} deliveries; give more of the key`,
        );
      }
      record = matches[0];
    }
    if (!record) {
      throw new CliError(
        `no ${providerId} delivery with dedup key ${key} in ${target.tableName}`,
        key.replace(/…$/, '').length < 6
          ? 'give the whole key, or at least its first 6 characters (`webhook-inbox deliveries list` shows them)'
          : 'list them with `webhook-inbox deliveries list`',
      );
    }
    const revealed = options.reveal ? await reveal(target, record) : undefined;
    if (options.json) {
      printJson({
        ...publicRecord(record),
        ...(revealed === undefined ? {} : { payloadBase64: revealed.toString('base64') }),
      });
      return 0;
    }
    const expires = new Date(record.expiresAt * 1000).toISOString();
    print(
      details([
        ['provider', record.provider],
        ['dedup key', record.dedupKey],
        ['status', inboxStatus(record.status)],
        ['event type', record.eventType],
        ['delivery id', record.deliveryId],
        ['attempts', record.attempts ?? 0],
        ['last error', record.lastErrorCode],
        ['received', formatTime(record.receivedAt)],
        ['processed', record.processedAt ? formatTime(record.processedAt) : undefined],
        ['message id', record.messageId],
        ['payload sha256', record.payloadSha256],
        ['payload', record.payloadRef ?? (record.payloadSha256 ? 'inline in the queue message' : undefined)],
        ['dedup window ends', record.dedupUntil ? utc(record.dedupUntil) : utc(record.expiresAt)],
        ['record expires', `${expires.slice(0, 19).replace('T', ' ')}`],
        ['archive', archiveLine(record)],
        ['replays', record.replays],
        ['last replayed', record.lastReplayedAt ? formatTime(record.lastReplayedAt) : undefined],
        ['replayed by', record.lastReplayedBy],
        ['forwarded', record.forwardedAt ? formatTime(record.forwardedAt) : undefined],
      ]),
    );
    const rows = historyRows(record);
    if (rows.length > 0) {
      print();
      print(table(['destination', 'state', 'attempts', 'last answer', 'last attempt', 'next attempt'], rows));
    }
    if (revealed !== undefined) {
      print();
      print(options.hex ? revealed.toString('hex') : payloadText(revealed));
    }
    return 0;
  } finally {
    target.close();
  }
}
