// SqsDestinationSender against fauxqs through the real SQS client: the target queue gets the envelope
// byte for byte with its attributes and the webhook id, and each refusal becomes the result chosen for it.
import { randomUUID } from 'node:crypto';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { SqsDestinationSender } from '../../../lambdas/adapters/sqs-destination';
import { envelopeAttributes, serializeEnvelope } from '../../../lambdas/core/envelope';
import { useEmulators } from '../../support/emulators';
import { injectFault, throttled } from '../../support/faults';
import { outboundDelivery, SQS_DESTINATION } from '../../support/outbound-delivery';

const env = useEmulators();

async function freshQueue(attributes: Record<string, string> = {}): Promise<string> {
  const { QueueUrl: url } = await env.clients.sqs.send(
    new CreateQueueCommand({ QueueName: `target-${randomUUID().slice(0, 8)}`, Attributes: attributes }),
  );
  if (!url) throw new Error('CreateQueue returned no URL');
  return url;
}

const senderFor = (queueUrl: string) =>
  new SqsDestinationSender({ client: env.clients.sqs, queueUrlFor: () => queueUrl });

// Non-ASCII in the body and the type: the body must still arrive as the envelope's ASCII serialization.
const delivery = () =>
  outboundDelivery({ destination: SQS_DESTINATION, body: '{"name":"Zoë 🚀"}', eventType: 'issues.ünïcode' });

describe('SqsDestinationSender', () => {
  it('sends the serialized envelope byte for byte, with its attributes and the webhook id', async () => {
    const queueUrl = await freshQueue();
    const sent = delivery();
    expect(await senderFor(queueUrl).send(sent)).toEqual({ kind: 'accepted' });
    const [message, ...rest] = await env.receiveAll(queueUrl);
    expect(rest).toEqual([]);
    expect(message?.body).toBe(serializeEnvelope(sent.envelope));
    expect(message?.attributes).toEqual({ ...envelopeAttributes(sent.envelope), webhookId: sent.webhookId });
    expect(JSON.parse(message?.body ?? '')).toEqual(sent.envelope);
  });

  it('sends to the queue queueUrlFor names for the destination', async () => {
    const [mine, other] = [await freshQueue(), await freshQueue()];
    const sender = new SqsDestinationSender({
      client: env.clients.sqs,
      queueUrlFor: (destination) => (destination.queueArn === SQS_DESTINATION.queueArn ? mine : other),
    });
    await sender.send(delivery());
    expect(await env.countMessages(mine)).toMatchObject({ visible: 1 });
    expect(await env.countMessages(other)).toMatchObject({ visible: 0 });
  });

  it('fails a queue that does not exist as QueueDoesNotExist, retryable: the queue may be made yet', async () => {
    const missing = (await freshQueue()).replace(/target-[\w-]+$/, `missing-${randomUUID().slice(0, 8)}`);
    expect(await senderFor(missing).send(delivery())).toEqual({
      kind: 'failed',
      code: 'QueueDoesNotExist',
      retryable: true,
    });
  });

  it('fails a message over the queue maximum as InvalidParameterValue, for good', async () => {
    const queueUrl = await freshQueue({ MaximumMessageSize: '1024' });
    const large = outboundDelivery({ destination: SQS_DESTINATION, body: 'x'.repeat(2_000) });
    expect(await senderFor(queueUrl).send(large)).toEqual({
      kind: 'failed',
      code: 'InvalidParameterValue',
      retryable: false,
    });
    expect(await env.countMessages(queueUrl)).toMatchObject({ visible: 0 });
  });

  it.each([
    ['throttled', throttled, 'ThrottlingException'],
    ['unavailable', undefined, 'sqs_unavailable'],
  ])('fails a %s SendMessage as retryable', async (_, error, code) => {
    const queueUrl = await freshQueue();
    const fault = injectFault(env.clients.sqs, {
      commands: 'SendMessageCommand',
      times: 1,
      ...(error && { error }),
    });
    onTestFinished(fault.remove);
    expect(await senderFor(queueUrl).send(delivery())).toEqual({ kind: 'failed', code, retryable: true });
    expect(await senderFor(queueUrl).send(delivery())).toEqual({ kind: 'accepted' });
  });

  it.each(['AccessDenied', 'KmsAccessDenied', 'KmsDisabled'])(
    'fails %s as retryable: the owner fixing the policy or key lets the waiting messages through',
    async (name) => {
      const queueUrl = await freshQueue();
      const error = () =>
        Object.assign(new Error(name), { name, $fault: 'client', $metadata: { httpStatusCode: 400 } });
      const fault = injectFault(env.clients.sqs, { commands: 'SendMessageCommand', times: 1, error });
      onTestFinished(fault.remove);
      expect(await senderFor(queueUrl).send(delivery())).toEqual({
        kind: 'failed',
        code: name,
        retryable: true,
      });
    },
  );
});
