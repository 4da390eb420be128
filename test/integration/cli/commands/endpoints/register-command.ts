// The harness the signed-delivery tests share: a temporary project with a running local instance, and the
// real `webhook-inbox endpoints register|status` run as a child process against a provider's local API,
// the credential in the provider's environment variable (never argv). Each test file brings its own fake
// provider API and signs deliveries with the provider's own library.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { LocalInbox } from '../../../../../local/local-inbox';
import { type CliResult, json, makeProject, readSecrets, startInstance } from '../../../../e2e/cli/helpers';
import { runCliWith } from '../../../../e2e/cli/run-with-input';

export interface RegisterCommandInput {
  /** The provider id in the project's configuration, and the last segment of its webhook path. */
  providerId: string;
  /** Where the command reads the credential. */
  credentialEnv: string;
  /** The public URL (a tunnel) registered with the provider. */
  publicUrl: string;
  /** `providers` for the project's cdk.json; the shipped default (one per scheme) when absent. */
  providers?: Record<string, unknown>;
  /** The provider's local API, for `--api-base`: read when a command runs, after the fake has started. */
  apiBase: () => string;
  /** Arguments every register run takes besides --url and --api-base (GitHub's --repo, Stripe's --mode). */
  registerArgs?: readonly string[];
  /** Arguments every status run takes besides --url, --api-base and --json (GitHub's --repo). */
  statusArgs?: readonly string[];
}

export interface RegisterCommand {
  readonly dir: string;
  readonly inbox: LocalInbox;
  /** `endpoints register <provider> --url <publicUrl> --api-base <fake> ...extra` with `credential` in the env. */
  register(credential: string, ...extra: string[]): Promise<CliResult>;
  /** The same, the credential piped to --token-stdin, the env variable unset. */
  registerWithStdin(credential: string, ...extra: string[]): Promise<CliResult>;
  /** `endpoints status <provider> --json` for the public URL, against the fake. */
  status(credential: string): Promise<CliResult>;
  /** The provider's secrets in the local secrets file, newest first. */
  secrets(): string[];
  /** Posts a delivery to the running inbox; the HTTP status it answered. */
  post(headers: Record<string, string>, body: string | Buffer): Promise<number>;
}

/** Registers the hooks that start the instance before the file's tests and remove it after. */
export function useRegisterCommand(input: RegisterCommandInput): RegisterCommand {
  const project = makeProject();
  if (input.providers) {
    const file = join(project.dir, 'cdk.json');
    const cdk = JSON.parse(readFileSync(file, 'utf8'));
    cdk.context.webhookInbox.providers = input.providers;
    writeFileSync(file, JSON.stringify(cdk, null, 2));
  }
  let inbox: LocalInbox | undefined;
  beforeAll(async () => {
    inbox = await startInstance(project.dir);
  }, 120_000);
  afterAll(async () => {
    await inbox?.stop();
    project.remove();
  }, 60_000);

  const registerArgs = (extra: string[]) => [
    'endpoints',
    'register',
    input.providerId,
    ...(input.registerArgs ?? []),
    '--url',
    input.publicUrl,
    '--api-base',
    input.apiBase(),
    ...extra,
  ];
  return {
    dir: project.dir,
    get inbox() {
      if (!inbox) throw new Error('the local instance has not started');
      return inbox;
    },
    register: (credential, ...extra) =>
      runCliWith(project.dir, registerArgs(extra), { env: { [input.credentialEnv]: credential } }),
    registerWithStdin: (credential, ...extra) =>
      runCliWith(project.dir, registerArgs(['--token-stdin', ...extra]), {
        input: `${credential}\n`,
        env: { [input.credentialEnv]: undefined },
      }),
    status: (credential) =>
      runCliWith(
        project.dir,
        [
          'endpoints',
          'status',
          input.providerId,
          ...(input.statusArgs ?? []),
          '--url',
          input.publicUrl,
          '--api-base',
          input.apiBase(),
          '--json',
        ],
        { env: { [input.credentialEnv]: credential } },
      ),
    secrets: () => readSecrets(project.dir)[input.providerId] ?? [],
    post: async (headers, body) => {
      const answer = await fetch(`${inbox?.state.gatewayUrl}/webhooks/${input.providerId}`, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(30_000),
      });
      await answer.arrayBuffer();
      return answer.status;
    },
  };
}

/** What `endpoints status --json` says for one provider. */
export function statusRow(
  result: CliResult,
  providerId: string,
): { provider: string; registered: string; signedSince: string } | undefined {
  return json<{ provider: string; registered: string; signedSince: string }[]>(result).find(
    (row) => row.provider === providerId,
  );
}
