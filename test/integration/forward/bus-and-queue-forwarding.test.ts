// Forwarding to an EventBridge bus and an SQS queue through the whole local pipeline: the same sender
// code as on AWS, with local mode's recording bus for EventBridge and an emulator queue standing in for
// the target queue.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqsQueueOps } from '../../../lambdas/adapters/sqs-queue-ops';
import { webhookId } from '../../../lambdas/core/destinations/signing';
import { eventBridgeLogPath } from '../../../local/recording-event-bus';
import { type ForwardingInbox, startForwardingInbox } from '../../support/forwarding';

const BODY =
  '{"type":"order.paid","timestamp":"2026-12-01T09:00:00Z","data":{"id":"ord_1","total":9007199254740993}}';
let forwarding: ForwardingInbox;

beforeAll(async () => {
  forwarding = await startForwardingInbox({
    destinations: {
      bus: { type: 'eventbridge', filter: { eventTypes: ['order.*'] } },
      partner: { type: 'sqs', queueArn: 'arn:aws:sqs:us-east-1:123456789012:partner-orders' },
      ignored: {
        type: 'sqs',
        queueArn: 'arn:aws:sqs:us-east-1:123456789012:refunds',
        filter: { eventTypes: ['refund.*'] },
      },
    },
  });
  expect(await forwarding.deliver('msg_bus_1', BODY)).toBe(202);
}, 60_000);

afterAll(async () => {
  await forwarding?.stop();
});

describe('forwarding to EventBridge and SQS', () => {
  it('puts the event on the bus with source, detail-type, the event as sent and the delivery facts', async () => {
    await expect
      .poll(() => forwarding.history('msg_bus_1', 'bus'), { timeout: 20_000 })
      .toMatchObject({
        state: 'delivered',
        attempts: 1,
      });
    const lines = readFileSync(eventBridgeLogPath(forwarding.cwd), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    const event = JSON.parse(lines[0] as string);
    expect(event.source).toBe('webhook-inbox.standard-webhooks');
    expect(event['detail-type']).toBe('order.paid');
    expect(event.detail.delivery).toMatchObject({
      provider: 'standard-webhooks',
      eventType: 'order.paid',
      dedupKey: 'msg_bus_1',
      webhookId: webhookId('standard-webhooks:msg_bus_1'),
    });
    expect(event.detail.delivery.payloadSha256).toMatch(/^[0-9a-f]{64}$/);
    // The event as sent: the integer past 2^53 is intact in the recorded line.
    expect(lines[0]).toContain('"total":9007199254740993');
  });

  it('sends the CloudEvents envelope to the target queue, and nothing to a destination whose filter does not match', async () => {
    await expect
      .poll(() => forwarding.history('msg_bus_1', 'partner'), { timeout: 20_000 })
      .toMatchObject({
        state: 'delivered',
      });
    const ops = new SqsQueueOps(forwarding.inbox.clients.sqs);
    const target = forwarding.inbox.state.destinations?.partner?.targetQueueUrl as string;
    const [message] = await ops.receive(target, { maxMessages: 10, waitSeconds: 1 });
    const envelope = JSON.parse(message?.body ?? '{}');
    expect(envelope).toMatchObject({ specversion: '1.0', type: 'order.paid', provider: 'standard-webhooks' });
    expect(Buffer.from(envelope.data_base64, 'base64').toString()).toBe(BODY);
    expect(message?.attributes.webhookId).toBe(webhookId('standard-webhooks:msg_bus_1'));
    expect(await forwarding.history('msg_bus_1', 'ignored')).toBeUndefined();
    expect(await forwarding.depth('ignored', 'queue')).toBe(0);
  });
});
