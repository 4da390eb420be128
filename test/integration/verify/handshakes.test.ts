// Slack and Zoom verify a URL with a signed challenge before they deliver anything; it is answered at
// once and never enqueued. Slack's slash-command probe (`ssl_check=1`) is unsigned: an empty 200, and
// nothing read or written.
import { createHmac } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { restProxyEvent } from '../../../local/rest-proxy-event';
import { useEmulators } from '../../support/emulators';
import {
  freshVerifyPipeline,
  StaticSecrets,
  signedEvent,
  type VerifySetup,
  verifyHandlerFor,
} from '../../support/pipeline';

const config = parseConfig({ providers: { slack: { scheme: 'slack' }, zoom: { scheme: 'zoom' } } });
const ctx = useEmulators({ config });
const SECRETS = { slack: ['slack-signing-secret'], zoom: ['zoom-secret-token'] };
let resources: VerifySetup['resources'];
let clock: VerifySetup['clock'];
let pipeline: VerifySetup['pipeline'];
beforeEach(async () => {
  ({ resources, clock, pipeline } = await freshVerifyPipeline(ctx, SECRETS));
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

describe("Slack's ssl_check probe", () => {
  const FORM = 'application/x-www-form-urlencoded';
  const reads: string[] = [];
  const countingSecrets = {
    get: async (provider: string) => {
      reads.push(provider);
      return SECRETS[provider as 'slack'] ?? [];
    },
  };
  const probe = (body: string, contentType = FORM, headers: Record<string, string> = {}) => {
    reads.length = 0;
    const handler = verifyHandlerFor(ctx, resources, { secrets: countingSecrets, clock });
    const response = handler.handler(
      restProxyEvent({
        method: 'POST',
        path: '/webhooks/slack',
        headers: { 'Content-Type': contentType, ...headers },
        body: Buffer.from(body),
      }),
    );
    return { response, logger: handler.logger };
  };
  const expectNothingTouched = async () => {
    expect(await ctx.countMessages(resources.queueUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
    const scan = await ctx.clients.dynamodb.send(
      new ScanCommand({ TableName: resources.tableName, Select: 'COUNT' }),
    );
    expect(scan.Count).toBe(0);
    const objects = await ctx.clients.s3.send(new ListObjectsV2Command({ Bucket: resources.bucketName }));
    expect(objects.KeyCount ?? 0).toBe(0);
  };

  it.each([
    ['with the verification token, as Slack sends it', 'ssl_check=1&token=gIkuvaNzQIHg97ATvDxqgjtO'],
    ['with the token first', 'token=gIkuvaNzQIHg97ATvDxqgjtO&ssl_check=1'],
    ['without a token', 'ssl_check=1'],
  ])('answers it %s 200 with an empty body, reading and writing nothing', async (_name, body) => {
    const { response, logger } = probe(body);
    expect(await response).toMatchObject({ statusCode: 200, body: '' });
    expect((await response).headers['content-type']).toBeUndefined();
    expect(reads).toEqual([]);
    await expectNothingTouched();
    expect(logger.lines).toEqual([
      expect.objectContaining({
        level: 'info',
        message: 'handshake answered',
        attributes: expect.objectContaining({ outcome: 'handshake', status: 200, handshake: 'ssl_check' }),
      }),
    ]);
  });

  it('answers it with a charset parameter on the media type', async () => {
    expect((await probe('ssl_check=1&token=t0ken', `${FORM}; charset=utf-8`).response).statusCode).toBe(200);
  });

  it.each([
    ['a slash command that mentions ssl_check', 'ssl_check=1&token=t0ken&command=%2Fdeploy&text=prod'],
    ['an interactivity payload next to it', 'ssl_check=1&payload=%7B%22type%22%3A%22block_actions%22%7D'],
    ['ssl_check=0', 'ssl_check=0&token=t0ken'],
    ['ssl_check=true', 'ssl_check=true&token=t0ken'],
    ['ssl_check twice', 'ssl_check=1&ssl_check=1&token=t0ken'],
    ['a token twice', 'ssl_check=1&token=a&token=b'],
    ['an encoded token', 'ssl_check=1&token=a%20b'],
    ['an empty field', 'ssl_check=1&&token=t0ken'],
    ['ssl_check without a value', 'ssl_check&token=t0ken'],
    ['only a token', 'token=t0ken'],
    ['an empty body', ''],
    ['a padded body', `ssl_check=1&token=${'t'.repeat(600)}`],
  ])('verifies a near miss (%s) like any delivery: 401, nothing stored', async (_name, body) => {
    const { response } = probe(body);
    expect((await response).statusCode).toBe(401);
    await expectNothingTouched();
  });

  it('verifies the probe sent as JSON like any delivery', async () => {
    expect((await probe('{"ssl_check":"1","token":"t0ken"}', 'application/json').response).statusCode).toBe(
      401,
    );
  });

  it('is Slack only: the same form to another provider is not a handshake', async () => {
    const config = parseConfig({
      providers: { partner: { scheme: 'zoom', contentTypes: [FORM], requireJson: false } },
    });
    const secrets = new StaticSecrets({ partner: ['zoom-secret-token'] });
    const handler = verifyHandlerFor(ctx, resources, { config, secrets, clock });
    const response = await handler.handler(
      restProxyEvent({
        method: 'POST',
        path: '/webhooks/partner',
        headers: { 'Content-Type': FORM },
        body: Buffer.from('ssl_check=1&token=t0ken'),
      }),
    );
    expect(response.statusCode).toBe(401);
    expect(JSON.parse(response.body)).toEqual({ error: 'missing_header' });
  });
});
