// Slack, Shopify and Zoom sign with an app-level secret that no API hands out: the operator copies it from
// the provider's dashboard once, through standard input. Each format is checked before it is stored, so a
// secret from the wrong field (a Slack client secret, a Shopify access token) is refused, not stored to fail
// every delivery. The secret is stored before the URL is saved: Slack and Zoom check the URL the moment it
// is saved, with a request signed by that secret, and the inbox answers the check only once it verifies.
import type { SchemeName } from '../../../config/schema';

interface ManualSecret {
  /** What the value looks like, for the refusal. */
  shape: string;
  pattern: RegExp;
  /** The steps to the secret, taken before it is pasted. */
  findSecret: string[];
  /** The steps that save the URL, taken once the secret is stored. */
  saveUrl(url: string): string[];
}

export const MANUAL_SECRETS: Partial<Record<SchemeName, ManualSecret>> = {
  slack: {
    shape: 'the Signing Secret: 32 lowercase hex characters',
    pattern: /^[0-9a-f]{32}$/,
    findSecret: [
      'Open https://api.slack.com/apps and choose your app.',
      'Basic Information -> App Credentials: Show the Signing Secret (not the Client Secret) and copy it.',
    ],
    saveUrl: (url) => [
      `Event Subscriptions: turn on Enable Events and set the Request URL to ${url}`,
      'Slack checks the URL at once; the inbox answers the check now that the secret is stored.',
    ],
  },
  shopify: {
    shape: "the app's client secret: shpss_ and 32 hex characters (older apps: the 32 hex characters alone)",
    pattern: /^(shpss_)?[0-9a-f]{32}$/,
    findSecret: [
      "Partner Dashboard (or the Dev Dashboard) -> Apps -> your app -> Client credentials: copy the app's Client secret (Shopify signs webhooks with it).",
    ],
    saveUrl: (url) => [`In the same app, add a webhook subscription with the JSON format and the URL ${url}`],
  },
  zoom: {
    shape: 'the Secret Token: 16 to 64 letters, digits, _ or -',
    pattern: /^[A-Za-z0-9_-]{16,64}$/,
    findSecret: [
      'Open https://marketplace.zoom.us -> Manage -> your app -> Features -> Access.',
      'Copy the Secret Token shown there.',
    ],
    saveUrl: (url) => [
      `Event Subscriptions (same page): add a subscription with the Event notification endpoint URL ${url}`,
      'Press Validate: Zoom checks the URL, and the inbox answers now that the secret is stored.',
    ],
  },
};

/** Why `value` is not a secret of this scheme, or undefined when it has the scheme's format. */
export function manualSecretRefusal(scheme: SchemeName, value: string): string | undefined {
  const manual = MANUAL_SECRETS[scheme];
  if (!manual || manual.pattern.test(value)) return undefined;
  return `that is not ${manual.shape}`;
}
