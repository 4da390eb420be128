// The selftest's "processed exactly once" check, from what the CLI can read on any target (the local
// instance or a deployed stack): the delivery's inbox record. Its status shows that the delivery was
// processed, not that it was processed once: a second processing (a duplicate that was queued after all,
// a copy redelivered after the mark) leaves it `processed` too, with a later processedAt. So once the
// record is processed, with no failed attempt on it, it is read again after a settle period and must not
// have changed.
import type { InboxRecord } from '../../lambdas/core/inbox';

export interface ProcessedOnceTiming {
  /** How long the delivery may take to be processed. */
  waitMs: number;
  /** How long after it is seen processed the record must stay as it is. */
  settleMs: number;
  pollMs: number;
}

export const PROCESSED_ONCE_TIMING: ProcessedOnceTiming = { waitMs: 20_000, settleMs: 2_000, pollMs: 250 };

export interface ProcessedOnceResult {
  got: string;
  result: 'pass' | 'fail';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const elapsed = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
const duration = (ms: number) => `${ms / 1000}s`;

function failedAttempts(record: InboxRecord): string | undefined {
  if (record.attempts === 0 && record.lastErrorCode === undefined) return undefined;
  return `${record.attempts} failed attempt(s)${record.lastErrorCode ? ` (${record.lastErrorCode})` : ''}`;
}

/** What a second read shows that one processing would not have left, if anything. */
function changeSince(first: InboxRecord, again: InboxRecord | undefined): string | undefined {
  if (!again) return 'the record is gone';
  if (again.status !== 'processed') return `the record went back to ${again.status}`;
  if (again.processedAt !== first.processedAt) {
    return `processed again (processedAt ${first.processedAt} → ${again.processedAt})`;
  }
  if (again.processingToken !== first.processingToken) return 'processed again (a new processing token)';
  const failures = failedAttempts(again);
  return failures === undefined ? undefined : `${failures} recorded after processing`;
}

/** Waits for the record to be processed, then requires it to stay exactly as it was for `settleMs`. */
export async function checkProcessedOnce(
  read: () => Promise<InboxRecord | undefined>,
  timing: ProcessedOnceTiming = PROCESSED_ONCE_TIMING,
): Promise<ProcessedOnceResult> {
  const started = Date.now();
  let record = await read();
  while (record?.status !== 'processed') {
    if (record?.status === 'dead-lettered' || record?.status === 'failed') {
      return { got: `${record.status}: ${record.lastErrorCode ?? 'no error code'}`, result: 'fail' };
    }
    if (Date.now() - started >= timing.waitMs) {
      return { got: `${record?.status ?? 'no record'} after ${duration(timing.waitMs)}`, result: 'fail' };
    }
    await sleep(timing.pollMs);
    record = await read();
  }
  const after = elapsed(Date.now() - started);
  const failures = failedAttempts(record);
  if (failures !== undefined) return { got: `processed after ${failures}`, result: 'fail' };
  await sleep(timing.settleMs);
  const change = changeSince(record, await read());
  if (change !== undefined) return { got: `processed, then ${change}`, result: 'fail' };
  return {
    got: `processed once (after ${after}; unchanged ${duration(timing.settleMs)} later)`,
    result: 'pass',
  };
}
