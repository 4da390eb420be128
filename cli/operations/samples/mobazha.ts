// Mobazha: CloudEvents 1.0 structured JSON bodies; X-Webhook-ID is signed and is the dedup key.
import type { SampleContext, SchemeSamples } from './context';

function cloudEvent(ctx: SampleContext, type: string, data: Record<string, unknown>) {
  return {
    body: {
      specversion: '1.0',
      id: ctx.uuid('cloudevent'),
      source: '/v1/stores/st_demo',
      type,
      subject: data.orderId,
      time: ctx.iso(),
      datacontenttype: 'application/json',
      data,
    },
  };
}

export const mobazhaSamples: SchemeSamples = {
  defaultEvent: 'order.created',
  deliveryId: (ids) => `whd_${ids.stable('delivery', 24)}`,
  events: {
    'order.created': (ctx) =>
      cloudEvent(ctx, 'order.created', {
        orderId: `ord_${ctx.fresh(16)}`,
        status: 'PENDING',
        total: { amount: '129.00', currency: 'USD' },
        items: [{ listingId: `lst_${ctx.fresh(12)}`, quantity: 1 }],
      }),
    'order.paid': (ctx) =>
      cloudEvent(ctx, 'order.paid', {
        orderId: `ord_${ctx.fresh(16)}`,
        status: 'PAID',
        paidAt: ctx.iso(),
        total: { amount: '129.00', currency: 'USD' },
      }),
  },
};
