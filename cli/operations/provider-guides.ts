// Per scheme: where the URL goes in the provider's dashboard, and who issues the signing secret. Used by
// `endpoints` and by `secrets rotate` to say what to do next.
import type { SchemeName } from '../../config/schema';

export interface SchemeGuide {
  /** The provider's name, for sentences. */
  name: string;
  /** One line: where to paste the URL (and find the secret). */
  where: string;
  /**
   * `provider`: the provider generates the secret; copy it into the inbox (`secrets rotate --value`).
   * `you`: you choose it; paste the inbox's secret into the provider.
   */
  issuer: 'provider' | 'you';
}

export const GUIDES: Record<SchemeName, SchemeGuide> = {
  github: {
    name: 'GitHub',
    where:
      'Repository (or organization) → Settings → Webhooks → Add webhook: Payload URL, content type application/json, Secret',
    issuer: 'you',
  },
  stripe: {
    name: 'Stripe',
    where:
      'Dashboard → Developers → Webhooks → Add destination: endpoint URL; then reveal its signing secret (whsec_...)',
    issuer: 'provider',
  },
  'standard-webhooks': {
    name: 'the sender',
    where:
      "the sender's webhook portal (e.g. Svix App Portal) → Add Endpoint: URL; copy its signing secret (whsec_...)",
    issuer: 'provider',
  },
  shopify: {
    name: 'Shopify',
    where:
      "Settings → Notifications → Webhooks → Create webhook (JSON), or the app's webhook subscriptions; secret: the app's client secret",
    issuer: 'provider',
  },
  slack: {
    name: 'Slack',
    where:
      'api.slack.com/apps → your app → Event Subscriptions: Request URL; Basic Information → App Credentials: Signing Secret',
    issuer: 'provider',
  },
  mobazha: {
    name: 'Mobazha',
    where: 'register it with POST /v1/webhooks (webhook registration API) and set the endpoint secret there',
    issuer: 'you',
  },
  'generic-hmac': {
    name: 'the partner',
    where: "the partner's webhook settings (or send them the URL); share the secret out of band",
    issuer: 'you',
  },
  zoom: {
    name: 'Zoom',
    where:
      'App Marketplace → your app → Features → Access → Event Subscriptions: endpoint URL; Secret Token on the same page',
    issuer: 'provider',
  },
  paddle: {
    name: 'Paddle',
    where: 'Developer tools → Notifications → New destination: URL; copy its secret key (pdl_ntfset_...)',
    issuer: 'provider',
  },
  linear: {
    name: 'Linear',
    where: 'Settings → API → Webhooks → New webhook: URL; copy its signing secret (lin_wh_...)',
    issuer: 'provider',
  },
  square: {
    name: 'Square',
    where:
      'Developer Console → your app → Webhooks → Subscriptions → Add subscription: notification URL (must match exactly); copy its signature key',
    issuer: 'provider',
  },
};

/**
 * Why a made-up secret must not be stored for this scheme, or undefined when it may. A provider that issues
 * its own secret (Stripe, Shopify, Slack...) signs with that one only: a random one fails every delivery,
 * and a second rotation pushes the real one out of the two kept. Only a local instance may have one, to be
 * signed by `webhook-inbox send`; `strict` (the console) refuses it there too.
 */
export function generatedSecretRefusal(
  guide: SchemeGuide,
  where: 'local' | 'aws',
  strict = false,
): string | undefined {
  if (guide.issuer !== 'provider' || (where === 'local' && !strict)) return undefined;
  return `${guide.name} issues this secret: give the new one it shows you`;
}
