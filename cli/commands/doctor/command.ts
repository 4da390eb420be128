// `webhook-inbox doctor --stack NAME`: the check to run after `cdk deploy`. A checklist of what makes a
// deployed inbox work, each item a pass, a failure with its fix, "cannot check" with the reason, or
// skipped on request. Exit 1 if any item failed.
import { type Command, InvalidArgumentError, Option } from 'commander';
import { addHelpAfter } from '../../shared/help-text';
import { CLI } from '../../shared/hint';
import type { JsonOption } from '../../shared/options';

export interface DoctorCommandOptions extends JsonOption {
  stack: string;
  region?: string;
  profile?: string;
  /** commander's `--no-delivery`: false when given. */
  delivery: boolean;
  skipAlarm?: boolean;
}

/** An empty name would reach AWS as a refusal that names nothing: it is a usage error here. */
function nonEmpty(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('it is empty');
  return value;
}

export function registerDoctor(program: Command): void {
  const command = program
    .command('doctor')
    .description('check a deployed stack works: a checklist with a fix for each failure')
    .addOption(
      new Option('--stack <name>', 'the deployed stack (its outputs are read with DescribeStacks)')
        .argParser(nonEmpty)
        .makeOptionMandatory(),
    )
    .option('--region <region>', 'AWS region of --stack (default: AWS_REGION or the profile)', nonEmpty)
    .option('--profile <name>', 'AWS profile (default credential chain otherwise)', nonEmpty)
    .option('--no-delivery', 'send no test delivery and no destination test events (those items are skipped)')
    .option('--skip-alarm', "set no alarm's state (the notification item is skipped)")
    .option('--json', 'print JSON (for scripts) instead of the checklist');
  addHelpAfter(command, [
    {
      heading: 'Checks, in order (an item whose prerequisite did not pass is "cannot check", naming it):',
      items: [
        ['outputs', "the stack's outputs are present"],
        ['read:*', 'the CLI can read the table, the queue, the DLQ and the payload bucket'],
        [
          'secret:<id>',
          "each provider's secret is set (not the stack's placeholder where the provider issues its own) and `secrets` can read it",
        ],
        ['delivery', "a signed sample delivery to the provider's URL gets 202 (writes: one delivery)"],
        ['processed', 'it reaches processed, once (waits up to 20 s)'],
        ['method', 'a GET on the same URL gets 405'],
        [
          'alarm',
          'one alarm set to ALARM (or OK) notifies its SNS topic (waits up to 60 s), then is put back unless its own evaluation changed it meanwhile (writes: alarm state, two notifications)',
        ],
        ['dlq:policy', "the DLQ's redrive allow policy names the main queue"],
        ['dlq:move', 'the CLI can list DLQ move tasks (SQS has no dry run for the start itself)'],
        [
          'destination-*',
          "each destination answers its signed test, and an SQS or EventBridge target is in the stack's partition (writes: one test event each)",
        ],
        [
          'concurrency',
          "the account's unreserved Lambda concurrency leaves room for the verify Lambda's reservation (the function URL's rate cap)",
        ],
      ],
    },
    '',
    'A call AWS did not answer this time (throttled, a 5xx, the network, expired credentials) makes its item "cannot check", never a failure.',
    '',
    'Exit code 0 when nothing failed (items that could not be checked are listed), 1 when an item failed.',
    '',
    'Examples:',
    `$ ${CLI} doctor --stack WebhookInbox`,
    `$ ${CLI} doctor --stack WebhookInbox --no-delivery --skip-alarm --json`,
  ]);
  command.action(async (options: DoctorCommandOptions) => {
    const { runDoctor } = await import('./run');
    process.exitCode = await runDoctor(options);
  });
}
