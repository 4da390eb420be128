// The trends' one read: the window's deliveries from the listing index (capped), bucketed by trends.ts.
// A failed read costs the page its trends only, in one line; the listing below them still shows.
import { describeError } from '../shared/output';
import type { DeliveriesSource } from './deliveries-source';
import { computeTrends, TREND_READ_CAP, type TrendWindow, windowBuckets } from './trends';
import type { TrendsView } from './trends-section';

export async function readTrends(
  source: Pick<DeliveriesSource, 'windowRecords'>,
  window: TrendWindow,
  nowMs: number,
  provider?: string,
  cap = TREND_READ_CAP,
): Promise<TrendsView> {
  const { sinceMs } = windowBuckets(window, nowMs);
  try {
    const read = await source.windowRecords({
      ...(provider === undefined ? {} : { provider }),
      sinceMs,
      untilMs: nowMs,
      cap,
    });
    return {
      trends: computeTrends({ window, nowMs, records: read.records, truncated: read.truncated }),
      itemsRead: read.itemsRead,
      readUnits: read.readUnits,
    };
  } catch (error) {
    return { window, error: describeError(error) };
  }
}
