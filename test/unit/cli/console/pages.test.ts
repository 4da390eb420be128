// What the console's pages show of a record: the CLI's status colours, the timeline in time order, dead
// letters grouped with counts and oldest age, and inbox text escaped (a webhook's sender writes it).
import { describe, expect, it } from 'vitest';
import { STYLES } from '../../../../cli/console/assets';
import { groupDeadLetters } from '../../../../cli/console/console-operations';
import { esc, statusBadge } from '../../../../cli/console/html';
import { deliveriesPage, deliveryPage, providersPage, timeline } from '../../../../cli/console/pages';
import { INBOX_COLOURS } from '../../../../cli/shared/output';
import { INDEX_LAG_NOTE } from '../../../../lambdas/adapters/dynamo-inbox-listing';
import { INBOX_STATUSES, type InboxRecord } from '../../../../lambdas/core/inbox';

const frame = { target: 'test', token: 't', readOnly: false };

function record(overrides: Partial<InboxRecord>): InboxRecord {
  return {
    pk: 'mobazha#evt_1',
    provider: 'mobazha',
    dedupKey: 'evt_1',
    payloadSha256: 'ab'.repeat(32),
    status: 'processed',
    receivedAt: '2026-12-01T10:00:00.000Z',
    attempts: 0,
    expiresAt: 2_000_000_000,
    ...overrides,
  };
}

describe('console pages', () => {
  it('colours each status as the CLI does, with a style for each colour', () => {
    expect(Object.keys(INBOX_COLOURS).sort()).toEqual([...INBOX_STATUSES].sort());
    for (const status of INBOX_STATUSES) {
      const colour = INBOX_COLOURS[status];
      expect(statusBadge(status)).toContain(`badge-${colour}`);
      expect(STYLES).toContain(`.badge-${colour}`);
    }
    expect(INBOX_COLOURS).toMatchObject({ processed: 'green', 'dead-lettered': 'red', failed: 'yellow' });
  });

  it('orders the timeline by time: received, failed, dead-lettered, redriven, processed, replayed', () => {
    const entries = timeline(
      record({
        attempts: 1,
        lastErrorCode: 'downstream_rejected',
        deadLetteredAt: '2026-12-01T10:00:02.000Z',
        redrivenAt: '2026-12-01T10:05:00.000Z',
        processedAt: '2026-12-01T10:05:01.000Z',
        lastReplayedAt: '2026-12-01T11:00:00.000Z',
        replays: 2,
        lastReplayedBy: 'arn:aws:iam::123456789012:user/ops',
      }),
    );
    expect(entries.map((e) => e.what)).toEqual([
      'received',
      'attempts failed',
      'dead-lettered',
      'redriven',
      'processed',
      'replayed',
    ]);
    expect(entries.at(-1)?.note).toBe('2 replays, last by arn:aws:iam::123456789012:user/ops');
  });

  it('renders one timeline line per processing attempt, in time order, with its code and receive', () => {
    const html = deliveryPage(
      frame,
      record({
        status: 'processed',
        attempts: 3,
        lastErrorCode: 'http_502',
        // Out of order on purpose: the page orders by time, not by the log's order.
        attemptLog: [
          '2026-12-01T10:00:30.000Z|http_500|2|failed',
          '2026-12-01T10:00:01.000Z|timeout|1|failed',
          '2026-12-01T10:01:30.000Z|http_502|3|dead-lettered',
        ],
        deadLetteredAt: '2026-12-01T10:01:30.000Z',
        redrivenAt: '2026-12-01T10:05:00.000Z',
        processedAt: '2026-12-01T10:05:01.000Z',
      }),
    );
    const timelineHtml = html.slice(
      html.indexOf('id="timeline"'),
      html.indexOf('</table>', html.indexOf('id="timeline"')),
    );
    const rows = [...timelineHtml.matchAll(/<strong>([^<]+)<\/strong><\/td><td>(.*?)<\/td>/g)].map(
      (m) => `${m[1]}: ${m[2]?.replace(/<[^>]+>/g, '')}`,
    );
    expect(rows).toEqual([
      'received: -',
      'attempt failed: timeout, receive 1, retried',
      'attempt failed: http_500, receive 2, retried',
      'dead-lettered: http_502, receive 3',
      'redriven: moved back from the DLQ',
      'processed: -',
    ]);
  });

  it('groups dead letters by provider and error code, with counts and the oldest give-up', () => {
    const groups = groupDeadLetters([
      record({
        pk: 'a#1',
        provider: 'a',
        status: 'dead-lettered',
        lastErrorCode: 'x',
        deadLetteredAt: '2026-12-01T10:00:00.000Z',
      }),
      record({
        pk: 'a#2',
        provider: 'a',
        status: 'dead-lettered',
        lastErrorCode: 'x',
        deadLetteredAt: '2026-12-01T09:00:00.000Z',
      }),
      record({ pk: 'a#3', provider: 'a', status: 'dead-lettered', lastErrorCode: 'y' }),
      record({ pk: 'b#1', provider: 'b', status: 'dead-lettered' }),
    ]);
    expect(groups.map((g) => [g.provider, g.errorCode, g.count])).toEqual([
      ['a', 'x', 2],
      ['a', 'y', 1],
      ['b', 'unknown', 1],
    ]);
    expect(groups[0]?.oldestMs).toBe(Date.parse('2026-12-01T09:00:00.000Z'));
  });

  it('escapes what a sender wrote, and keeps the payload out of the page', () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const html = deliveryPage(
      frame,
      record({
        eventType: hostile,
        dedupKey: `"><script>x</script>`,
        archiveBody: Buffer.from('{"card":"4242"}').toString('base64'),
      }),
    );
    expect(html).not.toContain(hostile);
    expect(html).not.toContain('<script>x');
    expect(html).toContain(esc(hostile));
    expect(html).not.toContain('4242');
    expect(html).not.toContain(Buffer.from('{"card":"4242"}').toString('base64'));
  });

  it('says a search too short for a key prefix needs 6 characters, when nothing matched it', () => {
    const empty = { records: [] };
    expect(deliveriesPage(frame, ['mobazha'], { q: '54ba' }, empty, 50)).toContain(
      'A key prefix needs at least 6 characters; this search has 4.',
    );
    expect(deliveriesPage(frame, ['mobazha'], { q: '54ba12' }, empty, 50)).not.toContain('needs at least');
  });

  it('says under a page read from the listing index that a delivery received in the last second or two may not show yet', () => {
    const html = deliveriesPage(frame, ['mobazha'], {}, { records: [], note: INDEX_LAG_NOTE }, 50);
    expect(html).toContain('id="index-note"');
    expect(html).toMatch(
      /eventually consistent: a delivery received or changed in the last second or two may not show yet/,
    );
    expect(deliveriesPage(frame, ['mobazha'], { q: 'evt_1' }, { records: [] }, 50)).not.toContain(
      'index-note',
    );
  });

  it('links the Deliveries list to the previous page, and the first page to none', () => {
    const page = { records: [record({})], cursor: 'c2' };
    const first = deliveriesPage(frame, ['mobazha'], { provider: 'mobazha' }, page, 50);
    expect(first).not.toContain('rel="prev"');
    expect(first).toContain('href="deliveries?provider=mobazha&amp;cursor=c2"');
    const third = deliveriesPage(
      frame,
      ['mobazha'],
      { provider: 'mobazha', cursor: 'c2', prev: 'c1' },
      page,
      50,
    );
    expect(third).toContain('rel="prev" href="deliveries?provider=mobazha&amp;cursor=c1"');
    expect(third).toContain('href="deliveries?provider=mobazha&amp;cursor=c2&amp;prev=c1.c2"');
  });

  it('asks before a replay, naming the destinations the delivery goes to', () => {
    const archived = record({
      eventType: 'order.paid',
      archivedAt: '2026-12-01T10:00:01.000Z',
      archiveBody: 'e30=',
    });
    const html = deliveryPage(frame, archived, ['handlers', 'audit']);
    expect(html).toContain('<dialog id="replay-confirm"');
    expect(html).toMatch(/sends it to <strong>handlers<\/strong>, <strong>audit<\/strong>/);
    expect(deliveryPage({ ...frame, readOnly: true }, archived, ['handlers'])).not.toContain('<dialog');
  });

  it('names a provider once when its scheme is the same word, and says the shared secrets file once', () => {
    const view = (id: string, scheme: string) => ({
      id,
      scheme,
      url: `http://127.0.0.1:3000/webhooks/${id}`,
      where: 'Settings → Webhooks',
      issuer: 'provider' as const,
      location: `/p/secrets.json ["${id}"]`,
      store: '/p/secrets.json',
      secrets: [{ label: 'current', masked: '****abcd (40 chars)' }],
      previousUse: { text: 'no previous secret: nothing else is accepted' },
    });
    const html = providersPage(frame, [
      view('github', 'github'),
      view('zoom', 'zoom'),
      view('acme', 'standard-webhooks'),
    ]);
    const text = html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    expect(text).not.toMatch(/github github|zoom zoom/);
    expect(text).toContain('acme scheme standard-webhooks');
    expect(html.match(/\/p\/secrets\.json/g)).toHaveLength(1);
  });
});
