// The Deliveries page's trends, computed from the inbox records of a window: deliveries received per
// bucket by outcome, failed attempts per bucket, the oldest delivery still pending, and the same per
// destination from each record's forward state. Pure: the records come from the listing index
// (deliveries-source.ts windowRecords), and the clock is passed in.
import { attemptEntries } from '../../lambdas/core/attempt-log';
import { type ForwardState, forwardStatesOf } from '../../lambdas/core/destinations/forward-state';
import type { InboxRecord, InboxStatus } from '../../lambdas/core/inbox';

const HOUR_MS = 3_600_000;

/**
 * The two windows. Seven days are drawn in 6-hour buckets: 28 bars fit an 800 px window at a width a
 * pointer can hover, and four a day still show the daily rhythm; 168 hourly bars would be 4 px each.
 */
export const TREND_WINDOWS = {
  '24h': { label: '24 hours', bucketMs: HOUR_MS, buckets: 24, per: 'per hour' },
  '7d': { label: '7 days', bucketMs: 6 * HOUR_MS, buckets: 28, per: 'per 6 hours' },
} as const;
export type TrendWindow = keyof typeof TREND_WINDOWS;

export function trendWindow(value: string | undefined): TrendWindow {
  return value === '7d' ? '7d' : '24h';
}

/**
 * The most deliveries one view reads. Each costs a consistent get of its record (1 read unit up to 4 KB)
 * besides its index entry, so the cap bounds a view at about this many read units; past it the oldest
 * part of the window is left unread, and the page says where the read stopped.
 */
export const TREND_READ_CAP = 5_000;

/** A delivery's outcome as its status says: done, waiting for a retry, given up, or not finished yet. */
export const OUTCOMES = ['processed', 'failed', 'dead-lettered', 'in progress'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export function outcomeOf(status: InboxStatus): Outcome {
  return status === 'processed' || status === 'failed' || status === 'dead-lettered' ? status : 'in progress';
}

/** Pending: not processed and not given up, so it may still run (in progress, or failed and retried). */
const isPending = (outcome: Outcome) => outcome === 'failed' || outcome === 'in progress';

/** A copy's outcome at one destination (forward-state.ts): `waiting` is pending on a disabled one. */
export const COPY_OUTCOMES = ['delivered', 'retrying', 'dead-lettered', 'pending'] as const;
export type CopyOutcome = (typeof COPY_OUTCOMES)[number];

export function copyOutcomeOf(state: ForwardState['state']): CopyOutcome {
  return state === 'delivered' || state === 'retrying' || state === 'dead-lettered' ? state : 'pending';
}

export interface TrendRow<O extends string> {
  name: string;
  counts: Record<O, number>;
  failedAttempts: number;
  /** When the oldest pending one was received, epoch ms; undefined when none is pending. */
  oldestPendingMs?: number;
}

export interface TrendPart<O extends string> {
  /** Per outcome, one count per bucket, by the delivery's receipt time. */
  received: Record<O, number[]>;
  /** Per provider (or destination), failed attempts per bucket, by the attempt's time. */
  failures: Map<string, number[]>;
  rows: TrendRow<O>[];
}

export interface Trends {
  window: TrendWindow;
  bucketMs: number;
  /** Each bucket's start, epoch ms, oldest first; the last bucket holds now. */
  bucketStarts: number[];
  sinceMs: number;
  nowMs: number;
  deliveries: TrendPart<Outcome>;
  destinations: TrendPart<CopyOutcome>;
  /** Deliveries counted. */
  counted: number;
  /** Set when the read stopped at the cap: deliveries received before this were not read. */
  unreadBeforeMs?: number;
}

/** The window's buckets: whole UTC hours (or 6-hour blocks), the last one the current, partial one. */
export function windowBuckets(
  window: TrendWindow,
  nowMs: number,
): { sinceMs: number; bucketStarts: number[] } {
  const { bucketMs, buckets } = TREND_WINDOWS[window];
  const last = Math.floor(nowMs / bucketMs) * bucketMs;
  const bucketStarts = Array.from({ length: buckets }, (_, i) => last - (buckets - 1 - i) * bucketMs);
  return { sinceMs: bucketStarts[0] as number, bucketStarts };
}

const zeros = (n: number) => Array.from({ length: n }, () => 0);

function emptyCounts<O extends string>(outcomes: readonly O[]): Record<O, number> {
  return Object.fromEntries(outcomes.map((o) => [o, 0])) as Record<O, number>;
}

class PartBuilder<O extends string> {
  readonly received: Record<O, number[]>;
  readonly failures = new Map<string, number[]>();
  private readonly rows = new Map<string, TrendRow<O>>();

  constructor(
    private readonly outcomes: readonly O[],
    private readonly slot: (ms: number) => number | undefined,
    private readonly size: number,
  ) {
    this.received = Object.fromEntries(outcomes.map((o) => [o, zeros(size)])) as Record<O, number[]>;
  }

  private row(name: string): TrendRow<O> {
    let row = this.rows.get(name);
    if (!row) {
      row = { name, counts: emptyCounts(this.outcomes), failedAttempts: 0 };
      this.rows.set(name, row);
    }
    return row;
  }

  receive(name: string, outcome: O, receivedMs: number, pending: boolean): void {
    const row = this.row(name);
    row.counts[outcome] += 1;
    const slot = this.slot(receivedMs);
    if (slot !== undefined) this.received[outcome][slot] = (this.received[outcome][slot] ?? 0) + 1;
    if (pending && (row.oldestPendingMs === undefined || receivedMs < row.oldestPendingMs))
      row.oldestPendingMs = receivedMs;
  }

  fail(name: string, atMs: number, count: number): void {
    const slot = this.slot(atMs);
    if (slot === undefined || count <= 0) return;
    this.row(name).failedAttempts += count;
    const series = this.failures.get(name) ?? zeros(this.size);
    series[slot] = (series[slot] ?? 0) + count;
    this.failures.set(name, series);
  }

  build(): TrendPart<O> {
    const byName = (a: { name: string }, b: { name: string }) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
    return {
      received: this.received,
      failures: new Map([...this.failures].sort(([a], [b]) => byName({ name: a }, { name: b }))),
      rows: [...this.rows.values()].sort(byName),
    };
  }
}

/**
 * When each failed attempt was, from the attempt log (failed and dead-lettered marks alike); a record
 * written before the log has only its count and the last failure's time, where all are put.
 */
function failureTimes(record: InboxRecord): { atMs: number; count: number }[] {
  const logged = attemptEntries(record.attemptLog);
  if (logged.length > 0) return logged.map((entry) => ({ atMs: Date.parse(entry.at), count: 1 }));
  const failures = record.attempts ?? 0;
  const at = record.deadLetteredAt ?? record.failedAt;
  return failures > 0 && at !== undefined ? [{ atMs: Date.parse(at), count: failures }] : [];
}

export interface TrendInput {
  window: TrendWindow;
  nowMs: number;
  /** The window's deliveries, newest first, as the listing reads them. */
  records: readonly InboxRecord[];
  /** Whether the read stopped at its cap with more left in the window. */
  truncated: boolean;
}

export function computeTrends(input: TrendInput): Trends {
  const { window, nowMs, records } = input;
  const { bucketMs } = TREND_WINDOWS[window];
  const { sinceMs, bucketStarts } = windowBuckets(window, nowMs);
  const slot = (ms: number) =>
    Number.isNaN(ms) || ms < sinceMs || ms > nowMs ? undefined : Math.floor((ms - sinceMs) / bucketMs);
  const deliveries = new PartBuilder(OUTCOMES, slot, bucketStarts.length);
  const destinations = new PartBuilder(COPY_OUTCOMES, slot, bucketStarts.length);
  let counted = 0;
  let oldestReadMs: number | undefined;
  for (const record of records) {
    const receivedMs = Date.parse(record.receivedAt);
    if (slot(receivedMs) === undefined) continue;
    counted += 1;
    oldestReadMs = Math.min(oldestReadMs ?? receivedMs, receivedMs);
    const outcome = outcomeOf(record.status);
    deliveries.receive(record.provider, outcome, receivedMs, isPending(outcome));
    for (const { atMs, count } of failureTimes(record)) deliveries.fail(record.provider, atMs, count);
    for (const copy of forwardStatesOf(record)) {
      const copyOutcome = copyOutcomeOf(copy.state);
      destinations.receive(
        copy.destination,
        copyOutcome,
        receivedMs,
        copyOutcome === 'retrying' || copyOutcome === 'pending',
      );
      // A history keeps the last attempt's time only: every failed attempt is put there.
      const failed = copy.attempts - (copy.state === 'delivered' ? 1 : 0);
      if (copy.lastAttemptAt !== undefined)
        destinations.fail(copy.destination, Date.parse(copy.lastAttemptAt), failed);
    }
  }
  return {
    window,
    bucketMs,
    bucketStarts,
    sinceMs,
    nowMs,
    deliveries: deliveries.build(),
    destinations: destinations.build(),
    counted,
    ...(input.truncated && oldestReadMs !== undefined ? { unreadBeforeMs: oldestReadMs } : {}),
  };
}

/**
 * Duplicates per bucket. A provider's retry is answered from the existing record by a conditional write
 * that fails, so the inbox table holds no count of them; on a stack the verify function's
 * DeliveryDuplicate metric does, for all providers together (its only dimension is the service). Local
 * mode publishes no metrics: `none`.
 */
export type DuplicateTrend =
  | { source: 'none' }
  | { source: 'metric'; values: number[] }
  | { source: 'metric'; error: string };

/** The metric's period: one CloudWatch period per bucket, so each datapoint is one bar. */
export function duplicatePeriodSeconds(window: TrendWindow): number {
  return TREND_WINDOWS[window].bucketMs / 1000;
}

/**
 * The metric's per-period sums placed in the window's buckets, by each datapoint's time (CloudWatch
 * stamps a datapoint with its period's start, and returns them in no order). A bucket without a datapoint
 * had nothing published: 0. Datapoints outside the window are dropped.
 */
export function duplicateBuckets(
  window: TrendWindow,
  nowMs: number,
  sums: readonly { atMs: number; sum: number }[],
): number[] {
  const { bucketMs } = TREND_WINDOWS[window];
  const { sinceMs, bucketStarts } = windowBuckets(window, nowMs);
  const values = zeros(bucketStarts.length);
  for (const { atMs, sum } of sums) {
    if (Number.isNaN(atMs) || atMs < sinceMs || atMs > nowMs) continue;
    const slot = Math.floor((atMs - sinceMs) / bucketMs);
    values[slot] = (values[slot] ?? 0) + sum;
  }
  return values;
}

/**
 * CloudWatch, us-east-1 list price per GetMetricStatistics request, past the free tier's million API
 * requests a month (bench/data/aws-prices.json, cloudwatchApiRequests).
 */
export const USD_PER_METRIC_REQUEST = 0.01 / 1_000;

/** DynamoDB on-demand, us-east-1 list price per read request unit (bench/data/aws-prices.json). */
export const USD_PER_READ_UNIT = 0.125 / 1_000_000;

/** What a view's reads cost at list prices: per 1,000 views, in dollars. */
export function costPerThousandViews(readUnits: number, metricRequests = 0): number {
  return (readUnits * USD_PER_READ_UNIT + metricRequests * USD_PER_METRIC_REQUEST) * 1000;
}
