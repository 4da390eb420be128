// Debian's Chromium, driven by playwright-core, for the browser tests: the console's pages and the pages
// that attack local mode from another loopback origin.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A headless Chromium; a missing one fails the suite with how to install it, never skips it. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: the browser tests need it. Install it with \`apt-get install -y chromium\` (.ci/run does), or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}
