// `webhook-inbox send <provider>`: one delivery signed exactly as the provider signs it, posted to the
// inbox; prints the answer and the dedup key the inbox files it under.
import type { Command } from 'commander';
import pc from 'picocolors';
import {
  addJsonOption,
  addTargetOptions,
  httpUrl,
  integer,
  type JsonOption,
  type TargetOptions,
} from './options';
import { CliError, details, print, printJson, statusColour } from './output';

interface SendOptions extends TargetOptions, JsonOption {
  event?: string;
  file?: string;
  url?: string;
  secret?: string;
  id?: string;
  repeat: number;
}

export function registerSend(program: Command): void {
  const command = program
    .command('send')
    .description('send a correctly signed sample event (or your own file) to the inbox')
    .argument('<provider>', 'provider id from cdk.json (list them with `webhook-inbox endpoints`)')
    .option('--event <type>', "which sample event (default: the provider's most common one)")
    .option('--file <path>', "send this file's exact bytes instead of a sample")
    .option('--url <url>', "post here instead of the target's /webhooks/<provider>", httpUrl)
    .option('--secret <secret>', "sign with this secret instead of the provider's newest one")
    .option('--id <id>', 'delivery id for schemes that send one (default: new per sample, fixed per file)')
    .option('--repeat <n>', 'send the identical bytes n times (a provider retry)', integer(1, 1000), 1);
  addTargetOptions(command);
  addJsonOption(command);
  command.addHelpText(
    'after',
    `
Every sample gets fresh ids and a fresh timestamp, so each send is a new delivery (202); --repeat
and a second send of the same --file are the same delivery again (200 duplicate).

Examples:
  $ webhook-inbox send github --event push
  $ webhook-inbox send stripe --file evt.json --repeat 2
  $ webhook-inbox send standard-webhooks --event webhook-inbox.demo.transient
  $ webhook-inbox send standard-webhooks --event webhook-inbox.demo.permanent
  $ webhook-inbox send github --stack my-inbox --region eu-west-1`,
  );
  command.action(async (provider: string, options: SendOptions) => {
    process.exitCode = await runSend(provider, options);
  });
}

async function runSend(providerId: string, options: SendOptions): Promise<number> {
  const { loadProject, providerOf } = await import('./context');
  const { config, cwd } = await loadProject();
  const provider = providerOf(config, providerId);
  const delivery = await import('./delivery');

  let fileBody: Buffer | undefined;
  if (options.file !== undefined) {
    const { readFile } = await import('node:fs/promises');
    try {
      fileBody = await readFile(options.file);
    } catch (error) {
      throw new CliError(`cannot read ${options.file}: ${(error as NodeJS.ErrnoException).code ?? error}`);
    }
  }

  // With both --url and --secret nothing else is needed: no local instance, no stack.
  let secret = options.secret;
  let url = options.url;
  let secrets: string[] = secret === undefined ? [] : [secret];
  if (secret === undefined || url === undefined) {
    const { resolveTarget } = await import('./target');
    const target = await resolveTarget(options, config, cwd);
    try {
      url ??= target.endpointUrl(provider.id);
      if (secret === undefined) {
        secrets = await target.secrets.list(provider.id);
        secret = secrets[0];
        if (secret === undefined) {
          throw new CliError(
            `no secret for ${provider.id} in ${target.secrets.location(provider.id)}`,
            `set one with \`webhook-inbox secrets rotate ${provider.id}\``,
          );
        }
      }
    } finally {
      target.close();
    }
  }

  const nowMs = Date.now();
  const unsigned =
    fileBody === undefined
      ? delivery.sampleDelivery(provider, { event: options.event, nowMs, url })
      : delivery.fileDelivery(provider, { body: fileBody, event: options.event, id: options.id });
  if (options.id !== undefined) unsigned.deliveryId = options.id;
  const signed = delivery.signDelivery(provider, unsigned, {
    secret,
    timestamp: Math.floor(nowMs / 1000),
    url,
  });
  // The dedup key as the verify Lambda computes it: the scheme's own verify, over what we send.
  const check = delivery.checkLocally(provider, { body: signed.body, headers: signed.headers, url }, [
    secret,
  ]);

  const responses: { status: number; answer: unknown }[] = [];
  for (let i = 0; i < options.repeat; i++) {
    responses.push(await delivery.post(url, signed.body, signed.headers));
  }
  const last = responses[responses.length - 1] as { status: number; answer: unknown };
  const result = {
    provider: provider.id,
    scheme: provider.scheme,
    url,
    eventType: check.ok ? (check.eventType ?? signed.eventType) : signed.eventType,
    deliveryId: signed.deliveryId,
    dedupKey: check.ok ? check.dedupKey : undefined,
    localCheck: check.ok ? 'valid' : check.reason,
    bytes: signed.body.length,
    signedAt: new Date(signed.timestamp * 1000).toISOString(),
    status: last.status,
    answer: last.answer,
    responses,
  };

  if (options.json) {
    printJson(result);
  } else {
    print(`${pc.bold('POST')} ${url}`);
    print(
      details([
        ['provider', `${provider.id} (scheme ${provider.scheme})`],
        ['event', result.eventType],
        [
          'dedup key',
          result.dedupKey ?? pc.yellow(`unknown: fails local verification (${result.localCheck})`),
        ],
        ['delivery id', result.deliveryId],
        ['body', `${result.bytes} bytes${fileBody ? ` from ${options.file}` : ' (sample)'}`],
        ['signed at', result.signedAt],
      ]),
    );
    responses.forEach((response, index) => {
      const prefix = responses.length > 1 ? `${String(index + 1).padStart(3)}. ` : '';
      const answer = typeof response.answer === 'string' ? response.answer : JSON.stringify(response.answer);
      print(`${prefix}${statusColour(response.status)(pc.bold(String(response.status)))} ${answer}`);
    });
  }
  return responses.every((r) => r.status >= 200 && r.status < 300) ? 0 : 1;
}
