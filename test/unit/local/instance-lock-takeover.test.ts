// Taking over a stale instance lock while another instance does the same: the other one may take it over
// between our reading the stale pid and our turn at the takeover. This fixes that interleaving (which the
// race between real processes hits only now and then) by letting the other instance finish its takeover at
// exactly that moment, just before ours creates the takeover lock.
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { acquireInstanceLock, InstanceRunningError, lockFilePath } from '../../../local/instance-lock';

const interleave = vi.hoisted(() => ({ path: '', otherInstance: undefined as (() => void) | undefined }));

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const before = (path: fs.PathLike) => {
    if (String(path) !== interleave.path || !interleave.otherInstance) return;
    const act = interleave.otherInstance;
    interleave.otherInstance = undefined;
    act();
  };
  return {
    ...real,
    // The takeover lock is created by linking a draft into place: the moment before is the one to hit.
    linkSync: (from: fs.PathLike, to: fs.PathLike) => {
      if (String(to) === `${interleave.path}.takeover`) before(interleave.path);
      real.linkSync(from, to);
    },
  };
});

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('instance lock takeover', () => {
  it('backs off, naming the other instance, when that one took the stale lock over first', () => {
    const dir = fs.mkdtempSync(join(tmpdir(), 'webhook-inbox-lock-'));
    dirs.push(dir);
    const path = lockFilePath(dir);
    fs.mkdirSync(join(dir, '.webhook-inbox'));
    fs.writeFileSync(path, '999999999\n'); // no such process: stale
    // The other instance (here: the test runner's parent, which is alive) replaces the stale lock with its
    // own, as its takeover does: one rename over it.
    const other = process.ppid;
    interleave.path = path;
    interleave.otherInstance = () => {
      fs.writeFileSync(`${path}.other`, `${other}\n`);
      fs.renameSync(`${path}.other`, path);
    };

    let refused: unknown;
    try {
      acquireInstanceLock(dir).release();
    } catch (error) {
      refused = error;
    }
    expect(interleave.otherInstance).toBeUndefined(); // the interleaving happened
    expect(refused).toBeInstanceOf(InstanceRunningError);
    expect(refused).toMatchObject({ pid: other });
    expect(fs.readFileSync(path, 'utf8')).toBe(`${other}\n`);
  });
});
