// Local mode's event bus: it answers PutEvents as EventBridge does, so the real sender runs against it, and
// writes each event as a rule's target would get it to an owner-only JSON-lines file.
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventBridgeDestinationSender } from '../../../lambdas/adapters/eventbridge-destination';
import { eventBridgeLogPath, RecordingEventBus } from '../../../local/recording-event-bus';
import { outboundDelivery } from '../../support/outbound-delivery';

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'webhook-inbox-bus-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

const modeOf = (path: string) => statSync(path).mode & 0o777;
const lines = (path: string) => readFileSync(path, 'utf8').split('\n').slice(0, -1);
const noPayloads = { put: async () => Promise.reject(new Error('no payload writes expected')) };

describe('RecordingEventBus', () => {
  it('takes the sender’s PutEvents and records each event as EventBridge delivers it', async () => {
    const bus = new RecordingEventBus({ clock: { now: () => 0 }, region: 'eu-west-1' });
    const sender = new EventBridgeDestinationSender({
      client: bus,
      busFor: () => 'local-bus',
      payloads: noPayloads,
    });
    const [a, b] = [outboundDelivery({ dedupKey: 'a' }), outboundDelivery({ dedupKey: 'b' })];
    expect(await Promise.all([sender.send(a), sender.send(b)])).toEqual([
      { kind: 'accepted' },
      { kind: 'accepted' },
    ]);
    expect(bus.events).toHaveLength(2);
    expect(bus.events[0]).toMatchObject({
      version: '0',
      'detail-type': 'pull_request',
      source: 'webhook-inbox.github',
      account: '000000000000',
      region: 'eu-west-1',
      time: '2026-11-30T12:00:00Z',
      resources: [],
      eventBusName: 'local-bus',
      detail: { event: { action: 'opened', number: 7 }, delivery: { dedupKey: 'a', webhookId: a.webhookId } },
    });
    expect(new Set(bus.events.map((e) => e.id)).size).toBe(2);
  });

  it('answers with an EventId per entry and FailedEntryCount 0', async () => {
    const bus = new RecordingEventBus();
    const answer = await bus.send(
      new PutEventsCommand({
        Entries: [
          { Source: 's', DetailType: 't', Detail: '{}' },
          { Source: 's', DetailType: 't', Detail: '{"a":1}' },
        ],
      }),
    );
    expect(answer.FailedEntryCount).toBe(0);
    expect(answer.Entries?.map((e) => e.EventId)).toEqual(bus.events.map((e) => e.id));
  });

  it('fails entries EventBridge would fail, one by one, and counts them', async () => {
    const bus = new RecordingEventBus();
    const answer = await bus.send(
      new PutEventsCommand({
        Entries: [
          { Source: 's', DetailType: 't', Detail: '{}' },
          { Source: 's', DetailType: 't' },
          { Source: 's', DetailType: 't', Detail: '[1]' },
        ],
      }),
    );
    expect(answer.FailedEntryCount).toBe(2);
    expect(answer.Entries?.map((e) => e.ErrorCode)).toEqual([
      undefined,
      'InvalidArgument',
      'MalformedDetail',
    ]);
    expect(bus.events).toHaveLength(1);
  });

  it('refuses a request of more than 10 entries whole, and any other command', async () => {
    const bus = new RecordingEventBus();
    const entries = Array.from({ length: 11 }, () => ({ Source: 's', DetailType: 't', Detail: '{}' }));
    await expect(bus.send(new PutEventsCommand({ Entries: entries }))).rejects.toMatchObject({
      name: 'ValidationException',
    });
    await expect(
      bus.send(new SendMessageCommand({ QueueUrl: 'q', MessageBody: 'b' }) as unknown as PutEventsCommand),
    ).rejects.toThrow(/only takes PutEventsCommand/);
    expect(bus.events).toEqual([]);
  });

  it('appends one JSON line per event to a file created 0600 in a 0700 folder', async () => {
    const file = eventBridgeLogPath(cwd);
    const bus = new RecordingEventBus({ file });
    const sender = new EventBridgeDestinationSender({
      client: bus,
      busFor: () => 'local-bus',
      payloads: noPayloads,
    });
    // Pretty-printed, with an integer past 2^53: the line must stay one line and keep the digits.
    await sender.send(outboundDelivery({ body: '{\n  "id": 9007199254740993\n}' }));
    await sender.send(
      outboundDelivery({ body: 'payload=form', contentType: 'application/x-www-form-urlencoded' }),
    );
    expect(modeOf(join(cwd, '.webhook-inbox'))).toBe(0o700);
    expect(modeOf(file)).toBe(0o600);
    const [first, second, ...rest] = lines(file);
    expect(rest).toEqual([]);
    expect(first).toContain('"detail":{"event":{   "id": 9007199254740993 },"delivery":');
    expect(JSON.parse(first ?? '')).toMatchObject({
      source: 'webhook-inbox.github',
      eventBusName: 'local-bus',
    });
    expect(JSON.parse(second ?? '').detail.body_base64).toBe(Buffer.from('payload=form').toString('base64'));
  });

  it('tightens a file and folder left open to others before writing to them', async () => {
    const file = eventBridgeLogPath(cwd);
    new RecordingEventBus({ file });
    writeFileSync(file, '');
    chmodSync(file, 0o644);
    chmodSync(join(cwd, '.webhook-inbox'), 0o755);
    const bus = new RecordingEventBus({ file });
    await bus.send(new PutEventsCommand({ Entries: [{ Source: 's', DetailType: 't', Detail: '{}' }] }));
    expect(modeOf(file)).toBe(0o600);
    expect(modeOf(join(cwd, '.webhook-inbox'))).toBe(0o700);
    expect(lines(file)).toHaveLength(1);
  });
});
