// End to end for Stripe, through the command: `endpoints register stripe --mode test` against a local
// Stripe API creates an endpoint, stores the secret Stripe returned, and an event that stripe-node itself
// signs with the secret Stripe holds is answered 202 by the running inbox. A rerun changes nothing.
// `--replace` creates a new endpoint, stores its secret and deletes the old one, so both sign validly in
// between; when the create or the delete answers 500, one line says so and the old endpoint's deliveries
// still pass. A refused key and a key of the other mode get one line naming the reason.
import { randomBytes, randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT_MS, json, oneLineError } from '../../../../e2e/cli/helpers';
import { type FakeStripeApi, startFakeStripeApi } from '../../../../support/provider-apis/stripe';
import { statusRow, useRegisterCommand } from './register-command';

const key = `sk_test_${randomBytes(16).toString('hex')}`;
const PUBLIC_URL = 'https://tunnel.example.com/webhooks/stripe';

let api: FakeStripeApi;
const command = useRegisterCommand({
  providerId: 'stripe',
  credentialEnv: 'STRIPE_API_KEY',
  publicUrl: PUBLIC_URL,
  apiBase: () => api.url,
  registerArgs: ['--mode', 'test'],
});

beforeAll(async () => {
  api = await startFakeStripeApi();
  api.allowKey(key);
  return () => api.close();
}, 60_000);

/** A Stripe event as Stripe posts it, signed by stripe-node's own test signer. */
function deliver(secret: string): Promise<number> {
  const payload = JSON.stringify({
    id: `evt_${randomUUID().replaceAll('-', '')}`,
    object: 'event',
    type: 'charge.succeeded',
  });
  const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret });
  return command.post({ 'content-type': 'application/json', 'stripe-signature': signature }, payload);
}

const held = () => api.endpoints().filter((each) => each.url === PUBLIC_URL);

describe('endpoints register stripe, end to end', { timeout: CLI_TIMEOUT_MS * 4 }, () => {
  it('creates the endpoint and stores the secret Stripe returned: Stripe-signed events are answered 202', async () => {
    const result = await command.register(key, '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(json<{ outcome: string }>(result).outcome).toBe('created');
    const [endpoint] = held();
    expect(endpoint).toMatchObject({ url: PUBLIC_URL, enabled_events: ['*'] });
    expect(command.secrets()[0]).toBe(endpoint?.secret);
    expect(await deliver(endpoint?.secret as string)).toBe(202);
    expect(result.stdout + result.stderr).not.toContain(key);
    expect(result.stdout + result.stderr).not.toContain(endpoint?.secret as string);
  });

  it('run again, it finds the endpoint and changes nothing', async () => {
    const before = { endpoints: structuredClone(api.endpoints()), secrets: command.secrets() };
    const result = await command.register(key);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/already has endpoint we_\w+ .*nothing changed/);
    expect(api.endpoints()).toEqual(before.endpoints);
    expect(command.secrets()).toEqual(before.secrets);
  });

  it('--replace while Stripe answers 500 to the create: one line, nothing changed, the old secret still verifies', async () => {
    const before = { endpoints: structuredClone(api.endpoints()), secrets: command.secrets() };
    api.failNext('POST', 500, '/v1/webhook_endpoints');
    const result = await command.register(key, '--replace');
    expect(result.code).toBe(1);
    expect(oneLineError(result)).toMatch(/500.*provider_unavailable/);
    expect(api.endpoints()).toEqual(before.endpoints);
    expect(command.secrets()).toEqual(before.secrets);
    expect(await deliver(held()[0]?.secret as string)).toBe(202);
  });

  it('--replace: a new endpoint signs, the old one is deleted, and an event the old one signed still verifies', async () => {
    const [old] = held();
    const result = await command.register(key, '--replace', '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(json<{ outcome: string; deleted: string[] }>(result)).toMatchObject({
      outcome: 'replaced',
      deleted: [old?.id],
    });
    const [now] = held();
    expect(held()).toHaveLength(1);
    expect(now?.id).not.toBe(old?.id);
    expect(command.secrets().slice(0, 2)).toEqual([now?.secret, old?.secret]);
    expect(await deliver(now?.secret as string)).toBe(202);
    expect(await deliver(old?.secret as string)).toBe(202);
  });

  it('--replace while Stripe answers 500 to the delete: one line saying the old endpoint is left, and it still verifies', async () => {
    const [old] = held();
    api.failNext('DELETE', 500);
    const result = await command.register(key, '--replace');
    expect(result.code).toBe(1);
    expect(oneLineError(result)).toMatch(
      new RegExp(`old endpoint ${old?.id} was not deleted.*Delete ${old?.id} at Stripe`),
    );
    expect(held().map((each) => each.id)).toContain(old?.id);
    const now = held().find((each) => each.id !== old?.id);
    expect(command.secrets().slice(0, 2)).toEqual([now?.secret, old?.secret]);
    expect(await deliver(old?.secret as string)).toBe(202);
    expect(await deliver(now?.secret as string)).toBe(202);
  });

  it('endpoints status --json: registered to the URL', async () => {
    const result = await command.status(key);
    expect(result.code, result.stderr).toBe(0);
    expect(statusRow(result, 'stripe')?.registered).toMatch(/^yes \(endpoints? we_/);
  });

  it('a refused key, a live key for --mode test, and a key without webhook write: one line each, no key', async () => {
    const refused = await command.registerWithStdin(`sk_test_${randomBytes(16).toString('hex')}`);
    expect(refused.code).toBe(1);
    expect(oneLineError(refused)).toMatch(/refused_credential/);

    const live = `sk_live_${randomBytes(16).toString('hex')}`;
    const wrongMode = await command.register(live);
    expect(wrongMode.code).toBe(1);
    expect(oneLineError(wrongMode)).toMatch(/live-mode key, and test mode was asked for.*wrong_mode/);
    expect(wrongMode.stderr).not.toContain(live);

    const readOnly = `rk_test_${randomBytes(16).toString('hex')}`;
    api.allowKey(readOnly, ['rak_webhook_read']);
    const scoped = await command.register(readOnly, '--replace');
    expect(scoped.code).toBe(1);
    expect(oneLineError(scoped)).toMatch(/rak_webhook_write.*missing_scope/);
    expect(scoped.stderr).not.toContain(readOnly);
  });
});
