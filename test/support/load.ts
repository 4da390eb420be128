// A webhook sender under load, as providers behave: a fixed set of signed requests, each resent with the
// same bytes and headers on any non-2xx answer or network error, with exponential backoff and full jitter,
// until it is accepted or the sender gives up. Plus a read-only tally of what reached the queue.
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Config } from '../../config';
import { fullJitter } from '../../lambdas/core/backoff';
import { MESSAGE_ATTRIBUTES } from '../../lambdas/core/envelope';
import { SCHEMES } from '../../lambdas/core/schemes';

export interface SignedRequest {
  id: string;
  body: Buffer;
  headers: Record<string, string>;
}

/** Signs `body` as `provider`'s scheme does, at `timestamp` (Unix seconds). Header names are lowercased. */
export function signRequest(
  config: Config,
  provider: string,
  input: { id: string; body: Buffer; secret: string; timestamp: number; eventType?: string },
): SignedRequest {
  const settings = config.providers[provider];
  const scheme = settings ? SCHEMES[settings.scheme] : undefined;
  if (!settings || !scheme) throw new Error(`no scheme for provider ${provider}`);
  const signed = scheme.sign({ ...input, options: settings.options });
  // sign() includes a Content-Type; lowercase names so fetch does not send two.
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [name, value] of Object.entries(signed)) headers[name.toLowerCase()] = value;
  return { id: input.id, body: input.body, headers };
}

export interface RetryPolicy {
  baseMs: number;
  capMs: number;
  maxAttempts: number;
}

/** One answer to one attempt; status 0 is a network error (no answer at all), described by `error`. */
export interface Attempt {
  status: number;
  atMs: number;
  error?: string;
}

/** fetch's TypeError says only "fetch failed"; the socket's reason is in its cause. */
function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } })?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : (error as Error)?.name;
  const message = typeof cause?.message === 'string' ? cause.message : (error as Error)?.message;
  return `${code ?? 'error'}: ${message ?? ''}`;
}

export interface SendOutcome {
  attempts: Attempt[];
  /** The 2xx that ended the retries, if any. */
  accepted?: Attempt;
}

/**
 * POSTs the same request until a 2xx or `maxAttempts`. `onAnswer` runs for every answer before the next
 * attempt, so a caller can check state at the moment an answer arrives.
 */
export async function sendWithRetries(
  url: string,
  request: SignedRequest,
  policy: RetryPolicy,
  onAnswer: (attempt: Attempt) => void = () => undefined,
): Promise<SendOutcome> {
  const attempts: Attempt[] = [];
  for (let n = 0; n < policy.maxAttempts; n++) {
    if (n > 0)
      await new Promise((resolve) => setTimeout(resolve, fullJitter(n, policy.baseMs, policy.capMs)));
    let status = 0;
    let error: string | undefined;
    try {
      const response = await fetch(url, { method: 'POST', headers: request.headers, body: request.body });
      await response.arrayBuffer();
      status = response.status;
    } catch (thrown) {
      // Connection refused or reset: a provider retries these like a 5xx.
      error = describeFetchError(thrown);
    }
    const attempt: Attempt =
      error === undefined ? { status, atMs: Date.now() } : { status, atMs: Date.now(), error };
    attempts.push(attempt);
    onAnswer(attempt);
    if (status >= 200 && status < 300) return { attempts, accepted: attempt };
  }
  return { attempts };
}

/** Runs `task(0..count-1)` on `concurrency` workers, each taking the next index when it is free. */
export async function runPool(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) await task(i);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

export interface SendTally {
  /** Successful SendMessage calls to the queue, by the `dedupKey` message attribute. */
  readonly perKey: ReadonlyMap<string, number>;
  remove(): void;
}

/**
 * Counts the SendMessage calls to `queueUrl` that SQS stored, per dedup key. Observes only: it passes every
 * call through unchanged. Added after test/support/faults.ts's middleware (lower priority in the same step),
 * so a call failed by an injected fault never reaches it.
 */
export function tallySends(client: SQSClient, queueUrl: string, name = 'load-send-tally'): SendTally {
  const perKey = new Map<string, number>();
  client.middlewareStack.add(
    // biome-ignore lint/suspicious/noExplicitAny: the stack is typed by the client's input/output unions.
    ((next: (args: any) => Promise<any>, context: { commandName?: string }) => async (args: any) => {
      const result = await next(args);
      const input = args?.input as
        | { QueueUrl?: string; MessageAttributes?: Record<string, { StringValue?: string }> }
        | undefined;
      if (context.commandName === 'SendMessageCommand' && input?.QueueUrl === queueUrl) {
        const key = input.MessageAttributes?.[MESSAGE_ATTRIBUTES.dedupKey]?.StringValue ?? '(none)';
        perKey.set(key, (perKey.get(key) ?? 0) + 1);
      }
      return result;
      // biome-ignore lint/suspicious/noExplicitAny: see above.
    }) as any,
    { step: 'initialize', name, priority: 'low' },
  );
  return { perKey, remove: () => client.middlewareStack.remove(name) };
}
