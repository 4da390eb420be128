// A target queue or bus in another region than the forwarder's: the request is signed for the target's
// region (the ARN's) and sent to that region's endpoint, by a client built for it once, at init.
import { describe, expect, it } from 'vitest';
import { type ForwardDestination, parseConfig } from '../../../../config';
import { destinationResourcesOf, type Runtime } from '../../../../config/runtime';
import {
  createEventBridgeClient,
  createForwardClients,
  createSqsClient,
} from '../../../../lambdas/adapters/clients';
import { destinationSenders } from '../../../../lambdas/forward/senders';
import { outboundDelivery } from '../../../support/outbound-delivery';
import { captureSignedRequests, type SignedRequest } from '../../../support/signed-requests';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
const HOME = 'us-east-1';
const FOREIGN_QUEUE = 'arn:aws:sqs:eu-west-1:210987654321:crm-inbound';
const HOME_QUEUE = 'arn:aws:sqs:us-east-1:123456789012:near-inbound';
const FOREIGN_BUS = 'arn:aws:events:ap-southeast-2:210987654321:event-bus/audit';

function forwarder() {
  const config = parseConfig({
    destinations: {
      crm: { type: 'sqs', queueArn: FOREIGN_QUEUE },
      near: { type: 'sqs', queueArn: HOME_QUEUE },
      audit: { type: 'eventbridge', busArn: FOREIGN_BUS },
    },
  });
  const runtime = {
    config,
    bucketName: 'payloads',
    destinations: destinationResourcesOf(config, `https://sqs.${HOME}.amazonaws.com/123456789012/inbox`, {}),
  } as unknown as Runtime;
  const clients = createForwardClients({ region: HOME, credentials });
  // One list per client: each regional client is made once, so its requests share a list.
  const captured: Record<string, SignedRequest[]> = {};
  const homeSqs = captureSignedRequests(clients.sqs);
  const homeBus = captureSignedRequests(clients.eventbridge);
  const made: string[] = [];
  const senders = destinationSenders({
    clients,
    runtime,
    region: HOME,
    make: {
      sqs: (region) => {
        made.push(`sqs:${region}`);
        const client = createSqsClient({ region, credentials });
        captured[`sqs:${region}`] = captureSignedRequests(client);
        return client;
      },
      eventbridge: (region) => {
        made.push(`events:${region}`);
        const client = createEventBridgeClient({ region, credentials });
        captured[`events:${region}`] = captureSignedRequests(client);
        return client;
      },
    },
  });
  return { config, senders, captured, homeSqs, homeBus, made };
}

describe('destinations in another region', () => {
  it('builds one client per foreign region at init, and none for the forwarder’s own', () => {
    const { made } = forwarder();
    expect(made.sort()).toEqual(['events:ap-southeast-2', 'sqs:eu-west-1']);
  });

  it('signs an SQS target’s SendMessage for the queue’s region and sends it to that region’s endpoint', async () => {
    const { config, senders, captured, homeSqs } = forwarder();
    const result = await senders.sqs?.send(outboundDelivery(config.destinations.crm as ForwardDestination));
    expect(result).toEqual({ kind: 'accepted' });
    expect(homeSqs).toEqual([]);
    const [request, ...rest] = captured['sqs:eu-west-1'] ?? [];
    expect(rest).toEqual([]);
    expect(request?.credentialScope).toMatch(/^\d{8}\/eu-west-1\/sqs\/aws4_request$/);
    expect(request?.hostname).toBe('sqs.eu-west-1.amazonaws.com');
    expect(request?.body.QueueUrl).toBe('https://sqs.eu-west-1.amazonaws.com/210987654321/crm-inbound');
  });

  it('keeps a target in the forwarder’s own region on its own client', async () => {
    const { config, senders, homeSqs } = forwarder();
    await senders.sqs?.send(outboundDelivery(config.destinations.near as ForwardDestination));
    expect(homeSqs.map((r) => [r.hostname, r.credentialScope.split('/')[1]])).toEqual([
      ['sqs.us-east-1.amazonaws.com', 'us-east-1'],
    ]);
  });

  it('puts events for a bus in another region to that region’s EventBridge, signed for it', async () => {
    const { config, senders, captured, homeBus } = forwarder();
    const result = await senders.eventbridge?.send(
      outboundDelivery(config.destinations.audit as ForwardDestination),
    );
    expect(result).toEqual({ kind: 'accepted' });
    expect(homeBus).toEqual([]);
    const [request] = captured['events:ap-southeast-2'] ?? [];
    expect(request?.target).toBe('AWSEvents.PutEvents');
    expect(request?.credentialScope).toMatch(/^\d{8}\/ap-southeast-2\/events\/aws4_request$/);
    expect(request?.hostname).toBe('events.ap-southeast-2.amazonaws.com');
    expect(request?.body.Entries).toMatchObject([{ EventBusName: FOREIGN_BUS }]);
  });

  it('sends to an endpoint override whatever the region, still signed for the target’s region', async () => {
    const client = createSqsClient({ region: 'eu-west-1', sqs: 'http://127.0.0.1:9324', credentials });
    const captured = captureSignedRequests(client);
    const { SqsDestinationSender } = await import('../../../../lambdas/adapters/sqs-destination');
    const sender = new SqsDestinationSender({
      client,
      queueUrlFor: () => 'https://sqs.eu-west-1.amazonaws.com/210987654321/crm-inbound',
    });
    const { config } = forwarder();
    await sender.send(outboundDelivery(config.destinations.crm as ForwardDestination));
    expect(captured.map((r) => [r.hostname, r.credentialScope.split('/')[1]])).toEqual([
      ['127.0.0.1', 'eu-west-1'],
    ]);
  });
});
