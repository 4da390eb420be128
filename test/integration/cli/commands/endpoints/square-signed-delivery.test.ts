// End to end for Square, through the command: `endpoints register square` against a local Square API
// creates a subscription for the URL the inbox verifies against (providers.square.options.notificationUrl),
// stores the signature key Square returned, and a delivery Square would sign with the key it holds
// (HMAC-SHA256 of notification URL + body, base64, as Square documents; checked with the square SDK's own
// WebhooksHelper) is answered 202 by the running inbox. A rerun changes nothing. `--replace` is Square's
// signature-key rotation: the new key and a delivery still in flight under the old one both pass; when the
// rotation answers 500, one line says so and the old key still passes.
import { createHmac, randomUUID } from 'node:crypto';
import { WebhooksHelper } from 'square';
import { beforeAll, describe, expect, it } from 'vitest';
import { SQUARE_WRITE_ATTEMPTS } from '../../../../../cli/operations/registration/square';
import { CLI_TIMEOUT_MS, json, oneLineError } from '../../../../e2e/cli/helpers';
import { runCliWith } from '../../../../e2e/cli/run-with-input';
import { type FakeSquareApi, startFakeSquareApi } from '../../../../support/provider-apis/square';
import { statusRow, useRegisterCommand } from './register-command';

/** The public URL (a tunnel) that reaches the local instance: what Square calls and signs. */
const NOTIFICATION_URL = 'https://tunnel.example.com/webhooks/square';

let api: FakeSquareApi;
const command = useRegisterCommand({
  providerId: 'square',
  credentialEnv: 'SQUARE_ACCESS_TOKEN',
  publicUrl: NOTIFICATION_URL,
  providers: { square: { scheme: 'square', options: { notificationUrl: NOTIFICATION_URL } } },
  apiBase: () => api.url,
});

beforeAll(async () => {
  api = await startFakeSquareApi();
  return () => api.stop();
}, 60_000);

const subscription = () =>
  [...api.subscriptions.values()].find((each) => each.notification_url === NOTIFICATION_URL);

/** A delivery as Square sends it for the subscription, signed with `key` (default: the key Square holds now). */
async function deliver(key = subscription()?.signature_key as string): Promise<number> {
  const body = JSON.stringify({
    merchant_id: 'MLX1',
    type: 'payment.updated',
    event_id: randomUUID(),
    created_at: new Date().toISOString(),
    data: { type: 'payment', id: 'KkAkhdMs', object: { payment: { id: 'KkAkhdMs', status: 'COMPLETED' } } },
  });
  const signature = createHmac('sha256', key).update(NOTIFICATION_URL).update(body).digest('base64');
  // Square's own verifier agrees this is how Square signs, so the inbox is tested against Square's rule.
  expect(
    await WebhooksHelper.verifySignature({
      requestBody: body,
      signatureHeader: signature,
      signatureKey: key,
      notificationUrl: NOTIFICATION_URL,
    }),
  ).toBe(true);
  return command.post(
    { 'content-type': 'application/json', 'x-square-hmacsha256-signature': signature },
    body,
  );
}

describe('endpoints register square, end to end', { timeout: CLI_TIMEOUT_MS * 4 }, () => {
  it('creates the subscription and stores the key Square returned: Square-signed deliveries are answered 202', async () => {
    const result = await command.register(api.token, '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(json<{ outcome: string }>(result).outcome).toBe('created');
    const held = subscription();
    expect(held).toMatchObject({ notification_url: NOTIFICATION_URL, enabled: true });
    expect(command.secrets()[0]).toBe(held?.signature_key);
    expect(await deliver()).toBe(202);
    expect(await deliver('a-key-square-never-issued')).toBe(401);
    expect(result.stdout + result.stderr).not.toContain(api.token);
    expect(result.stdout + result.stderr).not.toContain(held?.signature_key as string);
  });

  it('run again, it finds the subscription and changes nothing', async () => {
    const before = {
      subscriptions: structuredClone([...api.subscriptions.values()]),
      secrets: command.secrets(),
    };
    const result = await command.register(api.token);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/already has endpoint wbhk_\w+ .*nothing changed/);
    expect([...api.subscriptions.values()]).toEqual(before.subscriptions);
    expect(command.secrets()).toEqual(before.secrets);
  });

  it('--replace while Square answers 500 to the rotation: one line, nothing changed, the old key still verifies', async () => {
    const before = { key: subscription()?.signature_key, secrets: command.secrets() };
    // The registrar retries a write Square may not have settled: every attempt fails.
    for (let n = 0; n < SQUARE_WRITE_ATTEMPTS; n++) api.failNext('POST', 500);
    const result = await command.register(api.token, '--replace');
    expect(result.code).toBe(1);
    expect(oneLineError(result)).toMatch(/Square answered 500.*provider_unavailable/);
    expect(subscription()?.signature_key).toBe(before.key);
    expect(command.secrets()).toEqual(before.secrets);
    expect(await deliver()).toBe(202);
  });

  it('--replace: Square signs with a rotated key, and a delivery still in flight under the old key verifies', async () => {
    const old = subscription()?.signature_key as string;
    const result = await command.register(api.token, '--replace', '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(json<{ outcome: string }>(result).outcome).toBe('replaced');
    const now = subscription()?.signature_key as string;
    expect(now).not.toBe(old);
    expect(command.secrets().slice(0, 2)).toEqual([now, old]);
    expect(await deliver(now)).toBe(202);
    expect(await deliver(old)).toBe(202);
  });

  it('endpoints status --json: registered to the URL', async () => {
    const result = await command.status(api.token);
    expect(result.code, result.stderr).toBe(0);
    expect(statusRow(result, 'square')?.registered).toMatch(/^yes \(endpoint wbhk_/);
  });

  it('a URL other than the configured notificationUrl is refused with one line before Square is called', async () => {
    const calls = api.requests.length;
    const other = 'https://other-tunnel.example.com/webhooks/square';
    const result = await runCliWith(
      command.dir,
      ['endpoints', 'register', 'square', '--url', other, '--api-base', api.url],
      { env: { SQUARE_ACCESS_TOKEN: api.token } },
    );
    expect(result.code).toBe(2);
    expect(oneLineError(result)).toMatch(
      /set providers.square.options.notificationUrl to "https:\/\/other-tunnel/,
    );
    expect(api.requests.length).toBe(calls);
  });

  it('a refused token and a token without the webhooks write scope: one line each, with the reason, no token', async () => {
    const refused = await command.registerWithStdin('EAAAnot-the-token-square-issued');
    expect(refused.code).toBe(1);
    expect(oneLineError(refused)).toMatch(/Square refused the access token.*refused_credential/);
    expect(refused.stderr).not.toContain('EAAAnot-the-token-square-issued');

    api.missingScopes.add('DEVELOPER_APPLICATION_WEBHOOKS_WRITE');
    const scoped = await command.register(api.token, '--replace');
    expect(scoped.code).toBe(1);
    expect(oneLineError(scoped)).toMatch(/lacks DEVELOPER_APPLICATION_WEBHOOKS_WRITE.*missing_scope/);
    expect(scoped.stderr).not.toContain(api.token);
  });
});
