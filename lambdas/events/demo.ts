// Demo events that fail on purpose, so a new user can watch retries and dead-lettering in local mode:
//   npx webhook-inbox send standard-webhooks --event webhook-inbox.demo.transient   (retried, then processed)
//   npx webhook-inbox send standard-webhooks --event webhook-inbox.demo.permanent   (dead-lettered at once)
import * as z from 'zod';
import { defineEvent } from './define-event';
import { PermanentError } from './errors';

/** Fails its first `data.failures` receives with a transient error, then succeeds. */
export const DEMO_TRANSIENT_TYPE = 'webhook-inbox.demo.transient';
/** Fails with a PermanentError: no retry, dead-lettered on its first receive. */
export const DEMO_PERMANENT_TYPE = 'webhook-inbox.demo.permanent';

/** What a downstream outage looks like to the processor: a thrown error with a short code. */
class DemoTransientError extends Error {
  override name = 'DemoTransientError';
  readonly code = 'demo_transient_failure';
}

export const demoEvents = [
  defineEvent({
    provider: 'standard-webhooks',
    type: DEMO_TRANSIENT_TYPE,
    // More failures than the retry schedule has steps make it a delivery that is retried until it is
    // dead-lettered.
    schema: z.object({
      type: z.string(),
      data: z.object({ failures: z.int().min(0).max(1000) }),
    }),
    handle: (event, ctx) => {
      // receiveCount counts this message's receives: a redriven copy (a new message) starts again at 1.
      if (ctx.receiveCount <= event.data.failures) {
        throw new DemoTransientError(`demo transient failure on receive ${ctx.receiveCount}`);
      }
      ctx.log('demo transient event processed', { dedupKey: ctx.dedupKey, receiveCount: ctx.receiveCount });
    },
  }),
  defineEvent({
    provider: 'standard-webhooks',
    type: DEMO_PERMANENT_TYPE,
    schema: z.object({ type: z.string() }),
    handle: () => {
      throw new PermanentError('demo_permanent_failure');
    },
  }),
];
