// Options several subcommands share: where to act (the local instance or a deployed stack) and --json.
import { type Command, InvalidArgumentError, Option } from 'commander';

export interface TargetOptions {
  stack?: string;
  region?: string;
  profile?: string;
}

export interface JsonOption {
  json?: boolean;
}

const TARGET_GROUP = 'Target (default: the local instance started with `npm start`):';

export function addTargetOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--stack <name>',
        'act on a deployed stack (its outputs are read with DescribeStacks)',
      ).helpGroup(TARGET_GROUP),
    )
    .addOption(
      new Option('--region <region>', 'AWS region of --stack (default: AWS_REGION or the profile)').helpGroup(
        TARGET_GROUP,
      ),
    )
    .addOption(
      new Option(
        '--profile <name>',
        'AWS profile for --stack (default credential chain otherwise)',
      ).helpGroup(TARGET_GROUP),
    );
}

export function addJsonOption(command: Command): Command {
  return command.option('--json', 'print JSON (for scripts) instead of tables');
}

/** An option parser for whole numbers in [min, max]; a bad value is a usage error (exit 2). */
export function integer(min: number, max: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`not a whole number: ${value}`);
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`must be between ${min} and ${max}`);
    return n;
  };
}

/** An option parser for an http(s) URL; anything else is a usage error (exit 2), caught before any work. */
export function httpUrl(value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new InvalidArgumentError(`not a URL: ${value}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new InvalidArgumentError(`not an http(s) URL: ${value}`);
  }
  return value;
}
