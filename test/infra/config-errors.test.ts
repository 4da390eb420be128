// An invalid `webhookInbox` context fails the synth with a message naming the bad key.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/index';
import { WebhookInboxStack } from '../../lib/webhook-inbox-stack';
import { createApp, PROJECT_ROOT, STACK_NAME } from './synth';

const run = promisify(execFile);

describe('an invalid webhookInbox config', () => {
  it('stops the stack with a ConfigError naming the key (a retry step over the SQS 12 h limit)', () => {
    const app = createApp({ context: { webhookInbox: { queue: { retrySchedule: ['30s', '13h'] } } } });
    expect(() => new WebhookInboxStack(app, STACK_NAME)).toThrow(
      new ConfigError("webhookInbox.queue.retrySchedule.1: 13h is over SQS's 12h visibility limit"),
    );
  });

  it('is read as JSON when given on the command line (-c webhookInbox=<json>)', () => {
    const app = createApp({ context: { webhookInbox: '{"providers":{"github":{"scheme":"gitlab"}}}' } });
    expect(() => new WebhookInboxStack(app, STACK_NAME)).toThrow(/webhookInbox\.providers\.github\.scheme/);
    const broken = createApp({ context: { webhookInbox: '{"queue":' } });
    expect(() => new WebhookInboxStack(broken, STACK_NAME)).toThrow('webhookInbox: not valid JSON');
  });

  it('makes the app print the message alone, without a stack trace, and exit 1', async () => {
    const failure = await run(join(PROJECT_ROOT, 'node_modules/.bin/tsx'), ['bin/webhook-inbox.ts'], {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        // How the CDK CLI hands the app its context and output directory.
        CDK_CONTEXT_JSON: JSON.stringify({ webhookInbox: { queue: { retrySchedule: ['30s', '13h'] } } }),
        CDK_OUTDIR: mkdtempSync(join(tmpdir(), 'webhook-inbox-synth-')),
      },
    }).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr.trim()).toBe(
      "Invalid configuration: webhookInbox.queue.retrySchedule.1: 13h is over SQS's 12h visibility limit",
    );
  }, 180_000);
});
