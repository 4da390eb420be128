// Section: local mode ready time. What a developer waits for after `npx webhook-inbox dev`: from spawning
// the CLI to `.webhook-inbox/local.json` (the instance says it is ready) and to the first 202 for a signed
// delivery; then SIGTERM and a clean exit.
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadProjectConfig } from '../config/load';
import { SCHEMES } from '../lambdas/core/schemes';
import { readSecretsFile, STATE_DIR } from '../local/secrets-file';
import type { LocalState } from '../local/state-file';
import { signedDelivery } from './lib/bodies';
import { median } from './lib/measure';
import { type Column, defineSection, SectionAbort, type SectionContext } from './lib/section';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'cli', 'bin.mjs');
/** Where cli/bin.mjs keeps its bundle. */
const CLI_CACHE = join(ROOT, 'node_modules', '.cache', 'webhook-inbox');
const PROVIDER = 'standard-webhooks';
const RUNS = 5;
const QUICK_RUNS = 2;
const READY_TIMEOUT_MS = 90_000;
const EXIT_TIMEOUT_MS = 30_000;
const POLL_MS = 5;

interface ReadyRow extends Record<string, unknown> {
  run: string;
  stateFileMs: number | null;
  first202Ms: number | null;
  /** SIGTERM to exit. */
  stopMs: number | null;
  exitCode: number | null;
  stateFileRemoved: boolean | null;
}

interface RunResult {
  stateFileMs: number;
  first202Ms: number;
  stopMs: number;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stateFileRemoved: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function ms(value: number | null): string {
  return value === null ? 'n/a' : `${value.toFixed(0)} ms`;
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
}

async function oneRun(): Promise<RunResult> {
  const cwd = mkdtempSync(join(tmpdir(), 'webhook-inbox-ready-'));
  let child: ChildProcess | undefined;
  let output = '';
  try {
    copyFileSync(join(ROOT, 'cdk.json'), join(cwd, 'cdk.json'));
    const config = loadProjectConfig(cwd);
    const scheme = SCHEMES[config.providers[PROVIDER]?.scheme ?? PROVIDER];
    if (!scheme) throw new SectionAbort(`no ${PROVIDER} provider in cdk.json's config`);
    const stateFile = join(cwd, STATE_DIR, 'local.json');

    const started = performance.now();
    child = spawn(process.execPath, [CLI, 'dev', '--port', '0'], {
      cwd,
      env: { ...process.env, INIT_CWD: cwd, PORT: undefined, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const deadline = started + READY_TIMEOUT_MS;

    while (!existsSync(stateFile)) {
      if (child.exitCode !== null) throw new SectionAbort(`dev exited early (${child.exitCode}): ${output}`);
      if (performance.now() > deadline)
        throw new SectionAbort(`no ${stateFile} after ${READY_TIMEOUT_MS} ms`);
      await sleep(POLL_MS);
    }
    const stateFileMs = performance.now() - started;

    // The file is written in one call; a reader can still catch it half-written, so retry the parse.
    let state: LocalState | undefined;
    while (!state) {
      try {
        state = JSON.parse(readFileSync(stateFile, 'utf8')) as LocalState;
      } catch {
        if (performance.now() > deadline) throw new SectionAbort(`${stateFile} never became valid JSON`);
        await sleep(POLL_MS);
      }
    }
    const secret = readSecretsFile(state.secretsFile)[PROVIDER]?.[0];
    if (!secret) throw new SectionAbort(`no ${PROVIDER} secret in ${state.secretsFile}`);
    const id = `ready_${Date.now()}`;
    const { body, headers } = signedDelivery(scheme, { secret, id, size: 1024, eventType: 'invoice.paid' });
    let first202Ms: number | undefined;
    let lastStatus = 'none';
    while (first202Ms === undefined) {
      try {
        const response = await fetch(`${state.gatewayUrl}/webhooks/${PROVIDER}`, {
          method: 'POST',
          headers,
          body,
        });
        await response.arrayBuffer();
        lastStatus = String(response.status);
        if (response.status === 202) first202Ms = performance.now() - started;
      } catch (error) {
        lastStatus = (error as Error).message;
      }
      if (first202Ms === undefined) {
        if (performance.now() > deadline)
          throw new SectionAbort(`no 202 within ${READY_TIMEOUT_MS} ms (last: ${lastStatus})`);
        await sleep(POLL_MS);
      }
    }

    const stopping = performance.now();
    child.kill('SIGTERM');
    const exit = await Promise.race([exited(child), sleep(EXIT_TIMEOUT_MS).then(() => undefined)]);
    if (!exit) throw new SectionAbort(`dev did not exit within ${EXIT_TIMEOUT_MS} ms of SIGTERM: ${output}`);
    return {
      stateFileMs,
      first202Ms,
      stopMs: performance.now() - stopping,
      exitCode: exit.code,
      signal: exit.signal,
      stateFileRemoved: !existsSync(stateFile),
    };
  } finally {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited(child);
    }
    rmSync(cwd, { recursive: true, force: true });
  }
}

const columns: Column<ReadyRow>[] = [
  { header: 'Run', cell: (r) => r.run },
  { header: 'Spawn -> local.json', cell: (r) => ms(r.stateFileMs), align: 'right' },
  { header: 'Spawn -> first 202', cell: (r) => ms(r.first202Ms), align: 'right' },
  { header: 'SIGTERM -> exit', cell: (r) => ms(r.stopMs), align: 'right' },
  { header: 'Exit code', cell: (r) => (r.exitCode === null ? 'n/a' : String(r.exitCode)), align: 'right' },
  {
    header: 'local.json removed',
    cell: (r) => (r.stateFileRemoved === null ? '' : r.stateFileRemoved ? 'yes' : 'NO'),
  },
];

async function run(context: SectionContext) {
  const runs = context.quick ? QUICK_RUNS : RUNS;
  const results: RunResult[] = [];
  // `npm ci` prebuilds the CLI bundle (the `prepare` script); a start after editing a source file builds
  // it again (cli/bin.mjs). Measure that once, apart from the median of ordinary starts.
  rmSync(CLI_CACHE, { recursive: true, force: true });
  const firstStart = await oneRun();
  context.log(
    `local-ready: start after a source edit (rebuilds the CLI bundle): local.json ${ms(firstStart.stateFileMs)}, first 202 ${ms(firstStart.first202Ms)}`,
  );
  for (let i = 0; i < runs; i++) {
    const result = await oneRun();
    results.push(result);
    context.log(
      `local-ready: run ${i + 1}/${runs}: local.json ${ms(result.stateFileMs)}, first 202 ${ms(result.first202Ms)}, exit ${result.exitCode ?? result.signal}`,
    );
  }
  const rows: ReadyRow[] = results.map((r, i) => ({
    run: String(i + 1),
    stateFileMs: r.stateFileMs,
    first202Ms: r.first202Ms,
    stopMs: r.stopMs,
    exitCode: r.exitCode,
    stateFileRemoved: r.stateFileRemoved,
  }));
  rows.push({
    run: 'after a source edit (rebuilds the bundle)',
    stateFileMs: firstStart.stateFileMs,
    first202Ms: firstStart.first202Ms,
    stopMs: firstStart.stopMs,
    exitCode: firstStart.exitCode,
    stateFileRemoved: firstStart.stateFileRemoved,
  });
  rows.push({
    run: 'median (bundle cached)',
    stateFileMs: median(results.map((r) => r.stateFileMs)),
    first202Ms: median(results.map((r) => r.first202Ms)),
    stopMs: median(results.map((r) => r.stopMs)),
    exitCode: null,
    stateFileRemoved: null,
  });
  const cleanExits = results.filter((r) => r.exitCode === 0).length;
  const removed = results.filter((r) => r.stateFileRemoved).length;
  const notes = [
    `Exit after SIGTERM: ${cleanExits}/${runs} exited 0 (${cleanExits === runs ? 'ok' : 'FAILED'}); ` +
      `local.json removed on exit: ${removed}/${runs} (${removed === runs ? 'ok' : 'FAILED'}).`,
    `Method: \`node cli/bin.mjs dev --port 0\` spawned with cwd and INIT_CWD = a fresh temp dir holding a ` +
      'copy of cdk.json (so every run is a first start: secrets.json is generated, dynalite and fauxqs ' +
      `start in memory). Times from spawn; local.json polled every ${POLL_MS} ms; then one signed ` +
      `${PROVIDER} delivery (1 KiB JSON), retried every ${POLL_MS} ms until 202. ${runs} runs in sequence; median.`,
    'Includes Node start, loading the CLI bundle (the project sources, the AWS SDK and the handlers, ' +
      'cached by cli/bin.mjs) while a worker thread loads and starts dynalite and fauxqs, provisioning, ' +
      'and the gateway. `npm ci` builds the bundle (the prepare script), so a first `npm start` is an ' +
      'ordinary start; the "after a source edit" row includes esbuild rebuilding it.',
  ];
  return { columns, rows, notes };
}

export default defineSection<ReadyRow>({ name: 'local-ready', title: 'Local mode ready time', run });
