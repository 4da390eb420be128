// LocalFileSecretSource on a real file in a temporary directory.
import { mkdtemp, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalFileSecretSource } from '../../../../lambdas/adapters/local-secrets';
import { DependencyError } from '../../../../lambdas/core/errors';

let dir: string;
let path: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'webhook-inbox-secrets-'));
  path = join(dir, 'secrets.json');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Write-then-rename, as `secrets rotate` should: a reader never sees half a file. */
async function writeAtomically(content: unknown): Promise<void> {
  const temporary = `${path}.tmp`;
  await writeFile(temporary, JSON.stringify(content));
  await rename(temporary, path);
}

describe('LocalFileSecretSource', () => {
  it('returns the provider secrets in file order (newest first)', async () => {
    await writeAtomically({ github: ['newest', 'older'], stripe: ['whsec_x'] });
    const source = new LocalFileSecretSource(path);
    expect(await source.get('github')).toEqual(['newest', 'older']);
    expect(await source.get('stripe')).toEqual(['whsec_x']);
  });

  it('returns [] for a provider not in the file, and for a missing file', async () => {
    await writeAtomically({ github: ['s'] });
    expect(await new LocalFileSecretSource(path).get('slack')).toEqual([]);
    expect(await new LocalFileSecretSource(path).get('constructor')).toEqual([]);
    expect(await new LocalFileSecretSource(join(dir, 'absent.json')).get('github')).toEqual([]);
  });

  it('sees a rotation on the next request, without a restart', async () => {
    await writeAtomically({ github: ['first'] });
    const source = new LocalFileSecretSource(path);
    expect(await source.get('github')).toEqual(['first']);
    await writeAtomically({ github: ['second', 'first'] });
    expect(await source.get('github')).toEqual(['second', 'first']);
  });

  it('sees an in-place rewrite that changes the size', async () => {
    await writeFile(path, JSON.stringify({ github: ['aaaa'] }));
    const source = new LocalFileSecretSource(path);
    expect(await source.get('github')).toEqual(['aaaa']);
    await writeFile(path, JSON.stringify({ github: ['bbbbbb', 'aaaa'] }));
    expect(await source.get('github')).toEqual(['bbbbbb', 'aaaa']);
  });

  it('re-reads on refresh even when the file looks unchanged', async () => {
    // Same inode, same size, same timestamp tick (pinned here): nothing tells the two versions apart.
    const tick = new Date('2026-01-01T00:00:00Z');
    await writeFile(path, JSON.stringify({ github: ['aaaa'] }));
    await utimes(path, tick, tick);
    const source = new LocalFileSecretSource(path);
    await source.get('github');
    await writeFile(path, JSON.stringify({ github: ['bbbb'] }));
    await utimes(path, tick, tick);
    expect(await source.get('github')).toEqual(['aaaa']);
    expect(await source.get('github', { refresh: true })).toEqual(['bbbb']);
  });

  it('fails with DependencyError on a malformed file, quoting none of it', async () => {
    await writeFile(path, '{"github": ["s3cr3t-value", ');
    const error = await new LocalFileSecretSource(path).get('github').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DependencyError);
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain('s3cr3t');
    expect(String((error as Error).cause)).not.toContain('s3cr3t');
  });

  it('fails with DependencyError when a provider maps to something other than a list of strings', async () => {
    await writeAtomically({ github: 's3cr3t-not-a-list' });
    await expect(new LocalFileSecretSource(path).get('github')).rejects.toBeInstanceOf(DependencyError);
  });
});
