// `webhook-inbox dev` (what `npm start` runs): the local inbox in the foreground until Ctrl-C.
import { accessSync, constants, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import pc from 'picocolors';
import { type Config, ConfigError } from '../../config';
import { loadProjectConfig, projectDir } from '../../config/load';
import { consoleLogger } from '../../local/console-log';
import { startEmulators } from '../../local/emulators';
import { withForwardTo } from '../../local/forward-to';
import {
  acquireInstanceLock,
  type InstanceLock,
  InstanceRunningError,
  lockFilePath,
} from '../../local/instance-lock';
import type { LocalInbox } from '../../local/local-inbox';
import {
  LoosePermissionsError,
  PRIVATE_DIR_MODE,
  PRIVATE_FILE_MODE,
  tighten,
} from '../../local/private-files';
import { CliError, displayUrl, UsageError } from '../shared/output';

export interface DevOptions {
  port: number;
  dataDir?: string;
  /** `--forward-to`, repeatable: local services every verified event is forwarded to. */
  forwardTo?: string[];
  cwd?: string;
}

/** The folder's instance lock, or a one-line error naming the instance that already runs here. */
function takeFolder(cwd: string): InstanceLock {
  try {
    return acquireInstanceLock(cwd);
  } catch (error) {
    if (!(error instanceof InstanceRunningError)) throw error;
    throw new CliError(
      `another local instance is running in ${cwd}: pid ${error.pid}, ${error.gatewayUrl ?? 'still starting'}`,
      `use that one, or stop it first; if it is not running, delete ${lockFilePath(cwd)}`,
    );
  }
}

/**
 * mkdir -p, one level at a time: Node's recursive mkdir loops forever where a parent refuses new entries
 * with ENOENT (under /proc, say).
 */
function makeFolder(dir: string, mode?: number): void {
  if (existsSync(dir)) return;
  const parent = dirname(dir);
  if (parent !== dir) makeFolder(parent);
  mkdirSync(dir, mode === undefined ? undefined : { mode });
}

/**
 * The table on disk holds every record, archived bodies included: the folder and its files are made
 * owner-only, as `.webhook-inbox/` is, and what dynalite writes from now on is created so (the umask), or
 * another user on this machine reads the inbox from the disk without asking the guarded emulator.
 */
function keepPrivate(dir: string): void {
  const entries = readdirSync(dir, { withFileTypes: true });
  // Only a folder the store owns is changed: an empty one, or one an earlier run filled (LevelDB's CURRENT
  // names its manifest). Never a project or home folder given by mistake, whose files are the user's.
  if (entries.length > 0 && !entries.some((entry) => entry.name === 'CURRENT' && entry.isFile())) {
    throw new CliError(
      `--data-dir ${dir}: the folder holds other files, not an inbox an earlier --data-dir run kept`,
      'give an empty or new folder, such as .webhook-inbox/data',
    );
  }
  tighten(dir, PRIVATE_DIR_MODE);
  for (const entry of entries) if (entry.isFile()) tighten(join(dir, entry.name), PRIVATE_FILE_MODE);
  process.umask(0o077);
}

/**
 * The --data-dir folder, created if missing. Checked here, before the emulator thread starts: given a file
 * or a path that cannot be created, dynalite fails on that thread with nothing that names the flag.
 */
function usableDataDir(dir: string): string {
  try {
    makeFolder(dir, PRIVATE_DIR_MODE);
    if (!statSync(dir).isDirectory()) throw new Error('not a directory');
    accessSync(dir, constants.R_OK | constants.W_OK);
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new CliError(
      `--data-dir ${dir}: not a folder this process can write (${why})`,
      'give a folder path, or leave --data-dir out to keep the inbox in memory',
    );
  }
  try {
    keepPrivate(dir);
  } catch (error) {
    if (error instanceof LoosePermissionsError) throw new CliError(`--data-dir: ${error.message}`);
    throw error;
  }
  return dir;
}

/** The config with the --forward-to URLs as destinations; a bad URL is a usage error naming it. */
function forwardingTo(config: Config, urls: readonly string[]): Config {
  try {
    return withForwardTo(config, urls);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}

/** The banner's lines for the destinations other than the handlers. */
function destinationLines(config: Config): string[] {
  const lines = Object.values(config.destinations).flatMap((d) => {
    if (d.type === 'handlers') return [];
    const target =
      d.type === 'http'
        ? displayUrl(d.url)
        : d.type === 'eventbridge'
          ? (d.busArn ?? 'local bus (recorded)')
          : d.queueArn;
    return [`  ${d.id.padEnd(18)} ${d.type.padEnd(11)} ${target}`];
  });
  return lines.length === 0
    ? []
    : [
        '',
        'Forwarding to:',
        ...lines,
        `  ${pc.dim('verify what it receives: npx webhook-inbox destinations show <id> --reveal --json')}`,
      ];
}

export async function runDev(options: DevOptions): Promise<void> {
  const started = performance.now();
  const cwd = options.cwd ?? projectDir();
  const config = forwardingTo(loadProjectConfig(cwd), options.forwardTo ?? []);
  const dataDir = options.dataDir ? usableDataDir(resolve(cwd, options.dataDir)) : undefined;
  // Before anything starts: a second instance in this folder would take local.json from the first.
  const lock = takeFolder(cwd);
  // The emulators load on their own thread while this one loads the SDK and the handlers.
  const emulators = startEmulators({ dataDir });
  emulators.catch(() => undefined); // awaited, and reported, by startLocalInbox
  const { PortInUseError, startLocalInbox } = await import('../../local/local-inbox');
  let inbox: LocalInbox;
  try {
    inbox = await startLocalInbox({
      config,
      cwd,
      port: options.port,
      dataDir,
      forwardTo: options.forwardTo,
      emulators,
      lock,
      logs: consoleLogger(),
    });
  } catch (error) {
    if (error instanceof PortInUseError) {
      console.error(
        `webhook-inbox: port ${error.port} is already in use; pick another with --port <n> (or PORT=<n>)`,
      );
      process.exit(1);
    }
    throw error;
  }
  const readyMs = Math.round(performance.now() - started);
  const { state } = inbox;
  const lines = [
    '',
    pc.bold(`webhook-inbox is running locally (ready in ${readyMs} ms)`),
    '',
    ...Object.keys(config.providers).map(
      (id) => `  ${id.padEnd(18)} POST ${state.gatewayUrl}/webhooks/${id}`,
    ),
    ...destinationLines(config),
    '',
    `  secrets       ${state.secretsFile}`,
    ...inbox.tightened.map((t) =>
      pc.yellow(
        `  permissions   ${t.path} was open to other users (mode ${t.from.toString(8)}): now ${t.to.toString(8)}`,
      ),
    ),
    `  state         ${options.dataDir ? `inbox table kept in ${options.dataDir}; queues and S3 are in memory (fauxqs cannot persist)` : 'in memory (use --data-dir DIR to keep the inbox table)'}`,
    '',
    `  Send a signed test event:   ${pc.cyan('npx webhook-inbox send github')}`,
    `  Run the verification drill: ${pc.cyan('npx webhook-inbox selftest github')}`,
    `  Open the web console:       ${pc.cyan('npx webhook-inbox console')} (another terminal, this folder)`,
    '',
    pc.dim('Ctrl-C to stop.'),
    '',
  ];
  console.log(lines.join('\n'));
  const shutdown = (signal: string) => {
    console.log(pc.dim(`\n${signal}: stopping (letting in-flight work finish)…`));
    inbox.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}
