// An SQS destination whose queue takes 256 KiB, smaller than the inbox's own: a body just under
// inlineLimitBytes, whose inline envelope is over 256 KiB, reaches it through the whole local pipeline as a
// `dataref` envelope, delivered at the first attempt and not dead-lettered.
import { SetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3PayloadReader } from '../../../lambdas/adapters/s3-payloads';
import { SqsQueueOps } from '../../../lambdas/adapters/sqs-queue-ops';
import { type ForwardingInbox, startForwardingInbox } from '../../support/forwarding';

let forwarding: ForwardingInbox;
let body: string;

beforeAll(async () => {
  forwarding = await startForwardingInbox({
    destinations: { crm: { type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:210987654321:crm-inbound' } },
  });
  const target = forwarding.inbox.state.destinations?.crm?.targetQueueUrl as string;
  await forwarding.inbox.clients.sqs.send(
    new SetQueueAttributesCommand({ QueueUrl: target, Attributes: { MaximumMessageSize: '262144' } }),
  );
  const head = '{"type":"order.paid","data":"';
  const tail = '"}';
  body = `${head}${'x'.repeat(forwarding.config.inlineLimitBytes - 1 - head.length - tail.length)}${tail}`;
  expect(await forwarding.deliver('msg_big_1', body)).toBe(202);
}, 60_000);

afterAll(async () => {
  await forwarding?.stop();
});

describe('a target queue smaller than the envelope', () => {
  it('gets a body just under inlineLimitBytes as a dataref envelope, delivered and not dead-lettered', async () => {
    await expect
      .poll(() => forwarding.history('msg_big_1', 'crm'), { timeout: 20_000 })
      .toMatchObject({ state: 'delivered', attempts: 1 });
    expect(await forwarding.depth('crm', 'dlq')).toBe(0);
    const target = forwarding.inbox.state.destinations?.crm?.targetQueueUrl as string;
    const [message, ...rest] = await new SqsQueueOps(forwarding.inbox.clients.sqs).receive(target, {
      maxMessages: 10,
      waitSeconds: 1,
    });
    expect(rest).toEqual([]);
    const envelope = JSON.parse(message?.body ?? '{}');
    expect(envelope).not.toHaveProperty('data_base64');
    expect(envelope.payloadbytes).toBe(Buffer.byteLength(body));
    const stored = await new S3PayloadReader(
      forwarding.inbox.clients.s3,
      forwarding.inbox.state.bucketName,
    ).get(envelope.dataref);
    expect(stored.body.toString()).toBe(body);
  });
});
