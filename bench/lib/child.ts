// Runs a TypeScript entry (through tsx) in a child process that prints one JSON line on stdout. The cost
// model keeps the emulators and the CDK synth out of the process it measures CPU time in: their work would
// otherwise land in, or between, the measured handler calls.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { SectionAbort } from './section';

export interface TsChild<T> {
  /** The first line the child printed, parsed. */
  readonly value: T;
  /** Writes one line to the child's stdin. */
  send(line: string): void;
  /** Ends the child: closes its stdin (the child exits on that), then SIGTERM by its pid if it lingers. */
  stop(): Promise<void>;
}

const STOP_GRACE_MS = 5_000;

function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Starts `node --import tsx <file>` and resolves with the first line it prints, parsed as JSON. Every line
 * after it goes to `onLine`, if given.
 */
export async function startTsChild<T>(
  file: string,
  timeoutMs: number,
  onLine?: (line: string) => void,
): Promise<TsChild<T>> {
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: process.env,
  });
  const lines = createInterface({ input: child.stdout });
  const first = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new SectionAbort(`${file}: no output in ${timeoutMs} ms`)),
      timeoutMs,
    );
    lines.once('line', (line) => {
      clearTimeout(timer);
      // In the same turn: lines that arrived with the first are not lost.
      if (onLine) lines.on('line', onLine);
      resolve(line);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new SectionAbort(`${file} exited (${signal ?? code}) before printing its result`));
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new SectionAbort(`${file}: ${error.message}`));
    });
  });
  let line: string;
  try {
    line = await first;
  } catch (error) {
    if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
    throw error;
  }
  const stop = async () => {
    lines.close();
    child.stdin?.end();
    if (!(await waitExit(child, STOP_GRACE_MS)) && child.pid !== undefined) {
      process.kill(child.pid, 'SIGTERM');
      await waitExit(child, STOP_GRACE_MS);
    }
  };
  try {
    const send = (text: string) => void child.stdin?.write(`${text}\n`);
    return { value: JSON.parse(line) as T, send, stop };
  } catch {
    await stop();
    throw new SectionAbort(`${file} printed something that is not JSON: ${line.slice(0, 200)}`);
  }
}

/** Runs a child to completion for its one line of output. */
export async function runTsChild<T>(file: string, timeoutMs: number): Promise<T> {
  const child = await startTsChild<T>(file, timeoutMs);
  await child.stop();
  return child.value;
}

/** For a child entry: exits when the parent closes our stdin (or goes away). */
export function exitWhenParentCloses(onClose: () => Promise<void>): void {
  let closing = false;
  const close = () => {
    if (closing) return;
    closing = true;
    onClose()
      .catch(() => undefined)
      .finally(() => process.exit(0));
  };
  process.stdin.on('end', close);
  process.stdin.on('error', close);
  process.on('SIGTERM', close);
  process.stdin.resume();
}
