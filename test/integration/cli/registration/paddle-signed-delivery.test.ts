// End to end for Paddle: the registrar creates a notification destination at a Paddle-shaped API, the
// `endpoint_secret_key` it returns is stored the way `secrets rotate` stores it for a running local
// instance, and a notification signed as Paddle documents (`Paddle-Signature: ts=<ts>;h1=<HMAC-SHA256 of
// "<ts>:<body>">`, which Paddle's own SDK validates here too, having no signer) is answered 202. Then a
// `--replace` whose delete answers 500: both destinations exist and deliveries signed for either pass.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Paddle } from '@paddle/paddle-node-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paddleRegistrar } from '../../../../cli/registration/paddle';
import { resolveSecretsTarget, type SecretsTarget } from '../../../../cli/target';
import { parseConfig } from '../../../../config';
import { consoleLogger } from '../../../../local/console-log';
import { type LocalInbox, startLocalInbox } from '../../../../local/local-inbox';
import { type FakePaddleApi, startFakePaddleApi } from '../../../support/provider-apis/paddle';

const config = parseConfig({
  providers: { paddle: { scheme: 'paddle' } },
  queue: { retrySchedule: ['30s'] },
});
const key = `pdl_sdbx_apikey_01${randomBytes(12).toString('hex')}_${randomBytes(12).toString('base64url')}`;
const PUBLIC_URL = 'https://tunnel.example.com/webhooks/paddle';

let api: FakePaddleApi;
let inbox: LocalInbox;
let target: SecretsTarget;
let cwd: string;

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'webhook-inbox-paddle-register-'));
  api = await startFakePaddleApi();
  api.allowKey(key);
  inbox = await startLocalInbox({ config, cwd, port: 0, logs: consoleLogger(() => undefined) });
  target = await resolveSecretsTarget({}, config, cwd);
}, 60_000);
afterAll(async () => {
  await inbox?.stop();
  await api?.close();
  rmSync(cwd, { recursive: true, force: true });
}, 60_000);

/** A Paddle notification signed per Paddle's documented scheme, checked first by Paddle's own validator. */
async function deliver(secret: string): Promise<number> {
  const body = JSON.stringify({
    event_id: `evt_${randomUUID().replaceAll('-', '')}`,
    event_type: 'transaction.completed',
    occurred_at: new Date().toISOString(),
    notification_id: `ntf_${randomUUID().replaceAll('-', '')}`,
    data: {},
  });
  const ts = Math.floor(Date.now() / 1000);
  const signature = `ts=${ts};h1=${createHmac('sha256', secret).update(`${ts}:${body}`).digest('hex')}`;
  expect(await new Paddle(key).webhooks.isSignatureValid(body, secret, signature)).toBe(true);
  const response = await fetch(`${inbox.state.gatewayUrl}/webhooks/paddle`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'paddle-signature': signature },
    body,
    signal: AbortSignal.timeout(30_000),
  });
  await response.arrayBuffer();
  return response.status;
}

describe('a Paddle notification destination registered through the registrar', () => {
  it('signs deliveries the inbox accepts once the returned secret key is stored', async () => {
    const paddle = paddleRegistrar({ credential: key, apiBase: api.url });
    const created = await paddle.create({ url: PUBLIC_URL });
    const held = api.settings().find((each) => each.id === created.endpoint.id)!;
    expect(await deliver(held.endpoint_secret_key)).toBe(401);
    await target.secrets.rotate('paddle', created.secret!);
    expect(await deliver(held.endpoint_secret_key)).toBe(202);
  });

  it('keeps both destinations signing when the delete of a --replace answers 500', async () => {
    const paddle = paddleRegistrar({ credential: key, apiBase: api.url });
    const [old] = (await paddle.list()).filter((each) => each.url === PUBLIC_URL);
    const oldSecret = api.settings().find((each) => each.id === old!.id)!.endpoint_secret_key;

    const replacement = await paddle.create({ url: PUBLIC_URL });
    await target.secrets.rotate('paddle', replacement.secret!);
    api.failNext('DELETE', 500);
    await expect(paddle.delete!(old!)).rejects.toMatchObject({ reason: 'provider_unavailable' });

    expect((await paddle.list()).map((each) => each.id)).toEqual(
      expect.arrayContaining([old!.id, replacement.endpoint.id]),
    );
    expect(await deliver(oldSecret)).toBe(202);
    expect(await deliver(replacement.secret!)).toBe(202);
  });
});
