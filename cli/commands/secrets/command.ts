// `webhook-inbox secrets rotate|show`: the signing secrets the inbox verifies with. Rotation keeps the
// previous secret valid (exactly one), so deliveries signed before the provider switches still verify.
import type { Command } from 'commander';
import pc from 'picocolors';
import { addHelpAfter } from '../../shared/help-text';
import { CLI } from '../../shared/hint';
import { addJsonOption, addTargetOptions, type JsonOption, type TargetOptions } from '../../shared/options';
import { details, listedSecrets, print, printJson, UsageError } from '../../shared/output';
import { registerSecretsSet } from './set';

interface RotateOptions extends TargetOptions, JsonOption {
  value?: string;
}

interface ShowOptions extends TargetOptions, JsonOption {
  reveal?: boolean;
}

export function registerSecrets(program: Command): void {
  const secrets = program.command('secrets').description("rotate, set or show a provider's signing secrets");

  const rotate = secrets
    .command('rotate')
    .description('store a new secret; the current one stays valid as the previous one')
    .argument('<provider>', 'provider id')
    .option('--value <secret>', "the new secret (default: a random one in the provider's format)");
  addTargetOptions(rotate);
  addJsonOption(rotate);
  addHelpAfter(rotate, [
    `After a rotation the inbox accepts the new secret and the one before it; anything older is refused. Locally this rewrites .webhook-inbox/secrets.json, with or without a running instance (one that runs picks it up at once); on AWS it is PutSecretValue (the old version becomes AWSPREVIOUS; warm Lambdas refresh within seconds of the first signature they cannot check).`,
    '',
    'Providers that issue their own secrets (Stripe, Slack, Shopify, ...): roll it in their dashboard, then',
    `$ ${CLI} secrets rotate stripe --value whsec_...`,
    'Providers where you choose it (GitHub, Mobazha, partners): rotate here, then paste the new one there:',
    `$ ${CLI} secrets rotate github && ${CLI} secrets show github --reveal`,
  ]);
  rotate.action(async (provider: string, options: RotateOptions) => {
    process.exitCode = await runRotate(provider, options);
  });

  const show = secrets
    .command('show')
    .description('the current and previous secret (masked unless --reveal)')
    .argument('<provider>', 'provider id')
    .option('--reveal', 'print the secrets themselves');
  addTargetOptions(show);
  addJsonOption(show);
  show.action(async (provider: string, options: ShowOptions) => {
    process.exitCode = await runShow(provider, options);
  });

  registerSecretsSet(secrets);
}

async function open(providerId: string, options: TargetOptions) {
  const { loadProject, providerOf } = await import('../../shared/project');
  const { config, cwd } = await loadProject();
  const provider = providerOf(config, providerId);
  const { resolveSecretsTarget } = await import('../../shared/target');
  const target = await resolveSecretsTarget(options, config, cwd);
  return { provider, target };
}

async function runRotate(providerId: string, options: RotateOptions): Promise<number> {
  if (options.value !== undefined && (options.value === '' || options.value.trim() !== options.value)) {
    throw new UsageError('--value must be non-empty, without surrounding spaces or newlines');
  }
  const { provider, target } = await open(providerId, options);
  try {
    const { randomSecret, signDelivery } = await import('../../operations/signed-delivery');
    const { GUIDES, generatedSecretRefusal } = await import('../../operations/provider-guides');
    const refusal =
      options.value === undefined ? generatedSecretRefusal(GUIDES[provider.scheme], target.kind) : undefined;
    if (refusal !== undefined) throw new UsageError(`${refusal} (--value)`);
    const value = options.value ?? randomSecret(provider);
    // A secret the scheme cannot sign with (not whsec_ base64 for Standard Webhooks) would fail closed.
    try {
      signDelivery(
        provider,
        { body: Buffer.from('{}'), deliveryId: 'msg_check', extraHeaders: {} },
        { secret: value, timestamp: Math.floor(Date.now() / 1000), url: target.endpointUrl(provider.id) },
      );
    } catch {
      throw new UsageError(`--value is not a usable ${provider.scheme} secret`);
    }
    const versions = await target.secrets.rotate(provider.id, value);
    const guide = GUIDES[provider.scheme];
    const generatedForIssuer = options.value === undefined && guide.issuer === 'provider';
    const next =
      guide.issuer === 'you'
        ? `paste the new secret into ${guide.name}: ${guide.where} (print it with \`${CLI} secrets show ${provider.id} --reveal\`)`
        : generatedForIssuer
          ? `${guide.name} issues its own secrets, so this random one only suits local tests: roll the secret at ${guide.name} (${guide.where}) and store it with \`${CLI} secrets rotate ${provider.id} --value <secret>\``
          : `make sure ${guide.name} signs with this secret (${guide.where}); the previous one is accepted until the next rotation`;
    const shown = listedSecrets(versions, false);
    if (options.json) {
      printJson({
        provider: provider.id,
        location: target.secrets.location(provider.id),
        revealed: false,
        secrets: shown,
        next,
      });
    } else {
      print(`${pc.green(`rotated the ${provider.id} secret`)} in ${target.secrets.location(provider.id)}`);
      print(details(shown.map((s) => [s.label, s.secret] as const)));
      // Storing the current secret again leaves one version: say so rather than promise a previous one.
      print(
        versions.length > 1
          ? 'accepted now: the new secret and the previous one; anything older gets 401.'
          : 'accepted now: this secret only (it was already the current one, or there was none before).',
      );
      print(`${pc.bold('next:')} ${next}`);
    }
    return 0;
  } finally {
    target.close();
  }
}

async function runShow(providerId: string, options: ShowOptions): Promise<number> {
  const { provider, target } = await open(providerId, options);
  try {
    const secrets = await target.secrets.list(provider.id);
    const shown = listedSecrets(secrets, !!options.reveal);
    if (options.json) {
      printJson({
        provider: provider.id,
        location: target.secrets.location(provider.id),
        revealed: !!options.reveal,
        secrets: shown,
      });
      return 0;
    }
    print(`${provider.id} secrets in ${target.secrets.location(provider.id)}`);
    if (shown.length === 0) {
      print(
        pc.yellow(`none: every delivery fails closed; set one with \`${CLI} secrets rotate ${provider.id}\``),
      );
      return 0;
    }
    print(details(shown.map((s) => [s.label, s.secret] as const)));
    if (!options.reveal)
      print(pc.dim('masked; add --reveal to print them (they are credentials: mind your terminal history)'));
    return 0;
  } finally {
    target.close();
  }
}
