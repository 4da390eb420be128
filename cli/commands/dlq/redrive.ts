// `webhook-inbox dlq redrive`: what it prints around the move (operations/redrive-dlq.ts): with --dry-run
// the messages that would move, else how many moved and what is left in the DLQ.
import pc from 'picocolors';
import { describeMessage, entriesTable, withInboxFacts } from '../../operations/dlq-entry';
import { type Opened, redriveDlq } from '../../operations/redrive-dlq';
import { CLI } from '../../shared/hint';
import type { JsonOption } from '../../shared/options';
import { print, printJson } from '../../shared/output';

export async function runRedrive(
  opened: Opened,
  options: JsonOption & { maxPerSecond?: number; dryRun?: boolean },
): Promise<number> {
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
      const plural = (n: number) => `${n} message${n === 1 ? '' : 's'}`;
      print(
        peeked.whole
          ? `dry run: would move ${plural(entries.length)} to ${target.queueUrl}`
          : `dry run: would move about ${plural(peeked.aboutVisible)} to ${target.queueUrl}; ` +
              pc.yellow(`showing the ${entries.length} read in time, the DLQ could not be read whole`),
      );
    }
    return 0;
  }
  const result = await redriveDlq(opened, options);
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
        (opened.destination === undefined
          ? 'the processor takes them up as new messages and their inbox records go `processing`, then `processed`. ' +
            `Follow them with \`${CLI} deliveries list\`.`
          : `the forwarder sends them to ${opened.destination} again. Follow them with \`${CLI} destinations list\`.`),
    );
    if (result.notMarked) print(pc.yellow(result.notMarked));
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
