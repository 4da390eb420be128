// `webhook-inbox deliveries list|show`: what the inbox table says about deliveries: status, attempts,
// last error, times, queue message id.
import type { Command } from 'commander';
import pc from 'picocolors';
import { attemptEntries } from '../../../lambdas/core/attempt-log';
import { FORWARD_ATTRIBUTE_PREFIX, forwardStatesOf } from '../../../lambdas/core/destinations/forward-state';
import type { InboxRecord } from '../../../lambdas/core/inbox';
import { INBOX_STATUSES } from '../../../lambdas/core/inbox';
import { addHelpAfter } from '../../shared/help-text';
import { CLI } from '../../shared/hint';
import {
  addJsonOption,
  addTargetOptions,
  checkWindow,
  duration,
  inboxStatusOption,
  integer,
  type JsonOption,
  type TargetOptions,
} from '../../shared/options';
import {
  CliError,
  dash,
  details,
  formatTime,
  inboxStatus,
  print,
  printJson,
  styled,
  table,
  terminalSafe,
  truncate,
  UsageError,
} from '../../shared/output';
import type { Target } from '../../shared/target-types';
import { registerReplay } from './replay';

const STATUSES: readonly string[] = INBOX_STATUSES;

interface ListOptions extends TargetOptions, JsonOption {
  provider?: string;
  status?: string;
  since?: number;
  until?: number;
  limit: number;
  cursor?: string;
  scan?: boolean;
}

/**
 * The record without the lease tokens, which mean nothing outside the pipeline, and with each
 * destination's history (its `forward:<id>` attributes) as one `destinations` list.
 */
function publicRecord(record: InboxRecord) {
  // The archived body may carry personal data: shown only on --reveal, never in a listing.
  const {
    claimToken: _claim,
    processingToken: _processing,
    replayToken: _replay,
    archiveBody: _body,
    ...rest
  } = record;
  const kept = Object.fromEntries(
    Object.entries(rest).filter(([name]) => !name.startsWith(FORWARD_ATTRIBUTE_PREFIX)),
  ) as typeof rest;
  const destinations = forwardStatesOf(record);
  return destinations.length === 0 ? kept : { ...kept, destinations };
}

/** One line per processing attempt the record logged, oldest first (`deliveries show`). */
export function attemptRows(record: Pick<InboxRecord, 'attemptLog'>): string[][] {
  return attemptEntries(record.attemptLog).map((a) => [
    formatTime(a.at),
    dash(a.errorCode),
    a.receiveCount === undefined ? '-' : String(a.receiveCount),
    a.outcome === 'failed' ? 'retried' : 'dead-lettered',
  ]);
}

/** One line per destination: where the delivery stands there. */
function historyRows(record: InboxRecord): string[][] {
  return forwardStatesOf(record).map((s) => [
    dash(s.destination),
    dash(s.state),
    String(s.attempts),
    s.lastStatus === undefined
      ? dash(s.lastErrorCode)
      : `${dash(String(s.lastStatus))}${s.lastErrorCode ? ` (${dash(s.lastErrorCode)})` : ''}`,
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
  const { archivedPayload } = await import('../../operations/replay-deliveries');
  const body = await archivedPayload(target, record);
  if (body === undefined) {
    throw new CliError(
      record.archiveRef === undefined && record.archiveBody === undefined
        ? `${record.provider} ${record.dedupKey} has no archived payload`
        : `the archived payload of ${record.provider} ${record.dedupKey} is gone (${record.archiveRef})`,
      'the archive keeps bytes for archive.retentionDays (docs/archive-and-replay.md)',
    );
  }
  return body;
}

/** Pretty JSON if the bytes are JSON, else the text as it is (UTF-8), either way safe for a terminal. */
function payloadText(body: Buffer): string {
  const text = body.toString('utf8');
  try {
    return terminalSafe(JSON.stringify(JSON.parse(text), null, 2));
  } catch {
    return terminalSafe(text);
  }
}

/** The `deliveries list` table: every value from a record made terminalSafe. */
export function listTable(records: readonly InboxRecord[]): string {
  return table(
    // `attempts` counts the processing attempts that failed, not every run: say so where it is read.
    ['received (UTC)', 'provider', 'event', 'status', 'failed attempts', 'last error', 'dedup key'],
    records.map((r) => [
      formatTime(r.receivedAt),
      dash(r.provider),
      dash(r.eventType),
      inboxStatus(r.status),
      String(r.attempts ?? 0),
      dash(r.lastErrorCode),
      truncate(r.dedupKey, 36),
    ]),
  );
}

/** The `deliveries show` fields: every value from the record made terminalSafe (details does it). */
export function showDetails(record: InboxRecord): string {
  const expires = new Date(record.expiresAt * 1000).toISOString();
  return details([
    ['provider', record.provider],
    ['dedup key', record.dedupKey],
    ['status', styled(inboxStatus(record.status))],
    ['event type', record.eventType],
    ['delivery id', record.deliveryId],
    ['failed attempts', record.attempts ?? 0],
    ['last error', record.lastErrorCode],
    ['error detail', record.lastErrorDetail],
    ['received', styled(formatTime(record.receivedAt))],
    ['processed', record.processedAt ? styled(formatTime(record.processedAt)) : undefined],
    ['message id', record.messageId],
    ['payload sha256', record.payloadSha256],
    ['payload', record.payloadRef ?? (record.payloadSha256 ? 'inline in the queue message' : undefined)],
    ['dedup window ends', record.dedupUntil ? utc(record.dedupUntil) : utc(record.expiresAt)],
    ['record expires', `${expires.slice(0, 19).replace('T', ' ')}`],
    ['archive', archiveLine(record)],
    ['replays', record.replays],
    ['last replayed', record.lastReplayedAt ? styled(formatTime(record.lastReplayedAt)) : undefined],
    ['replayed by', record.lastReplayedBy],
    // forwardedAt is when the copies reached the destinations' queues, not their delivery: each
    // destination's own state is in the table below.
    ['queued for destinations', record.forwardedAt ? styled(formatTime(record.forwardedAt)) : undefined],
  ]);
}

/** The lines under a `deliveries list` table: how many, where the details are, the next page, the index's lag. */
export function listFooter(
  page: { cursor?: string; note?: string },
  count: number,
  description: string,
): string[] {
  return [
    `${count} deliver${count === 1 ? 'y' : 'ies'}, newest first (${description}). ` +
      `Details: ${CLI} deliveries show <provider> <dedup key or prefix>`,
    ...(page.cursor ? [`More: the same command with --cursor ${page.cursor}`] : []),
    ...(page.note ? [`Note: ${page.note}.`] : []),
  ];
}

export function registerDeliveries(program: Command): void {
  const deliveries = program
    .command('deliveries')
    .description('look up deliveries in the inbox table (status, attempts, last error)');

  const list = deliveries
    .command('list')
    .description('the newest deliveries, optionally filtered')
    .option('--provider <id>', 'only this provider')
    .option('--status <status>', `only this status: ${STATUSES.join(', ')}`, inboxStatusOption)
    .option('--since <duration>', 'only received within this long, e.g. 15m, 2h, 7d', duration)
    .option('--until <duration>', 'only received at least this long ago, e.g. 1h', duration)
    .option('--limit <n>', 'at most this many', integer(1, 10_000), 50)
    .option('--cursor <cursor>', 'the next page: the cursor the previous page printed')
    .option('--scan', 'read the whole table, not the listing index: finds records written before it');
  addTargetOptions(list);
  addJsonOption(list);
  addHelpAfter(list, [
    'Examples:',
    `$ ${CLI} deliveries list --status dead-lettered --since 2h`,
    `$ ${CLI} deliveries list --provider stripe --json`,
  ]);
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

  const reindex = deliveries
    .command('reindex')
    .description('give records written before the listing index their index keys (once, after upgrading)');
  addTargetOptions(reindex);
  addJsonOption(reindex);
  reindex.action(async (options: TargetOptions & JsonOption) => {
    process.exitCode = await runReindex(options);
  });

  registerReplay(deliveries);
}

async function runReindex(options: TargetOptions & JsonOption): Promise<number> {
  const { target } = await openInbox(options);
  try {
    const { reindexInbox } = await import('../../../lambdas/adapters/dynamo-inbox-reindex');
    const summary = await reindexInbox((await target.clients()).dynamodb, target.tableName, (so_far) => {
      if (!options.json) process.stderr.write(pc.dim(`read ${so_far.scanned}, indexed ${so_far.indexed}\n`));
    });
    if (options.json) {
      printJson(summary);
      return 0;
    }
    print(
      `${summary.indexed} record${summary.indexed === 1 ? '' : 's'} indexed, ${summary.scanned} items read` +
        (summary.skipped > 0 ? `, ${summary.skipped} changed while this ran (run it again)` : '') +
        ` (${target.description}, table ${target.tableName})`,
    );
    return 0;
  } finally {
    target.close();
  }
}

async function openInbox(options: TargetOptions, provider?: string) {
  const { loadProject, providerOf } = await import('../../shared/project');
  const project = await loadProject();
  if (provider !== undefined) providerOf(project.config, provider);
  const { resolveTarget } = await import('../../shared/target');
  const target = await resolveTarget(options, project.config, project.cwd);
  const { DynamoInbox } = await import('../../../lambdas/adapters/dynamo-inbox');
  // The configured providers: a listing without --provider reads each one's index partitions.
  const inbox = new DynamoInbox((await target.clients()).dynamodb, target.tableName, {
    providers: Object.keys(project.config.providers),
  });
  return { ...project, target, inbox };
}

async function runList(options: ListOptions): Promise<number> {
  // Durations ago: --since 1h --until 2h is a window that ends before it starts.
  checkWindow(
    options.since === undefined ? undefined : -options.since,
    options.until === undefined ? undefined : -options.until,
  );
  const { target, inbox } = await openInbox(options, options.provider);
  try {
    const { InvalidCursorError } = await import('../../../lambdas/adapters/dynamo-inbox-listing');
    const now = Date.now();
    const page = await inbox
      .listPage({
        provider: options.provider,
        status: options.status as InboxRecord['status'] | undefined,
        sinceMs: options.since === undefined ? undefined : now - options.since,
        untilMs: options.until === undefined ? undefined : now - options.until,
        limit: options.limit,
        cursor: options.cursor,
        scan: options.scan,
      })
      .catch((error: unknown) => {
        if (error instanceof InvalidCursorError) throw new UsageError(`--cursor: ${error.message}`);
        throw error;
      });
    const { records } = page;
    if (page.warning) process.stderr.write(`${pc.yellow(`warning: ${page.warning}`)}\n`);
    if (options.json) {
      printJson(records.map(publicRecord));
      // stdout stays the array scripts already read; the next page's cursor goes to stderr.
      if (page.cursor !== undefined) process.stderr.write(`more: --cursor ${page.cursor}\n`);
      if (page.note !== undefined) process.stderr.write(`note: ${page.note}\n`);
      return 0;
    }
    if (records.length === 0) {
      print(pc.dim(`no deliveries match (${target.description}, table ${target.tableName})`));
      // Right after a send is when the index is most likely not to have it yet.
      if (page.note) print(pc.dim(`Note: ${page.note}.`));
      return 0;
    }
    print(listTable(records));
    for (const line of listFooter(page, records.length, target.description)) print(pc.dim(line));
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
    const { lookUpDelivery } = await import('../../operations/delivery-lookup');
    const lookup = await lookUpDelivery(inbox, providerId, key);
    if (lookup.kind === 'ambiguous') {
      process.stderr.write(
        `${table(
          ['provider', 'dedup key', 'received (UTC)', 'status'],
          lookup.matches.map((r) => [
            dash(r.provider),
            dash(r.dedupKey),
            formatTime(r.receivedAt),
            inboxStatus(r.status),
          ]),
        )}\n`,
      );
      throw new UsageError(
        `"${key.replace(/…$/, '')}" matches ${lookup.more ? `more than ${lookup.matches.length}` : lookup.matches.length} ` +
          `${providerId} deliveries (above, newest first); give more of the key`,
      );
    }
    // A prefix too short is a usage error (exit 2), as `dlq show`'s is: the command line was wrong.
    if (lookup.kind === 'too_short') {
      throw new UsageError(
        `no ${providerId} delivery with dedup key ${key}; a prefix needs at least ${lookup.minimum} ` +
          `characters and this one has ${lookup.length}: give more of the key, or all of it ` +
          `(\`${CLI} deliveries list\` shows them)`,
      );
    }
    if (lookup.kind === 'expired') {
      throw new CliError(
        `no ${providerId} delivery with dedup key ${key} in ${target.tableName}: its record expired at ` +
          `${utc(lookup.expiresAt)} UTC, and DynamoDB's TTL deletes it soon`,
        'an expired record is gone: it cannot be shown, revealed or replayed',
      );
    }
    if (lookup.kind !== 'found') {
      throw new CliError(
        `no ${providerId} delivery with dedup key ${key} in ${target.tableName}`,
        `list them with \`${CLI} deliveries list\``,
      );
    }
    const { record } = lookup;
    const revealed = options.reveal ? await reveal(target, record) : undefined;
    if (options.json) {
      printJson({
        ...publicRecord(record),
        ...(revealed === undefined ? {} : { payloadBase64: revealed.toString('base64') }),
      });
      return 0;
    }
    print(showDetails(record));
    const attempts = attemptRows(record);
    if (attempts.length > 0) {
      print();
      print(table(['attempt failed (UTC)', 'error code', 'receive', 'then'], attempts));
    }
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
