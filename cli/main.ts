// The `webhook-inbox` command. Each subcommand lives in its own module under commands/ and loads what it
// needs (config, SDK clients, schemes) only when it runs, so `--help` and usage errors answer at once. The
// work they share with the console (console/) is in operations/; shared/ holds the plumbing every command
// uses: options, output, the project and the target it acts on.
//
// Exit codes: 0 done, 1 failed at run time (no local instance, AWS refused, a selftest check failed),
// 2 usage error (unknown command, provider or option, bad value), 3 refused (a replay of a delivery in
// flight, or of bytes that are gone). Errors are one line, never a stack.
import { CommanderError } from 'commander';
import { buildProgram, runState } from './program';
import { EXIT, reportError } from './shared/output';

/** Commander's own errors, as one line: `unknown option '--x' (Did you mean --json?)`. */
function usageLine(error: CommanderError): string {
  return error.message
    .replace(/^error: /, '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');
}

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0; a group without its subcommand printed its help.
      if (error.exitCode === 0) return EXIT.ok;
      if (error.code === 'commander.help') return EXIT.usage;
      process.stderr.write(`webhook-inbox: ${usageLine(error)} (see --help)\n`);
      return EXIT.usage;
    }
    return reportError(error);
  }
}

const code = await main(process.argv);
if (!runState.keepRunning) {
  // Exit once stdout has drained; SDK sockets and timers must not keep a finished command alive.
  process.stdout.write('', () => process.exit(code));
} else if (code !== EXIT.ok) {
  process.exit(code);
}
