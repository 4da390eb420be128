// Load with faults: 2,000 distinct signed deliveries at concurrency 32 over real HTTP against local mode
// (startLocalInbox in this process), while SQS SendMessage fails for a window. The sender retries non-2xx
// answers with backoff, as providers do. Every distinct delivery must be processed exactly once, and no
// 2xx may be given for a delivery that was not enqueued.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfig } from '../../../config';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { SqsQueueOps } from '../../../lambdas/adapters/sqs-queue-ops';
import type { LogSink } from '../../../lambdas/core/telemetry';
import { defineEvent } from '../../../lambdas/events';
import { type LocalInbox, startLocalInbox } from '../../../local/local-inbox';
import { readSecretsFile } from '../../../local/secrets-file';
import { type Fault, injectFault } from '../../support/faults';
import {
  type Attempt,
  type RetryPolicy,
  runPool,
  type SendOutcome,
  type SendTally,
  sendWithRetries,
  signRequest,
  tallySends,
} from '../../support/load';

const PROVIDER = 'standard-webhooks';
const EVENT_TYPE = 'webhook-inbox.load-test';
const DELIVERIES = 2000;
const CONCURRENCY = 32;
/** The fault goes on once this many deliveries have been sent a first time. */
const FAULT_AFTER = Math.round(DELIVERIES * 0.2);
/**
 * The fault stays on at least this long and for at least this many failed SendMessage calls (the floor
 * keeps the window meaningful when the machine is so loaded that few calls fit in the time). It cannot be
 * "until 50% are sent": while SendMessage fails nothing is accepted, every worker is busy retrying, and
 * no new delivery starts, so such a window would only end when senders give up.
 */
const FAULT_MIN_MS = 2_000;
const FAULT_MIN_FAILURES = 100;
/**
 * 50 ms base, 2 s cap, full jitter. 20 attempts mean ~15 s of waits on average before giving up, and 13 of
 * the waits are drawn from [0, 2 s]: far longer than one delivery spends inside the window, so a delivery
 * is lost only if the inbox loses it, not because the sender gave up during the outage.
 */
const RETRY: RetryPolicy = { baseMs: 50, capMs: 2_000, maxAttempts: 20 };
/**
 * The test's budget. The machine is shared and often loaded: this is generous so a slow run still ends
 * with its figures printed rather than being cut off by vitest.
 */
const TEST_TIMEOUT_MS = 900_000;
/** After the last answer, how long the processor gets to drain, within what is left of the budget. */
const DRAIN_MS = 300_000;
/** Time kept back from the budget to read the inbox, print the figures and stop local mode. */
const REPORT_MS = 60_000;
const POLL_MS = 500;

const silent: LogSink = { info: () => undefined, warn: () => undefined, error: () => undefined };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The business effect: one call per processed delivery, counted by dedup key (the webhook-id). */
const effects = new Map<string, number>();
const countingHandler = defineEvent({
  provider: PROVIDER,
  type: EVENT_TYPE,
  schema: z.object({
    type: z.literal(EVENT_TYPE),
    timestamp: z.string(),
    data: z.object({ seq: z.number().int() }),
  }),
  handle: (_event, context) => {
    effects.set(context.dedupKey, (effects.get(context.dedupKey) ?? 0) + 1);
  },
});

const cwd = mkdtempSync(join(tmpdir(), 'webhook-inbox-load-'));
const config = parseConfig({});
let inbox: LocalInbox;
let fault: Fault | undefined;
let tally: SendTally | undefined;

beforeAll(async () => {
  inbox = await startLocalInbox({
    config,
    cwd,
    port: 0,
    logs: { verify: silent, process: silent },
    handlers: [countingHandler],
  });
  // local-inbox's verify handler enqueues through inbox.clients.sqs (SqsDeliveryQueue over that client).
  fault = injectFault(inbox.clients.sqs, { commands: 'SendMessageCommand' });
  fault.off();
  tally = tallySends(inbox.clients.sqs, inbox.state.queueUrl);
}, 120_000);

afterAll(async () => {
  fault?.remove();
  tally?.remove();
  await inbox?.stop();
  rmSync(cwd, { recursive: true, force: true });
});

async function queueDepth(ops: SqsQueueOps, queueUrl: string): Promise<number> {
  const counts = await ops.counts(queueUrl);
  return counts.visible + counts.inFlight + counts.delayed;
}

describe('local mode under load, with SQS failing for a window', () => {
  it(
    'processes every distinct delivery exactly once and never answers 2xx for one not enqueued',
    async () => {
      const testStarted = Date.now();
      const secret = readSecretsFile(inbox.state.secretsFile)[PROVIDER]?.[0];
      if (!secret) throw new Error(`no ${PROVIDER} secret in ${inbox.state.secretsFile}`);
      if (!fault || !tally) throw new Error('fault or tally not installed');
      const sqsFault = fault;
      const sends = tally.perKey;
      const url = `${inbox.state.gatewayUrl}/webhooks/${PROVIDER}`;
      const run = Date.now().toString(36);
      const ids = Array.from({ length: DELIVERIES }, (_, i) => `msg_load_${run}_${i}`);
      const outcomes = new Map<string, SendOutcome>();
      /** 2xx answers that arrived before any SendMessage for that delivery had been stored. */
      const acceptedUnenqueued: string[] = [];

      let started = 0;
      let faultOnAt: number | undefined;
      let faultOffAt: number | undefined;
      const faultWindow = setInterval(() => {
        if (faultOnAt === undefined || faultOffAt !== undefined) return;
        if (Date.now() - faultOnAt >= FAULT_MIN_MS && sqsFault.failures >= FAULT_MIN_FAILURES) {
          sqsFault.off();
          faultOffAt = Date.now();
        }
      }, 25);

      const sendStarted = Date.now();
      try {
        await runPool(DELIVERIES, CONCURRENCY, async (i) => {
          started += 1;
          // Progress, so a run on a loaded machine shows where its time went.
          if (started % (DELIVERIES / 4) === 0)
            console.log(
              `load with faults: ${started}/${DELIVERIES} started after ${((Date.now() - testStarted) / 1000).toFixed(0)}s, ` +
                `${outcomes.size} done, SendMessage failed ${sqsFault.failures}`,
            );
          if (started === FAULT_AFTER + 1) {
            sqsFault.on();
            faultOnAt = Date.now();
          }
          const id = ids[i] as string;
          // Signed once, when the event happens; every retry resends these exact bytes and headers.
          const timestamp = Math.floor(Date.now() / 1000);
          const body = Buffer.from(
            JSON.stringify({
              type: EVENT_TYPE,
              timestamp: new Date(timestamp * 1000).toISOString(),
              data: { seq: i },
            }),
          );
          const request = signRequest(config, PROVIDER, {
            id,
            body,
            secret,
            timestamp,
            eventType: EVENT_TYPE,
          });
          const outcome = await sendWithRetries(url, request, RETRY, (attempt: Attempt) => {
            if (attempt.status >= 200 && attempt.status < 300 && !sends.has(id)) acceptedUnenqueued.push(id);
          });
          outcomes.set(id, outcome);
        });
      } finally {
        clearInterval(faultWindow);
        sqsFault.off();
      }
      const sendMs = Date.now() - sendStarted;

      // Drain: every accepted delivery has its effect and a processed record, and the queue is empty.
      const inboxTable = new DynamoInbox(inbox.clients.dynamodb, inbox.state.tableName);
      const ops = new SqsQueueOps(inbox.clients.sqs);
      const acceptedIds = ids.filter((id) => outcomes.get(id)?.accepted);
      const drainStarted = Date.now();
      let statusById = new Map<string, string>();
      for (;;) {
        if (acceptedIds.every((id) => effects.has(id))) {
          const records = await inboxTable.list({ provider: PROVIDER, limit: DELIVERIES * 2 });
          statusById = new Map(records.map((r) => [r.dedupKey, r.status]));
          const allProcessed = acceptedIds.every((id) => statusById.get(id) === 'processed');
          if (allProcessed && (await queueDepth(ops, inbox.state.queueUrl)) === 0) break;
        }
        const budgetLeft = TEST_TIMEOUT_MS - REPORT_MS - (Date.now() - testStarted);
        if (Date.now() - drainStarted > Math.min(DRAIN_MS, budgetLeft)) break;
        await sleep(POLL_MS);
      }
      const drainMs = Date.now() - drainStarted;
      const records = await inboxTable.list({ provider: PROVIDER, limit: DELIVERIES * 2 });
      statusById = new Map(records.map((r) => [r.dedupKey, r.status]));
      const queueLeft = await queueDepth(ops, inbox.state.queueUrl);
      const dlq = await queueDepth(ops, inbox.state.dlqUrl);

      // Figures.
      const allAttempts = [...outcomes.values()].flatMap((o) => o.attempts);
      const statuses = new Map<number, number>();
      for (const a of allAttempts) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      const count = (status: number) => statuses.get(status) ?? 0;
      // Status 0 is no answer at all (a reset socket, e.g. a keep-alive race on a loaded machine): the sender
      // retries it like a 5xx, and it is reported apart from the answers the gateway gave.
      const otherStatuses = [...statuses].filter(([s]) => s !== 0 && s !== 202 && s !== 200 && s !== 503);
      const networkErrors = new Map<string, number>();
      for (const a of allAttempts)
        if (a.error !== undefined) networkErrors.set(a.error, (networkErrors.get(a.error) ?? 0) + 1);
      const gaveUp = ids.filter((id) => !outcomes.get(id)?.accepted);
      const processed = ids.filter((id) => (effects.get(id) ?? 0) >= 1 && statusById.get(id) === 'processed');
      const lost = DELIVERIES - processed.length;
      const duplicatedEffects = [...effects.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);
      const known = new Set(ids);
      const strayEffects = [...effects.keys()].filter((key) => !known.has(key));
      const notExactlyOnce = acceptedIds.filter(
        (id) => effects.get(id) !== 1 || statusById.get(id) !== 'processed',
      );
      const stored = [...sends.values()].reduce((a, b) => a + b, 0);
      const doubleSends = [...sends.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);
      const retriesPerDelivery = [...outcomes.values()].map((o) => o.attempts.length - 1);
      const retried = retriesPerDelivery.filter((n) => n > 0).length;
      const maxRetries = Math.max(...retriesPerDelivery);
      const window =
        faultOnAt === undefined
          ? 'never on'
          : `${((faultOffAt ?? Date.now()) - faultOnAt) / 1000}s after ${FAULT_AFTER} sent`;

      console.log(
        `load with faults: deliveries ${DELIVERIES}, attempts ${allAttempts.length}, ` +
          `retries ${allAttempts.length - DELIVERIES} (${retried} deliveries retried, max ${maxRetries}), ` +
          `503s ${count(503)}, 202s ${count(202)}, 200s ${count(200)}, ` +
          `other ${otherStatuses.length === 0 ? 'none' : otherStatuses.map(([s, n]) => `${s}:${n}`).join(' ')}, ` +
          `network errors ${count(0)}${networkErrors.size === 0 ? '' : ` (${[...networkErrors].map(([e, n]) => `${e} x${n}`).join('; ')})`}, ` +
          `accepted ${acceptedIds.length}, gave up ${gaveUp.length}, processed ${processed.length}, lost ${lost}, ` +
          `duplicated effects ${duplicatedEffects}, DLQ ${dlq}, queue left ${queueLeft}, ` +
          `SendMessage failed ${sqsFault.failures} / stored ${stored} (double ${doubleSends}), ` +
          `2xx before enqueue ${acceptedUnenqueued.length}, fault window ${window}, ` +
          `send ${(sendMs / 1000).toFixed(1)}s, drain ${(drainMs / 1000).toFixed(1)}s`,
      );

      expect(faultOnAt, 'the fault window opened').toBeDefined();
      expect(sqsFault.failures, 'SendMessage calls failed in the window').toBeGreaterThan(0);
      expect(count(503), '503s: the fault window bit').toBeGreaterThan(0);
      expect(otherStatuses, 'answers other than 202, 200 and 503').toEqual([]);
      expect(gaveUp, 'deliveries never accepted').toEqual([]);
      expect(acceptedUnenqueued, '2xx given before the delivery was enqueued').toEqual([]);
      expect(notExactlyOnce, 'accepted deliveries not processed exactly once').toEqual([]);
      expect(lost, 'lost').toBe(0);
      expect(duplicatedEffects, 'duplicated effects').toBe(0);
      expect(strayEffects, 'effects for deliveries never sent').toEqual([]);
      expect(
        acceptedIds.filter((id) => !sends.has(id)),
        'accepted deliveries never stored by SQS',
      ).toEqual([]);
      expect(dlq, 'DLQ').toBe(0);
      expect(queueLeft, 'main queue drained').toBe(0);
    },
    TEST_TIMEOUT_MS,
  );
});
