// Owner-only permissions for local mode's state. `.webhook-inbox/` holds the providers' secrets, so the
// folder is 0700 and secrets.json 0600, whoever created them and under whatever umask: a file left
// readable by a copy, an unzip or an older version is tightened at startup, not trusted as it is.
import { chmodSync, mkdirSync, statSync } from 'node:fs';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** A path whose permissions were loose and are now owner-only. */
export interface Tightened {
  readonly path: string;
  readonly from: number;
  readonly to: number;
}

const octal = (mode: number) => mode.toString(8).padStart(3, '0');

/** Permissions that cannot be made owner-only: local mode refuses to start rather than run with them. */
export class LoosePermissionsError extends Error {
  constructor(
    readonly path: string,
    readonly mode: number,
    readonly wanted: number,
    options?: ErrorOptions,
  ) {
    super(
      `${path} is open to other users (mode ${octal(mode)}) and could not be made owner-only: ` +
        `run chmod ${octal(wanted)} ${path}, or keep the project on a file system with permissions`,
      options,
    );
    this.name = 'LoosePermissionsError';
  }
}

// Windows has no POSIX modes: stat reports 0o666 for any writable file whatever its ACL says.
const HAS_MODES = process.platform !== 'win32';
const GROUP_OR_OTHER = 0o077;

function modeOf(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Creates a folder owner-only; an existing one keeps its mode (see `tighten`). */
export function makePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Sets `mode` on `path` if group or others have any permission on it; a missing path is left alone.
 * Returns what changed. Throws LoosePermissionsError if chmod fails or does not take (a file system that
 * ignores modes).
 */
export function tighten(path: string, mode: number): Tightened | undefined {
  if (!HAS_MODES) return undefined;
  const from = modeOf(path);
  if (from === undefined || (from & GROUP_OR_OTHER) === 0) return undefined;
  try {
    chmodSync(path, mode);
  } catch (error) {
    throw new LoosePermissionsError(path, from, mode, { cause: error });
  }
  const now = modeOf(path);
  if (now === undefined || (now & GROUP_OR_OTHER) !== 0) throw new LoosePermissionsError(path, from, mode);
  return { path, from, to: mode };
}
