// `dlq redrive` against a deployed stack, where it starts SQS's own message move task. The emulator has
// no move tasks, so a middleware plays SQS's part (it moves the messages by receive, send and delete, as
// the task does) and another refuses the task as SQS does while one is running. Everything else (the
// queues, the inbox records, the processor) is the real thing against dynalite and fauxqs.
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { type Opened, redriveOnAws } from '../../../../cli/operations/redrive-dlq';
import type { Target } from '../../../../cli/shared/target-types';
import { parseConfig } from '../../../../config';
import { DynamoInbox } from '../../../../lambdas/adapters/dynamo-inbox';
import type { ReceivedMessage, SqsQueueOps } from '../../../../lambdas/adapters/sqs-queue-ops';
import { standardWebhooks } from '../../../../lambdas/core/schemes/standard-webhooks';
import { PermanentError } from '../../../../lambdas/events';
import { useEmulators } from '../../../support/emulators';
import { faultForTest, type MiddlewareClient } from '../../../support/faults';
import {
  deliverSigned,
  drainQueue,
  effectCounter,
  eventSourceFor,
  processHandlerFor,
} from '../../../support/pipeline';

const config = parseConfig({
  providers: { 'standard-webhooks': { scheme: 'standard-webhooks' } },
  queue: { retrySchedule: [1, 1] },
});
const ctx = useEmulators({ config, strictSqs: true });
const SECRET = standardWebhooks.generateSecret();
const PK = 'standard-webhooks#msg_redrive';

let resources: typeof ctx.resources;
let failing: boolean;
beforeEach(async () => {
  resources = await ctx.provision();
  failing = true;
  // One delivery, given up by the processor: its record says dead-lettered, its message is in the DLQ.
  const answer = await deliverSigned(ctx, resources, {
    config,
    provider: 'standard-webhooks',
    secret: SECRET,
    body: '{"type":"order.paid","timestamp":"2026-12-01T09:00:00Z","data":{}}',
    id: 'msg_redrive',
  });
  expect(answer.statusCode).toBe(202);
  await processAll();
  expect((await inbox().get(PK))?.status).toBe('dead-lettered');
  expect((await ctx.countMessages(resources.dlqUrl)).visible).toBe(1);
});

const inbox = () => new DynamoInbox(ctx.clients.dynamodb, resources.tableName);

/** Another delivery given up by the processor, beside the first: two records dead-lettered, two dead letters. */
async function deadLetterAnother(id: string): Promise<void> {
  const answer = await deliverSigned(ctx, resources, {
    config,
    provider: 'standard-webhooks',
    secret: SECRET,
    body: '{"type":"order.paid","timestamp":"2026-12-01T09:00:00Z","data":{}}',
    id,
  });
  expect(answer.statusCode).toBe(202);
  await processAll();
  expect((await inbox().get(`standard-webhooks#${id}`))?.status).toBe('dead-lettered');
  expect((await ctx.countMessages(resources.dlqUrl)).visible).toBe(2);
}

async function processAll(): Promise<void> {
  const { handlers } = effectCounter('standard-webhooks', () => {
    if (failing) throw new PermanentError('downstream_rejected');
  });
  const processor = processHandlerFor(ctx, resources, handlers, { config });
  await drainQueue(ctx, resources, eventSourceFor(ctx, resources, processor.handler));
}

function opened(): Opened {
  const target = {
    kind: 'aws',
    description: 'stack test (emulated)',
    ...resources,
    clients: async () => ctx.clients,
  } as unknown as Target;
  return { target, ops: ctx.queueOps, inbox: inbox() };
}

/**
 * Plays SQS's move task: moves every DLQ message to the main queue, but those `left` picks (a task that
 * ended early, or one whose count came short), then reports the task `ending` (COMPLETED unless told
 * otherwise). A task to be CANCELLED is cancelled as it starts: it says CANCELLING while it moves what it
 * took, at least once. As ListMessageMoveTasks documents, the handle is given only while the task is RUNNING; the
 * start time always.
 */
function emulateMoveTask(
  ops: SqsQueueOps,
  afterMove: () => Promise<void> = async () => undefined,
  ending: 'COMPLETED' | 'FAILED' | 'CANCELLED' = 'COMPLETED',
  left: (message: ReceivedMessage) => boolean = () => false,
) {
  let moved = 0;
  let toMove: number | undefined;
  let finished = false;
  let saidCancelling = false;
  const startedAt = Date.now();
  const client = ctx.clients.sqs as unknown as MiddlewareClient;
  const name = 'emulated-move-task';
  client.middlewareStack.add(
    (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) =>
      async (args: unknown) => {
        if (context.commandName === 'StartMessageMoveTaskCommand') {
          void (async () => {
            const messages = await ctx.receiveAll(resources.dlqUrl);
            toMove = messages.length;
            for (const message of messages) {
              if (left(message)) {
                await ops.changeVisibility(resources.dlqUrl, message.receiptHandle, 0);
                continue;
              }
              await ops.sendRaw(resources.queueUrl, message.body, message.attributes);
              await ops.delete(resources.dlqUrl, message.receiptHandle);
              moved++;
            }
            await afterMove();
            finished = true;
          })();
          return { output: { TaskHandle: 'task-1', $metadata: {} }, response: {} };
        }
        if (context.commandName === 'ListMessageMoveTasksCommand') {
          const status =
            ending === 'CANCELLED' && (!finished || !saidCancelling)
              ? 'CANCELLING'
              : finished
                ? ending
                : 'RUNNING';
          if (status === 'CANCELLING') saidCancelling = true;
          return {
            output: {
              Results: [
                {
                  ...(status === 'RUNNING' ? { TaskHandle: 'task-1' } : {}),
                  Status: status,
                  StartedTimestamp: startedAt,
                  ApproximateNumberOfMessagesMoved: moved,
                  ...(toMove === undefined ? {} : { ApproximateNumberOfMessagesToMove: toMove }),
                  ...(status === 'FAILED' ? { FailureReason: 'AccessDenied' } : {}),
                },
              ],
              $metadata: {},
            },
            response: {},
          };
        }
        return next(args);
      },
    { step: 'initialize', name, priority: 'high' },
  );
  onTestFinished(() => void client.middlewareStack.remove(name));
}

describe('dlq redrive on AWS (StartMessageMoveTask)', () => {
  it('marks nothing when SQS refuses the task (one is already running): records stay dead-lettered', async () => {
    const refusal = faultForTest(ctx.clients.sqs, {
      commands: 'StartMessageMoveTaskCommand',
      error: () =>
        Object.assign(new Error('There is already a task running. Only one active task is allowed'), {
          name: 'InvalidParameterValueException',
          $metadata: { httpStatusCode: 400 },
        }),
    });
    await expect(redriveOnAws(opened(), { json: true, pollMs: 10 })).rejects.toThrow(
      /cannot start the redrive \(StartMessageMoveTask\)/,
    );
    expect(refusal.failures).toBe(1);
    expect((await inbox().get(PK))?.status).toBe('dead-lettered');
    expect((await ctx.countMessages(resources.dlqUrl)).visible).toBe(1);
  });

  it('marks the moved records enqueued once the task completed, and the processor takes them to processed', async () => {
    emulateMoveTask(ctx.queueOps);
    const result = await redriveOnAws(opened(), { json: true, pollMs: 10 });
    expect(result).toMatchObject({ moved: 1, method: 'StartMessageMoveTask', taskHandle: 'task-1' });
    expect((await inbox().get(PK))?.status).toBe('enqueued');
    failing = false;
    await processAll();
    expect((await inbox().get(PK))?.status).toBe('processed');
    expect((await ctx.countMessages(resources.dlqUrl)).visible).toBe(0);
  });

  it('leaves alone a record the processor already took after the move (the moved copy failed again)', async () => {
    // The processor is quick: it takes the moved copy, and it fails again, before the task reports done.
    emulateMoveTask(ctx.queueOps, processAll);
    await redriveOnAws(opened(), { json: true, pollMs: 10 });
    const record = await inbox().get(PK);
    // A newer give-up than the one the redrive moved: not turned into `enqueued`.
    expect(record?.status).toBe('dead-lettered');
    expect((await ctx.countMessages(resources.dlqUrl)).visible).toBe(1);
  });

  it('stops waiting, and marks nothing, when the started task is never listed', async () => {
    // SQS starts the task, and its listing never shows it.
    const client = ctx.clients.sqs as unknown as MiddlewareClient;
    const name = 'started-task-never-listed';
    client.middlewareStack.add(
      (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) =>
        async (args: unknown) => {
          if (context.commandName === 'StartMessageMoveTaskCommand')
            return { output: { TaskHandle: 'task-9', $metadata: {} }, response: {} };
          if (context.commandName === 'ListMessageMoveTasksCommand')
            return { output: { Results: [], $metadata: {} }, response: {} };
          return next(args);
        },
      { step: 'initialize', name, priority: 'high' },
    );
    onTestFinished(() => void client.middlewareStack.remove(name));
    await expect(redriveOnAws(opened(), { json: true, pollMs: 10, unlistedWaitMs: 100 })).rejects.toThrow(
      /the redrive task task-9 was started, but ListMessageMoveTasks has not listed it/,
    );
    expect((await inbox().get(PK))?.status).toBe('dead-lettered');
  });

  it('marks only what a task that FAILED part way moved, and names the record whose message it left in the DLQ', async () => {
    await deadLetterAnother('msg_redrive_2');
    // The task moves one of the two, then fails.
    emulateMoveTask(
      ctx.queueOps,
      async () => undefined,
      'FAILED',
      (m) => m.body.includes('msg_redrive_2'),
    );
    await expect(redriveOnAws(opened(), { json: true, pollMs: 10 })).rejects.toThrow(
      /the redrive task ended FAILED after moving 1 of 2 message\(s\): AccessDenied; 1 record\(s\) marked enqueued; 1 message\(s\) are still in the DLQ, their records left as they were: standard-webhooks\/msg_redrive_2$/,
    );
    expect((await inbox().get(PK))?.status).toBe('enqueued');
    expect((await inbox().get('standard-webhooks#msg_redrive_2'))?.status).toBe('dead-lettered');
    expect((await ctx.countMessages(resources.dlqUrl)).visible).toBe(1);
  });

  it('leaves dead-lettered, and names, a record whose message a COMPLETED task did not move', async () => {
    await deadLetterAnother('msg_redrive_2');
    // The task's count came short of what was peeked: it completes with one message still in the DLQ.
    emulateMoveTask(
      ctx.queueOps,
      async () => undefined,
      'COMPLETED',
      (m) => m.body.includes('msg_redrive_2'),
    );
    const result = await redriveOnAws(opened(), { json: true, pollMs: 10 });
    expect((await inbox().get(PK))?.status).toBe('enqueued');
    expect((await inbox().get('standard-webhooks#msg_redrive_2'))?.status).toBe('dead-lettered');
    expect((await ctx.countMessages(resources.dlqUrl)).visible).toBe(1);
    expect(result).toMatchObject({ moved: 1, marked: 1, stillInDlq: ['standard-webhooks/msg_redrive_2'] });
    expect(result.notMarked).toMatch(/1 message\(s\) are still in the DLQ.*standard-webhooks\/msg_redrive_2/);
  });

  it('waits for a task being cancelled to end, then marks what it moved and names what it left', async () => {
    await deadLetterAnother('msg_redrive_2');
    emulateMoveTask(
      ctx.queueOps,
      async () => undefined,
      'CANCELLED',
      (m) => m.body.includes('msg_redrive_2'),
    );
    await expect(redriveOnAws(opened(), { json: true, pollMs: 10 })).rejects.toThrow(
      /the redrive task ended CANCELLED after moving 1 of 2 message\(s\); 1 record\(s\) marked enqueued; .*standard-webhooks\/msg_redrive_2$/,
    );
    expect((await inbox().get(PK))?.status).toBe('enqueued');
    expect((await inbox().get('standard-webhooks#msg_redrive_2'))?.status).toBe('dead-lettered');
  });
});
