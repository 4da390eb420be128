// `webhook-inbox destinations list|show|test|enable|rotate`: where verified events are forwarded. The
// state (enabled, or disabled by a 410 Gone) and the counts come from the inbox table; the queues' depths
// from SQS; a test delivery goes through the forwarder's own senders.
import type { Command } from 'commander';
import pc from 'picocolors';
import type { ResolvedDestination } from '../../config';
import { formatDuration } from '../../lambdas/core/retry-schedule';
import { addHelpAfter } from '../shared/help-text';
import { CLI } from '../shared/hint';
import { addJsonOption, addTargetOptions, type JsonOption, type TargetOptions } from '../shared/options';
import {
  CliError,
  dash,
  details,
  displayUrl,
  listedSecrets,
  maskSecret,
  print,
  printJson,
  table,
  UsageError,
} from '../shared/output';
import type { Target } from '../shared/target-types';

interface RevealOption {
  reveal?: boolean;
}

export function registerDestinations(program: Command): void {
  const destinations = program
    .command('destinations')
    .description('where verified events are forwarded: state, counts, test deliveries, secrets');

  const list = destinations.command('list').description('every destination, its state and its last 24 hours');
  addTargetOptions(list);
  addJsonOption(list);
  list.action((options: TargetOptions & JsonOption) =>
    withTarget(options, (target) => runList(target, options)),
  );

  const show = destinations
    .command('show')
    .description('one destination; its signing secret with --reveal, to verify what it receives')
    .argument('<id>', 'destination id')
    .option('--reveal', 'print the signing secret itself');
  addTargetOptions(show);
  addJsonOption(show);
  show.action((id: string, options: TargetOptions & JsonOption & RevealOption) =>
    withTarget(options, (target) => runShow(target, id, options)),
  );

  const test = destinations
    .command('test')
    .description('send a signed test event to the destination now and print its answer')
    .argument('<id>', 'destination id');
  addTargetOptions(test);
  addJsonOption(test);
  addHelpAfter(test, [
    `The test event is {"type":"webhook-inbox.test", ...} from provider "webhook-inbox", signed like every forwarded delivery, with a webhook-id of its own. It is sent from this machine through the forwarder's senders (the SSRF guard included), once, without retries, and changes no state: a 410 is reported, not acted on. On a stack, an http destination reachable only from inside the VPC cannot be tested so.`,
  ]);
  test.action((id: string, options: TargetOptions & JsonOption) =>
    withTarget(options, (target) => runTest(target, id, options)),
  );

  const enable = destinations
    .command('enable')
    .description('resume a destination that was disabled (it answered 410 Gone)')
    .argument('<id>', 'destination id');
  addTargetOptions(enable);
  addJsonOption(enable);
  enable.action((id: string, options: TargetOptions & JsonOption) =>
    withTarget(options, (target) => runEnable(target, id, options)),
  );

  const rotate = destinations
    .command('rotate')
    .description('store a new signing secret for an http destination; it signs with both until the next one')
    .argument('<id>', 'destination id')
    .option('--value <secret>', 'the new secret, whsec_<base64> (default: a random one)');
  addTargetOptions(rotate);
  addJsonOption(rotate);
  addHelpAfter(rotate, [
    `Every forwarded request carries one signature per secret, newest first, in webhook-signature: the receiving service verifies with either. Give it the new secret (destinations show <id> --reveal), and at the next rotation the old one is dropped.`,
  ]);
  rotate.action((id: string, options: TargetOptions & JsonOption & { value?: string }) =>
    withTarget(options, (target) => runRotate(target, id, options)),
  );
}

async function withTarget<T extends TargetOptions>(options: T, run: (target: Target) => Promise<number>) {
  const { loadProject } = await import('../shared/project');
  const { config, cwd } = await loadProject();
  const { resolveTarget } = await import('../shared/target');
  const target = await resolveTarget(options, config, cwd);
  try {
    process.exitCode = await run(target);
  } finally {
    target.close();
  }
}

function destinationOf(target: Target, id: string): ResolvedDestination {
  const { destinations } = target.config;
  const destination = Object.hasOwn(destinations, id) ? destinations[id] : undefined;
  if (!destination) {
    throw new UsageError(`unknown destination "${id}"; configured: ${Object.keys(destinations).join(', ')}`);
  }
  return destination;
}

/** Where a destination sends to, as one line. */
function targetText(destination: ResolvedDestination): string {
  switch (destination.type) {
    case 'http':
      return displayUrl(destination.url);
    case 'eventbridge':
      return destination.busArn ?? "the stack's event bus";
    case 'sqs':
      return destination.queueArn;
    case 'handlers':
      return 'lambdas/events (typed handlers)';
  }
}

function filterText(destination: ResolvedDestination): string {
  const { providers, eventTypes } = destination.filter;
  return `${providers?.join(',') ?? '*'} / ${eventTypes?.join(',') ?? '*'}`;
}

async function states(target: Target) {
  const { DynamoDestinationStates } = await import('../../lambdas/adapters/dynamo-destination-states');
  return new DynamoDestinationStates((await target.clients()).dynamodb, target.tableName, { cacheMs: 0 });
}

interface Listed {
  id: string;
  type: string;
  target: string;
  filter: ResolvedDestination['filter'];
  state: 'enabled' | 'disabled' | 'built-in';
  disabledReason?: string;
  changedAt?: string;
  last24h?: { delivered: number; failed: number };
  queued?: number;
  deadLettered?: number;
}

async function runList(target: Target, options: JsonOption): Promise<number> {
  const store = await states(target);
  const { SqsQueueOps } = await import('../../lambdas/adapters/sqs-queue-ops');
  const ops = new SqsQueueOps((await target.clients()).sqs);
  const nowMs = Date.now();
  const listed: Listed[] = await Promise.all(
    Object.values(target.config.destinations).map(async (destination): Promise<Listed> => {
      const base = {
        id: destination.id,
        type: destination.type,
        target: targetText(destination),
        filter: destination.filter,
      };
      if (destination.type === 'handlers') return { ...base, state: 'built-in' };
      const [status, last24h, depths] = await Promise.all([
        store.status(destination.id),
        store.recent(destination.id, 24, nowMs),
        queueDepths(ops, target, destination.id),
      ]);
      return {
        ...base,
        state: status.enabled ? 'enabled' : 'disabled',
        ...(status.enabled ? {} : { disabledReason: status.reason, changedAt: status.changedAt }),
        last24h,
        ...depths,
      };
    }),
  );
  if (options.json) {
    printJson(listed);
    return 0;
  }
  print(
    table(
      ['id', 'type', 'state', 'delivered 24h', 'failed 24h', 'queued', 'dlq', 'filter', 'target'],
      listed.map((d) => [
        d.id,
        d.type,
        d.state === 'disabled'
          ? pc.red(`disabled (${d.disabledReason ?? '?'})`)
          : d.state === 'enabled'
            ? pc.green(d.state)
            : d.state,
        dash(d.last24h?.delivered),
        dash(d.last24h?.failed),
        dash(d.queued),
        dash(d.deadLettered),
        filterText(d as unknown as ResolvedDestination),
        d.target,
      ]),
    ),
  );
  const disabled = listed.filter((d) => d.state === 'disabled');
  for (const d of disabled) {
    print(
      pc.yellow(
        `${d.id} is disabled: its deliveries wait (or dead-letter, per whenDisabled). Fix it, then \`${CLI} destinations enable ${d.id}\``,
      ),
    );
  }
  return 0;
}

async function queueDepths(
  ops: InstanceType<typeof import('../../lambdas/adapters/sqs-queue-ops').SqsQueueOps>,
  target: Target,
  id: string,
): Promise<{ queued?: number; deadLettered?: number }> {
  const made = target.destinations[id];
  if (!made) return {};
  const [queue, dlq] = await Promise.all([ops.counts(made.queueUrl), ops.counts(made.dlqUrl)]);
  return { queued: queue.visible + queue.inFlight + queue.delayed, deadLettered: dlq.visible + dlq.inFlight };
}

/**
 * `destinations show --json`: the shape a local service's setup script reads, the URL it is called on and
 * the secret to verify with. Both may hold credentials (a URL's userinfo and query), so both are masked as
 * the table prints them unless `reveal`.
 */
export function showJson(
  id: string,
  destination: ResolvedDestination,
  state: string,
  secret: string | null,
  reveal: boolean,
) {
  return {
    id,
    url: destination.type === 'http' ? (reveal ? destination.url : displayUrl(destination.url)) : null,
    secret: secret === null ? null : reveal ? secret : maskSecret(secret),
    revealed: reveal,
    state,
  };
}

async function runShow(target: Target, id: string, options: JsonOption & RevealOption): Promise<number> {
  const destination = destinationOf(target, id);
  const status = destination.type === 'handlers' ? undefined : await (await states(target)).status(id);
  const state = status === undefined ? 'built-in' : status.enabled ? 'enabled' : 'disabled';
  const secrets = destination.type === 'http' ? await target.destinationSecrets.list(id) : [];
  const { displaySecret } = await import('../../lambdas/core/destinations/signing');
  const current = secrets[0] === undefined ? null : displaySecret(secrets[0]);
  if (options.json) {
    printJson(showJson(id, destination, state, current, !!options.reveal));
    return 0;
  }
  print(
    details([
      ['id', id],
      ['type', destination.type],
      ['target', targetText(destination)],
      ['filter', filterText(destination)],
      [
        'state',
        status && !status.enabled
          ? `disabled (${status.reason ?? '?'}) since ${status.changedAt ?? '?'}`
          : state,
      ],
      ...(destination.type === 'handlers'
        ? []
        : ([['retries', destination.retrySchedule.map(formatDuration).join(' ')]] as const)),
      ...(destination.type === 'http'
        ? ([
            ['secret', current === null ? 'none' : options.reveal ? current : maskSecret(current)],
            [
              'timeouts',
              `connect ${destination.connectTimeoutSeconds}s, response ${destination.responseTimeoutSeconds}s`,
            ],
            ['internal', destination.internal ? 'yes: private addresses allowed' : 'no: SSRF guard on'],
          ] as const)
        : []),
    ]),
  );
  if (destination.type === 'http' && !options.reveal) {
    print(pc.dim('secret masked; add --reveal to print it (a credential: mind your terminal history)'));
  }
  return 0;
}

async function runTest(target: Target, id: string, options: JsonOption): Promise<number> {
  const destination = destinationOf(target, id);
  if (destination.type === 'handlers')
    throw new UsageError(`the handlers destination runs in the processor: use \`${CLI} send\``);
  const { sendTestDelivery } = await import('../operations/destination-test-delivery');
  const outcome = await sendTestDelivery(target, destination);
  if (options.json) {
    printJson(outcome);
  } else {
    const answer = outcome.status === undefined ? (outcome.code ?? 'accepted') : `HTTP ${outcome.status}`;
    const colour = outcome.verdict === 'delivered' ? pc.green : pc.red;
    print(`${colour(`${answer}`)} from ${id} in ${outcome.durationMs} ms: ${outcome.meaning}`);
    print(pc.dim(`webhook-id ${outcome.webhookId}`));
    if (outcome.note) print(pc.yellow(outcome.note));
  }
  return outcome.verdict === 'delivered' ? 0 : 1;
}

async function runEnable(target: Target, id: string, options: JsonOption): Promise<number> {
  const destination = destinationOf(target, id);
  if (destination.type === 'handlers') throw new UsageError('the handlers destination cannot be disabled');
  const store = await states(target);
  const before = await store.status(id);
  await store.enable(id, Date.now());
  if (target.kind === 'aws') {
    if (!target.forwarderFunctionName) {
      throw new CliError(
        `stack lacks the forwarder's name output`,
        'deploy the stack with destinations configured',
      );
    }
    const { createLambdaClient } = await import('../../lambdas/adapters/clients');
    const { LambdaDestinationIntake } = await import('../../lambdas/adapters/lambda-destination-intake');
    const client = createLambdaClient({ region: target.region });
    try {
      const queueArns = Object.fromEntries(
        Object.entries(target.destinations).map(([d, made]) => [d, made.queueArn]),
      );
      await new LambdaDestinationIntake(client, target.forwarderFunctionName, queueArns).resume(id);
    } finally {
      client.destroy();
    }
  }
  const { SqsQueueOps } = await import('../../lambdas/adapters/sqs-queue-ops');
  const depths = await queueDepths(new SqsQueueOps((await target.clients()).sqs), target, id);
  if (options.json) {
    printJson({ id, state: 'enabled', wasDisabled: !before.enabled, queued: depths.queued ?? 0 });
    return 0;
  }
  print(
    before.enabled
      ? `${id} was already enabled`
      : `${pc.green(`enabled ${id}`)} (disabled since ${before.changedAt ?? '?'}, ${before.reason ?? '?'})`,
  );
  if ((depths.queued ?? 0) > 0) {
    print(
      `${depths.queued} ${depths.queued === 1 ? 'delivery' : 'deliveries'} on its queue ${depths.queued === 1 ? 'is' : 'are'} sent as the wait ends (within five minutes, or one retry step for a delivery that was retrying).`,
    );
  }
  return 0;
}

async function runRotate(
  target: Target,
  id: string,
  options: JsonOption & { value?: string },
): Promise<number> {
  const destination = destinationOf(target, id);
  if (destination.type !== 'http') throw new UsageError(`${id} is not an http destination: only those sign`);
  const { newDestinationSecret, signatureHeader } = await import('../../lambdas/core/destinations/signing');
  const value = options.value ?? newDestinationSecret();
  try {
    signatureHeader([value], 'msg_check', 0, Buffer.from('{}'));
  } catch {
    throw new UsageError('--value is not a usable Standard Webhooks secret (whsec_ and base64)');
  }
  const versions = await target.destinationSecrets.rotate(id, value);
  // Masked: `destinations show <id> --reveal` prints the secret itself.
  const shown = listedSecrets(versions, false);
  if (options.json) {
    printJson({
      id,
      location: target.destinationSecrets.location(id),
      revealed: false,
      secrets: shown,
    });
    return 0;
  }
  print(`${pc.green(`rotated the signing secret of ${id}`)} in ${target.destinationSecrets.location(id)}`);
  print(details(shown.map((s) => [s.label, s.secret] as const)));
  print(
    `${pc.bold('next:')} give ${destination.url}'s service the new secret (\`${CLI} destinations show ${id} --reveal\`); ` +
      'requests carry a signature for each of the two until the next rotation.',
  );
  return 0;
}
