// A web page attacks local mode from the operator's own browser (Debian's Chromium through
// playwright-core): served from another loopback port, it tries to forge a delivery through fauxqs (SNS
// CreateTopic, Subscribe to the inbox queue, Publish a hand-built envelope; SendMessage straight to the
// queue), to scan the emulators' ports, and to read dynalite (a Scan with a made-up SigV4 header) and S3.
// The page is handed the ports and names a scan would find. The emulators' guard must refuse every one of
// its requests, the page must learn nothing, and no delivery may appear in the inbox or at a destination.
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProjectConfig } from '../../../config/load';
import { SqsQueueOps } from '../../../lambdas/adapters/sqs-queue-ops';
import { type Emulators, startEmulators } from '../../../local/emulators';
import { withForwardTo } from '../../../local/forward-to';
import { type LocalInbox, startLocalInbox } from '../../../local/local-inbox';
import { launchChromium } from '../../support/chromium';
import { type DestinationServer, startDestinationServer } from '../../support/destination-server';
import { eventually, makeProject, sendSample } from '../cli/helpers';

/** On every URL the page requests, so the guard's journal tells its requests from the inbox's own. */
const MARKER = 'from=attack-page';
const FORGED_ID = `msg_forged_${randomUUID().slice(0, 8)}`;

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
/** What local mode warned of, as `npm start` would print it. */
const warnings: string[] = [];
const processLog = { ...quiet, warn: (message: string) => void warnings.push(message) };
const project = makeProject();
let emulators: Emulators;
let inbox: LocalInbox;
let destination: DestinationServer;
let attacker: Server;
let attackerUrl: string;
let browser: Browser;
let page: Page;

/** What the page could tell of one attempt. */
interface Attempt {
  name: string;
  /** A response the page could read: status and body. */
  read?: { status: number; body: string };
  /** An opaque answer (no-cors): the page sees neither status nor body. */
  opaque?: boolean;
  /** The fetch failed, as a CORS refusal does. */
  error?: string;
}

interface Target {
  sqs: string;
  dynamodb: string;
  s3: string;
  marker: string;
  queueUrl: string;
  queueArn: string;
  tableName: string;
  bucketName: string;
  envelope: string;
  attributes: Record<string, string>;
}

/** Runs in the attacker's page: everything a script there can try, and what it could read of each. */
async function attack(target: Target): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  const tryFetch = async (name: string, url: string, init: RequestInit) => {
    const marked = `${url}${url.includes('?') ? '&' : '?'}${target.marker}`;
    try {
      const response = await fetch(marked, init);
      if (response.type === 'opaque') attempts.push({ name, opaque: true });
      else attempts.push({ name, read: { status: response.status, body: await response.text() } });
    } catch (error) {
      attempts.push({ name, error: String(error) });
    }
  };
  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const topicArn = 'arn:aws:sns:us-east-1:000000000000:attack';
  const attributes: Record<string, string> = {};
  Object.entries(target.attributes).forEach(([name, value], i) => {
    attributes[`MessageAttributes.entry.${i + 1}.Name`] = name;
    attributes[`MessageAttributes.entry.${i + 1}.Value.DataType`] = 'String';
    attributes[`MessageAttributes.entry.${i + 1}.Value.StringValue`] = value;
  });
  const steps = {
    createTopic: form({ Action: 'CreateTopic', Name: 'attack' }),
    subscribe: form({
      Action: 'Subscribe',
      TopicArn: topicArn,
      Protocol: 'sqs',
      Endpoint: target.queueArn,
      'Attributes.entry.1.key': 'RawMessageDelivery',
      'Attributes.entry.1.value': 'true',
    }),
    publish: form({ Action: 'Publish', TopicArn: topicArn, Message: target.envelope, ...attributes }),
  };
  // 1. The forge: form-encoded SNS calls are "simple" requests, sent without a preflight in either mode.
  for (const mode of ['no-cors', 'cors'] as const) {
    for (const [step, body] of Object.entries(steps)) {
      await tryFetch(`sns ${step} (${mode})`, `${target.sqs}/`, {
        method: 'POST',
        mode,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
    }
  }
  const sendMessage = JSON.stringify({ QueueUrl: target.queueUrl, MessageBody: target.envelope });
  const sqsHeaders = {
    'content-type': 'application/x-amz-json-1.0',
    'x-amz-target': 'AmazonSQS.SendMessage',
  };
  await tryFetch('sqs SendMessage (cors)', `${target.sqs}/`, {
    method: 'POST',
    headers: sqsHeaders,
    body: sendMessage,
  });
  await tryFetch('sqs SendMessage (no-cors)', `${target.sqs}/`, {
    method: 'POST',
    mode: 'no-cors',
    headers: sqsHeaders,
    body: sendMessage,
  });
  // 2. The scan: each port, as a script probing loopback would.
  for (const [name, url] of [
    ['scan dynamodb', target.dynamodb],
    ['scan fauxqs', target.sqs],
    ['scan fauxqs queues', `${target.sqs}/_fauxqs/queues`],
  ] as const) {
    await tryFetch(`${name} (cors)`, url, {});
    await tryFetch(`${name} (no-cors)`, url, { mode: 'no-cors' });
  }
  // 3. The read: dynalite with a SigV4 header it never checked, and S3 with none.
  await tryFetch('dynamodb Scan (cors)', `${target.dynamodb}/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.Scan',
      'x-amz-date': '20260101T000000Z',
      authorization:
        'AWS4-HMAC-SHA256 Credential=AKIAFAKE/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=0000',
    },
    body: JSON.stringify({ TableName: target.tableName }),
  });
  await tryFetch('s3 ListObjectsV2 (cors)', `${target.s3}/${target.bucketName}?list-type=2`, {});
  await tryFetch('s3 GetObject (no-cors)', `${target.s3}/${target.bucketName}/payloads/any`, {
    mode: 'no-cors',
  });
  return attempts;
}

function forgedEnvelope(): { envelope: string; attributes: Record<string, string> } {
  const body = Buffer.from(JSON.stringify({ type: 'invoice.paid', data: { forged: true } }));
  const envelope = {
    specversion: '1.0',
    id: `standard-webhooks:${FORGED_ID}`,
    source: 'webhook-inbox/standard-webhooks',
    type: 'invoice.paid',
    time: new Date().toISOString(),
    datacontenttype: 'application/json',
    data_base64: body.toString('base64'),
    provider: 'standard-webhooks',
    dedupkey: FORGED_ID,
    deliveryid: FORGED_ID,
    payloadsha256: createHash('sha256').update(body).digest('hex'),
    payloadbytes: body.length,
  };
  return {
    envelope: JSON.stringify(envelope),
    attributes: { provider: 'standard-webhooks', eventType: 'invoice.paid', dedupKey: FORGED_ID },
  };
}

/** Until the inbox queue and every destination queue hold nothing: the pipeline has nothing left to do. */
async function idle(): Promise<void> {
  const ops = new SqsQueueOps(inbox.clients.sqs);
  const queues = [
    inbox.state.queueUrl,
    ...Object.values(inbox.state.destinations ?? {}).map((d) => d.queueUrl),
  ];
  const left = await eventually(
    async () => {
      let total = 0;
      for (const queue of queues) {
        const { visible, inFlight, delayed } = await ops.counts(queue);
        total += visible + inFlight + delayed;
      }
      return total;
    },
    (total) => total === 0,
  );
  expect(left).toBe(0);
}

beforeAll(async () => {
  destination = await startDestinationServer();
  const forwardTo = [destination.url('/webhooks')];
  emulators = await startEmulators();
  inbox = await startLocalInbox({
    config: withForwardTo(loadProjectConfig(project.dir), forwardTo),
    cwd: project.dir,
    port: 0,
    logs: { verify: quiet, process: processLog },
    emulators: Promise.resolve(emulators),
    forwardTo,
  });
  attacker = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<!doctype html><title>a page on the web</title><p>nothing to see</p>');
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
  browser = await launchChromium();
  page = await browser.newPage();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => attacker?.close(resolve));
  await inbox?.stop();
  await destination?.close();
  project.remove();
}, 60_000);

describe('a web page attacking local mode from the same browser', { timeout: 180_000 }, () => {
  it('is refused every request, reads nothing, and no delivery comes of it', async () => {
    await page.goto(attackerUrl);
    const { envelope, attributes } = forgedEnvelope();
    const attempts = await page.evaluate(attack, {
      ...emulators.endpoints,
      marker: MARKER,
      queueUrl: inbox.state.queueUrl,
      queueArn: inbox.state.queueArn,
      tableName: inbox.state.tableName,
      bucketName: inbox.state.bucketName,
      envelope,
      attributes,
    } satisfies Target);

    // The page learnt nothing: every answer was opaque or a failed fetch, none readable.
    expect(attempts.length).toBeGreaterThan(15);
    expect(attempts.filter((attempt) => attempt.read !== undefined)).toEqual([]);

    // Each of its requests that reached an emulator was refused there, before the emulator saw it.
    const fromPage = (await emulators.guardLog()).filter((entry) => entry.url.includes(MARKER));
    expect(fromPage.filter((entry) => entry.outcome !== 'refused')).toEqual([]);
    expect(new Set(fromPage.map((entry) => entry.emulator))).toEqual(new Set(['dynamodb', 'fauxqs']));
    // Refused for what the browser adds, whatever else the request carried.
    for (const entry of fromPage)
      expect(['forbidden_origin', 'forbidden_fetch_metadata']).toContain(entry.reason);
    // Every attempt got as far as the guard: a refusal per forge step, scan and read (preflights included).
    expect(fromPage.length).toBeGreaterThanOrEqual(attempts.length);
    // And the operator is told.
    await eventually(
      async () => warnings,
      (lines) => lines.includes('emulator refused a request'),
    );
    expect(warnings).toContain('emulator refused a request');

    // A real delivery after the attack goes through, and once the pipeline is idle it is the only one the
    // destination received; the forged id is nowhere in the inbox.
    const real = await sendSample(project.dir, inbox.state.gatewayUrl, 'standard-webhooks', 'invoice.paid');
    await eventually(
      async () => destination.received.length,
      (n) => n > 0,
    );
    await idle();
    expect(destination.received).toHaveLength(1);
    expect(destination.received[0]?.body.toString()).not.toContain('forged');
    const items = await inbox.clients.dynamodb.send(new ScanCommand({ TableName: inbox.state.tableName }));
    const stored = JSON.stringify(items.Items);
    expect(stored).toContain(real);
    expect(stored).not.toContain(FORGED_ID);
  });
});
