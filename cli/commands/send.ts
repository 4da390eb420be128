// `webhook-inbox send <provider>`: one delivery signed exactly as the provider signs it, posted to the
// inbox; prints the answer and the dedup key the inbox files it under.
import { type Command, Option } from 'commander';
import pc from 'picocolors';
import type { ResolvedProvider } from '../../config';
import type { SendOutcome } from '../operations/send-outcome';
import { addHelpAfter } from '../shared/help-text';
import { CLI } from '../shared/hint';
import {
  addJsonOption,
  addTargetOptions,
  duration,
  httpUrl,
  integer,
  type JsonOption,
  type TargetOptions,
} from '../shared/options';
import {
  CliError,
  details,
  parseDuration,
  print,
  printJson,
  shellWord,
  statusColour,
  styled,
} from '../shared/output';
import type { Target } from '../shared/target-types';

interface SendOptions extends TargetOptions, JsonOption {
  event?: string;
  file?: string;
  url?: string;
  secret?: string;
  id?: string;
  repeat: number;
  /** False with --no-wait. */
  wait: boolean;
  waitTimeout: number;
}

const DEFAULT_WAIT = '60s';

export function registerSend(program: Command): void {
  const command = program
    .command('send')
    .description('send a correctly signed sample event (or your own file) to the inbox')
    .argument('<provider>', `provider id from cdk.json (list them with \`${CLI} endpoints\`)`)
    .option('--event <type>', "which sample event (default: the provider's most common one)")
    .option('--file <path>', "send this file's exact bytes instead of a sample")
    .option('--url <url>', "post here instead of the target's /webhooks/<provider>", httpUrl)
    .option('--secret <secret>', "sign with this secret instead of the provider's newest one")
    .option('--id <id>', 'delivery id for schemes that send one (default: new per sample, fixed per file)')
    .option('--repeat <n>', 'send the identical bytes n times (a provider retry)', integer(1, 1000), 1)
    .option('--no-wait', 'print the answer and stop, without waiting for the outcome')
    // The default as written (60s), not as parsed (60000): commander prints whichever it is given.
    .addOption(
      new Option('--wait-timeout <duration>', 'how long to wait for the outcome')
        .argParser(duration)
        .default(parseDuration(DEFAULT_WAIT), DEFAULT_WAIT),
    );
  addTargetOptions(command);
  addJsonOption(command);
  addHelpAfter(command, [
    'Every sample gets fresh ids and a fresh timestamp, so each send is a new delivery (202); --repeat and a second send of the same --file are the same delivery again (200 duplicate).',
    '',
    `After a 202, send follows the delivery's inbox record and prints the outcome: "202, then processed", "202, then dead-lettered (<code>)", or "still pending" when --wait-timeout runs out (a failed attempt waiting for its retry). The exit code is the answer's: 0 for 2xx, whatever the outcome.`,
    '',
    'Examples:',
    `$ ${CLI} send github --event push`,
    `$ ${CLI} send stripe --file evt.json --repeat 2`,
    `$ ${CLI} send standard-webhooks --event webhook-inbox.demo.transient`,
    `$ ${CLI} send standard-webhooks --event webhook-inbox.demo.permanent`,
    `$ ${CLI} send github --stack my-inbox --region eu-west-1`,
  ]);
  command.action(async (provider: string, options: SendOptions) => {
    process.exitCode = await runSend(provider, options);
  });
}

async function runSend(providerId: string, options: SendOptions): Promise<number> {
  const { loadProject, providerOf } = await import('../shared/project');
  const { config, cwd } = await loadProject();
  const provider = providerOf(config, providerId);

  let fileBody: Buffer | undefined;
  if (options.file !== undefined) {
    const { readFile } = await import('node:fs/promises');
    try {
      fileBody = await readFile(options.file);
    } catch (error) {
      throw new CliError(`cannot read ${options.file}: ${(error as NodeJS.ErrnoException).code ?? error}`);
    }
  }

  // With both --url and --secret nothing else is needed to send: no local instance, no stack. The wait
  // for the outcome reads the target's inbox, so it needs one (--stack names it).
  const needsTarget =
    options.secret === undefined ||
    options.url === undefined ||
    (options.wait && options.stack !== undefined);
  let target: Target | undefined;
  if (needsTarget) {
    const { resolveTarget } = await import('../shared/target');
    target = await resolveTarget(options, config, cwd);
  }
  try {
    return await sendAndWait(provider, options, fileBody, target);
  } finally {
    target?.close();
  }
}

async function sendAndWait(
  provider: ResolvedProvider,
  options: SendOptions,
  fileBody: Buffer | undefined,
  target: Target | undefined,
): Promise<number> {
  const delivery = await import('../operations/signed-delivery');
  const url = options.url ?? (target as Target).endpointUrl(provider.id);
  let secret = options.secret;
  if (secret === undefined && target) {
    secret = (await target.secrets.list(provider.id))[0];
    if (secret === undefined) {
      throw new CliError(
        `no secret for ${provider.id} in ${target.secrets.location(provider.id)}`,
        `set one with \`${CLI} secrets rotate ${provider.id}\``,
      );
    }
  }
  if (secret === undefined) throw new CliError('no secret to sign with');

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
  const dedupKey = check.ok ? check.dedupKey : undefined;
  const printResponses = () =>
    responses.forEach((response, index) => {
      const prefix = responses.length > 1 ? `${String(index + 1).padStart(3)}. ` : '';
      const answer = typeof response.answer === 'string' ? response.answer : JSON.stringify(response.answer);
      print(`${prefix}${statusColour(response.status)(pc.bold(String(response.status)))} ${answer}`);
    });
  const facts = {
    provider: provider.id,
    scheme: provider.scheme,
    url,
    eventType: check.ok ? (check.eventType ?? signed.eventType) : signed.eventType,
    deliveryId: signed.deliveryId,
    dedupKey,
    localCheck: check.ok ? 'valid' : check.reason,
    bytes: signed.body.length,
    signedAt: new Date(signed.timestamp * 1000).toISOString(),
    status: last.status,
    answer: last.answer,
    responses,
  };
  const printHead = () => {
    print(`${pc.bold('POST')} ${url}`);
    print(
      details([
        ['provider', `${provider.id} (scheme ${provider.scheme})`],
        ['event', facts.eventType],
        [
          'dedup key',
          dedupKey ?? styled(pc.yellow(`unknown: fails local verification (${facts.localCheck})`)),
        ],
        ['delivery id', facts.deliveryId],
        ['body', `${facts.bytes} bytes${fileBody ? ` from ${options.file}` : ' (sample)'}`],
        ['signed at', facts.signedAt],
      ]),
    );
    printResponses();
  };
  const exitCode = responses.every((r) => r.status >= 200 && r.status < 300) ? 0 : 1;
  const accepted = responses.some((r) => r.status === 202);
  const waitText = `${options.waitTimeout / 1000}s`;
  let outcome: SendOutcome;
  if (!options.wait) outcome = { result: 'not_waited', reason: 'no_wait' };
  else if (!accepted) outcome = { result: 'not_waited', reason: 'not_accepted' };
  else if (!target) outcome = { result: 'not_waited', reason: 'no_inbox' };
  else if (dedupKey === undefined) outcome = { result: 'not_waited', reason: 'unknown_key' };
  else {
    const { DynamoInbox } = await import('../../lambdas/adapters/dynamo-inbox');
    const { describeProgress, waitForOutcome } = await import('../operations/send-outcome');
    const inbox = new DynamoInbox((await target.clients()).dynamodb, target.tableName);
    if (!options.json) {
      printHead();
      print(pc.dim(`waiting for the outcome (up to ${waitText}; --no-wait skips this)...`));
    }
    outcome = await waitForOutcome(
      () => inbox.get(`${provider.id}#${dedupKey}`),
      { timeoutMs: options.waitTimeout, pollMs: 250 },
      (attempt, failedSoFar) => {
        if (!options.json) print(`  ${pc.yellow(describeProgress(attempt, failedSoFar))}`);
      },
    );
  }
  const result = { ...facts, outcome };

  if (options.json) {
    printJson(result);
    return exitCode;
  }
  const { describeOutcome } = await import('../operations/send-outcome');
  const waited = outcome.result !== 'not_waited';
  if (!waited) printHead();
  // Nothing to add when nothing was queued, or the user asked not to wait.
  if (outcome.result === 'not_waited' && outcome.reason !== 'no_inbox' && outcome.reason !== 'unknown_key') {
    return exitCode;
  }
  const colour =
    outcome.result === 'processed' ? pc.green : outcome.result === 'dead-lettered' ? pc.red : pc.yellow;
  const line = describeOutcome(outcome, waitText);
  print(waited ? colour(`202, ${line}`) : pc.dim(line));
  if (outcome.result === 'dead-lettered') {
    print(
      pc.dim(
        `see it with \`${CLI} dlq list\` or \`${CLI} deliveries show ${provider.id} ${shellWord(dedupKey ?? '')}\``,
      ),
    );
  } else if (outcome.result === 'pending') {
    print(pc.dim(`follow it with \`${CLI} deliveries show ${provider.id} ${shellWord(dedupKey ?? '')}\``));
  }
  return exitCode;
}
