// Where a command acts: the local instance of this project (found through `.webhook-inbox/local.json`) or,
// with --stack, a deployed stack (found through its CloudFormation outputs). Either way the command gets
// the gateway URL, the resource names, SDK clients pointed at the right endpoints, and the secrets.
import type { Config } from '../../config';
import type { AwsClients } from '../../lambdas/adapters/clients';
import { isAlive } from '../../local/process-alive';
import type { TargetOptions } from './options';
import { CliError, UsageError } from './output';
import type { SecretStore, Target } from './target-types';

export async function resolveTarget(options: TargetOptions, config: Config, cwd: string): Promise<Target> {
  if (options.stack === undefined) {
    if (options.region !== undefined || options.profile !== undefined) {
      throw new UsageError('--region and --profile apply to a deployed stack: add --stack NAME');
    }
    return localTarget(cwd, config);
  }
  const { awsTarget } = await import('./stack-target');
  return awsTarget({ stack: options.stack, region: options.region, profile: options.profile }, config);
}

/** The secrets file's entries under `key(id)`: the providers' by id, the destinations' prefixed. */
async function fileSecrets(secretsFile: string, key: (id: string) => string): Promise<SecretStore> {
  const { readSecretsFile, writeSecretsFile } = await import('../../local/secrets-file');
  return {
    location: (id) => `${secretsFile} ["${key(id)}"]`,
    list: async (id) => readSecretsFile(secretsFile)[key(id)] ?? [],
    rotate: async (id, value) => {
      const all = readSecretsFile(secretsFile);
      const current = all[key(id)]?.[0];
      // Exactly one previous secret stays valid: anything older is refused from now on.
      const next = current === undefined || current === value ? [value] : [value, current];
      all[key(id)] = next;
      writeSecretsFile(secretsFile, all);
      // Per key: the file's own mtime moves with every provider's rotation (`endpoints status` reads this).
      const { recordSecretSet } = await import('../../local/secret-times');
      recordSecretSet(secretsFile, key(id), Date.now());
      return next;
    },
  };
}

/** What `secrets show|rotate` act on: the provider secrets of the target, and where the provider posts. */
export interface SecretsTarget {
  kind: Target['kind'];
  secrets: SecretStore;
  endpointUrl(provider: string): string;
  close(): void;
}

/**
 * The provider secrets alone. Locally they are a file the instance re-reads on every request, so they can
 * be read and rotated whether or not an instance is running (before the first `npm start`, say); the
 * endpoint is then the one `npm start` serves by default, used only to check that a secret can sign.
 */
export async function resolveSecretsTarget(
  options: TargetOptions,
  config: Config,
  cwd: string,
): Promise<SecretsTarget> {
  if (options.stack !== undefined) return resolveTarget(options, config, cwd);
  if (options.region !== undefined || options.profile !== undefined) {
    throw new UsageError('--region and --profile apply to a deployed stack: add --stack NAME');
  }
  const { secretsFilePath } = await import('../../local/secrets-file');
  const { readLocalState } = await import('../../local/state-file');
  const { localPort } = await import('../../config/load');
  let running: ReturnType<typeof readLocalState>;
  try {
    running = readLocalState(cwd);
  } catch {
    running = undefined; // an unreadable state file says nothing about the secrets file
  }
  const live = running !== undefined && isAlive(running.pid) ? running : undefined;
  const gatewayUrl = (live?.gatewayUrl ?? `http://127.0.0.1:${localPort(undefined)}`).replace(/\/+$/, '');
  return {
    kind: 'local',
    secrets: await fileSecrets(live?.secretsFile ?? secretsFilePath(cwd), (provider) => provider),
    endpointUrl: (provider) => `${gatewayUrl}/webhooks/${encodeURIComponent(provider)}`,
    close: () => undefined,
  };
}

async function localTarget(cwd: string, projectConfig: Config): Promise<Target> {
  const { readLocalState, stateFilePath } = await import('../../local/state-file');
  const stateFile = stateFilePath(cwd);
  let state: Awaited<ReturnType<typeof readLocalState>>;
  try {
    state = readLocalState(cwd);
  } catch (error) {
    throw new CliError(`cannot read ${stateFile}: ${(error as Error).message}`, 'restart `npm start`');
  }
  const start =
    'start it with `npm start` or `npx webhook-inbox dev` in this directory, or pass --stack NAME';
  if (!state) throw new CliError(`no local instance is running for ${cwd}`, start);
  if (!isAlive(state.pid)) {
    throw new CliError(
      `the local instance recorded in ${stateFile} (pid ${state.pid}) is not running`,
      start,
    );
  }
  const { secretsFile } = state;
  const { localDestinationSecretKey } = await import('../../lambdas/core/destinations/forward-state');
  let clients: AwsClients | undefined;
  const gatewayUrl = state.gatewayUrl.replace(/\/+$/, '');
  const { withForwardTo } = await import('../../local/forward-to');
  return {
    kind: 'local',
    config: withForwardTo(projectConfig, state.forwardTo ?? []),
    description: `local instance at ${gatewayUrl}`,
    gatewayUrl,
    region: state.region,
    tableName: state.tableName,
    queueUrl: state.queueUrl,
    queueArn: state.queueArn,
    dlqUrl: state.dlqUrl,
    dlqArn: state.dlqArn,
    bucketName: state.bucketName,
    endpointUrl: (provider) => `${gatewayUrl}/webhooks/${encodeURIComponent(provider)}`,
    secrets: await fileSecrets(secretsFile, (provider) => provider),
    destinations: state.destinations ?? {},
    destinationSecrets: await fileSecrets(secretsFile, localDestinationSecretKey),
    clients: async () => {
      if (!clients) {
        const { createAwsClients } = await import('../../lambdas/adapters/clients');
        clients = createAwsClients({
          ...state.endpoints,
          credentials: state.credentials,
          region: state.region,
        });
      }
      return clients;
    },
    close: () => {
      for (const client of Object.values(clients ?? {})) client.destroy();
    },
  };
}
