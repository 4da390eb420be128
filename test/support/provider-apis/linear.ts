// A local Linear GraphQL endpoint for the webhook operations, as Linear documents them: one POST /graphql,
// `Authorization: <personal API key>` or `Bearer <OAuth token>`, Relay connections (`nodes`, `pageInfo`
// with `hasNextPage`/`endCursor`, `first`/`after`), and errors in the body's `errors` array with
// `extensions.type` ('authentication error', 'forbidden', 'invalid input', ...). It answers by the root
// field the operation selects (`webhooks`, `webhook`, `webhookCreate`, `webhookUpdate`, `webhookDelete`), whatever the
// operation is named, so the SDK's documents and a hand-written query both reach it.
import { randomBytes, randomUUID } from 'node:crypto';
import { type Answer, type ApiRequest, type Handled, ProviderApiServer } from './provider-api-server';

export interface FakeWebhook {
  id: string;
  url: string;
  label: string | null;
  resourceTypes: string[];
  allPublicTeams: boolean;
  teamId: string | null;
  enabled: boolean;
  /** What Linear signs with now. */
  secret: string;
  createdAt: string;
  updatedAt: string;
}

export const LINEAR_KNOWN_RESOURCE_TYPES = [
  'Issue',
  'Attachment',
  'Comment',
  'IssueLabel',
  'Reaction',
  'Project',
  'ProjectUpdate',
  'Document',
  'Initiative',
  'InitiativeUpdate',
  'Cycle',
  'Customer',
  'CustomerNeed',
  'User',
  'IssueSLA',
  'OAuthApp',
] as const;

const graphqlError = (status: number, message: string, type: string, code: string): Answer => ({
  status,
  body: {
    errors: [{ message, extensions: { type, code, userPresentableMessage: message } }],
    data: null,
  },
});

const NOT_AUTHENTICATED = graphqlError(
  400,
  'Authentication required, not authenticated',
  'authentication error',
  'AUTHENTICATION_ERROR',
);
const FORBIDDEN = graphqlError(400, 'Invalid scope: `admin` required', 'forbidden', 'FORBIDDEN');
const invalidInput = (message: string) => graphqlError(400, message, 'invalid input', 'INVALID_INPUT');

function failureBody(status: number): unknown {
  if (status === 429) return graphqlError(429, 'Rate limit exceeded', 'ratelimited', 'RATELIMITED').body;
  return graphqlError(status, 'Internal server error', 'internal error', 'INTERNAL_SERVER_ERROR').body;
}

export class FakeLinearApi extends ProviderApiServer {
  readonly webhooks = new Map<string, FakeWebhook>();
  /** Linear's connections default to 50 a page; small here so a test crosses pages. */
  pageSize = 50;
  /** The credential the endpoint accepts: a personal API key (`lin_api_`) bare, an OAuth token as Bearer. */
  apiKey = `lin_api_${randomBytes(20).toString('hex')}`;
  /** When false the key is good but lacks the admin scope: mutations answer `forbidden`. */
  admin = true;

  constructor() {
    super((request) => this.handle(request), failureBody);
  }

  get graphqlUrl(): string {
    return `${this.url}/graphql`;
  }

  seed(url: string, resourceTypes: string[] = ['Issue']): FakeWebhook {
    const now = new Date().toISOString();
    const webhook: FakeWebhook = {
      id: randomUUID(),
      url,
      label: 'seeded',
      resourceTypes,
      allPublicTeams: true,
      teamId: null,
      enabled: true,
      secret: `lin_wh_${randomBytes(24).toString('base64url')}`,
      createdAt: now,
      updatedAt: now,
    };
    this.webhooks.set(webhook.id, webhook);
    return webhook;
  }

  private handle({ method, path, body, authorization }: ApiRequest): Handled {
    if (authorization === undefined) return { credential: 'none', answer: NOT_AUTHENTICATED };
    const expected = this.apiKey.startsWith('lin_api_') ? this.apiKey : `Bearer ${this.apiKey}`;
    if (authorization !== expected) {
      return { credential: 'refused', answer: NOT_AUTHENTICATED };
    }
    const accepted = (answer: Answer): Handled => ({ credential: 'accepted', answer });
    if (method !== 'POST' || path !== '/graphql') return accepted({ status: 404, body: {} });
    const { query, variables = {} } = (body ?? {}) as { query?: string; variables?: Record<string, unknown> };
    if (typeof query !== 'string')
      return accepted(
        graphqlError(400, 'Must provide query string.', 'graphql error', 'GRAPHQL_VALIDATION_FAILED'),
      );

    const root = /[{\s](webhooks|webhook|webhookCreate|webhookUpdate|webhookDelete)\s*\(/.exec(query)?.[1];
    if (root === 'webhooks') return accepted(this.list(variables));
    if (root === 'webhook') return accepted(this.one(String(variables.id)));
    if (root && !this.admin) return accepted(FORBIDDEN);
    if (root === 'webhookCreate')
      return accepted(this.create((variables.input ?? {}) as Record<string, unknown>));
    if (root === 'webhookUpdate') {
      return accepted(this.update(String(variables.id), (variables.input ?? {}) as Record<string, unknown>));
    }
    if (root === 'webhookDelete') return accepted(this.remove(String(variables.id)));
    return accepted(graphqlError(400, 'Unknown operation', 'graphql error', 'GRAPHQL_VALIDATION_FAILED'));
  }

  /** Reading webhooks needs the admin scope too. */
  private list(variables: Record<string, unknown>): Answer {
    if (!this.admin) return FORBIDDEN;
    const all = [...this.webhooks.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    const first = Math.min(typeof variables.first === 'number' ? variables.first : 50, this.pageSize);
    const after =
      typeof variables.after === 'string' ? all.findIndex((each) => each.id === variables.after) + 1 : 0;
    const page = all.slice(after, after + first);
    return {
      status: 200,
      body: {
        data: {
          webhooks: {
            // A list of webhooks does not show their secrets.
            nodes: page.map(({ secret: _secret, ...shown }) => ({ __typename: 'Webhook', ...shown })),
            pageInfo: {
              hasNextPage: after + first < all.length,
              hasPreviousPage: after > 0,
              startCursor: page[0]?.id ?? null,
              endCursor: page.at(-1)?.id ?? null,
            },
          },
        },
      },
    };
  }

  /** One webhook by id, its secret included: what the SDK fetches after a create. */
  private one(id: string): Answer {
    if (!this.admin) return FORBIDDEN;
    const webhook = this.webhooks.get(id);
    if (!webhook) return invalidInput('Entity not found: Webhook');
    return { status: 200, body: { data: { webhook: { __typename: 'Webhook', ...webhook } } } };
  }

  private create(input: Record<string, unknown>): Answer {
    const { url, resourceTypes, secret, teamId, allPublicTeams, label } = input;
    if (typeof url !== 'string' || !url.startsWith('https://'))
      return invalidInput('url must be a valid https URL');
    if (!Array.isArray(resourceTypes) || resourceTypes.length === 0) {
      return invalidInput('resourceTypes must contain at least one resource type');
    }
    if (resourceTypes.some((type) => !(LINEAR_KNOWN_RESOURCE_TYPES as readonly unknown[]).includes(type))) {
      return invalidInput('resourceTypes contains an unknown resource type');
    }
    if (allPublicTeams !== true && typeof teamId !== 'string') {
      return invalidInput('Either teamId or allPublicTeams must be set');
    }
    const now = new Date(Date.now() + this.webhooks.size).toISOString();
    const webhook: FakeWebhook = {
      id: randomUUID(),
      url,
      label: typeof label === 'string' ? label : null,
      resourceTypes: resourceTypes as string[],
      allPublicTeams: allPublicTeams === true,
      teamId: typeof teamId === 'string' ? teamId : null,
      enabled: true,
      // Linear generates a secret only when the caller sends none.
      secret:
        typeof secret === 'string' && secret !== ''
          ? secret
          : `lin_wh_${randomBytes(24).toString('base64url')}`,
      createdAt: now,
      updatedAt: now,
    };
    this.webhooks.set(webhook.id, webhook);
    return {
      status: 200,
      body: {
        data: {
          webhookCreate: {
            __typename: 'WebhookPayload',
            lastSyncId: 1,
            success: true,
            webhook: { ...webhook },
          },
        },
      },
    };
  }

  private update(id: string, input: Record<string, unknown>): Answer {
    const webhook = this.webhooks.get(id);
    if (!webhook) return invalidInput('Entity not found: Webhook');
    if (typeof input.secret === 'string' && input.secret !== '') webhook.secret = input.secret;
    if (typeof input.url === 'string') webhook.url = input.url;
    if (typeof input.enabled === 'boolean') webhook.enabled = input.enabled;
    webhook.updatedAt = new Date().toISOString();
    return {
      status: 200,
      body: {
        data: {
          webhookUpdate: { __typename: 'WebhookPayload', lastSyncId: 2, success: true, webhook: { id } },
        },
      },
    };
  }

  private remove(id: string): Answer {
    if (!this.webhooks.delete(id)) return invalidInput('Entity not found: Webhook');
    return {
      status: 200,
      body: {
        data: { webhookDelete: { __typename: 'DeletePayload', lastSyncId: 3, success: true, entityId: id } },
      },
    };
  }
}

export const startFakeLinearApi = () => new FakeLinearApi().start();
