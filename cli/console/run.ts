// `webhook-inbox console`: the web console for the local instance or a deployed stack, served from this
// process until Ctrl-C. Against a stack it acts with the operator's own AWS credentials, as every other
// command does: nothing new is exposed, and the only listener is on 127.0.0.1.
import pc from 'picocolors';
import type { Config } from '../../config';
import { archivedPayload } from '../operations/replay-deliveries';
import type { TargetOptions } from '../shared/options';
import { CliError, print } from '../shared/output';
import type { Target } from '../shared/target-types';
import { replayer } from './archive';
import { type BackendSource, LocalBackendSource } from './backend-source';
import { ConsoleOperations } from './console-operations';
import { newToken } from './security';
import { type ConsoleBackend, type RunningConsole, startConsoleServer } from './server';

export interface ConsoleCommandOptions extends TargetOptions {
  port: number;
  readOnly?: boolean;
}

/** The console's backend over one target: ConsoleOperations, with reveal and replay. */
async function consoleBackend(target: Target, config: Config, cwd: string): Promise<ConsoleBackend> {
  const { secretsFilePath } = await import('../../local/secrets-file');
  const operations = new ConsoleOperations(
    target,
    config,
    await target.clients(),
    target.kind === 'local' ? secretsFilePath(cwd) : undefined,
  );
  return Object.assign(operations, {
    reveal: async (provider: string, key: string) => {
      const record = await operations.deliveries.get(provider, key);
      return record ? archivedPayload(target, record) : undefined;
    },
    replay: replayer(target),
  });
}

export async function runConsole(options: ConsoleCommandOptions): Promise<RunningConsole> {
  const { loadProject } = await import('../shared/project');
  const { config, cwd } = await loadProject();
  const { resolveTarget } = await import('../shared/target');
  const target = await resolveTarget(options, config, cwd);
  let backend: ConsoleBackend | BackendSource;
  if (target.kind === 'local') {
    // A local instance can be stopped and started again while the console runs: find it per request.
    const { readLocalState } = await import('../../local/state-file');
    const { isAlive } = await import('../../local/process-alive');
    backend = new LocalBackendSource({
      cwd,
      config,
      build: (found) => consoleBackend(found, config, cwd),
      readState: readLocalState,
      isAlive,
      openTarget: (dir, projectConfig) => resolveTarget({}, projectConfig, dir),
      first: target,
    });
  } else {
    backend = await consoleBackend(target, config, cwd);
  }
  const close = () => ('current' in backend ? backend.close() : target.close());
  const token = newToken();
  let running: RunningConsole;
  try {
    running = await startConsoleServer({ port: options.port, readOnly: !!options.readOnly, token, backend });
  } catch (error) {
    close();
    if ((error as { code?: string }).code === 'EADDRINUSE') {
      throw new CliError(
        `port ${options.port} is in use on 127.0.0.1`,
        'pick another with --port, or leave it out for a free one',
      );
    }
    throw error;
  }
  print(
    `${pc.bold('webhook-inbox console')} for the ${target.description}${options.readOnly ? ' (read-only)' : ''}`,
  );
  print(`  ${pc.cyan(running.url)}`);
  print(
    pc.dim(
      "Open that URL in your browser; the token in it is this launch's only key. Ctrl-C stops the console.",
    ),
  );
  const stop = () => {
    running.close().finally(() => {
      close();
      process.exit(0);
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return running;
}
