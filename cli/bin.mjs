#!/usr/bin/env node
// The `webhook-inbox` command. The CLI, local mode and your event handlers are TypeScript. Rather than a
// TypeScript loader (tsx hooks every import, including the thousands of AWS SDK files, and doubled the
// time to ready), esbuild bundles the project's own sources into plain ES modules and Node loads them, and
// node_modules, natively. The bundle is cached by the size and mtime of every source file that went into
// it, so an edit to a handler is picked up on the next start and an unchanged tree costs a few stat calls.
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The AWS SDK versions are pinned on purpose (see package.json); its Node 22 notice is noise in a CLI.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// Stack traces from your handlers point at the .ts lines, not the bundle.
process.setSourceMapsEnabled(true);

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = join(ROOT, 'cli', 'main.ts');
// A worker thread's entry must be a file of its own, next to the chunk that starts it (local/emulators.ts).
const EMULATOR_WORKER = join(ROOT, 'local', 'emulator-worker.mjs');
// Inside node_modules so the bundle resolves packages (dynalite, the SDK) from the project, as the
// sources do, and so `npm ci` starts from a clean cache.
const CACHE = join(ROOT, 'node_modules', '.cache', 'webhook-inbox');
const MANIFEST = join(CACHE, 'cli-manifest.json');

function fingerprint(path) {
  try {
    const stat = statSync(path);
    return `${stat.size}:${stat.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

/** The cached bundle's entry, if every input is unchanged since it was built. */
function cachedEntry() {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
  } catch {
    return undefined;
  }
  for (const [path, print] of Object.entries(manifest.inputs ?? {})) {
    if (fingerprint(join(ROOT, path)) !== print) return undefined;
  }
  const entry = join(CACHE, manifest.entry ?? '');
  return fingerprint(entry) === 'missing' ? undefined : entry;
}

/** Writes to a private directory first and renames: parallel starts (tests) never see half a bundle. */
function writeAtomically(target, write) {
  const temp = `${target}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  write(temp);
  try {
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    // Another process renamed the same content-addressed directory first: theirs is identical.
    if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
  }
}

/** Bundles from earlier edits; an hour's grace for a process still loading one of them. */
function pruneOldBundles(keep) {
  const cutoff = Date.now() - 3_600_000;
  for (const name of readdirSync(CACHE)) {
    const path = join(CACHE, name);
    if (!name.startsWith('cli-') || path === keep || name.endsWith('.json')) continue;
    try {
      if (statSync(path).mtimeMs < cutoff) rmSync(path, { recursive: true, force: true });
    } catch {
      // Pruned by a parallel start.
    }
  }
}

async function buildEntry() {
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [ENTRY, EMULATOR_WORKER],
    bundle: true,
    splitting: true, // keeps each command's heavy imports (CloudFormation, S3) lazy, as in the sources
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Packages are bundled too (the AWS SDK, Powertools, zod, commander, and fauxqs with fastify on the
    // emulator thread): from one file their ES builds load in a fraction of the time Node takes to resolve,
    // read and lex their hundreds of CommonJS files. dynalite stays external (it loads a LevelDB binding
    // for --data-dir), and so does esbuild itself.
    external: ['dynalite', 'esbuild'],
    // Bundled CommonJS code calls require() for Node's built-ins.
    banner: {
      js: "import { createRequire as __wiCreateRequire } from 'node:module'; const require = __wiCreateRequire(import.meta.url);",
    },
    mainFields: ['module', 'main'],
    sourcemap: 'linked',
    outdir: join(CACHE, 'out'),
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    // .mjs: nothing under node_modules/ inherits the project's "type": "module".
    outExtension: { '.js': '.mjs' },
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const digest = createHash('sha256');
  for (const file of result.outputFiles) digest.update(`${file.path}\0${file.hash}\0`);
  const dir = join(CACHE, `cli-${digest.digest('hex').slice(0, 16)}`);
  mkdirSync(CACHE, { recursive: true });
  pruneOldBundles(dir);
  writeAtomically(dir, (temp) => {
    for (const file of result.outputFiles) {
      const path = join(temp, relative(join(CACHE, 'out'), file.path));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.contents);
    }
  });
  // The project's sources, this file (its build options) and the lock file (the bundled packages).
  const sources = Object.keys(result.metafile.inputs).filter((path) => !path.startsWith('node_modules/'));
  const inputs = Object.fromEntries(
    [...sources, 'cli/bin.mjs', 'package-lock.json'].map((path) => [path, fingerprint(join(ROOT, path))]),
  );
  const entry = join(dir, 'main.mjs');
  writeAtomically(MANIFEST, (temp) =>
    writeFileSync(temp, JSON.stringify({ entry: relative(CACHE, entry), inputs })),
  );
  return entry;
}

// `npm ci` runs this (the `prepare` script), so the first `npm start` finds the bundle built.
const prebuildOnly = process.argv[2] === '--prebuild';
let entry = cachedEntry();
if (!entry || prebuildOnly) {
  try {
    entry = await buildEntry();
  } catch (error) {
    // A syntax or type-stripping error in the sources (often a handler being edited): esbuild's own
    // messages say where, without a stack trace of ours.
    const messages = error.errors ?? [{ text: error.message }];
    for (const { text, location } of messages) {
      const where = location ? `${location.file}:${location.line}:${location.column}: ` : '';
      process.stderr.write(`webhook-inbox: cannot build the CLI: ${where}${text}\n`);
    }
    process.exit(1);
  }
}
if (!prebuildOnly) await import(pathToFileURL(entry).href);
