import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeTrends, type TrendWindow } from '../../../cli/console/trends';
import {
  type ForwardState,
  forwardAttribute,
  serializeForwardState,
} from '../../../lambdas/core/destinations/forward-state';
import type { InboxRecord, InboxStatus } from '../../../lambdas/core/inbox';
import type { LocalInbox } from '../../../local/local-inbox';
import { launchChromium } from '../../support/chromium';
import { inboxRecord, writeRecords } from '../../support/inbox-records';
import { makeProject, REPO, startInstance } from '../cli/helpers';
import { type ConsoleProcess, startConsoleProcess } from './console-process';

const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(REPO, 'docs', 'images') : undefined;
const HOUR = 3_600_000;
const MINUTE = 60_000;

const project = makeProject();
let inbox: LocalInbox;
let consoleProcess: ConsoleProcess | undefined;
let consoleUrl: string;
let browser: Browser;
let page: Page;
const seeded: InboxRecord[] = [];
const violations: string[] = [];
const foreignRequests: string[] = [];

const iso = (ms: number) => new Date(ms).toISOString();

function copy(destination: string, state: ForwardState['state'], attempts: number, lastAttemptMs: number) {
  return {
    [forwardAttribute(destination)]: serializeForwardState({
      destination,
      state,
      attempts,
      webhookId: `msg_${destination}`,
      lastAttemptAt: iso(lastAttemptMs),
    }),
  };
}

/**
 * A day and a week of deliveries, each 20 minutes into its hour and at most 20 hours (or 6 days) back: a
 * clock that passes an hour boundary between the seeding and the view moves every bar along by one, but
 * none out of the window.
 */
function seed(nowMs: number): InboxRecord[] {
  const hour = Math.floor(nowMs / HOUR) * HOUR;
  const records: InboxRecord[] = [];
  let n = 0;
  const add = (provider: string, atMs: number, status: InboxStatus, more: Record<string, unknown> = {}) => {
    n += 1;
    records.push({ ...inboxRecord({ provider, dedupKey: `trend_${n}`, receivedMs: atMs, status }), ...more });
  };
  for (let k = 1; k <= 20; k++) {
    const at = hour - k * HOUR + 20 * MINUTE;
    for (let i = 0; i < 2 + ((k * 7) % 5); i++) {
      add('github', at + i * 1000, 'processed', {
        ...copy('crm-webhook', 'delivered', i === 0 && k % 3 === 0 ? 3 : 1, at + 2 * MINUTE),
      });
    }
    if (k % 2 === 0) add('stripe', at, 'processed', copy('audit-queue', 'delivered', 1, at + MINUTE));
    if (k % 5 === 0) {
      add('stripe', at + 5000, 'failed', {
        attempts: 2,
        attemptLog: [`${iso(at + MINUTE)}|http_503|1|failed`, `${iso(at + 4 * MINUTE)}|http_503|2|failed`],
        failedAt: iso(at + 4 * MINUTE),
        lastErrorCode: 'http_503',
      });
    }
    if (k === 3 || k === 11) {
      add('mobazha', at, 'dead-lettered', {
        attempts: 3,
        attemptLog: [
          `${iso(at + MINUTE)}|timeout|1|failed`,
          `${iso(at + 3 * MINUTE)}|timeout|2|failed`,
          `${iso(at + 9 * MINUTE)}|downstream_rejected|3|dead-lettered`,
        ],
        deadLetteredAt: iso(at + 9 * MINUTE),
        lastErrorCode: 'downstream_rejected',
      });
    }
    if (k <= 2) add('github', at + 9000, 'enqueued', copy('audit-queue', 'retrying', 2, at + 30 * MINUTE));
    if (k === 7)
      add('github', at + 9000, 'processed', copy('audit-queue', 'dead-lettered', 5, at + 35 * MINUTE));
  }
  for (let d = 2; d <= 6; d++) {
    for (let i = 0; i < 3 + d; i++) add('github', hour - d * 24 * HOUR + 20 * MINUTE + i * HOUR, 'processed');
    add('stripe', hour - d * 24 * HOUR + 20 * MINUTE, 'processed');
  }
  return records;
}

/** The bars each chart should draw: one per non-zero (bucket, series) pair, as the page computes them. */
function expectedBars(window: TrendWindow, nowMs: number): number[] {
  const trends = computeTrends({ window, nowMs, records: seeded, truncated: false });
  const count = (series: Iterable<number[]>) => [...series].flat().filter((v) => v > 0).length;
  return [
    count(Object.values(trends.deliveries.received)),
    count(trends.deliveries.failures.values()),
    count(Object.values(trends.destinations.received)),
    count(trends.destinations.failures.values()),
  ];
}

const CHART_IDS = ['trend-received', 'trend-failures', 'trend-copies', 'trend-destination-failures'];

async function drawnBars(): Promise<number[]> {
  return Promise.all(CHART_IDS.map((id) => page.locator(`svg#${id} rect.bar`).count()));
}

/** Loads a page and the bars expected at its time: either side of the load, in case an hour turned. */
async function open(url: string, window: TrendWindow): Promise<number[][]> {
  const before = expectedBars(window, Date.now());
  await page.goto(url);
  await page.waitForLoadState('load');
  return [before, expectedBars(window, Date.now())];
}

beforeAll(async () => {
  inbox = await startInstance(project.dir);
  seeded.push(...seed(Date.now()));
  await writeRecords(inbox.clients.dynamodb, inbox.state.tableName, seeded);
  consoleProcess = await startConsoleProcess(project.dir);
  consoleUrl = consoleProcess.url;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // Reported by the page itself: a blocked inline style or script, a refused image. A string, run in the
  // page: this file is type-checked without the DOM's types.
  await page.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (event) => {
      console.error('csp-violation ' + event.violatedDirective + ' ' + event.blockedURI);
    });`,
  });
  page.on('console', (message) => {
    if (message.type() === 'error' || /content security policy/i.test(message.text()))
      violations.push(message.text());
  });
  page.on('request', (request) => {
    if (new URL(request.url()).origin !== new URL(consoleUrl).origin) foreignRequests.push(request.url());
  });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  consoleProcess?.stop();
  await inbox?.stop();
  project.remove();
}, 60_000);

describe('the trends in a browser', { timeout: 120_000 }, () => {
  it('draws the last 24 hours: the bars the records call for, with a title on each', async () => {
    const expected = await open(consoleUrl, '24h');
    expect(page.url()).not.toContain('token=');
    expect(await page.locator('#trends h2').first().textContent()).toContain('Trends, last 24 hours');
    expect(expected).toContainEqual(await drawnBars());
    expect((await drawnBars()).every((n) => n > 0)).toBe(true);
    const title = await page.locator('svg#trend-received rect.bar title').first().textContent();
    expect(title).toMatch(/^\d{4}-\d\d-\d\d \d\d:00–\d\d:00 UTC: processed \d+ \(of \d+\)$/);
    // The tables: every provider and destination seeded, with the oldest pending delivery's age.
    const providers = await page.locator('#provider-trends tbody tr td:first-child').allTextContents();
    expect(providers).toEqual(['github', 'mobazha', 'stripe']);
    const destinations = await page.locator('#destination-trends tbody tr td:first-child').allTextContents();
    expect(destinations).toEqual(['audit-queue', 'crm-webhook']);
    expect(await page.locator('#trends-cost').textContent()).toMatch(/read [\d,]+ index entries and records/);
    if (SCREENSHOTS) {
      await page.locator('#provider-trends').scrollIntoViewIfNeeded();
      const top = await page.locator('#trends').boundingBox();
      const bottom = await page.locator('#provider-trends').boundingBox();
      if (!top || !bottom) throw new Error('the trends section has no box');
      await page.screenshot({
        path: join(SCREENSHOTS, 'console-trends.png'),
        fullPage: true,
        clip: { x: 0, y: top.y - 8, width: 1280, height: bottom.y + bottom.height - top.y + 16 },
      });
      await page
        .locator('#destination-trends')
        .screenshot({ path: join(SCREENSHOTS, 'console-destination-trends.png') });
    }
  });

  it('switches to 7 days by a link, in 6-hour bars that reach the older deliveries', async () => {
    const before = expectedBars('7d', Date.now());
    await Promise.all([page.waitForURL(/trend=7d/), page.click('#trends a:has-text("7 days")')]);
    await page.waitForLoadState('load');
    expect([before, expectedBars('7d', Date.now())]).toContainEqual(await drawnBars());
    expect(await page.locator('#trends h2').first().textContent()).toContain('Trends, last 7 days');
    expect(await page.locator('svg#trend-received text').allTextContents()).toContain(
      'deliveries per 6 hours',
    );
  });

  it('keeps to the CSP: no violation reported, nothing fetched from elsewhere, no style attribute', async () => {
    expect(violations).toEqual([]);
    expect(foreignRequests).toEqual([]);
    expect(await page.locator('#trends [style]').count()).toBe(0);
  });

  it('fits the charts in an 800 px window', async () => {
    await page.setViewportSize({ width: 800, height: 900 });
    await page.reload();
    for (const id of CHART_IDS) {
      const box = await page.locator(`svg#${id}`).boundingBox();
      expect(box, id).not.toBeNull();
      expect((box?.x ?? 0) + (box?.width ?? 0), id).toBeLessThanOrEqual(800);
      expect(box?.width, id).toBeGreaterThan(500);
    }
    const widest = await page.evaluate(
      `Math.max(...[...document.querySelectorAll('#trends table')].map((t) => t.getBoundingClientRect().right))`,
    );
    expect(widest).toBeLessThanOrEqual(800);
  });
});
