// Stripe events: every event has the same envelope, `data.object` varies by type. Add a type: one more
// entry below. https://docs.stripe.com/api/events/object
import * as z from 'zod';
import { defineEvent } from './define-event';

const stripeEvent = <T extends z.ZodType>(object: T) =>
  z.object({
    id: z.string(),
    type: z.string(),
    created: z.number().optional(),
    livemode: z.boolean().optional(),
    data: z.object({ object }),
  });

export const stripeEvents = [
  defineEvent({
    provider: 'stripe',
    type: 'payment_intent.succeeded',
    schema: stripeEvent(z.object({ id: z.string(), amount: z.number().int(), currency: z.string() })),
    handle: async (event, ctx) => {
      const intent = event.data.object;
      // Stripe does not deliver in order: a retried older event for this intent can arrive after a newer
      // one. Its `created` (signed, in the body) orders them; one conditional write says whether this is
      // the newest seen for the intent. Older: acknowledge without touching state (`stale_skipped`).
      const version = event.created === undefined ? ctx.occurredAt : event.created * 1000;
      if (!(await ctx.acceptIfNewer(`payment_intent:${intent.id}`, version))) return;
      // Pass ctx.idempotencyKey to the downstream API that records the payment, so a retry cannot
      // record it twice.
      // Ids and types only in the log: amounts, names and addresses are personal data, so they stay in the
      // payload.
      ctx.log(`stripe payment_intent.succeeded: ${intent.id}`, { idempotencyKey: ctx.idempotencyKey });
    },
  }),
  defineEvent({
    provider: 'stripe',
    type: '*',
    schema: stripeEvent(z.looseObject({ id: z.string().optional(), object: z.string() })),
    handle: (event, ctx) => ctx.log(`stripe ${event.type}: ${event.id} (${event.data.object.object})`),
  }),
];
