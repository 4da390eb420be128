// Runs the real `webhook-inbox` command as a child process, in a temporary project directory, against a
// local instance the test starts in-process (so a test can change its handlers' behaviour).
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadProjectConfig } from '../../../config/load';
import type { EventDefinition } from '../../../lambdas/events';
import { type LocalInbox, startLocalInbox } from '../../../local/local-inbox';

export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
export const BIN = join(REPO, 'cli', 'bin.mjs');

/** A CLI start costs seconds on a loaded machine (and the first one builds the CLI bundle): be generous, assert no times. */
export const CLI_TIMEOUT_MS = 240_000;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The real command as a user runs it. `io.input` is piped to its standard input (the commands that read a
 * credential or a secret there, never from argv); `io.env` adds variables, or removes those set undefined.
 */
export function runCli(
  cwd: string,
  args: string[],
  io: { input?: string; env?: Record<string, string | undefined> } = {},
): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...io.env };
  // npm sets INIT_CWD to where `npm test` ran; the CLI would look for the project there instead of cwd.
  delete env.INIT_CWD;
  delete env.FORCE_COLOR;
  // Set for the test workers (vitest.config.ts); a user's shell has no such variable, and the command must
  // keep the SDK's Node 22 notice quiet by itself (cli/bin.mjs).
  delete env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
  for (const [key, value] of Object.entries(io.env ?? {})) if (value === undefined) delete env[key];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`webhook-inbox ${args.join(' ')} did not finish\n${stdout}\n${stderr}`));
    }, CLI_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    // Without input the command reads an empty, closed standard input, as it would from /dev/null.
    child.stdin.end(io.input ?? '');
  });
}

/** Parses a command's --json output, failing with everything it printed if it is not JSON. */
export function json<T = unknown>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
}

/** A usage or runtime error: exactly one line on stderr, nothing on stdout, no stack trace. */
export function oneLineError(result: CliResult): string {
  const lines = result.stderr.split('\n').filter((line) => line.trim() !== '');
  if (lines.length !== 1 || result.stdout !== '' || /\n\s+at /.test(result.stderr)) {
    throw new Error(
      `expected one error line, got (exit ${result.code}):\n${result.stdout}\n${result.stderr}`,
    );
  }
  return lines[0] as string;
}

export interface Project {
  dir: string;
  remove(): void;
}

/** A temporary project: a directory with a copy of the repository's cdk.json. */
export function makeProject(): Project {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-inbox-cli-'));
  copyFileSync(join(REPO, 'cdk.json'), join(dir, 'cdk.json'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The local instance for a project, on a free port, as `npm start` runs it. */
export function startInstance(dir: string, handlers?: readonly EventDefinition[]): Promise<LocalInbox> {
  return startLocalInbox({
    config: loadProjectConfig(dir),
    cwd: dir,
    port: 0,
    logs: { verify: quiet, process: quiet },
    ...(handlers ? { handlers } : {}),
  });
}

export function readSecrets(dir: string): Record<string, string[]> {
  return JSON.parse(readFileSync(join(dir, '.webhook-inbox', 'secrets.json'), 'utf8'));
}

export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 60_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() - started > timeoutMs) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Sends one signed sample delivery to a running instance; returns its delivery id (the dedup key of most schemes). */
export async function sendSample(
  dir: string,
  gatewayUrl: string,
  providerId: string,
  event: string,
): Promise<string> {
  const { post, sampleDelivery, signDelivery } = await import('../../../cli/operations/signed-delivery');
  const provider = loadProjectConfig(dir).providers[providerId];
  if (!provider) throw new Error(`${providerId} is not configured`);
  const url = `${gatewayUrl}/webhooks/${providerId}`;
  const delivery = sampleDelivery(provider, { event, nowMs: Date.now(), url });
  const signed = signDelivery(provider, delivery, {
    secret: readSecrets(dir)[providerId]?.[0] as string,
    timestamp: Math.floor(Date.now() / 1000),
    url,
  });
  const answer = await post(url, signed.body, signed.headers);
  if (answer.status !== 202) throw new Error(`${providerId} ${event} answered ${answer.status}`);
  return delivery.deliveryId;
}
