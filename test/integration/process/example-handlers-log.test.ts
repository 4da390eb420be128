// The shipped example handlers set the pattern users copy, so their log lines name ids and types only
// (no personal data in logs). Each one runs on a delivery whose every other field (names,
// titles, messages, amounts, branch, repository) holds a marker, through the real verify and processor
// handlers against the emulators; no log line may carry a marker.
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { EVENT_HANDLERS } from '../../../lambdas/events';
import { DEMO_PERMANENT_TYPE, DEMO_TRANSIENT_TYPE } from '../../../lambdas/events/demo';
import { useEmulators } from '../../support/emulators';
import {
  deliverSigned,
  drainQueue,
  eventSourceFor,
  processHandlerFor,
  TestClock,
} from '../../support/pipeline';

const config = parseConfig({
  providers: {
    github: { scheme: 'github' },
    stripe: { scheme: 'stripe' },
    'standard-webhooks': { scheme: 'standard-webhooks' },
  },
  queue: { retrySchedule: [1] },
});
const ctx = useEmulators({ config, strictSqs: true });
const SECRETS: Record<string, string> = {
  github: 'gh-example-handlers-secret',
  stripe: 'whsec_example_handlers',
  'standard-webhooks': `whsec_${Buffer.from('example-handlers-key-32-bytes!!!').toString('base64')}`,
};

let resources: typeof ctx.resources;
let clock: TestClock;
beforeEach(async () => {
  resources = await ctx.provision();
  clock = new TestClock(Date.now());
});

// Random per run, so the check cannot be satisfied by a fixed string seen elsewhere.
const MARKER = `personal-${randomUUID()}`;
/** A number no id, count or time in these bodies has. */
const MARKER_AMOUNT = 918_273_645;

interface Example {
  provider: string;
  /** The handler's type as registered (`*` for a catch-all). */
  type: string;
  /** The event type sent (header-typed schemes), where the body does not name it. */
  eventType?: string;
  body: Record<string, unknown>;
}

const repository = { id: 71_234_567, full_name: `${MARKER}/repo` };

/** One delivery per shipped handler: ids and types are plain, everything else is the marker. */
const EXAMPLES: Example[] = [
  { provider: 'github', type: 'ping', eventType: 'ping', body: { zen: MARKER, hook_id: 412_345_678 } },
  {
    provider: 'github',
    type: 'push',
    eventType: 'push',
    body: {
      ref: `refs/heads/${MARKER}`,
      after: '9f2c1e0b7a6d5c4b3a29181706f5e4d3c2b1a090',
      repository,
      commits: [{ id: '9f2c1e0b7a6d5c4b3a29181706f5e4d3c2b1a090', message: MARKER }],
      pusher: { name: MARKER },
    },
  },
  {
    provider: 'github',
    type: 'pull_request',
    eventType: 'pull_request',
    body: {
      action: 'opened',
      number: 42,
      pull_request: { title: MARKER, state: 'open', merged: false },
      repository,
    },
  },
  {
    provider: 'stripe',
    type: 'payment_intent.succeeded',
    body: {
      id: 'evt_example_1',
      object: 'event',
      type: 'payment_intent.succeeded',
      created: 1_764_000_000,
      data: {
        object: { id: 'pi_example_1', amount: MARKER_AMOUNT, currency: MARKER, receipt_email: MARKER },
      },
    },
  },
  {
    provider: 'stripe',
    type: '*',
    body: {
      id: 'evt_example_2',
      object: 'event',
      type: 'customer.created',
      data: { object: { id: 'cus_example_1', object: 'customer', name: MARKER, email: MARKER } },
    },
  },
  {
    provider: 'standard-webhooks',
    type: '*',
    body: { type: 'invoice.paid', timestamp: MARKER, data: { customer: MARKER } },
  },
  {
    provider: 'standard-webhooks',
    type: DEMO_TRANSIENT_TYPE,
    body: { type: DEMO_TRANSIENT_TYPE, data: { failures: 0, note: MARKER } },
  },
  {
    provider: 'standard-webhooks',
    type: DEMO_PERMANENT_TYPE,
    body: { type: DEMO_PERMANENT_TYPE, data: { note: MARKER } },
  },
];

describe('the shipped example handlers log ids and types only', () => {
  it('has an example delivery for every shipped handler', () => {
    const shipped = EVENT_HANDLERS.map((h) => `${h.provider} ${h.type}`).sort();
    expect(EXAMPLES.map((e) => `${e.provider} ${e.type}`).sort()).toEqual(shipped);
  });

  it.each(EXAMPLES)(
    '$provider $type: no log line carries a field of the body other than ids and types',
    async (example) => {
      const response = await deliverSigned(ctx, resources, {
        config,
        provider: example.provider,
        secret: SECRETS[example.provider]!,
        body: JSON.stringify(example.body),
        id: `msg_${randomUUID()}`,
        eventType: example.eventType,
        clock,
      });
      expect(response.statusCode).toBe(202);
      const processor = processHandlerFor(ctx, resources, EVENT_HANDLERS, { config });
      await drainQueue(ctx, resources, eventSourceFor(ctx, resources, processor.handler));

      // The handler ran: its own line (no outcome) is there, or the demo's dead-letter line.
      const own = processor.logger.lines.filter((line) => line.attributes.outcome === undefined);
      if (example.type === DEMO_PERMANENT_TYPE)
        expect(processor.logger.lines.map((l) => l.attributes.outcome)).toContain('dead_lettered');
      else expect(own.length).toBeGreaterThan(0);
      const logged = JSON.stringify(processor.logger.lines);
      expect(logged).not.toContain(MARKER);
      expect(logged).not.toContain(String(MARKER_AMOUNT));
    },
  );
});
