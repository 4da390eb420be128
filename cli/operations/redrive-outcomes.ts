// What became of the deliveries a redrive moved back to the main queue: each inbox record is read
// (consistently) until the processor is done with its moved copy, or the wait runs out. A redrive whose
// cause is not fixed dead-letters again, and the command says so instead of promising `processed`.
import type { InboxRecord } from '../../lambdas/core/inbox';
import { type PollTiming, pollUntil } from '../shared/poll';
import type { DlqEntry } from './dlq-entry';

export type RedriveResult = 'processed' | 'dead-lettered' | 'pending' | 'no_record';

export interface RedriveOutcome {
  provider: string;
  dedupKey: string;
  /** The DLQ message that was moved. */
  messageId: string;
  result: RedriveResult;
  inboxStatus?: InboxRecord['status'];
  errorCode?: string;
}

export interface RedriveSummary {
  processed: number;
  deadLettered: number;
  pending: number;
  noRecord: number;
}

/**
 * Where the moved copy got to. A `dead-lettered` record counts as given up again only when the give-up is
 * a new one: another SQS message than the one moved (a moved message is a new message to SQS), or a mark
 * written after the redrive started. Otherwise it is the old give-up the redrive has not marked yet.
 */
export function redriveResult(
  record: InboxRecord | undefined,
  movedMessageId: string,
  sinceMs: number,
): RedriveResult {
  if (record === undefined) return 'no_record';
  if (record.status === 'processed') return 'processed';
  if (record.status === 'dead-lettered') {
    const newMessage =
      record.deadLetterMessageId !== undefined && record.deadLetterMessageId !== movedMessageId;
    const newMark = record.deadLetteredAt !== undefined && Date.parse(record.deadLetteredAt) >= sinceMs;
    if (newMessage || newMark) return 'dead-lettered';
  }
  return 'pending';
}

export type FollowTiming = PollTiming;

/** Reads at a time: enough to follow a large redrive in a few rounds, few enough not to be throttled. */
const READS_AT_ONCE = 10;

/**
 * Follows the moved deliveries' records until none is pending or `timeoutMs` has passed. Entries without a
 * provider and dedup key (not an inbox envelope) have no record to follow and are left out.
 */
export async function followRedriven(
  read: (pk: string) => Promise<InboxRecord | undefined>,
  moved: readonly DlqEntry[],
  sinceMs: number,
  timing: FollowTiming,
): Promise<RedriveOutcome[]> {
  const outcomes: RedriveOutcome[] = moved.flatMap((entry) =>
    entry.provider && entry.dedupKey
      ? [
          {
            provider: entry.provider,
            dedupKey: entry.dedupKey,
            messageId: entry.messageId,
            result: 'pending',
          },
        ]
      : [],
  );
  await pollUntil(async () => {
    const open = outcomes.filter((outcome) => outcome.result === 'pending');
    for (let start = 0; start < open.length; start += READS_AT_ONCE) {
      await Promise.all(
        open.slice(start, start + READS_AT_ONCE).map(async (outcome) => {
          const record = await read(`${outcome.provider}#${outcome.dedupKey}`);
          outcome.result = redriveResult(record, outcome.messageId, sinceMs);
          outcome.inboxStatus = record?.status;
          if (record?.lastErrorCode !== undefined && outcome.result !== 'processed')
            outcome.errorCode = record.lastErrorCode;
          else delete outcome.errorCode;
        }),
      );
    }
    return outcomes.every((o) => o.result !== 'pending');
  }, timing);
  return outcomes;
}

export function summarizeRedrive(outcomes: readonly RedriveOutcome[]): RedriveSummary {
  const count = (result: RedriveResult) => outcomes.filter((o) => o.result === result).length;
  return {
    processed: count('processed'),
    deadLettered: count('dead-lettered'),
    pending: count('pending'),
    noRecord: count('no_record'),
  };
}

/** One delivery's outcome for people: `processed`, `dead-lettered again (downstream_rejected)`, ... */
export function describeRedriveOutcome(outcome: RedriveOutcome, waitText: string): string {
  switch (outcome.result) {
    case 'processed':
      return 'processed';
    case 'dead-lettered':
      return `dead-lettered again (${outcome.errorCode ?? 'no error code'})`;
    case 'no_record':
      return 'no inbox record (expired, or never written)';
    case 'pending': {
      const why =
        outcome.inboxStatus === 'failed' && outcome.errorCode
          ? `: ${outcome.errorCode}, retried on the schedule`
          : '';
      return `still pending after ${waitText} (${outcome.inboxStatus ?? 'no record yet'}${why})`;
    }
  }
}

/** The summary line: what the records say now, not what a redrive hopes for. */
export function describeRedriveSummary(summary: RedriveSummary): string {
  const parts = [
    `${summary.processed} processed`,
    `${summary.deadLettered} dead-lettered again`,
    `${summary.pending} still pending`,
    ...(summary.noRecord > 0 ? [`${summary.noRecord} without an inbox record`] : []),
  ];
  return parts.join(', ');
}
