// Local mode's EventBridge: takes PutEvents as a bus does and writes each event, as a rule's target would
// receive it, to `.webhook-inbox/eventbridge.jsonl` (and keeps it in memory), so local mode runs the same
// EventBridgeDestinationSender as AWS. The file holds webhook bodies, so it is owner-only like secrets.json.
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  PutEventsCommand,
  type PutEventsCommandOutput,
  type PutEventsRequestEntry,
} from '@aws-sdk/client-eventbridge';
import type { PutEventsClient } from '../lambdas/adapters/eventbridge-destination';
import { MAX_ENTRIES_PER_REQUEST } from '../lambdas/core/destinations/eventbridge-entry';
import { type Clock, systemClock } from '../lambdas/core/ports';
import { makePrivateDir, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, tighten } from './private-files';
import { STATE_DIR } from './secrets-file';

export function eventBridgeLogPath(cwd: string): string {
  return join(cwd, STATE_DIR, 'eventbridge.jsonl');
}

/** An event as EventBridge hands it to a rule's target, and the bus it was put on. */
export interface RecordedEvent {
  version: '0';
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  /** ISO-8601 to the second, as EventBridge writes it. */
  time: string;
  region: string;
  resources: string[];
  detail: unknown;
  eventBusName: string;
}

export interface RecordingEventBusOptions {
  /** Appends each event as one JSON line; absent, the events are only kept in memory. */
  file?: string;
  clock?: Clock;
  /** @default us-east-1 */
  region?: string;
  /** @default 000000000000, the emulators' account */
  account?: string;
}

/** What EventBridge answers for a request it refuses whole, shaped like the SDK's service exceptions. */
function validationError(message: string): Error {
  return Object.assign(new Error(message), {
    name: 'ValidationException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** EventBridge fails an entry without Source, DetailType or Detail, and one whose Detail is not a JSON object. */
function entryError(entry: PutEventsRequestEntry): { ErrorCode: string; ErrorMessage: string } | undefined {
  if (!entry.Source || !entry.DetailType || entry.Detail === undefined) {
    return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Source, DetailType and Detail are required' };
  }
  if (!isJsonObject(entry.Detail)) {
    return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is not a valid JSON object' };
  }
  return undefined;
}

/**
 * One line of the file, with the Detail as sent rather than parsed and written again (which would round
 * integers beyond 2^53). Valid JSON has line breaks only between tokens, where a space means the same.
 */
function eventLine(event: RecordedEvent, detail: string): string {
  const { detail: _parsed, ...head } = event;
  return `${JSON.stringify(head).slice(0, -1)},"detail":${detail.replace(/[\r\n]+/g, ' ')}}`;
}

export class RecordingEventBus implements PutEventsClient {
  /** Every event taken, oldest first. */
  readonly events: RecordedEvent[] = [];
  private readonly clock: Clock;

  constructor(private readonly options: RecordingEventBusOptions = {}) {
    this.clock = options.clock ?? systemClock;
    if (options.file !== undefined) {
      makePrivateDir(dirname(options.file));
      tighten(dirname(options.file), PRIVATE_DIR_MODE);
      tighten(options.file, PRIVATE_FILE_MODE);
    }
  }

  async send(command: PutEventsCommand): Promise<PutEventsCommandOutput> {
    if (!(command instanceof PutEventsCommand)) {
      throw new Error('RecordingEventBus only takes PutEventsCommand');
    }
    const entries = command.input.Entries ?? [];
    if (entries.length === 0 || entries.length > MAX_ENTRIES_PER_REQUEST) {
      throw validationError(`Entries must hold 1 to ${MAX_ENTRIES_PER_REQUEST} entries`);
    }
    const answers = entries.map((entry) => {
      const error = entryError(entry);
      if (error) return error;
      const event = this.record(entry);
      return { EventId: event.id };
    });
    return {
      FailedEntryCount: answers.filter((answer) => 'ErrorCode' in answer).length,
      Entries: answers,
      $metadata: { httpStatusCode: 200 },
    };
  }

  private record(entry: PutEventsRequestEntry): RecordedEvent {
    const time = entry.Time ?? new Date(this.clock.now());
    const event: RecordedEvent = {
      version: '0',
      id: randomUUID(),
      'detail-type': entry.DetailType ?? '',
      source: entry.Source ?? '',
      account: this.options.account ?? '000000000000',
      time: time.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      region: this.options.region ?? 'us-east-1',
      resources: entry.Resources ?? [],
      detail: JSON.parse(entry.Detail ?? '{}'),
      eventBusName: entry.EventBusName ?? 'default',
    };
    this.events.push(event);
    if (this.options.file !== undefined) {
      // The mode applies when the append creates the file; an existing one was tightened at construction.
      appendFileSync(this.options.file, `${eventLine(event, entry.Detail ?? '{}')}\n`, {
        mode: PRIVATE_FILE_MODE,
      });
    }
    return event;
  }
}
