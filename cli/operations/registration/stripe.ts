// Stripe webhook endpoints through Stripe's own SDK, loaded on first use so it reaches no Lambda bundle.
// Stripe returns an endpoint's signing secret once, in the create call's answer, so `--replace` makes a
// new endpoint, stores its secret, then deletes the old one. The SDK's error messages quote the key's last
// characters ("Invalid API Key provided: sk_test_****abcd"), so none of them is passed on: each answer
// becomes a reason code and a sentence of our own.
import { randomUUID } from 'node:crypto';
import type Stripe from 'stripe';
import { RegistrationError } from './errors';
import type { Created, CreateInput, Registrar, RegistrarInput, RemoteEndpoint } from './registrar';

type Mode = 'test' | 'live';

/** The mode a key is for, from its prefix; undefined for a key Stripe itself will have to judge. */
export function stripeKeyMode(key: string): Mode | undefined {
  const match = /^(?:sk|rk)_(test|live)_/.exec(key);
  return match ? (match[1] as Mode) : undefined;
}

/** What a stripe-node error carries (`type` is its class name: `StripePermissionError`, ...). */
interface StripeFailure {
  type?: string;
  statusCode?: number;
  message?: string;
  code?: string;
  param?: string;
}

/** The one line for a call Stripe answered with an error: no message, body or key of Stripe's in it. */
function stripeError(error: unknown, doing: string): RegistrationError {
  const failure = error as StripeFailure;
  const status = failure.statusCode;
  if (status === 401 || failure.type === 'StripeAuthenticationError') {
    return new RegistrationError('refused_credential', `Stripe refused the API key while ${doing} (401)`);
  }
  if (status === 403 || failure.type === 'StripePermissionError') {
    // Stripe names the permission in its message ("Having the 'rak_webhook_write' permission would allow
    // this request to continue"); the same message quotes the masked key, so only the name is kept.
    const permission = /'(rak_[a-z0-9_]+)'/.exec(failure.message ?? '')?.[1];
    return new RegistrationError(
      'missing_scope',
      permission
        ? `the Stripe key lacks the ${permission} permission needed for ${doing} (403)`
        : `the Stripe key lacks a permission needed for ${doing} (403)`,
    );
  }
  if (status === 404) {
    return new RegistrationError('not_found', `Stripe found nothing to act on while ${doing} (404)`);
  }
  if (status === 400) {
    const detail = [failure.code, failure.param && `param ${failure.param}`].filter(Boolean).join(', ');
    return new RegistrationError(
      'rejected_request',
      `Stripe refused the request while ${doing} (400${detail ? ` ${detail}` : ''})`,
    );
  }
  if (
    status === 429 ||
    (status !== undefined && status >= 500) ||
    failure.type === 'StripeConnectionError' ||
    failure.type === 'StripeAPIError' ||
    failure.type === 'StripeRateLimitError'
  ) {
    const said = status === undefined ? 'no answer' : String(status);
    return new RegistrationError(
      'provider_unavailable',
      `Stripe did not complete ${doing} (${said}): nothing changed there, try again`,
    );
  }
  return new RegistrationError(
    'unexpected_answer',
    `Stripe answered ${doing} with something this command does not understand (${status ?? failure.type ?? 'no status'})`,
  );
}

function remoteEndpoint(endpoint: Stripe.WebhookEndpoint): RemoteEndpoint {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.enabled_events,
    createdAt: new Date(endpoint.created * 1000).toISOString(),
  };
}

/** `--api-base` as the SDK takes it: host, port and protocol (Stripe's paths all start at `/v1`). */
function hostOptions(apiBase: string | undefined): Partial<Stripe.StripeConfig> {
  if (apiBase === undefined) return {};
  const base = new URL(apiBase);
  const protocol = base.protocol === 'http:' ? 'http' : 'https';
  return {
    host: base.hostname,
    protocol,
    port: base.port === '' ? (protocol === 'http' ? 80 : 443) : Number(base.port),
  };
}

/** Sends of one create (one idempotency key) before its failure is reported. */
const CREATE_ATTEMPTS = 3;

export function stripeRegistrar(input: RegistrarInput): Registrar {
  let client: Promise<Stripe> | undefined;

  const stripe = (): Promise<Stripe> => {
    const keyMode = stripeKeyMode(input.credential);
    if (input.mode !== undefined && keyMode !== undefined && keyMode !== input.mode) {
      return Promise.reject(
        new RegistrationError(
          'wrong_mode',
          `the Stripe key is a ${keyMode}-mode key, and ${input.mode} mode was asked for: use a ${input.mode}-mode key (sk_${input.mode}_ or rk_${input.mode}_)`,
        ),
      );
    }
    client ??= import('stripe').then(
      ({ default: StripeClient }) =>
        new StripeClient(input.credential, {
          ...hostOptions(input.apiBase),
          // No retries inside the SDK: a `--replace` must know which step failed, and every step of the
          // command is safe to run again.
          maxNetworkRetries: 0,
          timeout: 30_000,
          telemetry: false,
          appInfo: { name: 'webhook-inbox' },
        }),
    );
    return client;
  };

  return {
    name: 'Stripe',
    secretOrigin: 'theirs',
    replaceStrategy: 'recreate',

    async list() {
      const api = await stripe();
      const endpoints: RemoteEndpoint[] = [];
      try {
        for await (const endpoint of api.webhookEndpoints.list({ limit: 100 })) {
          endpoints.push(remoteEndpoint(endpoint));
        }
      } catch (error) {
        throw stripeError(error, 'listing webhook endpoints');
      }
      return endpoints;
    },

    async create({ url, events }: CreateInput): Promise<Created> {
      const api = await stripe();
      const { default: StripeClient } = await import('stripe');
      const params: Stripe.WebhookEndpointCreateParams = {
        url,
        enabled_events: (events?.length
          ? [...events]
          : ['*']) as Stripe.WebhookEndpointCreateParams.EnabledEvent[],
        // Events arrive in the shape of the API version this SDK speaks, not the account's default.
        api_version: StripeClient.API_VERSION as Stripe.WebhookEndpointCreateParams.ApiVersion,
        description: 'webhook-inbox',
      };
      // The secret is returned by this answer only. An answer lost on the way (Stripe created the endpoint)
      // would leave one signing with a secret never seen, and a rerun would find it "registered". So the
      // create carries one idempotency key and is sent again with it when no answer came: Stripe answers a
      // repeat with the first request's answer, secret included (a 500 too, so that is not repeated).
      const idempotencyKey = `webhook-inbox-${randomUUID()}`;
      let endpoint: Stripe.WebhookEndpoint | undefined;
      for (let attempt = 1; endpoint === undefined; attempt++) {
        try {
          endpoint = await api.webhookEndpoints.create(params, { idempotencyKey });
        } catch (error) {
          // Only a missing answer is worth a repeat: Stripe keeps the first answer of a key, a 500 included.
          const noAnswer = (error as { type?: string }).type === 'StripeConnectionError';
          if (!noAnswer || attempt >= CREATE_ATTEMPTS)
            throw stripeError(error, 'creating a webhook endpoint');
        }
      }
      if (typeof endpoint.secret !== 'string' || endpoint.secret === '') {
        throw new RegistrationError(
          'unexpected_answer',
          `Stripe created webhook endpoint ${endpoint.id} without returning its signing secret: delete it in the Dashboard and try again`,
        );
      }
      return { endpoint: remoteEndpoint(endpoint), secret: endpoint.secret };
    },

    async delete(endpoint: RemoteEndpoint) {
      const api = await stripe();
      try {
        await api.webhookEndpoints.del(endpoint.id);
      } catch (error) {
        throw stripeError(error, `deleting webhook endpoint ${endpoint.id}`);
      }
    },
  };
}
