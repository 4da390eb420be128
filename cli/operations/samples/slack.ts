// Slack Events API: https://api.slack.com/apis/events-api (event_callback). Nothing but the timestamp and
// the body is signed: the dedup key is the body hash (whose `event_id` makes each delivery unique).
import { type SchemeSamples, UPPER_ALNUM } from './context';

export const slackSamples: SchemeSamples = {
  defaultEvent: 'event_callback',
  deliveryId: (ids) => `Ev${ids.stable('event', 9, UPPER_ALNUM)}`,
  events: {
    // The handshake Slack sends when the Request URL is saved: answered with the challenge, not queued.
    url_verification: (ctx) => ({
      body: { token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl', challenge: ctx.fresh(48), type: 'url_verification' },
    }),
    event_callback: (ctx) => {
      const ts = `${ctx.nowSeconds}.${ctx.fresh(6, '0123456789')}`;
      return {
        body: {
          token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
          team_id: 'T0WEBHOOK1',
          api_app_id: 'A0INBOX001',
          event: {
            type: 'app_mention',
            user: `U${ctx.fresh(10, UPPER_ALNUM)}`,
            text: '<@U0INBOXBOT> is the deploy done?',
            ts,
            channel: 'C0DEPLOYS1',
            event_ts: ts,
          },
          type: 'event_callback',
          event_id: ctx.deliveryId,
          event_time: ctx.nowSeconds,
          authorizations: [{ team_id: 'T0WEBHOOK1', user_id: 'U0INBOXBOT', is_bot: true }],
          is_ext_shared_channel: false,
          event_context: `4-${ctx.fresh(40)}`,
        },
      };
    },
  },
};
