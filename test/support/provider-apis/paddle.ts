// A local Paddle Billing API for notification settings, as Paddle documents them: JSON with
// `Authorization: Bearer <key>`, answers wrapped in `{data, meta: {request_id}}`; `GET /notification-settings`
// paged by `per_page` (default and maximum 200) and `after`, with `meta.pagination.{next, has_more}`;
// `POST` answering 201 with the destination and its `endpoint_secret_key`; `DELETE` answering 204;
// `GET /event-types` needing no permission. Errors are `{error: {type, code, detail, documentation_url}}`:
// Paddle answers a missing, malformed or unknown key with 403 (`authentication_missing`, `invalid_token`) and
// a key without the permission with 403 `forbidden`, which names no permission.
import { randomBytes, randomUUID } from 'node:crypto';
import { type ApiAnswer, type ApiRequest, type FakeHttpApi, startFakeHttpApi } from './fake-http-api';

export type PaddlePermission = 'notification_setting.read' | 'notification_setting.write';

export interface FakePaddleSetting {
  id: string;
  description: string;
  type: 'url' | 'email';
  destination: string;
  active: boolean;
  api_version: number;
  include_sensitive_fields: boolean;
  subscribed_events: { name: string; description: string; group: string; available_versions: number[] }[];
  endpoint_secret_key: string;
  traffic_source: 'platform' | 'simulation' | 'all';
}

export interface FakePaddleApi extends FakeHttpApi {
  /** Accepts `key` with these permissions (@default both notification_setting permissions). */
  allowKey(key: string, permissions?: readonly PaddlePermission[]): void;
  seed(destination: string, type?: 'url' | 'email'): FakePaddleSetting;
  /** Every setting, secrets included, in Paddle's default order (id descending). */
  settings(): FakePaddleSetting[];
  clear(): void;
  /** The host written into `meta.pagination.next` links (@default this server). */
  linkHost(url: string): void;
}

/** A few of Paddle's event types: enough to tell "all of them" from a chosen few. */
export const PADDLE_EVENT_TYPES = [
  'transaction.completed',
  'transaction.created',
  'subscription.created',
  'subscription.updated',
  'customer.created',
].map((name) => ({
  name,
  description: `Occurs when a ${name.split('.')[0]} is ${name.split('.')[1]}.`,
  group: name.split('.')[0]!.replace(/^./, (first) => first.toUpperCase()),
  available_versions: [1],
}));

const docs = (code: string) => `https://developer.paddle.com/errors/shared/${code}`;
const meta = () => ({ request_id: randomUUID() });
const failure = (status: number, code: string, detail: string, type = 'request_error'): ApiAnswer => ({
  status,
  body: { error: { type, code, detail, documentation_url: docs(code) }, meta: meta() },
});
const SERVER_ERRORS: Record<number, { code: string; detail: string }> = {
  429: { code: 'too_many_requests', detail: 'IP address exceeded the allowed rate limit.' },
  500: { code: 'internal_error', detail: 'An internal error has occurred, our team has been notified.' },
  502: { code: 'bad_gateway', detail: 'Bad gateway.' },
  503: { code: 'service_unavailable', detail: 'Service temporarily unavailable.' },
};

// Paddle ids: a prefix and 26 lowercase base32 characters. A counter at the front keeps them in creation
// order, so Paddle's default `id[DESC]` order is newest first.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
let counter = 0;
function paddleId(prefix: string): string {
  counter += 1;
  const head = counter.toString(32).padStart(6, '0');
  const tail = Array.from(randomBytes(20), (byte) => ALPHABET[byte % 32]).join('');
  return `${prefix}_${head}${tail}`;
}

export async function startFakePaddleApi(): Promise<FakePaddleApi> {
  const keys = new Map<string, ReadonlySet<PaddlePermission>>();
  const settings: FakePaddleSetting[] = [];
  let base = '';

  const make = (
    destination: string,
    type: 'url' | 'email',
    events: string[],
    apiVersion = 1,
    description = 'seeded',
  ): FakePaddleSetting => {
    const setting: FakePaddleSetting = {
      id: paddleId('ntfset'),
      description,
      type,
      destination,
      active: true,
      api_version: apiVersion,
      include_sensitive_fields: false,
      subscribed_events: PADDLE_EVENT_TYPES.filter((each) => events.includes(each.name)),
      endpoint_secret_key: `pdl_ntfset_${paddleId('x').slice(2)}_${randomBytes(24).toString('base64url')}`,
      traffic_source: 'platform',
    };
    settings.push(setting);
    return setting;
  };
  const ordered = () => [...settings].sort((a, b) => (a.id < b.id ? 1 : -1));

  function authorise(request: ApiRequest, needs: PaddlePermission | undefined): ApiAnswer | undefined {
    if (request.credential === undefined) {
      return failure(403, 'authentication_missing', 'Authentication header missing.');
    }
    const granted = keys.get(request.credential);
    if (granted === undefined) return failure(403, 'invalid_token', 'Invalid or revoked API key.');
    const allowed =
      needs === undefined ||
      granted.has(needs) ||
      (needs === 'notification_setting.read' && granted.has('notification_setting.write'));
    return allowed ? undefined : failure(403, 'forbidden', "You aren't permitted to perform this request.");
  }

  function list(request: ApiRequest): ApiAnswer {
    const perPage = Math.min(Number(request.query.get('per_page') ?? 200), 200);
    if (!Number.isInteger(perPage) || perPage < 1) return failure(400, 'bad_request', 'Invalid request.');
    const all = ordered();
    const after = request.query.get('after');
    const start = after === null ? 0 : all.findIndex((each) => each.id === after) + 1;
    const page = all.slice(start, start + perPage);
    const hasMore = start + perPage < all.length;
    const last = page.at(-1);
    return {
      status: 200,
      body: {
        data: page,
        meta: {
          ...meta(),
          pagination: {
            per_page: perPage,
            next: `${base}/notification-settings?after=${last?.id ?? after ?? ''}&per_page=${perPage}`,
            has_more: hasMore,
            estimated_total: all.length,
          },
        },
      },
    };
  }

  function create(request: ApiRequest): ApiAnswer {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(request.body) as Record<string, unknown>;
    } catch {
      return failure(400, 'bad_request', 'Invalid request.');
    }
    const { description, destination, type, subscribed_events: events, api_version: version } = body;
    const invalid =
      typeof description !== 'string' ||
      description.length === 0 ||
      typeof destination !== 'string' ||
      (type !== 'url' && type !== 'email') ||
      (type === 'url' && !/^https:\/\//.test(destination)) ||
      !Array.isArray(events) ||
      events.length === 0 ||
      (version !== undefined && typeof version !== 'number');
    if (invalid) return failure(400, 'bad_request', 'Invalid request.');
    const unknown = (events as unknown[]).filter(
      (name) => !PADDLE_EVENT_TYPES.some((each) => each.name === name),
    );
    if (unknown.length > 0) return failure(400, 'bad_request', 'Invalid request.');
    const setting = make(
      destination as string,
      type,
      events as string[],
      (version as number) ?? 1,
      description as string,
    );
    return { status: 201, body: { data: setting, meta: meta() } };
  }

  function remove(id: string): ApiAnswer {
    const index = settings.findIndex((each) => each.id === id);
    if (index < 0) return failure(404, 'not_found', `Entity ${id} not found`);
    settings.splice(index, 1);
    return { status: 204 };
  }

  const api = await startFakeHttpApi(
    (request) => {
      const one = /^\/notification-settings\/([^/]+)$/.exec(request.path);
      const collection = request.path === '/notification-settings';
      if (request.path === '/event-types' && request.method === 'GET') {
        return (
          authorise(request, undefined) ?? { status: 200, body: { data: PADDLE_EVENT_TYPES, meta: meta() } }
        );
      }
      if (collection || one) {
        const refused = authorise(
          request,
          request.method === 'GET' ? 'notification_setting.read' : 'notification_setting.write',
        );
        if (refused) return refused;
      }
      if (collection && request.method === 'GET') return list(request);
      if (collection && request.method === 'POST') return create(request);
      if (one && request.method === 'DELETE') return remove(decodeURIComponent(one[1]!));
      return failure(404, 'not_found', `Route ${request.method} ${request.path} not found`);
    },
    (status) => {
      const known = SERVER_ERRORS[status] ?? SERVER_ERRORS[500]!;
      return { error: { type: 'api_error', ...known, documentation_url: docs(known.code) }, meta: meta() };
    },
  );
  base = api.url;

  return {
    ...api,
    allowKey: (key, permissions = ['notification_setting.read', 'notification_setting.write']) =>
      keys.set(key, new Set(permissions)),
    seed: (destination, type = 'url') => make(destination, type, ['transaction.completed']),
    settings: ordered,
    clear: () => {
      settings.splice(0);
      api.requests.splice(0);
      base = api.url;
    },
    linkHost: (url) => {
      base = url;
    },
  };
}
