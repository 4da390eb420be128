// The console in an 800 px window with values as long as the receive rules let a sender make them: a
// Standard Webhooks `webhook-id` of 255 characters (the dedup key and delivery id) and an event type of
// 246. Each page must still fit the window, with no sideways scroll: long values wrap or are cut.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupDeadLetters } from '../../../cli/console/console-operations';
import { newToken } from '../../../cli/console/security';
import { type ConsoleBackend, type RunningConsole, startConsoleServer } from '../../../cli/console/server';
import type { InboxRecord } from '../../../lambdas/core/inbox';
import { fakeBackend } from '../../support/console-backend';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const KEY = `msg_${'A'.repeat(251)}`;

const long: InboxRecord = {
  pk: `standard-webhooks#${KEY}`,
  provider: 'standard-webhooks',
  dedupKey: KEY,
  deliveryId: KEY,
  eventType: `order.${'x'.repeat(240)}`,
  payloadSha256: 'ab'.repeat(32),
  status: 'failed',
  receivedAt: new Date().toISOString(),
  failedAt: new Date().toISOString(),
  attempts: 1,
  lastErrorCode: 'handler_error',
  expiresAt: 4_102_444_800,
};

let browser: Browser;
let server: RunningConsole;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: set CHROMIUM_PATH`);
  const base = fakeBackend([]);
  const backend = {
    ...base,
    config: { providers: { 'standard-webhooks': {} } },
    deliveries: { page: async () => ({ records: [long] }), get: async () => long },
    // A failed delivery given up on without a mark is listed with the dead letters, as stranded.
    deadLetterGroups: async () => groupDeadLetters([long]),
  } as unknown as ConsoleBackend;
  server = await startConsoleServer({ port: 0, readOnly: false, token: newToken(), backend });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the console with the longest values a sender may send', { timeout: 60_000 }, () => {
  it('fits the Deliveries, Dead letters and delivery pages in an 800 px window', async () => {
    const page = await browser.newPage({ viewport: { width: 800, height: 760 } });
    await page.goto(server.url);
    const widths: Record<string, number> = {};
    for (const path of ['deliveries', 'dead-letters', `delivery?provider=standard-webhooks&key=${KEY}`]) {
      await page.goto(new URL(path, server.url).href);
      widths[path.slice(0, 40)] = (await page.evaluate('document.documentElement.scrollWidth')) as number;
    }
    expect(Object.entries(widths).filter(([, width]) => width > 800)).toEqual([]);
  });
});
