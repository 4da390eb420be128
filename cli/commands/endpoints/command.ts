// `webhook-inbox endpoints`: for each provider, the URL to register, where it goes in the provider's
// dashboard, and which secret to use.
import type { Command } from 'commander';
import pc from 'picocolors';
import { CLI } from '../../shared/hint';
import { addJsonOption, addTargetOptions, type JsonOption, type TargetOptions } from '../../shared/options';
import { print, printJson } from '../../shared/output';
import { registerEndpointsRegister } from './register';
import { registerEndpointsStatus } from './status';

export function registerEndpoints(program: Command): void {
  const command = program
    .command('endpoints')
    .description('the URL to register with each provider, where to paste it, and which secret to use');
  addTargetOptions(command);
  addJsonOption(command);
  command.action(async (options: TargetOptions & JsonOption) => {
    process.exitCode = await runEndpoints(options);
  });
  // Subcommands beside the plain listing: `endpoints` alone still prints the URLs. Positional options (and
  // the program's), so `endpoints register x --stack s` gives --stack to `register`, not to the listing.
  command.enablePositionalOptions();
  registerEndpointsRegister(command);
  registerEndpointsStatus(command);
}

async function runEndpoints(options: TargetOptions & JsonOption): Promise<number> {
  const { loadProject } = await import('../../shared/project');
  const { config, cwd } = await loadProject();
  const { resolveTarget } = await import('../../shared/target');
  const { GUIDES } = await import('../../operations/provider-guides');
  const target = await resolveTarget(options, config, cwd);
  try {
    const endpoints = Object.values(config.providers).map((provider) => {
      const guide = GUIDES[provider.scheme];
      const location = target.secrets.location(provider.id);
      // Not a secret but what to do about it: every other --json output's `secret` is a secret itself.
      const secretHint =
        guide.issuer === 'you'
          ? `use the inbox's secret: \`${CLI} secrets show ${provider.id} --reveal\` (${location})`
          : `copy ${guide.name}'s secret into the inbox: \`${CLI} secrets rotate ${provider.id} --value <secret>\` (${location})`;
      const url = target.endpointUrl(provider.id);
      const squareUrl =
        provider.scheme === 'square'
          ? `Square signs the URL: register exactly ${provider.options && 'notificationUrl' in provider.options && provider.options.notificationUrl ? provider.options.notificationUrl : url}`
          : undefined;
      return {
        provider: provider.id,
        scheme: provider.scheme,
        url,
        where: guide.where,
        secretIssuer: guide.issuer,
        secretHint,
        ...(squareUrl ? { note: squareUrl } : {}),
      };
    });
    if (options.json) {
      printJson(endpoints);
      return 0;
    }
    print(pc.dim(`endpoints of the ${target.description}`));
    if (target.kind === 'local') {
      print(
        pc.yellow(
          'local URLs are reachable from this machine only: for a real provider, deploy, or expose the port through a tunnel',
        ),
      );
    }
    for (const e of endpoints) {
      print();
      print(`${pc.bold(e.provider)} ${pc.dim(`(${e.scheme})`)}`);
      print(`  url     ${pc.cyan(e.url)}`);
      print(`  where   ${e.where}`);
      print(`  secret  ${e.secretHint}`);
      if (e.note) print(`  note    ${e.note}`);
    }
    print();
    print(
      pc.dim(`After registering: \`${CLI} selftest <provider>\` runs the verification drill against it.`),
    );
    return 0;
  } finally {
    target.close();
  }
}
