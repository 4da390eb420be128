// One local instance per project folder. A second `npm start` in the same folder would overwrite
// `.webhook-inbox/local.json` and delete it on stop, so the CLI would lose the first instance while it
// still serves. `.webhook-inbox/local.lock` holds the pid of the instance that owns the folder; it is
// taken before anything starts and released on stop (or on a failed start). A lock whose pid is not alive
// was left by an instance that crashed, and is taken over.
import { randomUUID } from 'node:crypto';
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePrivateDir } from './private-files';
import { isAlive } from './process-alive';
import { STATE_DIR } from './secrets-file';
import { readLocalState } from './state-file';

export interface InstanceLock {
  readonly path: string;
  /** Removes the lock if it is still ours. Safe to call more than once. */
  release(): void;
}

/** Another live instance owns the project folder. */
export class InstanceRunningError extends Error {
  constructor(
    readonly pid: number,
    /** Its gateway URL, once it is ready (local.json is written then). */
    readonly gatewayUrl: string | undefined,
  ) {
    super(`a local instance is already running in this folder (pid ${pid}, ${gatewayUrl ?? 'starting'})`);
    this.name = 'InstanceRunningError';
  }
}

export function lockFilePath(cwd: string): string {
  return join(cwd, STATE_DIR, 'local.lock');
}

/** The pid in a lock file; 0 for content that is not a pid (nobody alive holds it); undefined if absent. */
function holderOf(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const pid = Number(text.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : 0;
}

/**
 * Creates the lock with our pid in it, or returns false if one exists. The pid is written to a private
 * file (flag 'wx') and hard-linked into place, which fails if the lock exists: the lock appears with its
 * content, so no one can read an empty lock and take it for a stale one.
 */
function create(path: string, pid: number): boolean {
  const draft = `${path}.${pid}.${randomUUID().slice(0, 8)}`;
  writeFileSync(draft, `${pid}\n`, { flag: 'wx' });
  try {
    linkSync(draft, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(draft, { force: true });
  }
}

/** Waits a moment without giving the event loop away: the lock is taken before anything else runs. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Replaces a stale lock with ours. Instances that found the same stale lock take turns through a second,
 * short-lived lock (`local.lock.takeover`); the one that gets it checks the lock is still the stale one
 * and renames its own over it in one step, so the lock file is never absent and no one else can create
 * one meanwhile. Returns false if another instance holds the takeover or took the lock over first.
 */
function takeOver(path: string, stalePid: number, pid: number): boolean {
  const mutex = `${path}.takeover`;
  if (!create(mutex, pid)) {
    const holder = holderOf(mutex);
    // A takeover whose instance died midway (a crash within a few system calls): clear it for the next round.
    if (holder !== undefined && holder !== pid && !(holder > 0 && isAlive(holder)))
      rmSync(mutex, { force: true });
    return false;
  }
  try {
    if (holderOf(path) !== stalePid) return false;
    const draft = `${path}.${pid}.${randomUUID().slice(0, 8)}`;
    writeFileSync(draft, `${pid}\n`, { flag: 'wx' });
    renameSync(draft, path);
    return true;
  } finally {
    rmSync(mutex, { force: true });
  }
}

/**
 * The locks this process holds. A lock with our own pid that is not among them was left by an earlier
 * process that had the same pid (a container restarted over the same folder): it is stale.
 */
const held = new Set<string>();

function runningUrl(cwd: string, pid: number): string | undefined {
  try {
    const state = readLocalState(cwd);
    return state?.pid === pid ? state.gatewayUrl : undefined;
  } catch {
    return undefined; // local.json half-written or unreadable: the pid alone names the instance
  }
}

/** Takes the project folder's lock, or throws InstanceRunningError naming the live instance that has it. */
export function acquireInstanceLock(cwd: string): InstanceLock {
  const { pid } = process;
  const path = lockFilePath(cwd);
  makePrivateDir(join(cwd, STATE_DIR));
  const taken = (): InstanceLock => {
    held.add(path);
    return {
      path,
      release: () => {
        if (!held.delete(path)) return;
        if (holderOf(path) === pid) rmSync(path, { force: true });
      },
    };
  };
  // Each round takes the lock, finds a live holder, or takes a stale one over; the rounds cover instances
  // starting at the same moment over a stale lock, which take turns at the takeover.
  for (let round = 0; round < 100; round++) {
    if (create(path, pid)) return taken();
    const holder = holderOf(path);
    if (holder === undefined) continue; // released meanwhile
    const live = holder === pid ? held.has(path) : holder > 0 && isAlive(holder);
    if (live) throw new InstanceRunningError(holder, runningUrl(cwd, holder));
    if (takeOver(path, holder, pid)) return taken();
    pause(10);
  }
  throw new Error(`could not take ${path}: other instances keep starting in ${cwd}`);
}
