// Paddle Billing notification destinations ("notification settings" in its API), through plain fetch.
// @paddle/paddle-node-sdk is not used: its notification-settings list returns the first page only (it drops
// `meta.pagination`), its errors carry no HTTP status to tell an outage from a refusal, and it takes another
// API host only through an undocumented fallback of its `environment` option. Paddle returns a destination's
// signing secret (`endpoint_secret_key`) from the create call, so `--replace` makes a new destination, stores
// its secret, then deletes the old one.
import { RegistrationError } from './errors';
import type { Created, CreateInput, Registrar, RegistrarInput, RemoteEndpoint } from './registrar';

const LIVE_API = 'https://api.paddle.com';
const SANDBOX_API = 'https://sandbox-api.paddle.com';
/** The API version this module speaks, sent as `Paddle-Version` and asked of the destination's payloads. */
const PADDLE_VERSION = 1;
const TIMEOUT_MS = 30_000;

/**
 * Paddle keys say their environment (`pdl_sdbx_apikey_...`, `pdl_live_apikey_...`), and a key works only
 * against its own environment's API. A key without either prefix goes to the live API, Paddle's default.
 */
export function paddleApiBase(key: string): string {
  return key.startsWith('pdl_sdbx_') ? SANDBOX_API : LIVE_API;
}

/** Paddle answers a missing, malformed or unknown key with these codes (403, not 401). */
const REFUSED_KEY_CODES = new Set([
  'authentication_missing',
  'authentication_malformed',
  'invalid_token',
  'api_key_expired',
  'api_key_revoked',
]);

interface PaddleErrorBody {
  error?: { type?: string; code?: string; detail?: string };
}

interface PaddleSetting {
  id: string;
  type: string;
  destination: string;
  subscribed_events?: { name: string }[];
  endpoint_secret_key?: string;
}

interface Call {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: URLSearchParams;
  body?: unknown;
  /** For the one-line error: `listing notification destinations`. */
  doing: string;
  /** The permission Paddle's reference lists for the call; its `forbidden` answer names none. */
  permission?: string;
}

/** One line per answer: Paddle's code, never its `detail` (which may quote what was sent). */
function paddleError(status: number, body: PaddleErrorBody | undefined, call: Call): RegistrationError {
  const code = body?.error?.code;
  const said = `${status}${code ? ` ${code}` : ''}`;
  if (status === 401 || (code !== undefined && REFUSED_KEY_CODES.has(code))) {
    return new RegistrationError(
      'refused_credential',
      `Paddle refused the API key while ${call.doing} (${said}): a sandbox key works only with the sandbox API and a live key only with the live one`,
    );
  }
  if (status === 403) {
    return new RegistrationError(
      'missing_scope',
      `the Paddle API key lacks the ${call.permission ?? 'needed'} permission for ${call.doing} (${said})`,
    );
  }
  if (status === 404) {
    return new RegistrationError('not_found', `Paddle found nothing to act on while ${call.doing} (${said})`);
  }
  if (status === 400 || status === 409 || status === 422) {
    return new RegistrationError(
      'rejected_request',
      `Paddle refused the request while ${call.doing} (${said})`,
    );
  }
  if (status === 429 || status >= 500) {
    return new RegistrationError(
      'provider_unavailable',
      `Paddle did not complete ${call.doing} (${said}): nothing changed there, try again`,
    );
  }
  return new RegistrationError(
    'unexpected_answer',
    `Paddle answered ${call.doing} with something this command does not understand (${said})`,
  );
}

function remoteEndpoint(setting: PaddleSetting): RemoteEndpoint {
  return {
    id: setting.id,
    url: setting.destination,
    events: (setting.subscribed_events ?? []).map((event) => event.name),
  };
}

export function paddleRegistrar(input: RegistrarInput): Registrar {
  const base = (input.apiBase ?? paddleApiBase(input.credential)).replace(/\/+$/, '');

  async function call<T>(request: Call): Promise<T | undefined> {
    const url = `${base}${request.path}${request.query ? `?${request.query}` : ''}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: request.method,
        headers: {
          Authorization: `Bearer ${input.credential}`,
          'Paddle-Version': String(PADDLE_VERSION),
          ...(request.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new RegistrationError(
        'provider_unavailable',
        `Paddle did not answer while ${request.doing} (${(error as Error).name}): nothing changed there, try again`,
      );
    }
    const text = await response.text().catch(() => '');
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined; // a proxy's HTML page in front of an outage: the status says enough
    }
    if (!response.ok) throw paddleError(response.status, parsed as PaddleErrorBody | undefined, request);
    return parsed as T | undefined;
  }

  function malformed(doing: string): RegistrationError {
    return new RegistrationError(
      'unexpected_answer',
      `Paddle answered ${doing} with something this command does not understand`,
    );
  }

  /** Every event type Paddle offers: it has no wildcard, so "every event" is the whole list. */
  async function everyEventType(): Promise<string[]> {
    const doing = 'listing event types';
    const answer = await call<{ data?: { name?: unknown }[] }>({
      method: 'GET',
      path: '/event-types',
      doing,
    });
    const names = (answer?.data ?? []).map((each) => each.name).filter((name) => typeof name === 'string');
    if (names.length === 0) throw malformed(doing);
    return names as string[];
  }

  return {
    name: 'Paddle',
    secretOrigin: 'theirs',
    replaceStrategy: 'recreate',

    async list() {
      const doing = 'listing notification destinations';
      const endpoints: RemoteEndpoint[] = [];
      const seen = new Set<string>();
      let after: string | undefined;
      for (;;) {
        const query = new URLSearchParams({ per_page: '200' });
        if (after !== undefined) query.set('after', after);
        const answer = await call<{
          data?: PaddleSetting[];
          meta?: { pagination?: { next?: string; has_more?: boolean } };
        }>({
          method: 'GET',
          path: '/notification-settings',
          query,
          doing,
          permission: 'notification_setting.read',
        });
        if (!Array.isArray(answer?.data)) throw malformed(doing);
        // Email destinations share the list; only webhook URLs are endpoints.
        for (const setting of answer.data)
          if (setting.type === 'url') endpoints.push(remoteEndpoint(setting));
        const pagination = answer.meta?.pagination;
        if (!pagination?.has_more) return endpoints;
        // Only the cursor is taken from `next`: the key is never sent to a host Paddle's answer names.
        const next = pagination.next ? new URL(pagination.next).searchParams.get('after') : null;
        if (next === null || next === '' || seen.has(next)) throw malformed(doing);
        seen.add(next);
        after = next;
      }
    },

    async create({ url, events }: CreateInput): Promise<Created> {
      const subscribed = events?.length ? [...events] : await everyEventType();
      const doing = 'creating a notification destination';
      const answer = await call<{ data?: PaddleSetting }>({
        method: 'POST',
        path: '/notification-settings',
        body: {
          description: 'webhook-inbox',
          type: 'url',
          destination: url,
          subscribed_events: subscribed,
          api_version: PADDLE_VERSION,
          // Real events only: a simulated one reaching the inbox would run its handlers as if it were real.
          traffic_source: 'platform',
        },
        doing,
        permission: 'notification_setting.write',
      });
      const setting = answer?.data;
      if (typeof setting?.id !== 'string') throw malformed(doing);
      if (typeof setting.endpoint_secret_key !== 'string' || setting.endpoint_secret_key === '') {
        throw new RegistrationError(
          'unexpected_answer',
          `Paddle created notification destination ${setting.id} without returning its secret key: delete it in the Paddle dashboard and try again`,
        );
      }
      return { endpoint: remoteEndpoint(setting), secret: setting.endpoint_secret_key };
    },

    async delete(endpoint: RemoteEndpoint) {
      await call({
        method: 'DELETE',
        path: `/notification-settings/${encodeURIComponent(endpoint.id)}`,
        doing: `deleting notification destination ${endpoint.id}`,
        permission: 'notification_setting.write',
      });
    },
  };
}
