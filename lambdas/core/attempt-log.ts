// The record's history of processing attempts (`attemptLog`), one entry per failed or dead-lettered mark,
// as text the adapter appends without a read: `<iso>|<code>|<receiveCount>|<failed|dead-lettered>`. Text
// rather than a map so the entry is one value in the update, and the pure parsing lives here.

/** Entries kept: the adapter trims the oldest at the lease that finds the log this long (dynamo-inbox.ts). */
export const ATTEMPT_LOG_CAP = 20;

export type AttemptOutcome = 'failed' | 'dead-lettered';

export interface AttemptEntry {
  at: string;
  errorCode: string;
  /** The SQS receive count of the message on that attempt; undefined where the mark did not know it. */
  receiveCount?: number;
  outcome: AttemptOutcome;
}

export function formatAttemptEntry(entry: AttemptEntry): string {
  return [entry.at, entry.errorCode, entry.receiveCount ?? '', entry.outcome].join('|');
}

/** An entry from its text; undefined for text that is not one (never thrown: the log is history only). */
export function parseAttemptEntry(text: string): AttemptEntry | undefined {
  const [at, errorCode, count, outcome, ...rest] = text.split('|');
  if (rest.length > 0 || !at || !errorCode || (outcome !== 'failed' && outcome !== 'dead-lettered'))
    return undefined;
  const receiveCount = count === '' || count === undefined ? undefined : Number(count);
  return {
    at,
    errorCode,
    ...(receiveCount === undefined || !Number.isFinite(receiveCount) ? {} : { receiveCount }),
    outcome,
  };
}

/** The record's attempts in time order (the log is appended in order; sorted anyway, as a reader should). */
export function attemptEntries(log: readonly string[] | undefined): AttemptEntry[] {
  return (log ?? [])
    .map(parseAttemptEntry)
    .filter((entry): entry is AttemptEntry => entry !== undefined)
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}
