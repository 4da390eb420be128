// IAM, checked offline (the suite; the least-privilege-*.test.ts files pick its variants): every AWS call
// the three Lambdas and the `webhook-inbox` command make while a stack runs as deployed (deployed-stack.ts:
// accept, duplicate, conflict, a refused enqueue, a body in S3, one archived, every provider's secret,
// process, retry, give up, forward to each destination type with a retry and a destination gone, and the
// operator's commands, console pages and `doctor`), evaluated with @cloud-copilot/iam-simulate against the
// synthesized role policies and the stack's resource policies, and, for the command, against the policy
// docs/iam.md gives operators. A denied call fails the test; the grants no call uses are listed and pinned.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTEXT_KEY, type Config, forwardDestinations, parseConfig } from '../../../config';
import { providerById } from '../../../config/provider-lookup';
import { type AwsClientOptions, type AwsClients, createAwsClients } from '../../../lambdas/adapters/clients';
import { SCHEMES } from '../../../lambdas/core/schemes';
import { standardWebhooks } from '../../../lambdas/core/schemes/standard-webhooks';
import { type Emulators, startEmulators } from '../../../local/emulators';
import {
  cdkJsonContext,
  IMPORTED_BUS_ARN,
  IMPORTED_DESTINATION_SECRET_ARN,
  TARGET_QUEUE_ARN,
} from '../../infra/synth';
import { type Actor, AwsCallLog, installAwsCallLog } from '../../support/aws-call-log';
import { type DestinationServer, startDestinationServer, status } from '../../support/destination-server';
import { serviceUnavailable } from '../../support/faults';
import {
  type Caller,
  type Decision,
  decide,
  distinct,
  duplicateGrants,
  type Grant,
  grantsOf,
  type IamRequest,
  requestsOf,
  unusedGrants,
} from '../../support/iam-evaluate';
import { ACCOUNT, type DeployedTemplate } from '../../support/iam-template';
import {
  EVENTS,
  installServiceStubs,
  PROVIDER,
  runStack,
  StubSecrets,
  synthVariant,
  type Variant,
} from './deployed-stack';
import { EXPECTED_DUPLICATES, EXPECTED_UNUSED } from './expected-unused';
import { OperatorCli } from './operator-cli';
import { operatorPolicy } from './operator-policy';

const base = () => cdkJsonContext()[CONTEXT_KEY] as Record<string, unknown>;

export const FRONT_DOOR_VARIANTS: Variant[] = [
  { name: 'rest', frontDoor: 'rest', destinations: {} },
  { name: 'http', frontDoor: 'http', destinations: {}, operator: false },
  { name: 'function-url', frontDoor: 'function-url', destinations: {}, operator: false },
];

/** The REST front door with destinations of each type (the others' Lambdas are the same). */
export const DESTINATION_VARIANTS: Variant[] = [
  {
    name: 'rest+http',
    frontDoor: 'rest',
    destinations: {
      handlers: { type: 'handlers' },
      orders: { type: 'http', url: 'RECEIVER', retrySchedule: ['1s'] },
      partner: { type: 'http', url: 'RECEIVER', secretArn: IMPORTED_DESTINATION_SECRET_ARN },
      // Answers 410 to the one event it takes: disabled, its intake paused, until `destinations enable`.
      gone: { type: 'http', url: 'GONE', whenDisabled: 'wait', filter: { eventTypes: ['gone.*'] } },
    },
  },
  {
    name: 'rest+eventbridge',
    frontDoor: 'rest',
    destinations: {
      handlers: { type: 'handlers' },
      events: { type: 'eventbridge' },
      audit: { type: 'eventbridge', busArn: IMPORTED_BUS_ARN },
    },
  },
  {
    name: 'rest+sqs',
    frontDoor: 'rest',
    destinations: { handlers: { type: 'handlers' }, crm: { type: 'sqs', queueArn: TARGET_QUEUE_ARN } },
  },
];

/** The receivers' URLs, known once they listen. */
function withUrls(variant: Variant, receiver: DestinationServer, gone: DestinationServer): Variant {
  const url = (value: unknown) =>
    value === 'RECEIVER' ? receiver.url('/hooks') : value === 'GONE' ? gone.url('/hooks') : value;
  return {
    ...variant,
    destinations: Object.fromEntries(
      Object.entries(variant.destinations).map(([id, d]) => [
        id,
        d.url === undefined ? d : { ...d, url: url(d.url) },
      ]),
    ),
  };
}

interface Row {
  variant: string;
  actor: Actor;
  calls: number;
  allowed: number;
  /** Every distinct request and its decision. */
  decisions: Decision[];
  denied: Decision[];
  unused: Grant[];
  duplicates: Grant[];
}

function lambdaCaller(deployed: DeployedTemplate, actor: Exclude<Actor, 'cli'>): Caller {
  const lambda = deployed.lambda(actor);
  const role = lambda.roleArn.slice(lambda.roleArn.lastIndexOf('/') + 1);
  return {
    principal: `arn:aws:sts::${ACCOUNT}:assumed-role/${role}/${lambda.arn.slice(lambda.arn.lastIndexOf(':') + 1)}`,
    identityPolicies: deployed.identityPolicies(actor),
  };
}

async function evaluate(
  rows: Row[],
  variant: string,
  actor: Actor,
  requests: IamRequest[],
  caller: Caller,
  deployed: DeployedTemplate,
): Promise<Row> {
  const decisions = await Promise.all(
    distinct(requests).map((r) => decide(r, caller, (arn) => deployed.resourcePolicy(arn))),
  );
  const allowed = decisions.filter((d) => d.result === 'Allowed');
  const grants = grantsOf(caller.identityPolicies);
  const row: Row = {
    variant,
    actor,
    calls: decisions.length,
    allowed: allowed.length,
    decisions,
    denied: decisions.filter((d) => d.result !== 'Allowed'),
    unused: unusedGrants(grants, allowed),
    duplicates: duplicateGrants(grants),
  };
  rows.push(row);
  return row;
}

/** A grant as the pinned lists name it: the stack's name and the account left out, so one list fits all. */
function named(grant: Grant, stackName: string): string {
  return `${grant.action} ${grant.resource.replaceAll(stackName, '{stack}').replaceAll(stackName.toLowerCase(), '{stack}')}`;
}

function explain(denied: Decision[]): string {
  return denied
    .map((d) => `${d.actor} ${d.action} ${d.arn} (${d.via}): ${d.result} ${d.error ?? ''}`)
    .join('\n');
}

async function sendAll(
  log: AwsCallLog,
  run: Awaited<ReturnType<typeof runStack>>,
  config: Config,
  secrets: StubSecrets,
  deployed: DeployedTemplate,
) {
  const answers: Record<string, number> = {};
  answers.ok = await run.verify(EVENTS.ok, '{"type":"order.paid","data":{"n":1}}');
  answers.duplicate = await run.verify(EVENTS.ok, '{"type":"order.paid","data":{"n":1}}');
  answers.conflict = await run.verify(EVENTS.ok, '{"type":"order.paid","data":{"n":2}}');
  answers.retry = await run.verify(EVENTS.retry, '{"type":"order.paid","data":{"n":3}}');
  answers.dead = await run.verify(EVENTS.dead, '{"type":"order.paid","data":{"n":4}}');
  // Over the archive's inline limit: archived by the processor to archive/.
  answers.archived = await run.verify(
    'msg_archived',
    JSON.stringify({ type: 'order.paid', data: { pad: 'a'.repeat(10_000) } }),
  );
  // Over the queue's inline limit (stored by the verify Lambda under payloads/) and over what an
  // EventBridge entry holds (stored again by the forwarder, restarting its lifetime).
  answers.large = await run.verify(
    EVENTS.large,
    JSON.stringify({ type: 'order.paid', data: { pad: 'b'.repeat(300_000) } }),
  );
  // The queue refuses one send: the claim is released and the provider told to retry (503).
  log.failNext('verify', 'sqs:SendMessage', serviceUnavailable());
  answers.released = await run.verify('msg_released', '{"type":"order.paid","data":{"n":5}}');
  answers.gone = await run.verify('msg_gone', '{"type":"gone.ping","data":{}}');
  // Every other provider once, signed with its own secret: each provider's secret is read.
  const verifyEnv = deployed.lambda('verify').env;
  const secretArns = JSON.parse(verifyEnv.PROVIDER_SECRET_ARNS ?? '{}') as Record<string, string>;
  for (const [provider, arn] of Object.entries(secretArns)) {
    if (provider === PROVIDER) continue;
    const settings = providerById(config, provider);
    if (!settings) continue;
    const secret = SCHEMES[settings.scheme].generateSecret();
    secrets.set(arn, secret);
    answers[provider] = await run.verify(`msg_${provider}`, '{"type":"ping"}', { provider, secret });
  }
  return answers;
}

/** What the table in bench/RESULTS.md shows: one row per variant and actor. */
export function tableOf(rows: readonly Row[]): string {
  const line = (row: Row) =>
    `| ${row.variant} | ${row.actor} | ${row.calls} | ${row.allowed} | ${row.denied.length} | ${row.unused.length} | ${row.duplicates.length} |`;
  return `${rows.map(line).join('\n')}\n`;
}

/**
 * One test per variant, in one file: a pair of emulators and the receivers shared by its variants (each
 * variant's stack has names of its own). `emulator` is the test file's hoisted holder of the endpoints,
 * which its mock of the clients module reads.
 */
export function leastPrivilegeSuite(
  suite: string,
  variants: readonly Variant[],
  emulator: { endpoints: AwsClientOptions | undefined },
): void {
  const rows: Row[] = [];
  let emulators: Emulators;
  let setup: AwsClients;
  let receiver: DestinationServer;
  let gone: DestinationServer;
  const log = new AwsCallLog();

  beforeAll(async () => {
    emulators = await startEmulators();
    emulator.endpoints = { ...emulators.clientOptions };
    setup = createAwsClients({ ...emulators.clientOptions });
    installAwsCallLog(log);
    receiver = await startDestinationServer();
    gone = await startDestinationServer();
    // The receiver's first answer is a 503, so the forwarder's retry path runs too; `gone` is gone (410).
    receiver.answer(status(503));
    gone.answerAll(status(410));
  });

  afterAll(async () => {
    for (const client of Object.values(setup ?? {})) client.destroy();
    await emulators?.stop();
    await receiver?.close();
    await gone?.close();
  });

  describe.each(variants.map((v) => [v.name, v] as const))('%s', (_name, template) => {
    it('every call of each Lambda and of the command is allowed; the unused grants are the known ones', async () => {
      const variant = withUrls(template, receiver, gone);
      const { deployed, configInput } = synthVariant(variant, base());
      const config = parseConfig(configInput);
      log.calls.length = 0;
      const secrets = new StubSecrets();
      secrets.install(log);
      const stubs = installServiceStubs(log, deployed);
      const run = await runStack({ log, emulators, setup, deployed, secrets, frontDoor: variant.frontDoor });
      const cli = new OperatorCli(log, deployed.stackName, configInput);
      let frontDoor: Awaited<ReturnType<typeof run.frontDoor>> | undefined;
      try {
        const answers = await sendAll(log, run, config, secrets, deployed);
        expect(answers).toMatchObject({
          ok: 202,
          duplicate: 200,
          conflict: 409,
          released: 503,
          retry: 202,
          dead: 202,
          archived: 202,
          large: 202,
        });
        await run.process();
        await run.forward(['gone']);
        if (variant.operator !== false) {
          // The doctor's test delivery and its GET go to the stack's endpoint: a front door on this machine.
          frontDoor = await run.frontDoor();
          stubs.frontDoorAt(frontDoor.url);
          await doctor(cli, config);
          await operate(cli, config);
        }
      } finally {
        await frontDoor?.close();
        run.close();
        cli.close();
      }

      const requests = requestsOf(log.calls);
      const serviceCalls: IamRequest[] = deployed
        .eventSourceCalls()
        .map((c) => ({ actor: c.actor, action: c.action, arn: c.arn, via: 'event source mapping' }));
      const actors = (['verify', 'processor', 'forwarder'] as const).filter((a) => deployed.hasLambda(a));
      const found: Row[] = [];
      for (const actor of actors) {
        const own = [...requests, ...serviceCalls].filter((r) => r.actor === actor);
        found.push(await evaluate(rows, variant.name, actor, own, lambdaCaller(deployed, actor), deployed));
      }
      const operator: Caller = {
        principal: `arn:aws:sts::${ACCOUNT}:assumed-role/operator/someone`,
        identityPolicies: [{ name: 'documented operator policy', policy: operatorPolicy(deployed, config) }],
      };
      if (variant.operator !== false) {
        const own = requests.filter((r) => r.actor === 'cli');
        found.push(await evaluate(rows, variant.name, 'cli', own, operator, deployed));
      }

      for (const row of found) {
        expect(row.calls, `${row.actor} made no AWS call`).toBeGreaterThan(0);
        expect(explain(row.denied), `${row.actor}: denied calls`).toBe('');
      }
      const unused = Object.fromEntries(
        found.map((row) => [row.actor, row.unused.map((g) => named(g, deployed.stackName)).sort()]),
      );
      const duplicates = Object.fromEntries(
        found.map((row) => [row.actor, row.duplicates.map((g) => named(g, deployed.stackName)).sort()]),
      );
      expect(unused).toEqual(EXPECTED_UNUSED[variant.name]);
      expect(duplicates).toEqual(EXPECTED_DUPLICATES[variant.name]);
    }, 120_000);
  });

  afterAll(() => {
    const dir = process.env.IAM_TABLE_OUT;
    if (!dir || rows.length === 0) return;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${suite}.md`), tableOf(rows));
  });
}

interface DoctorReport {
  ok: boolean;
  checks: { id: string; status: string; detail: string }[];
}

/**
 * The items `doctor` fails on these stacks, and why: an http destination's receiver listens on loopback,
 * which `destinations test` refuses on a stack (blocked_address). A target in another region of the
 * stack's partition passes its region item: the forwarder has a client for that region.
 */
function expectedDoctorFailures(config: Config): string[] {
  return forwardDestinations(config)
    .flatMap((d) => (d.type === 'http' ? [`destination-test:${d.id}`] : []))
    .sort();
}

/**
 * `doctor`, whole: the stack's resources, alarms and Lambda settings from the stubs, the test delivery
 * through the local front door, processed. Every item is checked (none "cannot check"), and only the
 * known ones fail.
 */
async function doctor(cli: OperatorCli, config: Config): Promise<void> {
  const result = await cli.run('doctor', '--json');
  const report = JSON.parse(result.stdout) as DoctorReport;
  const items = (status: string) =>
    report.checks.filter((c) => c.status === status).map((c) => `${c.id}: ${c.detail}`);
  expect(items('cannot-check')).toEqual([]);
  expect(items('skipped')).toEqual([]);
  const failed = report.checks.filter((c) => c.status === 'fail').map((c) => c.id);
  expect(failed.sort(), items('fail').join('\n')).toEqual(expectedDoctorFailures(config));
  expect(result.code).toBe(failed.length > 0 ? 1 : 0);
  expect(report.ok).toBe(failed.length === 0);
  expect(report.checks.map((c) => c.id)).toEqual(
    expect.arrayContaining([
      'read:bucket',
      'delivery',
      'processed',
      'method',
      'alarm',
      'dlq:move',
      'concurrency',
    ]),
  );
}

/** The operator's commands, each of which must succeed. */
async function operate(cli: OperatorCli, config: Config): Promise<void> {
  const ok = async (...args: string[]) => {
    const result = await cli.run(...args);
    expect(result.code, `${args.join(' ')}: ${result.stderr} ${result.stdout.slice(0, 600)}`).toBe(0);
    return result.stdout;
  };
  await ok('endpoints', '--json');
  await ok('secrets', 'show', PROVIDER, '--json');
  await ok('secrets', 'rotate', PROVIDER, '--value', standardWebhooks.generateSecret(), '--json');
  await ok('deliveries', 'list', '--json');
  await ok('deliveries', 'list', '--scan', '--json');
  await ok('deliveries', 'show', PROVIDER, EVENTS.large, '--reveal', '--json');
  await ok('deliveries', 'show', PROVIDER, 'msg_archived', '--reveal', '--json');
  await ok('deliveries', 'replay', PROVIDER, EVENTS.ok, '--json');
  await ok('deliveries', 'replay', PROVIDER, EVENTS.large, '--json');
  const dead = JSON.parse(await ok('dlq', 'list', '--json')) as
    | { messageId: string }[]
    | { entries: { messageId: string }[] };
  const entries = Array.isArray(dead) ? dead : dead.entries;
  if (entries[0]) await ok('dlq', 'show', entries[0].messageId, '--payload', '--json');
  // Long enough for one read of each moved record: the IAM check needs the calls, not the outcome.
  await ok('dlq', 'redrive', '--wait-timeout', '1s', '--json');
  await ok('dlq', 'purge', '--yes', '--json');
  const ids = Object.keys(config.destinations).filter((id) => config.destinations[id]?.type !== 'handlers');
  await cli.consolePages();
  if (ids.length === 0) return;
  await ok('destinations', 'list', '--json');
  for (const id of ids) {
    await ok('destinations', 'show', id, '--json');
    if (config.destinations[id]?.type === 'http') {
      // The receiver listens on loopback, which the command's guard refuses on a stack (as the forwarder's
      // does): the answer is blocked_address, after everything the command reads from AWS.
      const tested = await cli.run('destinations', 'test', id, '--json');
      expect(tested.stdout).toContain('"code": "blocked_address"');
    } else {
      await ok('destinations', 'test', id, '--json');
    }
    await ok('dlq', 'list', '--destination', id, '--json');
    if (config.destinations[id]?.type === 'http') await ok('destinations', 'rotate', id, '--json');
  }
  if (ids.includes('gone')) await ok('destinations', 'enable', 'gone', '--json');
  // A destination's own dead letters: moved back to its queue, then dropped.
  await ok('dlq', 'redrive', '--destination', ids[0] as string, '--json');
  await ok('dlq', 'purge', '--destination', ids[0] as string, '--yes', '--json');
}
