// End to end for Paddle, through the command: `endpoints register paddle` against a local Paddle API
// creates a notification destination, stores the `endpoint_secret_key` Paddle returned, and a notification
// signed as Paddle documents (`Paddle-Signature: ts=<ts>;h1=<HMAC-SHA256 of "<ts>:<body>">`, which Paddle's
// own SDK validates here too, having no signer) is answered 202 by the running inbox. A rerun changes
// nothing. `--replace` creates a new destination, stores its key and deletes the old one; when the create or
// the delete answers 500, one line says so and the old destination's notifications still pass.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { Paddle } from '@paddle/paddle-node-sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT_MS, json, oneLineError } from '../../../../e2e/cli/helpers';
import { type FakePaddleApi, startFakePaddleApi } from '../../../../support/provider-apis/paddle';
import { statusRow, useRegisterCommand } from './register-command';

const apiKey = () =>
  `pdl_sdbx_apikey_01${randomBytes(12).toString('hex')}_${randomBytes(12).toString('base64url')}`;
const key = apiKey();
const PUBLIC_URL = 'https://tunnel.example.com/webhooks/paddle';

let api: FakePaddleApi;
const command = useRegisterCommand({
  providerId: 'paddle',
  credentialEnv: 'PADDLE_API_KEY',
  publicUrl: PUBLIC_URL,
  apiBase: () => api.url,
});

beforeAll(async () => {
  api = await startFakePaddleApi();
  api.allowKey(key);
  return () => api.close();
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
  return command.post({ 'content-type': 'application/json', 'paddle-signature': signature }, body);
}

const held = () => api.settings().filter((each) => each.destination === PUBLIC_URL);

describe('endpoints register paddle, end to end', { timeout: CLI_TIMEOUT_MS * 4 }, () => {
  it('creates the destination and stores the key Paddle returned: Paddle-signed notifications are answered 202', async () => {
    const result = await command.register(key, '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(json<{ outcome: string }>(result).outcome).toBe('created');
    const [setting] = held();
    expect(setting).toMatchObject({ type: 'url', active: true });
    expect(command.secrets()[0]).toBe(setting?.endpoint_secret_key);
    expect(await deliver(setting?.endpoint_secret_key as string)).toBe(202);
    expect(result.stdout + result.stderr).not.toContain(key);
    expect(result.stdout + result.stderr).not.toContain(setting?.endpoint_secret_key as string);
  });

  it('run again, it finds the destination and changes nothing', async () => {
    const before = { settings: structuredClone(api.settings()), secrets: command.secrets() };
    const result = await command.register(key);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/already has endpoint ntfset_\w+ .*nothing changed/);
    expect(api.settings()).toEqual(before.settings);
    expect(command.secrets()).toEqual(before.secrets);
  });

  it('--replace while Paddle answers 500 to the create: one line, nothing changed, the old key still verifies', async () => {
    const before = { settings: structuredClone(api.settings()), secrets: command.secrets() };
    api.failNext('POST', 500, '/notification-settings');
    const result = await command.register(key, '--replace');
    expect(result.code).toBe(1);
    expect(oneLineError(result)).toMatch(/500.*provider_unavailable/);
    expect(api.settings()).toEqual(before.settings);
    expect(command.secrets()).toEqual(before.secrets);
    expect(await deliver(held()[0]?.endpoint_secret_key as string)).toBe(202);
  });

  it('--replace: a new destination signs, the old one is deleted, and a notification the old one signed still verifies', async () => {
    const [old] = held();
    const result = await command.register(key, '--replace', '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(json<{ outcome: string; deleted: string[] }>(result)).toMatchObject({
      outcome: 'replaced',
      deleted: [old?.id],
    });
    expect(held()).toHaveLength(1);
    const [now] = held();
    expect(now?.id).not.toBe(old?.id);
    expect(command.secrets().slice(0, 2)).toEqual([now?.endpoint_secret_key, old?.endpoint_secret_key]);
    expect(await deliver(now?.endpoint_secret_key as string)).toBe(202);
    expect(await deliver(old?.endpoint_secret_key as string)).toBe(202);
  });

  it('--replace while Paddle answers 500 to the delete: one line saying the old destination is left, and it still verifies', async () => {
    const [old] = held();
    api.failNext('DELETE', 500);
    const result = await command.register(key, '--replace');
    expect(result.code).toBe(1);
    expect(oneLineError(result)).toMatch(
      new RegExp(`old endpoint ${old?.id} was not deleted.*Delete ${old?.id} at Paddle`),
    );
    expect(held().map((each) => each.id)).toContain(old?.id);
    const now = held().find((each) => each.id !== old?.id);
    expect(command.secrets().slice(0, 2)).toEqual([now?.endpoint_secret_key, old?.endpoint_secret_key]);
    expect(await deliver(old?.endpoint_secret_key as string)).toBe(202);
    expect(await deliver(now?.endpoint_secret_key as string)).toBe(202);
  });

  it('endpoints status --json: registered to the URL', async () => {
    const result = await command.status(key);
    expect(result.code, result.stderr).toBe(0);
    expect(statusRow(result, 'paddle')?.registered).toMatch(/^yes \(endpoints? ntfset_/);
  });

  it('a refused key and a key without notification_setting.write: one line each, with the reason, no key', async () => {
    const unknown = apiKey();
    const refused = await command.registerWithStdin(unknown);
    expect(refused.code).toBe(1);
    expect(oneLineError(refused)).toMatch(/refused the API key.*refused_credential/);
    expect(refused.stderr).not.toContain(unknown);

    const readOnly = apiKey();
    api.allowKey(readOnly, ['notification_setting.read']);
    const scoped = await command.register(readOnly, '--replace');
    expect(scoped.code).toBe(1);
    expect(oneLineError(scoped)).toMatch(/lacks the notification_setting.write permission.*missing_scope/);
    expect(scoped.stderr).not.toContain(readOnly);
  });
});
