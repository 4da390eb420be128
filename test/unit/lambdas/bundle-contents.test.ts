// What the two Lambda bundles pull in, from esbuild's metafile with the construct's bundling options
// (bundle, ESM, node22, `module` before `main`). A wrong import here costs cold start on every container:
// `npm run bench -- --only cold-start` measures how much; these checks only say that it crept in.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The files that put at least one byte into the bundle of `entry`, relative to the project root. */
async function bundledFiles(entry: string): Promise<string[]> {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    mainFields: ['module', 'main'],
    outfile: 'index.mjs',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const [output] = Object.values(result.metafile.outputs);
  return Object.entries(output?.inputs ?? {})
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path);
}

let verify: string[];
let processor: string[];

beforeAll(async () => {
  [verify, processor] = await Promise.all([
    bundledFiles('lambdas/verify/entry.ts'),
    bundledFiles('lambdas/process/entry.ts'),
  ]);
});

describe('the processor bundle', () => {
  it("holds zod's English messages only: the event schemas import zod as a namespace (`import * as z`)", () => {
    // `import { z } from 'zod'` binds zod's namespace object as a value, which esbuild cannot shake:
    // every locale and all of classic zod (about 440 KiB minified) come with it.
    const locales = processor.filter((path) => path.includes('node_modules/zod/v4/locales/'));
    expect(locales).toEqual(['node_modules/zod/v4/locales/en.js']);
  });

  it('does not build the configuration schema: the config arrives parsed, in an environment variable', () => {
    expect(processor).not.toContain('config/schema.ts');
  });
});

describe('the verify bundle', () => {
  it('holds no zod, no configuration schema and no S3 client', () => {
    expect(verify.filter((path) => path.includes('node_modules/zod/'))).toEqual([]);
    expect(verify).not.toContain('config/schema.ts');
    expect(verify.filter((path) => path.includes('node_modules/@aws-sdk/client-s3/'))).toEqual([]);
  });
});
