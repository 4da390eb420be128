// The project folder's instance lock: one live instance per folder, stale locks taken over, and no two
// winners when instances start at the same moment.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireInstanceLock, InstanceRunningError, lockFilePath } from '../../../local/instance-lock';
import { type LocalState, writeLocalState } from '../../../local/state-file';

const CONTENDER = join(import.meta.dirname, '../../support/lock-contender.ts');
const folders: string[] = [];
const children: ChildProcess[] = [];

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-inbox-lock-'));
  folders.push(dir);
  return dir;
}

/** The pid of a process that has exited: what a crashed instance leaves in its lock. */
function deadPid(): number {
  const { pid } = spawnSync(process.execPath, ['-e', '']);
  return pid as number;
}

function writeLock(dir: string, content: string) {
  acquireInstanceLock(dir).release(); // creates .webhook-inbox/
  writeFileSync(lockFilePath(dir), content);
}

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('instance lock', () => {
  it('refuses a second instance in the same folder, naming the first by pid and, once ready, by URL', () => {
    const dir = folder();
    const lock = acquireInstanceLock(dir);
    expect(readFileSync(lockFilePath(dir), 'utf8').trim()).toBe(String(process.pid));
    const starting = (() => {
      try {
        acquireInstanceLock(dir);
      } catch (error) {
        return error;
      }
    })();
    expect(starting).toBeInstanceOf(InstanceRunningError);
    expect(starting).toMatchObject({ pid: process.pid, gatewayUrl: undefined });

    writeLocalState(dir, { pid: process.pid, gatewayUrl: 'http://127.0.0.1:3999' } as LocalState);
    expect(() => acquireInstanceLock(dir)).toThrow(
      `a local instance is already running in this folder (pid ${process.pid}, http://127.0.0.1:3999)`,
    );
    lock.release();
    expect(existsSync(lockFilePath(dir))).toBe(false);
    acquireInstanceLock(dir).release();
  });

  it.each([
    ['a pid that is not alive', () => `${deadPid()}\n`],
    ['no pid at all', () => 'not a pid'],
  ])('takes over a stale lock holding %s', (_, content) => {
    const dir = folder();
    writeLock(dir, content());
    const lock = acquireInstanceLock(dir);
    expect(readFileSync(lockFilePath(dir), 'utf8').trim()).toBe(String(process.pid));
    lock.release();
  });

  it('leaves a lock that is no longer ours on release', () => {
    const dir = folder();
    const lock = acquireInstanceLock(dir);
    writeFileSync(lockFilePath(dir), '1\n'); // taken over by someone else meanwhile
    lock.release();
    expect(readFileSync(lockFilePath(dir), 'utf8')).toBe('1\n');
  });

  it('lets exactly one of several instances starting at once over a stale lock take the folder', async () => {
    const contenders = await Promise.all(Array.from({ length: 4 }, startContender));
    const stale = `${deadPid()}\n`;
    // Many rounds, each a fresh folder with a stale lock that every contender goes for at once.
    for (let round = 0; round < 100; round++) {
      const dir = folder();
      writeLock(dir, stale);
      const answers = await Promise.all(contenders.map((contender) => contender.attempt(dir)));
      const winners = contenders.filter((_, i) => answers[i] === 'took').map((c) => c.pid);
      expect(`round ${round}: ${winners.length} winner(s)`).toBe(`round ${round}: 1 winner(s)`);
      expect(answers.filter((a) => a !== 'took')).toEqual(Array(3).fill(`refused ${winners[0]}`));
      expect(readFileSync(lockFilePath(dir), 'utf8').trim()).toBe(String(winners[0]));
    }
  }, 60_000);
});

/** A child process that takes a folder's lock when told to (test/support/lock-contender.ts). */
async function startContender() {
  const child = spawn(process.execPath, ['--import', 'tsx', CONTENDER], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error('the contender exited');
    return value as string;
  };
  expect(await next()).toBe('ready');
  return {
    pid: child.pid as number,
    attempt: (dir: string) => {
      child.stdin?.write(`${dir}\n`);
      return next();
    },
  };
}
