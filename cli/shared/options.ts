// Options several subcommands share: where to act (the local instance or a deployed stack) and --json.
import { type Command, InvalidArgumentError, Option } from 'commander';
import { INBOX_STATUSES, type InboxStatus } from '../../lambdas/core/inbox';
import { parseDuration, UsageError } from './output';

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

/** A commander parser for a duration such as `30s`, `15m`, `2h` or `7d`, as milliseconds. */
export function duration(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined) throw new InvalidArgumentError('a duration such as 30s, 15m, 2h or 7d');
  return ms;
}

/** A commander parser for an inbox status (`--status`). */
export function inboxStatusOption(value: string): InboxStatus {
  if (!(INBOX_STATUSES as readonly string[]).includes(value))
    throw new InvalidArgumentError(`must be one of ${INBOX_STATUSES.join(', ')}`);
  return value as InboxStatus;
}

/** A time window whose end comes before its start can match nothing: say so rather than list nothing. */
export function checkWindow(sinceMs: number | undefined, untilMs: number | undefined): void {
  if (sinceMs !== undefined && untilMs !== undefined && sinceMs > untilMs) {
    throw new UsageError('--until is before --since: the window is empty (--since is the older end)');
  }
}
