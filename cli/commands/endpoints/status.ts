// `webhook-inbox endpoints status`: per provider, whether it is registered to this inbox's URL (the
// provider's list call, where there is a registrar and a credential), when the secret was last set, and
// whether the provider has signed with it since.
import type { Command } from 'commander';
import pc from 'picocolors';
import type { Config, ResolvedProvider } from '../../../config';
import { cleartextApiBaseRefusal } from '../../operations/registration/api-base';
import {
  addJsonOption,
  addTargetOptions,
  httpUrl,
  type JsonOption,
  type TargetOptions,
} from '../../shared/options';
import { describeError, print, printJson, table, UsageError } from '../../shared/output';
import type { SecretsTarget } from '../../shared/target';
import type { Target } from '../../shared/target-types';

export interface StatusOptions extends TargetOptions, JsonOption {
  url?: string;
  apiBase?: string;
  repo?: string;
  org?: string;
}

export interface ProviderStatus {
  provider: string;
  scheme: string;
  url: string;
  /** `yes (endpoint ...)`, `no`, `cannot check: ...`. */
  registered: string;
  /** ISO time the current secret was stored, where known. */
  secretSetAt?: string;
  /** How that time is known, or why it is not. */
  secretSetNote: string;
  signedSince: string;
}

export function registerEndpointsStatus(endpoints: Command): void {
  const status = endpoints
    .command('status')
    .description('per provider: registered to this URL? when was the secret set? signed with it yet?')
    .argument('[provider]', 'this provider only (required with --api-base)')
    .option('--url <url>', 'the public URL registered for the local instance (its tunnel)', httpUrl)
    .option(
      '--api-base <url>',
      "the named provider's API host (GitHub Enterprise Server, a test server)",
      httpUrl,
    )
    .option('--repo <owner/name>', 'GitHub: check this repository')
    .option('--org <name>', 'GitHub: check this organization');
  addTargetOptions(status);
  addJsonOption(status);
  status.action(async (providerId: string | undefined, options: StatusOptions) => {
    process.exitCode = await runStatus(options, process.env, providerId);
  });
}

export async function runStatus(
  options: StatusOptions,
  env: NodeJS.ProcessEnv,
  providerId?: string,
): Promise<number> {
  // Every provider's client would send its own credential from the environment to that one host.
  if (options.apiBase !== undefined && providerId === undefined) {
    throw new UsageError(
      "--api-base is one provider's API host: name the provider (`endpoints status github --api-base ...`)",
    );
  }
  const cleartext = options.apiBase === undefined ? undefined : cleartextApiBaseRefusal(options.apiBase);
  if (cleartext !== undefined) throw new UsageError(cleartext);
  const { loadProject, providerOf } = await import('../../shared/project');
  const { config, cwd } = await loadProject();
  const providers =
    providerId === undefined ? Object.values(config.providers) : [providerOf(config, providerId)];
  const { resolveSecretsTarget } = await import('../../shared/target');
  const target = await resolveSecretsTarget(options, config, cwd);
  try {
    const nowMs = Date.now();
    const previousUse = target.kind === 'aws' ? await previousSecretUse(target, nowMs) : undefined;
    const rows = await Promise.all(
      providers.map((provider) =>
        providerStatus(provider, { config, cwd, target, options, env, nowMs, previousUse }),
      ),
    );
    if (options.json) {
      printJson(rows);
      return 0;
    }
    print(
      table(
        ['provider', 'registered to this URL', 'secret last set', 'signed with it since'],
        rows.map((r) => [
          r.provider,
          r.registered,
          r.secretSetAt ? `${r.secretSetAt.slice(0, 19).replace('T', ' ')} UTC` : pc.dim(r.secretSetNote),
          r.signedSince,
        ]),
      ),
    );
    return 0;
  } finally {
    target.close();
  }
}

interface StatusContext {
  config: Config;
  cwd: string;
  target: SecretsTarget;
  options: StatusOptions;
  env: NodeJS.ProcessEnv;
  nowMs: number;
  previousUse: string | undefined;
}

async function providerStatus(provider: ResolvedProvider, context: StatusContext): Promise<ProviderStatus> {
  const { target, options } = context;
  const url = options.url
    ? options.url.replace(/\/webhooks\/[^/]+\/?$/, `/webhooks/${encodeURIComponent(provider.id)}`)
    : target.endpointUrl(provider.id);
  const [registered, secretSet] = await Promise.all([
    registration(provider, url, context),
    secretSetAt(provider, context),
  ]);
  return {
    provider: provider.id,
    scheme: provider.scheme,
    url,
    registered,
    ...(secretSet.at ? { secretSetAt: secretSet.at } : {}),
    secretSetNote: secretSet.note,
    signedSince: await signedSince(provider, secretSet.at, context),
  };
}

async function registration(
  provider: ResolvedProvider,
  url: string,
  context: StatusContext,
): Promise<string> {
  const { REGISTRARS, isManualScheme } = await import('../../operations/registration/providers');
  const entry = REGISTRARS[provider.scheme];
  if (!entry)
    return isManualScheme(provider.scheme)
      ? 'cannot check: no API (registered by hand)'
      : 'cannot check: no registration API';
  const credential = context.env[entry.credentialEnv]?.trim();
  if (!credential) return `cannot check: no ${entry.credentialEnv}`;
  if (context.target.kind === 'local' && context.options.url === undefined) {
    return 'cannot check: the local URL is loopback (pass --url, the tunnel registered)';
  }
  const { options } = context;
  if (provider.scheme === 'github' && options.repo === undefined && options.org === undefined) {
    return 'cannot check: pass --repo or --org';
  }
  try {
    const registrar = (await entry.load())({
      credential,
      ...(options.apiBase ? { apiBase: options.apiBase } : {}),
      ...(options.repo ? { repo: options.repo } : {}),
      ...(options.org ? { org: options.org } : {}),
    });
    const matching = (await registrar.list()).filter((e) => e.url === url);
    return matching.length > 0 ? `yes (endpoint ${matching.map((e) => e.id).join(', ')})` : 'no';
  } catch (error) {
    const reason = (error as { reason?: string }).reason;
    return `cannot check: ${reason ?? describeError(error)}`;
  }
}

async function secretSetAt(
  provider: ResolvedProvider,
  { target, cwd }: StatusContext,
): Promise<{ at?: string; note: string }> {
  try {
    if (target.kind === 'aws') {
      // On a stack the secrets target is the whole stack target (shared/target.ts resolveSecretsTarget).
      const stack = target as Target;
      const { SecretsManagerStore } = await import('../../../lambdas/adapters/secrets-manager-store');
      const store = new SecretsManagerStore((await stack.clients()).secrets);
      const dates = await store.stageDates(target.secrets.location(provider.id));
      return dates.AWSCURRENT === undefined
        ? { note: 'no AWSCURRENT version' }
        : { at: new Date(dates.AWSCURRENT).toISOString(), note: 'Secrets Manager AWSCURRENT version date' };
    }
    const { statSync } = await import('node:fs');
    const { secretsFilePath } = await import('../../../local/secrets-file');
    const { readSecretTimes } = await import('../../../local/secret-times');
    const file = target.secrets.location(provider.id).replace(/ \[".*"\]$/, '') || secretsFilePath(cwd);
    const recorded = readSecretTimes(file)[provider.id];
    if (recorded !== undefined)
      return { at: new Date(recorded).toISOString(), note: 'recorded when it was set' };
    // Set when the instance first started (or by hand): the file's last change is the latest it can be.
    return {
      at: new Date(statSync(file).mtimeMs).toISOString(),
      note: 'the secrets file last changed (any provider)',
    };
  } catch (error) {
    return { note: `unknown: ${describeError(error)}` };
  }
}

async function signedSince(
  provider: ResolvedProvider,
  setAt: string | undefined,
  context: StatusContext,
): Promise<string> {
  if (context.target.kind === 'aws') return context.previousUse ?? 'unknown';
  if (setAt === undefined) return 'unknown';
  try {
    const { readLocalState } = await import('../../../local/state-file');
    const { isAlive } = await import('../../../local/process-alive');
    const state = readLocalState(context.cwd);
    if (!state || !isAlive(state.pid)) return 'cannot check: no local instance running';
    const { createAwsClients } = await import('../../../lambdas/adapters/clients');
    const { DynamoInbox } = await import('../../../lambdas/adapters/dynamo-inbox');
    const clients = createAwsClients({
      ...state.endpoints,
      credentials: state.credentials,
      region: state.region,
    });
    try {
      const inbox = new DynamoInbox(clients.dynamodb, state.tableName, { providers: [provider.id] });
      const page = await inbox.listPage({ provider: provider.id, sinceMs: Date.parse(setAt), limit: 1 });
      const [first] = page.records;
      return first
        ? `yes (a delivery at ${first.receivedAt.slice(0, 19).replace('T', ' ')} UTC)`
        : 'no delivery since';
    } finally {
      for (const client of Object.values(clients)) client.destroy();
    }
  } catch (error) {
    return `cannot check: ${describeError(error)}`;
  }
}

/** On a stack: PreviousSecretUsed over 24 h. One figure for every provider (its only dimension is the service). */
async function previousSecretUse(target: SecretsTarget, nowMs: number): Promise<string> {
  const { createCloudWatchClient } = await import('../../../lambdas/adapters/clients');
  const { CloudWatchMetrics } = await import('../../../lambdas/adapters/cloudwatch-metrics');
  const { METRICS_NAMESPACE, SERVICE, VERIFY_METRICS } = await import('../../../config/telemetry');
  const client = createCloudWatchClient({ region: (target as Target).region });
  try {
    const count = await new CloudWatchMetrics(client).sum({
      namespace: METRICS_NAMESPACE,
      metric: VERIFY_METRICS.previousSecretUsed,
      dimensions: { service: SERVICE.verify },
      sinceMs: nowMs - 86_400_000,
      untilMs: nowMs,
    });
    return count === 0
      ? 'yes: no delivery used a previous secret in 24 h (PreviousSecretUsed 0, all providers)'
      : `not yet everywhere: ${count} deliveries in 24 h verified with a previous secret (PreviousSecretUsed, all providers)`;
  } catch (error) {
    return `cannot read PreviousSecretUsed: ${describeError(error)}`;
  }
}
