// Paddle Billing: https://developer.paddle.com/webhooks/overview. The body's `notification_id` is the
// dedup key (the same for Paddle's retries and replays of one notification).
import type { SampleContext, SchemeSamples } from './context';

const PADDLE_ID = '0123456789abcdefghjkmnpqrstvwxyz';
const id = (ctx: SampleContext, prefix: string) => `${prefix}_01${ctx.fresh(24, PADDLE_ID)}`;

function notification(ctx: SampleContext, type: string, data: Record<string, unknown>) {
  return {
    body: {
      event_id: id(ctx, 'evt'),
      event_type: type,
      occurred_at: ctx.iso(),
      notification_id: `ntf_01${ctx.stable('notification', 24, PADDLE_ID)}`,
      data,
    },
  };
}

export const paddleSamples: SchemeSamples = {
  defaultEvent: 'transaction.completed',
  deliveryId: (ids) => `ntf_01${ids.stable('notification', 24, PADDLE_ID)}`,
  events: {
    'transaction.completed': (ctx) =>
      notification(ctx, 'transaction.completed', {
        id: id(ctx, 'txn'),
        status: 'completed',
        customer_id: id(ctx, 'ctm'),
        currency_code: 'USD',
        origin: 'web',
        items: [{ price: { id: id(ctx, 'pri'), description: 'Pro plan (monthly)' }, quantity: 1 }],
        details: { totals: { subtotal: '2000', tax: '400', total: '2400', currency_code: 'USD' } },
        billed_at: ctx.iso(),
        created_at: ctx.iso(-5),
      }),
    'subscription.created': (ctx) =>
      notification(ctx, 'subscription.created', {
        id: id(ctx, 'sub'),
        status: 'active',
        customer_id: id(ctx, 'ctm'),
        currency_code: 'USD',
        billing_cycle: { interval: 'month', frequency: 1 },
        items: [{ price: { id: id(ctx, 'pri') }, quantity: 1, status: 'active' }],
        started_at: ctx.iso(),
        created_at: ctx.iso(),
      }),
  },
};
