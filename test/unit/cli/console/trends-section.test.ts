// The trends section of the Deliveries page: the 24 h / 7 d switch as links, four well-formed charts,
// the tables by provider and destination, the cost of the read, where a capped read stopped, duplicates
// (drawn from the metric on a stack, a sentence locally, one line when the metric cannot be read), and a
// failed read as one line.
import { describe, expect, it } from 'vitest';
import { computeTrends, TREND_READ_CAP } from '../../../../cli/console/trends';
import { trendsSection } from '../../../../cli/console/trends-section';
import { forwardAttribute, serializeForwardState } from '../../../../lambdas/core/destinations/forward-state';
import type { InboxRecord } from '../../../../lambdas/core/inbox';
import { allElements, parseStrictXml } from '../../../support/strict-xml';

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 11, 1, 12, 30);

function record(
  provider: string,
  key: string,
  receivedMs: number,
  more: Partial<InboxRecord> = {},
): InboxRecord {
  return {
    pk: `${provider}#${key}`,
    provider,
    dedupKey: key,
    payloadSha256: 'a'.repeat(64),
    status: 'processed',
    receivedAt: new Date(receivedMs).toISOString(),
    attempts: 0,
    expiresAt: 2_000_000_000,
    ...more,
  };
}

const evil = '<img src=x onerror=alert(1)>';
const records = [
  record('github', 'a', NOW - HOUR, {
    [forwardAttribute(evil)]: serializeForwardState({
      destination: evil,
      state: 'retrying',
      attempts: 2,
      webhookId: 'msg_a',
      lastAttemptAt: new Date(NOW - 30 * 60_000).toISOString(),
    }),
  } as Partial<InboxRecord>),
  record('stripe', 'b', NOW - 3 * HOUR, {
    status: 'failed',
    attempts: 1,
    failedAt: new Date(NOW - 2 * HOUR).toISOString(),
  }),
];

const svgs = (html: string) => [...html.matchAll(/<svg[\s\S]*?<\/svg>/g)].map((m) => parseStrictXml(m[0]));

describe('trends section', () => {
  it('switches windows by links that keep the provider filter, marking the one shown', () => {
    const html = trendsSection(
      {
        trends: computeTrends({ window: '24h', nowMs: NOW, records, truncated: false }),
        itemsRead: 40,
        readUnits: 20,
      },
      { provider: 'github', trend: '24h' },
    );
    expect(html).toContain('<strong aria-current="true">24 hours</strong>');
    expect(html).toContain('href="deliveries?provider=github&amp;trend=7d"');
    expect(html).not.toContain('<script');
  });

  it('draws four well-formed charts with their bars, and tables by provider and destination', () => {
    const html = trendsSection(
      {
        trends: computeTrends({ window: '24h', nowMs: NOW, records, truncated: false }),
        itemsRead: 40,
        readUnits: 20,
      },
      {},
    );
    const charts = svgs(html);
    expect(charts.map((c) => c.attributes.id)).toEqual([
      'trend-received',
      'trend-failures',
      'trend-copies',
      'trend-destination-failures',
    ]);
    const barCount = charts.map((c) => allElements(c).filter((e) => e.attributes.class === 'bar').length);
    // Received: one processed bar, one failed; failures: stripe's one; copies: one retrying; its 2 failures.
    expect(barCount).toEqual([2, 1, 1, 1]);
    expect(html).toContain('href="deliveries?provider=stripe&amp;trend=24h"');
    // The destination's name is text wherever it shows.
    expect(html).not.toContain(evil);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('says what the read cost, and that duplicates are not counted locally', () => {
    const html = trendsSection(
      {
        trends: computeTrends({ window: '7d', nowMs: NOW, records, truncated: false }),
        itemsRead: 4321,
        readUnits: 2500,
      },
      {},
    );
    expect(html).toMatch(
      /read 4,321 index entries and records, 2500 read units as DynamoDB reported them: about \$0\.31 per 1,000 views/,
    );
    expect(html).toContain('Duplicates are not counted locally');
    expect(html).toContain('On a stack they are drawn here from the verify function');
    expect(html).not.toContain('trend-duplicates"');
    expect(html).not.toContain('GetMetricStatistics');
    expect(html).toContain('per 6 hours');
  });

  it('says where a capped read stopped, and greys that part of each chart', () => {
    const html = trendsSection(
      {
        trends: computeTrends({ window: '24h', nowMs: NOW, records, truncated: true }),
        itemsRead: 1,
        readUnits: 1,
      },
      {},
    );
    expect(html).toContain(`The read stopped at ${TREND_READ_CAP.toLocaleString('en-US')} deliveries`);
    expect(html).toContain('2026-12-01 09:30 UTC');
    for (const chart of svgs(html))
      expect(allElements(chart).some((e) => e.attributes.class === 'unread')).toBe(true);
  });

  it('shows a failed read as one line, with the switch still there', () => {
    const html = trendsSection({ window: '7d', error: 'dynamodb Query failed: <refused>' }, {});
    expect(html).toContain(
      '<p class="error">trends not available: dynamodb Query failed: &lt;refused&gt;</p>',
    );
    expect(html).toContain('<strong aria-current="true">7 days</strong>');
  });

  const view = (window: '24h' | '7d', truncated = false) => ({
    trends: computeTrends({ window, nowMs: NOW, records, truncated }),
    itemsRead: 1000,
    readUnits: 1000,
  });

  it('draws duplicates from the metric on a stack, for all providers, and adds its request to the cost', () => {
    const values = Array.from({ length: 24 }, (_, i) => (i === 23 ? 5 : i === 20 ? 2 : 0));
    const html = trendsSection(view('24h', true), { provider: 'github' }, { source: 'metric', values });
    const chart = svgs(html).find((c) => c.attributes.id === 'trend-duplicates');
    expect(chart).toBeDefined();
    const elements = allElements(chart as NonNullable<typeof chart>);
    const bars = elements.filter((e) => e.attributes.class === 'bar');
    expect(bars).toHaveLength(2);
    expect(html).toContain('<figcaption>Duplicates per hour (all providers)</figcaption>');
    // The metric is not the inbox read: no grey band where the read's cap stopped.
    expect(elements.some((e) => e.attributes.class === 'unread')).toBe(false);
    expect(html).toContain(
      'DeliveryDuplicate metric in CloudWatch, which counts all providers together, not github alone',
    );
    expect(html).not.toContain('not counted locally');
    expect(html).toMatch(
      /1000 read units as DynamoDB reported them, and made one CloudWatch GetMetricStatistics request for the duplicates: about \$0\.14 per 1,000 views/,
    );
    // The other charts are all still there.
    expect(svgs(html)).toHaveLength(5);
  });

  it('draws 7 days of duplicates in 6-hour bars', () => {
    const values = Array.from({ length: 28 }, (_, i) => (i === 0 ? 1 : 0));
    const html = trendsSection(view('7d'), {}, { source: 'metric', values });
    expect(html).toContain('<figcaption>Duplicates per 6 hours (all providers)</figcaption>');
    const chart = svgs(html).find((c) => c.attributes.id === 'trend-duplicates');
    expect(
      allElements(chart as NonNullable<typeof chart>).filter((e) => e.attributes.class === 'bar'),
    ).toHaveLength(1);
    expect(html).not.toContain(', not ');
  });

  it('says in one line why duplicates could not be read, and shows the rest of the trends', () => {
    const html = trendsSection(
      view('24h'),
      {},
      { source: 'metric', error: 'cloudwatch GetMetricStatistics failed: <AccessDenied>' },
    );
    expect(html).toContain(
      '<p class="error" id="trends-duplicates">duplicates not available: cloudwatch GetMetricStatistics failed: &lt;AccessDenied&gt;</p>',
    );
    expect(svgs(html).map((c) => c.attributes.id)).toEqual([
      'trend-received',
      'trend-failures',
      'trend-copies',
      'trend-destination-failures',
    ]);
    expect(html).toContain('id="trends-cost"');
  });
});
