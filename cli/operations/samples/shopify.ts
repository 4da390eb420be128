// Shopify: https://shopify.dev/docs/api/webhooks (orders/create). Only the body is signed: the dedup key is
// the body hash; X-Shopify-Webhook-Id is metadata.
import { DIGITS, type SampleContext, type SchemeSamples } from './context';

const HEADERS = {
  'X-Shopify-Shop-Domain': 'webhook-inbox-demo.myshopify.com',
  'X-Shopify-API-Version': '2025-01',
};

function order(ctx: SampleContext) {
  const id = Number(`5${ctx.fresh(12, DIGITS)}`);
  const number = Number(ctx.fresh(4, DIGITS)) + 1000;
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    name: `#${number}`,
    order_number: number,
    email: 'customer@example.com',
    created_at: ctx.iso(),
    updated_at: ctx.iso(),
    currency: 'USD',
    financial_status: 'paid',
    fulfillment_status: null,
    subtotal_price: '59.00',
    total_tax: '4.72',
    total_price: '63.72',
    line_items: [
      {
        id: Number(`1${ctx.fresh(12, DIGITS)}`),
        title: 'Webhook Inbox T-shirt',
        quantity: 1,
        price: '59.00',
        sku: 'WHI-TS-M',
        product_id: Number(`8${ctx.fresh(12, DIGITS)}`),
      },
    ],
    customer: { id: Number(`7${ctx.fresh(12, DIGITS)}`), first_name: 'Ada', last_name: 'Lovelace' },
  };
}

export const shopifySamples: SchemeSamples = {
  defaultEvent: 'orders/create',
  deliveryId: (ids) => ids.uuid('webhook-id'),
  events: {
    'orders/create': (ctx) => ({ body: order(ctx), headers: HEADERS }),
    'orders/paid': (ctx) => ({ body: order(ctx), headers: HEADERS }),
  },
};
