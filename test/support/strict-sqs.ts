// An SQS double with the real service's receive semantics, for tests that run against fauxqs. fauxqs
// answers every ReceiveMessage with everything visible, oldest first, each message once; SQS does not:
// - a short poll (WaitTimeSeconds 0 and no queue-level ReceiveMessageWaitTimeSeconds) samples a subset
//   of SQS's servers, so it may answer empty or with fewer messages than are visible;
// - a long poll answers at least one message when some are visible, and may still answer fewer than asked;
// - delivery is at least once: a message may be handed out again, with a receipt handle of its own, while
//   the first copy is still being worked on;
// - receive order is not send order;
// - ApproximateReceiveCount counts every receive SQS made, including the ones whose answer never reached
//   the consumer, so it may be higher than the receives the consumer saw.
// Installed as a middleware on a real SQSClient that talks to fauxqs: a message the double keeps from an
// answer is made visible again at once through an un-wrapped client, so it stays on the queue. Every
// choice comes from one seeded PRNG, so a run is reproducible from the seed it prints.
import { randomInt, randomUUID } from 'node:crypto';
import {
  ChangeMessageVisibilityCommand,
  GetQueueAttributesCommand,
  type Message,
  type ReceiveMessageCommandInput,
  type ReceiveMessageCommandOutput,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { Rng } from './rng';

export interface StrictSqsOptions {
  seed: number;
  /** Chance a short poll answers nothing although messages are visible. @default 0.5 */
  shortPollEmpty?: number;
  /** Chance an answer is cut to fewer messages than were asked for (never to none on a long poll). @default 0.5 */
  fewer?: number;
  /**
   * Chance each message of an answer is received and then kept from the consumer (made visible again at
   * once): it comes later, out of send order, with a receive count one higher than the consumer saw.
   * @default 0.05
   */
  withhold?: number;
  /** Chance each message handed out is also made visible again at once: a second copy. @default 0.05 */
  duplicate?: number;
}

export interface StrictSqsStats {
  receives: number;
  /** Short polls answered empty by the double. */
  emptied: number;
  /** Answers cut to fewer messages than asked for. */
  cut: number;
  withheld: number;
  duplicated: number;
}

export interface StrictSqs {
  readonly seed: number;
  readonly stats: StrictSqsStats;
  /**
   * Changes probabilities from now on, for a test whose premise rules a behaviour out (one that pins the
   * receives of a single copy turns duplicates off). Returns a function that puts the previous ones back.
   */
  set(options: Omit<StrictSqsOptions, 'seed'>): () => void;
  remove(): void;
}

/** The seed from STRICT_SQS_SEED, or a fresh one: print it, so a failing run can be repeated. */
export function strictSqsSeed(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.STRICT_SQS_SEED;
  if (text === undefined || text === '') return randomInt(2 ** 31);
  if (!/^\d{1,10}$/.test(text)) throw new Error(`STRICT_SQS_SEED must be an unsigned integer, got ${text}`);
  return Number(text) >>> 0;
}

interface Handler {
  output: ReceiveMessageCommandOutput;
  response: unknown;
}
type Next = (args: { input: ReceiveMessageCommandInput }) => Promise<Handler>;
type Middleware = (
  next: Next,
  context: { commandName?: string },
) => (args: { input: ReceiveMessageCommandInput }) => Promise<Handler>;
/** The stack as this middleware uses it: the SDK types each step's handler by the client's own unions. */
interface MiddlewareStack {
  add(middleware: Middleware, options: { step: 'initialize'; name: string; priority: 'low' }): void;
  remove(name: string): boolean;
}

/**
 * Makes `client`'s ReceiveMessage calls behave as SQS's. `raw` is a client on the same endpoint without
 * the double: it puts back what the double keeps and reads a queue's own long-poll setting.
 */
export function installStrictSqs(client: SQSClient, raw: SQSClient, options: StrictSqsOptions): StrictSqs {
  const rng = new Rng(options.seed);
  let { shortPollEmpty = 0.5, fewer = 0.5, withhold = 0.05, duplicate = 0.05 } = options;
  const stats: StrictSqsStats = { receives: 0, emptied: 0, cut: 0, withheld: 0, duplicated: 0 };
  const queueWaits = new Map<string, Promise<number>>();

  const queueWaitSeconds = (queueUrl: string) => {
    let wait = queueWaits.get(queueUrl);
    if (wait === undefined) {
      wait = raw
        .send(
          new GetQueueAttributesCommand({
            QueueUrl: queueUrl,
            AttributeNames: ['ReceiveMessageWaitTimeSeconds'],
          }),
        )
        .then(({ Attributes: attributes }) => Number(attributes?.ReceiveMessageWaitTimeSeconds ?? 0))
        .catch(() => 0);
      queueWaits.set(queueUrl, wait);
    }
    return wait;
  };

  // Visible again at once, as SQS makes a message whose answer was lost or that it hands out twice. A
  // message the consumer has deleted meanwhile is simply gone.
  const putBack = (queueUrl: string, message: Message) =>
    raw
      .send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: message.ReceiptHandle,
          VisibilityTimeout: 0,
        }),
      )
      .catch(() => undefined);

  const name = `strict-sqs-${randomUUID()}`;
  const stack = client.middlewareStack as unknown as MiddlewareStack;
  stack.add(
    (next, context) => async (args: { input: ReceiveMessageCommandInput }) => {
      if (context.commandName !== 'ReceiveMessageCommand') return next(args);
      stats.receives += 1;
      const input = args.input;
      const queueUrl = input.QueueUrl ?? '';
      const long = (input.WaitTimeSeconds ?? (await queueWaitSeconds(queueUrl))) > 0;
      if (!long && rng.chance(shortPollEmpty)) {
        stats.emptied += 1;
        return { output: { $metadata: { httpStatusCode: 200 } }, response: {} } satisfies Handler;
      }
      const asked = input.MaxNumberOfMessages ?? 1;
      let ask = asked;
      if (asked > 1 && rng.chance(fewer)) {
        ask = rng.range(1, asked - 1);
        stats.cut += 1;
      }
      const result = await next({ ...args, input: { ...input, MaxNumberOfMessages: ask } });
      const received = result.output.Messages ?? [];
      if (received.length === 0) return result;

      const kept: Message[] = [];
      const putBacks: Promise<unknown>[] = [];
      for (const message of received) {
        // A long poll that found messages answers with at least one of them.
        const mustKeep = long && kept.length === 0 && message === received[received.length - 1];
        if (!mustKeep && rng.chance(withhold)) {
          stats.withheld += 1;
          putBacks.push(putBack(queueUrl, message));
        } else {
          kept.push(message);
        }
      }
      for (const message of kept) {
        if (rng.chance(duplicate)) {
          stats.duplicated += 1;
          putBacks.push(putBack(queueUrl, message));
        }
      }
      await Promise.all(putBacks);
      return { ...result, output: { ...result.output, Messages: shuffle(rng, kept) } };
    },
    { step: 'initialize', name, priority: 'low' },
  );
  return {
    seed: options.seed,
    stats,
    set: (next) => {
      const previous = { shortPollEmpty, fewer, withhold, duplicate };
      ({ shortPollEmpty = shortPollEmpty, fewer = fewer, withhold = withhold, duplicate = duplicate } = next);
      return () => {
        ({ shortPollEmpty, fewer, withhold, duplicate } = previous);
      };
    },
    remove: () => {
      stack.remove(name);
    },
  };
}

function shuffle<T>(rng: Rng, items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
