// Square: https://developer.squareup.com/docs/webhooks/overview. The notification URL and body are signed;
// the body's `event_id` is the dedup key.
import { ALNUM, type SampleContext, type SchemeSamples, UPPER_ALNUM } from './context';

function payment(ctx: SampleContext, type: string, status: string) {
  const paymentId = ctx.fresh(29, ALNUM);
  return {
    body: {
      merchant_id: 'ML7DEMO4P0XJ1',
      type,
      event_id: ctx.uuid('event'),
      created_at: ctx.iso(),
      data: {
        type: 'payment',
        id: paymentId,
        object: {
          payment: {
            id: paymentId,
            amount_money: { amount: 1500, currency: 'USD' },
            total_money: { amount: 1500, currency: 'USD' },
            status,
            source_type: 'CARD',
            location_id: `L${ctx.fresh(12, UPPER_ALNUM)}`,
            order_id: ctx.fresh(28, ALNUM),
            created_at: ctx.iso(-2),
            updated_at: ctx.iso(),
            version: status === 'COMPLETED' ? 3 : 1,
          },
        },
      },
    },
  };
}

export const squareSamples: SchemeSamples = {
  defaultEvent: 'payment.updated',
  deliveryId: (ids) => ids.uuid('event'),
  events: {
    'payment.created': (ctx) => payment(ctx, 'payment.created', 'APPROVED'),
    'payment.updated': (ctx) => payment(ctx, 'payment.updated', 'COMPLETED'),
  },
};
