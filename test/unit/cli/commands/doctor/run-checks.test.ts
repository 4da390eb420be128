// The checklist's order and dependencies: one failing prerequisite makes the items that need it "cannot
// check" naming it, not a cascade of failures; a healthy stack passes every item.
import { describe, expect, it } from 'vitest';
import { summarize } from '../../../../../cli/commands/doctor/checklist';
import { runChecks } from '../../../../../cli/commands/doctor/run-checks';
import { parseConfig } from '../../../../../config';
import type { InboxRecord } from '../../../../../lambdas/core/inbox';
import { accessDenied, awsError, fakeContext, fakeTarget } from './fake-context';

const config = parseConfig({ providers: { github: { scheme: 'github' } } });

function processedInbox() {
  const record = { status: 'processed', attempts: 0, processedAt: '2026-12-01T00:00:00Z' } as InboxRecord;
  return { get: async () => record };
}

describe('runChecks', () => {
  it('passes every item of a healthy stack, in order', async () => {
    const ctx = fakeContext(
      { target: fakeTarget(config, { github: ['chosen'] }), inbox: processedInbox() },
      config,
    );
    const results = await runChecks(ctx);
    expect(results.map((r) => [r.id, r.status])).toEqual([
      ['outputs', 'pass'],
      ['read:table', 'pass'],
      ['read:queue', 'pass'],
      ['read:dlq', 'pass'],
      ['read:bucket', 'pass'],
      ['secret:github', 'pass'],
      ['delivery', 'pass'],
      ['processed', 'pass'],
      ['method', 'pass'],
      ['alarm', 'pass'],
      ['dlq:policy', 'pass'],
      ['dlq:move', 'pass'],
      ['concurrency', 'pass'],
    ]);
    expect(summarize(results).ok).toBe(true);
  });

  it('reports missing outputs once: what needs them cannot be checked, naming them', async () => {
    const ctx = fakeContext({ target: undefined }, config);
    ctx.stack.missingOutputs = ['QueueUrl'];
    const results = await runChecks(ctx);
    const failed = results.filter((r) => r.status === 'fail').map((r) => r.id);
    expect(failed).toEqual(['outputs']);
    for (const id of [
      'read:table',
      'secret:github',
      'delivery',
      'processed',
      'method',
      'dlq:policy',
      'dlq:move',
    ]) {
      expect(results.find((r) => r.id === id)).toMatchObject({
        status: 'cannot-check',
        detail: `needs "the stack's outputs are present", which failed`,
      });
    }
  });

  it('does not send the test delivery when no secret passed, and says why', async () => {
    const ctx = fakeContext({ target: fakeTarget(config, {}) }, config);
    const results = await runChecks(ctx);
    expect(results.find((r) => r.id === 'secret:github')?.status).toBe('fail');
    expect(results.find((r) => r.id === 'delivery')).toMatchObject({
      status: 'cannot-check',
      detail: 'no provider has a secret that passed its check',
    });
  });

  it('cannot check processed when the table is unreadable, after a 202', async () => {
    const ctx = fakeContext({ target: fakeTarget(config, { github: ['chosen'] }) }, config);
    ctx.probes.table = () => Promise.reject(new Error('ResourceNotFoundException'));
    const results = await runChecks(ctx);
    expect(results.find((r) => r.id === 'delivery')?.status).toBe('pass');
    expect(results.find((r) => r.id === 'processed')).toMatchObject({
      status: 'cannot-check',
      detail: 'needs "the CLI can read the inbox table", which failed',
    });
  });

  it('skips the writes with --no-delivery and --skip-alarm, and sends nothing', async () => {
    let posted = 0;
    const ctx = fakeContext(
      {
        target: fakeTarget(config, { github: ['chosen'] }),
        options: { delivery: false, alarm: false },
        http: {
          post: async () => {
            posted++;
            return { status: 202, answer: {} };
          },
          request: async () => 405,
        },
      },
      config,
    );
    const results = await runChecks(ctx);
    expect(posted).toBe(0);
    expect(results.filter((r) => r.status === 'skipped').map((r) => r.id)).toEqual([
      'delivery',
      'processed',
      'alarm',
    ]);
    expect(results.every((r) => r.wrote === undefined)).toBe(true);
  });

  it('fails a 401 with the secret as the fix, and a 200 to GET with a redeploy', async () => {
    const ctx = fakeContext(
      {
        target: fakeTarget(config, { github: ['chosen'] }),
        http: {
          post: async () => ({ status: 401, answer: { error: 'bad_signature' } }),
          request: async () => 200,
        },
      },
      config,
    );
    const results = await runChecks(ctx);
    expect(results.find((r) => r.id === 'delivery')).toMatchObject({ status: 'fail' });
    expect(results.find((r) => r.id === 'delivery')?.fix).toContain('secrets show github');
    expect(results.find((r) => r.id === 'processed')?.status).toBe('cannot-check');
    expect(results.find((r) => r.id === 'method')).toMatchObject({ status: 'fail' });
  });

  it("accepts an HTTP API's 404 to GET, its documented answer", async () => {
    const ctx = fakeContext(
      {
        target: fakeTarget(config, { github: ['chosen'] }),
        resources: async () => [
          { logicalId: 'InboxHttpApi', physicalId: 'abc', type: 'AWS::ApiGatewayV2::Api' },
        ],
        http: { post: async () => ({ status: 202, answer: {} }), request: async () => 404 },
        options: { delivery: false, alarm: false },
      },
      config,
    );
    const results = await runChecks(ctx);
    expect(results.find((r) => r.id === 'method')?.status).toBe('pass');
  });

  it('keeps the 202 it wrote, and the GET, when reading the record afterwards fails', async () => {
    const ctx = fakeContext(
      {
        target: fakeTarget(config, { github: ['chosen'] }),
        inbox: { get: () => Promise.reject(awsError('ThrottlingException', 'Rate exceeded')) },
      },
      config,
    );
    const results = await runChecks(ctx);
    expect(results.find((r) => r.id === 'delivery')).toMatchObject({ status: 'pass' });
    expect(results.find((r) => r.id === 'delivery')?.wrote).toContain('one signed github sample');
    expect(results.find((r) => r.id === 'processed')).toMatchObject({ status: 'cannot-check' });
    expect(results.find((r) => r.id === 'processed')?.detail).toContain('Rate exceeded');
    expect(results.find((r) => r.id === 'method')).toMatchObject({ status: 'pass' });
  });

  it("cannot check, rather than fail, a 404 to GET when the stack's resources cannot tell an HTTP API", async () => {
    const ctx = fakeContext(
      {
        target: fakeTarget(config, { github: ['chosen'] }),
        resources: () => Promise.reject(accessDenied()),
        http: { post: async () => ({ status: 202, answer: {} }), request: async () => 404 },
        options: { delivery: false, alarm: false },
      },
      config,
    );
    const results = await runChecks(ctx);
    expect(results.find((r) => r.id === 'method')).toMatchObject({ status: 'cannot-check' });
    expect(results.find((r) => r.id === 'method')?.detail).toContain('cloudformation:ListStackResources');
  });

  it('turns a check that throws into "cannot check" with the reason, and goes on', async () => {
    const ctx = fakeContext({ target: fakeTarget(config, { github: ['chosen'] }) }, config);
    ctx.redrive.policies = () => {
      throw new Error('boom');
    };
    const results = await runChecks(ctx);
    expect(results.find((r) => r.id === 'dlq:policy')?.status).toBe('cannot-check');
    expect(results.at(-1)?.id).toBe('concurrency');
  });
});
