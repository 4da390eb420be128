// `webhook-inbox deliveries replay`: one archived delivery, or a filtered set, sent through the processor
// again (operations/replay-deliveries.ts does the work). A refusal exits 3 (EXIT.refused), so a script can
// tell "not now" from a failure.
import type { Command } from 'commander';
import pc from 'picocolors';
import { INBOX_STATUSES, type InboxStatus } from '../../../lambdas/core/inbox';
import {
  OPERATOR_LEASE_MARGIN_MS,
  OPERATOR_SETTLED_STATUSES,
  REPLAY_REFUSALS,
  STRANDABLE_STATUSES,
} from '../../../lambdas/core/replay';
import type { ReplayOutcome, ReplaySummary } from '../../operations/replay-deliveries';
import { addHelpAfter } from '../../shared/help-text';
import { CLI } from '../../shared/hint';
import {
  addJsonOption,
  addTargetOptions,
  checkWindow,
  inboxStatusOption,
  integer,
  type JsonOption,
  type TargetOptions,
} from '../../shared/options';
import {
  EXIT,
  inboxStatus,
  parseDuration,
  print,
  printJson,
  table,
  truncate,
  UsageError,
} from '../../shared/output';
import { progressBar } from '../../shared/progress-bar';

interface ReplayOptions extends TargetOptions, JsonOption {
  provider?: string;
  status?: InboxStatus;
  since?: string;
  until?: string;
  dryRun?: boolean;
  maxPerSecond?: number;
}

/** `2h` (that long ago) or an ISO time, as epoch milliseconds. */
export function pointInTime(text: string, nowMs: number, flag: string): number {
  const ago = parseDuration(text);
  if (ago !== undefined) return nowMs - ago;
  const at = Date.parse(text);
  if (Number.isNaN(at)) throw new UsageError(`${flag}: a duration such as 2h or 7d, or an ISO time`);
  return at;
}

/**
 * What a replay takes and refuses, said from the constants core/replay.ts decides with, so the help cannot
 * promise less (or more) than replayDecision does.
 */
export function replayRules(): string[] {
  const leaseMinutes = OPERATOR_LEASE_MARGIN_MS / 60_000;
  return [
    `Replayed: a delivery nothing will move on by itself: ${OPERATOR_SETTLED_STATUSES.join(' or ')}, ` +
      `processing under a lease that ended ${leaseMinutes} minutes ago or more, or stranded ` +
      `(${STRANDABLE_STATUSES.join(', ')} with no change for as long as the main queue keeps a message).`,
    'Refused, exit 3: one the processor or a destination still has (in_flight: claimed, enqueued, failed ' +
      'awaiting its retry, processing under a live lease, a destination still retrying), and ' +
      `${REPLAY_REFUSALS.filter((reason) => reason !== 'in_flight').join(', ')}. A filtered replay counts ` +
      'its refusals in the summary.',
  ];
}

export function registerReplay(deliveries: Command): void {
  const replay = deliveries
    .command('replay')
    .description('send archived deliveries through the processor again (same dedup key and idempotency key)')
    .argument('[provider]', 'provider id (one delivery)')
    .argument('[dedupKey]', 'its dedup key (one delivery)')
    .option('--provider <id>', 'a filtered set: only this provider')
    .option(
      '--status <status>',
      `a filtered set: only this status (${INBOX_STATUSES.join(', ')})`,
      inboxStatusOption,
    )
    .option('--since <when>', 'a filtered set: received since (2h, 7d, or an ISO time)')
    .option('--until <when>', 'a filtered set: received before (as --since)')
    .option('--dry-run', 'say what would be replayed; change nothing')
    .option('--max-per-second <n>', 'a filtered set: at most this many replays a second', integer(1, 1000));
  addTargetOptions(replay);
  addJsonOption(replay);
  addHelpAfter(replay, [
    ...replayRules(),
    '',
    'Examples:',
    `$ ${CLI} deliveries replay stripe evt_1Q2w3e4r5t6y`,
    `$ ${CLI} deliveries replay --provider github --status dead-lettered --since 2d --dry-run`,
  ]);
  replay.action(async (provider: string | undefined, key: string | undefined, options: ReplayOptions) => {
    process.exitCode = await runReplay(provider, key, options);
  });
}

async function runReplay(
  provider: string | undefined,
  key: string | undefined,
  options: ReplayOptions,
): Promise<number> {
  const single = provider !== undefined;
  if (single && key === undefined) throw new UsageError('give the provider and the dedup key, or a filter');
  if (
    single &&
    (options.provider || options.status || options.since || options.until || options.maxPerSecond)
  )
    throw new UsageError(
      'one delivery (provider and key) or a filter (--provider, --status, --since), not both',
    );
  if (!single && options.since === undefined)
    throw new UsageError('a filtered replay needs --since (e.g. --since 2h), or give provider and dedup key');
  const nowMs = Date.now();
  const filter = single
    ? undefined
    : {
        provider: options.provider,
        status: options.status,
        sinceMs: pointInTime(options.since as string, nowMs, '--since'),
        ...(options.until === undefined ? {} : { untilMs: pointInTime(options.until, nowMs, '--until') }),
      };
  if (filter) checkWindow(filter.sinceMs, filter.untilMs);
  const { loadProject, providerOf } = await import('../../shared/project');
  const project = await loadProject();
  const named = single ? provider : options.provider;
  if (named !== undefined) providerOf(project.config, named);
  const { resolveTarget } = await import('../../shared/target');
  const target = await resolveTarget(options, project.config, project.cwd);
  try {
    const { openReplayTarget, replayMany, replayOne, whoAmI } = await import(
      '../../operations/replay-deliveries'
    );
    const opened = await openReplayTarget(target);
    // Asked only once the command line has been judged good: a usage error costs no STS call.
    const by = async () => (options.dryRun ? undefined : whoAmI(target));
    if (filter === undefined) {
      // The whole key or a unique prefix of it, as `deliveries show` takes it
      // (operations/delivery-lookup.ts).
      const { lookUpDelivery } = await import('../../operations/delivery-lookup');
      const lookup = await lookUpDelivery(opened.inbox, provider as string, key as string);
      if (lookup.kind === 'too_short') {
        throw new UsageError(
          `a key prefix needs at least ${lookup.minimum} characters and this one has ${lookup.length}: ` +
            'give more of the key, or all of it',
        );
      }
      if (lookup.kind === 'ambiguous') {
        throw new UsageError(
          `"${key}" matches ${lookup.more ? 'more than ' : ''}${lookup.matches.length} ${provider} deliveries ` +
            `(${lookup.matches.map((r) => r.dedupKey).join(', ')}); give more of the key`,
        );
      }
      const found = lookup.kind === 'found' ? lookup.record : undefined;
      const dedupKey = found?.dedupKey ?? (key as string);
      const outcome = await replayOne(opened, provider as string, dedupKey, {
        by: await by(),
        dryRun: options.dryRun,
        ...(found === undefined ? {} : { record: found }),
      });
      return reportOne(outcome, provider as string, dedupKey, options.json);
    }
    const bar = await progressBar('replay', 'deliveries', !options.json);
    try {
      const summary = await replayMany(opened, filter, {
        by: await by(),
        dryRun: options.dryRun,
        maxPerSecond: options.maxPerSecond,
        onProgress: (done, total) => bar?.progress(done, total),
      });
      bar?.stop();
      return reportMany(summary, options.json);
    } finally {
      bar?.stop();
    }
  } finally {
    target.close();
  }
}

async function reportOne(
  outcome: ReplayOutcome,
  provider: string,
  key: string,
  json: boolean | undefined,
): Promise<number> {
  const { replayRefusalMessage } = await import('../../operations/replay-deliveries');
  if (json) {
    printJson({
      outcome: outcome.kind,
      provider,
      dedupKey: key,
      ...(outcome.kind === 'refused' ? { reason: outcome.reason } : {}),
      ...(outcome.kind === 'replayed'
        ? {
            messageId: outcome.messageId,
            replays: outcome.record.replays,
            lastReplayedBy: outcome.record.lastReplayedBy,
          }
        : {}),
      ...(outcome.record ? { inboxStatus: outcome.record.status } : {}),
    });
  } else if (outcome.kind === 'refused') {
    process.stderr.write(
      `webhook-inbox: not replayed (${outcome.reason}): ${provider} ${key}: ${replayRefusalMessage(outcome.reason, outcome.record)}\n`,
    );
  } else if (outcome.kind === 'would_replay') {
    print(`dry run: would replay ${provider} ${key} (${outcome.record.status}); nothing changed`);
  } else {
    print(
      `${pc.green('replayed')} ${provider} ${key} (replay ${outcome.record.replays}, message ${outcome.messageId}): ` +
        `the processor takes it up like any delivery. Follow it with \`${CLI} deliveries show\`.`,
    );
  }
  return outcome.kind === 'refused' ? EXIT.refused : EXIT.ok;
}

function reportMany(summary: ReplaySummary, json: boolean | undefined): number {
  const refused = Object.values(summary.refused).reduce((sum, n) => sum + (n ?? 0), 0);
  if (json) printJson({ ...summary, refusedTotal: refused });
  else {
    // A dry run says what it would do to each delivery; a real run's summary is enough after the bar.
    if (summary.dryRun && summary.deliveries.length > 0) {
      print(
        table(
          ['provider', 'dedup key', 'status', 'would'],
          summary.deliveries.map((d) => [
            d.provider,
            truncate(d.dedupKey, 36),
            inboxStatus(d.inboxStatus),
            d.outcome === 'refused' ? `refuse (${d.reason})` : 'replay',
          ]),
        ),
      );
    }
    const verb = summary.dryRun ? 'would replay' : 'replayed';
    const reasons = Object.entries(summary.refused).map(([reason, n]) => `${n} ${reason}`);
    print(
      `${summary.dryRun ? 'dry run: ' : ''}${summary.matched} matched, ${verb} ${summary.replayed}` +
        (refused > 0 ? `, refused ${refused} (${reasons.join(', ')})` : ''),
    );
  }
  return refused > 0 ? EXIT.refused : EXIT.ok;
}
