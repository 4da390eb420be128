// The `webhook-inbox` program: its commands and options, built without running anything, so a test can
// read every command's help. main.ts parses the command line with it and exits.
import { Command, InvalidArgumentError } from 'commander';
import { version } from '../package.json';
import { registerDeliveries } from './commands/deliveries/command';
import { registerDestinations } from './commands/destinations';
import { registerDlq } from './commands/dlq/command';
import { registerDoctor } from './commands/doctor/command';
import { registerEndpoints } from './commands/endpoints/command';
import { registerSecrets } from './commands/secrets/command';
import { registerSelftest } from './commands/selftest';
import { registerSend } from './commands/send';
import { addHelpAfter } from './shared/help-text';
import { CLI } from './shared/hint';
import { addTargetOptions, type TargetOptions } from './shared/options';
import { UsageError } from './shared/output';

/** Set by `dev` and `console`, which keep running after their action returns. */
export const runState = { keepRunning: false };

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
    // Commander leaves a description unwrapped when its column is under 40 characters, so a long
    // subcommand name pushed `deliveries --help` past 80 columns; every command inherits this.
    .configureHelp({ minWidthToWrap: 20 })
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
      runState.keepRunning = true;
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
    runState.keepRunning = true;
  });

  registerSend(program);
  registerSelftest(program);
  registerDeliveries(program);
  registerDlq(program);
  registerDestinations(program);
  registerSecrets(program);
  registerEndpoints(program);
  registerDoctor(program);

  addHelpAfter(program, [
    {
      heading: "Start here, in the project folder (npx runs the project's own copy of this CLI):",
      items: [
        ['npm start', 'the local instance, in another terminal'],
        [`${CLI} send github --event push`, 'a signed sample delivery'],
        [`${CLI} selftest github`, 'the verification drill'],
        [`${CLI} deliveries list`, 'what the inbox recorded'],
        [`${CLI} doctor --stack my-inbox`, 'after `cdk deploy`: does the stack work?'],
        [`${CLI} endpoints --stack my-inbox`, 'URLs to register after deploying'],
      ],
    },

    '',

    `\`${CLI} <command> --help\` describes each command; every listing takes --json.`,
  ]);
  return program;
}
