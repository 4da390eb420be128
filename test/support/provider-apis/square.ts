// A local Square Webhook Subscriptions API, as Square documents it: `Authorization: Bearer <personal access
// token>`, snake_case JSON, cursor pagination of the list, the signature key returned by create and by the
// rotation call only (never by the list), and `{errors:[{category, code, detail, field?}]}` for every failure.
import { randomBytes, randomUUID } from 'node:crypto';
import { type Answer, type ApiRequest, type Handled, ProviderApiServer } from './provider-api-server';

export interface FakeSubscription {
  id: string;
  name: string;
  enabled: boolean;
  event_types: string[];
  notification_url: string;
  api_version: string;
  /** What Square signs with now. */
  signature_key: string;
  created_at: string;
  updated_at: string;
}

export const SQUARE_EVENT_TYPES = [
  'payment.created',
  'payment.updated',
  'refund.created',
  'refund.updated',
  'order.created',
  'order.updated',
  'customer.created',
] as const;

const squareError = (
  status: number,
  category: string,
  code: string,
  detail: string,
  field?: string,
): Answer => ({
  status,
  body: { errors: [{ category, code, detail, ...(field ? { field } : {}) }] },
});

const UNAUTHORIZED = squareError(
  401,
  'AUTHENTICATION_ERROR',
  'UNAUTHORIZED',
  'This request could not be authorized.',
);
const insufficientScopes = (scope: string) =>
  squareError(
    403,
    'AUTHENTICATION_ERROR',
    'INSUFFICIENT_SCOPES',
    `The merchant has not given your application sufficient permissions to do that. The merchant must authorize your application for the following scopes: ${scope}`,
  );
const notFound = (id: string) =>
  squareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Webhook subscription \`${id}\` not found.`);
const invalid = (code: string, detail: string, field: string) =>
  squareError(400, 'INVALID_REQUEST_ERROR', code, detail, field);

function failureBody(status: number): unknown {
  if (status === 401) return UNAUTHORIZED.body;
  if (status === 403) return insufficientScopes('DEVELOPER_APPLICATION_WEBHOOKS_WRITE').body;
  if (status === 429) return squareError(429, 'RATE_LIMIT_ERROR', 'RATE_LIMITED', 'Rate limited.').body;
  return squareError(status, 'API_ERROR', 'INTERNAL_SERVER_ERROR', 'An internal error has occurred.').body;
}

export class FakeSquareApi extends ProviderApiServer {
  readonly subscriptions = new Map<string, FakeSubscription>();
  /** Square's list pages hold up to 100; small here so a test crosses pages. */
  pageSize = 100;
  /** The token the API accepts; any other is refused 401. */
  token = `EAAA${randomBytes(24).toString('base64url')}`;
  /** Scopes the token lacks: a call that needs one answers 403 INSUFFICIENT_SCOPES. */
  readonly missingScopes = new Set<string>();
  private readonly idempotent = new Map<string, Answer>();

  constructor() {
    super((request) => this.handle(request), failureBody);
  }

  /** Puts a subscription there as if made earlier (in the dashboard or by another run). */
  seed(notificationUrl: string, eventTypes: string[] = ['payment.created']): FakeSubscription {
    const now = new Date().toISOString();
    const subscription: FakeSubscription = {
      id: `wbhk_${randomBytes(12).toString('hex')}`,
      name: 'seeded',
      enabled: true,
      event_types: eventTypes,
      notification_url: notificationUrl,
      api_version: '2026-09-16',
      signature_key: randomBytes(16).toString('base64url'),
      created_at: now,
      updated_at: now,
    };
    this.subscriptions.set(subscription.id, subscription);
    return subscription;
  }

  private handle({ method, path, query, body, authorization }: ApiRequest): Handled {
    if (authorization === undefined) return { credential: 'none', answer: UNAUTHORIZED };
    if (authorization !== `Bearer ${this.token}`) return { credential: 'refused', answer: UNAUTHORIZED };
    const accepted = (answer: Answer): Handled => ({ credential: 'accepted', answer });
    const needs = (scope: string) => (this.missingScopes.has(scope) ? insufficientScopes(scope) : undefined);
    const read = () => needs('DEVELOPER_APPLICATION_WEBHOOKS_READ');
    const write = () => needs('DEVELOPER_APPLICATION_WEBHOOKS_WRITE');
    const input = (body ?? {}) as Record<string, unknown>;

    if (method === 'GET' && path === '/v2/webhooks/event-types') {
      return accepted(read() ?? { status: 200, body: { event_types: [...SQUARE_EVENT_TYPES] } });
    }
    if (method === 'GET' && path === '/v2/webhooks/subscriptions') {
      return accepted(read() ?? this.listPage(query));
    }
    if (method === 'POST' && path === '/v2/webhooks/subscriptions') {
      return accepted(write() ?? this.once(input, () => this.create(input)));
    }
    const rotate = /^\/v2\/webhooks\/subscriptions\/([^/]+)\/signature-key$/.exec(path);
    if (method === 'POST' && rotate) {
      return accepted(write() ?? this.once(input, () => this.rotate(decodeURIComponent(rotate[1]!))));
    }
    const one = /^\/v2\/webhooks\/subscriptions\/([^/]+)$/.exec(path);
    if (method === 'DELETE' && one) {
      const id = decodeURIComponent(one[1]!);
      const denied = write();
      if (denied) return accepted(denied);
      if (!this.subscriptions.delete(id)) return accepted(notFound(id));
      return accepted({ status: 200, body: {} });
    }
    return accepted(squareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', 'Resource not found.'));
  }

  /** Square replays the first answer for a repeated idempotency key. */
  private once(input: Record<string, unknown>, run: () => Answer): Answer {
    const key = input.idempotency_key;
    if (typeof key !== 'string' || key === '' || key.length > 45) {
      return invalid('INVALID_VALUE', 'idempotency_key must be 1 to 45 characters.', 'idempotency_key');
    }
    const earlier = this.idempotent.get(key);
    if (earlier) return earlier;
    const answer = run();
    if (answer.status === 200) this.idempotent.set(key, answer);
    return answer;
  }

  /** Newest first, like Square's default sort; the cursor is opaque to the caller. */
  private listPage(query: URLSearchParams): Answer {
    const includeDisabled = query.get('include_disabled') === 'true';
    const all = [...this.subscriptions.values()]
      .filter((each) => includeDisabled || each.enabled)
      .sort((a, b) => b.created_at.localeCompare(a.created_at));
    const start = query.get('cursor') ? Number(Buffer.from(query.get('cursor')!, 'base64url').toString()) : 0;
    const limit = Math.min(Number(query.get('limit') ?? this.pageSize), this.pageSize);
    const page = all.slice(start, start + limit);
    const next =
      start + limit < all.length ? Buffer.from(String(start + limit)).toString('base64url') : undefined;
    // The list never shows a signature key.
    const subscriptions = page.map(({ signature_key: _key, ...shown }) => shown);
    return {
      status: 200,
      body: { ...(subscriptions.length ? { subscriptions } : {}), ...(next ? { cursor: next } : {}) },
    };
  }

  private create(input: Record<string, unknown>): Answer {
    const subscription = (input.subscription ?? {}) as Record<string, unknown>;
    const url = subscription.notification_url;
    if (typeof url !== 'string' || url === '') {
      return invalid('MISSING_REQUIRED_PARAMETER', 'Field must be set', 'subscription.notification_url');
    }
    if (!url.startsWith('https://')) {
      return invalid(
        'INVALID_VALUE',
        'The notification URL must use HTTPS.',
        'subscription.notification_url',
      );
    }
    const types = subscription.event_types;
    if (!Array.isArray(types) || types.length === 0) {
      return invalid('MISSING_REQUIRED_PARAMETER', 'Field must be set', 'subscription.event_types');
    }
    const unknown = types.find((type) => !(SQUARE_EVENT_TYPES as readonly unknown[]).includes(type));
    if (unknown !== undefined) {
      return invalid('INVALID_VALUE', `Invalid event type: ${String(unknown)}`, 'subscription.event_types');
    }
    const now = new Date(Date.now() + this.subscriptions.size).toISOString();
    const created: FakeSubscription = {
      id: `wbhk_${randomUUID().replaceAll('-', '')}`,
      name: typeof subscription.name === 'string' ? subscription.name : '',
      enabled: subscription.enabled !== false,
      event_types: types as string[],
      notification_url: url,
      api_version: typeof subscription.api_version === 'string' ? subscription.api_version : '2026-09-16',
      signature_key: randomBytes(16).toString('base64url'),
      created_at: now,
      updated_at: now,
    };
    this.subscriptions.set(created.id, created);
    return { status: 200, body: { subscription: { ...created } } };
  }

  private rotate(id: string): Answer {
    const subscription = this.subscriptions.get(id);
    if (!subscription) return notFound(id);
    subscription.signature_key = randomBytes(16).toString('base64url');
    subscription.updated_at = new Date().toISOString();
    return { status: 200, body: { signature_key: subscription.signature_key } };
  }
}

export const startFakeSquareApi = () => new FakeSquareApi().start();
