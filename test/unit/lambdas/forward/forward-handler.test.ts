// The forwarder's batch layer: one line per delivery, the batch's metrics carried by its last line in one
// EMF document with the `service` and `destination` dimensions the alarms read; the counts written once.
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../../config';
import { FORWARD_DIMENSION, FORWARD_METRICS, METRICS_NAMESPACE, SERVICE } from '../../../../config/telemetry';
import { jsonTelemetry } from '../../../../lambdas/adapters/json-telemetry';
import type { ForwardState } from '../../../../lambdas/core/destinations/forward-state';
import { buildEnvelope, MESSAGE_ATTRIBUTES, serializeEnvelope } from '../../../../lambdas/core/envelope';
import { sha256Hex } from '../../../../lambdas/core/schemes/primitives';
import { createForwardHandler } from '../../../../lambdas/forward/forward-handler';

const config = parseConfig({
  destinations: { hooks: { type: 'http', url: 'https://hooks.example.com/in' } },
});

function record(i: number): SQSRecord {
  const body = Buffer.from(`{"type":"order.paid","i":${i}}`);
  const envelope = buildEnvelope({
    provider: 'standard-webhooks',
    dedupKey: `msg_${i}`,
    eventType: 'order.paid',
    contentType: 'application/json',
    payloadSha256: sha256Hex(body),
    body,
    receivedAtMs: 1_000,
  });
  return {
    messageId: `m-${i}`,
    receiptHandle: `rh-${i}`,
    body: serializeEnvelope(envelope),
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: '1000' } as SQSRecord['attributes'],
    messageAttributes: {
      [MESSAGE_ATTRIBUTES.destination]: { stringValue: 'hooks', dataType: 'String' },
    } as SQSRecord['messageAttributes'],
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:q-to-hooks',
    awsRegion: 'us-east-1',
  };
}

describe('the forwarder batch', () => {
  it('writes one line per delivery and one EMF document, on the last line, dimensioned by destination', async () => {
    const lines: Record<string, unknown>[] = [];
    const counts: unknown[] = [];
    const histories = new Map<string, ForwardState>();
    const handler = createForwardHandler({
      config,
      senders: { http: { send: async () => ({ kind: 'answered', status: 204 }) } },
      history: {
        get: async (pk, id) => histories.get(`${pk}/${id}`),
        put: async (pk, state) => {
          histories.set(`${pk}/${state.destination}`, state);
          return 'written' as const;
        },
      },
      states: {
        status: async () => ({ enabled: true }),
        disable: async () => undefined,
        enable: async () => undefined,
        count: async (id, c) => void counts.push([id, c]),
        recent: async () => ({ delivered: 0, failed: 0 }),
      },
      intake: { pause: async () => undefined, resume: async () => undefined },
      payloads: { get: async () => ({ body: Buffer.alloc(0) }), rewrite: async () => undefined },
      messagesFor: () => ({ delay: async () => undefined }),
      queues: { send: async () => ({ messageId: 'x' }) },
      clock: { now: () => 2_000 },
      ...jsonTelemetry({
        service: SERVICE.forward,
        namespace: METRICS_NAMESPACE,
        write: (line) => void lines.push(JSON.parse(line)),
        env: {},
      }),
    });
    const response = await handler({ Records: [record(1), record(2), record(3)] });
    expect(response.batchItemFailures).toEqual([]);
    expect(lines.map((l) => l.message)).toEqual([
      'forward delivered',
      'forward delivered',
      'forward delivered',
    ]);
    const withMetrics = lines.filter((l) => '_aws' in l);
    expect(withMetrics).toHaveLength(1);
    const [carrier] = withMetrics as [
      Record<string, unknown> & { _aws: { CloudWatchMetrics: { Dimensions: string[][] }[] } },
    ];
    expect(carrier).toBe(lines[2]);
    expect(carrier._aws.CloudWatchMetrics[0]?.Dimensions).toEqual([['service', FORWARD_DIMENSION]]);
    expect(carrier).toMatchObject({ service: SERVICE.forward, [FORWARD_DIMENSION]: 'hooks' });
    expect(carrier[FORWARD_METRICS.delivered]).toEqual([1, 1, 1]);
    expect(carrier[FORWARD_METRICS.disabled]).toEqual([0, 0, 0]);
    expect(counts).toEqual([['hooks', { delivered: 3, failed: 0 }]]);
  });

  it('pauses a disabled destination, and resumes it if it was enabled while the pause was made', async () => {
    const calls: string[] = [];
    // The batch reads "disabled"; the re-read before the pause agrees; the one after it finds an enable.
    const fresh = [false, true];
    const handler = createForwardHandler({
      config,
      senders: { http: { send: async () => ({ kind: 'answered', status: 204 }) } },
      history: { get: async () => undefined, put: async () => 'written' as const },
      states: {
        status: async (_id, options) => ({ enabled: options?.fresh ? (fresh.shift() ?? true) : false }),
        disable: async () => undefined,
        enable: async () => undefined,
        count: async () => undefined,
        recent: async () => ({ delivered: 0, failed: 0 }),
      },
      intake: {
        pause: async (id) => void calls.push(`pause ${id}`),
        resume: async (id) => void calls.push(`resume ${id}`),
      },
      payloads: { get: async () => ({ body: Buffer.alloc(0) }), rewrite: async () => undefined },
      messagesFor: () => ({ delay: async () => undefined }),
      queues: { send: async () => ({ messageId: 'x' }) },
      clock: { now: () => 2_000 },
      ...jsonTelemetry({
        service: SERVICE.forward,
        namespace: METRICS_NAMESPACE,
        write: () => undefined,
        env: {},
      }),
    });
    const response = await handler({ Records: [record(1)] });
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }]);
    expect(calls).toEqual(['pause hooks', 'resume hooks']);
  });

  it('writes no line for a copy already given up that it only hands on to the DLQ (said once, when it was given up)', async () => {
    const lines: Record<string, unknown>[] = [];
    const handler = createForwardHandler({
      config,
      senders: { http: { send: async () => ({ kind: 'answered', status: 204 }) } },
      history: {
        get: async () =>
          ({
            destination: 'hooks',
            state: 'dead-lettered',
            deadLetterMessageId: 'm-1',
            lastErrorCode: 'http_400',
          }) as ForwardState,
        put: async () => 'written' as const,
      },
      states: {
        status: async () => ({ enabled: true }),
        disable: async () => undefined,
        enable: async () => undefined,
        count: async () => undefined,
        recent: async () => ({ delivered: 0, failed: 0 }),
      },
      intake: { pause: async () => undefined, resume: async () => undefined },
      payloads: { get: async () => ({ body: Buffer.alloc(0) }), rewrite: async () => undefined },
      messagesFor: () => ({ delay: async () => undefined }),
      queues: { send: async () => ({ messageId: 'x' }) },
      clock: { now: () => 2_000 },
      ...jsonTelemetry({
        service: SERVICE.forward,
        namespace: METRICS_NAMESPACE,
        write: (line) => void lines.push(JSON.parse(line)),
        env: {},
      }),
    });
    const response = await handler({ Records: [record(1)] });
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }]);
    expect(lines.filter((line) => String(line.message).includes('draining'))).toEqual([]);
  });
});
