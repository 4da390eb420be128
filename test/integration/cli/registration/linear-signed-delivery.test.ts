// End to end for Linear: the inbox chooses the secret, stores it in a local instance's secrets, and only
// then creates the webhook on a local Linear API with it; a delivery Linear would sign with the secret it
// holds (hex HMAC-SHA256 of the raw body, `webhookTimestamp` inside it, as Linear documents; checked with
// @linear/sdk's own LinearWebhookClient) is answered 202. After `--replace` updates the secret in place,
// the new secret and a delivery still in flight under the old one both pass.
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LINEAR_WEBHOOK_SIGNATURE_HEADER, LinearWebhookClient } from '@linear/sdk/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linearRegistrar } from '../../../../cli/registration/linear';
import { parseConfig } from '../../../../config';
import { SCHEMES } from '../../../../lambdas/core/schemes';
import { consoleLogger } from '../../../../local/console-log';
import { type LocalInbox, startLocalInbox } from '../../../../local/local-inbox';
import { readSecretsFile, secretsFilePath, writeSecretsFile } from '../../../../local/secrets-file';
import { type FakeLinearApi, startFakeLinearApi } from '../../../support/provider-apis/linear';

const PUBLIC_URL = 'https://tunnel.example.com/webhooks/linear';

const config = parseConfig({
  providers: { linear: { scheme: 'linear' } },
  queue: { retrySchedule: ['30s'] },
});

let api: FakeLinearApi;
let inbox: LocalInbox;
let cwd: string;

beforeAll(async () => {
  api = await startFakeLinearApi();
  cwd = mkdtempSync(join(tmpdir(), 'webhook-inbox-linear-register-'));
  inbox = await startLocalInbox({ config, cwd, port: 0, logs: consoleLogger(() => undefined) });
}, 60_000);
afterAll(async () => {
  await inbox?.stop();
  await api?.stop();
  rmSync(cwd, { recursive: true, force: true });
}, 60_000);

/** What the registering command does before Linear may sign: newest first, the one it replaces kept. */
function storeSecret(secret: string): void {
  const path = secretsFilePath(cwd);
  const secrets = readSecretsFile(path);
  secrets.linear = [secret, ...(secrets.linear ?? [])].slice(0, 2);
  writeSecretsFile(path, secrets);
}

/** A delivery as Linear sends it for this webhook, signed with the secret Linear holds now. */
async function deliver(webhookId: string, secret?: string): Promise<number> {
  const key = secret ?? api.webhooks.get(webhookId)!.secret;
  const body = Buffer.from(
    JSON.stringify({
      action: 'create',
      type: 'Issue',
      data: { id: randomUUID(), title: 'Registered through the API' },
      url: 'https://linear.app/example/issue/EX-1',
      createdAt: new Date().toISOString(),
      organizationId: randomUUID(),
      webhookTimestamp: Date.now(),
      webhookId,
    }),
  );
  const signature = createHmac('sha256', key).update(body).digest('hex');
  // Linear's own verifier agrees this is how Linear signs, so the inbox is tested against Linear's rule.
  expect(new LinearWebhookClient(key).verify(body, signature)).toBe(true);
  const answer = await fetch(`${inbox.state.gatewayUrl}/webhooks/linear`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      [LINEAR_WEBHOOK_SIGNATURE_HEADER]: signature,
      'linear-delivery': randomUUID(),
      'linear-event': 'Issue',
    },
    body,
  });
  await answer.arrayBuffer();
  return answer.status;
}

describe('Linear: choose and store the secret, register with it, deliver', () => {
  const registrar = () => linearRegistrar({ credential: api.apiKey, apiBase: api.graphqlUrl });
  let webhookId: string;

  it('a delivery signed with the secret the webhook was created with is answered 202', async () => {
    const secret = SCHEMES.linear.generateSecret();
    storeSecret(secret);
    const created = await registrar().create({ url: PUBLIC_URL, secret });
    webhookId = created.endpoint.id;
    expect(api.webhooks.get(webhookId)!.secret).toBe(secret);
    expect(await deliver(webhookId)).toBe(202);
  });

  it('a delivery signed with a secret Linear does not hold is refused 401', async () => {
    expect(await deliver(webhookId, 'lin_wh_not-the-one-linear-holds')).toBe(401);
  });

  it('after the secret is updated in place, the new one and a delivery in flight under the old one are 202', async () => {
    const old = api.webhooks.get(webhookId)!.secret;
    const next = SCHEMES.linear.generateSecret();
    storeSecret(next);
    const [endpoint] = (await registrar().list()).filter((each) => each.url === PUBLIC_URL);
    await registrar().updateSecret!(endpoint!, next);
    expect(api.webhooks.get(webhookId)!.secret).toBe(next);
    expect(await deliver(webhookId)).toBe(202);
    expect(await deliver(webhookId, old)).toBe(202);
  });
});
