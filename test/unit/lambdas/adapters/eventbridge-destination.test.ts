// EventBridgeDestinationSender over a scripted PutEvents client: one request for the sends of one turn
// (10 entries and 256 KB at most, one bus each), each caller answered from its own entry, whole-request
// failures, and the S3 reference an oversize event goes as.
import {
  EventBridgeClient,
  type PutEventsCommand,
  type PutEventsRequestEntry,
} from '@aws-sdk/client-eventbridge';
import { describe, expect, it } from 'vitest';
import {
  EventBridgeDestinationSender,
  type PutEventsClient,
} from '../../../../lambdas/adapters/eventbridge-destination';
import type { AttemptResult } from '../../../../lambdas/core/destinations/attempt';
import {
  entrySize,
  eventBridgeEntry,
  MAX_ENTRY_BYTES,
} from '../../../../lambdas/core/destinations/eventbridge-entry';
import type { OutboundDelivery } from '../../../../lambdas/core/destinations/ports';
import { DependencyError } from '../../../../lambdas/core/errors';
import type { PayloadWriter } from '../../../../lambdas/core/ports';
import { serviceUnavailable, throttled } from '../../../support/faults';
import { type DeliveryOptions, outboundDelivery } from '../../../support/outbound-delivery';

const BUS = 'arn:aws:events:eu-west-1:123456789012:event-bus/partner-events';

type Answer = { EventId?: string; ErrorCode?: string; ErrorMessage?: string };
/** Answers one request: an entry per request entry, or a thrown error for the whole request. */
type Script = (entries: PutEventsRequestEntry[]) => Answer[];

const accepted = (entries: PutEventsRequestEntry[]) => entries.map((_, i) => ({ EventId: `event-${i}` }));

function setup(script: Script = accepted, options: { bus?: (id: string) => string } = {}) {
  const requests: PutEventsRequestEntry[][] = [];
  const client: PutEventsClient = {
    send: async (command: PutEventsCommand) => {
      const entries = command.input.Entries ?? [];
      requests.push(entries);
      const answers = script(entries);
      return { FailedEntryCount: answers.filter((a) => a.ErrorCode).length, Entries: answers };
    },
  };
  const puts: { key: string; body: Buffer; sha256Hex: string }[] = [];
  const payloads: PayloadWriter & { failing?: boolean } = {
    put: async (key, body, sha256Hex) => {
      if (payloads.failing) throw new DependencyError('s3', 'PutObject');
      puts.push({ key, body, sha256Hex });
      return `s3://payload-bucket/${key}`;
    },
  };
  const sender = new EventBridgeDestinationSender({
    client,
    busFor: (destination) => options.bus?.(destination.id) ?? BUS,
    payloads,
  });
  return { sender, requests, puts, payloads };
}

/** Deliveries that differ in their dedup key (and so their detail): `n` of them. */
const deliveries = (n: number, options: DeliveryOptions = {}) =>
  Array.from({ length: n }, (_, i) => outboundDelivery({ dedupKey: `delivery-${i}`, ...options }));

const dedupKeyOf = (entry: PutEventsRequestEntry) =>
  (JSON.parse(entry.Detail ?? '{}') as { delivery: { dedupKey: string } }).delivery.dedupKey;

function failWith(error: () => Error): Script {
  return () => {
    throw error();
  };
}

describe('EventBridgeDestinationSender', () => {
  it('takes an EventBridgeClient as its client', () => {
    const client: PutEventsClient = new EventBridgeClient({ region: 'eu-west-1' });
    expect(typeof client.send).toBe('function');
  });

  it('puts the sends of one turn in one request, each entry as the core builds it, all accepted', async () => {
    const { sender, requests } = setup();
    const batch = deliveries(3);
    const results = await Promise.all(batch.map((d) => sender.send(d)));
    expect(results).toEqual([{ kind: 'accepted' }, { kind: 'accepted' }, { kind: 'accepted' }]);
    expect(requests).toEqual([batch.map((d) => eventBridgeEntry(d, BUS))]);
  });

  it('gathers sends that each reach it after their own awaits within the turn (the forwarder reads first)', async () => {
    const { sender, requests } = setup();
    const afterAwaits = async (delivery: OutboundDelivery, awaits: number) => {
      for (let i = 0; i < awaits; i++) await Promise.resolve();
      return sender.send(delivery);
    };
    const batch = deliveries(4);
    const oversize = outboundDelivery({ dedupKey: 'large', body: Buffer.alloc(300_000, 1) });
    await Promise.all([...batch.map((d, i) => afterAwaits(d, i * 3)), sender.send(oversize)]);
    expect(requests).toHaveLength(1);
    expect(new Set(requests[0]?.map(dedupKeyOf))).toEqual(
      new Set(['delivery-0', 'delivery-1', 'delivery-2', 'delivery-3', 'large']),
    );
  });

  it('answers each caller from its own entry when some entries fail (FailedEntryCount > 0)', async () => {
    const codes: Record<string, string> = {
      'delivery-1': 'ThrottlingException',
      'delivery-2': 'MalformedDetail',
      'delivery-3': 'AccessDeniedException',
      'delivery-4': 'InternalFailure',
      'delivery-5': 'InvalidArgument',
      'delivery-6': 'Not a <code> at all: '.padEnd(100, '!'),
    };
    const { sender, requests } = setup((entries) =>
      entries.map((entry, i) => {
        const code = codes[dedupKeyOf(entry)];
        return code ? { ErrorCode: code, ErrorMessage: 'refused' } : { EventId: `event-${i}` };
      }),
    );
    // Out of order, so a result matched by position in the batch rather than by entry would show.
    const batch = deliveries(7).reverse();
    const results = await Promise.all(batch.map((d) => sender.send(d)));
    expect(requests).toHaveLength(1);
    const byKey = Object.fromEntries(batch.map((d, i) => [d.envelope.dedupkey, results[i]]));
    expect(byKey).toEqual({
      'delivery-0': { kind: 'accepted' },
      'delivery-1': { kind: 'failed', code: 'ThrottlingException', retryable: true },
      'delivery-2': { kind: 'failed', code: 'MalformedDetail', retryable: false },
      'delivery-3': { kind: 'failed', code: 'AccessDeniedException', retryable: true },
      'delivery-4': { kind: 'failed', code: 'InternalFailure', retryable: true },
      'delivery-5': { kind: 'failed', code: 'InvalidArgument', retryable: false },
      'delivery-6': {
        kind: 'failed',
        code: `Not_a__code__at_all__${'_'.repeat(43)}`,
        retryable: true,
      },
    });
  });

  it('fails an entry the answer leaves out as retryable, not as taken', async () => {
    const { sender } = setup((entries) => accepted(entries).slice(0, 1));
    const results = await Promise.all(deliveries(2).map((d) => sender.send(d)));
    expect(results).toEqual([
      { kind: 'accepted' },
      { kind: 'failed', code: 'eventbridge_unanswered', retryable: true },
    ]);
  });

  it.each([
    ['throttled', throttled, 'ThrottlingException'],
    ['unavailable (503)', () => serviceUnavailable(), 'eventbridge_unavailable'],
    [
      'unreachable',
      () => Object.assign(new Error('socket hang up'), { name: 'Error', code: 'ECONNRESET' }),
      'eventbridge_unavailable',
    ],
  ])('fails every caller, retryable, when the whole request is %s', async (_, error, code) => {
    const { sender, requests } = setup(failWith(error));
    const results = await Promise.all(deliveries(3).map((d) => sender.send(d)));
    expect(requests).toHaveLength(1);
    expect(results).toEqual(Array(3).fill({ kind: 'failed', code, retryable: true }));
  });

  it('sends each entry alone after a request refused as invalid, so only the bad one fails for good', async () => {
    const invalid = () =>
      Object.assign(new Error('1 validation error detected'), {
        name: 'ValidationException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
      });
    const { sender, requests } = setup((entries) => {
      if (entries.some((entry) => dedupKeyOf(entry) === 'delivery-1')) throw invalid();
      return accepted(entries);
    });
    const results = await Promise.all(deliveries(3).map((d) => sender.send(d)));
    expect(results).toEqual([
      { kind: 'accepted' },
      { kind: 'failed', code: 'ValidationException', retryable: false },
      { kind: 'accepted' },
    ]);
    expect(requests.map((r) => r.length)).toEqual([3, 1, 1, 1]);
  });

  it('splits more than 10 concurrent sends into requests of at most 10, in order', async () => {
    const failing = new Set(['delivery-4', 'delivery-13', 'delivery-22']);
    const { sender, requests } = setup((entries) =>
      entries.map((entry) =>
        failing.has(dedupKeyOf(entry)) ? { ErrorCode: 'ThrottlingException' } : { EventId: 'ok' },
      ),
    );
    const batch = deliveries(23);
    const results = await Promise.all(batch.map((d) => sender.send(d)));
    expect(requests.map((r) => r.length)).toEqual([10, 10, 3]);
    expect(requests.flat().map(dedupKeyOf)).toEqual(batch.map((d) => d.envelope.dedupkey));
    results.forEach((result, i) => {
      const expected: AttemptResult = failing.has(`delivery-${i}`)
        ? { kind: 'failed', code: 'ThrottlingException', retryable: true }
        : { kind: 'accepted' };
      expect(result).toEqual(expected);
    });
  });

  it('keeps each request within 256 KB of entries in all', async () => {
    const { sender, requests } = setup();
    const body = `{"p":"${'x'.repeat(100_000)}"}`;
    await Promise.all(deliveries(5, { body }).map((d) => sender.send(d)));
    expect(requests.map((r) => r.length)).toEqual([2, 2, 1]);
    for (const request of requests) {
      const total = request.reduce(
        (sum, entry) => sum + entrySize(entry as Parameters<typeof entrySize>[0]),
        0,
      );
      expect(total).toBeLessThanOrEqual(MAX_ENTRY_BYTES);
    }
  });

  it('puts each bus in requests of its own', async () => {
    const otherBus = 'arn:aws:events:eu-west-1:210987654321:event-bus/other';
    const { sender, requests } = setup(accepted, { bus: (id) => (id === 'other' ? otherBus : BUS) });
    const other = { ...outboundDelivery().destination, id: 'other' };
    await Promise.all([
      sender.send(outboundDelivery({ dedupKey: 'a' })),
      sender.send(outboundDelivery({ dedupKey: 'b', destination: other })),
      sender.send(outboundDelivery({ dedupKey: 'c' })),
    ]);
    expect(requests.map((r) => r.map((e) => [e.EventBusName, dedupKeyOf(e)]))).toEqual([
      [
        [BUS, 'a'],
        [BUS, 'c'],
      ],
      [[otherBus, 'b']],
    ]);
  });

  it('sends the sends of later turns in later requests', async () => {
    const { sender, requests } = setup();
    const [first, second] = deliveries(2);
    expect(await sender.send(first!)).toEqual({ kind: 'accepted' });
    expect(await sender.send(second!)).toEqual({ kind: 'accepted' });
    expect(requests.map((r) => r.length)).toEqual([1, 1]);
  });

  it('writes an event over 256 KB to S3 under its content-addressed key and sends the reference', async () => {
    const { sender, requests, puts } = setup();
    const delivery = outboundDelivery({ body: `{"p":"${'x'.repeat(MAX_ENTRY_BYTES)}"}` });
    expect(await sender.send(delivery)).toEqual({ kind: 'accepted' });
    const sha = delivery.envelope.payloadsha256;
    expect(puts.map(({ key, sha256Hex }) => ({ key, sha256Hex }))).toEqual([
      { key: `payloads/github/${sha}`, sha256Hex: sha },
    ]);
    expect(puts[0]?.body.equals(delivery.body)).toBe(true);
    const [[entry]] = requests as [[PutEventsRequestEntry]];
    const detail = JSON.parse(entry.Detail ?? '{}') as Record<string, unknown>;
    expect(detail.eventRef).toBe(`s3://payload-bucket/payloads/github/${sha}`);
    expect(detail).not.toHaveProperty('event');
    expect(detail.delivery).toMatchObject({ payloadSha256: sha, webhookId: delivery.webhookId });
    expect(entrySize(entry as Parameters<typeof entrySize>[0])).toBeLessThan(2_000);
  });

  it('writes no object for an event that fits', async () => {
    const { sender, puts } = setup();
    await sender.send(outboundDelivery({ body: `{"p":"${'x'.repeat(200_000)}"}` }));
    expect(puts).toEqual([]);
  });

  it('fails an oversize event, retryable, when S3 cannot take its body, and sends nothing', async () => {
    const { sender, requests, payloads } = setup();
    payloads.failing = true;
    const result = await sender.send(outboundDelivery({ body: Buffer.alloc(300_000, 1) }));
    expect(result).toEqual({ kind: 'failed', code: 'payload_store_unavailable', retryable: true });
    expect(requests).toEqual([]);
  });

  it('refuses a destination of another type, which is a wiring bug', async () => {
    const { sender } = setup();
    const destination = { ...outboundDelivery().destination, type: 'sqs' as const, queueArn: 'arn' };
    await expect(sender.send(outboundDelivery({ destination }))).rejects.toThrow(/is sqs/);
  });
});
