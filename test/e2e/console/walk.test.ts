import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadProjectConfig } from '../../../config/load';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { SqsQueueOps } from '../../../lambdas/adapters/sqs-queue-ops';
import { defineEvent, EVENT_HANDLERS, PermanentError } from '../../../lambdas/events';
import type { LocalInbox } from '../../../local/local-inbox';
import { launchChromium } from '../../support/chromium';
import { eventually, makeProject, REPO, sendSample, startInstance } from '../cli/helpers';
import { type ConsoleProcess, startConsoleProcess } from './console-process';

const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(REPO, 'docs', 'images') : undefined;

/** The downstream fails for good the first time it is called, and works from then on. */
let calls = 0;
const failsOnce = defineEvent({
  provider: 'mobazha',
  type: 'order.paid',
  schema: z.looseObject({ type: z.string() }),
  handle: () => {
    calls++;
    if (calls === 1) throw new PermanentError('downstream_rejected');
  },
});

const project = makeProject();
let inbox: LocalInbox;
let table: DynamoInbox;
let consoleProcess: ConsoleProcess | undefined;
let consoleUrl: string;
let browser: Browser;
let page: Page;
let deadKey: string;
let processedKey: string;

const status = async (key: string) => (await table.get(`mobazha#${key}`))?.status;

/**
 * Run in the page (as text: the tests' types have no DOM): the rotate inputs whose placeholder is wider
 * than the box that shows it, so the browser cuts it.
 */
const CUT_PLACEHOLDERS = `(() => {
  const context = document.createElement('canvas').getContext('2d');
  return [...document.querySelectorAll('form.rotate input')].flatMap((input) => {
    const style = getComputedStyle(input);
    context.font = style.font;
    const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return context.measureText(input.placeholder).width > room ? [input.placeholder] : [];
  });
})()`;

/** Waits until the element shows `text` (a page updated by its script, or one still loading), then checks it. */
async function shows(selector: string, text: string): Promise<void> {
  const shown = await eventually(
    () =>
      page
        .locator(selector)
        .first()
        .textContent({ timeout: 5_000 })
        .then(
          (t) => t ?? '',
          () => '',
        ),
    (t) => t.includes(text),
    30_000,
  );
  expect(shown).toContain(text);
}

/** Clicks something that loads another page, and waits for that page. */
async function follow(selector: string): Promise<void> {
  const before = page.url();
  await Promise.all([page.waitForURL((url) => url.href !== before), page.click(selector)]);
  await page.waitForLoadState('domcontentloaded');
}

/** Reloads until the page shows `text` (the processor works in the background). */
async function reloadUntil(text: string, where = 'main'): Promise<void> {
  await eventually(
    async () => {
      await page.reload();
      return (await page.locator(where).textContent()) ?? '';
    },
    (shown) => shown.includes(text),
  );
  await shows(where, text);
}

beforeAll(async () => {
  inbox = await startInstance(project.dir, [failsOnce, ...EVENT_HANDLERS]);
  table = new DynamoInbox(inbox.clients.dynamodb, inbox.state.tableName);
  const queues = new SqsQueueOps(inbox.clients.sqs);
  const gateway = inbox.state.gatewayUrl;
  // 1. Deliveries, one of which dead-letters; then others that are processed.
  deadKey = await sendSample(project.dir, gateway, 'mobazha', 'order.paid');
  await eventually(
    () => status(deadKey),
    (s) => s === 'dead-lettered',
  );
  await eventually(
    async () => (await queues.counts(inbox.state.dlqUrl)).visible,
    (n) => n === 1,
  );
  processedKey = await sendSample(project.dir, gateway, 'mobazha', 'order.paid');
  await sendSample(project.dir, gateway, 'github', 'push');
  await sendSample(project.dir, gateway, 'stripe', 'payment_intent.succeeded');
  await sendSample(project.dir, gateway, 'standard-webhooks', 'webhook-inbox.demo.permanent');
  await eventually(
    () => status(processedKey),
    (s) => s === 'processed',
  );
  consoleProcess = await startConsoleProcess(project.dir);
  consoleUrl = consoleProcess.url;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  consoleProcess?.stop();
  await inbox?.stop();
  project.remove();
}, 60_000);

describe('the console in a browser', { timeout: 120_000 }, () => {
  it('opens with the token and finds the dead letter by filtering', async () => {
    await page.goto(consoleUrl);
    // The token left the address bar for an HttpOnly cookie.
    expect(page.url()).not.toContain('token=');
    await shows('h1', 'Deliveries');
    await eventually(
      async () => {
        await page.reload();
        return page.locator('#deliveries tbody tr').count();
      },
      (n) => n === 5,
    );
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, 'console-deliveries.png') });
    await page.selectOption('select[name=provider]', 'mobazha');
    await page.selectOption('select[name=status]', 'dead-lettered');
    await follow('form.filters button[type=submit]');
    expect(page.url()).toContain('status=dead-lettered');
    const rows = page.locator('#deliveries tbody tr');
    expect(await rows.count()).toBe(1);
    const row = (await rows.first().textContent()) ?? '';
    expect(row).toContain(deadKey);
    expect(row).toContain('downstream_rejected');
    expect(await rows.first().locator('.badge').getAttribute('class')).toContain('badge-red');
  });

  it('opens the dead letter and reveals its payload only on a click', async () => {
    await follow(`#deliveries a:has-text("${deadKey}")`);
    await shows('.subtitle .badge', 'dead-lettered');
    await shows('#timeline', 'dead-lettered');
    expect(await page.locator('#payload-shown').isHidden()).toBe(true);
    expect(await page.content()).not.toContain('order.paid"');
    await page.click('button[data-action=reveal]');
    await shows('#payload-body', '"type": "order.paid"');
    // Once shown, the placeholder that said it was masked is gone.
    expect(await page.locator('#payload-masked').isVisible()).toBe(false);
    // biome-ignore lint/performance/useDomNodeTextContent: what shows is the point, and a hidden box's text is still in the DOM
    expect(await page.locator('main').innerText()).not.toContain('masked');
  });

  it('lists it on the dead letters page by provider and error, and redrives it until it is processed', async () => {
    await follow('nav a:has-text("Dead letters")');
    expect(await page.locator('#groups tbody tr').count()).toBe(2);
    await shows('#groups', 'downstream_rejected');
    await shows('#groups', 'demo_permanent_failure');
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, 'console-dead-letters.png') });
    await page.check(`input.pick[value="mobazha#${deadKey}"]`);
    await page.click('button[data-action=redrive-selected]');
    await shows('#notice', 'moved 1 message');
    expect(
      await eventually(
        () => status(deadKey),
        (s) => s === 'processed',
      ),
    ).toBe('processed');
    await page.goto(new URL(`delivery?provider=mobazha&key=${deadKey}`, consoleUrl).href);
    await reloadUntil('processed', '.subtitle');
    await shows('#timeline', 'redriven');
    // Only the selection moved: the other group's dead letter is still in the DLQ.
    await follow('nav a:has-text("Dead letters")');
    expect(await page.locator('#groups tbody tr').count()).toBe(1);
    await shows('#groups', 'demo_permanent_failure');
  });

  it('asks before a replay: Cancel sends nothing, Replay replays and says what it did', async () => {
    await page.goto(new URL(`delivery?provider=mobazha&key=${processedKey}`, consoleUrl).href);
    await shows('.subtitle .badge', 'processed');
    const dialog = page.locator('#replay-confirm');
    await page.click('button[data-action=replay]');
    expect(await dialog.isVisible()).toBe(true);
    await shows('#replay-confirm', 'handlers');
    await page.click('#replay-confirm button[data-close=cancel]');
    expect(await dialog.isVisible()).toBe(false);
    await shows('#replay-result', 'Replay cancelled: nothing was sent.');
    expect((await table.get(`mobazha#${processedKey}`))?.replays).toBeUndefined();
    await page.click('button[data-action=replay]');
    await page.click('#replay-confirm button[data-close=confirm]');
    await shows('#replay-result', `Replayed mobazha delivery ${processedKey}: message `);
    await shows('#replay-result', 'the processor sends it to handlers');
    // The result stays on the page: nothing reloads it away.
    expect(page.url()).toContain(processedKey);
    const replayed = await eventually(
      () => table.get(`mobazha#${processedKey}`),
      (r) => r?.status === 'processed' && r.replays === 1,
    );
    expect(replayed).toMatchObject({ status: 'processed', replays: 1, lastReplayedBy: expect.any(String) });
    await reloadUntil('replayed', '#timeline');
    await shows('#timeline', '1 replay');
  });

  it('refuses a request without the token, and a POST whose token is only in the URL', async () => {
    const token = new URL(consoleUrl).searchParams.get('token') as string;
    const bare = await fetch(new URL('deliveries', consoleUrl), { redirect: 'manual' });
    expect(bare.status).toBe(401);
    expect(await bare.text()).toBe('');
    const byQuery = await fetch(new URL(`api/replay?token=${token}`, consoleUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'mobazha', key: processedKey }),
    });
    expect(byQuery.status).toBe(401);
    // In the page, holding the cookie: an API call without the header is refused too.
    const fromPage = await page.evaluate(async () => (await fetch('api/jobs/none')).status);
    expect(fromPage).toBe(401);
    expect((await table.get(`mobazha#${processedKey}`))?.replays).toBe(1);
  });

  it('pages back with Previous to the same deliveries, and the first page has none', async () => {
    // Enough github deliveries for two pages of 50.
    const keys: string[] = [];
    for (let batch = 0; batch < 11; batch++) {
      keys.push(
        ...(await Promise.all(
          Array.from({ length: 5 }, () => sendSample(project.dir, inbox.state.gatewayUrl, 'github', 'push')),
        )),
      );
    }
    const firstPage = new URL('deliveries?provider=github', consoleUrl).href;
    const rowKeys = () => page.locator('#deliveries tbody tr a.mono').allTextContents();
    await page.goto(firstPage);
    await eventually(
      async () => {
        await page.reload();
        return page.locator('a[rel=next]').count();
      },
      (n) => n === 1,
    );
    const first = await rowKeys();
    expect(first).toHaveLength(50);
    expect(await page.locator('a[rel=prev]').count()).toBe(0);
    await follow('a[rel=next]');
    const second = await rowKeys();
    expect(second.length).toBeGreaterThan(0);
    expect(second.some((key) => first.includes(key))).toBe(false);
    await follow('a[rel=prev]');
    expect(await rowKeys()).toEqual(first);
    expect(await page.locator('a[rel=prev]').count()).toBe(0);
    expect(keys).toHaveLength(55);
  });

  it('shows the providers compactly: each named once, each placeholder whole', async () => {
    await page.goto(new URL('providers', consoleUrl).href);
    const text = (await page.locator('main').textContent()) ?? '';
    const ids = Object.keys(loadProjectConfig(project.dir).providers);
    expect(ids.length).toBeGreaterThan(5);
    for (const id of ids) expect(text).not.toMatch(new RegExp(`${id}\\s+${id}(?![\\w-])`));
    // A placeholder wider than its box is cut (it was, at "the secret the provider is").
    const cut = await page.evaluate(CUT_PLACEHOLDERS);
    expect(cut).toEqual([]);
    expect(await page.locator('input[placeholder="the secret the provider issued"]').count()).toBeGreaterThan(
      0,
    );
    // Eleven providers took 3,600 px as cards; a row each fits in well under 1,500.
    expect(await page.evaluate('document.documentElement.scrollHeight')).toBeLessThan(1500);
  });

  it('fits every page in an 800 px window, with no sideways scroll', async () => {
    await page.setViewportSize({ width: 800, height: 760 });
    try {
      const paths = [
        'deliveries',
        'deliveries?provider=github',
        `delivery?provider=mobazha&key=${processedKey}`,
        `delivery?provider=mobazha&key=${deadKey}`,
        'dead-letters',
        'providers',
      ];
      const widths: Record<string, number> = {};
      for (const path of paths) {
        await page.goto(new URL(path, consoleUrl).href);
        widths[path] = (await page.evaluate('document.documentElement.scrollWidth')) as number;
      }
      // Every page too wide, at once, with its width.
      expect(Object.entries(widths).filter(([, width]) => width > 800)).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 760 });
    }
  });
});
