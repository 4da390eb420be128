// `send` and `selftest` against a running local instance, through the real command line.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoInbox } from '../../../lambdas/adapters/dynamo-inbox';
import type { LocalInbox } from '../../../local/local-inbox';
import { CLI_TIMEOUT_MS, json, makeProject, runCli, startInstance } from './helpers';

interface SendResult {
  provider: string;
  status: number;
  answer: { id?: string; duplicate?: boolean };
  dedupKey: string;
  responses: { status: number }[];
  outcome: {
    result: string;
    reason?: string;
    inboxStatus?: string;
    attempts?: number;
    lastErrorCode?: string;
  };
}

interface SelftestResult {
  passed: boolean;
  providers: {
    provider: string;
    passed: boolean;
    checks: { id: string; result: 'pass' | 'fail' | 'skip'; got: string; expected: string }[];
  }[];
}

const project = makeProject();
// A second instance with its own secrets: what an endpoint configured with another secret looks like.
const other = makeProject();
// A third whose retries come a second apart, so a transient failure is retried while `send` waits.
const quick = makeProject();
const cdk = JSON.parse(readFileSync(join(quick.dir, 'cdk.json'), 'utf8'));
cdk.context.webhookInbox.queue = { ...cdk.context.webhookInbox.queue, retrySchedule: ['1s', '1s'] };
writeFileSync(join(quick.dir, 'cdk.json'), JSON.stringify(cdk));
let inbox: LocalInbox;
let otherInbox: LocalInbox;
let quickInbox: LocalInbox;

beforeAll(async () => {
  [inbox, otherInbox, quickInbox] = await Promise.all([
    startInstance(project.dir),
    startInstance(other.dir),
    startInstance(quick.dir),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([inbox?.stop(), otherInbox?.stop(), quickInbox?.stop()]);
  project.remove();
  other.remove();
  quick.remove();
}, 60_000);

describe('webhook-inbox send', { timeout: CLI_TIMEOUT_MS * 2 }, () => {
  it('sends a file: 202 the first time, 200 duplicate the second, under the id in the file', async () => {
    const file = join(project.dir, 'evt.json');
    const event = {
      id: 'evt_1FileFixedId0000000000',
      object: 'event',
      type: 'charge.succeeded',
      created: 1_764_000_000,
      data: { object: { id: 'ch_1FileCharge', object: 'charge', amount: 500, currency: 'usd' } },
    };
    writeFileSync(file, `${JSON.stringify(event, null, 2)}\n`);

    const first = await runCli(project.dir, ['send', 'stripe', '--file', file]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('202');
    expect(first.stdout).toContain('evt_1FileFixedId0000000000');

    const second = await runCli(project.dir, ['send', 'stripe', '--file', file, '--json']);
    expect(second.code, second.stderr).toBe(0);
    const result = json<SendResult>(second);
    expect(result).toMatchObject({ provider: 'stripe', status: 200, dedupKey: 'evt_1FileFixedId0000000000' });
    expect(result.answer.duplicate).toBe(true);
  });

  it('waits for the outcome and prints it: 202, then processed', async () => {
    const human = await runCli(project.dir, ['send', 'github']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('202, then processed');
    // The SDK's Node 22 notice is silenced at the CLI's entry: nothing on stderr at all.
    expect(human.stderr).toBe('');
    const machine = json<SendResult>(await runCli(project.dir, ['send', 'github', '--json']));
    expect(machine.outcome).toEqual({ result: 'processed', inboxStatus: 'processed', attempts: 0 });
  });

  it('prints a permanent failure as 202, then dead-lettered, with its code', async () => {
    const human = await runCli(project.dir, [
      'send',
      'standard-webhooks',
      '--event',
      'webhook-inbox.demo.permanent',
    ]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('202, then dead-lettered (demo_permanent_failure)');
    expect(human.stdout).toContain('see it with `npx webhook-inbox dlq list`');
  });

  it('prints each failed attempt while it waits, then the outcome after the retry', async () => {
    const human = await runCli(quick.dir, [
      'send',
      'standard-webhooks',
      '--event',
      'webhook-inbox.demo.transient',
    ]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(
      'failed (demo_transient_failure), 1 failed attempt so far; retried on the schedule',
    );
    expect(human.stdout).toContain('202, then processed, after 1 failed attempt (demo_transient_failure)');
  });

  it('says still pending when the wait runs out first, and skips the wait with --no-wait', async () => {
    // The default schedule's first retry comes 15 s or more after the failure: far beyond a 1 s wait.
    const [timedOut, skipped] = await Promise.all([
      runCli(project.dir, [
        'send',
        'standard-webhooks',
        '--event',
        'webhook-inbox.demo.transient',
        '--wait-timeout',
        '1s',
        '--json',
      ]),
      runCli(project.dir, ['send', 'github', '--no-wait']),
    ]);
    const pending = json<SendResult>(timedOut);
    expect(pending.status).toBe(202);
    expect(pending.outcome.result).toBe('pending');
    expect(['claimed', 'processing', 'failed']).toContain(pending.outcome.inboxStatus);
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(skipped.stdout).toContain('202');
    expect(skipped.stdout).not.toContain('then processed');
    expect(skipped.stdout).not.toContain('waiting for the outcome');
  });

  it('gives every sample a fresh id, so each send is a new delivery', async () => {
    const [a, b] = await Promise.all([
      runCli(project.dir, ['send', 'stripe', '--json']),
      runCli(project.dir, ['send', 'stripe', '--json']),
    ]);
    const first = json<SendResult>(a as { code: number; stdout: string; stderr: string });
    const second = json<SendResult>(b as { code: number; stdout: string; stderr: string });
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(first.dedupKey).toMatch(/^evt_/);
    expect(second.dedupKey).not.toBe(first.dedupKey);
    expect(first.answer.id).toBe(`stripe:${first.dedupKey}`);
  });
});

describe('webhook-inbox selftest', { timeout: CLI_TIMEOUT_MS * 2 }, () => {
  it('passes the drill for every built-in provider', async () => {
    const run = await runCli(project.dir, ['selftest', '--all', '--json']);
    const result = json<SelftestResult>(run);
    const failures = result.providers.flatMap((p) =>
      p.checks.filter((c) => c.result === 'fail').map((c) => `${p.provider} ${c.id}: ${c.got}`),
    );
    expect(failures).toEqual([]);
    expect(run.code).toBe(0);
    expect(result.passed).toBe(true);
    expect(result.providers.map((p) => p.provider).sort()).toEqual(
      [
        'generic-hmac',
        'github',
        'linear',
        'mobazha',
        'paddle',
        'shopify',
        'slack',
        'square',
        'standard-webhooks',
        'stripe',
        'zoom',
      ].sort(),
    );
    const outcome = (provider: string, check: string) =>
      result.providers.find((p) => p.provider === provider)?.checks.find((c) => c.id === check)?.result;
    // Every provider proves the same core: accepted, processed, deduplicated, tamper and forgery refused.
    for (const p of result.providers) {
      for (const check of ['accepted', 'processed', 'duplicate', 'tampered', 'wrong_secret']) {
        expect(`${p.provider} ${check} ${outcome(p.provider, check)}`).toBe(`${p.provider} ${check} pass`);
      }
    }
    // Schemes without a signed timestamp report the stale check as skipped, never as passed.
    expect(['github', 'shopify', 'square'].map((p) => outcome(p, 'stale_timestamp'))).toEqual([
      'skip',
      'skip',
      'skip',
    ]);
    expect(['stripe', 'slack', 'linear', 'zoom'].map((p) => outcome(p, 'stale_timestamp'))).toEqual([
      'pass',
      'pass',
      'pass',
      'pass',
    ]);
    // Where an id is signed, the same id with another body is a conflict.
    expect(['stripe', 'standard-webhooks', 'mobazha', 'paddle'].map((p) => outcome(p, 'conflict'))).toEqual([
      'pass',
      'pass',
      'pass',
      'pass',
    ]);
    expect(outcome('github', 'conflict')).toBe('skip');
  });

  it('fails "processed exactly once", with exit 1, when the delivery is processed again while the drill watches', async () => {
    // Stands in for a second processing: every processed GitHub record from now on gets a new
    // processedAt every 100 ms. Its status stays `processed` throughout.
    const since = Date.now();
    const records = new DynamoInbox(inbox.clients.dynamodb, inbox.state.tableName);
    let drilling = true;
    const reprocess = (async () => {
      while (drilling) {
        const processed = await records.list({
          provider: 'github',
          status: 'processed',
          sinceMs: since,
          limit: 10,
        });
        for (const record of processed) {
          await inbox.clients.dynamodb.send(
            new UpdateItemCommand({
              TableName: inbox.state.tableName,
              Key: { pk: { S: record.pk } },
              UpdateExpression: 'SET processedAt = :at',
              ExpressionAttributeValues: { ':at': { S: new Date().toISOString() } },
            }),
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    let run: Awaited<ReturnType<typeof runCli>>;
    try {
      run = await runCli(project.dir, ['selftest', 'github', '--json']);
    } finally {
      drilling = false;
      await reprocess;
    }
    const result = json<SelftestResult>(run);
    const check = (id: string) => result.providers[0]?.checks.find((c) => c.id === id);
    expect(run.code).toBe(1);
    expect(result.passed).toBe(false);
    expect(check('accepted')?.result).toBe('pass');
    expect(check('duplicate')?.result).toBe('pass');
    expect(check('processed')).toMatchObject({ result: 'fail', expected: 'processed, then unchanged' });
    expect(check('processed')?.got).toMatch(/^processed, then processed again \(processedAt /);
  });

  it('fails, with exit 1, against an endpoint that has another secret', async () => {
    const url = `${otherInbox.state.gatewayUrl}/webhooks/github`;
    const run = await runCli(project.dir, ['selftest', 'github', '--url', url]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(url);
    expect(run.stdout).toMatch(/valid delivery accepted\s*│\s*202\s*│\s*401 bad_signature\s*│\s*FAIL/);
    expect(run.stdout).toContain('github: ');
    expect(run.stdout).toMatch(/[1-9]\d* failed/);
  });
});
