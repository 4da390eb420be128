// `npm start` as a user runs it: a child process, a project directory of its own, real HTTP requests
// signed by the providers' own libraries, and the inbox read back through the emulators.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { sign as octokitSign } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAwsClients } from '../../../lambdas/adapters/clients';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import { SqsQueueOps } from '../../../lambdas/adapters/sqs-queue-ops';
import type { InboxRecord } from '../../../lambdas/core/inbox';
import { lockFilePath } from '../../../local/instance-lock';
import { isAlive } from '../../../local/process-alive';
import type { LocalState } from '../../../local/state-file';

const REPO = resolve(import.meta.dirname, '../../..');
const project = mkdtempSync(join(tmpdir(), 'webhook-inbox-e2e-'));
let child: ChildProcess;
let output = '';
let state: LocalState;
let readyMs = 0;

async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; output so far:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `npm start` on a free port, from the project directory; `detached` puts it in a process group of its own. */
const npmStart = (detached = false) =>
  spawn('npm', ['--prefix', REPO, 'start', '--silent', '--', '--port', '0'], {
    cwd: project,
    env: { ...process.env, FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });

const readState = () =>
  JSON.parse(readFileSync(join(project, '.webhook-inbox', 'local.json'), 'utf8')) as LocalState;

beforeAll(async () => {
  // The project's own cdk.json, with retries shortened so a transient failure reaches the DLQ quickly.
  const cdk = JSON.parse(readFileSync(join(REPO, 'cdk.json'), 'utf8'));
  cdk.context.webhookInbox.queue = { ...cdk.context.webhookInbox.queue, retrySchedule: ['1s', '2s'] };
  writeFileSync(join(project, 'cdk.json'), JSON.stringify(cdk));
  const started = performance.now();
  // `npm start` runs in the package root but keeps the caller's directory in INIT_CWD: started from the
  // project directory, the instance keeps its state there and not in the repository.
  child = npmStart();
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  state = await waitFor('local.json', () => {
    const file = join(project, '.webhook-inbox', 'local.json');
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as LocalState) : undefined;
  });
  readyMs = performance.now() - started;
  // Measured, not asserted: the machine is shared.
  console.log(`local mode: command to ready in ${Math.round(readyMs)} ms`);
}, 90_000);

afterAll(() => {
  // npm does not pass SIGKILL on: end the instance itself too, if a failed test left it running.
  if (state && isAlive(state.pid)) process.kill(state.pid, 'SIGKILL');
  if (child && child.exitCode === null) child.kill('SIGKILL');
  rmSync(project, { recursive: true, force: true });
});

const secrets = () =>
  JSON.parse(readFileSync(join(project, '.webhook-inbox', 'secrets.json'), 'utf8')) as Record<
    string,
    string[]
  >;
const post = (provider: string, body: string, headers: Record<string, string>) =>
  fetch(`${state.gatewayUrl}/webhooks/${provider}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });
const clients = () =>
  createAwsClients({ ...state.endpoints, credentials: state.credentials, region: state.region });

async function recordIn(pk: string, wanted: string): Promise<InboxRecord> {
  const inbox = new DynamoInbox(clients().dynamodb, state.tableName);
  return waitFor(
    `${pk} to be ${wanted}`,
    async () => {
      const record = await inbox.get(pk);
      return record?.status === wanted ? record : undefined;
    },
    30_000,
  );
}

async function statusOf(pk: string, wanted: string): Promise<string> {
  return (await recordIn(pk, wanted)).status;
}

/** The outcomes of the processor's lines for one delivery in the instance's output (`processed`, ...). */
function processorOutcomes(provider: string, dedupKey: string, text = output): string[] {
  // Local mode prints a key longer than 16 characters as its first 15 and an ellipsis.
  const key = dedupKey.length > 16 ? `${dedupKey.slice(0, 15)}…` : dedupKey;
  const line = new RegExp(`\\bprocess (\\S+)(?: .*)? ${provider} key=${key} `);
  return stripVTControlCharacters(text)
    .split('\n')
    .flatMap((entry) => line.exec(entry)?.[1] ?? []);
}

/**
 * Processed, and only once: one `processed` line and no other processor line for the delivery, and the
 * record unchanged once nothing is left on the queue (no other copy of it can be processed after that).
 */
async function expectProcessedOnce(provider: string, dedupKey: string): Promise<void> {
  const pk = `${provider}#${dedupKey}`;
  const first = await recordIn(pk, 'processed');
  await waitFor(`the processor's line for ${pk}`, () =>
    processorOutcomes(provider, dedupKey).length > 0 ? true : undefined,
  );
  const ops = new SqsQueueOps(clients().sqs);
  await waitFor('the queue to drain', async () => {
    const { visible, inFlight, delayed } = await ops.counts(state.queueUrl);
    return visible + inFlight + delayed === 0 ? true : undefined;
  });
  const settled = await new DynamoInbox(clients().dynamodb, state.tableName).get(pk);
  expect(settled).toMatchObject({ status: 'processed', processedAt: first.processedAt, attempts: 0 });
  expect(settled?.processingToken).toBe(first.processingToken);
  // Processed once. A duplicate that raced the first (answered before the processor took it) sent a
  // copy, which the processor skips: never a second run.
  const outcomes = processorOutcomes(provider, dedupKey);
  expect(outcomes.filter((outcome) => outcome === 'processed')).toEqual(['processed']);
  expect(outcomes.filter((outcome) => outcome !== 'processed' && outcome !== 'duplicate_skipped')).toEqual(
    [],
  );
}

describe('local mode (npm start)', () => {
  it('prints a banner with the URL per provider and writes local.json', async () => {
    // local.json is written just before the banner; the pipe may deliver the banner a moment later.
    await waitFor('the banner', () => (output.includes('Ctrl-C to stop') ? true : undefined), 10_000);
    expect(output).toContain(`${state.gatewayUrl}/webhooks/github`);
    expect(output).toContain('npx webhook-inbox send github');
    expect(output).toContain('npx webhook-inbox console');
    expect(state.gatewayUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(existsSync(join(project, '.webhook-inbox', 'secrets.json'))).toBe(true);
  });

  it('refuses a second npm start in the same folder with one line naming the first, which keeps serving', async () => {
    const second = npmStart(true);
    let stdout = '';
    let stderr = '';
    second.stdout.on('data', (chunk) => (stdout += chunk));
    second.stderr.on('data', (chunk) => (stderr += chunk));
    // It either exits, or starts serving (and is stopped, failing the test): no waiting for a clock.
    const outcome = await new Promise<string>((resolve) => {
      second.once('exit', (code) => resolve(`exit ${code}`));
      second.stdout.on('data', () => {
        if (stdout.includes('Ctrl-C to stop')) resolve('started');
      });
    });
    if (second.exitCode === null) process.kill(-(second.pid as number), 'SIGKILL');
    expect(outcome, stdout + stderr).toBe('exit 1');
    const lines = stderr.split('\n').filter((line) => line.trim() !== '');
    expect(lines, stderr).toHaveLength(1);
    expect(lines[0]).toContain(`pid ${state.pid}`);
    expect(lines[0]).toContain(state.gatewayUrl);
    expect(stdout).toBe('');
    // The first instance still serves, and local.json still names it.
    expect((await fetch(`${state.gatewayUrl}/webhooks/github`)).status).toBe(405);
    expect(readState()).toEqual(state);
  }, 60_000);

  it('accepts a GitHub event signed by @octokit/webhooks-methods and processes it once', async () => {
    const body = JSON.stringify({ zen: 'Approachable is better than simple.', hook_id: 1 });
    const signature = await octokitSign(secrets().github![0]!, body);
    const response = await post('github', body, {
      'x-hub-signature-256': signature,
      'x-github-event': 'ping',
      'x-github-delivery': 'd-e2e-1',
    });
    expect(response.status).toBe(202);
    const { id } = (await response.json()) as { id: string };
    // GitHub signs no event id: the dedup key is the body's hash.
    await expectProcessedOnce('github', id.replace(/^github:/, ''));
    expect(output).toContain('github ping');
  });

  it("accepts a Stripe event signed by stripe's test helper, answers the duplicate 200, and processes it once", async () => {
    const body = JSON.stringify({
      id: 'evt_e2e_1',
      object: 'event',
      type: 'payment_intent.succeeded',
      data: { object: { id: 'pi_1', amount: 500, currency: 'eur' } },
    });
    const header = new Stripe('sk_test_x').webhooks.generateTestHeaderString({
      payload: body,
      secret: secrets().stripe![0]!,
    });
    expect((await post('stripe', body, { 'stripe-signature': header })).status).toBe(202);
    expect((await post('stripe', body, { 'stripe-signature': header })).status).toBe(200);
    // The duplicate is answered 200; the effect runs once.
    await expectProcessedOnce('stripe', 'evt_e2e_1');
  });

  it('accepts a Standard Webhooks event signed by standardwebhooks; rejects a tampered body and a stale timestamp with 401', async () => {
    const hook = new Webhook(secrets()['standard-webhooks']![0]!);
    const body = JSON.stringify({
      type: 'user.created',
      timestamp: new Date().toISOString(),
      data: { id: 'u_1' },
    });
    const now = new Date();
    const headers = (id: string, at: Date, payload: string) => ({
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': hook.sign(id, at, payload),
    });
    expect((await post('standard-webhooks', body, headers('msg_e2e_1', now, body))).status).toBe(202);
    expect(
      (await post('standard-webhooks', body.replace('u_1', 'u_2'), headers('msg_e2e_2', now, body))).status,
    ).toBe(401);
    const stale = new Date(now.getTime() - 600_000);
    expect((await post('standard-webhooks', body, headers('msg_e2e_3', stale, body))).status).toBe(401);
    expect(await statusOf('standard-webhooks#msg_e2e_1', 'processed')).toBe('processed');
  });

  it('answers GET / with where the webhooks go, not a bare 404', async () => {
    const response = await fetch(`${state.gatewayUrl}/`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { message: string }).message).toContain('/webhooks/<provider>');
  });

  it('answers other paths 404 and other methods 405, as API Gateway does', async () => {
    expect((await fetch(`${state.gatewayUrl}/admin`)).status).toBe(404);
    expect((await fetch(`${state.gatewayUrl}/webhooks/github`)).status).toBe(405);
  });

  it('answers a provider path with a malformed percent-escape 404 (unknown provider), not 502', async () => {
    for (const provider of ['%', '%ZZ']) {
      const response = await post(provider, '{}', {});
      expect(`${provider} ${response.status}`).toBe(`${provider} 404`);
    }
  });

  it('dead-letters a transient failure after maxReceiveCount, and a permanent one at once', async () => {
    const hook = new Webhook(secrets()['standard-webhooks']![0]!);
    const send = async (id: string, kind: 'transient' | 'permanent') => {
      // More failures than the schedule has receives: the transient demo is retried until it is given up.
      const body = JSON.stringify({
        type: `webhook-inbox.demo.${kind}`,
        timestamp: new Date().toISOString(),
        data: kind === 'transient' ? { failures: 100 } : {},
      });
      const at = new Date();
      const response = await post('standard-webhooks', body, {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': hook.sign(id, at, body),
      });
      expect(response.status).toBe(202);
    };
    await send('msg_e2e_permanent', 'permanent');
    expect(await statusOf('standard-webhooks#msg_e2e_permanent', 'dead-lettered')).toBe('dead-lettered');
    await send('msg_e2e_transient', 'transient');
    const ops = new SqsQueueOps(clients().sqs);
    const inDlq = await waitFor(
      '2 messages in the DLQ',
      async () => {
        const counts = await ops.counts(state.dlqUrl);
        return counts.visible + counts.inFlight >= 2 ? counts.visible + counts.inFlight : undefined;
      },
      45_000,
    );
    expect(inDlq).toBe(2);
    // Said once: the permanent one's line says when SQS moves it, and the receives that only hand it on
    // to the DLQ print nothing.
    expect(processorOutcomes('standard-webhooks', 'msg_e2e_permanent')).toEqual(['dead_lettered']);
    expect(stripVTControlCharacters(output)).toMatch(
      /process dead_lettered demo_permanent_failure standard-webhooks key=msg_e2e_\S+ type=\S+ \(given up at receive 1; SQS moves it to the DLQ after receive 3\)/,
    );
    const inbox = new DynamoInbox(clients().dynamodb, state.tableName);
    // The last receive's failure says so: the runbook's `deliveries list --status dead-lettered` finds it.
    expect(await inbox.get('standard-webhooks#msg_e2e_transient')).toMatchObject({
      status: 'dead-lettered',
      attempts: 3,
    });
  }, 60_000);

  // Last: it stops the instance. A GitHub delivery's body is still arriving when SIGTERM comes (the
  // server has its headers: it answered 100-continue), and the rest arrives two seconds later, longer
  // than the poller takes to stop; the answer, then the processing of what it accepted, come before exit.
  describe('on SIGTERM with a request in flight', () => {
    let answer: { status: number; body: string } | Error;
    let code: number | null;
    let afterSignal = '';

    beforeAll(async () => {
      const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 2 });
      const request = httpRequest(`${state.gatewayUrl}/webhooks/github`, {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-hub-signature-256': await octokitSign(secrets().github![0]!, body),
          'x-github-event': 'ping',
          'x-github-delivery': 'd-e2e-sigterm',
          expect: '100-continue',
        },
      });
      const answered = new Promise<typeof answer>((resolve) => {
        request.on('response', (response) => {
          let text = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        });
        request.on('error', resolve);
      });
      request.flushHeaders();
      await once(request, 'continue');

      const exited = new Promise<number | null>((r) => child.once('exit', (exitCode) => r(exitCode)));
      const mark = output.length;
      const signalled = performance.now();
      // Signal the inbox process itself (its pid is in local.json); npm passes its exit code through.
      process.kill(state.pid, 'SIGTERM');
      await waitFor('the instance to start stopping', () =>
        output.slice(mark).includes('SIGTERM: stopping') ? true : undefined,
      );
      await new Promise((r) => setTimeout(r, 2_000));
      request.end(body);
      answer = await answered;
      code = await exited;
      afterSignal = output.slice(mark);
      // Measured, not asserted: the machine is shared.
      console.log(`local mode: stopped ${Math.round(performance.now() - signalled)} ms after SIGTERM`);
    }, 60_000);

    const accepted = () => JSON.parse((answer as { body: string }).body) as { id: string };

    it('answers the request whose body was still arriving, 202', () => {
      expect(answer).toMatchObject({ status: 202 });
      expect(accepted().id).toMatch(/^github:/);
    });

    it('processes the delivery that request accepted before it exits, once', () => {
      const dedupKey = accepted().id.replace(/^github:/, '');
      expect(processorOutcomes('github', dedupKey, afterSignal)).toEqual(['processed']);
    });

    it('exits 0, with nothing left listening and local.json and the lock removed', async () => {
      expect(code).toBe(0);
      const port = Number(new URL(state.gatewayUrl).port);
      const refused = await new Promise<boolean>((r) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          r(false);
        });
        socket.once('error', () => r(true));
      });
      expect(refused).toBe(true);
      expect(existsSync(join(project, '.webhook-inbox', 'local.json'))).toBe(false);
      expect(existsSync(lockFilePath(project))).toBe(false);
    });
  });
});
