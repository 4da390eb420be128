// The real `webhook-inbox` command with standard input and an environment of the test's choosing: for the
// commands that read a credential or a secret from stdin, never from argv.
import { spawn } from 'node:child_process';
import { BIN, CLI_TIMEOUT_MS, type CliResult } from './helpers';

export function runCliWith(
  cwd: string,
  args: string[],
  io: { input?: string; env?: Record<string, string | undefined> } = {},
): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...io.env };
  delete env.INIT_CWD;
  delete env.FORCE_COLOR;
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
    child.stdin.end(io.input ?? '');
  });
}
