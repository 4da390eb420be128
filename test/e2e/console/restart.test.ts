import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalInbox } from '../../../local/local-inbox';
import { writeLocalState } from '../../../local/state-file';
import { launchChromium } from '../../support/chromium';
import { eventually, makeProject, sendSample, startInstance } from '../cli/helpers';
import { type ConsoleProcess, startConsoleProcess } from './console-process';

const project = makeProject();
let inbox: LocalInbox | undefined;
let consoleProcess: ConsoleProcess | undefined;
let browser: Browser;
let page: Page;
let firstKey: string;

/** Reloads the page until `main` shows `text`; returns the last answer's status and text. */
async function reloadUntil(text: string): Promise<{ status: number; main: string }> {
  return eventually(
    async () => {
      const response = await page.reload();
      return { status: response?.status() ?? 0, main: (await page.locator('main').textContent()) ?? '' };
    },
    (shown) => shown.main.includes(text),
  );
}

beforeAll(async () => {
  inbox = await startInstance(project.dir);
  firstKey = await sendSample(project.dir, inbox.state.gatewayUrl, 'mobazha', 'order.paid');
  consoleProcess = await startConsoleProcess(project.dir);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  consoleProcess?.stop();
  await inbox?.stop();
  project.remove();
}, 60_000);

describe('the console across a restart of the local instance', { timeout: 120_000 }, () => {
  it('shows the running instance', async () => {
    await page.goto(consoleProcess?.url as string);
    const shown = await reloadUntil(firstKey);
    expect(shown.main).toContain(firstKey);
    expect(shown.status).toBe(200);
  });

  it('says in one line that no local inbox is running, and how to start one, once it stops', async () => {
    const stopped = inbox?.state;
    await inbox?.stop();
    inbox = undefined;
    for (const path of ['deliveries', 'dead-letters', 'providers']) {
      const response = await page.goto(new URL(path, page.url()).href);
      expect(response?.status(), path).toBe(503);
      const message = (await page.locator('main p').first().textContent()) ?? '';
      expect(message, path).toBe(
        `no local inbox is running for ${project.dir}: start one with \`npm start\` in the project folder, then reload this page`,
      );
      expect(await page.locator('main').textContent(), path).not.toMatch(/ECONNREFUSED|Query failed/);
    }
    // A crash leaves the record behind, naming a live pid (this test's) and ports nobody listens on.
    writeLocalState(project.dir, stopped as NonNullable<typeof stopped>);
    const response = await page.goto(new URL('deliveries', page.url()).href);
    expect(response?.status()).toBe(503);
    expect(await page.locator('main p').first().textContent()).toMatch(
      /^the local inbox recorded for .* \(pid \d+\) does not answer: start one with `npm start`/,
    );
  });

  it('works again on a new instance without restarting the console', async () => {
    const before = consoleProcess?.child.pid;
    inbox = await startInstance(project.dir);
    const secondKey = await sendSample(project.dir, inbox.state.gatewayUrl, 'mobazha', 'order.paid');
    await page.goto(new URL('deliveries', page.url()).href);
    const shown = await reloadUntil(secondKey);
    expect(shown.main).toContain(secondKey);
    expect(shown.status).toBe(200);
    expect(await page.locator('header .target').textContent()).toContain(inbox.state.gatewayUrl);
    expect(consoleProcess?.child.pid).toBe(before);
    expect(consoleProcess?.child.exitCode).toBeNull();
  });
});
