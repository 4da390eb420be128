// End to end for Linear, through the command: `endpoints register linear` against a local Linear API
// chooses the secret, stores it, and only then creates the webhook with it; a delivery Linear would sign
// with the secret it holds (hex HMAC-SHA256 of the raw body, `webhookTimestamp` inside it, as Linear
// documents; checked with @linear/sdk's own LinearWebhookClient) is answered 202 by the running inbox. A
// rerun changes nothing. `--replace` updates the webhook's secret in place: the new secret and a delivery
// still in flight under the old one both pass; when the update answers 500, one line says so and the old
// secret stays the current one.
import { createHmac, randomUUID } from 'node:crypto';
import { LINEAR_WEBHOOK_SIGNATURE_HEADER, LinearWebhookClient } from '@linear/sdk/webhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT_MS, json, oneLineError } from '../../../../e2e/cli/helpers';
import { type FakeLinearApi, startFakeLinearApi } from '../../../../support/provider-apis/linear';
import { statusRow, useRegisterCommand } from './register-command';

const PUBLIC_URL = 'https://tunnel.example.com/webhooks/linear';

let api: FakeLinearApi;
const command = useRegisterCommand({
  providerId: 'linear',
  credentialEnv: 'LINEAR_API_KEY',
  publicUrl: PUBLIC_URL,
  apiBase: () => api.graphqlUrl,
});

beforeAll(async () => {
  api = await startFakeLinearApi();
  return () => api.stop();
}, 60_000);

const webhook = () => [...api.webhooks.values()].find((each) => each.url === PUBLIC_URL);

/** A delivery as Linear sends it for the webhook, signed with `secret` (default: the one Linear holds now). */
function deliver(secret = webhook()?.secret as string): Promise<number> {
  const body = Buffer.from(
    JSON.stringify({
      action: 'create',
      type: 'Issue',
      data: { id: randomUUID(), title: 'Registered through the API' },
      url: 'https://linear.app/example/issue/EX-1',
      createdAt: new Date().toISOString(),
      organizationId: randomUUID(),
      webhookTimestamp: Date.now(),
      webhookId: webhook()?.id,
    }),
  );
  const signature = createHmac('sha256', secret).update(body).digest('hex');
  // Linear's own verifier agrees this is how Linear signs, so the inbox is tested against Linear's rule.
  expect(new LinearWebhookClient(secret).verify(body, signature)).toBe(true);
  return command.post(
    {
      'content-type': 'application/json; charset=utf-8',
      [LINEAR_WEBHOOK_SIGNATURE_HEADER]: signature,
      'linear-delivery': randomUUID(),
      'linear-event': 'Issue',
    },
    body,
  );
}

/** Only Linear's webhookUpdate mutation: the list before it goes to the same GraphQL endpoint. */
const isUpdate = (body: unknown) => /\bwebhookUpdate\s*\(/.test((body as { query?: string })?.query ?? '');

describe('endpoints register linear, end to end', { timeout: CLI_TIMEOUT_MS * 4 }, () => {
  it('creates the webhook with a secret the inbox already holds: Linear-signed deliveries are answered 202', async () => {
    const result = await command.register(api.apiKey, '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(json<{ outcome: string }>(result).outcome).toBe('created');
    const held = webhook();
    expect(held).toMatchObject({ url: PUBLIC_URL, enabled: true });
    expect(command.secrets()[0]).toBe(held?.secret);
    expect(await deliver()).toBe(202);
    expect(await deliver('lin_wh_not-the-one-linear-holds')).toBe(401);
    expect(result.stdout + result.stderr).not.toContain(api.apiKey);
    expect(result.stdout + result.stderr).not.toContain(held?.secret as string);
  });

  it('run again, it finds the webhook and changes nothing', async () => {
    const before = { webhooks: structuredClone([...api.webhooks.values()]), secrets: command.secrets() };
    const result = await command.register(api.apiKey);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/already has endpoint [\w-]+ .*nothing changed/);
    expect([...api.webhooks.values()]).toEqual(before.webhooks);
    expect(command.secrets()).toEqual(before.secrets);
  });

  it('--replace while Linear answers 500 to the update: one line, the old secret still current and verifying', async () => {
    const old = webhook()?.secret as string;
    api.failNext('POST', 500, isUpdate);
    const result = await command.register(api.apiKey, '--replace');
    expect(result.code).toBe(1);
    expect(oneLineError(result)).toMatch(
      /Linear answered .*still signs with the old secret, which is still the current one.*provider_unavailable/,
    );
    expect(webhook()?.secret).toBe(old);
    expect(command.secrets()[0]).toBe(old);
    expect(await deliver(old)).toBe(202);
  });

  it('--replace: Linear signs with the new secret, and a delivery still in flight under the old one verifies', async () => {
    const old = webhook()?.secret as string;
    const result = await command.register(api.apiKey, '--replace', '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(json<{ outcome: string }>(result).outcome).toBe('replaced');
    const now = webhook()?.secret as string;
    expect(now).not.toBe(old);
    expect(command.secrets().slice(0, 2)).toEqual([now, old]);
    expect(await deliver(now)).toBe(202);
    expect(await deliver(old)).toBe(202);
  });

  it('endpoints status --json: registered to the URL', async () => {
    const result = await command.status(api.apiKey);
    expect(result.code, result.stderr).toBe(0);
    expect(statusRow(result, 'linear')?.registered).toBe(`yes (endpoint ${webhook()?.id})`);
  });

  it('a refused key and a key without the admin scope: one line each, with the reason, no key', async () => {
    const refused = await command.registerWithStdin('lin_api_not_the_key_linear_issued');
    expect(refused.code).toBe(1);
    expect(oneLineError(refused)).toMatch(/Linear refused the API key.*refused_credential/);
    expect(refused.stderr).not.toContain('lin_api_not_the_key_linear_issued');

    api.admin = false;
    const scoped = await command.register(api.apiKey, '--replace');
    expect(scoped.code).toBe(1);
    expect(oneLineError(scoped)).toMatch(/lacks the admin scope.*missing_scope/);
    expect(scoped.stderr).not.toContain(api.apiKey);
  });
});
