// The verify handler behind a Lambda function URL (`api: 'function-url'`), against dynalite and fauxqs:
// with no API Gateway in front, every path and method reaches the Lambda, so the handler itself gives the
// documented answers (404 for anything but /webhooks/{provider}, 405 with Allow: POST for anything but POST)
// and accepts the payload 2.0 event byte for byte.
import { beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { SCHEMES } from '../../../lambdas/core/schemes';
import { sqsRecordFrom } from '../../../local/sqs-event-source';
import { useEmulators } from '../../support/emulators';
import { functionUrlEvent } from '../../support/function-url-event';
import { processHandlerFor, StaticSecrets, TestClock, verifyHandlerFor } from '../../support/pipeline';

const config = parseConfig({
  providers: { github: { scheme: 'github' }, 'standard-webhooks': { scheme: 'standard-webhooks' } },
});
const ctx = useEmulators({ config });
const GH_SECRET = 'gh-secret-for-function-url-tests';

let resources: typeof ctx.resources;
let pipeline: ReturnType<typeof verifyHandlerFor>;

beforeEach(async () => {
  resources = await ctx.provision();
  pipeline = verifyHandlerFor(ctx, resources, {
    secrets: new StaticSecrets({ github: [GH_SECRET], 'standard-webhooks': [] }),
    clock: new TestClock(),
  });
});

/** A GitHub delivery as the function URL hands it over: a JSON body arrives as a string, not base64. */
function githubDelivery(
  body: string,
  overrides: { method?: string; rawPath?: string; headers?: Record<string, string | string[]> } = {},
) {
  const signed = SCHEMES.github.sign({
    body: Buffer.from(body),
    secret: GH_SECRET,
    timestamp: 0,
    id: 'd-1',
    eventType: 'push',
  });
  return functionUrlEvent({
    method: overrides.method,
    rawPath: overrides.rawPath ?? '/webhooks/github',
    headers: { 'Content-Type': 'application/json', ...signed, ...overrides.headers },
    body,
  });
}

const queued = async () => (await ctx.countMessages(resources.queueUrl)).visible;

describe('verify handler behind a function URL', () => {
  it('accepts a signed delivery with 202 and enqueues the exact bytes of its text body', async () => {
    const body = '{"ref":"refs/heads/main","pusher":{"name":"Zoë"},"note":"\u2028"}';
    const event = githubDelivery(body);
    expect(event.isBase64Encoded).toBe(false);
    const response = await pipeline.handler(event);
    expect(response.statusCode).toBe(202);
    const [message] = await ctx.receiveAll(resources.queueUrl);
    const envelope = JSON.parse(message!.body) as { data_base64: string };
    expect(Buffer.from(envelope.data_base64, 'base64').equals(Buffer.from(body))).toBe(true);
  });

  it('answers the same delivery again 200 duplicate, with nothing more queued once the first was taken', async () => {
    expect((await pipeline.handler(githubDelivery('{"zen":"Keep it logically awesome."}'))).statusCode).toBe(
      202,
    );
    // The processor takes the first (its lease ends the claim's "not yet known to be sent" state).
    const processor = processHandlerFor(ctx, resources, []);
    const messages = await ctx.receiveAll(resources.queueUrl);
    await processor.handler({ Records: messages.map((m) => sqsRecordFrom(m, resources.queueArn)) });
    const again = await pipeline.handler(githubDelivery('{"zen":"Keep it logically awesome."}'));
    expect(again.statusCode).toBe(200);
    expect(JSON.parse(again.body)).toMatchObject({ duplicate: true });
    expect(await queued()).toBe(0);
  });

  it.each(['GET', 'PUT', 'HEAD', 'OPTIONS'])(
    'answers %s on /webhooks/github 405 with Allow: POST and enqueues nothing',
    async (method) => {
      const response = await pipeline.handler(githubDelivery('{}', { method }));
      expect(response.statusCode).toBe(405);
      expect(response.headers).toMatchObject({ allow: 'POST' });
      expect(await queued()).toBe(0);
    },
  );

  it.each(['/', '/favicon.ico', '/webhooks', '/webhooks/gitlab', '/v1/webhooks/github'])(
    'answers a signed POST to %s 404 and enqueues nothing',
    async (rawPath) => {
      const response = await pipeline.handler(githubDelivery('{}', { rawPath }));
      expect(response.statusCode).toBe(404);
      expect(JSON.parse(response.body).error).toBe('unknown_provider');
      expect(await queued()).toBe(0);
    },
  );

  // A function URL joins a repeated header with commas, so the repeat cannot be seen as two values: the
  // joined text must not pass as one delivery id, as a joined X-GitHub-Event does not pass as a type.
  it('refuses two X-GitHub-Delivery values, joined by the function URL, 401 and enqueues nothing', async () => {
    const event = githubDelivery('{"zen":"Half measures are as bad as nothing at all."}', {
      headers: { 'X-GitHub-Delivery': ['72d3162e-cc78-11e3-81ab-4c9367dc0958', 'a-second-id'] },
    });
    expect(event.headers['x-github-delivery']).toBe('72d3162e-cc78-11e3-81ab-4c9367dc0958,a-second-id');
    const response = await pipeline.handler(event);
    expect(response.statusCode).toBe(401);
    expect(JSON.parse(response.body).error).toBe('malformed_id');
    expect(await queued()).toBe(0);
  });
});
