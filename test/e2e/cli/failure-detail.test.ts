// What the command line shows of a delivery that failed, through the real command: a schema_mismatch's
// failing fields and zod issue codes in `deliveries show` and `dlq show` (found by a message-id prefix),
// never a value from the body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { post, sampleDelivery, signDelivery } from '../../../cli/operations/signed-delivery';
import { loadProjectConfig } from '../../../config/load';
import { SqsQueueOps } from '../../../lambdas/adapters/sqs-queue-ops';
import { defineEvent, EVENT_HANDLERS } from '../../../lambdas/events';
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

/** A handler whose schema the `invoice.paid` sample cannot match: its amount is a number, its id a string. */
const wrongSchema = defineEvent({
  provider: 'standard-webhooks',
  type: 'invoice.paid',
  schema: z.object({
    type: z.string(),
    data: z.object({ amount_paid: z.string(), customer_id: z.number() }),
  }),
  handle: () => undefined,
});
const DETAIL = 'data.amount_paid invalid_type; data.customer_id invalid_type';

const project = makeProject();
let inbox: LocalInbox;
let dedupKey: string;
let customerId: string;

beforeAll(async () => {
  inbox = await startInstance(project.dir, [wrongSchema, ...EVENT_HANDLERS]);
  const provider = loadProjectConfig(project.dir).providers['standard-webhooks'];
  if (!provider) throw new Error('standard-webhooks is not configured');
  const url = `${inbox.state.gatewayUrl}/webhooks/standard-webhooks`;
  const delivery = sampleDelivery(provider, { event: 'invoice.paid', nowMs: Date.now(), url });
  customerId = JSON.parse(delivery.body.toString('utf8')).data.customer_id;
  const signed = signDelivery(provider, delivery, {
    secret: readSecrets(project.dir)['standard-webhooks']?.[0] as string,
    timestamp: Math.floor(Date.now() / 1000),
    url,
  });
  const answer = await post(url, signed.body, signed.headers);
  if (answer.status !== 202) throw new Error(`setup delivery answered ${answer.status}`);
  dedupKey = delivery.deliveryId;
  const queues = new SqsQueueOps(inbox.clients.sqs);
  await eventually(
    () => queues.counts(inbox.state.dlqUrl),
    (counts) => counts.visible === 1,
  );
}, 180_000);

afterAll(async () => {
  await inbox?.stop();
  project.remove();
}, 60_000);

describe('a schema_mismatch on the command line', { timeout: CLI_TIMEOUT_MS * 2 }, () => {
  it('deliveries show names the failing fields and issue codes, never a value', async () => {
    const human = await runCli(project.dir, ['deliveries', 'show', 'standard-webhooks', dedupKey]);
    const machine = await runCli(project.dir, [
      'deliveries',
      'show',
      'standard-webhooks',
      dedupKey,
      '--json',
    ]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/error detail\s*│\s*data\.amount_paid invalid_type; data\.customer_id/);
    expect(json(machine)).toMatchObject({ lastErrorCode: 'schema_mismatch', lastErrorDetail: DETAIL });
    for (const output of [human.stdout, machine.stdout]) {
      expect(output).not.toContain(customerId);
      expect(output).not.toContain('4900');
    }
  });

  it('dlq show and dlq list --json carry the same detail', async () => {
    const listed = json<{ messageId: string; errorDetail?: string }[]>(
      await runCli(project.dir, ['dlq', 'list', '--json']),
    );
    expect(listed.map((entry) => entry.errorDetail)).toEqual([DETAIL]);
    const messageId = listed[0]?.messageId as string;
    // A prefix is enough, as with dedup keys; one under 6 characters says so, before peeking the queue.
    const human = await runCli(project.dir, ['dlq', 'show', messageId.slice(0, 8)]);
    expect(human.stdout).toContain(messageId);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/error detail\s*│\s*data\.amount_paid invalid_type; data\.customer_id/);
    expect(human.stdout).not.toContain(customerId);
    const short = await runCli(project.dir, ['dlq', 'show', messageId.slice(0, 5)]);
    expect(short.code).toBe(2);
    expect(oneLineError(short)).toContain('at least 6 characters');
  });
});
