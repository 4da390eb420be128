// Standard Webhooks senders share one payload shape: `{type, timestamp, data}`.
// https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md
import * as z from 'zod';
import { defineEvent } from './define-event';

export const standardWebhooksEvents = [
  defineEvent({
    provider: 'standard-webhooks',
    type: '*',
    schema: z.object({ type: z.string(), timestamp: z.string(), data: z.record(z.string(), z.unknown()) }),
    // The type and the message id: nothing from `data`, which is the sender's and may be personal, and
    // personal data stays out of the logs.
    handle: (event, ctx) => ctx.log(`standard-webhooks ${event.type}: ${ctx.dedupKey}`),
  }),
];
