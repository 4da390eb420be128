// `webhook-inbox endpoints register <provider>`: registers the inbox's URL with the provider through its API
// and stores the signing secret in the same step (operations/registration/register-flow.ts orders the steps).
// Slack, Shopify and Zoom have no such API: the exact steps are printed and the secret read once from
// standard input. Credentials come from the environment or standard input, never from an argument that `ps`
// shows.
import { isIP } from 'node:net';
import { type Command, InvalidArgumentError, Option } from 'commander';
import pc from 'picocolors';
import type { Config, ResolvedProvider } from '../../../config';
import { forbiddenAddress } from '../../../lambdas/core/destinations/address-policy';
import { cleartextApiBaseRefusal } from '../../operations/registration/api-base';
import { squareUrlRefusal } from '../../operations/registration/square-url';
import { addHelpAfter } from '../../shared/help-text';
import { CLI } from '../../shared/hint';
import {
  addJsonOption,
  addTargetOptions,
  httpUrl,
  type JsonOption,
  type TargetOptions,
} from '../../shared/options';
import { CliError, print, printJson, UsageError } from '../../shared/output';
import type { LineInput } from '../../shared/read-line';

export interface RegisterOptions extends TargetOptions, JsonOption {
  url?: string;
  replace?: boolean;
  events?: string[];
  apiBase?: string;
  repo?: string;
  org?: string;
  mode?: 'test' | 'live';
  tokenStdin?: boolean;
}

export interface RegisterIo extends LineInput {
  env: NodeJS.ProcessEnv;
}

function eventList(value: string): string[] {
  const events = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (events.length === 0) throw new InvalidArgumentError('a comma-separated list of event names');
  return events;
}

export function registerEndpointsRegister(endpoints: Command): void {
  const register = endpoints
    .command('register')
    .description("register this inbox's URL with a provider through its API, and store the signing secret")
    .argument('<provider>', 'provider id')
    .option(
      '--url <url>',
      'the public URL the provider posts to (required locally: a tunnel to this machine)',
      httpUrl,
    )
    .option('--replace', 'an endpoint for the URL exists: change its secret without a refused delivery')
    .option('--events <a,b>', 'subscribe to these events only (default: every event)', eventList)
    .option('--api-base <url>', "the provider's API host (GitHub Enterprise Server, a test server)", httpUrl)
    .option('--repo <owner/name>', 'GitHub: a repository hook')
    .option('--org <name>', 'GitHub: an organization hook')
    .addOption(new Option('--mode <mode>', 'Stripe: the mode the key must be for').choices(['test', 'live']))
    .option('--token-stdin', 'read the API credential from standard input instead of the environment');
  addTargetOptions(register);
  addJsonOption(register);
  addHelpAfter(register, [
    `Credentials: STRIPE_API_KEY, GITHUB_TOKEN, SQUARE_ACCESS_TOKEN, PADDLE_API_KEY, LINEAR_API_KEY, or one line on standard input with --token-stdin. Never an argument: \`ps\` and shell history would show it.`,
    '',
    `$ GITHUB_TOKEN=... ${CLI} endpoints register github --repo acme/shop --stack my-inbox`,
    `$ ${CLI} endpoints register github --repo acme/shop --url https://abc.trycloudflare.com/webhooks/github`,
    `$ ${CLI} endpoints register github --repo acme/shop --stack my-inbox --replace`,
    '',
    'For a provider with no registration API here (Slack), it prints the steps and reads the secret:',
    `$ ${CLI} endpoints register slack --stack my-inbox`,
    '',
    'An endpoint for the URL that exists already is left as it is; --replace rotates its secret (the one before stays valid as the previous one until the provider signs with the new one).',
  ]);
  register.action(async (providerId: string, options: RegisterOptions) => {
    process.exitCode = await runRegister(providerId, options, {
      env: process.env,
      stdin: process.stdin,
      prompt: process.stderr,
    });
  });
}

/**
 * Why no provider's servers can reach `hostname`, or undefined: a name for this machine (`localhost`, and
 * every name under it, with or without the root's trailing dot), or an address the forwarder's own guard
 * would refuse (loopback, private, link-local... in any spelling, IPv4-mapped forms included).
 */
function unreachableHost(hostname: string): string | undefined {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return 'loopback';
  const literal = name.replace(/^\[(.*)\]$/, '$1');
  if (isIP(literal) === 0) return undefined;
  const reason = forbiddenAddress(literal);
  // 0.0.0.0 and :: reach this machine when dialled.
  return reason === 'unspecified' ? 'loopback' : reason?.replace('_', '-');
}

/** The URL the provider will post to: `--url`, else the stack's endpoint. Locally there is no such URL. */
function registeredUrl(providerId: string, options: RegisterOptions): string | undefined {
  if (options.url !== undefined) {
    const unreachable = unreachableHost(new URL(options.url).hostname);
    if (unreachable !== undefined) {
      throw new UsageError(
        `--url ${options.url} is a ${unreachable} URL no provider can reach: give the public URL (a tunnel)`,
      );
    }
    if (new URL(options.url).protocol !== 'https:') {
      throw new UsageError(
        `--url ${options.url} must be https: the provider posts each payload and its signature to it`,
      );
    }
    return options.url;
  }
  if (options.stack === undefined) {
    throw new UsageError(
      `the local instance's URL is loopback, which ${providerId}'s servers cannot reach: pass --url with the public URL that reaches it (a tunnel such as https://<name>.trycloudflare.com/webhooks/${providerId})`,
    );
  }
  return undefined;
}

export async function runRegister(
  providerId: string,
  options: RegisterOptions,
  io: RegisterIo,
): Promise<number> {
  if (options.repo !== undefined && options.org !== undefined)
    throw new UsageError('give --repo or --org, not both');
  const cleartext = options.apiBase === undefined ? undefined : cleartextApiBaseRefusal(options.apiBase);
  if (cleartext !== undefined) throw new UsageError(cleartext);
  const { loadProject, providerOf } = await import('../../shared/project');
  const { config, cwd } = await loadProject();
  const provider = providerOf(config, providerId);
  const requestedUrl = registeredUrl(provider.id, options);
  const { REGISTRARS, isManualScheme } = await import('../../operations/registration/providers');
  if (isManualScheme(provider.scheme))
    return registerByHand(provider, config, cwd, options, requestedUrl, io);
  const entry = REGISTRARS[provider.scheme];
  if (!entry) {
    throw new UsageError(
      `${provider.id} (${provider.scheme}) has no registration API here: \`${CLI} endpoints\` says where its URL goes`,
    );
  }
  if (provider.scheme === 'github' && options.repo === undefined && options.org === undefined) {
    throw new UsageError(
      'GitHub hooks belong to a repository or an organization: pass --repo owner/name or --org NAME',
    );
  }
  const credential = options.tokenStdin
    ? await (await import('../../shared/read-line')).readOneLine(io, `${entry.credentialEnv} (not shown): `)
    : io.env[entry.credentialEnv]?.trim();
  if (!credential) {
    throw new UsageError(
      options.tokenStdin
        ? 'no credential on standard input (--token-stdin reads one line)'
        : `set ${entry.credentialEnv} in the environment, or pipe the credential to --token-stdin`,
    );
  }

  const { resolveSecretsTarget } = await import('../../shared/target');
  const target = await resolveSecretsTarget(options, config, cwd);
  try {
    const endpointUrl = target.endpointUrl(provider.id);
    const url = requestedUrl ?? endpointUrl;
    const refusal = squareUrlRefusal(provider, url, endpointUrl);
    if (refusal !== undefined) throw new UsageError(refusal);
    const { RegistrationError } = await import('../../operations/registration/errors');
    const { registerEndpoint } = await import('../../operations/registration/register-flow');
    const { randomSecret } = await import('../../operations/signed-delivery');
    try {
      const registrar = (await entry.load())({
        credential,
        ...(options.apiBase ? { apiBase: options.apiBase } : {}),
        ...(options.repo ? { repo: options.repo } : {}),
        ...(options.org ? { org: options.org } : {}),
        ...(options.mode ? { mode: options.mode } : {}),
      });
      const outcome = await registerEndpoint({
        registrar,
        secrets: target.secrets,
        providerId: provider.id,
        url,
        events: options.events,
        replace: !!options.replace,
        generateSecret: () => randomSecret(provider),
      });
      const location = target.secrets.location(provider.id);
      if (options.json) {
        printJson({
          provider: provider.id,
          url,
          outcome: outcome.kind,
          ...(outcome.kind === 'exists' ? { endpoints: outcome.endpoints } : { endpoint: outcome.endpoint }),
          ...(outcome.kind === 'replaced' ? { deleted: outcome.deleted.map((e) => e.id) } : {}),
          secretLocation: location,
        });
        return 0;
      }
      if (outcome.kind === 'exists') {
        const ids = outcome.endpoints.map((e) => e.id).join(', ');
        print(`${registrar.name} already has endpoint ${ids} for ${url}: nothing changed.`);
        print(pc.dim(`--replace gives it a new secret without a refused delivery.`));
        return 0;
      }
      const verb = outcome.kind === 'created' ? 'registered' : 'replaced the secret of';
      print(`${pc.green(`${verb} ${registrar.name} endpoint ${outcome.endpoint.id}`)} for ${url}`);
      print(`secret stored in ${location}; the one before stays valid as the previous one`);
      if (outcome.kind === 'replaced' && outcome.deleted.length > 0) {
        print(
          `deleted the older endpoint${outcome.deleted.length > 1 ? 's' : ''} ${outcome.deleted.map((e) => e.id).join(', ')}`,
        );
      }
      print(
        pc.dim(
          `\`${CLI} endpoints status${options.stack ? ` --stack ${options.stack}` : ''}\` shows whether ${registrar.name} has signed with it yet.`,
        ),
      );
      return 0;
    } catch (error) {
      if (error instanceof RegistrationError) throw new CliError(error.message, error.reason);
      throw error;
    }
  } finally {
    target.close();
  }
}

/**
 * Slack, Shopify, Zoom: the steps to the secret in the provider's dashboard, the secret from stdin, then
 * the steps that save the URL (a URL check the provider sends then finds the secret stored).
 */
async function registerByHand(
  provider: ResolvedProvider,
  config: Config,
  cwd: string,
  options: RegisterOptions,
  requestedUrl: string | undefined,
  io: RegisterIo,
): Promise<number> {
  const { MANUAL_SECRETS } = await import('../../operations/registration/manual-secrets');
  const { resolveSecretsTarget } = await import('../../shared/target');
  const { readAndStoreSecret } = await import('../../operations/registration/store-manual-secret');
  const target = await resolveSecretsTarget(options, config, cwd);
  try {
    const url = requestedUrl ?? target.endpointUrl(provider.id);
    const manual = MANUAL_SECRETS[provider.scheme];
    // The steps go to stderr: stdout stays the one JSON document with --json.
    const say = (line: string) => io.prompt.write(`${line}\n`);
    say(`${provider.id} has no API that returns its signing secret. In its dashboard:`);
    const findSecret = manual?.findSecret ?? [];
    findSecret.forEach((step, index) => {
      say(`  ${index + 1}. ${step}`);
    });
    say('Then paste the secret here (or pipe it in); it is not shown.');
    const versions = await readAndStoreSecret(provider, target.secrets, url, io);
    const location = target.secrets.location(provider.id);
    say('Secret stored. Now save the URL:');
    (manual?.saveUrl(url) ?? []).forEach((step, index) => {
      say(`  ${findSecret.length + index + 1}. ${step}`);
    });
    if (options.json)
      printJson({ provider: provider.id, url, outcome: 'secret-stored', secretLocation: location });
    else
      print(
        `${pc.green(`stored the ${provider.id} secret`)} in ${location} (${versions.length} accepted now)`,
      );
    return 0;
  } finally {
    target.close();
  }
}
