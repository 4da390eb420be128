// `dev --data-dir DIR` with a DIR that cannot hold the inbox: a regular file, or a folder that cannot be
// created (/proc/...). It used to fail with a bare ECONNREFUSED, or spin silently forever; now it exits at
// once with a message naming the flag and the path.
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '../../..');
const project = mkdtempSync(join(tmpdir(), 'webhook-inbox-break-datadir-'));
copyFileSync(join(REPO, 'cdk.json'), join(project, 'cdk.json'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** `npm start -- --port 0 --data-dir <dir>` from its own project dir; its exit code and output, or a kill. */
function dev(dataDir: string, cwd: string, limitMs = 15_000) {
  return new Promise<{ code: number | null; killed: boolean; output: string }>((done) => {
    const child = spawn(
      process.execPath,
      [join(REPO, 'cli/bin.mjs'), 'dev', '--port', '0', '--data-dir', dataDir],
      {
        cwd,
        env: { ...process.env, FORCE_COLOR: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    let killed = false;
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, limitMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ code, killed, output });
    });
  });
}

describe('dev --data-dir that cannot hold the table', () => {
  it('a path that is a regular file: exits with a message naming the data dir', async () => {
    const cwd = mkdtempSync(join(project, 'file-'));
    copyFileSync(join(REPO, 'cdk.json'), join(cwd, 'cdk.json'));
    const file = join(cwd, 'not-a-dir');
    writeFileSync(file, 'x');
    const run = await dev(file, cwd);
    expect(run.killed).toBe(false);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain(file);
    expect(run.output).not.toMatch(/ECONNREFUSED/);
  }, 30_000);

  it('a directory that cannot be created: exits within 15 s with a message, not a silent spin', async () => {
    const cwd = mkdtempSync(join(project, 'proc-'));
    copyFileSync(join(REPO, 'cdk.json'), join(cwd, 'cdk.json'));
    const run = await dev('/proc/webhook-inbox-data', cwd);
    expect({ killed: run.killed, output: run.output }).toMatchObject({ killed: false });
    expect(run.code).not.toBe(0);
    expect(run.output).toContain('/proc/webhook-inbox-data');
  }, 30_000);

  it('a folder that holds other files (the project itself): refused, and none of its files touched', async () => {
    const cwd = mkdtempSync(join(project, 'project-'));
    copyFileSync(join(REPO, 'cdk.json'), join(cwd, 'cdk.json'));
    chmodSync(join(cwd, 'cdk.json'), 0o644);
    const run = await dev('.', cwd);
    expect(run.killed).toBe(false);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain('holds other files');
    expect(statSync(join(cwd, 'cdk.json')).mode & 0o777).toBe(0o644);
  }, 30_000);
});
