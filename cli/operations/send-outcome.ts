// What became of a delivery `send` got accepted: it follows the inbox record until the processor is done
// with it (processed, or dead-lettered) or the wait runs out, and says so: "202, then processed".
import type { InboxRecord } from '../../lambdas/core/inbox';

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

export interface WaitTiming {
  timeoutMs: number;
  pollMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
 * Reads the record until it is processed or dead-lettered, or `timeoutMs` has passed. `onChange` hears
 * each new state on the way (a failed attempt waiting for its retry), for people watching.
 */
export async function waitForOutcome(
  read: () => Promise<InboxRecord | undefined>,
  timing: WaitTiming,
  onChange: (outcome: SendOutcome) => void = () => undefined,
): Promise<SendOutcome> {
  const started = Date.now();
  let seen = '';
  for (;;) {
    const outcome = outcomeOf(await read());
    const key = JSON.stringify(outcome);
    if (key !== seen) {
      seen = key;
      if (outcome.result === 'pending') onChange(outcome);
    }
    if (outcome.result !== 'pending' || Date.now() - started >= timing.timeoutMs) return outcome;
    await sleep(timing.pollMs);
  }
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

/** A progress line while waiting: only the failed attempts are worth a line of their own. */
export function describeProgress(outcome: SendOutcome): string | undefined {
  if (outcome.result !== 'pending' || outcome.inboxStatus !== 'failed') return undefined;
  return `failed (${outcome.lastErrorCode ?? 'no error code'}), ${failedAttempts(outcome.attempts) ?? 'an attempt'} so far; retried on the schedule`;
}
