// A local Stripe API for the webhook endpoint calls, as Stripe documents them: form-encoded requests with
// `Authorization: Bearer <key>`, `GET /v1/webhook_endpoints` as a list object paged by `limit` (default 10,
// at most 100) and `starting_after`, newest first; `POST` answering the endpoint with its `secret` (the only
// time Stripe shows it); `DELETE` answering `{id, object, deleted: true}`. Errors are Stripe's
// `{error: {type, message, code?, param?}}`: 401 for an unknown key (its message masks all but the last four
// characters, as Stripe's does), 403 for a restricted key without the permission, naming it.
import { randomBytes } from 'node:crypto';
import { type ApiAnswer, type ApiRequest, type FakeHttpApi, startFakeHttpApi } from './fake-http-api';

export type StripePermission = 'rak_webhook_read' | 'rak_webhook_write';

export interface FakeStripeEndpoint {
  id: string;
  object: 'webhook_endpoint';
  api_version: string | null;
  application: null;
  created: number;
  description: string | null;
  enabled_events: string[];
  livemode: boolean;
  metadata: Record<string, string>;
  status: 'enabled' | 'disabled';
  url: string;
  secret: string;
}

export interface FakeStripeApi extends FakeHttpApi {
  /** Accepts `key`: a secret key (`sk_`) may do anything, a restricted one (`rk_`) only what it is given. */
  allowKey(key: string, permissions?: readonly StripePermission[]): void;
  /** Adds an endpoint as if created earlier (its secret is then only in this record). */
  seed(url: string, events?: readonly string[]): FakeStripeEndpoint;
  /** Forgets every endpoint and recorded request. */
  clear(): void;
  /** Every endpoint, secrets included, newest first. */
  endpoints(): FakeStripeEndpoint[];
}

const ERROR_BODIES: Record<number, unknown> = {
  500: { error: { type: 'api_error', message: 'An unknown error occurred' } },
  502: { error: { type: 'api_error', message: 'An unknown error occurred' } },
  503: { error: { type: 'api_error', message: 'An unknown error occurred' } },
  429: {
    error: {
      type: 'invalid_request_error',
      code: 'rate_limit',
      message: 'Too many requests hit the API too quickly.',
    },
  },
};

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const masked = (key: string) => `${key.slice(0, 8)}${'*'.repeat(24)}${key.slice(-4)}`;

/** Stripe's form encoding: `a=1&list[0]=x&list[1]=y` (stripe-node writes indexed arrays). */
function parseForm(body: string): { fields: Map<string, string>; lists: Map<string, string[]> } {
  const fields = new Map<string, string>();
  const lists = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(body)) {
    const list = /^([^[]+)\[(\d*)\]$/.exec(name);
    if (list) lists.set(list[1]!, [...(lists.get(list[1]!) ?? []), value]);
    else fields.set(name, value);
  }
  return { fields, lists };
}

const invalid = (message: string, param?: string, code = 'parameter_invalid'): ApiAnswer => ({
  status: 400,
  body: { error: { type: 'invalid_request_error', code, message, ...(param ? { param } : {}) } },
});

export async function startFakeStripeApi(): Promise<FakeStripeApi> {
  const keys = new Map<string, ReadonlySet<StripePermission> | 'all'>();
  // Newest first, as Stripe lists them.
  const endpoints: FakeStripeEndpoint[] = [];
  let clock = 1_760_000_000;

  const make = (url: string, events: readonly string[], apiVersion: string | null): FakeStripeEndpoint => {
    const endpoint: FakeStripeEndpoint = {
      id: id('we'),
      object: 'webhook_endpoint',
      api_version: apiVersion,
      application: null,
      created: clock++,
      description: null,
      enabled_events: [...events],
      livemode: false,
      metadata: {},
      status: 'enabled',
      url,
      secret: `whsec_${randomBytes(24).toString('hex')}`,
    };
    endpoints.unshift(endpoint);
    return endpoint;
  };
  const listed = ({ secret: _secret, ...shown }: FakeStripeEndpoint) => shown;

  function authorise(request: ApiRequest, needs: StripePermission): ApiAnswer | undefined {
    const key = request.credential;
    const granted = key === undefined ? undefined : keys.get(key);
    if (key === undefined || granted === undefined) {
      const message =
        key === undefined
          ? 'You did not provide an API key. You need to provide your API key in the Authorization header.'
          : `Invalid API Key provided: ${masked(key)}`;
      return { status: 401, body: { error: { type: 'invalid_request_error', message } } };
    }
    const writeImpliesRead =
      needs === 'rak_webhook_read' && granted !== 'all' && granted.has('rak_webhook_write');
    if (granted === 'all' || granted.has(needs) || writeImpliesRead) return undefined;
    return {
      status: 403,
      body: {
        error: {
          type: 'invalid_request_error',
          message: `The provided key '${masked(key)}' does not have the required permissions for this endpoint on account 'acct_1FakeAccount00000'. Having the '${needs}' permission would allow this request to continue.`,
        },
      },
    };
  }

  function list(request: ApiRequest): ApiAnswer {
    const limit = Number(request.query.get('limit') ?? 10);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      return invalid('Invalid integer: limit must be between 1 and 100', 'limit');
    }
    const after = request.query.get('starting_after');
    let start = 0;
    if (after !== null) {
      const index = endpoints.findIndex((each) => each.id === after);
      if (index < 0) {
        return {
          status: 400,
          body: {
            error: {
              type: 'invalid_request_error',
              code: 'resource_missing',
              message: `No such webhook endpoint: '${after}'`,
              param: 'starting_after',
            },
          },
        };
      }
      start = index + 1;
    }
    const page = endpoints.slice(start, start + limit);
    return {
      status: 200,
      body: {
        object: 'list',
        url: '/v1/webhook_endpoints',
        has_more: start + limit < endpoints.length,
        data: page.map(listed),
      },
    };
  }

  function create(request: ApiRequest): ApiAnswer {
    const { fields, lists } = parseForm(request.body);
    const url = fields.get('url');
    if (!url) return invalid('Missing required param: url.', 'url', 'parameter_missing');
    if (!/^https?:\/\//.test(url))
      return invalid('Invalid URL: must be an http or https URL', 'url', 'url_invalid');
    const events = lists.get('enabled_events');
    if (!events?.length)
      return invalid('Missing required param: enabled_events.', 'enabled_events', 'parameter_missing');
    return { status: 200, body: make(url, events, fields.get('api_version') ?? null) };
  }

  function remove(endpointId: string): ApiAnswer {
    const index = endpoints.findIndex((each) => each.id === endpointId);
    if (index < 0) {
      return {
        status: 404,
        body: {
          error: {
            type: 'invalid_request_error',
            code: 'resource_missing',
            message: `No such webhook endpoint: '${endpointId}'`,
            param: 'id',
          },
        },
      };
    }
    endpoints.splice(index, 1);
    return { status: 200, body: { id: endpointId, object: 'webhook_endpoint', deleted: true } };
  }

  const api = await startFakeHttpApi(
    (request) => {
      const one = /^\/v1\/webhook_endpoints\/([^/]+)$/.exec(request.path);
      const needs: StripePermission = request.method === 'GET' ? 'rak_webhook_read' : 'rak_webhook_write';
      if (request.path === '/v1/webhook_endpoints' || one) {
        const refused = authorise(request, needs);
        if (refused) return refused;
      }
      if (request.path === '/v1/webhook_endpoints' && request.method === 'GET') return list(request);
      if (request.path === '/v1/webhook_endpoints' && request.method === 'POST') return create(request);
      if (one && request.method === 'DELETE') return remove(decodeURIComponent(one[1]!));
      return {
        status: 404,
        body: {
          error: {
            type: 'invalid_request_error',
            message: `Unrecognized request URL (${request.method}: ${request.path}).`,
          },
        },
      };
    },
    (status) => ERROR_BODIES[status] ?? ERROR_BODIES[500],
  );

  return {
    ...api,
    allowKey: (key, permissions) =>
      keys.set(key, key.startsWith('sk_') && permissions === undefined ? 'all' : new Set(permissions ?? [])),
    seed: (url, events = ['*']) => make(url, events, null),
    endpoints: () => [...endpoints],
    clear: () => {
      endpoints.splice(0);
      api.requests.splice(0);
    },
  };
}
