// The real `webhook-inbox` command with standard input and an environment of the test's choosing: the
// e2e runner itself (helpers.ts), named for the tests that always pass both.
import { type CliResult, runCli } from './helpers';

export function runCliWith(
  cwd: string,
  args: string[],
  io: { input?: string; env?: Record<string, string | undefined> } = {},
): Promise<CliResult> {
  return runCli(cwd, args, { ...io, input: io.input ?? '' });
}
