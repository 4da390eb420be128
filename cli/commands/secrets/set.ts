// `webhook-inbox secrets set <provider>`: stores a secret the provider shows in its dashboard, read once
// from standard input (typed without echo, or piped) so that it lands neither in argv nor in shell history.
// Trimmed, checked for the provider's format, refused if it fails; the secret before stays valid as the
// previous one.
import type { Command } from 'commander';
import pc from 'picocolors';
import { addHelpAfter } from '../../shared/help-text';
import { CLI } from '../../shared/hint';
import { addJsonOption, addTargetOptions, type JsonOption, type TargetOptions } from '../../shared/options';
import { print, printJson } from '../../shared/output';

export function registerSecretsSet(secrets: Command): void {
  const set = secrets
    .command('set')
    .description('store the secret a provider shows you, read from standard input (never an argument)')
    .argument('<provider>', 'provider id');
  addTargetOptions(set);
  addJsonOption(set);
  addHelpAfter(set, [
    'The secret is read from standard input: typed (not echoed), or piped from a password manager:',
    `$ ${CLI} secrets set slack`,
    `$ op read op://vault/slack/signing-secret | ${CLI} secrets set slack --stack my-inbox`,
  ]);
  set.action(async (providerId: string, options: TargetOptions & JsonOption) => {
    const { loadProject, providerOf } = await import('../../shared/project');
    const { config, cwd } = await loadProject();
    const provider = providerOf(config, providerId);
    const { resolveSecretsTarget } = await import('../../shared/target');
    const { readAndStoreSecret } = await import('../../operations/registration/store-manual-secret');
    const target = await resolveSecretsTarget(options, config, cwd);
    try {
      const versions = await readAndStoreSecret(provider, target.secrets, target.endpointUrl(provider.id), {
        stdin: process.stdin,
        prompt: process.stderr,
      });
      const location = target.secrets.location(provider.id);
      if (options.json) printJson({ provider: provider.id, location, accepted: versions.length });
      else {
        print(`${pc.green(`stored the ${provider.id} secret`)} in ${location}`);
        print(
          versions.length > 1
            ? 'accepted now: this secret and the previous one; anything older gets 401.'
            : 'accepted now: this secret only.',
        );
      }
      process.exitCode = 0;
    } finally {
      target.close();
    }
  });
}
