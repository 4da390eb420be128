// The `webhook-inbox` command. Each subcommand lives in its own module under commands/ and loads what it
// needs (config, SDK clients, schemes) only when it runs, so `--help` and usage errors answer at once. The
// work they share with the console (console/) is in operations/; shared/ holds the plumbing every command
// uses: options, output, the project and the target it acts on.
//
// Exit codes: 0 done, 1 failed at run time (no local instance, AWS refused, a selftest check failed),
// 2 usage error (unknown command, provider or option, bad value), 3 refused (a replay of a delivery in
// flight, or of bytes that are gone). Errors are one line, never a stack.
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { version } from '../package.json';
import { registerDeliveries } from './commands/deliveries/command';
import { registerDestinations } from './commands/destinations';
import { registerDlq } from './commands/dlq/command';
import { registerDoctor } from './commands/doctor/command';
import { registerEndpoints } from './commands/endpoints/command';
import { registerSecrets } from './commands/secrets/command';
import { registerSelftest } from './commands/selftest';
import { registerSend } from './commands/send';
import { addTargetOptions, type TargetOptions } from './shared/options';
import { EXIT, reportError, UsageError } from './shared/output';

/** Set by `dev`, which keeps running after its action returns. */
let keepRunning = false;

function port(value: string): string {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65_535) throw new InvalidArgumentError('not a TCP port');
  return value;
}

export function buildProgram(): Command {
  const program = new Command('webhook-inbox')
    .description(
      'Receive webhooks safely: verify, claim once, queue, process, dead-letter.\n' +
        'Commands act on the local instance (`npm start`) unless given --stack NAME.',
    )
    .version(version, '-v, --version')
    .exitOverride()
    // An option after a subcommand belongs to it: `endpoints register x --stack s` is register's --stack,
    // not the `endpoints` listing's, which has one too.
    .enablePositionalOptions()
    .configureOutput({ outputError: () => undefined })
    .showSuggestionAfterError(true);

  program
    .command('dev')
    .description('run the whole inbox locally (what `npm start` runs) until Ctrl-C')
    .option('--port <n>', 'HTTP port (default: PORT, else 3000; 0 picks a free one)', port)
    .option('--data-dir <dir>', 'keep the inbox table here across restarts (default: in memory)')
    .option(
      '--forward-to <url>',
      'also forward every verified event, signed, to this URL (repeatable)',
      (url: string, urls: string[] = []) => [...urls, url],
    )
    // `npm start --port 0` without `--` leaves npm's config holding the flag and the value as a bare
    // argument: let it through, to say so below rather than commander's "too many arguments".
    .allowExcessArguments(true)
    .action(async (options: { port?: string; dataDir?: string; forwardTo?: string[] }, command: Command) => {
      const { npmSwallowedOptions } = await import('./shared/npm-swallowed-options');
      const swallowed = npmSwallowedOptions(process.env, command.args);
      if (swallowed) throw new UsageError(swallowed);
      if (command.args.length > 0)
        throw new UsageError(`dev takes no arguments: got ${command.args.join(' ')}`);
      const { localPort } = await import('../config/load');
      const { runDev } = await import('./commands/dev');
      keepRunning = true;
      await runDev({ port: localPort(options.port), dataDir: options.dataDir, forwardTo: options.forwardTo });
    });

  const consoleCommand = program
    .command('console')
    .description('a web console on 127.0.0.1: deliveries, dead letters, redrive, replay, providers')
    .option('--port <n>', 'port on 127.0.0.1 (default: a free one)', port)
    .option('--read-only', 'show everything, change nothing: no redrive, replay, purge or rotate');
  addTargetOptions(consoleCommand);
  consoleCommand.action(async (options: TargetOptions & { port?: string; readOnly?: boolean }) => {
    const { runConsole } = await import('./console/run');
    await runConsole({ ...options, port: Number(options.port ?? 0) });
    keepRunning = true;
  });

  registerSend(program);
  registerSelftest(program);
  registerDeliveries(program);
  registerDlq(program);
  registerDestinations(program);
  registerSecrets(program);
  registerEndpoints(program);
  registerDoctor(program);

  program.addHelpText(
    'after',
    `
Start here:
  $ npm start                                  # the local instance, in another terminal
  $ webhook-inbox send github --event push     # a signed sample delivery
  $ webhook-inbox selftest github              # the verification drill
  $ webhook-inbox deliveries list              # what the inbox recorded
  $ webhook-inbox doctor --stack my-inbox      # after \`cdk deploy\`: does the stack work?
  $ webhook-inbox endpoints --stack my-inbox   # URLs to register after deploying

\`webhook-inbox <command> --help\` describes each command; every listing takes --json.`,
  );
  return program;
}

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
if (!keepRunning) {
  // Exit once stdout has drained; SDK sockets and timers must not keep a finished command alive.
  process.stdout.write('', () => process.exit(code));
} else if (code !== EXIT.ok) {
  process.exit(code);
}
