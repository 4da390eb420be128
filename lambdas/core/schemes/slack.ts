// Slack: `X-Slack-Signature: v0=<hex>` over `v0:{X-Slack-Request-Timestamp}:{body}`. No id is signed, so
// the dedup key is the body hash. The Events API sends JSON; slash commands and interactivity send forms.
import { randomBytes } from 'node:crypto';
import { builtInSpec, hmacScheme } from './generic-hmac';
import { stringAt } from './primitives';
import type { JsonBody } from './verified-delivery';

/**
 * Events API: the inner `event.type` (`app_mention`), else the envelope's `type` (`url_verification`).
 * Forms: a slash command's `command`, else the `type` inside interactivity's JSON `payload` field.
 */
function slackEventType(body: Buffer, json: () => JsonBody): string | undefined {
  const parsed = json();
  if (parsed.ok) return stringAt(parsed.value, ['event', 'type']) ?? stringAt(parsed.value, ['type']);
  const form = new URLSearchParams(body.toString('utf8'));
  const command = form.get('command');
  if (command) return command;
  const payload = form.get('payload');
  if (payload === null) return undefined;
  try {
    return stringAt(JSON.parse(payload), ['type']);
  } catch {
    return undefined;
  }
}

const SPEC = builtInSpec({
  name: 'slack',
  signatureHeader: 'X-Slack-Signature',
  signaturePrefix: 'v0=',
  template: 'v0:{timestamp}:{body}',
  timestampHeader: 'X-Slack-Request-Timestamp',
  eventType: { read: slackEventType },
});

export const slack = hmacScheme(
  SPEC,
  () => randomBytes(16).toString('hex'),
  ({ body }) => ({
    'Content-Type': body[0] === 0x7b ? 'application/json' : 'application/x-www-form-urlencoded',
  }),
);
