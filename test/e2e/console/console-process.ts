// `webhook-inbox console` as a user starts it, in a project folder, for the browser tests.
import { type ChildProcess, spawn } from 'node:child_process';
import { BIN, CLI_TIMEOUT_MS } from '../cli/helpers';

export interface ConsoleProcess {
  child: ChildProcess;
  /** The URL it prints, as the operator pastes it. */
  url: string;
  stop(): void;
}

export function startConsoleProcess(dir: string): Promise<ConsoleProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.INIT_CWD;
  const child = spawn(process.execPath, [BIN, 'console', '--port', '0'], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = () => {
    if (child.pid !== undefined && child.exitCode === null) child.kill('SIGTERM');
  };
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`console did not start:\n${output}`)), CLI_TIMEOUT_MS);
    const read = (chunk: string) => {
      output += chunk;
      const url = /http:\/\/127\.0\.0\.1:\d+\/\S*\?token=[\w-]+/.exec(output)?.[0];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url, stop });
      }
    };
    child.stdout.setEncoding('utf8').on('data', read);
    child.stderr.setEncoding('utf8').on('data', read);
    child.on('exit', (code) => reject(new Error(`console exited ${code}:\n${output}`)));
  });
}
