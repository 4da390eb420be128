// Standard Webhooks (Svix and the senders that adopted the spec): `{type, timestamp, data}` bodies, and a
// signed `webhook-id` header that is the dedup key.
// https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md
import type { SampleContext, SchemeSamples } from './context';

const payload = (ctx: SampleContext, type: string, data: Record<string, unknown>) => ({
  body: { type, timestamp: ctx.iso(), data },
});

export const standardWebhooksSamples: SchemeSamples = {
  defaultEvent: 'user.created',
  deliveryId: (ids) => `msg_${ids.stable('message', 27)}`,
  events: {
    'user.created': (ctx) =>
      payload(ctx, 'user.created', {
        id: ctx.uuid(),
        email: `ada+${ctx.fresh(6).toLowerCase()}@example.com`,
        name: 'Ada Lovelace',
        created_at: ctx.iso(),
      }),
    'invoice.paid': (ctx) =>
      payload(ctx, 'invoice.paid', {
        id: `inv_${ctx.fresh(20)}`,
        customer_id: `cus_${ctx.fresh(16)}`,
        amount_paid: 4900,
        currency: 'EUR',
        paid_at: ctx.iso(),
      }),
    // The demo handlers in lambdas/events/demo.ts: watch a retry, then watch dead-lettering and redrive.
    'webhook-inbox.demo.transient': (ctx) =>
      payload(ctx, 'webhook-inbox.demo.transient', { failures: 1, id: ctx.fresh(8) }),
    'webhook-inbox.demo.permanent': (ctx) =>
      payload(ctx, 'webhook-inbox.demo.permanent', { id: ctx.fresh(8) }),
  },
};
