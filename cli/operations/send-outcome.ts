// What became of a delivery `send` got accepted: it follows the inbox record until the processor is done
// with it (processed, or dead-lettered) or the wait runs out, and says so: "202, then processed".
import { type AttemptEntry, attemptEntries } from '../../lambdas/core/attempt-log';
import type { InboxRecord } from '../../lambdas/core/inbox';
import { type PollTiming, pollUntil } from '../shared/poll';

export type SendOutcome =
  | {
      result: 'processed' | 'dead-lettered' | 'pending';
      /** The record's facts, under the record's names (`deliveries show --json`). */
      inboxStatus?: InboxRecord['status'];
      attempts?: number;
      lastErrorCode?: string;
      lastErrorDetail?: string;
    }
  | {
      result: 'not_waited';
      /** `--no-wait`; no 2xx that queued anything; no inbox to read (--url and --secret); no known key. */
      reason: 'no_wait' | 'not_accepted' | 'no_inbox' | 'unknown_key';
    };

export type WaitTiming = PollTiming;

function outcomeOf(record: InboxRecord | undefined): SendOutcome {
  const result =
    record?.status === 'processed' || record?.status === 'dead-lettered' ? record.status : 'pending';
  if (!record) return { result };
  return {
    result,
    inboxStatus: record.status,
    attempts: record.attempts ?? 0,
    ...(record.lastErrorCode === undefined ? {} : { lastErrorCode: record.lastErrorCode }),
    ...(record.lastErrorDetail === undefined ? {} : { lastErrorDetail: record.lastErrorDetail }),
  };
}

/**
 * Reads the record until it is processed or dead-lettered, or `timeoutMs` has passed. `onFailedAttempt`
 * hears each failed attempt on the way, for people watching: from the record's attempt log, so an attempt
 * retried between two reads is still told, before the outcome it led to.
 */
export async function waitForOutcome(
  read: () => Promise<InboxRecord | undefined>,
  timing: WaitTiming,
  onFailedAttempt: (attempt: AttemptEntry, failedSoFar: number) => void = () => undefined,
): Promise<SendOutcome> {
  let told = 0;
  let outcome: SendOutcome = { result: 'pending' };
  await pollUntil(async () => {
    const record = await read();
    const failed = attemptEntries(record?.attemptLog).filter((entry) => entry.outcome === 'failed');
    for (const entry of failed.slice(told)) onFailedAttempt(entry, ++told);
    outcome = outcomeOf(record);
    return outcome.result !== 'pending';
  }, timing);
  return outcome;
}

const failedAttempts = (n: number | undefined) =>
  n ? `${n} failed attempt${n === 1 ? '' : 's'}` : undefined;

/** One line for people: `processed`, `processed after 1 failed attempt (demo_transient_failure)`, ... */
export function describeOutcome(outcome: SendOutcome, timeoutText: string): string {
  if (outcome.result === 'not_waited') {
    return {
      no_wait: 'not waited for (--no-wait)',
      not_accepted: 'nothing queued, so nothing to wait for',
      no_inbox: 'not waited for: with --url and --secret there is no inbox to read (add --stack to read one)',
      unknown_key: 'not waited for: the dedup key is unknown (the delivery fails local verification)',
    }[outcome.reason];
  }
  const error = outcome.lastErrorCode
    ? `${outcome.lastErrorCode}${outcome.lastErrorDetail ? `: ${outcome.lastErrorDetail}` : ''}`
    : undefined;
  if (outcome.result === 'processed') {
    const failures = failedAttempts(outcome.attempts);
    return failures ? `then processed, after ${failures} (${error ?? 'no error code'})` : 'then processed';
  }
  if (outcome.result === 'dead-lettered') return `then dead-lettered (${error ?? 'no error code'})`;
  const now = outcome.inboxStatus ?? 'no record yet';
  const why = outcome.inboxStatus === 'failed' && error ? `: ${error}, retried on the schedule` : '';
  return `still pending after ${timeoutText} (${now}${why})`;
}

/** A progress line while waiting: one per failed attempt. */
export function describeProgress(attempt: AttemptEntry, failedSoFar: number): string {
  return `failed (${attempt.errorCode}), ${failedAttempts(failedSoFar)} so far; retried on the schedule`;
}
