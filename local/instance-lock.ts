// One local instance per project folder. A second `npm start` in the same folder would overwrite
// `.webhook-inbox/local.json` and delete it on stop, so the CLI would lose the first instance while it
// still serves. `.webhook-inbox/local.lock` holds the pid of the instance that owns the folder; it is
// taken before anything starts and released on stop (or on a failed start). A lock whose pid is not alive
// was left by an instance that crashed, and is taken over.
import { randomUUID } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

/**
 * Moves a stale lock out of the way. Another instance may have taken it over between our read and the
 * rename; what we moved is then its live lock, and it goes back (the link fails only if yet another lock
 * has appeared, which then holds the folder).
 */
function removeStale(path: string, stalePid: number): void {
  const aside = `${path}.${process.pid}.${randomUUID().slice(0, 8)}.stale`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // someone else removed it
    throw error;
  }
  if (holderOf(aside) !== stalePid) {
    try {
      linkSync(aside, path);
    } catch {
      // A newer lock is in place: it holds the folder, and the next attempt reads it.
    }
  }
  rmSync(aside, { force: true });
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
  mkdirSync(join(cwd, STATE_DIR), { recursive: true });
  // Each round either takes the lock, finds a live holder, or clears a stale one; a few rounds cover
  // instances starting at the same moment over a stale lock.
  for (let round = 0; round < 5; round++) {
    if (create(path, pid)) {
      held.add(path);
      return {
        path,
        release: () => {
          if (!held.delete(path)) return;
          if (holderOf(path) === pid) rmSync(path, { force: true });
        },
      };
    }
    const holder = holderOf(path);
    if (holder === undefined) continue; // released meanwhile
    const live = holder === pid ? held.has(path) : holder > 0 && isAlive(holder);
    if (live) throw new InstanceRunningError(holder, runningUrl(cwd, holder));
    removeStale(path, holder);
  }
  throw new Error(`could not take ${path}: other instances keep starting in ${cwd}`);
}
