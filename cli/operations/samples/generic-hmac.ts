// Generic HMAC, as configured by default (the partner format: `v1=<hex>` over `{timestamp}.{body}`,
// the event type in the body's `type`).
import type { SampleContext, SchemeSamples } from './context';

const event = (ctx: SampleContext, type: string, data: Record<string, unknown>) => ({
  body: { id: `evt_${ctx.stable('event', 20)}`, type, created_at: ctx.iso(), data },
});

export const genericHmacSamples: SchemeSamples = {
  defaultEvent: 'order.created',
  deliveryId: (ids) => ids.uuid('delivery'),
  events: {
    'order.created': (ctx) =>
      event(ctx, 'order.created', { id: `ord_${ctx.fresh(12)}`, amount: 9900, currency: 'cny' }),
    'order.refunded': (ctx) =>
      event(ctx, 'order.refunded', {
        id: `ord_${ctx.fresh(12)}`,
        refund_id: `re_${ctx.fresh(12)}`,
        amount: 9900,
        currency: 'cny',
      }),
  },
};
