// `webhook-inbox dlq redrive`: what it prints around the move (operations/redrive-dlq.ts): with --dry-run
// the messages that would move, else how many moved and then what became of each (redrive-outcomes.ts):
// processed, dead-lettered again, or still pending when the wait ran out.
import pc from 'picocolors';
import { describeMessage, entriesTable, withInboxFacts } from '../../operations/dlq-entry';
import { type Opened, redriveDlq } from '../../operations/redrive-dlq';
import {
  describeRedriveOutcome,
  describeRedriveSummary,
  followRedriven,
  summarizeRedrive,
} from '../../operations/redrive-outcomes';
import { CLI } from '../../shared/hint';
import type { JsonOption } from '../../shared/options';
import { print, printJson, singleLine } from '../../shared/output';

export interface RedriveOptions extends JsonOption {
  maxPerSecond?: number;
  dryRun?: boolean;
  /** False with --no-wait: print what moved and stop. */
  wait?: boolean;
  /** How long to follow the moved deliveries' records, in ms (--wait-timeout). */
  waitTimeout?: number;
  pollMs?: number;
}

export const DEFAULT_WAIT = '60s';
const DEFAULT_WAIT_MS = 60_000;
const POLL_MS = 1_000;
/** Deliveries listed one per line; a larger redrive is summed up (and --json lists every one). */
const SHOWN = 20;

const plural = (n: number) => `${n} message${n === 1 ? '' : 's'}`;
const formatWait = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000}m` : `${Math.round(ms / 1000)}s`);

export async function runRedrive(opened: Opened, options: RedriveOptions): Promise<number> {
  const { target, ops } = opened;
  if (options.dryRun) {
    const counts = await ops.counts(target.dlqUrl);
    const peeked = await ops.peekQueue(target.dlqUrl, { limit: Math.max(counts.visible, 1) + 100 });
    const entries = await withInboxFacts(
      opened.inbox,
      peeked.messages.map((m) => describeMessage(m)),
      opened.destination,
    );
    if (options.json) {
      printJson({
        dryRun: true,
        wouldMove: entries.length,
        // Whether every message was seen: when not, more than wouldMove (about aboutVisible) would move.
        whole: peeked.whole,
        aboutVisible: peeked.aboutVisible,
        from: target.dlqUrl,
        to: target.queueUrl,
        messages: entries,
      });
    } else {
      if (entries.length > 0) print(entriesTable(entries));
      print(
        peeked.whole
          ? `dry run: would move ${plural(entries.length)} to ${target.queueUrl}`
          : `dry run: would move about ${plural(peeked.aboutVisible)} to ${target.queueUrl}; ` +
              pc.yellow(`showing the ${entries.length} read in time, the DLQ could not be read whole`),
      );
    }
    return 0;
  }
  const startedMs = Date.now();
  const { movedEntries, ...result } = await redriveDlq(opened, options);
  // The forwarder keeps a destination's state per delivery, not in the inbox record: nothing to follow.
  const follow = opened.destination === undefined && options.wait !== false && movedEntries.length > 0;
  const waitMs = options.waitTimeout ?? DEFAULT_WAIT_MS;
  if (follow && !options.json)
    print(
      pc.dim(`moved ${plural(result.moved)}; following their inbox records (up to ${formatWait(waitMs)})...`),
    );
  const outcomes = follow
    ? await followRedriven((pk) => opened.inbox.get(pk), movedEntries, startedMs, {
        timeoutMs: waitMs,
        pollMs: options.pollMs ?? POLL_MS,
      })
    : [];
  const summary = summarizeRedrive(outcomes);
  const after = await ops.counts(target.dlqUrl);
  if (options.json) {
    printJson({
      ...result,
      from: target.dlqUrl,
      to: target.queueUrl,
      ...(follow ? { outcomes, summary } : {}),
      dlqRemaining: after.visible + after.inFlight,
    });
    return 0;
  }
  print(`${pc.green(`moved ${plural(result.moved)}`)} from the DLQ to ${target.queueUrl}.`);
  if (opened.destination !== undefined) {
    print(
      `The forwarder sends them to ${opened.destination} again. Follow them with \`${CLI} destinations list\`.`,
    );
  } else if (!follow) {
    print(`The processor takes them up as new messages. Follow them with \`${CLI} deliveries list\`.`);
  } else {
    for (const outcome of outcomes.slice(0, SHOWN)) {
      const text = describeRedriveOutcome(outcome, formatWait(waitMs));
      const colour =
        outcome.result === 'processed' ? pc.green : outcome.result === 'dead-lettered' ? pc.red : pc.yellow;
      print(`  ${singleLine(`${outcome.provider}/${outcome.dedupKey}`)}  ${colour(singleLine(text))}`);
    }
    if (outcomes.length > SHOWN)
      print(pc.dim(`  ... and ${outcomes.length - SHOWN} more (--json lists every one)`));
    const line = describeRedriveSummary(summary);
    print(summary.deadLettered > 0 || summary.pending > 0 ? pc.yellow(line) : pc.green(line));
    if (summary.deadLettered > 0)
      print(pc.dim(`see why with \`${CLI} dlq list\`; fix the cause, then \`${CLI} dlq redrive\` again`));
    else if (summary.pending > 0) print(pc.dim(`follow them with \`${CLI} deliveries list\``));
  }
  if (result.notMarked) print(pc.yellow(result.notMarked));
  const remaining = after.visible + after.inFlight;
  if (remaining > 0 && summary.deadLettered === 0) {
    print(pc.dim(`${remaining} message(s) in the DLQ now (arrived during the redrive, or failed again)`));
  }
  return 0;
}
