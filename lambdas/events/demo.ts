// A demo event that fails on purpose, so a new user can watch retries and dead-lettering in local mode:
//   npx webhook-inbox send standard-webhooks --event webhook-inbox.demo.failure
// `data.kind` picks the failure: "transient" (retried with backoff, then dead-lettered by the queue's
// redrive policy) or "permanent" (dead-lettered at once).
import * as z from 'zod';
import { defineEvent } from './define-event';
import { PermanentError } from './errors';

export const DEMO_FAILURE_TYPE = 'webhook-inbox.demo.failure';

class DemoTransientError extends Error {
  override name = 'DemoTransientError';
}

export const demoEvents = [
  defineEvent({
    provider: 'standard-webhooks',
    type: DEMO_FAILURE_TYPE,
    schema: z.object({ type: z.string(), data: z.object({ kind: z.enum(['transient', 'permanent']) }) }),
    handle: (event, ctx) => {
      if (event.data.kind === 'permanent') throw new PermanentError('demo_permanent_failure');
      throw new DemoTransientError(`demo transient failure, attempt ${ctx.receiveCount}`);
    },
  }),
];
