// `dev --data-dir DIR` keeps the inbox table on disk: every record, archived bodies included. The
// emulators answer only this launch's key, and `.webhook-inbox/` is owner-only; the table's files must be
// too, or another user on the machine reads the inbox from the disk without asking the emulator.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '../../..');
const project = mkdtempSync(join(tmpdir(), 'webhook-inbox-private-datadir-'));
copyFileSync(join(REPO, 'cdk.json'), join(project, 'cdk.json'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** Starts `dev --port 0 --data-dir <dir>`, waits for its banner, then stops it with SIGINT. */
function runUntilReady(dataDir: string): Promise<{ ready: boolean; output: string }> {
  return new Promise((done) => {
    const child = spawn(
      process.execPath,
      [join(REPO, 'cli/bin.mjs'), 'dev', '--port', '0', '--data-dir', dataDir],
      { cwd: project, env: { ...process.env, FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    let ready = false;
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (!ready && output.includes('running locally')) {
        ready = true;
        child.kill('SIGINT');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
    child.on('exit', () => {
      clearTimeout(timer);
      done({ ready, output });
    });
  });
}

describe('dev --data-dir', () => {
  it('keeps the table folder and its files owner-only', async () => {
    const dataDir = join(project, 'inbox-data');
    const run = await runUntilReady(dataDir);
    expect(run.ready, run.output).toBe(true);
    const loose = [dataDir, ...readdirSync(dataDir).map((name) => join(dataDir, name))]
      .map((path) => [path, statSync(path).mode & 0o777] as const)
      .filter(([, mode]) => (mode & 0o077) !== 0)
      .map(([path, mode]) => `${path} ${mode.toString(8)}`);
    expect(loose).toEqual([]);
  }, 60_000);
});
