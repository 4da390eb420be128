// Owner-only state: what is loose gets tightened, what cannot be tightened stops local mode with a message
// naming the path and the fix. chmod is replaced only to make it fail, which it never does for root.
import * as fs from 'node:fs';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LoosePermissionsError, makePrivateDir, tighten } from '../../../local/private-files';

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return { ...actual, chmodSync: vi.fn(actual.chmodSync) };
});
const chmod = vi.mocked(fs.chmodSync);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'webhook-inbox-modes-'));
});
afterEach(() => {
  chmod.mockRestore();
  rmSync(dir, { recursive: true, force: true });
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

function file(mode: number): string {
  const path = join(dir, 'secrets.json');
  writeFileSync(path, '{}', { mode });
  fs.chmodSync(path, mode);
  chmod.mockClear();
  return path;
}

describe('tighten', () => {
  it.each([0o644, 0o640, 0o604, 0o666, 0o660])(
    'sets 0600 on a file with mode %o and says what it was',
    (mode) => {
      const path = file(mode);
      expect(tighten(path, 0o600)).toEqual({ path, from: mode, to: 0o600 });
      expect(modeOf(path)).toBe(0o600);
    },
  );

  it.each([0o600, 0o400])('leaves a file with mode %o alone', (mode) => {
    const path = file(mode);
    expect(tighten(path, 0o600)).toBeUndefined();
    expect(chmod).not.toHaveBeenCalled();
    expect(modeOf(path)).toBe(mode);
  });

  it('leaves a missing path alone', () => {
    expect(tighten(join(dir, 'absent.json'), 0o600)).toBeUndefined();
  });

  it('refuses, naming the path and the fix, when chmod fails', () => {
    const path = file(0o644);
    chmod.mockImplementation(() => {
      throw Object.assign(new Error('EPERM: operation not permitted'), { code: 'EPERM' });
    });
    const refused = (() => {
      try {
        tighten(path, 0o600);
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(LoosePermissionsError);
    expect((refused as Error).message).toBe(
      `${path} is open to other users (mode 644) and could not be made owner-only: run chmod 600 ${path}, or keep the project on a file system with permissions`,
    );
    expect(modeOf(path)).toBe(0o644);
  });

  it('refuses when chmod succeeds but the mode does not change (a file system without modes)', () => {
    const path = file(0o644);
    chmod.mockImplementation(() => undefined);
    expect(() => tighten(path, 0o600)).toThrow(LoosePermissionsError);
  });
});

describe('makePrivateDir', () => {
  it('creates missing folders 0700', () => {
    const path = join(dir, 'a', '.webhook-inbox');
    makePrivateDir(path);
    expect(modeOf(path)).toBe(0o700);
  });
});
