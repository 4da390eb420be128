// The doctor's checklist against a running inbox on the emulators: the real table, queues and bucket
// (dynalite, fauxqs), the real gateway, verify and processor, through the same adapters the command wires.
// CloudWatch and Lambda's account settings have no emulator: small fakes stand in for them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  httpOps,
  inboxReader,
  redriveOps,
  resourceProbes,
} from '../../../../../cli/commands/doctor/adapters';
import type { CheckResult } from '../../../../../cli/commands/doctor/checklist';
import type { DoctorContext } from '../../../../../cli/commands/doctor/ports';
import { runChecks } from '../../../../../cli/commands/doctor/run-checks';
import { resolveTarget } from '../../../../../cli/shared/target';
import type { Target } from '../../../../../cli/shared/target-types';
import { loadProjectConfig } from '../../../../../config/load';
import type { LocalInbox } from '../../../../../local/local-inbox';
import { makeProject, type Project, startInstance } from '../../../../e2e/cli/helpers';
import { FakeCloudWatch, okAlarm, RESOURCES } from '../../../../unit/cli/commands/doctor/fake-context';

let project: Project;
let instance: LocalInbox;
let target: Target;

beforeAll(async () => {
  project = makeProject();
  instance = await startInstance(project.dir);
  target = await resolveTarget({}, loadProjectConfig(project.dir), project.dir);
}, 120_000);

afterAll(async () => {
  target?.close();
  await instance?.stop();
  project?.remove();
});

async function contextFor(over: (ctx: DoctorContext) => void = () => undefined): Promise<DoctorContext> {
  const clients = await target.clients();
  const ctx: DoctorContext = {
    stack: { name: 'local', region: target.region, outputs: {}, missingOutputs: [] },
    config: target.config,
    target,
    resources: async () => RESOURCES,
    probes: resourceProbes(clients, target),
    inbox: inboxReader(clients, target),
    http: await httpOps(),
    alarms: new FakeCloudWatch([okAlarm('WebhookInbox-DeadLetters-X')]),
    lambda: {
      concurrency: async () => ({ limit: 1000, unreserved: 980 }),
      reservedConcurrency: async () => 20,
    },
    redrive: redriveOps(clients, target),
    testDestination: () => Promise.reject(new Error('no destinations here')),
    clock: { nowMs: () => Date.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) },
    timing: {
      processed: { waitMs: 30_000, settleMs: 500, pollMs: 100 },
      alarmWaitMs: 1_000,
      alarmPollMs: 100,
    },
    options: { delivery: true, alarm: true },
  };
  over(ctx);
  return ctx;
}

const byId = (results: CheckResult[]) => Object.fromEntries(results.map((r) => [r.id, r]));

describe('doctor against a running inbox', () => {
  it('reads every resource, delivers a signed sample that is processed, and gets 405 for GET', async () => {
    const results = byId(await runChecks(await contextFor()));
    for (const id of [
      'outputs',
      'read:table',
      'read:queue',
      'read:dlq',
      'read:bucket',
      'delivery',
      'processed',
      'method',
    ]) {
      expect(results[id], `${id}: ${results[id]?.detail}`).toMatchObject({ status: 'pass' });
    }
    expect(results.delivery?.wrote).toContain('recorded, and processed by your handlers');
    // The local queue pair has the stack's redrive policy; SQS's default allow policy (none) allows it.
    expect(results['dlq:policy']).toMatchObject({ status: 'pass' });
    // The emulator may or may not answer ListMessageMoveTasks; either way the doctor never claims a start.
    const move = results['dlq:move'];
    expect(['pass', 'cannot-check']).toContain(move?.status);
    if (move?.status === 'pass') expect(move.detail).toContain('Not started');
  }, 120_000);

  it('fails the read of a table that is not there, and cannot check processed rather than fail it', async () => {
    const clients = await target.clients();
    const ctx = await contextFor((c) => {
      c.probes = resourceProbes(clients, { ...target, tableName: 'no-such-table' });
      c.inbox = inboxReader(clients, { ...target, tableName: 'no-such-table' });
    });
    const results = byId(await runChecks(ctx));
    expect(results['read:table']).toMatchObject({ status: 'fail' });
    expect(results.delivery).toMatchObject({ status: 'pass' });
    expect(results.processed).toMatchObject({
      status: 'cannot-check',
      detail: 'needs "the CLI can read the inbox table", which failed',
    });
  }, 120_000);

  it("fails a queue pair whose DLQ is not the main queue's dead-letter target", async () => {
    const ctx = await contextFor((c) => {
      c.target = { ...target, dlqArn: 'arn:aws:sqs:us-east-1:000000000000:other-dlq' };
      c.options = { delivery: false, alarm: false };
    });
    const results = byId(await runChecks(ctx));
    expect(results['dlq:policy']).toMatchObject({ status: 'fail' });
    expect(results['dlq:policy']?.detail).toContain('not to arn:aws:sqs:us-east-1:000000000000:other-dlq');
  }, 60_000);
});
