// SqsDeliveryQueue and SqsQueueOps against fauxqs through the real SDK client.
import { randomUUID } from 'node:crypto';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createAwsClients } from '../../../lambdas/adapters/clients';
import { SqsDeliveryQueue } from '../../../lambdas/adapters/sqs-queue';
import { DependencyError } from '../../../lambdas/core/errors';
import { useEmulators } from '../../support/emulators';
import { injectFault, startOutageSwitch } from '../../support/faults';

const env = useEmulators();

/** An empty queue of the test's own. */
async function freshQueue(): Promise<string> {
  const { QueueUrl: url } = await env.clients.sqs.send(
    new CreateQueueCommand({ QueueName: `q-${randomUUID().slice(0, 8)}` }),
  );
  if (!url) throw new Error('CreateQueue returned no URL');
  return url;
}

const ENVELOPE_ATTRIBUTES = { provider: 'github', eventType: 'push', dedupKey: 'abc123' };

describe('SqsDeliveryQueue', () => {
  it('sends the body and the string attributes, and returns the id SQS stored it under', async () => {
    const queueUrl = await freshQueue();
    const queue = new SqsDeliveryQueue(env.clients.sqs, queueUrl);
    const body = JSON.stringify({ specversion: '1.0', id: 'github:abc123', data_base64: 'AAEC/w==' });
    const { messageId } = await queue.send({ body, attributes: ENVELOPE_ATTRIBUTES });
    const [message, ...rest] = await env.receiveAll(queueUrl);
    expect(rest).toEqual([]);
    expect(message).toMatchObject({ messageId, body, attributes: ENVELOPE_ATTRIBUTES, receiveCount: 1 });
  });

  it('sends into the provisioned queue with its redrive policy', async () => {
    const queue = new SqsDeliveryQueue(env.clients.sqs, env.resources.queueUrl);
    const { messageId } = await queue.send({ body: '{}', attributes: ENVELOPE_ATTRIBUTES });
    expect((await env.receiveAll(env.resources.queueUrl)).map((m) => m.messageId)).toEqual([messageId]);
  });

  it('reports a failed SendMessage as DependencyError(sqs, SendMessage)', async () => {
    const queueUrl = await freshQueue();
    const queue = new SqsDeliveryQueue(env.clients.sqs, queueUrl);
    const fault = injectFault(env.clients.sqs, { commands: 'SendMessageCommand', times: 1 });
    onTestFinished(fault.remove);
    const error = await queue.send({ body: '{}', attributes: ENVELOPE_ATTRIBUTES }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DependencyError);
    expect(error).toMatchObject({ dependency: 'sqs', operation: 'SendMessage' });
    expect(await env.countMessages(queueUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  });

  it('reports a message SQS refuses (over 1 MiB) as DependencyError, not as sent', async () => {
    const queue = new SqsDeliveryQueue(env.clients.sqs, await freshQueue());
    await expect(queue.send({ body: 'x'.repeat(1_048_577), attributes: {} })).rejects.toMatchObject({
      name: 'DependencyError',
      dependency: 'sqs',
    });
  });

  it('reports an unreachable SQS as DependencyError and sends again once it is back', async () => {
    const queueUrl = await freshQueue();
    const outage = await startOutageSwitch(env.emulators.endpoints.sqs);
    const clients = createAwsClients({ sqs: outage.endpoint, credentials: env.emulators.credentials });
    try {
      const queue = new SqsDeliveryQueue(clients.sqs, queueUrl);
      outage.down();
      await expect(queue.send({ body: '{}', attributes: {} })).rejects.toMatchObject({
        name: 'DependencyError',
        operation: 'SendMessage',
      });
      outage.up();
      await queue.send({ body: '{}', attributes: {} });
      expect(await env.countMessages(queueUrl)).toMatchObject({ visible: 1 });
    } finally {
      clients.sqs.destroy();
      await outage.close();
    }
  });
});

describe('SqsQueueOps', () => {
  it('changeVisibility to 0 hands a received message out again, counting the receive', async () => {
    const queueUrl = await freshQueue();
    await env.queueOps.sendRaw(queueUrl, 'retry me', {});
    const [first] = await env.queueOps.receive(queueUrl, { visibilitySeconds: 600 });
    expect(await env.queueOps.receive(queueUrl)).toEqual([]);
    await env.queueOps.changeVisibility(queueUrl, first!.receiptHandle, 0);
    const [again] = await env.queueOps.receive(queueUrl, { visibilitySeconds: 600 });
    expect(again).toMatchObject({ messageId: first!.messageId, body: 'retry me', receiveCount: 2 });
  });

  it('changeVisibility keeps a message hidden for the backoff', async () => {
    const queueUrl = await freshQueue();
    await env.queueOps.sendRaw(queueUrl, 'back off', {});
    const [message] = await env.queueOps.receive(queueUrl, { visibilitySeconds: 0 });
    await env.queueOps.changeVisibility(queueUrl, message!.receiptHandle, 900);
    expect(await env.countMessages(queueUrl)).toEqual({ visible: 0, inFlight: 1, delayed: 0 });
  });

  it('sendRaw keeps body and attributes, so a dead-lettered message can be redriven as it was', async () => {
    const queueUrl = await freshQueue();
    const attributes = { ...ENVELOPE_ATTRIBUTES, errorCode: 'schema_mismatch' };
    const messageId = await env.queueOps.sendRaw(queueUrl, '{"specversion":"1.0"}', attributes);
    const [message] = await env.receiveAll(queueUrl);
    expect(message).toMatchObject({ messageId, body: '{"specversion":"1.0"}', attributes });
    expect(message?.sentAtMs).toBeGreaterThan(0);
  });

  it('peek returns every message across several batches and leaves them all visible', async () => {
    const queueUrl = await freshQueue();
    const sent = new Set<string>();
    for (let i = 0; i < 14; i++) sent.add(await env.queueOps.sendRaw(queueUrl, `m${i}`, { n: String(i) }));
    const peeked = await env.queueOps.peek(queueUrl, { limit: 50 });
    expect(new Set(peeked.map((m) => m.messageId))).toEqual(sent);
    expect(await env.countMessages(queueUrl)).toEqual({ visible: 14, inFlight: 0, delayed: 0 });
  });

  it('peek stops at its limit', async () => {
    const queueUrl = await freshQueue();
    for (let i = 0; i < 5; i++) await env.queueOps.sendRaw(queueUrl, `m${i}`, {});
    expect(await env.queueOps.peek(queueUrl, { limit: 3 })).toHaveLength(3);
    expect(await env.countMessages(queueUrl)).toMatchObject({ visible: 5, inFlight: 0 });
  });

  it('delete removes a received message for good', async () => {
    const queueUrl = await freshQueue();
    await env.queueOps.sendRaw(queueUrl, 'done', {});
    const [message] = await env.queueOps.receive(queueUrl, { visibilitySeconds: 0 });
    await env.queueOps.delete(queueUrl, message!.receiptHandle);
    expect(await env.countMessages(queueUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  });

  it('purge empties the queue', async () => {
    const queueUrl = await freshQueue();
    for (let i = 0; i < 3; i++) await env.queueOps.sendRaw(queueUrl, `m${i}`, {});
    await env.queueOps.purge(queueUrl);
    expect(await env.queueOps.receive(queueUrl)).toEqual([]);
  });

  it('reports failures as DependencyError(sqs, <Op>)', async () => {
    const queueUrl = await freshQueue();
    const fault = injectFault(env.clients.sqs, {
      commands: ['ReceiveMessageCommand', 'GetQueueAttributesCommand', 'ChangeMessageVisibilityCommand'],
    });
    onTestFinished(fault.remove);
    await expect(env.queueOps.receive(queueUrl)).rejects.toMatchObject({ operation: 'ReceiveMessage' });
    await expect(env.queueOps.counts(queueUrl)).rejects.toMatchObject({ operation: 'GetQueueAttributes' });
    await expect(env.queueOps.changeVisibility(queueUrl, 'handle', 5)).rejects.toMatchObject({
      name: 'DependencyError',
      dependency: 'sqs',
      operation: 'ChangeMessageVisibility',
    });
  });
});
