// End to end for Square: the registrar creates a subscription on a local Square API, the signature key it
// returns is stored in a local instance's secrets, and a delivery Square would sign with the key it holds
// (HMAC-SHA256 of notification URL + body, base64, as Square documents; checked with the square SDK's own
// WebhooksHelper) is answered 202. After a rotation, the new key and a delivery still in flight under the
// old one both pass.
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebhooksHelper } from 'square';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { squareRegistrar } from '../../../../cli/registration/square';
import { parseConfig } from '../../../../config';
import { consoleLogger } from '../../../../local/console-log';
import { type LocalInbox, startLocalInbox } from '../../../../local/local-inbox';
import { readSecretsFile, secretsFilePath, writeSecretsFile } from '../../../../local/secrets-file';
import { type FakeSquareApi, startFakeSquareApi } from '../../../support/provider-apis/square';

/** The public URL (a tunnel) that reaches the local instance: what Square calls and signs. */
const NOTIFICATION_URL = 'https://tunnel.example.com/webhooks/square';

const config = parseConfig({
  providers: { square: { scheme: 'square', options: { notificationUrl: NOTIFICATION_URL } } },
  queue: { retrySchedule: ['30s'] },
});

let api: FakeSquareApi;
let inbox: LocalInbox;
let cwd: string;

beforeAll(async () => {
  api = await startFakeSquareApi();
  cwd = mkdtempSync(join(tmpdir(), 'webhook-inbox-square-register-'));
  inbox = await startLocalInbox({ config, cwd, port: 0, logs: consoleLogger(() => undefined) });
}, 60_000);
afterAll(async () => {
  await inbox?.stop();
  await api?.stop();
  rmSync(cwd, { recursive: true, force: true });
}, 60_000);

/** What the registering command does with a returned secret: newest first, the one it replaces kept. */
function storeSecret(secret: string): void {
  const path = secretsFilePath(cwd);
  const secrets = readSecretsFile(path);
  secrets.square = [secret, ...(secrets.square ?? [])].slice(0, 2);
  writeSecretsFile(path, secrets);
}

/** A delivery as Square sends it for this subscription, signed with the key Square holds now. */
async function deliver(subscriptionId: string, signatureKey?: string): Promise<number> {
  const subscription = api.subscriptions.get(subscriptionId)!;
  const key = signatureKey ?? subscription.signature_key;
  const body = JSON.stringify({
    merchant_id: 'MLX1',
    type: 'payment.updated',
    event_id: randomUUID(),
    created_at: new Date().toISOString(),
    data: { type: 'payment', id: 'KkAkhdMs', object: { payment: { id: 'KkAkhdMs', status: 'COMPLETED' } } },
  });
  const signature = createHmac('sha256', key)
    .update(subscription.notification_url)
    .update(body)
    .digest('base64');
  // Square's own verifier agrees this is how Square signs, so the inbox is tested against Square's rule.
  expect(
    await WebhooksHelper.verifySignature({
      requestBody: body,
      signatureHeader: signature,
      signatureKey: key,
      notificationUrl: subscription.notification_url,
    }),
  ).toBe(true);
  const answer = await fetch(`${inbox.state.gatewayUrl}/webhooks/square`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-square-hmacsha256-signature': signature },
    body,
  });
  await answer.arrayBuffer();
  return answer.status;
}

describe('Square: register, store the returned key, deliver', () => {
  const registrar = () => squareRegistrar({ credential: api.token, apiBase: api.url });
  let subscriptionId: string;

  it('a delivery signed with the key Square returned at creation is answered 202', async () => {
    const created = await registrar().create({ url: NOTIFICATION_URL });
    subscriptionId = created.endpoint.id;
    expect(api.subscriptions.get(subscriptionId)!.notification_url).toBe(NOTIFICATION_URL);
    storeSecret(created.secret!);
    expect(await deliver(subscriptionId)).toBe(202);
  });

  it('a delivery signed with a key Square never returned is refused 401', async () => {
    expect(await deliver(subscriptionId, 'a-key-square-never-issued')).toBe(401);
  });

  it('after a rotation, the new key and a delivery still in flight under the old key are both 202', async () => {
    const old = api.subscriptions.get(subscriptionId)!.signature_key;
    const [endpoint] = (await registrar().list()).filter((each) => each.url === NOTIFICATION_URL);
    storeSecret(await registrar().rotateSecret!(endpoint!));
    expect(api.subscriptions.get(subscriptionId)!.signature_key).not.toBe(old);
    expect(await deliver(subscriptionId)).toBe(202);
    expect(await deliver(subscriptionId, old)).toBe(202);
  });
});
