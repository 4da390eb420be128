// End to end for Stripe: the registrar creates an endpoint at a Stripe-shaped API, the secret it returns is
// stored the way `secrets rotate` stores it for a running local instance, and a delivery that stripe-node
// itself signs with the secret Stripe holds is answered 202. Then a `--replace` whose delete answers 500:
// the new endpoint's secret is stored, the old endpoint still exists, and deliveries signed for either are
// accepted, so nothing Stripe sends in the meantime is refused.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripeRegistrar } from '../../../../cli/registration/stripe';
import { resolveSecretsTarget, type SecretsTarget } from '../../../../cli/target';
import { parseConfig } from '../../../../config';
import { consoleLogger } from '../../../../local/console-log';
import { type LocalInbox, startLocalInbox } from '../../../../local/local-inbox';
import { type FakeStripeApi, startFakeStripeApi } from '../../../support/provider-apis/stripe';

const config = parseConfig({
  providers: { stripe: { scheme: 'stripe' } },
  queue: { retrySchedule: ['30s'] },
});
const key = `sk_test_${randomBytes(16).toString('hex')}`;
const PUBLIC_URL = 'https://tunnel.example.com/webhooks/stripe';

let api: FakeStripeApi;
let inbox: LocalInbox;
let target: SecretsTarget;
let cwd: string;

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'webhook-inbox-stripe-register-'));
  api = await startFakeStripeApi();
  api.allowKey(key);
  inbox = await startLocalInbox({ config, cwd, port: 0, logs: consoleLogger(() => undefined) });
  target = await resolveSecretsTarget({}, config, cwd);
}, 60_000);
afterAll(async () => {
  await inbox?.stop();
  await api?.close();
  rmSync(cwd, { recursive: true, force: true });
}, 60_000);

/** A Stripe event as Stripe posts it, signed by stripe-node's own test signer. */
async function deliver(secret: string): Promise<number> {
  const payload = JSON.stringify({
    id: `evt_${randomUUID().replaceAll('-', '')}`,
    object: 'event',
    type: 'charge.succeeded',
  });
  const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret });
  const response = await fetch(`${inbox.state.gatewayUrl}/webhooks/stripe`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    body: payload,
    signal: AbortSignal.timeout(30_000),
  });
  await response.arrayBuffer();
  return response.status;
}

describe('a Stripe endpoint registered through the registrar', () => {
  it('signs deliveries the inbox accepts once the returned secret is stored', async () => {
    const stripe = stripeRegistrar({ credential: key, apiBase: api.url, mode: 'test' });
    const created = await stripe.create({ url: PUBLIC_URL });
    const held = api.endpoints().find((each) => each.id === created.endpoint.id)!;
    expect(await deliver(held.secret)).toBe(401);
    await target.secrets.rotate('stripe', created.secret!);
    expect(await deliver(held.secret)).toBe(202);
  });

  it('keeps both endpoints signing when the delete of a --replace answers 500', async () => {
    const stripe = stripeRegistrar({ credential: key, apiBase: api.url, mode: 'test' });
    const [old] = (await stripe.list()).filter((each) => each.url === PUBLIC_URL);
    const oldSecret = api.endpoints().find((each) => each.id === old!.id)!.secret;

    const replacement = await stripe.create({ url: PUBLIC_URL });
    await target.secrets.rotate('stripe', replacement.secret!);
    api.failNext('DELETE', 500);
    await expect(stripe.delete!(old!)).rejects.toMatchObject({ reason: 'provider_unavailable' });

    expect((await stripe.list()).map((each) => each.id)).toEqual(
      expect.arrayContaining([old!.id, replacement.endpoint.id]),
    );
    expect(await deliver(oldSecret)).toBe(202);
    expect(await deliver(replacement.secret!)).toBe(202);
  });
});
