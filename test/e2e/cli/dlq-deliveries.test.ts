// The operator's loop through the real command line: deliveries fail and are dead-lettered, `dlq list`
// shows them without consuming them, the handler is fixed, `dlq redrive` moves them back, they are
// processed, and the DLQ ends empty.
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { post, sampleDelivery, signDelivery } from '../../../cli/operations/signed-delivery';
import { loadProjectConfig } from '../../../config/load';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { SqsQueueOps } from '../../../lambdas/adapters/sqs-queue-ops';
import type { InboxRecord } from '../../../lambdas/core/inbox';
import { maxReceiveCount } from '../../../lambdas/core/retry-schedule';
import { defineEvent, EVENT_HANDLERS, PermanentError } from '../../../lambdas/events';
import type { LocalInbox } from '../../../local/local-inbox';
import {
  CLI_TIMEOUT_MS,
  eventually,
  json,
  makeProject,
  oneLineError,
  readSecrets,
  runCli,
  startInstance,
} from './helpers';

interface DlqEntry {
  messageId: string;
  provider: string;
  eventType: string;
  dedupKey: string;
  errorCode?: string;
  receiveCount: number;
}

/** The broken downstream: while `failing`, every mobazha order.paid fails permanently. */
let failing = true;
const toggled = defineEvent({
  provider: 'mobazha',
  type: 'order.paid',
  schema: z.looseObject({ type: z.string() }),
  handle: () => {
    if (failing) throw new PermanentError('downstream_rejected');
  },
});

const project = makeProject();
let inbox: LocalInbox;
let table: DynamoInbox;
let queues: SqsQueueOps;
const dedupKeys: string[] = [];

const dlqCount = async () => {
  const counts = await queues.counts(inbox.state.dlqUrl);
  return counts.visible + counts.inFlight;
};
const record = (key: string): Promise<InboxRecord | undefined> => table.get(`mobazha#${key}`);

beforeAll(async () => {
  inbox = await startInstance(project.dir, [toggled, ...EVENT_HANDLERS]);
  table = new DynamoInbox(inbox.clients.dynamodb, inbox.state.tableName);
  queues = new SqsQueueOps(inbox.clients.sqs);
  // Three deliveries the broken handler dead-letters (signed in-process: `send` has its own tests).
  const provider = loadProjectConfig(project.dir).providers.mobazha;
  if (!provider) throw new Error('mobazha is not configured');
  const url = `${inbox.state.gatewayUrl}/webhooks/mobazha`;
  const secret = readSecrets(project.dir).mobazha?.[0] as string;
  for (let i = 0; i < 3; i++) {
    const delivery = sampleDelivery(provider, { event: 'order.paid', nowMs: Date.now(), url });
    const signed = signDelivery(provider, delivery, {
      secret,
      timestamp: Math.floor(Date.now() / 1000),
      url,
    });
    const answer = await post(url, signed.body, signed.headers);
    if (answer.status !== 202) throw new Error(`setup delivery answered ${answer.status}`);
    dedupKeys.push(delivery.deliveryId);
  }
  const dead = await eventually(dlqCount, (n) => n === 3);
  if (dead !== 3) throw new Error(`expected 3 dead-lettered messages, found ${dead}`);
}, 180_000);

afterAll(async () => {
  await inbox?.stop();
  project.remove();
}, 60_000);

describe('webhook-inbox deliveries', { timeout: CLI_TIMEOUT_MS * 2 }, () => {
  it('lists deliveries, filtered, as a table and as JSON', async () => {
    const [human, machine] = await Promise.all([
      runCli(project.dir, ['deliveries', 'list', '--provider', 'mobazha']),
      runCli(project.dir, ['deliveries', 'list', '--status', 'dead-lettered', '--since', '15m', '--json']),
    ]);
    expect(human.code, human.stderr).toBe(0);
    for (const text of [
      'mobazha',
      'order.paid',
      'dead-lettered',
      'downstream_rejected',
      dedupKeys[0] as string,
    ]) {
      expect(human.stdout).toContain(text);
    }
    // What `attempts` counts is in the column's name: each permanent failure is one failed attempt.
    expect(human.stdout).toMatch(/│ failed attempts │/);
    expect(human.stdout).toMatch(/│ dead-lettered │ 1 +│ downstream_rejected/);
    const records = json<InboxRecord[]>(machine);
    expect(records.map((r) => r.dedupKey).sort()).toEqual([...dedupKeys].sort());
    expect(
      records.every((r) => r.status === 'dead-lettered' && r.lastErrorCode === 'downstream_rejected'),
    ).toBe(true);
    expect(records[0]).not.toHaveProperty('claimToken');
  });

  it('shows one delivery, as a table and as JSON', async () => {
    const key = dedupKeys[0] as string;
    const [human, machine] = await Promise.all([
      runCli(project.dir, ['deliveries', 'show', 'mobazha', key]),
      runCli(project.dir, ['deliveries', 'show', 'mobazha', key, '--json']),
    ]);
    expect(human.code, human.stderr).toBe(0);
    for (const text of [
      'status',
      'dead-lettered',
      'failed attempts',
      'last error',
      'downstream_rejected',
      'message id',
    ]) {
      expect(human.stdout).toContain(text);
    }
    const shown = json<InboxRecord>(machine);
    expect(shown).toMatchObject({
      provider: 'mobazha',
      dedupKey: key,
      status: 'dead-lettered',
      eventType: 'order.paid',
    });
    expect(shown.messageId).toEqual(expect.any(String));
    expect(shown.receivedAt).toEqual(expect.any(String));
  });

  it('pages with the cursor it prints, and reindexes nothing on a table that has the index', async () => {
    const first = await runCli(project.dir, ['deliveries', 'list', '--provider', 'mobazha', '--limit', '2']);
    expect(first.code, first.stderr).toBe(0);
    const cursor = /--cursor (\S+)/.exec(first.stdout)?.[1];
    expect(cursor).toBeDefined();
    const [rest, reindexed] = await Promise.all([
      runCli(project.dir, [
        'deliveries',
        'list',
        '--provider',
        'mobazha',
        '--cursor',
        cursor as string,
        '--json',
      ]),
      runCli(project.dir, ['deliveries', 'reindex', '--json']),
    ]);
    const seen = [...dedupKeys].filter((key) => first.stdout.includes(key.slice(0, 20)));
    expect(seen).toHaveLength(2);
    expect(json<InboxRecord[]>(rest).map((r) => r.dedupKey)).toEqual(
      dedupKeys.filter((k) => !seen.includes(k)),
    );
    expect(json<{ indexed: number }>(reindexed).indexed).toBe(0);
    // With --json the array stays on stdout and the cursor goes to stderr.
    const firstJson = await runCli(project.dir, [
      'deliveries',
      'list',
      '--provider',
      'mobazha',
      '--limit',
      '2',
      '--json',
    ]);
    expect(json<InboxRecord[]>(firstJson)).toHaveLength(2);
    expect(/--cursor (\S+)/.exec(firstJson.stderr)?.[1]).toBe(cursor);
  });

  it('shows a delivery by a unique key prefix, and says a prefix is too short with the minimum', async () => {
    const key = dedupKeys[0] as string;
    const [unique, short] = await Promise.all([
      runCli(project.dir, ['deliveries', 'show', 'mobazha', `${key.slice(0, 12)}…`, '--json']),
      runCli(project.dir, ['deliveries', 'show', 'mobazha', key.slice(0, 3)]),
    ]);
    expect(unique.code, unique.stderr).toBe(0);
    expect(json<InboxRecord>(unique).dedupKey).toBe(key);
    expect(short.code).toBe(2);
    expect(oneLineError(short)).toMatch(/a prefix needs at least 6 characters and this one has 3/);
  });
});

describe('webhook-inbox dlq', { timeout: CLI_TIMEOUT_MS * 2 }, () => {
  let listed: DlqEntry[] = [];

  it('lists dead-lettered messages without consuming them', async () => {
    const human = await runCli(project.dir, ['dlq', 'list']);
    expect(human.code, human.stderr).toBe(0);
    for (const text of ['mobazha', 'order.paid', 'downstream_rejected', ...dedupKeys])
      expect(human.stdout).toContain(text);
    expect(await dlqCount()).toBe(3);

    const machine = await runCli(project.dir, ['dlq', 'list', '--json']);
    listed = json<DlqEntry[]>(machine);
    expect(listed.map((e) => e.dedupKey).sort()).toEqual([...dedupKeys].sort());
    expect(listed.every((e) => e.errorCode === 'downstream_rejected' && e.eventType === 'order.paid')).toBe(
      true,
    );
    const counts = await queues.counts(inbox.state.dlqUrl);
    expect(counts.visible).toBe(3);
  });

  it('explains a receive count far above the one receive that gave the delivery up', async () => {
    const maxReceives = maxReceiveCount(loadProjectConfig(project.dir).queue.retrySchedule);
    const human = await runCli(project.dir, ['dlq', 'list']);
    expect(human.code, human.stderr).toBe(0);
    const text = stripVTControlCharacters(human.stdout);
    expect(text.match(/\d+ \(given up at 1\)/g)).toHaveLength(3);
    expect(text).toContain(
      `stays on the main queue until receive ${maxReceives}, when the redrive policy moves it`,
    );
    const entry = listed[0] as DlqEntry;
    expect(entry.receiveCount).toBeGreaterThanOrEqual(maxReceives);
    const shown = await runCli(project.dir, ['dlq', 'show', entry.messageId]);
    expect(stripVTControlCharacters(shown.stdout)).toMatch(
      new RegExp(
        `receives[\\s│]+\\d+ \\(dead-lettered at receive 1; SQS moves a message to the DLQ after ${maxReceives} receives`,
      ),
    );
  });

  it('shows a message, and its payload only with --payload', async () => {
    const entry = listed[0] as DlqEntry;
    // One after the other: a peek hides the messages it looks at until it ends, so two would race.
    const human = await runCli(project.dir, ['dlq', 'show', entry.messageId]);
    const machine = await runCli(project.dir, ['dlq', 'show', entry.messageId, '--payload', '--json']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(entry.messageId);
    expect(human.stdout).toContain('downstream_rejected');
    expect(human.stdout).toContain('--payload');
    expect(human.stdout).not.toContain('"specversion"');
    const shown = json<{ payload: string; payloadSha256Check: string; dedupKey: string }>(machine);
    expect(shown.dedupKey).toBe(entry.dedupKey);
    expect(shown.payloadSha256Check).toBe('ok');
    expect(JSON.parse(shown.payload)).toMatchObject({ specversion: '1.0', type: 'order.paid' });
    expect(await dlqCount()).toBe(3);
  });

  it('redrive reports what happened: with the cause not fixed, each delivery is dead-lettered again', async () => {
    const run = await runCli(project.dir, ['dlq', 'redrive']);
    expect(run.code, run.stderr).toBe(0);
    const text = stripVTControlCharacters(run.stdout);
    for (const key of dedupKeys)
      expect(text).toMatch(new RegExp(`mobazha/${key}\\s+dead-lettered again \\(downstream_rejected\\)`));
    expect(text).toContain('0 processed, 3 dead-lettered again, 0 still pending');
    expect(text).not.toMatch(/`processed`|then processed/);
    expect(await eventually(dlqCount, (n) => n === 3)).toBe(3);
  });

  it('redrives: a dry run changes nothing; then every message is moved back and processed', async () => {
    const dry = json<{ wouldMove: number }>(
      await runCli(project.dir, ['dlq', 'redrive', '--dry-run', '--json']),
    );
    expect(dry.wouldMove).toBe(3);
    expect(await dlqCount()).toBe(3);
    expect((await record(dedupKeys[0] as string))?.status).toBe('dead-lettered');

    failing = false;
    const run = await runCli(project.dir, ['dlq', 'redrive', '--max-per-second', '20', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const answer = json<{ moved: number; summary: { processed: number; deadLettered: number } }>(run);
    expect(answer.moved).toBe(3);
    expect(answer.summary).toMatchObject({ processed: 3, deadLettered: 0 });

    const statuses = () => Promise.all(dedupKeys.map(async (key) => (await record(key))?.status));
    const final = await eventually(statuses, (s) => s.every((status) => status === 'processed'));
    expect(final).toEqual(['processed', 'processed', 'processed']);
    expect(await eventually(dlqCount, (n) => n === 0)).toBe(0);
  });

  it('purges only with --yes', async () => {
    const refused = await runCli(project.dir, ['dlq', 'purge']);
    expect(refused.code).toBe(2);
    expect(oneLineError(refused)).toContain('--yes');

    failing = true;
    const provider = loadProjectConfig(project.dir).providers.mobazha;
    if (!provider) throw new Error('mobazha is not configured');
    const url = `${inbox.state.gatewayUrl}/webhooks/mobazha`;
    const secret = readSecrets(project.dir).mobazha?.[0] as string;
    const signed = signDelivery(
      provider,
      sampleDelivery(provider, { event: 'order.paid', nowMs: Date.now(), url }),
      {
        secret,
        timestamp: Math.floor(Date.now() / 1000),
        url,
      },
    );
    expect((await post(url, signed.body, signed.headers)).status).toBe(202);
    expect(await eventually(dlqCount, (n) => n === 1)).toBe(1);

    const purged = await runCli(project.dir, ['dlq', 'purge', '--yes', '--json']);
    expect(purged.code, purged.stderr).toBe(0);
    expect(json(purged)).toEqual({ purged: 1, from: inbox.state.dlqUrl });
    expect(await eventually(dlqCount, (n) => n === 0)).toBe(0);
  });
});
