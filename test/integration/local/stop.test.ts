// Ctrl-C in local mode: the SQS emulator keeps nothing across a restart, so the messages still on the
// queue are processed before it goes, and what cannot be (waiting out a retry step) is named in a warning.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { standardWebhooks } from '../../../lambdas/core/schemes/standard-webhooks';
import type { LogAttributes } from '../../../lambdas/core/telemetry';
import { type LocalInbox, startLocalInbox } from '../../../local/local-inbox';
import { readSecretsFile, secretsFilePath } from '../../../local/secrets-file';
import { effectCounter, signedEvent } from '../../support/pipeline';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const config = parseConfig({
  providers: { 'standard-webhooks': { scheme: 'standard-webhooks' } },
  queue: { retrySchedule: ['30s'], batchSize: 1 },
});

function recordingLog() {
  const warnings: { message: string; attributes: LogAttributes }[] = [];
  const sink = {
    info: () => undefined,
    error: () => undefined,
    warn: (message: string, attributes: LogAttributes) => void warnings.push({ message, attributes }),
  };
  return { sink, warnings };
}

async function start(onRun: Parameters<typeof effectCounter>[1]) {
  const cwd = mkdtempSync(join(tmpdir(), 'webhook-inbox-stop-'));
  dirs.push(cwd);
  const counter = effectCounter('standard-webhooks', onRun);
  const log = recordingLog();
  const inbox = await startLocalInbox({
    config,
    cwd,
    port: 0,
    logs: { verify: log.sink, process: log.sink },
    handlers: counter.handlers,
  });
  return { inbox, cwd, runs: counter.runs, warnings: log.warnings };
}

async function send(inbox: LocalInbox, cwd: string, id: string): Promise<number> {
  const secret =
    readSecretsFile(secretsFilePath(cwd))['standard-webhooks']?.[0] ?? standardWebhooks.generateSecret();
  const event = signedEvent('standard-webhooks', config, {
    body: JSON.stringify({ type: 'order.paid', timestamp: '2026-12-01T09:00:00Z', data: { id } }),
    secret,
    timestamp: Math.floor(Date.now() / 1000),
    id,
  });
  return (await inbox.verify(event)).statusCode;
}

describe('local mode: stopping', () => {
  it('processes the deliveries still queued behind a running batch before the emulator goes', async () => {
    let release: () => void = () => undefined;
    const { inbox, cwd, runs, warnings } = await start(async (context) => {
      if (context.dedupKey === 'msg_first') await new Promise<void>((resolve) => (release = resolve));
    });
    expect(await send(inbox, cwd, 'msg_first')).toBe(202);
    await expect.poll(() => runs.length).toBe(1);
    // Accepted while the first is being processed: it waits on the queue.
    expect(await send(inbox, cwd, 'msg_queued')).toBe(202);
    const stopped = inbox.stop();
    release();
    await stopped;
    expect(runs).toEqual(['msg_first', 'msg_queued']);
    expect(warnings.filter((w) => w.message === 'queued messages lost on exit')).toEqual([]);
  });

  it('says how many messages it could not process because they wait out a retry step', async () => {
    const { inbox, cwd, runs, warnings } = await start(() => {
      throw new Error('downstream timeout');
    });
    expect(await send(inbox, cwd, 'msg_retrying')).toBe(202);
    await expect.poll(() => runs.length).toBe(1);
    await inbox.stop();
    expect(warnings.find((w) => w.message === 'queued messages lost on exit')?.attributes.messages).toBe(1);
  });
});
