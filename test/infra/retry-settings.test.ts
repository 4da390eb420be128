// The retry table of docs/configuration.md ("Retries: the schedule and what follows from it") against the synthesized
// template of the shipped config: the figures a user reads are the ones CloudFormation gets.
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../config/runtime';
import { formatDuration, retryHorizon } from '../../lambdas/core/retry-schedule';
import { docSection } from '../support/docs';
import { projectConfig, resourcesOf, synthStack } from './synth';

/** The table's rows: setting -> default column. */
function documentedRetryTable(): Record<string, string> {
  const section = docSection('docs/configuration.md', '### Retries: the schedule and what follows from it');
  const rows: Record<string, string> = {};
  for (const line of section.split('\n').slice(1)) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (cells.length < 4 || cells[1] === 'setting' || /^-+$/.test(cells[1] ?? '')) continue;
    rows[cells[1] as string] = cells[2] as string;
  }
  return rows;
}

/** The first number of a cell: `345600 s (4 days)` -> 345600. */
const firstNumber = (text: string | undefined) => Number(/\d+/.exec(text ?? '')?.[0]);

let template: Template;
let table: Record<string, string>;
beforeAll(() => {
  template = synthStack().template;
  table = documentedRetryTable();
});

function queues() {
  const all = Object.values(resourcesOf(template, 'AWS::SQS::Queue')).map((q) => q.Properties ?? {});
  return { main: all.find((q) => q.RedrivePolicy) ?? {}, dlq: all.find((q) => !q.RedrivePolicy) ?? {} };
}

describe('the documented retry table matches the template', () => {
  it('lists the shipped retry steps', () => {
    const steps = projectConfig().queue.retrySchedule.map(formatDuration).join(', ');
    expect(table['retry steps']).toBe(steps);
  });

  it('states the retry horizon the steps give, at least 24 hours at the shortest', () => {
    const horizon = retryHorizon(projectConfig().queue.retrySchedule);
    expect(table['retry horizon']).toContain(`${horizon.minSeconds} s to ${horizon.maxSeconds} s`);
    expect(horizon.minSeconds).toBeGreaterThanOrEqual(86_400);
  });

  it('states the maxReceiveCount of the redrive policy', () => {
    const redrive = queues().main.RedrivePolicy as { maxReceiveCount: number };
    expect(firstNumber(table.maxReceiveCount)).toBe(redrive.maxReceiveCount);
    expect(redrive.maxReceiveCount).toBe(projectConfig().queue.retrySchedule.length + 1);
  });

  it('states the main queue visibility timeout and retention, and the retention covers the horizon', () => {
    const { main } = queues();
    expect(firstNumber(table['queue visibility timeout'])).toBe(main.VisibilityTimeout);
    expect(firstNumber(table['queue retention'])).toBe(main.MessageRetentionPeriod);
    const horizon = retryHorizon(projectConfig().queue.retrySchedule);
    expect(main.MessageRetentionPeriod as number).toBeGreaterThan(horizon.maxSeconds);
  });

  it('states the DLQ retention, longer than the main queue keeps messages', () => {
    const { main, dlq } = queues();
    expect(firstNumber(table['DLQ retention'])).toBe(dlq.MessageRetentionPeriod);
    expect(dlq.MessageRetentionPeriod as number).toBeGreaterThan(main.MessageRetentionPeriod as number);
  });

  it('states the payload expiry, longer than twice the DLQ retention', () => {
    // The payload bucket is the one the Lambdas are given (the access log bucket has a lifecycle too).
    const bucketRef = Object.values(resourcesOf(template, 'AWS::Lambda::Function'))
      .map((f) => (f.Properties?.Environment as { Variables?: Record<string, { Ref?: string }> })?.Variables)
      .find((variables) => variables?.[ENV.bucket])?.[ENV.bucket]?.Ref as string;
    const bucket = resourcesOf(template, 'AWS::S3::Bucket')[bucketRef]?.Properties;
    const lifecycle = bucket?.LifecycleConfiguration as
      | { Rules: { ExpirationInDays?: number }[] }
      | undefined;
    const rules = lifecycle?.Rules ?? [];
    const days = rules.find((rule) => rule.ExpirationInDays !== undefined)?.ExpirationInDays;
    expect(firstNumber(table['payload object expiry'])).toBe(days);
    expect((days as number) * 86_400).toBeGreaterThan(2 * (queues().dlq.MessageRetentionPeriod as number));
  });
});
