// local.json holds the emulators' launch credential: it is owner-only whether this write creates it or
// finds one an earlier run left readable.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type LocalState, readLocalState, stateFilePath, writeLocalState } from '../../../local/state-file';

const POSIX = process.platform !== 'win32';
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'webhook-inbox-state-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const state = {
  pid: process.pid,
  gatewayUrl: 'http://127.0.0.1:3999',
  credentials: { accessKeyId: 'LOCALKEY', secretAccessKey: 'secret' },
} as LocalState;
const modeOf = (path: string) => statSync(path).mode & 0o777;

describe.runIf(POSIX)('writeLocalState', () => {
  it('creates local.json 0600, with the credential', () => {
    const umask = process.umask(0);
    try {
      writeLocalState(dir, state);
    } finally {
      process.umask(umask);
    }
    expect(modeOf(stateFilePath(dir))).toBe(0o600);
    expect(readLocalState(dir)?.credentials).toEqual(state.credentials);
  });

  it('tightens a local.json an earlier run left readable to others', () => {
    mkdirSync(join(dir, '.webhook-inbox'), { mode: 0o700 });
    writeFileSync(stateFilePath(dir), '{}');
    chmodSync(stateFilePath(dir), 0o644);
    writeLocalState(dir, state);
    expect(modeOf(stateFilePath(dir))).toBe(0o600);
  });
});
