// `destinations test` on an SQS destination reads the target queue's MaximumMessageSize, and says so when
// the queue is smaller than the envelope of a body just under inlineLimitBytes.
import { randomUUID } from 'node:crypto';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { sendTestDelivery } from '../../../../cli/operations/destination-test-delivery';
import type { Target } from '../../../../cli/shared/target-types';
import { type ForwardDestination, parseConfig } from '../../../../config';
import { useEmulators } from '../../../support/emulators';

const env = useEmulators();
const QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:crm-inbound';

async function targetWith(
  maximumMessageSize: string,
): Promise<{ target: Target; destination: ForwardDestination }> {
  const { QueueUrl: queueUrl } = await env.clients.sqs.send(
    new CreateQueueCommand({
      QueueName: `target-${randomUUID().slice(0, 8)}`,
      Attributes: { MaximumMessageSize: maximumMessageSize },
    }),
  );
  const config = parseConfig({ destinations: { crm: { type: 'sqs', queueArn: QUEUE_ARN } } });
  const target = {
    ...env.resources,
    kind: 'aws',
    config,
    region: 'us-east-1',
    destinations: { crm: { queueUrl: '', queueArn: '', dlqUrl: '', dlqArn: '', targetQueueUrl: queueUrl } },
    destinationSecrets: { list: async () => [] },
    clients: async () => env.clients,
  } as unknown as Target;
  return { target, destination: config.destinations.crm as ForwardDestination };
}

describe('destinations test on an SQS destination', () => {
  it('reports a 256 KiB target queue and that the larger bodies reach it as dataref envelopes', async () => {
    const { target, destination } = await targetWith('262144');
    const outcome = await sendTestDelivery(target, destination);
    expect(outcome).toMatchObject({ verdict: 'delivered', maxMessageBytes: 262_144 });
    expect(outcome.note).toMatch(
      /^the target queue takes messages up to 262144 bytes: bodies over about \d+ bytes/,
    );
  });

  it('reports a 1 MiB queue with no note: every inline envelope fits', async () => {
    const { target, destination } = await targetWith('1048576');
    const outcome = await sendTestDelivery(target, destination);
    expect(outcome).toMatchObject({ verdict: 'delivered', maxMessageBytes: 1_048_576 });
    expect(outcome.note).toBeUndefined();
  });
});
