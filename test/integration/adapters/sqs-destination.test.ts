// SqsDestinationSender against fauxqs through the real SQS client: the target queue gets the envelope
// byte for byte with its attributes and the webhook id, and each refusal becomes the result chosen for it.
import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, SetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseConfig } from '../../../config';
import { S3PayloadReader } from '../../../lambdas/adapters/s3-payloads';
import { SqsDestinationSender } from '../../../lambdas/adapters/sqs-destination';
import { envelopeAttributes, payloadKey, serializeEnvelope } from '../../../lambdas/core/envelope';
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

describe('SqsDestinationSender and a target queue smaller than the envelope', () => {
  // A body one byte under the default inlineLimitBytes: inline, its base64 makes the envelope over 256 KiB.
  const justUnderInline = () => 'x'.repeat(parseConfig({}).inlineLimitBytes - 1);
  const withPayloads = (queueUrl: string) =>
    new SqsDestinationSender({
      client: env.clients.sqs,
      queueUrlFor: () => queueUrl,
      payloads: new S3PayloadReader(env.clients.s3, env.resources.bucketName),
    });

  it('sends a body just under inlineLimitBytes to a 256 KiB queue as a dataref envelope, its body in the bucket', async () => {
    const queueUrl = await freshQueue({ MaximumMessageSize: '262144' });
    const sent = outboundDelivery({ destination: SQS_DESTINATION, body: justUnderInline() });
    expect(sent.envelope.data_base64).toBeDefined();
    expect(await withPayloads(queueUrl).send(sent)).toEqual({ kind: 'accepted' });

    const [message, ...rest] = await env.receiveAll(queueUrl);
    expect(rest).toEqual([]);
    const { data_base64: _inline, ...facts } = sent.envelope;
    const dataref = `s3://${env.resources.bucketName}/${payloadKey(sent.envelope.provider, sent.envelope.payloadsha256)}`;
    expect(JSON.parse(message?.body ?? '')).toEqual({ ...facts, dataref });
    expect(message?.attributes.webhookId).toBe(sent.webhookId);
    const stored = await new S3PayloadReader(env.clients.s3, env.resources.bucketName).get(dataref);
    expect(stored.body.equals(sent.body)).toBe(true);
  });

  it('reads the queue’s MaximumMessageSize once: the next large envelope goes as dataref without a refusal first', async () => {
    const queueUrl = await freshQueue({ MaximumMessageSize: '262144' });
    const sender = withPayloads(queueUrl);
    const sends = injectFault(env.clients.sqs, { commands: 'SendMessageCommand', times: 0 });
    const reads = injectFault(env.clients.sqs, { commands: 'GetQueueAttributesCommand', times: 0 });
    onTestFinished(() => {
      sends.remove();
      reads.remove();
    });
    await sender.send(outboundDelivery({ destination: SQS_DESTINATION, body: justUnderInline() }));
    expect([sends.calls, reads.calls]).toEqual([2, 1]);
    await sender.send(outboundDelivery({ destination: SQS_DESTINATION, body: `${justUnderInline()}y` }));
    expect([sends.calls, reads.calls]).toEqual([3, 1]);
    expect(await sender.maximumMessageSize(SQS_DESTINATION)).toBe(262_144);
    expect((await env.receiveAll(queueUrl)).map((m) => 'dataref' in JSON.parse(m.body))).toEqual([
      true,
      true,
    ]);
  });

  it('reads the limit again when the queue refuses an envelope under the one it kept: the owner lowered it', async () => {
    const queueUrl = await freshQueue({ MaximumMessageSize: '262144' });
    const sender = withPayloads(queueUrl);
    await sender.send(outboundDelivery({ destination: SQS_DESTINATION, body: justUnderInline() }));
    expect(await sender.maximumMessageSize(SQS_DESTINATION)).toBe(262_144);
    await env.clients.sqs.send(
      new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { MaximumMessageSize: '102400' } }),
    );
    // Its inline envelope (about 134 KB) is under the kept 256 KiB and over the queue's new 100 KiB.
    const sent = outboundDelivery({ destination: SQS_DESTINATION, body: 'x'.repeat(100_000) });
    expect(await sender.send(sent)).toEqual({ kind: 'accepted' });
    expect(await sender.maximumMessageSize(SQS_DESTINATION)).toBe(102_400);
    const bodies = (await env.receiveAll(queueUrl)).map((m) => JSON.parse(m.body));
    expect(bodies.map((b) => 'dataref' in b)).toEqual([true, true]);
  });

  it('sends an envelope that fits inline, as before', async () => {
    const queueUrl = await freshQueue({ MaximumMessageSize: '262144' });
    const sent = outboundDelivery({ destination: SQS_DESTINATION, body: 'x'.repeat(100_000) });
    expect(await withPayloads(queueUrl).send(sent)).toEqual({ kind: 'accepted' });
    const [message] = await env.receiveAll(queueUrl);
    expect(message?.body).toBe(serializeEnvelope(sent.envelope));
  });
});
