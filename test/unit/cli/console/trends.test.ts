// The trends' buckets from inbox records: whole UTC hours (6-hour blocks over 7 days), a delivery in the
// bucket of its receipt by its status now, failed attempts at their own times, copies per destination
// from the forward states, the oldest pending delivery, empty data, and the read cap.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  computeTrends,
  costPerThousandViews,
  TREND_READ_CAP,
  USD_PER_READ_UNIT,
  windowBuckets,
} from '../../../../cli/console/trends';
import { readTrends } from '../../../../cli/console/trends-read';
import {
  type ForwardState,
  forwardAttribute,
  serializeForwardState,
} from '../../../../lambdas/core/destinations/forward-state';
import type { InboxRecord, InboxStatus } from '../../../../lambdas/core/inbox';

const HOUR = 3_600_000;
/** 2026-12-01 12:30 UTC: the current hour's bucket starts at 12:00. */
const NOW = Date.UTC(2026, 11, 1, 12, 30);
const iso = (ms: number) => new Date(ms).toISOString();

let n = 0;
function record(
  receivedMs: number,
  status: InboxStatus = 'processed',
  more: Partial<InboxRecord> = {},
): InboxRecord {
  n += 1;
  return {
    pk: `github#d${n}`,
    provider: 'github',
    dedupKey: `d${n}`,
    payloadSha256: 'a'.repeat(64),
    status,
    receivedAt: iso(receivedMs),
    attempts: 0,
    expiresAt: 2_000_000_000,
    ...more,
  };
}

function copy(destination: string, state: ForwardState['state'], attempts: number, lastAttemptMs?: number) {
  const value: ForwardState = {
    destination,
    state,
    attempts,
    webhookId: 'msg_1',
    ...(lastAttemptMs === undefined ? {} : { lastAttemptAt: iso(lastAttemptMs) }),
  };
  return { [forwardAttribute(destination)]: serializeForwardState(value) } as Partial<InboxRecord>;
}

const trendsOf = (records: InboxRecord[], window: '24h' | '7d' = '24h', truncated = false) =>
  computeTrends({ window, nowMs: NOW, records, truncated });

describe('trend buckets', () => {
  it('has 24 whole UTC hours, the last the current one, and 28 six-hour blocks for 7 days', () => {
    const day = windowBuckets('24h', NOW);
    expect(day.bucketStarts).toHaveLength(24);
    expect(day.bucketStarts.at(-1)).toBe(Date.UTC(2026, 11, 1, 12));
    expect(day.sinceMs).toBe(Date.UTC(2026, 10, 30, 13));
    const week = windowBuckets('7d', NOW);
    expect(week.bucketStarts).toHaveLength(28);
    expect(week.bucketStarts.at(-1)).toBe(Date.UTC(2026, 11, 1, 12));
    expect(week.sinceMs).toBe(Date.UTC(2026, 10, 24, 18));
    expect(week.bucketStarts.every((start) => new Date(start).getUTCHours() % 6 === 0)).toBe(true);
  });

  it('puts a delivery received on an hour boundary in the hour it starts, a millisecond before in the one before', () => {
    const boundary = Date.UTC(2026, 11, 1, 10);
    const trends = trendsOf([record(boundary), record(boundary - 1), record(boundary - 1)]);
    const processed = trends.deliveries.received.processed;
    expect(processed[21]).toBe(1); // 10:00-11:00
    expect(processed[20]).toBe(2); // 09:00-10:00
  });

  it('counts from the window start to now, both included, and nothing outside', () => {
    const { sinceMs } = windowBuckets('24h', NOW);
    const trends = trendsOf([record(NOW + 1), record(NOW), record(sinceMs), record(sinceMs - 1)]);
    expect(trends.counted).toBe(2);
    expect(trends.deliveries.received.processed[23]).toBe(1);
    expect(trends.deliveries.received.processed[0]).toBe(1);
    // Seven days reach back further: the delivery 24 hours ago is inside it.
    expect(trendsOf([record(sinceMs - 1)], '7d').counted).toBe(1);
  });

  it('counts each outcome by the status now: claimed, enqueued and processing are in progress', () => {
    const at = NOW - 10 * 60_000;
    const statuses: InboxStatus[] = [
      'processed',
      'failed',
      'dead-lettered',
      'claimed',
      'enqueued',
      'processing',
    ];
    const trends = trendsOf(statuses.map((s) => record(at, s)));
    const last = (o: keyof typeof trends.deliveries.received) => trends.deliveries.received[o][23];
    expect([last('processed'), last('failed'), last('dead-lettered'), last('in progress')]).toEqual([
      1, 1, 1, 3,
    ]);
    expect(trends.deliveries.rows).toEqual([
      {
        name: 'github',
        counts: { processed: 1, failed: 1, 'dead-lettered': 1, 'in progress': 3 },
        failedAttempts: 0,
        oldestPendingMs: at,
      },
    ]);
  });

  it('puts failed attempts at their own times from the attempt log, by provider, and only inside the window', () => {
    const received = NOW - 5 * HOUR;
    const log = [
      `${iso(NOW - 5 * HOUR + 60_000)}|timeout|1|failed`,
      `${iso(NOW - 3 * HOUR)}|timeout|2|failed`,
      `${iso(NOW - 2 * HOUR)}|http_500|3|dead-lettered`,
    ];
    const trends = trendsOf([
      record(received, 'dead-lettered', { attempts: 3, attemptLog: log }),
      {
        ...record(received, 'failed', { attempts: 1, attemptLog: [`${iso(NOW + HOUR)}|timeout|1|failed`] }),
        provider: 'stripe',
      },
    ]);
    const github = trends.deliveries.failures.get('github');
    expect(github?.[18]).toBe(1); // 07:xx
    expect(github?.[20]).toBe(1); // 09:30
    expect(github?.[21]).toBe(1); // 10:30
    expect(github?.reduce((a, b) => a + b, 0)).toBe(3);
    // A failure after now (a skewed clock) is not drawn.
    expect(trends.deliveries.failures.has('stripe')).toBe(false);
    expect(trends.deliveries.rows.map((r) => [r.name, r.failedAttempts])).toEqual([
      ['github', 3],
      ['stripe', 0],
    ]);
  });

  it('puts all of a record without an attempt log at its last failure', () => {
    const trends = trendsOf([record(NOW - 4 * HOUR, 'failed', { attempts: 3, failedAt: iso(NOW - HOUR) })]);
    expect(trends.deliveries.failures.get('github')?.[22]).toBe(3);
  });

  it('counts copies per destination by their state, and their failed attempts at the last attempt', () => {
    const at = NOW - 2 * HOUR;
    const trends = trendsOf([
      record(at, 'processed', { ...copy('crm', 'delivered', 2, NOW - HOUR), ...copy('audit', 'pending', 0) }),
      record(at - HOUR, 'processed', { ...copy('crm', 'retrying', 3, NOW - 10 * 60_000) }),
      record(at, 'processed', {
        ...copy('crm', 'dead-lettered', 5, NOW - HOUR),
        ...copy('audit', 'waiting', 1),
      }),
      record(at, 'processed'),
    ]);
    const { received, failures, rows } = trends.destinations;
    expect(received.delivered[21]).toBe(1);
    expect(received['dead-lettered'][21]).toBe(1);
    expect(received.retrying[20]).toBe(1);
    expect(received.pending[21]).toBe(2);
    // delivered after 2 attempts: 1 failed; dead-lettered after 5: 5 failed; both last tried at 11:30.
    expect(failures.get('crm')?.[22]).toBe(6);
    expect(failures.get('crm')?.[23]).toBe(3);
    // A history without a last attempt's time is not drawn.
    expect(failures.has('audit')).toBe(false);
    expect(rows).toEqual([
      {
        name: 'audit',
        counts: { delivered: 0, retrying: 0, 'dead-lettered': 0, pending: 2 },
        failedAttempts: 0,
        oldestPendingMs: at,
      },
      {
        name: 'crm',
        counts: { delivered: 1, retrying: 1, 'dead-lettered': 1, pending: 0 },
        failedAttempts: 9,
        oldestPendingMs: at - HOUR,
      },
    ]);
  });

  it('gives the oldest pending delivery: failed or in progress, never processed or dead-lettered', () => {
    const trends = trendsOf([
      record(NOW - 20 * HOUR, 'processed'),
      record(NOW - 19 * HOUR, 'dead-lettered'),
      record(NOW - 7 * HOUR, 'failed'),
      record(NOW - 3 * HOUR, 'enqueued'),
      { ...record(NOW - 9 * HOUR, 'processed'), provider: 'stripe' },
    ]);
    expect(trends.deliveries.rows.map((r) => [r.name, r.oldestPendingMs])).toEqual([
      ['github', NOW - 7 * HOUR],
      ['stripe', undefined],
    ]);
  });

  it('draws zeros and no rows for a window without deliveries', () => {
    const trends = trendsOf([]);
    expect(trends.counted).toBe(0);
    expect(trends.deliveries.rows).toEqual([]);
    expect(trends.destinations.rows).toEqual([]);
    expect(trends.deliveries.failures.size).toBe(0);
    expect(
      Object.values(trends.deliveries.received)
        .flat()
        .every((v) => v === 0),
    ).toBe(true);
    expect(trends.unreadBeforeMs).toBeUndefined();
  });

  it('marks where a capped read stopped: the oldest delivery it read', () => {
    const records = [record(NOW - HOUR), record(NOW - 5 * HOUR)];
    expect(trendsOf(records, '24h', true).unreadBeforeMs).toBe(NOW - 5 * HOUR);
    expect(trendsOf(records, '24h', false).unreadBeforeMs).toBeUndefined();
  });
});

describe('reading the trends', () => {
  it('reads the window from its first bucket to now, at most the cap, and says what it read', async () => {
    const asked: unknown[] = [];
    const view = await readTrends(
      {
        windowRecords: async (query) => {
          asked.push(query);
          return { records: [record(NOW - HOUR)], truncated: true, itemsRead: 12, readUnits: 6.5 };
        },
      },
      '24h',
      NOW,
      'github',
    );
    expect(asked).toEqual([
      { provider: 'github', sinceMs: Date.UTC(2026, 10, 30, 13), untilMs: NOW, cap: TREND_READ_CAP },
    ]);
    expect(view).toMatchObject({
      itemsRead: 12,
      readUnits: 6.5,
      trends: { counted: 1, unreadBeforeMs: NOW - HOUR },
    });
  });

  it('turns a failed read into one line for the section', async () => {
    const view = await readTrends(
      {
        windowRecords: async () => {
          throw new Error('connect ECONNREFUSED 127.0.0.1:4567');
        },
      },
      '7d',
      NOW,
    );
    expect(view).toEqual({ window: '7d', error: expect.stringContaining('ECONNREFUSED') });
  });

  it('prices read units as the cost model does: $0.125 per million at on-demand', () => {
    const prices = JSON.parse(
      readFileSync(join(__dirname, '../../../../bench/data/aws-prices.json'), 'utf8'),
    );
    expect(USD_PER_READ_UNIT * prices.items.dynamodbOnDemandRead.per).toBe(
      prices.items.dynamodbOnDemandRead.usd,
    );
    expect(costPerThousandViews(TREND_READ_CAP)).toBeCloseTo(0.625, 6);
  });
});
