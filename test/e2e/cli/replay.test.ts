// Archive and replay through the real command line, against a local instance: a dead letter's payload is
// shown only on --reveal, its DLQ message is purged, and `deliveries replay` brings it back through the
// processor; refusals exit 3, a filtered dry run changes nothing.
import { spawnSync } from 'node:child_process';
import { userInfo } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { post, sampleDelivery, signDelivery } from '../../../cli/operations/signed-delivery';
import { loadProjectConfig } from '../../../config/load';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { SqsQueueOps } from '../../../lambdas/adapters/sqs-queue-ops';
import type { InboxRecord } from '../../../lambdas/core/inbox';
import { defineEvent, EVENT_HANDLERS, PermanentError } from '../../../lambdas/events';
import type { LocalInbox } from '../../../local/local-inbox';
import {
  BIN,
  CLI_TIMEOUT_MS,
  eventually,
  json,
  makeProject,
  oneLineError,
  readSecrets,
  runCli,
  startInstance,
} from './helpers';

let failing = true;
const runs: string[] = [];
const toggled = defineEvent({
  provider: 'mobazha',
  type: 'order.paid',
  schema: z.looseObject({ type: z.string() }),
  handle: (_data, context) => {
    runs.push(context.idempotencyKey);
    if (failing) throw new PermanentError('downstream_rejected');
  },
});

const project = makeProject();
let inbox: LocalInbox;
let table: DynamoInbox;
let key: string;
let body: string;

const record = (k: string): Promise<InboxRecord | undefined> => table.get(`mobazha#${k}`);

beforeAll(async () => {
  inbox = await startInstance(project.dir, [toggled, ...EVENT_HANDLERS]);
  table = new DynamoInbox(inbox.clients.dynamodb, inbox.state.tableName);
  const provider = loadProjectConfig(project.dir).providers.mobazha;
  if (!provider) throw new Error('mobazha is not configured');
  const url = `${inbox.state.gatewayUrl}/webhooks/mobazha`;
  const secret = readSecrets(project.dir).mobazha?.[0] as string;
  const delivery = sampleDelivery(provider, { event: 'order.paid', nowMs: Date.now(), url });
  const signed = signDelivery(provider, delivery, { secret, timestamp: Math.floor(Date.now() / 1000), url });
  const answer = await post(url, signed.body, signed.headers);
  if (answer.status !== 202) throw new Error(`setup delivery answered ${answer.status}`);
  key = delivery.deliveryId;
  body = Buffer.from(signed.body).toString();
  const dead = await eventually(
    () => record(key),
    (r) => r?.status === 'dead-lettered',
  );
  if (dead?.status !== 'dead-lettered') throw new Error(`expected a dead letter, found ${dead?.status}`);
}, 180_000);

afterAll(async () => {
  await inbox?.stop();
  project.remove();
}, 60_000);

describe('webhook-inbox deliveries show and replay', { timeout: CLI_TIMEOUT_MS * 2 }, () => {
  it('shows the archived payload only with --reveal', async () => {
    const [masked, maskedJson, revealed, revealedJson] = await Promise.all([
      runCli(project.dir, ['deliveries', 'show', 'mobazha', key]),
      runCli(project.dir, ['deliveries', 'show', 'mobazha', key, '--json']),
      runCli(project.dir, ['deliveries', 'show', 'mobazha', key, '--reveal']),
      runCli(project.dir, ['deliveries', 'show', 'mobazha', key, '--reveal', '--json']),
    ]);
    expect(masked.code, masked.stderr).toBe(0);
    expect(masked.stdout).toContain(
      `archived (${Buffer.byteLength(body)} bytes, in the record), --reveal to print`,
    );
    expect(masked.stdout).not.toContain(body.slice(0, 40));
    expect(json<Record<string, unknown>>(maskedJson)).not.toHaveProperty('archiveBody');
    expect(json<Record<string, unknown>>(maskedJson)).not.toHaveProperty('payloadBase64');
    expect(revealed.code, revealed.stderr).toBe(0);
    expect(revealed.stdout).toContain(JSON.stringify(JSON.parse(body), null, 2));
    const shown = json<{ payloadBase64: string }>(revealedJson);
    expect(Buffer.from(shown.payloadBase64, 'base64').toString()).toBe(body);
  });

  it('refuses an unknown delivery with exit 3, and a filter without --since as a usage error', async () => {
    const [unknown, noSince] = await Promise.all([
      runCli(project.dir, ['deliveries', 'replay', 'mobazha', 'no-such-delivery']),
      runCli(project.dir, ['deliveries', 'replay', '--provider', 'mobazha']),
    ]);
    expect(unknown.code).toBe(3);
    expect(oneLineError(unknown)).toContain('not replayed (not_found)');
    expect(noSince.code).toBe(2);
    expect(oneLineError(noSince)).toContain('--since');
  });

  it('recovers the dead letter after its DLQ message is purged, recording who replayed it', async () => {
    await new SqsQueueOps(inbox.clients.sqs).purge(inbox.state.dlqUrl);
    failing = false;
    // A unique prefix names it, as `deliveries show` takes it.
    const replayed = await runCli(project.dir, [
      'deliveries',
      'replay',
      'mobazha',
      key.slice(0, 10),
      '--json',
    ]);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(json(replayed)).toMatchObject({ outcome: 'replayed', replays: 1, dedupKey: key });
    const done = await eventually(
      () => record(key),
      (r) => r?.status === 'processed',
    );
    expect(done).toMatchObject({ status: 'processed', replays: 1, lastReplayedBy: userInfo().username });
    expect(runs.at(-1)).toBe(`mobazha:${key}`);

    const dry = await runCli(project.dir, [
      'deliveries',
      'replay',
      '--provider',
      'mobazha',
      '--status',
      'processed',
      '--since',
      '1h',
      '--dry-run',
      '--json',
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(json(dry)).toMatchObject({ matched: 1, replayed: 1, dryRun: true, refusedTotal: 0 });
    expect((await record(key))?.replays).toBe(1);
  });

  // The bar is drawn on a terminal only, so a pipe (runCli) never loads it: `script` gives the bundled
  // command a pseudo-terminal, where loading cli-progress through the bundle's chunks once crashed.
  it('draws its progress bar on a terminal', () => {
    const command = `${process.execPath} ${BIN} deliveries replay --provider mobazha --since 1h --dry-run`;
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.INIT_CWD;
    const run = spawnSync('script', ['-qec', command, '/dev/null'], {
      cwd: project.dir,
      env,
      encoding: 'utf8',
      timeout: CLI_TIMEOUT_MS,
    });
    expect(run.status, run.stdout).toBe(0);
    expect(run.stdout).toContain('replay [');
    expect(run.stdout).toContain('dry run: 1 matched, would replay 1');
  });
});
