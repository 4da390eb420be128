// Linear: https://linear.app/developers/webhooks. The signed time is `webhookTimestamp` (milliseconds) in
// the body, checked against a one-minute window: a saved Linear payload sent later is refused as stale.
import type { SampleContext, SchemeSamples } from './context';

function entity(
  ctx: SampleContext,
  type: string,
  action: string,
  data: Record<string, unknown>,
  url: string,
) {
  return {
    eventType: type,
    body: {
      action,
      type,
      data,
      url,
      createdAt: ctx.iso(),
      organizationId: '3f0c5a2e-9a41-4c6b-9e0f-5b0d7d3c1a11',
      webhookTimestamp: ctx.nowMs,
      webhookId: ctx.uuid('webhook'),
    },
  };
}

export const linearSamples: SchemeSamples = {
  defaultEvent: 'Issue',
  deliveryId: (ids) => ids.uuid('delivery'),
  events: {
    Issue: (ctx) => {
      const number = Number(ctx.fresh(3, '123456789'));
      return entity(
        ctx,
        'Issue',
        'create',
        {
          id: ctx.uuid(),
          identifier: `ENG-${number}`,
          number,
          title: 'Webhook deliveries stuck in dead-letter queue',
          priority: 2,
          teamId: ctx.uuid(),
          stateId: ctx.uuid(),
          createdAt: ctx.iso(),
          updatedAt: ctx.iso(),
        },
        `https://linear.app/acme/issue/ENG-${number}`,
      );
    },
    Comment: (ctx) =>
      entity(
        ctx,
        'Comment',
        'create',
        {
          id: ctx.uuid(),
          body: 'Redrove the DLQ; all processed.',
          issueId: ctx.uuid(),
          userId: ctx.uuid(),
          createdAt: ctx.iso(),
          updatedAt: ctx.iso(),
        },
        `https://linear.app/acme/issue/ENG-42#comment-${ctx.fresh(8).toLowerCase()}`,
      ),
  },
};
