// Slack and Zoom verify a URL with a signed challenge before they deliver anything; it is answered at
// once and never enqueued.
import { createHmac } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { useEmulators } from '../../support/emulators';
import { StaticSecrets, signedEvent, TestClock, verifyHandlerFor } from '../../support/pipeline';

const config = parseConfig({ providers: { slack: { scheme: 'slack' }, zoom: { scheme: 'zoom' } } });
const ctx = useEmulators({ config });
const SECRETS = { slack: ['slack-signing-secret'], zoom: ['zoom-secret-token'] };
let resources: typeof ctx.resources;
let clock: TestClock;
let pipeline: ReturnType<typeof verifyHandlerFor>;

beforeEach(async () => {
  resources = await ctx.provision();
  clock = new TestClock();
  pipeline = verifyHandlerFor(ctx, resources, { secrets: new StaticSecrets(SECRETS), clock });
});

const send = (provider: 'slack' | 'zoom', body: unknown, secret = SECRETS[provider][0]!) =>
  pipeline.handler(
    signedEvent(provider, config, { body: JSON.stringify(body), secret, timestamp: clock.seconds() }),
  );

describe('URL verification handshakes', () => {
  it("answers Slack's url_verification with the challenge and enqueues nothing", async () => {
    const response = await send('slack', {
      token: 't',
      challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
      type: 'url_verification',
    });
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({
      challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
    });
    expect((await ctx.countMessages(resources.queueUrl)).visible).toBe(0);
  });

  it("answers Zoom's endpoint.url_validation with the token's HMAC under the secret token", async () => {
    const response = await send('zoom', {
      event: 'endpoint.url_validation',
      payload: { plainToken: 'qgg8vlvZRS6UYooatFL8Aw' },
      event_ts: 1,
    });
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({
      plainToken: 'qgg8vlvZRS6UYooatFL8Aw',
      encryptedToken: createHmac('sha256', 'zoom-secret-token')
        .update('qgg8vlvZRS6UYooatFL8Aw')
        .digest('hex'),
    });
    expect((await ctx.countMessages(resources.queueUrl)).visible).toBe(0);
  });

  it('refuses an unsigned challenge like any other forgery', async () => {
    const response = await send('slack', { challenge: 'x', type: 'url_verification' }, 'not-the-secret');
    expect(response.statusCode).toBe(401);
  });

  it('enqueues ordinary Slack events', async () => {
    const response = await send('slack', {
      type: 'event_callback',
      event_id: 'Ev1',
      event: { type: 'app_mention' },
    });
    expect(response.statusCode).toBe(202);
    expect((await ctx.countMessages(resources.queueUrl)).visible).toBe(1);
  });
});
