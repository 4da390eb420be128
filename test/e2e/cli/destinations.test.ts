// The destinations runbook through the real command line, against a local instance with one configured
// http destination (cdk.json) and one `dev --forward-to` URL: list, show --reveal --json (and verifying
// what arrives with the secret it prints), test, 410 and enable, rotate, deliveries show, dlq --destination.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, sampleDelivery, signDelivery } from '../../../cli/operations/signed-delivery';
import { loadProjectConfig } from '../../../config/load';
import { FORWARD_HEADERS } from '../../../lambdas/core/destinations/signing';
import { withForwardTo } from '../../../local/forward-to';
import { type LocalInbox, startLocalInbox } from '../../../local/local-inbox';
import { type DestinationServer, startDestinationServer, status } from '../../support/destination-server';
import { verifiesWith } from '../../support/forwarding';
import { CLI_TIMEOUT_MS, eventually, json, makeProject, oneLineError, readSecrets, runCli } from './helpers';

const project = makeProject();
let orders: DestinationServer;
let local: DestinationServer;
let inbox: LocalInbox;

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** A signed Standard Webhooks delivery through the gateway; resolves with its dedup key (its webhook-id). */
async function deliver(): Promise<string> {
  const provider = loadProjectConfig(project.dir).providers['standard-webhooks'];
  if (!provider) throw new Error('standard-webhooks is not configured');
  const url = `${inbox.state.gatewayUrl}/webhooks/standard-webhooks`;
  const delivery = sampleDelivery(provider, { nowMs: Date.now(), url });
  const secret = readSecrets(project.dir)['standard-webhooks']?.[0] as string;
  const signed = signDelivery(provider, delivery, { secret, timestamp: Math.floor(Date.now() / 1000), url });
  const answer = await post(url, signed.body, signed.headers);
  if (answer.status !== 202) throw new Error(`delivery answered ${answer.status}`);
  return delivery.deliveryId;
}

beforeAll(async () => {
  orders = await startDestinationServer();
  local = await startDestinationServer();
  const cdkJson = JSON.parse(readFileSync(join(project.dir, 'cdk.json'), 'utf8'));
  cdkJson.context.webhookInbox.destinations = {
    handlers: { type: 'handlers' },
    orders: { type: 'http', url: orders.url('/in'), retrySchedule: ['1s'] },
  };
  writeFileSync(join(project.dir, 'cdk.json'), JSON.stringify(cdkJson));
  const forwardTo = [local.url('/local')];
  inbox = await startLocalInbox({
    config: withForwardTo(loadProjectConfig(project.dir), forwardTo),
    forwardTo,
    cwd: project.dir,
    port: 0,
    logs: { verify: quiet, process: quiet },
  });
}, 120_000);

afterAll(async () => {
  await inbox?.stop();
  await orders?.close();
  await local?.close();
  project.remove();
}, 60_000);

describe('webhook-inbox destinations', { timeout: CLI_TIMEOUT_MS * 2 }, () => {
  it('shows a --forward-to destination as {id, url, secret, revealed, state}, and what it receives verifies with that secret', async () => {
    const shown = json<Record<string, unknown>>(
      await runCli(project.dir, ['destinations', 'show', 'forward-to-1', '--reveal', '--json']),
    );
    expect(Object.keys(shown).sort()).toEqual(['id', 'revealed', 'secret', 'state', 'url']);
    expect(shown).toMatchObject({ id: 'forward-to-1', url: local.url('/local'), state: 'enabled' });
    expect(shown.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const key = await deliver();
    await eventually(
      async () => local.received.length,
      (n) => n >= 1,
    );
    const request = local.received[0];
    if (!request) throw new Error('nothing forwarded');
    expect(() => verifiesWith(shown.secret as string, request)).not.toThrow();
    expect(request.headers[FORWARD_HEADERS.provider]).toBe('standard-webhooks');
    // And the delivery's history, per destination.
    await eventually(
      async () => orders.received.length,
      (n) => n >= 1,
    );
    const show = await runCli(project.dir, ['deliveries', 'show', 'standard-webhooks', key]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/orders[\s│]+delivered[\s│]+1[\s│]+204/);
    expect(show.stdout).toMatch(/forward-to-1[\s│]+delivered[\s│]+1[\s│]+204/);
    const record = json<{ destinations: { destination: string; state: string }[] }>(
      await runCli(project.dir, ['deliveries', 'show', 'standard-webhooks', key, '--json']),
    );
    expect(record.destinations.map((d) => [d.destination, d.state])).toEqual([
      ['forward-to-1', 'delivered'],
      ['orders', 'delivered'],
    ]);
  });

  it('refuses a --forward-to that is not an http(s) URL with one line naming it, exit 2, before starting anything', async () => {
    const bad = await runCli(project.dir, [
      'dev',
      '--port',
      '0',
      '--forward-to',
      'http://localhost:4000/ok',
      '--forward-to',
      'ftp://x',
    ]);
    expect(bad.code).toBe(2);
    expect(oneLineError(bad)).toMatch(/--forward-to ftp:\/\/x: not an http\(s\) URL/);
  });

  it('masks the secret without --reveal, and refuses an unknown destination with one line, exit 2', async () => {
    const [masked, unknown] = await Promise.all([
      runCli(project.dir, ['destinations', 'show', 'orders', '--json']),
      runCli(project.dir, ['destinations', 'show', 'nope']),
    ]);
    expect(json(masked)).toMatchObject({ secret: expect.stringMatching(/^whsec_\*{8}/), revealed: false });
    expect(unknown.code).toBe(2);
    expect(oneLineError(unknown)).toMatch(/unknown destination "nope"/);
  });

  it('sends a signed test event and prints the answer; a 410 is reported, exit 1, and changes nothing', async () => {
    const ok = await runCli(project.dir, ['destinations', 'test', 'orders']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/HTTP 204 from orders in \d+ ms: delivered/);
    const test = orders.received.at(-1);
    expect(JSON.parse(String(test?.body)).type).toBe('webhook-inbox.test');
    const secret = readSecrets(project.dir)['destination:orders']?.[0] as string;
    expect(() => verifiesWith(secret, test as NonNullable<typeof test>)).not.toThrow();
    orders.answer(status(410));
    const gone = await runCli(project.dir, ['destinations', 'test', 'orders', '--json']);
    expect(gone.code).toBe(1);
    expect(json(gone)).toMatchObject({ id: 'orders', status: 410, verdict: 'gone', code: 'http_410' });
    const listed = json<{ id: string; state: string }[]>(
      await runCli(project.dir, ['destinations', 'list', '--json']),
    );
    expect(listed.find((d) => d.id === 'orders')?.state).toBe('enabled');
  });

  it('lists a destination a 410 disabled, and enables it again; its waiting delivery is then sent', async () => {
    orders.answer(status(410));
    const key = await deliver();
    const disabled = await eventually(
      async () =>
        json<{ id: string; state: string; disabledReason?: string }[]>(
          await runCli(project.dir, ['destinations', 'list', '--json']),
        ),
      (list) => list.find((d) => d.id === 'orders')?.state === 'disabled',
    );
    expect(disabled.find((d) => d.id === 'orders')).toMatchObject({
      state: 'disabled',
      disabledReason: 'http_410',
    });
    const table = await runCli(project.dir, ['destinations', 'list']);
    expect(table.stdout).toMatch(/orders .*disabled \(http_410\)/);
    const enabled = await runCli(project.dir, ['destinations', 'enable', 'orders']);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(enabled.stdout).toContain('enabled orders');
    const shown = await eventually(
      async () => (await runCli(project.dir, ['deliveries', 'show', 'standard-webhooks', key])).stdout,
      (text) => /orders[\s│]+delivered[\s│]+2/.test(text),
    );
    expect(shown).toMatch(/orders[\s│]+delivered[\s│]+2/);
  });

  it('dead-letters a 400 to the destination DLQ, where dlq list --destination shows it and redrive sends it again', async () => {
    orders.answer(status(400));
    const key = await deliver();
    const entries = await eventually(
      async () =>
        json<{ dedupKey: string; errorCode?: string; inboxStatus?: string }[]>(
          await runCli(project.dir, ['dlq', 'list', '--destination', 'orders', '--json']),
        ),
      (list) => list.length === 1,
    );
    // The error and state are the delivery's at that destination, not the inbox record's (processed).
    expect(entries.map((e) => [e.dedupKey, e.errorCode, e.inboxStatus])).toEqual([
      [key, 'http_400', 'dead-lettered'],
    ]);
    const mainDlq = json<unknown[]>(await runCli(project.dir, ['dlq', 'list', '--json']));
    expect(mainDlq).toEqual([]);
    const redrive = await runCli(project.dir, ['dlq', 'redrive', '--destination', 'orders']);
    expect(redrive.code, redrive.stderr).toBe(0);
    const shown = await eventually(
      async () => (await runCli(project.dir, ['deliveries', 'show', 'standard-webhooks', key])).stdout,
      (text) => /orders[\s│]+delivered[\s│]+2/.test(text),
    );
    expect(shown).toMatch(/orders[\s│]+delivered[\s│]+2/);
  });

  it('rotates the signing secret: each request then carries a signature for the new one and the previous one', async () => {
    const before = readSecrets(project.dir)['destination:orders']?.[0] as string;
    const rotated = await runCli(project.dir, ['destinations', 'rotate', 'orders', '--json']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const after = readSecrets(project.dir)['destination:orders'] ?? [];
    expect(after).toHaveLength(2);
    expect(after[1]).toBe(before);
    // Listed under the names `secrets rotate|show --json` use.
    expect(json(rotated)).toMatchObject({
      id: 'orders',
      revealed: false,
      secrets: [
        { label: 'current', secret: expect.stringMatching(/^whsec_\*{8}/) },
        { label: 'previous', secret: expect.stringMatching(/^whsec_\*{8}/) },
      ],
    });
    const count = orders.received.length;
    await deliver();
    await eventually(
      async () => orders.received.length,
      (n) => n > count,
    );
    const request = orders.received.at(-1) as NonNullable<(typeof orders.received)[number]>;
    expect(String(request.headers[FORWARD_HEADERS.signature]).split(' ')).toHaveLength(2);
    expect(() => verifiesWith(after[0] as string, request)).not.toThrow();
    expect(() => verifiesWith(before, request)).not.toThrow();
  });
});
