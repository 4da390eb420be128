// Stripe: https://docs.stripe.com/api/events/object. The event `id` in the signed body is the dedup key,
// so each sample gets a fresh `evt_...` id (stable per delivery token) and Stripe's retries keep theirs.
import type { SampleContext, SchemeSamples } from './context';

function event(ctx: SampleContext, type: string, object: Record<string, unknown>) {
  return {
    body: {
      id: `evt_3${ctx.stable('event', 23)}`,
      object: 'event',
      api_version: '2024-06-20',
      created: ctx.nowSeconds,
      data: { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: `req_${ctx.fresh(14)}`, idempotency_key: ctx.uuid() },
      type,
    },
  };
}

export const stripeSamples: SchemeSamples = {
  defaultEvent: 'payment_intent.succeeded',
  // Stripe sends no delivery id header; the body's event id is what identifies a delivery.
  deliveryId: (ids) => `evt_3${ids.stable('event', 23)}`,
  events: {
    'payment_intent.succeeded': (ctx) => {
      const intent = `pi_3${ctx.fresh(23)}`;
      return event(ctx, 'payment_intent.succeeded', {
        id: intent,
        object: 'payment_intent',
        amount: 2000,
        amount_received: 2000,
        currency: 'usd',
        customer: `cus_${ctx.fresh(14)}`,
        latest_charge: `ch_3${ctx.fresh(23)}`,
        payment_method: `pm_1${ctx.fresh(23)}`,
        status: 'succeeded',
        created: ctx.nowSeconds - 4,
        livemode: false,
        metadata: { order_id: `ord_${ctx.fresh(10)}` },
      });
    },
    'charge.succeeded': (ctx) =>
      event(ctx, 'charge.succeeded', {
        id: `ch_3${ctx.fresh(23)}`,
        object: 'charge',
        amount: 2000,
        amount_captured: 2000,
        currency: 'usd',
        paid: true,
        captured: true,
        status: 'succeeded',
        payment_intent: `pi_3${ctx.fresh(23)}`,
        payment_method_details: {
          type: 'card',
          card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
        },
        receipt_url: `https://pay.stripe.com/receipts/payment/${ctx.fresh(40)}`,
        created: ctx.nowSeconds - 3,
        livemode: false,
      }),
  },
};
