// Zoom: https://developers.zoom.us/docs/api/webhooks/. The timestamp and body are signed, no id: the dedup
// key is the body hash.
import { DIGITS, type SampleContext, type SchemeSamples } from './context';

function meeting(ctx: SampleContext, event: string, extra: Record<string, unknown>) {
  return {
    body: {
      event,
      event_ts: ctx.nowMs,
      payload: {
        account_id: 'AAAAAbBBBBcCCCCdDDDD',
        object: {
          id: ctx.fresh(11, DIGITS),
          uuid: `${ctx.fresh(22)}==`,
          host_id: ctx.fresh(22),
          topic: 'Weekly incident review',
          type: 2,
          timezone: 'UTC',
          duration: 30,
          ...extra,
        },
      },
    },
  };
}

export const zoomSamples: SchemeSamples = {
  defaultEvent: 'meeting.started',
  deliveryId: (ids) => ids.uuid('delivery'),
  events: {
    'meeting.started': (ctx) => meeting(ctx, 'meeting.started', { start_time: ctx.iso() }),
    // The handshake Zoom sends when the endpoint is saved: answered with the hashed token, not queued.
    'endpoint.url_validation': (ctx) => ({
      body: { payload: { plainToken: ctx.fresh(22) }, event_ts: ctx.nowMs, event: 'endpoint.url_validation' },
    }),
    'meeting.ended': (ctx) =>
      meeting(ctx, 'meeting.ended', { start_time: ctx.iso(-1800), end_time: ctx.iso() }),
  },
};
